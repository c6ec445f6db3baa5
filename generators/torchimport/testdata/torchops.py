"""Test ops for opforge import torch, registered with torch.library: one of
each shape of difficulty the importer must derive (elementwise at any rank,
a reduction along an axis param, a concat along an axis param, a
data-dependent output size, and defaults, a fixed-length list, an optional
tensor and a str mode)."""

import torch


@torch.library.custom_op("opf_test::scaled_silu", mutates_args=())
def scaled_silu(x: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    return x * torch.sigmoid(x) * scale


@scaled_silu.register_fake
def _(x, scale=1.0):
    torch._check(x.dtype in (torch.float32, torch.float16, torch.bfloat16), lambda: "scaled_silu takes floats")
    return torch.empty_like(x)


@torch.library.custom_op("opf_test::sum_dim", mutates_args=())
def sum_dim(x: torch.Tensor, dim: int, keepdim: bool = False) -> torch.Tensor:
    return x.sum(dim, keepdim=keepdim)


@sum_dim.register_fake
def _(x, dim, keepdim=False):
    torch._check(x.dtype.is_floating_point, lambda: "sum_dim takes floats")
    return x.sum(dim, keepdim=keepdim)


@torch.library.custom_op("opf_test::concat2", mutates_args=())
def concat2(a: torch.Tensor, b: torch.Tensor, dim: int = 0) -> torch.Tensor:
    return torch.cat([a, b], dim)


@concat2.register_fake
def _(a, b, dim=0):
    return torch.cat([a, b], dim)


@torch.library.custom_op("opf_test::positive_indices", mutates_args=())
def positive_indices(x: torch.Tensor) -> torch.Tensor:
    return torch.nonzero(x > 0).flatten()


@positive_indices.register_fake
def _(x):
    torch._check(x.dim() == 1, lambda: "positive_indices takes a 1-D tensor")
    torch._check(x.dtype in (torch.float32, torch.int32), lambda: "positive_indices takes float32 or int32")
    k = torch.library.get_ctx().new_dynamic_size()
    return x.new_empty((k,), dtype=torch.int64)


# A schema written out, for what custom_op's inferred schemas do not say: a
# fixed-length int list (int[2]) with a default.
torch.library.define(
    "opf_test::pool_mix",
    "(Tensor x, Tensor? bias=None, int[2] kernel=[2, 2], float eps=1e-05, str mode=\"avg\") -> Tensor")


@torch.library.impl("opf_test::pool_mix", "CompositeExplicitAutograd")
def pool_mix(x, bias=None, kernel=(2, 2), eps=1e-5, mode="avg"):
    kernel = list(kernel)
    if mode == "avg":
        y = torch.nn.functional.avg_pool2d(x, kernel)
    elif mode == "max":
        y = torch.nn.functional.max_pool2d(x, kernel)
    else:
        raise ValueError("mode is avg or max, not %r" % mode)
    if bias is not None:
        y = y + bias.view(1, -1, 1, 1)
    return y + eps


@torch.library.register_fake("opf_test::pool_mix")
def _(x, bias=None, kernel=(2, 2), eps=1e-5, mode="avg"):
    torch._check(x.dim() == 4, lambda: "pool_mix takes NCHW")
    torch._check(x.dtype in (torch.float32, torch.float16), lambda: "pool_mix takes float32 or float16")
    if bias is not None:
        torch._check(bias.dim() == 1 and bias.shape[0] == x.shape[1], lambda: "bias is [C]")
    n, c, h, w = x.shape
    return x.new_empty((n, c, h // kernel[0], w // kernel[1]))
