"""Termination: every started query ends, at any move-list depth."""

from amaranth.hdl import *

from ....hdl.lean import LeanScanner
from ....hdl.params import SHIPPED
from ....hdl.scanner import Scanner
from .harness import free, Harness


# Termination is proven at the shipped move-list depth; tests/test_formal.py
# proves it with the same script at every power of two down to 2.
DEFAULT_DEPTH = SHIPPED.depth
TERMINATION_DEPTHS = tuple(2 ** power for power in range(1, DEFAULT_DEPTH.bit_length()))


def _clocks_left(config, fetch_addr, single_step, waited):
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
    if not config.pair_scan:
        return fetch_addr + 3
    return Mux(single_step, fetch_addr + 5,
               fetch_addr + 11 - Mux(waited == 0, 2, Mux(waited == 1, 1, 0)))


def query_timer(m, query, longest):
    """``(waiting, waited, top)``: a query has started and is not done, the
    clocks it has waited (those after the one that sampled ``start``, the
    way the latency is documented; at most ``longest``), and its ``top``."""
    waiting = Signal()
    waited  = Signal(range(longest + 1))
    top     = Signal.like(query.top)
    with m.If(query.start & ~query.busy):
        m.d.sync += [waiting.eq(1), waited.eq(0), top.eq(query.top)]
    with m.Elif(waiting & ~query.done):
        m.d.sync += waited.eq(waited + 1)
    with m.Elif(query.done):
        m.d.sync += waiting.eq(0)
    return waiting, waited, top


def termination(broken, config=SHIPPED):
    """The scanner of ``config`` alone, for a move list of ``config.depth``
    words: whatever it
    reads and whatever the chain list says, it stops in time, so both are
    free inputs. (The detector's ``busy`` and ``done`` are the scanner's; it
    adds nothing but drivers for those inputs.)"""
    def body(m):
        pair = config.pair_scan
        scanner = (Scanner if pair else LeanScanner)(config.depth)
        m.submodules.scanner = scanner
        query = scanner.query
        words = ((scanner.reads.even_word, scanner.reads.odd_word) if pair else
                 (scanner.reads.word,))
        for port in (query.start, query.top, query.count_limit, *words,
                     scanner.chains.white.overflow, scanner.chains.black.overflow,
                     scanner.chains.empty):
            free(m, port)
        waiting, waited, top = query_timer(m, query, config.worst_case_clocks(config.depth - 1))
        bound = config.worst_case_clocks(top)
        # Wrong: a whole pair a clock, with no pipeline. A full scan takes
        # longer, so this must fail.
        claimed = (top + 1) >> 1 if broken else bound
        m.d.comb += Assert(~waiting | query.done | (waited < claimed))
        # The query is not over until done: busy falls with it.
        m.d.comb += Assert(~waiting | query.busy | query.done)
        # The invariant that makes it inductive at any depth, itself
        # asserted: the clocks waited and the clocks left stay within the
        # (right) bound. The lean scan also never loses the word it reads.
        # (The scanner's view shows its registers; they are no ports.)
        pipeline = scanner.observe
        left = _clocks_left(config, pipeline.fetch_addr,
                            pipeline.single_step if pair else 0, waited)
        with m.If(waiting & query.busy):
            m.d.comb += [Assert(left >= 0), Assert(waited + left < bound)]
            if not pair:
                m.d.comb += Assert(pipeline.read_valid)
    return Harness(body)
