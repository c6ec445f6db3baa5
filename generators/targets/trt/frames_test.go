package trt

import (
	"reflect"
	"testing"
)

// TestFrameCodec: a frame reads back as written, and a cut-short or
// padded record, or one of another encoding, is refused (the op is then
// modelled, never printed from a bad record).
func TestFrameCodec(t *testing.T) {
	frames := []*opFrame{
		{Name: "A", Creator: "APluginCreator"},
		{Name: "RoiAlign", Creator: "RoiAlignPluginCreator", Inputs: []string{"x", "rois"}, Outputs: []string{"y"}, Triton: true, Aliased: true, Wide: true, FP8: true, DTypeCodes: true, DimHelpers: true,
			QDP: &qdpFrame{ID: "vision::RoiAlign", AOT: true, Attrs: true, Relations: true, RunsReference: true, DTCodes: true}},
		{Name: "B", Creator: "BPluginCreator", Outputs: []string{"z"}, QDP: &qdpFrame{ID: "::B"}},
	}
	for _, f := range frames {
		text := f.encode()
		got, ok := decodeFrame(text)
		if !ok || !reflect.DeepEqual(got, f) {
			t.Errorf("%s: read back %+v, %v", f.Name, got, ok)
		}
		for n := 0; n < len(text); n++ {
			if _, ok := decodeFrame(text[:n]); ok {
				t.Errorf("%s: the record cut to %d of %d bytes was read", f.Name, n, len(text))
			}
		}
		if _, ok := decodeFrame(text + "\x00"); ok {
			t.Errorf("%s: a record with a byte more was read", f.Name)
		}
		if _, ok := decodeFrame("trtframe0" + text[len(frameMagic)-1:]); ok {
			t.Errorf("%s: a record of another encoding was read", f.Name)
		}
	}
}
