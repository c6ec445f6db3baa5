package registry

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// vocabulary is each target's vendor vocabulary: the words that name the
// vendor, its products and its APIs, which only the target's own folder
// (generators/targets/<t>/) and the registry may say. Names are matched
// as words: split at anything but letters and digits and at camelCase
// humps ("qnnForHTP" says qnn and HTP; "htpopt" and "trtexec" say
// neither), ignoring case. Spellings are matched as substrings, for
// names that are distinctive anywhere ("TensorRTPlugin") or that join
// words with an underscore; those in Exact keep their case, as they are
// English words in lower case.
var vocabulary = map[string]struct{ Names, Spellings, Exact []string }{
	"htp": {
		Names:     []string{"htp", "qnn"},
		Spellings: []string{"hexagon", "qualcomm", "executorch"},
	},
	"trt": {
		Names:     []string{"trt", "qdp"},
		Spellings: []string{"tensorrt", "nvidia", "nvinfer", "ipluginv", "plugin_namespace", "plugin_version", "iexprbuilder"},
	},
	"aipu": {
		Names:     []string{"aipu"},
		Spellings: []string{"arm china", "arm-china", "gbuilder"},
		Exact:     []string{"Compass"},
	},
}

// vocabularyExceptions are the places a core package may say a vendor's
// word, each with why it must; the test fails on one that no longer
// matches, so the table never outlives its reason.
var vocabularyExceptions = []struct {
	File, Word, Why string
}{
	{"generators/ir/ir.go", "qnn", "the IR still keeps the facts only QNN's op-package XML states " +
		"(Reference, Constraint, UseDefaultTranslation, DynamicShape text, SCALAR vs 0-D ranks, Defaults " +
		"kept as text) so that format round-trips through YAML; each field names the element it keeps, " +
		"until they move into the htp target's sections"},
}

// TestNoVendorVocabularyInTheCore: a vendor's vocabulary stays in its
// target's folder. Every Go source file (tests aside) of a package under
// generators/ that is not a target's (generators/targets/<t>/...) or the
// registry (generators/registry) is scanned, comments included, and
// each word found is reported at file:line.
func TestNoVendorVocabularyInTheCore(t *testing.T) {
	for _, name := range Names() {
		if _, ok := vocabulary[name]; !ok {
			t.Errorf("target %s has no vocabulary in this test's table: add the words that name its vendor", name)
		}
	}
	used := make([]bool, len(vocabularyExceptions))
	var found []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "../targets" || path == "../registry" {
				return fs.SkipDir // the targets' own and the registry's
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel := "generators/" + filepath.ToSlash(strings.TrimPrefix(path, "../"))
		return scanVocabulary(path, func(line int, target, word string) {
			for i, x := range vocabularyExceptions {
				if x.File == rel && strings.EqualFold(x.Word, word) {
					used[i] = true
					return
				}
			}
			found = append(found, fmt.Sprintf("%s:%d: %s (target %s)", rel, line, word, target))
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: vendor vocabulary in a core package; move it to the target", f)
	}
	for i, x := range vocabularyExceptions {
		if !used[i] {
			t.Errorf("exception %s %q matches nothing any more: remove it", x.File, x.Word)
		}
	}
}

// scanVocabulary calls found for every vendor word of file, by line.
func scanVocabulary(file string, found func(line int, target, word string)) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		lower := strings.ToLower(line)
		words := words(line)
		for target, v := range vocabulary {
			for _, name := range v.Names {
				if slices.ContainsFunc(words, func(w string) bool { return strings.EqualFold(w, name) }) {
					found(n, target, name)
				}
			}
			for _, s := range v.Spellings {
				if strings.Contains(lower, s) {
					found(n, target, s)
				}
			}
			for _, s := range v.Exact {
				if strings.Contains(line, s) {
					found(n, target, s)
				}
			}
		}
	}
	return sc.Err()
}

// words splits s into words: runs of letters and digits, each split again
// at its camelCase humps ("qnnForHTPOps": qnn, For, HTP, Ops).
func words(s string) []string {
	var out []string
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out = append(out, humps(run)...)
	}
	return out
}

// humps splits a run at each lower-to-upper step and before the last
// capital of a capital run followed by a lower-case letter.
func humps(run string) []string {
	r := []rune(run)
	var out []string
	start := 0
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		capsEnd := unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if lowerToUpper || capsEnd {
			out = append(out, string(r[start:i]))
			start = i
		}
	}
	return append(out, string(r[start:]))
}

// TestVocabularyMatching holds the scanner to its rules: names as words
// (camelCase humps and underscores split them, other letters do not),
// spellings anywhere, exact spellings in their case.
func TestVocabularyMatching(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"func qnnForHTP(pkg *ir.Package) bool", []string{"htp", "qnn"}},
		{`import "generators/targets/htp/htpopt"`, []string{"htp"}},
		{"// htpopt.OfOp and trtexec, aipubt_ files", nil},
		{`"EfficientNMS_TRT"`, []string{"trt"}},
		{"QNN_DATATYPE_FLOAT_32", []string{"qnn"}},
		{`n.Attr("plugin_namespace")`, []string{"plugin_namespace"}},
		{"type TensorRTPlugin struct{}", []string{"tensorrt"}},
		{"nvinfer1::IPluginV3OneCore", []string{"ipluginv", "nvinfer"}},
		{"// the compass points north", nil},
		{"// the Compass Parser", []string{"Compass"}},
		{"// ExecuTorch's delegate", []string{"executorch"}},
		{"// a target's plugins and parsers", nil},
	} {
		file := filepath.Join(t.TempDir(), "x.go")
		if err := os.WriteFile(file, []byte(c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := scanVocabulary(file, func(_ int, _, word string) { got = append(got, word) }); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: found %q, want %q", c.line, got, c.want)
		}
	}
}
