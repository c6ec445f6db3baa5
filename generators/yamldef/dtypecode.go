package yamldef

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/ir"
)

// dtypeCode reads a param's dtype_code and codes; the validator checks
// them (a spelling it knows, codes in its table, an integer param). codes
// without dtype_code still load, so that the validator can say what is
// missing.
func (b *builder) dtypeCode(o object) *ir.DTypeCode {
	spelling, codes := o.get("dtype_code"), o.items("codes")
	if spelling == nil && codes == nil {
		return nil
	}
	c := &ir.DTypeCode{Spelling: o.str("dtype_code")}
	for _, n := range codes {
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			continue // the schema refused it
		}
		c.Codes = append(c.Codes, v)
		c.CodesPos = append(c.CodesPos, b.pos(n))
	}
	return c
}

// addDTypeCode writes a param's dtype_code and codes (flow style: a short
// list of numbers).
func addDTypeCode(m *yaml.Node, c *ir.DTypeCode) {
	if c == nil {
		return
	}
	add(m, "dtype_code", str(c.Spelling))
	codes := seq(true)
	for _, v := range c.Codes {
		codes.Content = append(codes.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)})
	}
	add(m, "codes", codes)
}
