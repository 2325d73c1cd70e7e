# amaranth: UnusedElaboratable=no
# (The parts made here are made with the component that owns them, for its
# observation view; they are used when it is. A component made and never
# elaborated is still reported, where it was made.)
"""The Axon repetition detector: move list, scanner and chain list together."""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from .backstop import Backstop
from .chainlist import ChainList
from .lean import LeanMoveList, LeanScanner
from .movelist import MoveList
from .observe import MOVE_WORD_MEANINGS, Meaning, Observation
from .params import CORE, DetectorConfig, Stop
from .ports import MoveMemorySignature, QuerySignature, UpcomingSignature
from .scanner import Scanner
from .walkedlist import WalkedChainList
from .walkedscan import WalkedScanner
from .upcoming import Upcoming


__all__ = ["AxonDetector"]


class AxonDetector(wiring.Component):
    """Draw-by-repetition detector for one move list.

    Parameters
    ----------
    config : DetectorConfig
        What to build (default :data:`~axon.hdl.params.CORE`, the shipped
        configuration without the upcoming block): the move list's ``depth``, the
        chain list's ``chains``, ``rules`` (see :mod:`axon.sim.model.golden`)
        and ``pools`` (see :mod:`axon.hdl.pools`), the ``scan`` (two plies a
        clock, or the lean one a clock of :mod:`axon.hdl.lean`; the walked
        list of :mod:`axon.hdl.walkedlist` has its own, one word at a time,
        :mod:`axon.hdl.walkedscan`), whether it also answers the
        ``upcoming`` repetition (see :mod:`axon.hdl.upcoming`; the pair scan
        only), and whether a ``backstop`` answers what the pools overflow
        (see :mod:`axon.hdl.backstop`; the pair scan; it answers the
        upcoming repetition too). Without the upcoming block ``upcoming.answer``
        stays 0 and ``upcoming.done`` follows ``query.done``; the block costs
        area, not clock.

    Members
    -------
    query : In(QuerySignature(depth, backstop=config.backstop))
        Ask with ``start``, ``top`` (the address of the most recent move),
        ``root_address`` (the address of the last word of the game history,
        -1 for none: a search from the position after it) and ``count_limit`` (stop
        after this many equal positions, 1 = at the first, once the draw is
        decided); ``start`` is ignored while ``busy``. ``done`` rises with the
        answer in ``result`` and the query's clock count in ``cycles``; both
        hold until the next ``start``. With a backstop, ``result.backstop``
        says that it answered.
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

    Attributes
    ----------
    observe : Observation
        What the formal proofs and the waveforms see of the design (see
        :mod:`axon.hdl.observe`; none of it becomes a port): the ``query``
        port, the ``scanner``'s pipeline registers and its reads of the move
        list, the ``chain_list``'s pools
        (``observe.chain_list.white.pool_2``), with the upcoming block the
        ``upcoming`` port and the block's view, ``upcoming_check`` (with the
        path check in it), and last the ``memory`` port. Each part's group
        is named like the part in the design.
    """

    def __init__(self, config=CORE):
        # Checked before any part is made: a refused configuration makes none.
        self._config = DetectorConfig.checked(config)
        depth = config.depth
        super().__init__({
            "query":    In(QuerySignature(depth, backstop=config.backstop)),
            "memory":   In(MoveMemorySignature(depth)),
            "upcoming": In(UpcomingSignature(depth)),
        })
        # The parts are made here rather than in `elaborate`, so that the
        # detector's view can show theirs; keyed by their names in the design.
        pair = config.pair_scan
        # The walked list takes a word at a time, as its own scanner hands it.
        scanner = WalkedScanner if config.walked else Scanner if pair else LeanScanner
        self._parts = {
            "move_list":  MoveList(depth, backstop=config.backstop) if pair else LeanMoveList(depth),
            "scanner":    (Scanner(depth, config.pooled_kinds, backstop=config.backstop) if pair
                           else scanner(depth)),
            "chain_list": (WalkedChainList if config.walked else ChainList)(config),
        }
        if config.upcoming:
            self._parts["upcoming_check"] = Upcoming(depth)
        if config.backstop:
            self._parts["backstop"] = Backstop(config)
        # The query first, as the host sees it, then the parts' views.
        members = {"query": self.query, "scanner": self._parts["scanner"].observe,
                   "chain_list": self._parts["chain_list"].observe}
        if config.upcoming:
            members["upcoming"] = self.upcoming
            members["upcoming_check"] = self._parts["upcoming_check"].observe
        if config.backstop:
            members["backstop"] = self._parts["backstop"].observe
        members["memory"] = self.memory
        self.observe = Observation(members, meanings={
            "memory": MOVE_WORD_MEANINGS,
            **({"upcoming": {"from_sq": Meaning.SQUARE, "to_sq": Meaning.SQUARE}}
               if config.upcoming else {})})

    @property
    def config(self):
        return self._config

    @staticmethod
    def _follow_backstop(m, backstop, upcoming):
        """Once the pools handed a query over, the upcoming block follows the
        walked list's words. (A test's broken variant, the block that keeps
        the pools' answer, overrides it.)"""
        wiring.connect(m, backstop.upcoming, upcoming.backstop)

    def elaborate(self, platform):
        m = Module()
        config = self._config
        for name, part in self._parts.items():
            m.submodules[name] = part
        move_list, scanner, chain_list = (self._parts[name]
                                          for name in ("move_list", "scanner", "chain_list"))

        # The host asks the scanner and owns the move list's port; the
        # scanner reads the move list and hands each move to the chain list.
        if config.backstop:
            # The backstop stands between the host and the pools' scan.
            backstop = self._parts["backstop"]
            wiring.connect(m, wiring.flipped(self.query), backstop.query)
            wiring.connect(m, backstop.pools, scanner.query)
            wiring.connect(m, backstop.reads, move_list.backstop)
            m.d.comb += scanner.backstop_finishing.eq(backstop.finishing)
        else:
            wiring.connect(m, wiring.flipped(self.query), scanner.query)
        wiring.connect(m, wiring.flipped(self.memory), move_list.host)
        wiring.connect(m, scanner.reads, move_list.scan)
        wiring.connect(m, scanner.chains, chain_list.scan)

        if config.upcoming:
            upcoming = self._parts["upcoming_check"]
            wiring.connect(m, wiring.flipped(self.upcoming), upcoming.query)
            # It follows the scan: which side moves, what each side's pools
            # hold, and each word the scanner takes. It listens to two parts
            # at once, the scanner and the chain list, and to the query
            # handshake the scanner shares with the detector's port; a
            # signature joins one part to one other, so these taps stay plain
            # assignments, each named for what it tells.
            m.d.comb += [
                upcoming.scan_start.eq(scanner.query.start & ~scanner.query.busy),
                # The query's done, which with a backstop may come later
                # than the pools' scan's.
                upcoming.scan_done.eq(self.query.done),
                upcoming.mover_black.eq(scanner.mover_black),
                upcoming.white_lone.eq(chain_list.white_lone),
                upcoming.black_lone.eq(chain_list.black_lone),
                upcoming.taken_newer.eq(scanner.taken_newer),
                upcoming.taken_newer_black.eq(scanner.taken_newer_black),
                upcoming.taken_depth.eq(scanner.taken_depth),
                upcoming.taken_inside.eq(scanner.taken_inside),
                upcoming.scan_complete.eq((self.query.result.stop == Stop.BARRIER) |
                                          (self.query.result.stop == Stop.BOTTOM)),
            ]
            if config.backstop:
                self._follow_backstop(m, backstop, upcoming)
        else:
            m.d.comb += self.upcoming.done.eq(self.query.done)

        return m
