package onnx

import (
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// Limits bound what Read decodes, so that a model too large for opforge
// is refused where it passes the bound, before it costs the memory and
// time of decoding the rest.
type Limits struct {
	// Nodes is the most nodes a model may have: its graph, subgraphs,
	// training graphs and functions together.
	Nodes int
	// Decoded is the most memory in bytes the decoded model may take:
	// nodes, their names and attributes, value infos and tensor headers,
	// counted at their in-memory size. The file's own bytes (tensor data
	// included) come on top.
	Decoded int64
}

// DefaultLimits are the limits of Read and ReadFile: 1,500,000 nodes, or
// 256 MiB of decoded structure (about 1.15 million nodes of one input and
// one output each, typed by value_info), whichever comes first. They are
// set so that `import onnx` and `rewrite onnx` of every node of a model
// within them stay within about 1 GiB and 10 s of two cores (measured:
// README, "Large models").
var DefaultLimits = Limits{Nodes: 1_500_000, Decoded: 256 << 20}

// Read decodes a serialized ModelProto within DefaultLimits. A malformed
// or truncated model, or one beyond the limits, gives a *FormatError
// saying where. The model keeps data (names are slices of it, and
// Rewrite copies it): do not change it afterwards.
func Read(data []byte) (*Model, error) { return ReadLimited(data, DefaultLimits) }

// ReadLimited is Read with other limits.
func ReadLimited(data []byte, lim Limits) (*Model, error) {
	r := &reader{lim: lim}
	if len(data) > 0 {
		// Names are substrings of the file, not one allocation each:
		// the file is never changed once read (see Read).
		r.s = unsafe.String(&data[0], len(data))
	}
	m, err := r.model(data)
	if err != nil {
		return nil, err
	}
	m.raw = data
	return m, nil
}

// In-memory sizes of the decoded objects, for Limits.Decoded.
const (
	nodeCost      = int64(unsafe.Sizeof(Node{})) + 8 // and its pointer in the graph
	nameCost      = int64(unsafe.Sizeof(""))
	attrCost      = int64(unsafe.Sizeof(Attribute{})) + 8
	valueInfoCost = int64(unsafe.Sizeof(ValueInfo{})) + 8
	tensorCost    = int64(unsafe.Sizeof(Tensor{})) + 8
	graphCost     = int64(unsafe.Sizeof(Graph{})) + 8
	entryCost     = int64(unsafe.Sizeof(Entry{}))
)

// reader decodes messages; it collects external data references as it
// meets tensors anywhere in the model, and counts what it decodes against
// its limits.
type reader struct {
	s        string // the file: names are substrings of it
	lim      Limits
	nodes    int
	cost     int64
	external []ExternalRef
	// Nodes, value infos and node names are carved from chunks: one
	// allocation per few thousand, not one each.
	nodeChunk []Node
	viChunk   []ValueInfo
	nameChunk []string
}

const chunk = 4096

// str is the string of a length-delimited field's payload.
func (r *reader) str(f field) string {
	off := f.payloadOff()
	return r.s[off : off+len(f.b)]
}

// spend counts n bytes of decoded structure at field f, refusing the
// model once the limit is passed.
func (r *reader) spend(f field, n int64) error {
	r.cost += n
	if r.cost > r.lim.Decoded {
		return &FormatError{Offset: f.off, Path: "", Msg: fmt.Sprintf("the model decodes to over %d MiB of nodes, names, attributes and types, opforge's limit (onnx.DefaultLimits); a model this large is beyond what import and rewrite handle", r.lim.Decoded>>20), Limit: true}
	}
	return nil
}

func (r *reader) newNode(f field) (*Node, error) {
	r.nodes++
	if r.nodes > r.lim.Nodes {
		return nil, &FormatError{Offset: f.off, Path: "", Msg: fmt.Sprintf("the model has over %d nodes, opforge's limit (onnx.DefaultLimits); a model this large is beyond what import and rewrite handle", r.lim.Nodes), Limit: true}
	}
	if err := r.spend(f, nodeCost); err != nil {
		return nil, err
	}
	if len(r.nodeChunk) == 0 {
		r.nodeChunk = make([]Node, chunk)
	}
	n := &r.nodeChunk[0]
	r.nodeChunk = r.nodeChunk[1:]
	return n, nil
}

func (r *reader) newValueInfo() *ValueInfo {
	if len(r.viChunk) == 0 {
		r.viChunk = make([]ValueInfo, chunk)
	}
	v := &r.viChunk[0]
	r.viChunk = r.viChunk[1:]
	return v
}

// names returns an empty slice with room for k names, carved from a chunk
// (its capacity is exactly k, so appending past it copies).
func (r *reader) names(k int) []string {
	if k == 0 {
		return nil
	}
	if k > len(r.nameChunk) {
		r.nameChunk = make([]string, max(chunk, k))
	}
	s := r.nameChunk[:0:k]
	r.nameChunk = r.nameChunk[k:]
	return s
}

func dupError(f field, what string) error {
	return &FormatError{Offset: f.off, Path: "", Msg: what + " appears twice; opforge does not merge repeated occurrences of one message"}
}

func (r *reader) model(data []byte) (*Model, error) {
	it := fieldIter{b: data}
	m := &Model{}
	var f field
	for it.next(&f) {
		var err error
		switch {
		case f.num == modelIRVersion && f.isVarint():
			m.IRVersion = int64(f.v)
		case f.num == modelProducer && f.isBytes():
			m.Producer = r.str(f)
		case f.num == modelOpsetImport && f.isBytes():
			var o OpsetID
			o, err = r.opset(f)
			err = at(err, "model.opset_import")
			m.Opsets = append(m.Opsets, o)
		case f.num == modelGraph && f.isBytes():
			if m.Graph != nil {
				return nil, at(dupError(f, "graph"), "model")
			}
			m.Graph, err = r.graph(f, nil, 0)
			err = at(err, "graph")
		case f.num == modelTraining && f.isBytes():
			err = r.training(m, f)
		case f.num == modelFunctions && f.isBytes():
			var fn *Function
			fn, err = r.function(f)
			err = at(err, fmt.Sprintf("functions[%d]", len(m.Functions)))
			m.Functions = append(m.Functions, fn)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := it.end(); err != nil {
		return nil, at(err, "model")
	}
	if m.Graph == nil {
		return nil, &FormatError{Offset: 0, Path: "model", Msg: "no graph: this is not an ONNX model (or it is empty)"}
	}
	m.External = r.external
	return m, nil
}

func (r *reader) opset(f field) (OpsetID, error) {
	var o OpsetID
	it := f.iter()
	var g field
	for it.next(&g) {
		switch {
		case g.num == opsetDomain && g.isBytes():
			o.Domain = r.str(g)
		case g.num == opsetVersion && g.isVarint():
			o.Version = int64(g.v)
		}
	}
	return o, it.end()
}

func (r *reader) training(m *Model, f field) error {
	path := fmt.Sprintf("training_info[%d]", len(m.Training))
	it := f.iter()
	var g field
	for it.next(&g) {
		if (g.num == trainingInitialization || g.num == trainingAlgorithm) && g.isBytes() {
			gr, err := r.graph(g, nil, 0)
			if err != nil {
				return at(err, path+".graph")
			}
			m.Training = append(m.Training, gr)
		}
	}
	return at(it.end(), path)
}

func (r *reader) function(f field) (*Function, error) {
	fn := &Function{}
	it := f.iter()
	var g field
	for it.next(&g) {
		switch {
		case g.num == functionName && g.isBytes():
			fn.Name = r.str(g)
		case g.num == functionDomain && g.isBytes():
			fn.Domain = r.str(g)
		case g.num == functionNode && g.isBytes():
			n, err := r.node(g, nil, 0)
			if err != nil {
				return nil, at(err, fmt.Sprintf(".node[%d]", len(fn.Nodes)))
			}
			fn.Nodes = append(fn.Nodes, n)
		}
	}
	return fn, it.end()
}

func (r *reader) graph(f field, parent *Graph, depth int) (*Graph, error) {
	if depth > maxDepth {
		return nil, &FormatError{Offset: f.off, Path: "", Msg: fmt.Sprintf("subgraphs nested over %d deep", maxDepth)}
	}
	if err := r.spend(f, graphCost); err != nil {
		return nil, err
	}
	g := &Graph{Parent: parent}
	it := f.iter()
	var h field
	for it.next(&h) {
		if !h.isBytes() {
			continue
		}
		var err error
		switch h.num {
		case graphName:
			g.Name = r.str(h)
		case graphNode:
			var n *Node
			if n, err = r.node(h, g, depth); err != nil {
				return nil, at(err, fmt.Sprintf(".node[%d]", len(g.Nodes)))
			}
			n.Index = len(g.Nodes)
			g.Nodes = append(g.Nodes, n)
		case graphInitializer:
			var t *Tensor
			if t, err = r.tensor(h); err != nil {
				return nil, at(err, fmt.Sprintf(".initializer[%d]", len(g.Initializers)))
			}
			g.Initializers = append(g.Initializers, t)
		case graphSparseInitializer:
			var t *Tensor
			if t, err = r.sparse(h); err != nil {
				return nil, at(err, fmt.Sprintf(".sparse_initializer[%d]", len(g.SparseInitializers)))
			}
			g.SparseInitializers = append(g.SparseInitializers, t)
		case graphInput, graphOutput, graphValueInfo:
			name, list := "input", &g.Inputs
			if h.num == graphOutput {
				name, list = "output", &g.Outputs
			} else if h.num == graphValueInfo {
				name, list = "value_info", &g.ValueInfo
			}
			var v *ValueInfo
			if v, err = r.valueInfo(h); err != nil {
				return nil, at(err, fmt.Sprintf(".%s[%d]", name, len(*list)))
			}
			*list = append(*list, v)
		}
	}
	return g, it.end()
}

func (r *reader) node(f field, g *Graph, depth int) (*Node, error) {
	n, err := r.newNode(f)
	if err != nil {
		return nil, err
	}
	n.Graph = g
	// A first pass counts the names, so they share one chunk.
	ins, outs, attrs := 0, 0, 0
	it := f.iter()
	var h field
	for it.next(&h) {
		if h.isBytes() {
			switch h.num {
			case nodeInput:
				ins++
			case nodeOutput:
				outs++
			case nodeAttribute:
				attrs++
			}
		}
	}
	if err := it.end(); err != nil {
		return nil, err
	}
	if err := r.spend(f, int64(ins+outs)*nameCost+int64(attrs)*attrCost); err != nil {
		return nil, err
	}
	n.Inputs, n.Outputs = r.names(ins), r.names(outs)
	for it = f.iter(); it.next(&h); {
		if !h.isBytes() {
			continue
		}
		switch h.num {
		case nodeInput:
			n.Inputs = append(n.Inputs, r.str(h))
		case nodeOutput:
			n.Outputs = append(n.Outputs, r.str(h))
		case nodeName:
			n.Name = r.str(h)
		case nodeOpType:
			n.OpType = r.str(h)
		case nodeDomain:
			n.Domain = r.str(h)
		}
	}
	if attrs == 0 {
		return n, nil
	}
	// Attributes are decoded once the node's name is known, so subgraph
	// owners can say which node they belong to.
	n.Attributes = make([]*Attribute, 0, attrs)
	for it = f.iter(); it.next(&h); {
		if h.num != nodeAttribute || !h.isBytes() {
			continue
		}
		a, err := r.attribute(h, n, depth)
		if err != nil {
			return nil, at(err, fmt.Sprintf(".attribute[%d]", len(n.Attributes)))
		}
		n.Attributes = append(n.Attributes, a)
	}
	return n, nil
}

func (r *reader) attribute(f field, owner *Node, depth int) (*Attribute, error) {
	a := &Attribute{raw: f.b}
	if a.raw == nil {
		a.raw = []byte{}
	}
	it := f.iter()
	var h field
	for it.next(&h) {
		if h.num == attrName && h.isBytes() {
			a.Name = r.str(h)
		}
	}
	if err := it.end(); err != nil {
		return nil, err
	}
	wrap := func(err error) error {
		if a.Name != "" {
			return at(err, "("+a.Name+")")
		}
		return err
	}
	var seen uint32 // bit t: a value of AttrType t is present
	see := func(t AttrType) { seen |= 1 << t }
	for it = f.iter(); it.next(&h); {
		var err error
		switch {
		case h.num == attrType && h.isVarint():
			a.Type = AttrType(int32(h.v))
		case h.num == attrF && h.typ == protowire.Fixed32Type:
			a.F = math.Float32frombits(uint32(h.v))
			see(AttrFloat)
		case h.num == attrI && h.isVarint():
			a.I = int64(h.v)
			see(AttrInt)
		case h.num == attrS && h.isBytes():
			a.S = h.b
			see(AttrString)
		case h.num == attrT && h.isBytes():
			if a.T != nil {
				return nil, wrap(dupError(h, "t"))
			}
			a.T, err = r.tensor(h)
			err = at(err, ".t")
			see(AttrTensor)
		case h.num == attrG && h.isBytes():
			if a.G != nil {
				return nil, wrap(dupError(h, "g"))
			}
			a.G, err = r.graph(h, owner.Graph, depth+1)
			err = at(err, ".g")
			if a.G != nil {
				a.G.Owner, a.G.OwnerAttr = owner, a.Name
			}
			see(AttrGraph)
		case h.num == attrSparseTensor && h.isBytes():
			a.SparseTensor, err = r.sparse(h)
			err = at(err, ".sparse_tensor")
			see(AttrSparseTensor)
		case h.num == attrTP && h.isBytes():
			see(AttrTypeProto)
		case h.num == attrFloats:
			var v []float32
			v, err = h.float32s(".floats")
			if err == nil {
				err = r.spend(h, int64(len(v))*4)
			}
			a.Floats = append(a.Floats, v...)
			see(AttrFloats)
		case h.num == attrInts:
			var v []int64
			v, err = h.int64s(".ints")
			if err == nil {
				err = r.spend(h, int64(len(v))*8)
			}
			a.Ints = append(a.Ints, v...)
			see(AttrInts)
		case h.num == attrStrings && h.isBytes():
			err = r.spend(h, 24)
			a.Strings = append(a.Strings, h.b)
			see(AttrStrings)
		case h.num == attrTensors && h.isBytes():
			var t *Tensor
			t, err = r.tensor(h)
			err = at(err, fmt.Sprintf(".tensors[%d]", len(a.Tensors)))
			a.Tensors = append(a.Tensors, t)
			see(AttrTensors)
		case h.num == attrGraphs && h.isBytes():
			var g *Graph
			g, err = r.graph(h, owner.Graph, depth+1)
			err = at(err, fmt.Sprintf(".graphs[%d]", len(a.Graphs)))
			if g != nil {
				g.Owner, g.OwnerAttr = owner, a.Name
			}
			a.Graphs = append(a.Graphs, g)
			see(AttrGraphs)
		case h.num == attrSparseTensors && h.isBytes():
			var t *Tensor
			t, err = r.sparse(h)
			err = at(err, fmt.Sprintf(".sparse_tensors[%d]", len(a.SparseTensors)))
			a.SparseTensors = append(a.SparseTensors, t)
			see(AttrSparseTensors)
		case h.num == attrTypeProtos && h.isBytes():
			see(AttrTypeProtos)
		}
		if err != nil {
			return nil, wrap(err)
		}
	}
	// An old file may leave the type UNDEFINED: it is the one kind of
	// value present.
	if a.Type == AttrUndefined && seen != 0 && seen&(seen-1) == 0 {
		for t := AttrType(0); t < 32; t++ {
			if seen == 1<<t {
				a.Type = t
			}
		}
	}
	return a, nil
}

func (r *reader) tensor(f field) (*Tensor, error) {
	if err := r.spend(f, tensorCost); err != nil {
		return nil, err
	}
	t := &Tensor{}
	it := f.iter()
	var h field
	for it.next(&h) {
		switch {
		case h.num == tensorDims:
			d, err := h.int64s(".dims")
			if err == nil {
				err = r.spend(h, int64(len(d))*8)
			}
			if err != nil {
				return nil, err
			}
			t.Dims = append(t.Dims, d...)
		case h.num == tensorDataType && h.isVarint():
			t.DataType = DataType(int32(h.v))
		case h.num == tensorName && h.isBytes():
			t.Name = r.str(h)
		case h.num == tensorDataLocation && h.isVarint():
			t.External = int32(h.v) == locationExternal
		case h.num == tensorExternalData && h.isBytes():
			e, err := r.entry(h)
			if err == nil {
				err = r.spend(h, entryCost)
			}
			if err != nil {
				return nil, at(err, ".external_data")
			}
			t.ExternalData = append(t.ExternalData, e)
		}
	}
	if err := it.end(); err != nil {
		return nil, err
	}
	if t.External {
		ref := ExternalRef{Tensor: t.Name}
		for _, e := range t.ExternalData {
			if e.Key == "location" {
				ref.Location = e.Value
			}
		}
		r.external = append(r.external, ref)
	}
	return t, nil
}

func (r *reader) sparse(f field) (*Tensor, error) {
	if err := r.spend(f, tensorCost); err != nil {
		return nil, err
	}
	t := &Tensor{}
	it := f.iter()
	var h field
	for it.next(&h) {
		switch {
		case h.num == sparseValues && h.isBytes():
			v, err := r.tensor(h)
			if err != nil {
				return nil, at(err, ".values")
			}
			t.Name, t.DataType = v.Name, v.DataType
		case h.num == sparseIndices && h.isBytes():
			if _, err := r.tensor(h); err != nil {
				return nil, at(err, ".indices")
			}
		case h.num == sparseDims:
			d, err := h.int64s(".dims")
			if err == nil {
				err = r.spend(h, int64(len(d))*8)
			}
			if err != nil {
				return nil, err
			}
			t.Dims = append(t.Dims, d...)
		}
	}
	return t, it.end()
}

func (r *reader) entry(f field) (Entry, error) {
	var e Entry
	it := f.iter()
	var h field
	for it.next(&h) {
		switch {
		case h.num == entryKey && h.isBytes():
			e.Key = r.str(h)
		case h.num == entryValue && h.isBytes():
			e.Value = r.str(h)
		}
	}
	return e, it.end()
}

// valueInfo reads a value's name and checks its type, which is decoded
// only when asked for (ValueInfo.Type).
func (r *reader) valueInfo(f field) (*ValueInfo, error) {
	if err := r.spend(f, valueInfoCost); err != nil {
		return nil, err
	}
	v := r.newValueInfo()
	it := f.iter()
	var h field
	for it.next(&h) {
		switch {
		case h.num == valueInfoName && h.isBytes():
			v.Name = r.str(h)
		case h.num == valueInfoType && h.isBytes():
			if v.typ != nil {
				return nil, dupError(h, "type")
			}
			if _, err := typeProto(h.b, h.payloadOff(), 0, false); err != nil {
				return nil, at(err, ".type")
			}
			v.typ, v.typOff = h.b, h.payloadOff()
			if v.typ == nil {
				v.typ = []byte{}
			}
		}
	}
	return v, it.end()
}

// typeProto decodes the TypeProto b found at offset off; with keep false
// it only checks it, allocating nothing.
func typeProto(b []byte, off, depth int, keep bool) (*Type, error) {
	if !keep {
		var t Type
		return nil, decodeType(&t, b, off, depth, false)
	}
	t := &Type{}
	if err := decodeType(t, b, off, depth, true); err != nil {
		return nil, err
	}
	return t, nil
}

func decodeType(t *Type, b []byte, off, depth int, keep bool) error {
	if depth > maxDepth {
		return &FormatError{Offset: off, Path: "", Msg: fmt.Sprintf("types nested over %d deep", maxDepth)}
	}
	it := fieldIter{b: b, base: off}
	var h field
	for it.next(&h) {
		if !h.isBytes() {
			continue
		}
		var err error
		switch h.num {
		case typeTensor, typeSparseTensor:
			t.Kind = TypeTensor
			if h.num == typeSparseTensor {
				t.Kind = TypeSparseTensor
			}
			err = at(tensorType(t, h, keep), ".tensor_type")
		case typeSequence, typeOptional:
			t.Kind = TypeSequence
			if h.num == typeOptional {
				t.Kind = TypeOptional
			}
			inner := h.iter()
			var in field
			for err == nil && inner.next(&in) {
				if in.num == 1 && in.isBytes() {
					t.Inner, err = typeProto(in.b, in.payloadOff(), depth+1, keep)
					err = at(err, ".elem_type")
				}
			}
			if err == nil {
				err = inner.end()
			}
		case typeMap:
			t.Kind = TypeMap
		case typeOpaque:
			t.Kind = TypeOpaque
		}
		if err != nil {
			return err
		}
	}
	return it.end()
}

func tensorType(t *Type, f field, keep bool) error {
	it := f.iter()
	var h field
	for it.next(&h) {
		switch {
		case h.num == tensorTypeElem && h.isVarint():
			t.Elem = DataType(int32(h.v))
		case h.num == tensorTypeShape && h.isBytes():
			t.Ranked = true
			ds := h.iter()
			var d field
			for ds.next(&d) {
				if d.num != shapeDim || !d.isBytes() {
					continue
				}
				dim, err := dimension(d)
				if err != nil {
					return at(err, fmt.Sprintf(".shape.dim[%d]", len(t.Shape)))
				}
				if keep {
					t.Shape = append(t.Shape, dim)
				}
			}
			if err := ds.end(); err != nil {
				return at(err, ".shape")
			}
		}
	}
	return it.end()
}

func dimension(f field) (Dim, error) {
	var d Dim
	// dim_value and dim_param are a oneof: the last one set wins.
	it := f.iter()
	var h field
	for it.next(&h) {
		switch {
		case h.num == dimValue && h.isVarint():
			d = Dim{Value: int64(h.v), HasValue: true}
		case h.num == dimParam && h.isBytes():
			d = Dim{Param: string(h.b)}
		}
	}
	return d, it.end()
}
