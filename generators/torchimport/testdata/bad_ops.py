"""An op no opdef can express: a Tensor[] argument."""

import torch

torch.library.define("opf_bad::stack_all", "(Tensor[] xs) -> Tensor")
