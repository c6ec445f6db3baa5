"""Triton launches import torch reads but cannot bring along as they are (TestTritonLaunchesRead)."""
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, stride, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets * stride, mask=offsets < n), mask=offsets < n)


@triton_op("opf_odd::strided", mutates_args=())
def strided(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    wrap_triton(copy_kernel)[(triton.cdiv(x.numel(), 32),)](x, out, out.numel(), x.stride(0), BLOCK=32)
    return out


@triton_op("opf_odd::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    mid = torch.empty_like(x)
    out = torch.empty_like(x)
    wrap_triton(copy_kernel)[(triton.cdiv(x.numel(), 32),)](x, mid, x.numel(), 1, BLOCK=32)
    wrap_triton(copy_kernel)[(triton.cdiv(x.numel(), 32),)](mid, out, x.numel(), 1, BLOCK=32)
    return out


@triton_op("opf_odd::fixed_grid", mutates_args=())
def fixed_grid(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    wrap_triton(copy_kernel)[(4, 1)](x, out, x.numel(), 1, BLOCK=32)
    return out
