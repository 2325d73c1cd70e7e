"""Deprecated: the walked list's clock model before 0.4, :mod:`axon.sim.model.walked`.

Its names stay here, for one minor version, under their old spelling.
"""

import warnings

from .walked import walked_chains, walked_clocks


__all__ = ["serial_clocks", "walked_chains"]

warnings.warn("axon.sim.model.serial is now axon.sim.model.walked (serial_clocks is "
              "walked_clocks)", DeprecationWarning, stacklevel=2)

serial_clocks = walked_clocks
