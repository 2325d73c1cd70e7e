"""The Axon repetition detector: move list, scanner and chain list together."""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from .chainlist import ChainList
from .lean import LeanMoveList, LeanScanner, check_scan
from .movelist import MoveList
from .params import CheckedComponent, check_chains, check_depth, check_rules
from .pools import check_pools_rules
from .ports import MoveMemorySignature, QuerySignature, UpcomingSignature
from .scanner import Scanner
from .upcoming import Upcoming


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
        ``"kind"`` (a chain pool per side and piece kind, the default),
        ``"spill"`` (a pool per kind for the starting material and a spill
        pool a side for any kind; ``exact`` rules only) or ``"side"`` (one a
        side, the lean layout), see :mod:`axon.hdl.pools`.
    scan : str
        ``"pair"`` (two plies a clock from a two-bank move list, the default)
        or ``"single"`` (one a clock from one bank, the lean scan for the 1K
        boards), see :mod:`axon.hdl.lean`.
    upcoming : bool
        Also answer the upcoming repetition (default ``False``: the repetition
        core alone), see :mod:`axon.hdl.upcoming`. Without it
        ``upcoming.answer`` stays 0 and ``upcoming.done`` follows
        ``query.done``; the block costs area, not clock. The lean scan has
        none.

    Members
    -------
    query : In(QuerySignature(depth))
        Ask with ``start``, ``top`` (the address of the most recent move),
        ``root`` (the address of the last word of the game history, -1 for
        none: a search from the position after it) and ``count_limit`` (stop
        after this many equal positions, 1 = at the first, once the draw is
        decided); ``start`` is ignored while ``busy``. ``done`` rises with the
        answer in ``result`` and the query's clock count in ``cycles``; both
        hold until the next ``start``.
    memory : In(MoveMemorySignature(depth))
        The move list: store a word a clock through ``write_*`` (refused, not
        deferred, while ``busy`` and on the clock that samples ``start``, and
        ``write_refused`` says so); read one back through ``read_addr`` and
        ``read_word`` a clock later, while not ``busy`` (a word written on
        that clock is read as written).
    upcoming : In(UpcomingSignature(depth))
        The upcoming repetition: give the position's ``occupancy`` (bit *i* =
        square *i*) from ``start`` until ``upcoming.done``, which rises
        ``UPCOMING_CLOCKS`` clocks after ``query.done`` with the ``answer``:
        the side to move can repeat an earlier position with one move, which
        move, and how far back (see :mod:`axon.hdl.upcoming`). Without the
        block, ``answer`` stays 0 and ``done`` follows ``query.done``.
    """

    @staticmethod
    def check_parameters(depth, chains, rules, pools, scan, upcoming):
        check_depth(depth)
        check_chains(chains)
        check_rules(rules, noun="Detector rules")
        check_pools_rules(pools, rules)
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
            "query":    In(QuerySignature(depth)),
            "memory":   In(MoveMemorySignature(depth)),
            "upcoming": In(UpcomingSignature(depth)),
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

        # The host asks the scanner and owns the move list's port; the
        # scanner reads the move list and hands each move to the chain list.
        wiring.connect(m, wiring.flipped(self.query), scanner.query)
        wiring.connect(m, wiring.flipped(self.memory), move_list.host)
        wiring.connect(m, scanner.reads, move_list.scan)
        wiring.connect(m, scanner.chains, chain_list.scan)

        if self._upcoming:
            m.submodules.upcoming_check = upcoming = Upcoming(self._depth)
            wiring.connect(m, wiring.flipped(self.upcoming), upcoming.query)
            # It follows the scan: which side moves, what each side's pools
            # hold, and each word the scanner takes.
            m.d.comb += [
                upcoming.scan_start.eq(scanner.query.start & ~scanner.query.busy),
                upcoming.scan_done.eq(scanner.query.done),
                upcoming.mover_black.eq(scanner.mover_black),
                upcoming.white_lone.eq(chain_list.white_lone),
                upcoming.black_lone.eq(chain_list.black_lone),
                upcoming.taken_newer.eq(scanner.taken_newer),
                upcoming.taken_newer_black.eq(scanner.taken_newer_black),
                upcoming.taken_depth.eq(scanner.taken_depth),
                upcoming.taken_inside.eq(scanner.taken_inside),
            ]
        else:
            m.d.comb += self.upcoming.done.eq(scanner.query.done)

        return m
