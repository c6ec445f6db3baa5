package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// opdefCase builds one case of the opdef's verify section (validate
// checked its names and values): the base case with the symbols, input
// shapes, params and dtype choices it sets. c.Name is set even when err
// is not nil.
func opdefCase(op *ir.Op, f *ir.Facts, combos [][]ir.DType, base []Param, vc ir.VerifyCase) (c Case, err error) {
	name := vc.Name
	var parts []string
	// Sizes: one per drawn symbol (build cycles none), the base size unless set.
	drawn := drawnSymbols(op, f)
	sizes := slices.Repeat([]int64{ir.VerifyBaseSize}, max(len(drawn), 1))
	set := func(sym string, v int64) {
		if i := slices.Index(drawn, sym); i >= 0 {
			sizes[i] = v
		}
	}
	for _, d := range vc.Dims {
		set(d.Symbol, d.Value)
		parts = append(parts, d.Symbol+"="+strconv.FormatInt(d.Value, 10))
	}
	given := map[string][]int64{}
	for _, sh := range vc.Shapes {
		in := op.Input(sh.Input)
		if in == nil {
			continue // validate reported it
		}
		given[in.Name] = sh.Dims
		for j, d := range in.Shape {
			if j < len(sh.Dims) && d.Expr != nil && d.Expr.IsSymbol() {
				set(d.Expr.Name, sh.Dims[j])
			}
		}
		dims := make([]string, len(sh.Dims))
		for j, d := range sh.Dims {
			dims[j] = strconv.FormatInt(d, 10)
		}
		parts = append(parts, in.Ident+"=("+strings.Join(dims, ",")+")")
	}
	params := slices.Clone(base)
	for _, vp := range vc.Params {
		i := op.ParamIndex(vp.Name)
		if i < 0 {
			continue
		}
		params[i] = paramValue(op.Params[i], vp.Value)
		parts = append(parts, op.Params[i].Ident+"="+show(params[i].Value))
	}
	combo := slices.Clone(combos[0])
	for _, vt := range vc.Types {
		i := slices.IndexFunc(f.Slots, func(s ir.DTypeSlot) bool {
			return s.Var == vt.Name || s.Var == "" && op.Inputs[s.Input].Name == vt.Name
		})
		if i < 0 {
			continue
		}
		if !slices.Contains(f.Slots[i].Allowed, vt.DType) {
			// The target narrows the op's dtypes (targets.<t>.types).
			return Case{Name: cmp.Or(name, vt.Name+"="+string(vt.DType))}, fmt.Errorf("this target takes no %s for %s", vt.DType, vt.Name)
		}
		combo[i] = vt.DType
		parts = append(parts, vt.Name+"="+string(vt.DType))
	}
	if name == "" {
		name = strings.Join(parts, ",")
	}
	for _, d := range combo {
		if _, ok := torchKind(d); !ok {
			return Case{Name: name}, fmt.Errorf("torch cannot make %s tensors", d)
		}
	}
	c, err = build(op, f, sizes, combo, params, len(op.Inputs), 0, given)
	c.Name = name
	return c, err
}
