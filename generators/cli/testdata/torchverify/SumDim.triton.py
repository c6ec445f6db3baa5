@triton.jit
def sum_dim_kernel(x_ptr, n_out, C, INNER, out_ptr, DIM: tl.constexpr, KEEPDIM: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # out is x summed along DIM: outer blocks of C * INNER elements; each out element is one
    # (outer, inner) pair whether KEEPDIM kept the summed dim as 1 or removed it.
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_out
    inner = offsets % INNER
    outer = offsets // INNER
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for c in range(0, C):
        acc += tl.load(x_ptr + (outer * C + c) * INNER + inner, mask=mask, other=0).to(tl.float32)
    tl.store(out_ptr + offsets, acc.to(out_ptr.dtype.element_ty), mask=mask)
