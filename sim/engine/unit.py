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
:func:`engine_for` builds one.
"""

from typing import Dict, List, Sequence, Tuple

import chess

from ..search.movegen import Position, legal_moves, uci
from .alphabeta import Engine, MoveOrder, SearchFlags, captures_first


__all__ = ["UNIT_FLAGS", "ENGINES", "generator_order", "engine_for"]

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
               upcoming_cutoff: bool = False, null_move: bool = False, **options) -> Engine:
    """The engine ``name`` of :data:`ENGINES` searching ``board`` after
    ``history`` with ``test``; ``upcoming_cutoff`` and ``null_move`` are
    the ``python`` engine's (the unit has neither: :class:`ValueError`)."""
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
