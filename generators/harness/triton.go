package harness

import _ "embed"

// TritonInterpret is Python source defining let_wrap_triton_interpret(),
// which lets torch.library.wrap_triton take kernels Triton's interpreter
// made, so a torch op written with triton_op runs its own Triton kernel on
// CPU tensors. The modules that run such ops on the CPU append it (the
// import torch inspector, the TensorRT Python plugins' interpreter runner).
//
//go:embed triton_interpret.py
var TritonInterpret []byte
