"""One interface for every way of answering queries, and the one loop that uses it.

A *detector session* holds a move list and answers queries about it. The
golden model, the gateware in Amaranth's simulator, the gateware compiled
with CXXRTL and a board on the host link are all sessions:

* ``config`` is the :class:`~axon.hdl.params.DetectorConfig` it answers
  for, and ``depth`` the move list's size, ``config.depth``;
* ``load(words)`` stores ``words`` from address 0 (what a shorter load does
  not overwrite keeps its old value, which no query of that load reads),
  one word after another from address 0 up: every backend's last write is
  the load's last word (which the next query's clocks depend on,
  :class:`HostWrites`);
* ``write(address, word)`` stores one word, leaving the others as they are:
  a search writes each move's word as it goes down the tree;
* ``query(top, count_limit, occupancy=None, root_address=-1)`` answers one
  query with an :class:`Answer`; with the position's ``occupancy`` (a 64-bit
  bitboard) the answer has the upcoming repetition too, and ``root_address``
  is the address of the game history's last word (-1: none);
* ``write_and_query(writes, top, count_limit, occupancy=None, root_address=-1)``
  stores ``(address, word)`` pairs and then answers a query: what a search
  asks at a node, in one round trip on a link;
* ``run_batch(jobs, on_answer=None)`` answers ``(words, [query, ...])`` jobs
  in order, each query a :class:`Query` (or a tuple of its first fields,
  ``(top, count_limit)`` or ``(top, count_limit, occupancy)``), each after
  loading its words, and returns one list
  of :class:`Answer` per job. ``on_answer(job, index, answer)`` is called as
  each answer arrives, for progress;
* ``batch_plies`` says which of the two is natural to it: ``None`` (one
  query at a time: the golden model, a board), or the plies a batch holds at
  most (a simulation, which costs a start-up a batch; 0: all in one, for a
  waveform of the whole run).

:class:`Session` is abstract: a backend implements ``load``, ``write`` and
``query``, and inherits a ``run_batch`` made of them; one that runs a batch
faster at once (a simulation) overrides ``run_batch`` too. ``run_batch``
calls ``query``, never the other way round, so a backend that leaves out
``query`` cannot be made at all, rather than recursing when asked.
:func:`answer_games` is the one loop "load each window, query each ply" that
``axon scan``, ``verify``, ``query`` and ``report`` share, whatever the
session: it hands out each game's answers as soon as they are answered.
"""

import abc
import warnings
from dataclasses import dataclass
from typing import (Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence,
                    Tuple)

from ...hdl.params import SHIPPED, DetectorConfig, Written
from ..model.golden import Result, perpetual
from ..model.history import (Window, is_window_limited, iter_window_segments, root_address,
                             window_segments)


__all__ = ["Answer", "Query", "Session", "GoldenSession", "HostWrites", "written_before",
           "PlyAnswer", "answer_games", "answers", "batches", "SIMULATION_BATCH_PLIES",
           "deprecated_root"]


def deprecated_root(root_address: int, deprecated: Dict[str, Any], where: str) -> int:
    """``root_address``, or the deprecated keyword ``root`` of ``where`` in
    ``deprecated`` (the call's other keywords: ``root`` alone is taken, with
    a :class:`DeprecationWarning`)."""
    unknown = set(deprecated) - {"root"}
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    if "root" not in deprecated:
        return root_address
    warnings.warn(f"{where}(root=...) is now {where}(root_address=...); root= stays until 0.5",
                  DeprecationWarning, stacklevel=3)
    if root_address != -1:
        raise TypeError(f"{where}() got both root_address and its deprecated name root")
    return deprecated["root"]


class _QueryFields(NamedTuple):
    top:          int
    count_limit:  int
    occupancy:    Optional[int] = None
    root_address: int = -1


class Query(_QueryFields):
    """One query, its fields in the order :meth:`Session.query` takes them:
    what ``run_batch``'s jobs hold, and the one order of a query's fields
    wherever they go together. ``occupancy`` (a 64-bit bitboard) asks for
    the upcoming repetition too; ``root_address`` is the address of the game
    history's last word (-1: none). ``root=`` and ``.root``, its old name,
    stay until 0.5."""
    __slots__ = ()

    def __new__(cls, top: int, count_limit: int, occupancy: Optional[int] = None,
                root_address: int = -1, **deprecated: Any) -> "Query":
        root_address = deprecated_root(root_address, deprecated, "Query")
        return super().__new__(cls, top, count_limit, occupancy, root_address)

    @property
    def root(self) -> int:
        """Deprecated: :attr:`root_address`."""
        warnings.warn("Query.root is now Query.root_address; .root stays until 0.5",
                      DeprecationWarning, stacklevel=2)
        return self.root_address

# A job: the words to load, then the queries to answer about them.
Job = Tuple[Sequence[int], Sequence[Query]]
# run_batch's progress callback: (job, index of the query in it, answer).
OnAnswer = Callable[[int, int, "Answer"], None]

# Plies a simulation answers at most in one batch: a batch costs a start-up
# (an elaboration, or a process), the games held cost memory.
SIMULATION_BATCH_PLIES = 20_000


class Answer(NamedTuple):
    """What a session says about one query: the detector's answer, and the
    clocks it took (``None`` where nothing counts clocks: the golden model)."""
    result: Result
    cycles: Optional[int]


class HostWrites:
    """What the host wrote since the last query started, as the pair scan
    sees it when the next one starts (:class:`~axon.hdl.params.Written`).

    The pair scan keeps the address of the host's last accepted write until
    a query starts. A query at that address starts from the words just
    written and is faster; one after a write elsewhere restarts from its top
    (:meth:`~axon.hdl.params.DetectorConfig.latency`). A search writes the
    word at a node's top and then asks, so every query it asks is of the
    first kind. An object of this class is told what a detector is told, in
    order, and says what each query's ``written`` is. A write is refused
    only while a query runs or on the clock that samples ``start``: only
    accepted writes are told.
    """

    def __init__(self) -> None:
        self.last: Optional[int] = None

    def wrote(self, address: int) -> None:
        """The detector accepted a write at ``address``."""
        self.last = address

    def loaded(self, words: Sequence[int]) -> None:
        """The detector was loaded with ``words`` (:meth:`Session.load`,
        from address 0 up: the last write is the last word)."""
        if len(words):
            self.last = len(words) - 1

    def reset(self) -> None:
        """The detector was reset: it forgets the last write."""
        self.last = None

    def starts(self, top: int) -> Written:
        """A query at ``top`` starts: what the host wrote before it. The
        detector forgets the last write as a query starts."""
        written = Written.before(top, self.last)
        self.last = None
        return written


def written_before(jobs: Iterable[Job]) -> List[List[Written]]:
    """For each ``(words, queries)`` job of :meth:`Session.run_batch`, in
    order on a detector that remembers no write at first (a new
    simulation's), what the host wrote before each query
    (:class:`HostWrites`): the job's load before its first query, nothing
    before the others."""
    writes = HostWrites()
    found = []
    for words, queries in jobs:
        writes.loaded(words)
        found.append([writes.starts(query[0]) for query in queries])
    return found


class Session(abc.ABC):
    """The detector-session interface; see the module documentation."""

    config: DetectorConfig
    batch_plies: Optional[int] = None

    @property
    def depth(self) -> int:
        return self.config.depth

    @abc.abstractmethod
    def load(self, words: Sequence[int]) -> None:
        """Store ``words`` from address 0."""

    @abc.abstractmethod
    def write(self, address: int, word: int) -> None:
        """Store one ``word`` at ``address``, leaving the others as they are."""

    @abc.abstractmethod
    def query(self, top: int, count_limit: int, occupancy: Optional[int] = None,
              root_address: int = -1, **deprecated: int) -> "Answer":
        """The :class:`Answer` of one scan back from ``top``, for a search
        from the position after the word at ``root_address`` (-1: none; the
        keyword ``root`` is its deprecated name, until 0.5)."""

    def write_and_query(self, writes: Sequence[Tuple[int, int]], top: int, count_limit: int,
                        occupancy: Optional[int] = None, root_address: int = -1,
                        **deprecated: int) -> "Answer":
        """Store each ``(address, word)`` of ``writes`` in order, then answer
        :meth:`query`: a search's node, its move's word and then its question.
        A board sends them in one link transfer."""
        root_address = deprecated_root(root_address, deprecated, "write_and_query")
        for address, word in writes:
            self.write(address, word)
        return self.query(top, count_limit, occupancy, root_address)

    def run_batch(self, jobs: Iterable[Job], *,
                  on_answer: Optional[OnAnswer] = None) -> List[List["Answer"]]:
        """Answer each ``(words, queries)`` job after loading its words: one
        list of :class:`Answer` per job, made of :meth:`load` and :meth:`query`."""
        results = []
        for job, (words, queries) in enumerate(jobs):
            self.load(words)
            job_answers = []
            for index, query in enumerate(queries):
                answer = self.query(*query)
                job_answers.append(answer)
                if on_answer is not None:
                    on_answer(job, index, answer)
            results.append(job_answers)
        return results

    def _check_address(self, address: int) -> None:
        if not isinstance(address, int) or not 0 <= address < self.depth:
            raise ValueError(f"address must be in 0..{self.depth - 1}, not {address!r}")

    def _check_fits(self, words: Sequence[int], job: Optional[int] = None) -> None:
        if len(words) > self.depth:
            where = "" if job is None else f"job {job}: "
            raise ValueError(f"{where}{len(words)} words do not fit a move list of "
                             f"depth {self.depth}")


class GoldenSession(Session):
    """The golden model (:func:`~axon.sim.model.golden.perpetual`) as a session."""

    def __init__(self, config: DetectorConfig = SHIPPED) -> None:
        self.config = DetectorConfig.checked(config, gateware=False)
        self._memory = [0] * config.depth

    def load(self, words: Sequence[int]) -> None:
        self._check_fits(words)
        self._memory[:len(words)] = words

    def write(self, address: int, word: int) -> None:
        self._check_address(address)
        self._memory[address] = word

    def query(self, top: int, count_limit: int, occupancy: Optional[int] = None,
              root_address: int = -1, **deprecated: int) -> Answer:
        root_address = deprecated_root(root_address, deprecated, "query")
        result = perpetual(self._memory, top, root_address=root_address, config=self.config,
                           count_limit=count_limit, occupancy=occupancy)
        return Answer(result, None)


@dataclass(frozen=True)
class PlyAnswer:
    """The detector's answer after one ply of a game.

    Members
    -------
    game : GameRecord
    window : Window
        Which words the move list held (``window.ply`` is 0-based).
    result : Result
    cycles : int or None
        Clocks of the query (``None`` from the golden model).
    window_limited : bool
        The scan reached the bottom of a window that cut the game short.
    written : Written
        What the host wrote before the query (:class:`HostWrites`): the
        load of its window before its first ply, which is the window's top
        when the window slid; nothing before the others.
    """
    game:           object
    window:         Window
    result:         Result
    cycles:         Optional[int]
    window_limited: bool
    written:        Written = Written.NOTHING

    @property
    def ply(self) -> int:
        """1-based ply number."""
        return self.window.ply + 1


def batches(games: Iterable[Any], plies: Optional[int] = None) -> Iterator[List[Any]]:
    """``games`` in lists, for sessions that answer a list fastest at once.

    ``plies=None``: one game a list. Otherwise a list is closed once it holds
    ``plies`` plies, the first list being one game and each next one twice
    the size of the last up to ``plies``, so that the first rows come soon
    and a long file still runs in few simulations. ``plies=0``: all games in
    one list (a waveform).
    """
    if plies == 0:
        yield list(games)
        return
    batch, held, limit = [], 0, 1
    for game in games:
        batch.append(game)
        held += max(1, len(game.moves))
        if plies is None or held >= limit:
            yield batch
            if plies is not None:
                limit = min(2 * held, plies)
            batch, held = [], 0
    if batch:
        yield batch


def answer_games(games: Iterable[Any], session: Session, *, count_limit: int,
                 root: Optional[int] = None,
                 progress: Any = None) -> Iterator[Tuple[Any, Iterator[PlyAnswer]]]:
    """For each game of ``games`` (any iterable, read as it goes), in order,
    ``(game, plies)``: ``plies`` iterates over its :class:`PlyAnswer`, a
    query after every ply. Take each game's plies before the next game.

    Each game is loaded window by window (:func:`~axon.sim.model.history.window_segments`:
    a game longer than the move list slides through it); each query carries
    the occupancy of the position after its ply, so that the answer has the
    upcoming repetition too (not available, ``None``, from a configuration
    without the upcoming block, whatever the session), and the game's root
    (:meth:`~axon.sim.model.games.GameRecord.history`, ``root`` for a game
    without a ``[Root]`` tag). A session that answers one query at a time
    hands out each answer as it comes; one that answers in batches
    (``batch_plies``) each batch of games as it is done.
    ``progress.update(game_index, ply)`` is told of every answer (the game's
    0-based index in ``games``, the 1-based ply).
    """
    if session.batch_plies is None:
        for game_index, game in enumerate(games):
            yield game, _query_plies(game, session, count_limit, root, progress, game_index)
        return
    first = 0
    for batch in batches(games, session.batch_plies):
        found = _batch_answers(batch, session, count_limit, root, progress, first)
        for game, plies in zip(batch, found):
            yield game, iter(plies)
        first += len(batch)


def answers(games: Iterable[Any], session: Session, *, count_limit: int,
            root: Optional[int] = None, progress: Any = None) -> List[List[PlyAnswer]]:
    """One list of :class:`PlyAnswer` per game (:func:`answer_games`, all at once)."""
    return [list(plies) for _, plies in answer_games(games, session, count_limit=count_limit,
                                                     root=root, progress=progress)]


def _available(result, config):
    return result if config.upcoming else result.without_upcoming()


def _query_plies(game, session, count_limit, root, progress, game_index):
    # One window of the move list is loaded at a time and nothing is kept,
    # so that a game of any length is answered in the memory of its move list.
    positions = game.positions()
    history = game.history(root)
    writes = HostWrites()
    for base, words, plies in iter_window_segments(game.words, session.depth):
        session.load(words)
        writes.loaded(words)
        for window in plies:
            board = next(positions)
            answer = session.query(window.top, count_limit, int(board.occupied),
                                   root_address(window, history))
            if progress:
                progress.update(game_index, window.ply + 1)
            yield PlyAnswer(game, window, _available(answer.result, session.config),
                            answer.cycles, is_window_limited(answer.result, game.words, base),
                            writes.starts(window.top))


def _batch_answers(games, session, count_limit, root, progress, first):
    jobs, owners = [], []
    for game_index, game in enumerate(games):
        occupancies = game.occupancies()
        history = game.history(root)
        for base, words, plies in window_segments(game.words, session.depth):
            jobs.append((words, [Query(top=window.top, count_limit=count_limit,
                                       occupancy=occupancies[window.ply],
                                       root_address=root_address(window, history))
                                 for window in plies]))
            owners.append((game_index, game, base, plies))
    found = [[] for _ in games]
    written = written_before(jobs)

    def take(job, index, answer):
        game_index, game, base, plies = owners[job]
        window = plies[index]
        found[game_index].append(PlyAnswer(game, window, _available(answer.result, session.config),
                                         answer.cycles,
                                         is_window_limited(answer.result, game.words, base),
                                         written[job][index]))
        if progress:
            progress.update(first + game_index, window.ply + 1)

    session.run_batch(jobs, on_answer=take)
    if progress:
        progress.done()
    return found
