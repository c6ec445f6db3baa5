package regions

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"unclosed", "a\n// opforge:begin impl\nx\n", 2, "never closed"},
		{"stray end", "// opforge:end impl\n", 1, "without a matching"},
		{"nested", "# opforge:begin a\n# opforge:begin b\n", 2, "do not nest"},
		{"mismatched", "// opforge:begin a\n// opforge:end b\n", 2, "closes region a"},
		{"duplicate", "// opforge:begin a\n// opforge:end a\n// opforge:begin a\n// opforge:end a\n", 3, "appears twice"},
	}
	for _, c := range cases {
		_, err := Parse(c.src)
		re, ok := err.(*Error)
		if !ok || re.Line != c.line || !strings.Contains(re.Msg, c.msg) {
			t.Errorf("%s: got %v, want line %d containing %q", c.name, err, c.line, c.msg)
		}
	}
}

func TestMergeKeepsBodiesByKey(t *testing.T) {
	fresh := "void f(int a, int b) {\n  // opforge:begin impl\n  return;\n  // opforge:end impl\n}\n<!-- opforge:begin notes -->\n<!-- opforge:end notes -->\n# opforge:begin new\ndefault\n# opforge:end new\n"
	old := "void f(int a) {\n  // opforge:begin impl\n  do_work(a);\n\n  return;\n  // opforge:end impl\n}\n<!-- opforge:begin notes -->\nmine\n<!-- opforge:end notes -->\n"
	got, orphans, err := mergeStrings(fresh, old, nil)
	if err != nil || len(orphans) != 0 {
		t.Fatal(err, orphans)
	}
	want := "void f(int a, int b) {\n  // opforge:begin impl\n  do_work(a);\n\n  return;\n  // opforge:end impl\n}\n<!-- opforge:begin notes -->\nmine\n<!-- opforge:end notes -->\n# opforge:begin new\ndefault\n# opforge:end new\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMergeOrphans(t *testing.T) {
	fresh := "// opforge:begin impl\n// opforge:end impl\n"
	old := "// opforge:begin impl\n// opforge:end impl\n// opforge:begin gone\nuser code\n// opforge:end gone\n// opforge:begin pristine\ndefault\n// opforge:end pristine\n"
	defaults := map[string]string{"gone": Hash("default\n"), "pristine": Hash("default  \n")}
	_, orphans, err := mergeStrings(fresh, old, defaults)
	if err != nil {
		t.Fatal(err)
	}
	if len(orphans) != 1 || orphans[0].Key != "gone" || orphans[0].Line != 3 {
		t.Errorf("orphans = %+v, want only gone at line 3", orphans)
	}
	// Without recorded defaults every vanished region counts as user code.
	_, orphans, _ = mergeStrings(fresh, old, nil)
	if len(orphans) != 2 {
		t.Errorf("without defaults: %+v", orphans)
	}
}

func TestPristineRegionsTakeNewDefaults(t *testing.T) {
	old := "// opforge:begin a\nold default\n// opforge:end a\n// opforge:begin b\nedited\n// opforge:end b\n"
	fresh := "// opforge:begin a\nnew default\n// opforge:end a\n// opforge:begin b\nnew default\n// opforge:end b\n"
	defaults := map[string]string{"a": Hash("old default\n"), "b": Hash("old default\n")}
	got, _, err := mergeStrings(fresh, old, defaults)
	if err != nil {
		t.Fatal(err)
	}
	want := "// opforge:begin a\nnew default\n// opforge:end a\n// opforge:begin b\nedited\n// opforge:end b\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Frame keeps everything but region bodies, so a body edit leaves it alone
// and an edit outside, or a deleted marker, changes it.
func TestFrame(t *testing.T) {
	base := "a\n// opforge:begin k\nbody\n// opforge:end k\nb\n"
	frame := func(s string) string {
		f, err := Frame(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return f
	}
	if got := frame(base); got != "a\n// opforge:begin k\n// opforge:end k\nb\n" {
		t.Errorf("frame %q", got)
	}
	for _, c := range []struct {
		edit string
		same bool
	}{
		{"a\n// opforge:begin k\nmine\nmore\n// opforge:end k\nb\n", true},
		{"a\n// opforge:begin k\nbody\n// opforge:end k\nb\nstray\n", false},
		{"a\nbody\nb\n", false},
	} {
		if got := frame(c.edit) == frame(base); got != c.same {
			t.Errorf("%q: same frame %v, want %v", c.edit, got, c.same)
		}
	}
	if _, err := Frame("// opforge:begin k\n"); err == nil {
		t.Error("no error for an unclosed region")
	}
}

// FrameHash and HashBytes are the fast paths of Hash(Frame(...)) and Hash,
// and SkeletonHashes of Defaults and FrameHash together: they must give
// the same fingerprints on text that needs trimming and on text that does
// not, with and without regions.
func TestFastHashesMatch(t *testing.T) {
	for _, s := range []string{
		"",
		"x",
		"x\n",
		"a \nb\n",
		"a\t\nb",
		"a\r\nb\r\n",
		"trailing space ",
		"head\n// opforge:begin k\nbody  \n// opforge:end k\ntail\n",
		"head \n// opforge:begin k\nbody\n// opforge:end k\ntail\n",
		"// opforge:begin a\n\n// opforge:end a\n# opforge:begin b\nx\n# opforge:end b",
		"h\n// opforge:begin a\nA\n// opforge:end a\nmid\t\n<!-- opforge:begin b -->\nB\n<!-- opforge:end b -->\n",
	} {
		if got, want := HashBytes([]byte(s)), Hash(s); got != want {
			t.Errorf("HashBytes(%q) = %s, Hash = %s", s, got, want)
		}
		frame, err := Frame(s)
		if err != nil {
			t.Fatalf("Frame(%q): %v", s, err)
		}
		if got, err := FrameHash([]byte(s)); err != nil || got != Hash(frame) {
			t.Errorf("FrameHash(%q) = %s, %v; Hash(Frame) = %s", s, got, err, Hash(frame))
		}
		defaults, err := Defaults(s)
		if err != nil {
			t.Fatalf("Defaults(%q): %v", s, err)
		}
		gotDefaults, gotFrame, err := SkeletonHashes([]byte(s))
		if err != nil || gotFrame != Hash(frame) || !maps.Equal(gotDefaults, defaults) {
			t.Errorf("SkeletonHashes(%q) = %v, %s, %v; Defaults %v, Hash(Frame) %s", s, gotDefaults, gotFrame, err, defaults, Hash(frame))
		}
	}
	for _, bad := range []string{"// opforge:begin k\n"} {
		if _, err := FrameHash([]byte(bad)); err == nil {
			t.Error("FrameHash of an unclosed region: no error")
		}
		if _, _, err := SkeletonHashes([]byte(bad)); err == nil {
			t.Error("SkeletonHashes of an unclosed region: no error")
		}
	}
}

// markerRE is the definition marker is written out from.
var markerRE = regexp.MustCompile(`^\s*(?://|#|<!--)\s*opforge:(begin|end)\s+([A-Za-z0-9_.:/-]+)\s*(?:-->)?\s*$`)

func markerByRE(line string) []string {
	if !strings.Contains(line, "opforge:") {
		return nil
	}
	return markerRE.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
}

func TestMarkerIsTheExpression(t *testing.T) {
	for _, line := range markerSeeds {
		if got, want := marker(line), markerByRE(line); !slices.Equal(got, want) {
			t.Errorf("marker(%q) = %q, the expression: %q", line, got, want)
		}
	}
}

var markerSeeds = []string{
	"// opforge:begin k\n", "// opforge:end k", "  #opforge:begin a.b:c/d-e_f\r\n", "<!-- opforge:begin k -->\n",
	"<!-- opforge:begin k-->", "<!-- opforge:begin k--->", "<!--opforge:end k--  -->", "// opforge:begin k-- >",
	"// opforge:beginx k", "// opforge:begin", "// opforge:begin ", "// opforge:begin k extra", "x // opforge:begin k",
	"//opforge:end\tk\t", "\f// opforge:begin k\f", "// opforge: begin k", "/ opforge:begin k", "# opforge:end k -->-->",
	"// opforge:begin k-", "// opforge:begin -->", "// opforge:begin --->", "// opforge:end k\n\n", "opforge:begin k",
	"// opforge:begin k\r", "// opforge:begin k\x00", "<!-- opforge:end ké -->",
}

func FuzzMarker(f *testing.F) {
	for _, s := range markerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := marker(line), markerByRE(line); !slices.Equal(got, want) {
			t.Errorf("marker(%q) = %q, the expression: %q", line, got, want)
		}
	})
}

func mergeStrings(fresh, old string, oldDefaults map[string]string) (string, []Orphan, error) {
	b, orphans, err := Merge([]byte(fresh), []byte(old), oldDefaults)
	return string(b), orphans, err
}

// mergeByLines is Merge as it was first written, a copy line by line: the
// specification FuzzMerge holds the span-by-span copy to.
func mergeByLines(fresh, old string, oldDefaults map[string]string) (string, error) {
	if _, err := Parse(fresh); err != nil {
		return "", err
	}
	oldRegions, err := Parse(old)
	if err != nil {
		return "", err
	}
	kept := map[string]string{}
	for _, r := range oldRegions {
		if !Pristine(r, oldDefaults) {
			kept[r.Key] = r.Body
		}
	}
	var out strings.Builder
	inRegion := ""
	for _, ln := range strings.SplitAfter(fresh, "\n") {
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
				out.WriteString(ln)
			}
		default:
			out.WriteString(ln)
		}
	}
	return out.String(), nil
}

func FuzzMerge(f *testing.F) {
	f.Add("a\n// opforge:begin k\ndefault\n// opforge:end k\nb", "// opforge:begin k\nmine\n// opforge:end k\n", true)
	f.Add("# opforge:begin a\n# opforge:end a\n<!-- opforge:begin b -->\nx\n<!-- opforge:end b -->", "<!-- opforge:begin b -->\ny\r\n<!-- opforge:end b -->\n# opforge:begin a\nz # opforge:end a\n# opforge:end a", false)
	f.Add("// opforge:begin k\n// opforge:end k", "// opforge:begin k\ndefault\n// opforge:end k\n// opforge:begin gone\ncode\n// opforge:end gone\n", true)
	f.Fuzz(func(t *testing.T, fresh, old string, withDefaults bool) {
		var defaults map[string]string
		if withDefaults {
			defaults, _ = Defaults(fresh)
		}
		got, _, err := mergeStrings(fresh, old, defaults)
		want, wantErr := mergeByLines(fresh, old, defaults)
		if (err != nil) != (wantErr != nil) || got != want {
			t.Errorf("Merge(%q, %q) = %q, %v; line by line: %q, %v", fresh, old, got, err, want, wantErr)
		}
	})
}

// TestMergeWithoutUserCodeIsTheSkeleton: old holding only defaults (its
// recorded ones, or vanished regions still at theirs) merges to fresh
// itself, not a copy of it; old holding user code merges to a new buffer
// and leaves fresh as it was.
func TestMergeWithoutUserCodeIsTheSkeleton(t *testing.T) {
	fresh := []byte("// opforge:begin a\nnew default\n// opforge:end a\n// opforge:begin b\nnew default\n// opforge:end b\n")
	pristine := []byte("// opforge:begin a\nold default\n// opforge:end a\n// opforge:begin gone\nold default\n// opforge:end gone\n")
	edited := []byte("// opforge:begin a\nmine\n// opforge:end a\n")
	defaults := map[string]string{"a": Hash("old default\n"), "gone": Hash("old default\n")}
	before := string(fresh)

	got, orphans, err := Merge(fresh, pristine, defaults)
	if err != nil || len(orphans) != 0 || string(got) != before || &got[0] != &fresh[0] {
		t.Fatalf("no user code: %q, orphans %v, err %v, the skeleton itself: %v", got, orphans, err, err == nil && len(got) > 0 && &got[0] == &fresh[0])
	}
	got, orphans, err = Merge(fresh, edited, defaults)
	if err != nil || len(orphans) != 0 || &got[0] == &fresh[0] || string(fresh) != before {
		t.Fatalf("user code: %q, orphans %v, err %v; fresh now %q", got, orphans, err, fresh)
	}
	if want := strings.Replace(before, "new default", "mine", 1); string(got) != want {
		t.Errorf("user code merged as\n%s\nnot\n%s", got, want)
	}
	// Bodies the skeleton holds byte for byte merge to the same bytes
	// whether they are user code or defaults: no copy either, and no
	// defaults needed to tell.
	got, orphans, err = Merge(fresh, fresh, nil)
	if err != nil || len(orphans) != 0 || &got[0] != &fresh[0] {
		t.Fatalf("the skeleton merged with itself: %q, orphans %v, err %v", got, orphans, err)
	}
}
