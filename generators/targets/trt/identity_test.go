package trt

import (
	"testing"

	"github.com/opforge/opforge/generators/ir"
)

func TestPluginID(t *testing.T) {
	pkg := &ir.Package{Version: "2", Namespace: ""}
	for _, c := range []struct {
		op   *ir.Op
		want string
	}{
		{&ir.Op{Name: "RoiAlign"}, "RoiAlign"},                                         // no trt section
		{&ir.Op{Name: "RoiAlign", Sections: ir.Sections{{Target: "trt"}}}, "RoiAlign"}, // default
		{&ir.Op{Name: "RoiAlign", Sections: ir.Sections{{Target: "trt", Node: ir.Map(true).Set("plugin_name", ir.Str("ROIAlign_TRT"))}}}, "ROIAlign_TRT"}, // a port keeps NVIDIA's name
	} {
		if got := PluginID(pkg, c.op); got != (PluginIdentity{Name: c.want, Version: "2", Namespace: ""}) {
			t.Errorf("%+v: %+v, want name %s", OpOptions(c.op), got, c.want)
		}
	}
}
