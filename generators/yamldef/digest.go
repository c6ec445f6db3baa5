package yamldef

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/workpool"
)

// digestBudget bounds the nodes one digest visits: aliases are followed,
// so a document of nested aliases could otherwise make it walk far more
// nodes than the file has. Past it the definition gets no digest, which
// only costs the gen cache its reuse.
const digestBudget = 1 << 20

// setDigests fills pkg.Digest and each op's Digest from the document's
// root mapping (ir.Package.Digest). An op's digest hashes its item of the
// ops sequence; the package's, everything else: every other key of the
// root and the ops key itself, but none of its items. Kinds, resolved
// tags, values, styles and comments count; lines and columns do not, so an
// op moved down by an edit above it keeps its digest. Aliases are
// followed, so an op that reads another's anchor changes with it.
//
// known, when set, holds digests kept for items (Chunks.Vet), which are
// not computed again ("": compute).
func setDigests(root *yaml.Node, pkg *ir.Package, known []string) {
	root = resolve(root)
	if root == nil || root.Kind != yaml.MappingNode {
		return
	}
	var items []*yaml.Node
	d := newDigester()
	d.fields(root) // its size counts the ops key, which every opdef has
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		d.node(k)
		if resolve(k).Value == "ops" && v != nil && v.Kind == yaml.SequenceNode && items == nil {
			// The sequence itself, not its items or their number: adding
			// or removing an op leaves the package's digest alone.
			d.fields(v)
			items = v.Content
			continue
		}
		d.node(root.Content[i+1])
	}
	sum, ok := d.sum()
	if !ok || len(items) != len(pkg.Ops) {
		return
	}
	digests := make([]string, len(items))
	failed := make([]bool, len(items))
	if len(known) != len(items) {
		known = nil
	}
	workpool.Parallel(len(items), func(i int) {
		if known != nil && known[i] != "" {
			digests[i] = known[i]
			return
		}
		d := newDigester()
		d.node(items[i])
		var good bool
		digests[i], good = d.sum()
		failed[i] = !good
	})
	if slices.Contains(failed, true) {
		return
	}
	pkg.Digest = sum
	for i, op := range pkg.Ops {
		op.Digest = digests[i]
	}
}

type digester struct {
	h      hash.Hash
	left   int // nodes the budget still allows
	buf    []byte
	failed bool
}

func newDigester() *digester { return &digester{h: sha256.New(), left: digestBudget} }

func (d *digester) sum() (string, bool) {
	if d.failed {
		return "", false
	}
	d.flush()
	return hex.EncodeToString(d.h.Sum(nil)[:16]), true
}

func (d *digester) flush() {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}

func (d *digester) str(s string) {
	d.buf = binary.AppendUvarint(d.buf, uint64(len(s)))
	d.buf = append(d.buf, s...)
	if len(d.buf) > 32<<10 {
		d.flush()
	}
}

// head writes what n is apart from its children, and how many it has.
func (d *digester) head(n *yaml.Node) {
	d.fields(n)
	d.buf = binary.AppendUvarint(d.buf, uint64(len(n.Content)))
}

// fields writes n's kind, style, tag, value and comments.
func (d *digester) fields(n *yaml.Node) {
	d.buf = append(d.buf, byte(n.Kind), byte(n.Style))
	d.str(n.ShortTag())
	d.str(n.Value)
	d.str(n.HeadComment)
	d.str(n.LineComment)
	d.str(n.FootComment)
}

// node writes n and everything below it, aliases followed.
func (d *digester) node(n *yaml.Node) {
	if d.failed || n == nil {
		return
	}
	if d.left--; d.left < 0 {
		d.failed = true
		return
	}
	if n.Kind == yaml.AliasNode {
		d.buf = append(d.buf, 'A')
		d.node(n.Alias)
		return
	}
	d.head(n)
	for _, c := range n.Content {
		d.node(c)
	}
}
