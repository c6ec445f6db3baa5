package harness

import _ "embed"

// TritonInterpret is Python source defining let_wrap_triton_interpret(),
// which lets torch.library.wrap_triton take kernels Triton's interpreter
// made, so a torch op written with triton_op runs its own Triton kernel on
// CPU tensors. The modules that run such ops on the CPU append it (the
// import torch inspector, a target's runner of Triton kernels in the
// interpreter).
//
//go:embed triton_interpret.py
var TritonInterpret []byte
