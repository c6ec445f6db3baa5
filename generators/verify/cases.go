package verify

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// Case is one run of an op: concrete input shapes and dtypes, param
// values, and the output shapes the opdef gives for them.
type Case struct {
	Name    string   `json:"name"` // what differs from the op's base case, e.g. "N=1,C=1 T=float16"
	Inputs  []Tensor `json:"inputs"`
	Params  []Param  `json:"params"`
	Outputs []Tensor `json:"outputs"`
	Seed    int      `json:"seed"`
	// Sizes are the op's data-dependent sizes, in opdef order (the order
	// a runtime that returns sizes as outputs gives them).
	Sizes []string `json:"sizes,omitempty"`
	// seq is the case's number in the run (Run's shards and merges).
	seq int
}

// Tensor is one input or output of a case.
type Tensor struct {
	Name  string `json:"name"`
	DType string `json:"dtype"` // the torch dtype name
	Kind  string `json:"kind"`  // "float", "int", "uint", "bool"
	// Native is the runner's own name of the dtype (a DTypeNamer's; ""
	// for other runners).
	Native string  `json:"native,omitempty"`
	Shape  []int64 `json:"shape"` // nil: data-dependent (outputs), or absent
	Absent bool    `json:"absent,omitempty"`
	// Values of a shape tensor (its elements are sizes).
	Values []int64 `json:"values,omitempty"`
	// Range is an integer input's values, both ends included (the opdef's
	// range evaluated for the case); the runner draws within it.
	Range []int64 `json:"range,omitempty"`
	// Variadic inputs are passed as a list of one tensor.
	Variadic bool `json:"variadic,omitempty"`
	// Upper is a data-dependent output's shape with every data-dependent
	// size at its upper bound (what a runtime allocates); SizeDims names,
	// per dim, the size it is ("" a fixed dim, "?" an expression over
	// sizes, which runners that need the split cannot take).
	Upper    []int64  `json:"upper,omitempty"`
	SizeDims []string `json:"size_dims,omitempty"`

	dtype ir.DType // the opdef's, for a DTypeNamer
}

// Param is one param value of a case: Value as the reference receives it
// (enums by name), Index the enum's index (the torch schema takes ints).
type Param struct {
	Name  string `json:"name"` // the identifier (the reference's keyword)
	Kind  string `json:"kind"`
	Value any    `json:"value"`
	Index int    `json:"index,omitempty"`
	Array bool   `json:"array,omitempty"`
}

// Sizes are the values each shape symbol takes across the size cases: all
// ones, all odd, and a mix of distinct sizes (so a swapped dim shows).
var sizeSets = [][]int64{{3}, {1}, {2, 5, 3, 7}}

// dtypeKinds are the dtypes the runner can make tensors of, with their kind.
func torchKind(d ir.DType) (string, bool) {
	info := d.Info()
	if info == nil || info.Torch == "" {
		return "", false
	}
	switch info.Kind {
	case ir.KindFloat:
		return "float", true
	case ir.KindInt:
		return "int", true
	case ir.KindUint:
		return "uint", true
	case ir.KindBool:
		return "bool", true
	}
	return "", false
}

// Cases builds the cases of op: the base case (every symbol 3, the first
// dtype combination, every param at its default), each dtype combination,
// each size set, and each param at its min, max and every enum or bool
// value. Cases whose output shapes are negative or do not evaluate are
// left out. skipped explains dtype combinations torch cannot hold.
func Cases(op *ir.Op) (cases []Case, notes []string) {
	f := op.Derived()
	combos, dropped := dtypeCombos(f)
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d dtype combination(s) left out: quantized or other dtypes torch cannot make", dropped))
	}
	if len(combos) == 0 {
		return nil, append(notes, "no dtype combination that torch can make")
	}
	base := baseParams(op)
	seen := map[string]bool{}
	var rank int // of the rank-polymorphic inputs; 0: rank 4, every dim 3
	var addAbsent func(name string, sizes []int64, combo []ir.DType, params []Param, present int)
	all := len(op.Inputs)
	add := func(name string, sizes []int64, combo []ir.DType, params []Param) {
		addAbsent(name, sizes, combo, params, all)
	}
	addAbsent = func(name string, sizes []int64, combo []ir.DType, params []Param, present int) {
		c, err := build(op, f, sizes, combo, params, present, rank, nil)
		if err != nil {
			notes = append(notes, fmt.Sprintf("case %s left out: %v", name, err))
			return
		}
		key := fmt.Sprint(c.Inputs, c.Params)
		if seen[key] {
			return
		}
		seen[key] = true
		c.Name = name
		c.Seed = len(cases) + 1
		cases = append(cases, c)
	}
	add("base", sizeSets[0], combos[0], base)
	for _, combo := range combos[1:] {
		add(comboName(f, combo), sizeSets[0], combo, base)
	}
	for _, sizes := range sizeSets[1:] {
		add(sizeName(op, f, sizes), sizes, combos[0], base)
	}
	// Trailing optional inputs left out, from the last one back: the node
	// without them (a bias-less convolution).
	for k := all - 1; k >= 0 && op.Inputs[k].Optional && !op.Inputs[k].Variadic; k-- {
		var names []string
		for _, in := range op.Inputs[k:] {
			names = append(names, in.Ident)
		}
		addAbsent("absent="+strings.Join(names, ","), sizeSets[0], combos[0], base, k)
	}
	for i, p := range op.Params {
		for _, v := range paramVariants(op, p, base[i]) {
			params := slices.Clone(base)
			params[i] = v
			add(p.Ident+"="+show(v.Value), sizeSets[0], combos[0], params)
		}
	}
	// Rank-polymorphic inputs: every rank they all admit, dims of distinct sizes (so a
	// wrong axis or a swapped dim shows).
	lo, hi := polyRanks(op)
	for r := lo; r <= hi; r++ {
		rank = r
		add("rank="+strconv.Itoa(r), sizeSets[2], combos[0], base)
	}
	// An axis param: every axis it can name within its own range, over dims of
	// distinct sizes, at one rank of the rank-polymorphic inputs (3 where they
	// admit it) or at the rank of the fixed-rank input it indexes.
	for i, p := range op.Params {
		in := axisInput(op, p)
		if in == nil {
			continue
		}
		var r int
		name := ""
		switch {
		case polyInput(in) && lo <= hi:
			r = min(max(3, lo), hi)
			rank = r
			name = "rank=" + strconv.Itoa(r) + " "
		case !polyInput(in):
			r, rank = len(in.Shape), 0
			if in.Shape == nil {
				r = in.Rank
			}
			name = "dims "
		default:
			continue
		}
		for a := -r; a < r; a++ {
			if !p.Admits(float64(a)) {
				continue // the plugins refuse it when they are created
			}
			params := slices.Clone(base)
			params[i] = Param{Name: p.Ident, Kind: string(p.Kind), Value: int64(a)}
			add(name+p.Ident+"="+strconv.Itoa(a), sizeSets[2], combos[0], params)
		}
	}
	rank = 0
	// Odd sizes, one dim spanning several blocks (large.go).
	if sizes, r, name, why := largeCase(op, f, combos[0], base); why != "" {
		notes = append(notes, "no large case: "+why)
	} else {
		rank = r
		add(name, sizes, combos[0], base)
		rank = 0
	}
	if v := op.Verify; v != nil {
		// The opdef's own cases: always run (the user asked for each),
		// under their own names.
		for _, vc := range v.Cases {
			c, err := opdefCase(op, f, combos, base, vc)
			if err != nil {
				notes = append(notes, fmt.Sprintf("opdef case %s left out: %v", c.Name, err))
				continue
			}
			if slices.ContainsFunc(cases, func(o Case) bool { return o.Name == c.Name }) {
				c.Name += " (opdef)"
			}
			c.Seed = len(cases) + 1
			cases = append(cases, c)
		}
	}
	return cases, notes
}

// polyRanks is the ranks every rank-polymorphic input of op admits (1 to
// 8 for rank any, 0 only where every range names it); lo > hi when op has
// none.
func polyRanks(op *ir.Op) (lo, hi int) {
	lo, hi = 1, 0
	found := false
	for _, in := range op.Inputs {
		if !polyInput(in) {
			continue
		}
		rmin, rmax := 1, ir.MaxRank
		if rr := in.RankRange; rr != nil {
			rmin, rmax = rr.Min, rr.Max
		}
		if !found {
			lo, hi, found = rmin, rmax, true
			continue
		}
		lo, hi = max(lo, rmin), min(hi, rmax)
	}
	return lo, hi
}

// polyInput reports an input of no declared shape and no fixed rank.
func polyInput(t *ir.Tensor) bool { return t.Shape == nil && !t.Scalar && t.Rank == ir.RankAny }

// axisInput is the input whose axis integer param p names (an output
// shaped like it along p, or x.shape[p] in an output's shape), or nil.
func axisInput(op *ir.Op, p *ir.Param) *ir.Tensor {
	if p.Kind != ir.ParamScalar {
		return nil
	}
	for _, o := range op.Outputs {
		if o.Like != nil && o.Like.Axis == p.Name {
			return op.Input(o.Like.Input)
		}
		for _, d := range o.Shape {
			for _, e := range d.Expr.Symbols() {
				if e.Kind == shapeexpr.Dim && e.Axis == p.Name {
					return op.Input(e.Name)
				}
			}
		}
	}
	return nil
}

func show(v any) string {
	switch x := v.(type) {
	case []any:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = show(e)
		}
		return "(" + strings.Join(s, ",") + ")"
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func comboName(f *ir.Facts, combo []ir.DType) string {
	parts := make([]string, len(combo))
	for i, s := range f.Slots {
		name := s.Var
		if name == "" {
			name = "#" + strconv.Itoa(s.Input)
		}
		parts[i] = name + "=" + string(combo[i])
	}
	return strings.Join(parts, ",")
}

// drawnSymbols are the op's shape symbols in binding order, less those
// its verify section computes: the ones the size sets give values.
func drawnSymbols(op *ir.Op, f *ir.Facts) []string {
	var out []string
	for _, b := range f.Bindings {
		if v := op.Verify; v != nil && slices.ContainsFunc(v.Sizes, func(s ir.VerifySize) bool { return s.Symbol == b.Symbol }) {
			continue
		}
		out = append(out, b.Symbol)
	}
	return out
}

func sizeName(op *ir.Op, f *ir.Facts, sizes []int64) string {
	drawn := drawnSymbols(op, f)
	parts := make([]string, len(drawn))
	for i, sym := range drawn {
		parts[i] = sym + "=" + strconv.FormatInt(sizes[i%len(sizes)], 10)
	}
	if len(parts) == 0 {
		return "sizes"
	}
	return strings.Join(parts, ",")
}

// dtypeCombos is every combination of one dtype per slot, in order, less
// those with a dtype torch cannot make.
func dtypeCombos(f *ir.Facts) (combos [][]ir.DType, dropped int) {
	combos = [][]ir.DType{{}}
	for _, s := range f.Slots {
		var next [][]ir.DType
		for _, c := range combos {
			for _, d := range s.Allowed {
				next = append(next, append(slices.Clone(c), d))
			}
		}
		combos = next
	}
	kept := combos[:0]
	for _, c := range combos {
		if slices.ContainsFunc(c, func(d ir.DType) bool { _, ok := torchKind(d); return !ok }) {
			dropped++
			continue
		}
		kept = append(kept, c)
	}
	return kept, dropped
}

// baseParams is every param at its default; a param without one at its
// min, or 1 (true, the first enum value, an empty string).
func baseParams(op *ir.Op) []Param {
	ps := make([]Param, len(op.Params))
	for i, p := range op.Params {
		if p.Default != nil {
			ps[i] = paramValue(p, p.Default)
			continue
		}
		ps[i] = fallback(p)
	}
	return ps
}

func fallback(p *ir.Param) Param {
	v := Param{Name: p.Ident, Kind: string(p.Kind), Array: p.Kind == ir.ParamArray}
	one := func() any {
		if lo, _ := innerBounds(p); lo != nil {
			return number(p, *lo)
		}
		return number(p, 1)
	}
	if p.DTypeCode != nil {
		v.Value = p.DTypeCode.Codes[0] // any other value the plugins refuse
		return v
	}
	switch p.Kind {
	case ir.ParamEnum:
		v.Value = p.Values[0]
	case ir.ParamBool:
		v.Value = true
	case ir.ParamString:
		v.Value = ""
	case ir.ParamArray:
		n := max(p.Length, 1)
		vals := make([]any, n)
		for i := range vals {
			vals[i] = one()
		}
		v.Value = vals
	default:
		v.Value = one()
	}
	return v
}

func number(p *ir.Param, x float64) any {
	if len(p.DTypes) > 0 && p.DTypes[0].IsFloat() {
		return x
	}
	return int64(x)
}

// paramValue converts a literal to the value the reference receives.
func paramValue(p *ir.Param, l *ir.Literal) Param {
	v := Param{Name: p.Ident, Kind: string(p.Kind), Array: p.Kind == ir.ParamArray}
	v.Value = literal.Of(p, l).Go()
	if p.Kind == ir.ParamEnum {
		if s, ok := v.Value.(string); ok {
			v.Index = max(slices.Index(p.Values, s), 0)
		}
	}
	return v
}

// paramVariants are the other values a param is tried at: its min and
// max, every enum value, both bools, and values of either sign away from
// its default where a bound is missing (awayVariants).
func paramVariants(op *ir.Op, p *ir.Param, base Param) []Param {
	if p.DTypeCode != nil {
		return codeVariants(p)
	}
	var out []Param
	mk := func(val any) Param {
		v := Param{Name: p.Ident, Kind: string(p.Kind), Array: p.Kind == ir.ParamArray, Value: val}
		if s, ok := val.(string); ok && p.Kind == ir.ParamEnum {
			v.Index = slices.Index(p.Values, s)
		}
		return v
	}
	switch p.Kind {
	case ir.ParamEnum:
		for _, s := range p.Values {
			out = append(out, mk(s))
		}
	case ir.ParamBool:
		out = append(out, mk(false), mk(true))
	case ir.ParamScalar, ir.ParamArray:
		lo, hi := innerBounds(p)
		for _, b := range []*float64{lo, hi} {
			if b == nil || math.Abs(*b) > 64 {
				continue // a far bound makes huge outputs; the value checks cover it
			}
			val := number(p, *b)
			if p.Kind == ir.ParamArray {
				n := p.Length
				if p.Default != nil && p.Default.Kind == ir.LitList {
					n = len(p.Default.List)
				}
				vals := make([]any, max(n, 1))
				for i := range vals {
					vals[i] = val
				}
				out = append(out, mk(vals))
				continue
			}
			out = append(out, mk(val))
		}
		out = append(out, awayVariants(op, p, base)...)
	}
	return out
}

// build makes the case: symbols bound in Facts order to sizes (cycled),
// dtypes per slot, output shapes evaluated; inputs from index present on
// are absent (trailing optional inputs); rank > 0 gives rank-polymorphic
// inputs that rank; given are inputs' shapes an opdef case sets (an input
// of a declared shape must come out that shape).
func build(op *ir.Op, f *ir.Facts, sizes []int64, combo []ir.DType, params []Param, present, rank int, given map[string][]int64) (Case, error) {
	params = bindDTypeParams(op, f, combo, params)
	env, err := caseEnv(op, f, sizes, params)
	if err != nil {
		return Case{}, err
	}
	// Inputs and Outputs start empty, not nil: the runners iterate them, and
	// an op without inputs (a prior-box generator) would hand them JSON null.
	b := &caseBuilder{op: op, f: f, sizes: sizes, env: env, dtypes: newCaseDTypes(f, combo), c: Case{Params: params, Inputs: []Tensor{}, Outputs: []Tensor{}}}
	inDTypes, err := b.inputs(present, rank, given)
	if err != nil {
		return b.c, err
	}
	if err := brokenRelation(op, b.env); err != nil {
		return b.c, err
	}
	if err := b.outputs(inDTypes, params); err != nil {
		return b.c, err
	}
	for _, s := range op.DataDependent {
		b.c.Sizes = append(b.c.Sizes, s.Name)
	}
	return b.c, nil
}

// caseEnv binds the symbols a case's shapes use: the drawn ones in Facts
// order to sizes (cycled), the params' values, then the computed sizes.
func caseEnv(op *ir.Op, f *ir.Facts, sizes []int64, params []Param) (shapeexpr.MapEnv, error) {
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}, TensorDims: map[string][]int64{},
		Floats: map[string]float64{}, FloatElements: map[string][]float64{}}
	for i, sym := range drawnSymbols(op, f) {
		env.Symbols[sym] = sizes[i%len(sizes)]
	}
	for i, p := range op.Params {
		bindParam(env, p.Name, params[i].Value)
	}
	if v := op.Verify; v != nil {
		// Computed symbols, over the drawn ones and the params (validate
		// saw to it that they use no other computed one).
		for _, cs := range v.Sizes {
			n, err := cs.Value.Expr.Eval(env)
			if err != nil {
				return env, fmt.Errorf("size %s: %v", cs.Symbol, err)
			}
			if n < 1 || n > 1<<16 {
				return env, fmt.Errorf("size %s = %s is %d", cs.Symbol, cs.Value.Expr, n)
			}
			env.Symbols[cs.Symbol] = n
		}
	}
	return env, nil
}

// bindParam binds the param name to its value: an integer as a symbol
// and a one-element list, a float as a float (shapes round it: floor(H *
// scale)), an array as the list of its integers or of its floats, a bool
// as 1 or 0.
func bindParam(env shapeexpr.MapEnv, name string, value any) {
	switch v := value.(type) {
	case int64:
		env.Symbols[name] = v
		env.Elements[name] = []int64{v}
	case bool:
		// 1 or 0, for a shape whose axis dim a bool param keeps.
		env.Symbols[name] = int64(boolInt(v))
	case float64:
		env.Floats[name] = v
		env.FloatElements[name] = []float64{v}
	case []any:
		var ints []int64
		var floats []float64
		for _, e := range v {
			switch n := e.(type) {
			case int64:
				ints = append(ints, n)
			case float64:
				floats = append(floats, n)
			}
		}
		// A float array's elements, and so its len(), are its floats.
		if len(floats) > 0 {
			env.FloatElements[name] = floats
		} else {
			env.Elements[name] = ints
		}
	}
}

// caseDTypes are a dtype combination's dtypes: per input slot, and per
// type variable.
type caseDTypes struct {
	slotOf map[int]ir.DType
	varOf  map[string]ir.DType
}

// newCaseDTypes reads combo, a dtype per slot of f.
func newCaseDTypes(f *ir.Facts, combo []ir.DType) caseDTypes {
	dt := caseDTypes{slotOf: map[int]ir.DType{}, varOf: map[string]ir.DType{}}
	for i, s := range f.Slots {
		if s.Var != "" {
			dt.varOf[s.Var] = combo[i]
		} else {
			dt.slotOf[s.Input] = combo[i]
		}
	}
	return dt
}

// input is input idx's dtype: its type variable's, its slot's, or its
// one dtype.
func (dt caseDTypes) input(op *ir.Op, t *ir.Tensor, idx int) (ir.DType, error) {
	if t.Type.Var != "" {
		if d, ok := dt.varOf[t.Type.Var]; ok {
			return d, nil
		}
	}
	if d, ok := dt.slotOf[idx]; ok {
		return d, nil
	}
	allowed := op.AllowedDTypes(t)
	if len(allowed) == 0 {
		return "", fmt.Errorf("%s has no dtype", t.Name)
	}
	return allowed[0], nil
}

// caseBuilder makes one case's tensors in c, inputs first: their shapes
// bind the symbols (env) the outputs' shapes read.
type caseBuilder struct {
	op     *ir.Op
	f      *ir.Facts
	sizes  []int64
	env    shapeexpr.MapEnv
	dtypes caseDTypes
	c      Case
}

// inputs adds the op's inputs to the case (see build for present, rank
// and given) and returns their dtypes.
func (b *caseBuilder) inputs(present, rank int, given map[string][]int64) ([]ir.DType, error) {
	var inDTypes []ir.DType
	for i, in := range b.op.Inputs {
		d, err := b.dtypes.input(b.op, in, i)
		if err != nil {
			return inDTypes, err
		}
		inDTypes = append(inDTypes, d)
		kind, ok := torchKind(d)
		if !ok {
			return inDTypes, fmt.Errorf("input %s: torch cannot make %s", in.Name, d)
		}
		info := d.Info()
		t := Tensor{Name: in.Ident, DType: info.Torch, Kind: kind, Variadic: in.Variadic, dtype: d}
		if i >= present {
			t.Absent = true
		} else if err := b.presentInput(in, &t, rank, given); err != nil {
			return inDTypes, err
		}
		b.c.Inputs = append(b.c.Inputs, t)
	}
	return inDTypes, nil
}

// presentInput gives the present input in (t, of dtype t.dtype) its
// shape, its values' range and, for a shape tensor, its values; it binds
// its dims and values for the shapes after it.
func (b *caseBuilder) presentInput(in *ir.Tensor, t *Tensor, rank int, given map[string][]int64) error {
	shape, err := b.inputShape(in, rank, given)
	if err != nil {
		return err
	}
	if _, set := given[in.Name]; !set {
		shape = oneOfShape(b.op, in, shape, b.env)
	}
	t.Shape = shape
	b.env.TensorDims[in.Name] = shape
	if in.Range != nil {
		r, err := valueRange(in.Range, t.dtype, b.env)
		if err != nil {
			return fmt.Errorf("input %s: %v", in.Name, err)
		}
		t.Range = r
	}
	if in.ShapeTensor {
		// Its elements are sizes: the symbol sizes, cycled.
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		for j := int64(0); j < n && j < 64; j++ {
			t.Values = append(t.Values, b.sizes[int(j)%len(b.sizes)])
		}
		b.env.Elements[in.Name] = t.Values
		b.env.Elements[in.Ident] = t.Values
	}
	return nil
}

// inputShape is input in's shape: its declared one, the case's rank for a
// rank-polymorphic input (rank > 0), or the opdef case's (given), which
// must agree with a declared shape.
func (b *caseBuilder) inputShape(in *ir.Tensor, rank int, given map[string][]int64) ([]int64, error) {
	shape, err := evalShape(in, b.env)
	if err != nil {
		return nil, fmt.Errorf("input %s: %v", in.Name, err)
	}
	if rank > 0 && polyInput(in) {
		// The case's rank, the sizes cycled over the dims.
		shape = make([]int64, rank)
		for j := range shape {
			shape[j] = b.sizes[j%len(b.sizes)]
		}
	}
	if g, ok := given[in.Name]; ok {
		if in.Shape != nil && !slices.Equal(g, shape) {
			return nil, fmt.Errorf("input %s is %v, but its shape gives %v", in.Name, g, shape)
		}
		shape = slices.Clone(g)
	}
	return shape, nil
}

// outputs adds the op's outputs to the case, their dtypes from the
// inputs' (inDTypes) and the params.
func (b *caseBuilder) outputs(inDTypes []ir.DType, params []Param) error {
	dd := map[string]bool{}
	for _, s := range b.op.DataDependent {
		dd[s.Name] = true
	}
	for i, o := range b.op.Outputs {
		d := b.outputDType(i, o, inDTypes, params)
		kind, ok := torchKind(d)
		if !ok {
			return fmt.Errorf("output %s: torch cannot make %s", o.Name, d)
		}
		info := d.Info()
		if o.Variadic && o.Count != "" {
			if err := b.countedOutputs(i, o, Tensor{Name: o.Ident, DType: info.Torch, Kind: kind, dtype: d}, dd); err != nil {
				return err
			}
			continue
		}
		t := Tensor{Name: o.Ident, DType: info.Torch, Kind: kind, dtype: d}
		if err := b.outputShape(i, o, &t, dd); err != nil {
			return fmt.Errorf("output %s: %v", o.Name, err)
		}
		b.c.Outputs = append(b.c.Outputs, t)
	}
	return nil
}

// countedOutputs adds the tensors of counted output i (o): as many as its
// count param's value in the case, named <output>_<k>, each shaped with #
// at k. The reference returns them as one list, which the runner takes as
// that many outputs.
func (b *caseBuilder) countedOutputs(i int, o *ir.Tensor, proto Tensor, dd map[string]bool) error {
	n, ok := b.env.Symbols[o.Count]
	if !ok {
		return fmt.Errorf("output %s: no value for its count %s", o.Name, o.Count)
	}
	defer delete(b.env.Symbols, shapeexpr.IndexSymbol)
	for k := range n {
		b.env.Symbols[shapeexpr.IndexSymbol] = k
		t := proto
		t.Name = fmt.Sprintf("%s_%d", o.Ident, k)
		if err := b.outputShape(i, o, &t, dd); err != nil {
			return fmt.Errorf("output %s, tensor %d: %v", o.Name, k, err)
		}
		b.c.Outputs = append(b.c.Outputs, t)
	}
	return nil
}

// outputDType is output i's dtype by its rule: fixed, an input's, a
// param's value, or its type variable's.
func (b *caseBuilder) outputDType(i int, o *ir.Tensor, inDTypes []ir.DType, params []Param) ir.DType {
	fo := b.f.Outputs[i]
	d := fo.DType
	switch fo.Rule {
	case ir.DTypeSameAs:
		d = inDTypes[fo.Input]
	case ir.DTypeFollow:
		if slices.Contains(fo.Allowed, inDTypes[fo.Input]) {
			d = inDTypes[fo.Input]
		}
	case ir.DTypeParam:
		// The param's value names the dtype (validate checked every
		// value is one of the output's dtypes).
		if c, ok := chosenDType(b.op.Params[fo.Param], params[fo.Param]); ok {
			d = c
		}
	}
	if o.Type.Var != "" {
		if v, ok := b.dtypes.varOf[o.Type.Var]; ok {
			d = v
		}
	}
	return d
}

// outputShape sets output i's shape (t.Shape) by its rule: broadcast from
// inputs, like an input's, evaluated, or for a data-dependent output
// (dims using a size in dd) its upper bound and size dims.
func (b *caseBuilder) outputShape(i int, o *ir.Tensor, t *Tensor, dd map[string]bool) error {
	var err error
	switch r := b.f.Shapes[i]; {
	case r.Rule == ir.ShapeBroadcastOf:
		var shapes [][]int64
		for _, j := range r.Inputs {
			shapes = append(shapes, b.c.Inputs[j].Shape)
		}
		t.Shape, err = ir.BroadcastDims(shapes...)
	case r.Rule == ir.ShapeSameAs:
		// The input's shape, whatever rank the case gave it.
		t.Shape, err = ir.LikeDims(o.Like, b.c.Inputs[r.Input].Shape, b.env)
	case !dataDependent(o, dd):
		t.Shape, err = evalShape(o, b.env)
	default:
		t.Upper, t.SizeDims, err = upperShape(b.op, o, b.env, dd)
	}
	return err
}

// dataDependent reports whether a dim of o uses a data-dependent size
// (dd).
func dataDependent(o *ir.Tensor, dd map[string]bool) bool {
	for _, dim := range o.Shape {
		for _, s := range dim.Expr.Symbols() {
			if s.Kind == shapeexpr.Sym && dd[s.Name] {
				return true
			}
		}
	}
	return false
}

// upperShape evaluates a data-dependent output's dims with every size at
// its upper bound, and names the size each dim is.
func upperShape(op *ir.Op, o *ir.Tensor, env shapeexpr.MapEnv, dd map[string]bool) ([]int64, []string, error) {
	bound := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: env.Elements, ElemSizes: env.ElemSizes, TensorDims: env.TensorDims}
	for k, v := range env.Symbols {
		bound.Symbols[k] = v
	}
	for _, s := range op.DataDependent {
		if s.Upper == nil {
			return nil, nil, fmt.Errorf("size %s has no upper bound", s.Name)
		}
		v, err := s.Upper.Eval(env)
		if err != nil {
			return nil, nil, fmt.Errorf("upper bound of %s: %v", s.Name, err)
		}
		bound.Symbols[s.Name] = v
	}
	upper, err := evalShape(o, bound)
	if err != nil {
		return nil, nil, err
	}
	sizeDims := make([]string, len(o.Shape))
	for i, d := range o.Shape {
		for _, s := range d.Expr.Symbols() {
			if s.Kind == shapeexpr.Sym && dd[s.Name] {
				sizeDims[i] = "?"
				if d.Expr.Kind == shapeexpr.Sym {
					sizeDims[i] = s.Name
				}
			}
		}
	}
	return upper, sizeDims, nil
}

// evalShape evaluates a tensor's dims; a tensor without a shape gets the
// rank's worth of 3s (rank 4 when any), so an unshaped op still runs.
func evalShape(t *ir.Tensor, env shapeexpr.MapEnv) ([]int64, error) {
	if t.Shape == nil {
		rank := t.Rank
		if rank == ir.RankAny {
			rank = 4
		}
		shape := make([]int64, rank)
		for i := range shape {
			shape[i] = 3
		}
		return shape, nil
	}
	shape := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		if d.Expr == nil {
			return nil, fmt.Errorf("dim %d has no expression", i)
		}
		v, err := d.Expr.Eval(env)
		if err != nil {
			return nil, err
		}
		if v < 0 {
			return nil, fmt.Errorf("dim %d is %d", i, v)
		}
		if v > 1<<16 {
			return nil, fmt.Errorf("dim %d is %d, too large to verify", i, v)
		}
		shape[i] = v
	}
	return shape, nil
}

// valueRange evaluates an integer input's value range for a case, within
// what its dtype can hold; an empty one leaves the case out.
func valueRange(r *ir.ValueRange, d ir.DType, env shapeexpr.MapEnv) ([]int64, error) {
	lo, err := r.Lo.Expr.Eval(env)
	if err != nil {
		return nil, fmt.Errorf("low end of its range: %v", err)
	}
	hi, err := r.Hi.Expr.Eval(env)
	if err != nil {
		return nil, fmt.Errorf("high end of its range: %v", err)
	}
	if bits := d.Bits(); bits > 0 && bits < 64 {
		minV, maxV := int64(0), int64(1)<<bits-1
		if d.Kind() == ir.KindInt {
			minV, maxV = -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		}
		lo, hi = max(lo, minV), min(hi, maxV)
	}
	if lo > hi {
		return nil, fmt.Errorf("its range [%s, %s] is empty here (%d > %d)", r.Lo.Expr, r.Hi.Expr, lo, hi)
	}
	return []int64{lo, hi}, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
