package yamldef

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// misplacedField explains an unknown field that is a field of the block
// just above it, written one indentation level too shallow:
//
//	outputs:
//	  - name: y
//	    type: float32
//	  shape: [N]        <- a field of the output, not of the op
//
// YAML reads such a line as valid (a key of the enclosing mapping), so the
// schema sees an unknown field; the fix is the column to indent it to.
// It returns "" when the previous key's value does not take the field.
func (t *tree) misplacedField(ptr, field string) string {
	m := resolve(t.nodeAt(ptr))
	if m == nil || m.Kind != yaml.MappingNode {
		return ""
	}
	for i := 2; i+1 < len(m.Content); i += 2 {
		if k := resolve(m.Content[i]); k == nil || k.Value != field {
			continue
		}
		prevKey, prev := resolve(m.Content[i-2]), resolve(m.Content[i-1])
		if prevKey == nil || prev == nil {
			return ""
		}
		return t.belongsIn(ptr+"/"+escapePointer(prevKey.Value), prevKey.Value, prev, field)
	}
	return ""
}

// belongsIn says where field goes: the first block down the chain of last
// values from key's (at ptr) that is a block mapping taking the field and
// lacking it, the last item of a sequence standing for the sequence.
func (t *tree) belongsIn(ptr, key string, v *yaml.Node, field string) string {
	what := fmt.Sprintf("%q", key)
	for depth := 0; v != nil && depth < 8; depth++ {
		if v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
			last := len(v.Content) - 1
			ptr, v = fmt.Sprintf("%s/%d", ptr, last), resolve(v.Content[last])
			what = "the last item of " + what
			continue
		}
		if v.Kind != yaml.MappingNode || v.Style&yaml.FlowStyle != 0 || len(v.Content) < 2 {
			return ""
		}
		lastKey := resolve(v.Content[len(v.Content)-2])
		if lastKey == nil {
			return ""
		}
		if slices.Contains(knownFields(ptr), field) && !hasKey(v, field) {
			return fmt.Sprintf("; it is a field of %s: indent it to column %d to line up with %q (line %d)", what, lastKey.Column, lastKey.Value, lastKey.Line)
		}
		ptr, v = ptr+"/"+escapePointer(lastKey.Value), resolve(v.Content[len(v.Content)-1])
		what = fmt.Sprintf("%q", lastKey.Value)
	}
	return ""
}

// hasKey reports whether mapping m has the key.
func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := resolve(m.Content[i]); k != nil && k.Value == key {
			return true
		}
	}
	return false
}
