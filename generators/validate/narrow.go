package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// narrowings checks what op's target sections narrow for their targets
// (`targets: {<t>: {types: {T: [float32]}, ranks: {x: [1, 4]}}}`): each
// name in types is a type variable or a tensor with a dtype list of its
// own, narrowed to some of the dtypes the op allows there; each name in
// ranks is an input of rank any or a rank range, narrowed within it.
func (v *validator) narrowings(op *ir.Op) {
	for _, sec := range op.Sections {
		if sec.Narrow == nil {
			continue
		}
		for _, t := range sec.Narrow.Types {
			v.narrowType(op, sec.Target, t)
		}
		for _, r := range sec.Narrow.Ranks {
			v.narrowRank(op, sec.Target, r)
		}
	}
}

func (v *validator) narrowType(op *ir.Op, target string, t ir.NarrowType) {
	allowed, why := narrowableDTypes(op, t.Name)
	if why != "" {
		v.l.Errorf(t.Pos, "target-types", "targets.%s.types of op %s: %s", target, op.Name, why)
		return
	}
	if len(t.DTypes) == 0 {
		v.l.Errorf(t.Pos, "target-types", "targets.%s.types of op %s narrows %s to no dtype, which leaves %s no dtype combination of the op; keep at least one of %s, or drop %s from the op's targets", target, op.Name, t.Name, target, dtypeNames(allowed), target)
		return
	}
	for i, d := range t.DTypes {
		switch {
		case !slices.Contains(allowed, d):
			v.l.Errorf(t.At[i], "target-types", "targets.%s.types of op %s narrows %s to %s, which %s does not allow; a target takes some of the op's dtypes: %s", target, op.Name, t.Name, d, t.Name, dtypeNames(allowed))
		case slices.Contains(t.DTypes[:i], d):
			v.l.Errorf(t.At[i], "target-types", "targets.%s.types of op %s lists %s twice for %s", target, op.Name, d, t.Name)
		}
	}
}

// narrowableDTypes are the dtypes name allows (a type variable, or a
// tensor with a dtype list of its own), or why name cannot be narrowed.
func narrowableDTypes(op *ir.Op, name string) ([]ir.DType, string) {
	if tv := op.TypeVar(name); tv != nil {
		return tv.Allowed, ""
	}
	for _, t := range op.Tensors() {
		switch {
		case t.Name != name:
		case t.Type.Var != "":
			return nil, fmt.Sprintf("tensor %q takes the dtypes of type variable %s; narrow %s", name, t.Type.Var, t.Type.Var)
		case len(t.Type.DTypes) < 2:
			return nil, fmt.Sprintf("tensor %q has the one dtype %s; there is nothing to narrow", name, dtypeNames(t.Type.DTypes))
		default:
			return t.Type.DTypes, ""
		}
	}
	return nil, fmt.Sprintf("%q is neither a type variable nor a tensor of the op%s", name, nearestName(name, narrowableNames(op)))
}

// narrowableNames are the op's type variables and the tensors with dtype
// lists of their own.
func narrowableNames(op *ir.Op) []string {
	var out []string
	for _, tv := range op.TypeVars {
		out = append(out, tv.Name)
	}
	for _, t := range op.Tensors() {
		if t.Type.Var == "" && len(t.Type.DTypes) > 1 {
			out = append(out, t.Name)
		}
	}
	return out
}

func (v *validator) narrowRank(op *ir.Op, target string, r ir.NarrowRank) {
	in := op.Input(r.Input)
	if in == nil || in.Rank != ir.RankAny {
		var poly []string
		for _, t := range op.Inputs {
			if t.Rank == ir.RankAny && t.Shape == nil {
				poly = append(poly, t.Name)
			}
		}
		why := fmt.Sprintf("%q is no input of the op%s", r.Input, nearestName(r.Input, poly))
		if in != nil {
			why = fmt.Sprintf("input %q has a fixed rank; only inputs of rank any or a rank range narrow", r.Input)
		}
		v.l.Errorf(r.Pos, "target-ranks", "targets.%s.ranks of op %s: %s", target, op.Name, why)
		return
	}
	lo, hi := 0, ir.MaxRank
	if in.RankRange != nil {
		lo, hi = in.RankRange.Min, in.RankRange.Max
	}
	if !r.Within(in.RankRange) {
		v.l.Errorf(r.ValuePos, "target-ranks", "targets.%s.ranks of op %s narrows input %q to ranks %d to %d; a target takes some of the input's ranks, %d to %d, lowest first", target, op.Name, r.Input, r.Min, r.Max, lo, hi)
	}
}

// nearestName is "; did you mean X?" for a near name among known, else
// the list of known names ("" when there are none).
func nearestName(got string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, got) || names.Distance(k, got) <= 2 && len(got) > 2 {
			return fmt.Sprintf("; did you mean %q?", k)
		}
	}
	if len(known) == 0 {
		return ""
	}
	return "; it has " + strings.Join(known, ", ")
}
