package yamldef

import (
	"fmt"
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

var anchorMsgRE = lazyRE(`^unknown anchor '(.*)' referenced$`)

// placement is where a parser error belongs (1-based line and column;
// column 0 when unknown) and, when the source shows it, the likely fix.
type placement struct {
	line, col int
	fix       string
}

// locate places the parser error msg reported at line (1-based): each
// placer in turn looks for the cause it knows, and the first found wins;
// failing all, the error stays at line, at its first non-blank column.
func locate(src []byte, line int, msg string) placement {
	lines := strings.Split(string(src), "\n")
	for _, place := range []func([]string, int, string) (placement, bool){
		placeAlias, placeUnclosedFlow, placeIndent, placeUnclosedQuote, placeBracket, placeBadToken,
	} {
		if p, ok := place(lines, line, msg); ok {
			return p
		}
	}
	if line < 1 || line > len(lines) {
		return placement{line: line}
	}
	return placement{line: line, col: firstNonBlank(lines[line-1])}
}

// placeAlias places an unknown alias at its "*name".
func placeAlias(lines []string, _ int, msg string) (placement, bool) {
	m := anchorMsgRE().FindStringSubmatch(msg)
	if m == nil {
		return placement{}, false
	}
	l, c, ok := findAlias(lines, m[1])
	fix := fmt.Sprintf("no anchor &%s is defined above this alias: write the value itself, or mark the value it repeats with &%s", m[1], m[1])
	return placement{line: l, col: c, fix: fix}, ok
}

// placeUnclosedFlow places an unfinished flow collection at the bracket
// that opened it.
func placeUnclosedFlow(lines []string, line int, msg string) (placement, bool) {
	if !strings.HasPrefix(msg, "did not find expected") {
		return placement{}, false
	}
	l, c, ok := unclosedFlow(lines, line)
	if !ok {
		return placement{}, false
	}
	return placement{line: l, col: c, fix: closeFix(lines[l-1], c)}, true
}

// closeFix says how to close the bracket at column c of text.
func closeFix(text string, c int) string {
	open := []rune(text)[c-1]
	if open != '[' && open != '{' {
		return ""
	}
	return fmt.Sprintf("this %q is never closed: close it with %q", string(open), string(closerOf(byte(open))))
}

// placeIndent places a broken block structure at the first line of
// inconsistent indentation, when that line is near the reported one: the
// parser names the start of the block it could not finish, which may lie
// many lines above the cause; scanner errors are reported near theirs.
func placeIndent(lines []string, line int, msg string) (placement, bool) {
	tokenAtTab := msg == "found character that cannot start any token" && line >= 1 && line <= len(lines) &&
		strings.HasPrefix(strings.TrimLeft(lines[line-1], " "), "\t")
	if !indentProblems[msg] && !tokenAtTab {
		return placement{}, false
	}
	hi := line + locateWindow
	if strings.HasPrefix(msg, "did not find expected") {
		hi = len(lines)
	}
	p, ok := firstIndentProblem(lines)
	if !ok || p.line < line-locateWindow || p.line > hi || tokenAtTab && p.line != line {
		return placement{}, false
	}
	return placement{line: p.line, col: p.col, fix: p.fix}, true
}

// placeUnclosedQuote places a quoted scalar that the end of the file
// ends at its opening quote.
func placeUnclosedQuote(lines []string, _ int, msg string) (placement, bool) {
	if !strings.HasPrefix(msg, "found unexpected end of stream") {
		return placement{}, false
	}
	l, q, ok := openQuote(lines)
	if !ok || l < 1 || l > len(lines) {
		return placement{}, false
	}
	text := lines[l-1]
	off := strings.IndexByte(text, q)
	if off < 0 {
		return placement{}, false
	}
	fix := fmt.Sprintf("the quoted string opened here never ends: add the closing %s where its value ends", string(q))
	if q == '\'' {
		fix += " (a ' inside it is written '')"
	}
	return placement{line: l, col: col(text, off), fix: fix}, true
}

// placeBracket places a flow collection's error on its line at a closing
// bracket of the wrong kind or at the bracket left open.
func placeBracket(lines []string, line int, msg string) (placement, bool) {
	if !strings.HasPrefix(msg, "did not find expected ',' or") || line < 1 || line > len(lines) {
		return placement{}, false
	}
	text := lines[line-1]
	if c, opener := mismatchedBracket(text); c > 0 {
		fix := fmt.Sprintf("this %q closes no bracket: drop it", string([]rune(text)[c-1]))
		if opener > 0 {
			open := []rune(text)[opener-1]
			fix = fmt.Sprintf("this %q meets the %q at column %d: write %q", string([]rune(text)[c-1]), string(open), opener, string(closerOf(byte(open))))
		}
		return placement{line: line, col: c, fix: fix}, true
	}
	if c := unclosedBracket(text); c > 0 {
		return placement{line: line, col: c, fix: closeFix(text, c)}, true
	}
	return placement{}, false
}

// placeBadToken places a character YAML reserves at a token's start.
func placeBadToken(lines []string, line int, msg string) (placement, bool) {
	if msg != "found character that cannot start any token" || line < 1 || line > len(lines) {
		return placement{}, false
	}
	text := lines[line-1]
	c := badTokenStart(text)
	if c == 0 {
		return placement{}, false
	}
	ch := string([]rune(text)[c-1])
	if ch == "\t" {
		return placement{line: line, col: c, fix: "YAML indents with spaces, never tabs: replace the tab with spaces"}, true
	}
	return placement{line: line, col: c, fix: fmt.Sprintf("YAML reserves %q at the start of a value: quote the value (\"%s...\")", ch, ch)}, true
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
// that closes nothing or the wrong kind, outside quotes (0 if none), and
// the column of the bracket open there (0 for none).
func mismatchedBracket(text string) (at, opener int) {
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
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || text[i-1] == ' '):
			return 0, 0
		case c == '[' || c == '{':
			stack = append(stack, i)
		case c == ']' || c == '}':
			if len(stack) == 0 {
				return col(text, i), 0
			}
			if open := stack[len(stack)-1]; closerOf(text[open]) != c {
				return col(text, i), col(text, open)
			}
			stack = stack[:len(stack)-1]
		}
	}
	return 0, 0
}

func closerOf(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
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
