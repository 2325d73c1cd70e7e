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


def _clocks_left(config, pipeline):
    """The ranking function of the termination proof: busy clocks after this
    one, at most, from the scanner's registers (``pipeline``, its view).

    The lean scan holds the word at ``fetch_addr + 2`` in its hand stage and
    stops there at the latest on the absent word at -1: ``fetch_addr + 3``
    clocks. The pair scan one word a clock holds ``fetch_addr + 4`` in its
    decide stage (read, ahead, hand, decide) and stops at the latest on -1:
    ``fetch_addr + 5``. Two words a clock, the worst case is a refetch right
    now, from the hand stage's pair at ``fetch_addr + 6``: one clock, then
    one word a clock from ``fetch_addr + 5``, ``fetch_addr + 11`` in all;
    while the hand stage is still empty the first refetch is a clock or two
    away (one while the ahead stage holds a pair), which costs one or two
    clocks less. (A refetch stops the pair scan's fetch falling two words a
    clock, so it is worse than any stop without one.) The stages' valid bits
    tell, not the clocks since the start: a query that starts from the words
    just written has its first pair in the hand stage and the second in the
    ahead stage on its first busy clock, with the fetch six words below the
    hand, as on any later clock, so ``fetch_addr + 11`` covers it; its early
    decision only ends it sooner. One that restarts spends its first busy
    clock reading the first pair from ``top``, where the fetch registers
    stand, and is then where any other query is on its first busy clock
    (``fetch_addr + 9`` with the fetch at ``top - 2``): ``fetch_addr + 8``
    on that clock, one clock more than any other query (``RESTART_CLOCKS``).
    Its hand stage holds a pair then, but the restart drops it and cannot
    refetch from it."""
    if not config.pair_scan:
        return pipeline.fetch_addr + 3
    fetch_addr = pipeline.fetch_addr
    empty_stages = Mux(pipeline.hand.valid, 0, Mux(pipeline.ahead.valid, 1, 2))
    return Mux(pipeline.restarting, fetch_addr + 8,
               Mux(pipeline.single_step, fetch_addr + 5, fetch_addr + 11 - empty_stages))


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


def _move_list_writes(m, scanner):
    """Drive the pair scanner's view of the host's writes as the
    :class:`~axon.hdl.movelist.MoveList` makes it: a write is taken only
    while the scan is not active, and it makes the words just written fresh
    until the scanner next reads. The words themselves are free, as the
    banks' are. Returns ``(fresh, newest_addr)``."""
    reads = scanner.reads
    write_en    = Signal()
    fresh       = Signal()
    newest_addr = Signal.like(reads.newest_addr)
    for port in (write_en, reads.written_addr, reads.newest_word, reads.newest_nothing,
                 reads.below_word, reads.below_nothing):
        free(m, port)
    m.d.comb += [
        reads.written.eq(write_en & ~reads.active),
        reads.fresh.eq(fresh),
        reads.newest_addr.eq(newest_addr),
    ]
    with m.If(reads.written):
        m.d.sync += [fresh.eq(1), newest_addr.eq(reads.written_addr)]
    with m.Elif(reads.reading):
        m.d.sync += fresh.eq(0)
    return fresh, newest_addr


def termination(broken, config=SHIPPED.replace(backstop=False)):
    """The scanner of ``config`` alone, for a move list of ``config.depth``
    words: whatever it reads and whatever the chain list says, it stops in
    time, so both are free inputs. For the pair scan the host's writes
    between queries are free too, so that a query may start from the words
    just written, decide its first pair early, or restart. (The detector's
    ``busy`` and ``done`` are the scanner's; it adds nothing but drivers for
    those inputs.)"""
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
        left = _clocks_left(config, pipeline)
        with m.If(waiting & query.busy):
            m.d.comb += [Assert(left >= 0), Assert(waited + left < bound)]
            if not pair:
                m.d.comb += Assert(pipeline.read_valid)
        if pair:
            fresh, newest_addr = _move_list_writes(m, scanner)
            # What a write leaves in the fetch and read registers stays there
            # until the next start, which reads it, and no write comes
            # during a query: so a start from the words just written finds
            # the read stage at the pair two words below them (the banks'
            # held words) and the fetch at the pair below that.
            with m.If(fresh):
                m.d.comb += [
                    Assert(~query.busy),
                    Assert(pipeline.fetch_addr == newest_addr - 4),
                    Assert(pipeline.read_addr == newest_addr - 2),
                    Assert(pipeline.read_present == Cat(newest_addr >= 2, newest_addr >= 3)),
                ]
            # A restart is the first busy clock of its query, with the fetch
            # registers at its top.
            with m.If(pipeline.restarting):
                m.d.comb += [
                    Assert(waiting & query.busy & (waited == 0)),
                    Assert(pipeline.fetch_addr == top),
                ]
    return Harness(body)
