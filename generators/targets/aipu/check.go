// Package aipu is the Arm China Compass AIPU plugin target.
package aipu

import (
	"regexp"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// Target generates Compass Parser, OPT and GBuilder plugins with kernels.
type Target struct{}

// Name implements target.Target.
func (Target) Name() string { return "aipu" }

// kernelDTypes are the scalar types of Compass DSL/OpenCL kernels: no
// 64-bit types.
var kernelDTypes = map[ir.DType]bool{
	ir.Int8: true, ir.Uint8: true, ir.Int16: true, ir.Uint16: true, ir.Int32: true, ir.Uint32: true,
	ir.Float16: true, ir.Float32: true, ir.BFloat16: true, ir.Bool: true,
	ir.QInt8: true, ir.QUint8: true, ir.QInt16: true, ir.QUint16: true, ir.QInt32: true, ir.QUint32: true,
}

// KnownTargets are the Compass targets opforge knows toolchain settings for.
var KnownTargets = []string{"X1_1204", "X2_1204", "X2_1204MP3", "X3P_1304", "X3S_1304"}

// constantSuffixes make the Compass IR reader treat a key group as a
// constant tensor, so params may not end in them.
var constantSuffixes = []string{"_offset", "_type", "_size", "_shape"}

// retyped matches string values the OPT IR reader would turn into numbers,
// booleans or dtypes.
var retyped = regexp.MustCompile(`(?i)^([+-]?[0-9.]+([eE][+-]?[0-9]+)?|true|false|u?int(8|16|32|64)|float(16|32|64)|bfloat16|bool)$`)

// Ops returns the ops of pkg this target generates.
func Ops(pkg *ir.Package) []*ir.Op {
	return pkg.OpsWhere(func(op *ir.Op) bool { return op.Targets.AIPU != nil })
}

// Check implements target.Target.
func (Target) Check(pkg *ir.Package, d *diag.TargetList) {
	for _, op := range Ops(pkg) {
		a := op.Targets.AIPU
		for _, t := range a.Targets {
			known := false
			for _, k := range KnownTargets {
				known = known || k == t
			}
			if !known {
				d.Warnf(a.Pos, "aipu-target", "op %s names Compass target %q, which opforge has no toolchain settings for; known: %s", op.Name, t, strings.Join(KnownTargets, ", "))
			}
		}
		for _, t := range op.Tensors() {
			for _, dt := range op.AllowedDTypes(t) {
				if dt.Valid() && !kernelDTypes[dt] {
					d.Errorf(t.Where.At("type", t.Pos), "aipu-dtype", "%q of op %s may be %s; AIPU kernels have no %s type (no 64-bit, string or 4-bit types)", t.Name, op.Name, dt, dt)
				}
			}
		}
		for _, t := range op.Outputs {
			if t.Shape == nil {
				d.Errorf(t.Where.At("name", t.Pos), "aipu-output-shape", "output %q of op %s has no shape; the Parser plugin's infer_shape needs one", t.Name, op.Name)
			}
		}
		for _, p := range op.Params {
			checkParam(op, p, d)
		}
	}
}

func checkParam(op *ir.Op, p *ir.Param, d *diag.TargetList) {
	for _, suf := range constantSuffixes {
		if strings.HasSuffix(p.Ident, suf) {
			d.Errorf(p.Where.At("name", p.Pos), "aipu-param-name", "param %q of op %s ends in %s; the Compass IR reader would take it for part of a constant tensor", p.Name, op.Name, suf)
		}
	}
	check := func(s string, pos diag.Pos) {
		if strings.ContainsAny(s, "=\n") {
			d.Errorf(pos, "aipu-param-value", "value %q of param %q contains '=' or a newline, which Compass IR key=value lines cannot hold", s, p.Name)
		} else if retyped.MatchString(s) {
			d.Warnf(pos, "aipu-param-retyped", "string value %q of param %q looks like a number, boolean or dtype; the Compass IR reader will re-type it", s, p.Name)
		}
	}
	if p.Kind == ir.ParamString && p.Default != nil {
		check(p.Default.Text, p.Where.At("default", p.Pos))
	}
	if p.Kind == ir.ParamEnum {
		for _, v := range p.Values {
			check(v, p.Where.At("values", p.Pos))
		}
	}
}
