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
from amaranth.lib.wiring import In, Out

from .params import COUNT_LIMIT_BITS, Stop
from .ports import PairReadSignature
from .query import (QueryScanner, book_equal_position, count_query_clocks, finish_query,
                    limit_reached_by, start_scan, stop_reason_in_order)
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
        # The decide stage judges the first pair on the clock after a start
        # from the words just written (the words alone stop the scan).
        "decide_early":          1,
        # The start was taken for one from the words just written, and its
        # top is another: the scan restarts on this clock.
        "restarting":            1,
        "count_reached":         1,   # count >= count_limit
        "count_reached_next":    1,   # count + 1 >= count_limit
        # The parity of `plies_scanned`, and whether it is even and nonzero
        # (an empty chain list is then an equal position), kept beside it so
        # that spotting an equal position is one register, not a wide test.
        "scanned_odd":           1,
        "booking_ready":         1,
        # With a backstop: the scan overflowed and waits, busy, while the
        # backstop answers.
        "waiting":               1,
    }


def _rows_for(pipe, base, below):
    """The bank rows that hold the word at `base - below` and the one under
    it: one subtraction each, straight from `base`."""
    return [pipe.even_row.eq((base - below) >> 1),
            pipe.odd_row.eq((base - (below + 1)) >> 1)]


class _ScanWires:
    """The signals that the stages of one elaborated :class:`Scanner` share:
    each stage's function makes some and reads others' (``pipe`` is the
    scanner's ``observe``, its registers)."""


# Set by every start: no reset in their write enables (see `Scanner._answer_and_clocks`).
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
    pooled_kinds : tuple or None
        The piece kinds the chain list has pools for (``None``: every kind).
    backstop : bool
        A backstop answers what the pools overflow
        (:mod:`axon.hdl.backstop`): a scan that overflows stays ``busy``,
        counting clocks, until ``backstop_finishing``.

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
    backstop_finishing : Signal(1), in
        With a backstop only: it finishes its answer on this clock.

    Attributes
    ----------
    observe : Observation
        The registers of :func:`pair_pipeline`, then ``reads``.
    """

    def __init__(self, depth, pooled_kinds=None, *, backstop=False):
        # The kinds the chain list has pools for (None: every kind): a word
        # of another kind overflows, which a query that stops on its second
        # clock must know without asking the chain list.
        self._pooled_kinds = None if pooled_kinds is None else tuple(pooled_kinds)
        self._backstop = backstop
        super().__init__(depth, reads=PairReadSignature(depth), pipeline=pair_pipeline(depth),
                         reset_less=_RESET_LESS, members={
            "mover_black":       Out(1),
            "taken_newer":       Out(1),
            "taken_newer_black": Out(1),
            "taken_depth":       Out(range(depth + 1)),
            "taken_inside":      Out(1),
            **({"backstop_finishing": In(1)} if backstop else {}),
        })

    def elaborate(self, platform):
        m = Module()
        s = _ScanWires()
        # The pipeline's registers are made with the scanner (what each holds:
        # `pair_pipeline`).
        s.pipe = self.observe
        self._answer_and_clocks(m, s)

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
        # The side to move is not known yet: the first pair read tells.
        s.mover_pending = Signal()
        self._read_stage(m, s)
        self._first_pair(m, s)
        self._fetch_stage(m, s)
        self._hand_stage(m, s)
        self._decide_stage(m, s)

        with m.FSM():
            with m.State("IDLE"):
                self._between_queries(m, s)
            with m.State("SCAN"):
                self._scanning(m, s)

        return m

    def _answer_and_clocks(self, m, s):
        """The answer register, the clock count and the wait for a backstop:
        what a query is, apart from how the scan walks."""
        # The answer and what the scan keeps beside it are set by every start,
        # so they take no reset: the reset would sit in every one of their
        # write enables, on the path that ends the scan. (`done`, which says
        # whether `result` means anything, is reset.)
        s.result = Signal(ResultLayout(self._depth), reset_less=True, name="result")
        m.d.comb += self.query.result.eq(s.result)
        # The starting clock counts as part of the query: the first read
        # happens on it, and a write landing then would be seen by the later
        # reads of the scan but not the first.
        m.d.comb += self.reads.active.eq(self.query.busy | self.query.start)
        count_query_clocks(m, self.query)
        # With a backstop, a scan that overflows waits, busy, while the
        # backstop answers (until the clock it finishes): no start is taken,
        # and the clocks count on, so `cycles` is the whole query's.
        s.starts = Signal(name="starts")
        m.d.comb += s.starts.eq(self.query.start & ~s.pipe.waiting)
        if self._backstop:
            with m.If(self.backstop_finishing):
                m.d.sync += s.pipe.waiting.eq(0)

    def _read_stage(self, m, s):
        """Read to ahead: the block RAM's two words of a pair sorted by side
        (Table 1: the top piece bit is Black), as the ahead register takes
        them. Of a same-side pair only the newer word is applied."""
        pipe, depth = s.pipe, self._depth
        # Between queries the banks hold the pair two and three words below
        # the host's last write (see MoveList), and the read stage's
        # registers describe that pair (set by the write): a query that starts
        # from it needs no read. It is valid only on such a start, and the
        # root is not registered yet then: how far the newest word lies above
        # it (`newest_above_root`) tells which of its words lie inside.
        s.idle        = Signal(name="idle")
        s.fresh_start = Signal(name="fresh_start")  # a start while the host's last write is fresh
        s.top_hit     = Signal(name="top_hit")      # and its top is the word written
        s.newest_above_root = Signal(range(-depth, depth + 1), name="newest_above_root")
        read_valid  = Signal()
        idle = s.idle
        m.d.comb += [
            s.newest_above_root.eq(self.reads.newest_addr - self.query.root_address),
            read_valid.eq(Mux(idle, s.fresh_start, pipe.read_valid)),
        ]

        s.pair = pair = Signal(pair_stage_layout(depth), name="pair")
        newer = Signal(MoveWord)
        older = Signal(MoveWord)
        # Separate signals, not fields of `pair`: a signal that feeds its own
        # other bits looks like a combinational loop to CXXRTL.
        s.newer_black = newer_black = Signal(name="newer_black")
        same_side   = Signal()
        apply_older = Signal()
        m.d.comb += [
            newer.eq(Mux(pipe.read_newer_odd, self.reads.odd_word, self.reads.even_word)),
            older.eq(Mux(pipe.read_newer_odd, self.reads.even_word, self.reads.odd_word)),
            newer_black.eq(newer.colour),
            same_side.eq(self.reads.even_word.colour == self.reads.odd_word.colour),
            apply_older.eq(~same_side & ~(pipe.single_step & ~idle)),
            pair.valid.eq(read_valid),
            pair.addr.eq(pipe.read_addr),
            pair.newer_odd.eq(pipe.read_newer_odd),
            # (A query that ends in one-word steps leaves the flag set for
            # an idle clock.)
            pair.single_step.eq(pipe.single_step & ~idle),
            pair.newer_present.eq(pipe.read_present[0]),
            pair.older_present.eq(pipe.read_present[1]),
            pair.newer_barrier.eq(newer.barrier),
            pair.older_barrier.eq(older.barrier),
            pair.newer_black.eq(newer_black),
            # Compared with the root from registers, off the fetch's own paths.
            pair.newer_inside.eq(Mux(idle, s.newest_above_root > 2, pipe.read_addr > pipe.root)),
            pair.older_inside.eq(Mux(idle, s.newest_above_root > 3,
                                     pipe.read_addr - 1 > pipe.root)),
            pair.same_side.eq(same_side),
            # Valid included, so that the chain list's apply is a register.
            pair.apply_white.eq(read_valid & Mux(newer_black, apply_older, 1)),
            pair.apply_black.eq(read_valid & Mux(newer_black, 1, apply_older)),
            pair.white_move.eq(Mux(newer_black, older, newer)),
            pair.black_move.eq(Mux(newer_black, newer, older)),
        ]

    def _first_pair(self, m, s):
        """The first pair of a query that starts from the words just written:
        the newest word and the one below it, from registers and the list's
        own copy, handed to the chain list on the starting clock (the list
        is empty then, so it needs no comparison a clock ahead); and whether
        such a query stops on its second clock for the words alone."""
        s.newest = newest = self.reads.newest_word
        s.below  = below  = self.reads.below_word
        newest_addr = self.reads.newest_addr
        s.first = first = Signal(pair_stage_layout(self._depth), name="first")
        first_apply_older = Signal()
        fresh_start = s.fresh_start
        m.d.comb += [
            # `fresh` is only ever set between queries. The start goes on as
            # if the top were the word written; the comparison only decides
            # the next clock (see `restarting`), off the start's paths.
            fresh_start.eq(s.starts & self.reads.fresh),
            s.top_hit.eq(self.query.top == newest_addr),
            first_apply_older.eq(newest.colour != below.colour),
            first.valid.eq(fresh_start),
            first.addr.eq(newest_addr),
            first.newer_odd.eq(newest_addr[0]),
            first.newer_present.eq(1),
            first.older_present.eq(newest_addr >= 1),
            first.newer_barrier.eq(newest.barrier),
            first.older_barrier.eq(below.barrier),
            first.newer_black.eq(newest.colour),
            first.newer_inside.eq(s.newest_above_root > 0),
            first.older_inside.eq(s.newest_above_root > 1),
            first.same_side.eq(~first_apply_older),
            first.apply_white.eq(fresh_start & Mux(newest.colour, first_apply_older, 1)),
            first.apply_black.eq(fresh_start & Mux(newest.colour, 1, first_apply_older)),
            first.white_move.eq(Mux(newest.colour, below, newest)),
            first.black_move.eq(Mux(newest.colour, newest, below)),
            # Between queries the hand stage holds the first pair (valid only
            # on a start from the words just written), and the pools decode it.
            self.chains.load_first.eq(s.idle),
            self.chains.white.first.eq(first.white_move),
            self.chains.black.first.eq(first.black_move),
            self.chains.white.apply_first.eq(first.apply_white),
            self.chains.black.apply_first.eq(first.apply_black),
            self.chains.white.first_nothing.eq(Mux(newest.colour, self.reads.below_nothing,
                                                   self.reads.newest_nothing)),
            self.chains.black.first_nothing.eq(Mux(newest.colour, self.reads.newest_nothing,
                                                   self.reads.below_nothing)),
        ]

        # Such a query stops on its second clock when the golden loop stops
        # at the first pair for a reason the words alone tell: the count
        # limit 0, a barrier at the top, or (the newest word applied, as it
        # is to an empty list unless it moves nothing or has no pool) the
        # bottom or a barrier just below. An overflow waits for the chain
        # list and the decide stage.
        newest_pooled = (C(1) if self._pooled_kinds is None else
                         Cat(newest.kind == kind for kind in self._pooled_kinds).any())
        newest_applies = Signal()
        limit_zero     = Signal()
        s.early_stop   = Signal(name="early_stop")
        m.d.comb += [
            newest_applies.eq(~self.reads.newest_nothing & newest_pooled),
            limit_zero.eq(self.query.count_limit == 0),
            s.early_stop.eq(fresh_start & s.top_hit &
                            (limit_zero | newest.barrier |
                             newest_applies & (~first.older_present | below.barrier))),
        ]

    def _fetch_stage(self, m, s):
        """Fetch and read: the rows each bank reads, and what a start or a
        fetching clock leaves in the fetch and read registers. While it takes
        pairs the scan moves two words down a clock, one row in each bank;
        one word a clock after a refetch, one row in the bank the newer word
        leaves."""
        pipe, depth = s.pipe, self._depth
        # Before the scan the rows are those of `top`, so that the first
        # pair is read on the starting clock; the odd row of an even `top` is
        # one down. Nothing but a multiplexer follows the row registers.
        s.top_row     = top_row     = Signal(range(depth // 2), name="top_row")
        s.top_odd_row = top_odd_row = Signal(range(depth // 2), name="top_odd_row")
        # A query started from the words just written reads the third pair
        # on its starting clock, from the rows the write left in the fetch
        # registers: it goes on as a scanning clock does.
        top = self.query.top
        m.d.comb += [
            top_row.eq(top[1:]),
            top_odd_row.eq(top[1:] - ~top[0]),
            # (The banks read only on a start or a write, which the move list
            # takes from its own rows; a fresh write lets no other in.)
            self.reads.even_row.eq(Mux(self.query.busy | self.reads.fresh, pipe.even_row, top_row)),
            self.reads.odd_row.eq(Mux(self.query.busy | self.reads.fresh, pipe.odd_row, top_odd_row)),
        ]
        # What a start that reads the first pair leaves in the fetch and read
        # registers, from the top (the query's, or the registered one).
        s.first_read = [
            s.mover_pending.eq(1),
            pipe.read_addr.eq(top),
            pipe.read_newer_odd.eq(top[0]),
            pipe.read_present.eq(Cat(1, top >= 1)),
            pipe.fetch_addr.eq(top - 2),
            pipe.fetch_newer_odd.eq(top[0]),
            *_rows_for(pipe, top, 2),
        ]
        # What a clock that fetches leaves in the read stage (between
        # queries the read stage holds what the last write or start set).
        s.fetched = [
            pipe.read_addr.eq(pipe.fetch_addr),
            pipe.read_newer_odd.eq(pipe.fetch_newer_odd),
            pipe.read_present.eq(Cat(pipe.fetch_addr >= 0, pipe.fetch_addr >= 1)),
        ]

    def _hand_stage(self, m, s):
        """Ahead to hand: the pair the chain list compares a clock early, then
        applies. The hand stage loads the ahead register on every clock,
        valid or not, so that what the chain list compared is what it
        applies."""
        pipe = s.pipe
        # The hand stage drops what it would load from the ahead register:
        # between queries, and on a refetch (see `_scanning`).
        s.hand_drop = hand_drop = Signal(name="hand_drop")
        s.refetch   = Signal(name="refetch")
        m.d.comb += s.refetch.eq(pipe.hand.valid & pipe.hand.same_side & ~pipe.hand.single_step &
                                 ~pipe.restarting)
        m.d.sync += [
            pipe.ahead.eq(s.pair),
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

    def _decide_stage(self, m, s):
        """Hand to decide, and the decision: last clock's pair judged from
        registered flags, in the order of the module docstring (take the
        newer word, the older, or stop, and why); and what the scan tells
        the upcoming block of the words it takes."""
        pipe, result = s.pipe, s.result
        decide_newer_overflow = Signal()
        decide_older_overflow = Signal()
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
        s.equal_position = equal_position = Signal(name="equal_position")
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
        s.plies_plus_one = plies_plus_one = Signal.like(result.plies_scanned, name="plies_plus_one")
        s.plies_plus_two = plies_plus_two = Signal.like(result.plies_scanned, name="plies_plus_two")
        m.d.comb += [
            plies_plus_one.eq(result.plies_scanned + 1),
            plies_plus_two.eq(result.plies_scanned + 2),
        ]

        s.stop        = stop        = Signal(name="stop")
        s.stop_reason = stop_reason = Signal(Stop, name="stop_reason")
        s.take_newer  = take_newer  = Signal(name="take_newer")
        s.take_older  = take_older  = Signal(name="take_older")
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
        with m.If(s.mover_pending & pipe.read_valid):
            m.d.sync += [
                self.mover_black.eq(~s.newer_black),
                s.mover_pending.eq(0),
            ]
        m.d.comb += [
            self.taken_newer_black.eq(pipe.decide_newer_black),
            self.taken_depth.eq(plies_plus_one),
            self.taken_inside.eq(pipe.decide_older_inside),
        ]

    def _between_queries(self, m, s):
        """State ``IDLE``: a write sets the read stage up for the next start;
        a start begins the scan, from the words just written when it can
        (the first pair to the hand stage, judged at once if the words alone
        stop it), else from a read of the top."""
        pipe, first, newest, below = s.pipe, s.first, s.newest, s.below
        m.d.comb += [s.idle.eq(1), s.hand_drop.eq(1)]
        # The fetch and read registers hold what the last write or
        # start set (a start from the words just written goes on
        # from what the write left).
        # (The ahead register loads the read stage's pair, which is
        # valid only on a start from the words just written.)
        # The hand stage loads the first pair of a start from the words
        # just written (valid only then).
        m.d.sync += [
            pipe.read_valid.eq(0),
            pipe.hand.eq(first),
            pipe.single_step.eq(0),
            # The decide stage takes the first pair of a start from
            # the words just written, for the words alone, valid if
            # they stop the scan (no overflow then: the registers
            # that say so are reset, no logic on their long paths).
            pipe.decide_valid.eq(s.early_stop),
            pipe.decide_early.eq(s.early_stop),
            pipe.decide_single_step.eq(0),
            pipe.decide_newer_present.eq(1),
            pipe.decide_older_present.eq(first.older_present),
            pipe.decide_newer_barrier.eq(newest.barrier),
            pipe.decide_older_barrier.eq(below.barrier),
            pipe.decide_same_side.eq(first.same_side),
            pipe.decide_newer_black.eq(newest.colour),
            pipe.decide_newer_inside.eq(first.newer_inside),
            pipe.decide_older_inside.eq(first.older_inside),
            pipe.decide_white_overflow.eq(0),
            pipe.decide_black_overflow.eq(0),
            pipe.decide_empty_before.eq(1),
            pipe.decide_newer_blocked.eq(newest.barrier),
            pipe.decide_older_blocked.eq(~first.older_present | below.barrier),
            pipe.decide_older_checked.eq(~first.same_side),
        ]
        with m.If(self.reads.written):
            # A write, accepted only between queries: the read stage
            # describes the pair the banks read now, two and three
            # words below it, and the fetch the pair below that.
            written = self.reads.written_addr
            m.d.sync += [
                pipe.read_addr.eq(written - 2),
                pipe.read_newer_odd.eq(written[0]),
                pipe.read_present.eq(Cat(written >= 2, written >= 3)),
                pipe.fetch_addr.eq(written - 4),
                pipe.fetch_newer_odd.eq(written[0]),
                *_rows_for(pipe, written, 4),
            ]
        m.d.comb += self.query.busy.eq(pipe.waiting)
        with m.If(s.starts):
            # Fetch the first pair on the starting clock itself.
            start_scan(m, self.query, self.chains, s.result, pipe, reads=self.reads,
                       loads=[pipe.read_valid.eq(1)], then=[pipe.booking_ready.eq(0)])
            with m.If(self.reads.fresh):
                # The first pair goes to the hand stage and the
                # second to the ahead stage now; the banks read the
                # third, and the fetch moves on as on a scanning clock.
                m.d.sync += [
                    *s.fetched,
                    s.mover_pending.eq(0),
                    self.mover_black.eq(~newest.colour),
                ]
                with m.If(s.top_hit):
                    m.d.sync += [
                        pipe.fetch_addr.eq(pipe.fetch_addr - 2),
                        pipe.even_row.eq(pipe.even_row - 1),
                        pipe.odd_row.eq(pipe.odd_row - 1),
                    ]
                    m.next = "SCAN"
                with m.Else():
                    # The fetch registers take the top, which the
                    # restart reads.
                    top = self.query.top
                    m.d.sync += [
                        pipe.fetch_addr.eq(top),
                        pipe.fetch_newer_odd.eq(top[0]),
                        pipe.even_row.eq(s.top_row),
                        pipe.odd_row.eq(s.top_odd_row),
                        pipe.restarting.eq(1),
                    ]
                    m.next = "SCAN"
            with m.Else():
                m.d.sync += s.first_read
                m.next = "SCAN"

    def _scanning(self, m, s):
        """State ``SCAN``: one pair fetched and one decided a clock; a refetch
        on a same-side pair, a restart when the start was not from the words
        just written, and the bookkeeping of each decision."""
        pipe, result = s.pipe, s.result
        m.d.comb += [self.query.busy.eq(1), self.reads.reading.eq(1),
                     s.hand_drop.eq(s.refetch | pipe.restarting)]
        m.d.sync += [pipe.read_valid.eq(1), pipe.restarting.eq(0), pipe.decide_early.eq(0),
                     *s.fetched]
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
        with m.If(s.refetch):
            # The pairs in flight were fetched two words apart; drop
            # them and go on one word a clock.
            m.d.sync += [
                pipe.single_step.eq(1),
                pipe.fetch_addr.eq(pipe.hand.addr - 1),
                pipe.fetch_newer_odd.eq(~pipe.hand.newer_odd),
                *_rows_for(pipe, pipe.hand.addr, 1),
                pipe.read_valid.eq(0),
                *_invalidate(pipe.ahead),
                *_invalidate(pipe.hand),
            ]
        with m.If(pipe.restarting):
            # The start was not about the word just written: what the
            # stages and the chain list took on the starting clock is
            # dropped, and the banks read the first pair now, from
            # the top the fetch registers took: a clock late.
            m.d.comb += self.chains.clear.eq(1)
            m.d.sync += [
                s.mover_pending.eq(1),
                *_invalidate(pipe.ahead),
                *_invalidate(pipe.hand),
                pipe.decide_valid.eq(0),
            ]
        # A word taken by the early decision is not told: the pools do
        # not hold the state after it until the next clock, and the
        # state after the top word alone never gives the side to
        # move an upcoming repetition (the top word's own chain is
        # open, and it is the other side's).
        m.d.comb += self.taken_newer.eq(pipe.decide_valid & s.take_newer & ~pipe.decide_early)
        with m.If(pipe.decide_valid):
            with m.If(s.equal_position):
                book_equal_position(m, result, pipe.count_limit, pipe.count_reached,
                                    pipe.count_reached_next, pipe.decide_newer_inside)
            m.d.sync += [
                result.plies_scanned.eq(Mux(s.take_older, s.plies_plus_two,
                                            Mux(s.take_newer, s.plies_plus_one,
                                                result.plies_scanned))),
                pipe.scanned_odd.eq(pipe.scanned_odd ^ s.take_newer ^ s.take_older),
                pipe.booking_ready.eq(Mux(s.take_older, ~pipe.scanned_odd,
                                          Mux(s.take_newer, pipe.scanned_odd,
                                              pipe.booking_ready))),
            ]
            with m.If(s.stop):
                finish_query(m, result, s.stop_reason, self.query.done)
                if self._backstop:
                    m.d.sync += pipe.waiting.eq(s.stop_reason == Stop.OVERFLOW)
                m.next = "IDLE"
