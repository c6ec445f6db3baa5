package regions

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unsafe"
)

// Region is one user-owned region. Body is the text between the marker
// lines, without them.
type Region struct {
	Key  string
	Body string
	Line int // 1-based line of the begin marker
}

// marker matches a marker line in any comment syntax (//, #, <!-- -->):
//
//	^\s*(?://|#|<!--)\s*opforge:(begin|end)\s+([A-Za-z0-9_.:/-]+)\s*(?:-->)?\s*$
//
// and returns the whole line, the verb and the key, as that expression's
// submatches would be, or nil. It is written out by hand because every
// line holding "opforge:" of every generated file passes through it; the
// tests hold it to the expression.
func marker(line string) []string {
	if !strings.Contains(line, "opforge:") {
		return nil
	}
	whole := strings.TrimRight(line, "\r\n")
	s := trimSpaceLeft(whole)
	switch {
	case strings.HasPrefix(s, "//"):
		s = s[2:]
	case strings.HasPrefix(s, "#"):
		s = s[1:]
	case strings.HasPrefix(s, "<!--"):
		s = s[4:]
	default:
		return nil
	}
	s, ok := strings.CutPrefix(trimSpaceLeft(s), "opforge:")
	if !ok {
		return nil
	}
	var verb string
	switch {
	case strings.HasPrefix(s, "begin"):
		verb = "begin"
	case strings.HasPrefix(s, "end"):
		verb = "end"
	default:
		return nil
	}
	s = s[len(verb):]
	rest := trimSpaceLeft(s)
	if len(rest) == len(s) {
		return nil // \s+ after the verb
	}
	n := 0
	for n < len(rest) && isKeyByte(rest[n]) {
		n++
	}
	if n == 0 {
		return nil
	}
	// The key is as long as it can be and still leave a valid end; a key
	// may end in "-", so it gives back up to two bytes to a closing "-->".
	for k := n; k > 0 && k >= n-2; k-- {
		if endsMarker(rest[k:]) {
			return []string{whole, verb, rest[:k]}
		}
	}
	return nil
}

// endsMarker reports whether s is what may follow a marker's key:
// \s*(?:-->)?\s*$.
func endsMarker(s string) bool {
	s = strings.TrimPrefix(trimSpaceLeft(s), "-->")
	return trimSpaceLeft(s) == ""
}

// isSpace is RE2's \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func trimSpaceLeft(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

// isKeyByte is a byte of a region key: [A-Za-z0-9_.:/-].
func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_.:/-", c) >= 0
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
	out, _, err := parse(data)
	return out, err
}

// parse is Parse that also returns where each region's body lies in data
// ([start, end) byte offsets), for Frame.
func parse(data string) ([]Region, [][2]int, error) {
	var out []Region
	var spans [][2]int
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
				return nil, nil, &Error{line, fmt.Sprintf("opforge:begin %s inside region %s (opened at line %d); regions do not nest", m[2], key, open)}
			}
			if first, dup := seen[m[2]]; dup {
				return nil, nil, &Error{line, fmt.Sprintf("region %s appears twice (first at line %d)", m[2], first)}
			}
			open, key = line, m[2]
			seen[key] = open
			bodyStart = end
		case "end":
			if open < 0 {
				return nil, nil, &Error{line, fmt.Sprintf("opforge:end %s without a matching opforge:begin", m[2])}
			}
			if m[2] != key {
				return nil, nil, &Error{line, fmt.Sprintf("opforge:end %s closes region %s (opened at line %d)", m[2], key, open)}
			}
			out = append(out, Region{Key: key, Body: data[bodyStart:start], Line: open})
			spans = append(spans, [2]int{bodyStart, start})
			open = -1
		}
	}
	if open >= 0 {
		return nil, nil, &Error{open, fmt.Sprintf("region %s is never closed (no opforge:end %s)", key, key)}
	}
	return out, spans, nil
}

// Hash fingerprints a region body, ignoring trailing whitespace on lines
// so an editor's whitespace clean-up does not count as user code.
func Hash(body string) string {
	// Every line, the last one too, is hashed trimmed and with a newline.
	// Generated text has nothing to trim (render normalizes it), so it is
	// hashed as it is, without the copy.
	if !needsTrim(body) {
		return hashLines([]byte(body))
	}
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

// HashBytes is Hash of b's text, without copying b when nothing needs
// trimming.
func HashBytes(b []byte) string {
	if !needsTrim(view(b)) {
		return hashLines(b)
	}
	return Hash(string(b))
}

// FrameHash is Hash(Frame(data)): the fingerprint of what the generator
// alone decides, computed over data's bytes outside the region bodies
// without copying them when nothing needs trimming.
func FrameHash(data []byte) (string, error) {
	_, spans, err := parse(view(data))
	if err != nil {
		return "", err
	}
	return frameHash(data, spans), nil
}

// SkeletonHashes is Defaults and FrameHash of one fresh skeleton, from one
// parse and without copying it: a cold gen computes both for every owned
// file, and the second parse and the copy were a tenth of its CPU.
func SkeletonHashes(fresh []byte) (defaults map[string]string, frame string, err error) {
	rs, spans, err := parse(view(fresh))
	if err != nil {
		return nil, "", err
	}
	defaults = make(map[string]string, len(rs))
	for _, r := range rs {
		// The key is a view of fresh: the map keeps a copy.
		defaults[strings.Clone(r.Key)] = Hash(r.Body)
	}
	return defaults, frameHash(fresh, spans), nil
}

// frameHash hashes data outside the region bodies at spans.
func frameHash(data []byte, spans [][2]int) string {
	pieces := make([][]byte, 0, len(spans)+1)
	for _, p := range outside(len(data), spans) {
		if needsTrim(view(data[p[0]:p[1]])) {
			frame, _ := Frame(string(data))
			return Hash(frame)
		}
		pieces = append(pieces, data[p[0]:p[1]])
	}
	return hashLines(pieces...)
}

// hashLines is Hash's sum of text that needs no trimming: the text and a
// final newline.
func hashLines(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	h.Write([]byte{'\n'})
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// view is b as a string without a copy, for reading only: the callers
// keep nothing of it (no Region of it outlives them) and b does not
// change meanwhile.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// needsTrim reports whether a line of s ends in a space, tab or carriage
// return, which Hash trims.
func needsTrim(s string) bool {
	if strings.ContainsRune(s, '\r') || strings.Contains(s, " \n") || strings.Contains(s, "\t\n") {
		return true
	}
	return s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t')
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
//
// The result is fresh with the body of each region that keeps old code
// swapped in, copied span by span: shared files of thousands of regions
// (a package's Python module) are merged on every gen, and a line-by-line
// copy was most of the writer's time for them. Where old holds no user
// code the result is fresh itself, not a copy: callers must not write to
// it.
func Merge(fresh, old []byte, oldDefaults map[string]string) ([]byte, []Orphan, error) {
	freshRegions, freshSpans, err := parse(view(fresh))
	if err != nil {
		return nil, nil, fmt.Errorf("generated skeleton: %w", err)
	}
	oldRegions, _, err := parse(view(old))
	if err != nil {
		return nil, nil, err
	}
	// A region still holding the default it was generated with is not user
	// code: it takes the new skeleton's default, so template improvements
	// reach regions nobody edited.
	// A body hashed only when it can matter, and once: one the skeleton
	// holds byte for byte merges to the same bytes whether it is user code
	// or a default (most of a package's module's thousand, an op changed).
	freshBody := make(map[string]string, len(freshRegions))
	for _, r := range freshRegions {
		freshBody[r.Key] = r.Body
	}
	kept := make(map[string]string, len(oldRegions))
	var orphans []Orphan
	for _, r := range oldRegions {
		body, inFresh := freshBody[r.Key]
		if inFresh && body == r.Body || Pristine(r, oldDefaults) {
			continue
		}
		kept[r.Key] = r.Body
		if !inFresh {
			orphans = append(orphans, Orphan{strings.Clone(r.Key), r.Line})
		}
	}
	if len(kept) == 0 {
		// No user code: the merge is the skeleton, which is not copied
		// (its megabytes, for a package's module).
		return fresh, nil, nil
	}
	size := len(fresh)
	for _, body := range kept {
		size += len(body)
	}
	out := make([]byte, 0, size)
	last := 0
	for i, r := range freshRegions {
		body, ok := kept[r.Key]
		if !ok {
			continue // the skeleton's default body
		}
		span := freshSpans[i]
		out = append(out, fresh[last:span[0]]...)
		out = append(out, body...)
		last = span[1]
	}
	return append(out, fresh[last:]...), orphans, nil
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
	_, spans, err := parse(data)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	out.Grow(len(data))
	for _, p := range outside(len(data), spans) {
		out.WriteString(data[p[0]:p[1]])
	}
	return out.String(), nil
}

// outside is where the text of a file of n bytes lies outside the region
// bodies at spans: the pieces between them. The bodies are whole lines
// between their marker lines, so each piece but the last ends at a line
// end, and the lines of the pieces are the lines outside the bodies.
func outside(n int, spans [][2]int) [][2]int {
	pieces := make([][2]int, 0, len(spans)+1)
	last := 0
	for _, sp := range spans {
		pieces = append(pieces, [2]int{last, sp[0]})
		last = sp[1]
	}
	return append(pieces, [2]int{last, n})
}
