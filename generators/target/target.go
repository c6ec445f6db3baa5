package target

import (
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/fileset"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
)

// Target is a code generation target: one per vendor runtime.
type Target interface {
	// Name is the short name used in opdefs (targets.<name>), diagnostics
	// and the out/<name>/ directory.
	Name() string
	// Summary says what the target generates, for help text ("<vendor>
	// plugins (C++ and Python)"): the CLI names targets only through it.
	Summary() string
	// Check reports what only this target cares about — dtypes it cannot
	// take, features it lacks — for the ops that generate for it.
	Check(pkg *ir.Package, d *diag.TargetList)
	// Generate returns the package's files, paths relative to
	// out/<name>/, each with its header (fileset.Header of pkg.Source;
	// render puts it in every file it makes). It is called only for
	// packages that passed every check.
	Generate(pkg *ir.Package, d *diag.TargetList) *fileset.Set
	// ONNXFrontEnd lists the ONNX ops the target's own ONNX front end runs
	// natively (import onnx --unsupported-for), or nil without one.
	ONNXFrontEnd() *onnx.FrontEnd
}

// Pather is a target whose generated files are named after the package
// and its ops: it lists their paths, relative to out/<name>/ as Generate
// returns them, without rendering, from the functions Generate names them
// with, so validation can refuse names a file system cannot take (too
// long, or equal to another's but for case).
type Pather interface {
	Paths(pkg *ir.Package) []Path
}

// OpSelector is a target that generates for only some of a package's ops
// (those that name it, say): it lists them, so gen keys only those ops'
// files and sections (ir.Reuse.Keys). An op Generate uses that is not
// listed has no key: its files and sections render every time, never
// reused, so a wrong list costs time, never bytes.
type OpSelector interface {
	Ops(pkg *ir.Package) []*ir.Op
}

// Path is one generated file and the op it is named after (nil: the
// package).
type Path struct {
	Path string
	Op   *ir.Op
}

// Importer is a target that ops imported from an ONNX model (`opforge
// import onnx --target NAME`) can generate for: it gives the section such
// an op gets (the core keeps target sections as opaque nodes).
type Importer interface {
	// ImportSection is the op-level section of an op called name imported
	// from nodes of type opType.
	ImportSection(opType, name string) *ir.Node
}

// TorchImporter is an Importer whose section differs for an op imported
// from a torch.library op (opforge import torch) from one imported from
// ONNX: TorchImportSection is the op-level section of such an op.
type TorchImporter interface {
	TorchImportSection(name string) *ir.Node
}

// NodeReader is an Importer whose runtime reads part of an ONNX node
// itself, beside the attributes that become the op's params: `opforge
// import onnx` asks every registered NodeReader, whatever --targets says,
// so one model imports the same ops for any set of targets.
type NodeReader interface {
	// ReservedAttrs are the node attributes the runtime consumes itself
	// (to find or feed the op); import makes no params of them.
	ReservedAttrs() map[string]bool
	// NodeIdentity is what node n names of its callee beyond its op type
	// (a version, a namespace), "" for nothing: nodes naming different
	// callees never share an op.
	NodeIdentity(n *onnx.Node) string
	// KeepIdentity gives op, imported from node n (and nodes of the same
	// identity), the callee identity n names where it differs from the
	// package's, so the runtime finds op under it; a no-op for an op
	// without this target.
	KeepIdentity(pkg *ir.Package, op *ir.Op, n *onnx.Node)
	// AttrConcern says why the runtime would not hand attribute a to the
	// op intact, or "". Import warns with it (code onnx-attr-<target>)
	// when the op generates for this target.
	AttrConcern(a *onnx.Attribute) string
	// StandardNameRule says why the runtime would not call an op named
	// like a standard ONNX op (it takes such a node for the built-in op),
	// "" when it would; FunctionNameRule likewise for an op named like a
	// function the model defines. Import applies every registered
	// reader's rules, so an op's name does not depend on --targets.
	StandardNameRule() string
	FunctionNameRule() string
	// CallsCustomOp reports whether node n calls a custom op of the
	// runtime already, whatever its op type (it names one the way the
	// runtime looks custom ops up): `import onnx --unsupported-for` leaves
	// such a node alone, since a runtime runs it.
	CallsCustomOp(n *onnx.Node) bool
	// TakesOptionalInputs reports whether the runtime calls an op with its
	// trailing optional inputs left out, so import may join nodes that
	// differ only in those into one op (only when every target asked for
	// does).
	TakesOptionalInputs() bool
}

// SourceFormat is a target whose vendor has an op definition format of
// its own, kept in the target's folder: the registry registers it with
// load, which then reads files of its extensions, and `opforge convert`
// writes it.
type SourceFormat interface {
	SourceFormat() load.Format
}

// Acknowledgeable is a target whose checks report warnings an opdef may
// acknowledge where they arise (`acknowledge: [code]`).
type Acknowledgeable interface {
	AcknowledgeableWarnings() []string
}

// Builder is a target whose generated packages `opforge build` compiles
// with the vendor toolchain its descriptor (toolchains/<name>.yaml) names.
type Builder interface {
	// BuildPlan plans building the packages under o.Out/<name>/ (limited to
	// o.Packages, and to o.Variants for a target with build variants);
	// missing SDK pieces go to the plan's Missing list.
	BuildPlan(o buildplan.Options) (*buildplan.Plan, error)
}

// Verifier is a target whose generated code `opforge verify` runs
// against the reference, through one runner per implementation (runner
// names are --target names, unique across targets).
type Verifier interface {
	Verifiers() []harness.Runner
}

// ONNXCaller is a target whose runtime reads ONNX models and can call the
// ops opforge generates for it from a node: `opforge rewrite onnx --for
// NAME` makes the selected nodes call them. The generic checks (inputs,
// outputs, dtypes, attributes against params) are onnximport's; what the
// runtime's ONNX front end does with a node is the target's.
type ONNXCaller interface {
	// ONNXCall says how node n calls op of pkg in the target's runtime.
	ONNXCall(pkg *ir.Package, op *ir.Op, n *onnx.Node) ONNXCall
	// CallerSummary names the runtime that reads the rewritten model and
	// calls the ops, for help text ("<vendor>'s ONNX parser").
	CallerSummary() string
}

// ONNXCall is how one node calls a generated op.
type ONNXCall struct {
	// Unavailable, when set, says why the op cannot be called at all (it
	// does not generate for the target); nothing else is read.
	Unavailable string
	// Edit makes the node call the op: its op type and the attributes the
	// front end reads (onnximport moves a node of the ONNX domain to the
	// package's domain and adds the opset import).
	Edit onnx.NodeEdit
	// Label names the callee in messages and the summary.
	Label string
	// Reserved are the node attributes the front end consumes itself;
	// they are not params.
	Reserved map[string]bool
	// UnknownAttr says what happens to an attribute that is not a param,
	// completing "attribute "x" is not a param of the op; ...".
	UnknownAttr string
	// StandardName, when set, is the complaint about an op named like a
	// standard ONNX op (the front end would take it as the built-in op).
	StandardName string
	// Problems are why this node cannot call the op in this runtime,
	// beyond the generic checks.
	Problems []string
}
