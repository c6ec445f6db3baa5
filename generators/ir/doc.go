// Package ir is the one normalized model of op definitions that both source
// formats (opforge YAML, QNN op-package XML) load into and every target
// reads. It uses ordered slices only, so iteration order — and therefore
// generated output — is the order of the source.
//
// The one normalized model both formats load into and every target reads:
// ordered slices only (no map iteration order can leak into output), the dtype
// vocabulary with what every target shares per dtype (kind, bits, the torch
// dtype, the C element type); each vendor spelling lives with its owner: QNN's
// `Qnn_DataType_t` in `targets/htp/qnnxml` (QNN's own format, which the htp
// target reads it from), TensorRT's `DataType`/`PluginFieldType` in
// `targets/trt/dtype.go`, Compass IR dtypes in `targets/aipu/dtype.go`.
// `Where` keeps the position of each field for precise diagnostics. Target
// options are not part of the core model: each target's section of an opdef
// (package-level and op-level `targets: {<t>: ...}`) is an `ir.Section`
// holding an opaque, positioned `ir.Node` (scalar, list, or map with ordered
// keys, each value with its `diag.Pos`; `section.go`) that the front end
// builds and the canonical writer writes back; an op's section being present
// means the op generates for that target, and a section with no node (an op
// without `targets:`) takes the target's defaults. The target decodes its
// section in its `Check` into its own option types, kept in `Section.Options`
// and read through the target's accessor (`trt.OpOptions`, `trt.PkgOptions`,
// `aipu.OpOptions`, `htpopt.OfOp`, `htpopt.OfPackage`), and sets
// `Section.Canonical`, the form the writer writes (defaults left out, keys in
// the target's order). The htp target's options live in `targets/htp/htpopt`,
// a leaf package of its own because QNN's op-package XML, the htp target's own
// input format, reads and writes them too (`targets/htp/qnnxml` builds the htp
// op sections from `SupportedBackend`, and the package's options, `UseQHPI`
// and the SupplementalOpDefLists with their XML positions, through
// `htpopt.SetPackage`, which `Decode` keeps). QNN's SupplementalOpDefLists are
// htp package options too, `htpopt.Package.Supplementals`
// (`htpopt/supplemental.go`): from YAML, htpopt decodes the `supplemental`
// list of the opaque `targets.htp` node, every item with its position, and
// writes it back in its canonical form; the core and the YAML loader and
// writer know nothing of them. The htp target checks them against the ops and
// reports their unknown dtypes (`targets/htp/supplemental.go`). A value kept
// verbatim from another format is an `ir.ScalarPlain` scalar, which YAML
// writes untagged (QuantParam values).
//
// `ir.Facts`, derived once per op by `validate` (`Op.Facts`; `Op.Derived`
// derives afresh for hand-built IR): which input dim binds each shape symbol
// (a required data input before an optional one before a shape tensor, in
// first-use order), the free dtype choices (type variables at their first
// input, inputs with their own lists), and each output's dtype rule (the same
// as an input's type variable, with the first allowed dtype when that input is
// optional and absent; follow the first data input when its own list has that
// dtype; fixed). TensorRT's I/O layout, the ExecuTorch fakes and the Compass
// Parser's `infer_shape` read them instead of deriving their own.
//
// narrow.go: an op section's types/ranks are core-owned (Section.Narrow);
// Op.For(target) and Package.For(target) are the op as that target sees it.
// Op.Acknowledged and Package.Acknowledged hold acknowledged warning codes;
// Op.Torch the torch: origin of an imported op; Param.MinExclusive and
// MaxExclusive strict bounds (bounds.go: Admits, IntMin, IntMax, RangeText).
// OptionsOf decodes and keeps a target's section options on demand.
package ir
