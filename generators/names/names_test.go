package names

import "testing"

func TestReserved(t *testing.T) {
	for _, w := range []string{"class", "lambda", "restrict", "uint", "float16", "half8", "image2d_array_t", "pipe", "__x", "_X", "a__b", "threadIdx"} {
		if Reserved(w) == "" {
			t.Errorf("%q is not reserved", w)
		}
	}
	// Python's soft keywords are identifiers.
	for _, w := range []string{"x", "features", "match", "type", "T", "N", "mode"} {
		if why := Reserved(w); why != "" {
			t.Errorf("%q is reserved: %s", w, why)
		}
	}
}

func TestIdent(t *testing.T) {
	cases := map[string]string{
		"x": "x", "in[0]": "in_0", "restrict": "restrict_", "class": "class_", "float4": "float4_",
		"0abc": "t0abc", "a  b": "a_b", "__init__": "init", "": "t",
	}
	for in, want := range cases {
		if got := Ident(in); got != want {
			t.Errorf("Ident(%q) = %q, want %q", in, got, want)
		}
		if got := Ident(in); !IsIdent(got) || Reserved(got) != "" {
			t.Errorf("Ident(%q) = %q is not a safe identifier", in, got)
		}
	}
}

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{
		"RMSNormLite": "rmsNormLite", "ROIAlign": "roiAlign", "IO": "io", "TopK": "topK", "TopKLast": "topKLast",
		"Relu": "relu", "relu": "relu", "RMS2Norm": "rms2Norm", "X": "x", "": "", "GELUTanh": "geluTanh", "A": "a",
	} {
		if got := LowerCamel(in); got != want {
			t.Errorf("LowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}
