package ir

import (
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// Where remembers the position of each field of an object, so diagnostics
// can point at the offending key rather than the object as a whole. It is
// a short list rather than a map: an object has a few fields, every part
// of every model has one, and a gen reads a thousand models back, where
// maps were a third of the allocations.
type Where []FieldPos

// FieldPos is where one field of an object was written.
type FieldPos struct {
	Field string
	Pos   diag.Pos
}

// LiteralBody suffixes a field whose value is a literal block of lines
// (YAML `|`): the position of field+LiteralBody is where its first line
// starts, so a diagnostic about line i of the text can point at it.
const LiteralBody = "#body"

// WhereOf is a Where of one field.
func WhereOf(field string, pos diag.Pos) Where { return Where{{Field: field, Pos: pos}} }

// Lookup returns the position of field and whether it was recorded.
func (w Where) Lookup(field string) (diag.Pos, bool) {
	for i := range w {
		if w[i].Field == field {
			return w[i].Pos, true
		}
	}
	return diag.Pos{}, false
}

// At returns the position of field, or fallback when it was not recorded.
func (w Where) At(field string, fallback diag.Pos) diag.Pos {
	if p, ok := w.Lookup(field); ok {
		return p
	}
	return fallback
}

// Set records the position of field, replacing one recorded before. It is
// for building an object: copies of a built one (ir.Op.For) share its
// Where, as they shared its map when it was one, and a field one copy adds
// may land in the array the others share (a map kept both). Clone a
// copy's Where (slices.Clone) before adding to it.
func (w *Where) Set(field string, pos diag.Pos) {
	for i := range *w {
		if (*w)[i].Field == field {
			(*w)[i].Pos = pos
			return
		}
	}
	*w = append(*w, FieldPos{Field: field, Pos: pos})
}

// Package is one op package: the unit every target generates.
type Package struct {
	Name      string
	Domain    string
	Version   string
	Namespace string
	// Source is the path of the definition file.
	Source string
	Ops    []*Op
	// Sections are the package-level target sections (`targets:` beside
	// `package:`) the core keeps opaque; each target decodes its own.
	Sections Sections
	// Acknowledged are the warning codes the package acknowledges
	// (`package: {acknowledge: [...]}`): wherever in its file they fire.
	Acknowledged []Acknowledgement
	Pos          diag.Pos
	Where        Where
	// Digest identifies the definition outside its ops as written, and
	// Op.Digest each op's, positions left out: a file generated from one
	// op and its package's facts alone is the same while both digests
	// are. The gen cache keys such files by them; "" (a loader that cannot
	// say) makes every file render.
	Digest string
	// Reuse, set by gen for one target's Generate, is what its cache
	// offers (nil: nothing).
	Reuse *Reuse `json:"-"`
	// Checked, set by gen for the targets' checks, keeps what a target's
	// check of one op concluded with no diagnostic, by the package's and
	// the op's digests, across generations (nil: nothing kept). Such a
	// check reads the op and its package's facts alone and writes only
	// diagnostics, so what it concluded then it concludes now.
	Checked SectionStore `json:"-"`
	// Validated, set by a loader that keeps ops as validation leaves
	// them, says which ops it read back so and keeps the others once
	// validated (nil: none kept).
	Validated ValidatedOps `json:"-"`
}

// ValidatedOps keeps a package's ops as validation left them (ranks set
// from the inputs they follow, Op.Facts derived) across generations:
// an op's own checks read the op and its file's path alone (validate), so
// an op they passed once with no diagnostic they pass again, and leave
// the same. Such an op is read back with what validation made of it and
// its own checks do not run again; the checks across ops (names,
// duplicates) and the one reading the file system (an ONNX origin's
// model) do.
type ValidatedOps interface {
	// Prevalidated reports that op, one of the package's, was read back
	// as validation left it.
	Prevalidated(op *Op) bool
	// Keep is called once validation has run (Facts derived), with the
	// ops it passed with no diagnostic of their own: those are kept as
	// validated, and the others as they were before validation.
	Keep(clean []*Op)
}

// Reuse is what gen's cache offers one target's generation of a package.
type Reuse struct {
	// Kept are the files (paths below the target's directory) the cache
	// vouches for on disk: render leaves them unrendered
	// (fileset.File.Kept).
	Kept map[string]bool
	// Keys are the keys of the ops' own files (Package.Digest), which
	// also key what each op renders into the package's shared files.
	Keys map[*Op]string
	// Sections holds rendered sections of shared files by key.
	Sections SectionStore
	// Shared, when set, is asked about a file the package's ops share,
	// at path (below the target's directory), whose bytes key stands for
	// (a file of keyed sections, render.Package): it records the key for
	// the next generation and reports whether the cache vouches for the
	// file on disk as made from it, which render then leaves unrendered.
	// Called concurrently.
	Shared func(path, key string) bool
}

// SectionStore keeps the rendered per-op sections of shared files across
// generations (render.KeyedSections).
type SectionStore interface {
	// Section is the text stored under key.
	Section(key string) (string, bool)
	// Remember stores text under key for the next generation.
	Remember(key, text string)
}

// Acknowledgement is a warning code an opdef acknowledges where the
// warning arises (`acknowledge: [unused-typevar]` in an op or the package):
// the warning is known and accepted, so text output leaves it out and
// JSON marks it; one that never fires there is itself reported as stale.
type Acknowledgement struct {
	Code string
	Pos  diag.Pos // where the code was written
}

// Reference is a QNN Reference element.
type Reference struct {
	Source string
	URL    string
	Text   string
}

// ONNXOrigin is the ONNX op an op was imported from: its op type and
// domain, and the model that gives the opset imports and the function
// defining a custom op (Model as written, relative to the opdef's
// directory; ModelPath resolved against it).
type ONNXOrigin struct {
	Model     string
	ModelPath string
	OpType    string
	Domain    string
	Pos       diag.Pos
}

// TorchOrigin is the torch.library op an op was imported from (opforge
// import torch): the module that registers it (an importable module name,
// or a .py file as written, relative to the opdef's directory) and its
// qualified name NS::NAME.
type TorchOrigin struct {
	Module string
	Op     string
	// Triton is the Triton kernel the op's torch implementation launches
	// (torch.library.triton_op, wrap_triton), nil when it launches none.
	Triton *TritonKernel
	Pos    diag.Pos
}

// TritonKernel is a @triton.jit kernel an imported op's implementation
// launches, brought along so that targets running Triton run the user's
// own kernel: its source (after the @triton.jit helpers it calls) and how
// the launch binds each of its arguments.
type TritonKernel struct {
	// Kernel is the @triton.jit function's name in Source.
	Kernel string
	Source string
	// Args are the kernel's runtime arguments in order: an input or output
	// tensor's name (its pointer), numel(<output>) (its element count), a
	// param's name, or a number.
	Args []string
	// Constexprs are its tl.constexpr arguments the launch gives: a number
	// or a param's name each.
	Constexprs []TritonConstexpr
	// Block is the constexpr the launch grid, (cdiv(count, Block),),
	// divides by ("": the grid has another form).
	Block string
	Pos   diag.Pos
	// ArgsPos and ConstexprsPos are where Args' items and Constexprs' keys
	// are written.
	ArgsPos []diag.Pos
}

// TritonConstexpr is one tl.constexpr argument of a TritonKernel.
type TritonConstexpr struct {
	Name, Value string
	Pos         diag.Pos
}

// IsFile reports whether the module is a Python file rather than a module
// name.
func (t *TorchOrigin) IsFile() bool { return strings.HasSuffix(t.Module, ".py") }

// VerifyTolerance is the op's `verify:` section: its rtol and atol for
// opforge verify's float comparisons (nil: the per-dtype default), and the
// shape symbols verify computes instead of drawing (Sizes).
type VerifyTolerance struct {
	Rtol, Atol *float64
	// Sizes are input shape symbols whose value in verify's cases is an
	// expression over the drawn symbols, integer params and the sizes above it (`sizes: {DO: 2
	// * KH * KW}`), so inputs whose dims depend on each other (a deformable
	// convolution's offsets and kernel) get consistent cases.
	Sizes []VerifySize
	// Cases are further cases verify runs on every target (`cases: [{name:
	// tail, dims: {N: 1027}, params: {alpha: -2.0}}]`): what a case does
	// not set is as in verify's base case.
	Cases []VerifyCase
}

// VerifyBaseSize is the size of every shape symbol in verify's base case,
// and in an opdef case of every symbol it does not set.
const VerifyBaseSize = 3

// VerifyCase is one case of the opdef's verify section, in the order
// written: shape symbols (Dims), input shapes, param values and dtype
// choices (Types), each optional.
type VerifyCase struct {
	// Name names the case in verify's results ("": what it sets).
	Name    string
	NamePos diag.Pos
	Dims    []VerifyDim
	Shapes  []VerifyShape
	Params  []VerifyParam
	Types   []VerifyType
	Pos     diag.Pos
}

// VerifyDim is a shape symbol's size in a VerifyCase.
type VerifyDim struct {
	Symbol string
	Value  int64
	Pos    diag.Pos // where the symbol was written
}

// VerifyShape is an input's shape in a VerifyCase: it binds the symbols of
// the input's declared shape, or gives an input of no declared shape
// (rank any or a fixed rank) its dims.
type VerifyShape struct {
	Input string
	Dims  []int64
	Pos   diag.Pos // where the input's name was written
}

// VerifyType is a dtype choice of a VerifyCase: a type variable's dtype,
// or that of an input with a dtype list of its own.
type VerifyType struct {
	Name  string // the type variable or the input
	DType DType
	Pos   diag.Pos // where the name was written
	// ValuePos is where the dtype was written.
	ValuePos diag.Pos
}

// VerifyParam is one param value of a VerifyCase.
type VerifyParam struct {
	Name  string
	Pos   diag.Pos // where the name was written
	Value *Literal
}

// VerifySize is one computed symbol of verify's cases.
type VerifySize struct {
	Symbol string
	Pos    diag.Pos // where the symbol was written (the key)
	Value  *Dim
}

// Op is one operator.
type Op struct {
	Name string
	// Digest identifies the op's definition as written (Package.Digest).
	Digest      string
	Description string
	References  []Reference
	// ONNX is the ONNX op the op was imported from, nil when written by
	// hand: its reference runs that op until the user writes one.
	ONNX *ONNXOrigin
	// Torch is the torch.library op the op was imported from, nil when
	// not: its reference calls that op until the user writes one.
	Torch *TorchOrigin
	// Verify overrides opforge verify's float tolerances for this op (nil:
	// the per-dtype defaults).
	Verify   *VerifyTolerance
	TypeVars []*TypeVar
	Inputs   []*Tensor
	Outputs  []*Tensor
	Params   []*Param
	// DataDependent are output sizes known only at run time, with bounds.
	DataDependent []*SizeSymbol
	// Requires are the relations between the inputs (`requires:`).
	Requires []*Relation
	// Sections are the op's target sections (`targets: {<target>: ...}`) the
	// core keeps opaque; each target decodes its own.
	Sections Sections
	// UseDefaultTranslation is QNN's UseDefaultTranslation (nil: absent).
	UseDefaultTranslation *bool
	// Acknowledged are the warning codes the op acknowledges: those
	// positioned within the op's lines (Pos.Line to LastLine).
	Acknowledged []Acknowledgement
	// LastLine is the last source line of the op's definition (0:
	// unknown), so a diagnostic can be told to lie within the op.
	LastLine int
	Pos      diag.Pos
	Where    Where
	// Facts are derived once by the validator (see Derived).
	Facts *Facts
}

// TypeVar is a type variable: every tensor typed with it has the same dtype,
// chosen from Allowed.
type TypeVar struct {
	Name    string
	Allowed []DType
	Pos     diag.Pos
	// AllowedPos is where each of Allowed was written, when known.
	AllowedPos []diag.Pos
}

// TypeRef is a tensor's type: a type variable, or a list of dtypes each of
// which the tensor may have independently of the other tensors (QNN's
// repeated Datatype elements).
type TypeRef struct {
	Var    string
	DTypes []DType
}

// RankAny marks a tensor whose rank is not fixed (QNN ND).
const RankAny = -1

// MaxRank is the most dims a tensor may have (the opdef schema's bound).
const MaxRank = 8

// Layout names a tensor memory layout.
type Layout string

const (
	LayoutNone            Layout = ""
	LayoutNCHW            Layout = "NCHW"
	LayoutNHWC            Layout = "NHWC"
	LayoutNCDHW           Layout = "NCDHW"
	LayoutNDHWC           Layout = "NDHWC"
	LayoutNontrivial      Layout = "nontrivial"
	LayoutUndefined       Layout = "undefined"
	LayoutBackendSpecific Layout = "backend_specific"
)

// Layouts lists the layout vocabulary.
// Rank is the rank a layout names dims for (NCHW 4, NCDHW 5, ...), 0 for
// a layout that names none.
func (l Layout) Rank() int {
	switch l {
	case LayoutNCHW, LayoutNHWC:
		return 4
	case LayoutNCDHW, LayoutNDHWC:
		return 5
	}
	return 0
}

var Layouts = []Layout{LayoutNCHW, LayoutNHWC, LayoutNCDHW, LayoutNDHWC, LayoutNontrivial, LayoutUndefined, LayoutBackendSpecific}

// Constraint is a QNN Constraint element.
type Constraint struct {
	ID   int
	Type string
	Text string
	Pos  diag.Pos
}

// Tensor is an input or output.
type Tensor struct {
	// Name is the name as written; it travels as a string (QNN configs,
	// ONNX, messages). Ident is the safe identifier used in code.
	Name        string
	Ident       string
	Description string
	Type        TypeRef
	// Rank is the number of dims, RankAny, or 0 for a 0-D tensor.
	Rank int
	// Scalar marks QNN's SCALAR rank (as opposed to 0D).
	Scalar bool
	// RankRange bounds the rank of a tensor of rank any (`rank: [min,
	// max]`); nil for none.
	RankRange *RankRange
	// Shape has one entry per dim when the shape is known, else nil.
	Shape     []*Dim
	Layout    Layout
	ShapeText string
	Optional  bool
	Variadic  bool
	// Count names the integer param whose value is the number of tensors a
	// variadic tensor stands for (`count: numLayers`), so a target whose
	// tensor count is fixed when the op is created can still take it; ""
	// for a count the node decides.
	Count  string
	Static bool
	// ShapeTensor marks an integer input whose values are sizes
	// (referenced as name[i] in output shapes).
	ShapeTensor bool
	// DTypeParam names the param whose value chooses the tensor's dtype (a
	// Cast-like `to`: an enum whose values are dtype names, or an integer
	// dtype code); "" for none. On an input it binds the input's type
	// variable (or own list) to the param's value.
	DTypeParam string
	// Range bounds the values of an integer input (`range: [lo, hi]`,
	// inclusive), e.g. indices into another input's dim; nil for none.
	// Verify draws the input's values within it.
	Range *ValueRange
	// Like makes an output's shape that of an input, whatever its rank
	// (`shape: {like: x}`); nil for a declared shape. Shape is then nil.
	Like *ShapeLike
	// Broadcast makes an output's shape the numpy broadcast of inputs'
	// shapes (`shape: {broadcast: [a, b]}`); nil otherwise.
	Broadcast *ShapeBroadcast
	// DynamicShapeText is QNN's DynamicShape/Text (2024 schema).
	DynamicShapeText string
	// Default is QNN's tensor Default text; outputs may not have one.
	Default     *Literal
	Constraints []Constraint
	Pos         diag.Pos
	Where       Where
}

// ValueRange is an integer input's inclusive value range: each bound a
// dimension expression over the op's shape symbols and integer params
// (the Where's "range" is where the list was written).
type ValueRange struct {
	Lo, Hi *Dim
}

// ShapeLike is an output shape written relative to an input: the same
// shape as input Input (elementwise ops), whatever its rank, or, with an
// Axis, that shape with the dim at the axis (the value of an integer param,
// negative counting from the end) replaced, removed or kept as 1
// (reductions, TopK along an axis).
type ShapeLike struct {
	Input string
	Pos   diag.Pos // where the input's name was written
	// Axis names the integer param holding the axis; "" for none.
	Axis    string
	AxisPos diag.Pos
	Mode    AxisMode
	// Replace is the dim at the axis (AxisReplace).
	Replace *Dim
	// KeepParam names the bool param that decides keep or remove
	// (AxisKeepIf).
	KeepParam string
	// ModePos is where the mode (replace, remove, keep) was written.
	ModePos diag.Pos
}

// KeepsAxisDim reports whether the dim at the axis stays (as 1) given the
// value of the keep param (AxisKeepIf; ignored for the other modes).
func (l *ShapeLike) KeepsAxisDim(keepParam bool) bool {
	return l.Mode == AxisKeep || l.Mode == AxisKeepIf && keepParam
}

// RankRange is the ranks a rank-polymorphic tensor may have, both ends
// included.
type RankRange struct {
	Min, Max int
}

// Admits reports whether rank r is in the range (a nil range admits all).
func (r *RankRange) Admits(rank int) bool {
	return r == nil || rank >= r.Min && rank <= r.Max
}

// ShapeBroadcast is an output shape that is the numpy-style broadcast of
// several inputs' shapes: aligned at the last dim, each dim the inputs'
// common size, where a dim of 1 (or a missing leading dim) stretches.
type ShapeBroadcast struct {
	Inputs []string
	Pos    []diag.Pos // where each input's name was written
	At     diag.Pos   // the broadcast key
}

// AxisMode says what becomes of the dim at a ShapeLike's axis.
type AxisMode string

const (
	AxisNone    AxisMode = ""
	AxisReplace AxisMode = "replace"
	AxisRemove  AxisMode = "remove"
	AxisKeep    AxisMode = "keep"
	// AxisKeepIf keeps the dim as 1 when the bool param KeepParam is true
	// and removes it otherwise (torch's keepdim), so the output's rank is
	// the input's or one less, decided when the op runs.
	AxisKeepIf AxisMode = "keep-if"
)

// Dim is one dimension: an expression and where it was written.
type Dim struct {
	Expr *shapeexpr.Expr
	Pos  diag.Pos
}

// ParamKind classifies params the way targets need them.
type ParamKind string

const (
	ParamScalar ParamKind = "scalar"
	ParamArray  ParamKind = "array"
	ParamString ParamKind = "string"
	ParamBool   ParamKind = "bool"
	ParamEnum   ParamKind = "enum"
	// ParamTensor is a constant tensor param of rank >= 2 (or QNN ND).
	ParamTensor ParamKind = "tensor"
)

// Param is an op attribute.
type Param struct {
	Name        string
	Ident       string
	Description string
	Kind        ParamKind
	// DTypes are the element dtypes the param may have; the first is its
	// primary dtype. Enum params keep their storage dtype here.
	DTypes []DType
	// Length of an array param: > 0 fixed, 0 variable.
	Length int
	// Rank of a tensor param (RankAny allowed).
	Rank int
	// ZeroD marks a scalar declared as a 0-D tensor (QNN 0D, not SCALAR).
	ZeroD bool
	// Values of an enum param, in index order.
	Values []string
	// DTypeCode makes an integer param a dtype code (dtype_code, codes);
	// nil for none.
	DTypeCode *DTypeCode
	Default   *Literal
	// DefaultText is a QNN Default that forms no value of the param's
	// dtype (`N-1` for "last axis", `{0,..,0}`): the vendor generator keeps
	// it as text and registers the param as required in the package it
	// generates.
	// Default is nil then; the text travels only where it can be written
	// as text (the QNN XML writer).
	DefaultText string
	Mandatory   bool
	// Min and Max bound a numeric param's values; MinExclusive and
	// MaxExclusive make a bound strict (`exclusive_min: 0` is 0 < v), for
	// the ranges real attributes have (a positive scale, a factor inside
	// (0, 1)) that an inclusive bound cannot say.
	Min, Max                   *float64
	MinExclusive, MaxExclusive bool
	ShapeText                  string
	Layout                     Layout
	// Constraints are QNN Constraint elements.
	Constraints []Constraint
	Pos         diag.Pos
	Where       Where
}

// SizeSymbol is a data-dependent output size: its value is known only after
// the kernel ran; Upper bounds it, Opt is the optimizer's guess.
type SizeSymbol struct {
	Name  string
	Opt   *shapeexpr.Expr
	Upper *shapeexpr.Expr
	Pos   diag.Pos
	Where Where
}

// OptOrUpper is the optimizer's guess, or the upper bound when none is given.
func (s *SizeSymbol) OptOrUpper() *shapeexpr.Expr {
	if s.Opt != nil {
		return s.Opt
	}
	return s.Upper
}

// LiteralKind is the syntactic kind of a default value.
type LiteralKind int

const (
	LitInt LiteralKind = iota
	LitFloat
	LitBool
	LitString
	LitList
)

// Literal is a default value as written, kept exactly (Text) so regenerated
// configs do not reformat "1.0" as "1".
type Literal struct {
	Kind LiteralKind
	Text string
	List []*Literal
	Pos  diag.Pos
}

// String is the literal as the opdef wrote it, a list in brackets: the
// text comments, diagnostics and QNN configs show (generated code prints
// values through generators/literal instead).
func (l *Literal) String() string {
	if l.Kind != LitList {
		return l.Text
	}
	parts := make([]string, len(l.List))
	for i, e := range l.List {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Tensors returns inputs then outputs, the order every target's runtime
// indexes them.
func (o *Op) Tensors() []*Tensor {
	out := make([]*Tensor, 0, len(o.Inputs)+len(o.Outputs))
	return append(append(out, o.Inputs...), o.Outputs...)
}

// TypeVar returns the op's type variable called name, or nil.
func (o *Op) TypeVar(name string) *TypeVar {
	for _, tv := range o.TypeVars {
		if tv.Name == name {
			return tv
		}
	}
	return nil
}

// Param returns the op's param called name, or nil.
func (o *Op) Param(name string) *Param {
	if i := o.ParamIndex(name); i >= 0 {
		return o.Params[i]
	}
	return nil
}

// ParamIndex returns the index of the op's param called name, or -1.
func (o *Op) ParamIndex(name string) int {
	for i, p := range o.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// Input returns the op's input called name, or nil.
func (o *Op) Input(name string) *Tensor {
	for _, t := range o.Inputs {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// AllowedDTypes resolves a tensor's type to the dtypes it may take.
func (o *Op) AllowedDTypes(t *Tensor) []DType {
	if t.Type.Var != "" {
		if tv := o.TypeVar(t.Type.Var); tv != nil {
			return tv.Allowed
		}
		return nil
	}
	return t.Type.DTypes
}

// Op returns the package's op called name, or nil.
func (p *Package) Op(name string) *Op {
	for _, op := range p.Ops {
		if op.Name == name {
			return op
		}
	}
	return nil
}

// OpsWhere returns the ops of pkg for which keep is true, in order.
func (p *Package) OpsWhere(keep func(*Op) bool) []*Op {
	var out []*Op
	for _, op := range p.Ops {
		if keep(op) {
			out = append(out, op)
		}
	}
	return out
}

// SelectPackages keeps the packages named in want, in their order in pkgs,
// and returns the names of want that no package has.
func SelectPackages(pkgs []*Package, want []string) (kept []*Package, unknown []string) {
	for _, pkg := range pkgs {
		if slices.Contains(want, pkg.Name) {
			kept = append(kept, pkg)
		}
	}
	for _, w := range want {
		if !slices.ContainsFunc(pkgs, func(p *Package) bool { return p.Name == w }) {
			unknown = append(unknown, w)
		}
	}
	return kept, unknown
}

// PackageNames lists the names of pkgs, in order.
func PackageNames(pkgs []*Package) []string {
	names := make([]string, len(pkgs))
	for i, p := range pkgs {
		names[i] = p.Name
	}
	return names
}

// RankRange is the ranks of a shape like an input whose ranks are in:
// the same, one less with the axis dim removed, and the union of both
// when a bool param decides (AxisKeepIf).
func (l *ShapeLike) RankRange(in *RankRange) *RankRange {
	switch l.Mode {
	case AxisRemove:
		return &RankRange{Min: max(in.Min-1, 0), Max: max(in.Max-1, 0)}
	case AxisKeepIf:
		return &RankRange{Min: max(in.Min-1, 0), Max: in.Max}
	}
	return &RankRange{Min: in.Min, Max: in.Max}
}
