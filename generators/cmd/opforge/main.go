// Command opforge validates, converts and formats op definitions.
//
//	opforge validate [--format text|json] [PATH ...]   (default: opdefs)
//	opforge convert [--to yaml|xml] FILE [-o OUT]
//	opforge fmt [-w] [--check] FILE ...
//
// Exit status: 0 fine (warnings allowed), 1 diagnostics with errors, 2 usage.
package main

import (
	"os"
	"runtime/debug"
	"runtime/pprof"

	"github.com/opforge/opforge/generators/cli"
)

func main() {
	// opforge is short-lived and allocation-heavy, so it collects garbage
	// a sixteenth as often as Go's default. At a quarter (GOGC=400) a cold
	// 1,000-op generation took a third less time; a sixteenth takes 7-10%
	// more off a gen with one op changed, whose first collection then
	// falls after loading (at 64 MiB of heap rather than 16), leaves a
	// cold gen as fast (0.94-1.00x), and costs it about 50 MiB more peak
	// memory. With it, a soft limit of 1 GiB makes the collector work
	// harder before a larger package's heap grows past it (a live heap
	// near 1 GiB, some 30,000 ops, would then collect often). GOGC and
	// GOMEMLIMIT still win when set; a GOGC of the user's gets no limit.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(1600)
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(1 << 30)
		}
	}
	// OPFORGE_CPUPROFILE=file profiles one run (for mage bench work).
	if path := os.Getenv("OPFORGE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.StartCPUProfile(f)
			code := cli.Main(os.Args[1:], os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
