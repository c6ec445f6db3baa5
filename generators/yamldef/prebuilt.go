package yamldef

import (
	"encoding/binary"
	"strings"

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

// modelKey is the Vet key of the model of the item of key in file. The
// file is in it: the builder makes an ONNX origin's model path from the
// file's directory, so the same text elsewhere is another model.
func modelKey(file, key string) string { return "model " + file + "\x00" + key }

// hasModel reports whether chunks keeps a model for the item of key in
// file.
func hasModel(chunks Chunks, file, key string) bool {
	_, ok := chunks.Vetted(modelKey(file, key))
	return ok
}

// keepModels keeps the models of pkg's ops at idx, which are built from
// the items of file where cut says, with the nodes of each item's tree
// (for the structure check's bound on a document's nodes).
func keepModels(chunks Chunks, file string, pkg *ir.Package, idx []int, cut *itemsCut, nodes func(i int) int) {
	workpool.Parallel(len(idx), func(j int) {
		i := idx[j]
		data, ok := ircodec.Encode(pkg.Ops[i], file, cut.firsts[i], cut.lasts[i])
		if !ok {
			return
		}
		rec := binary.AppendUvarint(make([]byte, 0, len(data)+4), uint64(nodes(i)))
		chunks.Vet(modelKey(file, cut.keys[i]), string(append(rec, data...)))
	})
}

// decodeModel reads a record keepModels wrote for an item now at line
// first of file: its op and its tree's node count.
func decodeModel(rec, file string, first int) (*ir.Op, int, bool) {
	nodes, n := binary.Uvarint([]byte(rec[:min(len(rec), binary.MaxVarintLen64)]))
	if n <= 0 || nodes > 1<<30 {
		return nil, 0, false
	}
	op, ok := ircodec.Decode(rec[n:], file, first)
	return op, int(nodes), ok
}

// loadPrebuilt is LoadWith for a file whose ops, but for a few, have
// models in chunks: those ops are left out of the document that is parsed,
// checked and built, and their models join the package in their places.
// data is cut into f with keys (cutItems). It returns nil, having
// reported nothing, where it cannot give what the whole load gives: no op
// has a model, or anything left to parse, check or build has a diagnostic
// (the whole load then runs and reports it).
func loadPrebuilt(file string, data []byte, f *slicedFile, keys []string, chunks Chunks) *ir.Package {
	if len(f.chunks) < 2 {
		return nil
	}
	n := len(f.chunks)
	models := make([]*ir.Op, n)
	nodes := make([]int, n)
	// The first item stays in the document, as with vetting: the schema
	// checks it with the package.
	workpool.Parallel(n-1, func(j int) {
		i := j + 1
		digest, ok := chunks.Vetted(keys[i])
		if !ok || digest == "" {
			return
		}
		rec, ok := chunks.Vetted(modelKey(file, keys[i]))
		if !ok {
			return
		}
		if op, count, ok := decodeModel(rec, file, f.chunks[i].first+1); ok && op.Digest == digest {
			models[i], nodes[i] = op, count
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
	vet.record(file, pkg, b.quiet)
	built := pkg.Ops
	pkg.Ops = make([]*ir.Op, n)
	for i := range models {
		if models[i] != nil {
			pkg.Ops[i] = models[i]
			continue
		}
		pkg.Ops[i], built = built[0], built[1:]
	}
	return pkg
}
