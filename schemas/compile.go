package schemas

import (
	"bytes"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles an embedded schema published at url, and then each of
// the given fragments of it ("#/$defs/op"), in one compiler.
func Compile(doc []byte, url string, fragments ...string) ([]*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	var out []*jsonschema.Schema
	for _, f := range append([]string{""}, fragments...) {
		s, err := c.Compile(url + f)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
