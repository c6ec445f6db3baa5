package load_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/opforge/opforge/generators/ir"
	_ "github.com/opforge/opforge/generators/registry" // the targets' code tables
)

// TestDTypeCodeSpellingsAgreeWithSchema: the spellings the schema offers
// for dtype_code are exactly the code tables the validator knows (the
// core's and those the targets register), so an editor never offers one
// the validator refuses, nor misses one it takes.
func TestDTypeCodeSpellingsAgreeWithSchema(t *testing.T) {
	data, err := os.ReadFile("../../schemas/opdef.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(schema.Defs["param"].Properties["dtype_code"].Enum))
	if want := ir.DTypeCodeNames(); !slices.Equal(got, want) {
		t.Errorf("schema's dtype_code spellings %v; the validator knows %v", got, want)
	}
}
