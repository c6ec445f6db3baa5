package yamldef

import (
	"encoding/binary"
	"slices"

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
// Validation then changes the op (the ranks an output takes from its
// input, Op.Facts). An op's own checks read the op and its package's
// source path alone (validate.PackageWith hands them nothing else), so an
// op that validation passed with no diagnostic of its own is kept as
// validation left it, under a key of its own (validatedKey), and read back
// so its own checks do not run again (ir.ValidatedOps); the checks across
// ops, and the one that looks at the file system, do. Each key names one
// record's bytes, as the store wants (it appends only the keys it does
// not hold, and a rewrite keeps a key's last value): a model as built and
// one as validated never share a key.

// modelKey is the Vet key of the model of the item of key in file. The
// file is in it: the builder makes an ONNX origin's model path from the
// file's directory, so the same text elsewhere is another model.
func modelKey(file, key string) string { return "model " + file + "\x00" + key }

// validatedKey is the Vet key of the model, as validation left it, of the
// item of key in file.
func validatedKey(file, key string) string { return "validated " + file + "\x00" + key }

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
// op that built with no diagnostic is kept, and not the first item's: a
// load never reads it back (the schema checks it with the package).
type validatedOps struct {
	chunks Chunks
	file   string
	digest string // the package's (setDigests)
	cut    *itemsCut
	// f is the file cut into its items, for building an op again (Keep);
	// nil once Keep has run.
	f *slicedFile
	// By item: the op the load gave, where it came from, its tree's node
	// count, and whether it built with no diagnostic. Ops are answered
	// for by identity (item): a package copied with some of its ops
	// shares this, and asks about its own.
	ops    []*ir.Op
	item   map[*ir.Op]int
	origin []origin
	nodes  []int
	quiet  []bool
}

// origin is where a load took an item's op from.
type origin uint8

const (
	builtHere     origin = iota // built from the item's tree in this load
	readBuilt                   // read back as built
	readValidated               // read back as validation left it
)

// newValidatedOps is pkg's validatedOps, pkg's ops being those the load
// of file (cut into f and there) gave.
func newValidatedOps(chunks Chunks, file string, pkg *ir.Package, f *slicedFile, cut *itemsCut, from []origin, nodes []int, quiet []bool) *validatedOps {
	item := make(map[*ir.Op]int, len(pkg.Ops))
	for i, op := range pkg.Ops {
		item[op] = i
	}
	return &validatedOps{chunks: chunks, file: file, digest: pkg.Digest, cut: cut, f: f, ops: slices.Clone(pkg.Ops), item: item, origin: from, nodes: nodes, quiet: quiet}
}

// Prevalidated implements ir.ValidatedOps.
func (v *validatedOps) Prevalidated(op *ir.Op) bool {
	i, ok := v.item[op]
	return ok && v.origin[i] == readValidated
}

// Keep implements ir.ValidatedOps, once. An op built in this load that
// validation did not pass clean (a warning acknowledged or not) is kept
// as built: validation has changed it, so it is built again from its
// item's text. That happens once: a later load reads it back as built
// and validates it again, and keeps it as validated once it passes clean.
// What is kept already under a key is not encoded again.
func (v *validatedOps) Keep(clean []*ir.Op) {
	f := v.f
	if f == nil {
		return // kept already
	}
	v.f = nil // the file's text is not held for as long as the package
	if v.digest == "" || len(f.chunks) != len(v.ops) {
		return
	}
	passed := make([]bool, len(v.ops))
	for _, op := range clean {
		if i, ok := v.item[op]; ok {
			passed[i] = true
		}
	}
	// Not the first item: a load never reads it back.
	workpool.Parallel(len(v.ops)-1, func(j int) {
		i := j + 1
		op := v.ops[i]
		if v.origin[i] == readValidated || !v.quiet[i] || op.Digest == "" {
			return
		}
		key := validatedKey(v.file, v.cut.keys[i])
		if !passed[i] {
			if v.origin[i] == readBuilt {
				return // kept already
			}
			key = modelKey(v.file, v.cut.keys[i])
		}
		if _, ok := v.chunks.Vetted(key); ok {
			return
		}
		if !passed[i] {
			item, ok := f.parseItem(f.chunks[i])
			if !ok {
				return
			}
			digest := op.Digest // the digest is of the whole tree (setDigests)
			op = (&builder{file: v.file, l: new(diag.List), lines: f.lines}).op(asObject(item))
			op.Digest = digest
		}
		if rec, ok := modelRecord(op, v.file, v.cut.firsts[i], v.cut.lasts[i], v.nodes[i]); ok {
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
	models := make([]*ir.Op, n)
	nodes := make([]int, n)
	from := make([]origin, n)
	// The first item stays in the document, as with vetting: the schema
	// checks it with the package.
	workpool.Parallel(n-1, func(j int) {
		i := j + 1
		digest, ok := chunks.Vetted(keys[i])
		if !ok || digest == "" {
			return
		}
		how := readValidated
		rec, ok := chunks.Vetted(validatedKey(file, keys[i]))
		if !ok {
			how = readBuilt
			if rec, ok = chunks.Vetted(modelKey(file, keys[i])); !ok {
				return
			}
		}
		if op, count, ok := decodeModel(rec, file, f.chunks[i].first+1); ok && op.Digest == digest {
			models[i], nodes[i], from[i] = op, count, how
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
	// f's lines are data's (sliceOps split them once).
	b := &builder{file: file, l: &quiet, lines: f.lines}
	pkg := b.pkg(doc.Content[0])
	if quiet.Len() > 0 || len(pkg.Ops) != len(cut.keys) {
		return nil
	}
	setDigests(doc.Content[0], pkg, vet.known())
	if pkg.Digest == "" {
		return nil
	}
	vet.record(pkg)
	if len(vet.items) != len(pkg.Ops) {
		return nil
	}
	// Each item's op, read back or built here in order, with its tree's
	// node count and verdict.
	quietAt := make([]bool, n)
	built := pkg.Ops
	pkg.Ops = make([]*ir.Op, n)
	next := 0
	for i := range models {
		if models[i] != nil {
			pkg.Ops[i], quietAt[i] = models[i], true
			continue
		}
		pkg.Ops[i], quietAt[i] = built[next], b.quiet[next] // from[i] is builtHere
		nodes[i] = countNodes(vet.items[next])
		next++
	}
	pkg.Validated = newValidatedOps(chunks, file, pkg, f, f.cutOf(keys), from, nodes, quietAt)
	return pkg
}
