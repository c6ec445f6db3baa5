package ir

import (
	"math"
	"strconv"
	"strings"

	"github.com/opforge/opforge/generators/diag"
)

// A target's options are not part of the core model: the core keeps each
// target's section of an opdef (the package-level and the op-level
// `targets: {<target>: ...}`) as an opaque, positioned Node that the front
// end (YAML, a target's own format, ONNX import) builds and the canonical writer writes
// back, and the target's own package decodes it in its check step, with
// positioned diagnostics, into its own option types (kept in
// Section.Options for its generator).

// NodeKind is the kind of a Node.
type NodeKind int

const (
	// ScalarNode is a single value (Value, typed by Scalar).
	ScalarNode NodeKind = iota
	// ListNode is an ordered list (Items).
	ListNode
	// MapNode is a map with ordered keys (Entries).
	MapNode
)

// ScalarType is what a scalar's text means, as the source format resolved
// it (YAML's core schema), so a writer writes it back the same way.
type ScalarType string

const (
	ScalarString ScalarType = "str"
	ScalarInt    ScalarType = "int"
	ScalarFloat  ScalarType = "float"
	ScalarBool   ScalarType = "bool"
	ScalarNull   ScalarType = "null"
	// ScalarPlain is text kept verbatim as another format spelled it,
	// whose type the writer's format decides: YAML writes it plain,
	// untagged, and reads it back as its core schema resolves it.
	ScalarPlain ScalarType = "plain"
)

// Node is a format-neutral tree of values, each with where it was written.
type Node struct {
	Kind    NodeKind
	Scalar  ScalarType
	Value   string
	Items   []*Node
	Entries []*Entry
	// Flow asks a writer for the one-line form ([a, b], {k: v}).
	Flow bool
	// Style is how a scalar was written, so a decoder can place a
	// column inside its text.
	Style ScalarStyle
	Pos   diag.Pos
}

// ScalarStyle is how a scalar was written.
type ScalarStyle int

const (
	// StylePlain: unquoted; its text starts at Pos.
	StylePlain ScalarStyle = iota
	// StyleQuoted: in quotes; its text starts one column after Pos.
	StyleQuoted
	// StyleBlock: a literal or folded block; columns are not kept.
	StyleBlock
)

// TextPos is where a scalar's text starts (after an opening quote).
func (n *Node) TextPos() diag.Pos {
	p := n.Pos
	if n.Style == StyleQuoted {
		p.Col++
	}
	return p
}

// Entry is one key of a MapNode, in source order.
type Entry struct {
	Key    string
	KeyPos diag.Pos
	Value  *Node
}

// Str is a string scalar.
func Str(s string) *Node { return &Node{Kind: ScalarNode, Scalar: ScalarString, Value: s} }

// Plain is a scalar whose type the writer's format decides (ScalarPlain).
func Plain(s string) *Node { return &Node{Kind: ScalarNode, Scalar: ScalarPlain, Value: s} }

// BoolNode is a bool scalar.
func BoolNode(b bool) *Node {
	v := "false"
	if b {
		v = "true"
	}
	return &Node{Kind: ScalarNode, Scalar: ScalarBool, Value: v}
}

// Strs is a list of string scalars written on one line.
func Strs(values ...string) *Node {
	n := &Node{Kind: ListNode, Flow: true}
	for _, v := range values {
		n.Items = append(n.Items, Str(v))
	}
	return n
}

// Map is an empty map; Flow asks for the one-line form.
func Map(flow bool) *Node { return &Node{Kind: MapNode, Flow: flow} }

// Set appends key (callers add each key once, in the order to write).
func (n *Node) Set(key string, v *Node) *Node {
	n.Entries = append(n.Entries, &Entry{Key: key, Value: v})
	return n
}

// Get returns the value of key in a MapNode, or nil.
func (n *Node) Get(key string) *Node {
	if e := n.Entry(key); e != nil {
		return e.Value
	}
	return nil
}

// Entry returns the entry of key in a MapNode, or nil.
func (n *Node) Entry(key string) *Entry {
	if n == nil || n.Kind != MapNode {
		return nil
	}
	for _, e := range n.Entries {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// Without returns a map like n without key (n itself when it has no such
// key); n is not changed.
func (n *Node) Without(key string) *Node {
	if n.Entry(key) == nil {
		return n
	}
	out := *n
	out.Entries = make([]*Entry, 0, len(n.Entries)-1)
	for _, e := range n.Entries {
		if e.Key != key {
			out.Entries = append(out.Entries, e)
		}
	}
	return &out
}

// Text is a scalar's text ("" for a nil node or another kind).
func (n *Node) Text() string {
	if n == nil || n.Kind != ScalarNode {
		return ""
	}
	return n.Value
}

// Int is a scalar's integer in any spelling the opdef schema accepts as
// one: YAML's (0x1F, 0o7, 1_000) and a whole float such as 2.0 or 2e0,
// which JSON Schema's integer takes; 0 for anything else.
func (n *Node) Int() int64 {
	s := strings.ReplaceAll(n.Text(), "_", "")
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return v
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return int64(f)
	}
	return 0
}

// Strings is a list's scalar texts.
func (n *Node) Strings() []string {
	if n == nil || n.Kind != ListNode {
		return nil
	}
	out := make([]string, 0, len(n.Items))
	for _, it := range n.Items {
		out = append(out, it.Text())
	}
	return out
}

// IsTrue reports whether n is the bool true.
func (n *Node) IsTrue() bool {
	if n == nil || n.Kind != ScalarNode || n.Scalar != ScalarBool {
		return false
	}
	// YAML's spellings of true (the core schema's, which the loader types
	// as bool): `flag: True` is as true as `flag: true`.
	switch n.Value {
	case "true", "True", "TRUE":
		return true
	}
	return false
}

// IsFalse reports whether n is the bool false, in any of YAML's
// spellings (false, False, FALSE).
func (n *Node) IsFalse() bool {
	return n != nil && n.Kind == ScalarNode && n.Scalar == ScalarBool && !n.IsTrue()
}

// Section is one target's section of an op or package: Target names it
// (by its name), Node is what was written (nil where the source
// wrote none and the target's defaults apply: an op without `targets:`
// generates for every target). An op's section being present means the op
// generates for that target.
type Section struct {
	Target string
	Node   *Node
	Pos    diag.Pos
	// Options are the target's decoded options, set by the target's check
	// (its own type; read through the target package's accessor).
	Options any
	// Canonical is the section as the target writes it back (defaults
	// left out, keys in its order), set by the target's check; writers
	// write it when set, else Node.
	Canonical *Node
	// Narrow is what an op's section narrows of the op for its target
	// (its types and ranks keys, which the core owns and Node lacks);
	// nil for none.
	Narrow *Narrowing
}

// Written is the node a writer writes: Canonical, else Node, with the
// narrowing's keys after the target's own.
func (s *Section) Written() *Node {
	n := s.Node
	if s.Canonical != nil {
		n = s.Canonical
	}
	return withNarrowing(n, s.Narrow)
}

// Int is an integer scalar.
func Int(text string) *Node { return &Node{Kind: ScalarNode, Scalar: ScalarInt, Value: text} }

// Sections are an op's or package's target sections, in source order.
type Sections []*Section

// Get returns the section of target, or nil.
func (s Sections) Get(target string) *Section {
	for _, sec := range s {
		if sec.Target == target {
			return sec
		}
	}
	return nil
}

// OptionsOf returns the options of target's section among ss, nil
// without a section. The target's check decodes them into its own type T
// and keeps them in Section.Options; a section it did not check (IR a
// test built by hand) has them decoded here by decode, and kept.
func OptionsOf[T any](ss Sections, target string, decode func(*Section) *T) *T {
	sec := ss.Get(target)
	if sec == nil {
		return nil
	}
	if o, ok := sec.Options.(*T); ok {
		return o
	}
	o := decode(sec)
	sec.Options = o
	return o
}

// Has reports whether a section of target is present.
func (s Sections) Has(target string) bool { return s.Get(target) != nil }

// Add appends a section of target with node n written at pos.
func (s *Sections) Add(target string, n *Node, pos diag.Pos) *Section {
	sec := &Section{Target: target, Node: n, Pos: pos}
	*s = append(*s, sec)
	return sec
}

// FlowText writes n on one line in YAML's flow style ({k: v}, [a, b]), as
// a message quotes the YAML to write; strings that YAML would read as
// something else, or that hold flow indicators, are quoted.
func (n *Node) FlowText() string {
	if n == nil {
		return "{}"
	}
	switch n.Kind {
	case MapNode:
		parts := make([]string, len(n.Entries))
		for i, e := range n.Entries {
			parts[i] = e.Key + ": " + e.Value.FlowText()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case ListNode:
		parts := make([]string, len(n.Items))
		for i, it := range n.Items {
			parts[i] = it.FlowText()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if n.Scalar == ScalarString && needsQuotes(n.Value) {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// needsQuotes reports a string that a plain YAML scalar would not hold
// as itself: empty, spaced at an end, holding an indicator, or read as
// a number, bool or null.
func needsQuotes(s string) bool {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, ":{}[],#&*!|>'\"%@`") {
		return true
	}
	switch strings.ToLower(s) {
	case "true", "false", "null", "~", "yes", "no", "on", "off":
		return true
	}
	_, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return err == nil
}
