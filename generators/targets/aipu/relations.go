package aipu

import (
	"slices"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
)

// relationChecks are the Parser's statements checking the op's requires:
// when the graph is parsed (infer_shape sees every input's shape): the
// axis checks the relations' x.shape[axis] need, then one ValueError
// naming the op per broken relation.
func (l *locals) relationChecks(op *ir.Op) []text {
	var out []text
	for _, r := range op.Requires {
		cond := r.Python(l.ref, func(in string) string {
			return l.inputs[slices.IndexFunc(op.Inputs, func(t *ir.Tensor) bool { return t.Name == in })] + ".shape"
		})
		out = append(out, texts(l.pending)...)
		l.pending = nil
		out = append(out, text("if not ("+cond+"): raise ValueError("+escape.PyString(op.Name+": requires "+r.String())+")"))
	}
	return out
}

// relationsRefer reports whether a relation of op reads name (a param).
func relationsRefer(op *ir.Op, name string) bool {
	for _, r := range op.Requires {
		for _, d := range r.Dims {
			if refers(d.Expr, name) {
				return true
			}
		}
		for _, s := range r.Shapes {
			for _, d := range s {
				if refers(d.Expr, name) {
					return true
				}
			}
		}
	}
	return false
}
