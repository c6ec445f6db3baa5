package ir_test

import (
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

type fooOptions struct{ Mode string }

// TestOptionsOf: no section is no options; a section no check decoded is
// decoded once and kept; options a check kept are returned as they are.
func TestOptionsOf(t *testing.T) {
	decodes := 0
	decode := func(sec *ir.Section) *fooOptions {
		decodes++
		return &fooOptions{Mode: sec.Node.Get("mode").Text()}
	}
	var ss ir.Sections
	if o := ir.OptionsOf(ss, "foo", decode); o != nil {
		t.Errorf("no section: %+v", o)
	}
	ss = ir.Sections{{Target: "bar"}, {Target: "foo", Node: ir.Map(true).Set("mode", ir.Str("fast"))}}
	first := ir.OptionsOf(ss, "foo", decode)
	again := ir.OptionsOf(ss, "foo", decode)
	if first == nil || first.Mode != "fast" || again != first || decodes != 1 {
		t.Errorf("decoded %+v then %+v, %d decodes", first, again, decodes)
	}
	kept := &fooOptions{Mode: "checked"}
	ss[1].Options = kept
	if o := ir.OptionsOf(ss, "foo", decode); o != kept || decodes != 1 {
		t.Errorf("kept options: %+v, %d decodes", o, decodes)
	}
}
