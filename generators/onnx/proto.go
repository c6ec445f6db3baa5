package onnx

import (
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the ONNX messages opforge reads or writes, from the
// public onnx.proto (IR version 10+; numbers never change once published).
// Every other field is carried through untouched.
const (
	// ModelProto
	modelIRVersion   protowire.Number = 1
	modelProducer    protowire.Number = 2
	modelOpsetImport protowire.Number = 8
	modelGraph       protowire.Number = 7
	modelTraining    protowire.Number = 20
	modelFunctions   protowire.Number = 25

	// OperatorSetIdProto
	opsetDomain  protowire.Number = 1
	opsetVersion protowire.Number = 2

	// GraphProto
	graphNode              protowire.Number = 1
	graphName              protowire.Number = 2
	graphInitializer       protowire.Number = 5
	graphInput             protowire.Number = 11
	graphOutput            protowire.Number = 12
	graphValueInfo         protowire.Number = 13
	graphSparseInitializer protowire.Number = 15

	// NodeProto
	nodeInput     protowire.Number = 1
	nodeOutput    protowire.Number = 2
	nodeName      protowire.Number = 3
	nodeOpType    protowire.Number = 4
	nodeAttribute protowire.Number = 5
	nodeDomain    protowire.Number = 7

	// AttributeProto
	attrName          protowire.Number = 1
	attrF             protowire.Number = 2
	attrI             protowire.Number = 3
	attrS             protowire.Number = 4
	attrT             protowire.Number = 5
	attrG             protowire.Number = 6
	attrFloats        protowire.Number = 7
	attrInts          protowire.Number = 8
	attrStrings       protowire.Number = 9
	attrTensors       protowire.Number = 10
	attrGraphs        protowire.Number = 11
	attrTP            protowire.Number = 14
	attrTypeProtos    protowire.Number = 15
	attrType          protowire.Number = 20
	attrRefAttrName   protowire.Number = 21
	attrSparseTensor  protowire.Number = 22
	attrSparseTensors protowire.Number = 23

	// ValueInfoProto
	valueInfoName protowire.Number = 1
	valueInfoType protowire.Number = 2

	// TypeProto and its nested messages
	typeTensor       protowire.Number = 1
	typeSequence     protowire.Number = 4
	typeMap          protowire.Number = 5
	typeOpaque       protowire.Number = 7
	typeSparseTensor protowire.Number = 8
	typeOptional     protowire.Number = 9
	tensorTypeElem   protowire.Number = 1 // TypeProto.Tensor / SparseTensor elem_type
	tensorTypeShape  protowire.Number = 2 // TypeProto.Tensor / SparseTensor shape
	shapeDim         protowire.Number = 1 // TensorShapeProto.dim
	dimValue         protowire.Number = 1 // TensorShapeProto.Dimension.dim_value
	dimParam         protowire.Number = 2 // TensorShapeProto.Dimension.dim_param

	// TensorProto
	tensorDims         protowire.Number = 1
	tensorDataType     protowire.Number = 2
	tensorName         protowire.Number = 8
	tensorExternalData protowire.Number = 13
	tensorDataLocation protowire.Number = 14

	// SparseTensorProto
	sparseValues  protowire.Number = 1
	sparseIndices protowire.Number = 2
	sparseDims    protowire.Number = 3

	// StringStringEntryProto
	entryKey   protowire.Number = 1
	entryValue protowire.Number = 2

	// FunctionProto
	functionName   protowire.Number = 1
	functionNode   protowire.Number = 7
	functionDomain protowire.Number = 10

	// TrainingInfoProto
	trainingInitialization protowire.Number = 1
	trainingAlgorithm      protowire.Number = 2
)

// DataType is TensorProto.DataType, the element type of a tensor.
type DataType int32

// TensorProto.DataType values.
const (
	Undefined      DataType = 0
	Float          DataType = 1
	Uint8          DataType = 2
	Int8           DataType = 3
	Uint16         DataType = 4
	Int16          DataType = 5
	Int32          DataType = 6
	Int64          DataType = 7
	String         DataType = 8
	Bool           DataType = 9
	Float16        DataType = 10
	Double         DataType = 11
	Uint32         DataType = 12
	Uint64         DataType = 13
	Complex64      DataType = 14
	Complex128     DataType = 15
	BFloat16       DataType = 16
	Float8E4M3FN   DataType = 17
	Float8E4M3FNUZ DataType = 18
	Float8E5M2     DataType = 19
	Float8E5M2FNUZ DataType = 20
	Uint4          DataType = 21
	Int4           DataType = 22
	Float4E2M1     DataType = 23
	Float8E8M0     DataType = 24
	Uint2          DataType = 25
	Int2           DataType = 26
	Float6E2M3     DataType = 27
	Float6E3M2     DataType = 28
)

var dataTypeNames = map[DataType]string{
	Undefined: "UNDEFINED", Float: "FLOAT", Uint8: "UINT8", Int8: "INT8", Uint16: "UINT16",
	Int16: "INT16", Int32: "INT32", Int64: "INT64", String: "STRING", Bool: "BOOL",
	Float16: "FLOAT16", Double: "DOUBLE", Uint32: "UINT32", Uint64: "UINT64",
	Complex64: "COMPLEX64", Complex128: "COMPLEX128", BFloat16: "BFLOAT16",
	Float8E4M3FN: "FLOAT8E4M3FN", Float8E4M3FNUZ: "FLOAT8E4M3FNUZ", Float8E5M2: "FLOAT8E5M2",
	Float8E5M2FNUZ: "FLOAT8E5M2FNUZ", Uint4: "UINT4", Int4: "INT4", Float4E2M1: "FLOAT4E2M1",
	Float8E8M0: "FLOAT8E8M0", Uint2: "UINT2", Int2: "INT2", Float6E2M3: "FLOAT6E2M3", Float6E3M2: "FLOAT6E3M2",
}

// String is the onnx.proto enumerator name, or the number when unknown.
func (d DataType) String() string {
	if s, ok := dataTypeNames[d]; ok {
		return s
	}
	return "DataType(" + strconv.Itoa(int(d)) + ")"
}

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// AttributeProto.AttributeType values.
const (
	AttrUndefined     AttrType = 0
	AttrFloat         AttrType = 1
	AttrInt           AttrType = 2
	AttrString        AttrType = 3
	AttrTensor        AttrType = 4
	AttrGraph         AttrType = 5
	AttrFloats        AttrType = 6
	AttrInts          AttrType = 7
	AttrStrings       AttrType = 8
	AttrTensors       AttrType = 9
	AttrGraphs        AttrType = 10
	AttrSparseTensor  AttrType = 11
	AttrSparseTensors AttrType = 12
	AttrTypeProto     AttrType = 13
	AttrTypeProtos    AttrType = 14
)

var attrTypeNames = map[AttrType]string{
	AttrUndefined: "UNDEFINED", AttrFloat: "FLOAT", AttrInt: "INT", AttrString: "STRING",
	AttrTensor: "TENSOR", AttrGraph: "GRAPH", AttrFloats: "FLOATS", AttrInts: "INTS",
	AttrStrings: "STRINGS", AttrTensors: "TENSORS", AttrGraphs: "GRAPHS",
	AttrSparseTensor: "SPARSE_TENSOR", AttrSparseTensors: "SPARSE_TENSORS",
	AttrTypeProto: "TYPE_PROTO", AttrTypeProtos: "TYPE_PROTOS",
}

// String is the onnx.proto enumerator name, or the number when unknown.
func (a AttrType) String() string {
	if s, ok := attrTypeNames[a]; ok {
		return s
	}
	return "AttributeType(" + strconv.Itoa(int(a)) + ")"
}

// DataLocation values of TensorProto.data_location.
const (
	locationDefault  = 0
	locationExternal = 1
)
