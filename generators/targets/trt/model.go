package trt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
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
	// Requirements are the TensorRT versions the plugins need, checked with
	// #error against NvInferVersion.h.
	Requirements []requirement
	// QDPModule is the Python module name ("" without Python plugins).
	QDPModule string
	QDP       *qdpModel
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
// Lists the templates would print one item per line are text here, joined
// with the indentation the template gives their first line (statementSep):
// a range costs text/template about half a microsecond per item, more than
// printing the rest of the line, and a large package has a lot of them.
type opModel struct {
	Name       string
	Class      string // RoiAlignLitePlugin
	Creator    string // RoiAlignLitePluginCreator
	ParamsType string // RoiAlignLiteParams
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
	// InputTypeFormats and InputTypeArgs print the input dtypes in enqueue's
	// error: " %d %d" and ", static_cast<int32_t>(inputDesc[0].type), ...".
	InputTypeFormats, InputTypeArgs string

	// OutputTypes[i] is output i's dtype as a C++ expression over inputTypes.
	OutputTypes []string
	// SupportCases are supportsFormatCombination's switch cases, one per
	// position: "case 0: return <verdict>;" (statementSep).
	SupportCases string
	// DTypeParam: an output's dtype is chosen by a param, so opdefSupports
	// reads the plugin's params (as mParams).
	DTypeParam bool
	Shape      shapeCode
	// RuntimeChecks compare concrete input dims with the opdef
	// (onShapeChange / enqueue), one statement a line (statementSep).
	RuntimeChecks string

	Params []*paramModel
	// RequiredParams are the params without a default.
	RequiredParams []*paramModel
	Aliases        []aliasModel

	layout   *ioLayout // the op's tensor positions, shared with its README entry
	supports []string  // supportsFormatCombination's verdict for each position
}

// docText is what the sources' comments list: the tensors and the fields.
type docText struct {
	// Inputs, ShapeInputs and Outputs describe the tensors for the plugin's
	// header comment, a line "//   [0] x: T [N, C]" each, every line after
	// a newline (they follow a heading).
	Inputs, ShapeInputs, Outputs string
	// Fields is "//   k: int32, default 2" for each param, every line after
	// a newline, or " none".
	Fields string
	// InputNames and OutputNames list the tensors on one line: " [0] x [1] y".
	InputNames, OutputNames string
}

// fieldText is the params as the C++ sources spell them.
type fieldText struct {
	// Names initializes kFieldNames: "k", "scale" ("" without params).
	Names string
	// List names the fields in messages: k, scale (none without params).
	List string
	// ReadCases are parse<Op>Fields' switch cases, one per field:
	// "case 0: ok = <read>; break;" (caseSep).
	ReadCases string
	// Serialized fill getFieldsToSerialize's fields after the layout's,
	// Declared the creator's field list, Members <Op>Params' members with
	// their docs (statementSep).
	Serialized, Declared, Members string

	Nb       int // params
	Array    int // max(1, params): the creator's field array
	NbSerial int // params + the layout field
}

// statementSep joins the statements of a function body into one block of
// text; the template indents the first. caseSep joins lines one level
// deeper: the cases of a switch in a loop, the items of QDP's autotune
// list.
const (
	statementSep = "\n    "
	caseSep      = "\n        "
)

type aliasModel struct {
	Output, Input int
	OutName, In   string
}

// launcherModel is one typed launcher: the kernel entry enqueue calls for
// one dtype combination.
type launcherModel struct {
	Func   string // launchRoiAlignLite_float32
	Cond   string // the runtime dtypes that select it
	Args   string // template arguments of the launch template ("float")
	IOInit string // the IO struct's initializer
	Types  string // human-readable dtypes for messages
}

// kernelModel is the .cu file's typed plumbing around the user's code.
type kernelModel struct {
	TemplateDecl string // "template <typename T>" or ""
	IOName       string // RoiAlignLiteIO
	Launch       string // the launch template's name: roiAlignLite
	IOType       string // RoiAlignLiteIO<T>
	Fill         string // the default fill kernel's name
	// IOFields are the IO struct's members, one a line (statementSep).
	IOFields string
	// Includes are the CUDA headers of the kernel types, a line
	// "#include <cuda_fp16.h>" each, every line after a newline.
	Includes string
	// Fills are the default launch body's statements (statementSep).
	Fills string
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
		om := newOpModel(m, ops[i])
		id := PluginID(pkg, ops[i])
		om.PluginName, om.PluginVersion, om.PluginNamespace = id.Name, id.Version, id.Namespace
		m.Ops[i], m.Readme[i] = om, newReadmeOp(m, ops[i], om)
	})
	wide, fp8 := "", ""
	for i, op := range ops {
		om := m.Ops[i]
		if om.Aliased {
			m.Requirements = append(m.Requirements, requirement{10, 3, fmt.Sprintf("%s: op %s aliases an output to an input, which needs IPluginV3OneBuildV2 (TensorRT >= 10.3)", pkg.Name, op.Name)})
		}
		for _, t := range op.Tensors() {
			for _, d := range op.AllowedDTypes(t) {
				switch d {
				case ir.BFloat16, ir.Int64:
					wide = op.Name
				case ir.Float8E4:
					fp8 = op.Name
				}
			}
		}
		for _, p := range om.Params {
			switch p.FieldType {
			case "kINT64", "kBF16", "kFP8":
				wide = op.Name
			}
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
		Class:         op.Name + "Plugin",
		Creator:       op.Name + "PluginCreator",
		ParamsType:    op.Name + "Params",
		NbInputs:      len(l.Inputs),
		NbOutputs:     len(l.Outputs),
		DTypeParam:    slices.ContainsFunc(l.Slots, func(s *slot) bool { return s.Output }),
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
	m.Docs.Inputs, m.Docs.InputNames = tensorDocs(l.Inputs, shapes)
	m.Docs.Outputs, m.Docs.OutputNames = tensorDocs(l.Outputs, shapes)
	m.Docs.ShapeInputs = shapeInputDocs(l.ShapeInputs)
	m.InputTypeFormats, m.InputTypeArgs = inputTypeMessage(l)
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
	m.Shape = newShapeCode(op, l, pkg.Legacy)
	m.RuntimeChecks = strings.Join(runtimeChecks(op, l, pkg.Legacy), statementSep)
	if w := OpOptions(op).Workspace; w != nil {
		m.Workspace = workspaceExpr(op, l, w, pkg.Legacy)
	}
	m.Combos, m.Kernel = newKernelModel(op, l, shapes)
	return m
}

// dtypeTexts sets getOutputDataTypes' OutputTypes and
// supportsFormatCombination's verdicts and SupportCases.
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
	m.supports = make([]string, len(all))
	cases := make([]string, len(all))
	for i, t := range all {
		m.supports[i] = typeCond(all, t, io) + " && " + formatCond(t, formats, io)
		cases[i] = "case " + strconv.Itoa(i) + ": return " + m.supports[i] + ";"
	}
	m.SupportCases = strings.Join(cases, statementSep)
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

// tensorDocs are the header comment's lines for ts (see docText.Inputs)
// and their names for a one-line list.
func tensorDocs(ts []*ioTensor, shapes []string) (docs, names string) {
	d, n := make([]string, len(ts)), make([]string, len(ts))
	for i, t := range ts {
		typ, shape := "int32", "[] (size tensor)"
		if t.Size == nil {
			typ, shape = typeText(t.T.Type), shapes[t.Pos]
		}
		index := strconv.Itoa(t.Index)
		d[i] = "\n//   [" + index + "] " + escape.CComment(t.Name) + ": " + typ + " " + shape
		n[i] = " [" + index + "] " + escape.CComment(t.Name)
	}
	return strings.Join(d, ""), strings.Join(n, "")
}

func shapeInputDocs(ts []*ir.Tensor) string {
	d := make([]string, len(ts))
	for i, t := range ts {
		d[i] = "\n//   [" + strconv.Itoa(i) + "] " + escape.CComment(t.Name+": "+typeText(t.Type)+" "+shapeText(t))
	}
	return strings.Join(d, "")
}

// inputTypeMessage is the format and the arguments that print the input
// dtypes (see opModel.InputTypeFormats); an absent optional input prints -1.
func inputTypeMessage(l *ioLayout) (format, args string) {
	a := make([]string, len(l.Inputs))
	for i, t := range l.Inputs {
		a[i] = ", static_cast<int32_t>(inputDesc[" + strconv.Itoa(i) + "].type)"
		if t.Optional {
			a[i] = ", mNbInputs > " + strconv.Itoa(i) + " ? static_cast<int32_t>(inputDesc[" + strconv.Itoa(i) + "].type) : -1"
		}
	}
	return strings.Repeat(" %d", len(a)), strings.Join(a, "")
}

// paramTexts sets the text of m's params: Fields and Docs.Fields.
func (m *opModel) paramTexts() {
	n := len(m.Params)
	m.Fields.Nb, m.Fields.Array, m.Fields.NbSerial = n, max(1, n), n+1
	if n == 0 {
		m.Docs.Fields, m.Fields.Names, m.Fields.List = " none", `""`, "none"
		return
	}
	members, docs, names := make([]string, n), make([]string, n), make([]string, n)
	reads, serial, declared := make([]string, n), make([]string, n), make([]string, n)
	for i, p := range m.Params {
		index := strconv.Itoa(p.Index)
		members[i] = p.Member + " //!< " + escape.CComment(p.Doc)
		docs[i] = "\n//   " + escape.CComment(p.Name+": "+p.Doc)
		names[i] = p.Name
		reads[i] = "case " + index + ": ok = " + p.Read + "; break;"
		serial[i] = "mSerialFields[" + strconv.Itoa(p.SerialIndex) + "] = " + p.Serialize + ";"
		declared[i] = "mFields[" + index + "] = " + pluginField(p.Name, "nullptr", p.FieldType, strconv.Itoa(p.FieldLength)) + ";"
	}
	m.Docs.Fields = strings.Join(docs, "")
	f := &m.Fields
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = escape.CString(n)
	}
	f.Names, f.List = strings.Join(quoted, ", "), strings.Join(names, ", ")
	f.ReadCases = strings.Join(reads, caseSep)
	f.Serialized, f.Declared, f.Members = strings.Join(serial, statementSep), strings.Join(declared, statementSep), strings.Join(members, statementSep)
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

// paramTypeExpr is the dtype a dtype_param output takes: its param's
// value (mParams' enum member) mapped to the DataType it names, through
// trtType as every other dtype. The last value is the fallback, which the
// field reader's range check never lets through.
func paramTypeExpr(t *ioTensor) string {
	n := len(t.Allowed)
	x := trtType(t.Allowed[n-1])
	for i := n - 2; i >= 0; i-- {
		x = "(mParams." + t.Param.Ident + " == " + t.Enum.Type + "::" + t.Enum.Values[i].Const + " ? " + trtType(t.Allowed[i]) + " : " + x + ")"
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
	launch := lowerFirst(op.Name)
	k := kernelModel{IOName: op.Name + "IO", Launch: launch, Fill: launch + "Fill"}
	params, paramPos, paramOf := templateParams(l, l.All())
	k.IOType = k.IOName
	if len(params) > 0 {
		parts := make([]string, len(params))
		for i, p := range params {
			parts[i] = "typename " + p
		}
		k.TemplateDecl = "template <" + strings.Join(parts, ", ") + ">"
		k.IOType += "<" + strings.Join(params, ", ") + ">"
	}
	io := newKernelIO(op, l, shapes, k.Fill, params, paramOf)
	k.IOFields = strings.Join(io.fields, statementSep)
	k.Fills = strings.Join(io.fills, statementSep)
	launchers, headers := newLaunchers(op, l, paramPos, io)
	for _, h := range headers {
		k.Includes += "\n#include <" + h + ">"
	}
	return launchers, k
}

// kernelIO is the IO struct of an op's kernels: its members, and how the
// launchers fill it.
type kernelIO struct {
	fields []string // the members
	fills  []string // the default launch body: a fill per output
	kinds  []string // the tensor type of each inOut position
	srcs   []string // where the launchers find the tensor at each position
	uppers []string // the upper bounds of the data-dependent sizes, after the tensors
}

func newKernelIO(op *ir.Op, l *ioLayout, shapes []string, fill string, params []string, paramOf []int) kernelIO {
	all := l.All()
	first := l.Combos()[0] // fixed dtypes are the same in every combination
	io := kernelIO{fields: make([]string, 0, len(all)), kinds: make([]string, len(all)), srcs: make([]string, len(all))}
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
		io.fields = append(io.fields, io.kinds[t.Pos]+"<"+ct+"> "+t.Ident+"; // "+doc)
		if !t.Input {
			io.fills = append(io.fills, fmt.Sprintf("%s<<<gridSize(io.%s.numel(), kBlock), kBlock, 0, stream>>>(io.%s.data, io.%s.numel());", fill, t.Ident, t.Ident, t.Ident))
		}
	}
	// Data-dependent outputs arrive with unknown dims; their buffers hold
	// the upper bound, which the kernel needs to stay inside them.
	for _, t := range all {
		if t.Size == nil {
			continue
		}
		if u, ok := cppInt(op, l, t.Size.Upper, func(i, j int) string { return fmt.Sprintf("inputs[%d].dims[%d]", i, j) }, "params"); ok {
			io.fields = append(io.fields, fmt.Sprintf("int64_t upper_%s; // the most %s can be: %s", t.Size.Name, t.Size.Name, t.Size.Upper.String()))
			io.uppers = append(io.uppers, u)
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
	// Scratch for each launcher's lists, which strings.Join copies.
	conds := make([]string, max(1, len(l.Slots)))
	args := make([]string, len(paramPos))
	inits := make([]string, len(io.kinds), len(io.kinds)+len(io.uppers))
	types := make([]string, len(io.kinds))
	for ci, c := range combos {
		lm := &launcherModel{Func: "launch" + op.Name}
		if s := c.Suffix(); s != "" {
			lm.Func += "_" + s
		}
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
		for i, pos := range paramPos {
			args[i] = dtypeC(c.DTypes[pos])
		}
		for pos, d := range c.DTypes {
			if h := cudaHeaders[dtypeC(d)]; h != "" {
				need[h] = true
			}
			inits[pos] = io.kinds[pos] + "<" + dtypeC(d) + ">(" + io.srcs[pos] + ")"
			types[pos] = string(d)
		}
		lm.Cond = strings.Join(conds, " && ")
		if len(args) > 0 {
			lm.Args = "<" + strings.Join(args, ", ") + ">"
		}
		lm.IOInit = "{" + strings.Join(append(inits, io.uppers...), ", ") + "}"
		lm.Types = strings.Join(types, ", ")
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

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
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
	// Body is IPluginV3's getOutputShapes: Checks, Sizes and Outputs as a
	// block of statements (statementSep).
	Body string
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
}

func newRefs(op *ir.Op, l *ioLayout) *refs {
	r := &refs{op: op, l: l, shapeIn: map[string]int{}, shapeNb: map[string]int{}, checked: map[string]bool{}}
	r.syntax = shapeexpr.Syntax{Const: exprConst, Ref: r.ref, Op: dimOp}
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
	if e.Kind == shapeexpr.Index {
		if s, ok := r.shapeIn[e.Name]; ok {
			r.check(fmt.Sprintf("if (shapeInputs[%d].nbDims <= %d) { logError(\"%s: shape input \\\"%s\\\" has %%d values; the output shapes read value %d\", shapeInputs[%d].nbDims); return 1; }", s, e.Index, r.op.Name, e.Name, e.Index, s))
			return fmt.Sprintf("shapeInputs[%d].d[%d]", s, e.Index)
		}
		p := r.op.Param(e.Name)
		if p != nil && p.Kind == ir.ParamArray && p.Length == 0 {
			r.check(fmt.Sprintf("if (mParams.%s.size() <= %d) { logError(\"%s: param %s has %%zu values; the output shapes read value %d\", mParams.%s.size()); return 1; }", p.Ident, e.Index, r.op.Name, p.Name, e.Index, p.Ident))
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
	if like.Mode == ir.AxisRemove {
		nb = "nbDims - 1"
	}
	at := "target.d[o++] = " + src + ".d[d];"
	switch like.Mode {
	case ir.AxisKeep:
		at = "target.d[o++] = d == axis ? exprBuilder.constant(1) : " + src + ".d[d];"
	case ir.AxisReplace:
		at = "target.d[o++] = d == axis ? " + r.expr(like.Replace.Expr) + " : " + src + ".d[d];"
	case ir.AxisRemove:
		at = "if (d != axis) { target.d[o++] = " + src + ".d[d]; }"
	}
	return []string{
		"{",
		"    int32_t const nbDims = " + src + ".nbDims;",
		"    int64_t axis = static_cast<int64_t>(mParams." + p.Ident + ");",
		"    if (axis < -nbDims || axis >= nbDims) { logError(" + format + ", static_cast<long long>(axis), nbDims); return 1; }",
		"    axis = axis < 0 ? axis + nbDims : axis;",
		"    nvinfer1::DimsExprs& target = " + target + ";",
		"    target.nbDims = " + nb + ";",
		"    for (int32_t d = 0, o = 0; d < nbDims; ++d) { " + at + " }",
		"}",
	}
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
	for _, t := range l.Outputs {
		if t.Size != nil {
			continue
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
		sc.Outputs = append(sc.Outputs, lines)
	}
	sc.Checks = r.checks
	body := make([]string, 0, len(sc.Checks)+len(sc.Sizes)+len(l.Outputs)*5)
	body = append(append(body, sc.Checks...), sc.Sizes...)
	for _, lines := range sc.Outputs {
		body = append(body, lines...)
	}
	sc.Body = strings.Join(body, statementSep)
	return sc
}

// runtimeChecks compare concrete input dims with the opdef: ranks,
// constant dims and dims that share a symbol.
func runtimeChecks(op *ir.Op, l *ioLayout, legacy bool) []string {
	desc, nb := "in", "nbInputs"
	if legacy {
		desc, nb = "inputDesc", "mNbInputs"
	}
	var out []string
	for _, t := range l.Inputs {
		if t.Rank == ir.RankAny {
			continue
		}
		// checkRank(dims, rank, op, input), checkDim(dims, dim, value, op,
		// input), checkSameDim(dims, dim, dims0, dim0, op, input, input0,
		// symbol).
		d := desc + "[" + strconv.Itoa(t.Index) + "].dims"
		who := ", " + escape.CString(op.Name) + ", " + escape.CString(t.Name)
		// An optional input is checked when it is there.
		when := "if ("
		if t.Optional {
			when = "if (" + nb + " > " + strconv.Itoa(t.Index) + " && "
		}
		out = append(out, when+"!checkRank("+d+", "+strconv.Itoa(t.Rank)+who+")) return 1;")
		for j, dim := range t.T.Shape {
			switch {
			case dim.Expr.IsConst():
				out = append(out, when+"!checkDim("+d+", "+strconv.Itoa(j)+", "+strconv.FormatInt(dim.Expr.Value, 10)+who+")) return 1;")
			case dim.Expr.IsSymbol():
				if f := l.InDim[dim.Expr.Name]; f != [2]int{t.Index, j} {
					first := desc + "[" + strconv.Itoa(f[0]) + "].dims, " + strconv.Itoa(f[1])
					out = append(out, when+"!checkSameDim("+d+", "+strconv.Itoa(j)+", "+first+who+", "+escape.CString(l.Inputs[f[0]].Name)+", "+escape.CString(dim.Expr.Name)+")) return 1;")
				}
			}
		}
	}
	return out
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
	// descriptors getWorkspaceSize receives (validate allows it here only).
	elem := func(name string) string {
		for _, t := range l.All() {
			if t.T != nil && t.T.Name == name {
				list, idx := "inputs", t.Index
				if !t.Input {
					list = "outputs"
				}
				return fmt.Sprintf("elementSize(static_cast<int32_t>(%s[%d]%s.type))", list, idx, desc)
			}
		}
		return ""
	}
	s, _ := cppIntElem(op, l, w, func(i, j int) string { return fmt.Sprintf("inputs[%d].%s.d[%d]", i, dims, j) }, "mParams", elem)
	return s
}

// cppInt renders e as int64 C++ arithmetic: input dims through dim(i, j),
// params as members of params. ok is false when e reads something plain
// code does not have (shape-tensor values, data-dependent sizes, element
// sizes).
func cppInt(op *ir.Op, l *ioLayout, e *shapeexpr.Expr, dim func(i, j int) string, params string) (string, bool) {
	return cppIntElem(op, l, e, dim, params, nil)
}

// cppIntElem is cppInt that also renders elem_size(x) through elem.
func cppIntElem(op *ir.Op, l *ioLayout, e *shapeexpr.Expr, dim func(i, j int) string, params string, elem func(name string) string) (string, bool) {
	ok := true
	s := e.Render(shapeexpr.Syntax{
		Const: func(v int64) string { return "int64_t{" + strconv.FormatInt(v, 10) + "}" },
		Ref: func(x *shapeexpr.Expr) string {
			if x.Kind == shapeexpr.ElemSize {
				if elem != nil {
					if s := elem(x.Name); s != "" {
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
