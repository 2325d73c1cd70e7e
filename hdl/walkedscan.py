"""The scan for the walked chain list: one word at a time, as the list is ready.

:class:`WalkedScanner` reads a one-bank move list
(:class:`~axon.hdl.lean.LeanMoveList`) back from the top of stack and hands
each word to the :class:`~axon.hdl.walkedlist.WalkedChainList`, which walks
the open chains of the word's side before it takes the next. The decision is
the other scanners' (:func:`axon.hdl.query.stop_reason_in_order`): on the
clock it *judges* a word, the scanner books the equal position left by the
words taken so far (every chain closed after an even, nonzero number of
words), then stops for the limit, the bottom or a barrier, or hands the word
over; an overflow, the last reason in the order, comes from the list when it
is done with the word.

A query raises ``done`` after :func:`~axon.hdl.params.walked_word_clocks`
for each word it applies (``2 + W``, ``W`` being the open chains of the
word's side that the list walks, and one more if it walks any), and one more
for the word that stops it (an overflowing word takes its own). :func:`axon.sim.model.walked.walked_clocks` counts them from the
golden model's chain list.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .observe import MOVE_WORD_MEANINGS, Observation, registers
from .params import Stop, check_depth
from .ports import QuerySignature, SingleReadSignature
from .query import (book_equal_position, count_query_clocks, finish_query, limit_reached_by,
                    start_scan, stop_reason_in_order)
from .result import ResultLayout
from .walkedlist import WalkedBusSignature


__all__ = ["WalkedScanner", "walked_pipeline"]


def walked_pipeline(depth):
    """The registers of :class:`WalkedScanner`, ``{name: shape}``, as its
    ``observe`` shows them."""
    return {
        # The word judged, or applied by the list. Signed: the scan ends
        # when it reaches -1, the absent word below the bottom.
        "word_addr":          range(-1, depth),
        "judging":            1,   # the scanner judges the word at `word_addr`
        "applying":           1,   # the list applies it
        "count_limit":        4,
        "root":               range(-1, depth),
        "count_reached":      1,   # count >= count_limit, and the draw decided
        "count_reached_next": 1,   # count + 1 >= count_limit
        "scanned_odd":        1,   # the parity of `plies_scanned`
        "scanned_nonzero":    1,
    }


# Set by every start, so no reset.
_RESET_LESS = {"count_limit", "root", "count_reached", "count_reached_next", "scanned_odd",
               "scanned_nonzero"}


class WalkedScanner(wiring.Component):
    """Query sequencing for a walked chain list, one word at a time.

    Parameters
    ----------
    depth : int
        Move-list entries; addresses run from 0 to ``depth - 1``.

    Members
    -------
    query : In(QuerySignature(depth))
        The query, as the detector's (``busy``: the scanner owns the move
        list's read port).
    reads : Out(SingleReadSignature(depth))
        Its reads of the move list: the word to judge next is read while the
        list walks.
    chains : Out(WalkedBusSignature())
        The words it hands the walked chain list.
    finishing : Signal(1), out
        The answer is complete on this clock: ``done`` rises on the next.
    applied : Signal(1), out
        The list holds its state after a word on this clock: the clock that
        judges the next word (once for each word applied).
    applied_depth : Signal(range(depth + 1)), out
        Words applied, that one included.
    applied_inside : Signal(1), out
        The position they leave to compare lies after the root.

    Attributes
    ----------
    observe : Observation
        The registers of :func:`walked_pipeline`, then ``reads``.
    """

    def __init__(self, depth):
        check_depth(depth)
        self._depth = depth
        super().__init__({
            "query":          In(QuerySignature(depth)),
            "reads":          Out(SingleReadSignature(depth)),
            "chains":         Out(WalkedBusSignature()),
            "finishing":      Out(1),
            "applied":        Out(1),
            "applied_depth":  Out(range(depth + 1)),
            "applied_inside": Out(1),
        })
        pipeline = registers(walked_pipeline(depth), reset_less=_RESET_LESS)
        self.observe = Observation({**pipeline, "reads": self.reads},
                                   meanings={"reads": MOVE_WORD_MEANINGS})

    @property
    def depth(self):
        return self._depth

    def elaborate(self, platform):
        m = Module()
        query, reads, chains = self.query, self.reads, self.chains
        pipe = self.observe
        # As in the other scanners: set by every start, so no reset.
        result = Signal(ResultLayout(self._depth), reset_less=True)
        starts = Signal()
        m.d.comb += [
            query.result.eq(result),
            query.busy.eq(pipe.judging | pipe.applying),
            starts.eq(query.start & ~query.busy),
            reads.active.eq(query.busy | query.start),
            reads.reading.eq(query.busy | query.start),
        ]
        count_query_clocks(m, query)

        # The read: the top on the starting clock, else the word below the
        # one in hand, so that it is there when the list is done.
        m.d.comb += reads.addr.eq(Mux(query.busy, pipe.word_addr - 1, query.top))

        word = reads.word
        present = Signal()
        inside = Signal()
        m.d.comb += [
            present.eq(pipe.word_addr >= 0),
            # The equal position booked when judging this word is the one
            # after it: inside the search if the word lies above the root.
            inside.eq(pipe.word_addr > pipe.root),
            chains.word.eq(word),
            # What the upcoming repetition follows: the state the word
            # being judged is compared with.
            self.applied.eq(pipe.judging & pipe.scanned_nonzero),
            self.applied_depth.eq(result.plies_scanned),
            self.applied_inside.eq(inside),
        ]

        # Judging a word.
        equal_position = Signal()
        limit_reached = Signal()
        stop = Signal()
        stop_reason = Signal(Stop)
        m.d.comb += [
            equal_position.eq(chains.empty & pipe.scanned_nonzero & ~pipe.scanned_odd),
            limit_reached.eq(limit_reached_by(result, equal_position, inside,
                                              pipe.count_reached, pipe.count_reached_next)),
            stop.eq(limit_reached | ~present | word.barrier),
        ]
        stop_reason_in_order(m, stop_reason, limit_reached, [(present, word.barrier, None)])

        with m.If(starts):
            start_scan(m, query, chains, result, pipe,
                       loads=[pipe.judging.eq(1), pipe.word_addr.eq(query.top)],
                       then=[pipe.scanned_nonzero.eq(0)])
        with m.Elif(pipe.judging):
            with m.If(equal_position):
                book_equal_position(m, result, pipe.count_limit, pipe.count_reached,
                                    pipe.count_reached_next, inside)
            m.d.sync += pipe.judging.eq(0)
            with m.If(stop):
                finish_query(m, result, stop_reason, query.done)
                m.d.comb += self.finishing.eq(1)
            with m.Else():
                m.d.comb += chains.apply.eq(1)
                m.d.sync += pipe.applying.eq(1)
        with m.Elif(pipe.applying & chains.done):
            m.d.sync += pipe.applying.eq(0)
            with m.If(chains.overflow):
                finish_query(m, result, Stop.OVERFLOW, query.done)
                m.d.comb += self.finishing.eq(1)
            with m.Else():
                m.d.sync += [
                    result.plies_scanned.eq(result.plies_scanned + 1),
                    pipe.scanned_odd.eq(~pipe.scanned_odd),
                    pipe.scanned_nonzero.eq(1),
                    pipe.word_addr.eq(pipe.word_addr - 1),
                    pipe.judging.eq(1),
                ]
        return m
