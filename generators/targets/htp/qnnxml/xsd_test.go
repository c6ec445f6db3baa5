package qnnxml_test

// Checks of schemas/qnn-opdef.xsd (the XML Schema editors use for QNN
// op-package configs) with Python's lxml: real configs and the writer's
// output validate, known mistakes do not, and the schema agrees with the
// loader's content models on a systematically mutated config.
//
// The Python interpreter comes from OPFORGE_PYTHON (`go tool mage test`
// sets it to a virtualenv with lxml); without it, or without lxml, the
// tests skip.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/sharedfixtures"

	"github.com/beevik/etree"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
)

const (
	xsdPath        = "../../../../schemas/qnn-opdef.xsd"
	xsdFixturesDir = "../../../../../shared/fixtures/qnn"
	// xsdFixturesMoreDir: further real configs (textual defaults, UseQHPI).
	xsdFixturesMoreDir = "../../../../../shared/fixtures/qnn-more"
	xsdOpdefsDir       = "../../../../testdata/gen/examples/opdefs"
	xsdVisionYAML      = "../../../../testdata/gen/examples/opdefs/vision/vision_ops.yaml"
	// xsdWriterEdge is YAML the writer cannot copy verbatim into QNN XML.
	xsdWriterEdge = "../../../../testdata/xsd/writer_edge_cases.yaml"
)

// xsdScript validates documents against the schema in argv[1]. It reads a
// JSON object {name: xml text} on stdin and writes {name: [errors]}; an
// empty list means valid.
const xsdScript = `
import json, sys
from lxml import etree
schema = etree.XMLSchema(etree.parse(sys.argv[1]))
parser = etree.XMLParser(resolve_entities=False, no_network=True)
out = {}
for name, text in json.load(sys.stdin).items():
    try:
        schema.validate(etree.fromstring(text.encode("utf-8"), parser))
        out[name] = ["%d:%d: %s" % (e.line, e.column, e.message) for e in schema.error_log]
    except etree.XMLSyntaxError as e:
        out[name] = ["not well-formed: %s" % e]
json.dump(out, sys.stdout)
`

// xsdValidator returns a function validating named documents against the
// schema, or skips the test when no Python with lxml is available.
func xsdValidator(t *testing.T) func(docs map[string][]byte) map[string][]string {
	t.Helper()
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: XSD checks need a Python with lxml (`go tool mage test` sets it up)")
	}
	if out, err := exec.Command(python, "-c", "import lxml.etree").CombinedOutput(); err != nil {
		t.Skipf("OPFORGE_PYTHON=%s cannot import lxml, skipping XSD checks: %v\n%s", python, err, out)
	}
	return func(docs map[string][]byte) map[string][]string {
		t.Helper()
		in := make(map[string]string, len(docs))
		for name, data := range docs {
			in[name] = string(data)
		}
		payload, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(python, "-c", xsdScript, xsdPath)
		cmd.Stdin = bytes.NewReader(payload)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("validating with lxml against %s: %v\n%s", xsdPath, err, stderr.String())
		}
		var res map[string][]string
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("reading the validator's answer: %v\n%s", err, out)
		}
		if len(res) != len(docs) {
			t.Fatalf("validator answered for %d of %d documents", len(res), len(docs))
		}
		return res
	}
}

// xmlFiles lists the *.xml files below root, recursively.
func xmlFiles(t *testing.T, root string) []string {
	t.Helper()
	if root == xsdFixturesDir || root == xsdFixturesMoreDir {
		sharedfixtures.Need(t, root)
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".xml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no XML configs under %s: %v", root, err)
	}
	sort.Strings(files)
	return files
}

func readAll(t *testing.T, files []string) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = data
	}
	return docs
}

func expectValid(t *testing.T, res map[string][]string) {
	t.Helper()
	names := make([]string, 0, len(res))
	for name := range res {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if errs := res[name]; len(errs) > 0 {
			t.Errorf("%s does not match %s:\n  %s", name, xsdPath, strings.Join(errs, "\n  "))
		} else {
			t.Logf("%s: valid", name)
		}
	}
}

// TestXSDAcceptsRealConfigs: every public QNN config among the fixtures and
// every XML op definition shipped under opdefs/ validates.
func TestXSDAcceptsRealConfigs(t *testing.T) {
	validate := xsdValidator(t)
	files := append(xmlFiles(t, xsdFixturesDir), xmlFiles(t, xsdFixturesMoreDir)...)
	files = append(files, xmlFiles(t, xsdOpdefsDir)...)
	expectValid(t, validate(readAll(t, files)))
}

// TestXSDAcceptsWriterOutput: the XML qnnxml.Write produces for each fixture,
// for the shipped YAML package and for YAML edge cases validates, and loads
// back.
func TestXSDAcceptsWriterOutput(t *testing.T) {
	validate := xsdValidator(t)
	docs := map[string][]byte{}
	for _, f := range append(append(xmlFiles(t, xsdFixturesDir), xmlFiles(t, xsdFixturesMoreDir)...), xsdVisionYAML, xsdWriterEdge) {
		var l diag.List
		pkg := load.File(f, &l)
		registry.Check(&l, pkg)
		if pkg == nil || l.HasErrors() {
			var buf bytes.Buffer
			_ = l.WriteText(&buf)
			t.Fatalf("%s does not load:\n%s", f, buf.String())
		}
		var wl diag.List
		out, err := qnnxml.Write(pkg, &wl)
		if err != nil || wl.HasErrors() {
			var buf bytes.Buffer
			_ = wl.WriteText(&buf)
			t.Fatalf("writing %s as QNN XML: %v\n%s", f, err, buf.String())
		}
		if f == xsdWriterEdge {
			var buf bytes.Buffer
			_ = wl.WriteText(&buf)
			for _, want := range []string{"no NCHW layout"} {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("writing %s: no warning says %q:\n%s", f, want, buf.String())
				}
			}
		}
		var rl diag.List
		if qnnxml.Load("written.xml", out, &rl) == nil || rl.HasErrors() {
			var buf bytes.Buffer
			_ = rl.WriteText(&buf)
			t.Errorf("the XML written for %s does not load back:\n%s", f, buf.String())
		}
		docs["Write("+f+")"] = out
	}
	expectValid(t, validate(docs))
}

// xsdBase is a config that uses every element and attribute of the
// format once, in schema order (Encoding four times, the maximum).
const xsdBase = `<?xml version="1.0" encoding="UTF-8"?>
<OpDefCollection PackageName="XsdPkg" Domain="test" Version="1.0">
  <OpDefList Version="1">
    <OpDef>
      <Name>Everything</Name>
      <Description><Content>Uses every element.</Content><Code>y = f(x)</Code></Description>
      <Reference Source="paper" Url="https://example.com/p">A paper</Reference>
      <Input>
        <Name>x</Name>
        <Description><Content>input</Content></Description>
        <Constraint id="0" Type="Shape">rank 4 <Code>x.rank == 4</Code></Constraint>
        <Mandatory>true</Mandatory>
        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>
        <Datatype>BACKEND_SPECIFIC</Datatype>
        <Shape><Rank>4D</Rank><Layout>NHWC</Layout><Text>N,H,W,C</Text></Shape>
        <Default>0</Default>
        <Repeated>false</Repeated>
        <DynamicShape><Text>any batch</Text></DynamicShape>
        <IsStaticTensor>false</IsStaticTensor>
      </Input>
      <Output>
        <Name>y</Name>
        <Description><Content>output</Content></Description>
        <Constraint id="1" Type="Dynamic_Shape">same as x</Constraint>
        <Mandatory>true</Mandatory>
        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>
        <Shape><Rank>ND</Rank><Layout>UNDEFINED</Layout><Text>like x</Text></Shape>
        <Repeated>false</Repeated>
        <DynamicShape><Text>like x</Text></DynamicShape>
      </Output>
      <Parameter>
        <Name>mode</Name>
        <Description><Content>mode</Content></Description>
        <Constraint id="2" Type="Value">0 or 1</Constraint>
        <Mandatory>false</Mandatory>
        <Datatype>QNN_DATATYPE_UINT_32</Datatype>
        <Shape><Rank>SCALAR</Rank></Shape>
        <Default>0</Default>
        <Enumeration><Enum>fast</Enum><Enum>exact</Enum></Enumeration>
      </Parameter>
      <UseDefaultTranslation>false</UseDefaultTranslation>
      <SupportedBackend>HTP</SupportedBackend>
      <SupportedBackend>CPU</SupportedBackend>
    </OpDef>
  </OpDefList>
  <SupplementalOpDefList Backend="HTP" Runtime="rt">
    <SupportedOps><OpName>Everything</OpName></SupportedOps>
    <SupplementalOpDef>
      <Name>Everything</Name>
      <Input>
        <Name>x</Name>
        <Constraint id="0" Type="Datatype">fp32</Constraint>
        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>
        <QuantParam>
          <Encoding>SCALE_OFFSET</Encoding>
          <Encoding>AXIS_SCALE_OFFSET</Encoding>
          <Encoding>BW_SCALE_OFFSET</Encoding>
          <Encoding>BW_AXIS_SCALE_OFFSET</Encoding>
          <Axis>3</Axis>
          <Symmetric>true</Symmetric>
          <Scale>0.5</Scale>
          <Offset>-128</Offset>
          <Min>-128</Min>
          <Max>127</Max>
          <IsMathInvariant>false</IsMathInvariant>
        </QuantParam>
        <Shape><Layout>NHWC</Layout><Text>N,H,W,C</Text></Shape>
        <OnlyDefaultSupported>false</OnlyDefaultSupported>
      </Input>
      <Output><Name>y</Name><Datatype>QNN_DATATYPE_FLOAT_32</Datatype></Output>
      <Parameter><Name>mode</Name><OnlyDefaultSupported>true</OnlyDefaultSupported></Parameter>
    </SupplementalOpDef>
  </SupplementalOpDefList>
</OpDefCollection>
`

// xsdMinimal is the smallest useful config; the named cases below edit it.
const xsdMinimal = `<?xml version="1.0" encoding="UTF-8"?>
<OpDefCollection PackageName="Pkg" Domain="test" Version="1.0">
  <OpDefList>
    <OpDef>
      <Name>Op</Name>
      <Description><Content>An op.</Content></Description>
      <Input>
        <Name>x</Name>
        <Mandatory>true</Mandatory>
        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>
        <Shape><Rank>4D</Rank></Shape>
      </Input>
      <Output>
        <Name>y</Name>
        <Mandatory>true</Mandatory>
        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>
        <Shape><Rank>4D</Rank></Shape>
      </Output>
      <SupportedBackend>HTP</SupportedBackend>
    </OpDef>
  </OpDefList>
</OpDefCollection>
`

// TestXSDRejectsMistakes: common mistakes are rejected by the schema (and
// by the loader), while the unedited config is accepted by both.
func TestXSDRejectsMistakes(t *testing.T) {
	validate := xsdValidator(t)
	edit := func(old, new string) []byte {
		if !strings.Contains(xsdMinimal, old) {
			t.Fatalf("case edits %q, which the minimal config does not contain", old)
		}
		return []byte(strings.Replace(xsdMinimal, old, new, 1))
	}
	mandatoryDatatype := "<Mandatory>true</Mandatory>\n        <Datatype>QNN_DATATYPE_FLOAT_32</Datatype>"
	bad := map[string][]byte{
		"Datatype before Mandatory": edit(mandatoryDatatype, "<Datatype>QNN_DATATYPE_FLOAT_32</Datatype>\n        <Mandatory>true</Mandatory>"),
		"Rank 4 (not 4D)":           edit("<Rank>4D</Rank>", "<Rank>4</Rank>"),
		"Layout NCHW":               edit("<Rank>4D</Rank>", "<Rank>4D</Rank><Layout>NCHW</Layout>"),
		"native datatype FLOAT_32":  edit("QNN_DATATYPE_FLOAT_32", "FLOAT_32"),
		"IsArray instead of Repeated": edit("<Shape><Rank>4D</Rank></Shape>\n      </Input>",
			"<Shape><Rank>4D</Rank></Shape>\n        <IsArray>true</IsArray>\n      </Input>"),
		"Mandatory yes":              edit("<Mandatory>true</Mandatory>", "<Mandatory>yes</Mandatory>"),
		"no SupportedBackend":        edit("<SupportedBackend>HTP</SupportedBackend>", ""),
		"SupportedBackend too early": edit("<Description><Content>An op.</Content></Description>", "<Description><Content>An op.</Content></Description><SupportedBackend>CPU</SupportedBackend>"),
		"no Description on OpDef":    edit("<Description><Content>An op.</Content></Description>", ""),
		"no PackageName":             edit(`PackageName="Pkg" `, ""),
		"Constraint without id":      edit("<Mandatory>true</Mandatory>", `<Constraint Type="Value">v</Constraint><Mandatory>true</Mandatory>`),
		"unknown root OpDef":         []byte("<OpDef><Name>Op</Name></OpDef>"),
	}
	docs := map[string][]byte{"unedited": []byte(xsdMinimal)}
	for name, data := range bad {
		docs[name] = data
	}
	res := validate(docs)
	if errs := res["unedited"]; len(errs) > 0 {
		t.Fatalf("the minimal config does not validate:\n  %s", strings.Join(errs, "\n  "))
	}
	for name, data := range bad {
		if len(res[name]) == 0 {
			t.Errorf("%s: the XSD accepts it", name)
		} else {
			t.Logf("%s: rejected: %s", name, res[name][0])
		}
		var l diag.List
		if qnnxml.Load("case.xml", data, &l) != nil && !l.HasErrors() {
			t.Errorf("%s: the loader accepts it", name)
		}
	}
}

// TestXSDRefusesBareRoots: OpDefCollection is the only root, in the XSD
// as in the loader (qnn-bare-root): a bare list names no package.
func TestXSDRefusesBareRoots(t *testing.T) {
	validate := xsdValidator(t)
	opDef := `<OpDef><Name>Op</Name><Description><Content>c</Content></Description>` +
		`<Input><Name>x</Name><Mandatory>true</Mandatory><Datatype>QNN_DATATYPE_INT_8</Datatype><Shape><Rank>1D</Rank></Shape></Input></OpDef>`
	suppl := `<SupplementalOpDefList Backend="HTP"><SupplementalOpDef><Name>Op</Name></SupplementalOpDef></SupplementalOpDefList>`
	docs := map[string][]byte{
		"OpDefList":                      []byte(`<OpDefList Version="1">` + opDef + `</OpDefList>`),
		"SupplementalOpDefList":          []byte(suppl),
		"SupplementalOpDefSpecification": []byte(`<SupplementalOpDefSpecification>` + suppl + `</SupplementalOpDefSpecification>`),
	}
	for name, errs := range validate(docs) {
		if len(errs) == 0 {
			t.Errorf("the XSD accepts a bare %s root", name)
		}
		var l diag.List
		if qnnxml.Load(name+".xml", docs[name], &l); !l.HasErrors() {
			t.Errorf("the loader accepts a bare %s root", name)
		}
	}
}

// TestXSDAgreesWithLoader mutates every element and attribute of xsdBase
// (delete, duplicate, move before its previous sibling, add an unknown
// child, add or replace text, drop or spoil an attribute, add an unknown
// attribute), sets each enumerated element or attribute to every value the
// XSD enumerates and to near misses (FLOAT_32, NCHW, 4, ...), and checks
// that the XSD and the loader's content models (qnnxml.Load) give the same
// verdict on each mutant.
func TestXSDAgreesWithLoader(t *testing.T) {
	validate := xsdValidator(t)
	var base etree.Document
	if err := base.ReadFromString(xsdBase); err != nil {
		t.Fatal(err)
	}
	baseElems := elements(base.Root())
	count := len(baseElems)
	docs := map[string][]byte{"base": []byte(xsdBase)}
	mutate := func(i int, what string, f func(e *etree.Element) bool) {
		doc := base.Copy()
		es := elements(doc.Root())
		e := es[i]
		name := path(e, es[0]) + " " + what
		if !f(e) {
			return
		}
		out, err := doc.WriteToBytes()
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = out
	}
	for i := 0; i < count; i++ {
		isRoot := i == 0
		mutate(i, "deleted", func(e *etree.Element) bool {
			return !isRoot && e.Parent().RemoveChild(e) != nil
		})
		mutate(i, "duplicated", func(e *etree.Element) bool {
			if isRoot {
				return false
			}
			e.Parent().InsertChildAt(e.Index()+1, e.Copy())
			return true
		})
		mutate(i, "moved before its previous sibling", func(e *etree.Element) bool {
			prev := previousSibling(e)
			if prev == nil || prev.Tag == e.Tag {
				return false
			}
			at := prev.Index()
			p := e.Parent()
			p.RemoveChild(e)
			p.InsertChildAt(at, e)
			return true
		})
		mutate(i, "with an unknown child", func(e *etree.Element) bool {
			e.CreateElement("Bogus")
			return true
		})
		mutate(i, "with text junk", func(e *etree.Element) bool {
			if len(e.ChildElements()) == 0 {
				e.SetText("junk")
			} else {
				e.CreateText("junk")
			}
			return true
		})
		mutate(i, "with an unknown attribute", func(e *etree.Element) bool {
			e.CreateAttr("Bogus", "1")
			return true
		})
		for _, a := range baseElems[i].Attr {
			key := a.Key
			mutate(i, "without @"+key, func(e *etree.Element) bool { return e.RemoveAttr(key) != nil })
			mutate(i, "with @"+key+"=junk", func(e *etree.Element) bool { e.CreateAttr(key, "junk"); return true })
		}
	}

	// Enumerated values: every value the XSD enumerates, plus near misses,
	// in the first element (or attribute) of its kind.
	var schema etree.Document
	if err := schema.ReadFromFile(xsdPath); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tag, attr, xsdType string
		near               []string
	}{
		{"Datatype", "", "DatatypeType", []string{"FLOAT_32", "INT_8", "STRING", "QNN_DATATYPE_FLOAT_64", "qnn_datatype_float_32", " QNN_DATATYPE_INT_8 ", ""}},
		{"Rank", "", "RankType", []string{"4", "0", "6D", "nd", "Scalar", " 2D "}},
		{"Layout", "", "LayoutType", []string{"NCHW", "NCDHW", "NHCW", "nhwc"}},
		{"Encoding", "", "EncodingType", []string{"PER_TENSOR", "scale_offset"}},
		{"Constraint", "Type", "ConstraintTypeType", []string{"Dynamic Shape", "number", " Number", ""}},
		{"Mandatory", "", "", []string{"true", "false", "1", "0", " true ", "TRUE", "yes", ""}},
	} {
		values := c.near
		if c.xsdType != "" {
			enum := xsdEnumeration(schema.Root(), c.xsdType)
			if len(enum) == 0 {
				t.Fatalf("%s has no simple type %s with enumerations", xsdPath, c.xsdType)
			}
			values = append(enum, values...)
		}
		i := slices.IndexFunc(baseElems, func(e *etree.Element) bool { return e.Tag == c.tag })
		for _, v := range values {
			what := fmt.Sprintf("= %q", v)
			if c.attr != "" {
				what = fmt.Sprintf("@%s=%q", c.attr, v)
			}
			mutate(i, what, func(e *etree.Element) bool {
				if c.attr != "" {
					e.CreateAttr(c.attr, v)
				} else {
					e.SetText(v)
				}
				return true
			})
		}
	}

	res := validate(docs)
	if errs := res["base"]; len(errs) > 0 {
		t.Fatalf("the base config does not validate:\n  %s", strings.Join(errs, "\n  "))
	}
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	sort.Strings(names)
	rejected := 0
	for _, name := range names {
		var l diag.List
		pkg := qnnxml.Load("mutant.xml", docs[name], &l)
		loaderOK := pkg != nil && !l.HasErrors()
		xsdOK := len(res[name]) == 0
		if !xsdOK {
			rejected++
		}
		if loaderOK != xsdOK {
			var buf bytes.Buffer
			_ = l.WriteText(&buf)
			t.Errorf("%s: XSD valid=%v, loader valid=%v\n  XSD: %s\n  loader: %s",
				name, xsdOK, loaderOK, strings.Join(res[name], "; "), strings.TrimSpace(buf.String()))
		}
	}
	t.Logf("%d mutants of a %d-element config, %d rejected by both", len(docs)-1, count, rejected)
	if rejected == 0 {
		t.Fatal("no mutant was rejected; the check is not checking anything")
	}
}

// xsdEnumeration lists the enumeration values of the named simple type.
func xsdEnumeration(schema *etree.Element, typeName string) []string {
	var values []string
	for _, st := range elements(schema) {
		if st.Tag != "simpleType" || st.SelectAttrValue("name", "") != typeName {
			continue
		}
		for _, e := range elements(st) {
			if e.Tag == "enumeration" {
				values = append(values, e.SelectAttrValue("value", ""))
			}
		}
	}
	return values
}

// elements lists e and its descendant elements in document order.
func elements(e *etree.Element) []*etree.Element {
	out := []*etree.Element{e}
	for _, c := range e.ChildElements() {
		out = append(out, elements(c)...)
	}
	return out
}

func previousSibling(e *etree.Element) *etree.Element {
	p := e.Parent()
	if p == nil {
		return nil
	}
	var prev *etree.Element
	for _, c := range p.ChildElements() {
		if c == e {
			return prev
		}
		prev = c
	}
	return nil
}

// path names e by its ancestors' tags and positions, e.g.
// OpDefList[1]/OpDef[1]/Input[1]/Shape[1].
func path(e, root *etree.Element) string {
	if e == root {
		return "."
	}
	var parts []string
	for ; e != root; e = e.Parent() {
		n := 0
		for _, c := range e.Parent().ChildElements() {
			if c.Tag == e.Tag {
				n++
			}
			if c == e {
				break
			}
		}
		parts = append([]string{fmt.Sprintf("%s[%d]", e.Tag, n)}, parts...)
	}
	return strings.Join(parts, "/")
}
