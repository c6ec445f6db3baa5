package trt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/shapeexpr"
	"github.com/opforge/opforge/generators/workpool"
)

// packageModel is everything the package-level templates print; every
// decision is made here, in Go.
type packageModel struct {
	Name      string // VisionOps: library, CMake project, file prefix
	CppNs     string // C++ namespace of the generated code
	Namespace string // TensorRT plugin namespace
	Version   string // plugin version
	Domain    string // the package's ONNX domain
	Macro     string // macro prefix: VISION_OPS
	Snake     string // vision_ops
	Legacy    bool
	Static    bool
	Ops       []*opModel
	Readme    []*readmeOp
	// Frames are every op's part of the shared files outside its
	// sections, kept ops' included (opFrame); Ops and Readme hold only
	// the ops modelled now.
	Frames []*opFrame
	// OpSections are the README's sections of the ops ("readme-op"),
	// rendered per op.
	OpSections *render.Joined
	// Requirements are the TensorRT versions the plugins need, checked with
	// #error against NvInferVersion.h.
	Requirements []requirement
	// QDPModule is the Python module name ("" without Python plugins).
	QDPModule string
	QDP       *qdpModel
	// DTypeCodes: some op has a dtype code param, whose reader Common.h
	// then defines.
	DTypeCodes bool
	// DimHelpers: common.h declares the helpers over slices and axes of
	// dims (dimsProd, dimAt, dimsProdExpr), which some op uses.
	DimHelpers bool
}

type requirement struct {
	Major, Minor int
	Why          string
}

// opModel is one op's plugin, creator and kernel. The fields the templates
// print most come first, then those more than one file prints, and the
// comment and field texts are grouped: text/template looks a field up by
// a linear search of the struct's fields at every access.
//
// The templates own the C++ text: what they print once per param, tensor,
// position or launcher is a typed row here (paramModel, tensorDoc,
// kernelTensor, inputCheck, launcherModel...) that they range over, in
// named define blocks of shared.tmpl where more than one file prints it.
// What stays text is an expression a Go printer builds (a dtype or format
// verdict, a shape expression, a field reader call).
type opModel struct {
	Name       string
	Class      text // RoiAlignLitePlugin
	Creator    text // RoiAlignLitePluginCreator
	ParamsType text // RoiAlignLiteParams
	Pkg        *packageModel
	Kernel     kernelModel
	Combos     []*launcherModel
	Docs       docText
	Fields     fieldText

	Description      string
	Aliased          bool
	Workspace        string // "" when the op needs none
	CombinationLimit int    // > 0: getFormatCombinationLimit override
	Enums            []*enumModel
	// PluginName, PluginVersion and PluginNamespace are the identity the
	// plugin and its creator report (PluginID).
	PluginName, PluginVersion, PluginNamespace string

	NbInputs, NbOutputs, NbShapeInputs int
	// MinInputs is the number of inputs always there; Optional says the
	// last NbInputs - MinInputs may be left out. The plugin then keeps the
	// count it was configured with (mNbInputs) for enqueue, which NbIn
	// names: "kNbInputs" or "mNbInputs".
	MinInputs int
	Optional  bool
	NbIn      string
	// OptionalDocs lists the optional inputs for comments: "b (input 2)".
	OptionalDocs string
	// InArray and OutArray size the TensorRef arrays (C++ has no empty arrays).
	InArray, OutArray int

	// OutputTypes[i] is output i's dtype as a C++ expression over inputTypes.
	OutputTypes []string
	// Supports is supportsFormatCombination's verdict for each position, a
	// C++ bool expression over inOut (the dtype rule && the format rule);
	// shared.tmpl's opdefSupports prints a switch case for each.
	Supports []text
	// Counted: the last outputs are a counted variadic output's, as many
	// as a param says (nil for none).
	Counted *countedModel
	// OutputWhen[i] guards getOutputDataTypes' line of output i: "" or
	// "if (nbOutputs > i) " for a counted output the plugin may not have.
	OutputWhen []string
	// DTypeParam: an output's dtype or a format rule depends on a param,
	// so opdefSupports reads the plugin's params (as mParams).
	DTypeParam bool
	Shape      shapeCode
	// RuntimeChecks compare concrete input dims with the opdef
	// (onShapeChange / enqueue): shared.tmpl's runtimeChecks.
	RuntimeChecks []inputCheck
	// Relations are the op's requires:, checked by configurePlugin and
	// at run time (relations.tmpl).
	Relations []relationRow

	Params []*paramModel
	// RequiredParams are the params without a default.
	RequiredParams []*paramModel
	Aliases        []aliasModel

	layout *ioLayout // the op's tensor positions, shared with its README entry
}

// docText is what the sources' comments list: the tensors and the fields.
type docText struct {
	// Inputs, ShapeInputs and Outputs are the tensors the plugin's header
	// comment lists (shared.tmpl's tensorDocs) and the kernel header names
	// (tensorNames); enqueue's error prints the dtype of each input
	// (inputTypes).
	Inputs, ShapeInputs, Outputs []tensorDoc
}

// tensorDoc is one tensor as the comments describe it.
type tensorDoc struct {
	Index    num // among the inputs, the outputs or the shape inputs
	Name     text
	Type     text // its dtypes, or int32 for a size tensor
	Shape    text // its shape, or "[] (size tensor)"
	Optional bool // an optional input
}

// fieldText is the counts the C++ sources size the params' arrays with;
// the rows themselves are opModel.Params.
type fieldText struct {
	Nb       int // params
	Array    int // max(1, params): the creator's field array
	NbSerial int // params + the layout field
}

// text is C++ or comment text a template prints, num a number it prints.
// Their String methods have pointer receivers on purpose: text/template
// prints an addressable value whose pointer is a fmt.Stringer through that
// pointer (printableValue), which spares the copy into an interface that
// printing a plain string or int field costs, an allocation a field. Row
// fields are addressable (they are reached through pointers or slices);
// the rows print several fields each, for every op of a large package.
type (
	text string
	num  int
)

func (t *text) String() string { return string(*t) }
func (n *num) String() string  { return strconv.Itoa(int(*n)) }

type aliasModel struct {
	Output, Input int
	OutName, In   string
}

// launcherModel is one typed launcher: the kernel entry enqueue calls for
// one dtype combination.
type launcherModel struct {
	Func text // launchRoiAlignLite_float32
	// Conds are the runtime dtype checks that select it, C++ bool
	// expressions enqueue joins with &&: one per dtype slot, "true" without.
	Conds []string
	// Args are the launch template's type arguments ("float"), one per
	// kernelModel.TypeParams.
	Args []string
	// IO initializes the IO struct's tensors, by inOut position
	// (kernelModel.Tensors); the upper bounds follow.
	IO []ioArg
	// Types are the dtypes by inOut position, for messages ("float32").
	Types []string
}

// kernelModel is the .cu file's typed plumbing around the user's code.
type kernelModel struct {
	IOName text // RoiAlignLiteIO
	Launch text // the launch template's name: roiAlignLite
	Fill   text // the default fill kernel's name
	// TypeParams are the launch template's and the IO struct's type
	// parameters ("T"); none: neither is a template.
	TypeParams []string
	// Tensors are the IO struct's tensor members, by inOut position; the
	// default launch body fills the outputs.
	Tensors []kernelTensor
	// Uppers are the IO struct's upper bounds of data-dependent sizes,
	// after the tensors.
	Uppers []upperBound
	// Fills are the outputs the default launch body fills, as io members:
	// y, or boxes[2] for a counted output's.
	Fills []text
	// Headers are the CUDA headers of the kernel types ("cuda_fp16.h").
	Headers []string
	// Triton, when set, is the op's imported Triton kernel, which the
	// default launch body launches (triton_cpp.go).
	Triton *tritonCppModel
}

// kernelTensor is one tensor member of an op's IO struct.
type kernelTensor struct {
	Ident  text
	Kind   text // InTensor or OutTensor
	Src    text // the launcher's TensorRef it is built from: inputs[0]
	CType  text // the element type: a C type or a type parameter
	Doc    text // its shape, or what a size tensor holds
	Output bool
}

// ioArg is a launcher's initializer of one IO struct tensor:
// Kind<CType>(Src).
type ioArg struct {
	Kind, CType, Src text
}

// upperBound is the IO struct's member int64_t upper_<Name>: the most
// the data-dependent size Name can be (Bound, as the opdef writes it), and
// Expr, the C++ expression over the launcher's inputs and params that the
// launchers initialize it with.
type upperBound struct {
	Name, Bound, Expr text
}

// dtypeC is the kernel-side C type of a tensor dtype.
func dtypeC(d ir.DType) string {
	if i := d.Info(); i != nil && i.C != "" {
		return i.C
	}
	return "uint8_t"
}

// cudaHeaders are the headers declaring each non-builtin kernel type.
var cudaHeaders = map[string]string{"__half": "cuda_fp16.h", "__nv_bfloat16": "cuda_bf16.h", "__nv_fp8_e4m3": "cuda_fp8.h"}

func trtType(d ir.DType) string { return "nvinfer1::DataType::" + TensorDType(d) }

func newPackageModel(pkg *ir.Package, ops []*ir.Op) *packageModel {
	return newPackageModelKeeping(pkg, ops, make([]*opFrame, len(ops)))
}

// newPackageModelKeeping is newPackageModel for a gen that keeps the
// ops whose frames[i] is set (keptFrames): those ops get no model (nil in
// Ops and Readme), and the package's aggregates come from every op's
// frame, which it sets for the ops it models.
func newPackageModelKeeping(pkg *ir.Package, ops []*ir.Op, frames []*opFrame) *packageModel {
	snake := names.Snake(pkg.Name)
	// Every op of a package has the package's plugin version and
	// namespace; PluginID is where `rewrite onnx` reads them too.
	id := PluginID(pkg, ops[0])
	m := &packageModel{
		Name:      pkg.Name,
		Namespace: id.Namespace,
		Version:   id.Version,
		Domain:    pkg.Domain,
		CppNs:     snake + "_trt",
		Macro:     strings.ToUpper(snake),
		Snake:     snake,
		Legacy:    PkgOptions(pkg).Legacy,
		Static:    PkgOptions(pkg).StaticRegistration,
		Frames:    frames,
	}
	if m.Legacy {
		m.Requirements = append(m.Requirements, requirement{8, 0, pkg.Name + ": the IPluginV2DynamicExt plugins need TensorRT >= 8.0"})
	} else {
		m.Requirements = append(m.Requirements, requirement{10, 0, pkg.Name + ": IPluginV3 plugins need TensorRT >= 10.0 (set targets.trt.legacy: true for TensorRT 8.x and 9.x)"})
	}
	// Op models are independent of each other: build them on every core.
	m.Ops = make([]*opModel, len(ops))
	m.Readme = make([]*readmeOp, len(ops))
	workpool.Parallel(len(ops), func(i int) {
		if frames[i] != nil {
			return // kept: no model
		}
		// A counted output is generated as its most outputs (counted.go).
		op := expandCounted(ops[i])
		om := newOpModel(m, op)
		id := PluginID(pkg, op)
		om.PluginName, om.PluginVersion, om.PluginNamespace = id.Name, id.Version, id.Namespace
		m.Ops[i], m.Readme[i] = om, newReadmeOp(m, op, om)
	})
	wide, fp8 := "", ""
	for i, op := range ops {
		f := frames[i]
		if f == nil {
			// The model's frame; its Python plugin's part is added by
			// newQDPModel.
			f = newOpFrame(ops[i], m.Ops[i], m.Readme[i])
			frames[i] = f
		}
		m.DTypeCodes = m.DTypeCodes || f.DTypeCodes
		m.DimHelpers = m.DimHelpers || f.DimHelpers
		if f.Aliased {
			m.Requirements = append(m.Requirements, requirement{10, 3, fmt.Sprintf("%s: op %s aliases an output to an input, which needs IPluginV3OneBuildV2 (TensorRT >= 10.3)", pkg.Name, op.Name)})
		}
		if f.Wide {
			wide = op.Name
		}
		if f.FP8 {
			fp8 = op.Name
		}
	}
	if m.Legacy && wide != "" {
		m.Requirements = append(m.Requirements, requirement{9, 0, fmt.Sprintf("%s: op %s uses bfloat16, int64 or float8 data or fields, which need TensorRT >= 9.0", pkg.Name, wide)})
	} else if m.Legacy && fp8 != "" {
		m.Requirements = append(m.Requirements, requirement{8, 6, fmt.Sprintf("%s: op %s uses float8 tensors, which need TensorRT >= 8.6", pkg.Name, fp8)})
	}
	return m
}

func newOpModel(pkg *packageModel, op *ir.Op) *opModel {
	l := layoutOf(op)
	m := &opModel{
		layout:        l,
		Pkg:           pkg,
		Name:          op.Name,
		Description:   oneLine(op.Description),
		Class:         text(op.Name + "Plugin"),
		Creator:       text(op.Name + "PluginCreator"),
		ParamsType:    text(op.Name + "Params"),
		NbInputs:      len(l.Inputs),
		NbOutputs:     len(l.Outputs),
		DTypeParam:    slices.ContainsFunc(l.Slots, func(s *slot) bool { return s.Param != nil }),
		NbShapeInputs: len(l.ShapeInputs),
		MinInputs:     l.Required,
		Optional:      l.Required < len(l.Inputs),
		NbIn:          "kNbInputs",
		InArray:       max(1, len(l.Inputs)),
		OutArray:      max(1, len(l.Outputs)),
	}
	if m.Optional {
		m.NbIn = "mNbInputs"
		var docs []string
		for _, t := range l.Inputs[l.Required:] {
			docs = append(docs, t.Name+" (input "+strconv.Itoa(t.Index)+")")
		}
		m.OptionalDocs = escape.CComment(strings.Join(docs, ", "))
	}
	shapes := shapeDocs(l)
	m.Docs.Inputs = tensorDocs(l.Inputs, shapes)
	m.Docs.Outputs = tensorDocs(l.Outputs, shapes)
	m.Docs.ShapeInputs = shapeInputDocs(l.ShapeInputs)
	m.Params = make([]*paramModel, len(op.Params))
	for i, p := range op.Params {
		pm := newParamModel(op, p, i)
		m.Params[i] = pm
		if pm.Required {
			m.RequiredParams = append(m.RequiredParams, pm)
		}
		if pm.enum != nil {
			m.Enums = append(m.Enums, pm.enum)
		}
	}
	m.paramTexts()

	formats := OpOptions(op).Formats
	m.dtypeTexts(l, formats, pkg.Legacy)
	m.applyFormatRules(l, OpOptions(op).FormatRules, pkg.Legacy)
	if n := l.Count(len(formats)); n > formatCombinationLimit {
		m.CombinationLimit = n
	}
	for _, a := range OpOptions(op).Aliases {
		am := aliasModel{Output: -1, Input: -1, OutName: a.Output, In: a.Input}
		for _, t := range l.Outputs {
			if t.Name == a.Output {
				am.Output = t.Index
			}
		}
		for _, t := range l.Inputs {
			if t.Name == a.Input {
				am.Input = t.Index
			}
		}
		m.Aliases = append(m.Aliases, am)
	}
	m.Aliased = len(m.Aliases) > 0
	m.Counted = newCountedModel(op)
	m.OutputWhen = make([]string, len(m.OutputTypes))
	for i := range m.OutputWhen {
		m.OutputWhen[i] = outputWhen(m.Counted, i)
	}
	m.Shape = newShapeCode(op, l, pkg.Legacy)
	m.RuntimeChecks = runtimeChecks(l)
	m.Relations = relationRows(op, l)
	if w := OpOptions(op).Workspace; w != nil {
		m.Workspace = workspaceExpr(op, l, w, pkg.Legacy)
	}
	m.Combos, m.Kernel = newKernelModel(op, l, shapes)
	if k := tritonKernelOf(op); k != nil {
		m.Kernel.Triton = newTritonCpp(qdpModuleOf(pkg.Name), op, l, launcherName(names.Snake(op.Name), k))
	}
	return m
}

// dtypeTexts sets getOutputDataTypes' OutputTypes and
// supportsFormatCombination's verdicts (Supports).
func (m *opModel) dtypeTexts(l *ioLayout, formats []string, legacy bool) {
	all := l.All()
	descs := make([]string, len(all)) // supportsFormatCombination's tensor at each position
	for i := range descs {
		descs[i] = "inOut[" + strconv.Itoa(i) + "]"
		if l.Required < len(l.Inputs) && i >= len(l.Inputs) {
			// The outputs follow the inputs present.
			descs[i] = "inOut[nbInputs + " + strconv.Itoa(i-len(l.Inputs)) + "]"
		}
		if !legacy {
			descs[i] += ".desc"
		}
	}
	io := func(pos int) string { return descs[pos] }
	inputType := func(pos int) string { return "inputTypes[" + strconv.Itoa(pos) + "]" }
	m.OutputTypes = make([]string, len(l.Outputs))
	for i, t := range l.Outputs {
		m.OutputTypes[i] = typeExpr(all, t.Pos, inputType)
	}
	m.Supports = make([]text, len(all))
	for i, t := range all {
		m.Supports[i] = text(typeCond(all, t, io) + " && " + formatCond(t, formats, io))
	}
}

// shapeDocs are the shapes of the layout's tensors for comments, by inOut
// position.
func shapeDocs(l *ioLayout) []string {
	docs := make([]string, 0, len(l.Inputs)+len(l.Outputs))
	for _, t := range l.Inputs {
		docs = append(docs, escape.CComment(shapeText(t.T)))
	}
	for _, t := range l.Outputs {
		if t.Size != nil {
			docs = append(docs, "")
			continue
		}
		docs = append(docs, escape.CComment(shapeText(t.T)))
	}
	return docs
}

// tensorDocs are the comments' rows for ts (see docText.Inputs).
func tensorDocs(ts []*ioTensor, shapes []string) []tensorDoc {
	d := make([]tensorDoc, len(ts))
	for i, t := range ts {
		d[i] = tensorDoc{Index: num(t.Index), Name: text(escape.CComment(t.Name)), Type: "int32", Shape: "[] (size tensor)", Optional: t.Optional}
		if t.Size == nil {
			d[i].Type, d[i].Shape = text(typeText(t.T.Type)), text(shapes[t.Pos])
		}
	}
	return d
}

func shapeInputDocs(ts []*ir.Tensor) []tensorDoc {
	d := make([]tensorDoc, len(ts))
	for i, t := range ts {
		d[i] = tensorDoc{Index: num(i), Name: text(escape.CComment(t.Name)), Type: text(typeText(t.Type)), Shape: text(escape.CComment(shapeText(t)))}
	}
	return d
}

// paramTexts sets the counts of m's params; the templates range over
// m.Params for the rest (shared.tmpl's fieldList, fieldDocs, declareFields).
func (m *opModel) paramTexts() {
	n := len(m.Params)
	m.Fields.Nb, m.Fields.Array, m.Fields.NbSerial = n, max(1, n), n+1
}

// typeExpr is the dtype of the tensor at pos as a C++ expression over the
// input dtypes (in(pos)); ties to outputs resolve to the output's rule.
func typeExpr(all []*ioTensor, pos int, in func(int) string) string {
	t := all[pos]
	switch t.Rule {
	case ruleFree:
		return in(pos)
	case ruleTied:
		if t.Fixed != "" {
			// Tied to an optional input: its first allowed dtype when absent.
			return "(nbInputs > " + strconv.Itoa(t.Tie) + " ? " + typeExpr(all, t.Tie, in) + " : " + trtType(t.Fixed) + ")"
		}
		return typeExpr(all, t.Tie, in)
	case ruleFollowFirst:
		return fmt.Sprintf("(%s ? %s : %s)", oneOf(in(0), t.Allowed), in(0), trtType(t.Allowed[0]))
	case ruleParam:
		return paramTypeExpr(t)
	}
	return trtType(t.Fixed)
}

// paramTypeExpr is the dtype a dtype_param tensor takes: its param's
// value (mParams' enum member, or its dtype code) mapped to the DataType
// it names, through trtType as every other dtype. The last value is the
// fallback, which the field reader's checks never let through.
func paramTypeExpr(t *ioTensor) string {
	n := len(t.Allowed)
	x := trtType(t.Allowed[n-1])
	for i := n - 2; i >= 0; i-- {
		x = "(mParams." + t.Param.Ident + " == " + paramValueC(t, i) + " ? " + trtType(t.Allowed[i]) + " : " + x + ")"
	}
	return x
}

// oneOf tests whether the DataType expression x is one of ds.
func oneOf(x string, ds []ir.DType) string {
	if len(ds) == 1 {
		return x + " == " + trtType(ds[0])
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = x + " == " + trtType(d)
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// typeCond is supportsFormatCombination's dtype test for t, reading only
// positions up to t.Pos.
func typeCond(all []*ioTensor, t *ioTensor, io func(int) string) string {
	self := io(t.Pos) + ".type"
	switch t.Rule {
	case ruleFree:
		return oneOf(self, t.Allowed)
	case ruleTied:
		if t.Fixed == "" {
			return self + " == " + io(t.Tie) + ".type"
		}
	}
	return self + " == " + typeExpr(all, t.Pos, func(pos int) string { return io(pos) + ".type" })
}

// formatCond is the format test: the first tensor leads with any listed
// format that fits its rank; every other tensor follows it where the format
// fits its rank and is LINEAR otherwise; size tensors are LINEAR.
func formatCond(t *ioTensor, formats []string, io func(int) string) string {
	self := io(t.Pos)
	if t.Rule == ruleSize || len(formats) == 0 || (len(formats) == 1 && formats[0] == "LINEAR") {
		return self + ".format == nvinfer1::TensorFormat::kLINEAR"
	}
	if t.Pos == 0 {
		parts := make([]string, len(formats))
		for i, f := range formats {
			parts[i] = self + ".format == nvinfer1::TensorFormat::k" + f
		}
		return "(" + strings.Join(parts, " || ") + ") && formatFits(" + self + ".format, " + self + ".dims.nbDims)"
	}
	return "followsFormat(" + self + ".format, " + self + ".dims.nbDims, " + io(0) + ".format)"
}

// newKernelModel builds the typed launchers and the .cu plumbing; shapes
// are the tensors' shapes for comments (shapeDocs).
func newKernelModel(op *ir.Op, l *ioLayout, shapes []string) ([]*launcherModel, kernelModel) {
	// Ident: a lowered op name may be a keyword of C++ or CUDA (Int, Float4).
	launch := names.Ident(names.LowerCamel(op.Name))
	k := kernelModel{IOName: text(op.Name + "IO"), Launch: text(launch), Fill: text(launch + "Fill")}
	params, paramPos, paramOf := templateParams(l, l.All())
	k.TypeParams = params
	io := newKernelIO(op, l, shapes, params, paramOf)
	k.Tensors, k.Uppers, k.Fills = io.tensors, io.upperRows, io.fills
	launchers, headers := newLaunchers(op, l, paramPos, io)
	k.Headers = headers
	return launchers, k
}

// kernelIO is the IO struct of an op's kernels: its members, and how the
// launchers fill it.
type kernelIO struct {
	tensors   []kernelTensor // the tensor members
	upperRows []upperBound   // the upper bound members
	kinds     []string       // the tensor type of each inOut position
	srcs      []string       // where the launchers find the tensor at each position
	fills     []text         // the output members, as the default launch fills them
}

func newKernelIO(op *ir.Op, l *ioLayout, shapes []string, params []string, paramOf []int) kernelIO {
	all := l.All()
	first := l.Combos()[0] // fixed dtypes are the same in every combination
	io := kernelIO{tensors: make([]kernelTensor, 0, len(all)), kinds: make([]string, len(all)), srcs: make([]string, len(all))}
	for _, t := range all {
		io.kinds[t.Pos], io.srcs[t.Pos] = "InTensor", "inputs["+strconv.Itoa(t.Index)+"]"
		if !t.Input {
			io.kinds[t.Pos], io.srcs[t.Pos] = "OutTensor", "outputs["+strconv.Itoa(t.Index)+"]"
		}
		ct := dtypeC(first.DTypes[t.Pos])
		if i := paramOf[t.Pos]; i >= 0 {
			ct = params[i]
		}
		doc := "size tensor: the value of " + escape.CComment(t.Name)
		if t.T != nil {
			doc = shapes[t.Pos]
		}
		row := kernelTensor{Ident: text(t.Ident), Kind: text(io.kinds[t.Pos]), Src: text(io.srcs[t.Pos]), CType: text(ct), Doc: text(doc), Output: !t.Input}
		if c := countedMember(op, t); c != "" {
			// A counted output's tensors are one array member, which the
			// launchers' flat initializer list fills in order.
			row.Ident, row.Doc = text(c), text(countedDoc(op, t, doc))
			if k := len(io.tensors); k > 0 && io.tensors[k-1].Ident == row.Ident {
				io.fills = append(io.fills, text(countedElement(op, t)))
				continue
			}
		}
		if row.Output {
			io.fills = append(io.fills, row.Ident)
			if c := countedMember(op, t); c != "" {
				io.fills[len(io.fills)-1] = text(countedElement(op, t))
			}
		}
		io.tensors = append(io.tensors, row)
	}
	// Data-dependent outputs arrive with unknown dims; their buffers hold
	// the upper bound, which the kernel needs to stay inside them.
	for _, t := range all {
		if t.Size == nil {
			continue
		}
		if u, ok := cppInt(op, l, t.Size.Upper, func(i, j int) string { return fmt.Sprintf("inputs[%d].dims[%d]", i, j) }, "params"); ok {
			io.upperRows = append(io.upperRows, upperBound{Name: text(t.Size.Name), Bound: text(t.Size.Upper.String()), Expr: text(u)})
		}
	}
	return io
}

// newLaunchers builds a launcher per dtype combination, which calls the
// launch template with the dtypes of the positions in paramPos, and lists
// the CUDA headers their kernel types need.
func newLaunchers(op *ir.Op, l *ioLayout, paramPos []int, io kernelIO) ([]*launcherModel, []string) {
	combos := l.Combos()
	launchers := make([]*launcherModel, len(combos))
	need := map[string]bool{}
	for ci, c := range combos {
		lm := &launcherModel{Func: text("launch" + op.Name)}
		if s := c.Suffix(); s != "" {
			lm.Func += text("_" + s)
		}
		lm.Conds = make([]string, max(1, len(l.Slots)))
		conds := lm.Conds
		conds[0] = "true"
		for i, s := range l.Slots {
			k := strconv.Itoa(s.Pos)
			conds[i] = "inputDesc[" + k + "].type == " + trtType(c.DTypes[s.Pos])
			switch {
			case s.Output:
				// A dtype_param output: the dtype its param chose, which
				// supportsFormatCombination made the only one it takes.
				conds[i] = "outputDesc[" + strconv.Itoa(s.Pos-len(l.Inputs)) + "].type == " + trtType(c.DTypes[s.Pos])
			case !l.Inputs[s.Pos].Optional:
			case c.DTypes[s.Pos] == s.Allowed[0]:
				// An absent input takes the launcher of its first dtype, as
				// the outputs typed by it do.
				conds[i] = "(mNbInputs <= " + k + " || " + conds[i] + ")"
			default:
				conds[i] = "(mNbInputs > " + k + " && " + conds[i] + ")"
			}
		}
		lm.Args = make([]string, len(paramPos))
		for i, pos := range paramPos {
			lm.Args[i] = dtypeC(c.DTypes[pos])
		}
		lm.IO, lm.Types = make([]ioArg, len(c.DTypes)), make([]string, len(c.DTypes))
		for pos, d := range c.DTypes {
			if h := cudaHeaders[dtypeC(d)]; h != "" {
				need[h] = true
			}
			lm.IO[pos], lm.Types[pos] = ioArg{Kind: text(io.kinds[pos]), CType: text(dtypeC(d)), Src: text(io.srcs[pos])}, string(d)
		}
		launchers[ci] = lm
	}
	var headers []string
	for _, h := range []string{"cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h"} {
		if need[h] {
			headers = append(headers, h)
		}
	}
	return launchers, headers
}

// templateParams are the launch template's type parameters: one per slot,
// and one per output whose dtype follows input 0 (it differs between
// combinations without a slot of its own). pos[i] is the position that
// decides parameter i; of[p] is the parameter of position p, or -1 where
// the dtype is the same in every combination.
func templateParams(l *ioLayout, all []*ioTensor) (names []string, pos, of []int) {
	of = make([]int, len(all))
	for i := range of {
		of[i] = -1
	}
	add := func(name string, p int) {
		// Neither each other nor the kernel header's types.
		for name == "InTensor" || name == "OutTensor" || name == "TensorRef" || slices.Contains(names, name) {
			name += "_"
		}
		of[p] = len(names)
		names = append(names, name)
		pos = append(pos, p)
	}
	for _, s := range l.Slots {
		add(s.Name, s.Pos)
	}
	for _, t := range all {
		switch t.Rule {
		case ruleTied:
			of[t.Pos] = of[t.Tie]
		case ruleParam:
			// Outputs typed by one dtype param share its slot.
			of[t.Pos] = of[l.Slots[t.Slot].Pos]
		case ruleFollowFirst:
			add(t.Ident+"_t", t.Pos)
		}
	}
	return names, pos, of
}

// shapeCode is getOutputShapes (or legacy getOutputDimensions) as C++
// statements.
type shapeCode struct {
	// Checks validate ranks and the references the expressions read.
	Checks []string
	// Sizes declare the size tensors (IPluginV3 only).
	Sizes []string
	// Outputs[i] sets output i's dims; Target is the DimsExprs written.
	Outputs [][]string
}

// refs renders the references of shape expressions for getOutputShapes.
type refs struct {
	op      *ir.Op
	l       *ioLayout
	shapeIn map[string]int // shape-tensor name -> index among shape inputs
	shapeNb map[string]int // symbol bound by a 1-D shape tensor's length -> index
	checks  []string
	checked map[string]bool
	syntax  shapeexpr.Syntax
	// when prefixes the conditions of the checks rendering an output
	// emits: "nbOutputs > i && " for a counted output the plugin may not
	// have (its shape's elements at # exist only when it does).
	when string
}

func newRefs(op *ir.Op, l *ioLayout) *refs {
	r := &refs{op: op, l: l, shapeIn: map[string]int{}, shapeNb: map[string]int{}, checked: map[string]bool{}}
	r.syntax = shapeexpr.Syntax{Const: exprConst, Ref: r.ref, Op: dimOp, Ratio: r.ratio}
	for i, t := range l.ShapeInputs {
		r.shapeIn[t.Name] = i
		if len(t.Shape) == 1 && t.Shape[0].Expr.IsSymbol() {
			if _, ok := l.InDim[t.Shape[0].Expr.Name]; !ok {
				r.shapeNb[t.Shape[0].Expr.Name] = i
			}
		}
	}
	return r
}

func (r *refs) check(line string) {
	if !r.checked[line] {
		r.checked[line] = true
		r.checks = append(r.checks, line)
	}
}

// expr renders e with IExprBuilder calls; sizes maps data-dependent sizes
// to their locals.
func (r *refs) expr(e *shapeexpr.Expr) string { return e.Render(r.syntax) }

func exprConst(v int64) string { return "exprBuilder.constant(" + strconv.FormatInt(v, 10) + ")" }

func dimOp(k shapeexpr.Kind, a, b string) string {
	return "dimOp(exprBuilder, nvinfer1::DimensionOperation::" + dimOps[k] + ", " + a + ", " + b + ")"
}

var dimOps = map[shapeexpr.Kind]string{
	shapeexpr.Add: "kSUM", shapeexpr.Sub: "kSUB", shapeexpr.Mul: "kPROD", shapeexpr.FloorDiv: "kFLOOR_DIV",
	shapeexpr.CeilDiv: "kCEIL_DIV", shapeexpr.Min: "kMIN", shapeexpr.Max: "kMAX",
}

func (r *refs) ref(e *shapeexpr.Expr) string {
	if e.Kind == shapeexpr.Dim {
		return r.dim(e)
	}
	if e.Kind == shapeexpr.DimProd {
		return r.dimProdExpr(e)
	}
	if e.Kind == shapeexpr.Len {
		return "exprBuilder.constant(static_cast<int64_t>(mParams." + identOf(r.op, e.Name) + ".size()))"
	}
	if e.Kind == shapeexpr.Index {
		if s, ok := r.shapeIn[e.Name]; ok {
			r.check(fmt.Sprintf("if (shapeInputs[%d].nbDims <= %d) { logError(\"%s: shape input \\\"%s\\\" has %%d values; the output shapes read value %d\", shapeInputs[%d].nbDims); return 1; }", s, e.Index, r.op.Name, e.Name, e.Index, s))
			return fmt.Sprintf("shapeInputs[%d].d[%d]", s, e.Index)
		}
		p := r.op.Param(e.Name)
		if p != nil && p.Kind == ir.ParamArray && p.Length == 0 {
			r.check(fmt.Sprintf("if ("+r.when+"mParams.%s.size() <= %d) { logError(\"%s: param %s has %%zu values; the output shapes read value %d\", mParams.%s.size()); return 1; }", p.Ident, e.Index, r.op.Name, p.Name, e.Index, p.Ident))
		}
		return "exprBuilder.constant(mParams." + identOf(r.op, e.Name) + "[" + strconv.Itoa(e.Index) + "])"
	}
	if d, ok := r.l.InDim[e.Name]; ok {
		return "inputs[" + strconv.Itoa(d[0]) + "].d[" + strconv.Itoa(d[1]) + "]"
	}
	if s, ok := r.shapeNb[e.Name]; ok {
		return fmt.Sprintf("exprBuilder.constant(shapeInputs[%d].nbDims)", s)
	}
	for _, s := range r.op.DataDependent {
		if s.Name == e.Name {
			return "size_" + s.Name
		}
	}
	return "exprBuilder.constant(mParams." + identOf(r.op, e.Name) + ")"
}

// ratio renders a float param (or a float array's element) as the
// numerator and denominator of its exact value, from a Ratio local that a
// check declares and refuses (logError, return 1) when either passes 2^31
// (common.h's ratioOf says why); ok is false for an integer reference.
func (r *refs) ratio(e *shapeexpr.Expr) (num, den string, ok bool) {
	p := r.op.Param(e.Name)
	if !isFloatParam(p) {
		return "", "", false
	}
	value, local, what := "mParams."+p.Ident, "ratio_"+p.Ident, p.Name
	if e.Kind == shapeexpr.Index {
		r.ref(e) // the array-length check
		value, local, what = fmt.Sprintf("%s[%d]", value, e.Index), fmt.Sprintf("%s_%d", local, e.Index), fmt.Sprintf("%s[%d]", p.Name, e.Index)
	}
	format := escape.CString(r.op.Name + ": param " + strings.ReplaceAll(what, "%", "%%") + " = %g is not an integer over a power of two both below 2^31, so its rounded output dims cannot be computed exactly")
	r.check("Ratio const " + local + " = ratioOf(" + value + ");")
	r.check("if (!" + local + ".ok) { logError(" + format + ", static_cast<double>(" + value + ")); return 1; }")
	return "exprBuilder.constant(" + local + ".num)", "exprBuilder.constant(" + local + ".den)", true
}

// isFloatParam reports a scalar or array param of a float dtype: the
// reals of shape expressions.
func isFloatParam(p *ir.Param) bool {
	return p != nil && (p.Kind == ir.ParamScalar || p.Kind == ir.ParamArray) && len(p.DTypes) > 0 && p.DTypes[0].IsFloat()
}

// dim renders x.shape[axis]: input x's dim at the axis, normalized and
// range-checked against x's rank by a check before the outputs are set
// (validation already checked a literal axis against a fixed rank).
func (r *refs) dim(e *shapeexpr.Expr) string {
	var in *ioTensor
	for _, t := range r.l.Inputs {
		if t.Name == e.Name {
			in = t
		}
	}
	src := "inputs[" + strconv.Itoa(in.Index) + "]"
	if e.Axis == "" && in.Rank != ir.RankAny {
		a, _ := shapeexpr.NormalizeAxis(int64(e.Index), int64(in.Rank))
		return src + ".d[" + strconv.FormatInt(a, 10) + "]"
	}
	value := strconv.Itoa(e.Index)
	pi := r.op.ParamIndex(e.Axis)
	local := shapeexpr.DimAxisLocal(in.Index, pi, e)
	if e.Axis != "" {
		value = "static_cast<int64_t>(mParams." + r.op.Params[pi].Ident + ")"
	}
	// The names are data in a printf format: % doubled, then escaped.
	format := escape.CString(r.op.Name + `: ` + strings.ReplaceAll(e.String(), "%", "%%") + ` reads axis %lld of input "` + strings.ReplaceAll(in.Name, "%", "%%") + `", which has %d dims`)
	r.check("int64_t " + local + " = " + value + ";")
	r.check("if (" + local + " < -" + src + ".nbDims || " + local + " >= " + src + ".nbDims) { logError(" + format + ", static_cast<long long>(" + local + "), " + src + ".nbDims); return 1; }")
	r.check("if (" + local + " < 0) { " + local + " += " + src + ".nbDims; }")
	return src + ".d[" + local + "]"
}

// likeLines set target to input in's dims (`shape: {like: x}`), with the
// dim at the axis param replaced, removed or kept as 1; the axis is
// range-checked against the input's rank and normalized.
func (r *refs) likeLines(target string, out *ir.Tensor, in *ioTensor) []string {
	src := "inputs[" + strconv.Itoa(in.Index) + "]"
	like := out.Like
	if like.Axis == "" {
		// DimsExprs copies.
		return []string{target + " = " + src + ";"}
	}
	p := r.op.Param(like.Axis)
	// The names are data in a printf format: % doubled, then escaped.
	format := escape.CString(r.op.Name + `: param ` + p.Name + ` is %lld, not an axis of input "` + strings.ReplaceAll(in.Name, "%", "%%") + `" (%d dims) for output "` + strings.ReplaceAll(out.Name, "%", "%%") + `"`)
	nb := "nbDims"
	keep := []string{}
	switch like.Mode {
	case ir.AxisRemove:
		nb = "nbDims - 1"
	case ir.AxisKeepIf:
		// The bool param decides the rank when the engine is built.
		nb = "keep ? nbDims : nbDims - 1"
		keep = []string{"    bool const keep = static_cast<bool>(mParams." + r.op.Param(like.KeepParam).Ident + ");"}
	}
	at := "target.d[o++] = " + src + ".d[d];"
	switch like.Mode {
	case ir.AxisKeep:
		at = "target.d[o++] = d == axis ? exprBuilder.constant(1) : " + src + ".d[d];"
	case ir.AxisReplace:
		at = "target.d[o++] = d == axis ? " + r.expr(like.Replace.Expr) + " : " + src + ".d[d];"
	case ir.AxisRemove:
		at = "if (d != axis) { target.d[o++] = " + src + ".d[d]; }"
	case ir.AxisKeepIf:
		at = "if (d != axis) { target.d[o++] = " + src + ".d[d]; } else if (keep) { target.d[o++] = exprBuilder.constant(1); }"
	}
	lines := []string{
		"{",
		"    int32_t const nbDims = " + src + ".nbDims;",
		"    int64_t axis = static_cast<int64_t>(mParams." + p.Ident + ");",
		"    if (axis < -nbDims || axis >= nbDims) { logError(" + format + ", static_cast<long long>(axis), nbDims); return 1; }",
		"    axis = axis < 0 ? axis + nbDims : axis;",
	}
	lines = append(lines, keep...)
	return append(lines,
		"    nvinfer1::DimsExprs& target = "+target+";",
		"    target.nbDims = "+nb+";",
		"    for (int32_t d = 0, o = 0; d < nbDims; ++d) { "+at+" }",
		"}",
	)
}

// broadcastLines set target to the numpy broadcast of the inputs' dims:
// aligned at the last dim, each dim the largest of the inputs' there (a
// 1 stretches to the others; IExprBuilder has no test for equal sizes, so
// incompatible dims are the engine's to refuse).
func broadcastLines(target string, ins []*ioTensor) []string {
	lines := []string{"{", "    int32_t nbDims = 0;"}
	for _, in := range ins {
		lines = append(lines, "    nbDims = std::max(nbDims, inputs["+strconv.Itoa(in.Index)+"].nbDims);")
	}
	lines = append(lines,
		"    nvinfer1::DimsExprs& target = "+target+";",
		"    target.nbDims = nbDims;",
		"    for (int32_t d = 0; d < nbDims; ++d)",
		"    {",
		"        nvinfer1::IDimensionExpr const* dim = nullptr;")
	for _, in := range ins {
		src := "inputs[" + strconv.Itoa(in.Index) + "]"
		lines = append(lines,
			"        if (int32_t const j = d - (nbDims - "+src+".nbDims); j >= 0)",
			"        {",
			"            dim = dim == nullptr ? "+src+".d[j] : dimOp(exprBuilder, nvinfer1::DimensionOperation::kMAX, dim, "+src+".d[j]);",
			"        }")
	}
	return append(lines, "        target.d[d] = dim;", "    }", "}")
}

func identOf(op *ir.Op, name string) string {
	if p := op.Param(name); p != nil {
		return p.Ident
	}
	return names.Ident(name)
}

func newShapeCode(op *ir.Op, l *ioLayout, legacy bool) shapeCode {
	r := newRefs(op, l)
	var sc shapeCode
	for _, t := range l.Inputs {
		if rr := t.T.RankRange; rr != nil {
			in := "inputs[" + strconv.Itoa(t.Index) + "].nbDims"
			lo, hi := strconv.Itoa(rr.Min), strconv.Itoa(rr.Max)
			format := escape.CString(op.Name + `: input "` + strings.ReplaceAll(t.Name, "%", "%%") + `" has %d dims; the op takes ` + lo + ` to ` + hi)
			r.check("if (" + in + " < " + lo + " || " + in + " > " + hi + ") { logError(" + format + ", " + in + "); return 1; }")
		}
		if t.Rank != ir.RankAny {
			in, rank := "inputs["+strconv.Itoa(t.Index)+"].nbDims", strconv.Itoa(t.Rank)
			// The name is data in a printf format: % doubled, then escaped.
			format := escape.CString(op.Name + `: input "` + strings.ReplaceAll(t.Name, "%", "%%") + `" has %d dims; the op defines ` + rank)
			when := "if ("
			if t.Optional {
				when = "if (nbInputs > " + strconv.Itoa(t.Index) + " && "
			}
			r.check(when + in + " != " + rank + ") { logError(" + format + ", " + in + "); return 1; }")
		}
	}
	for _, t := range l.Outputs {
		if t.Size == nil {
			continue
		}
		opt := t.Size.OptOrUpper()
		sc.Sizes = append(sc.Sizes,
			fmt.Sprintf("outputs[%d].nbDims = 0;", t.Index),
			fmt.Sprintf("nvinfer1::IDimensionExpr const* size_%s = sizeTensor(exprBuilder, %d, %s, %s);", t.Size.Name, t.Index, r.expr(opt), r.expr(t.Size.Upper)))
	}
	counted := newCountedModel(op)
	for _, t := range l.Outputs {
		if t.Size != nil {
			continue
		}
		r.when = ""
		if outputWhen(counted, t.Index) != "" {
			r.when = "nbOutputs > " + strconv.Itoa(t.Index) + " && "
		}
		target := "outputs[" + strconv.Itoa(t.Index) + "]"
		if legacy {
			target = "out"
		}
		if in := l.like(t); in != nil {
			sc.Outputs = append(sc.Outputs, r.likeLines(target, t.T, in))
			continue
		}
		if ins := l.broadcast(t); ins != nil {
			sc.Outputs = append(sc.Outputs, broadcastLines(target, ins))
			continue
		}
		lines := make([]string, 1, 1+len(t.T.Shape))
		lines[0] = target + ".nbDims = " + strconv.Itoa(len(t.T.Shape)) + ";"
		for j, d := range t.T.Shape {
			lines = append(lines, target+".d["+strconv.Itoa(j)+"] = "+r.expr(d.Expr)+";")
		}
		sc.Outputs = append(sc.Outputs, guardLines(outputWhen(counted, t.Index), lines))
	}
	sc.Checks = r.checks
	return sc
}

// runtimeChecks compare concrete input dims with the opdef: ranks,
// constant dims and dims that share a symbol.
func runtimeChecks(l *ioLayout) []inputCheck {
	var out []inputCheck
	for _, t := range l.Inputs {
		if t.Rank == ir.RankAny {
			continue
		}
		c := inputCheck{Index: num(t.Index), CName: text(escape.CString(t.Name)), Optional: t.Optional, Rank: num(t.Rank)}
		for j, dim := range t.T.Shape {
			switch {
			case dim.Expr.IsConst():
				c.Dims = append(c.Dims, dimCheck{Dim: num(j), Want: dim.Expr.Value})
			case dim.Expr.IsSymbol():
				if f := l.InDim[dim.Expr.Name]; f != [2]int{t.Index, j} {
					c.Dims = append(c.Dims, dimCheck{Dim: num(j), Same: true, FirstInput: num(f[0]), FirstDim: num(f[1]), CFirstName: text(escape.CString(l.Inputs[f[0]].Name)), CSymbol: text(escape.CString(dim.Expr.Name))})
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// inputCheck is what the plugin checks of one input's concrete dims
// (shared.tmpl's runtimeChecks): its rank, then Dims. An optional input
// is checked when it is there.
type inputCheck struct {
	Index    num
	CName    text // the input's name as a C string literal
	Optional bool
	Rank     num
	Dims     []dimCheck
}

// dimCheck is one dim of an input the plugin checks: equal to Value
// (checkDim), or with Same, equal to the dim FirstDim of input FirstInput
// where the symbol first appears (checkSameDim). CFirstName and CSymbol
// are that input's name and the symbol as C string literals.
type dimCheck struct {
	Dim        num
	Want       int64 // the fixed dim (Same: none, the dim equals FirstInput's FirstDim)
	Same       bool
	FirstInput num
	FirstDim   num
	CFirstName text
	CSymbol    text
}

// workspaceExpr is the workspace size in bytes as int64 C++ over the
// largest input dims of the profile (IPluginV3) or the actual dims (V2).
func workspaceExpr(op *ir.Op, l *ioLayout, w *shapeexpr.Expr, legacy bool) string {
	dims := "max"
	if legacy {
		dims = "dims"
	}
	desc := ".desc"
	if legacy {
		desc = ""
	}
	// elem_size(x): the byte size of x's run-time dtype, from the
	// descriptors getWorkspaceSize receives (validate allows it here only);
	// x.shape[axis] and prod(x.shape[lo:hi]) from x's dims there.
	extra := func(x *shapeexpr.Expr) string {
		for _, t := range l.All() {
			if t.T == nil || t.T.Name != x.Name {
				continue
			}
			list, idx := "inputs", t.Index
			if !t.Input {
				list = "outputs"
			}
			if x.Kind == shapeexpr.ElemSize {
				return fmt.Sprintf("elementSize(static_cast<int32_t>(%s[%d]%s.type))", list, idx, desc)
			}
			return cppDimRef(op, x, fmt.Sprintf("%s[%d].%s", list, idx, dims), "mParams")
		}
		return ""
	}
	s, _ := cppIntElem(op, l, w, func(i, j int) string { return fmt.Sprintf("inputs[%d].%s.d[%d]", i, dims, j) }, "mParams", extra)
	return s
}

// cppInt renders e as int64 C++ arithmetic: input dims through dim(i, j),
// params as members of params. ok is false when e reads something plain
// code does not have (shape-tensor values, data-dependent sizes, element
// sizes).
func cppInt(op *ir.Op, l *ioLayout, e *shapeexpr.Expr, dim func(i, j int) string, params string) (string, bool) {
	return cppIntElem(op, l, e, dim, params, nil)
}

// cppIntElem is cppInt that also renders elem_size(x), x.shape[axis] and
// prod(x.shape[lo:hi]) through extra (which returns "" for what it cannot).
func cppIntElem(op *ir.Op, l *ioLayout, e *shapeexpr.Expr, dim func(i, j int) string, params string, extra func(x *shapeexpr.Expr) string) (string, bool) {
	ok := true
	s := e.Render(shapeexpr.Syntax{
		Const: func(v int64) string { return "int64_t{" + strconv.FormatInt(v, 10) + "}" },
		Ref: func(x *shapeexpr.Expr) string {
			if x.Kind == shapeexpr.ElemSize || x.Kind == shapeexpr.Dim || x.Kind == shapeexpr.DimProd || x.Kind == shapeexpr.Rank {
				if extra != nil {
					if s := extra(x); s != "" {
						return s
					}
				}
				ok = false
				return "0"
			}
			if d, found := l.InDim[x.Name]; found && x.Kind == shapeexpr.Sym {
				return "static_cast<int64_t>(" + dim(d[0], d[1]) + ")"
			}
			p := op.Param(x.Name)
			switch {
			case p == nil:
				ok = false
				return "0"
			case x.Kind == shapeexpr.Index:
				return fmt.Sprintf("static_cast<int64_t>(%s.%s[%d])", params, p.Ident, x.Index)
			case x.Kind == shapeexpr.Len:
				return "static_cast<int64_t>(" + params + "." + p.Ident + ".size())"
			}
			return "static_cast<int64_t>(" + params + "." + p.Ident + ")"
		},
		Op: cppIntOp,
	})
	return s, ok
}

var cppIntOp = opSyntax(map[shapeexpr.Kind]string{shapeexpr.FloorDiv: "floorDiv", shapeexpr.CeilDiv: "ceilDiv", shapeexpr.Min: "std::min", shapeexpr.Max: "std::max"})

// opSyntax renders the operations calls names as function calls and the
// others as parenthesised infix operators.
func opSyntax(calls map[shapeexpr.Kind]string) func(shapeexpr.Kind, string, string) string {
	infix := map[shapeexpr.Kind]string{shapeexpr.Add: " + ", shapeexpr.Sub: " - ", shapeexpr.Mul: " * ", shapeexpr.FloorDiv: " // "}
	return func(k shapeexpr.Kind, a, b string) string {
		if f, ok := calls[k]; ok {
			return f + "(" + a + ", " + b + ")"
		}
		return "(" + a + infix[k] + b + ")"
	}
}
