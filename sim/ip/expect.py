"""What the IP package's testbenches expect: every write and query, with the
golden model's answer and its clock count, one line of JSON a query.

A testbench outside Python's reach of ``axon`` (cocotb, or the generated
Verilog testbench) replays the lines in order against the exported module:
it stores each line's ``writes`` through the memory port, asks its
``query``, and compares every field of the ``result`` and ``upcoming``
ports and the clocks the query took with ``expect``. The lines are written
by :class:`ExpectationSession`, a golden-model session that records what it
is told, so that the workloads come from the loops that already drive a
session: :func:`~axon.sim.backends.session.answer_games` for games and the
bench's recorded searches (:func:`~axon.sim.bench.recorded.record_searches`).

The lines fall into *groups* that each write every word they read, so that
a testbench can run a group alone, in any order, on a detector whose move
list holds anything.
"""

import os

import chess

from ...hdl.params import SHIPPED, DetectorConfig
from ...hdl.upcoming import UPCOMING_CLOCKS
from ...hdl.version import VERSION
from ...hdl.word import pack_word
from ..backends.pysim import expected_cycles
from ..backends.session import GoldenSession, HostWrites, answer_games
from ..bench.recorded import RecordedSearch, record_searches
from ..model.games import bundled_files, load_games, read_games


__all__ = ["GROUPS", "SEARCH", "GAMES_COUNT_LIMIT", "ExpectationSession", "expectations",
           "header"]

# The groups, in the order the lines come, and what each holds.
GROUPS = {
    "figures": "the paper's figures (paper_figure1.pgn, paper_figure5.pgn)",
    "games": "bundled games: the traps of the rules (traps.pgn) and the paper's appendix "
             "game (diep_axon.pgn)",
    "search": "a recorded search with a game history (a root) and the upcoming repetition",
    "refused": "writes during a query, refused, the move list and the answer unchanged",
    "user": "the games given with --expect",
}
FIGURE_FILES = ("paper_figure1.pgn", "paper_figure5.pgn")
GAME_FILES = ("traps.pgn", "diep_axon.pgn")
# A search in the appendix game's perpetual check, as the bench records its
# searches: 92 plies of history (the root), to depth 2. A few hundred
# queries, some of which find a repetition and some an upcoming one.
SEARCH = RecordedSearch(label="DIEP - AXON after 46... Qf4+", fen=None, pgn="diep_axon.pgn",
                        plies=92, depth=2)
# Count limit of the games' queries, as `axon scan` asks them by default:
# enough for the threefold and fivefold claims.
GAMES_COUNT_LIMIT = 4
# A knight shuffle from the start position, twice: the start position
# recurs after plies 4 and 8.
SHUFFLE = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *"


class ExpectationSession(GoldenSession):
    """The golden model as a session that writes down what it is asked.

    Each :meth:`query` becomes one line (a dict, see :attr:`lines`): the
    words written since the last query that change what the detector holds,
    the query, and the answer the ports must give, with its clocks
    (:func:`~axon.sim.backends.pysim.expected_cycles`). Those writes are
    the ones a testbench makes, in order, so they alone decide what the
    query's clocks depend on: whether the host wrote since the last query,
    and whether its last write was the word at the top
    (:class:`~axon.sim.backends.session.HostWrites`).

    Parameters
    ----------
    config : DetectorConfig
        The exported detector.
    """

    def __init__(self, config=SHIPPED):
        super().__init__(DetectorConfig.checked(config))
        self.lines = []
        self.group = self.case = ""
        self._pending = []
        self._known = [None] * config.depth
        self._writes = HostWrites()

    def start_group(self, group):
        """Begin ``group``: forget what the move list holds, so that the
        group writes every word it reads."""
        self.group = group
        self._known = [None] * self.depth
        self._writes.reset()

    def load(self, words):
        self._check_fits(words)
        for address, word in enumerate(words):
            self.write(address, word)

    def write(self, address, word):
        super().write(address, word)
        if self._known[address] != word:
            self._known[address] = word
            self._pending.append([address, word])
            self._writes.wrote(address)

    def query(self, top, count_limit, occupancy=None, root_address=-1, refuse=None):
        """Answer as the golden model and record the line; ``refuse``, a
        ``(clock, address, word)`` write that the testbench tries on that
        clock of the query (0: the clock that samples start), is refused and
        changes nothing."""
        answer = super().query(top, count_limit, occupancy, root_address)
        written = self._writes.starts(top)
        result, upcoming = answer.result.to_fields(backstop=self.config.backstop)
        if not self.config.upcoming:
            upcoming = dict.fromkeys(upcoming, 0)
        line = {"group": self.group, "case": self.case, "writes": self._pending,
                "query": {"top": top, "root_address": root_address, "count_limit": count_limit,
                          "occupancy": occupancy or 0},
                "expect": {"result": result, "upcoming": upcoming,
                           "cycles": expected_cycles(self._memory, top, answer.result,
                                                     self.config, written)}}
        if refuse is not None:
            clock, address, word = refuse
            line["refuse"] = {"clock": clock, "address": address, "word": word,
                              "stored": self._known[address]}
        self.lines.append(line)
        self._pending = []
        return answer


def header(config):
    """The first line: what the lines were written for."""
    return {"detector": "axon_detector", "version": VERSION,
            "configuration": f"depth {config.depth}, chains {config.chains}, "
                             f"rules {config.rules.value}{config.note}",
            # upcoming__done follows query__done without the upcoming block.
            "upcoming_done_after": UPCOMING_CLOCKS if config.upcoming else 0,
            "groups": GROUPS}


def _bundled(name):
    return next(path for path in bundled_files() if os.path.basename(path) == name)


def _answer_files(session, group, paths, count_limit):
    session.start_group(group)
    for path in paths:
        games = load_games(path)
        _answer(session, os.path.basename(path), games, count_limit)


def _answer(session, source, games, count_limit):
    for game in games:
        for _, plies in answer_games([game], _CaseNamer(session, source, game),
                                     count_limit=count_limit):
            for _ in plies:
                pass


class _CaseNamer:
    """``session`` seen through :func:`answer_games`, naming each query's case
    after the game and the ply it answers."""

    batch_plies = None

    def __init__(self, session, source, game):
        self.session, self.source, self.game = session, source, game
        self.config, self.depth = session.config, session.depth
        self.asked = 0

    def load(self, words):
        self.session.load(words)

    def query(self, top, count_limit, occupancy=None, root_address=-1):
        self.asked += 1
        self.session.case = f"{self.source} {self.game.label} ply {self.asked}"
        return self.session.query(top, count_limit, occupancy, root_address)


def _search(session, search):
    session.start_group("search")
    loads, _ = record_searches(log=lambda line: None, searches=[search])
    label = search.label
    for load in loads:
        # A move list shallower than the bench's cannot hold every line.
        if len(load.words) > session.depth:
            continue
        session.load(load.words)
        for recorded in load.queries:
            line = " ".join(load.line[:recorded.ply + 1]) or "(root)"
            session.case = f"search {label}, line {line}"
            session.query(*recorded.query)


def _refused(session):
    session.start_group("refused")
    game = read_games(SHUFFLE).games[0]
    if len(game.words) > session.depth:
        return
    occupancy = int(chess.Board().occupied)
    session.load(game.words)
    top = len(game.words) - 1
    # A barrier word (a pawn move) where the scan would read it: had the write
    # gone through, the answer would change.
    pawn = pack_word(12, 28, 1, barrier=True)
    for clock, address, case in ((0, top, "a write on the clock that samples start"),
                                 (1, 0, "a write while busy"),
                                 (2, top - 1, "a write while busy, later")):
        session.case = f"{case}, to address {address}"
        session.query(top, GAMES_COUNT_LIMIT, occupancy, -1, refuse=(clock, address, pawn))
        session.case = f"the same query after {case}"
        session.query(top, GAMES_COUNT_LIMIT, occupancy, -1)


def expectations(config, *, user_games=(), search=SEARCH):
    """The lines for a detector of ``config``: the header, then every group
    (``user_games``: ``(source, [GameRecord])`` pairs for the ``user`` group)."""
    session = ExpectationSession(config)
    _answer_files(session, "figures", [_bundled(name) for name in FIGURE_FILES],
                  GAMES_COUNT_LIMIT)
    _answer_files(session, "games", [_bundled(name) for name in GAME_FILES], GAMES_COUNT_LIMIT)
    _search(session, search)
    _refused(session)
    if user_games:
        session.start_group("user")
        for source, games in user_games:
            _answer(session, source, games, GAMES_COUNT_LIMIT)
    return [header(config)] + session.lines
