package onnximport

import (
	"sort"
	"strings"

	"github.com/opforge/opforge/generators/onnx"
)

// The ONNX op types each target's ONNX front end runs natively, so that
// `--unsupported-for TARGET` can select the nodes it cannot. Each list is
// written from the vendor's published source named below; a newer SDK may
// run more, and --op-types or --nodes select by hand.
var frontEnds = map[string]*frontEnd{
	// onnx/onnx-tensorrt docs/operators.md, release 10.1 (the rows marked
	// Y). The parser dispatches on op_type alone, whatever the domain.
	"trt": {
		source: "the ONNX-TensorRT 10.1 operator support matrix",
		ops: ops(`Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh AveragePool
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
			Trilu Unsqueeze Upsample Where Xor`),
		anyDomain: true,
	},
	// onnxruntime/onnxruntime-qnn, the op builders registered in
	// onnxruntime/core/providers/qnn/builder/op_builder_factory.cc
	// (commit 001cffc6): the ONNX ops ONNX Runtime's QNN execution
	// provider hands to QNN's HTP backend. It dispatches on op_type.
	"htp": {
		source: "ONNX Runtime's QNN execution provider (onnxruntime-qnn 001cffc6)",
		ops: ops(`Abs Add And ArgMax ArgMin Asin Atan AveragePool BatchNormalization Cast Ceil Clip
			Concat Conv ConvTranspose Cos CumSum DepthToSpace DequantizeLinear Div Einsum Elu Equal Exp
			Expand Flatten Floor FusedMatMul GRU Gather GatherElements GatherND Gelu Gemm
			GlobalAveragePool GlobalMaxPool Greater GreaterOrEqual GridSample GroupNormalization
			HardSigmoid HardSwish Identity If InstanceNormalization Inverse IsNaN LRN LSTM
			LayerNormalization LeakyRelu Less LessOrEqual Log LogSoftmax LpNormalization MatMul
			MatMulNBits Max MaxPool Mean Min Mod Mul Neg NonZero Not Or PRelu Pad Pow QuantizeLinear
			QuickGelu RMSNormalization RandomNormalLike RandomUniformLike Reciprocal ReduceL2 ReduceMax
			ReduceMean ReduceMin ReduceProd ReduceSum Relu Reshape Resize RoiAlign RotaryEmbedding Round
			STFT ScatterElements ScatterND Selu Sigmoid Sign SimplifiedLayerNormalization Sin Slice
			Softmax Softplus SpaceToDepth Split Sqrt Squeeze Sub Sum Tan Tanh ThresholdedRelu Tile TopK
			Transpose Unsqueeze Upsample Where Xor`),
		anyDomain: true,
	},
	// Arm-China/Compass_Unified_Parser (commit 9d4cfb79): the classes
	// deriving from OnnxOp in AIPUBuilder/Parser/ops/onnx_ops. The parser
	// looks a node up as op_type + "Op", with an "Ms" suffix for the
	// com.microsoft domain (listed separately).
	"aipu": {
		source: "the Compass Unified Parser (9d4cfb79)",
		ops: ops(`Abs Acos Acosh Add AffineGrid And ArgMax ArgMin Asin Asinh Atan Atanh Attention
			AveragePool BatchNormalization BitShift BitwiseAnd BitwiseNot BitwiseOr BitwiseXor Cast Ceil
			Celu CenterCropPad Clip Col2Im Compress Concat ConcatFromSequence Constant ConstantOfShape
			Conv ConvInteger ConvTranspose Cos Cosh CumSum DeformConv DepthToSpace DequantizeLinear Div
			Dropout DynamicQuantizeLinear Einsum Elu Equal Erf Exp Expand EyeLike Flatten Floor GRU
			Gather GatherElements GatherND Gelu Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool Greater
			GreaterOrEqual GridSample GroupNormalization HardSigmoid Hardmax Identity If
			InstanceNormalization IsInf IsNaN LRN LSTM LayerNormalization LeakyRelu Less LessOrEqual Log
			LogSoftmax Loop LpNormalization LpPool MatMul MatMulInteger Max MaxPool MaxRoiPool MaxUnpool
			Mean MeanVarianceNormalization Min Mish Mod Mul Neg NonMaxSuppression NonZero Not OneHot Or
			PRelu Pad Pow QLinearConv QLinearMatMul QuantizeLinear RMSNormalization Range Reciprocal
			ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd
			ReduceSum ReduceSumSquare Relu Reshape Resize ReverseSequence RoiAlign RotaryEmbedding Round
			Scatter ScatterElements ScatterND Selu SequenceAt SequenceConstruct SequenceEmpty
			SequenceInsert Shape Shrink Sigmoid Sign SimplifiedLayerNormalization Sin Sinh Size Slice
			Softmax Softplus Softsign SpaceToDepth Split Sqrt Squeeze Sub Sum Tan Tanh ThresholdedRelu
			Tile TopK Transpose Trilu Unique Unsqueeze Upsample Where Xor`),
		microsoft: ops(`GroupQueryAttention MatMulBnb4 MatMulNBits MultiHeadAttention QGemm QLinearAdd
			QLinearAveragePool QLinearConcat QLinearGlobalAveragePool QLinearLeakyRelu QLinearSigmoid
			RotaryEmbedding SkipSimplifiedLayerNormalization`),
	},
}

type frontEnd struct {
	source string
	ops    map[string]bool
	// microsoft are the com.microsoft ops, for front ends that tell domains apart.
	microsoft map[string]bool
	// anyDomain: the front end dispatches on op_type whatever the domain.
	anyDomain bool
}

func ops(list string) map[string]bool {
	m := map[string]bool{}
	for _, op := range strings.Fields(list) {
		m[op] = true
	}
	return m
}

// FrontEnds lists the targets --unsupported-for accepts.
func FrontEnds() []string {
	out := make([]string, 0, len(frontEnds))
	for t := range frontEnds {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// runs reports whether target's ONNX front end runs node natively.
func (f *frontEnd) runs(n *onnx.Node) bool {
	switch {
	case f.anyDomain || onnx.IsDefaultDomain(n.Domain):
		return f.ops[n.OpType]
	case n.Domain == "com.microsoft":
		return f.microsoft[n.OpType]
	}
	// The Compass parser looks other domains up by op_type too.
	return f.ops[n.OpType]
}
