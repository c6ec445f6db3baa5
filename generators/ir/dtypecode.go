package ir

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/diag"
)

// DTypeCode makes an integer param a dtype chosen by number (`dtype_code:
// onnx`, `codes: [1, 10]`): real plugins take a dtype as an int field
// holding a runtime's own code for it (an ONNX TensorProto.DataType, a
// runtime's data type enum), and only the codes listed are accepted.
type DTypeCode struct {
	// Spelling names the code table (DTypeCodeTable.Name).
	Spelling string
	// Codes are the allowed codes, in the order written.
	Codes []int64
	// CodesPos are where each code was written (diagnostics).
	CodesPos []diag.Pos
}

// CodedDType is one row of a code table: a code, the dtype it names, and
// the table's own name for it (ONNX FLOAT16), for messages.
type CodedDType struct {
	Code  int64
	DType DType
	Name  string
}

// DTypeCodeTable is a spelling of dtypes as integers. The ONNX one is
// the core's (ONNX is a format every target reads); a target adds its
// runtime's own (RegisterDTypeCodes) so the core never names a vendor.
type DTypeCodeTable struct {
	Name  string // what `dtype_code:` says
	Title string // for messages: "ONNX TensorProto.DataType"
	Rows  []CodedDType
}

// Row is the row of code, or nil (also in no table: a spelling the
// validator refused).
func (t *DTypeCodeTable) Row(code int64) *CodedDType {
	if t == nil {
		return nil
	}
	for i := range t.Rows {
		if t.Rows[i].Code == code {
			return &t.Rows[i]
		}
	}
	return nil
}

// Code is d's code in the table, false when the table has none.
func (t *DTypeCodeTable) Code(d DType) (int64, bool) {
	if t == nil {
		return 0, false
	}
	for _, r := range t.Rows {
		if r.DType == d {
			return r.Code, true
		}
	}
	return 0, false
}

// Listing is the table for messages: "1 FLOAT (float32), 10 FLOAT16
// (float16), ...".
func (t *DTypeCodeTable) Listing() string {
	parts := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		parts[i] = strconv.FormatInt(r.Code, 10) + " " + r.Name + " (" + string(r.DType) + ")"
	}
	return strings.Join(parts, ", ")
}

// onnxDTypeCodes is TensorProto.DataType (onnx.proto) for the dtypes of
// the vocabulary that ONNX has.
var onnxDTypeCodes = DTypeCodeTable{Name: "onnx", Title: "ONNX TensorProto.DataType", Rows: []CodedDType{
	{1, Float32, "FLOAT"}, {2, Uint8, "UINT8"}, {3, Int8, "INT8"}, {4, Uint16, "UINT16"},
	{5, Int16, "INT16"}, {6, Int32, "INT32"}, {7, Int64, "INT64"}, {9, Bool, "BOOL"},
	{10, Float16, "FLOAT16"}, {11, Float64, "DOUBLE"}, {12, Uint32, "UINT32"}, {13, Uint64, "UINT64"},
	{16, BFloat16, "BFLOAT16"}, {17, Float8E4, "FLOAT8E4M3FN"},
}}

var (
	codeTablesMu sync.RWMutex
	codeTables   = []*DTypeCodeTable{&onnxDTypeCodes}
)

// RegisterDTypeCodes adds a target's code table. A target registers it
// while the program starts (its package's init), before anything loads; a
// second table of one name is ignored.
func RegisterDTypeCodes(t DTypeCodeTable) {
	codeTablesMu.Lock()
	defer codeTablesMu.Unlock()
	for _, have := range codeTables {
		if have.Name == t.Name {
			return
		}
	}
	t.Rows = slices.Clone(t.Rows)
	codeTables = append(codeTables, &t)
}

// DTypeCodes is the code table called name, or nil.
func DTypeCodes(name string) *DTypeCodeTable {
	codeTablesMu.RLock()
	defer codeTablesMu.RUnlock()
	for _, t := range codeTables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// DTypeCodeNames are the registered tables' names, sorted.
func DTypeCodeNames() []string {
	codeTablesMu.RLock()
	defer codeTablesMu.RUnlock()
	names := make([]string, len(codeTables))
	for i, t := range codeTables {
		names[i] = t.Name
	}
	sort.Strings(names)
	return names
}

// ChoosesDTypes reports a param whose value may choose a tensor's dtype:
// an enum (its values dtype names) or an integer dtype code.
func (p *Param) ChoosesDTypes() bool { return p.Kind == ParamEnum || p.DTypeCode != nil }

// ChosenDTypes are the dtypes a dtype-choosing param may name, in the
// order of its values (enum) or codes; a code its table lacks (the
// validator reports it) names no dtype and is left out.
func (p *Param) ChosenDTypes() []DType {
	if p.DTypeCode == nil {
		ds := make([]DType, len(p.Values))
		for i, v := range p.Values {
			ds[i] = DType(v)
		}
		return ds
	}
	t := DTypeCodes(p.DTypeCode.Spelling)
	var ds []DType
	for _, c := range p.DTypeCode.Codes {
		if t != nil {
			if r := t.Row(c); r != nil {
				ds = append(ds, r.DType)
			}
		}
	}
	return ds
}

// ChosenDefault is the dtype the param's default names, "" for none.
func (p *Param) ChosenDefault() DType {
	if p.Default == nil || p.Default.Text == "" {
		return ""
	}
	if p.DTypeCode == nil {
		return DType(p.Default.Text)
	}
	c, err := strconv.ParseInt(p.Default.Text, 10, 64)
	if t := DTypeCodes(p.DTypeCode.Spelling); err == nil && t != nil {
		if r := t.Row(c); r != nil {
			return r.DType
		}
	}
	return ""
}
