package trt

import (
	"strconv"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/shapeexpr"
)

// cppDimRef renders x.shape[axis] or prod(x.shape[lo:hi]) (x, a Dim or a
// DimProd) as int64 C++ over dims, the nvinfer1::Dims of input x (the
// profile's largest in getWorkspaceSize, the concrete ones in a run-time
// check), through common.h's dimAt and dimsProd; an axis param is read
// from params.
func cppDimRef(op *ir.Op, x *shapeexpr.Expr, dims, params string) string {
	if x.Kind == shapeexpr.DimProd {
		return "dimsProd(" + dims + ", " + sliceArgs(x) + ")"
	}
	axis := strconv.Itoa(x.Index)
	if x.Axis != "" {
		axis = "static_cast<int64_t>(" + params + "." + identOf(op, x.Axis) + ")"
	}
	return "dimAt(" + dims + ", " + axis + ")"
}

// sliceArgs are the lo, hasEnd, end arguments of common.h's slice helpers
// for a DimProd.
func sliceArgs(x *shapeexpr.Expr) string {
	return strconv.Itoa(x.Index) + ", " + strconv.FormatBool(x.HasEnd) + ", " + strconv.Itoa(x.End)
}

// dimProdExpr renders prod(x.shape[lo:hi]) for getOutputShapes: over an
// input of fixed rank, the product of the dims the slice takes (a
// constant 1 when none); otherwise common.h's dimsProdExpr over the dims
// TensorRT hands in.
func (r *refs) dimProdExpr(e *shapeexpr.Expr) string {
	var in *ioTensor
	for _, t := range r.l.Inputs {
		if t.Name == e.Name {
			in = t
		}
	}
	src := "inputs[" + strconv.Itoa(in.Index) + "]"
	if in.Rank == ir.RankAny {
		return "dimsProdExpr(exprBuilder, " + src + ", " + sliceArgs(e) + ")"
	}
	lo, hi := e.SliceOf(int64(in.Rank))
	acc := ""
	for j := lo; j < hi; j++ {
		d := src + ".d[" + strconv.FormatInt(j, 10) + "]"
		if acc == "" {
			acc = d
			continue
		}
		acc = dimOp(shapeexpr.Mul, acc, d)
	}
	if acc == "" {
		return exprConst(1)
	}
	return acc
}

// usesDimHelpers reports whether an op of ops needs common.h's helpers
// over slices and axes of dims: relations between inputs, a
// prod(x.shape[lo:hi]) in an output shape or size bound, or an input dim
// by axis in the workspace (output shapes read x.shape[axis] inline).
func usesDimHelpers(ops []*ir.Op) bool {
	for _, op := range ops {
		if len(op.Requires) > 0 {
			return true
		}
		if w := OpOptions(op).Workspace; w != nil && w.UsesDims() {
			return true
		}
		var exprs []*shapeexpr.Expr
		for _, t := range op.Outputs {
			for _, d := range t.Shape {
				exprs = append(exprs, d.Expr)
			}
		}
		for _, s := range op.DataDependent {
			exprs = append(exprs, s.Upper, s.Opt)
		}
		for _, e := range exprs {
			if e == nil {
				continue
			}
			for _, s := range e.Symbols() {
				if s.Kind == shapeexpr.DimProd {
					return true
				}
			}
		}
	}
	return false
}
