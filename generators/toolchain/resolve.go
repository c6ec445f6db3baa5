package toolchain

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Found is where a piece was found, or why it was not.
type Found struct {
	Name        string
	Description string
	Kind        string // "sdk", "tool" or "launcher"
	Path        string // empty when missing
	Version     string // empty when unknown
	Via         string // how it was found: "$ENV", "PATH", "search"
	// Problem says what is wrong when Path is empty or the version is too
	// old: the variable to set, the paths looked at, the version wanted.
	Problem string
}

// OK reports whether the piece can be used.
func (f Found) OK() bool { return f.Path != "" && f.Problem == "" }

// Env abstracts the process environment for tests.
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
	Home     string
	// Root is the repository root; relative search paths start there.
	Root string
	// Versions caches tool versions; nil runs the tool every time.
	Versions *VersionCache
	// Probes, when set, records every path, glob and PATH lookup that
	// resolution looks at (see Probes).
	Probes *Probes
}

// OSEnv is the real environment, relative to the current directory.
func OSEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{Getenv: os.Getenv, LookPath: exec.LookPath, Home: home, Root: "."}
}

func (e Env) expand(pattern string) string {
	if strings.HasPrefix(pattern, "~/") {
		return filepath.Join(e.Home, pattern[2:])
	}
	if !filepath.IsAbs(pattern) {
		return filepath.Join(e.Root, pattern)
	}
	return pattern
}

// search returns the existing matches of the patterns, newest version
// first (by the numbers in the path, so sdk-10.0 beats sdk-9.9).
func (e Env) search(patterns []string, accept func(string) bool) []string {
	var out []string
	for _, p := range patterns {
		matches := e.Glob(e.expand(p))
		sort.Slice(matches, func(i, j int) bool { return versionLess(matches[j], matches[i]) })
		for _, m := range matches {
			if accept(m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// Newest is the match of a glob with the highest version in its path
// ("" when none): 19.0.07 beats 8.8.02.
func Newest(pattern string) string {
	matches, _ := filepath.Glob(pattern)
	newest := ""
	for _, m := range matches {
		if newest == "" || versionLess(newest, m) {
			newest = m
		}
	}
	return newest
}

// ResolveSDK finds one SDK: its variable first, then the search paths.
func (e Env) ResolveSDK(s SDK) Found {
	f := Found{Name: s.Name, Description: s.Description, Kind: "sdk"}
	has := func(dir string) bool {
		_, err := e.Stat(filepath.Join(dir, s.Probe))
		return err == nil
	}
	if v := e.Getenv(s.Env); v != "" {
		if !has(v) {
			f.Problem = fmt.Sprintf("$%s=%s has no %s; point %s at the %s", s.Env, v, s.Probe, s.Env, describe(s.Description, s.Name))
			return f
		}
		f.Path, f.Via = v, "$"+s.Env
	} else if m := e.search(s.Search, has); len(m) > 0 {
		f.Path, f.Via = m[0], "search"
	} else {
		looked := "nothing else to search"
		if len(s.Search) > 0 {
			looked = "looked in " + strings.Join(s.Search, ", ")
		}
		f.Problem = fmt.Sprintf("not found: set %s to the %s (it must contain %s); %s", s.Env, describe(s.Description, s.Name), s.Probe, looked)
		return f
	}
	if s.Version != nil && s.Version.File != "" {
		data, err := e.ReadFile(filepath.Join(f.Path, s.Version.File))
		if err == nil {
			f.Version = match(s.Version.Pattern, string(data))
		}
		f.Problem = tooOld(f, s.Version, s.Env)
	}
	return f
}

// ResolveTool finds one tool: its variable, then PATH, then the search paths.
func (e Env) ResolveTool(t Tool) Found {
	f := Found{Name: t.Name, Description: t.Description, Kind: "tool"}
	isExec := func(p string) bool {
		st, err := e.Stat(p)
		return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
	}
	if v := e.Getenv(t.Env); v != "" {
		p := v
		if !strings.ContainsRune(v, filepath.Separator) {
			if lp, err := e.lookPath(v); err == nil {
				p = lp
			}
		}
		if !isExec(p) {
			f.Problem = fmt.Sprintf("$%s=%s is not an executable", t.Env, v)
			return f
		}
		f.Path, f.Via = p, "$"+t.Env
	} else {
		for _, n := range t.Names {
			if p, err := e.lookPath(n); err == nil {
				f.Path, f.Via = p, "PATH"
				break
			}
		}
		if f.Path == "" {
			if m := e.search(t.Search, isExec); len(m) > 0 {
				f.Path, f.Via = m[0], "search"
			}
		}
		if f.Path == "" {
			var looked []string
			if len(t.Names) > 0 {
				looked = append(looked, strings.Join(t.Names, ", ")+" on PATH")
			}
			looked = append(looked, t.Search...)
			f.Problem = fmt.Sprintf("not found: set %s to the %s; looked for %s", t.Env, describe(t.Description, t.Name), strings.Join(looked, ", "))
			return f
		}
	}
	return e.versioned(f, t)
}

// versioned reads the version of the tool found at f.Path and checks it.
func (e Env) versioned(f Found, t Tool) Found {
	if t.Version != nil && len(t.Version.Args) > 0 {
		if e.Versions != nil {
			f.Version = e.Versions.Version(f.Path, t.Version)
		} else {
			f.Version = ToolVersion(f.Path, t.Version)
		}
		f.Problem = tooOld(f, t.Version, t.Env)
	}
	return f
}

// ToolVersion runs the tool's version command (bounded in time: a tool
// that hangs has no version).
func ToolVersion(path string, v *VersionProbe) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, v.Args...)
	cmd.WaitDelay = time.Second // children holding the output open
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return ""
	}
	return match(v.Pattern, string(out))
}

func describe(desc, name string) string {
	if desc != "" {
		return desc
	}
	return name
}

func match(pattern, text string) string {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return ""
	}
	m := re.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return m[0]
}

func tooOld(f Found, v *VersionProbe, env string) string {
	if v.Min == "" || f.Version == "" {
		return ""
	}
	if compareVersions(f.Version, v.Min) < 0 {
		why := ""
		if v.MinWhy != "" {
			why = ": " + v.MinWhy
		}
		return fmt.Sprintf("%s is version %s; %s or newer is needed%s (set %s to another one)", f.Path, f.Version, v.Min, why, env)
	}
	return ""
}

var numRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+`) })

// compareVersions compares dotted numbers: -1, 0 or 1.
func compareVersions(a, b string) int {
	as, bs := numRE().FindAllString(a, -1), numRE().FindAllString(b, -1)
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func versionLess(a, b string) bool {
	if c := compareVersions(a, b); c != 0 {
		return c < 0
	}
	return a < b
}

// ResolveAll resolves every SDK and tool of a descriptor.
func (e Env) ResolveAll(d *Descriptor) []Found {
	var out []Found
	for _, s := range d.SDKs {
		out = append(out, e.ResolveSDK(s))
	}
	for _, t := range d.Tools {
		out = append(out, e.ResolveToolOf(d, t.Name))
	}
	return out
}

// ResolveToolOf resolves the descriptor's tool name: its variable first,
// then, for a tool inside an SDK (InSDK), that SDK as it resolves, then
// PATH and the search paths. It panics on a name the descriptor lacks,
// which the schema and the callers' constants rule out.
func (e Env) ResolveToolOf(d *Descriptor, name string) Found {
	t := d.Tool(name)
	if t == nil {
		panic("toolchain: descriptor " + d.Target + " has no tool " + name)
	}
	if t.InSDK != nil && e.Getenv(t.Env) == "" {
		if s := d.SDK(t.InSDK.SDK); s != nil {
			if sdk := e.ResolveSDK(*s); sdk.Path != "" {
				p := filepath.Join(sdk.Path, t.InSDK.Path)
				if st, err := e.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					via := sdk.Via
					if via == "search" {
						via = "the " + s.Name + " SDK"
					}
					return e.versioned(Found{Name: t.Name, Description: t.Description, Kind: "tool", Path: p, Via: via}, *t)
				}
			}
		}
	}
	return e.ResolveTool(*t)
}

// ResolveLauncher finds a launcher like a tool. A launcher that is not
// configured — nil, its variable unset and nothing found by name or search —
// is a Found with neither Path nor Problem: compiles run directly. One that
// is set but unusable (not an executable, too old) carries the Problem,
// which callers report as a warning.
func (e Env) ResolveLauncher(l *Launcher) Found {
	if l == nil {
		return Found{Kind: "launcher"}
	}
	f := e.ResolveTool(Tool(*l))
	f.Kind = "launcher"
	if f.Path == "" && e.Getenv(l.Env) == "" {
		f.Problem = "" // optional: nothing asked for, nothing found
	}
	return f
}

// Configured reports whether a launcher was asked for or found: a Found of
// kind "launcher" with neither a path nor a problem means none.
func (f Found) Configured() bool { return f.Path != "" || f.Problem != "" }

// LauncherFor resolves the launcher for the compiles of one tool: the
// tool's own when it is configured, else the target's. tool may name no
// tool of the descriptor (compilers found through an SDK), which gets the
// target's.
func (e Env) LauncherFor(d *Descriptor, tool string) Found {
	if t := d.Tool(tool); t != nil && t.Launcher != nil {
		if f := e.ResolveLauncher(t.Launcher); f.Configured() {
			return f
		}
	}
	return e.ResolveLauncher(d.Launcher)
}
