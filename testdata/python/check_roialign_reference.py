"""Checks the reference of the ROIAlign_TRT port (out/reference/NvidiaPorts)
against ONNX's own RoiAlign (onnx.reference), which NVIDIA's README says
ROIAlign_TRT follows: every coordinate_transformation_mode, mode, sampling
ratio and two spatial scales, rois partly outside the image. Prints one
line and exits 1 on a mismatch."""

import importlib.util
import sys

import numpy as np
import torch
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

spec = importlib.util.spec_from_file_location("nvidia_ports_reference", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)

rng = np.random.default_rng(1)
worst, runs = 0.0, 0
for ctm in (0, 1):
    for mode in (0, 1):
        for sr in (0, 2, 3):
            for scale in (1.0, 0.5):
                X = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
                pts = rng.uniform(-2, 12, (5, 4)).astype(np.float32)
                rois = np.stack([np.minimum(pts[:, 0], pts[:, 2]), np.minimum(pts[:, 1], pts[:, 3]),
                                 np.maximum(pts[:, 0], pts[:, 2]), np.maximum(pts[:, 1], pts[:, 3])], 1)
                bi = rng.integers(0, 2, 5).astype(np.int64)
                node = helper.make_node("RoiAlign", ["X", "rois", "bi"], ["Y"], mode="avg" if mode else "max",
                                        output_height=3, output_width=4, sampling_ratio=sr, spatial_scale=scale,
                                        coordinate_transformation_mode="half_pixel" if ctm else "output_half_pixel")
                g = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, None),
                                                    helper.make_tensor_value_info("rois", TensorProto.FLOAT, None),
                                                    helper.make_tensor_value_info("bi", TensorProto.INT64, None)],
                                      [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
                want = ReferenceEvaluator(helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])).run(
                    None, {"X": X, "rois": rois, "bi": bi})[0]
                got = mod.roi_align_trt(torch.from_numpy(X), torch.from_numpy(rois), torch.from_numpy(bi.astype(np.int32)),
                                        coordinate_transformation_mode=ctm, mode=mode, output_height=3, output_width=4,
                                        sampling_ratio=sr, spatial_scale=scale)
                if got.dtype != torch.float32 or tuple(got.shape) != (5, 3, 3, 4):
                    print("ctm=%d mode=%d sr=%d: got %s %s" % (ctm, mode, sr, got.dtype, tuple(got.shape)))
                    sys.exit(1)
                d = float(np.abs(got.numpy() - want).max())
                worst, runs = max(worst, d), runs + 1
                if d > 1e-4:
                    print("ctm=%d mode=%d sr=%d scale=%g: max abs diff %g from onnx.reference RoiAlign" % (ctm, mode, sr, scale, d))
                    sys.exit(1)
print("%d cases match onnx.reference RoiAlign, max abs diff %g" % (runs, worst))
