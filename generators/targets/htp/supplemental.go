package htp

import (
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
)

// checkSupplementals checks the package's SupplementalOpDefLists against
// its ops, QNN's way: entries naming no op, tensor or param are warnings
// (the QNN generator accepts and ignores them), and a BACKEND_SPECIFIC
// dtype or layout of an op's tensor needs a supplemental definition for
// each backend the op names.
func checkSupplementals(pkg *ir.Package, d *diag.TargetList) {
	ops := map[string]*ir.Op{}
	for _, op := range pkg.Ops {
		ops[op.Name] = op
	}
	supplementals := htpopt.OfPackage(pkg).Supplementals
	checkSupplementalDTypes(supplementals, d)
	resolved := map[string]bool{} // backend/op/tensor
	for _, s := range supplementals {
		for i, name := range s.SupportedOps {
			if ops[name] == nil {
				pos := s.Pos
				if i < len(s.SupportedOpsPos) {
					pos = s.SupportedOpsPos[i]
				}
				d.Warnf(pos, "qnn-supplemental-unknown", "SupplementalOpDefList for %s lists op %q in SupportedOps, which no OpDef defines; the QNN generator accepts this and opforge ignores the entry", s.Backend, name)
			}
		}
		for _, so := range s.Ops {
			op := ops[so.Name]
			if op == nil {
				d.Warnf(so.Pos, "qnn-supplemental-unknown", "supplemental definition for %s names op %q, which no OpDef defines; the QNN generator accepts this and opforge ignores the entry", s.Backend, so.Name)
				continue
			}
			check := func(list []*htpopt.SupplementalTensor, exists func(string) bool, kind string) {
				for _, st := range list {
					if !exists(st.Name) {
						d.Warnf(st.Pos, "qnn-supplemental-unknown", "supplemental definition of op %s for %s names %s %q, which the op does not have; the QNN generator accepts this and opforge ignores the entry", op.Name, s.Backend, kind, st.Name)
					}
					if len(st.DTypes) > 0 {
						resolved[s.Backend+"/"+op.Name+"/"+st.Name+"/dtype"] = true
					}
					if len(st.Layouts) > 0 {
						resolved[s.Backend+"/"+op.Name+"/"+st.Name+"/layout"] = true
					}
				}
			}
			check(so.Inputs, func(n string) bool { return op.Input(n) != nil }, "input")
			check(so.Outputs, func(n string) bool { return output(op, n) != nil }, "output")
			check(so.Params, func(n string) bool { return op.Param(n) != nil }, "param")
		}
	}
	for _, op := range pkg.Ops {
		h := htpopt.OfOp(op)
		if h == nil {
			continue
		}
		for _, backend := range h.Backends {
			for _, t := range op.Tensors() {
				backendSpecific(d, resolved, backend, op, t.Name, op.AllowedDTypes(t), t.Layout, t.Where.At("type", t.Pos), t.Where.At("layout", t.Pos))
			}
			for _, p := range op.Params {
				backendSpecific(d, resolved, backend, op, p.Name, p.DTypes, p.Layout, p.Where.At("type", p.Pos), p.Where.At("layout", p.Pos))
			}
		}
	}
}

// checkSupplementalDTypes reports the dtypes of supplemental definitions
// opforge does not know (the opdef schema refuses them in YAML, QNN's XML
// loader names the datatypes it cannot map; IR built otherwise gets them
// reported here).
func checkSupplementalDTypes(list []*htpopt.Supplemental, d *diag.TargetList) {
	for _, s := range list {
		for _, so := range s.Ops {
			for _, part := range [][]*htpopt.SupplementalTensor{so.Inputs, so.Outputs, so.Params} {
				for _, st := range part {
					for i, dt := range st.DTypes {
						if !dt.Valid() {
							d.Errorf(st.DTypePos(i), "unknown-dtype", "unknown dtype %q; known dtypes: %s", string(dt), strings.Join(ir.DTypeNames(), ", "))
						}
					}
				}
			}
		}
	}
}

func backendSpecific(d *diag.TargetList, resolved map[string]bool, backend string, op *ir.Op, name string, dts []ir.DType, layout ir.Layout, pos, layoutPos diag.Pos) {
	for _, dt := range dts {
		if dt == ir.BackendSpecific && !resolved[backend+"/"+op.Name+"/"+name+"/dtype"] {
			d.Errorf(pos, "backend-specific-unresolved", "%q of op %s has a BACKEND_SPECIFIC datatype but no supplemental definition for backend %s gives it one", name, op.Name, backend)
		}
	}
	if layout == ir.LayoutBackendSpecific && !resolved[backend+"/"+op.Name+"/"+name+"/layout"] {
		d.Errorf(layoutPos, "backend-specific-unresolved", "%q of op %s has a BACKEND_SPECIFIC layout but no supplemental definition for backend %s gives it one", name, op.Name, backend)
	}
}

func output(op *ir.Op, name string) *ir.Tensor {
	for _, t := range op.Outputs {
		if t.Name == name {
			return t
		}
	}
	return nil
}
