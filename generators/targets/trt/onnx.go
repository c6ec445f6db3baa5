package trt

import "github.com/opforge/opforge/generators/onnx"

// onnx/onnx-tensorrt docs/operators.md, release 10.1 (the rows marked
// Y). The parser dispatches on op_type alone, whatever the domain.
var onnxFrontEnd = onnx.NewFrontEnd(
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

// ONNXFrontEnd lists the ONNX ops the target's own ONNX front end runs.
func (Target) ONNXFrontEnd() *onnx.FrontEnd { return onnxFrontEnd }
