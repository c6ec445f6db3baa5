package ir

import "testing"

func TestSuggestDType(t *testing.T) {
	for _, c := range []struct {
		in   string
		want DType
	}{
		{"float", Float32}, {"Float", Float32}, {"fp16", Float16}, {"half", Float16}, {"double", Float64},
		{"int", Int32}, {"long", Int64}, {"uint", Uint32}, {"bf16", BFloat16}, {"byte", Uint8},
		{"torch.int64", Int64}, {"np.float16", Float16}, {"flaot32", Float32}, {"int23", ""}, {"flot32", Float32},
		{"boolean", Bool}, {"float32", Float32},
		{"tensor", ""}, {"", ""}, {"a very long text that is no dtype at all", ""},
	} {
		if got := SuggestDType(c.in); got != c.want {
			t.Errorf("SuggestDType(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
