package trt

import (
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
)

// pyParamValue is the Python value of t's param that names t.Allowed[i]:
// an enum value's name, or the dtype code.
func pyParamValue(t *ioTensor, i int) string {
	if t.Param.DTypeCode != nil {
		return strconv.FormatInt(codeOf(t.Param, t.Allowed[i]), 10)
	}
	return escape.PyString(t.Param.Values[i])
}

// pyCodes is a dtype code param's allowed codes as a Python tuple.
func pyCodes(p *ir.Param) string {
	codes := make([]string, len(p.DTypeCode.Codes))
	for i, c := range p.DTypeCode.Codes {
		codes[i] = strconv.FormatInt(c, 10)
	}
	return "(" + strings.Join(codes, ", ") + ",)"
}

// paramTypedInputChecks are register's checks of the inputs whose dtype a
// param chooses (an input's dtype_param): TensorRT hands register the
// input's dtype, which must be the one the param's value names, as the
// C++ plugin's supportsFormatCombination requires.
func (b *qdpBuilder) paramTypedInputChecks() []string {
	var body []string
	for _, t := range b.l.Inputs {
		if t.Rule != ruleParam {
			continue
		}
		want := pyTypeExpr(b.l, b.all, t.Pos)
		msg := escape.PyString(b.op.Name + `: input "` + t.Name + `" has dtype `)
		body = append(body, "if "+t.Ident+".dtype != "+want+": raise ValueError("+msg+" + str("+t.Ident+".dtype) + "+escape.PyString(", not the one "+t.Param.Name+" = ")+" + str("+t.Param.Ident+") + "+escape.PyString(" names")+")")
	}
	return body
}
