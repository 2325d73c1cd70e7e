"""Deprecated: :mod:`axon.sim.engine.alphabeta`, the engine's module under
its old name, until 0.5."""

import warnings

from .alphabeta import *  # noqa: F401,F403
from .alphabeta import __all__  # noqa: F401

warnings.warn("axon.sim.engine.search is now axon.sim.engine.alphabeta; the old name stays "
              "until 0.5", DeprecationWarning, stacklevel=2)
