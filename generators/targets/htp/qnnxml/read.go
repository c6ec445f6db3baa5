package qnnxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/beevik/etree"

	"github.com/opforge/opforge/generators/diag"
)

// maxDepth bounds element nesting; real configs nest 6 deep.
const maxDepth = 64

// maxElements bounds the element count; real configs hold a few hundred.
const maxElements = 200_000

// document is a parsed config: the etree document plus the position of
// every element, found by a second pass with encoding/xml (etree keeps no
// positions). Both passes see start elements in the same document order.
type document struct {
	file string
	doc  *etree.Document
	pos  map[*etree.Element]diag.Pos
	// attrs holds the position of each attribute name, by element.
	attrs map[*etree.Element]map[string]diag.Pos
}

// attrAt is the position of attribute name of e, or e's when unknown.
func (d *document) attrAt(e *etree.Element, name string) diag.Pos {
	if p, ok := d.attrs[e][name]; ok {
		return p
	}
	return d.at(e)
}

func (d *document) at(e *etree.Element) diag.Pos {
	if p, ok := d.pos[e]; ok {
		return p
	}
	return diag.Pos{File: d.file}
}

// parse reads data into a positioned document, or reports why it cannot.
func parse(file string, data []byte, l *diag.List) *document {
	starts, attrs, ok := scanStarts(file, data, l)
	if !ok {
		return nil
	}
	doc := etree.NewDocument()
	doc.ReadSettings.CharsetReader = charsetReader
	if err := doc.ReadFromBytes(data); err != nil {
		l.Errorf(diag.Pos{File: file, Line: 1, Col: 1}, "xml-syntax", "invalid XML: %v", err)
		return nil
	}
	d := &document{file: file, doc: doc, pos: make(map[*etree.Element]diag.Pos, len(starts)), attrs: map[*etree.Element]map[string]diag.Pos{}}
	i := 0
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		if i < len(starts) {
			d.pos[e] = starts[i]
			if attrs[i] != nil {
				d.attrs[e] = attrs[i]
			}
		}
		i++
		for _, c := range e.ChildElements() {
			walk(c)
		}
	}
	if root := doc.Root(); root != nil {
		walk(root)
	}
	return d
}

// charsetReader accepts only UTF-8 (and its ASCII subset); a config that
// declares another encoding is refused rather than mis-read.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	}
	return nil, fmt.Errorf("encoding %q is not supported; save the file as UTF-8", label)
}

// scanStarts records the position of every start element and turns XML
// syntax errors into positioned diagnostics. It also enforces the depth and
// element-count limits before etree builds a tree.
func scanStarts(file string, data []byte, l *diag.List) ([]diag.Pos, []map[string]diag.Pos, bool) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.CharsetReader = charsetReader
	var starts []diag.Pos
	var attrs []map[string]diag.Pos
	lines := newLineIndex(data)
	pos := func(off int64) diag.Pos {
		line, col := lines.at(int(off))
		return diag.Pos{File: file, Line: line, Col: col}
	}
	depth := 0
	for {
		off := dec.InputOffset()
		// Token, unlike RawToken, checks that end tags match and that
		// the document does not end inside an element.
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			p := pos(dec.InputOffset())
			if errors.As(err, &se) {
				p = syntaxPos(file, data, lines, se.Line, dec.InputOffset())
				p = closeTagPos(p, data, lines, se.Msg)
			}
			l.Errorf(p, "xml-syntax", "invalid XML: %s", strings.TrimPrefix(err.Error(), "XML syntax error on line "+strconv.Itoa(p.Line)+": "))
			return nil, nil, false
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxDepth {
				l.Errorf(pos(off), "xml-too-deep", "elements nest more than %d levels deep", maxDepth)
				return nil, nil, false
			}
			if len(starts) >= maxElements {
				l.Errorf(pos(off), "xml-too-large", "more than %d elements; a QNN config never needs that many", maxElements)
				return nil, nil, false
			}
			starts = append(starts, pos(off))
			if name := rawName(data, int(off)); strings.Contains(name, ":") {
				// encoding/xml and etree drop an undeclared prefix and a
				// declared one alike, so <q:OpDef> would pass for <OpDef>;
				// QNN's configs use no namespaces.
				l.Errorf(pos(off), "xml-namespace-element", "element <%s> has a namespace prefix; QNN configs use no namespaces: write <%s>", name, name[strings.LastIndex(name, ":")+1:])
			}
			attrs = append(attrs, attrPositions(file, data, lines, int(off), int(dec.InputOffset()), l))
		case xml.EndElement:
			depth--
		case xml.Directive:
			l.Errorf(pos(off), "xml-doctype", "XML directives such as DOCTYPE are not allowed in QNN configs (they can define entities); remove it")
			return nil, nil, false
		}
	}
	if len(starts) == 0 {
		l.Errorf(diag.Pos{File: file, Line: 1, Col: 1}, "xml-empty", "no XML element found; a QNN config starts with <OpDefCollection>")
		return nil, nil, false
	}
	return starts, attrs, true
}

// attrPositions finds the attribute names of the start tag data[start:end]
// (from '<' to '>', as the decoder just read it) and their positions.
// encoding/xml keeps none, so the tag's raw bytes are scanned: after the
// element name, each attribute is name, optional spaces, '=', spaces and a
// quoted value.
//
// encoding/xml accepts an attribute written twice, of which etree keeps
// one: each repetition is reported in l, at it, naming the first.
func attrPositions(file string, data []byte, lines *lineIndex, start, end int, l *diag.List) map[string]diag.Pos {
	if start < 0 || end > len(data) || start >= end || data[start] != '<' {
		return nil
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i := start + 1
	for i < end && !isSpace(data[i]) && data[i] != '>' && data[i] != '/' {
		i++
	}
	var out map[string]diag.Pos
	for i < end {
		for i < end && isSpace(data[i]) {
			i++
		}
		if i >= end || data[i] == '>' || data[i] == '/' {
			break
		}
		nameStart := i
		for i < end && !isSpace(data[i]) && data[i] != '=' && data[i] != '>' {
			i++
		}
		name := string(data[nameStart:i])
		for i < end && isSpace(data[i]) {
			i++
		}
		if i >= end || data[i] != '=' {
			break
		}
		i++
		for i < end && isSpace(data[i]) {
			i++
		}
		if i >= end || (data[i] != '"' && data[i] != '\'') {
			break
		}
		q := data[i]
		i++
		for i < end && data[i] != q {
			i++
		}
		i++
		if out == nil {
			out = map[string]diag.Pos{}
		}
		line, col := lines.at(nameStart)
		p := diag.Pos{File: file, Line: line, Col: col}
		if first, dup := out[name]; dup {
			l.Errorf(p, "xml-duplicate-attribute", "attribute %s is given twice in <%s> (first at %d:%d); XML allows each attribute once", name, rawName(data, start), first.Line, first.Col)
			continue
		}
		out[name] = p
	}
	return out
}

// rawName is the element name of the start tag at data[start] ('<') as
// written, prefix included.
func rawName(data []byte, start int) string {
	if start < 0 || start >= len(data) || data[start] != '<' {
		return ""
	}
	i := start + 1
	for i < len(data) && !strings.ContainsRune(" \t\r\n/>", rune(data[i])) {
		i++
	}
	return string(data[start+1 : i])
}

var closedByRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`closed by (</[^>\s]+>)`) })

// closeTagPos moves p to the offending end tag a mismatch message names,
// when it is on p's line.
func closeTagPos(p diag.Pos, data []byte, lines *lineIndex, msg string) diag.Pos {
	m := closedByRE().FindStringSubmatch(msg)
	if m == nil || p.Line < 1 || p.Line > len(lines.starts) {
		return p
	}
	start := lines.starts[p.Line-1]
	end := len(data)
	if p.Line < len(lines.starts) {
		end = lines.starts[p.Line]
	}
	if i := bytes.Index(data[start:end], []byte(m[1])); i >= 0 {
		p.Col = 1 + utf8.RuneCount(data[start:start+i])
	}
	return p
}

// syntaxPos places an XML syntax error: encoding/xml gives its line, and
// the decoder's offset is where it stopped reading. The column is that
// offset's when it lies on the reported line; otherwise the first
// non-blank character of the reported line.
func syntaxPos(file string, data []byte, lines *lineIndex, line int, off int64) diag.Pos {
	if line < 1 || line > len(lines.starts) {
		l, c := lines.at(int(off))
		return diag.Pos{File: file, Line: l, Col: c}
	}
	if l, c := lines.at(int(off)); l == line {
		return diag.Pos{File: file, Line: l, Col: c}
	}
	start := lines.starts[line-1]
	i := start
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	_, c := lines.at(i)
	return diag.Pos{File: file, Line: line, Col: c}
}

// lineIndex maps offsets to positions in O(log n), so positioning every
// element of a large file stays linear overall.
type lineIndex struct {
	data   []byte
	starts []int
	// last position computed: offsets are visited in increasing order, so
	// columns on one long line are counted incrementally.
	lastOff, lastLine, lastCol int
}

func newLineIndex(data []byte) *lineIndex {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{data: data, starts: starts}
}

func (x *lineIndex) at(off int) (int, int) {
	off = max(0, min(off, len(x.data)))
	line := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })
	start := x.starts[line-1]
	var col int
	if line == x.lastLine && off >= x.lastOff {
		col = x.lastCol + utf8.RuneCount(x.data[x.lastOff:off])
	} else {
		col = 1 + utf8.RuneCount(x.data[start:off])
	}
	x.lastOff, x.lastLine, x.lastCol = off, line, col
	return line, col
}

// checker validates the element tree against the content models.
type checker struct {
	d *document
	l *diag.List
}

func (c *checker) check(e *etree.Element, modelName string) {
	m := models[modelName]
	c.checkAttrs(e, m)
	c.checkText(e, m)
	kids := e.ChildElements()
	if len(m.children) == 0 {
		for _, k := range kids {
			c.l.Errorf(c.d.at(k), "xml-unexpected-element", "<%s> cannot contain elements; found <%s>", e.Tag, k.Tag)
		}
		return
	}
	if m.anyOrder {
		for _, k := range kids {
			if p := findParticle(m.children, k.Tag); p != nil {
				c.check(k, p.model)
			} else {
				c.l.Errorf(c.d.at(k), "xml-unexpected-element", "unexpected <%s> in <%s>; expected %s", k.Tag, e.Tag, expectedList(m.children))
			}
		}
		return
	}
	i, count := 0, 0
	for _, k := range kids {
		j := indexFrom(m.children, i, k.Tag)
		if j < 0 {
			if findParticle(m.children, k.Tag) != nil {
				c.l.Errorf(c.d.at(k), "xml-element-order", "<%s> is out of order in <%s>; the order is %s", k.Tag, e.Tag, orderList(m.children))
			} else {
				c.l.Errorf(c.d.at(k), "xml-unexpected-element", "unexpected <%s> in <%s>; expected %s", k.Tag, e.Tag, expectedList(m.children[min(i, len(m.children)-1):]))
			}
			continue
		}
		if j == i {
			p := m.children[i]
			if p.max >= 0 && count >= p.max {
				c.l.Errorf(c.d.at(k), "xml-too-many", "<%s> may contain at most %d <%s>", e.Tag, p.max, k.Tag)
				continue
			}
			count++
			c.check(k, p.model)
			continue
		}
		for s := i; s < j; s++ {
			if n := countIf(s == i, count); n < m.children[s].min {
				c.l.Errorf(c.d.at(k), "xml-missing-element", "<%s> is missing <%s> before <%s>", e.Tag, m.children[s].name, k.Tag)
			}
		}
		i, count = j, 1
		c.check(k, m.children[j].model)
	}
	for s := i; s < len(m.children); s++ {
		if n := countIf(s == i, count); n < m.children[s].min {
			c.l.Errorf(c.d.at(e), "xml-missing-element", "<%s> is missing the required <%s>", e.Tag, m.children[s].name)
		}
	}
}

func countIf(current bool, count int) int {
	if current {
		return count
	}
	return 0
}

func indexFrom(ps []particle, from int, tag string) int {
	for j := from; j < len(ps); j++ {
		if ps[j].name == tag {
			return j
		}
	}
	return -1
}

func findParticle(ps []particle, tag string) *particle {
	for i := range ps {
		if ps[i].name == tag {
			return &ps[i]
		}
	}
	return nil
}

func expectedList(ps []particle) string {
	var names []string
	for _, p := range ps {
		names = append(names, "<"+p.name+">")
	}
	return strings.Join(names, ", ")
}

func orderList(ps []particle) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.name)
	}
	return strings.Join(names, " > ")
}

func (c *checker) checkAttrs(e *etree.Element, m *model) {
	for _, a := range m.attrs {
		v := e.SelectAttr(a.name)
		if v == nil {
			if a.required {
				c.l.Errorf(c.d.at(e), "xml-missing-attribute", "<%s> needs the attribute %s", e.Tag, a.name)
			}
			continue
		}
		switch {
		case a.kind == textInt:
			if _, err := strconv.Atoi(strings.TrimSpace(v.Value)); err != nil {
				c.l.Errorf(c.d.attrAt(e, a.name), "xml-attribute-value", "attribute %s of <%s> must be an integer, found %q", a.name, e.Tag, v.Value)
			}
		case a.kind == textBool && v.Value != "true" && v.Value != "false":
			c.l.Errorf(c.d.attrAt(e, a.name), "xml-attribute-value", "attribute %s of <%s> must be true or false, found %q", a.name, e.Tag, v.Value)
		case a.kind == textEnum && !contains(constraintTypes, v.Value):
			c.l.Errorf(c.d.attrAt(e, a.name), "xml-attribute-value", "attribute %s of <%s> must be one of %s, found %q", a.name, e.Tag, strings.Join(constraintTypes, ", "), v.Value)
		}
	}
	for _, a := range e.Attr {
		if a.Space == "xmlns" || (a.Space == "" && a.Key == "xmlns") || a.Space == "xsi" {
			continue
		}
		known := false
		for _, ma := range m.attrs {
			known = known || ma.name == a.Key
		}
		if !known {
			c.l.Errorf(c.d.attrAt(e, attrName(a)), "xml-unknown-attribute", "<%s> has no attribute %s", e.Tag, a.Key)
		}
	}
}

func (c *checker) checkText(e *etree.Element, m *model) {
	text := strings.TrimSpace(directText(e))
	switch m.text {
	case textNone:
		if text != "" {
			c.l.Errorf(c.d.at(e), "xml-unexpected-text", "<%s> holds elements only; found text %q", e.Tag, clip(text))
		}
	case textBool:
		switch text {
		case "true", "false":
		case "1", "0":
			c.l.Warnf(c.d.at(e), "qnn-bool-literal", "<%s>%s</%s>: the QNN generator counts only the literal `true` as true; write true or false", e.Tag, text, e.Tag)
		default:
			c.l.Errorf(c.d.at(e), "xml-value", "<%s> must be true or false, found %q", e.Tag, clip(text))
		}
	case textInt:
		if _, err := strconv.ParseInt(text, 10, 64); err != nil {
			c.l.Errorf(c.d.at(e), "xml-value", "<%s> must be an integer, found %q", e.Tag, clip(text))
		}
	case textFloat:
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			c.l.Errorf(c.d.at(e), "xml-value", "<%s> must be a number, found %q", e.Tag, clip(text))
		}
	case textEnum:
		if contains(m.enum, text) {
			return
		}
		if e.Tag == "Datatype" && contains(nativeDatatypes, text) {
			c.l.Errorf(c.d.at(e), "qnn-native-datatype", "QNN op definitions do not support native datatypes; write QNN_DATATYPE_%s", text)
			return
		}
		c.l.Errorf(c.d.at(e), "xml-enum", "<%s> must be one of %s; found %q%s", e.Tag, strings.Join(m.enum, ", "), clip(text), enumHint(e.Tag, text))
	}
}

func enumHint(tag, text string) string {
	switch {
	case tag == "Rank" && text != "" && !strings.HasSuffix(text, "D"):
		return fmt.Sprintf(" (write %sD)", text)
	case tag == "Layout" && (text == "NCHW" || text == "NCDHW"):
		return "; QNN has no channels-first layout: use NHWC/NDHWC or UNDEFINED"
	}
	return ""
}

func directText(e *etree.Element) string {
	var sb strings.Builder
	for _, t := range e.Child {
		if cd, ok := t.(*etree.CharData); ok {
			sb.WriteString(cd.Data)
		}
	}
	return sb.String()
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// attrName is an attribute's name as written (prefix:local).
func attrName(a etree.Attr) string {
	if a.Space != "" {
		return a.Space + ":" + a.Key
	}
	return a.Key
}
