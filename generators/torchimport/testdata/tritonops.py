"""Ops implemented with Triton kernels through torch.library.triton_op, for import torch's
bring-along of Triton kernels (TestTritonKernelBroughtAlong)."""
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton_op("opf_triton::tadd", mutates_args=())
def tadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()

    def grid(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    wrap_triton(add_kernel)[grid](x, y, out, n_elements, BLOCK_SIZE=16)
    return out


@triton.jit
def _scale(v, alpha):
    return v * alpha


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, _scale(x, alpha) + y, mask=mask)


@triton_op("opf_triton::axpy", mutates_args=())
def axpy(x: torch.Tensor, y: torch.Tensor, alpha: float = 2.0) -> torch.Tensor:
    result = torch.empty_like(x)
    n = x.numel()
    wrap_triton(axpy_kernel)[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, result, alpha, n, BLOCK=64)
    return result
