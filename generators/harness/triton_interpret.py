

# ---------------------------------------------------------------------------------------------
# Triton ops in Triton's interpreter (opforge harness.TritonInterpret, appended to the modules that
# run torch ops on CPU tensors). Written by opforge.
# ---------------------------------------------------------------------------------------------


def let_wrap_triton_interpret():
    """Lets torch.library.wrap_triton take a kernel Triton's interpreter made (TRITON_INTERPRET=1),
    so an op written with torch.library.triton_op runs its own kernel on CPU tensors. wrap_triton
    (torch 2.9) refuses anything but a JITFunction; this hands it one over the kernel's function that
    launches the interpreted kernel, so eager calls run in the interpreter and fake-tensor tracing
    (which launches nothing) sees the JITFunction it expects. Call it before the op's module is
    imported: the module binds wrap_triton when it runs."""
    try:
        import torch
        import torch._library.triton as library_triton
        from triton.runtime.jit import JITFunction
    except ImportError:
        return
    original = getattr(library_triton, "wrap_triton", None)
    if original is None or getattr(original, "opforge_interpreted", False):
        return

    class Interpreted(JITFunction):
        def __init__(self, interpreted):
            super().__init__(interpreted.fn)
            self.interpreted = interpreted

        def __getitem__(self, grid):
            return self.interpreted[grid]

        def run(self, *args, grid, warmup=False, **kwargs):
            return self.interpreted[grid](*args, **kwargs)

    def wrap_triton(kernel):
        if type(kernel).__name__ == "InterpretedFunction":
            kernel = Interpreted(kernel)
        return original(kernel)

    wrap_triton.opforge_interpreted = True
    library_triton.wrap_triton = wrap_triton
    torch.library.wrap_triton = wrap_triton
