package onnx

import "sync"

// The standard ONNX operators, written from the operator schemas of onnx
// 1.23 (onnx.defs, every version of every op), plus the experimental ops
// ONNX 1.5 removed that importers still recognise (ImageScaler, ScaledTanh
// and ParametricSoftplus).
//
// A plugin named like one of these may be taken by a runtime's ONNX parser
// for the built-in op and never reach the plugin (each target's
// NodeReader.StandardNameRule says whether its runtime does); and
// onnx.checker validates a default-domain node named like one against its
// schema.
var (
	onnxOps = []string{
		"Abs", "Acos", "Acosh", "Add", "AffineGrid", "And", "ArgMax", "ArgMin", "Asin", "Asinh",
		"Atan", "Atanh", "Attention", "AveragePool", "BatchNormalization", "Bernoulli", "BitCast",
		"BitShift", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "BlackmanWindow", "Cast",
		"CastLike", "CausalConvWithState", "Ceil", "Celu", "CenterCropPad", "Clip", "Col2Im",
		"Compress", "Concat", "ConcatFromSequence", "Constant", "ConstantOfShape", "Conv",
		"ConvInteger", "ConvTranspose", "Cos", "Cosh", "CumProd", "CumSum", "DFT", "DeformConv",
		"DepthToSpace", "DequantizeLinear", "Det", "Div", "Dropout", "DynamicQuantizeLinear", "Einsum",
		"Elu", "Equal", "Erf", "Exp", "Expand", "EyeLike", "Flatten", "Floor", "GRU", "Gather",
		"GatherElements", "GatherND", "Gelu", "Gemm", "GlobalAveragePool", "GlobalLpPool",
		"GlobalMaxPool", "Greater", "GreaterOrEqual", "GridSample", "GroupNormalization",
		"HammingWindow", "HannWindow", "HardSigmoid", "HardSwish", "Hardmax", "Identity", "If",
		"ImageDecoder", "InstanceNormalization", "IsInf", "IsNaN", "LRN", "LSTM", "LayerNormalization",
		"LeakyRelu", "Less", "LessOrEqual", "LinearAttention", "Log", "LogSoftmax", "Loop",
		"LpNormalization", "LpPool", "MatMul", "MatMulInteger", "Max", "MaxPool", "MaxRoiPool",
		"MaxUnpool", "Mean", "MeanVarianceNormalization", "MelWeightMatrix", "Min", "Mish", "Mod",
		"Mul", "Multinomial", "Neg", "NegativeLogLikelihoodLoss", "NonMaxSuppression", "NonZero",
		"Not", "OneHot", "Optional", "OptionalGetElement", "OptionalHasElement", "Or", "PRelu", "Pad",
		"Pow", "QLinearConv", "QLinearMatMul", "QuantizeLinear", "RMSNormalization", "RNN",
		"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Range",
		"Reciprocal", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
		"ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "RegexFullMatch",
		"Relu", "Reshape", "Resize", "ReverseSequence", "RoiAlign", "RotaryEmbedding", "Round", "STFT",
		"Scan", "Scatter", "ScatterElements", "ScatterND", "Selu", "SequenceAt", "SequenceConstruct",
		"SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength", "SequenceMap", "Shape",
		"Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Size", "Slice", "Softmax",
		"SoftmaxCrossEntropyLoss", "Softplus", "Softsign", "SpaceToDepth", "Split", "SplitToSequence",
		"Sqrt", "Squeeze", "StringConcat", "StringNormalizer", "StringSplit", "Sub", "Sum", "SwiGLU",
		"Swish", "Tan", "Tanh", "TensorScatter", "TfIdfVectorizer", "ThresholdedRelu", "Tile", "TopK",
		"Transpose", "Trilu", "Unique", "Unsqueeze", "Upsample", "Where", "Xor",
	}
	onnxMLOps = []string{
		"ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer",
		"FeatureVectorizer", "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor",
		"Normalizer", "OneHotEncoder", "SVMClassifier", "SVMRegressor", "Scaler", "TreeEnsemble",
		"TreeEnsembleClassifier", "TreeEnsembleRegressor", "ZipMap",
	}
	onnxPreviewOps = []string{
		"Adagrad", "Adam", "FlexAttention", "Gradient", "Momentum",
	}
	removedExperimentalOps = []string{
		"ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice", "GRUUnit", "GivenTensorFill",
		"ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh",
	}
)

var standardOps = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, l := range []struct {
		domain string
		ops    []string
	}{{"ai.onnx", onnxOps}, {"ai.onnx.ml", onnxMLOps}, {"ai.onnx.preview", onnxPreviewOps}, {"ai.onnx (removed experimental)", removedExperimentalOps}} {
		for _, op := range l.ops {
			if _, ok := m[op]; !ok {
				m[op] = l.domain
			}
		}
	}
	return m
})

// StandardOp reports whether name is a standard ONNX operator, and which
// domain defines it.
func StandardOp(name string) (domain string, ok bool) {
	domain, ok = standardOps()[name]
	return domain, ok
}
