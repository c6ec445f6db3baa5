package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// Warnings an opdef may acknowledge: those the checks of a loaded package
// report at a place in its file (`acknowledge: [code]`). Warnings about
// anything else (a missing opdefs tree, toolchains, ONNX models, a
// generated tree, a conversion) are not acknowledged in an opdef; neither
// is one reported while generating, after the acknowledgements were
// applied. TestAcknowledgeableWarnings holds the list to the sources.
var AcknowledgeableWarnings = []string{
	"aipu-builtin", "aipu-kernel-param", "aipu-param-retyped", "aipu-target",
	"division-by-zero", "executorch-optional-input", "executorch-param-dtype", "executorch-tensor-param",
	"htp-no-backend", "htp-variant-backend", "input-range", "negative-dim", "onnx-origin",
	"qdp-default", "qnn-backend", "qnn-backend-package", "qnn-bool-literal", "qnn-implicit-default",
	"qnn-layout-rank", "qnn-qhpi", "qnn-supplemental-unknown", "qnn-textual-default",
	"shape-dim", "shape-overflow", "trt-format-combinations", "trt-qdp-version", "unused-size", "unused-typevar",
}

// Acknowledge applies the acknowledgements of every package once all
// their checks ran: a warning whose code an op acknowledges and that lies
// within the op's lines, or whose code the package acknowledges and that
// lies in its file, is marked acknowledged. An acknowledgement naming no
// such warning code is an error (with the nearest code); one that matched
// nothing is stale, a warning, in a package whose checks all ran (one
// without errors: an error stops checks that could have fired).
func Acknowledge(l *diag.List, pkgs ...*ir.Package) {
	for _, pkg := range pkgs {
		if pkg == nil {
			continue
		}
		clean := !fileHasErrors(l, pkg.Source)
		for _, op := range pkg.Ops {
			inOp := func(d diag.Diagnostic) bool {
				return d.Pos.File == pkg.Source && d.Pos.Line >= op.Pos.Line && d.Pos.Line <= op.LastLine
			}
			acknowledge(l, op.Acknowledged, inOp, "op "+op.Name, clean)
		}
		inFile := func(d diag.Diagnostic) bool { return d.Pos.File == pkg.Source }
		acknowledge(l, pkg.Acknowledged, inFile, "package "+pkg.Name, clean)
	}
}

// acknowledge marks the warnings in scope of each acknowledgement of acks
// (written in what) and reports the unknown, repeated and stale ones.
func acknowledge(l *diag.List, acks []ir.Acknowledgement, inScope func(diag.Diagnostic) bool, what string, clean bool) {
	seen := map[string]bool{}
	for _, a := range acks {
		switch {
		case !slices.Contains(AcknowledgeableWarnings, a.Code):
			l.Errorf(a.Pos, "acknowledge-code", "%s acknowledges %q, which is no warning an opdef can acknowledge (errors never are)%s", what, a.Code, nearestCode(a.Code))
		case seen[a.Code]:
			l.Warnf(a.Pos, "acknowledge-stale", "%s acknowledges %q twice; drop this one", what, a.Code)
		default:
			seen[a.Code] = true
			n := l.Acknowledge(func(d diag.Diagnostic) bool { return d.Code == a.Code && inScope(d) })
			if n == 0 && clean {
				l.Warnf(a.Pos, "acknowledge-stale", "%s acknowledges %q, but no %s warning arises there; drop the acknowledgement", what, a.Code, a.Code)
			}
		}
	}
}

// fileHasErrors reports whether an error was reported in file.
func fileHasErrors(l *diag.List, file string) bool {
	for _, d := range l.Sorted() {
		if d.Severity == diag.Error && d.Pos.File == file {
			return true
		}
	}
	return false
}

// nearestCode suggests the acknowledgeable code nearest to got, else
// lists them all.
func nearestCode(got string) string {
	best, bestD := "", 3
	for _, c := range AcknowledgeableWarnings {
		if d := names.Distance(got, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return "; the codes are " + strings.Join(AcknowledgeableWarnings, ", ")
}
