package trt

import (
	"fmt"
	"sync"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/target"
)

// onnx/onnx-tensorrt docs/operators.md, release 10.1 (the rows marked
// Y). The parser dispatches on op_type alone, whatever the domain.
var onnxFrontEnd = sync.OnceValue(func() *onnx.FrontEnd {
	return onnx.NewFrontEnd(
		"the ONNX-TensorRT 10.1 operator support matrix",
		`Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh AveragePool
	BatchNormalization Cast CastLike Ceil Celu Clip Concat Constant ConstantOfShape Conv
	ConvTranspose Cos Cosh CumSum DeformConv DepthToSpace DequantizeLinear Div Dropout Einsum Elu
	Equal Erf Exp Expand EyeLike Flatten Floor GRU Gather GatherElements GatherND Gelu Gemm
	GlobalAveragePool GlobalLpPool GlobalMaxPool Greater GreaterOrEqual GridSample
	GroupNormalization HardSigmoid HardSwish Hardmax Identity If ImageScaler InstanceNormalization
	IsInf IsNaN LRN LSTM LayerNormalization LeakyRelu Less LessOrEqual Log LogSoftmax Loop
	LpNormalization LpPool MatMul Max MaxPool Mean MeanVarianceNormalization Min Mish Mod Mul Neg
	NonMaxSuppression NonZero Not OneHot Or PRelu Pad ParametricSoftplus Pow QuantizeLinear RNN
	RandomNormal RandomNormalLike RandomUniform RandomUniformLike Range Reciprocal ReduceL1
	ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum
	ReduceSumSquare Relu Reshape Resize ReverseSequence RoiAlign Round ScaledTanh Scan Scatter
	ScatterElements ScatterND Selu Shape Shrink Sigmoid Sign Sin Sinh Size Slice Softmax Softplus
	Softsign SpaceToDepth Split Sqrt Squeeze Sub Sum Tan Tanh ThresholdedRelu Tile TopK Transpose
	Trilu Unsqueeze Upsample Where Xor`,
		``,
		true)
})

// ONNXFrontEnd lists the ONNX ops the target's own ONNX front end runs.
func (Target) ONNXFrontEnd() *onnx.FrontEnd { return onnxFrontEnd() }

// ParserAttrs are the node attributes TensorRT's ONNX parser reads itself
// to find and feed the plugin (onnx-tensorrt's importPluginV3 path); it
// never forwards them to the creator as fields, so import never makes
// them params.
var ParserAttrs = map[string]bool{
	"plugin_namespace":                    true,
	"plugin_version":                      true,
	"tensorrt_plugin_shape_input_indices": true,
}

// CallerSummary implements target.ONNXCaller.
func (Target) CallerSummary() string { return "TensorRT's ONNX parser" }

// ONNXCall makes a node call the op's C++ plugin: TensorRT's ONNX parser
// looks the creator up by the node's op type, plugin_version and
// plugin_namespace (written explicitly: its defaults are "1" and ""), and
// forwards the other attributes as fields by name. Shape-tensor inputs are
// listed in tensorrt_plugin_shape_input_indices.
func (Target) ONNXCall(pkg *ir.Package, op *ir.Op, n *onnx.Node) target.ONNXCall {
	if !op.Sections.Has(targetName) {
		return target.ONNXCall{Unavailable: fmt.Sprintf("op %s, which does not generate for trt (no targets.trt in %s), so no plugin would be found", op.Name, pkg.Source)}
	}
	id := PluginID(pkg, op)
	e := onnx.NodeEdit{OpType: id.Name, Attrs: []onnx.NewAttr{
		onnx.StringAttr("plugin_namespace", id.Namespace),
		onnx.StringAttr("plugin_version", id.Version),
	}}
	var shapeInputs []int64
	for i, t := range op.Inputs {
		if t.ShapeTensor {
			shapeInputs = append(shapeInputs, int64(i))
		}
	}
	if len(shapeInputs) > 0 {
		e.Attrs = append(e.Attrs, onnx.NewAttr{Name: "tensorrt_plugin_shape_input_indices", Type: onnx.AttrInts, Ints: shapeInputs})
	}
	return target.ONNXCall{
		Edit:         e,
		Label:        fmt.Sprintf("%s::%s version %s", id.Namespace, id.Name, id.Version),
		Reserved:     ParserAttrs,
		UnknownAttr:  "TensorRT's parser forwards only the attributes the creator declares as fields, so the plugin would never see it",
		StandardName: fmt.Sprintf("op %s of %s has the name of a standard ONNX op: TensorRT's parser would import %s as the built-in op. Rename the op, or pass --allow-standard-names if you build with kENABLE_PLUGIN_OVERRIDE (TensorRT 10.15+)", op.Name, pkg.Source, n),
	}
}
