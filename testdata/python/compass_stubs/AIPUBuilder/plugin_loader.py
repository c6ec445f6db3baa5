"""Test stand-in for AIPUBuilder.plugin_loader: records registrations."""

import enum

REGISTERED = []


class PluginType(enum.Enum):
    Builder = 0x314
    Checker = 0x315
    Parser = 0x200


def register_plugin(type=PluginType.Builder, version=0):
    def wrapper(cls):
        REGISTERED.append((type, version, cls))
        return cls
    return wrapper
