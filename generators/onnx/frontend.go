package onnx

import "strings"

// FrontEnd is what a target's ONNX front end (its runtime's ONNX parser or
// execution provider) runs natively, so
// `import onnx --unsupported-for TARGET` can select the nodes it cannot.
// Each target writes its own from the vendor's published source.
type FrontEnd struct {
	// Source names where the list was read, for messages.
	Source string
	ops    map[string]bool
	// microsoft are the com.microsoft ops, for front ends that tell
	// domains apart.
	microsoft map[string]bool
	// anyDomain: the front end dispatches on op_type whatever the domain.
	anyDomain bool
}

// NewFrontEnd makes a front end from whitespace-separated op type lists:
// ops of the ONNX domain, and the com.microsoft ops. anyDomain says the
// front end looks every node up by op_type alone.
func NewFrontEnd(source, ops, microsoft string, anyDomain bool) *FrontEnd {
	return &FrontEnd{Source: source, ops: opSet(ops), microsoft: opSet(microsoft), anyDomain: anyDomain}
}

func opSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, op := range strings.Fields(list) {
		m[op] = true
	}
	return m
}

// Runs reports whether the front end runs node n natively.
func (f *FrontEnd) Runs(n *Node) bool {
	switch {
	case f.anyDomain || IsDefaultDomain(n.Domain):
		return f.ops[n.OpType]
	case n.Domain == "com.microsoft":
		return f.microsoft[n.OpType]
	}
	// No front end keeps lists of other domains: those that tell domains
	// apart look them up by op_type too.
	return f.ops[n.OpType]
}
