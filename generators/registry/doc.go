// Package registry is the registry of generation targets: the one list
// (All, WithToolchains) every other list derives from.
//
// What the targets implement, and how:
//
// The `Target` interface: `Name`, `Summary` (the line the CLI's help prints
// for it), `Check`, `Generate`, `ONNXFrontEnd` (the ONNX ops the target's own
// ONNX front end runs, each target's list written from its vendor's source in
// `targets/<t>/onnx.go`; `registry.FrontEnds` gives them to `import onnx
// --unsupported-for`). The optional `ONNXCaller` is a target whose runtime
// calls generated ops from ONNX nodes (`rewrite onnx --for`): it says what a
// node must carry (op type, attributes such as the TensorRT plugin identity or
// every HTP param with its default), which attributes the runtime reads
// itself, and what the runtime would refuse; trt (TensorRT's ONNX parser) and
// htp (ONNX Runtime's QNN execution provider) implement it, naming that
// runtime in `CallerSummary`, and `registry.ONNXCallers` lists them. The
// optional `Importer` gives the section an op imported from ONNX gets (`import
// onnx --targets`; trt and aipu, `registry.Importers`); the optional
// `NodeReader` says what the target's runtime reads of a node itself: the
// attributes it consumes (never params), the callee identity a node names
// beyond its op type (nodes naming different callees never share an op, and
// the op keeps it), why an attribute would not reach the op intact (the
// `onnx-attr-<target>` warning), why an op may not be named like a standard
// ONNX op or a function of the model (applied whatever `--targets` says, so
// names do not depend on it), and whether the runtime calls ops with trailing
// optional inputs left out (import joins such nodes only when every target
// asked for does); trt implements it (`registry.NodeReaders`).
// `registry.Check` orders each package's and op's sections as the registry
// does, so writers write them in one order.
//
// Each target's capability checks, reported as that target's diagnostics
// (dtypes it cannot take, variadic I/O on HTP, QDP attribute rules and
// reserved names, Compass IR param-name rules, the ExecuTorch contract), and
// its generator. Targets never import each other; `targets` is the registry
// (`All`, and `Check`, the one place every target's checks run on loaded
// packages; `ForGeneration` with the toolchain descriptors). `htp` builds a
// model per package and op in Go, typed rows its templates range over (the
// impl's parameters, param orders, scalar default statics, the vendor's tensor
// names, torch schema and Python arguments, the fake implementation's
// bindings, checks, sizes and output shapes, the eager implementations' call
// of the reference module), and renders `templates/htp/`. `trt` does the same
// for TensorRT (`templates/trt/`): an I/O layout per op (shape tensors apart,
// a size-tensor output per data-dependent size, trailing optional inputs a
// node may leave out: the plugin takes any count from its required inputs to
// all, the outputs follow the inputs present, an absent input is an empty
// `TensorRef` with `present` false, an output typed by it takes its first
// allowed dtype) with the rule deciding each tensor's dtype, from which the
// output dtypes, `supportsFormatCombination`, the dtype combinations of the
// typed launchers and the QDP autotune all come; param models (storage, field
// readers, declared and serialized field types); `IExprBuilder`, QDP
// `ShapeExpr` and plain-integer renderings of the shape expressions
// (`shapeexpr.Render`); the plugin identity (`PluginID`: name, version,
// namespace, `targets.trt.plugin_name` when set; one function shared by the
// C++ creator, the Python plugin id and `rewrite onnx --for trt`); user
// regions in the plugin class (members, clone, attachToContext, configure,
// onShapeChange, tactics, a `supportsFormatCombination` hook that can only
// narrow the opdef's verdict) besides the kernel's; the placeholder Triton
// kernel's attributes as `tl.constexpr` (`kernelParams`: scalars, bools, enum
// indices, fixed-length array elements, under names unique against the
// kernel's other arguments); `aipu` builds one per op (kernel parameter list
// shared by the GBuilder plugin and the `.cl` source, with the rank and dims
// of every tensor of no declared shape as int arguments, kernel variants per
// dtype combination and their objects, the Parser's and OPT forward's bindings
// with collision-free locals, output shapes with their axis checks, the
// default quantization per output) as typed rows and renders `templates/aipu/`
// into a directory per Compass stage. Per-op models are built on every core.
package registry
