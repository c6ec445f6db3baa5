package aipu

import (
	"sync"

	"github.com/opforge/opforge/generators/onnx"
)

// Arm-China/Compass_Unified_Parser (commit 9d4cfb79): the classes
// deriving from OnnxOp in AIPUBuilder/Parser/ops/onnx_ops. The parser
// looks a node up as op_type + "Op", with an "Ms" suffix for the
// com.microsoft domain (listed separately).
var onnxFrontEnd = sync.OnceValue(func() *onnx.FrontEnd {
	return onnx.NewFrontEnd(
		"the Compass Unified Parser (9d4cfb79)",
		`Abs Acos Acosh Add AffineGrid And ArgMax ArgMin Asin Asinh Atan Atanh Attention
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
	Tile TopK Transpose Trilu Unique Unsqueeze Upsample Where Xor`,
		`GroupQueryAttention MatMulBnb4 MatMulNBits MultiHeadAttention QGemm QLinearAdd
	QLinearAveragePool QLinearConcat QLinearGlobalAveragePool QLinearLeakyRelu QLinearSigmoid
	RotaryEmbedding SkipSimplifiedLayerNormalization`,
		false)
})

// ONNXFrontEnd lists the ONNX ops the target's own ONNX front end runs.
func (Target) ONNXFrontEnd() *onnx.FrontEnd { return onnxFrontEnd() }
