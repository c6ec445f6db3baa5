package torchimport

import (
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/yamldef"
)

// Fit makes each op generate for each of its targets as the target can:
// a target that refuses some of the op's dtypes gets the op narrowed to
// the rest there (targets.<t>.types), and a target that refuses the op
// for another reason (a data-dependent size, an optional input, a string
// param) drops it, with a warning that quotes the target's reason. The
// opdef the user reads then validates, and says why an op lacks a target.
func Fit(pkg *ir.Package) []Warning {
	var ws []Warning
	for _, op := range pkg.Ops {
		for _, t := range sectionTargets(op) {
			errs := targetErrors(pkg, op, t)
			if len(errs) == 0 {
				continue
			}
			if w, ok := plainFits(pkg, op, t, errs); ok {
				ws = append(ws, w)
				continue
			}
			if !slices.ContainsFunc(errs, dtypeError) {
				ws = append(ws, drop(op, t, errs))
				continue
			}
			kept := keptDTypes(pkg, op, t)
			if len(kept) == 0 {
				ws = append(ws, drop(op, t, errs))
				continue
			}
			op.Sections.Get(t).Narrow = &ir.Narrowing{Types: []ir.NarrowType{{Name: "T", DTypes: kept}}}
			if errs := targetErrors(pkg, op, t); len(errs) > 0 {
				ws = append(ws, drop(op, t, errs))
			}
		}
	}
	return ws
}

// plainFits gives op target t's plain import section (the one an ONNX
// import writes) where the torch one (target.TorchImporter: more of the
// target, e.g. a Python plugin beside a C++ one) is refused and
// the plain one is not: the op keeps the target, with a warning quoting
// what the torch section's extra part refused.
func plainFits(pkg *ir.Package, op *ir.Op, t string, errs []diag.Diagnostic) (Warning, bool) {
	im := registry.Importers()[t]
	if _, ok := im.(target.TorchImporter); !ok {
		return Warning{}, false
	}
	sec := op.Sections.Get(t)
	torchNode := sec.Node
	sec.Node, sec.Canonical = im.ImportSection(op.Name, op.Name), nil
	if len(targetErrors(pkg, op, t)) > 0 {
		sec.Node = torchNode
		return Warning{}, false
	}
	var why []string
	for _, e := range errs {
		why = append(why, e.Message+" ["+e.Code+"]")
	}
	return Warning{Op: op.Name, Code: "torch-target", Message: "generated for " + t + " with its plain import section (what import onnx writes), since it refuses the torch one: " + strings.Join(why, "; ")}, true
}

func sectionTargets(op *ir.Op) []string {
	var ts []string
	for _, s := range op.Sections {
		ts = append(ts, s.Target)
	}
	return ts
}

// dtypeError is a target's refusal of a dtype of a tensor (not of a
// param, whose dtype the schema fixed).
func dtypeError(d diag.Diagnostic) bool {
	return strings.HasSuffix(d.Code, "-dtype") && !strings.Contains(d.Code, "param")
}

// keptDTypes are the dtypes of op's T that target t takes, each tried
// alone.
func keptDTypes(pkg *ir.Package, op *ir.Op, t string) []ir.DType {
	var kept []ir.DType
	sec := op.Sections.Get(t)
	for _, d := range op.TypeVars[0].Allowed {
		sec.Narrow = &ir.Narrowing{Types: []ir.NarrowType{{Name: "T", DTypes: []ir.DType{d}}}}
		if !slices.ContainsFunc(targetErrors(pkg, op, t), dtypeError) {
			kept = append(kept, d)
		}
	}
	sec.Narrow = nil
	return kept
}

func drop(op *ir.Op, t string, errs []diag.Diagnostic) Warning {
	op.Sections = slices.DeleteFunc(op.Sections, func(s *ir.Section) bool { return s.Target == t })
	var why []string
	for _, e := range errs {
		why = append(why, e.Message+" ["+e.Code+"]")
	}
	return Warning{Op: op.Name, Code: "torch-target", Message: "not generated for " + t + ", which refuses it: " + strings.Join(why, "; ")}
}

// targetErrors are target t's errors about op in the package as written.
func targetErrors(pkg *ir.Package, op *ir.Op, t string) []diag.Diagnostic {
	one := *pkg
	one.Ops = []*ir.Op{op}
	data, err := yamldef.Write(&one, yamldef.DefaultSchemaPath)
	if err != nil {
		return []diag.Diagnostic{{Code: "internal", Target: t, Message: err.Error()}}
	}
	var l diag.List
	if p := load.Parse("import.yaml", data, &l); p != nil && !l.HasErrors() {
		load.Validate(p, &l)
		registry.Check(&l, p)
	}
	var errs []diag.Diagnostic
	for _, d := range l.Sorted() {
		if d.Severity == diag.Error && d.Target == t {
			errs = append(errs, d)
		}
	}
	return errs
}
