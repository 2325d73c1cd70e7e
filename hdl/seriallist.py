"""Deprecated: the walked chain list's module before 0.4, :mod:`axon.hdl.walkedlist`.

Its names stay here, for one minor version, under their old spelling.
"""

import warnings

from .walkedlist import WalkedBusSignature, WalkedChainList, WalkedEntry


__all__ = ["SerialBusSignature", "SerialEntry", "SerialChainList"]

warnings.warn("axon.hdl.seriallist is now axon.hdl.walkedlist (SerialChainList is "
              "WalkedChainList)", DeprecationWarning, stacklevel=2)

SerialBusSignature = WalkedBusSignature
SerialEntry = WalkedEntry
SerialChainList = WalkedChainList
