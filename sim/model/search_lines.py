"""Search-like lines: what a chess search asks the detector at every node.

A search starts from a position of a game (the *root position*) and walks
down a line of moves, asking at every node whether the position is a
repetition. Its lines are mostly quiet moves that a piece can take back, and
a side often does take its last move back (the search tries a move, then its
reversal two plies later); captures, pawn moves and null moves (null-move
pruning) come now and then and end most scans within a few plies.

:func:`search_lines` makes such lines from the positions of real games: it
picks a ply ``N`` of a game, keeps the game's first ``N`` moves as the game
history and walks 4 to 10 plies from there. The root address is ``N - 1``
(the last word of the history), and each ply of the walk is one query.
"""

import random
from dataclasses import dataclass
from typing import List

import chess
import chess.pgn

from ...hdl.params import SHIPPED
from .encode import encode_moves


__all__ = ["SearchLine", "search_lines", "write_pgn", "WALK_PLIES", "UNDO_RATE", "NULL_RATE",
           "REVERSIBLE_RATE"]

# How long a walk is, in plies (inclusive).
WALK_PLIES = (4, 10)
# Of the walk's moves: the share that takes the side's own last move back
# (when legal), the share of null moves, and, of the rest, the share drawn
# from the reversible moves only (the others from every legal move).
UNDO_RATE = 0.4
NULL_RATE = 0.02
REVERSIBLE_RATE = 0.8


@dataclass
class SearchLine:
    """One search line: a game history, then the walk.

    Members
    -------
    board : chess.Board
        The position the move list starts from.
    moves : list of chess.Move
        The game history (``history`` moves), then the walk.
    words : list of int
        :func:`~axon.sim.model.encode.encode_moves` of ``moves``.
    history : int
        Plies of game history, ``N``: the root position is the one after
        ``moves[:N]``, the root address ``N - 1`` (``-1`` for ``N == 0``).
    tops : list of int
        The queries' top addresses: one per ply of the walk, ``N .. len(moves) - 1``.
    """
    board:   chess.Board
    moves:   List[chess.Move]
    words:   List[int]
    history: int
    tops:    List[int]

    @property
    def root_address(self):
        """The root address: the last word of the game history."""
        return self.history - 1

    @property
    def walk(self):
        """The walk's moves, after the game history."""
        return self.moves[self.history:]


def _is_reversible(board, move):
    return (not board.is_capture(move) and not board.is_castling(move)
            and board.piece_type_at(move.from_square) != chess.PAWN)


def _undo(board, moves):
    """The move taking the side's own last move back, if it is legal."""
    if len(moves) < 2 or not moves[-2]:
        return None
    back = chess.Move(moves[-2].to_square, moves[-2].from_square)
    return back if board.is_legal(back) else None


def _walk(rng, board, moves, plies):
    """Up to ``plies`` moves from ``board`` (after ``moves``), which is played on."""
    walk = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = None
        if not board.is_check() and rng.random() < NULL_RATE:
            # Null-move pruning; never in check, as engines do.
            move = chess.Move.null()
        elif rng.random() < UNDO_RATE:
            move = _undo(board, moves + walk)
        if move is None:
            reversible = [each for each in legal if _is_reversible(board, each)]
            move = rng.choice(reversible if reversible and rng.random() < REVERSIBLE_RATE
                              else legal)
        walk.append(move)
        board.push(move)
    return walk


def search_lines(games, count, seed, *, depth=SHIPPED.depth, walk_plies=WALK_PLIES):
    """``count`` :class:`SearchLine` from the positions of ``games``, from ``seed``.

    ``games`` is a list of ``(start_board, moves)``. Each line picks a game
    and a ply ``N`` of it at random, then walks ``walk_plies`` plies (at
    random, inclusive bounds) from the position after ``N`` moves. A line
    whose move list would exceed ``depth`` words keeps only its last
    ``depth``: the start board is then the position after the dropped moves.
    A walk cut short by mate or stalemate is drawn again.
    """
    if not games:
        raise ValueError("search_lines needs at least one game")
    low, high = walk_plies
    if not 1 <= low <= high <= depth:
        raise ValueError(f"walk plies must be 1 <= low <= high <= depth ({depth}), "
                         f"not {walk_plies!r}")
    rng = random.Random(seed)
    lines = []
    while len(lines) < count:
        start, game_moves = rng.choice(games)
        plies = rng.randint(low, high)
        played = rng.randint(0, len(game_moves))
        # The history that fits beside the walk: the game's last moves before ply N.
        history = min(played, depth - plies)
        board = start.copy(stack=False)
        for move in game_moves[:played - history]:
            board.push(move)
        first = board.copy(stack=False)
        moves = list(game_moves[played - history:played])
        for move in moves:
            board.push(move)
        walk = _walk(rng, board, moves, plies)
        if len(walk) < low:
            continue
        moves += walk
        lines.append(SearchLine(board=first, moves=moves, words=encode_moves(first, moves),
                                history=history, tops=list(range(history, len(moves)))))
    return lines


def write_pgn(lines, file):
    """Write ``lines`` to the text ``file`` as PGN, a game each, with its
    start position and a ``[Root "N"]`` tag: what ``axon verify`` reads."""
    for number, line in enumerate(lines, start=1):
        game = chess.pgn.Game()
        game.headers["Event"] = f"search line {number}"
        game.headers["Root"] = str(line.history)
        game.setup(line.board)
        node = game
        for move in line.moves:
            node = node.add_variation(move)
        print(game, file=file, end="\n\n")
