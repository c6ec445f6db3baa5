package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// NarrowingHint ends a target's dtype error with the YAML that narrows
// op's dtypes for target to those it takes (takes): the op's whole
// `targets:` line, every other target's section as it is and target's
// with the narrowed types, since an op that lists its targets generates
// for those alone. It is "" when no narrowing helps: a tensor of one
// dtype the target does not take, or a type variable or dtype list of
// which it takes none; or for an op of a format other than YAML, which
// cannot narrow.
func NarrowingHint(op *ir.Op, target string, takes func(ir.DType) bool) string {
	sec := op.Sections.Get(target)
	if sec == nil || !isYAML(op.Pos.File) || fixedDTypeRefused(op, takes) {
		return ""
	}
	var types []ir.NarrowType
	if sec.Narrow != nil {
		types = slices.Clone(sec.Narrow.Types)
	}
	changed := false
	for _, name := range narrowableNames(op) {
		allowed, _ := narrowableDTypes(op, name)
		kept := slices.DeleteFunc(slices.Clone(allowed), func(d ir.DType) bool { return !takes(d) })
		if len(kept) == len(allowed) {
			continue
		}
		if len(kept) == 0 {
			return ""
		}
		changed = true
		types = setNarrowType(types, ir.NarrowType{Name: name, DTypes: kept})
	}
	if !changed {
		return ""
	}
	return fmt.Sprintf("; to generate the op for %s without it, narrow its dtypes there: targets: %s", target, targetsWith(op, target, types).FlowText())
}

// fixedDTypeRefused reports a tensor of one dtype that takes refuses.
func fixedDTypeRefused(op *ir.Op, takes func(ir.DType) bool) bool {
	return slices.ContainsFunc(op.Tensors(), func(t *ir.Tensor) bool {
		return t.Type.Var == "" && len(t.Type.DTypes) == 1 && !takes(t.Type.DTypes[0])
	})
}

// setNarrowType replaces the narrowing of t.Name, or appends t.
func setNarrowType(types []ir.NarrowType, t ir.NarrowType) []ir.NarrowType {
	for i := range types {
		if types[i].Name == t.Name {
			types[i] = t
			return types
		}
	}
	return append(types, t)
}

// targetsWith is op's targets map with target's section narrowed to types.
func targetsWith(op *ir.Op, target string, types []ir.NarrowType) *ir.Node {
	m := ir.Map(true)
	for _, sec := range op.Sections {
		if sec.Target != target {
			m.Set(sec.Target, orEmpty(sec.Written()))
			continue
		}
		narrow := &ir.Narrowing{Types: types}
		if sec.Narrow != nil {
			narrow.Ranks = sec.Narrow.Ranks
		}
		own := *sec
		own.Narrow = narrow
		m.Set(sec.Target, orEmpty(own.Written()))
	}
	return m
}

func orEmpty(n *ir.Node) *ir.Node {
	if n == nil {
		return ir.Map(true)
	}
	return n
}

// isYAML: the op was written in opforge's YAML, the one format whose
// target sections narrow.
func isYAML(path string) bool {
	return strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")
}
