package trt

import (
	"strings"
	"testing"
)

// TestQDPAutotuneParamSharedByOutputs: two outputs typed by the same
// dtype_param have the dtype its value names, so the Python plugin's
// autotune lists, under each value, only combinations where both outputs
// have it (the register function returns both in that dtype). Found in
// review: each output had a slot of its own, so under to=float32 the
// combination with z HALF was listed too.
func TestQDPAutotuneParamSharedByOutputs(t *testing.T) {
	pkg, op := opOf(t, `
  - name: TwoOuts
    inputs: [{name: x, type: float32, shape: [N]}]
    params: [{name: to, type: enum, values: [float32, float16]}]
    outputs:
      - {name: y, type: [float32, float16], shape: [N], dtype_param: to}
      - {name: z, type: [float32, float16], shape: [N], dtype_param: to}
`)
	pm := newPackageModel(pkg, pkg.Ops)
	q := newQDPOp(pkg, op, pm.Ops[0])
	want := map[string]string{`("float32",)`: `"FLOAT, FLOAT, FLOAT"`, `("float16",)`: `"FLOAT, HALF, HALF"`}
	seen := 0
	for _, c := range q.Combos {
		key := "(" + strings.Join(c.Key, ", ") + ",)"
		if combo, ok := want[key]; ok {
			seen++
			if c.Types != combo {
				t.Errorf("autotune lists %s under %s; the register function types both outputs %s", c.Types, key, combo)
			}
		}
	}
	if seen == 0 {
		t.Errorf("autotune lists none of the keys %v: %+v", want, q.Combos)
	}
}

// TestDimAxisLocalsDistinct: each x.shape[axis] of an op reads its axis
// into a local of its own. Found in review: the local of a param axis
// (axis_<input>_<param>) and of a literal negative axis
// (axis_<input>_m<n>) coincided for a param named m1, so getOutputShapes
// declared axis_0_m1 twice (a C++ compile error) and the Python plugin
// read x.shape[m1] at axis -1; the Python locals
// (_axis_<input>_<param>) also coincided for inputs x_a, x and params b,
// a_b, and with the local of a shape like an input's (_axis_<output>).
func TestDimAxisLocalsDistinct(t *testing.T) {
	for _, src := range []string{`
  - name: ParamM1
    inputs: [{name: x, type: float32, rank: any}]
    params: [{name: m1, type: int32, default: 0}]
    outputs: [{name: y, type: float32, shape: ["x.shape[m1]", "x.shape[-1]"]}]
`, `
  - name: InputNames
    inputs: [{name: x_a, type: float32, rank: any}, {name: x, type: float32, rank: any}]
    params: [{name: b, type: int32, default: 0}, {name: a_b, type: int32, default: -1}]
    outputs: [{name: y, type: float32, shape: ["x_a.shape[b]", "x.shape[a_b]"]}]
`, `
  - name: LikeOutput
    inputs: [{name: x, type: float32, rank: any}]
    params: [{name: axis, type: int32, default: 0}, {name: k, type: int32, default: -1}]
    outputs:
      - {name: x_k, type: float32, shape: {like: x, axis: axis, remove: true}}
      - {name: z, type: float32, shape: ["x.shape[k]"]}
`} {
		pkg, op := opOf(t, src)
		pm := newPackageModel(pkg, pkg.Ops)
		// C++: one declaration per local.
		declared := map[string]string{}
		for _, c := range newShapeCode(op, layoutOf(op), false).Checks {
			if name, value, ok := strings.Cut(strings.TrimPrefix(c, "int64_t "), " = "); ok && strings.HasPrefix(c, "int64_t ") {
				if prev, dup := declared[name]; dup {
					t.Errorf("%s: getOutputShapes declares %s twice (= %s and = %s)", op.Name, name, prev, value)
				}
				declared[name] = value
			}
		}
		// Python: a local is assigned one value.
		assigned := map[string]string{}
		for _, s := range newQDPOp(pkg, op, pm.Ops[0]).Body {
			name, value, ok := strings.Cut(strings.TrimSpace(s), " = int(")
			if !ok || strings.ContainsAny(name, " (") {
				continue
			}
			if prev, dup := assigned[name]; dup && prev != value {
				t.Errorf("%s: the Python plugin assigns %s from int(%s and from int(%s", op.Name, name, prev, value)
			}
			assigned[name] = value
		}
	}
}

// TestQDPNumelsKeepSizeTensorsApart: the AOT element count of an output
// with a data-dependent dim and a dim reading x.shape[axis] multiplies the
// size's upper bound by the output's own dim, never a size-tensor
// expression (numel() of the output's shape would: TensorRT allows no
// arithmetic on those). Found in review.
func TestQDPNumelsKeepSizeTensorsApart(t *testing.T) {
	pkg, op := opOf(t, `
  - name: PickSome
    inputs: [{name: x, type: float32, rank: [1, 4]}]
    params: [{name: axis, type: int32, default: -1, min: -4, max: 3}]
    outputs: [{name: y, type: float32, shape: [K, "x.shape[axis]"]}]
    data_dependent:
      K: {upper: 8}
`)
	pm := newPackageModel(pkg, pkg.Ops)
	q := newQDPOp(pkg, op, pm.Ops[0])
	numels := strings.Join(q.Numels, ", ")
	if strings.Contains(numels, "numel()") || !strings.Contains(numels, "outputs[0].shape_expr[1]") {
		t.Errorf("element counts %s: want the upper bound of K times outputs[0].shape_expr[1]", numels)
	}
}
