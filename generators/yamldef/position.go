package yamldef

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The YAML parser reports some errors at the line where it gave up, which
// can be a few lines before or after the line the user got wrong (an
// indentation slip is reported at the start of the enclosing mapping; an
// unknown alias at line 1), and never with a column. The functions here
// look at the source text itself to place such errors: they are small
// scans of the lines near the reported one, not a second parser.

// indentProblems are the parser messages that mean "the block structure
// is broken", whose real cause is the first line with inconsistent
// indentation.
var indentProblems = map[string]bool{
	"did not find expected key":                              true,
	"did not find expected '-' indicator":                    true,
	"found a tab character that violates indentation":        true,
	"mapping values are not allowed in this context":         true,
	"could not find expected ':'":                            true,
	"did not find expected <document start>":                 true,
	"block sequence entries are not allowed in this context": true,
}

// locateWindow is how far (in lines) before the reported line, and after
// it for scanner errors, a located cause may be: a cause further away is
// more likely a false find of the scan than the parser's mistake.
const locateWindow = 6

var anchorMsgRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// locate returns a better position for the parser error msg reported at
// line (1-based), or line with a column when the cause cannot be placed.
func locate(src []byte, line int, msg string) (int, int) {
	lines := strings.Split(string(src), "\n")
	if m := anchorMsgRE.FindStringSubmatch(msg); m != nil {
		if l, c, ok := findAlias(lines, m[1]); ok {
			return l, c
		}
	}
	if strings.HasPrefix(msg, "did not find expected") {
		if l, c, ok := unclosedFlow(lines, line); ok {
			return l, c
		}
	}
	if indentProblems[msg] {
		// The parser names the start of the block it could not finish,
		// which may lie many lines above the cause; scanner errors are
		// reported near theirs.
		hi := line + locateWindow
		if strings.HasPrefix(msg, "did not find expected") {
			hi = len(lines)
		}
		if l, c, ok := firstIndentProblem(lines); ok && l >= line-locateWindow && l <= hi {
			return l, c
		}
	}
	if line < 1 || line > len(lines) {
		return line, 0
	}
	text := lines[line-1]
	if strings.HasPrefix(msg, "did not find expected ',' or") {
		if c := mismatchedBracket(text); c > 0 {
			return line, c
		}
		if c := unclosedBracket(text); c > 0 {
			return line, c
		}
	}
	if msg == "found character that cannot start any token" {
		if c := badTokenStart(text); c > 0 {
			return line, c
		}
	}
	return line, firstNonBlank(text)
}

// col converts a byte offset within text to a 1-based column in runes.
func col(text string, off int) int { return 1 + utf8.RuneCountInString(text[:off]) }

func firstNonBlank(text string) int {
	for i := 0; i < len(text); i++ {
		if text[i] != ' ' && text[i] != '\t' && text[i] != '\r' {
			return col(text, i)
		}
	}
	return 1
}

// findAlias finds the alias token *name: a '*' at the start of a value
// (after the line's indentation, "- ", ": ", '[', '{', ',' or spaces)
// followed by name and a character that cannot continue it.
func findAlias(lines []string, name string) (int, int, bool) {
	tok := "*" + name
	for i, text := range lines {
		for off := 0; ; {
			j := strings.Index(text[off:], tok)
			if j < 0 {
				break
			}
			j += off
			off = j + 1
			end := j + len(tok)
			if end < len(text) && !strings.ContainsRune(" \t\r,]}#", rune(text[end])) {
				continue
			}
			before := strings.TrimRight(text[:j], " \t")
			if before == "" || strings.HasSuffix(before, ":") || strings.HasSuffix(before, "-") ||
				strings.HasSuffix(before, "[") || strings.HasSuffix(before, "{") || strings.HasSuffix(before, ",") || strings.HasSuffix(before, "?") {
				return i + 1, col(text, j), true
			}
		}
	}
	return 0, 0, false
}

// mismatchedBracket is the column of the first closing bracket of text
// that closes nothing or the wrong kind, outside quotes; 0 if none.
func mismatchedBracket(text string) int {
	var stack []byte
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || text[i-1] == ' '):
			return 0
		case c == '[' || c == '{':
			stack = append(stack, c)
		case c == ']' || c == '}':
			want := byte('[')
			if c == '}' {
				want = '{'
			}
			if len(stack) == 0 || stack[len(stack)-1] != want {
				return col(text, i)
			}
			stack = stack[:len(stack)-1]
		}
	}
	return 0
}

// badTokenStart is the column of the first character of text that YAML
// reserves (@, `) or a tab, at the start of a token; 0 if none.
func badTokenStart(text string) int {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\t' && strings.TrimLeft(text[:i], " ") == "" {
			return col(text, i)
		}
		if (c == '@' || c == '`') && (i == 0 || strings.ContainsRune(" \t[{,:-", rune(text[i-1]))) {
			return col(text, i)
		}
	}
	return 0
}

// level is one open block: its indentation and whether it holds mapping
// keys or sequence entries.
type level struct {
	ind int
	seq bool
}

var (
	keyRE  = regexp.MustCompile(`^(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\[\]{},&*!|>%@` + "`" + `-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s|$)`)
	propRE = regexp.MustCompile(`^[&!][^\s]*$`) // a lone anchor or tag: the node follows on the next lines
)

// scan is the state of firstIndentProblem between lines.
type scan struct {
	stack     []level
	expect    int  // a block opened at this indentation expects deeper lines (-1: none)
	expectKey bool // ... and the opener was a key (a sequence may then sit at the same column)
	blockAt   int  // inside a block scalar of a node at this indentation (-1: none)
	plainAt   int  // a plain scalar of a node at this indentation may continue on deeper lines (-1: none)
	flow      int  // flow brackets left open by earlier lines
	quoted    byte // inside a quoted scalar spanning lines
	// A scalar on its own line below a key ("package:\n  name X"), and
	// its indentation: when the next line is a key at that indentation,
	// the scalar line is the one that lost its colon.
	ownLine, ownInd int
}

// value records what a node's value text (after "key:", "- " or alone)
// leaves open for the next lines: a block, a block scalar, a flow
// collection, a quoted or a plain scalar; at is the indentation that
// continuation lines must exceed.
func (st *scan) value(value string, at int, key bool) {
	f := strings.Fields(value)
	switch {
	case len(f) == 0 || strings.HasPrefix(value, "#") || propRE.MatchString(value) ||
		(len(f) > 1 && propRE.MatchString(f[0]) && strings.HasPrefix(f[1], "#")):
		st.expect, st.expectKey = at, key
		return
	case value[0] == '&' || value[0] == '!':
		// A property before the value on the same line.
		if sp := strings.IndexAny(value, " \t"); sp > 0 {
			st.value(strings.TrimSpace(value[sp:]), at, key)
		} else {
			st.expect, st.expectKey = at, key
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
		}
	case '*', '[', '{':
	default:
		st.plainAt = at
	}
}

// firstIndentProblem scans block-structured YAML and returns the first
// line whose indentation does not fit the blocks opened before it: a tab
// in the indentation, a line indented deeper than a value allows, a
// dedent to a column no open block has, a mapping line without a key, or
// a sequence line without "- ". Flow collections and quoted scalars
// spanning lines, block scalars, plain scalar continuations and comments
// are skipped.
func firstIndentProblem(lines []string) (int, int, bool) {
	st := &scan{expect: -1, blockAt: -1, plainAt: -1}
	for i, text := range lines {
		text = strings.TrimRight(text, "\r")
		trimmed := strings.TrimLeft(text, " ")
		ind := len(text) - len(trimmed)
		if st.quoted != 0 {
			if closesQuote(text, st.quoted) {
				st.quoted = 0
			}
			continue
		}
		if st.blockAt >= 0 {
			if ind > st.blockAt || strings.TrimSpace(text) == "" {
				continue
			}
			st.blockAt = -1
		}
		if strings.HasPrefix(trimmed, "\t") {
			return i + 1, ind + 1, true
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if st.flow > 0 {
			st.flow += bracketDelta(trimmed)
			continue
		}
		isItem := trimmed == "-" || strings.HasPrefix(trimmed, "- ")
		isKey := !isItem && keyRE.MatchString(trimmed)
		if st.plainAt >= 0 {
			if ind > st.plainAt && !isKey && !isItem {
				continue
			}
			st.plainAt = -1
		}
		if ind == 0 && (trimmed == "---" || strings.HasPrefix(trimmed, "--- ") || trimmed == "..." || strings.HasPrefix(trimmed, "%")) {
			// A document boundary or directive: a new block structure.
			st.stack, st.expect = nil, -1
			continue
		}
		if st.expect >= 0 || len(st.stack) == 0 {
			opened := len(st.stack) == 0 && ind == 0
			if st.expect >= 0 {
				opened = ind > st.expect || (st.expectKey && ind == st.expect && isItem)
			}
			st.expect = -1
			if opened && !isKey && !isItem {
				if propRE.MatchString(trimmed) {
					st.expect = ind - 1 // a property line: the node follows
					continue
				}
				// A scalar or flow node on its own line.
				st.ownLine, st.ownInd = i+1, ind
				at := ind - 1
				if len(st.stack) > 0 {
					at = st.stack[len(st.stack)-1].ind
				}
				st.value(trimmed, at, false)
				continue
			}
			if opened {
				st.stack = append(st.stack, level{ind: ind, seq: isItem})
			}
		}
		for len(st.stack) > 0 && st.stack[len(st.stack)-1].ind > ind {
			st.stack = st.stack[:len(st.stack)-1]
		}
		if len(st.stack) == 0 || st.stack[len(st.stack)-1].ind != ind {
			return st.fail(i, ind)
		}
		top := st.stack[len(st.stack)-1]
		if top.seq && !isItem {
			// A sequence at its parent key's column ends at the next key.
			if len(st.stack) > 1 && st.stack[len(st.stack)-2].ind == ind && !st.stack[len(st.stack)-2].seq {
				st.stack = st.stack[:len(st.stack)-1]
				top = st.stack[len(st.stack)-1]
			} else {
				return st.fail(i, ind)
			}
		}
		if !top.seq && !isKey {
			return st.fail(i, ind)
		}
		st.ownLine = 0
		content, cind, dash := trimmed, ind, ind
		for strings.HasPrefix(content, "- ") || content == "-" {
			dash = cind
			if content == "-" {
				content = ""
				break
			}
			rest := strings.TrimLeft(content[2:], " ")
			cind += len(content) - len(rest)
			content = rest
			if strings.HasPrefix(content, "- ") || content == "-" {
				st.stack = append(st.stack, level{ind: cind, seq: true})
			} else if keyRE.MatchString(content) {
				st.stack = append(st.stack, level{ind: cind})
			}
		}
		if m := keyRE.FindString(content); m != "" {
			st.value(strings.TrimSpace(content[len(m):]), cind, true)
		} else {
			// An entry's own value: continuation lines pass its dash.
			st.value(content, dash, false)
		}
	}
	return 0, 0, false
}

// fail reports line i (0-based) at indentation ind, or the scalar line
// just above it when that one, at the same indentation, is the cause.
func (st *scan) fail(i, ind int) (int, int, bool) {
	if st.ownLine > 0 && st.ownInd == ind {
		return st.ownLine, ind + 1, true
	}
	return i + 1, ind + 1, true
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

// bracketDelta is the number of flow brackets text opens minus those it
// closes, outside quotes and comments.
func bracketDelta(text string) int {
	n := 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case (c == '"' || c == '\'') && (i == 0 || strings.ContainsRune(" [{,:", rune(text[i-1]))):
			quote = c
		case c == '#' && (i == 0 || text[i-1] == ' '):
			return n
		case c == '[' || c == '{':
			n++
		case c == ']' || c == '}':
			n--
		}
	}
	return n
}

// unclosedFlow finds, when a flow collection ([...] or {...}) is still
// open where line starts, the line that opened it and the column of its
// outermost unclosed bracket: a missing ']' or '}' is reported where the
// parser met the next line, but the user left it out on the opening one.
func unclosedFlow(lines []string, line int) (int, int, bool) {
	depth, opener := 0, -1
	for i := 0; i < line-1 && i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " ")
		if strings.HasPrefix(t, "#") {
			continue
		}
		d := bracketDelta(t)
		if depth == 0 && d > 0 {
			opener = i
		}
		depth += d
		if depth <= 0 {
			depth, opener = 0, -1
		}
	}
	if depth <= 0 || opener < 0 {
		return 0, 0, false
	}
	text := lines[opener]
	if c := unclosedBracket(text); c > 0 {
		return opener + 1, c, true
	}
	return opener + 1, firstNonBlank(text), true
}

// unclosedBracket is the column of the outermost flow bracket text opens
// and does not close, outside quotes and comments; 0 if none.
func unclosedBracket(text string) int {
	var stack []int
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case (c == '"' || c == '\'') && (i == 0 || strings.ContainsRune(" [{,:", rune(text[i-1]))):
			quote = c
		case c == '#' && (i == 0 || text[i-1] == ' '):
			i = len(text)
		case c == '[' || c == '{':
			stack = append(stack, i)
		case (c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) == 0 {
		return 0
	}
	return col(text, stack[0])
}
