package trt

import (
	"strings"

	"github.com/opforge/opforge/generators/ir"
)

// A plugin's I/O differs from the opdef's: shape-tensor inputs travel
// separately (addPluginV3's shapeInputs, never in enqueue), and every
// data-dependent size becomes an extra 0-D output, a size tensor, after the
// opdef's outputs. ioLayout is that view, with the rule that decides each
// tensor's dtype; getOutputDataTypes, supportsFormatCombination, the
// enqueue dispatch, the typed launchers and the QDP autotune all read it.

// rule decides a tensor's dtype.
type rule int

const (
	// ruleFree: an input that picks its dtype from Allowed (a slot).
	ruleFree rule = iota
	// ruleTied: the same dtype as the tensor at position Tie (a type
	// variable bound earlier).
	ruleTied
	// ruleFixed: exactly Fixed.
	ruleFixed
	// ruleFollowFirst: an output with a list of dtypes takes input 0's
	// dtype when the list has it, else the list's first (the rule the
	// ExecuTorch fake implementations use too).
	ruleFollowFirst
	// ruleSize: a size tensor, kINT32 as IPluginV3OneBuild requires.
	ruleSize
	// ruleParam: a tensor whose dtype a param chooses (dtype_param: an
	// enum of dtype names or a dtype code); its slot is decided by the
	// plugin's field, so an input so typed takes only the chosen dtype.
	ruleParam
)

// ioTensor is one plugin input or output.
type ioTensor struct {
	T       *ir.Tensor // nil for size tensors
	Name    string     // as written (messages, Python ids)
	Ident   string
	Input   bool
	Index   int // among the regular inputs, or among the outputs
	Pos     int // in supportsFormatCombination's inOut
	Rank    int // ir.RankAny when unknown
	Allowed []ir.DType
	Rule    rule
	Tie     int      // ruleTied: the position it copies
	Fixed   ir.DType // ruleFixed; ruleTied to an optional input: the dtype when it is absent; ruleParam: the default's
	// Optional: an input the node may leave out. Optional inputs are the
	// last regular inputs (check.go), so the inputs present are always
	// the first nbInputs of the layout.
	Optional bool
	Slot     int // ruleFree, ruleParam: index into ioLayout.Slots
	Size     *ir.SizeSymbol
	// ruleParam: the param choosing the dtype, its C++ enum (nil for a
	// dtype code), and the dtype of each of its values (Allowed[i] for
	// value or code i).
	Param *ir.Param
	Enum  *enumModel
}

// slot is one free dtype choice: a type variable bound by an input, or an
// input with its own list of dtypes. The launcher combinations are the
// product of the slots.
type slot struct {
	Name    string // the type variable, or "<input>_t"
	Allowed []ir.DType
	Pos     int // the input that decides it; an output's position for ruleParam
	// Output: the slot is a dtype_param output's, decided by its param.
	Output bool
	// Param: the param deciding the slot (an output's or an input's
	// dtype_param), nil for a slot its input decides.
	Param *ir.Param
}

type ioLayout struct {
	Inputs []*ioTensor // regular inputs, in opdef order
	// Required is the number of inputs always there: the plugin accepts
	// nbInputs in [Required, len(Inputs)].
	Required    int
	ShapeInputs []*ir.Tensor
	Outputs     []*ioTensor // opdef outputs, then one size tensor per data-dependent size
	Slots       []*slot
	// InDim maps each dim symbol of the regular inputs to the (input, dim)
	// that binds it first.
	InDim  map[string][2]int
	all    []*ioTensor
	combos []combo // Combos, once computed
}

// All returns inputs then outputs: inOut order. The slice is the layout's
// own: callers read it.
func (l *ioLayout) All() []*ioTensor { return l.all }

// layoutOf lays out op's plugin I/O from the op's derived facts (ir.Facts):
// the symbol bindings, dtype slots and output dtype rules every target
// shares, restricted to what the plugin sees (shape tensors are not among
// its inputs, so they neither bind dims nor decide dtypes here).
func layoutOf(op *ir.Op) *ioLayout {
	facts := op.Derived()
	l := &ioLayout{InDim: map[string][2]int{}}
	// Plugin position of each regular input, by index into op.Inputs.
	posOf := make([]int, len(op.Inputs))
	pos := 0
	for i, in := range op.Inputs {
		posOf[i] = -1
		if in.ShapeTensor {
			l.ShapeInputs = append(l.ShapeInputs, in)
			continue
		}
		posOf[i] = pos
		l.Inputs = append(l.Inputs, &ioTensor{T: in, Name: in.Name, Ident: in.Ident, Input: true, Index: pos, Pos: pos, Rank: rankOf(in), Allowed: op.AllowedDTypes(in), Optional: in.Optional})
		if !in.Optional {
			l.Required = pos + 1
		}
		pos++
	}
	for _, b := range facts.Bindings {
		if p := posOf[b.Input]; p >= 0 {
			l.InDim[b.Symbol] = [2]int{p, b.Dim}
		}
	}
	varPos := map[string]int{}
	decides := make([]bool, len(l.Inputs))
	// The slot each dtype-choosing param decides: inputs and outputs typed
	// by one param share it, so its value gives them all one dtype.
	paramSlot := map[int]int{}
	for _, s := range facts.Slots {
		p := posOf[s.Input]
		if p < 0 {
			continue
		}
		t := l.Inputs[p]
		t.Rule, t.Slot, decides[p] = ruleFree, len(l.Slots), true
		name := s.Var
		if name == "" {
			name = t.Ident + "_t"
		} else {
			varPos[name] = p
		}
		if k, ok := paramSlot[s.Param]; ok && s.ByParam {
			// A second input bound by one param has the first's dtype.
			t.Rule, t.Tie = ruleTied, l.Slots[k].Pos
			continue
		}
		sl := &slot{Name: name, Allowed: s.Allowed, Pos: p}
		if s.ByParam {
			bindToParam(op, t, sl, s.Param)
			paramSlot[s.Param] = t.Slot
		}
		l.Slots = append(l.Slots, sl)
	}
	for _, t := range l.Inputs {
		switch {
		case decides[t.Pos]:
		case t.T.Type.Var != "":
			if p, ok := varPos[t.T.Type.Var]; ok {
				t.Rule, t.Tie = ruleTied, p
			} else {
				// The variable's slot is a shape tensor's: fixed here.
				t.Rule, t.Fixed = ruleFixed, first(t.Allowed)
			}
		default:
			t.Rule, t.Fixed = ruleFixed, first(t.Allowed)
		}
	}
	for i, out := range op.Outputs {
		t := &ioTensor{T: out, Name: out.Name, Ident: out.Ident, Index: len(l.Outputs), Pos: pos, Rank: rankOf(out), Allowed: op.AllowedDTypes(out)}
		r := facts.Outputs[i]
		switch {
		case len(l.Inputs) == 0:
			// IPluginV3OneBuild: outputs of a plugin without inputs are
			// kFLOAT (the trt-no-input-dtype check makes that allowed).
			t.Rule, t.Fixed = ruleFixed, ir.Float32
		case r.Rule == ir.DTypeSameAs && posOf[r.Input] >= 0:
			t.Rule, t.Tie = ruleTied, posOf[r.Input]
			if l.Inputs[t.Tie].Optional {
				t.Fixed = r.DType // the first allowed dtype, when the input is absent
			}
		case r.Rule == ir.DTypeFollow && posOf[r.Input] == 0:
			t.Rule = ruleFollowFirst
		case r.Rule == ir.DTypeParam:
			t.Rule, t.Allowed = ruleParam, r.Allowed
			t.Fixed = r.DType // the param's default's dtype (examples)
			t.Param = op.Params[r.Param]
			if t.Param.Kind == ir.ParamEnum {
				t.Enum = newEnumModel(op, t.Param)
			}
			if s, ok := paramSlot[r.Param]; ok {
				t.Slot = s
				break
			}
			t.Slot, paramSlot[r.Param] = len(l.Slots), len(l.Slots)
			l.Slots = append(l.Slots, &slot{Name: t.Ident + "_t", Allowed: r.Allowed, Pos: pos, Output: true, Param: t.Param})
		default:
			t.Rule, t.Fixed = ruleFixed, r.DType
		}
		l.Outputs = append(l.Outputs, t)
		pos++
	}
	for _, s := range op.DataDependent {
		l.Outputs = append(l.Outputs, &ioTensor{Name: s.Name, Ident: "size_" + s.Name, Index: len(l.Outputs), Pos: pos, Rank: 0, Allowed: []ir.DType{ir.Int32}, Rule: ruleSize, Fixed: ir.Int32, Size: s})
		pos++
	}
	l.all = append(append(make([]*ioTensor, 0, pos), l.Inputs...), l.Outputs...)
	return l
}

// bindToParam makes input t, deciding slot sl, take the dtype param j
// chooses: supportsFormatCombination then admits only that dtype.
func bindToParam(op *ir.Op, t *ioTensor, sl *slot, j int) {
	p := op.Params[j]
	t.Rule, t.Param, t.Allowed, sl.Param = ruleParam, p, sl.Allowed, p
	t.Fixed = first(sl.Allowed)
	if d := p.ChosenDefault(); d != "" {
		t.Fixed = d
	}
	if p.Kind == ir.ParamEnum {
		t.Enum = newEnumModel(op, p)
	}
}

func first(ds []ir.DType) ir.DType {
	if len(ds) == 0 {
		return ir.Float32
	}
	return ds[0]
}

// like is the regular input whose shape output t has (`shape: {like: x}`),
// or nil.
func (l *ioLayout) like(t *ioTensor) *ioTensor {
	if t.T == nil || t.T.Like == nil {
		return nil
	}
	for _, in := range l.Inputs {
		if in.Name == t.T.Like.Input {
			return in
		}
	}
	return nil
}

// broadcast are the regular inputs whose shapes broadcast into output
// t's (`shape: {broadcast: [a, b]}`), or nil.
func (l *ioLayout) broadcast(t *ioTensor) []*ioTensor {
	if t.T == nil || t.T.Broadcast == nil {
		return nil
	}
	var ins []*ioTensor
	for _, name := range t.T.Broadcast.Inputs {
		for _, in := range l.Inputs {
			if in.Name == name {
				ins = append(ins, in)
			}
		}
	}
	return ins
}

func rankOf(t *ir.Tensor) int {
	if t.Shape != nil {
		return len(t.Shape)
	}
	return t.Rank
}

// combo is one dtype per slot, and the dtype every tensor then has.
type combo struct {
	Slots  []ir.DType
	DTypes []ir.DType // by inOut position
}

// Suffix names the combination in launcher names: the slots' dtypes.
func (c combo) Suffix() string {
	parts := make([]string, len(c.Slots))
	for i, d := range c.Slots {
		parts[i] = string(d)
	}
	return strings.Join(parts, "_")
}

// Combos enumerates the dtype combinations in slot order, the first slot
// varying slowest. The launchers and the Python plugin's autotune both
// read them: they are computed once.
func (l *ioLayout) Combos() []combo {
	if l.combos == nil {
		l.combos = l.combinations()
	}
	return l.combos
}

func (l *ioLayout) combinations() []combo {
	choices := [][]ir.DType{{}}
	for _, s := range l.Slots {
		var next [][]ir.DType
		for _, c := range choices {
			for _, d := range s.Allowed {
				next = append(next, append(append([]ir.DType{}, c...), d))
			}
		}
		choices = next
	}
	all := l.All()
	out := make([]combo, 0, len(choices))
	for _, c := range choices {
		dt := make([]ir.DType, len(all))
		for i, t := range all {
			switch t.Rule {
			case ruleFree, ruleParam:
				dt[i] = c[t.Slot]
			case ruleTied:
				dt[i] = dt[t.Tie]
			case ruleFixed, ruleSize:
				dt[i] = t.Fixed
			case ruleFollowFirst:
				dt[i] = t.Allowed[0]
				for _, a := range t.Allowed {
					if a == dt[0] {
						dt[i] = a
					}
				}
			}
		}
		out = append(out, combo{Slots: c, DTypes: dt})
	}
	return out
}

// Count is the number of format combinations supportsFormatCombination
// admits: one per dtype combination and format.
func (l *ioLayout) Count(formats int) int {
	n := 1
	for _, s := range l.Slots {
		n *= len(s.Allowed)
		if n > 1<<20 {
			return n // enough to know it is too many
		}
	}
	if formats < 1 {
		formats = 1
	}
	return n * formats
}

// formatMinRank is the fewest dims a tensor needs for each vectorized
// TensorFormat; LINEAR fits any tensor.
var formatMinRank = map[string]int{
	"LINEAR": 0, "CHW2": 3, "HWC8": 3, "CHW4": 3, "CHW16": 3, "CHW32": 3, "DHWC8": 4, "CDHW32": 4,
	"HWC": 3, "DLA_LINEAR": 3, "DLA_HWC4": 3, "HWC16": 3, "DHWC": 4,
}

// formatFor is the format a tensor of rank takes when the leading tensor
// is in format f: f itself when it fits, else LINEAR.
func formatFor(f string, rank int) string {
	if rank == ir.RankAny || rank >= formatMinRank[f] {
		return f
	}
	return "LINEAR"
}
