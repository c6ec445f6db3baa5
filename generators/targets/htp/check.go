// Package htp is the Qualcomm QNN HTP op-package target.
package htp

import (
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
	"github.com/opforge/opforge/generators/validate"
)

// knownBackends are the backend names QNN tools accept in SupportedBackend.
var knownBackends = map[string]bool{"HTP": true, "HTPMCP": true, "HTP_FP16": true, "CPU": true, "DSP": true, "GPU": true, "LPAI": true, "AIC": true}

// scalarDefaultDTypes are the dtypes an HTP package can hold a scalar
// default for (the Qnn_Scalar_t fields the generated statics fill).
var scalarDefaultDTypes = map[ir.DType]bool{ir.Float32: true, ir.Uint32: true, ir.Int32: true, ir.Uint16: true, ir.Int16: true, ir.Int8: true, ir.Uint8: true, ir.Bool: true}

// Ops returns the ops of pkg this target generates: those with an htp
// section that name an HTP backend.
func Ops(pkg *ir.Package) []*ir.Op {
	return pkg.OpsWhere(func(op *ir.Op) bool { h := htpopt.OfOp(op); return h != nil && h.NamesHTP() })
}

// Check implements target.Target.
func (Target) Check(pkg *ir.Package, d *diag.TargetList) {
	htpopt.Decode(pkg)
	checkSupplementals(pkg, d)
	executorch := htpopt.OfPackage(pkg).ExecuTorch
	if executorch {
		checkTorchNames(pkg, d)
	}
	for _, op := range pkg.Ops {
		h := htpopt.OfOp(op)
		if h == nil {
			continue
		}
		for _, b := range h.Backends {
			if !knownBackends[b] {
				d.Warnf(h.Pos, "qnn-backend", "op %s names unknown QNN backend %q; known: AIC, CPU, DSP, GPU, HTP, HTPMCP, HTP_FP16, LPAI", op.Name, b)
			}
		}
		if !h.NamesHTP() {
			d.Warnf(h.Pos, "htp-no-backend", "op %s supports backends %s but no HTP backend; the htp target skips it", op.Name, strings.Join(h.Backends, ", "))
			continue
		}
		checkVariantBackends(op, h, d)
		checkOp(op, d)
		checkParamTyped(op, d)
		if executorch {
			checkExecuTorch(op, d)
		}
	}
}

func checkOp(op *ir.Op, d *diag.TargetList) {
	if len(op.Inputs) == 0 {
		d.Errorf(op.Pos, "htp-no-input", "op %s has no inputs; QNN op definitions need at least one", op.Name)
	}
	hint := validate.NarrowingHint(op, "htp", takesDType)
	for _, t := range op.Tensors() {
		pos := t.Where.At("type", t.Pos)
		for _, dt := range op.AllowedDTypes(t) {
			if !takesDType(dt) {
				d.Errorf(pos, "htp-dtype", "tensor %s: dtype %s has no QNN datatype%s", t.Name, dt, hint)
			}
		}
		if t.Variadic {
			d.Errorf(t.Where.At("variadic", t.Where.At("repeated", t.Pos)), "htp-variadic", "variadic %q of op %s: HTP op packages cannot be generated for variadic operations%s", t.Name, op.Name, countedWhy(t))
		}
		checkLayout(d, t.Where.At("layout", t.Pos), t.Layout, t.Name)
		if t.Rank > 5 {
			d.Errorf(t.Where.At("shape", t.Pos), "htp-rank", "%q of op %s has rank %d; QNN ranks go up to 5D (or ND)", t.Name, op.Name, t.Rank)
		}
	}
	for _, p := range op.Params {
		pos := p.Where.At("type", p.Pos)
		for _, dt := range p.DTypes {
			checkDType(d, pos, dt, "param "+p.Name)
		}
		checkLayout(d, p.Where.At("layout", p.Pos), p.Layout, p.Name)
		if p.Default != nil && isScalarDefault(p) && len(p.DTypes) > 0 && p.DTypes[0].Valid() && !scalarDefaultDTypes[p.DTypes[0]] {
			d.Errorf(p.Where.At("default", p.Pos), "htp-default-dtype", "param %q has a scalar default of dtype %s; HTP packages hold scalar defaults only for float32, uint32, int32, uint16, int16, int8, uint8 and bool", p.Name, p.DTypes[0])
		}
		if p.Kind == ir.ParamTensor && p.Rank > 5 {
			d.Errorf(p.Where.At("rank", p.Pos), "htp-rank", "param %q has rank %d; QNN ranks go up to 5D (or ND)", p.Name, p.Rank)
		}
	}
}

// isScalarDefault reports params whose default becomes a Qnn_Scalar_t.
func isScalarDefault(p *ir.Param) bool {
	switch p.Kind {
	case ir.ParamScalar, ir.ParamBool, ir.ParamEnum:
		return true
	}
	return false
}

func checkDType(d *diag.TargetList, pos diag.Pos, dt ir.DType, what string) {
	if !takesDType(dt) {
		d.Errorf(pos, "htp-dtype", "%s: dtype %s has no QNN datatype", what, dt)
	}
}

// takesDType reports a dtype an HTP op package can take (an invalid one
// is the schema's to report).
func takesDType(dt ir.DType) bool {
	return !dt.Valid() || qnnxml.QNNName(dt) != "" && dt != ir.Float64
}

func checkLayout(d *diag.TargetList, pos diag.Pos, l ir.Layout, name string) {
	if l == ir.LayoutNCHW || l == ir.LayoutNCDHW {
		d.Errorf(pos, "htp-layout", "%q has layout %s; QNN has no channels-first layout (use NHWC/NDHWC or undefined)", name, l)
	}
}

// checkTorchNames refuses two ops of a package registered under one torch
// op name (torch.library would take only the last), whether the names
// were given (torch_name) or derived (snake case).
func checkTorchNames(pkg *ir.Package, d *diag.TargetList) {
	seen := map[string]*ir.Op{}
	for _, op := range pkg.Ops {
		h := htpopt.OfOp(op)
		if h == nil {
			continue
		}
		name := TorchName(op)
		if first, dup := seen[name]; dup {
			d.Errorf(h.Where.At("torch_name", op.Pos), "executorch-torch-name", "ops %s and %s both register the torch op %s (the ExecuTorch module's ops.%s); give one another targets.htp.torch_name", first.Name, op.Name, torchQualName(pkg, op), name)
			continue
		}
		seen[name] = op
	}
}

// checkVariantBackends says what opforge emits for HTP_FP16 and HTPMCP,
// for which qnn-op-package-generator uses other templates (HTP_FP16: the
// impl instantiated with F16CroutonTensor; HTPMCP: its own interface).
func checkVariantBackends(op *ir.Op, h *htpopt.Op, d *diag.TargetList) {
	plain := false
	for _, b := range h.Backends {
		plain = plain || b == "HTP"
	}
	for _, b := range h.Backends {
		switch b {
		case "HTP_FP16":
			d.Warnf(h.Pos, "htp-variant-backend", "op %s names backend HTP_FP16: qnn-op-package-generator would instantiate its impl with F16CroutonTensor; opforge generates the HTP skeleton (Tensor)%s", op.Name, sameOrSkip(plain))
		case "HTPMCP":
			d.Warnf(h.Pos, "htp-variant-backend", "op %s names backend HTPMCP: qnn-op-package-generator would write the multi-core (MCP) interface; opforge generates the HTP interface and op skeleton%s", op.Name, sameOrSkip(plain))
		}
	}
}

func sameOrSkip(plain bool) string {
	if plain {
		return "; the op is generated once, as for HTP"
	}
	return "; register it with the HTP backend, or write the variant's code in the user regions"
}

// ImportSection implements target.Importer: an op imported from ONNX runs
// on the plain HTP backend.
func (Target) ImportSection(opType, name string) *ir.Node {
	return htpopt.EncodeOp(&htpopt.Op{Backends: []string{"HTP"}})
}

// countedWhy says why a count param does not make a variadic tensor
// possible here: the op package's kernel, its QNN op config and the
// ExecuTorch custom op are generated with one argument per declared tensor.
func countedWhy(t *ir.Tensor) string {
	if t.Count == "" {
		return ""
	}
	return ", counted or not: the generated kernel, op config and ExecuTorch op take one argument per declared tensor, so count: " + t.Count + " cannot size them"
}
