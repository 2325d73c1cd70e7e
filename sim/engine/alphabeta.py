"""A small alpha-beta engine with a repetition test at every node.

It is the detector's client, built to ask the detector as an engine does,
not to play strong chess: python-chess makes the moves; negamax alpha-beta
with iterative deepening searches them, captures first (most valuable
victim, least valuable attacker), the previous iteration's principal
variation first of all; a quiescence search follows captures and
promotions; the evaluation is material plus a bonus for each rank a pawn has
advanced. No transposition table: a position's score here depends on the
path that led to it (a repetition is a draw only on some paths), which a
table keyed by the position alone would mix up.

At every node but the root the repetition test
(:mod:`axon.sim.engine.repetition`) says whether the position is a draw by
repetition; such a node scores :data:`DRAW` and is not searched further.
With ``upcoming_cutoff``, a node whose alpha is below the draw value and whose side
to move can reach a draw by repetition in one move raises alpha to the draw
value first (Stockfish's upcoming-repetition cutoff). With ``null_move``, a
null move (a barrier for the repetition test) prunes as AXON did.

What the search does is named in :class:`SearchFlags`, and the order it
tries moves in is a :data:`MoveOrder`: the defaults (:func:`captures_first`,
``SearchFlags()``) are the engine above; :mod:`axon.sim.engine.unit` gives
the search unit's order and flags, the same engine as the gateware's model.
"""

import contextlib
import time
import warnings
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence

import chess

from ...hdl.search.rules import PAWN_ADVANCE as UNIT_PAWN_ADVANCE
from ...hdl.search.rules import PIECE_VALUES as UNIT_PIECE_VALUES
# What the engine asks of its repetition test; kept importable from here.
from .repetition import RepetitionTest


__all__ = ["DRAW", "MATE", "DepthResult", "Engine", "MoveOrder", "NodeVisit", "SearchFlags",
           "SearchStopped", "captures_first", "evaluate", "format_score", "game_over"]

DRAW = 0
MATE = 1_000_000
INFINITY = 10 * MATE
# Centipawns: the usual material values, and a bonus per rank a pawn has
# advanced; the search unit's too (python-chess's piece types are Table 1's).
PIECE_VALUES = UNIT_PIECE_VALUES
PAWN_ADVANCE = UNIT_PAWN_ADVANCE
# Null-move pruning: the reduction, and the least depth it is tried at.
NULL_REDUCTION = 2
NULL_MIN_DEPTH = 3
# The deepest a quiescence search goes before it takes the evaluation as it is;
# below the move list's room for the path (axon.sim.engine.repetition.MAX_PLY).
MAX_SEARCH_PLY = 48
# Nodes between two looks at the clock for progress.
PROGRESS_NODES = 2048


def evaluate(board):
    """Material and pawn advance in centipawns, from the side to move's view."""
    score = 0
    for piece_type, value in PIECE_VALUES.items():
        score += value * (chess.popcount(board.pieces_mask(piece_type, chess.WHITE)) -
                          chess.popcount(board.pieces_mask(piece_type, chess.BLACK)))
    for square in chess.scan_forward(board.pieces_mask(chess.PAWN, chess.WHITE)):
        score += PAWN_ADVANCE * (chess.square_rank(square) - 1)
    for square in chess.scan_forward(board.pieces_mask(chess.PAWN, chess.BLACK)):
        score -= PAWN_ADVANCE * (6 - chess.square_rank(square))
    return score if board.turn == chess.WHITE else -score


def format_score(score):
    """Pawns with a sign (``+1.40``), or a mate in moves (``#3``, ``#-2``)."""
    if abs(score) >= MATE - 1000:
        moves = (MATE - abs(score) + 1) // 2
        return f"#{moves}" if score > 0 else f"#-{moves}"
    return f"{score / 100:+.2f}"


def game_over(board: chess.Board) -> Optional[str]:
    """Why the game is over at ``board``, in words, or ``None`` if it is not
    (a draw that must be claimed does not end it)."""
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        return None
    side = "White" if board.turn == chess.WHITE else "Black"
    moves = board.legal_moves.count()
    reasons = {
        chess.Termination.CHECKMATE: f"checkmate ({side} is mated)",
        chess.Termination.STALEMATE: f"stalemate ({side} has no legal move and is not in check)",
        chess.Termination.INSUFFICIENT_MATERIAL:
            f"a dead draw (neither side has the material to mate), though {side} has "
            f"{moves} legal move{'s' if moves != 1 else ''}",
        chess.Termination.SEVENTYFIVE_MOVES: "drawn by the 75-move rule",
        chess.Termination.FIVEFOLD_REPETITION: "drawn by fivefold repetition",
    }
    return reasons.get(outcome.termination, f"over ({outcome.termination.name.lower()})")


def _capture_order(board, move):
    """Most valuable victim first, then least valuable attacker; promotions
    count their new piece as a victim."""
    victim = board.piece_type_at(move.to_square) or (chess.PAWN if board.is_en_passant(move)
                                                      else None)
    gain = (PIECE_VALUES[victim] if victim else 0) + \
        (PIECE_VALUES[move.promotion] if move.promotion else 0)
    return 16 * gain - PIECE_VALUES[board.piece_type_at(move.from_square)] // 100


#: A move order: ``order(board, moves)`` gives ``moves`` (legal moves of
#: ``board``, all of them or its captures and promotions) in the order the
#: search tries them. The previous iteration's move goes first after it, with
#: :attr:`SearchFlags.pv_first`.
MoveOrder = Callable[[chess.Board, Sequence[chess.Move]], List[chess.Move]]


def captures_first(board: chess.Board, moves: Sequence[chess.Move]) -> List[chess.Move]:
    """Captures and promotions first, most valuable victim then least
    valuable attacker; then the quiet moves; ties in python-chess's order."""
    captures = [move for move in moves if board.is_capture(move) or move.promotion]
    captures.sort(key=lambda move: _capture_order(board, move), reverse=True)
    quiet = [move for move in moves if not (board.is_capture(move) or move.promotion)]
    return captures + quiet


@dataclass(frozen=True)
class SearchFlags:
    """What the search does besides negamax alpha-beta with the repetition
    test; the defaults are the engine's own search.

    Parameters
    ----------
    quiescence : bool
        At depth 0, search captures and promotions until the position is
        quiet; off, depth 0 is the evaluation.
    pv_first : bool
        At each node of the previous iteration's principal variation, its
        move first.
    null_move : bool
        Null-move pruning.
    upcoming_cutoff : bool
        The upcoming-repetition cutoff.
    """
    quiescence: bool = True
    pv_first: bool = True
    null_move: bool = False
    upcoming_cutoff: bool = False


def _deprecated_upcoming(upcoming_cutoff: bool, deprecated: Dict[str, Any], where: str) -> bool:
    # The keyword `upcoming`: the old name of `upcoming_cutoff`.
    unknown = set(deprecated) - {"upcoming"}
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    if "upcoming" not in deprecated:
        return upcoming_cutoff
    warnings.warn(f"{where}(upcoming=...) is now {where}(upcoming_cutoff=...); upcoming= stays "
                  f"until 0.5", DeprecationWarning, stacklevel=3)
    return bool(deprecated["upcoming"]) or upcoming_cutoff


@dataclass(frozen=True)
class NodeVisit:
    """A node as the search returns from it: its ply, the move that led to
    it (UCI; ``None`` at the root), the window it was searched with, the
    repetition test's answer (``None`` where it was not asked) and the
    score it returned, from its side to move's view."""
    ply:   int
    move:  Optional[str]
    alpha: int
    beta:  int
    draw:  Optional[bool]
    score: int


class SearchStopped(Exception):
    """The engine's ``stop`` said to stop: the iteration under way is given up
    (the board and the repetition test are as they were at its start)."""


@dataclass
class DepthResult:
    """One iteration of the deepening: the paper's columns and what the
    repetition test did."""
    depth:       int
    move:        Optional[str]   # the key move, SAN
    uci:         Optional[str]
    score:       int             # centipawns from the root's side to move
    nodes:       int             # positions the iteration visited, the root included
    terminal:    int             # of them, the ones it searched no move from
    repetitions: int             # nodes the repetition test scored a draw
    upcoming_cutoffs: int        # upcoming-repetition cutoffs of alpha
    queries:     int             # questions to the repetition test
    seconds:     float

    @property
    def evaluation(self) -> str:
        return format_score(self.score)

    @property
    def upcoming(self) -> int:
        """Deprecated: :attr:`upcoming_cutoffs`, until 0.5."""
        warnings.warn("DepthResult.upcoming is now DepthResult.upcoming_cutoffs; .upcoming "
                      "stays until 0.5", DeprecationWarning, stacklevel=2)
        return self.upcoming_cutoffs

    def as_dict(self) -> Dict[str, Any]:
        """The row of ``axon search --json``, whose key for
        :attr:`upcoming_cutoffs` is ``upcoming``."""
        row = asdict(self)
        row["upcoming"] = row.pop("upcoming_cutoffs")
        return {**row, "evaluation": self.evaluation}


class Engine:
    """Search one position with one repetition test.

    Parameters
    ----------
    board : chess.Board
        The start position, before the game history.
    history : list of chess.Move
        The game's moves up to the root; the root position is after them.
    test : RepetitionTest
        The repetition test: :class:`~axon.sim.engine.repetition.NoTest`,
        :class:`~axon.sim.engine.repetition.ChessTest`,
        :class:`~axon.sim.engine.repetition.DetectorTest` or any other that
        implements :class:`~axon.sim.engine.repetition.RepetitionTest`.
    upcoming_cutoff : bool
        The upcoming-repetition cutoff (``upcoming``, its old name, stays
        until 0.5 with a warning); :attr:`SearchFlags.upcoming_cutoff`.
    null_move : bool
        Null-move pruning; :attr:`SearchFlags.null_move`.
    flags : SearchFlags or None
        All the flags at once (then not ``upcoming_cutoff`` or
        ``null_move``); by default ``SearchFlags()`` with those two.
    order : MoveOrder
        The order moves are tried in (default :func:`captures_first`).
    progress : callable or None
        ``progress(depth, nodes, done, moves)`` now and then during an
        iteration: ``done`` of the root's ``moves`` searched.
    stop : callable or None
        ``stop()`` is asked at every node; when it says yes the iteration
        ends in :class:`SearchStopped` (a UCI ``stop``, a clock or a node
        limit).
    on_node : callable or None
        ``on_node(NodeVisit)`` as each node returns: the search node by
        node, to hold a search in gateware to it.

    Members
    -------
    nodes : int
        The nodes of the iteration under way (or the last one).
    seldepth : int
        The deepest ply of the iteration under way reached, quiescence included.
    flags : SearchFlags
        What the search does.
    """

    def __init__(self, board: chess.Board, history: Iterable[chess.Move] = (),
                 test: Optional[RepetitionTest] = None, *, upcoming_cutoff: bool = False,
                 null_move: bool = False, flags: Optional[SearchFlags] = None,
                 order: MoveOrder = captures_first,
                 progress: Optional[Callable[..., None]] = None,
                 stop: Optional[Callable[[], bool]] = None,
                 on_node: Optional[Callable[[NodeVisit], None]] = None,
                 **deprecated: bool) -> None:
        upcoming_cutoff = _deprecated_upcoming(upcoming_cutoff, deprecated, "Engine")
        if test is None:
            raise ValueError("an engine needs a repetition test")
        if flags is None:
            flags = SearchFlags(upcoming_cutoff=upcoming_cutoff, null_move=null_move)
        elif upcoming_cutoff or null_move:
            raise ValueError("give the flags or upcoming_cutoff and null_move, not both")
        if not isinstance(flags, SearchFlags):
            raise TypeError(f"an engine's flags are a SearchFlags, not {flags!r}")
        if not callable(order):
            raise TypeError(f"an engine's move order is a callable, not {order!r}")
        self.root_board = board.copy(stack=False)
        for move in history:
            self.root_board.push(move)
        over = game_over(self.root_board)
        if over:
            raise ValueError(f"the position {self.root_board.fen()} is {over}; nothing to "
                             f"search")
        self.test = test
        self.flags = flags
        self.order = order
        self.progress = progress
        self.stop = stop
        self.on_node = on_node
        self._draw_at: Dict[int, Optional[bool]] = {}
        self.nodes = self.seldepth = 0
        test.start(board, list(history))
        self.board = self.root_board.copy(stack=False)
        self._pv: List[chess.Move] = []

    @property
    def upcoming_cutoff(self) -> bool:
        """:attr:`SearchFlags.upcoming_cutoff` of :attr:`flags`."""
        return self.flags.upcoming_cutoff

    @property
    def null_move(self) -> bool:
        """:attr:`SearchFlags.null_move` of :attr:`flags`."""
        return self.flags.null_move

    @property
    def pv(self) -> List[chess.Move]:
        """The principal variation of the last iteration finished."""
        return list(self._pv)

    @property
    def partial_pv(self) -> List[chess.Move]:
        """The root's best line so far in the iteration under way (or the
        one a stop ended): empty until a root move has raised alpha. Its
        score, a lower bound of the iteration's, is ``partial_score``."""
        return list(getattr(self, "_pv_at", {}).get(0, []))

    def iterate(self, depth: int) -> Iterator[DepthResult]:
        """Search to 1, 2, ... ``depth`` plies; yield a :class:`DepthResult` each."""
        for current in range(1, depth + 1):
            yield self.search(current)

    def search(self, depth: int) -> DepthResult:
        """One iteration to ``depth`` plies."""
        self.nodes = self.terminal = self.repetitions = self.cutoffs = self.seldepth = 0
        self.partial_score: Optional[int] = None
        queries = self.test.queries
        began = time.perf_counter()
        self._shown = began
        self._depth = depth
        self._root_done, self._root_moves = 0, 0
        # The last iteration's principal variation is searched first.
        self._follow = self._pv
        self._pv_at: Dict[int, List[chess.Move]] = {}
        score = self._node(depth, -INFINITY, INFINITY, 0, on_pv=True, null_ok=False, root=True)
        self._pv = self._pv_at[0]
        move = self._pv[0] if self._pv else None
        return DepthResult(depth=depth, move=self.root_board.san(move) if move else None,
                           uci=move.uci() if move else None, score=score, nodes=self.nodes,
                           terminal=self.terminal, repetitions=self.repetitions,
                           upcoming_cutoffs=self.cutoffs, queries=self.test.queries - queries,
                           seconds=time.perf_counter() - began)

    # -- the tree -------------------------------------------------------------

    @contextlib.contextmanager
    def _played(self, move: chess.Move) -> Iterator[None]:
        """``move`` made on the board and told to the test for the ``with``
        block, and taken back however the block ends."""
        self.test.push(self.board, move)
        try:
            self.board.push(move)
            try:
                yield
            finally:
                self.board.pop()
        finally:
            self.test.pop()

    def _ordered(self, moves, hint):
        ordered = self.order(self.board, moves)
        if self.flags.pv_first and hint in ordered:
            ordered.remove(hint)
            ordered.insert(0, hint)
        return ordered

    def _tick(self):
        if self.progress is not None and self.nodes % PROGRESS_NODES == 0:
            now = time.perf_counter()
            if now - self._shown >= 0.5:
                self._shown = now
                self.progress(self._depth, self.nodes, self._root_done, self._root_moves)

    def _terminal(self, score):
        """A node searched no further: counted, and its score returned."""
        self.terminal += 1
        return score

    def _node(self, depth: int, alpha: int, beta: int, ply: int, **where: bool) -> int:
        """:meth:`_visit`, told to ``on_node`` as it returns."""
        if self.on_node is None:
            return self._visit(depth, alpha, beta, ply, **where)
        move = self.board.peek().uci() if ply else None
        self._draw_at[ply] = None
        score = self._visit(depth, alpha, beta, ply, **where)
        self.on_node(NodeVisit(ply, move, alpha, beta, self._draw_at[ply], score))
        return score

    def _visit(self, depth: int, alpha: int, beta: int, ply: int, *, on_pv: bool = False,
               null_ok: bool = True, root: bool = False) -> int:
        """Negamax, fail-soft; ``depth <= 0`` is the quiescence search, or
        the evaluation without :attr:`SearchFlags.quiescence`.

        ``root``: the position searched, which the repetition test is not
        asked about; ``on_pv``: the path so far is the last principal
        variation's; ``null_ok``: a null move may be tried here (not after
        one, not at the root)."""
        board = self.board
        self.nodes += 1
        if self.stop is not None and self.stop():
            raise SearchStopped()
        self.seldepth = max(self.seldepth, ply)
        self._tick()
        self._pv_at[ply] = []
        if not root:
            draw = self._draw_at[ply] = self.test.is_draw(board)
            if draw:
                self.repetitions += 1
                return self._terminal(DRAW)
            if self.flags.upcoming_cutoff and alpha < DRAW and self.test.upcoming_draw(board):
                self.cutoffs += 1
                alpha = DRAW
                if alpha >= beta:
                    return self._terminal(alpha)
        hint = self._follow[ply] if on_pv and ply < len(self._follow) else None
        if depth <= 0 and not self.flags.quiescence:
            return self._terminal(evaluate(board))
        if depth <= 0:
            best = evaluate(board)
            if best >= beta or ply >= MAX_SEARCH_PLY:
                return self._terminal(best)
            alpha = max(alpha, best)
            moves = self._ordered([move for move in board.legal_moves
                                   if board.is_capture(move) or move.promotion], hint)
        else:
            in_check = board.is_check()
            if (self.flags.null_move and null_ok and depth >= NULL_MIN_DEPTH and not in_check
                    and self._has_pieces()):
                with self._played(chess.Move.null()):
                    score = -self._node(depth - 1 - NULL_REDUCTION, -beta, -beta + 1, ply + 1,
                                        null_ok=False)
                if score >= beta:
                    return score
            moves = self._ordered(list(board.legal_moves), hint)
            best = -INFINITY
            if not moves:
                best = -MATE + ply if in_check else DRAW
        if not moves:
            return self._terminal(best)
        for done, move in enumerate(moves):
            if root:
                self._root_done, self._root_moves = done, len(moves)
            with self._played(move):
                score = -self._node(depth - 1, -beta, -alpha, ply + 1,
                                    on_pv=on_pv and move == hint)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    self._pv_at[ply] = [move] + self._pv_at.get(ply + 1, [])
                    if root:
                        self.partial_score = score
                    if alpha >= beta:
                        break
        return best

    def _has_pieces(self):
        """Has the side to move more than king and pawns? (In a pawn ending
        passing the move can be the worst move, and null-move pruning is unsound.)"""
        board, side = self.board, self.board.turn
        return any(board.pieces_mask(kind, side) for kind in
                   (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))

