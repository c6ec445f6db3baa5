"""Test stand-in for AIPUBuilder.core: the names GBuilder plugins import."""

import enum

OPTYPES = {}


def register_optype(name):
    """Returns the same object for the same name, like an enum member."""
    return OPTYPES.setdefault(name, "OpType." + name)


class BuilderOpPlugin(object):
    """Base of GBuilder plugins; the real one is closed."""


class BuilderParams(list):
    """The RO list: generate_params appends the kernel's arguments in order."""


class DataLayout(enum.Enum):
    NHWC = "NHWC"
    NDHWC = "NDHWC"
    Flat = "Flat"


class Tensor(object):
    def __init__(self, base=None):
        self.base = base
