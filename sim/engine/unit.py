"""The search unit's model: :class:`~axon.sim.engine.alphabeta.Engine` with
the gateware's move order and the unit's flags.

The unit searches as the engine does, negamax alpha-beta to a fixed depth
with the detector asked at every node but the root, and nothing more: its
moves come in the order of the gateware's legal move generator
(:func:`axon.sim.search.movegen.legal_moves`, docs/perft.md's order), depth
0 is the evaluation (no quiescence), and it has no null move, no
upcoming-repetition cutoff and no principal variation first
(:data:`UNIT_FLAGS`; docs/search_unit.md says why, and what the gateware must
match).

:data:`ENGINES` names the two searches ``axon search --engine`` runs;
:func:`engine_for` builds one. With a :class:`UnitTest` (the unit's RTL in
Amaranth's simulator or CXXRTL, :data:`UNIT_BACKENDS`) the search runs in
the gateware itself: :class:`UnitEngine` gives the model's
:class:`~axon.sim.engine.alphabeta.DepthResult` rows, with the unit's
clocks.
"""

import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import chess

from ...hdl.params import SHIPPED, DetectorConfig
from ...hdl.search.rules import MATE as UNIT_MATE
from ..model.encode import encode_move
from ..search.movegen import Position, legal_moves, uci
from ..search.unit import UnitJob
from .alphabeta import MATE, DepthResult, Engine, MoveOrder, SearchFlags, captures_first, game_over
from .repetition import history_window


__all__ = ["UNIT_FLAGS", "ENGINES", "UNIT_BACKENDS", "generator_order", "engine_for",
           "model_score", "UnitDepthResult", "UnitEngine", "UnitTest"]

#: The search unit's flags: no quiescence, no principal variation first,
#: no null move, no upcoming-repetition cutoff.
UNIT_FLAGS = SearchFlags(quiescence=False, pv_first=False, null_move=False,
                         upcoming_cutoff=False)


def generator_order(board: chess.Board, moves: Sequence[chess.Move]) -> List[chess.Move]:
    """``moves`` in the order the gateware's move generator gives them at
    ``board``. A move the generator does not give is a fault of one of the
    two move generators: :class:`KeyError` names it."""
    rank: Dict[str, int] = {uci(move): index for index, (move, _) in
                            enumerate(legal_moves(Position.from_board(board)))}
    try:
        return sorted(moves, key=lambda move: rank[move.uci()])
    except KeyError as error:
        raise KeyError(f"the move generator has no {error.args[0]} at {board.fen()}") from None


#: ``axon search --engine NAME``: the move order and the flags of each
#: search. ``python`` is the engine's own (its pruning flags come from the
#: command line); ``gateware`` is the search unit's.
ENGINES: Dict[str, Tuple[MoveOrder, SearchFlags]] = {
    "python": (captures_first, SearchFlags()),
    "gateware": (generator_order, UNIT_FLAGS),
}


def engine_for(name: str, board: chess.Board, history: Sequence[chess.Move], test, *,
               upcoming_cutoff: bool = False, null_move: bool = False, **options) -> Any:
    """The engine ``name`` of :data:`ENGINES` searching ``board`` after
    ``history`` with ``test``; ``upcoming_cutoff`` and ``null_move`` are
    the ``python`` engine's (the unit has neither: :class:`ValueError`).
    A :class:`UnitTest` is the unit's RTL: a :class:`UnitEngine`."""
    if isinstance(test, UnitTest):
        if name != "gateware" or upcoming_cutoff or null_move:
            raise ValueError("the search unit's RTL searches as --engine gateware does, "
                             "without the upcoming cutoff or the null move")
        return UnitEngine(board, history, test, **options)
    if name not in ENGINES:
        raise ValueError(f"no engine {name!r}: the engines are {', '.join(ENGINES)}")
    order, flags = ENGINES[name]
    if name == "python":
        flags = SearchFlags(upcoming_cutoff=upcoming_cutoff, null_move=null_move)
    elif upcoming_cutoff or null_move:
        given = "--upcoming-cutoff" if upcoming_cutoff else "--null-move"
        raise ValueError(f"{given} is not the search unit's: --engine {name} has neither "
                         f"the upcoming cutoff nor the null move")
    return Engine(board, history, test, flags=flags, order=order, **options)


def model_score(score: int) -> int:
    """The unit's score (mate ``UNIT_MATE - N``) as the model's (``MATE - N``)."""
    if abs(score) >= UNIT_MATE - 1000:
        return (MATE - (UNIT_MATE - abs(score))) * (1 if score > 0 else -1)
    return score


@dataclass
class UnitDepthResult(DepthResult):
    """A :class:`~axon.sim.engine.alphabeta.DepthResult` of the unit's RTL,
    with its clocks: all of the search's, and those it stood waiting for
    the detector."""
    clocks: int = 0
    wait_clocks: int = 0


def _pysim(config: DetectorConfig, log: Optional[Callable[[str], None]] = None) -> Any:
    from ..backends.search_pysim import SearchPysim
    return SearchPysim(config)


def _cxxrtl(config: DetectorConfig, log: Optional[Callable[[str], None]] = None) -> Any:
    from ..backends.search_cxxrtl import SearchCxxrtl
    return SearchCxxrtl(config, log=log)


#: The unit's RTL by ``--backend`` name: ``make(config, log)`` gives a
#: backend whose ``run(UnitJob)`` searches in the gateware.
UNIT_BACKENDS: Dict[str, Callable[..., Any]] = {"pysim": _pysim, "cxxrtl": _cxxrtl}


class UnitTest:
    """The search unit's RTL in the place of a repetition test: its detector
    is inside it, asked by the gateware at every node but the root.

    Parameters
    ----------
    backend : str
        A name of :data:`UNIT_BACKENDS`; another name, for a ``session``
        made already (``"link"``: a board's unit,
        :class:`~axon.sim.backends.link.UnitSession`).
    config : DetectorConfig
        The unit's detector.
    log : callable or None
        Progress lines (CXXRTL's compile).
    session : object or None
        The backend, made already (a board's unit over the link, or a
        broken variant, for tests).
    """

    name = "detector"

    def __init__(self, backend: str, config: DetectorConfig = SHIPPED, *,
                 log: Optional[Callable[[str], None]] = None, session: Any = None) -> None:
        if session is None and backend not in UNIT_BACKENDS:
            raise ValueError(f"the search unit runs on {' or '.join(UNIT_BACKENDS)}, "
                             f"not {backend!r}")
        self.backend = backend
        # The session, as a detector test has it: what is closed at the end.
        self.session = UNIT_BACKENDS[backend](config, log) if session is None else session
        self.queries = 0

    def build(self) -> None:
        """Compile the model now, if it is compiled (CXXRTL)."""
        build = getattr(self.session, "build", None)
        if build is not None:
            build()


class UnitEngine:
    """The search unit's RTL searching ``board`` after ``history``: the
    model's :meth:`~axon.sim.engine.alphabeta.Engine.search` and
    :meth:`~axon.sim.engine.alphabeta.Engine.iterate`, each depth a search
    of its own in the gateware.

    The host's part is the detector test's: the game history's move words
    from the last barrier (:func:`~axon.sim.engine.repetition.history_window`)
    are loaded below the path, so that the unit's detector holds what
    :class:`~axon.sim.engine.repetition.DetectorTest`'s would. A search
    in the unit runs to its end: ``progress`` is kept for the caller, and
    ``stop`` is not asked.
    """

    def __init__(self, board: chess.Board, history: Sequence[chess.Move], test: UnitTest, *,
                 progress: Optional[Callable[..., None]] = None,
                 stop: Optional[Callable[[], bool]] = None) -> None:
        root = board.copy(stack=False)
        words = []
        for move in history:
            words.append(encode_move(root, move))
            root.push(move)
        over = game_over(root)
        if over:
            raise ValueError(f"the position {root.fen()} is {over}; nothing to search")
        self.root_board = root
        self.test = test
        self.progress = progress
        self.stop = stop
        self.words = tuple(words[history_window(words, test.session.depth):])
        self.position = Position.from_board(root)

    def iterate(self, depth: int) -> Iterator[UnitDepthResult]:
        """Search to 1, 2, ... ``depth`` plies; yield a result each."""
        for current in range(1, depth + 1):
            yield self.search(current)

    def search(self, depth: int) -> UnitDepthResult:
        """One search of ``depth`` plies in the unit."""
        began = time.perf_counter()
        found = self.test.session.run(UnitJob(self.position, self.words, depth))
        self.test.queries += found.queries
        move = chess.Move.from_uci(found.move) if found.move else None
        return UnitDepthResult(
            depth=depth, move=self.root_board.san(move) if move else None,
            uci=found.move, score=model_score(found.score), nodes=found.nodes,
            terminal=found.terminal, repetitions=found.repetitions, upcoming_cutoffs=0,
            queries=found.queries, seconds=time.perf_counter() - began,
            clocks=found.clocks, wait_clocks=found.wait_clocks)
