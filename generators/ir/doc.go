// Package ir is the one normalized model of op definitions that both source
// formats (opforge YAML, and the vendor formats targets register) load into and every target
// reads. It uses ordered slices only, so iteration order — and therefore
// generated output — is the order of the source.
//
// The dtype vocabulary holds what every target shares per dtype (kind,
// bits, the torch dtype, the C element type); each vendor spelling lives with
// its owner, in the target's folder. `Where` keeps the position of each field
// for precise diagnostics. Target options are not part of the core model:
// each target's section of an opdef (package-level and op-level
// `targets: {<t>: ...}`) is an `ir.Section` holding an opaque, positioned
// `ir.Node` (scalar, list, or map with ordered keys, each value with its
// `diag.Pos`; `section.go`) that the front end builds and the canonical
// writer writes back; an op's section being present means the op generates
// for that target, and a section with no node (an op without `targets:`)
// takes the target's defaults. The target decodes its section in its `Check`
// into its own option types, kept in `Section.Options` and read through
// `OptionsOf`, and sets `Section.Canonical`, the form the writer writes
// (defaults left out, keys in the target's order). A target whose vendor
// format holds options of its own (nested lists, positions) keeps them in
// its folder; the core and the YAML loader and writer know nothing of them.
// A value kept verbatim from another format is an `ir.ScalarPlain` scalar,
// which YAML writes untagged.
//
// `ir.Facts`, derived once per op by `validate` (`Op.Facts`; `Op.Derived`
// derives afresh for hand-built IR): which input dim binds each shape symbol
// (a required data input before an optional one before a shape tensor, in
// first-use order), the free dtype choices (type variables at their first
// input, inputs with their own lists), and each output's dtype rule (the same
// as an input's type variable, with the first allowed dtype when that input is
// optional and absent; follow the first data input when its own list has that
// dtype; fixed). Every target's generators read them instead of deriving
// their own.
//
// narrow.go: an op section's types/ranks are core-owned (Section.Narrow);
// Op.For(target) and Package.For(target) are the op as that target sees it.
// Op.Acknowledged and Package.Acknowledged hold acknowledged warning codes;
// Op.Torch the torch: origin of an imported op; Param.MinExclusive and
// MaxExclusive strict bounds (bounds.go: Admits, IntMin, IntMax, RangeText).
// OptionsOf decodes and keeps a target's section options on demand.
package ir
