package trt

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/escape"
	"github.com/opforge/opforge/generators/ir"
)

// Format rules (issue 28 item 3): `targets.trt.formats` lists TensorFormat
// names, each admitted always (`chw32`) or only when a condition on the
// leading tensor (the first input, which TensorRT asks about first and
// every other tensor follows) and the plugin's params holds:
//
//	formats:
//	  - linear
//	  - {format: dhwc8, when: {dtype: float16, rank: 5}}
//	  - {format: chw4, when: {dtype: int8, param: "ld < 32"}}
//
// The rules are a TensorRT fact (tensor formats exist only there), so they
// live in the trt section; the other targets never read it.

// FormatRule admits Format where every condition holds (none: always).
type FormatRule struct {
	Format string     // TensorFormat name without the k (CHW32)
	DTypes []ir.DType // the leading tensor's dtype is one of these (nil: any)
	Ranks  []int      // its rank is one of these (nil: any)
	Params []ParamCond
	Pos    diag.Pos // the format name
	Where  ir.Where // where dtype, rank and param were written
}

// Conditional reports whether the rule has a `when`.
func (r *FormatRule) Conditional() bool {
	return r.DTypes != nil || r.Ranks != nil || r.Params != nil
}

// ParamCond compares a param with a value: `ld < 32`, `mode == avg`.
type ParamCond struct {
	Param, Op, Value string
	Text             string // as written
	Pos              diag.Pos
}

// paramCondRE is a condition: a param, a comparison, a value.
var paramCondRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(==|!=|<=|>=|<|>)\s*([^\s<>=!]+)\s*$`)
})

// decodeFormats reads the formats list into rules and the names they
// admit (the union, in order, without repeats).
func decodeFormats(n *ir.Node, d *diag.TargetList) (names []string, rules []FormatRule) {
	if n == nil {
		return []string{"LINEAR"}, []FormatRule{{Format: "LINEAR"}}
	}
	for _, it := range n.Items {
		r := FormatRule{Format: strings.ToUpper(it.Text()), Pos: it.Pos, Where: ir.Where{}}
		if it.Kind == ir.MapNode {
			f := it.Get("format")
			r.Format, r.Pos = strings.ToUpper(f.Text()), f.Pos
			decodeWhen(it.Get("when"), &r, d)
		}
		if !slices.Contains(names, r.Format) {
			names = append(names, r.Format)
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return []string{"LINEAR"}, []FormatRule{{Format: "LINEAR"}}
	}
	return names, rules
}

func decodeWhen(w *ir.Node, r *FormatRule, d *diag.TargetList) {
	if w == nil {
		return
	}
	if v := w.Get("dtype"); v != nil {
		r.Where.Set("dtype", v.Pos)
		for _, s := range scalarsOf(v) {
			r.DTypes = append(r.DTypes, ir.DType(s.Text()))
		}
	}
	if v := w.Get("rank"); v != nil {
		r.Where.Set("rank", v.Pos)
		for _, s := range scalarsOf(v) {
			r.Ranks = append(r.Ranks, int(s.Int()))
		}
	}
	if v := w.Get("param"); v != nil {
		r.Where.Set("param", v.Pos)
		r.Params = []ParamCond{}
		for _, s := range scalarsOf(v) {
			m := paramCondRE().FindStringSubmatch(s.Text())
			if m == nil {
				if d != nil {
					d.Errorf(s.TextPos(), "trt-format-when", "format condition %q: write a param, a comparison (==, !=, <, <=, >, >=) and a value, e.g. \"ld < 32\"", s.Text())
				}
				continue
			}
			r.Params = append(r.Params, ParamCond{Param: m[1], Op: m[2], Value: m[3], Text: s.Text(), Pos: s.TextPos()})
		}
	}
}

// scalarsOf is a scalar or the items of a list.
func scalarsOf(n *ir.Node) []*ir.Node {
	if n.Kind == ir.ListNode {
		return n.Items
	}
	return []*ir.Node{n}
}

// encodeFormats is the canonical formats list: plain names for rules
// without a condition, one flow map for each other.
func encodeFormats(rules []FormatRule) *ir.Node {
	fs := &ir.Node{Kind: ir.ListNode, Flow: true}
	for _, r := range rules {
		name := ir.Str(strings.ToLower(r.Format))
		if !r.Conditional() {
			fs.Items = append(fs.Items, name)
			continue
		}
		when := ir.Map(true)
		if r.DTypes != nil {
			ds := make([]string, len(r.DTypes))
			for i, dt := range r.DTypes {
				ds[i] = string(dt)
			}
			when.Set("dtype", oneOrList(ds, ir.Str))
		}
		if r.Ranks != nil {
			rs := make([]string, len(r.Ranks))
			for i, k := range r.Ranks {
				rs[i] = strconv.Itoa(k)
			}
			when.Set("rank", oneOrList(rs, ir.Int))
		}
		if r.Params != nil {
			cs := make([]string, len(r.Params))
			for i, c := range r.Params {
				cs[i] = c.Param + " " + c.Op + " " + c.Value
			}
			when.Set("param", oneOrList(cs, ir.Str))
		}
		fs.Items = append(fs.Items, ir.Map(true).Set("format", name).Set("when", when))
	}
	return fs
}

func oneOrList(vs []string, node func(string) *ir.Node) *ir.Node {
	if len(vs) == 1 {
		return node(vs[0])
	}
	l := &ir.Node{Kind: ir.ListNode, Flow: true}
	for _, v := range vs {
		l.Items = append(l.Items, node(v))
	}
	return l
}

// trivialFormats reports the default: LINEAR only, unconditionally.
func trivialFormats(rules []FormatRule) bool {
	return len(rules) == 1 && rules[0].Format == "LINEAR" && !rules[0].Conditional()
}

// formatDTypes are the dtypes each vectorized TensorFormat takes: the
// union of what NvInferRuntime.h documents in TensorRT 10.0, 10.8, 10.16
// and 11.1 (CHW4 took FP16 until 10.16; CHW32, which 10.0 and 10.8 bind
// to no dtype, is absent: it takes all). LINEAR takes all.
var formatDTypes = map[string][]ir.DType{
	"CHW2":       {ir.Float16, ir.BFloat16},
	"HWC8":       {ir.Float16, ir.BFloat16},
	"CHW4":       {ir.Int8, ir.Float16},
	"CHW16":      {ir.Int8, ir.Float16},
	"DHWC8":      {ir.Float16, ir.BFloat16},
	"CDHW32":     {ir.Float16, ir.Int8},
	"HWC":        {ir.Float32, ir.Uint8, ir.Float16, ir.Int64, ir.BFloat16},
	"DLA_LINEAR": {ir.Float16, ir.Int8},
	"DLA_HWC4":   {ir.Float16, ir.Int8},
	"HWC16":      {ir.Float16, ir.Int8, ir.Float8E4},
	"DHWC":       {ir.Float32},
}

// formatTakes reports whether format f can hold dtype dt (QInt8 is int8
// to TensorRT).
func formatTakes(f string, dt ir.DType) bool {
	ds, ok := formatDTypes[f]
	if dt == ir.QInt8 {
		dt = ir.Int8
	}
	return !ok || slices.Contains(ds, dt)
}

func dtypeList(ds []ir.DType) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}

// checkFormatRules reports rules that cannot hold or cannot be met:
// a format whose vectorization does not fit the dtypes or rank it meets,
// a condition the op never satisfies (a dtype or rank the leading tensor
// never has, a param value outside its range, conditions contradicting
// each other), and a condition on a param that cannot be compared.
func checkFormatRules(op *ir.Op, o *Options, d *diag.TargetList) {
	if len(op.Inputs) == 0 || trivialFormats(o.FormatRules) {
		return
	}
	lead := op.Inputs[0]
	allowed := op.AllowedDTypes(lead)
	for i := range o.FormatRules {
		r := &o.FormatRules[i]
		checkRuleDTypes(op, lead, allowed, r, d)
		checkRuleRanks(op, lead, r, d)
		checkRuleParams(op, r, d)
		checkRuleShadowed(op, o.FormatRules, r, d)
	}
	checkDTypesCovered(op, lead, allowed, o, d)
}

// checkDTypesCovered refuses, under conditional rules, a dtype of the
// leading tensor that no rule gives a format it fits: TensorRT could
// never pick that dtype, so the opdef would promise what the plugin
// refuses.
func checkDTypesCovered(op *ir.Op, lead *ir.Tensor, allowed []ir.DType, o *Options, d *diag.TargetList) {
	if !anyConditional(o.FormatRules) {
		return
	}
	for _, dt := range allowed {
		covered := slices.ContainsFunc(o.FormatRules, func(r FormatRule) bool {
			return (r.DTypes == nil || slices.Contains(r.DTypes, dt)) && formatTakes(r.Format, dt)
		})
		if !covered {
			d.Errorf(o.FormatRules[0].Pos, "trt-format-uncovered", "input %q of op %s may be %s, but no format rule admits a format that holds %s, so TensorRT could never pick it; add one (linear holds every dtype) or drop %s from the input's dtypes", lead.Name, op.Name, dt, dt, dt)
		}
	}
}

// checkRuleShadowed refuses a condition that restricts nothing: the same
// format is also listed without one, so the plugin would take it
// everywhere, against what the condition says.
func checkRuleShadowed(op *ir.Op, rules []FormatRule, r *FormatRule, d *diag.TargetList) {
	if !r.Conditional() {
		return
	}
	if slices.ContainsFunc(rules, func(o FormatRule) bool { return o.Format == r.Format && !o.Conditional() }) {
		d.Errorf(r.Pos, "trt-format-shadowed", "format %s of op %s is also listed without a condition, which contradicts this rule: the plugin would take it whatever the rule's `when` says; drop one of them", strings.ToLower(r.Format), op.Name)
	}
}

func checkRuleDTypes(op *ir.Op, lead *ir.Tensor, allowed []ir.DType, r *FormatRule, d *diag.TargetList) {
	if r.DTypes == nil {
		if len(allowed) > 0 && !slices.ContainsFunc(allowed, func(dt ir.DType) bool { return formatTakes(r.Format, dt) }) {
			d.Errorf(r.Pos, "trt-format-dtype", "format %s of op %s holds only %s, and input %q (which leads the format choice) is never one of them (it is %s); drop the format or give it a `when: {dtype: ...}` it fits", strings.ToLower(r.Format), op.Name, dtypeList(formatDTypes[r.Format]), lead.Name, dtypeList(allowed))
		}
		return
	}
	pos, _ := r.Where.Lookup("dtype")
	for _, dt := range r.DTypes {
		switch {
		case !formatTakes(r.Format, dt):
			d.Errorf(pos, "trt-format-dtype", "format %s of op %s is tied to dtype %s, but TensorRT's %s vectorizes only %s", strings.ToLower(r.Format), op.Name, dt, strings.ToLower(r.Format), dtypeList(formatDTypes[r.Format]))
		case len(allowed) > 0 && !slices.Contains(allowed, dt):
			d.Errorf(pos, "trt-format-never", "format %s of op %s is tied to dtype %s, which input %q (the tensor the rule tests) never has (it is %s): the rule never holds", strings.ToLower(r.Format), op.Name, dt, lead.Name, dtypeList(allowed))
		}
	}
}

func checkRuleRanks(op *ir.Op, lead *ir.Tensor, r *FormatRule, d *diag.TargetList) {
	least := formatMinRank[r.Format]
	if r.Ranks == nil {
		if r.Conditional() && lead.Rank != ir.RankAny && lead.Rank < least {
			d.Errorf(r.Pos, "trt-format-rank", "format %s of op %s needs at least %d dims, and input %q (which leads the format choice) has %d", strings.ToLower(r.Format), op.Name, least, lead.Name, lead.Rank)
		}
		return
	}
	pos, _ := r.Where.Lookup("rank")
	for _, k := range r.Ranks {
		switch {
		case k < least:
			d.Errorf(pos, "trt-format-rank", "format %s of op %s is tied to rank %d, but TensorRT's %s needs at least %d dims", strings.ToLower(r.Format), op.Name, k, strings.ToLower(r.Format), least)
		case lead.Rank != ir.RankAny && lead.Rank != k, lead.Rank == ir.RankAny && !lead.RankRange.Admits(k):
			d.Errorf(pos, "trt-format-never", "format %s of op %s is tied to rank %d, which input %q (the tensor the rule tests) never has (%s): the rule never holds", strings.ToLower(r.Format), op.Name, k, lead.Name, rankText(lead))
		}
	}
}

func rankText(t *ir.Tensor) string {
	if t.Rank != ir.RankAny {
		return strconv.Itoa(t.Rank) + " dims"
	}
	return fmt.Sprintf("%d to %d dims", t.RankRange.Min, t.RankRange.Max)
}

// checkRuleParams checks each condition against its param and the
// conditions of one rule against each other.
func checkRuleParams(op *ir.Op, r *FormatRule, d *diag.TargetList) {
	spans := map[string]*span{}
	for _, c := range r.Params {
		p := op.Param(c.Param)
		if p == nil {
			d.Errorf(c.Pos, "trt-format-when", "format condition %q of op %s names no param of the op", c.Text, op.Name)
			continue
		}
		switch {
		case p.Kind == ir.ParamEnum:
			if !slices.Contains(p.Values, c.Value) || (c.Op != "==" && c.Op != "!=") {
				d.Errorf(c.Pos, "trt-format-when", "format condition %q of op %s: enum param %s compares with == or != to one of its values (%s)", c.Text, op.Name, p.Name, strings.Join(p.Values, ", "))
			}
			continue
		case p.Kind == ir.ParamBool:
			if (c.Value != "true" && c.Value != "false") || (c.Op != "==" && c.Op != "!=") {
				d.Errorf(c.Pos, "trt-format-when", "format condition %q of op %s: bool param %s compares with == or != to true or false", c.Text, op.Name, p.Name)
			}
			continue
		case !numericScalar(p):
			d.Errorf(c.Pos, "trt-format-when", "format condition %q of op %s: param %s is not a number, bool or enum, so the plugin cannot compare it", c.Text, op.Name, p.Name)
			continue
		}
		v, err := strconv.ParseFloat(c.Value, 64)
		if err != nil || (isIntParam(p) && v != math.Trunc(v)) {
			d.Errorf(c.Pos, "trt-format-when", "format condition %q of op %s: %q is not a value of param %s (%s)", c.Text, op.Name, c.Value, p.Name, p.DTypes[0])
			continue
		}
		s := spans[p.Name]
		if s == nil {
			s = paramSpan(p)
			spans[p.Name] = s
		}
		s.narrow(c.Op, v, isIntParam(p))
		if s.empty() {
			d.Errorf(c.Pos, "trt-format-never", "format %s of op %s: condition %q contradicts %s: the rule never holds", strings.ToLower(r.Format), op.Name, c.Text, s.reason())
			spans[p.Name] = paramSpan(p) // the next condition is checked on its own
			continue
		}
		s.narrowed = true
	}
}

func numericScalar(p *ir.Param) bool {
	return p.Kind == ir.ParamScalar && len(p.DTypes) > 0 && (p.DTypes[0].IsInteger() || p.DTypes[0].IsFloat())
}

func isIntParam(p *ir.Param) bool { return len(p.DTypes) > 0 && p.DTypes[0].IsInteger() }

// span is the values a numeric param may take under a rule's conditions
// so far: [lo, hi], each end open or closed.
type span struct {
	lo, hi         float64
	loOpen, hiOpen bool
	param          string
	narrowed       bool // an earlier condition of the rule bounds it too
}

// reason says what a contradicting condition contradicts.
func (s *span) reason() string {
	if s.narrowed {
		return "the range of param " + s.param + " and the conditions before it"
	}
	return "the range of param " + s.param
}

func paramSpan(p *ir.Param) *span {
	s := &span{lo: math.Inf(-1), hi: math.Inf(1), param: p.Name}
	if p.Min != nil {
		s.lo, s.loOpen = *p.Min, p.MinExclusive
	}
	if p.Max != nil {
		s.hi, s.hiOpen = *p.Max, p.MaxExclusive
	}
	return s
}

// narrow intersects the span with `param op v`; integers turn strict
// bounds into inclusive ones so `ld < 32` and `ld > 31` meet nowhere.
func (s *span) narrow(op string, v float64, integer bool) {
	switch op {
	case "==":
		s.raise(v, false)
		s.lower(v, false)
	case "<":
		s.lower(v, true)
	case "<=":
		s.lower(v, false)
	case ">":
		s.raise(v, true)
	case ">=":
		s.raise(v, false)
	case "!=":
		if s.lo == v && s.hi == v {
			s.loOpen = true
		}
	}
	if integer {
		s.roundToIntegers()
	}
}

func (s *span) raise(v float64, open bool) {
	if v > s.lo || (v == s.lo && open) {
		s.lo, s.loOpen = v, open
	}
}

func (s *span) lower(v float64, open bool) {
	if v < s.hi || (v == s.hi && open) {
		s.hi, s.hiOpen = v, open
	}
}

func (s *span) roundToIntegers() {
	if !math.IsInf(s.lo, 0) {
		lo := math.Ceil(s.lo)
		if s.loOpen && lo == s.lo {
			lo++
		}
		s.lo, s.loOpen = lo, false
	}
	if !math.IsInf(s.hi, 0) {
		hi := math.Floor(s.hi)
		if s.hiOpen && hi == s.hi {
			hi--
		}
		s.hi, s.hiOpen = hi, false
	}
}

func (s *span) empty() bool {
	return s.lo > s.hi || (s.lo == s.hi && (s.loOpen || s.hiOpen))
}

// rulesReadParams reports whether a rule tests a param, so that
// opdefSupports needs the plugin's params.
func rulesReadParams(rules []FormatRule) bool {
	return slices.ContainsFunc(rules, func(r FormatRule) bool { return len(r.Params) > 0 })
}

// anyConditional reports whether some rule has a `when`.
func anyConditional(rules []FormatRule) bool {
	return slices.ContainsFunc(rules, func(r FormatRule) bool { return r.Conditional() })
}

// leadFormatCond is supportsFormatCombination's format test of the
// leading tensor (self) under conditional rules: some rule admits its
// format, dtype, rank and the params, and the format fits its rank.
func (m *opModel) leadFormatCond(self string, rules []FormatRule) string {
	parts := make([]string, len(rules))
	for i := range rules {
		parts[i] = m.ruleCond(self, &rules[i])
	}
	return "(" + strings.Join(parts, " || ") + ") && formatFits(" + self + ".format, " + self + ".dims.nbDims)"
}

// ruleCond is one rule as a C++ bool expression over the leading tensor
// and mParams.
func (m *opModel) ruleCond(self string, r *FormatRule) string {
	conds := []string{self + ".format == nvinfer1::TensorFormat::k" + r.Format}
	if r.DTypes != nil {
		conds = append(conds, oneOf(self+".type", r.DTypes))
	}
	if r.Ranks != nil {
		ks := make([]string, len(r.Ranks))
		for i, k := range r.Ranks {
			ks[i] = self + ".dims.nbDims == " + strconv.Itoa(k)
		}
		conds = append(conds, orGroup(ks))
	}
	for _, c := range r.Params {
		conds = append(conds, m.paramCondC(c))
	}
	if len(conds) == 1 {
		return conds[0]
	}
	return "(" + strings.Join(conds, " && ") + ")"
}

func orGroup(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return "(" + strings.Join(xs, " || ") + ")"
}

// paramCondC is `param op value` over mParams: an enum value as its
// constant, a number as a C++ literal of the param's kind.
func (m *opModel) paramCondC(c ParamCond) string {
	pm := m.paramNamed(c.Param)
	lhs := "mParams." + pm.p.Ident
	switch {
	case pm.enum != nil:
		for _, v := range pm.enum.Values {
			if v.Value == c.Value {
				return lhs + " " + c.Op + " " + pm.enum.Type + "::" + v.Const
			}
		}
	case pm.p.Kind == ir.ParamBool:
		return lhs + " " + c.Op + " " + c.Value
	case isIntParam(pm.p):
		v, _ := strconv.ParseFloat(c.Value, 64)
		return lhs + " " + c.Op + " " + strconv.FormatInt(int64(v), 10) + "LL"
	}
	v, _ := strconv.ParseFloat(c.Value, 64)
	return lhs + " " + c.Op + " " + strconv.FormatFloat(v, 'e', -1, 64)
}

// paramNamed is the model of the param named name (check has made sure
// there is one).
func (m *opModel) paramNamed(name string) *paramModel {
	for _, pm := range m.Params {
		if pm.p.Name == name {
			return pm
		}
	}
	panic("format rule names no param: " + name) // unreachable after check
}

// ruleAdmits reports whether some rule admits format f for a leading
// tensor of dtype dt and rank (ir.RankAny: unknown, so rank conditions
// count as met) under the param values vals (nil: param conditions count
// as met). It is what the Python plugin lists and the driver expects.
func ruleAdmits(rules []FormatRule, f string, dt ir.DType, rank int, vals func(ParamCond) bool) bool {
	for i := range rules {
		r := &rules[i]
		if r.Format != f || (r.DTypes != nil && !slices.Contains(r.DTypes, dt)) {
			continue
		}
		if r.Ranks != nil && rank != ir.RankAny && !slices.Contains(r.Ranks, rank) {
			continue
		}
		if vals != nil && !slices.ContainsFunc(r.Params, func(c ParamCond) bool { return !vals(c) }) || vals == nil {
			return true
		}
	}
	return false
}

// applyFormatRules replaces the leading tensor's verdict (Supports[0])
// when a rule has a condition; the other tensors follow its format as
// before. A rule testing a param makes opdefSupports take mParams.
func (m *opModel) applyFormatRules(l *ioLayout, rules []FormatRule, legacy bool) {
	if !anyConditional(rules) || len(l.Inputs) == 0 {
		return
	}
	m.DTypeParam = m.DTypeParam || rulesReadParams(rules)
	self := "inOut[0]"
	if !legacy {
		self += ".desc"
	}
	all := l.All()
	m.Supports[0] = text(typeCond(all, all[0], func(int) string { return self }) + " && " + m.leadFormatCond(self, rules))
}

// formatCond is the Python condition under which the Python plugin lists
// the op's format fi for a leading tensor of dtype dt: "True" where a rule
// admits it whatever the params, the rules' param comparisons over the
// autotune's attributes where only those admit it, and false (ok) where no
// rule's dtype and rank conditions admit it (checkQDPFormats refuses the
// ranks autotune cannot know).
func (b *qdpBuilder) formatCond(fi int, dt ir.DType) (cond string, ok bool) {
	o := OpOptions(b.op)
	if len(b.all) == 0 {
		return "True", true
	}
	var alts []string
	for i := range o.FormatRules {
		r := &o.FormatRules[i]
		if !ruleAdmits([]FormatRule{{Format: r.Format, DTypes: r.DTypes, Ranks: r.Ranks}}, o.Formats[fi], dt, b.all[0].Rank, nil) {
			continue
		}
		if len(r.Params) == 0 {
			return "True", true
		}
		parts := make([]string, len(r.Params))
		for k, c := range r.Params {
			parts[k] = pyParamCond(b.op.Param(c.Param), c)
		}
		alts = append(alts, "("+strings.Join(parts, " and ")+")")
	}
	if len(alts) == 0 {
		return "", false
	}
	return strings.Join(alts, " or "), true
}

// pyParamCond is `param op value` over the autotune's attribute: an enum
// by its value name, a bool as True or False.
func pyParamCond(p *ir.Param, c ParamCond) string {
	v := c.Value
	switch p.Kind {
	case ir.ParamEnum:
		v = escape.PyString(c.Value)
	case ir.ParamBool:
		v = map[string]string{"true": "True", "false": "False"}[c.Value]
	}
	return p.Ident + " " + c.Op + " " + v
}

// formatRuleReads reports whether a format rule of op compares p.
func formatRuleReads(op *ir.Op, p *ir.Param) bool {
	for _, r := range OpOptions(op).FormatRules {
		if slices.ContainsFunc(r.Params, func(c ParamCond) bool { return c.Param == p.Name }) {
			return true
		}
	}
	return false
}

// checkQDPFormats refuses the rules the Python plugin cannot list: its
// autotune returns combinations computed here from the dtypes and the
// ranks the opdef fixes (and filtered on the attributes a rule compares),
// so a rule testing the rank of an input of rank any has no entry to give.
func checkQDPFormats(op *ir.Op, d *diag.TargetList) {
	o := OpOptions(op)
	if len(op.Inputs) == 0 {
		return
	}
	for _, r := range o.FormatRules {
		if r.Ranks != nil && op.Inputs[0].Rank == ir.RankAny {
			d.Errorf(r.Where.At("rank", r.Pos), "qdp-format-rank", "format %s of op %s is tied to the rank of input %q, which has rank any; the Python plugin's autotune lists a fixed set of combinations without the inputs' ranks, so it cannot follow the rule; set targets.trt.qdp: false (the C++ plugin follows it)", strings.ToLower(r.Format), op.Name, op.Inputs[0].Name)
		}
	}
}
