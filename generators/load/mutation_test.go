package load_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
)

// maxWrongLineRate bounds the share of mutations whose errors all land on
// another line than the mutated one (see TestMutationPositions).
var maxWrongLineRate = flag.Float64("max-wrong-line", 0.01, "largest share of mutations whose diagnostics miss the mutated line")

// mutation is one systematic edit of a valid opdef whose position is
// known: the diagnostics should include an error on line (and, where col
// is set, at that column).
type mutation struct {
	kind string
	data []byte
	line int
	col  int
}

// mutationSources are valid opdefs: the repository's, the generator test
// inputs, the QNN configs generated from them, and the real QNN configs
// of the shared fixtures (when present).
func mutationSources(t *testing.T) []string {
	var files []string
	for _, pat := range []string{
		"../../testdata/gen/*/opdefs/*/*.yaml", "../../testdata/gen/*/out/htp/*/config/*.xml",
		"../../../shared/fixtures/qnn*/*/*.xml",
		"../../testdata/diagnostics/*/*.yaml", "../../testdata/diagnostics/*/*.xml",
	} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

var (
	yKeyLine   = regexp.MustCompile(`^( *)(- )?([A-Za-z_][A-Za-z0-9_]*):( |$)`)
	yPlainVal  = regexp.MustCompile(`^( *(?:- )?[A-Za-z_][A-Za-z0-9_]*: )([A-Za-z0-9_.][^#]*?)\s*$`)
	xStartAttr = regexp.MustCompile(`\s([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"`)
	xSimple    = regexp.MustCompile(`^(\s*)<([A-Za-z]+)>([^<]+)</([A-Za-z]+)>\s*$`)
)

func keyCol(line string) int {
	m := yKeyLine.FindStringSubmatch(line)
	if m == nil {
		return -1
	}
	return len(m[1]) + len(m[2])
}

func replaceLine(lines []string, i int, s string) []byte {
	out := append([]string{}, lines...)
	out[i] = s
	return []byte(strings.Join(out, "\n"))
}

func yamlMutations(data []byte) []mutation {
	lines := strings.Split(string(data), "\n")
	var out []mutation
	for i, s := range lines {
		n := i + 1
		kc := keyCol(s)
		prev := -1
		if i > 0 {
			prev = keyCol(lines[i-1])
		}
		next := -1
		if i+1 < len(lines) {
			next = keyCol(lines[i+1])
		}
		m := yKeyLine.FindStringSubmatch(s)
		plainKey := m != nil && m[2] == ""
		if plainKey && kc > 0 && prev == kc && strings.TrimSpace(lines[i-1]) != "" {
			out = append(out,
				mutation{"yaml-indent+1", replaceLine(lines, i, " "+s), n, 0},
				mutation{"yaml-indent-1", replaceLine(lines, i, s[1:]), n, 0},
				mutation{"yaml-tab", replaceLine(lines, i, "\t"+s[1:]), n, 1})
		}
		if plainKey && kc > 0 && next == kc && strings.HasSuffix(strings.TrimSpace(s), ":") == false {
			if v := yPlainVal.FindStringSubmatch(s); v != nil {
				out = append(out, mutation{"yaml-delete-colon", replaceLine(lines, i, strings.Replace(s, ": ", " ", 1)), n, 0})
			}
		}
		if t := strings.TrimRight(s, " "); strings.HasSuffix(t, "}") || strings.HasSuffix(t, "]") {
			out = append(out, mutation{"yaml-delete-close", replaceLine(lines, i, t[:len(t)-1]), n, 0})
		}
		if q := strings.Index(s, `: "`); q > 0 && strings.Count(s, `"`) == 2 && strings.HasSuffix(strings.TrimRight(s, " "), `"`) {
			out = append(out, mutation{"yaml-delete-quote", replaceLine(lines, i, strings.TrimRight(s, " ")[:len(strings.TrimRight(s, " "))-1]), n, 0})
		}
		if v := yPlainVal.FindStringSubmatch(s); v != nil {
			col := len(v[1]) + 1
			out = append(out,
				mutation{"yaml-unknown-anchor", replaceLine(lines, i, v[1]+"*nosuch"), n, col},
				mutation{"yaml-reserved-char", replaceLine(lines, i, v[1]+"@"+v[2]), n, 0},
				mutation{"yaml-wrong-value", replaceLine(lines, i, v[1]+"{x: [1]}"), n, 0})
			if plainKey {
				dup := append(append(append([]string{}, lines[:i+1]...), s), lines[i+1:]...)
				out = append(out, mutation{"yaml-duplicate-key", []byte(strings.Join(dup, "\n")), n + 1, 0})
			}
		}
	}
	return out
}

func xmlMutations(data []byte) []mutation {
	lines := strings.Split(string(data), "\n")
	var out []mutation
	for i, s := range lines {
		n := i + 1
		if strings.Contains(s, "<?xml") || strings.Contains(s, "xmlns") {
			continue
		}
		// Attributes, on the line where they are written (start tags
		// may span lines).
		for _, m := range xStartAttr.FindAllStringSubmatchIndex(s, -1) {
			name := s[m[2]:m[3]]
			out = append(out,
				mutation{"xml-attr-name", replaceLine(lines, i, s[:m[2]]+name+"X"+s[m[3]:]), n, m[2] + 1})
			if name == "id" || name == "Type" {
				out = append(out, mutation{"xml-attr-value", replaceLine(lines, i, s[:m[4]]+"bogus"+s[m[5]:]), n, m[2] + 1})
			}
		}
		if m := xSimple.FindStringSubmatch(s); m != nil && m[2] == m[4] {
			ind, tag, text := m[1], m[2], m[3]
			out = append(out,
				mutation{"xml-element-name", replaceLine(lines, i, ind+"<"+tag+"Q>"+text+"</"+tag+"Q>"), n, len(ind) + 1},
				mutation{"xml-close-tag", replaceLine(lines, i, ind+"<"+tag+">"+text+"</"+tag+"Q>"), n, 0},
				mutation{"xml-delete-gt", replaceLine(lines, i, ind+"<"+tag+text+"</"+tag+">"), n, 0})
			if strings.HasPrefix(text, "QNN_DATATYPE_") || text == "true" || text == "false" || strings.HasPrefix(text, "QNN_") {
				out = append(out, mutation{"xml-wrong-value", replaceLine(lines, i, ind+"<"+tag+">"+text+"_BOGUS</"+tag+">"), n, 0})
			}
		}
	}
	return out
}

func loadErrors(path string, data []byte) []diag.Diagnostic {
	var l diag.List
	if pkg := load.Parse(path, data, &l); pkg != nil {
		load.Validate(pkg, &l)
		registry.Check(&l, pkg)
	}
	var errs []diag.Diagnostic
	for _, d := range l.Sorted() {
		if d.Severity == diag.Error {
			errs = append(errs, d)
		}
	}
	return errs
}

// TestMutationPositions measures where diagnostics land: every mutation of
// every valid source must produce an error on the mutated line; the share
// of mutations whose errors all sit on other lines must stay below
// -max-wrong-line. With -v it prints the rates per kind and each miss.
func TestMutationPositions(t *testing.T) {
	type stat struct{ total, wrongLine, wrongCol, noCol, silent int }
	stats := map[string]*stat{}
	var all stat
	var misses []string
	for _, f := range mutationSources(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if errs := loadErrors(f, data); len(errs) > 0 {
			continue // only valid sources have a known mutation position
		}
		var muts []mutation
		if strings.HasSuffix(f, ".xml") {
			muts = xmlMutations(data)
		} else {
			muts = yamlMutations(data)
		}
		for _, m := range muts {
			s := stats[m.kind]
			if s == nil {
				s = &stat{}
				stats[m.kind] = s
			}
			errs := loadErrors(f, m.data)
			if len(errs) == 0 {
				s.silent++
				all.silent++
				continue
			}
			s.total++
			all.total++
			onLine, onCol := false, m.col == 0
			for _, d := range errs {
				if strings.HasSuffix(d.Code, "-syntax") && d.Pos.Col == 0 {
					s.noCol++
					all.noCol++
					misses = append(misses, fmt.Sprintf("%s:%d (%s): no column: %s", f, m.line, m.kind, d))
				}
				if d.Pos.Line == m.line {
					onLine = true
					onCol = onCol || d.Pos.Col == m.col
				}
			}
			if !onLine {
				s.wrongLine++
				all.wrongLine++
				misses = append(misses, fmt.Sprintf("%s:%d (%s): got %s", f, m.line, m.kind, errs[0]))
			} else if !onCol {
				s.wrongCol++
				all.wrongCol++
				misses = append(misses, fmt.Sprintf("%s:%d:%d (%s): column: got %s", f, m.line, m.col, m.kind, errs[0]))
			}
		}
	}
	kinds := make([]string, 0, len(stats))
	for k := range stats {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var buf bytes.Buffer
	for _, k := range kinds {
		s := stats[k]
		fmt.Fprintf(&buf, "  %-20s %4d diagnosed, %3d wrong line, %3d wrong column, %3d syntax errors without a column, %3d accepted\n", k, s.total, s.wrongLine, s.wrongCol, s.noCol, s.silent)
	}
	t.Logf("mutations: %d diagnosed, %d on the wrong line (%.1f%%), %d on the wrong column, %d syntax errors without a column; %d accepted\n%s",
		all.total, all.wrongLine, 100*float64(all.wrongLine)/float64(max(all.total, 1)), all.wrongCol, all.noCol, all.silent, buf.String())
	if testing.Verbose() {
		for _, m := range misses {
			t.Log(m)
		}
	}
	if all.total < 300 {
		t.Fatalf("only %d mutations diagnosed; the sources went missing?", all.total)
	}
	if all.noCol > 0 {
		t.Errorf("%d syntax errors carry no column", all.noCol)
	}
	if rate := float64(all.wrongLine) / float64(all.total); rate > *maxWrongLineRate {
		t.Errorf("%.1f%% of the mutations are diagnosed on the wrong line (limit %.1f%%)", 100*rate, 100**maxWrongLineRate)
	}
}
