package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// dtypeParam checks an output whose dtype a param chooses (dtype_param):
// the param is an enum of the op, every value names a dtype the output's
// type lists, and the output's type is a list of dtypes (a type variable
// is decided by the inputs, not by a param).
func (v *validator) dtypeParam(op *ir.Op, t *ir.Tensor) {
	if t.DTypeParam == "" {
		return
	}
	pos := t.Where.At("dtype_param", t.Pos)
	p := op.Param(t.DTypeParam)
	if p == nil {
		var enums []string
		near, best := "", 3
		for _, q := range op.Params {
			if q.Kind == ir.ParamEnum {
				enums = append(enums, q.Name)
				if d := names.Distance(q.Name, t.DTypeParam); d < best {
					near, best = q.Name, d
				}
			}
		}
		hint := "declare an enum param whose values are dtype names"
		switch {
		case near != "":
			hint = fmt.Sprintf("did you mean %q?", near)
		case len(enums) > 0:
			hint = "the op's enum params are " + strings.Join(enums, ", ")
		}
		v.l.Errorf(pos, "dtype-param", "output %q takes its dtype from param %q, which op %s does not have; %s", t.Name, t.DTypeParam, op.Name, hint)
		return
	}
	if p.Kind != ir.ParamEnum {
		v.l.Errorf(pos, "dtype-param", "output %q takes its dtype from param %q, which is %s; it must be an enum whose values are dtype names (values: [float32, float16, ...])", t.Name, p.Name, p.Kind)
		return
	}
	if t.Type.Var != "" {
		v.l.Errorf(t.Where.At("type", t.Pos), "dtype-param", "output %q is typed by type variable %s, which the inputs decide, but its dtype_param %q would choose it; list the dtypes param %s may choose as the output's type", t.Name, t.Type.Var, p.Name, p.Name)
		return
	}
	var bad []string
	for _, val := range p.Values {
		if !slices.Contains(t.Type.DTypes, ir.DType(val)) {
			bad = append(bad, val)
		}
	}
	if len(bad) > 0 {
		what := "values " + strings.Join(bad, ", ") + " are not dtypes the output's type lists"
		if len(bad) == 1 {
			what = "value " + bad[0] + " is not a dtype the output's type lists"
		}
		list := make([]string, len(t.Type.DTypes))
		for i, d := range t.Type.DTypes {
			list[i] = string(d)
		}
		v.l.Errorf(p.Where.At("values", p.Pos), "dtype-param", "param %q chooses the dtype of output %q, but %s (%s)", p.Name, t.Name, what, strings.Join(list, ", "))
	}
}
