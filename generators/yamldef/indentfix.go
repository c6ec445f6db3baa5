package yamldef

import (
	"fmt"
	"strings"
)

// The fixes the indentation scan names for a line that fits no open
// block. Each says what to write: the column a line should start at and
// the key or "-" above it that it should line up with, or the missing
// colon or space.

// tabWidth is the tab stop assumed when guessing which block a line
// indented with a tab meant (the width editors most often show for YAML;
// the nearest block is chosen, so a near miss still names the right one).
const tabWidth = 4

// fail describes a line that fits no open block; open are the blocks
// that were open before it, innermost last.
func (st *scan) fail(ln srcLine, open []level) indentProblem {
	if st.own.no > 0 && st.own.ind == ln.ind {
		// The scalar line above, at this line's column, lost its colon.
		return colonProblem(st.own)
	}
	at := levelAt(open, ln.ind)
	switch {
	case at != nil && !at.seq && !ln.key && !ln.item:
		return colonProblem(ln)
	case at != nil && at.seq && strings.HasPrefix(ln.trimmed, "-") && !ln.item:
		return indentProblem{line: ln.no, col: ln.ind + 1, fix: fmt.Sprintf("add a space after the %q that starts a list item: %q", "-", "- "+ln.trimmed[1:])}
	}
	return alignProblem(ln, ln.ind, ln.trimmed, open, "")
}

// tabProblem describes a line whose indentation holds a tab.
func (st *scan) tabProblem(ln srcLine) indentProblem {
	content := strings.TrimLeft(ln.trimmed, " \t")
	p := indentProblem{line: ln.no, col: ln.ind + 1}
	const why = "YAML indents with spaces, never tabs: replace the tab with spaces, "
	if st.expect >= 0 {
		// A key above waits for this line's block, deeper than itself.
		p.fix = why + fmt.Sprintf("indenting %s to column %d, deeper than %s", subject(content), st.expect+3, st.opener.ref())
		return p
	}
	q := alignProblem(ln, expandTabs(ln.text[:len(ln.text)-len(content)]), content, st.stack, why)
	p.fix = q.fix
	return p
}

// alignProblem names the open block nearest to column ind (0-based) that
// a line of this content could belong to, and the column to move it to;
// prefix starts the fix.
func alignProblem(ln srcLine, ind int, content string, open []level, prefix string) indentProblem {
	p := indentProblem{line: ln.no, col: ln.ind + 1}
	want := nearestLevel(open, ind, isItem(content))
	if want == nil {
		p.fix = prefix + fmt.Sprintf("%s starts at column %d, where no block above it starts (%s)", subject(content), ind+1, columns(open))
		return p
	}
	verb := "indent"
	if prefix != "" {
		verb = "indenting"
	}
	p.fix = prefix + fmt.Sprintf("%s %s to column %d to line up with %s", verb, subject(content), want.ind+1, want.ref())
	return p
}

// nearestLevel is the open block nearest to column ind holding entries
// of the line's kind (sequence items or mapping keys), the deeper of two
// as near (the line more likely continues the block just above it).
func nearestLevel(open []level, ind int, item bool) *level {
	var best *level
	for i := range open {
		l := &open[i]
		if l.seq != item {
			continue
		}
		if best == nil || abs(l.ind-ind) < abs(best.ind-ind) || abs(l.ind-ind) == abs(best.ind-ind) && l.ind > best.ind {
			best = l
		}
	}
	return best
}

func abs(n int) int { return max(n, -n) }

// levelAt is the open block at column ind, nil for none.
func levelAt(open []level, ind int) *level {
	for i := range open {
		if open[i].ind == ind {
			return &open[i]
		}
	}
	return nil
}

// ref names what a line lines up with at this level: its last key, or
// the "-" of its last item.
func (l level) ref() string {
	switch {
	case l.seq:
		return fmt.Sprintf("the %q on line %d", "-", l.line)
	case l.last != "":
		return fmt.Sprintf("%q (line %d)", l.last, l.line)
	}
	return fmt.Sprintf("line %d", l.line)
}

// subject names a line in a fix: its key, or the item.
func subject(content string) string {
	switch {
	case isItem(content):
		return "this list item"
	case keyRE().MatchString(content):
		return fmt.Sprintf("%q", keyName(content))
	}
	return "this line"
}

// columns lists the 1-based columns at which open blocks start.
func columns(open []level) string {
	if len(open) == 0 {
		return "the file's keys start at column 1"
	}
	var cs []string
	for _, l := range open {
		cs = append(cs, fmt.Sprint(l.ind+1))
	}
	return "blocks start at columns " + strings.Join(cs, ", ")
}

// expandTabs is the width of an indentation of spaces and tabs.
func expandTabs(s string) int {
	w := 0
	for _, c := range s {
		if c == '\t' {
			w += tabWidth - w%tabWidth
		} else {
			w++
		}
	}
	return w
}

var (
	// noSpaceRE: "name:VisionOps", a key whose colon lacks the space YAML
	// needs after it, so the whole is one plain scalar.
	noSpaceRE = lazyRE(`^([A-Za-z_][A-Za-z0-9_.-]*):([^\s:/].*)$`)
	// noColonRE: "name VisionOps", a key whose colon was left out.
	noColonRE = lazyRE(`^([A-Za-z_][A-Za-z0-9_.-]*)(?:\s+(\S.*))?$`)
)

// colonProblem describes a line where a key is expected that holds none:
// its colon, or the space after it, is missing.
func colonProblem(ln srcLine) indentProblem {
	text := strings.TrimSpace(stripComment(ln.trimmed))
	p := indentProblem{line: ln.no, col: ln.ind + 1}
	if m := noSpaceRE().FindStringSubmatch(text); m != nil {
		p.col += len(m[1])
		p.fix = fmt.Sprintf("add a space after the colon: %q (without it YAML reads %q as one word)", m[1]+": "+m[2], text)
		return p
	}
	if m := noColonRE().FindStringSubmatch(text); m != nil {
		p.col += len(m[1])
		if m[2] == "" {
			p.fix = fmt.Sprintf("%q is no key: add a colon and its value, %q", m[1], m[1]+": ...")
		} else {
			p.fix = fmt.Sprintf("add a colon after the key: %q", m[1]+": "+m[2])
		}
		return p
	}
	p.fix = `a mapping holds "key: value" lines here; this line is none`
	return p
}

// stripComment drops a trailing " # comment" outside quotes.
func stripComment(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}
