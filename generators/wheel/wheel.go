// Package wheel writes binary Python wheels that carry the opforge
// executable, the way ruff and uv ship theirs: the wheel holds no Python
// code, only the executable under <name>-<version>.data/scripts/, which pip
// installs onto the environment's PATH (bin/ or Scripts\). ML engineers
// install their tools with pip; this lets them install opforge the same way.
//
// The format is the binary distribution format of PEP 427 (a zip with a
// .dist-info folder holding METADATA, WHEEL and RECORD); platform tags are
// those of PEP 600 (manylinux), PEP 656 (musllinux) and the macOS and
// Windows tags pip accepts.
package wheel

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Platform is one target Go cross-compiles to and the wheel platform tags
// its executable runs under.
type Platform struct {
	GOOS, GOARCH string
	// Tags are the platform tags, most specific first. A Go executable
	// built with CGO_ENABLED=0 links no C library, so one wheel serves
	// glibc (manylinux) and musl (musllinux) systems alike.
	Tags []string
}

// Platforms are the wheels `go tool mage wheel` builds. The macOS floor is
// the Go runtime's (macOS 12 since Go 1.25); manylinux_2_17 is the oldest
// tag current pip still takes for the glibc systems a static executable
// runs on.
var Platforms = []Platform{
	{"linux", "amd64", []string{"manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"}},
	{"linux", "arm64", []string{"manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_1_aarch64"}},
	{"darwin", "amd64", []string{"macosx_12_0_x86_64"}},
	{"darwin", "arm64", []string{"macosx_12_0_arm64"}},
	{"windows", "amd64", []string{"win_amd64"}},
	{"windows", "arm64", []string{"win_arm64"}},
}

// PlatformFor returns the platform of goos/goarch, or false when opforge
// ships no wheel for it.
func PlatformFor(goos, goarch string) (Platform, bool) {
	for _, p := range Platforms {
		if p.GOOS == goos && p.GOARCH == goarch {
			return p, true
		}
	}
	return Platform{}, false
}

// Executable is the executable's file name on the platform.
func (p Platform) Executable(name string) string {
	if p.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// Spec is one wheel to write.
type Spec struct {
	// Name is the distribution name (normalized as PEP 503 says before it
	// reaches a file name).
	Name string
	// Version is a PEP 440 version.
	Version  string
	Summary  string
	Homepage string
	Platform Platform
	// Executable is the executable's bytes; it is installed as
	// Platform.Executable(Name).
	Executable []byte
	// Modified stamps every zip entry, so the same inputs give the same
	// bytes (pass a fixed time, e.g. the commit's).
	Modified time.Time
}

// pep440 matches a PEP 440 version: public part plus an optional local
// label (the appendix's canonical form, epochs left out).
var pep440 = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[a-z0-9]+(\.[a-z0-9]+)*)?$`)

// distName is a distribution name PEP 508 accepts.
var distName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`) })

func (s Spec) validate() error {
	if !distName().MatchString(s.Name) {
		return fmt.Errorf("wheel: %q is not a distribution name", s.Name)
	}
	if !pep440.MatchString(s.Version) {
		return fmt.Errorf("wheel: %q is not a PEP 440 version", s.Version)
	}
	if len(s.Platform.Tags) == 0 {
		return fmt.Errorf("wheel: platform %s/%s has no tags", s.Platform.GOOS, s.Platform.GOARCH)
	}
	if len(s.Executable) == 0 {
		return fmt.Errorf("wheel: no executable")
	}
	return nil
}

// escapedName is the name as wheel file and folder names spell it: runs
// of -_. become one underscore (PEP 427's escaping of PEP 503's
// normalized name).
func escapedName(name string) string {
	return regexp.MustCompile(`[-_.]+`).ReplaceAllString(strings.ToLower(name), "_")
}

// FileName is the wheel's file name: name-version-py3-none-platform.whl,
// the platform tags joined by dots (a compressed tag set).
func (s Spec) FileName() string {
	return fmt.Sprintf("%s-%s-py3-none-%s.whl", escapedName(s.Name), s.Version, strings.Join(s.Platform.Tags, "."))
}

// Write writes the wheel to w.
func Write(w io.Writer, s Spec) error {
	if err := s.validate(); err != nil {
		return err
	}
	base := escapedName(s.Name) + "-" + s.Version
	distInfo := base + ".dist-info/"
	files := []file{
		{path: base + ".data/scripts/" + s.Platform.Executable(s.Name), data: s.Executable, mode: 0o755},
		{path: distInfo + "METADATA", data: metadata(s), mode: 0o644},
		{path: distInfo + "WHEEL", data: wheelFile(s), mode: 0o644},
	}
	files = append(files, file{path: distInfo + "RECORD", data: record(files, distInfo+"RECORD"), mode: 0o644})

	z := zip.NewWriter(w)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.path, Method: zip.Deflate, Modified: s.Modified.UTC()}
		h.SetMode(f.mode)
		fw, err := z.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return z.Close()
}

type file struct {
	path string
	data []byte
	mode fs.FileMode
}

func metadata(s Spec) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", s.Name, s.Version)
	if s.Summary != "" {
		fmt.Fprintf(&b, "Summary: %s\n", oneLine(s.Summary))
	}
	if s.Homepage != "" {
		fmt.Fprintf(&b, "Project-URL: Homepage, %s\n", oneLine(s.Homepage))
	}
	return b.Bytes()
}

// oneLine keeps a header value on its line: a newline in it would start
// a header of its own.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func wheelFile(s Spec) []byte {
	var b bytes.Buffer
	// Root-Is-Purelib false: the wheel is platform-specific.
	b.WriteString("Wheel-Version: 1.0\nGenerator: opforge (go tool mage wheel)\nRoot-Is-Purelib: false\n")
	for _, t := range s.Platform.Tags {
		fmt.Fprintf(&b, "Tag: py3-none-%s\n", t)
	}
	return b.Bytes()
}

// record is the RECORD file: each file's path, sha256 digest (urlsafe
// base64, no padding) and size; RECORD itself is listed without either.
func record(files []file, self string) []byte {
	var b bytes.Buffer
	for _, f := range files {
		sum := sha256.Sum256(f.data)
		fmt.Fprintf(&b, "%s,sha256=%s,%d\n", f.path, base64.RawURLEncoding.EncodeToString(sum[:]), len(f.data))
	}
	fmt.Fprintf(&b, "%s,,\n", self)
	return b.Bytes()
}
