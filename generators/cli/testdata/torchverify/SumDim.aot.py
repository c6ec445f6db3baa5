    # Compiles sum_dim_kernel to PTX for this plugin's attributes (the kernel's
    # tl.constexpr arguments). extra_args are the element counts of the outputs (data-dependent
    # sizes at their upper bounds); the grid covers the largest. The dims are symbolic here
    # (<input>.shape_expr[i], outputs[i].shape_expr[j]): to hand the kernel a dim, append
    # trtp.SymInt32(<input>.shape_expr[i]) to _extra_args, an "i32" entry to the signature after the
    # counts, and a parameter at the same place in the kernel. Locals start with _ so no attribute
    # name is shadowed.
    _numels = [outputs[0].shape_expr.numel()]
    _block_size = 256
    _compiled = triton.compile(
        triton.compiler.ASTSource(
            fn=sum_dim_kernel,
            signature={"x_ptr": _pointer(x), "n_out": "i32", "C": "i32", "INNER": "i32", "out_ptr": _pointer(outputs[0])},
            constexprs={
                "DIM": int(dim),
                "KEEPDIM": bool(keepdim),
                "BLOCK_SIZE": _block_size,
            },
        )
    )
    _largest = _numels[0]
    for _n in _numels[1:]:
        _largest = trtp.max(_largest, _n)
    _launch = trtp.KernelLaunchParams()
    _launch.grid_x = trtp.cdiv(_largest, _block_size)
    _launch.block_x = _compiled.metadata.num_warps * 32
    _launch.shared_mem = _compiled.metadata.shared
    # The kernel's dims after the count: x's at the axis, the product of those after it.
    _rank = len(x.shape_expr)
    _axis = int(dim) % _rank
    _inner = trtp.SymInt32(1)
    for _d in range(_axis + 1, _rank):
        _inner = _inner * x.shape_expr[_d]
    _dims = [x.shape_expr[_axis], _inner]
    _extra_args = trtp.SymIntExprs.from_tuple([trtp.SymInt32(_n) for _n in _numels + _dims])
    return _compiled.metadata.name, _compiled.asm["ptx"], _launch, _extra_args
