package htp

import (
	"bytes"
	"errors"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
)

// configXML is the package's QNN config: qnnxml.Write of pkg with ops.
//
// When gen reuses what unchanged ops made (pkg.Reuse), the config is
// made in parts, so an edit of one op in a package of hundreds writes one
// <OpDef> instead of the whole 2 MB document: each op's <OpDef> element
// is written in a package of that op alone and cut out by its lines (a
// keyed part, render.KeyedTexts), and the rest of the document is written
// with the first op, whose element the joined parts replace. The elements
// sit at the same depth either way, so the indentation is the same.
// Anything unexpected (an error in a part, a document without exactly
// one <OpDef>) writes the whole document instead, which also reports in
// l; the warnings of a config are not reported (Generate), so the parts
// drop theirs. TestConfigXMLInParts holds the parts to the whole.
func configXML(pkg *ir.Package, ops []*ir.Op, l *diag.List) ([]byte, error) {
	write := func(ops []*ir.Op, l *diag.List) ([]byte, error) {
		sub := *pkg
		sub.Ops = ops
		return qnnxml.Write(&sub, l)
	}
	if pkg.Reuse == nil || pkg.Reuse.Sections == nil {
		return write(ops, l)
	}
	var fl diag.List
	frame, err := write(ops[:1], &fl)
	start, end, ok := opDefSpan(frame)
	if err != nil || !ok || fl.HasErrors() {
		return write(ops, l)
	}
	parts, err := render.KeyedTexts(pkg, "htp-config-opdef", ops, func(i int) (string, error) {
		if i == 0 {
			return string(frame[start:end]), nil // the frame is op 0's document
		}
		var pl diag.List
		doc, err := write(ops[i:i+1], &pl)
		start, end, ok := opDefSpan(doc)
		if err != nil || !ok || pl.HasErrors() {
			return "", errWholeConfig
		}
		return string(doc[start:end]), nil
	})
	if err != nil {
		return write(ops, l)
	}
	out := make([]byte, 0, len(frame)-(end-start)+len(parts))
	out = append(out, frame[:start]...)
	out = append(out, parts...)
	return append(out, frame[end:]...), nil
}

// errWholeConfig sends configXML to the whole document.
var errWholeConfig = errors.New("the config is written whole")

// opDefSpan is where the one <OpDef> element of doc lies, from the start
// of its line to the end of the line that closes it; false unless doc has
// exactly one. Element text is escaped, so the tags cannot appear in it.
func opDefSpan(doc []byte) (start, end int, ok bool) {
	openTag, closeTag := []byte("<OpDef>"), []byte("</OpDef>")
	i, j := bytes.Index(doc, openTag), bytes.Index(doc, closeTag)
	if i < 0 || j < i || bytes.Count(doc, openTag) != 1 || bytes.Count(doc, closeTag) != 1 {
		return 0, 0, false
	}
	start = bytes.LastIndexByte(doc[:i], '\n') + 1
	end = j + len(closeTag)
	if end < len(doc) && doc[end] == '\n' {
		end++
	}
	return start, end, true
}
