package ir

import (
	"slices"
	"strconv"

	"github.com/opforge/opforge/generators/diag"
)

// Per-target narrowing: an op's target section may take away, for that
// target alone, dtypes and ranks the op allows elsewhere
// (`targets: {<t>: {types: {T: [float32, float16]}, ranks: {x: [1, 4]}}}`):
// a bfloat16 op that one target runs in float32 and float16 only, a rank
// 1-8 op that a target of 4-D tensors runs up to rank 4. The core owns these two keys of
// every target's section (the front end takes them out of the opaque
// node, validate checks them against the op, writers write them back);
// the target sees the op as narrowed (Op.For), so its checks, generators
// and verify cases know only the narrowed combinations.

// Narrowing is what an op's section narrows for its target.
type Narrowing struct {
	// Types narrows type variables and tensors with dtype lists of their
	// own (by tensor name), in the order written.
	Types []NarrowType
	// Ranks narrows inputs of rank any or a rank range, in the order
	// written.
	Ranks []NarrowRank
	// TypesPos and RanksPos are where the keys were written.
	TypesPos, RanksPos diag.Pos
}

// NarrowType is one name's narrowed dtypes.
type NarrowType struct {
	Name   string
	DTypes []DType
	Pos    diag.Pos   // where the name was written
	At     []diag.Pos // where each dtype was written
}

// NarrowRank is one input's narrowed ranks (Min to Max, both included).
type NarrowRank struct {
	Input    string
	Min, Max int
	Pos      diag.Pos // where the input's name was written
	ValuePos diag.Pos
}

// Narrowing keys of a target section.
const (
	NarrowTypesKey = "types"
	NarrowRanksKey = "ranks"
)

// TakeNarrowing splits an op's target section node into the target's own
// node (without the narrowing keys) and its narrowing (nil when none).
func TakeNarrowing(n *Node) (*Node, *Narrowing) {
	types, ranks := n.Entry(NarrowTypesKey), n.Entry(NarrowRanksKey)
	if types == nil && ranks == nil {
		return n, nil
	}
	nw := &Narrowing{}
	if types != nil {
		nw.TypesPos = types.KeyPos
		for _, e := range mapEntries(types.Value) {
			t := NarrowType{Name: e.Key, Pos: e.KeyPos}
			for _, it := range listItems(e.Value) {
				t.DTypes = append(t.DTypes, DType(it.Text()))
				t.At = append(t.At, it.Pos)
			}
			nw.Types = append(nw.Types, t)
		}
	}
	if ranks != nil {
		nw.RanksPos = ranks.KeyPos
		for _, e := range mapEntries(ranks.Value) {
			nw.Ranks = append(nw.Ranks, narrowRank(e))
		}
	}
	return n.Without(NarrowTypesKey).Without(NarrowRanksKey), nw
}

// narrowRank reads `x: [lo, hi]` or `x: r`.
func narrowRank(e *Entry) NarrowRank {
	r := NarrowRank{Input: e.Key, Pos: e.KeyPos}
	if e.Value == nil {
		return r
	}
	r.ValuePos = e.Value.Pos
	if items := listItems(e.Value); len(items) == 2 {
		r.Min, r.Max = int(items[0].Int()), int(items[1].Int())
	} else {
		r.Min = int(e.Value.Int())
		r.Max = r.Min
	}
	return r
}

func mapEntries(n *Node) []*Entry {
	if n == nil || n.Kind != MapNode {
		return nil
	}
	return n.Entries
}

func listItems(n *Node) []*Node {
	if n == nil || n.Kind != ListNode {
		return nil
	}
	return n.Items
}

// entries are the narrowing as written in a section (its two keys), for
// writers.
func (nw *Narrowing) entries() []*Entry {
	var out []*Entry
	if len(nw.Types) > 0 {
		m := Map(true)
		for _, t := range nw.Types {
			ds := make([]string, len(t.DTypes))
			for i, d := range t.DTypes {
				ds[i] = string(d)
			}
			m.Set(t.Name, Strs(ds...))
		}
		out = append(out, &Entry{Key: NarrowTypesKey, Value: m})
	}
	if len(nw.Ranks) > 0 {
		m := Map(true)
		for _, r := range nw.Ranks {
			v := &Node{Kind: ListNode, Flow: true, Items: []*Node{Int(strconv.Itoa(r.Min)), Int(strconv.Itoa(r.Max))}}
			if r.Min == r.Max {
				v = Int(strconv.Itoa(r.Min))
			}
			m.Set(r.Input, v)
		}
		out = append(out, &Entry{Key: NarrowRanksKey, Value: m})
	}
	return out
}

// withNarrowing is n with the narrowing's keys after the target's own.
func withNarrowing(n *Node, nw *Narrowing) *Node {
	if nw == nil {
		return n
	}
	extra := nw.entries()
	if len(extra) == 0 {
		return n
	}
	out := &Node{Kind: MapNode}
	if n != nil {
		out = &Node{Kind: MapNode, Flow: n.Flow, Pos: n.Pos, Entries: slices.Clone(n.Entries)}
	}
	out.Entries = append(out.Entries, extra...)
	out.Flow = false // the narrowing's lists read better in a block
	return out
}

// Narrowed reports whether op's section of target narrows anything.
func (o *Op) Narrowed(target string) bool {
	sec := o.Sections.Get(target)
	return sec != nil && sec.Narrow != nil && (len(sec.Narrow.Types) > 0 || len(sec.Narrow.Ranks) > 0)
}

// For is the op as target sees it: o itself when its section of target
// narrows nothing, else a copy whose type variables, dtype lists and
// ranks are narrowed, with its facts derived afresh. The copy shares
// everything else with o (sections, params, positions), so a target's
// decoded options are the same through either.
func (o *Op) For(target string) *Op {
	if !o.Narrowed(target) {
		return o
	}
	nw := o.Sections.Get(target).Narrow
	c := *o
	c.TypeVars = make([]*TypeVar, len(o.TypeVars))
	for i, tv := range o.TypeVars {
		c.TypeVars[i] = tv
		if t := nw.typesOf(tv.Name); t != nil {
			n := *tv
			n.Allowed, n.AllowedPos = keepListed(tv.Allowed, tv.AllowedPos, t.DTypes)
			c.TypeVars[i] = &n
		}
	}
	c.Inputs = narrowTensors(o.Inputs, nw)
	c.Outputs = narrowTensors(o.Outputs, nw)
	narrowLikeRanks(&c)
	c.Facts = Derive(&c)
	return &c
}

func (nw *Narrowing) typesOf(name string) *NarrowType {
	for i := range nw.Types {
		if nw.Types[i].Name == name {
			return &nw.Types[i]
		}
	}
	return nil
}

func (nw *Narrowing) rankOf(input string) *NarrowRank {
	for i := range nw.Ranks {
		if nw.Ranks[i].Input == input {
			return &nw.Ranks[i]
		}
	}
	return nil
}

// keepListed keeps the dtypes of allowed (and their positions) that
// listed names, in allowed's order: the op's first dtype stays first
// where the target keeps it. A narrowing that keeps none is validate's
// error, and leaves allowed as it is so later checks see a sound op.
func keepListed(allowed []DType, at []diag.Pos, listed []DType) ([]DType, []diag.Pos) {
	var ds []DType
	var ps []diag.Pos
	for i, d := range allowed {
		if slices.Contains(listed, d) {
			ds = append(ds, d)
			if i < len(at) {
				ps = append(ps, at[i])
			}
		}
	}
	if len(ds) == 0 {
		return allowed, at
	}
	return ds, ps
}

// narrowTensors copies the tensors whose own dtype list or rank range nw
// narrows.
func narrowTensors(ts []*Tensor, nw *Narrowing) []*Tensor {
	out := slices.Clone(ts)
	for i, t := range ts {
		types := nw.typesOf(t.Name)
		rank := nw.rankOf(t.Name)
		if (types == nil || t.Type.Var != "") && rank == nil {
			continue
		}
		n := *t
		if types != nil && t.Type.Var == "" {
			n.Type.DTypes, _ = keepListed(t.Type.DTypes, nil, types.DTypes)
		}
		if rank != nil && t.Rank == RankAny && rank.Within(t.RankRange) {
			n.RankRange = &RankRange{Min: rank.Min, Max: rank.Max}
		}
		out[i] = &n
	}
	return out
}

// Within reports a narrowing within r (nil: any rank); one that is not is
// validate's error, and narrows nothing.
func (nr *NarrowRank) Within(r *RankRange) bool {
	lo, hi := 0, MaxRank
	if r != nil {
		lo, hi = r.Min, r.Max
	}
	return lo <= nr.Min && nr.Min <= nr.Max && nr.Max <= hi
}

// narrowLikeRanks gives outputs shaped like a narrowed input its narrowed
// range (less one where the axis is removed), as validation derived the
// input's own range for them.
func narrowLikeRanks(op *Op) {
	for i, t := range op.Outputs {
		if t.Like == nil || t.RankRange == nil {
			continue
		}
		in := op.Input(t.Like.Input)
		if in == nil || in.RankRange == nil {
			continue
		}
		n := *t
		n.RankRange = t.Like.RankRange(in.RankRange)
		op.Outputs[i] = &n
	}
}

// For is the package as target sees it: pkg itself when no op narrows
// anything for target, else a copy holding each op as target sees it.
func (p *Package) For(target string) *Package {
	if !slices.ContainsFunc(p.Ops, func(o *Op) bool { return o.Narrowed(target) }) {
		return p
	}
	c := *p
	c.Ops = make([]*Op, len(p.Ops))
	for i, o := range p.Ops {
		c.Ops[i] = o.For(target)
	}
	return &c
}
