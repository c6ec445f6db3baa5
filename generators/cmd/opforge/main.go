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

	"github.com/opforge/opforge/generators/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
