package buildplan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/atomicfile"
	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/filestat"
	"github.com/opforge/opforge/generators/toolchain"
)

// A no-op build is a stat check, as ninja's is. After a successful build
// of a target (and package and variant selection), the no-op record keeps
// everything that decided it: the invocation (the opforge binary, the
// folders, the selection, the whole environment), every file the
// up-to-date check hashed with the stat it trusted (tools, launchers,
// sources, the headers of depfiles), the outputs, the state files, and
// every question planning asked of the disk (toolchain.Probes: SDK probe
// files, tool paths, PATH lookups, the globs that found the sources). The
// next build with the same invocation stats those files, asks those
// questions again, and, when every answer is the same, has nothing to do:
// it loads no descriptor, resolves no tool and hashes nothing. Any
// difference runs the real check, which writes a new record.
//
// The record is only ever a shortcut to the answer the real check would
// give: it is removed before any unit runs and written after a build
// that succeeded, from stats the check took before hashing (a file edited
// during a build does not match them).

// noopVersion changes whenever the record's meaning does.
const noopVersion = 2

type noopRecord struct {
	Version int
	Key     string
	// Files are the stats the check decided on (Exists false: absent).
	Files   map[string]buildengine.SeenFile
	Probes  *toolchain.Probes
	Units   int
	Preface string
	Notes   string
}

// noopPath is the record of target under o's selection: one file per
// selection, so building one package never invalidates another's.
func noopPath(o Options, target string) string {
	sel := sha256.Sum256([]byte(strings.Join([]string{strings.Join(sorted(o.Packages), ","), strings.Join(sorted(o.Variants), ",")}, "\x00")))
	return filepath.Join(o.Build, target, ".opforge-noop-"+hex.EncodeToString(sel[:6]))
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// invocation is the hash of what the record stands for beyond files: the
// running opforge (its path and stat: a new binary may plan differently),
// the working directory and folders, the target, the selection and the
// whole environment (any variable may reach the tools), "" when it cannot
// be known.
func invocation(o Options, target string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, ok := filestat.Of(exe)
	wd, err := os.Getwd()
	if !ok || err != nil {
		return ""
	}
	env := os.Environ()
	// "_" is the shell's note of the last command's path, never a
	// setting anything reads.
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "_=") })
	slices.Sort(env)
	h := sha256.New()
	fmt.Fprintf(h, "v%d\x00%s\x00%+v\x00%s\x00%s\x00%s\x00%s\x00%s\x00%q\x00%q\x00", noopVersion, exe, st, wd, target,
		o.Out, o.Build, o.Toolchains, sorted(o.Packages), sorted(o.Variants))
	for _, kv := range env {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Noop reports whether target's last successful build with this
// invocation still holds, and if so prints what that build would print
// with nothing to do. Only for o.Env the real environment (the
// invocation hashes os.Environ).
func Noop(o Options, target string, log io.Writer) bool {
	start := time.Now()
	data, err := atomicfile.ReadRegular(noopPath(o, target)) // never a FIFO's endless read
	if err != nil {
		return false
	}
	var r noopRecord
	if !r.decode(data) || r.Units == 0 {
		return false // corrupt or foreign: the real check decides
	}
	if key := invocation(o, target); key == "" || key != r.Key {
		return false
	}
	for _, p := range sortedFiles(r.Files) {
		if seenNow(p) != r.Files[p] {
			return false
		}
	}
	lookPath := o.Env.LookPath
	if lookPath == nil {
		lookPath = toolchain.OSEnv().LookPath
	}
	if same, _ := r.Probes.Unchanged(lookPath); !same {
		return false
	}
	if r.Preface != "" {
		fmt.Fprintln(log, r.Preface)
	}
	fmt.Fprintf(log, "%s: %d units: 0 built, %d up to date, 0 failed, 0 skipped in %s\n", target, r.Units, r.Units, time.Since(start).Round(time.Millisecond))
	if r.Notes != "" {
		fmt.Fprintln(log, r.Notes)
	}
	return true
}

func sortedFiles(m map[string]buildengine.SeenFile) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func seenNow(path string) buildengine.SeenFile {
	st, ok := filestat.Of(path)
	return buildengine.SeenFile{Exists: ok, Stat: st}
}

// forgetNoop removes the plan's record before its units run: whatever
// the build does, the record no longer speaks for it.
func (p *Plan) forgetNoop() {
	if p.opts != nil {
		_ = os.Remove(noopPath(*p.opts, p.Target))
	}
}

// recordNoop writes the record of a build that succeeded: r's files, the
// outputs, the state files and the plan's probes. A plan with work after
// its units (Extra), or with warnings to repeat, is not recorded: its
// no-op builds run the real check.
func (p *Plan) recordNoop(r buildengine.Result) error {
	if p.opts == nil || !p.opts.NoopRecord || p.Extra != nil || len(p.Launchers) > 0 || p.probes == nil {
		return nil
	}
	rec := noopRecord{Version: noopVersion, Key: invocation(*p.opts, p.Target), Files: map[string]buildengine.SeenFile{},
		Probes: p.probes, Units: len(p.Units), Preface: p.Preface, Notes: p.Notes}
	if rec.Key == "" {
		return nil
	}
	for path, f := range r.Seen {
		rec.Files[path] = f
	}
	extra := []string{p.StateFile, p.CompDB, filepath.Join(p.opts.Toolchains, p.Target+".yaml")}
	if p.versions != nil {
		extra = append(extra, filepath.Join(p.opts.Build, versionCacheName))
	}
	for _, u := range p.Units {
		extra = append(extra, u.Output)
	}
	for _, path := range extra {
		if path != "" {
			rec.Files[path] = seenNow(path)
		}
	}
	path := noopPath(*p.opts, p.Target)
	if _, err := atomicfile.Write(path, rec.encode(), 0o644); err != nil {
		return err
	}
	// The JSON record builds kept before noopVersion 2, under the same
	// name plus .json, is read by no one now.
	_ = os.Remove(path + ".json")
	return nil
}
