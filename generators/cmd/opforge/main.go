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
	// opforge is short-lived and allocation-heavy: collecting garbage a
	// quarter as often cuts a 1,000-op generation by a third for tens of
	// MiB of peak memory. GOGC still wins when set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
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
