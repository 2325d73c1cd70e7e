"""The scanner: walks the move list back from the top of stack, two plies a clock.

It is the control half of the paper's PERPETUAL function. Each clock the
chain list takes a *pair* of consecutive words, newer and older: in a legal
game they are of different sides, so they update different pools.

The decision about a pair is made one clock after the chain list applied it,
from registered flags; the chain list's own loop is then gated by nothing
outside it, which is what sets the clock rate. When the decision is a stop,
whatever the chain list did after that pair is thrown away (the next start
clears it). The decision first books the equal position left by the previous
pair (chain list empty after an even number of plies), then, in this order:

* ``count_limit`` equal positions found: stop (``limit``);
* no newer word below address 0: stop (``bottom``);
* the newer word is a barrier, an irreversible move: stop (``barrier``) --
  the reversible-flag early exit of section 5.1;
* its pool had no slot for it: stop (``overflow``);
* the newer word is taken; then the same checks for the older word, which
  is taken too unless the scan stops there.

Pairs start at an even ply count, so an equal position (same side to move)
can only appear at the end of a pair. A query that applies *P* words raises
``done`` exactly ``floor(P / 2) + 4`` clocks after the clock that samples
``start``: one clock a pair, plus the read, ahead, hand and decide stages of
the pair that stops it.

The chain list compares its slots with each pair a clock before it applies
it, so every pair waits one clock in an *ahead* register between the read and
the hand stage. The move list is two banks (even and odd addresses) with a
row counter each; which bank holds the newer word of a pair is a register
too, fixed for the query while it takes pairs, so the side sort between the
block RAM and the ahead register is a couple of multiplexers.

Move words of legal games always alternate sides. Should two consecutive words
be of one side (nonsense written by a host), the scanner takes the newer one,
refetches, and finishes the query one word a clock, so that the answer is the
same as the golden model's in every case; only the clock count differs
(:func:`axon.sim.backends.pysim.expected_cycles` models it).
"""

from amaranth.hdl import *
from amaranth.lib import data
from amaranth.lib.wiring import Out

from .params import COUNT_LIMIT_BITS, Stop
from .ports import PairReadSignature
from .query import (QueryScanner, book_equal_position, count_query_clocks, finish_query,
                    limit_reached_by, start_query, stop_reason_in_order)
from .result import ResultLayout
from .word import MoveWord


__all__ = ["Scanner", "pair_stage_layout", "pair_pipeline"]



def _invalidate(pair):
    """Drop a pair in flight: it is neither valid nor applied."""
    return [pair.valid.eq(0), pair.apply_white.eq(0), pair.apply_black.eq(0)]


def pair_stage_layout(depth):
    """What each stage of :class:`Scanner`'s pipeline holds of a pair."""
    return data.StructLayout({
        "valid":         1,
        "addr":          range(-16, depth),   # of the newer word
        "newer_odd":     1,         # the newer word came from the odd bank
        "single_step":   1,         # apply the newer word only
        "newer_present": 1,
        "older_present": 1,
        "newer_barrier": 1,
        "older_barrier": 1,
        "newer_black":   1,
        # The positions after the newer and the older word lie after the
        # root (their addresses are above it): the search's own path.
        "newer_inside":  1,
        "older_inside":  1,
        "same_side":     1,
        "apply_white":   1,
        "apply_black":   1,
        "white_move":    MoveWord,
        "black_move":    MoveWord,
    })


def pair_pipeline(depth):
    """The registers of :class:`Scanner`'s pipeline, ``{name: shape}``, as
    its ``observe`` shows them (see
    :class:`~axon.hdl.query.QueryScanner`)."""
    stage = pair_stage_layout(depth)
    # Signed: the fetch runs a few pairs below address 0 before the decide
    # stage stops the scan.
    address = range(-16, depth)
    return {
        # The pair being fetched: its newer word's address and bank, and the
        # row each bank reads (word `fetch_addr` and the one below it).
        "fetch_addr":            address,
        "fetch_newer_odd":       1,
        "even_row":              range(depth // 2),
        "odd_row":               range(depth // 2),
        "single_step":           1,   # finish one word a clock (same-side words seen)
        "count_limit":           COUNT_LIMIT_BITS,
        "root":                  range(-1, depth),
        "read_valid":            1,
        "read_addr":             address,
        "read_newer_odd":        1,
        "read_present":          2,   # which of the pair's words are at or above 0
        "ahead":                 stage,
        "hand":                  stage,
        "decide_valid":          1,
        "decide_single_step":    1,
        "decide_newer_present":  1,
        "decide_older_present":  1,
        "decide_newer_barrier":  1,
        "decide_older_barrier":  1,
        "decide_same_side":      1,
        "decide_newer_black":    1,
        "decide_newer_inside":   1,
        "decide_older_inside":   1,
        "decide_white_overflow": 1,
        "decide_black_overflow": 1,
        "decide_empty_before":   1,   # chain list empty before the pair
        "decide_newer_blocked":  1,   # the newer word is missing or a barrier
        "decide_older_blocked":  1,   # the older word is to be applied but cannot be
        "decide_older_checked":  1,   # the older word was applied to the chain list
        "count_reached":         1,   # count >= count_limit
        "count_reached_next":    1,   # count + 1 >= count_limit
        # The parity of `plies_scanned`, and whether it is even and nonzero
        # (an empty chain list is then an equal position), kept beside it so
        # that spotting an equal position is one register, not a wide test.
        "scanned_odd":           1,
        "booking_ready":         1,
    }


# Set by every start: no reset in their write enables (see `elaborate`).
_RESET_LESS = {"count_limit", "root", "count_reached", "count_reached_next", "scanned_odd",
               "booking_ready"}


class Scanner(QueryScanner):
    """Query sequencing, two plies a clock, for a
    :class:`~axon.hdl.movelist.MoveList` (the members every scanner has are
    those of :class:`~axon.hdl.query.QueryScanner`).

    Parameters
    ----------
    depth : int
        Move-list entries; addresses run from 0 to ``depth - 1``.

    Members
    -------
    reads : Out(PairReadSignature(depth))
        A row of each bank a clock.
    chains : Out(ChainBusSignature())
        A pair of words a clock, one a side.
    mover_black : Signal(1), out
        The side to move in the queried position is Black (the word at
        ``top`` is White's); steady from the second clock of the scan.
    taken_newer : Signal(1), out
        The decide stage takes the newer word of its pair on this clock.
    taken_newer_black : Signal(1), out
        That word is Black's.
    taken_depth : Signal(range(depth + 1)), out
        Words applied with that word: its depth.
    taken_inside : Signal(1), out
        The position that word leaves to compare lies after the root.
        (These four let :class:`~axon.hdl.upcoming.Upcoming` follow the
        scan; nothing in the scanner depends on them.)

    Attributes
    ----------
    observe : Observation
        The registers of :func:`pair_pipeline`, then ``reads``.
    """

    def __init__(self, depth):
        super().__init__(depth, reads=PairReadSignature(depth), pipeline=pair_pipeline(depth),
                         reset_less=_RESET_LESS, members={
            "mover_black":       Out(1),
            "taken_newer":       Out(1),
            "taken_newer_black": Out(1),
            "taken_depth":       Out(range(depth + 1)),
            "taken_inside":      Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        # The answer and what the scan keeps beside it are set by every start,
        # so they take no reset: the reset would sit in every one of their
        # write enables, on the path that ends the scan. (`done`, which says
        # whether `result` means anything, is reset.)
        result = Signal(ResultLayout(depth), reset_less=True)
        m.d.comb += self.query.result.eq(result)
        # The starting clock counts as part of the query: the first read
        # happens on it, and a write landing then would be seen by the later
        # reads of the scan but not the first.
        m.d.comb += self.reads.active.eq(self.query.busy | self.query.start)
        count_query_clocks(m, self.query)

        # The scan runs as a pipeline, one pair a clock:
        #   fetch  -- the row counters go to the block RAM, running ahead;
        #   read   -- the block RAM output and what is known of its address;
        #   ahead  -- the pair, registered and sorted by side: the chain list
        #             compares its slots with it;
        #   hand   -- the pair is applied to the chain list; nothing but the
        #             chain list's own registers gates that;
        #   decide -- last clock's pair is judged from registered flags: take
        #             it, or stop. A stop throws away whatever the chain list
        #             did after it; the list is cleared by the next start.
        pair_layout = pair_stage_layout(depth)

        # The pipeline's registers are made with the scanner (what each holds:
        # `pair_pipeline`).
        pipe = self.observe
        decide_newer_overflow = Signal()
        decide_older_overflow = Signal()

        def rows_for(base, below):
            """The bank rows that hold the word at `base - below` and the one
            under it: one subtraction each, straight from `base`."""
            return [pipe.even_row.eq((base - below) >> 1),
                    pipe.odd_row.eq((base - (below + 1)) >> 1)]

        # Read to ahead: the pair sorted by side (Table 1: the top piece bit is
        # Black). Of a same-side pair only the newer word is applied.
        pair  = Signal(pair_layout)
        newer = Signal(MoveWord)
        older = Signal(MoveWord)
        # Separate signals, not fields of `pair`: a signal that feeds its own
        # other bits looks like a combinational loop to CXXRTL.
        newer_black = Signal()
        same_side   = Signal()
        apply_older = Signal()
        m.d.comb += [
            newer.eq(Mux(pipe.read_newer_odd, self.reads.odd_word, self.reads.even_word)),
            older.eq(Mux(pipe.read_newer_odd, self.reads.even_word, self.reads.odd_word)),
            newer_black.eq(newer.colour),
            same_side.eq(self.reads.even_word.colour == self.reads.odd_word.colour),
            apply_older.eq(~same_side & ~pipe.single_step),
            pair.valid.eq(pipe.read_valid),
            pair.addr.eq(pipe.read_addr),
            pair.newer_odd.eq(pipe.read_newer_odd),
            pair.single_step.eq(pipe.single_step),
            pair.newer_present.eq(pipe.read_present[0]),
            pair.older_present.eq(pipe.read_present[1]),
            pair.newer_barrier.eq(newer.barrier),
            pair.older_barrier.eq(older.barrier),
            pair.newer_black.eq(newer_black),
            # Compared with the root from registers, off the fetch's own paths.
            pair.newer_inside.eq(pipe.read_addr > pipe.root),
            pair.older_inside.eq(pipe.read_addr - 1 > pipe.root),
            pair.same_side.eq(same_side),
            # Valid included, so that the chain list's apply is a register.
            pair.apply_white.eq(pipe.read_valid & Mux(newer_black, apply_older, 1)),
            pair.apply_black.eq(pipe.read_valid & Mux(newer_black, 1, apply_older)),
            pair.white_move.eq(Mux(newer_black, older, newer)),
            pair.black_move.eq(Mux(newer_black, newer, older)),
        ]

        # Fetch and read. While it takes pairs the scan moves two words down
        # a clock, one row in each bank; one word a clock after a refetch,
        # one row in the bank the newer word leaves.
        # Before the scan the rows are those of `top`, so that the first
        # pair is read on the starting clock; the odd row of an even `top` is
        # one down. Nothing but a multiplexer follows the row registers.
        top_row     = Signal(range(depth // 2))
        top_odd_row = Signal(range(depth // 2))
        m.d.comb += [
            top_row.eq(self.query.top[1:]),
            top_odd_row.eq(self.query.top[1:] - ~self.query.top[0]),
            self.reads.even_row.eq(Mux(self.query.busy, pipe.even_row, top_row)),
            self.reads.odd_row.eq(Mux(self.query.busy, pipe.odd_row, top_odd_row)),
        ]
        m.d.sync += [
            pipe.read_addr.eq(pipe.fetch_addr),
            pipe.read_newer_odd.eq(pipe.fetch_newer_odd),
            pipe.read_present.eq(Cat(pipe.fetch_addr >= 0, pipe.fetch_addr >= 1)),
        ]

        # The hand stage drops what it would load from the ahead register:
        # between queries, and on a refetch (see the FSM below).
        hand_drop = Signal()
        refetch   = Signal()
        m.d.comb += refetch.eq(pipe.hand.valid & pipe.hand.same_side & ~pipe.hand.single_step)

        # Ahead to hand: the hand stage loads the ahead register on every
        # clock, valid or not, so that what the chain list compared a clock
        # early is what it applies.
        m.d.sync += [
            pipe.ahead.eq(pair),
            pipe.hand.eq(pipe.ahead),
        ]
        m.d.comb += [
            self.chains.white.next.eq(pipe.ahead.white_move),
            self.chains.black.next.eq(pipe.ahead.black_move),
            self.chains.white.move.eq(pipe.hand.white_move),
            self.chains.black.move.eq(pipe.hand.black_move),
            self.chains.white.apply_next.eq(pipe.ahead.apply_white & ~hand_drop),
            self.chains.black.apply_next.eq(pipe.ahead.apply_black & ~hand_drop),
        ]

        # Hand to decide.
        m.d.sync += [
            pipe.decide_valid.eq(pipe.hand.valid),
            pipe.decide_single_step.eq(pipe.hand.single_step),
            pipe.decide_newer_present.eq(pipe.hand.newer_present),
            pipe.decide_older_present.eq(pipe.hand.older_present),
            pipe.decide_newer_barrier.eq(pipe.hand.newer_barrier),
            pipe.decide_older_barrier.eq(pipe.hand.older_barrier),
            pipe.decide_same_side.eq(pipe.hand.same_side),
            pipe.decide_newer_black.eq(pipe.hand.newer_black),
            pipe.decide_newer_inside.eq(pipe.hand.newer_inside),
            pipe.decide_older_inside.eq(pipe.hand.older_inside),
            pipe.decide_white_overflow.eq(self.chains.white.overflow),
            pipe.decide_black_overflow.eq(self.chains.black.overflow),
            pipe.decide_empty_before.eq(self.chains.empty),
            # What stops the scan apart from the chain list, summed up here so
            # that `stop` (which ends in `done`) is two LUT levels deep.
            pipe.decide_newer_blocked.eq(~pipe.hand.newer_present | pipe.hand.newer_barrier),
            pipe.decide_older_blocked.eq(~pipe.hand.single_step &
                                         (~pipe.hand.older_present | pipe.hand.older_barrier)),
            pipe.decide_older_checked.eq(~pipe.hand.single_step & ~pipe.hand.same_side),
        ]
        # Sorted back into newer and older here, not before the registers:
        # the overflow is the end of a long path through the chain list.
        m.d.comb += [
            decide_newer_overflow.eq(Mux(pipe.decide_newer_black, pipe.decide_black_overflow,
                                         pipe.decide_white_overflow)),
            decide_older_overflow.eq(Mux(pipe.decide_newer_black, pipe.decide_white_overflow,
                                         pipe.decide_black_overflow)),
        ]
        # The equal position left by the previous pair is booked first;
        # `count_reached` and `count_reached_next` are registered so that the
        # limit test costs one multiplexer, not an adder.
        equal_position     = Signal()
        limit_reached      = Signal()
        m.d.comb += [
            equal_position.eq(pipe.decide_empty_before & pipe.booking_ready),
            # The equal position left by the previous pair is the one after
            # this pair's newer word.
            limit_reached.eq(limit_reached_by(result, equal_position, pipe.decide_newer_inside,
                                              pipe.count_reached, pipe.count_reached_next)),
        ]

        # Both sums are made from the register alone, so that the adders run
        # beside the decision instead of after it.
        plies_plus_one = Signal.like(result.plies_scanned)
        plies_plus_two = Signal.like(result.plies_scanned)
        m.d.comb += [
            plies_plus_one.eq(result.plies_scanned + 1),
            plies_plus_two.eq(result.plies_scanned + 2),
        ]

        stop        = Signal()
        stop_reason = Signal(Stop)
        take_newer  = Signal()
        take_older  = Signal()
        m.d.comb += [
            stop.eq(limit_reached | pipe.decide_newer_blocked | decide_newer_overflow |
                    pipe.decide_older_blocked | pipe.decide_older_checked & decide_older_overflow),
            take_newer.eq(~limit_reached & ~pipe.decide_newer_blocked & ~decide_newer_overflow),
            take_older.eq(~stop & pipe.decide_older_checked),
        ]
        # Why it stopped: the first reason in the order of the module docstring.
        stop_reason_in_order(m, stop_reason, limit_reached,
                             [(pipe.decide_newer_present, pipe.decide_newer_barrier,
                               decide_newer_overflow),
                              (pipe.decide_older_present, pipe.decide_older_barrier, None)])

        # The side to move is the other side than the word at `top`, the
        # newer word of the first pair read.
        mover_pending = Signal()
        with m.If(mover_pending & pipe.read_valid):
            m.d.sync += [
                self.mover_black.eq(~newer_black),
                mover_pending.eq(0),
            ]
        m.d.comb += [
            self.taken_newer_black.eq(pipe.decide_newer_black),
            self.taken_depth.eq(plies_plus_one),
            self.taken_inside.eq(pipe.decide_older_inside),
        ]

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += hand_drop.eq(1)
                # The fetch registers follow `top` on every idle clock, not
                # only on the starting one: their write enables stay short.
                m.d.sync += [
                    pipe.read_valid.eq(0),
                    *_invalidate(pipe.ahead),
                    *_invalidate(pipe.hand),
                    pipe.decide_valid.eq(0),
                    pipe.fetch_addr.eq(self.query.top - 2),
                    pipe.fetch_newer_odd.eq(self.query.top[0]),
                    *rows_for(self.query.top, 2),
                    pipe.single_step.eq(0),
                ]
                with m.If(self.query.start):
                    # Fetch the first pair on the starting clock itself.
                    m.d.comb += [
                        self.reads.reading.eq(1),
                        self.chains.clear.eq(1),
                    ]
                    m.d.sync += [
                        self.query.done.eq(0),
                        mover_pending.eq(1),
                        pipe.read_valid.eq(1),
                        pipe.read_addr.eq(self.query.top),
                        pipe.read_newer_odd.eq(self.query.top[0]),
                        pipe.read_present.eq(Cat(1, self.query.top >= 1)),
                        *start_query(self.query, result, pipe.count_limit, pipe.root,
                                     pipe.count_reached, pipe.count_reached_next),
                        pipe.scanned_odd.eq(0),
                        pipe.booking_ready.eq(0),
                    ]
                    m.next = "SCAN"

            with m.State("SCAN"):
                m.d.comb += [self.query.busy.eq(1), self.reads.reading.eq(1), hand_drop.eq(refetch)]
                m.d.sync += pipe.read_valid.eq(1)
                with m.If(~pipe.single_step):
                    m.d.sync += [
                        pipe.fetch_addr.eq(pipe.fetch_addr - 2),
                        pipe.even_row.eq(pipe.even_row - 1),
                        pipe.odd_row.eq(pipe.odd_row - 1),
                    ]
                with m.Else():
                    # An odd newer word shares its row with the even word
                    # below it; an even one has the odd word a row down.
                    m.d.sync += [
                        pipe.fetch_addr.eq(pipe.fetch_addr - 1),
                        pipe.fetch_newer_odd.eq(~pipe.fetch_newer_odd),
                    ]
                    with m.If(pipe.fetch_newer_odd):
                        m.d.sync += pipe.odd_row.eq(pipe.odd_row - 1)
                    with m.Else():
                        m.d.sync += pipe.even_row.eq(pipe.even_row - 1)
                with m.If(refetch):
                    # The pairs in flight were fetched two words apart; drop
                    # them and go on one word a clock.
                    m.d.sync += [
                        pipe.single_step.eq(1),
                        pipe.fetch_addr.eq(pipe.hand.addr - 1),
                        pipe.fetch_newer_odd.eq(~pipe.hand.newer_odd),
                        *rows_for(pipe.hand.addr, 1),
                        pipe.read_valid.eq(0),
                        *_invalidate(pipe.ahead),
                        *_invalidate(pipe.hand),
                    ]
                m.d.comb += self.taken_newer.eq(pipe.decide_valid & take_newer)
                with m.If(pipe.decide_valid):
                    with m.If(equal_position):
                        book_equal_position(m, result, pipe.count_limit, pipe.count_reached,
                                            pipe.count_reached_next, pipe.decide_newer_inside)
                    m.d.sync += [
                        result.plies_scanned.eq(Mux(take_older, plies_plus_two,
                                                    Mux(take_newer, plies_plus_one,
                                                        result.plies_scanned))),
                        pipe.scanned_odd.eq(pipe.scanned_odd ^ take_newer ^ take_older),
                        pipe.booking_ready.eq(Mux(take_older, ~pipe.scanned_odd,
                                                  Mux(take_newer, pipe.scanned_odd,
                                                      pipe.booking_ready))),
                    ]
                    with m.If(stop):
                        finish_query(m, result, stop_reason, self.query.done)
                        m.next = "IDLE"

        return m
