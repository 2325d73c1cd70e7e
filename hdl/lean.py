"""The lean scan for the 1K boards: one word a clock from a one-bank move list.

The default scanner (:mod:`axon.hdl.scanner`) takes two plies a clock, which
costs a two-bank move list, a side sort after the block RAM, an ahead stage
and a refetch for nonsense lists: about 256 LUTs and 190 flip-flops, more
than an iCE40HX1K can spare beside the host link. :class:`LeanScanner` walks
the list one word a clock instead, and decides about each word on the clock
the chain list applies it, so it needs neither the ahead stage nor the
refetch: two same-side words in a row are just two words.

The chain list is the same, with its two move ports (see
:class:`~axon.hdl.chainlist.ChainList`): both sides are shown the same word
stream, and only the side of the word applies it. The pools then see their
``move`` follow last clock's ``next_move`` on every clock, as they require.

The decision is the pair scanner's, for one word: book the equal position
left by the words taken so far (chain list empty after an even, nonzero
number of words), then stop for the limit, the bottom, a barrier or an
overflow, in that order (:func:`axon.hdl.query.stop_reason_in_order`), or
take the word. A query that applies *P* words raises ``done``
``P + LEAN_LATENCY_OVERHEAD`` (:mod:`axon.hdl.params`) clocks after the clock that samples ``start``:
one clock a word, plus the read and the hand stage of the word that stops it.
"""

from amaranth.hdl import *
from amaranth.lib import memory

from .movelist import MoveMemory, host_read, refuse_writes
from .params import COUNT_LIMIT_BITS, Stop
from .ports import SingleReadSignature
from .query import (QueryScanner, book_equal_position, count_query_clocks, finish_query,
                    limit_reached_by, start_scan, stop_reason_in_order)
from .result import ResultLayout
from .word import MoveWord


__all__ = ["LeanMoveList", "LeanScanner", "lean_pipeline"]


class LeanMoveList(MoveMemory):
    """One-bank block-RAM move list (the members are those of
    :class:`~axon.hdl.movelist.MoveMemory`).

    Parameters
    ----------
    depth : int
        Number of move words; even.

    Members
    -------
    scan : In(SingleReadSignature(depth))
        The word at ``addr``.
    """

    def __init__(self, depth):
        super().__init__(depth, scan=SingleReadSignature(depth))

    def elaborate(self, platform):
        m = Module()
        host, scan = self.host, self.scan
        m.submodules.bank = bank = memory.Memory(shape=MoveWord, depth=self._depth, init=[])
        write_port = bank.write_port()
        read_port = bank.read_port()
        m.d.comb += [
            write_port.addr.eq(host.write_addr),
            write_port.data.eq(host.write_word),
            write_port.en.eq(refuse_writes(m, host, scan.active)),
            read_port.addr.eq(Mux(scan.reading, scan.addr, host.read_addr)),
            scan.word.eq(read_port.data),
        ]
        host_read(m, host, read_port.data)
        return m


def lean_pipeline(depth):
    """The registers of :class:`LeanScanner`'s pipeline, ``{name: shape}``,
    as its ``observe`` shows them (see
    :class:`~axon.hdl.query.QueryScanner`)."""
    return {
        # Signed: the fetch runs ahead below address 0 (down to -4) before
        # the hand stage stops the scan at the first absent word.
        "fetch_addr":         range(-4, depth),
        "read_valid":         1,
        "read_present":       1,   # the word read is at or above 0
        "read_inside":        1,   # the position after it lies after the root
        "hand_valid":         1,
        "hand_present":       1,
        "hand_inside":        1,
        "hand_word":          MoveWord,
        "count_limit":        COUNT_LIMIT_BITS,
        "root":               range(-1, depth),
        "count_reached":      1,   # count >= count_limit
        "count_reached_next": 1,   # count + 1 >= count_limit
        # The parity of `plies_scanned` and whether it is nonzero, kept
        # beside it so that spotting an equal position needs no wide test.
        "scanned_odd":        1,
        "scanned_nonzero":    1,
    }


# As in the pair scanner: set by every start, so no reset.
_RESET_LESS = {"hand_present", "hand_inside", "hand_word", "count_limit", "root", "count_reached",
               "count_reached_next", "scanned_odd", "scanned_nonzero"}


class LeanScanner(QueryScanner):
    """Query sequencing, one word a clock, for a :class:`LeanMoveList` (the
    members are those of :class:`~axon.hdl.query.QueryScanner`).

    Parameters
    ----------
    depth : int
        Move-list entries; addresses run from 0 to ``depth - 1``.

    Members
    -------
    reads : Out(SingleReadSignature(depth))
        A word a clock.
    chains : Out(ChainBusSignature())
        Both sides get the same word, and only the word's side applies it.

    Attributes
    ----------
    observe : Observation
        The registers of :func:`lean_pipeline`, then ``reads``.
    """

    def __init__(self, depth):
        super().__init__(depth, reads=SingleReadSignature(depth), pipeline=lean_pipeline(depth),
                         reset_less=_RESET_LESS)

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        # As in the pair scanner: set by every start, so no reset.
        result = Signal(ResultLayout(depth), reset_less=True)
        m.d.comb += self.query.result.eq(result)
        m.d.comb += self.reads.active.eq(self.query.busy | self.query.start)
        count_query_clocks(m, self.query)

        # The scan runs as a pipeline, one word a clock:
        #   fetch -- `fetch_addr` goes to the block RAM, a word ahead;
        #   read  -- the block RAM output: the chain list compares its slots
        #            with it (its `next_move`), and decodes its side;
        #   hand  -- the word is applied to the chain list, and judged from
        #            the chain list's flags on the same clock: take it, or
        #            stop. What the chain list did after a stop is thrown
        #            away; the next start clears it.
        # The pipeline's registers are made with the scanner (what each holds:
        # `lean_pipeline`).
        pipe = self.observe

        # The word a query reads first is `top`, on the starting clock itself.
        m.d.comb += self.reads.addr.eq(Mux(self.query.busy,
                                           pipe.fetch_addr[:len(self.reads.addr)],
                                           self.query.top))

        read_black = Signal()
        m.d.comb += [
            read_black.eq(self.reads.word.colour),
            self.chains.white.next.eq(self.reads.word),
            self.chains.black.next.eq(self.reads.word),
            # Low on the starting clock (nothing was read before it), so the
            # clock after the chain list's clear applies nothing.
            self.chains.white.apply_next.eq(pipe.read_valid & ~read_black),
            self.chains.black.apply_next.eq(pipe.read_valid & read_black),
            self.chains.white.move.eq(pipe.hand_word),
            self.chains.black.move.eq(pipe.hand_word),
        ]
        # The hand stage loads the block RAM output on every clock, so that
        # what the chain list compared a clock early is what it applies.
        m.d.sync += [
            pipe.hand_word.eq(self.reads.word),
            pipe.hand_present.eq(pipe.read_present),
            pipe.hand_inside.eq(pipe.read_inside),
            pipe.hand_valid.eq(pipe.read_valid),
        ]

        # The decision about the word in hand.
        overflow       = Signal()
        equal_position = Signal()
        limit_reached  = Signal()
        stop           = Signal()
        stop_reason    = Signal(Stop)
        m.d.comb += [
            overflow.eq(Mux(pipe.hand_word.colour, self.chains.black.overflow,
                            self.chains.white.overflow)),
            equal_position.eq(self.chains.empty & pipe.scanned_nonzero & ~pipe.scanned_odd),
            # The equal position left by the words taken so far is the one
            # after the word in hand.
            limit_reached.eq(limit_reached_by(result, equal_position, pipe.hand_inside,
                                              pipe.count_reached, pipe.count_reached_next)),
            stop.eq(limit_reached | ~pipe.hand_present | pipe.hand_word.barrier | overflow),
        ]
        stop_reason_in_order(m, stop_reason, limit_reached,
                             [(pipe.hand_present, pipe.hand_word.barrier, None)])

        with m.FSM():
            with m.State("IDLE"):
                m.d.sync += [
                    pipe.read_valid.eq(0),
                    pipe.hand_valid.eq(0),
                    pipe.fetch_addr.eq(self.query.top - 1),
                ]
                with m.If(self.query.start):
                    start_scan(m, self.query, self.chains, result, pipe, reads=self.reads,
                               loads=[pipe.read_valid.eq(1), pipe.read_present.eq(1),
                                      pipe.read_inside.eq(self.query.top > self.query.root_address)],
                               then=[pipe.scanned_nonzero.eq(0)])
                    m.next = "SCAN"

            with m.State("SCAN"):
                m.d.comb += [self.query.busy.eq(1), self.reads.reading.eq(1)]
                m.d.sync += [
                    pipe.fetch_addr.eq(pipe.fetch_addr - 1),
                    pipe.read_present.eq(pipe.fetch_addr >= 0),
                    # One word below the last: inside until the walk passes
                    # the root (an equality, cheaper than a comparison).
                    pipe.read_inside.eq(pipe.read_inside & (pipe.fetch_addr != pipe.root)),
                ]
                with m.If(pipe.hand_valid):
                    with m.If(equal_position):
                        book_equal_position(m, result, pipe.count_limit, pipe.count_reached,
                                            pipe.count_reached_next, pipe.hand_inside)
                    with m.If(stop):
                        finish_query(m, result, stop_reason, self.query.done)
                        # Nothing read after the stop reaches the hand stage.
                        m.d.sync += pipe.read_valid.eq(0)
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += [
                            result.plies_scanned.eq(result.plies_scanned + 1),
                            pipe.scanned_odd.eq(~pipe.scanned_odd),
                            pipe.scanned_nonzero.eq(1),
                        ]

        return m
