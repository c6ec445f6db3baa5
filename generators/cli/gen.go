package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/filelock"
	"github.com/opforge/opforge/generators/gen"
	"github.com/opforge/opforge/generators/selection"
	"github.com/opforge/opforge/generators/stageclock"
	"github.com/opforge/opforge/generators/writer"
)

// repoFlags are the flags of a command that reads an op repository:
// where its folders are (locationFlags) and, for the commands that select,
// the packages and ops (selection.Flags).
type repoFlags struct {
	fs   *flag.FlagSet
	o    gen.Options
	locs []location
	sel  selection.Flags
}

func genFlags(name string, stderr io.Writer) *repoFlags {
	r := &repoFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), o: gen.DefaultOptions}
	r.fs.SetOutput(stderr)
	r.locs = locationFlags(r.fs, &r.o)
	r.sel.Register(r.fs, "only these packages' files (every opdef is still checked)", "only these ops' files and their packages' shared files")
	return r
}

// parse parses args, which must hold no operand, and settles the
// locations: false (exit 2 or 1, told by code) on a mistake.
func (r *repoFlags) parse(args []string, stderr io.Writer) (code int, ok bool) {
	if rest, err := parse(r.fs, args); err != nil || len(rest) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "opforge %s: unexpected argument %q\n", r.fs.Name(), rest[0])
		}
		return 2, false
	}
	at, ok := settle(r.fs.Name(), r.fs, r.locs, []string{"opdefs", "out"}, stderr)
	if !ok {
		return 1, false
	}
	r.o.ToolchainsGiven = at.given["toolchains"]
	if !existingDir(r.fs.Name(), "opdefs", r.o.OpDefs, stderr) {
		return 1, false
	}
	r.o.Packages, r.o.Ops = r.sel.Packages, r.sel.Ops
	return 0, true
}

// locationFlags are where the opdefs, descriptors and out/ are; unset,
// they are the op repository's (settle).
func locationFlags(fs *flag.FlagSet, o *gen.Options) []location {
	fs.StringVar(&o.OpDefs, "opdefs", o.OpDefs, "op definitions directory (default: the op repository's opdefs/)")
	fs.StringVar(&o.Toolchains, "toolchains", o.Toolchains, "toolchain descriptors directory (default: the op repository's toolchains/)")
	fs.StringVar(&o.Out, "out", o.Out, "output directory for generated skeletons (default: the op repository's out/)")
	return []location{{"opdefs", &o.OpDefs, "opdefs"}, {"toolchains", &o.Toolchains, "toolchains"}, {"out", &o.Out, "out"}}
}

// genCachePath is where gen remembers the tree it left (build dir, untracked).
const genCachePath = "build/.opforge-gen-cache"

// genLockName is the lock, beside the cache in the build directory, that
// makes gens take turns: two at once could mix two states of the opdefs in
// out/ and leave a cache vouching for the wrong one.
const genLockName = ".opforge-gen.lock"

// genCmd regenerates out/: nothing is written when any error was found.
func genCmd(args []string, stdout, stderr io.Writer) int {
	r := genFlags("gen", stderr)
	fs, o := r.fs, &r.o
	full := fs.Bool("full", false, "ignore the cache: regenerate, read and compare every file")
	fs.BoolVar(&o.Force, "force", false, "overwrite hand edits outside user regions and of generated files instead of stopping")
	cachePath := fs.String("cache", genCachePath, "no-op cache file (in the build directory)")
	r.locs = append(r.locs, location{"cache", cachePath, genCachePath})
	if code, ok := r.parse(args, stderr); !ok {
		return code
	}
	start := time.Now()
	o.Clock = stageclock.FromEnv()
	defer o.Clock.Print(stderr, "opforge gen: ")
	unlock, err := filelock.Lock(filepath.Join(filepath.Dir(*cachePath), genLockName), func(holder string) {
		if holder == "" {
			holder = "unknown"
		}
		fmt.Fprintf(stderr, "opforge gen: waiting for another opforge gen on %s/ (pid %s)\n", o.Out, holder)
	})
	if err != nil {
		fmt.Fprintf(stderr, "opforge gen: %v\n", err)
		return 1
	}
	defer unlock()
	o.Clock.Mark("lock")
	var l diag.List
	// A rename a kill interrupted is finished or rolled back first: the
	// opdefs are not what they will be until then.
	if writer.MoveRecorded(filepath.Clean(o.Out)) != nil {
		done := writer.Recover(filepath.Clean(o.Out), &l)
		if l.HasErrors() {
			report(&l, "text", stdout, stderr)
			fmt.Fprintf(stderr, "opforge gen: nothing written (%d error(s))\n", errorsIn(&l))
			return 1
		}
		fmt.Fprintf(stderr, "opforge gen: %s\n", done)
		*full = true
	}
	cache, cacheErr := gen.OpenCache(*o, *cachePath)
	o.Clock.Mark("open cache")
	if len(o.Packages) > 0 || len(o.Ops) > 0 {
		// The cache records a whole tree; a partial gen neither uses nor
		// renews it (and drops it below, as every gen that writes does).
		*full = true
	}
	if cacheErr == nil && !*full {
		if n, fresh := cache.Fresh(); fresh {
			fmt.Fprintf(stdout, "opforge gen: %d files in %s: 0 written (0 bytes), %d unchanged, 0 removed in %s (inputs unchanged since the last gen)\n",
				n, o.Out, n, time.Since(start).Round(time.Millisecond))
			return 0
		}
		cache.Prefetch()
		o.Known, o.Reuse = cache.Unchanged, cache
	}
	plan := gen.Plan(*o, &l)
	if plan == nil || l.HasErrors() {
		report(&l, "text", stdout, stderr)
		fmt.Fprintf(stderr, "opforge gen: nothing written (%d error(s))\n", errorsIn(&l))
		return 1
	}
	if cacheErr == nil {
		if err := cache.Invalidate(); err != nil {
			cacheErr = err // a record that cannot be removed must not be renewed either
		}
	}
	storing := cacheErr == nil && len(o.Packages) == 0 && len(o.Ops) == 0
	if storing {
		// Its stores are written while Apply writes out/.
		defer cache.StoreAhead()()
	}
	// The diagnostics are final once planned, unless Apply fails: their
	// text is made while Apply writes (a thousand warnings of an op-heavy
	// package take milliseconds), and printed once it is done.
	text := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		_ = l.WriteText(&b)
		text <- b.Bytes()
	}()
	st, err := writer.Apply(plan)
	o.Clock.Mark("apply")
	planned := <-text // and l is the plan's alone again
	if err != nil {
		writer.Report(o.Out, err, &l)
		report(&l, "text", stdout, stderr)
		return 1
	}
	_, _ = stderr.Write(planned)
	o.Clock.Mark("report")
	if storing {
		_ = cache.Store(plan) // a failed store only costs the next no-op its speed
		o.Clock.Mark("store")
	}
	fmt.Fprintf(stdout, "opforge gen: %d files in %s: %d written (%d bytes), %d unchanged, %d removed in %s\n",
		plan.Files.Len(), o.Out, st.Written, st.BytesWritten, st.Unchanged, st.Removed, time.Since(start).Round(time.Millisecond))
	return 0
}

// checkCmd validates every op definition and fails when out/ differs from
// what they generate.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	r := genFlags("check", stderr)
	o := &r.o
	format := r.fs.String("format", "text", "diagnostic format: text or json")
	if code, ok := r.parse(args, stderr); !ok {
		return code
	}
	var l diag.List
	plan := gen.Plan(*o, &l)
	if plan != nil && !l.HasErrors() {
		writer.Diff(plan, &l)
	}
	code := report(&l, *format, stdout, stderr)
	if *format == "text" {
		e, w := l.Counts()
		files := 0
		if plan != nil {
			files = plan.Files.Len()
		}
		fmt.Fprintf(stderr, "opforge check: %s and %d generated files in %s: %d error(s), %d warning(s)\n", o.OpDefs, files, o.Out, e, w)
	}
	return code
}

func errorsIn(l *diag.List) int {
	e, _ := l.Counts()
	return e
}
