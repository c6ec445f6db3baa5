package trt

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// The driver's cases file: what testdata/trt/driver/trt_driver.cpp checks
// each plugin against, computed here from the IR with shapeexpr's
// evaluator — an implementation independent of the generated C++.

// PluginFieldType, DataType and TensorFormat values (NvInferRuntimeBase.h,
// NvInferPluginBase.h).
var (
	fieldTypeValues = map[string]int{"kFLOAT16": 0, "kFLOAT32": 1, "kFLOAT64": 2, "kINT8": 3, "kINT16": 4, "kINT32": 5, "kCHAR": 6,
		"kDIMS": 7, "kUNKNOWN": 8, "kBF16": 9, "kINT64": 10, "kFP8": 11}
	dataTypes = map[string]int{"kFLOAT": 0, "kHALF": 1, "kINT8": 2, "kINT32": 3, "kBOOL": 4, "kUINT8": 5, "kFP8": 6,
		"kBF16": 7, "kINT64": 8}
	tensorFormats = map[string]int{"LINEAR": 0, "CHW2": 1, "HWC8": 2, "CHW4": 3, "CHW16": 4, "CHW32": 5, "DHWC8": 6,
		"CDHW32": 7, "HWC": 8, "DLA_LINEAR": 9, "DLA_HWC4": 10, "HWC16": 11, "DHWC": 12}
)

func dataType(d ir.DType) int { return dataTypes[TensorDType(d)] }

// field is one PluginField of a field set.
type field struct {
	name   string
	typ    string
	length int
	data   []byte
}

func (f field) line() string {
	h := hex.EncodeToString(f.data)
	if h == "" {
		h = "-"
	}
	return fmt.Sprintf("field %s %d %d %s", f.name, fieldTypeValues[f.typ], f.length, h)
}

// value is a param value the cases use: its default, or one in range.
type value struct {
	ints   []int64
	floats []float64
	text   string
	index  int // enums
}

func chooseValue(p *ir.Param, m *paramModel) value {
	var v value
	lit := p.Default
	var items []*ir.Literal
	if lit != nil {
		items = []*ir.Literal{lit}
		if lit.Kind == ir.LitList {
			items = lit.List
		}
	}
	switch p.Kind {
	case ir.ParamString:
		v.text = "text"
		if lit != nil {
			v.text = lit.Text
		}
		return v
	case ir.ParamEnum:
		for i, name := range p.Values {
			if lit != nil && name == lit.Text {
				v.index = i
			}
		}
		v.text = p.Values[v.index]
		return v
	}
	if len(items) == 0 {
		n := int(m.FieldLength)
		if n == 0 {
			n = 2
		}
		for i := 0; i < n; i++ {
			items = append(items, &ir.Literal{Text: sampleText(p)})
		}
	}
	for _, it := range items {
		switch {
		case it.Text == "true":
			v.ints = append(v.ints, 1)
		case it.Text == "false":
			v.ints = append(v.ints, 0)
		case m.elem.IsFloat():
			f := 0.0
			fmt.Sscan(it.Text, &f)
			v.floats = append(v.floats, f)
		default:
			var n int64
			fmt.Sscan(it.Text, &n)
			v.ints = append(v.ints, n)
		}
	}
	if c := p.DTypeCode; c != nil {
		// A dtype code: its default, else the first listed; index is its
		// place among the codes (the dtype it names, for pinParams).
		if lit == nil || !slices.Contains(c.Codes, v.ints[0]) {
			v.ints = []int64{c.Codes[0]}
		}
		v.index = slices.Index(c.Codes, v.ints[0])
	}
	return v
}

func sampleText(p *ir.Param) string {
	switch {
	case p.Kind == ir.ParamBool || (len(p.DTypes) > 0 && p.DTypes[0] == ir.Bool):
		return "true"
	case p.Min != nil && *p.Min > 1:
		return fmt.Sprint(math.Ceil(*p.Min))
	case p.Max != nil && *p.Max < 3:
		// A flag-like int (0 or 1): its largest value.
		return fmt.Sprint(math.Floor(*p.Max))
	}
	return "3"
}

// encodings of one value: how the ONNX parser and tensorrt.plugin send it.
func encode(m *paramModel, v value, python, enumIndex bool) field {
	p := m.p
	f := field{name: p.Name}
	le := binary.LittleEndian
	text := func(s string, nul bool) field {
		f.typ, f.data = "kCHAR", []byte(s)
		if nul {
			f.data = append(f.data, 0)
		}
		f.length = len(f.data)
		return f
	}
	ints := func(typ string, size int) field {
		f.typ, f.length = typ, len(v.ints)
		for _, n := range v.ints {
			b := make([]byte, 8)
			le.PutUint64(b, uint64(n))
			f.data = append(f.data, b[:size]...)
		}
		return f
	}
	switch {
	case p.Kind == ir.ParamString:
		return text(v.text, !python)
	case p.Kind == ir.ParamEnum && enumIndex:
		v.ints = []int64{int64(v.index)}
		return ints("kINT32", 4)
	case p.Kind == ir.ParamEnum:
		return text(v.text, !python)
	case p.Kind == ir.ParamBool || m.elem == ir.Bool:
		if python {
			return ints("kINT8", 1)
		}
		return ints("kINT32", 4)
	case m.elem.IsFloat():
		scalar := p.Kind == ir.ParamScalar
		f.length = len(v.floats)
		switch {
		case python && !scalar && m.elem == ir.Float16:
			// numpy float16 arrays travel as raw bytes.
			f.typ, f.length = "kUNKNOWN", 2*len(v.floats)
			for _, x := range v.floats {
				f.data = le.AppendUint16(f.data, halfBits(x))
			}
		case python && (scalar || m.elem == ir.Float64):
			f.typ = "kFLOAT64"
			for _, x := range v.floats {
				f.data = le.AppendUint64(f.data, math.Float64bits(x))
			}
		default:
			f.typ = "kFLOAT32"
			for _, x := range v.floats {
				f.data = le.AppendUint32(f.data, math.Float32bits(float32(x)))
			}
		}
		return f
	}
	if python && p.Kind == ir.ParamScalar {
		return ints("kINT64", 8)
	}
	if python {
		switch m.elem {
		case ir.Int8:
			return ints("kINT8", 1)
		case ir.Int16:
			return ints("kINT16", 2)
		case ir.Int64:
			return ints("kINT64", 8)
		}
		return ints("kINT32", 4)
	}
	// The ONNX parser narrows INT attributes to kINT32; a value beyond
	// int32 cannot come from ONNX at all, so such a set uses kINT64.
	for _, n := range v.ints {
		if n > math.MaxInt32 || n < math.MinInt32 {
			return ints("kINT64", 8)
		}
	}
	return ints("kINT32", 4)
}

// halfBits encodes x as IEEE half precision (exact for the test values).
func halfBits(x float64) uint16 {
	if x == 0 {
		return 0
	}
	sign := uint16(0)
	if x < 0 {
		sign, x = 0x8000, -x
	}
	frac, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	e := exp - 1 + 15
	mant := uint16(math.Round((frac*2 - 1) * 1024))
	return sign | uint16(e)<<10 | mant
}

// fieldSet renders one set: "fields <label> ok|fail <message> [runtime]".
func fieldSet(label string, fails string, runtime bool, fs []field) []string {
	head := "fields " + label + " ok"
	if fails != "" {
		head = "fields " + label + " fail " + hex.EncodeToString([]byte(fails))
	}
	if runtime {
		head += " runtime"
	}
	lines := []string{head}
	for _, f := range fs {
		lines = append(lines, f.line())
	}
	return lines
}

// driverCases writes the cases of every op of pkg.
func driverCases(pkg *ir.Package) string {
	ops := Ops(pkg)
	pm := newPackageModel(pkg, ops)
	var lines []string
	static := 0
	if PkgOptions(pkg).StaticRegistration {
		static = 1
	}
	lines = append(lines, fmt.Sprintf("# %s: written by generators/targets/trt's tests from %s", pkg.Name, strings.TrimPrefix(pkg.Source, repo+"/")), fmt.Sprintf("static %d", static))
	for i, op := range ops {
		if !op.RankPolymorphic() {
			lines = append(lines, opCases(pkg, op, pm.Ops[i], 0)...)
			continue
		}
		// A rank-polymorphic op runs once per rank TensorRT has (1 to
		// Dims::MAX_DIMS), its rank-any inputs at that rank.
	ranks:
		for rank := 1; rank <= 8; rank++ {
			for _, in := range op.Inputs {
				if in.Shape == nil && !in.RankRange.Admits(rank) {
					continue ranks // outside a declared rank range
				}
			}
			lines = append(lines, opCases(pkg, op, pm.Ops[i], rank)...)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// opCases are the lines of one op's case; rank, when not 0, is the rank
// of its rank-any inputs.
func opCases(pkg *ir.Package, op *ir.Op, m *opModel, rank int) []string {
	// A counted output: one case per count its param admits, the plugin
	// built with that count having that many of the outputs.
	if c := countedOutput(op); c != nil {
		p := op.Param(c.Count)
		var lines []string
		for n := int(*p.Min); n <= int(*p.Max); n++ {
			lines = append(lines, opCasesWith(pkg, expandCounted(op), m, rank, nil, n)...)
		}
		return lines
	}
	// A tensor whose dtype a param chooses: one case per value (or dtype
	// code) of the param, the plugin built with that value taking only
	// that dtype.
	for _, t := range layoutOf(op).All() {
		if t.Rule != ruleParam {
			continue
		}
		var lines []string
		for i := range t.Allowed {
			lines = append(lines, opCasesWith(pkg, op, m, rank, map[string]int{t.Param.Name: i}, -1)...)
		}
		return lines
	}
	// An output whose rank a bool param decides (keep: <param>): a case
	// per value, so getOutputShapes is run with the dim removed and kept.
	for _, o := range op.Outputs {
		if o.Like != nil && o.Like.Mode == ir.AxisKeepIf {
			return append(opCasesWith(pkg, op, m, rank, map[string]int{o.Like.KeepParam: 0}, -1),
				opCasesWith(pkg, op, m, rank, map[string]int{o.Like.KeepParam: 1}, -1)...)
		}
	}
	return opCasesWith(pkg, op, m, rank, nil, -1)
}

// pinParams is l for a plugin built with values: each dtype_param output
// has the dtype its param's value names, and its slot is gone.
func pinParams(l *ioLayout, values map[string]value) *ioLayout {
	v := *l
	v.combos, v.Slots, v.Outputs = nil, nil, nil
	slotOf := map[int]int{}
	for i, s := range l.Slots {
		if s.Param == nil {
			slotOf[i] = len(v.Slots)
			v.Slots = append(v.Slots, s)
		}
	}
	var inputs []*ioTensor
	for _, t := range l.Inputs {
		c := *t
		switch c.Rule {
		case ruleFree:
			c.Slot = slotOf[t.Slot]
		case ruleParam:
			c.Rule, c.Fixed = ruleFixed, t.Allowed[values[t.Param.Name].index]
		}
		inputs = append(inputs, &c)
	}
	v.Inputs = inputs
	for _, t := range l.Outputs {
		c := *t
		if c.Rule == ruleParam {
			c.Rule, c.Fixed = ruleFixed, t.Allowed[values[t.Param.Name].index]
		}
		v.Outputs = append(v.Outputs, &c)
	}
	v.all = append(append([]*ioTensor{}, v.Inputs...), v.Outputs...)
	return &v
}

// opCasesWith are opCases with the enum params in pick at the value of
// that index and, when count is not -1, the count param of an op's counted
// output (expandCounted) at count.
func opCasesWith(pkg *ir.Package, op *ir.Op, m *opModel, rank int, pick map[string]int, count int) []string {
	l := layoutOf(op)
	if count >= 0 {
		l = countedLayout(l, m.Counted.First+count)
	}
	kind := "v3"
	if PkgOptions(pkg).Legacy {
		kind = "v2"
	}
	lines := []string{
		fmt.Sprintf("plugin %s %s %s %s", m.PluginName, m.PluginVersion, casesWord(m.PluginNamespace), kind),
		fmt.Sprintf("io %d %d %d", len(l.Inputs), len(l.Outputs), len(l.ShapeInputs)),
	}
	values := map[string]value{}
	var onnx, python, index []field
	hasEnum := false
	for _, pm := range m.Params {
		lines = append(lines, fmt.Sprintf("declared %s %d %d", pm.Name, fieldTypeValues[string(pm.FieldType)], pm.FieldLength))
		v := chooseValue(pm.p, pm)
		if i, ok := pick[pm.Name]; ok {
			v.index = i
			if pm.p.Kind == ir.ParamBool {
				v.ints = []int64{int64(i)}
			} else if c := pm.p.DTypeCode; c != nil {
				v.ints = []int64{c.Codes[i]}
			} else {
				v.text = pm.p.Values[i]
			}
		}
		if count >= 0 && pm.p.Ident == string(m.Counted.Field) {
			v = value{ints: []int64{int64(count)}}
		}
		if count >= 0 {
			v = perTensorSamples(pm, v, count)
		}
		values[pm.Name] = v
		onnx = append(onnx, encode(pm, v, false, false))
		python = append(python, encode(pm, v, true, false))
		index = append(index, encode(pm, v, false, true))
		hasEnum = hasEnum || pm.p.Kind == ir.ParamEnum
	}
	layout := field{name: "$opforge_layout", typ: "kINT32", length: 1, data: []byte{1, 0, 0, 0}}
	lines = append(lines, fieldSet("onnx", "", false, onnx)...)
	lines = append(lines, fieldSet("python", "", false, python)...)
	if hasEnum {
		lines = append(lines, fieldSet("enum-index", "", false, index)...)
	}
	lines = append(lines, fieldSet("serialized", "", true, append([]field{layout}, onnx...))...)
	lines = append(lines, negativeSets(m, onnx)...)
	lines = append(lines, fmt.Sprintf("inputs %d %d", l.Required, len(l.Inputs)))
	l = pinParams(l, values)
	lines = append(lines, arityCases(op, l, m, values, rank)...)
	// Each shorter arity: the same plugin without its last optional inputs.
	for n := len(l.Inputs) - 1; n >= l.Required; n-- {
		lines = append(lines, fmt.Sprintf("arity %d", n))
		lines = append(lines, arityCases(op, arityLayout(l, n), m, values, rank)...)
	}
	return lines
}

// arityLayout is l as a plugin sees it with only its first n inputs: the
// outputs follow the inputs present, an output typed by an absent input
// has its fallback dtype, and the absent inputs' dtype slots are gone.
func arityLayout(l *ioLayout, n int) *ioLayout {
	v := &ioLayout{Required: l.Required, ShapeInputs: l.ShapeInputs, InDim: l.InDim}
	slotOf := map[int]int{}
	for i, s := range l.Slots {
		if s.Pos < n {
			slotOf[i] = len(v.Slots)
			v.Slots = append(v.Slots, s)
		}
	}
	for _, t := range l.Inputs[:n] {
		c := *t
		if c.Rule == ruleFree {
			c.Slot = slotOf[t.Slot]
		}
		v.Inputs = append(v.Inputs, &c)
	}
	for _, t := range l.Outputs {
		c := *t
		c.Pos = n + t.Index
		if c.Rule == ruleTied && c.Tie >= n {
			c.Rule = ruleFixed
		}
		v.Outputs = append(v.Outputs, &c)
	}
	v.all = append(append([]*ioTensor{}, v.Inputs...), v.Outputs...)
	return v
}

// arityCases are the lines of one arity: the input dims, the output shapes
// and sizes they give, the workspace, aliases, dtype and format
// combinations and the dtypes supportsFormatCombination must refuse; rank,
// when not 0, is the rank of the rank-any inputs.
func arityCases(op *ir.Op, l *ioLayout, m *opModel, values map[string]value, rank int) []string {
	var lines []string
	// Shapes: every symbol a distinct value, shape tensors some values.
	env := shapeexpr.MapEnv{Symbols: map[string]int64{}, Elements: map[string][]int64{}, TensorDims: map[string][]int64{}, Floats: map[string]float64{}, FloatElements: map[string][]float64{}}
	next := int64(5) // small enough to enqueue, large enough that computed dims are not 0
	var inDims [][]int64
	for _, t := range l.Inputs {
		dims := dimsOf(t.T, env, &next, rank)
		inDims = append(inDims, dims)
		env.TensorDims[t.Name] = dims
		lines = append(lines, fmt.Sprintf("input %d%s", len(dims), ints(dims)))
	}
	for i, t := range l.ShapeInputs {
		n := int64(1)
		if len(t.Shape) == 1 && t.Shape[0].Expr.IsConst() {
			n = t.Shape[0].Expr.Value
		}
		vals := make([]int64, n)
		for j := range vals {
			vals[j] = int64(3 + i + j)
		}
		env.Elements[t.Name] = vals
		if len(t.Shape) == 1 && t.Shape[0].Expr.IsSymbol() {
			if _, ok := env.Symbols[t.Shape[0].Expr.Name]; !ok {
				env.Symbols[t.Shape[0].Expr.Name] = n
			}
		}
		lines = append(lines, fmt.Sprintf("shapevalue %d%s", len(vals), ints(vals)))
	}
	for _, p := range op.Params {
		v := values[p.Name]
		if (p.Kind == ir.ParamScalar || p.Kind == ir.ParamBool) && len(v.ints) == 1 {
			env.Symbols[p.Name] = v.ints[0]
		}
		if p.Kind == ir.ParamArray && len(v.floats) == 0 {
			env.Elements[p.Name] = v.ints
		}
		floatParamEnv(env, p, v)
	}
	if len(op.Requires) > 0 {
		satisfyRelations(op, l, inDims, env)
		for i, t := range l.Inputs {
			env.TensorDims[t.Name] = inDims[i]
			lines[i] = fmt.Sprintf("input %d%s", len(inDims[i]), ints(inDims[i]))
		}
	}
	for _, t := range l.Outputs {
		if t.Size == nil {
			continue
		}
		upper, _ := t.Size.Upper.Eval(env)
		opt := upper
		if t.Size.Opt != nil {
			opt, _ = t.Size.Opt.Eval(env)
		}
		env.Symbols[t.Size.Name] = upper
		lines = append(lines, fmt.Sprintf("size %d %d %d", t.Index, opt, upper))
	}
	for _, t := range l.Outputs {
		var dims []int64
		if in := l.like(t); in != nil {
			var err error
			if dims, err = ir.LikeDims(t.T.Like, inDims[in.Index], env); err != nil {
				panic(fmt.Sprintf("%s: %v", op.Name, err)) // a test bug: the case's axis fits
			}
		} else if ins := l.broadcast(t); ins != nil {
			shapes := make([][]int64, len(ins))
			for k, in := range ins {
				shapes[k] = inDims[in.Index]
			}
			var err error
			if dims, err = ir.BroadcastDims(shapes...); err != nil {
				panic(fmt.Sprintf("%s: %v", op.Name, err)) // a test bug: the case's dims broadcast
			}
		} else if t.T != nil {
			for _, d := range t.T.Shape {
				v, err := d.Expr.Eval(env)
				if err != nil {
					panic(fmt.Sprintf("%s: %v", op.Name, err)) // a test bug: every symbol has a value
				}
				dims = append(dims, v)
			}
		}
		lines = append(lines, fmt.Sprintf("output %d %d%s", t.Index, len(dims), ints(dims)))
	}
	if w := OpOptions(op).Workspace; w != nil {
		// The driver asks for the workspace with the first dtype combination.
		env.ElemSizes = map[string]int64{}
		for _, t := range l.All() {
			if t.T != nil {
				env.ElemSizes[t.T.Name] = max(1, int64(l.Combos()[0].DTypes[t.Pos].Bits()+7)/8)
			}
		}
		v, err := w.Eval(env)
		if err != nil {
			panic(fmt.Sprintf("%s: workspace: %v", op.Name, err)) // a test bug: every name has a value
		}
		lines = append(lines, fmt.Sprintf("workspace %d", max(v, 0)))
	}
	for _, a := range m.Aliases {
		lines = append(lines, fmt.Sprintf("alias %d %d", a.Output, a.Input))
	}
	all := l.All()
	combos := l.Combos()
	for _, c := range combos {
		types := make([]int64, len(c.DTypes))
		for i, d := range c.DTypes {
			types[i] = int64(dataType(d))
		}
		lines = append(lines, fmt.Sprintf("combo %d%s", len(types), ints(types)))
	}
	for _, f := range OpOptions(op).Formats {
		if f == "LINEAR" || anyConditional(OpOptions(op).FormatRules) { // format rules: ruleFormatCases
			continue
		}
		lead := formatFor(f, len(inputDims(lines, 0)))
		fs := make([]int64, len(all))
		for i, t := range all {
			fs[i] = int64(tensorFormats[formatFor(lead, rankOfCase(t, lines))])
			if t.Rule == ruleSize {
				fs[i] = 0
			}
		}
		lines = append(lines, fmt.Sprintf("formats %d%s", len(fs), ints(fs)))
	}
	lines = append(lines, ruleFormatCases(op, all, combos, values, lines)...)
	for _, t := range all {
		if bad, ok := rejected(all, combos[0], t); ok {
			lines = append(lines, fmt.Sprintf("reject %d %d", t.Pos, bad))
		}
	}
	return append(lines, violations(op, l, inDims, env)...)
}

// negativeSets are invalid field sets, each with the message the plugin
// must log.
func negativeSets(m *opModel, onnx []field) []string {
	var lines []string
	with := func(extra ...field) []field { return append(append([]field{}, onnx...), extra...) }
	lines = append(lines, fieldSet("unknown-name", `unknown field "no_such_field"`, false, with(field{"no_such_field", "kINT32", 1, []byte{1, 0, 0, 0}}))...)
	lines = append(lines, fieldSet("no-layout", "lack", true, onnx)...)
	lines = append(lines, fieldSet("other-layout", "field layout 99", true, append([]field{{"$opforge_layout", "kINT32", 1, []byte{99, 0, 0, 0}}}, onnx...))...)
	if len(onnx) > 0 {
		lines = append(lines, fieldSet("twice", "is given twice", false, with(onnx[0]))...)
	}
	replaced := func(i int, f field) []field {
		out := append([]field{}, onnx...)
		out[i] = f
		return out
	}
	done := map[string]bool{}
	for i, pm := range m.Params {
		p := pm.p
		switch {
		case pm.Required && !done["required"]:
			done["required"] = true
			fs := append(append([]field{}, onnx[:i]...), onnx[i+1:]...)
			lines = append(lines, fieldSet("missing-"+p.Name, fmt.Sprintf("field \"%s\" is required", p.Name), false, fs)...)
		}
		switch {
		case p.DTypeCode != nil && !done["code"]:
			// A dtype code outside the listed ones: the least one missing.
			done["code"] = true
			bad := int32(0)
			for slices.Contains(p.DTypeCode.Codes, int64(bad)) {
				bad++
			}
			b := binary.LittleEndian.AppendUint32(nil, uint32(bad))
			lines = append(lines, fieldSet("code-"+p.Name, "is not an allowed dtype code", false, replaced(i, field{p.Name, "kINT32", 1, b}))...)
		case p.Kind == ir.ParamScalar && !pm.elem.IsFloat() && !done["range"]:
			done["range"] = true
			hi := int64(math.MaxInt64)
			if r, ok := intRange[pm.elem]; ok {
				hi = r[1]
			}
			if p.Max != nil && int64(*p.Max) < hi {
				hi = int64(*p.Max)
			}
			if hi < math.MaxInt64 {
				b := make([]byte, 8)
				binary.LittleEndian.PutUint64(b, uint64(hi+1))
				lines = append(lines, fieldSet("range-"+p.Name, "is outside", false, replaced(i, field{p.Name, "kINT64", 1, b}))...)
			}
			lines = append(lines, fieldSet("type-"+p.Name, "expected an integer field", false, replaced(i, field{p.Name, "kCHAR", 4, []byte("abc\x00")}))...)
		case p.Kind == ir.ParamArray && p.Length > 0 && !done["length"]:
			done["length"] = true
			f := onnx[i]
			size := len(f.data) / max(f.length, 1)
			f.data = append(append([]byte{}, f.data...), f.data[:size]...)
			f.length++
			lines = append(lines, fieldSet("length-"+p.Name, fmt.Sprintf("expected %d", p.Length), false, replaced(i, f))...)
		case p.Kind == ir.ParamEnum && !done["enum"]:
			done["enum"] = true
			lines = append(lines, fieldSet("enum-"+p.Name, "is not one of", false, replaced(i, field{p.Name, "kCHAR", 5, []byte("nope\x00")}))...)
		case p.Kind == ir.ParamBool && !done["bool"]:
			done["bool"] = true
			lines = append(lines, fieldSet("bool-"+p.Name, "is not a boolean", false, replaced(i, field{p.Name, "kINT32", 1, []byte{2, 0, 0, 0}}))...)
		case p.Kind == ir.ParamScalar && pm.elem.IsFloat() && p.Max != nil && !done["float"]:
			done["float"] = true
			b := binary.LittleEndian.AppendUint64(nil, math.Float64bits(*p.Max+1))
			lines = append(lines, fieldSet("range-"+p.Name, "is outside", false, replaced(i, field{p.Name, "kFLOAT64", 1, b}))...)
		}
	}
	return lines
}

// dimsOf gives an input's dims: constants as written, each new symbol the
// next value; rank-any inputs rank dims of 2 and 3 (the product stays
// small at rank 8), or [2, 3, 4] when rank is 0.
// floatParamEnv puts a float param's value, as its dtype stores it, in
// env (whose float maps it fills) for the roundings of output dims.
func floatParamEnv(env shapeexpr.MapEnv, p *ir.Param, v value) {
	if len(v.floats) == 0 {
		return
	}
	fs := make([]float64, len(v.floats))
	for i, f := range v.floats {
		fs[i] = f
		if p.DTypes[0] == ir.Float32 {
			fs[i] = float64(float32(f))
		}
	}
	if p.Kind == ir.ParamScalar && len(fs) == 1 {
		env.Floats[p.Name] = fs[0]
	}
	env.FloatElements[p.Name] = fs
}

func dimsOf(t *ir.Tensor, env shapeexpr.MapEnv, next *int64, rank int) []int64 {
	if t.Shape == nil {
		if rank == 0 {
			return []int64{2, 3, 4}
		}
		dims := make([]int64, rank)
		for i := range dims {
			dims[i] = 2 + int64(i%2)
		}
		return dims
	}
	var dims []int64
	for _, d := range t.Shape {
		switch {
		case d.Expr.IsConst():
			dims = append(dims, d.Expr.Value)
		case d.Expr.IsSymbol():
			v, ok := env.Symbols[d.Expr.Name]
			if !ok {
				v = *next
				*next++
				env.Symbols[d.Expr.Name] = v
			}
			dims = append(dims, v)
		}
	}
	return dims
}

func ints(v []int64) string {
	var sb strings.Builder
	for _, x := range v {
		fmt.Fprintf(&sb, " %d", x)
	}
	return sb.String()
}

// inputDims reads back the dims of input i from the lines written so far.
func inputDims(lines []string, i int) []string {
	n := 0
	for _, ln := range lines {
		if strings.HasPrefix(ln, "input ") {
			if n == i {
				return strings.Fields(ln)[2:]
			}
			n++
		}
	}
	return nil
}

// rankOfCase is the number of dims a tensor has in the case.
func rankOfCase(t *ioTensor, lines []string) int {
	prefix := fmt.Sprintf("output %d ", t.Index)
	if t.Input {
		return len(inputDims(lines, t.Index))
	}
	for _, ln := range lines {
		if strings.HasPrefix(ln, prefix) {
			return len(strings.Fields(ln)) - 3
		}
	}
	return 0
}

// rejected picks a dtype supportsFormatCombination must refuse at t's
// position when the earlier positions hold combination c.
func rejected(all []*ioTensor, c combo, t *ioTensor) (int, bool) {
	allowed := map[int]bool{}
	switch t.Rule {
	case ruleFree:
		for _, d := range t.Allowed {
			allowed[dataType(d)] = true
		}
	default:
		allowed[dataType(c.DTypes[t.Pos])] = true
	}
	for _, d := range []string{"kFLOAT", "kHALF", "kINT8", "kINT32", "kBOOL", "kUINT8", "kINT64", "kBF16"} {
		if !allowed[dataTypes[d]] {
			return dataTypes[d], true
		}
	}
	return 0, false
}

// casesWord writes the empty namespace as "-": the driver reads the cases
// file word by word.
func casesWord(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// countedLayout is l with its first n outputs only: a plugin whose count
// field leaves out the last of its counted outputs.
func countedLayout(l *ioLayout, n int) *ioLayout {
	v := *l
	v.combos = nil
	v.Outputs = l.Outputs[:n]
	v.all = append(append([]*ioTensor{}, v.Inputs...), v.Outputs...)
	return &v
}

// perTensorSamples gives an array param without a default or a fixed
// length as many sample values as a counted output has tensors (at least
// 3), since its shapes may read one element per tensor (sizes[#]).
func perTensorSamples(pm *paramModel, v value, count int) value {
	if pm.p.Kind != ir.ParamArray || pm.p.Default != nil || pm.FieldLength != 0 {
		return v
	}
	for len(v.ints) > 0 && len(v.ints) < max(count, 3) {
		v.ints = append(v.ints, v.ints[0])
	}
	for len(v.floats) > 0 && len(v.floats) < max(count, 3) {
		v.floats = append(v.floats, v.floats[0])
	}
	return v
}
