package aipu

import (
	"strings"
	"sync"
)

// builtinLayerTypes are the layer types the open-source Compass Optimizer
// implements itself (every OpType passed to op_register under
// AIPUBuilder/Optimizer/ops in Arm-China/Compass_Optimizer at d7b2bb7,
// zy_compass_4.2). An OPT plugin for one of them competes with the
// built-in: register_optype is case-sensitive, the higher version wins, and
// at equal versions the one registered last does (plugins load after the
// built-ins in optimizer_main, so a 1.0 plugin silently replaces it).
var builtinLayerTypes = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`
	Abs AccidentalHits Acos Acosh Activation AdaptivePool Add AffineGrid ArgMinMax Asin Asinh Atan
	Atanh BNLL BasicLSTM BatchNorm BatchToDepth BatchToSpace BatchToSpaceND BiasAdd BitShift Bitwise
	BoundingBox CELU CRELU CTCGreedyDecoder CacheUpdate Cast Ceil ChannelShuffle Clip Col2Im
	CollapseRepeated Compress Concat Constant ConstantOfShape ConvInteger ConvTranspose
	ConvTranspose3D Convolution Convolution3D Cosh Cosine Count Crop CropAndResize Cumulate DataStride
	DeQuantize DecodeBox DepthToSpace DepthwiseConv DetectionOutput Dilation Div DivMod Dummy ELU
	Eltwise EmbeddingLookupSparse Erf Erosion Exp FakeQuantWithMinMaxVars Filter FilterBoxes Floor
	FractionalPool FullyConnected GELU GRUv1 GRUv3 Gather GatherElements GatherND Gemm
	GenerateProposals GetValidCount GlobalPool GridSample GroupNorm HardSigmoid Hardmax Hardswish
	HeatmapMaxKeypoint If InTopK Input InstanceNorm Interp IsInf IsNaN LRN LayerNorm LeakyRELU Log
	LogSoftmax Logical Loop MISH MVN MatMul MatMulInteger MaxPoolingWithArgMax MaxRoiPool MaxUnpool
	Meshgrid Mod Moments Mul MultiboxTransformLoc NMS Negative NoOp NonZero Normalization
	NormalizedMoments OneHot OverlapAdd PRELU Pad Permute Pooling Pooling3D PostNMS1 PostNMS2 Pow
	Proposal PyramidROIAlign Quantize QueryRebatch RELU RELU6 RMSNorm RNN ROIPooling Reciprocal Reduce
	Region RegionFuse Repeat Reshape Resize ReverseSequence RgbToYuv RoiAlign RotaryEmbedding Round
	Rsqrt SDPAttention SELU SHRINK ScatterElements ScatterND SegmentReduce Shape Sigmoid Sign Silu
	Sine Sinh Slice SlotUpdate Softmax Softplus Softsign Sort SpaceToBatch SpaceToDepth Split Sqrt
	Square SquaredDifference Squeeze StridedSlice Sub SufficientStatistics Swish Switch
	THRESHOLDEDRELU Tan Tanh Tile TopK Transpose Trunc Unique UpsampleByIndex Where YuvToRgb
	ZeroFraction
`) {
		m[name] = true
	}
	return m
})
