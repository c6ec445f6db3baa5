package aipu

import (
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
)

// axis is one free dtype choice of a kernel: a type variable, or a tensor
// typed with a list of dtypes, taking more than one Compass dtype. Each
// combination of axis values is a kernel variant, compiled into its own
// object, because one OpenCL kernel has one element type per pointer.
type axis struct {
	Typedef string // the element type name in the kernel (T_t, mask_t)
	Macro   string // the -D macro that picks it (OPFORGE_TYPE_T)
	Values  []ir.DType
}

// kernelArg is one kernel parameter with the GBuilder expression that
// passes it: generate_params appends Python in exactly this order.
type kernelArg struct {
	Decl   text // OpenCL declaration
	Python text // the ro.append argument
	// Note is what the argument holds, as # comment text (escaped once
	// here: newArg).
	Note text
	// src is what Python passes, said as data (verify's OpenCL runner
	// binds the arguments from it), made beside Python so they agree.
	src argSource
}

// argSource is what a kernel argument holds, in the terms of a verify
// case: a tensor of the op, a param's value, or a tensor's rank or dim.
type argSource struct {
	Name string `json:"name"` // the argument's name in the kernel
	// Kind is "input" or "output" (a buffer: the tensor Index of the op's
	// inputs or outputs), "param" (a scalar from param Param, as Encode
	// says), "constant" (a buffer: tensor param Param), "rank" or "dim"
	// (an int: the rank, or dim Dim, 1 past the rank, of the input or
	// output Index, Tensor saying which).
	Kind   string `json:"kind"`
	Type   string `json:"type,omitempty"` // a scalar's OpenCL type
	Index  int    `json:"index"`
	Tensor string `json:"tensor,omitempty"` // rank, dim: "input" or "output"
	Dim    int    `json:"dim"`
	Param  string `json:"param,omitempty"` // the param's identifier (a case param's name)
	// Encode is how a param's value becomes the scalar: "value", "bool"
	// (0 or 1), "enum" (its index), "element" (element Element of an
	// array).
	Encode  string `json:"encode,omitempty"`
	Element int    `json:"element"`
}

// newArg is a kernel argument whose Note is comment, escaped, holding src
// (named after the declaration's last word).
func newArg(decl, python, comment string, src argSource) kernelArg {
	src.Name = decl[strings.LastIndexAny(decl, " *")+1:]
	return kernelArg{Decl: text(decl), Python: text(python), Note: text(escape.HashComment(comment)), src: src}
}

// bufferArg is the source of the buffer of the op's input index, or of
// its output index.
func bufferArg(output bool, index int) argSource {
	if output {
		return argSource{Kind: "output", Index: index}
	}
	return argSource{Kind: "input", Index: index}
}

// shapeArg is the source of an int argument holding the rank (dim < 0) or
// dim dim of the op's input index, or of its output index.
func shapeArg(output bool, index, dim int) argSource {
	s := argSource{Kind: "dim", Type: "int", Index: index, Tensor: "input", Dim: dim}
	if dim < 0 {
		s.Kind, s.Dim = "rank", 0
	}
	if output {
		s.Tensor = "output"
	}
	return s
}

// variant is one object to compile from a kernel source.
type variant struct {
	Entry   string     // kernel entry name, the object's base name
	Defines []string   // -D options
	Flags   text       // Defines joined, as the Makefile and the kernel comment show them
	dtypes  []ir.DType // the value of each axis
}

// kernelModel is everything about an op's kernel that the builder plugin,
// the .cl source and the build share.
type kernelModel struct {
	Base     string // entry name without the variant suffix
	Axes     []*axis
	Args     []kernelArg
	Variants []variant
	FP16     bool
	// RankDims: some tensor's rank and dims are arguments (the builder
	// needs _dim); RankLines describe them for the kernel's comment.
	RankDims  bool
	RankLines []rankLine
	// Fixed dtypes of tensors outside every axis.
	fixed map[*ir.Tensor]ir.DType
	// axisOf maps a tensor to the index of its axis.
	axisOf map[*ir.Tensor]int
}

const (
	kernelMacro = "OPFORGE_KERNEL"
	typeMacro   = "OPFORGE_TYPE_"
)

// newKernelModel builds the kernel of op, whose entry names start with
// prefix (the package's snake-case name) and whose inputs bind dims.
func newKernelModel(prefix string, op *ir.Op, dims []dimSymbol) *kernelModel {
	k := &kernelModel{
		Base:   prefix + "_" + stem(op),
		fixed:  map[*ir.Tensor]ir.DType{},
		axisOf: map[*ir.Tensor]int{},
	}
	ocl := newScope(nil)
	k.axes(op, ocl)
	k.args(op, ocl, dims)
	k.variants()
	return k
}

// axes finds the op's free dtype choices: type variables first, in
// declaration order, then tensors with their own dtype lists.
func (k *kernelModel) axes(op *ir.Op, ocl scope) {
	tensors := op.Tensors()
	for _, tv := range op.TypeVars {
		values := distinctCompass(tv.Allowed)
		var users []*ir.Tensor
		for _, t := range tensors {
			if t.Type.Var == tv.Name {
				users = append(users, t)
			}
		}
		if len(users) == 0 {
			continue
		}
		if len(values) == 1 {
			for _, t := range users {
				k.fixed[t] = values[0]
			}
			continue
		}
		a := &axis{Typedef: ocl.claim(tv.Name + "_t"), Macro: typeMacro + tv.Name, Values: values}
		for _, t := range users {
			k.axisOf[t] = len(k.Axes)
		}
		k.Axes = append(k.Axes, a)
	}
	for _, t := range tensors {
		if t.Type.Var != "" {
			continue
		}
		values := distinctCompass(t.Type.DTypes)
		if len(values) == 1 {
			k.fixed[t] = values[0]
			continue
		}
		k.axisOf[t] = len(k.Axes)
		k.Axes = append(k.Axes, &axis{Typedef: ocl.claim(t.Ident + "_t"), Macro: typeMacro + t.Ident, Values: values})
	}
	for _, a := range k.Axes {
		for _, v := range a.Values {
			k.FP16 = k.FP16 || v == ir.Float16
		}
	}
	for _, d := range k.fixed {
		k.FP16 = k.FP16 || d == ir.Float16
	}
}

// elemType is a tensor's element type in the kernel.
func (k *kernelModel) elemType(t *ir.Tensor) string {
	if i, ok := k.axisOf[t]; ok {
		return k.Axes[i].Typedef
	}
	return spellings[k.fixed[t]].OpenCL
}

// args lays out the kernel parameters: inputs (static ones are constants
// of the layer), outputs, params, then the size of every dimension symbol
// the inputs bind, which the kernel needs to index its buffers.
func (k *kernelModel) args(op *ir.Op, ocl scope, dims []dimSymbol) {
	// Typedef names are claimed already; an argument never shadows one.
	// Tensors claim first, in op.Tensors() order (inputs, outputs), then
	// the params that keep their name.
	ins := make([]string, len(op.Inputs))
	for i, in := range op.Inputs {
		ins[i] = ocl.claim(in.Ident)
	}
	outs := make([]string, len(op.Outputs))
	for i, o := range op.Outputs {
		outs[i] = ocl.claim(o.Ident)
	}
	params := make([]string, len(op.Params))
	for i, p := range op.Params {
		if paramPassing(p) != passElements {
			params[i] = ocl.claim(p.Ident)
		}
	}
	k.Args = make([]kernelArg, 0, len(op.Inputs)+len(op.Outputs)+len(op.Params)+len(dims))
	visible := 0
	for i, in := range op.Inputs {
		decl := "__global const " + k.elemType(in) + "* " + ins[i]
		if in.Static {
			k.Args = append(k.Args, newArg(decl, constantRef(in.Ident), in.Name+" (static: a constant of the layer)", bufferArg(false, i)))
			continue
		}
		k.Args = append(k.Args, newArg(decl, "sgnode.inputs["+strconv.Itoa(visible)+"]", in.Name, bufferArg(false, i)))
		visible++
	}
	for i, out := range op.Outputs {
		k.Args = append(k.Args, newArg("__global "+k.elemType(out)+"* "+outs[i], "sgnode.outputs["+strconv.Itoa(i)+"]", out.Name, bufferArg(true, i)))
	}
	for i, p := range op.Params {
		k.Args = append(k.Args, paramArgs(p, params[i], ocl)...)
		for _, dt := range p.DTypes[:min(1, len(p.DTypes))] {
			k.FP16 = k.FP16 || (dt == ir.Float16 && paramPassing(p) != passNone)
		}
	}
	for _, d := range dims {
		src := "sgnode.inputs[" + strconv.Itoa(d.visible) + "]"
		if d.input.Static {
			src = constantRef(d.input.Ident)
		}
		dim := strconv.Itoa(d.dim)
		k.Args = append(k.Args, newArg("int "+ocl.claim(d.name), "int("+src+".shape["+dim+"])", d.name+": dim "+dim+" of "+d.input.Name, shapeArg(false, d.index, d.dim)))
	}
	k.rankArgs(op, ocl)
}

// MaxRank is the most dims a tensor may have (the opdef schema's bound).
const MaxRank = ir.MaxRank

// rankPoly reports whether a tensor has no declared shape: an input of
// rank any or a rank range, an output shaped {like: x} or {broadcast: ...}.
// Its kernel receives its rank and dims as arguments.
func rankPoly(t *ir.Tensor) bool {
	return t.Shape == nil && !t.Scalar && t.Rank == ir.RankAny
}

// maxRank is the most dims a rank-polymorphic tensor of op may have: its
// rank range's end, for an output that of the inputs it is shaped from.
func maxRank(op *ir.Op, t *ir.Tensor) int {
	if t.RankRange != nil {
		return t.RankRange.Max
	}
	var from []string
	switch {
	case t.Like != nil:
		from = []string{t.Like.Input}
	case t.Broadcast != nil:
		from = t.Broadcast.Inputs
	default:
		return MaxRank
	}
	n := 0
	for _, name := range from {
		r := MaxRank
		for _, in := range op.Inputs {
			if in.Name == name && in.Name != t.Name {
				switch {
				case in.Shape != nil || in.Rank >= 0:
					r = max(in.Rank, len(in.Shape))
				case in.RankRange != nil:
					r = in.RankRange.Max
				}
			}
		}
		n = max(n, r)
	}
	return n
}

// rankArgs passes every rank-polymorphic tensor's rank and dims, inputs
// then outputs: an int rank, then one int per dim up to the tensor's
// largest rank, the dims past its rank being 1 (so the element count is
// always their product).
func (k *kernelModel) rankArgs(op *ir.Op, ocl scope) {
	visible := 0
	for _, t := range op.Tensors() {
		src := ""
		i := slices.Index(op.Inputs, t)
		output := i < 0
		if !output {
			if t.Static {
				src = constantRef(t.Ident)
			} else {
				src = "sgnode.inputs[" + strconv.Itoa(visible) + "]"
				visible++
			}
		} else {
			i = slices.Index(op.Outputs, t)
			src = "sgnode.outputs[" + strconv.Itoa(i) + "]"
		}
		if !rankPoly(t) {
			continue
		}
		k.RankDims = true
		rank := ocl.claim(t.Ident + "_rank")
		k.Args = append(k.Args, newArg("int "+rank, "len("+src+".shape)", "rank of "+t.Name, shapeArg(output, i, -1)))
		n := maxRank(op, t)
		line := rankLine{Rank: text(rank), Tensor: text(escape.CComment(t.Name))}
		for d := range n {
			name := ocl.claim(t.Ident + "_dim" + strconv.Itoa(d))
			k.Args = append(k.Args, newArg("int "+name, "_dim("+src+", "+strconv.Itoa(d)+")", "dim "+strconv.Itoa(d)+" of "+t.Name+" (1 past its rank)", shapeArg(output, i, d)))
			switch d {
			case 0:
				line.First = text(name)
			case n - 1:
				line.Last = text(name)
			}
		}
		k.RankLines = append(k.RankLines, line)
	}
}

// constantRef is how GBuilder finds a constant of the layer.
func constantRef(key string) string {
	return "sgnode.constants[node.name + " + escape.PyString("/"+key) + "]"
}

// paramArgs are the kernel parameters of one param called name in the
// kernel; array elements claim their own names.
func paramArgs(p *ir.Param, name string, ocl scope) []kernelArg {
	value := "params[" + escape.PyString(p.Ident) + "]"
	sp := spellings[scalarDType(p)]
	raw := "_raw(" + escape.PyString(strings.TrimPrefix(sp.NumPy, "np.")) + ", "
	scalar := func(name, expr, comment, encode string, element int) kernelArg {
		from := argSource{Kind: "param", Type: sp.OpenCL, Param: p.Ident, Encode: encode, Element: element}
		return newArg(sp.OpenCL+" "+name, raw+expr+")", comment, from)
	}
	switch paramPassing(p) {
	case passElements:
		out := make([]kernelArg, p.Length)
		for i := range out {
			n := strconv.Itoa(i)
			out[i] = scalar(ocl.claim(p.Ident+"_"+n), "_element("+value+", "+n+")", p.Name+"["+n+"]", "element", i)
		}
		return out
	case passBuffer:
		return []kernelArg{newArg("__global const "+spellings[p.DTypes[0]].OpenCL+"* "+name, constantRef(p.Ident), p.Name+" (a constant of the layer)",
			argSource{Kind: "constant", Param: p.Ident})}
	case passNone:
		return nil
	}
	switch p.Kind {
	case ir.ParamBool:
		return []kernelArg{scalar(name, "_bool("+value+")", p.Name, "bool", 0)}
	case ir.ParamEnum:
		return []kernelArg{scalar(name, "_enum("+value+", "+enumTable(p)+")", p.Name+": index in ("+strings.Join(p.Values, ", ")+")", "enum", 0)}
	}
	return []kernelArg{scalar(name, value, p.Name, "value", 0)}
}

// enumTable names the builder's table from an enum's value names to their
// indices.
func enumTable(p *ir.Param) string { return strings.ToUpper(p.Ident) + "_VALUES" }

// dimSymbol is a dimension symbol and the input dim that binds it first.
type dimSymbol struct {
	name    string
	input   *ir.Tensor
	index   int // the input's index among the op's inputs
	dim     int
	visible int // index among the layer's (non-static) inputs
}

// dimSymbols lists the symbols input shapes bind (ir.Facts.Bindings), in
// first-use order, with where the layer finds each binding input.
func dimSymbols(op *ir.Op) []dimSymbol {
	bindings := op.Derived().Bindings
	out := make([]dimSymbol, len(bindings))
	for k, b := range bindings {
		visible := 0
		for _, in := range op.Inputs[:b.Input] {
			if !in.Static {
				visible++
			}
		}
		out[k] = dimSymbol{b.Symbol, op.Inputs[b.Input], b.Input, b.Dim, visible}
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
	k.Variants = make([]variant, len(combos))
	for j, c := range combos {
		entry := k.Base + suffix(c)
		v := variant{Entry: entry, Defines: make([]string, 1, 1+len(c)), dtypes: c}
		v.Defines[0] = "-D" + kernelMacro + "=" + entry
		for i, d := range c {
			v.Defines = append(v.Defines, "-D"+k.Axes[i].Macro+"="+spellings[d].OpenCL)
		}
		v.Flags = text(strings.Join(v.Defines, " "))
		k.Variants[j] = v
	}
}

// suffix names a variant by the Compass dtypes of its axes.
func suffix(c []ir.DType) string {
	var sb strings.Builder
	for _, d := range c {
		sb.WriteByte('_')
		sb.WriteString(compassName(d))
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
