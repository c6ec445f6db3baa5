package trt

import (
	"math"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/literal"
	"github.com/opforge/opforge/generators/names"
)

// paramModel is one op attribute as the C++ plugin holds, reads, declares
// and serializes it, and as the Python plugin declares it. The C++
// snippets are complete expressions over the names the templates fix:
// f (the PluginField being read), p (the params being filled), err (the
// error text) and mParams (the plugin's params).
type paramModel struct {
	Name  string // as written: the field and attribute name
	Index num
	// CName is Name as a C string literal, DocText the doc as C comment
	// text and FieldDoc "name: doc" as C comment text: escaped once here,
	// as several files print them.
	CName, DocText, FieldDoc text
	// SerialIndex is its place in getFieldsToSerialize, after the layout field.
	SerialIndex num
	Doc         string
	// Member declares the member of <Op>Params with its default.
	Member text
	// FieldType and FieldLength are what getFieldNames declares (length 0:
	// any number of entries).
	FieldType   text
	FieldLength num
	// Read fills p.<ident> from f; it is a bool expression.
	Read text
	// Serialize is the PluginField that getFieldsToSerialize writes.
	Serialize text
	// Required: no default, so createPlugin fails when the field is missing.
	Required bool
	// PyType annotates the attribute of the Python plugin.
	PyType string
	enum   *enumModel
	p      *ir.Param
	elem   ir.DType // the dtype the plugin stores (ints and floats)
}

// enumModel is the C++ enum of an enum param.
type enumModel struct {
	Type   string // RoiAlignLiteMode
	Names  string // the table of value names: kRoiAlignLiteModeNames
	Values []enumValue
}

type enumValue struct {
	Value string // as written: free text, escaped where printed
	Const string // kAvg
	Index int
}

// intRange is the C++ storage range of each integer dtype.
var intRange = map[ir.DType][2]int64{
	ir.Int8: {math.MinInt8, math.MaxInt8}, ir.Int16: {math.MinInt16, math.MaxInt16},
	ir.Int32: {math.MinInt32, math.MaxInt32}, ir.Int64: {math.MinInt64, math.MaxInt64},
}

// floatStorage: float16, bfloat16 and float8 params are held as float, so
// the plugin sources need no CUDA half-precision headers.
func floatStorage(d ir.DType) string {
	if d == ir.Float64 {
		return "double"
	}
	return "float"
}

func newParamModel(op *ir.Op, p *ir.Param, index int) *paramModel {
	m := &paramModel{Name: p.Name, Index: num(index), SerialIndex: num(index + 1), p: p, Required: p.Default == nil}
	dt := fieldDType(p)
	m.elem = dt
	field := FieldType(dt)
	var cType string // element storage type
	switch {
	case p.Kind == ir.ParamBool || dt == ir.Bool:
		cType = "bool"
	case dt.IsFloat():
		cType = floatStorage(dt)
	case dt.Info() != nil:
		cType = dt.Info().C
	}
	n := p.Length
	mem := "p." + p.Ident
	// numbers are the reader arguments after the destination (and the
	// count of a fixed array) that check the values: the range, for floats
	// after whether float16 data arrives as raw halves.
	numbers := func() []string {
		if dt.IsFloat() {
			lo, hi := floatBounds(p)
			if p.MinExclusive || p.MaxExclusive {
				// An open end needs the range's form; closed ranges keep
				// the shorter lo, hi.
				return []string{strconv.FormatBool(dt == ir.Float16), "FloatRange{" + lo + ", " + hi + ", " + strconv.FormatBool(p.MinExclusive) + ", " + strconv.FormatBool(p.MaxExclusive) + "}"}
			}
			return []string{strconv.FormatBool(dt == ir.Float16), lo, hi}
		}
		lo, hi := intBounds(p, dt)
		return []string{lo, hi}
	}
	def := ""
	switch p.Kind {
	case ir.ParamBool:
		m.Member = text("bool " + p.Ident)
		m.FieldType, m.FieldLength = text("kINT8"), num(1)
		m.Read = text(reader("readBools", "&"+mem, "1"))
		m.Serialize = text(pluginField(p.Name, "&mParams."+p.Ident, "kINT8", "1"))
		m.PyType = "bool"
	case ir.ParamString:
		m.Member = text("std::string " + p.Ident)
		m.FieldType, m.FieldLength = text("kCHAR"), num(0)
		m.Read = text(reader("readString", mem))
		m.Serialize = text("charField(" + escape.CString(p.Name) + ", mParams." + p.Ident + ".c_str())")
		m.PyType = "str"
	case ir.ParamEnum:
		e := newEnumModel(op, p)
		m.enum = e
		m.Member = text(e.Type + " " + p.Ident)
		m.FieldType, m.FieldLength = text("kCHAR"), num(0)
		m.Read = text(reader("readEnum", e.Names, strconv.Itoa(len(e.Values)), mem))
		m.Serialize = text("charField(" + escape.CString(p.Name) + ", " + e.Names + "[static_cast<int32_t>(mParams." + p.Ident + ")])")
		m.PyType = "str"
		if p.Default != nil {
			for _, v := range e.Values {
				if v.Value == p.Default.Text {
					def = e.Type + "::" + v.Const
				}
			}
		}
	case ir.ParamScalar:
		m.Member = text(cType + " " + p.Ident)
		m.FieldType, m.FieldLength = text(field), num(1)
		if dt.IsFloat() {
			m.Read = text(reader("readFloats", append([]string{"&" + mem, "1"}, numbers()...)...))
			m.Serialize = text(pluginField(p.Name, "&mParams."+p.Ident, floatField(cType), "1"))
			m.PyType = "float"
		} else if p.DTypeCode != nil {
			// A dtype code: only the listed codes, the message naming them.
			m.Read = text(reader("readCode", "&"+mem, codeInit(p), escape.CString(codeListing(p))))
			m.Serialize = text(pluginField(p.Name, "&mParams."+p.Ident, field, "1"))
			m.PyType = "int"
		} else {
			m.Read = text(reader("readInts", append([]string{"&" + mem, "1"}, numbers()...)...))
			m.Serialize = text(pluginField(p.Name, "&mParams."+p.Ident, field, "1"))
			m.PyType = "int"
		}
	default: // arrays and constant tensors (flattened)
		fixed := p.Kind == ir.ParamArray && n > 0
		m.PyType = qdpArrayType(dt)
		wire := field
		switch {
		case cType == "bool":
			wire = "kINT8"
		case dt.IsFloat():
			wire = floatField(cType)
		}
		if fixed {
			count := strconv.Itoa(n)
			m.Member = text(cType + " " + p.Ident + "[" + count + "]")
			m.FieldType, m.FieldLength = text(field), num(n)
			m.Serialize = text(pluginField(p.Name, "mParams."+p.Ident, wire, count))
			switch {
			case cType == "bool":
				m.Read = text(reader("readBools", mem, count))
			case dt.IsFloat():
				m.Read = text(reader("readFloats", append([]string{mem, count}, numbers()...)...))
			default:
				m.Read = text(reader("readInts", append([]string{mem, count}, numbers()...)...))
			}
		} else {
			vecType := cType
			if cType == "bool" {
				vecType = "int8_t" // std::vector<bool> has no contiguous storage to serialize
			}
			m.Member = text("std::vector<" + vecType + "> " + p.Ident)
			m.FieldType, m.FieldLength = text(field), num(0)
			m.Serialize = text(pluginField(p.Name, "mParams."+p.Ident+".data()", wire, "static_cast<int32_t>(mParams."+p.Ident+".size())"))
			switch {
			case cType == "bool":
				m.Read = text(reader("readBoolVector", mem))
			case dt.IsFloat():
				m.Read = text(reader("readFloatVector", append([]string{mem}, numbers()...)...))
			default:
				m.Read = text(reader("readIntVector", append([]string{mem}, numbers()...)...))
			}
		}
		if cType == "bool" {
			m.FieldType = "kINT8"
		}
	}
	if p.Default != nil && p.Kind != ir.ParamEnum {
		def = cppDefault(p, cType)
	}
	switch {
	case def == "":
		m.Member += "{};"
	case strings.HasPrefix(def, "{"):
		m.Member += text(def + ";")
	default:
		m.Member += text("{" + def + "};")
	}
	m.Doc = paramDoc(p)
	m.CName, m.DocText, m.FieldDoc = text(escape.CString(p.Name)), text(escape.CComment(m.Doc)), text(escape.CComment(p.Name+": "+m.Doc))
	return m
}

// reader calls common.h's field reader fn: fn(f, args..., err), a bool
// expression over the PluginField f.
func reader(fn string, args ...string) string {
	return fn + "(f, " + strings.Join(args, ", ") + ", err)"
}

// pluginField constructs an nvinfer1::PluginField.
func pluginField(name, data, fieldType, length string) string {
	return "nvinfer1::PluginField(" + escape.CString(name) + ", " + data + ", nvinfer1::PluginFieldType::" + fieldType + ", " + length + ")"
}

// floatField is the PluginFieldType of a float storage type.
func floatField(cType string) string {
	if cType == "double" {
		return "kFLOAT64"
	}
	return "kFLOAT32"
}

// intBounds is the range createPlugin accepts for an integer param: its
// storage dtype's range narrowed by the opdef's min and max.
func intBounds(p *ir.Param, dt ir.DType) (string, string) {
	lo, hi := intLimits(p, dt)
	return literal.CPP(literal.Int(lo), "int64_t"), literal.CPP(literal.Int(hi), "int64_t")
}

// intLimits is intBounds as numbers; the Python plugin checks the same.
func intLimits(p *ir.Param, dt ir.DType) (int64, int64) {
	r, ok := intRange[dt]
	if !ok {
		r = intRange[ir.Int64]
	}
	lo, hi := r[0], r[1]
	if least, ok := p.IntMin(); ok && least > float64(lo) {
		lo = int64(least)
	}
	if most, ok := p.IntMax(); ok && most < float64(hi) {
		hi = int64(most)
	}
	return lo, hi
}

// floatBounds is the range createPlugin accepts for a float param: the
// opdef's min and max, else the infinities.
func floatBounds(p *ir.Param) (string, string) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if p.Min != nil {
		lo = *p.Min
	}
	if p.Max != nil {
		hi = *p.Max
	}
	return literal.CPP(literal.Float(lo), "double"), literal.CPP(literal.Float(hi), "double")
}

// cppDefault is a param's default as the initializer of its member of
// element type cType: a scalar, or the braced list of an array's elements
// (a constant tensor's flattened).
func cppDefault(p *ir.Param, cType string) string {
	v := literal.Of(p, p.Default)
	if p.Kind == ir.ParamTensor {
		v = literal.List(v.Leaves()...)
	}
	return literal.CPP(v, cType)
}

// qdpArrayType is the numpy.typing annotation of an array attribute.
// float16 arrays travel as float32: the ONNX parser sends float lists as
// kFLOAT32, which tensorrt.plugin would reinterpret byte by byte as
// float16 under an NDArray[np.float16] annotation; the module's functions
// receive them as float16 (qdpArrayDType).
func qdpArrayType(d ir.DType) string {
	if d == ir.Float16 {
		d = ir.Float32
	}
	return "npt.NDArray[" + qdpArrayDType(d) + "]"
}

// qdpArrayDType is the numpy dtype the Python plugin's functions receive
// an array attribute as.
func qdpArrayDType(d ir.DType) string {
	np := map[ir.DType]string{ir.Bool: "np.bool_", ir.Int8: "np.int8", ir.Int16: "np.int16", ir.Int32: "np.int32",
		ir.Int64: "np.int64", ir.Float16: "np.float16", ir.Float32: "np.float32", ir.Float64: "np.float64"}[d]
	if np == "" {
		np = "np.int64"
	}
	return np
}

func newEnumModel(op *ir.Op, p *ir.Param) *enumModel {
	base := op.Name + camel(p.Ident)
	e := &enumModel{Type: base, Names: "k" + base + "Names"}
	seen := map[string]bool{}
	for i, v := range p.Values {
		c := "k" + camel(names.Ident(v))
		if seen[c] || !names.IsIdent(c) {
			c = "kValue" + strconv.Itoa(i)
		}
		seen[c] = true
		e.Values = append(e.Values, enumValue{Value: v, Const: c, Index: i})
	}
	return e
}

// camel turns snake_case into CamelCase: pooled_hw -> PooledHw.
func camel(s string) string {
	var sb strings.Builder
	up := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		sb.WriteByte(c)
	}
	return sb.String()
}

// paramDoc describes a param in one line for comments.
func paramDoc(p *ir.Param) string {
	var parts []string
	switch p.Kind {
	case ir.ParamEnum:
		parts = append(parts, "one of "+strings.Join(p.Values, ", "))
	case ir.ParamBool, ir.ParamString:
		parts = append(parts, string(p.Kind))
	default:
		t := string(fieldDType(p))
		switch {
		case p.Kind == ir.ParamArray && p.Length > 0:
			t += "[" + strconv.Itoa(p.Length) + "]"
		case p.Kind == ir.ParamArray:
			t += "[]"
		case p.Kind == ir.ParamTensor:
			t += " tensor (flattened)"
		}
		parts = append(parts, t)
	}
	if p.Default != nil {
		parts = append(parts, "default "+p.Default.String())
	} else {
		parts = append(parts, "required")
	}
	if p.Min != nil {
		parts = append(parts, p.MinText())
	}
	if p.Max != nil {
		parts = append(parts, p.MaxText())
	}
	if p.DTypeCode != nil {
		parts = append(parts, "a dtype code: "+codeListing(p))
	}
	s := strings.Join(parts, ", ")
	if p.Description != "" {
		s += ": " + oneLine(p.Description)
	}
	return s
}

// oneLine folds text onto one line for comments.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
