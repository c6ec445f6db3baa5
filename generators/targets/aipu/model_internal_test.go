package aipu

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/yamldef"
)

func TestBaseTarget(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"X2_1204", "X2_1204"},
		{"X2_1204MP3", "X2_1204"},
		{"X3P_1304MP4", "X3P_1304"},
		{"X3S_1304MP", "X3S_1304MP"}, // no core count: not a multi-core suffix
		{"MP3", "MP3"},
		{"X9_MPX", "X9_MPX"},
	} {
		if got := baseTarget(c.in); got != c.want {
			t.Errorf("baseTarget(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := strings.Join(mcpus([]string{"X2_1204", "X2_1204MP3", "X3P_1304"}), " "); got != "X2_1204 X3P_1304" {
		t.Errorf("mcpus: %s", got)
	}
}

func TestScope(t *testing.T) {
	s := newScope(newNameSet("np", "torch"))
	for _, c := range []struct{ in, want string }{{"x", "x"}, {"np", "np_"}, {"x", "x_"}, {"np", "np__"}, {"torch", "torch_"}} {
		if got := s.claim(c.in); got != c.want {
			t.Errorf("claim(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// loadOp builds the IR of a one-op opdef.
func loadOp(t *testing.T, src string) (*ir.Package, *ir.Op) {
	t.Helper()
	var l diag.List
	pkg := yamldef.Load("ops.yaml", []byte(src), &l)
	if l.HasErrors() || pkg == nil {
		t.Fatalf("%v", l.Sorted())
	}
	return pkg, pkg.Ops[0]
}

// TestKernelVariants: type variables and dtype lists with several Compass
// dtypes are axes; their product is the variants, named by dtype; qint8
// and int8 are one Compass dtype.
func TestKernelVariants(t *testing.T) {
	pkg, op := loadOp(t, `version: 1
package: {name: P, domain: d, version: 1.0.0}
ops:
  - name: Mix
    types: {T: [float32, float16], Q: [int8, qint8]}
    inputs:
      - {name: a, type: T, shape: [N]}
      - {name: b, type: [int32, int16], shape: [N]}
      - {name: c, type: Q, shape: [N]}
    outputs:
      - {name: y, type: T, shape: [N]}
    targets: {aipu: {}}
`)
	k := newKernelModel(names.Snake(pkg.Name), op, dimSymbols(op))
	var entries []string
	for _, v := range k.Variants {
		entries = append(entries, v.Entry)
	}
	want := "p_mix_float32_int32 p_mix_float32_int16 p_mix_float16_int32 p_mix_float16_int16"
	if strings.Join(entries, " ") != want {
		t.Errorf("variants %v, want %s", entries, want)
	}
	if got := strings.Join(k.Variants[3].Defines, " "); got != "-DOPFORGE_KERNEL=p_mix_float16_int16 -DOPFORGE_TYPE_T=half -DOPFORGE_TYPE_b=short" {
		t.Errorf("defines %s", got)
	}
	if !k.FP16 || k.elemType(op.Inputs[2]) != "char" || k.elemType(op.Inputs[0]) != "T_t" {
		t.Errorf("fp16 %v, c %s, a %s", k.FP16, k.elemType(op.Inputs[2]), k.elemType(op.Inputs[0]))
	}
}

// TestNamesDoNotShadow: inputs named like the modules and helpers of the
// generated Python, and params named like array element arguments, get
// locals and kernel arguments of their own.
func TestNamesDoNotShadow(t *testing.T) {
	pkg, op := loadOp(t, `version: 1
package: {name: P, domain: d, version: 1.0.0}
ops:
  - name: Clash
    inputs:
      - {name: np, type: float32, shape: [N]}
      - {name: torch, type: float32, shape: [N]}
    params:
      - {name: w, type: "int32[2]", default: [1, 2]}
      - {name: w_0, type: int32, default: 3}
    outputs:
      - {name: y, type: float32, shape: [N]}
    targets: {aipu: {}}
`)
	m := newOpModel(newPackageFacts(pkg, KnownTargets), op)
	if m.parser.Inputs[0] != "np_" {
		t.Errorf("parser locals: %v", m.parser.Inputs)
	}
	if in := m.opt.Inputs[1]; in.Local != "torch_" || in.Expr != "self.inputs[1].betensor" {
		t.Errorf("forward locals: %+v", m.opt.Inputs)
	}
	decls := m.kernel.Params
	args := strings.Join(decls, ", ")
	if !strings.Contains(args, "int w_0_, int w_1, int w_0,") && !strings.Contains(args, "int w_0, int w_1, int w_0_") {
		t.Errorf("kernel args: %s", args)
	}
	seen := map[string]bool{}
	for _, a := range decls {
		f := strings.Fields(a)
		name := f[len(f)-1]
		if seen[name] {
			t.Errorf("kernel argument %s twice: %s", name, args)
		}
		seen[name] = true
	}
}

// TestOpenCLFieldsFollowTheBuilder: the arguments verify's aipu-opencl
// runner binds say, one by one, what the GBuilder plugin's generate_params
// passes (the same kernelArg carries both), and each variant lists the
// torch dtypes of every tensor (qint8 and int8 one Compass dtype, torch
// making only int8).
func TestOpenCLFieldsFollowTheBuilder(t *testing.T) {
	pkg, op := loadOp(t, `version: 1
package: {name: P, domain: d, version: 1.0.0}
ops:
  - name: Mix
    types: {T: [float32, float16]}
    inputs:
      - {name: table, type: float32, shape: [K], static: true}
      - {name: x, type: T, shape: [N, C]}
      - {name: q, type: [int8, qint8], rank: [1, 3]}
    params:
      - {name: pads, type: "int32[2]", default: [0, 1]}
      - {name: gain, type: float32, default: 1.0}
      - {name: mode, type: enum, values: [a, b], default: b}
      - {name: on, type: bool, default: true}
      - {name: tag, type: string, default: t}
    outputs:
      - {name: y, type: T, shape: {like: q}}
    targets: {aipu: {}}
`)
	fields := openclRunner{}.OpFields(pkg, op)["opencl"].(map[string]any)
	if fields["source"] != "P/kernels/mix.cl" {
		t.Errorf("source %v", fields["source"])
	}
	k := newKernelModel(names.Snake(pkg.Name), op, dimSymbols(op))
	args := fields["args"].([]argSource)
	if len(args) != len(k.Args) {
		t.Fatalf("%d arguments for %d kernel parameters", len(args), len(k.Args))
	}
	var got []string
	for i, a := range args {
		py := string(k.Args[i].Python)
		ok := false
		switch a.Kind {
		case "input":
			ok = strings.HasPrefix(py, "sgnode.inputs[") || strings.Contains(py, `"/`+op.Inputs[a.Index].Ident+`"`)
		case "output":
			ok = py == "sgnode.outputs["+strconv.Itoa(a.Index)+"]"
		case "param":
			ok = strings.Contains(py, `params["`+a.Param+`"]`) && strings.HasPrefix(string(k.Args[i].Decl), a.Type+" ")
		case "rank":
			ok = strings.HasPrefix(py, "len(sgnode."+a.Tensor+"s[")
		case "dim":
			ok = strings.HasSuffix(py, ".shape["+strconv.Itoa(a.Dim)+"])") || strings.HasSuffix(py, ", "+strconv.Itoa(a.Dim)+")")
		}
		if !ok || !strings.HasSuffix(string(k.Args[i].Decl), " "+a.Name) && !strings.HasSuffix(string(k.Args[i].Decl), "*"+a.Name) {
			t.Errorf("argument %d %+v does not say what %s passes (%s)", i, a, k.Args[i].Decl, py)
		}
		got = append(got, a.Kind+":"+a.Name+":"+a.Encode)
	}
	want := "input:table: input:x: input:q: output:y: param:pads_0:element param:pads_1:element param:gain:value param:mode:enum param:on:bool " +
		"dim:K: dim:N: dim:C: rank:q_rank: dim:q_dim0: dim:q_dim1: dim:q_dim2: rank:y_rank: dim:y_dim0: dim:y_dim1: dim:y_dim2:"
	if strings.Join(got, " ") != want {
		t.Errorf("arguments\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	variants := fields["variants"].([]oclVariant)
	if len(variants) != 2 || variants[0].FP16 || !variants[1].FP16 {
		t.Fatalf("variants %+v", variants)
	}
	if got := fmt.Sprint(variants[1].Inputs, variants[1].Outputs); got != "[[float32] [float16] [int8]] [[float16]]" {
		t.Errorf("float16 variant's dtypes %s", got)
	}
}
