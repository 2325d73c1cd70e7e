"""Deprecated: the walked scan's module before 0.4, :mod:`axon.hdl.walkedscan`.

Its names stay here, for one minor version, under their old spelling.
"""

import warnings

from .walkedscan import WalkedScanner, walked_pipeline


__all__ = ["SerialScanner", "serial_pipeline"]

warnings.warn("axon.hdl.serialscan is now axon.hdl.walkedscan (SerialScanner is "
              "WalkedScanner)", DeprecationWarning, stacklevel=2)

SerialScanner = WalkedScanner
serial_pipeline = walked_pipeline
