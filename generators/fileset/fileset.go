package fileset

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Syntax is a file's comment syntax.
type Syntax struct {
	Line        string // line comment prefix ("//", "#"); empty for block-only syntaxes
	Open, Close string // block comment delimiters ("<!--", "-->")
}

var (
	CLike  = Syntax{Line: "//"}
	Hash   = Syntax{Line: "#"}
	Markup = Syntax{Open: "<!--", Close: "-->"}
	// CBlock is for C block comments only: linker version scripts.
	CBlock = Syntax{Open: "/*", Close: "*/"}
)

// SyntaxFor picks the comment syntax from a file name.
func SyntaxFor(name string) Syntax {
	base := path.Base(name)
	switch {
	case base == "Makefile" || base == "CMakeLists.txt" || strings.HasSuffix(base, ".mk"):
		return Hash
	}
	switch path.Ext(base) {
	case ".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".cl":
		return CLike
	case ".map", ".ld", ".lds":
		return CBlock
	case ".py", ".yaml", ".yml", ".txt", ".cmake", ".sh", ".toml", ".cfg":
		return Hash
	case ".xml", ".md", ".html":
		return Markup
	}
	return Hash
}

// Comment renders text as one comment line in s.
func (s Syntax) Comment(text string) string {
	if s.Line != "" {
		return s.Line + " " + text
	}
	return s.Open + " " + text + " " + s.Close
}

// File is one generated file. Owned files contain user-owned regions that
// regeneration must keep; every other file is rewritten freely.
type File struct {
	Path   string // slash-separated, relative to the output root
	Data   []byte
	Source string // the opdef it came from, for headers and messages
	Owned  bool
	Mode   uint32 // 0 means 0644
	// Moved names, for regions an earlier version of the file had and
	// this one lacks, where their code belongs now (region key -> where):
	// the diagnostic for user code left in one says so.
	Moved map[string]string
	// Kept says the generator did not render the file: the gen cache
	// vouched that the copy on disk holds what it would (ir.Package.Kept).
	// Data is nil; the writer leaves the file and its manifest entry as
	// they are.
	Kept bool
}

// Set is an ordered collection of files keyed by path.
type Set struct {
	files map[string]*File
	// sorted are the paths in order, nil when a file was added out of
	// order since: a gen asks for a 4,000-file set's order many times,
	// and sorting paths that share long prefixes each time was a few ms
	// of it. Sets are mostly filled in path order (from another set's
	// Files, a target's prefix at a time), which keeps it without a sort.
	// mu guards it: readers of a set may run at once.
	mu     sync.Mutex
	sorted []string
}

// New returns an empty set.
func New() *Set { return NewSized(0) }

// NewSized returns an empty set with room for n files: a set filled with
// thousands grows its map and its order without copying them again.
func NewSized(n int) *Set {
	return &Set{files: make(map[string]*File, n), sorted: make([]string, 0, n)}
}

// Add inserts f; a second file at the same path is a generator bug.
func (s *Set) Add(f *File) error {
	if !validPath(f.Path) {
		return fmt.Errorf("invalid generated path %q", f.Path)
	}
	return s.add(f.Path, f)
}

// validPath reports whether p is clean, relative and inside the root.
func validPath(p string) bool {
	return path.Clean(p) == p && !strings.HasPrefix(p, "../") && p != ".." && !path.IsAbs(p) && p != "."
}

// add inserts f at the valid path p.
func (s *Set) add(p string, f *File) error {
	if _, dup := s.files[p]; dup {
		return fmt.Errorf("two generated files at %s", p)
	}
	s.files[p] = f
	s.mu.Lock()
	if n := len(s.sorted); s.sorted != nil && (n == 0 || s.sorted[n-1] < p) {
		s.sorted = append(s.sorted, p)
	} else {
		s.sorted = nil
	}
	s.mu.Unlock()
	return nil
}

// Get returns the file at p, or nil.
func (s *Set) Get(p string) *File { return s.files[p] }

// Paths returns every path, sorted.
func (s *Set) Paths() []string { return slices.Clone(s.order()) }

// order is the sorted paths, which callers must not change.
func (s *Set) order() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sorted == nil {
		s.sorted = make([]string, 0, len(s.files))
		for p := range s.files {
			s.sorted = append(s.sorted, p)
		}
		sort.Strings(s.sorted)
	}
	return s.sorted
}

// Files returns every file in path order.
func (s *Set) Files() []*File {
	var out []*File
	if len(s.files) > 0 {
		out = make([]*File, 0, len(s.files))
	}
	for _, p := range s.order() {
		out = append(out, s.files[p])
	}
	return out
}

// Len is the number of files.
func (s *Set) Len() int { return len(s.files) }

// Merge moves every file of other into s under prefix.
func (s *Set) Merge(prefix string, other *Set) error {
	files := other.Files()
	// A clean relative path below a clean name of one part is clean: the
	// thousands of files of a target's package join without each being
	// cleaned and checked twice (path.Join, then Add).
	if !validPath(prefix) || strings.Contains(prefix, "/") {
		for _, f := range files {
			f.Path = path.Join(prefix, f.Path)
			if err := s.Add(f); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range files {
		f.Path = prefix + "/" + f.Path // f.Path is valid: other's Add checked it
		if err := s.add(f.Path, f); err != nil {
			return err
		}
	}
	return nil
}

// GeneratedHeader and OwnedHeader are the first-line markers that say what
// kind a file is; tools and people can tell them apart at a glance.
func GeneratedHeader(source string) string {
	return "Generated by opforge from " + source + ". DO NOT EDIT."
}

// OwnedHeader marks a file with user-owned regions.
func OwnedHeader(source string) string {
	return "Generated by opforge from " + source + ". Edit only between opforge:begin and opforge:end markers; regeneration keeps that code and rewrites the rest."
}

// Header is the header of a file generated from source: OwnedHeader when
// the file has user regions, else GeneratedHeader.
func Header(source string, owned bool) string {
	if owned {
		return OwnedHeader(source)
	}
	return GeneratedHeader(source)
}

// HeaderLine is header as one comment line of the file name's syntax.
func HeaderLine(name, header string) string { return SyntaxFor(name).Comment(header) + "\n" }

// HeaderAt is where a file's header line goes in data: first, or after an
// XML declaration or a #! line, which must stay first.
func HeaderAt(data []byte) int {
	if bytes.HasPrefix(data, []byte("<?xml")) || bytes.HasPrefix(data, []byte("#!")) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return i + 1
		}
	}
	return 0
}

// WithHeader inserts the header comment at the top of data, after an XML
// declaration or a #! line, which must stay first.
func WithHeader(name string, data []byte, header string) []byte {
	return WithHeaderLine(data, HeaderLine(name, header))
}

// WithHeaderLine is WithHeader of a header line made already (HeaderLine).
func WithHeaderLine(data []byte, line string) []byte {
	at := HeaderAt(data)
	// One allocation: generated trees are large and every file gets a header.
	out := make([]byte, 0, len(data)+len(line))
	out = append(out, data[:at]...)
	out = append(out, line...)
	return append(out, data[at:]...)
}
