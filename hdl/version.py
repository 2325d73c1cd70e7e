"""The interface's version: the one in ``pyproject.toml``, as installed.

The gateware's ports, the host link's protocol, the Python API and the
command line change together with it, and ``CHANGELOG.md`` says how. The
exported Verilog header and a board's IDENTIFY answer carry it, so that a
testbench or a host can tell which interface it is talking to.
"""

from importlib import metadata


__all__ = ["VERSION", "INTERFACE_VERSION"]

#: The distribution's version string, such as ``"0.2.0"``.
VERSION = metadata.version("axon-repetition")

#: ``(major, minor, patch)``: the same version as numbers, as IDENTIFY sends it.
INTERFACE_VERSION = tuple(int(part) for part in VERSION.split(".")[:3])
