package yamldef

import (
	"encoding/binary"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/ircodec"
	"github.com/opforge/opforge/generators/workpool"
)

// An op's model (ir.Op as the builder makes it) is a function of its
// item's text, the file and the line the item starts at; ircodec writes it
// with positions relative to that line. So a vetted item whose op built
// with no diagnostic keeps its model in Chunks too, beside its verdict and
// digest, and a later load reads the model back instead of decoding the
// item's tree and building it: an unchanged op is neither parsed nor
// built. Like the verdict, the model is the generator's (its builder
// made it), which the Vet records are scoped to.
//
// Validation then changes the op (ranks an output takes from its input,
// Op.Facts), reading the op and its package's facts alone. So an op that
// validation passed with no diagnostic of its own is kept as validation
// left it, under a key of its own that adds the text of the file outside
// its ops list (validatedKey), and read back so it is not validated
// again (ir.ValidatedOps). Each key names one record's bytes, as the
// store wants (it keeps a key's first record): a model as built and one
// as validated never share a key.

// modelKey is the Vet key of the model of the item of key in file. The
// file is in it: the builder makes an ONNX origin's model path from the
// file's directory, so the same text elsewhere is another model.
func modelKey(file, key string) string { return "model " + file + "\x00" + key }

// validatedKey is the Vet key of the model, as validation left it, of the
// item of key in file, whose text outside its ops list has the key
// pkgKey (slicedFile.packageKey).
func validatedKey(file, pkgKey, key string) string {
	return "validated " + file + "\x00" + pkgKey + "\x00" + key
}

// modelRecord is the record of op, built from an item of file on lines
// first to last whose tree holds nodes nodes: the node count (for the
// structure check's bound on a document's nodes) and the op (ircodec).
func modelRecord(op *ir.Op, file string, first, last, nodes int) (string, bool) {
	data, ok := ircodec.Encode(op, file, first, last)
	if !ok {
		return "", false
	}
	rec := binary.AppendUvarint(make([]byte, 0, len(data)+4), uint64(nodes))
	return string(append(rec, data...)), true
}

// decodeModel reads a record modelRecord wrote for an item now at line
// first of file: its op and its tree's node count.
func decodeModel(rec, file string, first int) (*ir.Op, int, bool) {
	nodes, n := binary.Uvarint([]byte(rec[:min(len(rec), binary.MaxVarintLen64)]))
	if n <= 0 || nodes > 1<<30 {
		return nil, 0, false
	}
	op, ok := ircodec.Decode(rec[n:], file, first)
	return op, int(nodes), ok
}

// validatedOps is a YAML file's ir.ValidatedOps, and what keeps its ops'
// models once validation has run (Keep): as validation left them the ops
// it passed with no diagnostic of their own, as built the others. Only an
// op that built with no diagnostic is kept.
type validatedOps struct {
	chunks Chunks
	file   string
	pkgKey string
	pkg    *ir.Package
	lines  []string
	// By item: its key and lines (itemsCut), its tree (nil: its op was
	// read back, not built), the tree's node count, and whether its op
	// built with no diagnostic.
	cut   *itemsCut
	item  func(i int) *yaml.Node
	nodes func(i int) int
	quiet func(i int) bool
	// pre marks the ops read back as validated.
	pre []bool
}

// Prevalidated implements ir.ValidatedOps.
func (v *validatedOps) Prevalidated(i int) bool { return i >= 0 && i < len(v.pre) && v.pre[i] }

// Keep implements ir.ValidatedOps, once. An op built in this load that
// validation did not pass clean is kept as built: validation has changed
// it, so it is built again from its tree, once (such an op is rare, and a
// later load validates it again). An op read back as built stays so.
func (v *validatedOps) Keep(clean []int) {
	if v.cut == nil {
		return // kept already
	}
	// The file's trees and lines are not needed after: the package,
	// which lives as long as the gen, must not hold them.
	defer func() { v.cut, v.item, v.nodes, v.quiet, v.lines = nil, nil, nil, nil, nil }()
	if v.pkg.Digest == "" || len(v.pkg.Ops) != len(v.cut.keys) {
		return
	}
	passed := make([]bool, len(v.pkg.Ops))
	for _, i := range clean {
		if i >= 0 && i < len(passed) {
			passed[i] = true
		}
	}
	workpool.Parallel(len(v.pkg.Ops), func(i int) {
		op := v.pkg.Ops[i]
		if v.Prevalidated(i) || !v.quiet(i) || op.Digest == "" {
			return
		}
		key := validatedKey(v.file, v.pkgKey, v.cut.keys[i])
		if !passed[i] {
			node := v.item(i)
			if node == nil {
				return
			}
			op = (&builder{file: v.file, l: new(diag.List), lines: v.lines}).op(asObject(node))
			op.Digest = v.pkg.Ops[i].Digest // the digest is the whole tree's (setDigests)
			key = modelKey(v.file, v.cut.keys[i])
		}
		if rec, ok := modelRecord(op, v.file, v.cut.firsts[i], v.cut.lasts[i], v.nodes(i)); ok {
			v.chunks.Vet(key, rec)
		}
	})
}

// loadPrebuilt is LoadWith for a file whose ops, but for a few, have
// models in chunks: those ops are left out of the document that is parsed,
// checked and built, and their models join the package in their places
// (as validated where chunks has them so, else as built). data is cut
// into f with keys (cutItems). It returns nil, having reported nothing,
// where it cannot give what the whole load gives: no op has a model, or
// anything left to parse, check or build has a diagnostic (the whole
// load then runs and reports it).
func loadPrebuilt(file string, data []byte, f *slicedFile, keys []string, chunks Chunks) *ir.Package {
	if len(f.chunks) < 2 {
		return nil
	}
	n := len(f.chunks)
	pkgKey := f.packageKey()
	models := make([]*ir.Op, n)
	nodes := make([]int, n)
	pre := make([]bool, n)
	// The first item stays in the document, as with vetting: the schema
	// checks it with the package.
	workpool.Parallel(n-1, func(j int) {
		i := j + 1
		digest, ok := chunks.Vetted(keys[i])
		if !ok || digest == "" {
			return
		}
		validated := true
		rec, ok := chunks.Vetted(validatedKey(file, pkgKey, keys[i]))
		if !ok {
			validated = false
			if rec, ok = chunks.Vetted(modelKey(file, keys[i])); !ok {
				return
			}
		}
		if op, count, ok := decodeModel(rec, file, f.chunks[i].first+1); ok && op.Digest == digest {
			models[i], nodes[i], pre[i] = op, count, validated
		}
	})
	leave := make([]bool, n)
	left, prebuilt := 0, 0
	cut := &itemsCut{}
	for i, op := range models {
		if op != nil {
			leave[i] = true
			left += nodes[i]
			prebuilt++
			continue
		}
		cut.keys = append(cut.keys, keys[i])
		cut.firsts = append(cut.firsts, f.chunks[i].first+1)
		cut.lasts = append(cut.lasts, f.chunks[i].end)
	}
	if prebuilt == 0 {
		return nil
	}
	doc, ok := f.parse(chunks, keys, leave)
	if !ok {
		return nil
	}
	var quiet diag.List
	vet := newVetting(doc, cut, chunks)
	if ok, clean := checkStructure(file, doc, vet, left, &quiet); !ok || !clean {
		return nil
	}
	b := &builder{file: file, l: &quiet, lines: strings.Split(string(data), "\n")}
	pkg := b.pkg(doc.Content[0])
	if quiet.Len() > 0 || len(pkg.Ops) != len(cut.keys) {
		return nil
	}
	setDigests(doc.Content[0], pkg, vet.known())
	if pkg.Digest == "" {
		return nil
	}
	vet.record(pkg)
	built := pkg.Ops
	// builtAt[i] is the index among the built ops (and vet's items) of
	// item i's op, when it was built (else -1).
	builtAt := make([]int, n)
	pkg.Ops = make([]*ir.Op, n)
	next := 0
	for i := range models {
		if models[i] != nil {
			pkg.Ops[i], builtAt[i] = models[i], -1
			continue
		}
		builtAt[i] = next
		next++
		pkg.Ops[i], built = built[0], built[1:]
	}
	if vet == nil || len(vet.items) != len(cut.keys) {
		return pkg
	}
	pkg.Validated = &validatedOps{
		chunks: chunks, file: file, pkgKey: pkgKey, pkg: pkg, lines: b.lines, cut: f.cutOf(keys), pre: pre,
		item: func(i int) *yaml.Node {
			if j := builtAt[i]; j >= 0 {
				return vet.items[j]
			}
			return nil
		},
		nodes: func(i int) int {
			if j := builtAt[i]; j >= 0 {
				return countNodes(vet.items[j])
			}
			return nodes[i]
		},
		quiet: func(i int) bool { j := builtAt[i]; return j < 0 || b.quiet[j] },
	}
	return pkg
}
