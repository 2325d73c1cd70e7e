"""The bench's search workload, recorded from real searches.

``axon search`` (:mod:`axon.sim.engine`) searches a few positions to fixed
depths with the golden model as its repetition test, and every query it asks
is recorded: the move-list words as the host wrote them, ``top``, ``root``,
the count limit and the node's occupancy. A search asks its queries along
its lines, so queries whose lines are prefixes of one another are recorded
with one list of words, a *load*. The queries are then replayed through the
RTL for their clocks as the search asked them, each right after the host
wrote the word at its top, every answer checked against the golden model
(and against what the search was told), and timed on the software peers.

:func:`host_rates` measures what the detector costs the host's search: nodes
per second with no repetition test, with python-chess and with the golden,
CXXRTL and link detectors, and the link's bytes per node.
"""

import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable, NamedTuple, Optional, Union

import chess

from ...hdl.params import Written
from ..backends.link import Link, open_transport
from ..backends.cxxrtl import CxxrtlSession
from ..backends.session import GoldenSession, Query
from ..backends.transport import Transport
from ..engine.repetition import ChessTest, DetectorTest, NoTest
from ..engine.alphabeta import Engine
from ..model.games import load_games
from ..model.golden import Result, perpetual
from .peers import make_peer_games, run_peers
from .workload import CONFIG, rtl_clocks, rtl_query


__all__ = ["RecordedSearch", "RECORDED_SEARCHES", "RATE_DEPTHS", "LINK_BAUD", "RecordedQuery",
           "RecordedLoad", "Recording", "record_searches",
           "simulate_recorded", "recorded_software", "recorded_figures", "host_rates"]

DATA = os.path.join(os.path.dirname(__file__), os.pardir, "data")
WAC_018 = "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1"


@dataclass(frozen=True)
class RecordedSearch:
    """One search the bench records.

    Members
    -------
    label : str
        How the figures name it.
    fen : str or None
        The start position, or ``None`` for the first game of ``pgn``.
    pgn : str or None
        A bundled PGN file (``sim/data``), or ``None`` with a ``fen``.
    plies : int
        Plies of the game played before the root (game history).
    depth : int
        The search's depth, in plies.
    """
    label: str
    fen:   Optional[str]
    pgn:   Optional[str]
    plies: int
    depth: int


# The paper's WAC.018, and a middlegame and an endgame of the paper's
# appendix game, whose history holds the perpetual check's first cycle.
RECORDED_SEARCHES = (
    RecordedSearch(label="WAC.018", fen=WAC_018, pgn=None, plies=0, depth=6),
    RecordedSearch(label="DIEP - AXON after 38. Qb7", fen=None, pgn="diep_axon.pgn",
                   plies=75, depth=4),
    RecordedSearch(label="DIEP - AXON after 44... Qd3+", fen=None, pgn="diep_axon.pgn",
                   plies=88, depth=5),
)
# Node rates: WAC.018 to this depth for the host's tests, shallower over
# the link simulated at its pins (a few nodes a second).
RATE_DEPTHS = {"host": 5, "link": 1}
LINK_BAUD = 1_000_000
# 8 data bits, a start and a stop bit.
BITS_PER_BYTE = 10


def position(fen, pgn, plies):
    """``(start board, game history)`` of a recorded search."""
    if fen is not None:
        return chess.Board(fen), []
    game = load_games(os.path.join(DATA, pgn))[0]
    return game.board, game.moves[:plies]


class RecordedQuery(NamedTuple):
    """One query a search asked: ``query`` as the RTL takes it, a
    :class:`~axon.sim.backends.session.Query`; ``told``, the
    :class:`~axon.sim.model.golden.Result` the search was told; ``ply``, the
    index on its load's line of the move it asks about."""
    query: Query
    told:  Result
    ply:   int


@dataclass
class RecordedLoad:
    """Queries of a search that share one load of the move list: their lines
    are prefixes of ``line`` (UCI moves from ``start``, the position after
    the game history's last barrier), and ``words`` is the move list they
    all read."""
    start:   chess.Board
    line:    list
    words:   list
    queries: list = field(default_factory=list)


class Recording(NamedTuple):
    """What :func:`record_searches` recorded: the :class:`RecordedLoad` s of
    every search, and a summary of each search (``workloads`` reports it)."""
    loads:   list
    summary: list


class _Recorder:
    """Groups the queries of a search: a query whose line extends or is a
    prefix of the load's line joins it (one load of the move list serves
    them all). A load's line starts where the move list does (the last
    barrier of the game history), which is all a query reaches."""

    def __init__(self, board):
        self._board = board
        self._start = None
        self.loads = []
        self._load = None

    def record(self, test, top, count_limit, occupancy, result):
        first = test.history_plies - (test.root_address + 1)
        if self._start is None:
            self._start = self._board.copy(stack=False)
            for uci in test.line[:first]:
                self._start.push_uci(uci)
        line = test.line[first:test.history_plies + top - test.root_address]
        query = rtl_query(top, count_limit, occupancy, test.root_address)
        held = self._load.line if self._load is not None else None
        if held is not None and line[:len(held)] == held:
            self._load.line = list(line)
            self._load.words = test.written[:top + 1]
        elif held is None or held[:len(line)] != line:
            self._load = RecordedLoad(self._start, list(line), test.written[:top + 1])
            self.loads.append(self._load)
        self._load.queries.append(RecordedQuery(query, result, len(line) - 1))


def _search(search: Union[RecordedSearch, tuple]) -> RecordedSearch:
    if isinstance(search, RecordedSearch):
        return search
    warnings.warn("a recorded search as a tuple (label, fen, pgn, plies, depth) is "
                  "deprecated: give a RecordedSearch", DeprecationWarning, stacklevel=3)
    return RecordedSearch(*search)


def record_searches(log: Callable[[str], None] = print,
                    searches: Iterable[RecordedSearch] = RECORDED_SEARCHES) -> Recording:
    """The :class:`Recording` of every :class:`RecordedSearch` of ``searches``."""
    loads, summary = [], []
    for search in map(_search, searches):
        label, plies, depth = search.label, search.plies, search.depth
        board, history = position(search.fen, search.pgn, plies)
        recorder = _Recorder(board)
        test = DetectorTest(GoldenSession(CONFIG), on_query=recorder.record)
        engine = Engine(board, history, test)
        began = time.monotonic()
        results = list(engine.iterate(depth))
        queries = sum(len(load.queries) for load in recorder.loads)
        summary.append({"position": label, "history_plies": plies, "depth": depth,
                        "nodes": sum(result.nodes for result in results),
                        "repetitions": sum(result.repetitions for result in results),
                        "queries": queries, "key_move": results[-1].move,
                        "evaluation": results[-1].evaluation})
        log(f"recorded search {label} to depth {depth}: {queries} queries in "
            f"{time.monotonic() - began:.1f} s")
        loads += recorder.loads
    return Recording(loads, summary)


def simulate_recorded(loads, session, backend, log=print):
    """Replay the recorded queries (:class:`RecordedLoad` s) on the RTL
    ``session``; check each answer against the golden model and against what
    the search was told.

    A search writes the word at a node's top and then asks, so every query
    it asks starts from the words just written
    (:attr:`~axon.hdl.params.Written.TOP`): each is replayed as a job of its
    own, after a load that ends with the word at its top."""
    recorded = [(load.words[:query.query.top + 1], query)
                for load in loads for query in load.queries]
    jobs = [(words, [query.query]) for words, query in recorded]
    started = time.monotonic()
    answers = session.run_batch(jobs)
    seconds = time.monotonic() - started
    plies, cycles, mismatches, draws, overflows = [], [], 0, 0, 0
    for (words, (query, told, _)), (rtl,) in zip(recorded, answers):
        top = query.top
        golden = perpetual(words, top, root_address=query.root_address, config=CONFIG,
                           count_limit=query.count_limit, occupancy=query.occupancy)
        # The search ran without the upcoming block's answer: compare the rest.
        same_as_told = golden.draw == told.draw and golden.count == told.count and \
            golden.distance == told.distance and golden.stop == told.stop
        mismatches += (rtl.result != golden or not same_as_told or
                       rtl.cycles != rtl_clocks(words, top, golden, Written.TOP))
        draws += golden.draw
        overflows += golden.overflow
        plies.append(golden.plies_scanned)
        cycles.append(rtl.cycles)
    log(f"recorded search workload: {len(plies)} queries of {len(loads)} loads on {backend} "
        f"in {seconds:.1f} s, {mismatches} mismatches, {draws} draws")
    return {"plies": plies, "cycles": cycles, "mismatches": mismatches, "draws": draws,
            "overflows": overflows, "loads": len(loads)}


def recorded_software(loads, log=print):
    """The software peers on the recorded queries (repetition at count limit
    1 without a root, as for the other workloads: the same kind of scan)."""
    games = make_peer_games([(load.start, [chess.Move.from_uci(uci) for uci in load.line])
                             for load in loads])
    queries = [(index, recorded.ply) for index, load in enumerate(loads)
               for recorded in load.queries]
    started = time.monotonic()
    peers = run_peers(games, queries, count_limit=1)
    log(f"software peers on the recorded search workload timed in "
        f"{time.monotonic() - started:.1f} s")
    return peers


def recorded_figures(summary, sim):
    """What ``workloads.recorded_search`` says of its searches and checks, besides
    the figures every workload has."""
    return {"corpus": "the detector queries of axon search", "searches": summary,
            "loads": sim["loads"], "mismatches": sim["mismatches"], "draws": sim["draws"],
            "overflows": sim["overflows"], "root": "the last word of the game history"}


class CountingTransport(Transport):
    """A transport that counts the bytes each way."""

    def __init__(self, inner):
        self.inner = inner
        self.sent = self.received = 0
        self.config = getattr(inner, "config", None)

    def write(self, data):
        self.sent += len(data)
        self.inner.write(data)

    def read(self, count, timeout):
        data = self.inner.read(count, timeout)
        self.received += len(data)
        return data

    def resync(self):
        self.inner.resync()

    def close(self):
        self.inner.close()


def _rate(start, test, depth):
    engine = Engine(start, [], test)
    results = list(engine.iterate(depth))
    nodes = sum(result.nodes for result in results)
    seconds = sum(result.seconds for result in results)
    return {"depth": depth, "nodes": nodes, "queries": test.queries,
            "seconds": round(seconds, 3), "nodes_per_second": round(nodes / seconds),
            "us_per_node": round(1e6 * seconds / nodes, 1)}


def host_rates(log=print, depths=RATE_DEPTHS, links=("sim://icebreaker",)):
    """Nodes per second of the WAC.018 search with each repetition test, in
    one run; and over each link, the bytes per node and the node rate the
    link's bytes allow at :data:`LINK_BAUD`."""
    start = chess.Board(WAC_018)
    rates = {}
    for name, make in (("off", NoTest), ("python-chess", ChessTest),
                       ("golden", lambda: DetectorTest(GoldenSession(CONFIG))),
                       ("cxxrtl", None)):
        if name == "cxxrtl":
            with CxxrtlSession(CONFIG) as session:
                rates[name] = _rate(start, DetectorTest(session), depths["host"])
        else:
            rates[name] = _rate(start, make(), depths["host"])
        log(f"search rate {name}: {rates[name]['nodes_per_second']} nodes/s")
    for url in links:
        with CountingTransport(open_transport(url)) as transport:
            link = Link(transport)
            link.identify()
            transport.sent = transport.received = 0
            figures = _rate(start, DetectorTest(link.session()), depths["link"])
        per_node = (transport.sent + transport.received) / figures["nodes"]
        figures.update(bytes_sent=transport.sent, bytes_received=transport.received,
                       bytes_per_node=round(per_node, 2),
                       nodes_per_second_at_1_mbaud=round(LINK_BAUD / BITS_PER_BYTE / per_node))
        rates[f"link:{url}"] = figures
        log(f"search rate over {url}: {figures['nodes_per_second']} nodes/s, "
            f"{figures['bytes_per_node']} bytes a node")
    return rates
