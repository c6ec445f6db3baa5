package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/escape"
)

// hostileXML is a QNN op package config whose tensor and param names and
// description carry text: QNN configs put no pattern on names.
func hostileXML(pkg, text string) []byte {
	x := escape.XMLText
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<OpDefCollection PackageName="%[1]s" Domain="x" Version="1.0.0">
  <OpDefList>
    <OpDef>
      <Name>XOp</Name>
      <Description><Content>%[2]s</Content></Description>
      <Input>
        <Name>in%[2]s</Name>
        <Mandatory>true</Mandatory>
        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>
        <Shape><Rank>2D</Rank></Shape>
      </Input>
      <Output>
        <Name>out%[2]s</Name>
        <Mandatory>true</Mandatory>
        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>
        <Shape><Rank>2D</Rank></Shape>
      </Output>
      <Parameter>
        <Name>p%[2]s</Name>
        <Mandatory>false</Mandatory>
        <Datatype>QNN_DATATYPE_UINT_32</Datatype>
        <Shape><Rank>SCALAR</Rank></Shape>
        <Default>1</Default>
      </Parameter>
      <SupportedBackend>HTP</SupportedBackend>
    </OpDef>
  </OpDefList>
</OpDefCollection>
`, pkg, x(text)))
}

// TestHostileXMLNames: names from a QNN config reach the HTP package's C++
// (param orders, op configs) and the ExecuTorch module. Each must be
// refused or leave the sources lexing as with plain names (the HTP C++
// cannot be compiled without the Hexagon SDK's libnative headers) and the
// Python parsing.
func TestHostileXMLNames(t *testing.T) {
	base, l := generateFile(t, "opdefs/x/x.xml", hostileXML("XPkg", "plain"))
	if base == nil || l.HasErrors() {
		t.Fatalf("the plain config does not generate:\n%s", diagText(l))
	}
	want := sourceShapes(base)
	dir := t.TempDir()
	var cases []hostileCase
	for _, text := range hostileTexts {
		if strings.TrimSpace(text) == "" {
			continue
		}
		set, l := generateFile(t, "opdefs/x/x.xml", hostileXML("XPkg", text))
		if set == nil || l.HasErrors() {
			if !positioned(l) {
				t.Errorf("text %q: refused without a positioned diagnostic:\n%s", text, diagText(l))
			}
			continue
		}
		checkParses(t, set)
		got := sourceShapes(set)
		for p, w := range want {
			g := got[p]
			if strings.Join(g, ",") != strings.Join(w, ",") {
				t.Errorf("%s: with names holding %q the source lexes differently (%d lines, %d plain)", p, text, len(g), len(w))
			}
		}
		pkg := fmt.Sprintf("X%d", len(cases))
		set, _ = generateFile(t, "opdefs/x/x.xml", hostileXML(pkg, text))
		writeSet(t, set, dir)
		cases = append(cases, hostileCase{pkg: pkg, text: text})
	}
	checkWithTools(t, dir, cases, "tensorrt", "opencl", "cmake")
}
