// Package ircodec writes one op's IR (ir.Op, as a front end built it) to
// bytes and reads it back, so that the item store can keep an unchanged
// op's model and a later gen need not build it again.
//
// An op's model is a function of its item's text, the file it lies in and
// the line the item starts at: positions are the only part of it that
// depends on where the item lies. So positions are written relative to
// that line and without the file, and read back at the item's new place;
// everything else is written as it is.
//
// The codec walks the model by reflection, so a field added to the IR is
// carried without a change here. What it cannot carry faithfully it
// refuses, and that op is then built every time: a position in another
// file or outside the item, a value behind an interface, a func or a
// channel, an unexported field, or a pointer, slice or map reached twice
// (a read-back model would hold two copies where the built one shares
// one).
package ircodec

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// magic starts an encoded op; it changes with the encoding.
const magic = "opir1\x00"

var (
	posType   = reflect.TypeFor[diag.Pos]()
	whereType = reflect.TypeFor[ir.Where]()
	opType    = reflect.TypeFor[ir.Op]()

	errRefused = errors.New("ircodec: the model holds what the codec does not carry")
)

// Encode writes op, which lies in file with its item on lines first to
// last. It reports false when the op holds what the codec does not carry
// (see the package doc).
func Encode(op *ir.Op, file string, first, last int) ([]byte, bool) {
	if op == nil || first < 1 || last < first || op.LastLine != 0 && (op.LastLine < first || op.LastLine > last) {
		return nil, false
	}
	e := &encoder{file: file, first: first, last: last, seen: map[uintptr]bool{}, buf: []byte(magic)}
	c := *op
	if c.LastLine != 0 {
		c.LastLine -= first - 1 // 1 and up: 0 stays "unknown"
	}
	if err := e.value(reflect.ValueOf(&c).Elem()); err != nil {
		return nil, false
	}
	return e.buf, true
}

// Decode reads what Encode wrote, for the item now in file at line first.
// It reports false for bytes Encode did not write.
func Decode(data string, file string, first int) (*ir.Op, bool) {
	if len(data) < len(magic) || data[:len(magic)] != magic || first < 1 {
		return nil, false
	}
	dc := opDecoder()
	a := arraysPool.Get().(*arrays)
	if len(a.free) < len(dc.kinds) {
		a.free = make([]freeArray, len(dc.kinds))
	}
	d := &decoder{data: data[len(magic):], file: file, first: first, budget: 32*len(data) + 1<<16, kinds: dc.kinds, arrays: a}
	op := new(ir.Op)
	dc.dec(d, unsafe.Pointer(op))
	arraysPool.Put(a)
	if d.bad || len(d.data) != 0 {
		return nil, false
	}
	if op.LastLine != 0 {
		op.LastLine += first - 1
	}
	return op, true
}

type encoder struct {
	file        string
	first, last int
	seen        map[uintptr]bool
	buf         []byte
}

// shared reports whether the memory at p was reached before, and marks it.
func (e *encoder) shared(p uintptr) bool {
	if e.seen[p] {
		return true
	}
	e.seen[p] = true
	return false
}

func (e *encoder) uvarint(u uint64) { e.buf = binary.AppendUvarint(e.buf, u) }

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// pos writes a position: which of file, line and column it has, then the
// line relative to the item's first and the column.
func (e *encoder) pos(p diag.Pos) error {
	var flags byte
	switch p.File {
	case "":
	case e.file:
		flags |= 1
	default:
		return errRefused
	}
	if p.Line != 0 {
		// A position outside the item would not move with it.
		if p.Line < e.first || p.Line > e.last {
			return errRefused
		}
		flags |= 2
	}
	if p.Col < 0 || p.Line < 0 {
		return errRefused
	}
	e.buf = append(e.buf, flags)
	if p.Line != 0 {
		e.uvarint(uint64(p.Line - e.first))
	}
	e.uvarint(uint64(p.Col))
	return nil
}

func (e *encoder) value(v reflect.Value) error {
	t := v.Type()
	if t == posType {
		if v.CanAddr() { // a model's are: read in place, not boxed
			return e.pos(*(*diag.Pos)(v.Addr().UnsafePointer()))
		}
		return e.pos(v.Interface().(diag.Pos))
	}
	switch t.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.buf = append(e.buf, 1)
		} else {
			e.buf = append(e.buf, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = binary.AppendVarint(e.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.uvarint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v.Float()))
	case reflect.String:
		e.str(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return nil
		}
		if e.shared(v.Pointer()) {
			return errRefused
		}
		e.buf = append(e.buf, 1)
		return e.value(v.Elem())
	case reflect.Slice:
		// nil and empty differ to reflect.DeepEqual, so both are kept.
		if v.IsNil() {
			e.uvarint(0)
			return nil
		}
		if v.Len() > 0 && e.shared(v.Pointer()) {
			return errRefused
		}
		e.uvarint(uint64(v.Len()) + 1)
		for i := range v.Len() {
			if err := e.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if err := e.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return errRefused
		}
		if v.IsNil() {
			e.uvarint(0)
			return nil
		}
		if e.shared(v.Pointer()) {
			return errRefused
		}
		e.uvarint(uint64(v.Len()) + 1)
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys) // the same model, the same bytes
		for _, k := range keys {
			e.str(k)
			if err := e.value(v.MapIndex(reflect.ValueOf(k).Convert(t.Key()))); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if !allExported(t) {
			return errRefused
		}
		for i := range t.NumField() {
			if err := e.value(v.Field(i)); err != nil {
				return err
			}
		}
	case reflect.Interface:
		// Only an empty one: what lies behind it is a type the decoder
		// could not name.
		if !v.IsNil() {
			return errRefused
		}
	default:
		return errRefused
	}
	return nil
}

// exported holds, per struct type, whether every field is exported:
// reflect.Type.Field builds a StructField each time it is asked, and a
// cold gen encodes every op's model, field by field.
var exported sync.Map // reflect.Type: bool

func allExported(t reflect.Type) bool {
	if all, ok := exported.Load(t); ok {
		return all.(bool)
	}
	all := true
	for i := range t.NumField() {
		all = all && t.Field(i).IsExported()
	}
	exported.Store(t, all)
	return all
}

type decoder struct {
	data  string
	file  string
	first int
	bad   bool
	// budget is the bytes the decoded model may still allocate, and depth
	// how deep it is in pointers, slices and maps: a record damaged past
	// its checksum could otherwise ask for gigabytes, or nest deep enough
	// to exhaust the stack. A model takes about ten times its bytes; the
	// budget is 32 times, and more for a small one.
	budget int
	depth  int
	// The element types of the arrays the model is read into, and the
	// arrays they are taken from (arrays).
	kinds  []arrayKind
	arrays *arrays
}

// arrays hands out the arrays a decode reads into (a slice's elements, the
// value a pointer points to) as parts of larger arrays, one larger array
// at a time per element type: a model holds about a hundred small slices,
// and allocating each alone was most of the time of reading it back. A
// part is handed out once, so it holds its type's zero value; a larger
// array stays alive while any of its parts is, as the parts of the models
// read one after another all are for as long as the models. One decode
// uses an arrays at a time (arraysPool).
type arrays struct {
	free []freeArray // by arrayKind
}

// freeArray is what is left of one larger array: left elements from next
// (nil once none is left: a pointer past an allocation's end is not one
// Go allows).
type freeArray struct {
	next unsafe.Pointer
	left int
}

var arraysPool = sync.Pool{New: func() any { return new(arrays) }}

// arrayKind is one element type of the arrays a model is read into.
type arrayKind struct {
	values reflect.Type // a slice of the element type
	size   uintptr
	chunk  int // elements in each larger array
}

// arrayBytes is about the size of the larger arrays parts are taken from.
const arrayBytes = 4096

// alloc returns n (> 0) zero values of kind's element type, in a row.
// Arrays of over a quarter of a larger one are allocated alone.
func (d *decoder) alloc(kind, n int) unsafe.Pointer {
	k := &d.kinds[kind]
	if n > k.chunk/4 {
		return reflect.MakeSlice(k.values, n, n).UnsafePointer()
	}
	f := &d.arrays.free[kind]
	if n > f.left {
		f.next, f.left = reflect.MakeSlice(k.values, k.chunk, k.chunk).UnsafePointer(), k.chunk
	}
	p := f.next
	if f.left -= n; f.left == 0 {
		f.next = nil
	} else {
		f.next = unsafe.Add(p, uintptr(n)*k.size)
	}
	return p
}

// makeSlice makes the slice of kind's elements at p n long and returns its
// first element's address (nil for none; an empty slice is not nil).
func (d *decoder) makeSlice(kind int, p unsafe.Pointer, n int) unsafe.Pointer {
	if n == 0 {
		*(*sliceHeader)(p) = sliceHeader{unsafe.Pointer(&zeroLength), 0, 0}
		return nil
	}
	data := d.alloc(kind, n)
	*(*sliceHeader)(p) = sliceHeader{data, n, n}
	return data
}

// zeroLength is where an empty slice's data points (not nil: an empty
// slice is not a nil one).
var zeroLength [0]uint64

// maxDepth bounds the nesting a record may hold; a model's is a few levels.
const maxDepth = 1000

// enter and leave count one level of nesting; enter marks the record bad
// past maxDepth.
func (d *decoder) enter() bool {
	if d.depth++; d.depth > maxDepth {
		d.bad = true
	}
	return !d.bad
}

func (d *decoder) leave() { d.depth-- }

// spend takes n values of size bytes from the budget; false (and the
// record bad) when it is spent.
func (d *decoder) spend(n int, size uintptr) bool {
	if d.bad || n < 0 || uint64(n)*uint64(size+8) > uint64(d.budget) {
		d.bad = true
		return false
	}
	d.budget -= n * int(size+8)
	return true
}

func (d *decoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	u, n := uvarint(d.data)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.data = d.data[n:]
	return u
}

// uvarint is binary.Uvarint of a string, which needs no copy of it.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, -1
			}
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) byte() byte {
	if d.bad || len(d.data) == 0 {
		d.bad = true
		return 0
	}
	b := d.data[0]
	d.data = d.data[1:]
	return b
}

// count reads a length written as n+1 (0: nil), bounded by what is left
// to read, so corrupt bytes cannot ask for a huge allocation.
func (d *decoder) count() (n int, isNil bool) {
	u := d.uvarint()
	if u == 0 {
		return 0, true
	}
	if u-1 > uint64(len(d.data)) {
		d.bad = true
		return 0, true
	}
	return int(u - 1), false
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.data)) {
		d.bad = true
		return ""
	}
	s := d.data[:n]
	d.data = d.data[n:]
	return s
}

func (d *decoder) pos() diag.Pos {
	flags := d.byte()
	var p diag.Pos
	if flags&^3 != 0 {
		d.bad = true
		return p
	}
	if flags&1 != 0 {
		p.File = d.file
	}
	if flags&2 != 0 {
		p.Line = int(d.uvarint()) + d.first
	}
	p.Col = int(d.uvarint())
	return p
}

// decodeFunc reads one value of its type into the memory at p, which
// holds the type's zero value.
type decodeFunc func(d *decoder, p unsafe.Pointer)

// opDecoder reads an ir.Op. A model's types are walked by reflection
// once per process, into a decodeFunc per type; each value is then read
// through its type's func, with no reflection but the allocations:
// reading a model by reflection took as long as building it.
var opDecoder = sync.OnceValue(func() decoding {
	m := decoderMaker{made: map[reflect.Type]*decodeFunc{}, kindOf: map[reflect.Type]int{}, kinds: new([]arrayKind)}
	dec := m.of(opType)
	return decoding{dec, *m.kinds}
})

// decoding is how an ir.Op is read: its decodeFunc, and the element types
// of the arrays it reads into (decoder.alloc).
type decoding struct {
	dec   decodeFunc
	kinds []arrayKind
}

// decoderMaker makes the decodeFuncs of a type and the types it holds,
// each once.
type decoderMaker struct {
	made   map[reflect.Type]*decodeFunc
	kindOf map[reflect.Type]int
	kinds  *[]arrayKind
}

// kind is the arrayKind of arrays of elem.
func (m decoderMaker) kind(elem reflect.Type) int {
	if k, ok := m.kindOf[elem]; ok {
		return k
	}
	k := len(*m.kinds)
	m.kindOf[elem] = k
	chunk := 8
	if size := int(elem.Size()); size > 0 {
		chunk = max(chunk, arrayBytes/size)
	}
	*m.kinds = append(*m.kinds, arrayKind{values: reflect.SliceOf(elem), size: elem.Size(), chunk: chunk})
	return k
}

// of returns t's decodeFunc. A recursive type (a Literal's list of
// Literals) reaches itself while its func is made: it gets one that calls
// the made func, which is in place before any is called.
func (m decoderMaker) of(t reflect.Type) decodeFunc {
	if f, ok := m.made[t]; ok {
		if *f != nil {
			return *f
		}
		return func(d *decoder, p unsafe.Pointer) { (*f)(d, p) }
	}
	f := new(decodeFunc)
	m.made[t] = f
	*f = m.make(t)
	return *f
}

func (m decoderMaker) make(t reflect.Type) decodeFunc {
	switch t {
	case posType:
		return func(d *decoder, p unsafe.Pointer) { *(*diag.Pos)(p) = d.pos() }
	case whereType:
		// Every part of the model has one: read without reflection, in
		// one allocation (the encoder writes it as any slice of structs).
		kind := m.kind(whereType.Elem())
		return func(d *decoder, p unsafe.Pointer) {
			n, isNil := d.count()
			if isNil || !d.spend(n, unsafe.Sizeof(ir.FieldPos{})) {
				return
			}
			var w ir.Where
			d.makeSlice(kind, unsafe.Pointer(&w), n)
			for i := range w {
				if d.bad {
					return
				}
				w[i].Field = d.str()
				w[i].Pos = d.pos()
			}
			*(*ir.Where)(p) = w
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(d *decoder, p unsafe.Pointer) {
			switch d.byte() {
			case 0:
			case 1:
				*(*bool)(p) = true
			default:
				d.bad = true
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return func(d *decoder, p unsafe.Pointer) {
			x := d.varint()
			if bits < 64 && (x < -1<<(bits-1) || x >= 1<<(bits-1)) {
				d.bad = true
				return
			}
			storeBits(p, bits, uint64(x))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := t.Bits()
		return func(d *decoder, p unsafe.Pointer) {
			x := d.uvarint()
			if bits < 64 && x >= 1<<bits {
				d.bad = true
				return
			}
			storeBits(p, bits, x)
		}
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(d *decoder, p unsafe.Pointer) {
			if len(d.data) < 8 {
				d.bad = true
				return
			}
			f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(d.data[:8])))
			d.data = d.data[8:]
			if bits == 32 {
				*(*float32)(p) = float32(f)
				return
			}
			*(*float64)(p) = f
		}
	case reflect.String:
		return func(d *decoder, p unsafe.Pointer) { *(*string)(p) = d.str() }
	case reflect.Pointer:
		elem := t.Elem()
		kind := m.kind(elem)
		dec := m.of(elem)
		return func(d *decoder, p unsafe.Pointer) {
			switch d.byte() {
			case 0:
			case 1:
				if !d.spend(1, elem.Size()) || !d.enter() {
					return
				}
				q := d.alloc(kind, 1)
				dec(d, q)
				d.leave()
				*(*unsafe.Pointer)(p) = q
			default:
				d.bad = true
			}
		}
	case reflect.Slice:
		elem := t.Elem()
		size := elem.Size()
		if elem.Kind() == reflect.Pointer {
			return m.sliceOfPointers(t)
		}
		kind := m.kind(elem)
		dec := m.of(elem)
		return func(d *decoder, p unsafe.Pointer) {
			n, isNil := d.count()
			if isNil || !d.spend(n, size) || !d.enter() {
				return
			}
			defer d.leave()
			data := d.makeSlice(kind, p, n)
			for i := range n {
				if d.bad {
					return
				}
				dec(d, unsafe.Add(data, uintptr(i)*size))
			}
		}
	case reflect.Array:
		elem := t.Elem()
		size := elem.Size()
		dec := m.of(elem)
		return func(d *decoder, p unsafe.Pointer) {
			for i := range t.Len() {
				dec(d, unsafe.Add(p, uintptr(i)*size))
			}
		}
	case reflect.Map:
		dec := m.of(t.Elem())
		return func(d *decoder, p unsafe.Pointer) {
			n, isNil := d.count()
			if isNil || !d.spend(n, t.Key().Size()+t.Elem().Size()) || !d.enter() {
				return
			}
			defer d.leave()
			m := reflect.MakeMapWithSize(t, n)
			elem := reflect.New(t.Elem())
			for range n {
				k := reflect.ValueOf(d.str()).Convert(t.Key())
				elem.Elem().SetZero()
				dec(d, elem.UnsafePointer())
				m.SetMapIndex(k, elem.Elem())
			}
			reflect.NewAt(t, p).Elem().Set(m)
		}
	case reflect.Struct:
		type field struct {
			offset uintptr
			dec    decodeFunc
		}
		fields := make([]field, t.NumField())
		for i := range fields {
			f := t.Field(i)
			fields[i] = field{f.Offset, m.of(f.Type)}
		}
		return func(d *decoder, p unsafe.Pointer) {
			for _, f := range fields {
				if d.bad {
					return
				}
				f.dec(d, unsafe.Add(p, f.offset))
			}
		}
	case reflect.Interface:
		// Encode writes none but empty ones.
		return func(*decoder, unsafe.Pointer) {}
	}
	return func(d *decoder, _ unsafe.Pointer) { d.bad = true }
}

// storeBits writes the low bits of x, a value in range, to the integer
// of that size at p: two's complement makes a signed and an unsigned
// integer the same bits.
func storeBits(p unsafe.Pointer, bits int, x uint64) {
	switch bits {
	case 8:
		*(*uint8)(p) = uint8(x)
	case 16:
		*(*uint16)(p) = uint16(x)
	case 32:
		*(*uint32)(p) = uint32(x)
	default:
		*(*uint64)(p) = x
	}
}

// sliceHeader is a slice as it lies in memory.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// sliceOfPointers reads a slice of pointers ([]*ir.Tensor) with the values
// pointed to in one array: two allocations, not one per element and two
// for the slice.
func (m decoderMaker) sliceOfPointers(t reflect.Type) decodeFunc {
	target := t.Elem().Elem()
	size := target.Size()
	pointers, values := m.kind(t.Elem()), m.kind(target)
	dec := m.of(target)
	return func(d *decoder, p unsafe.Pointer) {
		n, isNil := d.count()
		if isNil || !d.spend(n, 8) || !d.enter() {
			return
		}
		defer d.leave()
		data := d.makeSlice(pointers, p, n)
		var ptrs []unsafe.Pointer
		if n > 0 {
			ptrs = unsafe.Slice((*unsafe.Pointer)(data), n)
		}
		var elems unsafe.Pointer
		for i := range n {
			switch d.byte() {
			case 0:
			case 1:
				if elems == nil {
					if !d.spend(n, size) {
						return
					}
					elems = d.alloc(values, n)
				}
				q := unsafe.Add(elems, uintptr(i)*size)
				dec(d, q)
				ptrs[i] = q
			default:
				d.bad = true
			}
			if d.bad {
				return
			}
		}
	}
}
