// Package validate checks the meaning of an op package, whatever format it
// was written in: the op-definition rules both formats share (optional
// params need defaults, outputs take none, enum, bool and layout rules),
// identifier safety, type variables and shape expressions. Per-target capability checks live with
// each target (generators/targets/...).
//
// Semantic checks shared by every format: the op-package config rules
// (optional params need defaults, outputs take none, enum/bool rules, 0-D
// layouts, duplicates, constraint ids, backend-specific resolution), identifier and collision rules
// (exact, after identifier mapping, after upper-casing), type variables (a
// dtype listed twice is an error), shape-expression symbol resolution and
// param typing; value checks from declared ranges (input dims >= 1, int params
// within min/max and dtype, sizes within [0, upper]): zero divisors (error) or
// possibly zero (warning), dims always negative (error) or negative for an
// in-range witness (warning), int64 overflow, opt above upper; defaults that
// do not fit every dtype of the param (float32/float16/bfloat16 included);
// free text that generated files would read as a user-region marker
// (`opdef-text-marker`). `TargetExpr` runs the same symbol and value checks on
// an expression of a target's section, reported as that target's (a
// workspace size, from that target's check).
//
// PackageWith takes a Memo of checks ops passed: an op of a YAML opdef
// whose shape check passed with no diagnostic is known by its package's
// and its own digests and is not shape-checked again (gen keeps the memo
// in its item store; TestMemoIsNoMemo in load). A package whose loader
// keeps ops as validation left them (ir.Package.Validated) hands some back
// prevalidated: their own checks and ir.Derive do not run again, the
// checks across ops and the one reading the file system (onnxOrigin) do.
// An op's own checks see only its package's source path, so what they
// conclude is a function of the op and its file.
//
// narrow.go checks narrowings (target-types, target-ranks) and NarrowingHint
// gives a target's dtype error the targets: line that narrows it away;
// acknowledge.go marks acknowledged warnings and reports unknown and stale
// ones; suggest.go fits suggestions for unknown dim symbols to the context
// (integer params, x.shape[i], like: x).
package validate
