package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// CoreAcknowledgeable are the warnings of the core's checks an opdef may
// acknowledge: those reported at a place in its file (`acknowledge:
// [code]`); each target adds its own (target.Acknowledgeable), and the
// registry joins them. Warnings about anything else (a missing opdefs
// tree, toolchains, ONNX models, a generated tree, a conversion) are not
// acknowledged in an opdef; neither is one reported while generating,
// after the acknowledgements were applied. TestAcknowledgeableWarnings
// holds the lists to the sources.
var CoreAcknowledgeable = []string{
	"division-by-zero", "input-range", "negative-dim", "onnx-origin",
	"requires-never", "shape-dim", "shape-overflow", "unused-size", "unused-typevar",
}

// Acknowledge applies the acknowledgements of every package once all
// their checks ran: a warning whose code an op acknowledges and that lies
// within the op's lines, or whose code the package acknowledges and that
// lies in its file, is marked acknowledged. An acknowledgement naming no
// such warning code is an error (with the nearest code); one that matched
// nothing is stale, a warning, in a package whose checks all ran (one
// without errors: an error stops checks that could have fired).
// codes are every acknowledgeable warning code, sorted.
func Acknowledge(l *diag.List, codes []string, pkgs ...*ir.Package) {
	for _, pkg := range pkgs {
		if pkg == nil {
			continue
		}
		clean := !fileHasErrors(l, pkg.Source)
		for _, op := range pkg.Ops {
			inOp := func(d diag.Diagnostic) bool {
				return d.Pos.File == pkg.Source && d.Pos.Line >= op.Pos.Line && d.Pos.Line <= op.LastLine
			}
			acknowledge(l, codes, op.Acknowledged, inOp, "op "+op.Name, clean)
		}
		inFile := func(d diag.Diagnostic) bool { return d.Pos.File == pkg.Source }
		acknowledge(l, codes, pkg.Acknowledged, inFile, "package "+pkg.Name, clean)
	}
}

// acknowledge marks the warnings in scope of each acknowledgement of acks
// (written in what) and reports the unknown, repeated and stale ones.
func acknowledge(l *diag.List, codes []string, acks []ir.Acknowledgement, inScope func(diag.Diagnostic) bool, what string, clean bool) {
	seen := map[string]bool{}
	for _, a := range acks {
		switch {
		case !slices.Contains(codes, a.Code):
			l.Errorf(a.Pos, "acknowledge-code", "%s acknowledges %q, which is no warning an opdef can acknowledge (errors never are)%s", what, a.Code, nearestCode(codes, a.Code))
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
func nearestCode(codes []string, got string) string {
	best, bestD := "", 3
	for _, c := range codes {
		if d := names.Distance(got, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return "; the codes are " + strings.Join(codes, ", ")
}
