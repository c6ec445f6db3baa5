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

var keyRE = regexp.MustCompile(`^(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\[\]{},&*!|>%@` + "`" + `-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s|$)`)

// firstIndentProblem scans block-structured YAML and returns the first
// line whose indentation does not fit the blocks opened before it: a tab
// in the indentation, a line indented deeper than a value allows, a
// dedent to a column no open block has, a mapping line without a key, or
// a sequence line without "- ". Flow collections spanning lines, block
// scalars and comments are skipped.
func firstIndentProblem(lines []string) (int, int, bool) {
	var stack []level
	expect := -1       // a block opened at this indentation expects deeper lines
	expectKey := false // ... and the opener was a key (a sequence may then sit at the same column)
	scalarAbove := -1  // inside a block scalar of a key at this indentation
	flow := 0          // open flow brackets carried over from earlier lines
	for i, text := range lines {
		text = strings.TrimRight(text, "\r")
		trimmed := strings.TrimLeft(text, " ")
		ind := len(text) - len(trimmed)
		if strings.HasPrefix(trimmed, "\t") {
			return i + 1, ind + 1, true
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if scalarAbove >= 0 {
			if ind > scalarAbove {
				continue
			}
			scalarAbove = -1
		}
		if flow > 0 {
			flow += bracketDelta(trimmed)
			continue
		}
		if i == 0 && (strings.HasPrefix(trimmed, "---") || strings.HasPrefix(trimmed, "%")) {
			continue
		}
		if expect >= 0 {
			if ind > expect || (expectKey && ind == expect && strings.HasPrefix(trimmed, "- ")) || (expectKey && ind == expect && trimmed == "-") {
				stack = append(stack, level{ind: ind, seq: strings.HasPrefix(trimmed, "-")})
			}
			expect = -1
		}
		for len(stack) > 0 && stack[len(stack)-1].ind > ind {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			if ind != 0 {
				return i + 1, ind + 1, true
			}
			stack = append(stack, level{ind: 0, seq: strings.HasPrefix(trimmed, "- ")})
		}
		top := stack[len(stack)-1]
		if top.ind != ind {
			return i + 1, ind + 1, true
		}
		isItem := trimmed == "-" || strings.HasPrefix(trimmed, "- ")
		if top.seq && !isItem {
			// A sequence at its parent key's column ends at the next key.
			if len(stack) > 1 && stack[len(stack)-2].ind == ind && !stack[len(stack)-2].seq {
				stack = stack[:len(stack)-1]
				top = stack[len(stack)-1]
			} else {
				return i + 1, ind + 1, true
			}
		}
		content, cind := trimmed, ind
		for strings.HasPrefix(content, "- ") || content == "-" {
			if !top.seq && cind == ind {
				return i + 1, ind + 1, true
			}
			if content == "-" {
				expect, expectKey, content = cind, false, ""
				break
			}
			rest := strings.TrimLeft(content[2:], " ")
			cind += len(content) - len(rest)
			content = rest
			if content != "" && !strings.HasPrefix(content, "- ") && keyRE.MatchString(content) {
				stack = append(stack, level{ind: cind})
			}
		}
		if content == "" {
			continue
		}
		if !top.seq && cind == ind && !keyRE.MatchString(content) {
			return i + 1, ind + 1, true
		}
		value := content
		if m := keyRE.FindString(content); m != "" {
			value = strings.TrimSpace(content[len(m):])
		}
		if keyRE.MatchString(content) {
			switch {
			case value == "" || strings.HasPrefix(value, "#"):
				expect, expectKey = cind, true
			case strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">"):
				scalarAbove = cind
			case strings.HasPrefix(value, "&") && !strings.Contains(value, " "):
				expect, expectKey = cind, true // an anchored block
			}
		}
		flow = bracketDelta(value)
		if flow < 0 {
			flow = 0
		}
	}
	return 0, 0, false
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
