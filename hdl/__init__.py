"""Gateware of the Axon repetition detector.

The embedding API: :class:`AxonDetector` (the whole block), built from one
:class:`DetectorConfig` (its :class:`Rules`, :class:`Pools` and :class:`Scan`;
the named configurations :data:`SHIPPED`, :data:`CORE` (the default: the
shipped one without the upcoming block), :data:`LEAN` and the 1K boards'
:data:`WALKED`), with its three
named ports (:class:`QuerySignature`, :class:`MoveMemorySignature`,
:class:`UpcomingSignature`); the move word it
stores (:class:`MoveWord`, :func:`pack_word`, :func:`unpack_word`); the answer
it gives (the ``result`` port's :class:`ResultLayout` with its :class:`Stop`,
the ``upcoming`` port's :class:`UpcomingLayout`, both in the fixed widths of
the host link's :class:`QueryResult`, each read back from bits by its
layout's ``from_bits``); and its clock counts (:meth:`DetectorConfig.latency`, from
:data:`LATENCY_OVERHEAD`, or :data:`LEAN_LATENCY_OVERHEAD` with
``Scan.SINGLE``; the walked list's walk adds one a chain to its
:data:`WALKED_LATENCY_OVERHEAD`; :data:`UPCOMING_CLOCKS`). See ``docs/embedding.md``.
"""

from .detector import AxonDetector
from .params import (CORE, LATENCY_OVERHEAD, LEAN, LEAN_LATENCY_OVERHEAD, SHIPPED, WALKED,
                     WALKED_LATENCY_OVERHEAD, DetectorConfig, Pools, Rules, Scan, Stop)
# The walked list's names before 0.4, deprecated, for one minor version (not
# in ``__all__``).
from .params import SERIAL, SERIAL_LATENCY_OVERHEAD
from .ports import MoveMemorySignature, QuerySignature, UpcomingSignature
from .result import QueryResult, ResultLayout, UpcomingLayout
from .upcoming import UPCOMING_CLOCKS
from .word import MoveWord, pack_word, unpack_word


__all__ = ["AxonDetector", "DetectorConfig", "Rules", "Pools", "Scan", "SHIPPED", "CORE", "LEAN",
           "WALKED", "WALKED_LATENCY_OVERHEAD",
           "QuerySignature", "MoveMemorySignature", "UpcomingSignature", "MoveWord", "pack_word", "unpack_word", "QueryResult", "ResultLayout",
           "UpcomingLayout", "Stop", "LATENCY_OVERHEAD", "UPCOMING_CLOCKS",
           "LEAN_LATENCY_OVERHEAD"]
