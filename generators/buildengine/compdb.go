package buildengine

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/atomicfile"
)

type compileCommand struct {
	Directory string   `json:"directory"`
	Arguments []string `json:"arguments"`
	File      string   `json:"file"`
	Output    string   `json:"output"`
}

// WriteCompileCommands writes compile_commands.json for clangd and other
// tools: one entry per compile unit, with the real output path.
func WriteCompileCommands(path string, units []*Unit) error {
	var cmds []compileCommand
	for _, u := range units {
		if u.Source == "" {
			continue
		}
		dir := u.Dir
		if dir == "" {
			dir = "."
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		cmds = append(cmds, compileCommand{Directory: abs, Arguments: standalone(u), File: u.Source, Output: u.Output})
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Output < cmds[j].Output })
	data, err := json.MarshalIndent(cmds, "", "  ")
	if err != nil {
		return err
	}
	_, err = atomicfile.Write(path, append(data, '\n'), 0o644)
	return err
}

// standalone is the unit's command as it runs outside the engine: the
// artifact written in place, without the depfile flags that only serve
// the engine's up-to-date check.
func standalone(u *Unit) []string {
	args := []string{u.Tool}
	for _, a := range u.Args {
		if a == "-MF" || a == "-MMD" || a == "-MD" || strings.Contains(a, DepArg) {
			continue
		}
		args = append(args, strings.ReplaceAll(a, OutArg, u.Output))
	}
	return args
}
