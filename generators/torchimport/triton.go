package torchimport

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/opforge/opforge/generators/ir"
)

// TritonReport is the Triton kernel an op's torch implementation
// launches, as inspect_triton.py read it: the kernel's source, each
// runtime argument of the launch as a token, its constexprs, and the
// constexpr the grid divides by. Note alone says why a launch was found
// but not brought along.
type TritonReport struct {
	Kernel     string               `json:"kernel"`
	Source     string               `json:"source"`
	Args       []TritonArg          `json:"args"`
	Constexprs map[string]TritonArg `json:"constexprs"`
	Block      *string              `json:"block"`
	Notes      []string             `json:"notes"`
	Note       string               `json:"note"`
}

// TritonArg is one launch argument: exactly one of the fields is set.
type TritonArg struct {
	Parameter   string          `json:"parameter"`
	Input       *string         `json:"input"`
	Output      *int            `json:"output"`
	NumelInput  *string         `json:"numel_input"`
	NumelOutput *int            `json:"numel_output"`
	Param       *string         `json:"param"`
	Literal     json.RawMessage `json:"literal"`
}

// tritonKernel turns the report's kernel into the op's torch.triton, or
// nil with a warning naming why the kernel stays behind. The op's
// outputs must be built: an argument names them, and an input's element
// count is an output's shaped like it.
func tritonKernel(r *TritonReport, op *ir.Op, outs []OutputReport, warn func(item, code, format string, args ...any)) *ir.TritonKernel {
	if r == nil {
		return nil
	}
	if r.Note != "" {
		warn("", "torch-triton", "the op launches a Triton kernel that is not brought along (%s); write the kernel into the triton region of the targets that run Triton yourself", r.Note)
		return nil
	}
	k := &ir.TritonKernel{Kernel: r.Kernel, Source: r.Source}
	for _, a := range r.Args {
		text, err := tritonArgText(a, op, outs)
		if err != nil {
			warn("", "torch-triton", "the Triton kernel %s is not brought along: its argument %s %v", r.Kernel, a.Parameter, err)
			return nil
		}
		k.Args = append(k.Args, text)
	}
	names := make([]string, 0, len(r.Constexprs))
	for name := range r.Constexprs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		text, err := tritonArgText(r.Constexprs[name], op, outs)
		if err != nil {
			warn("", "torch-triton", "the Triton kernel %s is not brought along: its constexpr %s %v", r.Kernel, name, err)
			return nil
		}
		k.Constexprs = append(k.Constexprs, ir.TritonConstexpr{Name: name, Value: text})
	}
	if r.Block != nil {
		k.Block = *r.Block
	}
	for _, n := range r.Notes {
		warn("", "torch-triton", "the Triton kernel %s: %s", r.Kernel, n)
	}
	return k
}

// tritonArgText is one argument as torch.triton's args write it.
func tritonArgText(a TritonArg, op *ir.Op, outs []OutputReport) (string, error) {
	output := func(i int) (string, error) {
		if i < 0 || i >= len(op.Outputs) {
			return "", fmt.Errorf("is output %d of %d", i, len(op.Outputs))
		}
		return op.Outputs[i].Name, nil
	}
	switch {
	case a.Input != nil:
		return *a.Input, nil
	case a.Output != nil:
		return output(*a.Output)
	case a.NumelOutput != nil:
		name, err := output(*a.NumelOutput)
		return "numel(" + name + ")", err
	case a.NumelInput != nil:
		// The launcher gets the outputs' element counts: an input's is
		// an output's shaped like it.
		for i, o := range outs {
			if o.Like == *a.NumelInput && i < len(op.Outputs) {
				return "numel(" + op.Outputs[i].Name + ")", nil
			}
		}
		return "", fmt.Errorf("is the element count of input %s, and no output is shaped like it (the launcher has the outputs' counts)", *a.NumelInput)
	case a.Param != nil:
		return *a.Param, nil
	case a.Literal != nil:
		// As Python printed it (16, 0.5, true): int and float stay apart.
		return string(a.Literal), nil
	}
	return "", fmt.Errorf("has no value the launcher can give")
}
