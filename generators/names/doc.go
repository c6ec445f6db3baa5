// Package names decides which names are safe to emit as identifiers in every
// generated language (C++, CUDA, Python, OpenCL) and maps the names real
// configs use but that are not identifiers (an XML config's "in[0]") to
// safe ones.
//
// The mapping is a pure function of the name, so the same tensor gets the
// same identifier in every file and every run.
//
// Identifier safety across C++, CUDA, Python and OpenCL (keywords, reserved
// forms) and the deterministic mapping of non-identifier names such as a vendor config's
// `in[0]` to safe identifiers (`in_0`). The original name is kept wherever it
// travels as a string.
package names
