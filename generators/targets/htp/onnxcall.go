package htp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/target"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
)

// CallerSummary implements target.ONNXCaller.
func (Target) CallerSummary() string { return "an op package in ONNX Runtime's QNN execution provider" }

// ONNXCall makes a node call the op in ONNX Runtime's QNN execution
// provider (onnxruntime-qnn), which hands a node whose op type is listed in
// its op_packages option ("OpType:library:InterfaceProvider[:target]") to
// the op package. Facts from the provider's udo_fusion.cc: every node
// attribute becomes a QNN param of the same name (INT as an INT_32 scalar,
// FLOAT as FLOAT_32, STRING as a string, INTS and FLOATS as 1-D INT_32 and
// FLOAT_32 tensors; any other type fails the node), and absent inputs are
// skipped. The generated ValidateOpConfig takes exact input and param
// counts, so every param is written (defaults filled in) and every input
// must be present.
func (Target) ONNXCall(pkg *ir.Package, op *ir.Op, n *onnx.Node) target.ONNXCall {
	if htpopt.OfOp(op) == nil {
		return target.ONNXCall{Unavailable: fmt.Sprintf("op %s, which does not generate for htp (no targets.htp in %s), so no op package would have it", op.Name, pkg.Source)}
	}
	c := target.ONNXCall{
		Edit: onnx.NodeEdit{OpType: op.Name},
		Label: fmt.Sprintf("%s of op package %s (ONNX Runtime's QNN execution provider: op_packages=%s:<library>:%sInterfaceProvider)",
			op.Name, pkg.Name, op.Name, pkg.Name),
		UnknownAttr:  "ONNX Runtime's QNN execution provider passes every attribute to the package as a param, and the package's ValidateOpConfig takes exactly the op's params",
		StandardName: fmt.Sprintf("op %s of %s has the name of a standard ONNX op: ONNX Runtime's QNN execution provider hands nodes to op packages by op type, so every %s node of the model, the standard ones too, would go to the package. Rename the op, or pass --allow-standard-names", op.Name, pkg.Source, op.Name),
	}
	present := 0
	for _, in := range n.Inputs {
		if in != "" {
			present++
		}
	}
	if present != len(op.Inputs) {
		c.Problems = append(c.Problems, fmt.Sprintf("the node has %d inputs; ONNX Runtime's QNN execution provider skips absent ones, and the package's ValidateOpConfig takes exactly %d", present, len(op.Inputs)))
	}
	for _, p := range op.Params {
		if a := n.Attr(p.Name); a != nil {
			if why := qnnEPConcern(p, a); why != "" {
				c.Problems = append(c.Problems, why)
			}
			continue
		}
		if p.Default == nil {
			continue // the generic check names it
		}
		a, err := defaultAttr(p)
		if err != nil {
			c.Problems = append(c.Problems, err.Error())
			continue
		}
		c.Edit.Attrs = append(c.Edit.Attrs, a)
	}
	return c
}

// qnnEPConcern says why the QNN execution provider would not hand
// attribute a to the package as param p expects it, or "".
func qnnEPConcern(p *ir.Param, a *onnx.Attribute) string {
	switch a.Type {
	case onnx.AttrInt:
		if a.I < math.MinInt32 || a.I > math.MaxInt32 {
			return fmt.Sprintf("attribute %q is %d; ONNX Runtime's QNN execution provider narrows INT attributes to INT_32 and fails the node on overflow", a.Name, a.I)
		}
	case onnx.AttrInts:
		for _, v := range a.Ints {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return fmt.Sprintf("attribute %q holds %d; ONNX Runtime's QNN execution provider narrows INTS attributes to INT_32 and fails the node on overflow", a.Name, v)
			}
		}
	case onnx.AttrString:
		if p.Kind == ir.ParamEnum {
			return fmt.Sprintf("attribute %q is a STRING; ONNX Runtime's QNN execution provider passes it as a string param, and the package's enum param %q takes the value's index (0 for %q): write it as an INT", a.Name, p.Name, p.Values[0])
		}
	case onnx.AttrFloat, onnx.AttrFloats:
	default:
		return fmt.Sprintf("attribute %q is a %s; ONNX Runtime's QNN execution provider passes only INT, INTS, FLOAT, FLOATS and STRING attributes to op packages", a.Name, a.Type)
	}
	if p.Kind == ir.ParamTensor && p.Rank != 1 {
		return fmt.Sprintf("param %q is a tensor of rank %d; ONNX Runtime's QNN execution provider passes INTS and FLOATS as 1-D tensors", p.Name, p.Rank)
	}
	return ""
}

// defaultAttr is the attribute that passes param p's default in the
// types the QNN execution provider forwards (bools and enum values as
// INT, as the package reads them).
func defaultAttr(p *ir.Param) (onnx.NewAttr, error) {
	d := p.Default
	a := onnx.NewAttr{Name: p.Name}
	bad := func() (onnx.NewAttr, error) {
		return a, fmt.Errorf("param %q has the default %s, which the node cannot pass as an attribute the QNN execution provider forwards; give the node the attribute", p.Name, d.Text)
	}
	switch {
	case p.Kind == ir.ParamEnum:
		for i, v := range p.Values {
			if v == d.Text {
				a.Type, a.I = onnx.AttrInt, int64(i)
				return a, nil
			}
		}
		if i, err := strconv.ParseInt(d.Text, 10, 64); err == nil && i >= 0 && int(i) < len(p.Values) {
			a.Type, a.I = onnx.AttrInt, i
			return a, nil
		}
		return bad()
	case d.Kind == ir.LitBool:
		v, err := strconv.ParseBool(strings.ToLower(d.Text))
		if err != nil {
			return bad()
		}
		a.Type = onnx.AttrInt
		if v {
			a.I = 1
		}
		return a, nil
	case d.Kind == ir.LitString:
		a.Type, a.S = onnx.AttrString, d.Text
		return a, nil
	case d.Kind == ir.LitInt && !isFloatParam(p):
		v, err := strconv.ParseInt(d.Text, 0, 32)
		if err != nil {
			return bad()
		}
		a.Type, a.I = onnx.AttrInt, v
		return a, nil
	case d.Kind == ir.LitInt || d.Kind == ir.LitFloat:
		v, err := strconv.ParseFloat(d.Text, 32)
		if err != nil {
			return bad()
		}
		a.Type, a.F = onnx.AttrFloat, float32(v)
		return a, nil
	case d.Kind == ir.LitList:
		if isFloatParam(p) {
			a.Type = onnx.AttrFloats
			for _, e := range d.List {
				v, err := strconv.ParseFloat(e.Text, 32)
				if err != nil {
					return bad()
				}
				a.Floats = append(a.Floats, float32(v))
			}
			return a, nil
		}
		a.Type = onnx.AttrInts
		for _, e := range d.List {
			v, err := strconv.ParseInt(e.Text, 0, 32)
			if err != nil {
				return bad()
			}
			a.Ints = append(a.Ints, v)
		}
		return a, nil
	}
	return bad()
}

func isFloatParam(p *ir.Param) bool { return len(p.DTypes) > 0 && p.DTypes[0].IsFloat() }
