"""The independent oracle: repetitions found by comparing whole positions.

It uses python-chess for move making and compares :func:`position_key` of
every earlier position, with no barrier shortcut, so it shares nothing with
the chain-list algorithm but the rules of chess. The one exception is a null
move (``--`` in a PGN), which is not a chess move: positions before it are
not compared with positions after it.
"""

from dataclasses import dataclass
from typing import Optional

from .encode import position_key


__all__ = ["OracleAnswer", "oracle_answers", "UpcomingAnswer", "oracle_upcoming"]


@dataclass(frozen=True)
class OracleAnswer:
    repetition: bool
    distance:   Optional[int]
    count:      int            # capped like the detector's (see oracle_answers)
    draw:       bool = False   # a draw for a search from the root (see below)


def oracle_answers(board, moves, *, count_limit=4, root=None):
    """One :class:`OracleAnswer` per ply of ``moves`` played from ``board``.

    ``root`` is the number of plies of game history before the search path
    (``None``: every ply is history). ``draw`` counts as engines do: the
    position is a draw when it occurred twice before (a third occurrence),
    or once strictly after the root position, the position after ``root``
    plies (a repetition inside the search). A detector asked with count
    limit 0 scans nothing, and this answers no draw then either."""
    root = len(moves) if root is None else root
    board = board.copy(stack=False)
    history = [(0, position_key(board))]   # (ply, key) since the last null move
    answers = []
    for ply, move in enumerate(moves, start=1):
        if not move:
            # A null move is not a chess move: it hands one side two moves in
            # a row. The detector stops at it (paper, 4.1); so does the oracle.
            history = []
        board.push(move)
        key = position_key(board)
        earlier = [index for index, earlier_key in history if earlier_key == key]
        # The detector's count stops at the limit, but a lone occurrence at
        # or before the root does not stop it: at limit 1 it looks for a second.
        inside = bool(earlier) and max(earlier) > root
        count = min(len(earlier), 2 if count_limit == 1 and not inside else count_limit)
        answers.append(OracleAnswer(repetition=count > 0,
                                    distance=ply - max(earlier) if count else None,
                                    count=count,
                                    draw=count_limit > 0 and (
                                        len(earlier) >= 2 or any(index > root
                                                                 for index in earlier))))
        history.append((ply, key))
    return answers


@dataclass(frozen=True)
class UpcomingAnswer:
    """Which moves of the side to move give back an earlier position."""
    moves:    frozenset          # every such legal move
    move:     Optional[object]   # the one that reaches the most recent position
    distance: Optional[int]      # plies from the position after it back to that one


def oracle_upcoming(board, moves):
    """One :class:`UpcomingAnswer` per ply of ``moves`` played from ``board``:
    after the ply, every legal move is made and its position looked up in the
    game's history (since the last null move), by :func:`position_key`."""
    board = board.copy(stack=False)
    latest = {position_key(board): 0}   # key -> index of its latest occurrence
    answers = []
    for index, move in enumerate(moves, start=1):
        if not move:
            latest = {}
        board.push(move)
        latest[position_key(board)] = index
        reached = {}
        for reply in board.legal_moves:
            board.push(reply)
            earlier = latest.get(position_key(board))
            board.pop()
            if earlier is not None:
                reached[reply] = index + 1 - earlier
        best = min(reached, key=reached.get) if reached else None
        answers.append(UpcomingAnswer(moves=frozenset(reached), move=best,
                                      distance=reached[best] if reached else None))
    return answers
