package gen

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/render"
)

// TestCompiledTemplatesMatchTextTemplate generates every testdata package
// with the templates compiled (render's default, tmplexec) and with
// text/template itself, and compares every file byte for byte. The
// compiled run must not have given any template up to text/template, nor
// left one uncompiled, or it would have compared text/template with
// itself.
func TestCompiledTemplatesMatchTextTemplate(t *testing.T) {
	cases, _ := filepath.Glob("../../testdata/gen/*/opdefs")
	if len(cases) == 0 {
		t.Fatal("no testdata packages")
	}
	files := 0
	for _, c := range cases {
		o := Options{OpDefs: c, Toolchains: repo + "/toolchains", Out: t.TempDir()}
		before, _ := render.CompiledStats()
		compiled := mustPlan(t, o)
		after, notCompiled := render.CompiledStats()
		if after != before || len(notCompiled) > 0 {
			t.Fatalf("%s: %d executions fell back to text/template; not compiled: %v", c, after-before, notCompiled)
		}
		restore := render.UseTextTemplate()
		interpreted := mustPlan(t, o)
		restore()
		want := interpreted.Files.Paths()
		if got := compiled.Files.Paths(); len(got) != len(want) {
			t.Fatalf("%s: %d files compiled, %d with text/template", c, len(got), len(want))
		}
		for _, p := range want {
			a, b := compiled.Files.Get(p), interpreted.Files.Get(p)
			if a == nil || b == nil || !bytes.Equal(a.Data, b.Data) {
				t.Errorf("%s: %s differs between compiled templates and text/template", c, p)
			}
			files++
		}
	}
	t.Logf("%d files of %d packages compared", files, len(cases))
}
