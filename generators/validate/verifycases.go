package validate

// The cases an opdef adds to opforge verify's (`verify: {cases: [{name,
// dims, shapes, params, types}]}`): each names only what the op has, gives
// values the op can take, and makes valid shapes. A case's shapes are
// evaluated as verify builds the case: every symbol it does not set at
// ir.VerifyBaseSize, every param it does not set at its default.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// maxCaseDim is the largest dim verify makes (its cases refuse larger).
const maxCaseDim = 1 << 16

func caseLabel(i int, vc ir.VerifyCase) string {
	if vc.Name != "" {
		return fmt.Sprintf("verify case %q", vc.Name)
	}
	return fmt.Sprintf("verify case %d", i+1)
}

// verifyCases checks every case of the op's verify section.
func (v *validator) verifyCases(op *ir.Op) {
	if op.Verify == nil {
		return
	}
	named := map[string]int{}
	for i, vc := range op.Verify.Cases {
		label := caseLabel(i, vc)
		if vc.Name != "" {
			if j, dup := named[vc.Name]; dup {
				v.l.Errorf(vc.NamePos, "verify-case-name", "verify case %d has the name %q of case %d; give each case a name of its own (verify reports results by name)", i+1, vc.Name, j+1)
			} else {
				named[vc.Name] = i
			}
		}
		if len(vc.Dims)+len(vc.Shapes)+len(vc.Params)+len(vc.Types) == 0 {
			v.l.Errorf(vc.Pos, "verify-cases", "%s sets nothing; give it dims, shapes, params or types to try", label)
			continue
		}
		mark := v.l.Len()
		v.caseParams(op, label, vc)
		v.caseTypes(op, label, vc)
		v.caseDims(op, label, vc)
		v.caseShapes(op, label, vc)
		if !v.l.HasErrorsSince(mark) {
			v.caseEval(op, label, vc)
		}
	}
}

// caseParams: each sets a param of the op that verify can pass (not a
// tensor param) to a value it can take, as a default must.
func (v *validator) caseParams(op *ir.Op, label string, vc ir.VerifyCase) {
	for _, vp := range vc.Params {
		p := op.Param(vp.Name)
		switch {
		case p == nil:
			var known []string
			for _, q := range op.Params {
				known = append(known, q.Name)
			}
			hint := "op " + op.Name + " has no params"
			if len(known) > 0 {
				hint = "its params: " + strings.Join(known, ", ")
			}
			v.l.Errorf(vp.Pos, "verify-cases", "%s sets %q, which is not a param of op %s; %s", label, vp.Name, op.Name, hint)
		case p.Kind == ir.ParamTensor:
			v.l.Errorf(vp.Pos, "verify-cases", "%s sets tensor param %q; verify passes tensor params at their defaults only", label, vp.Name)
		default:
			// The checks of a default, reported as this case's.
			var l diag.List
			sub := &validator{pkg: v.pkg, source: v.source, l: &l}
			sub.defaultValue(p, vp.Value, vp.Value.Pos)
			for _, d := range l.Sorted() {
				msg := strings.Replace(d.Message, "default", "value", 1)
				v.l.Errorf(d.Pos, "verify-cases", "%s: %s", label, msg)
			}
		}
	}
}

// caseTypes: each names a dtype choice of the op (a type variable, or an
// input with a dtype list of its own) and one of its dtypes that torch can
// make.
func (v *validator) caseTypes(op *ir.Op, label string, vc ir.VerifyCase) {
	for _, vt := range vc.Types {
		allowed, what := choiceOf(op, vt.Name)
		if in := op.Input(vt.Name); allowed == nil && in != nil && in.Type.Var != "" {
			v.l.Errorf(vt.Pos, "verify-case-types", "%s chooses the dtype of input %q, which has type variable %s's: choose %s", label, vt.Name, in.Type.Var, in.Type.Var)
			continue
		}
		if allowed == nil {
			v.l.Errorf(vt.Pos, "verify-case-types", "%s chooses the dtype of %q, which is neither a type variable of op %s nor an input with a dtype list of its own; choices: %s", label, vt.Name, op.Name, strings.Join(choices(op), ", "))
			continue
		}
		if !slices.Contains(allowed, vt.DType) {
			v.l.Errorf(vt.ValuePos, "verify-case-types", "%s: %s is not a dtype of %s (%s)", label, vt.DType, what, dtypeNames(allowed))
			continue
		}
		if !torchMakes(vt.DType) {
			v.l.Errorf(vt.ValuePos, "verify-case-types", "%s: verify cannot make %s tensors (it makes torch tensors of numbers and booleans, not quantized ones); choose another of %s (%s)", label, vt.DType, what, dtypeNames(allowed))
		}
	}
}

// torchMakes reports a dtype verify can make tensors of: one torch has,
// of numbers or booleans (not quantized ones).
func torchMakes(d ir.DType) bool {
	info := d.Info()
	if info == nil || info.Torch == "" {
		return false
	}
	switch info.Kind {
	case ir.KindFloat, ir.KindInt, ir.KindUint, ir.KindBool:
		return true
	}
	return false
}

// choiceOf is the dtypes a case may choose for name and what it is.
func choiceOf(op *ir.Op, name string) ([]ir.DType, string) {
	if tv := op.TypeVar(name); tv != nil {
		return tv.Allowed, "type variable " + name
	}
	if in := op.Input(name); in != nil && in.Type.Var == "" && len(op.AllowedDTypes(in)) > 1 {
		return op.AllowedDTypes(in), "input " + quote(name)
	}
	return nil, ""
}

func choices(op *ir.Op) []string {
	var out []string
	for _, tv := range op.TypeVars {
		out = append(out, tv.Name)
	}
	for _, in := range op.Inputs {
		if in.Type.Var == "" && len(op.AllowedDTypes(in)) > 1 {
			out = append(out, in.Name)
		}
	}
	if len(out) == 0 {
		return []string{"none (every dtype is fixed)"}
	}
	return out
}

func dtypeNames(ds []ir.DType) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}

// inputSymbols are the shape symbols the op's inputs bind, in order.
func inputSymbols(op *ir.Op) []string {
	var out []string
	for _, in := range op.Inputs {
		for _, d := range in.Shape {
			if d.Expr != nil && d.Expr.IsSymbol() && !slices.Contains(out, d.Expr.Name) {
				out = append(out, d.Expr.Name)
			}
		}
	}
	return out
}

func computed(op *ir.Op, sym string) bool {
	return slices.ContainsFunc(op.Verify.Sizes, func(s ir.VerifySize) bool { return s.Symbol == sym })
}

// caseDims: each sets a symbol an input shape binds that verify draws
// (not one verify: sizes computes).
func (v *validator) caseDims(op *ir.Op, label string, vc ir.VerifyCase) {
	syms := inputSymbols(op)
	for _, d := range vc.Dims {
		switch {
		case !slices.Contains(syms, d.Symbol):
			known := "the op's inputs bind none"
			if len(syms) > 0 {
				known = "the inputs' symbols: " + strings.Join(syms, ", ")
			}
			v.l.Errorf(d.Pos, "verify-case-dims", "%s sets dim %q, which no input shape binds; %s", label, d.Symbol, known)
		case computed(op, d.Symbol):
			v.l.Errorf(d.Pos, "verify-case-dims", "%s sets dim %q, which verify computes (verify: sizes); set the symbols it is computed from", label, d.Symbol)
		}
	}
}

// caseShapes: each gives an input a shape of its rank whose constant dims
// match, binding each symbol to one value (the one dims gives it, if any).
func (v *validator) caseShapes(op *ir.Op, label string, vc ir.VerifyCase) {
	bound := map[string]int64{}
	from := map[string]string{}
	for _, d := range vc.Dims {
		bound[d.Symbol], from[d.Symbol] = d.Value, "dims"
	}
	for _, sh := range vc.Shapes {
		in := op.Input(sh.Input)
		if in == nil {
			var names []string
			for _, t := range op.Inputs {
				names = append(names, t.Name)
			}
			v.l.Errorf(sh.Pos, "verify-case-shapes", "%s gives a shape to %q, which is not an input of op %s; its inputs: %s", label, sh.Input, op.Name, strings.Join(names, ", "))
			continue
		}
		if want, ok := rankOK(in, len(sh.Dims)); !ok {
			v.l.Errorf(sh.Pos, "verify-case-shapes", "%s gives input %q %d dims; it has %s", label, in.Name, len(sh.Dims), want)
			continue
		}
		for j, d := range in.Shape {
			got := sh.Dims[j]
			switch {
			case d.Expr.IsConst() && d.Expr.Value != got:
				v.l.Errorf(sh.Pos, "verify-case-shapes", "%s gives input %q dim %d = %d; its shape fixes it at %d", label, in.Name, j, got, d.Expr.Value)
			case d.Expr.IsSymbol():
				if was, ok := bound[d.Expr.Name]; ok && was != got {
					v.l.Errorf(sh.Pos, "verify-case-shapes", "%s gives input %q dim %d (%s) = %d, but %s makes %s %d", label, in.Name, j, d.Expr.Name, got, from[d.Expr.Name], d.Expr.Name, was)
					continue
				}
				bound[d.Expr.Name], from[d.Expr.Name] = got, "the shape of input "+quote(in.Name)
			}
		}
	}
}

// rankOK reports whether n dims fit input in, and if not what it has.
func rankOK(in *ir.Tensor, n int) (string, bool) {
	switch {
	case in.Scalar:
		return "no dims (a scalar)", n == 0
	case in.Shape != nil:
		return fmt.Sprintf("%d (its declared shape)", len(in.Shape)), n == len(in.Shape)
	case in.Rank != ir.RankAny:
		return fmt.Sprintf("rank %d", in.Rank), n == in.Rank
	case in.RankRange != nil:
		return fmt.Sprintf("a rank from %d to %d", in.RankRange.Min, in.RankRange.Max), in.RankRange.Admits(n)
	}
	return fmt.Sprintf("a rank from 1 to %d", ir.MaxRank), n >= 1 && n <= ir.MaxRank
}

// caseEval evaluates the case's shapes as verify builds it: computed
// sizes, every input's shape (matching the shapes the case gives) and
// value range, and every output's shape, each valid.
func (v *validator) caseEval(op *ir.Op, label string, vc ir.VerifyCase) {
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}, TensorDims: map[string][]int64{}, Floats: map[string]float64{}, FloatElements: map[string][]float64{}}
	for _, s := range inputSymbols(op) {
		env.Symbols[s] = ir.VerifyBaseSize
	}
	for _, p := range op.Params {
		caseParamEnv(env, p, vc)
	}
	for _, d := range vc.Dims {
		env.Symbols[d.Symbol] = d.Value
	}
	given := map[string]ir.VerifyShape{}
	for _, sh := range vc.Shapes {
		given[sh.Input] = sh
		for j, d := range op.Input(sh.Input).Shape {
			if d.Expr.IsSymbol() {
				env.Symbols[d.Expr.Name] = sh.Dims[j]
			}
		}
	}
	bad := func(pos diag.Pos, format string, args ...any) {
		v.l.Errorf(pos, "verify-case-shapes", "%s: %s", label, fmt.Sprintf(format, args...))
	}
	for _, cs := range op.Verify.Sizes {
		n, err := cs.Value.Expr.Eval(env)
		if err != nil {
			return // verify-sizes reports the expression
		}
		if n < 1 || n > maxCaseDim {
			bad(vc.Pos, "verify computes size %s = %s = %d here; it must be 1 to %d", cs.Symbol, cs.Value.Expr, n, maxCaseDim)
			return
		}
		env.Symbols[cs.Symbol] = n
	}
	for _, in := range op.Inputs {
		shape, err := caseInputShape(in, env, given)
		if err != nil {
			bad(vc.Pos, "input %q: %v", in.Name, err)
			return
		}
		if sh, ok := given[in.Name]; ok && !slices.Equal(sh.Dims, shape) {
			bad(sh.Pos, "input %q is %s here, but its shape %s makes it %s (sizes verify computes are not set by shapes: set the symbols they are computed from)", in.Name, dimsText(sh.Dims), shapeText(in), dimsText(shape))
			return
		}
		env.TensorDims[in.Name] = shape
		if r := in.Range; r != nil {
			lo, err1 := r.Lo.Expr.Eval(env)
			hi, err2 := r.Hi.Expr.Eval(env)
			if err1 == nil && err2 == nil && lo > hi {
				bad(vc.Pos, "the value range [%s, %s] of input %q is empty here ([%d, %d])", r.Lo.Expr, r.Hi.Expr, in.Name, lo, hi)
			}
		}
	}
	for _, o := range op.Outputs {
		if err := caseOutputShape(op, o, env); err != nil {
			bad(vc.Pos, "output %q: %v", o.Name, err)
		}
	}
}

// caseParamEnv puts an integer param's value in the case (the case's, its
// default, else verify's fallback: its min, or 1), or a bool's as 1 or 0,
// into env.
func caseParamEnv(env shapeexpr.MapEnv, p *ir.Param, vc ir.VerifyCase) {
	lit := p.Default
	for _, vp := range vc.Params {
		if vp.Name == p.Name {
			lit = vp.Value
		}
	}
	if p.Kind == ir.ParamBool {
		// 1 or 0 (unset: false), for a shape whose axis dim it keeps.
		env.Symbols[p.Name] = 0
		if lit != nil && lit.Text == "true" {
			env.Symbols[p.Name] = 1
		}
		return
	}
	if len(p.DTypes) == 0 || p.Kind != ir.ParamScalar && p.Kind != ir.ParamArray {
		return
	}
	if p.DTypes[0].IsFloat() {
		caseFloatEnv(env, p, lit)
		return
	}
	if !p.DTypes[0].IsInteger() {
		return
	}
	var vals []int64
	if lit == nil {
		one := int64(1)
		if least, ok := p.IntMin(); ok {
			one = int64(least)
		}
		vals = []int64{one}
		if p.Kind == ir.ParamArray {
			vals = slices.Repeat(vals, max(p.Length, 1))
		}
	} else {
		items := []*ir.Literal{lit}
		if lit.Kind == ir.LitList {
			items = lit.List
		}
		for _, e := range items {
			f, err := strconv.ParseFloat(e.Text, 64)
			if err != nil {
				i, err := strconv.ParseInt(e.Text, 0, 64)
				if err != nil {
					return
				}
				f = float64(i)
			}
			vals = append(vals, int64(f))
		}
	}
	if p.Kind == ir.ParamScalar && len(vals) == 1 {
		env.Symbols[p.Name] = vals[0]
	}
	env.Elements[p.Name] = vals
}

// caseFloatEnv puts a float param's value in the case (lit: the case's or
// its default) into env, as its dtype stores it, for the roundings of
// shape expressions; without a value the expressions report it.
func caseFloatEnv(env shapeexpr.MapEnv, p *ir.Param, lit *ir.Literal) {
	if lit == nil {
		return
	}
	items := []*ir.Literal{lit}
	if lit.Kind == ir.LitList {
		items = lit.List
	}
	var vals []float64
	for _, e := range items {
		f, err := strconv.ParseFloat(e.Text, 64)
		if err != nil {
			return
		}
		if p.DTypes[0] == ir.Float32 {
			f = float64(float32(f))
		}
		vals = append(vals, f)
	}
	if p.Kind == ir.ParamScalar && len(vals) == 1 {
		env.Floats[p.Name] = vals[0]
	}
	env.FloatElements[p.Name] = vals
}

// caseInputShape is an input's shape in the case: its declared dims
// evaluated, else the case's shape for it, else its rank's worth of the
// base size (rank 4 for rank any).
func caseInputShape(in *ir.Tensor, env shapeexpr.MapEnv, given map[string]ir.VerifyShape) ([]int64, error) {
	if in.Shape == nil {
		if sh, ok := given[in.Name]; ok {
			return sh.Dims, nil
		}
		rank := in.Rank
		if rank == ir.RankAny {
			rank = 4
		}
		return slices.Repeat([]int64{ir.VerifyBaseSize}, rank), nil
	}
	shape := make([]int64, len(in.Shape))
	for j, d := range in.Shape {
		n, err := d.Expr.Eval(env)
		if err != nil {
			return nil, err
		}
		shape[j] = n
	}
	return shape, nil
}

// caseOutputShape checks an output's shape in the case: like an input,
// a broadcast, or declared dims, each 0 to maxCaseDim. Dims over
// data-dependent sizes or shape-tensor values are known only when verify
// runs.
func caseOutputShape(op *ir.Op, o *ir.Tensor, env shapeexpr.MapEnv) error {
	switch {
	case o.Like != nil:
		_, err := ir.LikeDims(o.Like, env.TensorDims[o.Like.Input], env)
		return err
	case o.Broadcast != nil:
		var shapes [][]int64
		for _, name := range o.Broadcast.Inputs {
			shapes = append(shapes, env.TensorDims[name])
		}
		_, err := ir.BroadcastDims(shapes...)
		return err
	}
	if o.Variadic && o.Count != "" {
		return countedCaseShapes(op, o, env)
	}
	return caseDims(op, o, env, "")
}

// countedCaseShapes checks every tensor a counted output stands for in the
// case: its dims with # set to 0, 1, ... count - 1.
func countedCaseShapes(op *ir.Op, o *ir.Tensor, env shapeexpr.MapEnv) error {
	n, ok := env.Symbols[o.Count]
	if !ok {
		return fmt.Errorf("no value for its count %s", o.Count)
	}
	symbols := maps.Clone(env.Symbols)
	env.Symbols = symbols
	for k := range n {
		symbols[shapeexpr.IndexSymbol] = k
		if err := caseDims(op, o, env, fmt.Sprintf("tensor %d of %d: ", k, n)); err != nil {
			return err
		}
	}
	return nil
}

// caseDims checks o's declared dims in the case (prefix names which of a
// counted output's tensors it is).
func caseDims(op *ir.Op, o *ir.Tensor, env shapeexpr.MapEnv, prefix string) error {
	for j, d := range o.Shape {
		if d.Expr == nil || runTimeOnly(op, d.Expr) {
			continue
		}
		n, err := d.Expr.Eval(env)
		if err != nil {
			return fmt.Errorf("%sdim %d (%s): %v", prefix, j, d.Expr, err)
		}
		if n < 0 || n > maxCaseDim {
			return fmt.Errorf("%sdim %d (%s) is %d here; it must be 0 to %d", prefix, j, d.Expr, n, maxCaseDim)
		}
	}
	return nil
}

// runTimeOnly reports an expression over data-dependent sizes or the values
// of shape-tensor inputs.
func runTimeOnly(op *ir.Op, e *shapeexpr.Expr) bool {
	for _, s := range e.Symbols() {
		if s.Kind == shapeexpr.Sym && slices.ContainsFunc(op.DataDependent, func(d *ir.SizeSymbol) bool { return d.Name == s.Name }) {
			return true
		}
		if s.Kind == shapeexpr.Index {
			if in := op.Input(s.Name); in != nil {
				return true
			}
		}
	}
	return false
}

func dimsText(ds []int64) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = strconv.FormatInt(d, 10)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func shapeText(in *ir.Tensor) string {
	s := make([]string, len(in.Shape))
	for i, d := range in.Shape {
		s[i] = d.Expr.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}
