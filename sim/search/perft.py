"""Perft on the move generator's model: the golden answer the gateware's
``axon perft`` is held to, and the trace of legal moves it gives."""

from typing import Dict, List, NamedTuple, Tuple

import chess
from amaranth.lib import data

from ...hdl.search.layout import Move
from ...hdl.search.rules import MAX_DEPTH
from ..model.games import position_problems
from .movegen import Candidate, Position, legal_moves, make, uci, unmake


__all__ = ["PerftResult", "PerftInputError", "GatewareRun", "perft", "trace", "parse_position",
           "check_depth", "move_uci"]


class PerftInputError(ValueError):
    """A FEN or depth that perft cannot take; the message is one line."""


class PerftResult(NamedTuple):
    """Leaf nodes in all, and each root move's (UCI, leaf nodes) in the
    generator's order."""
    nodes: int
    moves: Tuple[Tuple[str, int], ...]

    def divide(self) -> Dict[str, int]:
        return dict(self.moves)


def parse_position(fen: str) -> chess.Board:
    """The board of ``fen``; a FEN python-chess rejects, or a position it
    calls invalid (no king, the side not to move in check, ...), raises
    :class:`PerftInputError`."""
    try:
        board = chess.Board(fen)
    except ValueError as error:
        raise PerftInputError(f"bad FEN {fen!r}: {error}") from None
    if not board.is_valid():
        raise PerftInputError(f"not a legal position {fen!r}: {position_problems(board)}")
    return board


def check_depth(depth: int) -> int:
    if not 1 <= depth <= MAX_DEPTH:
        raise PerftInputError(f"depth must be 1..{MAX_DEPTH}, not {depth}")
    return depth


def _count(pos: Position, depth: int, en_passant: bool) -> int:
    if depth == 1:
        return sum(1 for _ in legal_moves(pos, en_passant=en_passant))
    nodes = 0
    for move, _ in legal_moves(pos, en_passant=en_passant):
        undo = make(pos, move)
        try:
            nodes += _count(pos, depth - 1, en_passant)
        finally:
            unmake(pos, move, undo)
    return nodes


def perft(board: chess.Board, depth: int, *, en_passant: bool = True) -> PerftResult:
    """The leaf nodes of ``board``'s legal move tree ``depth`` plies deep,
    per root move; ``en_passant=False`` is the broken variant."""
    check_depth(depth)
    pos = Position.from_board(board)
    moves = []
    for move, _ in legal_moves(pos, en_passant=en_passant):
        undo = make(pos, move)
        try:
            count = 1 if depth == 1 else _count(pos, depth - 1, en_passant)
        finally:
            unmake(pos, move, undo)
        moves.append((uci(move), count))
    return PerftResult(sum(count for _, count in moves), tuple(moves))


def trace(board: chess.Board, depth: int) -> List[Tuple[int, str, int]]:
    """Every legal move the gateware gives on its way through the tree, in
    order: ``(ply, uci, move word)``, each move before its subtree."""
    check_depth(depth)
    pos = Position.from_board(board)
    out: List[Tuple[int, str, int]] = []

    def walk(ply: int) -> None:
        for move, word in legal_moves(pos):
            out.append((ply, uci(move), word))
            if ply + 1 < depth:
                undo = make(pos, move)
                try:
                    walk(ply + 1)
                finally:
                    unmake(pos, move, undo)

    walk(0)
    return out


_MOVE_FIELDS = {name: (field.offset, (1 << field.width) - 1)
                for name, field in data.Layout.cast(Move)}


def move_uci(bits: int) -> str:
    """The UCI text of the gateware's :class:`~axon.hdl.search.Move` as an integer."""
    fields = {name: bits >> offset & mask for name, (offset, mask) in _MOVE_FIELDS.items()}
    return uci(Candidate(fields["from_sq"], fields["to_sq"], fields["promo"], 0, 0))


class GatewareRun(NamedTuple):
    """What a gateware backend answers: the result, the legal moves it gave
    in order (``(ply, uci, word)``; empty where the backend does not record
    them) and the clocks from ``start`` to the end."""
    result: PerftResult
    trace: Tuple[Tuple[int, str, int], ...]
    clocks: int
