"""The scanner: walks the move list back from the top of stack, two plies a clock.

It is the control half of the paper's PERPETUAL function. Each clock it holds
a *pair* of consecutive words, newer and older, in registers (the block RAM's
output is registered once, for timing), and the chain list applies both: the
two moves are of different sides, so they touch different pools.

Before deciding about a pair the scanner books the equal position left by the
previous one (chain list empty after an even number of plies). Then, in this
order:

* ``count_limit`` equal positions found: stop (``limit``);
* no newer word below address 0: stop (``bottom``);
* the newer word is a barrier, an irreversible move: stop (``barrier``) --
  the reversible-flag early exit of section 5.1;
* its pool has no slot for it: stop (``overflow``);
* the newer word is applied; then the same checks for the older word, which
  is applied too unless the scan stops there.

Pairs start at an even ply count, so an equal position (same side to move)
can only appear at the end of a pair. A query that applies *P* words raises
``done`` exactly ``floor(P / 2) + 2`` clocks after the clock that samples
``start``.

Move words of legal games always alternate sides. Should two consecutive words
be of one side (nonsense written by a host), the scanner applies the newer
one, refetches, and finishes the query one word a clock, so that the answer is
the same as the golden model's in every case; only the clock count differs.
"""

from amaranth.hdl import *
from amaranth.lib import data, enum, wiring
from amaranth.lib.wiring import In, Out

from .word import MoveWord


__all__ = ["StopReason", "ResultLayout", "Scanner", "LATENCY_OVERHEAD"]

# Clocks from sampling ``start`` to ``done``, beyond one per applied pair:
# one to read the block RAM and register its output, one to stop.
LATENCY_OVERHEAD = 2

# A refetch after a same-side pair costs this many idle clocks.
REFETCH_CLOCKS = 2


class StopReason(enum.Enum, shape=2):
    BARRIER  = 0
    BOTTOM   = 1
    LIMIT    = 2
    OVERFLOW = 3


class ResultLayout(data.StructLayout):
    """The answer to a query, the same fields as ``axon.sim.golden.Result``.

    ``distance`` is 0 when no equal position was found.
    """
    def __init__(self, depth):
        super().__init__({
            "repetition":    1,
            "overflow":      1,
            "stop":          StopReason,
            "count":         4,
            "distance":      range(depth + 1),
            "plies_scanned": range(depth + 1),
        })


class Scanner(wiring.Component):
    """Query sequencing for one move list and one chain list.

    Parameters
    ----------
    depth : int
        Move-list entries; addresses run from 0 to ``depth - 1``.

    Members
    -------
    start : Signal(1), in
        Begin a query; ignored while ``busy``.
    top : Signal(range(depth)), in
        Address of the most recent move, sampled with ``start``.
    count_limit : Signal(4), in
        Stop after this many equal positions; sampled with ``start``.
    busy : Signal(1), out
        A query is running; the scanner owns the move-list read port.
    done : Signal(1), out
        The last query has finished and ``result`` holds its answer, until the
        next ``start``.
    result : ResultLayout(depth), out
    read_addr : Signal(range(depth)), out
        Address of the newer word to read, while ``busy`` or starting.
    read_newer, read_older : MoveWord, in
        The words at last clock's ``read_addr`` and the address below.
    chain_clear : Signal(1), out
    chain_newer, chain_older : MoveWord, out
    chain_apply_newer, chain_apply_older : Signal(1), out
    chain_overflow_newer, chain_overflow_older, chain_empty : Signal(1), in
        The chain list's ports, see :class:`~axon.hdl.chainlist.ChainList`.
    """

    def __init__(self, depth=256):
        if not isinstance(depth, int) or depth < 2:
            raise TypeError(f"Move-list depth must be an integer of at least 2, not {depth!r}")
        self._depth = depth
        super().__init__({
            "start":                In(1),
            "top":                  In(range(depth)),
            "count_limit":          In(4),
            "busy":                 Out(1),
            "done":                 Out(1),
            "result":               Out(ResultLayout(depth)),
            "read_addr":            Out(range(depth)),
            "read_newer":           In(MoveWord),
            "read_older":           In(MoveWord),
            "chain_clear":          Out(1),
            "chain_newer":          Out(MoveWord),
            "chain_older":          Out(MoveWord),
            "chain_apply_newer":    Out(1),
            "chain_apply_older":    Out(1),
            "chain_overflow_newer": In(1),
            "chain_overflow_older": In(1),
            "chain_empty":          In(1),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        result = self.result

        # The next address to fetch; it runs ahead of the pair in hand and may
        # step below 0, which the `*_present` flags record.
        fetch_addr   = Signal(range(-8, depth))
        single_step  = Signal()   # finish one word a clock (same-side words seen)
        count_limit  = Signal(4)

        # Stage 1: the block RAM output, and what is known about its address.
        read_valid         = Signal()
        read_newer_present = Signal()
        read_older_present = Signal()
        # Stage 2: the pair in hand, registered for timing.
        hand_valid         = Signal()
        hand_addr          = Signal(range(-8, depth))
        hand_newer_present = Signal()
        hand_older_present = Signal()
        hand_newer         = Signal(MoveWord)
        hand_older         = Signal(MoveWord)
        read_addr          = Signal(range(-8, depth))

        m.d.comb += [
            self.chain_newer.eq(hand_newer),
            self.chain_older.eq(hand_older),
        ]

        # The equal position left by the last pair, booked before the next
        # decision; `count_reached` and `count_reached_next` are registered so
        # that the limit test costs one multiplexer, not an adder.
        equal_position     = Signal()
        count_reached      = Signal()   # count >= count_limit
        count_reached_next = Signal()   # count + 1 >= count_limit
        m.d.comb += equal_position.eq(self.chain_empty & (result.plies_scanned != 0) &
                                      ~result.plies_scanned[0])
        limit_reached = Signal()
        m.d.comb += limit_reached.eq(Mux(equal_position, count_reached_next, count_reached))

        # Decide about the pair in hand.
        stop        = Signal()
        stop_reason = Signal(StopReason)
        take_newer  = Signal()
        take_older  = Signal()
        refetch     = Signal()
        same_side   = Signal()
        m.d.comb += same_side.eq(hand_newer.piece[3] == hand_older.piece[3])
        with m.If(limit_reached):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.LIMIT)]
        with m.Elif(~hand_newer_present):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.BOTTOM)]
        with m.Elif(hand_newer.barrier):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.BARRIER)]
        with m.Elif(self.chain_overflow_newer):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.OVERFLOW)]
        with m.Elif(single_step):
            m.d.comb += take_newer.eq(1)
        with m.Else():
            m.d.comb += take_newer.eq(1)
            with m.If(~hand_older_present):
                m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.BOTTOM)]
            with m.Elif(hand_older.barrier):
                m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.BARRIER)]
            with m.Elif(same_side):
                m.d.comb += refetch.eq(1)
            with m.Elif(self.chain_overflow_older):
                m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.OVERFLOW)]
            with m.Else():
                m.d.comb += take_older.eq(1)

        # The fetch pipeline, running ahead of the decisions.
        step = Mux(single_step, 1, 2)
        m.d.comb += self.read_addr.eq(fetch_addr[:len(self.read_addr)])
        m.d.sync += [
            read_older_present.eq(fetch_addr >= 1),
            read_newer_present.eq(fetch_addr >= 0),
            read_addr.eq(fetch_addr),
            hand_newer.eq(self.read_newer),
            hand_older.eq(self.read_older),
            hand_newer_present.eq(read_newer_present),
            hand_older_present.eq(read_older_present),
            hand_addr.eq(read_addr),
            hand_valid.eq(read_valid),
        ]

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    # Fetch the first pair on the starting clock itself.
                    m.d.comb += [
                        self.read_addr.eq(self.top),
                        self.chain_clear.eq(1),
                    ]
                    m.d.sync += [
                        self.done.eq(0),
                        read_valid.eq(1),
                        read_newer_present.eq(1),
                        read_older_present.eq(self.top != 0),
                        read_addr.eq(self.top),
                        fetch_addr.eq(self.top - 2),
                        single_step.eq(0),
                        count_limit.eq(self.count_limit),
                        count_reached.eq(self.count_limit == 0),
                        count_reached_next.eq(self.count_limit <= 1),
                        result.eq(0),
                    ]
                    m.next = "SCAN"

            with m.State("SCAN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [
                    fetch_addr.eq(fetch_addr - step),
                    read_valid.eq(1),
                ]
                with m.If(hand_valid):
                    with m.If(equal_position):
                        m.d.sync += [
                            result.count.eq(result.count + 1),
                            count_reached.eq(count_reached_next),
                            count_reached_next.eq(result.count + 2 >= count_limit),
                        ]
                        with m.If(result.count == 0):
                            m.d.sync += [
                                result.repetition.eq(1),
                                result.distance.eq(result.plies_scanned),
                            ]
                    m.d.comb += [
                        self.chain_apply_newer.eq(take_newer),
                        self.chain_apply_older.eq(take_older),
                    ]
                    m.d.sync += result.plies_scanned.eq(result.plies_scanned + take_newer +
                                                        take_older)
                    with m.If(stop):
                        m.d.sync += [
                            result.stop.eq(stop_reason),
                            result.overflow.eq(stop_reason == StopReason.OVERFLOW),
                            self.done.eq(1),
                            read_valid.eq(0),
                            hand_valid.eq(0),
                        ]
                        m.next = "IDLE"
                    with m.Elif(refetch):
                        # The pairs in flight were fetched two words apart;
                        # drop them and go on one word a clock.
                        m.d.sync += [
                            single_step.eq(1),
                            fetch_addr.eq(hand_addr - 1),
                            read_valid.eq(0),
                            hand_valid.eq(0),
                        ]

        return m
