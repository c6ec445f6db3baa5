package trt

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/validate"
	"github.com/opforge/opforge/generators/yamldef"
)

// opOf builds the first op of a YAML package body.
func opOf(t *testing.T, ops string) (*ir.Package, *ir.Op) {
	t.Helper()
	src := "version: 1\npackage: {name: T, domain: t, version: 1.0.0, namespace: t}\nops:\n" + ops
	var l diag.List
	pkg := yamldef.Load("t.yaml", []byte(src), &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("%v", l.Sorted())
	}
	validate.Package(pkg, &l)
	if l.HasErrors() {
		t.Fatalf("%v", l.Sorted())
	}
	return pkg, pkg.Ops[0]
}

// TestDTypeRules: how each tensor's dtype is decided, and the launcher
// combinations that follow.
func TestDTypeRules(t *testing.T) {
	_, op := opOf(t, `
  - name: Mixed
    types: {T: [float32, float16], U: [int32, int64]}
    inputs:
      - {name: a, type: T, shape: [N]}
      - {name: b, type: [int8, bool], shape: [N]}
      - {name: c, type: T, shape: [N]}
      - {name: s, type: int32, shape: [2], shape_tensor: true}
    outputs:
      - {name: same, type: T, shape: [N]}
      - {name: follow, type: [float16, int32], shape: [N]}
      - {name: only, type: U, shape: [N]}
      - {name: fixed, type: int64, shape: [K]}
    data_dependent:
      K: {upper: N}
`)
	l := layoutOf(op)
	if len(l.Inputs) != 3 || len(l.ShapeInputs) != 1 || len(l.Outputs) != 5 {
		t.Fatalf("inputs %d, shape inputs %d, outputs %d", len(l.Inputs), len(l.ShapeInputs), len(l.Outputs))
	}
	want := []struct {
		name string
		rule rule
	}{{"a", ruleFree}, {"b", ruleFree}, {"c", ruleTied}, {"same", ruleTied}, {"follow", ruleFollowFirst}, {"only", ruleFixed}, {"fixed", ruleFixed}, {"K", ruleSize}}
	for i, tt := range l.All() {
		if tt.Name != want[i].name || tt.Rule != want[i].rule || tt.Pos != i {
			t.Errorf("position %d: %s rule %d, want %s rule %d", i, tt.Name, tt.Rule, want[i].name, want[i].rule)
		}
	}
	if len(l.Slots) != 2 || l.Slots[0].Name != "T" || l.Slots[1].Name != "b_t" {
		t.Errorf("slots %+v", l.Slots)
	}
	combos := l.Combos()
	if len(combos) != 4 || l.Count(2) != 8 {
		t.Fatalf("%d combinations, count %d", len(combos), l.Count(2))
	}
	// T=float16, b=int8: follow takes float16 (input 0's), only takes U's first.
	got := combos[2]
	wantD := []ir.DType{ir.Float16, ir.Int8, ir.Float16, ir.Float16, ir.Float16, ir.Int32, ir.Int64, ir.Int32}
	for i, d := range wantD {
		if got.DTypes[i] != d {
			t.Errorf("combination %s position %d: %s, want %s", got.Suffix(), i, got.DTypes[i], d)
		}
	}
	if combos[0].Suffix() != "float32_int8" {
		t.Errorf("suffix %q", combos[0].Suffix())
	}
	// follow with T=float32 is not in its list: its first dtype.
	if combos[0].DTypes[4] != ir.Float16 {
		t.Errorf("follow with float32 input: %s", combos[0].DTypes[4])
	}
}

func TestNoInputOutputsAreFloat(t *testing.T) {
	_, op := opOf(t, `
  - name: Make
    params: [{name: n, type: int32, mandatory: true}]
    outputs: [{name: y, type: [float16, float32], shape: [n]}]
`)
	l := layoutOf(op)
	if o := l.Outputs[0]; o.Rule != ruleFixed || o.Fixed != ir.Float32 {
		t.Errorf("output rule %d %s, want fixed float32", o.Rule, o.Fixed)
	}
}

func TestSupportsFormatCombination(t *testing.T) {
	_, op := opOf(t, `
  - name: F
    types: {T: [float32, float16]}
    inputs:
      - {name: x, type: T, shape: [N, C, H, W]}
      - {name: r, type: T, shape: [R, 4]}
    outputs: [{name: y, type: T, shape: [N, C, H, W]}]
    targets: {trt: {formats: [linear, chw32]}}
`)
	pkg := &packageModel{CppNs: "t"}
	m := newOpModel(pkg, op)
	want := []string{
		"(inOut[0].desc.type == nvinfer1::DataType::kFLOAT || inOut[0].desc.type == nvinfer1::DataType::kHALF) && (inOut[0].desc.format == nvinfer1::TensorFormat::kLINEAR || inOut[0].desc.format == nvinfer1::TensorFormat::kCHW32) && formatFits(inOut[0].desc.format, inOut[0].desc.dims.nbDims)",
		"inOut[1].desc.type == inOut[0].desc.type && followsFormat(inOut[1].desc.format, inOut[1].desc.dims.nbDims, inOut[0].desc.format)",
		"inOut[2].desc.type == inOut[0].desc.type && followsFormat(inOut[2].desc.format, inOut[2].desc.dims.nbDims, inOut[0].desc.format)",
	}
	for i, w := range want {
		if string(m.Supports[i]) != w {
			t.Errorf("position %d:\n got %s\nwant %s", i, m.Supports[i], w)
		}
	}
	if m.CombinationLimit != 0 {
		t.Errorf("limit %d for 4 combinations", m.CombinationLimit)
	}
	for _, c := range []struct {
		f    string
		rank int
		want string
	}{{"CHW32", 4, "CHW32"}, {"CHW32", 2, "LINEAR"}, {"DHWC8", 3, "LINEAR"}, {"DHWC8", 5, "DHWC8"}, {"HWC8", ir.RankAny, "HWC8"}} {
		if got := formatFor(c.f, c.rank); got != c.want {
			t.Errorf("formatFor(%s, %d) = %s, want %s", c.f, c.rank, got, c.want)
		}
	}
}

// TestShapeCode: the IExprBuilder code of getOutputShapes and the Python
// ShapeExpr code of the register function, for one expression of each kind.
func TestShapeCode(t *testing.T) {
	_, op := opOf(t, `
  - name: S
    inputs:
      - {name: x, type: float32, shape: [N, L]}
      - {name: shape, type: int64, shape: [2], shape_tensor: true}
    params:
      - {name: k, type: int32, default: 2}
      - {name: pads, type: "int32[]", default: [1, 1]}
    outputs:
      - {name: a, type: float32, shape: ["ceil_div(N, k) - pads[1]", "min(L, 4, shape[1])", K]}
    data_dependent:
      K: {upper: "N * L", opt: "-N + N * L"}
`)
	l := layoutOf(op)
	sc := newShapeCode(op, l, false)
	joined := strings.Join(sc.Outputs[0], "\n")
	for _, want := range []string{
		"outputs[0].d[0] = dimOp(exprBuilder, nvinfer1::DimensionOperation::kSUB, dimOp(exprBuilder, nvinfer1::DimensionOperation::kCEIL_DIV, inputs[0].d[0], exprBuilder.constant(mParams.k)), exprBuilder.constant(mParams.pads[1]));",
		"outputs[0].d[1] = dimOp(exprBuilder, nvinfer1::DimensionOperation::kMIN, dimOp(exprBuilder, nvinfer1::DimensionOperation::kMIN, inputs[0].d[1], exprBuilder.constant(4)), shapeInputs[0].d[1]);",
		"outputs[0].d[2] = size_K;",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("output code lacks\n%s\nin\n%s", want, joined)
		}
	}
	sizes := strings.Join(sc.Sizes, "\n")
	if !strings.Contains(sizes, "sizeTensor(exprBuilder, 1, dimOp(exprBuilder, nvinfer1::DimensionOperation::kSUM, dimOp(exprBuilder, nvinfer1::DimensionOperation::kSUB, exprBuilder.constant(0), inputs[0].d[0]), dimOp(exprBuilder, nvinfer1::DimensionOperation::kPROD, inputs[0].d[0], inputs[0].d[1])), dimOp(exprBuilder, nvinfer1::DimensionOperation::kPROD, inputs[0].d[0], inputs[0].d[1]))") {
		t.Errorf("size tensor code:\n%s", sizes)
	}
	checks := strings.Join(sc.Checks, "\n")
	for _, want := range []string{"inputs[0].nbDims != 2", "mParams.pads.size() <= 1", "shapeInputs[0].nbDims <= 1"} {
		if !strings.Contains(checks, want) {
			t.Errorf("checks lack %q:\n%s", want, checks)
		}
	}
	py := newPyRefs(op, l)
	if got := py.expr(op.Outputs[0].Shape[0].Expr, false); got != "(trtp.cdiv(x.shape_expr[0], trtp.ShapeExpr(int(k))) - trtp.ShapeExpr(int(pads[1])))" {
		t.Errorf("Python: %s", got)
	}
	if got := py.expr(op.Outputs[0].Shape[2].Expr, true); got != "(x.shape_expr[0] * x.shape_expr[1])" {
		t.Errorf("Python upper bound: %s", got)
	}
}

func TestIntBounds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		dt       ir.DType
		min, max *float64
		lo, hi   string
	}{
		{ir.Int32, nil, nil, "int64_t{-2147483648}", "int64_t{2147483647}"},
		{ir.Int8, f(-200), f(1.5), "int64_t{-128}", "int64_t{1}"},
		{ir.Int64, f(0.5), nil, "int64_t{1}", "std::numeric_limits<int64_t>::max()"},
		{ir.Int16, nil, f(1e9), "int64_t{-32768}", "int64_t{32767}"},
	}
	for _, c := range cases {
		lo, hi := intBounds(&ir.Param{Min: c.min, Max: c.max}, c.dt)
		if lo != c.lo || hi != c.hi {
			t.Errorf("%s: [%s, %s], want [%s, %s]", c.dt, lo, hi, c.lo, c.hi)
		}
	}
	if lo, _ := intBounds(&ir.Param{}, ir.Int64); lo != "std::numeric_limits<int64_t>::min()" {
		t.Errorf("int64 low bound %s", lo)
	}
}

func TestParamStorage(t *testing.T) {
	_, op := opOf(t, `
  - name: P
    inputs: [{name: x, type: float32, shape: [N]}]
    params:
      - {name: h, type: float16, default: 0.5}
      - {name: flags, type: "bool[]", default: [true]}
      - {name: mode, type: enum, values: [fast, two_pass, 3d], default: two_pass}
      - {name: w, type: "float64[2]", min: 0}
    outputs: [{name: y, type: float32, shape: [N]}]
`)
	var ms []*paramModel
	for i, p := range op.Params {
		ms = append(ms, newParamModel(op, p, i))
	}
	for i, want := range []struct{ member, read, field string }{
		{"float h{0.5f};", "readFloats(f, &p.h, 1, true, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), err)", "kFLOAT16"},
		{"std::vector<int8_t> flags{true};", "readBoolVector(f, p.flags, err)", "kINT8"},
		{"PMode mode{PMode::kTwoPass};", "readEnum(f, kPModeNames, 3, p.mode, err)", "kCHAR"},
		{"double w[2]{};", "readFloats(f, p.w, 2, false, 0.0, std::numeric_limits<double>::infinity(), err)", "kFLOAT64"},
	} {
		if string(ms[i].Member) != want.member || string(ms[i].Read) != want.read || string(ms[i].FieldType) != want.field {
			t.Errorf("param %s:\n got %s | %s | %s\nwant %s | %s | %s", ms[i].Name, ms[i].Member, ms[i].Read, ms[i].FieldType, want.member, want.read, want.field)
		}
	}
	if e := ms[2].enum; e.Values[2].Const != "kT3d" {
		t.Errorf("enum constants %+v", e.Values)
	}
	if !ms[3].Required || ms[0].Required {
		t.Error("required: params without a default")
	}
}

// TestHalfBits is the test helper's float16 encoding against known values.
func TestHalfBits(t *testing.T) {
	for v, want := range map[float64]uint16{1: 0x3c00, 0.5: 0x3800, -2: 0xc000, 1.5: 0x3e00, 0: 0} {
		if got := halfBits(v); got != want {
			t.Errorf("halfBits(%g) = %#04x, want %#04x", v, got, want)
		}
	}
}

func TestDTypeParamOutput(t *testing.T) {
	_, op := opOf(t, `
  - name: Cast
    inputs: [{name: x, type: [float32, int32], shape: [N]}]
    params: [{name: to, type: enum, values: [float16, int32]}]
    outputs: [{name: y, type: [float16, int32], shape: [N], dtype_param: to}]
`)
	l := layoutOf(op)
	y := l.Outputs[0]
	if y.Rule != ruleParam || len(l.Slots) != 2 || !l.Slots[1].Output || l.Slots[1].Pos != 1 {
		t.Fatalf("y rule %d, slots %+v: want a param slot at position 1", y.Rule, l.Slots)
	}
	var got []string
	for _, c := range l.Combos() {
		got = append(got, c.Suffix())
	}
	if want := "float32_float16 float32_int32 int32_float16 int32_int32"; strings.Join(got, " ") != want {
		t.Errorf("combos %q, want %q", strings.Join(got, " "), want)
	}
	want := "(mParams.to == CastTo::kFloat16 ? nvinfer1::DataType::kHALF : nvinfer1::DataType::kINT32)"
	if e := typeExpr(l.All(), y.Pos, func(int) string { return "in" }); e != want {
		t.Errorf("output dtype %s, want %s", e, want)
	}
	pinned := pinParams(l, map[string]value{"to": {index: 1}})
	if o := pinned.Outputs[0]; o.Rule != ruleFixed || o.Fixed != ir.Int32 || len(pinned.Slots) != 1 || len(pinned.Combos()) != 2 {
		t.Errorf("pinned to int32: rule %d %s, %d slots, %d combos", o.Rule, o.Fixed, len(pinned.Slots), len(pinned.Combos()))
	}
}
