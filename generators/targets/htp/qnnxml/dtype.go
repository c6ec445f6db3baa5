package qnnxml

import (
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/ir"
)

// qnnPrefix starts every Qnn_DataType_t enumerator but BACKEND_SPECIFIC.
const qnnPrefix = "QNN_DATATYPE_"

// qnnDTypes spells each dtype as QNN's Qnn_DataType_t (QnnTypes.h), without
// the prefix; dtypes QNN has no enumerator for are absent.
var qnnDTypes = map[ir.DType]string{
	ir.Bool: "BOOL_8", ir.Int8: "INT_8", ir.Int16: "INT_16", ir.Int32: "INT_32", ir.Int64: "INT_64",
	ir.Uint8: "UINT_8", ir.Uint16: "UINT_16", ir.Uint32: "UINT_32", ir.Uint64: "UINT_64",
	ir.Float16: "FLOAT_16", ir.Float32: "FLOAT_32", ir.Float64: "FLOAT_64",
	ir.QInt4: "SFIXED_POINT_4", ir.QInt8: "SFIXED_POINT_8", ir.QInt16: "SFIXED_POINT_16", ir.QInt32: "SFIXED_POINT_32",
	ir.QUint4: "UFIXED_POINT_4", ir.QUint8: "UFIXED_POINT_8", ir.QUint16: "UFIXED_POINT_16", ir.QUint32: "UFIXED_POINT_32",
	ir.String: "STRING", ir.BackendSpecific: "BACKEND_SPECIFIC",
}

var dtypeByQNN = sync.OnceValue(func() map[string]ir.DType {
	m := make(map[string]ir.DType, len(qnnDTypes))
	for d, q := range qnnDTypes {
		m[q] = d
	}
	return m
})

// DTypeFromQNN maps a Qnn_DataType_t name, with or without its
// QNN_DATATYPE_ prefix, to opforge's dtypes.
func DTypeFromQNN(name string) (ir.DType, bool) {
	d, ok := dtypeByQNN()[strings.TrimPrefix(name, qnnPrefix)]
	return d, ok
}

// QNNName is the full Qnn_DataType_t spelling of d (BACKEND_SPECIFIC
// unprefixed), or "" when QNN has no such dtype.
func QNNName(d ir.DType) string {
	q, ok := qnnDTypes[d]
	switch {
	case !ok:
		return ""
	case d == ir.BackendSpecific:
		return q
	}
	return qnnPrefix + q
}
