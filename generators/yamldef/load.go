package yamldef

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
)

// Load parses one YAML OpDef file. It returns nil when the file is not
// structurally valid; every problem found is in l.
func Load(file string, data []byte, l *diag.List) *ir.Package {
	return LoadWith(file, data, nil, l)
}

// LoadWith is Load parsing with ParseSliced when chunks is set.
func LoadWith(file string, data []byte, chunks Chunks, l *diag.List) *ir.Package {
	var doc *yaml.Node
	var cut *itemsCut
	var ok bool
	var f *slicedFile
	if chunks != nil {
		// Cut once: the models' load and the whole load share it.
		var keys []string
		f, keys = cutItems(data)
		if f != nil {
			if pkg := loadPrebuilt(file, data, f, keys, chunks); pkg != nil {
				return pkg
			}
		}
		doc, cut, ok = parseSliced(file, data, f, keys, chunks, l)
	} else {
		doc, ok = Parse(file, data, l)
	}
	if !ok {
		return nil
	}
	vet := newVetting(doc, cut, chunks)
	ok, clean := checkStructure(file, doc, vet, 0, l)
	if !ok {
		return nil
	}
	var lines []string
	if f != nil {
		lines = f.lines // the same split (sliceOps), made once
	} else {
		lines = strings.Split(string(data), "\n")
	}
	b := &builder{file: file, l: l, lines: lines}
	pkg := b.pkg(doc.Content[0])
	setDigests(doc.Content[0], pkg, vet.known())
	if clean {
		vet.record(pkg)
		if vet != nil && len(vet.items) == len(cut.keys) && len(b.quiet) == len(cut.keys) && len(pkg.Ops) == len(cut.keys) {
			nodes := make([]int, len(vet.items))
			for i, item := range vet.items {
				nodes[i] = countNodes(item)
			}
			// Every op was built here: builtHere is the zero origin.
			pkg.Validated = newValidatedOps(chunks, file, pkg, f, cut, make([]origin, len(cut.keys)), nodes, b.quiet)
		}
	}
	return pkg
}

// Parse decodes data into one yaml.Node document, turning parser errors and
// panics into positioned diagnostics.
func Parse(file string, data []byte, l *diag.List) (doc *yaml.Node, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			l.Errorf(diag.Pos{File: file}, "yaml-syntax", "YAML parser failed: %v", r)
			doc, ok = nil, false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			l.Errorf(diag.Pos{File: file, Line: 1, Col: 1}, "yaml-empty", "file is empty or holds only comments; an op definition starts with `version: 1`")
			return nil, false
		}
		l.Add(yamlError(file, data, err))
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		l.Errorf(diag.Pos{File: file, Line: extra.Line, Col: extra.Column}, "yaml-multi-document", "a file holds one op package; found a second YAML document")
		return nil, false
	} else if !errors.Is(err, io.EOF) {
		l.Add(yamlError(file, data, err))
		return nil, false
	}
	if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		p := diag.Pos{File: file, Line: 1, Col: 1}
		if len(n.Content) > 0 {
			p = diag.Pos{File: file, Line: n.Content[0].Line, Col: n.Content[0].Column}
		}
		l.Errorf(p, "yaml-not-mapping", "an op definition file must be a mapping with version, package and ops")
		return nil, false
	}
	return &n, true
}

var yamlLineRE = lazyRE(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlParserProblems are the yaml.v3 parser (not scanner) errors. yaml.v3
// reports their line 0-based (it adds 1 for scanner errors only).
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>": true, "did not find expected <document start>": true,
	"did not find expected node content": true, "did not find expected key": true,
	"did not find expected '-' indicator": true, "did not find expected ',' or ']'": true,
	"did not find expected ',' or '}'": true, "found undefined tag handle": true,
	"found duplicate %TAG directive": true, "found duplicate %YAML directive": true,
	"found incompatible YAML document": true,
}

func yamlError(file string, data []byte, err error) diag.Diagnostic {
	d := diag.Diagnostic{Pos: diag.Pos{File: file}, Severity: diag.Error, Code: "yaml-syntax", Message: err.Error()}
	if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil {
			d.Pos.Line = n
			if yamlParserProblems[m[2]] {
				d.Pos.Line++
			}
		}
		d.Message = m[2]
	}
	if d.Pos.Line == 0 {
		d.Pos.Line = 1
	}
	p := locate(data, d.Pos.Line, d.Message)
	d.Pos.Line, d.Pos.Col = p.line, p.col
	if p.fix != "" {
		// The fix first: the parser's words say where it gave up, not
		// what to change.
		d.Message = fmt.Sprintf("invalid YAML: %s; the YAML parser said: %s", p.fix, d.Message)
	} else {
		d.Message = fmt.Sprintf("invalid YAML: %s", d.Message)
	}
	return d
}
