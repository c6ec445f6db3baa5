"""Checks the reference of the ModulatedDeformConv2d port
(out/reference/NvidiaPorts) against a naive computation written here
independently: numpy loops in float64 over every output element, input
channel and kernel point, with the layouts NVIDIA's plugin reads (offset
(dy, dx) pairs per deformable group and kernel point, mask per group and
point; stride, padding and dilation as (width, height)) and mmcv's bilinear
rule (0 at -1 or beyond an edge, corners outside x counting 0). Cases with
and without bias, groups, deformable groups, non-square strides, padding and
dilation, offsets that move points outside x. Prints one line and exits 1 on
a mismatch."""

import importlib.util
import math
import sys

import numpy as np
import torch

spec = importlib.util.spec_from_file_location("nvidia_ports_reference", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)


def bilinear(img, y, x):
    h, w = img.shape
    if y <= -1 or y >= h or x <= -1 or x >= w:
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    ly, lx = y - y0, x - x0
    total = 0.0
    for yy, xx, wt in ((y0, x0, (1 - ly) * (1 - lx)), (y0, x0 + 1, (1 - ly) * lx), (y0 + 1, x0, ly * (1 - lx)), (y0 + 1, x0 + 1, ly * lx)):
        if 0 <= yy < h and 0 <= xx < w:
            total += wt * img[yy, xx]
    return total


def naive(x, offset, mask, weight, bias, stride, padding, dilation, group, dg):
    n, c, h, w = x.shape
    co, cg, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    sw, sh = stride
    pw, ph = padding
    dw, dh = dilation
    y = np.zeros((n, co, ho, wo))
    cpg = c // dg
    for b in range(n):
        for o in range(co):
            g = o // (co // group)
            for oy in range(ho):
                for ox in range(wo):
                    acc = 0.0 if bias is None else float(bias[o])
                    for ci in range(cg):
                        ch = g * cg + ci
                        d = ch // cpg
                        for i in range(kh):
                            for j in range(kw):
                                k = i * kw + j
                                dy = offset[b, 2 * (d * kh * kw + k), oy, ox]
                                dx = offset[b, 2 * (d * kh * kw + k) + 1, oy, ox]
                                m = mask[b, d * kh * kw + k, oy, ox]
                                v = bilinear(x[b, ch], oy * sh - ph + i * dh + dy, ox * sw - pw + j * dw + dx)
                                acc += weight[o, ci, i, j] * v * m
                    y[b, o, oy, ox] = acc
    return y


rng = np.random.default_rng(7)
worst, runs = 0.0, 0
#        N  C  H  W  CO KH KW stride  padding dilation group dg
cases = [(1, 1, 4, 4, 1, 1, 1, (1, 1), (0, 0), (1, 1), 1, 1),
         (2, 4, 5, 6, 6, 3, 3, (1, 1), (1, 1), (1, 1), 2, 2),
         (1, 3, 7, 5, 2, 2, 3, (2, 1), (0, 1), (1, 2), 1, 1),
         (2, 6, 6, 7, 4, 3, 2, (1, 2), (2, 0), (2, 1), 2, 3),
         (1, 4, 3, 3, 4, 3, 3, (1, 1), (1, 1), (1, 1), 4, 1)]
for (n, c, h, w, co, kh, kw, stride, padding, dilation, group, dg) in cases:
    ho = (h + 2 * padding[1] - dilation[1] * (kh - 1) - 1) // stride[1] + 1
    wo = (w + 2 * padding[0] - dilation[0] * (kw - 1) - 1) // stride[0] + 1
    for with_bias in (False, True):
        x = rng.standard_normal((n, c, h, w)).astype(np.float32)
        offset = rng.uniform(-2.5, 2.5, (n, 2 * dg * kh * kw, ho, wo)).astype(np.float32)
        mask = rng.uniform(0, 1, (n, dg * kh * kw, ho, wo)).astype(np.float32)
        weight = rng.standard_normal((co, c // group, kh, kw)).astype(np.float32)
        bias = rng.standard_normal(co).astype(np.float32) if with_bias else None
        want = naive(x.astype(np.float64), offset.astype(np.float64), mask.astype(np.float64), weight.astype(np.float64),
                     None if bias is None else bias.astype(np.float64), stride, padding, dilation, group, dg)
        got = mod.modulated_deform_conv2d(torch.from_numpy(x), torch.from_numpy(offset), torch.from_numpy(mask),
                                          torch.from_numpy(weight), None if bias is None else torch.from_numpy(bias),
                                          stride=stride, padding=padding, dilation=dilation, group=group,
                                          deformable_group=dg)
        if got.dtype != torch.float32 or tuple(got.shape) != want.shape:
            print("case %s bias=%s: got %s %s, want float32 %s" % (cases.index((n, c, h, w, co, kh, kw, stride, padding, dilation, group, dg)), with_bias, got.dtype, list(got.shape), list(want.shape)))
            sys.exit(1)
        err = float(np.abs(got.numpy().astype(np.float64) - want).max())
        worst, runs = max(worst, err), runs + 1
        if not np.allclose(got.numpy(), want, rtol=1e-5, atol=1e-5):
            print("mismatch: N=%d C=%d H=%d W=%d CO=%d kernel %dx%d stride %s padding %s dilation %s group %d dg %d bias %s: max %.3g" % (n, c, h, w, co, kh, kw, stride, padding, dilation, group, dg, with_bias, err))
            sys.exit(1)
# float16 in, float16 out, computed in float32.
half = mod.modulated_deform_conv2d(torch.from_numpy(x).half(), torch.from_numpy(offset).half(), torch.from_numpy(mask).half(),
                                   torch.from_numpy(weight).half(), None if bias is None else torch.from_numpy(bias).half(),
                                   stride=stride, padding=padding, dilation=dilation, group=group, deformable_group=dg)
if half.dtype != torch.float16:
    print("float16 inputs give %s" % half.dtype)
    sys.exit(1)
print("%d cases match the naive computation (max abs %.2g), with and without bias" % (runs, worst))
