@triton.jit
def positive_indices_kernel(x_ptr, n_out, n_size_K, out_ptr, size_K_ptr, BLOCK_SIZE: tl.constexpr):
    # One program walks x in order (the indices keep it); n_out is X0, out's bound.
    if tl.program_id(0) == 0:
        k = 0
        for i in range(0, n_out):
            if tl.load(x_ptr + i) > 0:
                tl.store(out_ptr + k, i)
                k += 1
        tl.store(size_K_ptr, k)
