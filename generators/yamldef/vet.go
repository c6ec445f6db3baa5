package yamldef

import (
	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// vetting is what Chunks remembers of a sliced file's items besides their
// trees: which ones this generator converted and schema-checked before
// without a diagnostic, and their digests. Those verdicts are functions
// of the item's tree alone (convert and the op subschema look at one item;
// an item's digest leaves positions out; the sliced items hold no alias),
// and the tree is a function of the item's text, which its key hashes.
// So a vetted item is neither converted, nor checked, nor hashed again.
type vetting struct {
	chunks  Chunks
	keys    []string     // each item's ChunkKey
	digests []string     // each vetted item's digest ("": not vetted)
	items   []*yaml.Node // the trees of the items
	skipped int          // how many items are vetted
}

// newVetting looks up the items of doc's ops list, which lie where cut
// says (nil: the list is not the file's cut, and nothing is vetted).
func newVetting(doc *yaml.Node, cut *itemsCut, chunks Chunks) *vetting {
	if chunks == nil || cut == nil {
		return nil
	}
	keys := cut.keys
	v := &vetting{chunks: chunks, keys: keys, digests: make([]string, len(keys))}
	if root := doc.Content[0]; opsIndex(root) >= 0 {
		v.items = root.Content[opsIndex(root)].Content
	}
	// The first item stays in the document: the whole schema checks it
	// with the package (splitOps).
	for i := 1; i < len(keys); i++ {
		if d, ok := chunks.Vetted(keys[i]); ok && d != "" {
			v.digests[i] = d
			v.skipped++
		}
	}
	return v
}

// withoutVetted is doc with the vetted items left out of its ops list
// (nil when none is vetted), and how many nodes they hold. It copies only
// the document, root and list nodes: the items are doc's.
func (v *vetting) withoutVetted(doc *yaml.Node) (*yaml.Node, int) {
	if v == nil || v.skipped == 0 {
		return nil, 0
	}
	root := doc.Content[0]
	at := opsIndex(root)
	if at < 0 || len(root.Content[at].Content) != len(v.keys) {
		return nil, 0
	}
	list := *root.Content[at]
	list.Content = make([]*yaml.Node, 0, len(v.keys)-v.skipped)
	nodes := 0
	for i, item := range root.Content[at].Content {
		if v.digests[i] == "" {
			list.Content = append(list.Content, item)
		} else {
			nodes += countNodes(item)
		}
	}
	r := *root
	r.Content = append([]*yaml.Node(nil), root.Content...)
	r.Content[at] = &list
	d := *doc
	d.Content = []*yaml.Node{&r}
	return &d, nodes
}

// opsIndex is the index in root's Content of its ops list's value (-1:
// none).
func opsIndex(root *yaml.Node) int {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "ops" && root.Content[i+1].Kind == yaml.SequenceNode {
			return i + 1
		}
	}
	return -1
}

// record vets every item not vetted yet, with the digest the loader gave
// its op, once the whole document converted and met the schema with no
// diagnostic. The ops' models are kept once validation has run
// (validatedOps.Keep).
func (v *vetting) record(pkg *ir.Package) {
	if v == nil || pkg.Digest == "" || len(pkg.Ops) != len(v.keys) {
		return
	}
	for i, op := range pkg.Ops {
		if op.Digest != "" && v.digests[i] == "" {
			v.chunks.Vet(v.keys[i], op.Digest)
		}
	}
}

// known is each item's digest as vetted ("": to be computed).
func (v *vetting) known() []string {
	if v == nil {
		return nil
	}
	return v.digests
}

// checkStructure converts doc and checks it against the schema, as
// LoadWith always has; with vetted items it first tries the document
// without them, and takes that verdict only when it is clean. left is
// how many nodes items left out of doc hold (loadPrebuilt), which count
// toward the document's bound. Any
// diagnostic there, and the whole document is checked as before, so what
// a user sees never depends on the store. clean reports that no
// diagnostic was added.
func checkStructure(file string, doc *yaml.Node, v *vetting, left int, l *diag.List) (ok, clean bool) {
	if reduced, nodes := v.withoutVetted(doc); reduced != nil {
		var quiet diag.List
		t := &tree{file: file, l: &quiet, doc: reduced, count: nodes + left}
		value := t.convert(reduced, 0)
		if !t.fatal && quiet.Len() == 0 && t.validateStructure(value) && quiet.Len() == 0 {
			return true, true
		}
	}
	before := l.Len()
	t := &tree{file: file, l: l, doc: doc, count: left}
	value := t.convert(doc, 0)
	if t.fatal || l.HasErrorsSince(before) {
		return false, false
	}
	if !t.validateStructure(value) {
		return false, false
	}
	return true, l.Len() == before
}
