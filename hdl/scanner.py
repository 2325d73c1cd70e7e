"""The scanner: walks the move list back from the top of stack, one ply a clock.

It is the control half of the paper's PERPETUAL function. The move list is a
synchronous block RAM, so the word at ``scan_addr`` arrives one clock after
the address; the scanner keeps one read in flight and examines one word per
clock. Each clock it first books the equal position left by the previous word
(chain list empty after an even number of plies), then decides about the
word in hand:

* ``count_limit`` equal positions found: stop (``limit``);
* no word left below address 0: stop (``bottom``);
* the word is a barrier, an irreversible move: stop (``barrier``), the
  reversible-flag early exit of section 5.1;
* the chain list cannot take it: stop (``overflow``);
* otherwise the chain list applies it.

A query that applies *P* words therefore raises ``done`` exactly ``P + 2``
clocks after the clock that samples ``start``, whatever the stop reason.
"""

from amaranth.hdl import *
from amaranth.lib import data, enum, wiring
from amaranth.lib.wiring import In, Out

from .word import MoveWord


__all__ = ["StopReason", "ResultLayout", "Scanner", "LATENCY_OVERHEAD"]

# Clocks from sampling ``start`` to ``done``, beyond one per applied word.
LATENCY_OVERHEAD = 2


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
    parity_check : bool
        Require an even number of plies for an equal position (same side to
        move). The wiki's pseudo-code has no such check.

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
        Move-list read address; the word arrives on ``read_word`` a clock later.
    read_word : MoveWord, in
    chain_clear, chain_apply : Signal(1), out
    chain_move : MoveWord, out
    chain_overflow, chain_empty : Signal(1), in
        The chain list's ports, see :class:`~axon.hdl.chainlist.ChainList`.
    """

    def __init__(self, depth=256, parity_check=True):
        if not isinstance(depth, int) or depth < 1:
            raise TypeError(f"Move-list depth must be a positive integer, not {depth!r}")
        self._depth = depth
        self._parity_check = parity_check
        super().__init__({
            "start":          In(1),
            "top":            In(range(depth)),
            "count_limit":    In(4),
            "busy":           Out(1),
            "done":           Out(1),
            "result":         Out(ResultLayout(depth)),
            "read_addr":      Out(range(depth)),
            "read_word":      In(MoveWord),
            "chain_clear":    Out(1),
            "chain_apply":    Out(1),
            "chain_move":     Out(MoveWord),
            "chain_overflow": In(1),
            "chain_empty":    In(1),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        result = self.result

        # One bit wider than an address, so that stepping below 0 is visible.
        scan_addr    = Signal(range(-1, depth), init=-1)
        word_present = Signal()   # `read_word` holds a word of this query
        count_limit  = Signal(4)
        m.d.comb += [
            self.read_addr.eq(scan_addr[:len(self.read_addr)]),
            self.chain_move.eq(self.read_word),
        ]

        # The chain list now shows the state after `plies_scanned` words.
        equal_position = Signal()
        if self._parity_check:
            m.d.comb += equal_position.eq(self.chain_empty & (result.plies_scanned != 0) &
                                          ~result.plies_scanned[0])
        else:
            m.d.comb += equal_position.eq(self.chain_empty & (result.plies_scanned != 0))
        count_now = Signal(5)
        m.d.comb += count_now.eq(result.count + equal_position)

        stop        = Signal()
        stop_reason = Signal(StopReason)
        with m.If(count_now >= count_limit):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.LIMIT)]
        with m.Elif(~word_present):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.BOTTOM)]
        with m.Elif(self.read_word.barrier):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.BARRIER)]
        with m.Elif(self.chain_overflow):
            m.d.comb += [stop.eq(1), stop_reason.eq(StopReason.OVERFLOW)]

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.comb += self.chain_clear.eq(1)
                    m.d.sync += [
                        self.done.eq(0),
                        scan_addr.eq(self.top),
                        count_limit.eq(self.count_limit),
                        result.eq(0),
                    ]
                    m.next = "FETCH"

            with m.State("FETCH"):
                # The first word is in flight; nothing to examine yet.
                m.d.comb += self.busy.eq(1)
                m.d.sync += [
                    word_present.eq(scan_addr >= 0),
                    scan_addr.eq(scan_addr - 1),
                ]
                m.next = "SCAN"

            with m.State("SCAN"):
                m.d.comb += self.busy.eq(1)
                with m.If(equal_position):
                    m.d.sync += result.count.eq(count_now)
                    with m.If(result.count == 0):
                        m.d.sync += [
                            result.repetition.eq(1),
                            result.distance.eq(result.plies_scanned),
                        ]
                with m.If(stop):
                    m.d.sync += [
                        result.stop.eq(stop_reason),
                        result.overflow.eq(stop_reason == StopReason.OVERFLOW),
                        self.done.eq(1),
                    ]
                    m.next = "IDLE"
                with m.Else():
                    m.d.comb += self.chain_apply.eq(1)
                    m.d.sync += [
                        result.plies_scanned.eq(result.plies_scanned + 1),
                        word_present.eq(scan_addr >= 0),
                        scan_addr.eq(scan_addr - 1),
                    ]

        return m
