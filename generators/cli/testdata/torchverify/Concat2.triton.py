@triton.jit
def concat2_kernel(a_ptr, b_ptr, n_out, CA, CB, INNER, out_ptr, DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # out is a and b joined along DIM: outer blocks of (CA + CB) * INNER elements.
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_out
    inner = offsets % INNER
    c = (offsets // INNER) % (CA + CB)
    outer = offsets // INNER // (CA + CB)
    from_a = c < CA
    va = tl.load(a_ptr + (outer * CA + c) * INNER + inner, mask=mask & from_a)
    vb = tl.load(b_ptr + (outer * CB + c - CA) * INNER + inner, mask=mask & (c >= CA))
    tl.store(out_ptr + offsets, tl.where(from_a, va, vb), mask=mask)
