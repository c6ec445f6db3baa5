package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; zero means
// "unknown" and is printed as the file alone.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return p.File
	}
}

// IsZero reports whether p carries no position at all.
func (p Pos) IsZero() bool { return p == Pos{} }

// Severity orders diagnostics; errors stop generation, warnings do not.
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Diagnostic is one problem. Code is a stable kebab-case rule name that
// tests and tools can match on; Target is set when only one generation
// target cares (its name), and is printed as a message prefix.
type Diagnostic struct {
	Pos      Pos      `json:"pos"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Target   string   `json:"target,omitempty"`
	Message  string   `json:"message"`
	// Acknowledged marks a warning the opdef acknowledges where it arises
	// (`acknowledge: [code]`): text output counts it instead of printing it.
	Acknowledged bool `json:"acknowledged,omitempty"`
}

func (d Diagnostic) String() string {
	msg := d.Message
	if d.Target != "" {
		msg = d.Target + ": " + msg
	}
	return fmt.Sprintf("%s: %s: %s [%s]", d.Pos, d.Severity, msg, d.Code)
}

// List accumulates diagnostics. The zero value is ready to use. It is not
// safe for concurrent use; parallel stages keep one List each and Merge.
type List struct {
	items []Diagnostic
}

// Errorf records an error.
func (l *List) Errorf(pos Pos, code, format string, args ...any) {
	l.Add(Diagnostic{Pos: pos, Severity: Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Warnf records a warning.
func (l *List) Warnf(pos Pos, code, format string, args ...any) {
	l.Add(Diagnostic{Pos: pos, Severity: Warning, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Add records d as is.
func (l *List) Add(d Diagnostic) { l.items = append(l.items, d) }

// Merge appends every diagnostic of other.
func (l *List) Merge(other *List) {
	if other != nil {
		l.items = append(l.items, other.items...)
	}
}

// ForTarget returns a view that stamps every diagnostic with target.
func (l *List) ForTarget(target string) *TargetList { return &TargetList{list: l, target: target} }

// HasErrors reports whether any error was recorded.
func (l *List) HasErrors() bool {
	for _, d := range l.items {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Len is the number of recorded diagnostics, duplicates included.
func (l *List) Len() int { return len(l.items) }

// Sorted returns the diagnostics ordered by file, line, column, severity,
// code and message, with exact duplicates removed. Loaders that reach the
// same node twice (an alias, a shared type list) thus report it once.
func (l *List) Sorted() []Diagnostic {
	out := make([]Diagnostic, len(l.items))
	copy(out, l.items)
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	w := 0
	for i, d := range out {
		if i > 0 && d == out[w-1] {
			continue
		}
		out[w] = d
		w++
	}
	return out[:w]
}

func less(a, b Diagnostic) bool {
	if a.Pos.File != b.Pos.File {
		return a.Pos.File < b.Pos.File
	}
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	if a.Pos.Col != b.Pos.Col {
		return a.Pos.Col < b.Pos.Col
	}
	if a.Severity != b.Severity {
		return a.Severity < b.Severity
	}
	if a.Target != b.Target {
		return a.Target < b.Target
	}
	if a.Code != b.Code {
		return a.Code < b.Code
	}
	return a.Message < b.Message
}

// Counts returns the number of errors and warnings after de-duplication;
// acknowledged warnings are not counted.
func (l *List) Counts() (errors, warnings int) {
	for _, d := range l.Sorted() {
		switch {
		case d.Severity == Error:
			errors++
		case !d.Acknowledged:
			warnings++
		}
	}
	return errors, warnings
}

// Acknowledge marks every warning that match accepts as acknowledged and
// returns how many it accepted (acknowledged before or not).
func (l *List) Acknowledge(match func(Diagnostic) bool) int {
	n := 0
	for i := range l.items {
		if d := &l.items[i]; d.Severity == Warning && match(*d) {
			d.Acknowledged = true
			n++
		}
	}
	return n
}

// WriteText prints one line per diagnostic, less the acknowledged
// warnings, which one closing line counts by code.
func (l *List) WriteText(w io.Writer) error {
	var sb strings.Builder
	acked := map[string]int{}
	var codes []string
	for _, d := range l.Sorted() {
		if d.Acknowledged {
			if acked[d.Code] == 0 {
				codes = append(codes, d.Code)
			}
			acked[d.Code]++
			continue
		}
		sb.WriteString(d.String())
		sb.WriteByte('\n')
	}
	if len(codes) > 0 {
		sort.Strings(codes)
		n := 0
		for i, c := range codes {
			n += acked[c]
			codes[i] = fmt.Sprintf("%s ×%d", c, acked[c])
		}
		fmt.Fprintf(&sb, "%d acknowledged warning(s) not shown (%s); opforge validate --format json lists them\n", n, strings.Join(codes, ", "))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteJSON prints the diagnostics as one JSON array (never null).
func (l *List) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(l.Sorted())
}

// TargetList is a List view whose diagnostics belong to one target.
type TargetList struct {
	list   *List
	target string
}

// Sub returns a view for t's target over a list of its own, for checks
// that run concurrently; Join appends what it recorded to t's list, so
// subs joined in a fixed order report as one serial check would.
func (t *TargetList) Sub() *TargetList { return &TargetList{list: &List{}, target: t.target} }

// Len is the number of diagnostics recorded in t's list.
func (t *TargetList) Len() int { return t.list.Len() }

// Join appends what sub (made by Sub) recorded.
func (t *TargetList) Join(sub *TargetList) { t.list.Merge(sub.list) }

// Errorf records an error for the view's target.
func (t *TargetList) Errorf(pos Pos, code, format string, args ...any) {
	t.list.Add(Diagnostic{Pos: pos, Severity: Error, Code: code, Target: t.target, Message: fmt.Sprintf(format, args...)})
}

// Warnf records a warning for the view's target.
func (t *TargetList) Warnf(pos Pos, code, format string, args ...any) {
	t.list.Add(Diagnostic{Pos: pos, Severity: Warning, Code: code, Target: t.target, Message: fmt.Sprintf(format, args...)})
}

// HasErrorsSince reports whether an error was recorded after the list had
// mark entries (a value of Len taken earlier).
func (l *List) HasErrorsSince(mark int) bool {
	for _, d := range l.items[min(mark, len(l.items)):] {
		if d.Severity == Error {
			return true
		}
	}
	return false
}
