@triton.jit
def scaled_silu_kernel(x_ptr, n_out, out_ptr, SCALE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_out
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    tl.store(out_ptr + offsets, (x * tl.sigmoid(x) * SCALE).to(out_ptr.dtype.element_ty), mask=mask)
