package yamldef

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/binrec"
	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/workpool"
)

// Chunks keeps the parsed items of opdef files' ops lists, by a hash of
// each item's text (ChunkKey), so that a file with one op changed is
// parsed one op at a time (ParseSliced). Its records are content
// addressed: a record is never stale, only unused. A load calls it from
// several goroutines at once.
type Chunks interface {
	// Chunk returns the tree kept under key (encodeItem's bytes), which
	// must not change while the tree is used.
	Chunk(key string) (string, bool)
	// Keep keeps an item's tree under key for later gens.
	Keep(key string, tree []byte)
	// Vetted returns the digest Vet kept for the item of key, when this
	// generator vetted it.
	Vetted(key string) (digest string, ok bool)
	// Vet keeps that the item of key converts and meets the schema alone
	// with no diagnostic, and that its digest (ir.Op.Digest) is digest.
	// Both are the generator's verdicts, not the text's: the store must
	// scope the record to the generator that made it (the binary, whose
	// schema and checks these are).
	Vet(key, digest string)
}

// opsChunk is one item of a file's ops list as its text lies: its lines
// [first, end) (0-based), which start with the item's "-" at indent, and
// their text.
type opsChunk struct {
	first, end int
	text       string
}

// slicedFile is an opdef file cut into its package part and the items of
// its ops list, by text alone (sliceOps).
type slicedFile struct {
	lines  []string
	opsAt  int // the "ops:" line (0-based)
	indent int // the items' "-" column (0-based)
	chunks []opsChunk
}

// sliceOps cuts data into the items of its top-level ops list, or reports
// false where the text alone cannot promise that each item parses as
// itself: the cut must fall where YAML's own item boundaries fall and
// leave nothing that ties one item to another. So the file must have one
// plain "ops:" line at the top level with a block list under it, no
// document markers, directives or tab indentation, and no comment line
// between items, before the first, after the last, or at the end of an
// item, and no item holding only a comment (yaml.v3 may give such a
// comment to a neighbour). Quotes, flows
// and block scalars need no rule here: an item whose text does not close
// them fails its own parse (ParseSliced then parses the whole file), and
// one that does ends at the next line at its indent.
func sliceOps(data []byte) (*slicedFile, bool) {
	s := string(data)
	// yaml.v3 also breaks lines at NEL, LS and PS, which a cut at "\n"
	// would not count. (One search each: ContainsAny of a non-ASCII set
	// decodes every rune of the file.)
	for _, bad := range []string{"\t", "\r", "\u0085", "\u2028", "\u2029"} {
		if strings.Contains(s, bad) {
			return nil, false
		}
	}
	f := &slicedFile{lines: strings.Split(s, "\n"), opsAt: -1, indent: -1}
	for i, ln := range f.lines {
		if strings.HasPrefix(ln, "---") || strings.HasPrefix(ln, "...") || strings.HasPrefix(ln, "%") {
			return nil, false
		}
		if strings.TrimRight(ln, " ") == "ops:" {
			if f.opsAt >= 0 {
				return nil, false
			}
			f.opsAt = i
		}
	}
	if f.opsAt < 0 {
		return nil, false
	}
	open := -1             // the chunk being read
	pending := false       // a comment line not yet followed by the item's content
	suffix := len(f.lines) // where the lines after the list start
cut:
	for i := f.opsAt + 1; i < len(f.lines); i++ {
		ln := f.lines[i]
		trimmed := strings.TrimLeft(ln, " ")
		if trimmed == "" {
			continue
		}
		ind := len(ln) - len(trimmed)
		if f.indent < 0 {
			if !isItem(trimmed) {
				return nil, false // a comment, or no block list
			}
			f.indent = ind
		}
		switch {
		case ind == f.indent && isItem(trimmed):
			if pending {
				return nil, false
			}
			if open >= 0 {
				f.chunks[open].end = i
			}
			f.chunks = append(f.chunks, opsChunk{first: i})
			open = len(f.chunks) - 1
			// An item line holding only a comment ("- # TODO") is
			// pending as a comment line is: with nothing after it in the
			// item, yaml.v3 gives the comment to the next item.
			pending = strings.HasPrefix(strings.TrimLeft(trimmed[1:], " "), "#")
		case ind > f.indent:
			pending = strings.HasPrefix(trimmed, "#")
		default:
			suffix = i
			break cut
		}
	}
	if pending || len(f.chunks) == 0 {
		return nil, false
	}
	f.chunks[open].end = suffix
	for _, ln := range f.lines[suffix:] {
		if strings.HasPrefix(strings.TrimLeft(ln, " "), "#") {
			return nil, false
		}
	}
	// An item's text ends with the newline that ends its last line, where
	// one does: a block scalar's last line break depends on it. It is a
	// slice of s: the lines are too, one after another.
	start := make([]int, len(f.lines)+1)
	for i, ln := range f.lines {
		start[i+1] = start[i] + len(ln) + 1
	}
	for i := range f.chunks {
		c := &f.chunks[i]
		c.text = s[start[c.first]:min(start[c.end], len(s))]
	}
	return f, true
}

// yamlVersion is the version of yaml.v3 this binary was built with (""
// where the build does not say, as in tests): another parser may give the
// same text another tree.
var yamlVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "go.yaml.in/yaml/v3" {
				return m.Version + " " + m.Sum
			}
		}
	}
	return ""
})

// ChunkKey is the key of an item's text in Chunks. It names the
// encoding too: a store keeps a key's first record, so a new encoding
// needs new keys.
func ChunkKey(text string) string {
	h := sha256.Sum256([]byte(itemMagic + yamlVersion() + "\x00" + text))
	return hex.EncodeToString(h[:16])
}

// ParseSliced is Parse for a file whose ops list is kept in chunks: the
// items whose text chunks holds are taken from it, the others are parsed
// each alone, at its own lines, and the rest of the file is parsed with
// the items left out; then the list is put together. Every item it
// parsed is kept in chunks. The tree is the one Parse gives, positions
// and comments included (TestParseSlicedIsParse, FuzzParseSliced); where
// the file cannot be cut so (sliceOps) or a part does not parse cleanly
// on its own, it parses the whole file with Parse, whose diagnostics then
// stand, and keeps its items.
func ParseSliced(file string, data []byte, chunks Chunks, l *diag.List) (*yaml.Node, bool) {
	f, keys := cutItems(data)
	doc, _, ok := parseSliced(file, data, f, keys, chunks, l)
	return doc, ok
}

// cutItems cuts data into its ops list's items (sliceOps) and keys them;
// nil when the text cannot be cut.
func cutItems(data []byte) (*slicedFile, []string) {
	f, ok := sliceOps(data)
	if !ok {
		return nil, nil
	}
	return f, f.keys()
}

// itemsCut is where a file's ops list was cut: each item's ChunkKey and
// first and last lines (1-based).
type itemsCut struct {
	keys          []string
	firsts, lasts []int
}

// cutOf is f's itemsCut, its keys being keys.
func (f *slicedFile) cutOf(keys []string) *itemsCut {
	c := &itemsCut{keys: keys, firsts: make([]int, len(f.chunks)), lasts: make([]int, len(f.chunks))}
	for i, ch := range f.chunks {
		c.firsts[i], c.lasts[i] = ch.first+1, ch.end
	}
	return c
}

// parseSliced is ParseSliced of data cut into f with keys (cutItems; nil
// f: it did not cut) that also returns where the file was cut, when the
// tree's ops list is the items f was cut into (nil otherwise).
func parseSliced(file string, data []byte, f *slicedFile, keys []string, chunks Chunks, l *diag.List) (*yaml.Node, *itemsCut, bool) {
	if f == nil {
		doc, ok := Parse(file, data, l)
		return doc, nil, ok
	}
	if doc, ok := f.parse(chunks, keys, nil); ok {
		return doc, f.cutOf(keys), true
	}
	doc, ok := Parse(file, data, l)
	if ok && f.keepItems(doc, chunks, keys) {
		return doc, f.cutOf(keys), true
	}
	return doc, nil, ok
}

// keys are the ChunkKeys of f's items.
func (f *slicedFile) keys() []string {
	keys := make([]string, len(f.chunks))
	workpool.Parallel(len(f.chunks), func(i int) { keys[i] = ChunkKey(f.chunks[i].text) })
	return keys
}

// parse puts f's tree together from chunks and parts parsed alone; false
// when a part does not parse cleanly alone. With leave, the items it
// marks are left out of the tree's list (the first item never is).
func (f *slicedFile) parse(chunks Chunks, keys []string, leave []bool) (*yaml.Node, bool) {
	items := make([]*yaml.Node, len(f.chunks))
	fresh := make([]bool, len(f.chunks))
	left := func(i int) bool { return leave != nil && i > 0 && leave[i] }
	workpool.Parallel(len(f.chunks), func(i int) {
		if left(i) {
			return
		}
		if tree, ok := chunks.Chunk(keys[i]); ok {
			if item, ok := decodeItem(tree, f.chunks[i].first+1); ok {
				items[i] = item
			}
		}
	})
	var missing []int
	for i, item := range items {
		if item == nil && !left(i) {
			missing = append(missing, i)
		}
	}
	// The rest of the file first: where it reaches into the list, no item
	// is parsed alone.
	doc, at, ok := f.packagePart()
	if !ok {
		return nil, false
	}
	// Items alone parse on every core, where the whole file parses on one:
	// a file of new items (a cold gen) is parsed this way too, in runs of
	// neighbours (a parser's start and its token queue's growth, per
	// item, cost a thousand-op file 15 MB). The first run that does not
	// parse cleanly alone (a comment, an alias of another item's anchor)
	// stops the others; the whole file is parsed then.
	runs := itemRuns(missing, max(1, len(missing)/(4*runtime.GOMAXPROCS(0))))
	var failed atomic.Bool
	workpool.Parallel(len(runs), func(r int) {
		if failed.Load() {
			return
		}
		run := runs[r]
		nodes, ok := f.parseItems(f.chunks[run[0] : run[len(run)-1]+1])
		if !ok {
			failed.Store(true)
			return
		}
		for k, i := range run {
			items[i], fresh[i] = nodes[k], true
		}
	})
	if failed.Load() {
		return nil, false
	}
	keepFresh(chunks, keys, f.chunks, items, fresh)
	if leave != nil {
		items = slices.DeleteFunc(items, func(n *yaml.Node) bool { return n == nil })
	}
	doc.Content[0].Content[at] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: f.chunks[0].first + 1, Column: f.indent + 1, Content: items}
	return doc, true
}

// packagePart parses the file with every item's lines blanked, so lines
// keep their numbers and the list reads as empty: the tree of everything
// but the items, and the index in the root mapping of the list's value
// (a plain null there). false when that is not what it gives: the rest of
// the file then reaches into the list, or the root is a flow mapping,
// which cannot hold a block list.
func (f *slicedFile) packagePart() (doc *yaml.Node, at int, ok bool) {
	blank := make([]string, len(f.lines))
	copy(blank, f.lines)
	for _, c := range f.chunks {
		for i := c.first; i < c.end; i++ {
			blank[i] = ""
		}
	}
	var discard diag.List
	doc, ok = Parse("", []byte(strings.Join(blank, "\n")), &discard)
	if !ok || !plain(doc) {
		return nil, 0, false
	}
	root := doc.Content[0]
	if root.Style&yaml.FlowStyle != 0 {
		return nil, 0, false
	}
	at = -1
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == "ops" && k.Kind == yaml.ScalarNode {
			if k.Line != f.opsAt+1 || at >= 0 {
				return nil, 0, false
			}
			at = i + 1
		}
	}
	if at < 0 {
		return nil, 0, false
	}
	v := root.Content[at]
	if v.Kind != yaml.ScalarNode || v.Tag != "!!null" || v.Value != "" || hasComments(v) {
		return nil, 0, false
	}
	return doc, at, true
}

// parseItem parses one item alone, under a bare "ops:", and moves it to
// its lines (yaml.v3's positions are offsets: nothing before an item
// changes how it parses). It must come out as one plain item.
func (f *slicedFile) parseItem(c opsChunk) (*yaml.Node, bool) {
	items, ok := f.parseItems([]opsChunk{c})
	if !ok {
		return nil, false
	}
	return items[0], true
}

// parseItems is parseItem of a run of neighbouring items (cs, each ending
// where the next starts), parsed together: the run's text as the list of
// a file of its own.
func (f *slicedFile) parseItems(cs []opsChunk) ([]*yaml.Node, bool) {
	size := len("ops:\n")
	for k, c := range cs {
		if k > 0 && cs[k-1].end != c.first {
			return nil, false
		}
		size += len(c.text)
	}
	text := make([]byte, 0, size)
	text = append(text, "ops:\n"...)
	for _, c := range cs {
		text = append(text, c.text...)
	}
	var discard diag.List
	doc, ok := Parse("", text, &discard)
	if !ok || !plain(doc) {
		return nil, false
	}
	// A comment the run's document or list holds (yaml.v3 gives the
	// document a comment that ends the file, "- #0") lies elsewhere in
	// the whole file's tree.
	root := doc.Content[0]
	if len(root.Content) != 2 || root.Content[1].Kind != yaml.SequenceNode || len(root.Content[1].Content) != len(cs) || hasComments(root.Content[1]) || hasComments(root) || hasComments(doc) {
		return nil, false
	}
	items := root.Content[1].Content
	for k, item := range items {
		if item.Line != 2+cs[k].first-cs[0].first {
			return nil, false
		}
	}
	for _, item := range items {
		shiftLines(item, cs[0].first+1-2)
	}
	return items, true
}

// itemRuns cuts the ascending indexes into runs of neighbours (i, i+1,
// ...) of at most size each.
func itemRuns(indexes []int, size int) [][]int {
	var runs [][]int
	for start := 0; start < len(indexes); {
		end := start + 1
		for end < len(indexes) && end-start < size && indexes[end] == indexes[end-1]+1 {
			end++
		}
		runs = append(runs, indexes[start:end])
		start = end
	}
	return runs
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// keepItems keeps the items of a whole file's tree, when they lie where f
// cut them (and reports whether they do).
func (f *slicedFile) keepItems(doc *yaml.Node, chunks Chunks, keys []string) bool {
	if !plain(doc) {
		return false
	}
	// Only when the rest of the file parses as it does blanked: then no
	// line outside an item's text (a quote or a flow continued at column
	// 0) belongs to an item, and each item is its text's alone.
	part, at, ok := f.packagePart()
	if !ok || len(doc.Content[0].Content) != len(part.Content[0].Content) {
		return false
	}
	list := doc.Content[0].Content[at]
	part.Content[0].Content[at] = list
	if !sameTree(part, doc) || list.Kind != yaml.SequenceNode || len(list.Content) != len(f.chunks) {
		return false
	}
	for j, c := range f.chunks {
		if list.Content[j].Line != c.first+1 {
			return false
		}
	}
	keepFresh(chunks, keys, f.chunks, list.Content, nil)
	return true
}

// keepFresh keeps the trees of the items fresh marks (nil: all) under
// their keys, encoded on every core.
func keepFresh(chunks Chunks, keys []string, cut []opsChunk, items []*yaml.Node, fresh []bool) {
	workpool.Parallel(len(cut), func(i int) {
		if fresh == nil || fresh[i] {
			chunks.Keep(keys[i], encodeItem(items[i], cut[i].first+1))
		}
	})
}

// sameTree reports whether two trees are equal in every field a parse
// sets (the list's nodes are compared by pointer first: the same node).
func sameTree(a, b *yaml.Node) bool {
	if a == b {
		return true
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !sameTree(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// plain reports whether a tree has no anchor and no alias: those tie one
// part of a file to another, so such a file is parsed whole.
func plain(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return false
	}
	for _, c := range n.Content {
		if !plain(c) {
			return false
		}
	}
	return true
}

func hasComments(n *yaml.Node) bool {
	return n.HeadComment != "" || n.LineComment != "" || n.FootComment != ""
}

// itemMagic starts an encoded item; it changes with the encoding.
const itemMagic = "yamlitem2\x00"

// tagCodes are the tags yaml.v3 resolves most, written as one byte (the
// others as 0 and the text).
var tagCodes = []string{"", "!!str", "!!map", "!!seq", "!!int", "!!float", "!!bool", "!!null"}

// encodeItem writes the tree of an item that starts at line first,
// lines relative to it: its node count, then each node depth first.
// Anchors and aliases are never kept (plain).
func encodeItem(n *yaml.Node, first int) []byte {
	b := append([]byte(nil), itemMagic...)
	b = binary.AppendUvarint(b, uint64(countNodes(n)))
	return appendNode(b, n, first)
}

func countNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

func appendNode(b []byte, n *yaml.Node, first int) []byte {
	b = append(b, byte(n.Kind), byte(n.Style))
	if code := slices.Index(tagCodes, n.Tag); code > 0 {
		b = append(b, byte(code))
	} else {
		b = binrec.AppendString(append(b, 0), n.Tag)
	}
	for _, s := range []string{n.Value, n.HeadComment, n.LineComment, n.FootComment} {
		b = binrec.AppendString(b, s)
	}
	b = binary.AppendVarint(b, int64(n.Line-first))
	b = binary.AppendUvarint(b, uint64(n.Column))
	b = binary.AppendUvarint(b, uint64(len(n.Content)))
	for _, c := range n.Content {
		b = appendNode(b, c, first)
	}
	return b
}

// decodeItem reads what encodeItem wrote, for an item that now starts at
// line first; false when it is not that. Its strings are views of data,
// which must not change; its nodes are allocated at once, so a thousand
// kept items cost a few milliseconds, not a parse.
func decodeItem(data string, first int) (*yaml.Node, bool) {
	if !strings.HasPrefix(data, itemMagic) {
		return nil, false
	}
	r := &itemReader{s: data, i: len(itemMagic)}
	count := r.uvarint()
	// Every node takes at least 9 bytes, which bounds count before it is
	// allocated.
	if r.bad || count == 0 || count > uint64(len(data))/9 {
		return nil, false
	}
	d := itemDecoder{r: r, first: first, nodes: make([]yaml.Node, count), refs: make([]*yaml.Node, count-1)}
	root := d.node(0)
	return root, root != nil && !r.bad && r.i == len(data) && d.used == len(d.nodes) && d.referred == len(d.refs)
}

type itemDecoder struct {
	r        *itemReader
	first    int
	nodes    []yaml.Node
	refs     []*yaml.Node // every Content, one after another
	used     int          // nodes taken
	referred int          // refs taken
}

func (d *itemDecoder) node(depth int) *yaml.Node {
	r := d.r
	if depth > maxDepth+2 || d.used == len(d.nodes) {
		r.bad = true
		return nil
	}
	n := &d.nodes[d.used]
	d.used++
	n.Kind, n.Style = yaml.Kind(r.byte()), yaml.Style(r.byte())
	if code := int(r.byte()); code > 0 && code < len(tagCodes) {
		n.Tag = tagCodes[code]
	} else if code == 0 {
		n.Tag = r.str()
	} else {
		r.bad = true
	}
	n.Value, n.HeadComment, n.LineComment, n.FootComment = r.str(), r.str(), r.str(), r.str()
	n.Line = d.first + int(r.varint())
	n.Column = int(r.uvarint())
	k := r.uvarint()
	if r.bad || k > uint64(len(d.refs)-d.referred) {
		r.bad = true
		return nil
	}
	if k > 0 {
		at := d.referred
		d.referred += int(k)
		// A full slice: an append to one node's Content must not write
		// into the next one's.
		n.Content = d.refs[at:d.referred:d.referred]
		for i := range n.Content {
			if n.Content[i] = d.node(depth + 1); n.Content[i] == nil {
				return nil
			}
		}
	}
	return n
}

// itemReader reads encodeItem's numbers and strings from a string; once
// it runs out or meets a malformed number it is bad and reads zeros.
type itemReader struct {
	s   string
	i   int
	bad bool
}

func (r *itemReader) byte() byte {
	if r.bad || r.i >= len(r.s) {
		r.bad = true
		return 0
	}
	r.i++
	return r.s[r.i-1]
}

func (r *itemReader) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b := r.byte()
		if r.bad {
			return 0
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	r.bad = true
	return 0
}

func (r *itemReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *itemReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)-r.i) {
		r.bad = true
		return ""
	}
	r.i += int(n)
	return r.s[r.i-int(n) : r.i]
}
