package load_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
)

// TestHostileInputs: hostile or broken files get one clear error, fast,
// and never a panic.
func TestHostileInputs(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 0, "a"; i < 9; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	cases := []struct {
		name, file, data, code string
	}{
		{"alias bomb", "bomb.yaml", bomb, "yaml-too-large"},
		{"deep yaml", "deep.yaml", strings.Repeat("[", 20000), "yaml-syntax"},
		{"deep xml", "deep.xml", "<OpDefCollection>" + strings.Repeat("<a>", 5000), "xml-too-deep"},
		{"entity", "ent.xml", `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><OpDefCollection>&a;</OpDefCollection>`, "xml-doctype"},
		{"undefined entity", "ent2.xml", `<OpDefCollection PackageName="&foo;"/>`, "xml-syntax"},
		{"binary", "bin.yaml", "version: 1\x00\x01\x02", "not-text"},
		{"latin1", "l1.xml", "<OpDefCollection>\xe9</OpDefCollection>", "not-text"},
		{"other encoding", "enc.xml", `<?xml version="1.0" encoding="UTF-16"?><OpDefCollection/>`, "xml-syntax"},
		{"empty", "e.yaml", "", "yaml-empty"},
		{"scalar doc", "s.yaml", "hello", "yaml-not-mapping"},
		{"two docs", "two.yaml", "a: 1\n---\nb: 2\n", "yaml-multi-document"},
		{"not finite", "i.yaml", "version: .nan\n", "yaml-number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			var l diag.List
			load.Parse(c.file, []byte(c.data), &l)
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if !l.HasErrors() {
				t.Fatalf("no error for %s", c.name)
			}
			var codes []string
			for _, d := range l.Sorted() {
				codes = append(codes, d.Code)
			}
			if !contains(codes, c.code) {
				t.Errorf("got codes %v, want %s", codes, c.code)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestLimits: files over the size limit are refused before parsing, and a
// config with more elements than any real one is refused.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("# padding padding padding padding padding padding padding\n"), 1<<10)
	for written := 0; written < 50<<20; written += len(line) {
		f.Write(line)
	}
	f.Close()
	var l diag.List
	start := time.Now()
	load.File(big, &l)
	if d := l.Sorted(); len(d) != 1 || d[0].Code != "file-too-large" {
		t.Errorf("50 MB file: %v", d)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("50 MB file took %v to refuse", time.Since(start))
	}
	many := "<OpDefCollection>" + strings.Repeat("<x/>", 250_000) + "</OpDefCollection>"
	var l2 diag.List
	load.Parse("many.xml", []byte(many), &l2)
	if d := l2.Sorted(); len(d) != 1 || d[0].Code != "xml-too-large" {
		t.Errorf("many elements: %v", d)
	}
}
