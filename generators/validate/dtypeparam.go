package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// dtypeParam checks a tensor whose dtype a param chooses (dtype_param):
// the param is an enum of dtype names or an integer dtype code of the op,
// every dtype it may name is one the tensor's type lists, and an output's
// type is a list of dtypes (an output's type variable is decided by the
// inputs, not by a param; an input's is bound by it).
func (v *validator) dtypeParam(op *ir.Op, t *ir.Tensor) {
	if t.DTypeParam == "" {
		return
	}
	pos := t.Where.At("dtype_param", t.Pos)
	p := op.Param(t.DTypeParam)
	if p == nil {
		v.l.Errorf(pos, "dtype-param", "%s %q takes its dtype from param %q, which op %s does not have; %s", tensorRole(op, t), t.Name, t.DTypeParam, op.Name, dtypeParamHint(op, t.DTypeParam))
		return
	}
	if !p.ChoosesDTypes() {
		v.l.Errorf(pos, "dtype-param", "%s %q takes its dtype from param %q, which is %s; it must be an enum whose values are dtype names (values: [float32, float16, ...]) or an integer param with dtype_code and codes", tensorRole(op, t), t.Name, p.Name, p.Kind)
		return
	}
	isInput := slices.Contains(op.Inputs, t)
	if t.Type.Var != "" && !isInput {
		v.l.Errorf(t.Where.At("type", t.Pos), "dtype-param", "output %q is typed by type variable %s, which the inputs decide, but its dtype_param %q would choose it; list the dtypes param %s may choose as the output's type, or put dtype_param on the input that decides %s", t.Name, t.Type.Var, p.Name, p.Name, t.Type.Var)
		return
	}
	allowed := op.AllowedDTypes(t)
	var bad []string
	for _, d := range p.ChosenDTypes() {
		if !slices.Contains(allowed, d) {
			bad = append(bad, string(d))
		}
	}
	if len(bad) == 0 {
		return
	}
	what := "values " + strings.Join(bad, ", ") + " are not dtypes the " + tensorRole(op, t) + "'s type lists"
	if len(bad) == 1 {
		what = "value " + bad[0] + " is not a dtype the " + tensorRole(op, t) + "'s type lists"
	}
	list := make([]string, len(allowed))
	for i, d := range allowed {
		list[i] = string(d)
	}
	at := p.Where.At("values", p.Pos)
	if p.DTypeCode != nil {
		at = p.Where.At("codes", p.Pos)
	}
	v.l.Errorf(at, "dtype-param", "param %q chooses the dtype of %s %q, but %s (%s)", p.Name, tensorRole(op, t), t.Name, what, strings.Join(list, ", "))
}

// tensorRole is "input" or "output", for messages.
func tensorRole(op *ir.Op, t *ir.Tensor) string {
	if slices.Contains(op.Inputs, t) {
		return "input"
	}
	return "output"
}

// dtypeParamHint suggests the dtype-choosing param meant by a name the op
// lacks.
func dtypeParamHint(op *ir.Op, name string) string {
	var choosers []string
	near, best := "", 3
	for _, q := range op.Params {
		if q.ChoosesDTypes() {
			choosers = append(choosers, q.Name)
			if d := names.Distance(q.Name, name); d < best {
				near, best = q.Name, d
			}
		}
	}
	switch {
	case near != "":
		return fmt.Sprintf("did you mean %q?", near)
	case len(choosers) > 0:
		return "the op's dtype-choosing params are " + strings.Join(choosers, ", ")
	}
	return "declare an enum param whose values are dtype names, or an integer param with dtype_code"
}
