package trt

import (
	"encoding/binary"
	"slices"

	"github.com/opforge/opforge/generators/binrec"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/render"
	"github.com/opforge/opforge/generators/workpool"
)

// opFrame is what a package's shared files print of one op outside its
// own sections — the README's table row, the library's creator, the CMake
// sources, the Python module's docstring — and what the op adds to the
// package's aggregates: the TensorRT versions it needs and the helpers
// Common.h and the Python module define for it.
//
// It is made from the op's models, so it is a function of the op and its
// package's facts alone, and it is kept beside the op's sections by the
// op's key (frameSection). An op whose own files and sections are all
// kept then needs no model at all: a gen after one op changed models that
// op, not the package (newPackageModel).
type opFrame struct {
	Name    string
	Creator text
	// Inputs and Outputs are the identifiers the README's table lists.
	Inputs, Outputs []string
	// Triton: the op has a cubin compile script (src/ops/<Op>Triton.py).
	Triton bool
	// Aliased: an output aliases an input (TensorRT >= 10.3).
	Aliased bool
	// Wide: bfloat16, int64 or float8 data or fields; FP8: float8 tensors
	// (the versions a legacy package then needs).
	Wide, FP8 bool
	// DTypeCodes and DimHelpers: Common.h defines the dtype code reader,
	// and the helpers over slices and axes of dims.
	DTypeCodes, DimHelpers bool
	// QDP is the op's Python plugin (nil: none).
	QDP *qdpFrame
}

// qdpFrame is opFrame's part for the Python plugin module.
type qdpFrame struct {
	ID                                            string
	AOT, Attrs, Relations, RunsReference, DTCodes bool
}

// frameSection names the frames among an op's keyed sections.
const frameSection = "trt-frame"

// frameMagic starts an encoded frame; it changes with the encoding.
const frameMagic = "trtframe1\x00"

// newOpFrame is op's frame, made from its models; newQDPModel adds the
// Python plugin's part.
func newOpFrame(op *ir.Op, m *opModel, r *readmeOp) *opFrame {
	f := &opFrame{
		Name: op.Name, Creator: m.Creator, Inputs: r.Inputs, Outputs: r.Outputs,
		Triton:     m.Kernel.Triton != nil,
		Aliased:    m.Aliased,
		DTypeCodes: slices.ContainsFunc(op.Params, func(p *ir.Param) bool { return p.DTypeCode != nil }),
		DimHelpers: usesDimHelpers([]*ir.Op{op}),
	}
	for _, t := range op.Tensors() {
		for _, d := range op.AllowedDTypes(t) {
			switch d {
			case ir.BFloat16, ir.Int64:
				f.Wide = true
			case ir.Float8E4:
				f.FP8 = true
			}
		}
	}
	for _, p := range m.Params {
		switch p.FieldType {
		case "kINT64", "kBF16", "kFP8":
			f.Wide = true
		}
	}
	return f
}

// encode writes f as the section store keeps it.
func (f *opFrame) encode() string {
	b := append([]byte(nil), frameMagic...)
	b = binrec.AppendString(b, f.Name)
	b = binrec.AppendString(b, string(f.Creator))
	for _, list := range [][]string{f.Inputs, f.Outputs} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, s := range list {
			b = binrec.AppendString(b, s)
		}
	}
	for _, v := range []bool{f.Triton, f.Aliased, f.Wide, f.FP8, f.DTypeCodes, f.DimHelpers, f.QDP != nil} {
		b = binrec.AppendBool(b, v)
	}
	if q := f.QDP; q != nil {
		b = binrec.AppendString(b, q.ID)
		for _, v := range []bool{q.AOT, q.Attrs, q.Relations, q.RunsReference, q.DTCodes} {
			b = binrec.AppendBool(b, v)
		}
	}
	return string(b)
}

// decodeFrame reads what encode wrote; false when it is not that.
func decodeFrame(s string) (*opFrame, bool) {
	r := binrec.NewReader([]byte(s), frameMagic)
	f := &opFrame{Name: r.String(), Creator: text(r.String())}
	for _, list := range []*[]string{&f.Inputs, &f.Outputs} {
		n := r.Count()
		for i := 0; i < n && !r.Bad(); i++ {
			*list = append(*list, r.String())
		}
	}
	for _, v := range []*bool{&f.Triton, &f.Aliased, &f.Wide, &f.FP8, &f.DTypeCodes, &f.DimHelpers} {
		*v = r.Bool()
	}
	if r.Bool() {
		q := &qdpFrame{ID: r.String()}
		for _, v := range []*bool{&q.AOT, &q.Attrs, &q.Relations, &q.RunsReference, &q.DTCodes} {
			*v = r.Bool()
		}
		f.QDP = q
	}
	return f, r.Done()
}

// keptFrames are the frames of the ops of pkg that need no model: the op
// has a key, its frame and every one of its sections are stored under it,
// and every file it generates alone is kept (pkg.Reuse). The others are
// nil.
func keptFrames(pkg *ir.Package, ops []*ir.Op) []*opFrame {
	frames := make([]*opFrame, len(ops))
	if pkg.Reuse == nil || len(pkg.Reuse.Kept) == 0 {
		return frames
	}
	// A thousand ops' lookups and decodes, on every core: this runs
	// before the package's files can render.
	workpool.Parallel(len(ops), func(i int) {
		op := ops[i]
		text, ok := render.Stored(pkg, op, frameSection)
		if !ok {
			return
		}
		f, ok := decodeFrame(text)
		if !ok || f.Name != op.Name {
			return
		}
		if _, ok := render.Stored(pkg, op, readmeSection); !ok {
			return
		}
		if f.QDP != nil {
			if _, ok := render.Stored(pkg, op, qdpSection); !ok {
				return
			}
		}
		if !slices.ContainsFunc(opFiles(op.Name, f.Triton), func(p string) bool { return !pkg.Reuse.Kept[pkg.Name+"/"+p] }) {
			frames[i] = f
		}
	})
	return frames
}

// opFiles are the files an op generates alone, below its package's
// directory (Paths).
func opFiles(op string, triton bool) []string {
	files := []string{opPath(op, "Kernel.h"), opPath(op, "Kernel.cu"), opPath(op, "Plugin.h"), opPath(op, "Plugin.cpp")}
	if triton {
		files = append(files, tritonScriptPath(op))
	}
	return files
}

// rememberFrames stores the frames of the ops modelled now (models[i]
// set) by their ops' keys.
func rememberFrames(pkg *ir.Package, ops []*ir.Op, frames []*opFrame, models []*opModel) {
	for i, op := range ops {
		if models[i] != nil {
			render.Remember(pkg, op, frameSection, frames[i].encode())
		}
	}
}
