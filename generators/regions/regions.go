// Package regions finds and carries over user-owned regions: the parts of
// a generated file between
//
//	// opforge:begin <key>
//	// opforge:end <key>
//
// (in the file's comment syntax). Regions are matched by key, never by
// position or surrounding text, so user code survives regeneration even
// when the opdef changes the signature around it. Everything outside the
// markers is regenerated.
package regions

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// Region is one user-owned region. Body is the text between the marker
// lines, without them.
type Region struct {
	Key  string
	Body string
	Line int // 1-based line of the begin marker
}

// markerRE matches a marker line in any comment syntax: //, #, <!-- -->.
var markerRE = regexp.MustCompile(`^\s*(?://|#|<!--)\s*opforge:(begin|end)\s+([A-Za-z0-9_.:/-]+)\s*(?:-->)?\s*$`)

// marker matches a marker line; the substring test first keeps the regexp
// off the vast majority of lines.
func marker(line string) []string {
	if !strings.Contains(line, "opforge:") {
		return nil
	}
	return markerRE.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
}

// Error is a malformed region structure at a line.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse returns the regions of data in order. Nested, unbalanced,
// mismatched or duplicate markers are errors: a file whose structure is
// unclear cannot be merged safely.
//
// Parse looks only at the lines that hold "opforge:", found by searching
// the whole text; a region's body is the text between its marker lines.
func Parse(data string) ([]Region, error) {
	var out []Region
	seen := map[string]int{}
	open := -1
	var key string
	bodyStart := 0
	line, lineStart := 1, 0 // line is the 1-based number of the line at lineStart
	for next := 0; next < len(data); {
		i := strings.Index(data[next:], "opforge:")
		if i < 0 {
			break
		}
		i += next
		start := strings.LastIndexByte(data[:i], '\n') + 1
		end := len(data)
		if j := strings.IndexByte(data[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		line += strings.Count(data[lineStart:start], "\n")
		lineStart, next = start, end
		m := marker(data[start:end])
		if m == nil {
			continue
		}
		switch m[1] {
		case "begin":
			if open >= 0 {
				return nil, &Error{line, fmt.Sprintf("opforge:begin %s inside region %s (opened at line %d); regions do not nest", m[2], key, open)}
			}
			if first, dup := seen[m[2]]; dup {
				return nil, &Error{line, fmt.Sprintf("region %s appears twice (first at line %d)", m[2], first)}
			}
			open, key = line, m[2]
			seen[key] = open
			bodyStart = end
		case "end":
			if open < 0 {
				return nil, &Error{line, fmt.Sprintf("opforge:end %s without a matching opforge:begin", m[2])}
			}
			if m[2] != key {
				return nil, &Error{line, fmt.Sprintf("opforge:end %s closes region %s (opened at line %d)", m[2], key, open)}
			}
			out = append(out, Region{Key: key, Body: data[bodyStart:start], Line: open})
			open = -1
		}
	}
	if open >= 0 {
		return nil, &Error{open, fmt.Sprintf("region %s is never closed (no opforge:end %s)", key, key)}
	}
	return out, nil
}

// Hash fingerprints a region body, ignoring trailing whitespace on lines
// so an editor's whitespace clean-up does not count as user code.
func Hash(body string) string {
	// Every line, the last one too, is hashed trimmed and with a newline.
	b := make([]byte, 0, len(body)+1)
	for {
		i := strings.IndexByte(body, '\n')
		if i < 0 {
			break
		}
		b = append(b, strings.TrimRight(body[:i], " \t\r")...)
		b = append(b, '\n')
		body = body[i+1:]
	}
	b = append(b, strings.TrimRight(body, " \t\r")...)
	b = append(b, '\n')
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Defaults returns key -> Hash(body) of every region of a fresh skeleton.
func Defaults(fresh string) (map[string]string, error) {
	rs, err := Parse(fresh)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(rs))
	for _, r := range rs {
		m[r.Key] = Hash(r.Body)
	}
	return m, nil
}

// Orphan is a region of the old file whose key the new skeleton lacks and
// whose body is not the default it was generated with: user code with no
// place to go.
type Orphan struct {
	Key  string
	Line int
}

// Merge puts the bodies of old's regions into fresh, matching by key.
// oldDefaults are the default-body hashes recorded when old was generated
// (nil when unknown). A region whose body still equals its recorded default
// takes fresh's default; a region that vanished from the skeleton is an
// orphan unless its body still equals its recorded default.
func Merge(fresh, old string, oldDefaults map[string]string) (string, []Orphan, error) {
	freshRegions, err := Parse(fresh)
	if err != nil {
		return "", nil, fmt.Errorf("generated skeleton: %w", err)
	}
	oldRegions, err := Parse(old)
	if err != nil {
		return "", nil, err
	}
	// A region still holding the default it was generated with is not user
	// code: it takes the new skeleton's default, so template improvements
	// reach regions nobody edited.
	kept := map[string]string{}
	for _, r := range oldRegions {
		if !Pristine(r, oldDefaults) {
			kept[r.Key] = r.Body
		}
	}
	var orphans []Orphan
	inFresh := map[string]bool{}
	for _, r := range freshRegions {
		inFresh[r.Key] = true
	}
	for _, r := range oldRegions {
		if !inFresh[r.Key] && !Pristine(r, oldDefaults) {
			orphans = append(orphans, Orphan{r.Key, r.Line})
		}
	}
	var out strings.Builder
	lines := strings.SplitAfter(fresh, "\n")
	inRegion := ""
	for _, ln := range lines {
		m := marker(ln)
		switch {
		case m != nil && m[1] == "begin":
			out.WriteString(ln)
			inRegion = m[2]
			if body, ok := kept[inRegion]; ok {
				out.WriteString(body)
			}
		case m != nil && m[1] == "end":
			inRegion = ""
			out.WriteString(ln)
		case inRegion != "":
			if _, ok := kept[inRegion]; !ok {
				out.WriteString(ln) // new region: the skeleton's default body
			}
		default:
			out.WriteString(ln)
		}
	}
	return out.String(), orphans, nil
}

// Pristine reports whether r still holds the default body it was
// generated with.
func Pristine(r Region, defaults map[string]string) bool {
	h, ok := defaults[r.Key]
	return ok && h == Hash(r.Body)
}

// Frame returns data with every region body removed (marker lines kept):
// what the generator alone decides, so its fingerprint tells a hand edit
// outside the regions (or a deleted marker) from user code inside them.
func Frame(data string) (string, error) {
	if _, err := Parse(data); err != nil {
		return "", err
	}
	var out strings.Builder
	in := false
	for _, ln := range strings.SplitAfter(data, "\n") {
		m := marker(ln)
		switch {
		case m != nil && m[1] == "begin":
			in = true
			out.WriteString(ln)
		case m != nil && m[1] == "end":
			in = false
			out.WriteString(ln)
		case !in:
			out.WriteString(ln)
		}
	}
	return out.String(), nil
}
