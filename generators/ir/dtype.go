package ir

import "sort"

// DType is opforge's own dtype vocabulary. Every target maps it through
// the table below; a dtype a target cannot take is that target's
// diagnostic, never a silent cast.
type DType string

const (
	Bool     DType = "bool"
	Int8     DType = "int8"
	Int16    DType = "int16"
	Int32    DType = "int32"
	Int64    DType = "int64"
	Uint8    DType = "uint8"
	Uint16   DType = "uint16"
	Uint32   DType = "uint32"
	Uint64   DType = "uint64"
	Float16  DType = "float16"
	BFloat16 DType = "bfloat16"
	Float32  DType = "float32"
	Float64  DType = "float64"
	Float8E4 DType = "float8_e4m3"
	// Quantized (fixed point) activations, signed and unsigned.
	QInt4   DType = "qint4"
	QInt8   DType = "qint8"
	QInt16  DType = "qint16"
	QInt32  DType = "qint32"
	QUint4  DType = "quint4"
	QUint8  DType = "quint8"
	QUint16 DType = "quint16"
	QUint32 DType = "quint32"
	String  DType = "string"
	// BackendSpecific: the concrete dtype is given per backend, in the
	// target's own section.
	BackendSpecific DType = "backend_specific"
)

// DTypeKind groups dtypes by how values of them behave.
type DTypeKind int

const (
	KindBool DTypeKind = iota
	KindInt
	KindUint
	KindFloat
	KindQuant
	KindString
	KindOpaque
)

// DTypeInfo is what every target shares about a dtype: its kind, size,
// the torch dtype (the reference and every target's Python run PyTorch)
// and the C/C++ element type kernels use. Each target keeps its own
// vendor spelling in its folder (dtype.go, or its own format's reader): a
// dtype a target cannot take is that target's diagnostic.
type DTypeInfo struct {
	Name DType
	Kind DTypeKind
	Bits int
	// Torch is the torch dtype attribute name ("" when torch has none).
	Torch string
	// C is the C/C++ element type used in kernels and attribute storage.
	C string
}

var dtypeTable = []DTypeInfo{
	{Bool, KindBool, 8, "bool", "bool"},
	{Int8, KindInt, 8, "int8", "int8_t"},
	{Int16, KindInt, 16, "int16", "int16_t"},
	{Int32, KindInt, 32, "int32", "int32_t"},
	{Int64, KindInt, 64, "int64", "int64_t"},
	{Uint8, KindUint, 8, "uint8", "uint8_t"},
	{Uint16, KindUint, 16, "uint16", "uint16_t"},
	{Uint32, KindUint, 32, "uint32", "uint32_t"},
	{Uint64, KindUint, 64, "uint64", "uint64_t"},
	{Float16, KindFloat, 16, "float16", "__half"},
	{BFloat16, KindFloat, 16, "bfloat16", "__nv_bfloat16"},
	{Float32, KindFloat, 32, "float32", "float"},
	{Float64, KindFloat, 64, "float64", "double"},
	{Float8E4, KindFloat, 8, "float8_e4m3fn", "__nv_fp8_e4m3"},
	{QInt4, KindQuant, 4, "", "int8_t"},
	{QInt8, KindQuant, 8, "int8", "int8_t"},
	{QInt16, KindQuant, 16, "int16", "int16_t"},
	{QInt32, KindQuant, 32, "int32", "int32_t"},
	{QUint4, KindQuant, 4, "", "uint8_t"},
	{QUint8, KindQuant, 8, "uint8", "uint8_t"},
	{QUint16, KindQuant, 16, "uint16", "uint16_t"},
	{QUint32, KindQuant, 32, "uint32", "uint32_t"},
	{String, KindString, 8, "", "char"},
	{BackendSpecific, KindOpaque, 0, "", ""},
}

var dtypeByName = func() map[DType]*DTypeInfo {
	m := make(map[DType]*DTypeInfo, len(dtypeTable))
	for i := range dtypeTable {
		m[dtypeTable[i].Name] = &dtypeTable[i]
	}
	return m
}()

// Info returns the table row of d, or nil for an unknown dtype.
func (d DType) Info() *DTypeInfo { return dtypeByName[d] }

// Bits is the size of one element in bits (0 for unknown and opaque dtypes).
func (d DType) Bits() int {
	if i := d.Info(); i != nil {
		return i.Bits
	}
	return 0
}

// Valid reports whether d is in the vocabulary.
func (d DType) Valid() bool { return dtypeByName[d] != nil }

// Kind of the dtype; unknown dtypes are opaque.
func (d DType) Kind() DTypeKind {
	if i := d.Info(); i != nil {
		return i.Kind
	}
	return KindOpaque
}

// IsInteger reports plain (non-quantized) integers, the dtypes shape values
// and integer params use.
func (d DType) IsInteger() bool { k := d.Kind(); return k == KindInt || k == KindUint }

// IsFloat reports floating-point dtypes.
func (d DType) IsFloat() bool { return d.Kind() == KindFloat }

// DTypeNames lists the vocabulary, sorted, for messages and the schema.
func DTypeNames() []string {
	names := make([]string, 0, len(dtypeTable))
	for _, d := range dtypeTable {
		names = append(names, string(d.Name))
	}
	sort.Strings(names)
	return names
}
