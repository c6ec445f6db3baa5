package htp

import (
	"sync"

	"github.com/opforge/opforge/generators/onnx"
)

// onnxruntime/onnxruntime-qnn, the op builders registered in
// onnxruntime/core/providers/qnn/builder/op_builder_factory.cc
// (commit 001cffc6): the ONNX ops ONNX Runtime's QNN execution
// provider hands to QNN's HTP backend. It dispatches on op_type.
var onnxFrontEnd = sync.OnceValue(func() *onnx.FrontEnd {
	return onnx.NewFrontEnd(
		"ONNX Runtime's QNN execution provider (onnxruntime-qnn 001cffc6)",
		`Abs Add And ArgMax ArgMin Asin Atan AveragePool BatchNormalization Cast Ceil Clip
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
	Transpose Unsqueeze Upsample Where Xor`,
		``,
		true)
})

// ONNXFrontEnd lists the ONNX ops the target's own ONNX front end runs.
func (Target) ONNXFrontEnd() *onnx.FrontEnd { return onnxFrontEnd() }
