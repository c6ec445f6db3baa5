// Package trt is the NVIDIA TensorRT plugin target.
package trt

import (
	"fmt"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// Target generates TensorRT plugins.
type Target struct{}

// Name implements target.Target.
func (Target) Name() string { return "trt" }

// maxNameBytes is TensorRT's limit on plugin name, version and namespace
// strings, terminator included.
const maxNameBytes = 1024

// qdpReservedNamespaces and qdpReservedArgs come from tensorrt.plugin's
// validation rules.
var (
	qdpReservedNamespaces = map[string]bool{"": true, "trt": true, "tensorrt": true, "std": true}
	qdpReservedArgs       = map[string]bool{"outputs": true, "stream": true, "tactic": true}
	// qdpArrayDTypes are the NDArray element dtypes QDP attributes accept.
	qdpArrayDTypes = map[ir.DType]bool{ir.Int8: true, ir.Int16: true, ir.Int32: true, ir.Int64: true, ir.Float16: true, ir.Float32: true, ir.Float64: true, ir.Bool: true}
)

// Ops returns the ops of pkg this target generates.
func Ops(pkg *ir.Package) []*ir.Op {
	return pkg.OpsWhere(func(op *ir.Op) bool { return op.Targets.TRT != nil })
}

// Check implements target.Target.
func (Target) Check(pkg *ir.Package, d *diag.TargetList) {
	ops := Ops(pkg)
	if len(ops) == 0 {
		return
	}
	for _, s := range []struct{ what, v string }{{"namespace", pkg.Namespace}, {"version", pkg.Version}} {
		if len(s.v)+1 > maxNameBytes {
			d.Errorf(pkg.Where.At(s.what, pkg.Pos), "trt-name-length", "plugin %s is %d bytes; TensorRT allows %d including the terminator", s.what, len(s.v), maxNameBytes)
		}
	}
	anyQDP := false
	for _, op := range ops {
		checkOp(op, d)
		anyQDP = anyQDP || op.Targets.TRT.QDP != nil
	}
	if anyQDP {
		if qdpReservedNamespaces[pkg.Namespace] {
			d.Errorf(pkg.Where.At("namespace", pkg.Where.At("domain", pkg.Pos)), "qdp-namespace", "namespace %q is reserved for Python plugins (reserved: \"\", trt, tensorrt, std); set package.namespace", pkg.Namespace)
		}
		if strings.Contains(pkg.Namespace, ".") {
			d.Errorf(pkg.Where.At("namespace", pkg.Where.At("domain", pkg.Pos)), "qdp-namespace", "namespace %q contains '.', which Python plugin ids cannot; set package.namespace (it defaults to the domain)", pkg.Namespace)
		}
	}
}

func checkOp(op *ir.Op, d *diag.TargetList) {
	t := op.Targets.TRT
	for _, in := range op.Inputs {
		checkTensor(op, in, d, false)
	}
	for _, out := range op.Outputs {
		checkTensor(op, out, d, true)
		if out.Shape == nil {
			d.Errorf(out.Where.At("name", out.Pos), "trt-output-shape", "output %q of op %s has no shape; TensorRT plugins must compute output shapes, so give it one (e.g. shape: [N, C])", out.Name, op.Name)
		}
	}
	for _, a := range t.Aliases {
		var out, in *ir.Tensor
		for _, o := range op.Outputs {
			if o.Name == a.Output {
				out = o
			}
		}
		in = op.Input(a.Input)
		if out == nil || in == nil {
			d.Errorf(a.Pos, "trt-alias", "alias %s -> %s of op %s names an unknown output or input", a.Output, a.Input, op.Name)
		}
	}
	for _, p := range op.Params {
		if p.Kind == ir.ParamEnum || len(p.DTypes) == 0 {
			continue
		}
		// A param listing alternatives needs one TensorRT can carry; the
		// plugin takes the first such.
		if fieldDType(p) == "" {
			d.Errorf(p.Where.At("type", p.Pos), "trt-param-dtype", "param %q of op %s has dtype %s, which TensorRT plugin fields cannot carry (no PluginFieldType)", p.Name, op.Name, p.DTypes[0])
		}
	}
	if t.QDP != nil {
		checkQDP(op, d)
	}
}

func checkTensor(op *ir.Op, t *ir.Tensor, d *diag.TargetList, output bool) {
	pos := t.Where.At("type", t.Pos)
	for _, dt := range op.AllowedDTypes(t) {
		info := dt.Info()
		if info == nil {
			continue
		}
		if info.TRT == "" {
			d.Errorf(pos, "trt-dtype", "%q of op %s may be %s, which TensorRT tensors cannot be (no nvinfer1::DataType)", t.Name, op.Name, dt)
		} else if output && (dt == ir.Bool || dt == ir.Uint8) {
			d.Errorf(pos, "trt-output-dtype", "output %q of op %s may be %s; TensorRT plugins cannot produce kBOOL or kUINT8 outputs", t.Name, op.Name, dt)
		}
	}
	if t.Variadic {
		d.Errorf(t.Where.At("variadic", t.Pos), "trt-variadic", "variadic %q of op %s: TensorRT plugins have a fixed number of inputs and outputs", t.Name, op.Name)
	}
}

// checkQDP enforces tensorrt.plugin's rules for the Python plugin.
func checkQDP(op *ir.Op, d *diag.TargetList) {
	var defaulted []string
	for _, p := range op.Params {
		pos := p.Where.At("name", p.Pos)
		switch {
		case qdpReservedArgs[p.Name]:
			d.Errorf(pos, "qdp-reserved-name", "param %q of op %s: outputs, stream and tactic are reserved argument names in Python plugins", p.Name, op.Name)
		case !names.IsIdent(p.Name) || names.Reserved(p.Name) == "a Python keyword":
			d.Errorf(pos, "qdp-attr-name", "param %q of op %s is not a Python identifier, so it cannot be a Python plugin attribute; rename it or disable qdp", p.Name, op.Name)
		}
		switch p.Kind {
		case ir.ParamTensor:
			what := fmt.Sprintf("a rank-%d tensor", p.Rank)
			if p.Rank == ir.RankAny {
				what = "a tensor of any rank"
			}
			d.Errorf(p.Where.At("rank", p.Pos), "qdp-attr-type", "param %q of op %s is %s; Python plugin attributes are scalars, strings or 1-D arrays", p.Name, op.Name, what)
		case ir.ParamArray:
			if len(p.DTypes) > 0 && !qdpArrayDTypes[p.DTypes[0]] {
				d.Errorf(p.Where.At("type", p.Pos), "qdp-attr-type", "param %q of op %s is an array of %s; Python plugin arrays hold int8, int16, int32, int64, float16, float32, float64 or bool", p.Name, op.Name, p.DTypes[0])
			}
		}
		if p.Default != nil {
			defaulted = append(defaulted, p.Name)
		}
	}
	if len(defaulted) > 0 {
		d.Warnf(op.Where.At("params", op.Pos), "qdp-default", "op %s: Python plugin attributes take no defaults, so callers of its Python plugin must pass %s explicitly (the C++ plugin applies the defaults)", op.Name, strings.Join(defaulted, ", "))
	}
}

// fieldDType is the first of a param's dtypes a PluginField can carry, or "".
func fieldDType(p *ir.Param) ir.DType {
	for _, dt := range p.DTypes {
		if info := dt.Info(); info != nil && info.TRTField != "" {
			return dt
		}
	}
	return ""
}
