// Package reference generates each package's reference module: one
// user-owned Python file, out/reference/<Package>/<package>_reference.py,
// with one PyTorch function per op whose body the user writes once (region
// reference:<Op>). Every Python path that runs an op calls it: the
// targets' eager implementations, float forwards and Python plugins'
// implementations, and `opforge verify`, which compares every target
// against it. It is no target: it generates
// for every package, whatever targets its ops name.
//
// Each package's reference module,
// `out/reference/<Package>/<package>_reference.py`: one PyTorch function per
// op (inputs positional, params keyword-only with the opdef's defaults, enums
// by name) in the user region `reference:<Op>`, its docstring the opdef's
// shapes and dtypes, and `OPS` by op name. Not a target (no opdef names it):
// `gen.Files` runs it beside the targets for every package. The targets'
// generated Python (a float forward, eager implementations) loads it by path (or take it
// from `sys.modules` or `sys.path` under its module name) and call it, raising
// `NotImplementedError` that names quantization calibration while it is
// unwritten. An op with an ONNX origin (`ir.Op.ONNX`, recorded by `import
// onnx` for standard ops and model functions) starts its region with a call
// running that op through `onnx.reference.ReferenceEvaluator`, so TPAT-style
// imports are verifiable with no hand-written code.
package reference
