package yamldef

import (
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
)

// syntaxBase is a valid opdef that the cases of TestSyntaxFixes break one
// line of, as a person typing it would.
const syntaxBase = `version: 1
package:
  name: DemoOps
  domain: example
  version: 1.0.0
ops:
  - name: RMSNormLite
    description: x / sqrt(mean(x^2) + eps) * scale over the last axis.
    types:
      T: [float32, float16]
    inputs:
      - name: x
        type: T
        shape: [N, C]
      - name: gamma
        type: T
        shape: [C]
    params:
      - {name: eps, type: float32, default: 0.00001}
    outputs:
      - {name: y, type: T, shape: {like: x}}
`

// TestSyntaxFixes: each realistic YAML mistake gets one error at the line
// to change, naming the fix (the column and the key to line up with, the
// missing colon, space or bracket) before the parser's own words.
func TestSyntaxFixes(t *testing.T) {
	for _, c := range []struct {
		name string
		line int    // the 1-based line of syntaxBase replaced
		text string // by this
		want string
	}{
		{"item-one-less", 15, "     - name: gamma",
			`ops.yaml:15:6: error: invalid YAML: indent this list item to column 7 to line up with the "-" on line 12; the YAML parser said: did not find expected key [yaml-syntax]`},
		{"item-one-more", 15, "       - name: gamma",
			`ops.yaml:15:8: error: invalid YAML: indent this list item to column 7 to line up with the "-" on line 12; the YAML parser said: did not find expected '-' indicator [yaml-syntax]`},
		{"key-one-less", 13, "       type: T",
			`ops.yaml:13:8: error: invalid YAML: indent "type" to column 9 to line up with "name" (line 12); the YAML parser said: did not find expected '-' indicator [yaml-syntax]`},
		{"key-one-more", 14, "         shape: [N, C]",
			`ops.yaml:14:10: error: invalid YAML: indent "shape" to column 9 to line up with "type" (line 13); the YAML parser said: mapping values are not allowed in this context [yaml-syntax]`},
		{"key-at-dash", 13, "      type: T",
			`ops.yaml:13:7: error: invalid YAML: indent "type" to column 9 to line up with "name" (line 12); the YAML parser said: did not find expected '-' indicator [yaml-syntax]`},
		{"key-two-less", 16, "      type: T",
			`ops.yaml:16:7: error: invalid YAML: indent "type" to column 9 to line up with "name" (line 15); the YAML parser said: did not find expected '-' indicator [yaml-syntax]`},
		{"op-key-deeper", 9, "     types:",
			`ops.yaml:9:6: error: invalid YAML: indent "types" to column 5 to line up with "description" (line 8); the YAML parser said: mapping values are not allowed in this context [yaml-syntax]`},
		{"op-key-shallower", 11, "   inputs:",
			`ops.yaml:11:4: error: invalid YAML: indent "inputs" to column 5 to line up with "types" (line 9); the YAML parser said: did not find expected '-' indicator [yaml-syntax]`},
		{"tab-key", 11, "\tinputs:",
			`ops.yaml:11:1: error: invalid YAML: YAML indents with spaces, never tabs: replace the tab with spaces, indenting "inputs" to column 5 to line up with "types" (line 9); the YAML parser said: found character that cannot start any token [yaml-syntax]`},
		{"tab-item", 12, "\t\t- name: x",
			`ops.yaml:12:1: error: invalid YAML: YAML indents with spaces, never tabs: replace the tab with spaces, indenting this list item to column 7, deeper than "inputs" (line 11); the YAML parser said: found character that cannot start any token [yaml-syntax]`},
		{"tab-after-spaces", 13, "      \ttype: T",
			`ops.yaml:13:7: error: invalid YAML: YAML indents with spaces, never tabs: replace the tab with spaces, indenting "type" to column 9 to line up with "name" (line 12); the YAML parser said: found a tab character that violates indentation [yaml-syntax]`},
		{"no-space-after-colon", 3, "  name:DemoOps",
			`ops.yaml:3:7: error: invalid YAML: add a space after the colon: "name: DemoOps" (without it YAML reads "name:DemoOps" as one word); the YAML parser said: mapping values are not allowed in this context [yaml-syntax]`},
		{"no-space-after-colon-last", 5, "  version:1.0.0",
			`ops.yaml:5:10: error: invalid YAML: add a space after the colon: "version: 1.0.0" (without it YAML reads "version:1.0.0" as one word); the YAML parser said: could not find expected ':' [yaml-syntax]`},
		{"no-colon", 4, "  domain example",
			`ops.yaml:4:9: error: invalid YAML: add a colon after the key: "domain: example"; the YAML parser said: could not find expected ':' [yaml-syntax]`},
		{"bare-key", 18, "    params",
			`ops.yaml:18:11: error: invalid YAML: "params" is no key: add a colon and its value, "params: ..."; the YAML parser said: could not find expected ':' [yaml-syntax]`},
		{"no-space-after-dash", 15, "      -name: gamma",
			`ops.yaml:15:7: error: invalid YAML: add a space after the "-" that starts a list item: "- name: gamma"; the YAML parser said: did not find expected '-' indicator [yaml-syntax]`},
		{"unclosed-bracket", 14, "        shape: [N, C",
			`ops.yaml:14:16: error: invalid YAML: this "[" is never closed: close it with "]"; the YAML parser said: did not find expected ',' or ']' [yaml-syntax]`},
		{"unclosed-brace", 19, "      - {name: eps, type: float32, default: 0.00001",
			`ops.yaml:19:9: error: invalid YAML: this "{" is never closed: close it with "}"; the YAML parser said: did not find expected ',' or '}' [yaml-syntax]`},
		{"wrong-bracket", 14, "        shape: [N, C}",
			`ops.yaml:14:21: error: invalid YAML: this "}" meets the "[" at column 16: write "]"; the YAML parser said: did not find expected ',' or ']' [yaml-syntax]`},
		{"unclosed-quote", 8, `    description: "x / sqrt(mean(x^2) + eps`,
			`ops.yaml:8:18: error: invalid YAML: the quoted string opened here never ends: add the closing " where its value ends; the YAML parser said: found unexpected end of stream [yaml-syntax]`},
		{"unclosed-single-quote", 8, `    description: 'x / sqrt(mean(x^2) + eps`,
			`ops.yaml:8:18: error: invalid YAML: the quoted string opened here never ends: add the closing ' where its value ends (a ' inside it is written ''); the YAML parser said: found unexpected end of stream [yaml-syntax]`},
		{"unknown-anchor", 19, "      - {name: eps, type: float32, default: *eps}",
			`ops.yaml:19:45: error: invalid YAML: no anchor &eps is defined above this alias: write the value itself, or mark the value it repeats with &eps; the YAML parser said: unknown anchor 'eps' referenced [yaml-syntax]`},
		{"reserved-char", 8, "    description: @x",
			`ops.yaml:8:18: error: invalid YAML: YAML reserves "@" at the start of a value: quote the value ("@..."); the YAML parser said: found character that cannot start any token [yaml-syntax]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			lines := strings.Split(syntaxBase, "\n")
			lines[c.line-1] = c.text
			var l diag.List
			Load("ops.yaml", []byte(strings.Join(lines, "\n")), &l)
			var sb strings.Builder
			l.WriteText(&sb)
			got := strings.TrimSuffix(sb.String(), "\n")
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
