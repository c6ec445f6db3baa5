package htp

import (
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
)

// SourceFormat implements target.SourceFormat: QNN's op-package XML, the
// format of the configs qnn-op-package-generator reads.
func (Target) SourceFormat() load.Format { return qnnXML{} }

// qnnXML is QNN's op-package XML as an op definition format: read and
// written by qnnxml, which builds the htp sections of its ops.
type qnnXML struct{}

func (qnnXML) Name() string         { return "xml" }
func (qnnXML) Title() string        { return "QNN XML" }
func (qnnXML) Extensions() []string { return []string{".xml"} }

func (qnnXML) Parse(path string, data []byte, l *diag.List) *ir.Package {
	return qnnxml.Load(path, data, l)
}

// Encode implements load.Format. QNN XML speaks for HTP: it holds the op
// as htp narrows it (targets.htp.types and ranks).
func (qnnXML) Encode(pkg *ir.Package, l *diag.List) ([]byte, error) {
	return qnnxml.Write(pkg.For(Target{}.Name()), l)
}

// Duplicate implements load.Format: qnn-op-package-generator emits one
// package per (PackageName, backend), so a config for CPU beside one for
// HTP is two packages there. opforge generates HTP only: the config
// without an HTP op steps aside with a warning; two that both name HTP
// are a duplicate.
func (qnnXML) Duplicate(first, second *ir.Package, l *diag.List) *ir.Package {
	keep, drop := first, second
	if !namesHTP(first) && namesHTP(second) {
		keep, drop = second, first
	}
	if namesHTP(drop) {
		return nil
	}
	l.Warnf(drop.Where.At("name", drop.Pos), "qnn-backend-package", "package %s here names no HTP backend (%s) and %s defines it too; qnn-op-package-generator emits one package per backend, opforge generates HTP only, so this config's ops are skipped", drop.Name, strings.Join(backends(drop), ", "), keep.Source)
	return keep
}

// namesHTP: some op of pkg names a backend the htp target generates for.
func namesHTP(pkg *ir.Package) bool {
	for _, op := range pkg.Ops {
		if h := htpopt.OfOp(op); h != nil && h.NamesHTP() {
			return true
		}
	}
	return false
}

// backends lists the backends pkg's ops name, in first-seen order.
func backends(pkg *ir.Package) []string {
	var out []string
	seen := map[string]bool{}
	for _, op := range pkg.Ops {
		h := htpopt.OfOp(op)
		if h == nil {
			continue
		}
		for _, b := range h.Backends {
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
	}
	return out
}
