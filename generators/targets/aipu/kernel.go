package aipu

import (
	"fmt"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// axis is one free dtype choice of a kernel: a type variable, or a tensor
// typed with a list of dtypes, taking more than one Compass dtype. Each
// combination of axis values is a kernel variant, compiled into its own
// object, because one OpenCL kernel has one element type per pointer.
type axis struct {
	Typedef string // the element type name in the kernel (T_t, mask_t)
	Macro   string // the -D macro that picks it (OPFORGE_TYPE_T)
	Values  []ir.DType
	varName string // the type variable, or "" for a tensor's own list
	tensor  *ir.Tensor
}

// kernelArg is one kernel parameter with the GBuilder expression that
// passes it: generate_params appends Python in exactly this order.
type kernelArg struct {
	Decl    string // OpenCL declaration
	Python  string // the ro.append argument
	Comment string
}

// variant is one object to compile from a kernel source.
type variant struct {
	Entry   string   // kernel entry name, the object's base name
	Defines []string // -D options
}

// kernelModel is everything about an op's kernel that the builder plugin,
// the .cl source and the build share.
type kernelModel struct {
	Base     string // entry name without the variant suffix
	Axes     []*axis
	Args     []kernelArg
	Variants []variant
	FP16     bool
	// Fixed element types of tensors outside every axis.
	fixed map[*ir.Tensor]string
	// axisOf maps a tensor to the index of its axis.
	axisOf map[*ir.Tensor]int
}

const (
	kernelMacro = "OPFORGE_KERNEL"
	typeMacro   = "OPFORGE_TYPE_"
)

func newKernelModel(pkg *ir.Package, op *ir.Op) *kernelModel {
	k := &kernelModel{
		Base:   names.Snake(pkg.Name) + "_" + stem(op),
		fixed:  map[*ir.Tensor]string{},
		axisOf: map[*ir.Tensor]int{},
	}
	ocl := newScope()
	k.axes(op, ocl)
	k.args(op, ocl)
	k.variants()
	return k
}

// axes finds the op's free dtype choices: type variables first, in
// declaration order, then tensors with their own dtype lists.
func (k *kernelModel) axes(op *ir.Op, ocl scope) {
	for _, tv := range op.TypeVars {
		values := distinctCompass(tv.Allowed)
		var users []*ir.Tensor
		for _, t := range op.Tensors() {
			if t.Type.Var == tv.Name {
				users = append(users, t)
			}
		}
		if len(users) == 0 {
			continue
		}
		if len(values) == 1 {
			for _, t := range users {
				k.fixed[t] = spellings[values[0]].OpenCL
			}
			continue
		}
		a := &axis{Typedef: ocl.claim(tv.Name + "_t"), Macro: typeMacro + tv.Name, Values: values, varName: tv.Name}
		for _, t := range users {
			k.axisOf[t] = len(k.Axes)
		}
		k.Axes = append(k.Axes, a)
	}
	for _, t := range op.Tensors() {
		if t.Type.Var != "" {
			continue
		}
		values := distinctCompass(t.Type.DTypes)
		if len(values) == 1 {
			k.fixed[t] = spellings[values[0]].OpenCL
			continue
		}
		k.axisOf[t] = len(k.Axes)
		k.Axes = append(k.Axes, &axis{Typedef: ocl.claim(t.Ident + "_t"), Macro: typeMacro + t.Ident, Values: values, tensor: t})
	}
	for _, a := range k.Axes {
		for _, v := range a.Values {
			k.FP16 = k.FP16 || v == ir.Float16
		}
	}
	for _, c := range k.fixed {
		k.FP16 = k.FP16 || c == "half"
	}
}

// elemType is a tensor's element type in the kernel.
func (k *kernelModel) elemType(t *ir.Tensor) string {
	if i, ok := k.axisOf[t]; ok {
		return k.Axes[i].Typedef
	}
	return k.fixed[t]
}

// args lays out the kernel parameters: inputs (static ones are constants
// of the layer), outputs, params, then the size of every dimension symbol
// the inputs bind, which the kernel needs to index its buffers.
func (k *kernelModel) args(op *ir.Op, ocl scope) {
	// Typedef names are claimed already; an argument never shadows one.
	name := map[string]string{}
	for _, t := range op.Tensors() {
		name[t.Ident] = ocl.claim(t.Ident)
	}
	for _, p := range op.Params {
		if paramPassing(p) != passElements {
			name[p.Ident] = ocl.claim(p.Ident)
		}
	}
	visible := 0
	for _, in := range op.Inputs {
		a := kernelArg{Decl: fmt.Sprintf("__global const %s* %s", k.elemType(in), name[in.Ident]), Comment: in.Name}
		if in.Static {
			a.Python = constantRef(in.Ident)
			a.Comment += " (static: a constant of the layer)"
		} else {
			a.Python = fmt.Sprintf("sgnode.inputs[%d]", visible)
			visible++
		}
		k.Args = append(k.Args, a)
	}
	for i, out := range op.Outputs {
		k.Args = append(k.Args, kernelArg{Decl: fmt.Sprintf("__global %s* %s", k.elemType(out), name[out.Ident]), Python: fmt.Sprintf("sgnode.outputs[%d]", i), Comment: out.Name})
	}
	for _, p := range op.Params {
		k.Args = append(k.Args, paramArgs(p, name[p.Ident], ocl)...)
		for _, dt := range p.DTypes[:min(1, len(p.DTypes))] {
			k.FP16 = k.FP16 || (dt == ir.Float16 && paramPassing(p) != passNone)
		}
	}
	for _, d := range dimSymbols(op) {
		src := fmt.Sprintf("sgnode.inputs[%d]", d.visible)
		if d.input.Static {
			src = constantRef(d.input.Ident)
		}
		k.Args = append(k.Args, kernelArg{
			Decl:    "int " + ocl.claim(d.name),
			Python:  fmt.Sprintf("int(%s.shape[%d])", src, d.dim),
			Comment: fmt.Sprintf("%s: dim %d of %s", d.name, d.dim, d.input.Name),
		})
	}
}

// constantRef is how GBuilder finds a constant of the layer.
func constantRef(key string) string { return fmt.Sprintf("sgnode.constants[node.name + %q]", "/"+key) }

// paramArgs are the kernel parameters of one param called name in the
// kernel; array elements claim their own names.
func paramArgs(p *ir.Param, name string, ocl scope) []kernelArg {
	value := fmt.Sprintf("params[%q]", p.Ident)
	dt := scalarDType(p)
	scalar := func(name, expr string) kernelArg {
		return kernelArg{
			Decl:    spellings[dt].OpenCL + " " + name,
			Python:  fmt.Sprintf("_raw(%q, %s)", strings.TrimPrefix(spellings[dt].NumPy, "np."), expr),
			Comment: p.Name,
		}
	}
	switch paramPassing(p) {
	case passElements:
		var out []kernelArg
		for i := 0; i < p.Length; i++ {
			a := scalar(ocl.claim(fmt.Sprintf("%s_%d", p.Ident, i)), fmt.Sprintf("_element(%s, %d)", value, i))
			a.Comment = fmt.Sprintf("%s[%d]", p.Name, i)
			out = append(out, a)
		}
		return out
	case passBuffer:
		return []kernelArg{{Decl: fmt.Sprintf("__global const %s* %s", spellings[p.DTypes[0]].OpenCL, name), Python: constantRef(p.Ident), Comment: p.Name + " (a constant of the layer)"}}
	case passNone:
		return nil
	}
	switch p.Kind {
	case ir.ParamBool:
		return []kernelArg{scalar(name, "_bool("+value+")")}
	case ir.ParamEnum:
		a := scalar(name, fmt.Sprintf("_enum(%s, %s)", value, enumTable(p)))
		a.Comment = fmt.Sprintf("%s: index in (%s)", p.Name, strings.Join(p.Values, ", "))
		return []kernelArg{a}
	}
	return []kernelArg{scalar(name, value)}
}

// enumTable names the builder's table from an enum's value names to their
// indices.
func enumTable(p *ir.Param) string { return strings.ToUpper(p.Ident) + "_VALUES" }

// dimSymbol is a dimension symbol and the input dim that binds it first.
type dimSymbol struct {
	name    string
	input   *ir.Tensor
	dim     int
	visible int // index among the layer's (non-static) inputs
}

// dimSymbols lists the symbols input shapes bind, in first-binding order.
func dimSymbols(op *ir.Op) []dimSymbol {
	var out []dimSymbol
	seen := map[string]bool{}
	visible := 0
	for _, in := range op.Inputs {
		for i, d := range in.Shape {
			if d.Expr.IsSymbol() && !seen[d.Expr.Name] {
				seen[d.Expr.Name] = true
				out = append(out, dimSymbol{d.Expr.Name, in, i, visible})
			}
		}
		if !in.Static {
			visible++
		}
	}
	return out
}

// variants is the product of the axis values, in axis order; the first
// is the kernel's default.
func (k *kernelModel) variants() {
	combos := [][]ir.DType{nil}
	for _, a := range k.Axes {
		var next [][]ir.DType
		for _, c := range combos {
			for _, v := range a.Values {
				next = append(next, append(append([]ir.DType{}, c...), v))
			}
		}
		combos = next
	}
	for _, c := range combos {
		entry := k.Base + suffix(c)
		v := variant{Entry: entry, Defines: []string{"-D" + kernelMacro + "=" + entry}}
		for i, d := range c {
			v.Defines = append(v.Defines, "-D"+k.Axes[i].Macro+"="+spellings[d].OpenCL)
		}
		k.Variants = append(k.Variants, v)
	}
}

// suffix names a variant by the Compass dtypes of its axes.
func suffix(c []ir.DType) string {
	var sb strings.Builder
	for _, d := range c {
		sb.WriteString("_" + compassName(d))
	}
	return sb.String()
}

// mcpus are the -mcpu values of targets: a multi-core variant (MPn) runs
// the objects of its base target.
func mcpus(targets []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range targets {
		m := baseTarget(t)
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// baseTarget strips a multi-core suffix: X2_1204MP3 -> X2_1204 (the DSL
// compiler's -mcpu rule).
func baseTarget(t string) string {
	i := strings.LastIndex(t, "MP")
	if i <= 0 || i+2 == len(t) {
		return t
	}
	for _, c := range t[i+2:] {
		if c < '0' || c > '9' {
			return t
		}
	}
	return t[:i]
}
