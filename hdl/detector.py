"""The Axon repetition detector: move list, scanner and chain list together."""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .chainlist import ChainList
from .lean import LeanMoveList, LeanScanner, check_scan
from .movelist import MoveList
from .pools import POOLS
from .scanner import ResultLayout, Scanner, query_members
from .upcoming import Upcoming, UpcomingLayout
from .params import (COUNT_LIMIT_BITS, CYCLE_BITS, CheckedComponent, check_chains, check_depth,
                     check_rules)
from .word import MoveWord


__all__ = ["AxonDetector", "upcoming_where_possible"]


def upcoming_where_possible(scan, upcoming=None):
    """``upcoming`` if given, else whether ``scan`` can have the upcoming
    repetition (the pair scan can, the lean one cannot): what the boards and
    the simulation sessions build when not told otherwise."""
    return scan == "pair" if upcoming is None else upcoming


class AxonDetector(CheckedComponent, wiring.Component):
    """Draw-by-repetition detector for one move list.

    Parameters
    ----------
    depth : int
        Move-list entries (default 256), even.
    chains : int
        Chain-list slots (default 24, as in the chessprogramming wiki), even:
        half serve each side.
    rules : str
        ``"exact"`` or ``"paper"``, see :mod:`axon.sim.model.golden`.
    pools : str
        ``"kind"`` (a chain pool per side and piece kind, the default) or
        ``"side"`` (one a side, the lean layout), see :mod:`axon.hdl.pools`.
    scan : str
        ``"pair"`` (two plies a clock from a two-bank move list, the default)
        or ``"single"`` (one a clock from one bank, the lean scan for the 1K
        boards), see :mod:`axon.hdl.lean`.
    upcoming : bool
        Also answer the upcoming repetition (default ``False``: the repetition
        core alone), see :mod:`axon.hdl.upcoming`. Without it ``upcoming``
        stays 0 and ``upcoming_done`` follows ``done``; the block costs area,
        not clock. The lean scan has none.

    Members
    -------
    start : Signal(1), in
        Begin a query with ``top`` and ``count_limit``; ignored while ``busy``.
    top : Signal(range(depth)), in
        Address of the most recent move.
    count_limit : Signal(4), in
        Stop after this many equal positions (1 = stop at the first).
    busy : Signal(1), out
    done : Signal(1), out
        ``result`` and ``cycles`` hold the last query's answer.
    result : ResultLayout(depth), out
    cycles : Signal(16), out
        Clocks from ``start`` to ``done`` of the last query.
    occupancy : Signal(64), in
        The queried position's occupied squares, bit *i* = square *i*, for
        the upcoming repetition; hold it from ``start`` until ``upcoming_done``.
    upcoming : UpcomingLayout(depth), out
        The side to move can repeat an earlier position with one move: which
        move, and how far back (see :mod:`axon.hdl.upcoming`).
    upcoming_done : Signal(1), out
        ``upcoming`` holds the last query's answer, until the next ``start``:
        ``UPCOMING_CLOCKS`` clocks after ``done``. ``result`` and ``done``
        do not wait for it.
    write_addr : Signal(range(depth)), in
    write_word : MoveWord, in
    write_en : Signal(1), in
        Store a move word; refused (not deferred) while ``busy`` and on the
        clock that samples ``start``.
    write_refused : Signal(1), out
    read_addr : Signal(range(depth)), in
    read_word : MoveWord, out
        The word at ``read_addr`` one clock later, while not ``busy`` (and not
        on the clock that starts a query); a word written on that clock is
        read as written.
    """

    @staticmethod
    def check_parameters(depth, chains, rules, pools, scan, upcoming):
        check_depth(depth)
        check_chains(chains)
        check_rules(rules, noun="Detector rules")
        if pools not in POOLS:
            raise ValueError(f"Pool layout must be one of {', '.join(POOLS)}, not {pools!r}")
        check_scan(scan)
        if not isinstance(upcoming, bool):
            raise TypeError(f"Upcoming must be True or False, not {upcoming!r}")
        if upcoming and scan != "pair":
            raise ValueError(f"The upcoming repetition needs the pair scan, not scan={scan!r}")

    def __init__(self, depth=256, chains=24, rules="exact", pools="kind", scan="pair",
                 upcoming=False):
        self._depth = depth
        self._chains = chains
        self._scan = scan
        self._rules = rules
        self._pools = pools
        self._upcoming = upcoming
        super().__init__({
            **query_members(depth),
            "cycles":        Out(CYCLE_BITS),
            "write_addr":    In(range(depth)),
            "write_word":    In(MoveWord),
            "write_en":      In(1),
            "write_refused": Out(1),
            "read_addr":     In(range(depth)),
            "read_word":     Out(MoveWord),
            "occupancy":     In(64),
            "upcoming":      Out(UpcomingLayout(depth)),
            "upcoming_done": Out(1),
        })

    depth  = property(lambda self: self._depth)
    chains = property(lambda self: self._chains)
    rules  = property(lambda self: self._rules)
    pools  = property(lambda self: self._pools)
    scan   = property(lambda self: self._scan)
    upcoming_enabled = property(lambda self: self._upcoming)

    def elaborate(self, platform):
        m = Module()
        pair = self._scan == "pair"
        m.submodules.move_list  = move_list  = (MoveList if pair else LeanMoveList)(self._depth)
        m.submodules.scanner    = scanner    = (Scanner if pair else LeanScanner)(self._depth)
        m.submodules.chain_list = chain_list = ChainList(self._chains, self._rules,
                                                              self._pools)

        # The host reads one word: both banks read the row, this picks one.
        # A read of the word being written gets the new word from here, not
        # from the block RAM, so that synthesis may leave that collision
        # undefined (see axon.boards.build).
        host_read_odd   = Signal()
        host_read_fresh = Signal()
        host_fresh_word = Signal(MoveWord)
        m.d.sync += [
            host_read_odd.eq(self.read_addr[0]),
            host_read_fresh.eq(self.write_en & ~self.write_refused &
                               (self.write_addr == self.read_addr)),
            host_fresh_word.eq(self.write_word),
        ]

        m.d.comb += [
            scanner.start.eq(self.start),
            scanner.top.eq(self.top),
            scanner.count_limit.eq(self.count_limit),
            self.busy.eq(scanner.busy),
            self.done.eq(scanner.done),
            self.result.eq(scanner.result),

            # The starting clock counts as part of the query: the first read
            # happens on it, and a write landing then would be seen by the
            # later reads of the scan but not the first.
            move_list.scan_active.eq(scanner.busy | self.start),
            move_list.host_write_addr.eq(self.write_addr),
            move_list.host_write_word.eq(self.write_word),
            move_list.host_write_en.eq(self.write_en),
            self.write_refused.eq(move_list.host_write_refused),

            chain_list.clear.eq(scanner.chain_clear),
            chain_list.white_move.eq(scanner.chain_white_move),
            chain_list.black_move.eq(scanner.chain_black_move),
            chain_list.white_next.eq(scanner.chain_white_next),
            chain_list.black_next.eq(scanner.chain_black_next),
            chain_list.apply_white_next.eq(scanner.chain_apply_white_next),
            chain_list.apply_black_next.eq(scanner.chain_apply_black_next),
            scanner.chain_white_overflow.eq(chain_list.white_overflow),
            scanner.chain_black_overflow.eq(chain_list.black_overflow),
            scanner.chain_empty.eq(chain_list.empty),
        ]
        if pair:
            m.d.comb += [
                move_list.even_row.eq(Mux(scanner.reading, scanner.even_row,
                                          self.read_addr >> 1)),
                move_list.odd_row.eq(Mux(scanner.reading, scanner.odd_row, self.read_addr >> 1)),
                scanner.even_word.eq(move_list.even_word),
                scanner.odd_word.eq(move_list.odd_word),
                self.read_word.eq(Mux(host_read_fresh, host_fresh_word,
                                      Mux(host_read_odd, move_list.odd_word,
                                          move_list.even_word))),
            ]
        else:
            m.d.comb += [
                move_list.read_addr.eq(Mux(scanner.reading, scanner.scan_addr, self.read_addr)),
                scanner.scan_word.eq(move_list.read_word),
                self.read_word.eq(Mux(host_read_fresh, host_fresh_word, move_list.read_word)),
            ]

        if self._upcoming:
            m.submodules.upcoming_check = upcoming = Upcoming(self._depth)
            m.d.comb += [
                upcoming.start.eq(self.start & ~scanner.busy),
                upcoming.mover_black.eq(scanner.mover_black),
                upcoming.white_lone.eq(chain_list.white_lone),
                upcoming.black_lone.eq(chain_list.black_lone),
                upcoming.taken_newer.eq(scanner.taken_newer),
                upcoming.taken_newer_black.eq(scanner.taken_newer_black),
                upcoming.taken_depth.eq(scanner.taken_depth),
                upcoming.done.eq(scanner.done),
                upcoming.occupancy.eq(self.occupancy),
                self.upcoming.eq(upcoming.upcoming),
                self.upcoming_done.eq(upcoming.upcoming_done),
            ]
        else:
            m.d.comb += self.upcoming_done.eq(scanner.done)

        # Counted here rather than in a testbench so that a board can report it.
        with m.If(self.start & ~scanner.busy):
            m.d.sync += self.cycles.eq(0)
        with m.Elif(scanner.busy):
            m.d.sync += self.cycles.eq(self.cycles + 1)

        return m
