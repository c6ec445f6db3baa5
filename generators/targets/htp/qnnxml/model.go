package qnnxml

// The QNN op-package XML content models, written from the documented schema
// facts (element order, cardinality, enumerations). Every content model is
// an xs:sequence, so child order is significant; Description alone mixes
// Content and Code freely.

type textKind int

const (
	textNone textKind = iota // element-only content
	textAny
	textBool
	textInt
	textFloat
	textEnum
)

type particle struct {
	name     string
	min, max int // max < 0: unbounded
	model    string
}

type model struct {
	children []particle
	anyOrder bool // children may come in any order (Description)
	text     textKind
	enum     []string
	attrs    []attr
}

type attr struct {
	name     string
	required bool
	kind     textKind
}

const many = -1

var (
	boolText  = &model{text: textBool}
	plainText = &model{text: textAny}
)

var qnnDatatypes = []string{
	"BACKEND_SPECIFIC",
	"QNN_DATATYPE_INT_8", "QNN_DATATYPE_INT_16", "QNN_DATATYPE_INT_32", "QNN_DATATYPE_INT_64",
	"QNN_DATATYPE_UINT_8", "QNN_DATATYPE_UINT_16", "QNN_DATATYPE_UINT_32", "QNN_DATATYPE_UINT_64",
	"QNN_DATATYPE_FLOAT_16", "QNN_DATATYPE_FLOAT_32",
	"QNN_DATATYPE_SFIXED_POINT_4", "QNN_DATATYPE_SFIXED_POINT_8", "QNN_DATATYPE_SFIXED_POINT_16", "QNN_DATATYPE_SFIXED_POINT_32",
	"QNN_DATATYPE_UFIXED_POINT_4", "QNN_DATATYPE_UFIXED_POINT_8", "QNN_DATATYPE_UFIXED_POINT_16", "QNN_DATATYPE_UFIXED_POINT_32",
	"QNN_DATATYPE_BOOL_8", "QNN_DATATYPE_STRING",
}

// nativeDatatypes are the unprefixed names the 2024 schema admits but the
// QNN op-def translator rejects ("QnnOpDef does not support Native Datatypes").
var nativeDatatypes = []string{
	"INT_8", "INT_16", "INT_32", "INT_64", "UINT_8", "UINT_16", "UINT_32", "UINT_64",
	"FLOAT_16", "FLOAT_32", "SFIXED_POINT_4", "SFIXED_POINT_8", "SFIXED_POINT_16", "SFIXED_POINT_32",
	"UFIXED_POINT_4", "UFIXED_POINT_8", "UFIXED_POINT_16", "UFIXED_POINT_32", "BOOL_8", "STRING",
}

var ranks = []string{"SCALAR", "0D", "1D", "2D", "3D", "4D", "5D", "ND"}
var layouts = []string{"NHWC", "NDHWC", "NONTRIVIAL", "UNDEFINED", "BACKEND_SPECIFIC"}
var constraintTypes = []string{"Number", "Shape", "Value", "Datatype", "Description", "Dynamic_Shape"}
var encodings = []string{"SCALE_OFFSET", "AXIS_SCALE_OFFSET", "BW_SCALE_OFFSET", "BW_AXIS_SCALE_OFFSET"}

func tensorParticles(tail ...particle) []particle {
	head := []particle{
		{"Name", 1, 1, "text"},
		{"Description", 0, 1, "Description"},
		{"Constraint", 0, many, "Constraint"},
		{"Mandatory", 1, 1, "bool"},
		{"Datatype", 1, many, "Datatype"},
		{"Shape", 1, 1, "Shape"},
		{"Default", 0, 1, "text"},
	}
	return append(head, tail...)
}

func supplementalTensor() *model {
	return &model{children: []particle{
		{"Name", 1, 1, "text"},
		{"Constraint", 0, many, "Constraint"},
		{"Datatype", 0, many, "Datatype"},
		{"QuantParam", 0, many, "QuantParam"},
		{"Shape", 0, 1, "SupplementalShape"},
		{"OnlyDefaultSupported", 0, 1, "bool"},
	}}
}

var models = map[string]*model{
	"text": plainText,
	"bool": boolText,
	"OpDefCollection": {
		children: []particle{{"OpDefList", 1, 1, "OpDefList"}, {"SupplementalOpDefList", 0, many, "SupplementalOpDefList"}},
		attrs:    []attr{{"PackageName", true, textAny}, {"Domain", true, textAny}, {"Version", true, textAny}, {"UseQHPI", false, textBool}},
	},
	"OpDefList": {children: []particle{{"OpDef", 1, many, "OpDef"}}, attrs: []attr{{"Version", false, textAny}}},
	"OpDef": {children: []particle{
		{"Name", 1, 1, "text"},
		{"Description", 1, many, "Description"},
		{"Reference", 0, many, "Reference"},
		{"Input", 1, many, "Input"},
		{"Output", 0, many, "Output"},
		{"Parameter", 0, many, "Parameter"},
		{"UseDefaultTranslation", 0, 1, "bool"},
		{"SupportedBackend", 1, many, "text"},
	}},
	"Description": {children: []particle{{"Content", 0, many, "text"}, {"Code", 0, many, "text"}}, anyOrder: true},
	"Reference":   {text: textAny, attrs: []attr{{"Source", false, textAny}, {"Url", false, textAny}}},
	"Constraint": {
		children: []particle{{"Code", 0, many, "text"}}, text: textAny,
		attrs: []attr{{"id", true, textInt}, {"Type", true, textEnum}},
	},
	"Datatype":     {text: textEnum, enum: qnnDatatypes},
	"Shape":        {children: []particle{{"Rank", 1, 1, "Rank"}, {"Layout", 0, 1, "Layout"}, {"Text", 0, 1, "text"}}},
	"Rank":         {text: textEnum, enum: ranks},
	"Layout":       {text: textEnum, enum: layouts},
	"DynamicShape": {children: []particle{{"Text", 1, 1, "text"}}},
	"Input": {children: tensorParticles(
		particle{"Repeated", 0, 1, "bool"},
		particle{"DynamicShape", 0, 1, "DynamicShape"},
		particle{"IsStaticTensor", 0, 1, "bool"},
	)},
	"Output": {children: tensorParticles(
		particle{"Repeated", 0, 1, "bool"},
		particle{"DynamicShape", 0, 1, "DynamicShape"},
	)},
	"Parameter":   {children: tensorParticles(particle{"Enumeration", 0, 1, "Enumeration"})},
	"Enumeration": {children: []particle{{"Enum", 1, many, "text"}}},
	"SupplementalOpDefList": {
		children: []particle{{"SupportedOps", 0, 1, "SupportedOps"}, {"SupplementalOpDef", 1, many, "SupplementalOpDef"}},
		attrs:    []attr{{"Backend", true, textAny}, {"Runtime", false, textAny}},
	},
	"SupportedOps": {children: []particle{{"OpName", 1, many, "text"}}},
	"SupplementalOpDef": {children: []particle{
		{"Name", 1, 1, "text"},
		{"Input", 0, many, "SupplementalTensor"},
		{"Output", 0, many, "SupplementalTensor"},
		{"Parameter", 0, many, "SupplementalTensor"},
	}},
	"SupplementalTensor": supplementalTensor(),
	"SupplementalShape":  {children: []particle{{"Layout", 0, many, "Layout"}, {"Text", 0, 1, "text"}}},
	"QuantParam": {children: []particle{
		{"Encoding", 1, 4, "Encoding"},
		{"Axis", 0, many, "int"},
		{"Symmetric", 0, 1, "bool"},
		{"Scale", 0, 1, "float"},
		{"Offset", 0, 1, "float"},
		{"Min", 0, 1, "int"},
		{"Max", 0, 1, "int"},
		{"IsMathInvariant", 0, 1, "bool"},
	}},
	"Encoding": {text: textEnum, enum: encodings},
	"int":      {text: textInt},
	"float":    {text: textFloat},
}
