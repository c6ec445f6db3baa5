// Package onnximport turns selected nodes of an ONNX model into an opforge
// op package, typed and shaped from the graph, and plans the rewrite of
// those nodes into calls of the ops generated from it, in the runtime of a
// target that calls ops from ONNX nodes (target.ONNXCaller).
//
// One op is made per signature: nodes of one op type whose inputs,
// outputs and attributes agree (dims up to the renaming of symbols) share
// it. Attribute names become param names exactly, because a plugin
// runtime's ONNX parser forwards attributes to the plugin's fields by
// name.
//
// ONNX nodes → IR: selection (names, op types, the op lists of each target's
// ONNX front end, `onnx.FrontEnd`), typing and shaping from the graph with
// ONNX scoping, one op per signature, params typed as the runtimes' parsers send
// them; and the rewrite plan, checking each node against its op in the opdef
// (counts, dtypes, attributes against params) and asking the chosen target's
// `ONNXCaller` for the rest. An imported op's sections come from the targets
// (`target.Importer`); what a runtime reads of the node itself (reserved
// attributes, the callee identity it names, attribute concerns, optional
// inputs) comes from the targets too (`target.NodeReader`).
package onnximport
