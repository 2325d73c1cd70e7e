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


__all__ = ["OracleAnswer", "oracle_answers"]


@dataclass(frozen=True)
class OracleAnswer:
    repetition: bool
    distance:   Optional[int]
    count:      int            # capped at ``count_limit`` like the detector's


def oracle_answers(board, moves, *, count_limit=4):
    """One :class:`OracleAnswer` per ply of ``moves`` played from ``board``."""
    board = board.copy(stack=False)
    history = [position_key(board)]
    answers = []
    for move in moves:
        if not move:
            # A null move is not a chess move: it hands one side two moves in
            # a row. The detector stops at it (paper, 4.1); so does the oracle.
            history = []
        board.push(move)
        key = position_key(board)
        distances = [len(history) - index for index, earlier in enumerate(history)
                     if earlier == key]
        count = min(len(distances), count_limit)
        answers.append(OracleAnswer(repetition=count > 0,
                                    distance=min(distances) if count else None,
                                    count=count))
        history.append(key)
    return answers
