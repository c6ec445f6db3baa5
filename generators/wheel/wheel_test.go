package wheel

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func testSpec() Spec {
	p, _ := PlatformFor("linux", "amd64")
	return Spec{
		Name: "opforge", Version: "0.1.0.dev3+gabc1234", Summary: "one op,\nmany targets",
		Platform: p, Executable: []byte("\x7fELF not really"),
		Modified: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC),
	}
}

func TestFileName(t *testing.T) {
	if got, want := testSpec().FileName(),
		"opforge-0.1.0.dev3+gabc1234-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64.whl"; got != want {
		t.Errorf("FileName() = %q, want %q", got, want)
	}
	s := testSpec()
	s.Name, s.Platform = "Op.Forge-x", Platform{GOOS: "windows", GOARCH: "arm64", Tags: []string{"win_arm64"}}
	if got, want := s.FileName(), "op_forge_x-0.1.0.dev3+gabc1234-py3-none-win_arm64.whl"; got != want {
		t.Errorf("FileName() = %q, want %q", got, want)
	}
}

// readWheel returns the wheel's files by name and their zip headers.
func readWheel(t *testing.T, b []byte) (map[string][]byte, map[string]*zip.FileHeader) {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	data, headers := map[string][]byte{}, map[string]*zip.FileHeader{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data[f.Name], _ = io.ReadAll(r)
		headers[f.Name] = &f.FileHeader
	}
	return data, headers
}

func TestWriteLaysOutAnInstallableWheel(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, testSpec()); err != nil {
		t.Fatal(err)
	}
	files, headers := readWheel(t, b.Bytes())
	const di = "opforge-0.1.0.dev3+gabc1234.dist-info/"
	exe := "opforge-0.1.0.dev3+gabc1234.data/scripts/opforge"
	if string(files[exe]) != string(testSpec().Executable) {
		t.Errorf("executable %s missing or changed; files: %v", exe, keys(files))
	}
	if m := headers[exe].Mode(); m&0o111 == 0 {
		t.Errorf("executable mode %v has no x bit: pip would install it unrunnable", m)
	}
	wheel := string(files[di+"WHEEL"])
	for _, want := range []string{"Wheel-Version: 1.0\n", "Root-Is-Purelib: false\n",
		"Tag: py3-none-manylinux_2_17_x86_64\n", "Tag: py3-none-musllinux_1_1_x86_64\n"} {
		if !strings.Contains(wheel, want) {
			t.Errorf("WHEEL lacks %q:\n%s", want, wheel)
		}
	}
	meta := string(files[di+"METADATA"])
	if !strings.Contains(meta, "Summary: one op, many targets\n") || !strings.Contains(meta, "Version: 0.1.0.dev3+gabc1234\n") {
		t.Errorf("METADATA:\n%s", meta)
	}
	// RECORD lists every other file with its real digest and size.
	lines := strings.Split(strings.TrimSpace(string(files[di+"RECORD"])), "\n")
	if len(lines) != len(files) {
		t.Fatalf("RECORD has %d lines for %d files:\n%s", len(lines), len(files), files[di+"RECORD"])
	}
	for _, line := range lines {
		parts := strings.Split(line, ",")
		name := parts[0]
		if name == di+"RECORD" {
			if line != name+",," {
				t.Errorf("RECORD's own line %q", line)
			}
			continue
		}
		sum := sha256.Sum256(files[name])
		if want := fmt.Sprintf("%s,sha256=%s,%d", name, base64.RawURLEncoding.EncodeToString(sum[:]), len(files[name])); line != want {
			t.Errorf("RECORD line %q, want %q", line, want)
		}
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := Write(&a, testSpec()); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, testSpec()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same spec wrote different bytes")
	}
}

func TestWriteRefusesBadSpecs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Spec)
		want   string
	}{
		{"version", func(s *Spec) { s.Version = "1.0-beta" }, "not a PEP 440 version"},
		{"name", func(s *Spec) { s.Name = "op forge" }, "not a distribution name"},
		{"tags", func(s *Spec) { s.Platform.Tags = nil }, "has no tags"},
		{"executable", func(s *Spec) { s.Executable = nil }, "no executable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec()
			tc.mutate(&s)
			err := Write(io.Discard, s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Write() error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, tc := range []struct {
		d    Describe
		want string
	}{
		{Describe{Commits: 412, Revision: "9D42269"}, "0.1.0.dev412+g9d42269"},
		{Describe{Tag: "v1.2.3", Revision: "abc"}, "1.2.3"},
		{Describe{Tag: "v1.2.3", Revision: "abc", Dirty: true}, "1.2.4.dev0+gabc.dirty"},
		{Describe{Tag: "1.9", Commits: 5, Revision: "abc"}, "1.10.dev5+gabc"},
	} {
		got, err := Version(tc.d)
		if err != nil || got != tc.want {
			t.Errorf("Version(%+v) = %q, %v; want %q", tc.d, got, err, tc.want)
		}
	}
	if _, err := Version(Describe{Tag: "release-7", Revision: "abc"}); err == nil {
		t.Error("a tag that is not vX.Y.Z gave a version")
	}
}

func TestEveryPlatformHasAnExecutableName(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Platforms {
		key := p.GOOS + "/" + p.GOARCH
		if seen[key] || len(p.Tags) == 0 {
			t.Errorf("%s: duplicate or untagged", key)
		}
		seen[key] = true
		if got := p.Executable("opforge"); (p.GOOS == "windows") != strings.HasSuffix(got, ".exe") {
			t.Errorf("%s: executable %q", key, got)
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
