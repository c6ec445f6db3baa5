package qnnxml

import (
	"os"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/targets/htp/htpopt"
)

// TestVendorQuirks: what qnn-op-package-generator accepts gets the SDK's
// meaning: 0/1 bool defaults, optional bool/enum params without a default,
// textual defaults kept as text with no value, UseQHPI; the writer carries
// the text and the attribute back.
func TestVendorQuirks(t *testing.T) {
	data, err := os.ReadFile("../../../../testdata/gen/htp-params/opdefs/qnn/quirks.xml")
	if err != nil {
		t.Fatal(err)
	}
	var l diag.List
	pkg := Load("quirks.xml", data, &l)
	if pkg == nil || l.HasErrors() {
		t.Fatalf("does not load: %v", l.Sorted())
	}
	if !htpopt.OfPackage(pkg).UseQHPI {
		t.Error("UseQHPI not read")
	}
	op := pkg.Ops[0]
	cases := []struct {
		param, kind, text, defaultText string
	}{
		{"relu", "bool", "false", ""},
		{"saturate", "bool", "true", ""},
		{"mode", "string", "FAST", ""},
		{"axis", "", "", "N-1"},
		{"pads", "", "", "{0,..,0}"},
	}
	for _, c := range cases {
		p := op.Param(c.param)
		if p == nil {
			t.Fatalf("no param %s", c.param)
		}
		if p.DefaultText != c.defaultText {
			t.Errorf("%s: DefaultText %q, want %q", c.param, p.DefaultText, c.defaultText)
		}
		switch {
		case c.text == "" && p.Default != nil:
			t.Errorf("%s: textual default has a value %+v", c.param, p.Default)
		case c.text != "" && (p.Default == nil || p.Default.Text != c.text || (c.kind == "bool") != (p.Default.Kind == ir.LitBool)):
			t.Errorf("%s: default %+v, want %s %q", c.param, p.Default, c.kind, c.text)
		}
	}
	out, err := Write(pkg, &l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`UseQHPI="true"`, "<Default>N-1</Default>", "<Default>{0,..,0}</Default>"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("written XML lacks %s", want)
		}
	}
}
