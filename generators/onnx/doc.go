// Package onnx reads ONNX models and rewrites their nodes in place, on the
// documented field numbers of onnx.proto with protowire.
//
// Reading decodes only what opforge needs (graphs, nodes, attributes,
// value types, tensor headers, external data references) and never copies
// tensor data. Rewriting re-emits every message that holds no change as the
// exact bytes it was read from, so unknown fields, field order, packed or
// unpacked encodings and tensor data survive byte for byte; only the nodes
// being changed (and the messages that contain them, whose lengths change)
// are encoded anew.
//
// ONNX models on `protowire` with onnx.proto's field numbers: a reader
// decoding what import needs (graphs and subgraphs, nodes, attributes, value
// types, tensor headers, external data references) without copying tensor
// data, a rewriter that re-encodes only the edited nodes and the messages
// around them and copies every other byte, clear errors with offsets for
// malformed input, the standard ONNX op names. The reader walks fields in
// place (no slice per message), takes names as slices of the file, allocates
// nodes and value infos by chunks, decodes a value's type when asked, and
// refuses a model past `DefaultLimits` (nodes, decoded bytes) where it passes
// them; the rewriter writes from runs of the file's bytes and an arena of the
// edited nodes. `onnx/onnxtest` builds models for tests.
package onnx
