package onnximport

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/target"
)

// Plan turns the calls of an import of m into node edits that make each
// node call its op of pkg in the runtime of the target caller stands for
// (rewrite onnx --for): the op package as loaded from its opdef (so hand
// edits to it count). Every node is checked against its op the way the
// runtime's ONNX front end will meet it: input and output counts, dtypes,
// each attribute against the param it fills, and what the target adds.
// It also returns the opset imports the edited nodes' domains need.
func Plan(m *onnx.Model, path string, calls []Call, pkg *ir.Package, caller target.ONNXCaller, allowStandard bool, l *diag.List) (map[*onnx.Node]onnx.NodeEdit, []onnx.OpsetID) {
	pos := diag.Pos{File: path}
	if onnx.IsDefaultDomain(pkg.Domain) {
		l.Errorf(pos, "onnx-rewrite-op", "package %s has the ONNX domain %q; rewritten nodes need a domain of their own", pkg.Name, pkg.Domain)
		return nil, nil
	}
	functions := map[string]bool{}
	for _, f := range m.Functions {
		functions[f.Name] = true
	}
	nodes := make([]*onnx.Node, len(calls))
	for i, c := range calls {
		nodes[i] = c.Node
	}
	sc := newScopes(nodes)
	edits := make(map[*onnx.Node]onnx.NodeEdit, len(calls))
	needDomain := map[string]bool{}
	errs := newCapped(l, path)
	// Nodes alike (keyer) calling one op are planned once, when they fit.
	keys := &keyer{sc: sc}
	fits := map[string]onnx.NodeEdit{}
	for _, c := range calls {
		n := c.Node
		key, keyed := c.key, c.key != ""
		if !keyed {
			key, keyed = keys.key(n)
			key = "p" + key
		}
		key += "\x00" + c.Op.Name
		if e, ok := fits[key]; ok && keyed {
			edits[n] = e
			continue
		}
		op := pkg.Op(c.Op.Name)
		if op == nil {
			var have []string
			for _, o := range pkg.Ops {
				have = append(have, o.Name)
			}
			errs.errorf("onnx-rewrite-op", "%s becomes op %s, which %s does not define (it has %s); import the model again, or name the op with --rename %s=NAME", n, c.Op.Name, pkg.Source, strings.Join(have, ", "), n.OpType)
			continue
		}
		call := caller.ONNXCall(pkg, op, n)
		if call.Unavailable != "" {
			errs.errorf("onnx-rewrite-op", "%s becomes %s", n, call.Unavailable)
			continue
		}
		// The op type the node will carry (a plugin's may be a name of its own).
		if _, std := onnx.StandardOp(call.Edit.OpType); std && !allowStandard && call.StandardName != "" {
			errs.errorf("onnx-standard-name", "%s", call.StandardName)
			continue
		}
		if functions[call.Edit.OpType] {
			errs.errorf("onnx-function-name", "op %s of %s would be called as %s, the name of a function of the model; the runtime would inline the function for %s instead of calling the op", op.Name, pkg.Source, call.Edit.OpType, n)
			continue
		}
		problems := append(matchNode(n, op, call, sc), call.Problems...)
		for _, p := range problems {
			errs.errorf("onnx-rewrite-signature", "%s does not fit op %s of %s: %s", n, op.Name, pkg.Source, p)
		}
		if len(problems) > 0 {
			continue
		}
		e := call.Edit
		// A node of the ONNX domain named after a generated op is not an
		// ONNX op: it moves to the package's domain (a parser may ignore
		// domains; ONNX checkers and ONNX Runtime do not).
		domain := n.Domain
		if onnx.IsDefaultDomain(domain) {
			domain = pkg.Domain
			e.Domain = &domain
		}
		if _, ok := m.OpsetVersion(domain); !ok {
			needDomain[domain] = true
		}
		edits[n] = e
		if keyed {
			fits[key] = e
		}
	}
	errs.flush()
	var opsets []onnx.OpsetID
	for d := range needDomain {
		opsets = append(opsets, onnx.OpsetID{Domain: d, Version: 1})
	}
	sort.Slice(opsets, func(i, j int) bool { return opsets[i].Domain < opsets[j].Domain })
	return edits, opsets
}

// matchNode lists why node n cannot call op, whatever the runtime.
func matchNode(n *onnx.Node, op *ir.Op, call target.ONNXCall, sc scopes) []string {
	var out []string
	inputs := n.Inputs
	for len(inputs) > 0 && inputs[len(inputs)-1] == "" {
		inputs = inputs[:len(inputs)-1]
	}
	required, variadic := 0, false
	for _, t := range op.Inputs {
		if !t.Optional && !t.Variadic {
			required++
		}
		variadic = variadic || t.Variadic
	}
	if len(inputs) < required || !variadic && len(inputs) > len(op.Inputs) {
		out = append(out, fmt.Sprintf("the node has %d inputs, the op takes %s", len(inputs), count(required, len(op.Inputs), variadic)))
	}
	// A plugin receives the inputs present in order: an optional input is
	// left out only from the end, never by an empty name before a present
	// input (a runtime may shift the later inputs into its place).
	for i, name := range inputs {
		if name == "" {
			out = append(out, fmt.Sprintf("input %d of the node is empty but a later input is not; a plugin's inputs can be left out only from the end", i))
			break
		}
	}
	outVariadic := len(op.Outputs) > 0 && op.Outputs[len(op.Outputs)-1].Variadic
	if len(n.Outputs) != len(op.Outputs) && !(outVariadic && len(n.Outputs) >= len(op.Outputs)-1) {
		out = append(out, fmt.Sprintf("the node has %d outputs, the op %d", len(n.Outputs), len(op.Outputs)))
	}
	check := func(kind string, names []string, tensors []*ir.Tensor) {
		for i, name := range names {
			if i >= len(tensors) || name == "" {
				continue
			}
			t := tensors[i]
			v, ok := sc.lookup(n.Graph, name)
			if !ok || v.typ == nil || v.typ.Kind != onnx.TypeTensor {
				continue
			}
			dt, known := dtypes[v.typ.Elem]
			if allowed := op.AllowedDTypes(t); known && len(allowed) > 0 && !slices.Contains(allowed, dt) {
				out = append(out, fmt.Sprintf("%s %d (%q) is %s; %s %q of the op takes %s", kind, i, name, dt, kind, t.Name, dtypeList(allowed)))
			}
		}
	}
	check("input", inputs, op.Inputs)
	check("output", n.Outputs, op.Outputs)
	for _, a := range n.Attributes {
		if call.Reserved[a.Name] {
			continue
		}
		p := op.Param(a.Name)
		if p == nil {
			out = append(out, fmt.Sprintf("attribute %q is not a param of the op; %s", a.Name, call.UnknownAttr))
			continue
		}
		if why := accepts(p, a); why != "" {
			out = append(out, why)
		}
	}
	for _, p := range op.Params {
		if n.Attr(p.Name) == nil && p.Default == nil {
			out = append(out, fmt.Sprintf("the node has no attribute %q, and param %q has no default for the creator to use", p.Name, p.Name))
		}
	}
	return out
}

func count(required, total int, variadic bool) string {
	switch {
	case variadic:
		return fmt.Sprintf("%d or more", required)
	case required == total:
		return fmt.Sprint(total)
	}
	return fmt.Sprintf("%d to %d", required, total)
}

func dtypeList(ds []ir.DType) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = string(d)
	}
	return strings.Join(s, " or ")
}
