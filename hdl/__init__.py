"""Gateware of the Axon repetition detector.

The embedding API: :class:`AxonDetector` (the whole block), the move word it
stores (:class:`MoveWord`, :func:`pack_word`, :func:`unpack_word`) and the
answer it gives (:class:`ResultLayout`, :class:`Stop`), and its clock
counts (:data:`LATENCY_OVERHEAD`; :data:`LEAN_LATENCY_OVERHEAD` with
``scan="single"``, one of :data:`SCANS`); see the README's "Embedding" section.
"""

from .detector import AxonDetector
from .lean import LEAN_LATENCY_OVERHEAD, SCANS
from .params import Stop
from .scanner import LATENCY_OVERHEAD, ResultLayout
from .word import MoveWord, pack_word, unpack_word


__all__ = ["AxonDetector", "MoveWord", "pack_word", "unpack_word", "ResultLayout", "Stop",
           "LATENCY_OVERHEAD", "LEAN_LATENCY_OVERHEAD", "SCANS"]
