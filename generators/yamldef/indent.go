package yamldef

import (
	"strings"
)

// The indentation scan: a small reading of block-structured YAML, line by
// line, that keeps the open blocks (their columns and the last key or
// item at each) and stops at the first line that does not fit them. It is
// not a second parser: flow collections, quoted and block scalars and
// plain scalar continuations are skipped, and a line that fits is never
// looked at again. What it returns names the fix (the column the line
// should start at and the key it should line up with), which the YAML
// parser's own message ("did not find expected key") does not.

// level is one open block: its indentation, whether it holds mapping keys
// or sequence entries, and the last key or "-" written at it (for a
// sequence opened under a key, that key until its first item).
type level struct {
	ind  int
	seq  bool
	last string // the last key of a mapping ("" for a sequence)
	line int    // the 1-based line of that key or "-"
}

// The scan's expressions are compiled on first use, not at start: every
// opforge command pays a package's initialization, a no-op build included.
var (
	keyRE  = lazyRE(`^(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\[\]{},&*!|>%@` + "`" + `-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s|$)`)
	propRE = lazyRE(`^[&!][^\s]*$`) // a lone anchor or tag: the node follows on the next lines
)

// srcLine is one line of the source as the scan classifies it.
type srcLine struct {
	no      int    // 1-based
	text    string // without a trailing \r
	trimmed string // without the leading spaces
	ind     int    // leading spaces
	item    bool   // starts with "- " (or is "-")
	key     bool   // starts with "key:" (and is no item)
}

func newLine(i int, raw string) srcLine {
	text := strings.TrimRight(raw, "\r")
	trimmed := strings.TrimLeft(text, " ")
	ln := srcLine{no: i + 1, text: text, trimmed: trimmed, ind: len(text) - len(trimmed)}
	ln.item = isItem(trimmed)
	ln.key = !ln.item && keyRE().MatchString(trimmed)
	return ln
}

func isItem(s string) bool { return s == "-" || strings.HasPrefix(s, "- ") }

// blank reports an empty or comment line.
func (ln srcLine) blank() bool { return ln.trimmed == "" || strings.HasPrefix(ln.trimmed, "#") }

// documentBoundary reports a document marker or directive, which starts
// a new block structure.
func (ln srcLine) documentBoundary() bool {
	t := ln.trimmed
	return ln.ind == 0 && (t == "---" || strings.HasPrefix(t, "--- ") || t == "..." || strings.HasPrefix(t, "%"))
}

// keyName is the key a "key: value" text starts with, unquoted.
func keyName(s string) string {
	m := keyRE().FindString(s)
	k := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m), ":"))
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		k = k[1 : len(k)-1]
	}
	return k
}

// scan is the state of the indentation scan between lines.
type scan struct {
	stack     []level
	expect    int  // a block opened at this indentation expects deeper lines (-1: none)
	expectKey bool // ... and the opener was a key (a sequence may then sit at the same column)
	// opener is the key whose block is expected (its name and line), which
	// a sequence opened under it remembers until its first item.
	opener  level
	blockAt int  // inside a block scalar of a node at this indentation (-1: none)
	plainAt int  // a plain scalar of a node at this indentation may continue on deeper lines (-1: none)
	flow    int  // flow brackets left open by earlier lines
	quoted  byte // inside a quoted scalar spanning lines
	// quoteLine is where that quoted scalar opened.
	quoteLine int
	// A scalar on its own line below a key ("package:\n  name X"): when
	// the next line is a key at its indentation, the scalar line is the
	// one that lost its colon.
	own srcLine
}

func newScan() *scan { return &scan{expect: -1, blockAt: -1, plainAt: -1} }

// indentProblem is the first line that does not fit the blocks above it,
// and the likely fix.
type indentProblem struct {
	line, col int
	fix       string
}

// firstIndentProblem scans block-structured YAML and returns the first
// line whose indentation does not fit the blocks opened before it: a tab
// in the indentation, a line indented deeper than a value allows, a
// dedent to a column no open block has, a mapping line without a key, or
// a sequence line without "- ".
func firstIndentProblem(lines []string) (indentProblem, bool) {
	st := newScan()
	for i, raw := range lines {
		if p, bad := st.line(newLine(i, raw)); bad {
			return p, true
		}
	}
	return indentProblem{}, false
}

// line takes one line, returning the problem it has, if any.
func (st *scan) line(ln srcLine) (indentProblem, bool) {
	if st.insideScalar(ln) {
		return indentProblem{}, false
	}
	if strings.HasPrefix(ln.trimmed, "\t") {
		return st.tabProblem(ln), true
	}
	if ln.blank() || st.insideFlow(ln) || st.continuesPlain(ln) {
		return indentProblem{}, false
	}
	if ln.documentBoundary() {
		st.stack, st.expect = nil, -1
		return indentProblem{}, false
	}
	if st.ownNode(ln) {
		return indentProblem{}, false
	}
	open := st.stack
	if !st.fits(ln) {
		return st.fail(ln, open), true
	}
	st.enter(ln)
	return indentProblem{}, false
}

// insideScalar reports a line inside a quoted or block scalar, which the
// scan skips, and notes where the scalar ends.
func (st *scan) insideScalar(ln srcLine) bool {
	if st.quoted != 0 {
		if closesQuote(ln.text, st.quoted) {
			st.quoted = 0
		}
		return true
	}
	if st.blockAt >= 0 {
		if ln.ind > st.blockAt || strings.TrimSpace(ln.text) == "" {
			return true
		}
		st.blockAt = -1
	}
	return false
}

// insideFlow reports a line inside a flow collection opened above.
func (st *scan) insideFlow(ln srcLine) bool {
	if st.flow <= 0 {
		return false
	}
	st.flow += bracketDelta(ln.trimmed)
	return true
}

// continuesPlain reports a line continuing a plain scalar above: deeper
// than its node, and neither a key nor an item.
func (st *scan) continuesPlain(ln srcLine) bool {
	if st.plainAt < 0 {
		return false
	}
	if ln.ind > st.plainAt && !ln.key && !ln.item {
		return true
	}
	st.plainAt = -1
	return false
}

// ownNode opens the block a key (or the document) is waiting for, and
// reports a line that is a node of its own there (a scalar, a flow
// collection, a lone property), which needs no more checking.
func (st *scan) ownNode(ln srcLine) bool {
	if st.expect < 0 && len(st.stack) > 0 {
		return false
	}
	opened := len(st.stack) == 0 && ln.ind == 0
	if st.expect >= 0 {
		opened = ln.ind > st.expect || (st.expectKey && ln.ind == st.expect && ln.item)
	}
	st.expect = -1
	if !opened {
		return false
	}
	if ln.key || ln.item {
		st.stack = append(st.stack, level{ind: ln.ind, seq: ln.item})
		return false
	}
	if propRE().MatchString(ln.trimmed) {
		st.expect = ln.ind - 1 // a property line: the node follows
		return true
	}
	st.own = ln
	at := ln.ind - 1
	if len(st.stack) > 0 {
		at = st.stack[len(st.stack)-1].ind
	}
	st.value(ln.trimmed, at, "", ln.no)
	return true
}

// fits closes the blocks deeper than ln and reports whether ln continues
// the innermost one left: a key of a mapping, an item of a sequence (or a
// key ending a sequence written at its parent key's column).
func (st *scan) fits(ln srcLine) bool {
	for len(st.stack) > 0 && st.stack[len(st.stack)-1].ind > ln.ind {
		st.stack = st.stack[:len(st.stack)-1]
	}
	if len(st.stack) == 0 || st.stack[len(st.stack)-1].ind != ln.ind {
		return false
	}
	top := st.stack[len(st.stack)-1]
	if top.seq && !ln.item {
		// A sequence at its parent key's column ends at the next key.
		n := len(st.stack)
		if n < 2 || st.stack[n-2].ind != ln.ind || st.stack[n-2].seq {
			return false
		}
		st.stack = st.stack[:n-1]
		top = st.stack[n-2]
	}
	return top.seq || ln.key
}

// enter records a line that fits: the key or "-" at its level, the
// blocks its "- " prefixes open, and what its value leaves open.
func (st *scan) enter(ln srcLine) {
	st.own = srcLine{}
	content, cind, dash := ln.trimmed, ln.ind, ln.ind
	st.mark(cind, content, ln.no)
	for isItem(content) {
		dash = cind
		if content == "-" {
			content = ""
			break
		}
		rest := strings.TrimLeft(content[2:], " ")
		cind += len(content) - len(rest)
		content = rest
		if isItem(content) {
			st.stack = append(st.stack, level{ind: cind, seq: true, line: ln.no})
		} else if keyRE().MatchString(content) {
			st.stack = append(st.stack, level{ind: cind, last: keyName(content), line: ln.no})
		}
	}
	if m := keyRE().FindString(content); m != "" {
		st.value(strings.TrimSpace(content[len(m):]), cind, keyName(content), ln.no)
	} else {
		// An entry's own value: continuation lines pass its dash.
		st.value(content, dash, "", ln.no)
	}
}

// mark notes the key or "-" written at the innermost level.
func (st *scan) mark(ind int, content string, line int) {
	top := &st.stack[len(st.stack)-1]
	if top.ind != ind {
		return
	}
	top.line = line
	if !top.seq {
		top.last = keyName(content)
	}
}

// value records what a node's value text (after "key:", "- " or alone)
// leaves open for the next lines: a block, a block scalar, a flow
// collection, a quoted or a plain scalar; at is the indentation that
// continuation lines must exceed, key the key it is the value of ("" for
// none) written on line.
func (st *scan) value(value string, at int, key string, line int) {
	f := strings.Fields(value)
	switch {
	case len(f) == 0 || strings.HasPrefix(value, "#") || propRE().MatchString(value) ||
		(len(f) > 1 && propRE().MatchString(f[0]) && strings.HasPrefix(f[1], "#")):
		st.expect, st.expectKey = at, key != ""
		st.opener = level{ind: at, last: key, line: line}
		return
	case value[0] == '&' || value[0] == '!':
		// A property before the value on the same line.
		if sp := strings.IndexAny(value, " \t"); sp > 0 {
			st.value(strings.TrimSpace(value[sp:]), at, key, line)
		} else {
			st.expect, st.expectKey = at, key != ""
			st.opener = level{ind: at, last: key, line: line}
		}
		return
	case value[0] == '|' || value[0] == '>':
		st.blockAt = at
		return
	}
	if d := bracketDelta(value); d > 0 {
		st.flow = d
		return
	}
	switch value[0] {
	case '"', '\'':
		if !closesQuote(value[1:], value[0]) {
			st.quoted = value[0]
			st.quoteLine = line
		}
	case '*', '[', '{':
	default:
		st.plainAt = at
	}
}

// openQuote scans lines and returns where a quoted scalar opens that no
// later line closes (the parser's "found unexpected end of stream").
func openQuote(lines []string) (line int, quote byte, ok bool) {
	st := newScan()
	for i, raw := range lines {
		if _, bad := st.line(newLine(i, raw)); bad {
			return 0, 0, false
		}
	}
	return st.quoteLine, st.quoted, st.quoted != 0
}

// closesQuote reports whether text holds the end of a scalar quoted with
// q: an unescaped double quote, or a single quote that is not doubled.
func closesQuote(text string, q byte) bool {
	for i := 0; i < len(text); i++ {
		switch {
		case q == '"' && text[i] == '\\':
			i++
		case text[i] == q:
			if q == '\'' && i+1 < len(text) && text[i+1] == '\'' {
				i++
				continue
			}
			return true
		}
	}
	return false
}
