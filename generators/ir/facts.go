package ir

import (
	"fmt"
	"slices"

	"github.com/opforge/opforge/generators/shapeexpr"
)

// Facts are what every target derives the same way from a checked op:
// which input dim gives each shape symbol its value, the op's free dtype
// choices, and how each output's dtype follows from the inputs'. The
// validator computes them once (Op.Facts) and every target reads them, so
// no two of the targets' C++ plugins, Python plugins, fake implementations
// and parser plugins can disagree about an op.
type Facts struct {
	// Bindings lists every dim symbol of the input shapes, in order of
	// first use, with the input dim that binds it (Binding).
	Bindings []Binding
	// Slots are the free dtype choices, in input order: a type variable
	// at the first input that uses it, or an input with a list of dtypes
	// of its own. Every dtype combination of the op is one dtype per slot.
	Slots []DTypeSlot
	// Outputs says how each output's dtype is decided, by output index.
	Outputs []OutputDType
	// Shapes says how each output's shape is decided, by output index.
	Shapes []OutputShape
}

// ShapeRule names how an output's shape is decided.
type ShapeRule int

const (
	// ShapeDeclared: the output's own dims (Tensor.Shape).
	ShapeDeclared ShapeRule = iota
	// ShapeSameAs: input Input's shape, dims and rank alike (Tensor.Like).
	ShapeSameAs
	// ShapeUnknown: neither is given (rank any without a rule).
	ShapeUnknown
	// ShapeBroadcastOf: the broadcast of inputs Inputs' shapes
	// (Tensor.Broadcast).
	ShapeBroadcastOf
)

// OutputShape is the shape rule for one output.
type OutputShape struct {
	Rule  ShapeRule
	Input int // ShapeSameAs: index into Op.Inputs
	// Inputs are ShapeBroadcastOf's inputs, indexes into Op.Inputs.
	Inputs []int
}

// RankPolymorphic reports whether some data input or output of the op has
// no fixed rank.
func (o *Op) RankPolymorphic() bool {
	for _, ts := range [][]*Tensor{o.Inputs, o.Outputs} {
		for _, t := range ts {
			if t.Shape == nil && !t.Scalar && t.Rank == RankAny {
				return true
			}
		}
	}
	return false
}

// Binding is the input dim a shape symbol takes its value from.
//
// A symbol may appear in several inputs. The binding is the first of them
// that is always there and is a data tensor; failing that, the first
// optional data tensor; failing that, the first shape tensor (a runtime
// may not read a shape input's own dims, so there it binds nothing).
type Binding struct {
	Symbol string
	Input  int // index into Op.Inputs
	Dim    int
}

// DTypeSlot is one free dtype choice.
type DTypeSlot struct {
	// Var is the type variable, or "" for an input's own list.
	Var string
	// Input is the index (into Op.Inputs) of the input that decides it.
	Input   int
	Allowed []DType
	// ByParam: the input's dtype_param decides it, not the input: Param
	// (index into Op.Params) names the dtype, and Allowed are the dtypes
	// it may name, in its order.
	ByParam bool
	Param   int
}

// DTypeRule names how an output's dtype is decided.
type DTypeRule int

const (
	// DTypeFixed: always DType (a single allowed dtype; a type variable no
	// input binds; an op without data inputs).
	DTypeFixed DTypeRule = iota
	// DTypeSameAs: the dtype of input Input, which has the output's type
	// variable; DType when that input is optional and absent.
	DTypeSameAs
	// DTypeFollow: an output with a list of dtypes of its own takes the
	// dtype of input Input (the first data input, which is required) when
	// the list has it, else DType, the list's first.
	DTypeFollow
	// DTypeParam: the value of param Param (an enum whose values are
	// dtype names, or a dtype code) is the dtype; DType is its default's,
	// else the first value's.
	DTypeParam
)

// OutputDType is the rule for one output.
type OutputDType struct {
	Rule  DTypeRule
	Input int   // DTypeSameAs, DTypeFollow: index into Op.Inputs
	Param int   // DTypeParam: index into Op.Params
	DType DType // DTypeFixed; the fallback of the other rules
	// Allowed are the output's dtypes.
	Allowed []DType
}

// Derived returns the op's facts: those the validator stored, or, for an
// op built by hand (tests), freshly derived ones.
func (o *Op) Derived() *Facts {
	if o.Facts != nil {
		return o.Facts
	}
	return Derive(o)
}

// Binding returns the binding of a dim symbol.
func (f *Facts) Binding(symbol string) (Binding, bool) {
	for _, b := range f.Bindings {
		if b.Symbol == symbol {
			return b, true
		}
	}
	return Binding{}, false
}

// bindingClass orders the inputs a symbol may bind from: lower is better.
func bindingClass(t *Tensor) int {
	switch {
	case t.ShapeTensor:
		return 2
	case t.Optional:
		return 1
	}
	return 0
}

// Derive computes the facts of op. It assumes a validated op: every type
// variable a tensor names is declared.
func Derive(op *Op) *Facts {
	f := &Facts{}
	class := map[string]int{}
	for i, in := range op.Inputs {
		c := bindingClass(in)
		for j, d := range in.Shape {
			if d.Expr == nil || !d.Expr.IsSymbol() {
				continue
			}
			name := d.Expr.Name
			have, seen := class[name]
			switch {
			case !seen:
				class[name] = c
				f.Bindings = append(f.Bindings, Binding{Symbol: name, Input: i, Dim: j})
			case c < have:
				class[name] = c
				for k := range f.Bindings {
					if f.Bindings[k].Symbol == name {
						f.Bindings[k].Input, f.Bindings[k].Dim = i, j
					}
				}
			}
		}
	}

	// A type variable is decided by the first input using it that is always
	// there, else by the first optional one.
	varInput := map[string]int{}
	for i, in := range op.Inputs {
		if v := in.Type.Var; v != "" {
			if j, ok := varInput[v]; !ok || op.Inputs[j].Optional && !in.Optional {
				varInput[v] = i
			}
		}
	}
	slotted := map[string]bool{}
	for i, in := range op.Inputs {
		// The facts hold copies of the op's lists, never the lists: an op
		// and its facts are kept together (ircodec), which carries no
		// list reached twice.
		allowed := slices.Clone(op.AllowedDTypes(in))
		switch v := in.Type.Var; {
		case v != "":
			if !slotted[v] {
				slotted[v] = true
				f.Slots = append(f.Slots, inputSlot(op, DTypeSlot{Var: v, Input: i, Allowed: allowed}))
			}
		case len(allowed) > 1 || in.DTypeParam != "":
			f.Slots = append(f.Slots, inputSlot(op, DTypeSlot{Input: i, Allowed: allowed}))
		}
	}

	follow := -1
	for i, in := range op.Inputs {
		if !in.ShapeTensor {
			if !in.Optional {
				follow = i
			}
			break
		}
	}
	f.Outputs = make([]OutputDType, len(op.Outputs))
	for i, o := range op.Outputs {
		allowed := slices.Clone(op.AllowedDTypes(o))
		r := OutputDType{Rule: DTypeFixed, DType: firstDType(allowed), Allowed: allowed}
		if p, j := paramOf(op, o.DTypeParam); p != nil {
			r.Rule, r.Param, r.Allowed = DTypeParam, j, p.ChosenDTypes()
			r.DType = firstDType(r.Allowed)
			if d := p.ChosenDefault(); d != "" {
				r.DType = d
			}
		} else if j, ok := varInput[o.Type.Var]; ok && o.Type.Var != "" {
			r.Rule, r.Input = DTypeSameAs, j
		} else if o.Type.Var == "" && len(allowed) > 1 && follow >= 0 {
			r.Rule, r.Input = DTypeFollow, follow
		}
		f.Outputs[i] = r
	}
	f.Shapes = make([]OutputShape, len(op.Outputs))
	for i, o := range op.Outputs {
		switch {
		case o.Like != nil:
			f.Shapes[i] = OutputShape{Rule: ShapeUnknown}
			for j, in := range op.Inputs {
				if in.Name == o.Like.Input {
					f.Shapes[i] = OutputShape{Rule: ShapeSameAs, Input: j}
				}
			}
		case o.Broadcast != nil:
			r := OutputShape{Rule: ShapeBroadcastOf}
			for _, name := range o.Broadcast.Inputs {
				for j, in := range op.Inputs {
					if in.Name == name {
						r.Inputs = append(r.Inputs, j)
					}
				}
			}
			if len(r.Inputs) != len(o.Broadcast.Inputs) {
				r = OutputShape{Rule: ShapeUnknown}
			}
			f.Shapes[i] = r
		case o.Shape == nil:
			f.Shapes[i] = OutputShape{Rule: ShapeUnknown}
		}
	}
	return f
}

// inputSlot is s bound by a dtype_param, when its input (or, for a type
// variable, any input of that variable) has one: the slot then takes the
// param's dtypes.
func inputSlot(op *Op, s DTypeSlot) DTypeSlot {
	for i, in := range op.Inputs {
		if i != s.Input && (s.Var == "" || in.Type.Var != s.Var) {
			continue
		}
		if p, j := paramOf(op, in.DTypeParam); p != nil {
			s.ByParam, s.Param, s.Allowed = true, j, p.ChosenDTypes()
			return s
		}
	}
	return s
}

// paramOf is the dtype-choosing param called name and its index, or nil.
func paramOf(op *Op, name string) (*Param, int) {
	if name == "" {
		return nil, -1
	}
	for i, p := range op.Params {
		if p.Name == name && p.ChoosesDTypes() {
			return p, i
		}
	}
	return nil, -1
}

func firstDType(ds []DType) DType {
	if len(ds) == 0 {
		return Float32
	}
	return ds[0]
}

// LikeDims evaluates a shape written relative to an input: in are the
// input's dims, env gives the axis param's value (by name) and the names
// of the replacing dim. It is what every target's rendering computes.
func LikeDims(l *ShapeLike, in []int64, env shapeexpr.Env) ([]int64, error) {
	if l.Axis == "" {
		return slices.Clone(in), nil
	}
	axis, ok := env.Symbol(l.Axis)
	if !ok {
		return nil, fmt.Errorf("no value for axis param %s", l.Axis)
	}
	n := int64(len(in))
	if axis < -n || axis >= n {
		return nil, fmt.Errorf("axis %d is not an axis of a rank-%d tensor", axis, n)
	}
	if axis < 0 {
		axis += n
	}
	mode := l.Mode
	if mode == AxisKeepIf {
		keep, ok := env.Symbol(l.KeepParam)
		if !ok {
			return nil, fmt.Errorf("no value for keep param %s", l.KeepParam)
		}
		mode = AxisRemove
		if keep != 0 {
			mode = AxisKeep
		}
	}
	out := make([]int64, 0, len(in))
	for d, v := range in {
		if int64(d) != axis {
			out = append(out, v)
			continue
		}
		switch mode {
		case AxisKeep:
			out = append(out, 1)
		case AxisReplace:
			r, err := l.Replace.Expr.Eval(env)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// BroadcastDims is the numpy broadcast of shapes: aligned at the last
// dim, each dim the common size where a 1 (or a missing dim) stretches.
func BroadcastDims(shapes ...[]int64) ([]int64, error) {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for j, v := range s {
			d := n - len(s) + j
			switch {
			case v == out[d] || v == 1:
			case out[d] == 1:
				out[d] = v
			default:
				return nil, fmt.Errorf("dims %d and %d do not broadcast", out[d], v)
			}
		}
	}
	return out, nil
}
