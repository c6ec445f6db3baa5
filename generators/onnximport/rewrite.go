package onnximport

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/plugin"
)

// Plan turns the calls of an import of m into node edits that make each
// node call the TensorRT plugin of its op in pkg: the op package the
// plugins are generated from, as loaded from its opdef (so hand edits to
// it count). Every node is checked against its op the way TensorRT's
// parser will meet it: input and output counts, dtypes, and each
// attribute against the param it fills. It also returns the opset imports
// the edited nodes' domains need.
func Plan(m *onnx.Model, path string, calls []Call, pkg *ir.Package, allowStandard bool, l *diag.List) (map[*onnx.Node]onnx.NodeEdit, []onnx.OpsetID) {
	pos := diag.Pos{File: path}
	if onnx.IsDefaultDomain(pkg.Domain) {
		l.Errorf(pos, "onnx-rewrite-op", "package %s has the ONNX domain %q; rewritten nodes need a domain of their own", pkg.Name, pkg.Domain)
		return nil, nil
	}
	functions := map[string]bool{}
	for _, f := range m.Functions {
		functions[f.Name] = true
	}
	sc := scopes{}
	edits := map[*onnx.Node]onnx.NodeEdit{}
	needDomain := map[string]bool{}
	for _, c := range calls {
		n := c.Node
		op := pkg.Op(c.Op.Name)
		if op == nil {
			var have []string
			for _, o := range pkg.Ops {
				have = append(have, o.Name)
			}
			l.Errorf(pos, "onnx-rewrite-op", "%s becomes op %s, which %s does not define (it has %s); import the model again, or name the op with --rename %s=NAME", n, c.Op.Name, pkg.Source, strings.Join(have, ", "), n.OpType)
			continue
		}
		if op.Targets.TRT == nil {
			l.Errorf(pos, "onnx-rewrite-op", "%s becomes op %s, which does not generate for trt (no targets.trt in %s), so no plugin would be found", n, op.Name, pkg.Source)
			continue
		}
		if _, std := onnx.StandardOp(op.Name); std && !allowStandard {
			l.Errorf(pos, "onnx-standard-name", "op %s of %s has the name of a standard ONNX op: TensorRT's parser would import %s as the built-in op. Rename the op, or pass --allow-standard-names if you build with kENABLE_PLUGIN_OVERRIDE (TensorRT 10.15+)", op.Name, pkg.Source, n)
			continue
		}
		if functions[op.Name] {
			l.Errorf(pos, "onnx-function-name", "op %s of %s has the name of a function of the model; TensorRT's parser would inline the function for %s instead of calling the plugin", op.Name, pkg.Source, n)
			continue
		}
		problems := matchNode(n, op, sc)
		for _, p := range problems {
			l.Errorf(pos, "onnx-rewrite-signature", "%s does not fit op %s of %s: %s", n, op.Name, pkg.Source, p)
		}
		if len(problems) > 0 {
			continue
		}
		id := plugin.TRT(pkg, op)
		e := onnx.NodeEdit{OpType: id.Name, Attrs: []onnx.NewAttr{
			onnx.StringAttr("plugin_namespace", id.Namespace),
			onnx.StringAttr("plugin_version", id.Version),
		}}
		if idx := shapeInputs(op); len(idx) > 0 {
			e.Attrs = append(e.Attrs, onnx.NewAttr{Name: "tensorrt_plugin_shape_input_indices", Type: onnx.AttrInts, Ints: idx})
		}
		// A node of the ONNX domain named after a plugin is not an ONNX
		// op: it moves to the package's domain (TensorRT's parser ignores
		// domains; ONNX checkers do not).
		domain := n.Domain
		if onnx.IsDefaultDomain(domain) {
			domain = pkg.Domain
			e.Domain = &domain
		}
		if _, ok := m.OpsetVersion(domain); !ok {
			needDomain[domain] = true
		}
		edits[n] = e
	}
	var opsets []onnx.OpsetID
	for d := range needDomain {
		opsets = append(opsets, onnx.OpsetID{Domain: d, Version: 1})
	}
	sort.Slice(opsets, func(i, j int) bool { return opsets[i].Domain < opsets[j].Domain })
	return edits, opsets
}

func shapeInputs(op *ir.Op) []int64 {
	var idx []int64
	for i, t := range op.Inputs {
		if t.ShapeTensor {
			idx = append(idx, int64(i))
		}
	}
	return idx
}

// matchNode lists why node n cannot call op's plugin.
func matchNode(n *onnx.Node, op *ir.Op, sc scopes) []string {
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
	// input (TensorRT would shift the later inputs into its place).
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
		if parserAttrs[a.Name] {
			continue
		}
		p := op.Param(a.Name)
		if p == nil {
			out = append(out, fmt.Sprintf("attribute %q is not a param of the op; TensorRT's parser forwards only the attributes the creator declares as fields, so the plugin would never see it", a.Name))
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
