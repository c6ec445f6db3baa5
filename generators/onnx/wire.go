package onnx

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one field of a message as it lies in the file: its number and
// wire type, its exact bytes (tag included) so an untouched field is
// re-emitted byte for byte, and its decoded value.
type field struct {
	num protowire.Number
	typ protowire.Type
	raw []byte // the whole field, tag included
	v   uint64 // value of a varint, fixed32 or fixed64 field
	b   []byte // payload of a length-delimited field
	off int    // offset of the field's tag in the file
}

// FormatError says where and why the bytes are not a valid ONNX model.
type FormatError struct {
	// Offset is the byte offset in the file of the field at fault.
	Offset int
	// Path names the message, e.g. graph.node[3].attribute[1].
	Path string
	Msg  string
	// Limit is set when the model is valid as far as read but beyond
	// Limits.
	Limit bool
}

func (e *FormatError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s, byte %d: %s", e.Path, e.Offset, e.Msg)
}

// maxDepth bounds message nesting (graphs inside attributes inside nodes,
// TypeProto inside TypeProto): protobuf's own default recursion limit, and
// far beyond any real model. It keeps hostile input from exhausting the
// stack.
const maxDepth = 100

// fieldIter walks the fields of one message without allocating: a graph
// of a million nodes is a million fields, and a slice of them all would
// cost more than the file.
type fieldIter struct {
	b    []byte
	base int // the message's offset in the file
	i    int
	err  *FormatError
}

// iter walks the fields of the message in a length-delimited field.
func (f field) iter() fieldIter { return fieldIter{b: f.b, base: f.payloadOff()} }

// next reads the next field into f; false at the end of the message or
// at a malformed field (then err says where, with an empty Path).
func (it *fieldIter) next(f *field) bool {
	if it.err != nil || it.i >= len(it.b) {
		return false
	}
	b := it.b[it.i:]
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		it.err = &FormatError{Offset: it.base + it.i, Path: "", Msg: "bad field tag: " + protowire.ParseError(n).Error()}
		return false
	}
	m := protowire.ConsumeFieldValue(num, typ, b[n:])
	if m < 0 {
		it.err = &FormatError{Offset: it.base + it.i, Path: "", Msg: fmt.Sprintf("field %d: %v (truncated or corrupt file?)", num, protowire.ParseError(m))}
		return false
	}
	*f = field{num: num, typ: typ, raw: b[:n+m], off: it.base + it.i}
	val := b[n : n+m]
	switch typ {
	case protowire.VarintType:
		f.v, _ = protowire.ConsumeVarint(val)
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(val)
		f.v = uint64(v)
	case protowire.Fixed64Type:
		f.v, _ = protowire.ConsumeFixed64(val)
	case protowire.BytesType:
		f.b, _ = protowire.ConsumeBytes(val)
	}
	it.i += n + m
	return true
}

// end is the walk's error, if any, as an error (a nil *FormatError is
// not a nil error).
func (it *fieldIter) end() error {
	if it.err != nil {
		return it.err
	}
	return nil
}

// at prefixes the path of a FormatError with the message it happened in:
// decoders name paths relative to their message, so the path of a node's
// error is built only when there is one.
func at(err error, prefix string) error {
	if fe, ok := err.(*FormatError); ok {
		fe.Path = prefix + fe.Path
	}
	return err
}

// fields splits one (small) message into its fields. base is the
// message's offset in the file and path its name, both for error
// messages. Unknown fields and groups are kept like any other: the caller
// decides what to read.
func fields(b []byte, base int, path string) ([]field, error) {
	var out []field
	it := fieldIter{b: b, base: base}
	var f field
	for it.next(&f) {
		out = append(out, f)
	}
	if it.err != nil {
		it.err.Path = path
		return nil, it.err
	}
	return out, nil
}

// payloadOff is the file offset of a length-delimited field's payload.
func (f field) payloadOff() int { return f.off + len(f.raw) - len(f.b) }

// isBytes reports a length-delimited field: strings, bytes, messages and
// packed repeated scalars. A known field number with another wire type is
// an unknown field to protobuf, and is skipped the same way.
func (f field) isBytes() bool  { return f.typ == protowire.BytesType }
func (f field) isVarint() bool { return f.typ == protowire.VarintType }

// int64s reads a repeated int64 field occurrence, packed or not.
func (f field) int64s(path string) ([]int64, error) {
	switch f.typ {
	case protowire.VarintType:
		return []int64{int64(f.v)}, nil
	case protowire.BytesType:
		var out []int64
		for b := f.b; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, &FormatError{Offset: f.payloadOff(), Path: path, Msg: "bad packed integer list: " + protowire.ParseError(n).Error()}
			}
			out = append(out, int64(v))
			b = b[n:]
		}
		return out, nil
	}
	return nil, nil
}

// float32s reads a repeated float field occurrence, packed or not.
func (f field) float32s(path string) ([]float32, error) {
	switch f.typ {
	case protowire.Fixed32Type:
		return []float32{math.Float32frombits(uint32(f.v))}, nil
	case protowire.BytesType:
		if len(f.b)%4 != 0 {
			return nil, &FormatError{Offset: f.payloadOff(), Path: path, Msg: fmt.Sprintf("packed float list of %d bytes is not a multiple of 4", len(f.b))}
		}
		out := make([]float32, 0, len(f.b)/4)
		for b := f.b; len(b) > 0; b = b[4:] {
			v, _ := protowire.ConsumeFixed32(b)
			out = append(out, math.Float32frombits(v))
		}
		return out, nil
	}
	return nil, nil
}

// appendString appends a string field.
func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// appendMessage appends a message field holding msg.
func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

// appendVarint appends a varint field.
func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}
