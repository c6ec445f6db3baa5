package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestUsageAndREADMEAgree: every command and flag `opforge help` prints is
// in the README's reference, so the two cannot drift apart.
func TestUsageAndREADMEAgree(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	commands := regexp.MustCompile(`(?m)^  opforge ([a-z]+)`).FindAllStringSubmatch(usage(), -1)
	if len(commands) < 10 {
		t.Fatalf("found %d commands in the usage text", len(commands))
	}
	for _, c := range commands {
		if !strings.Contains(readme, "opforge "+c[1]) {
			t.Errorf("the README does not mention `opforge %s`", c[1])
		}
	}
	for _, f := range regexp.MustCompile(`--[a-z][a-z-]+`).FindAllString(usage(), -1) {
		if !strings.Contains(readme, f) {
			t.Errorf("the README does not mention %s", f)
		}
	}
}

// TestMageTargetsInREADME: every target `go tool mage -l` lists is in the
// README.
func TestMageTargetsInREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../magefiles/magefile.go")
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range regexp.MustCompile(`(?m)^func ([A-Z][a-z]+)\(\) error`).FindAllStringSubmatch(string(src), -1) {
		targets = append(targets, "mage "+strings.ToLower(m[1]))
	}
	for _, m := range regexp.MustCompile(`(?m)^func \(Build\) ([A-Z][a-z]+)\(\) error`).FindAllStringSubmatch(string(src), -1) {
		targets = append(targets, "build:"+strings.ToLower(m[1]))
	}
	if len(targets) < 10 {
		t.Fatalf("found %d mage targets: %v", len(targets), targets)
	}
	for _, target := range targets {
		if !strings.Contains(string(readme), target) {
			t.Errorf("the README does not mention %s", target)
		}
	}
}
