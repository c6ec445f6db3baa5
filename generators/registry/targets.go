package registry

import (
	"slices"

	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/harness"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/targets/aipu"
	"github.com/opforge/opforge/generators/targets/htp"
	"github.com/opforge/opforge/generators/targets/trt"
	"github.com/opforge/opforge/generators/toolchain"
	"github.com/opforge/opforge/generators/validate"
)

// WithToolchains is the registry: every target, in the one fixed order
// that every list of this package keeps (and writers write sections in).
// A new target is one line here. Each target is one value for every
// purpose; toolchainDir is where one whose generated files depend on its
// toolchain descriptor (htp: the Hexagon pins its Makefile names) reads
// it, when it first generates (htp.Target says why lazily).
func WithToolchains(toolchainDir string) []target.Target {
	return []target.Target{htp.New(toolchainDir), trt.Target{}, aipu.Target{}}
}

// All returns every target, reading toolchain descriptors where the
// repository layout keeps them (toolchains/, else the built-in ones) when
// it generates. Everything but generation with another toolchains
// directory (gen.Options.Toolchains) takes this list.
func All() []target.Target { return WithToolchains(toolchain.Dir) }

// The op definition formats the targets own (target.SourceFormat) are
// registered with load as this package is initialized: load reads them
// by extension without naming a vendor, and every program that loads
// opdefs imports this package, which runs the targets' checks after load
// (Check).
func init() {
	for _, t := range All() {
		if f, ok := t.(target.SourceFormat); ok {
			load.Register(f.SourceFormat())
		}
	}
}

// ImportTargets are the targets `opforge import onnx --targets` accepts
// (target.Importer); DefaultImportTargets, what it generates for when
// none is named, and DefaultONNXCaller, the runtime `opforge rewrite onnx`
// rewrites for when --for is not given: TensorRT, where the TPAT idea (a
// model's unsupported nodes become plugins) comes from.
var (
	ImportTargets        = namesOf[target.Importer]()
	DefaultImportTargets = []string{"trt"}
	DefaultONNXCaller    = "trt"
)

// namesOf lists the names of the targets that implement I, in the
// registry's order.
func namesOf[I any]() []string {
	var names []string
	for _, t := range All() {
		if _, ok := t.(I); ok {
			names = append(names, t.Name())
		}
	}
	return names
}

// Check runs every target's checks on validated packages (nil ones are
// skipped), each target reporting as itself. It is the one place target
// checks run: everything that loads opdefs for the user calls it after
// load.
func Check(l *diag.List, pkgs ...*ir.Package) {
	ts := All()
	rank := map[string]int{}
	for i, t := range ts {
		rank[t.Name()] = i
	}
	for _, pkg := range pkgs {
		if pkg == nil {
			continue
		}
		for _, t := range ts {
			// Each target checks the ops as narrowed for it.
			t.Check(pkg.For(t.Name()), l.ForTarget(t.Name()))
		}
		inRegistryOrder(pkg.Sections, rank)
		for _, op := range pkg.Ops {
			inRegistryOrder(op.Sections, rank)
		}
	}
	checkPaths(l, slices.DeleteFunc(slices.Clone(pkgs), func(p *ir.Package) bool { return p == nil }))
	// Last: every check that an opdef's acknowledgements can match ran.
	validate.Acknowledge(l, AcknowledgeableWarnings(), pkgs...)
}

// inRegistryOrder orders sections as the registry does (rank: each
// target's place), so writers write them in one order whatever the order
// of the source.
func inRegistryOrder(s ir.Sections, rank map[string]int) {
	slices.SortStableFunc(s, func(a, b *ir.Section) int { return rank[a.Target] - rank[b.Target] })
}

// FrontEnds returns each target's ONNX front end, by target name.
func FrontEnds() map[string]*onnx.FrontEnd {
	m := map[string]*onnx.FrontEnd{}
	for _, t := range All() {
		if fe := t.ONNXFrontEnd(); fe != nil {
			m[t.Name()] = fe
		}
	}
	return m
}

// ONNXCallers returns the targets whose runtimes can call generated ops
// from ONNX nodes (rewrite onnx --for), by target name.
func ONNXCallers() map[string]target.ONNXCaller {
	m := map[string]target.ONNXCaller{}
	for _, t := range All() {
		if c, ok := t.(target.ONNXCaller); ok {
			m[t.Name()] = c
		}
	}
	return m
}

// Importers returns the targets ops imported from ONNX can generate for,
// by target name.
func Importers() map[string]target.Importer {
	m := map[string]target.Importer{}
	for _, t := range All() {
		if i, ok := t.(target.Importer); ok {
			m[t.Name()] = i
		}
	}
	return m
}

// Names returns every target's name, in the registry's order.
func Names() []string {
	var names []string
	for _, t := range All() {
		names = append(names, t.Name())
	}
	return names
}

// Builder returns the named target's builder, or false when no target of
// that name builds.
func Builder(name string) (target.Builder, bool) {
	for _, t := range All() {
		if b, ok := t.(target.Builder); ok && t.Name() == name {
			return b, true
		}
	}
	return nil, false
}

// Builders returns the names of the targets that build, in the registry's
// order.
func Builders() []string { return namesOf[target.Builder]() }

// Doctor lists every target for `opforge doctor`: each has a toolchain
// descriptor; those that build add their plan's missing files.
func Doctor() []buildplan.DoctorTarget {
	var out []buildplan.DoctorTarget
	for _, t := range All() {
		dt := buildplan.DoctorTarget{Name: t.Name()}
		if b, ok := t.(target.Builder); ok {
			dt.Plan = b.BuildPlan
		}
		out = append(out, dt)
	}
	return out
}

// Verifiers returns every target's verify runners, in the registry's
// order (opforge verify --target names them).
func Verifiers() []harness.Runner {
	var out []harness.Runner
	for _, t := range All() {
		if v, ok := t.(target.Verifier); ok {
			out = append(out, v.Verifiers()...)
		}
	}
	return out
}

// VerifierTargets names the target of each verify runner, by runner name:
// verify builds a runner's cases from the ops as that target narrows them.
func VerifierTargets() map[string]string {
	m := map[string]string{}
	for _, t := range All() {
		if v, ok := t.(target.Verifier); ok {
			for _, r := range v.Verifiers() {
				m[r.Name()] = t.Name()
			}
		}
	}
	return m
}

// NodeReaders returns the targets whose runtimes read part of an ONNX node
// themselves, in the registry's order.
func NodeReaders() []NamedNodeReader {
	var out []NamedNodeReader
	for _, t := range All() {
		if r, ok := t.(target.NodeReader); ok {
			out = append(out, NamedNodeReader{Name: t.Name(), NodeReader: r})
		}
	}
	return out
}

// NamedNodeReader is a NodeReader with its target's name.
type NamedNodeReader struct {
	Name string
	target.NodeReader
}

// AcknowledgeableWarnings are the warning codes an opdef may acknowledge:
// the core's and every target's, sorted.
func AcknowledgeableWarnings() []string {
	codes := slices.Clone(validate.CoreAcknowledgeable)
	for _, t := range All() {
		if a, ok := t.(target.Acknowledgeable); ok {
			codes = append(codes, a.AcknowledgeableWarnings()...)
		}
	}
	slices.Sort(codes)
	return codes
}
