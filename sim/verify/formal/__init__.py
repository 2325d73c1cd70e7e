"""Formal proofs of the detector and the host link, with SymbiYosys.

Each :class:`Property` builds a small harness around one block: free inputs
(``AnySeq``), a few shadow registers, and ``Assert`` statements. The harness is
converted to RTLIL and handed to SymbiYosys (``yowasp-sby``) with the z3
solver, either to be proven by k-induction (``prove``) or checked for every
input sequence up to a bounded number of clocks from reset (``bmc``).

A proof by induction needs its invariants: each harness asserts (never
assumes) the ones that make it inductive, e.g. that a pool's registered hit
vectors are the comparisons of its slots with the move in hand.

Every property also has a *broken* variant: the same harness around a
mutated design, entered as a subclass of the gateware that overrides one of
its helper methods, or with a deliberately wrong assertion. The tests check
that each broken variant fails; a proof that cannot fail would prove nothing.

The pool properties are proven at every pool size the shipped layouts use
(``POOL_SIZES``). Termination is proven at the shipped move-list depth
(``DEFAULT_DEPTH``) by a ranking invariant, and at every power of two below
it by the same script (``TERMINATION_DEPTHS``). The other detector-level
ones use small configurations (an 8-word move list, 2 chains a side), so
that the solver covers every input sequence; the gateware is the same code
at any size.
"""

from .harness import DEFAULT_CHAINS, DEFAULT_POOL_SLOTS, LEAN_POOL_SLOTS, POOL_SIZES
from .termination import DEFAULT_DEPTH, TERMINATION_DEPTHS
from .end_to_end import END_TO_END_CHAINS, END_TO_END_DEPTH
from .properties import END_TO_END_SHIPPED, PROPERTIES, Property, properties_markdown
from .runner import Outcome, ToolMissing, find_sby, run_property


__all__ = ["Property", "Outcome", "PROPERTIES", "END_TO_END_SHIPPED", "run_property",
           "find_sby", "ToolMissing", "properties_markdown",
           "DEFAULT_CHAINS", "DEFAULT_POOL_SLOTS", "LEAN_POOL_SLOTS", "POOL_SIZES",
           "DEFAULT_DEPTH", "TERMINATION_DEPTHS", "END_TO_END_CHAINS", "END_TO_END_DEPTH"]
