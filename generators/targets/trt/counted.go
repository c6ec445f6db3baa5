package trt

import (
	"slices"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/names"
)

// A counted variadic output (`variadic: true, count: n`) is as many
// outputs as param n says. An IPluginV3 plugin says its output count in
// getNbOutputs, once its fields are read, so the C++ plugin takes it: it
// is generated for the most outputs the param admits (its max), each a
// plain output of its own position, dtype rule, format verdict and shape
// (the shape's # fixed at its index), and the plugin reports and serves
// the first n of them. Positions past n are never asked for: TensorRT
// asks only about the getNbOutputs() outputs it has.

// countedOutput is op's counted variadic output (validation keeps a
// variadic output last), or nil.
func countedOutput(op *ir.Op) *ir.Tensor {
	if n := len(op.Outputs); n > 0 && op.Outputs[n-1].Variadic && op.Outputs[n-1].Count != "" {
		return op.Outputs[n-1]
	}
	return nil
}

// countedMax is the most outputs op's counted output stands for (its
// param's max; validation requires one).
func countedMax(op *ir.Op, t *ir.Tensor) int {
	if p := op.Param(t.Count); p != nil && p.Max != nil {
		return int(*p.Max)
	}
	return 0
}

// expandCounted is op as its C++ plugin sees it: a counted output becomes
// countedMax outputs name[0], name[1], ... (their Count still names the
// param, which is how the plugin model finds them). An op without one is
// returned as is.
func expandCounted(op *ir.Op) *ir.Op {
	t := countedOutput(op)
	if t == nil {
		return op
	}
	c := *op
	c.Outputs = slices.Clone(op.Outputs[:len(op.Outputs)-1])
	for k := range countedMax(op, t) {
		o := *t
		o.Name = t.Name + "[" + strconv.Itoa(k) + "]"
		o.Ident = names.Ident(t.Ident + "_" + strconv.Itoa(k))
		o.Variadic = false
		o.Shape = make([]*ir.Dim, len(t.Shape))
		for j, d := range t.Shape {
			dk := *d
			dk.Expr = d.Expr.AtIndex(k)
			o.Shape[j] = &dk
		}
		c.Outputs = append(c.Outputs, &o)
	}
	c.Facts = ir.Derive(&c)
	return &c
}

// countedModel is what the plugin's sources say about a counted output:
// the param (a field of the params struct) whose value is how many of its
// outputs there are, the index of the first, and the fewest outputs the
// plugin can have.
type countedModel struct {
	Field      text // mParams.<Field>
	First      int  // the index of its first output
	MinOutputs int  // First + the param's min
}

// newCountedModel finds the outputs expandCounted made (nil for none).
func newCountedModel(op *ir.Op) *countedModel {
	for i, t := range op.Outputs {
		if t.Count == "" || t.Variadic {
			continue
		}
		p := op.Param(t.Count)
		least := 0
		switch {
		case p.Min != nil && p.MinExclusive:
			least = int(*p.Min) + 1
		case p.Min != nil:
			least = int(*p.Min)
		}
		return &countedModel{Field: text(p.Ident), First: i, MinOutputs: i + least}
	}
	return nil
}

// outputWhen is the condition C++ code about output i runs under: "" for
// an output the plugin always has, else "if (nbOutputs > i) " (a counted
// output past the param's min).
func outputWhen(c *countedModel, i int) string {
	if c == nil || i < c.MinOutputs {
		return ""
	}
	return "if (nbOutputs > " + strconv.Itoa(i) + ") "
}

// guardLines puts lines (statements at one indent) under when, if any.
func guardLines(when string, lines []string) []string {
	if when == "" {
		return lines
	}
	out := make([]string, 0, len(lines)+2)
	out = append(out, strings.TrimSuffix(when, " "), "{")
	for _, l := range lines {
		out = append(out, "    "+l)
	}
	return append(out, "}")
}

// countedMember is the IO struct's array member that holds output t when
// t is one of a counted output's tensors ("boxes[6]": the counted output's
// identifier and most tensors), else "".
func countedMember(op *ir.Op, t *ioTensor) string {
	if t.T == nil || t.Input || t.T.Count == "" || t.T.Variadic {
		return ""
	}
	return countedBase(t.T) + "[" + strconv.Itoa(len(op.Outputs)-newCountedModel(op).First) + "]"
}

// countedElement is t's element of its array member: boxes[2].
func countedElement(op *ir.Op, t *ioTensor) string {
	return countedBase(t.T) + "[" + strconv.Itoa(t.Index-newCountedModel(op).First) + "]"
}

// countedBase is the identifier of the counted output a tensor of
// expandCounted's belongs to (its name before the [k] suffix).
func countedBase(t *ir.Tensor) string {
	return names.Ident(t.Name[:strings.LastIndexByte(t.Name, '[')])
}

// countedDoc is the IO struct's comment on a counted output's array.
func countedDoc(op *ir.Op, t *ioTensor, doc string) string {
	return "the first params." + op.Param(t.T.Count).Ident + " are the outputs (the others are not present); tensor 0: " + doc
}

// checkCounted refuses what the generated plugin cannot do with counted
// output t: the legacy interface (its model is not generated for it),
// data-dependent sizes, whose size tensors follow the outputs, so a count
// below the max would drop them, and an alias of t, which names one output
// where t is several.
func checkCounted(pkg *ir.Package, op *ir.Op, t *ir.Tensor, d *diag.TargetList) {
	pos := t.Where.At("count", t.Pos)
	if PkgOptions(pkg).Legacy {
		d.Errorf(pos, "trt-legacy", "counted output %q of op %s: opforge generates counted outputs for IPluginV3 plugins (TensorRT 10) only, not IPluginV2DynamicExt (targets.trt.legacy)", t.Name, op.Name)
	}
	if len(op.DataDependent) > 0 {
		d.Errorf(pos, "trt-counted", "counted output %q of op %s: the op also has data-dependent sizes, whose size tensors follow the outputs, so the count %s would cut them off; a plugin has one or the other", t.Name, op.Name, t.Count)
	}
	for _, a := range OpOptions(op).Aliases {
		if a.Output == t.Name {
			d.Errorf(a.Pos, "trt-counted", "counted output %q of op %s cannot be aliased to input %q: an alias writes one output in place of one input, and %q is up to %d outputs", t.Name, op.Name, a.Input, t.Name, countedMax(op, t))
		}
	}
}
