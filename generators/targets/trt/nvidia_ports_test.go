package trt

import (
	"slices"
	"strings"
	"testing"
)

// TestNVIDIAPortsMatchNVIDIA holds the shipped ports of NVIDIA TensorRT OSS
// plugins (opdefs/nvidia_ports, mirrored in testdata/gen/examples) to what
// NVIDIA documents for them, through the driver's cases: TestPluginDriver
// runs the same lines against the built plugin library (creator found by
// name, version and namespace, getFieldNames, creation from ONNX-style
// fields with the defaults, output shapes, dtype combinations and refusals),
// so a port that drifts from NVIDIA fails here and the library's behaviour
// is checked there.
//
// ROIAlign_TRT, from plugin/roiAlignPlugin/README.md and the plugin table of
// plugin/README.md in NVIDIA/TensorRT: version "2" (IPluginV3) in the empty
// namespace; inputs X [batch, C, H, W], rois [num_rois, 4], batch_indices
// [num_rois]; output Y [num_rois, C, output_height, output_width]; fields
// coordinate_transformation_mode (default 1), mode (1), output_height (1),
// output_width (1), sampling_ratio (0), all kINT32 of length 1, and
// spatial_scale (1.0) kFLOAT32; X float32 or float16, rois and Y of X's
// dtype, batch_indices int32, every tensor LINEAR.
//
// ModulatedDeformConv2d, from plugin/modulatedDeformConvPlugin/README.md and
// the plugin table: version "2" (IPluginV3) in the empty namespace; inputs x
// [batch, C, H, W], offset [batch, 2 * deformable_group * KH * KW, Hout,
// Wout], mask [batch, deformable_group * KH * KW, Hout, Wout], weight [Cout,
// C / group, KH, KW] and the optional bias [Cout]: the node has 4 or 5
// inputs; output [batch, Cout, Hout, Wout] (NVIDIA's getOutputShapes takes
// Hout and Wout from offset); fields stride (default [1, 1]), padding ([0,
// 0]), dilation ([1, 1]), kINT32 of length 2, group (1) and deformable_group
// (1), kINT32 of length 1; every tensor float32 or float16 as x, LINEAR.
//
// ResizeNearest_TRT, from plugin/resizeNearestPlugin/README.md, its
// creator's field list and the plugin table: version "1" in the empty
// namespace; one field scale, kFLOAT32 of length 1, with no default and
// above 0; input [N, C, H, W], output [N, C, int(H * scale), int(W *
// scale)]; float32 only (kFLOAT), LINEAR.
//
// TopkLastDim, from plugin/topkLastDimPlugin/README.md, its
// TopkLastDim_PluginConfig.yaml and the plugin table: version "1"
// (IPluginV3) in the empty namespace; fields type_id, k, is_largest (each
// required) and axis (default -1), all kINT32 of length 1; type_id is an
// nvinfer1::DataType code, only 0 (kFLOAT), 1 (kHALF), 3 (kINT32) or 7
// (kBF16), and fixes the dtype of input and values; indices are kINT32;
// input of any rank, values and indices its shape with dim axis replaced
// by k; every tensor LINEAR.
//
// ScatterND, from plugin/scatterPlugin (its creator and plugin) and the
// plugin table: version "1" in the empty namespace; no fields; inputs data,
// indices, updates of any rank, output data's shape and dtype; data and
// updates kFLOAT or kINT32, indices kINT32, LINEAR; workspace
// Dims::MAX_DIMS int32 coefficients plus one int32 per index tuple (the
// product of every dim of indices but the last); ONNX's shapes (updates
// shaped indices.shape[:-1] + data.shape[indices.shape[-1]:]), refused
// with the op's name when broken.
//
// GridAnchor_TRT, from plugin/gridAnchorPlugin/README.md, its creator's
// field list and the plugin table: version "1" in the empty namespace; no
// inputs; fields minSize (0.2) and maxSize (0.95) kFLOAT32 of length 1,
// aspectRatios kFLOAT32 and featureMapShapes kINT32 of any length (NVIDIA
// declares length 1 and reads them whole; the port declares 0, any),
// variance kFLOAT32 of length 4, numLayers (6) kINT32 of length 1, and
// without aspectRatios (or featureMapShapes, or variance) no plugin; numLayers
// outputs, float32 (kFLOAT) and LINEAR, output l [2, H * H * P * 4, 1]
// with H = featureMapShapes[l], P = 3 for layer 0 and len(aspectRatios) + 1
// for the others. The driver's cases build it with every count from 1 to
// the port's max; featureMapShapes [3, 3, ...] and aspectRatios of
// max(count, 3) values.
func TestNVIDIAPortsMatchNVIDIA(t *testing.T) {
	gridAnchorFields := []string{
		"declared minSize 1 1",
		"declared maxSize 1 1",
		"declared aspectRatios 1 0",
		"declared featureMapShapes 5 0",
		"declared variance 1 4",
		"declared numLayers 5 1",
		"fields onnx ok",
		// 0.2f and 0.95f, NVIDIA's defaults.
		"field minSize 1 1 cdcc4c3e",
		"field maxSize 1 1 3333733f",
	}
	// The driver leaves out the first required field (aspectRatios).
	required := []string{`fields missing-aspectRatios fail 6669656c642022617370656374526174696f7322206973207265717569726564`}
	want := map[string][]string{
		"ROIAlign_TRT": {
			"plugin ROIAlign_TRT 2 - v3",
			"io 3 1 0",
			// PluginFieldType: kFLOAT32 1, kINT32 5; length 1.
			"declared coordinate_transformation_mode 5 1",
			"declared mode 5 1",
			"declared output_height 5 1",
			"declared output_width 5 1",
			"declared sampling_ratio 5 1",
			"declared spatial_scale 1 1",
			// Created from ONNX-style fields holding NVIDIA's defaults.
			"fields onnx ok",
			"field coordinate_transformation_mode 5 1 01000000",
			"field mode 5 1 01000000",
			"field output_height 5 1 01000000",
			"field output_width 5 1 01000000",
			"field sampling_ratio 5 1 00000000",
			"field spatial_scale 1 1 0000803f",
			// All three inputs always (no optional input).
			"inputs 3 3",
			// X [N=5, C=6, H=7, W=8], rois [R=9, 4], batch_indices [9]:
			// Y [9, 6, 1, 1] at the default output size.
			"input 4 5 6 7 8",
			"input 2 9 4",
			"input 1 9",
			"output 0 4 9 6 1 1",
			// DataType: kFLOAT 0, kHALF 1, kINT32 3; (X, rois, batch_indices, Y).
			"combo 4 0 0 3 0",
			"combo 4 1 1 3 1",
		},
		"ModulatedDeformConv2d": {
			"plugin ModulatedDeformConv2d 2 - v3",
			"io 5 1 0",
			"declared stride 5 2",
			"declared padding 5 2",
			"declared dilation 5 2",
			"declared group 5 1",
			"declared deformable_group 5 1",
			"fields onnx ok",
			"field stride 5 2 0100000001000000",
			"field padding 5 2 0000000000000000",
			"field dilation 5 2 0100000001000000",
			"field group 5 1 01000000",
			"field deformable_group 5 1 01000000",
			// With and without bias.
			"inputs 4 5",
			// x [N=5, C=6, H=7, W=8], offset [5, 9, Hout=10, Wout=11],
			// mask [5, 12, 10, 11], weight [Cout=13, 14, 15, 16], bias
			// [13]: y [5, 13, 10, 11].
			"input 4 5 6 7 8",
			"input 4 5 9 10 11",
			"input 4 5 12 10 11",
			"input 4 13 14 15 16",
			"input 1 13",
			"output 0 4 5 13 10 11",
			// (x, offset, mask, weight, bias, y), all float32 or all float16.
			"combo 6 0 0 0 0 0 0",
			"combo 6 1 1 1 1 1 1",
		},
		"ResizeNearest_TRT": {
			"plugin ResizeNearest_TRT 1 - v3",
			"io 1 1 0",
			"declared scale 1 1",
			"fields onnx ok",
			// The driver's sample value, 3.0 (NVIDIA has no default).
			"field scale 1 1 00004040",
			// NVIDIA's creator requires the field.
			"fields missing-scale fail 6669656c6420227363616c6522206973207265717569726564",
			"inputs 1 1",
			// x [N=5, C=6, H=7, W=8] at scale 3: y [5, 6, 21, 24].
			"input 4 5 6 7 8",
			"output 0 4 5 6 21 24",
			// (x, y) kFLOAT only: kHALF refused.
			"combo 2 0 0",
			"reject 0 1",
		},
		"TopkLastDim": {
			"plugin TopkLastDim 1 - v3",
			"io 1 2 0",
			// Four kINT32 fields of length 1.
			"declared type_id 5 1",
			"declared k 5 1",
			"declared is_largest 5 1",
			"declared axis 5 1",
			// The driver's values: type_id kFLOAT (0), k 3, is_largest 1,
			// and axis at NVIDIA's default -1.
			"fields onnx ok",
			"field type_id 5 1 00000000",
			"field k 5 1 03000000",
			"field is_largest 5 1 01000000",
			"field axis 5 1 ffffffff",
			// NVIDIA's creator requires type_id (and k, is_largest), and
			// type_id is only 0, 1, 3 or 7: 2 (kINT8) is refused.
			"fields missing-type_id fail 6669656c642022747970655f696422206973207265717569726564",
			"fields code-type_id fail 6973206e6f7420616e20616c6c6f77656420647479706520636f6465",
			"field type_id 5 1 02000000",
			"inputs 1 1",
			// input of any rank; values and indices its shape with the dim
			// at axis (-1: the last) replaced by k = 3.
			"input 1 2",
			"output 0 1 3",
			"output 1 1 3",
			// (input, values, indices): input and values of type_id's
			// DataType, indices kINT32; any other input dtype refused.
			"combo 3 0 0 3",
			"reject 0 1",
			"field type_id 5 1 01000000",
			"combo 3 1 1 3",
			"reject 0 0",
			"field type_id 5 1 03000000",
			"combo 3 3 3 3",
			"field type_id 5 1 07000000",
			"combo 3 7 7 3",
			"input 3 2 3 2",
			"output 0 3 2 3 3",
			"output 1 3 2 3 3",
		},
		"ScatterND": {
			"plugin ScatterND 1 - v3",
			"io 3 1 0",
			"inputs 3 3",
			// data [8], indices [4, 1], updates [4] (the opdef's first
			// case; drawn shapes break the relations): y [8].
			"input 1 8",
			"input 2 4 1",
			"input 1 4",
			"output 0 1 8",
			// 8 * 4 bytes of coefficients, 4 tuples of 4 bytes.
			"workspace 48",
			// (data, indices, updates, y): kFLOAT or kINT32, indices kINT32.
			"combo 4 0 3 0 0",
			"combo 4 3 3 3 3",
			"reject 1 0",
			// updates [5] for 4 tuples of rows of 1: refused.
			"violate ScatterND 2 1 5",
			// Rank 3, drawn: data, indices, updates [2, 3, 2] (k = 2).
			"input 3 2 3 2",
			"output 0 3 2 3 2",
			"workspace 56",
		},
	}
	// One layer: layer 0's 3 priors on a 3 x 3 map, [2, 3 * 3 * 3 * 4, 1].
	want["GridAnchor_TRT io 0 1 0"] = slices.Concat([]string{"plugin GridAnchor_TRT 1 - v3", "io 0 1 0"}, gridAnchorFields,
		[]string{"field numLayers 5 1 01000000"}, required, []string{"inputs 0 0", "output 0 3 2 108 1", "combo 1 0", "reject 0 1"})
	// NVIDIA's 6 layers, 6 aspect ratios: the later layers have 7 priors.
	want["GridAnchor_TRT io 0 6 0"] = slices.Concat([]string{"plugin GridAnchor_TRT 1 - v3", "io 0 6 0"}, gridAnchorFields,
		[]string{"field numLayers 5 1 06000000"}, required, []string{"inputs 0 0",
			"output 0 3 2 108 1", "output 1 3 2 252 1", "output 2 3 2 252 1", "output 3 3 2 252 1", "output 4 3 2 252 1", "output 5 3 2 252 1",
			"combo 6 0 0 0 0 0 0", "reject 0 1", "reject 5 1"})
	// Every other count: the same plugin and fields.
	want["GridAnchor_TRT"] = slices.Concat([]string{"plugin GridAnchor_TRT 1 - v3"}, gridAnchorFields, required, []string{"inputs 0 0"})
	// NVIDIA's creators that declare no field.
	noFields := map[string]bool{"ScatterND": true}
	// A port's lines: every block of its name (a rank-polymorphic op has
	// one per rank, in rank order).
	ports := map[string][]string{}
	var order []string
	for _, p := range packages(t) {
		if p.pkg.Name != "NvidiaPorts" {
			continue
		}
		for _, block := range strings.Split(driverCases(p.pkg), "\nplugin ")[1:] {
			lines := strings.Split("plugin "+block, "\n")
			name := strings.Fields(lines[0])[1]
			// A port with a counted output has a block per count: its
			// facts are keyed by name and io line where they differ.
			if _, ok := want[name+" "+lines[1]]; ok {
				name += " " + lines[1]
			}
			if _, ok := ports[name]; !ok {
				order = append(order, name)
			}
			ports[name] = append(ports[name], lines...)
		}
	}
	seen := map[string]bool{}
	for _, name := range order {
		lines := ports[name]
		seen[name] = true
		if noFields[name] && slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "declared ") }) {
			t.Errorf("port %s declares fields; NVIDIA's creator has none", name)
		}
		exp, ok := want[name]
		if !ok {
			t.Errorf("port %s has no NVIDIA facts in this test", name)
			continue
		}
		// The expected lines, in order, among the port's lines.
		i := 0
		for _, l := range lines {
			if i < len(exp) && l == exp[i] {
				i++
			}
		}
		if i < len(exp) {
			t.Errorf("port %s: no %q (in order) among its driver cases:\n%s", name, exp[i], strings.Join(lines, "\n"))
		}
	}
	for name := range want {
		if _, ok := ports[name]; !ok {
			t.Errorf("no port %s in the NvidiaPorts package of the examples tree", name)
		}
	}
}
