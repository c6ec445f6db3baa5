package validate

import (
	"os"

	"github.com/opforge/opforge/generators/ir"
)

// onnxOrigin checks the model an imported op's reference runs: a missing
// model is a warning, not an error, because generation does not need it;
// only the reference does, when it runs, and it says so then too.
func (v *validator) onnxOrigin(op *ir.Op) {
	o := op.ONNX
	if o == nil || o.ModelPath == "" {
		return
	}
	if fi, err := os.Stat(o.ModelPath); err != nil || !fi.Mode().IsRegular() {
		v.l.Warnf(o.Pos, "onnx-origin", "op %s was imported from the ONNX model %q, which is not there (relative to this opdef); its reference runs that model's %s op, so verify and the Python paths fail until the model is back, onnx.model names it, or you write the reference yourself", op.Name, o.Model, o.OpType)
	}
}
