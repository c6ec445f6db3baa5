"""Test stand-in for the Compass SDK's AIPUBuilder package (see ../README.md)."""
