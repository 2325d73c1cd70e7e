"""The move generator's model: pseudo-legal moves in the gateware's order,
the attack test, make and unmake, and each legal move's detector word.

Plain Python next to :class:`axon.hdl.search.MoveGenerator`,
:class:`~axon.hdl.search.AttackTest` and :class:`~axon.hdl.search.Perft`;
the order of moves is docs/perft.md's.
"""

from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Tuple

import chess

from ...hdl.search.rules import (CASTLE_KINGSIDE, CASTLE_QUEENSIDE, CASTLING_LOSS, DIAGONAL,
                                 KING, KING_HOME, KNIGHT, KNIGHT_JUMPS, ORTHOGONAL, PAWN,
                                 PAWN_ATTACK_RAYS, PAWN_STEPS, PIECE_STEPS, PROMOTIONS, QUEEN,
                                 ROOK, BISHOP, SLIDERS, castling_bit)
from ...hdl.word import pack_word, piece_code, piece_colour, piece_kind, square_name


__all__ = ["Candidate", "Position", "pseudo_moves", "attacked", "make", "unmake",
           "legal_moves", "uci"]

_LETTERS = {KNIGHT: "n", BISHOP: "b", ROOK: "r", QUEEN: "q"}


@dataclass(frozen=True)
class Candidate:
    """A pseudo-legal move, as the gateware's ``Candidate`` layout holds it."""
    from_sq: int
    to_sq: int
    promo: int          # piece type promoted to, 0 none
    piece: int          # the mover's code
    captured: int       # the code on to_sq (0 for en passant)
    en_passant: bool = False
    castle: bool = False
    double: bool = False


def uci(move: Candidate) -> str:
    """The move in UCI notation, e.g. ``e7e8q``."""
    return (square_name(move.from_sq) + square_name(move.to_sq) +
            _LETTERS.get(move.promo, ""))


@dataclass
class Position:
    """The gateware's board state: 64 piece codes, side to move (1 Black),
    cleaned castling rights (bits as :func:`castling_bit`), the en passant
    square when a pawn can take there, and both king squares."""
    board: List[int]
    side: int
    castling: int
    ep_square: Optional[int]
    kings: List[int] = field(default_factory=lambda: [0, 0])

    @classmethod
    def from_board(cls, board: chess.Board) -> "Position":
        """The position of a python-chess board, as the host loads it."""
        cells = [0] * 64
        kings = [0, 0]
        for square, piece in board.piece_map().items():
            code = piece_code(piece.piece_type, 0 if piece.color == chess.WHITE else 1)
            cells[square] = code
            if piece.piece_type == chess.KING:
                kings[piece_colour(code)] = square
        rights = board.clean_castling_rights()
        castling = 0
        for colour, (kingside, queenside) in enumerate(((chess.H1, chess.A1),
                                                        (chess.H8, chess.A8))):
            castling |= bool(rights & chess.BB_SQUARES[kingside]) << castling_bit(colour, False)
            castling |= bool(rights & chess.BB_SQUARES[queenside]) << castling_bit(colour, True)
        ep = board.ep_square if board.has_pseudo_legal_en_passant() else None
        return cls(cells, 0 if board.turn == chess.WHITE else 1, castling, ep, kings)


def _step(square: int, delta: Tuple[int, int]) -> Optional[int]:
    file, rank = (square & 7) + delta[0], (square >> 3) + delta[1]
    return file | rank << 3 if 0 <= file < 8 and 0 <= rank < 8 else None


def _own(piece: int, side: int) -> bool:
    return piece != 0 and piece_colour(piece) == side


def _hostile(piece: int, side: int) -> bool:
    return piece != 0 and piece_colour(piece) != side


def pseudo_moves(pos: Position, *, en_passant: bool = True) -> Iterator[Candidate]:
    """The pseudo-legal moves of the side to move, in the generator's order."""
    side, board = pos.side, pos.board
    pawn = piece_code(PAWN, side)
    if en_passant and pos.ep_square is not None:
        for file_delta in (-1, 1):
            file = (pos.ep_square & 7) + file_delta
            if 0 <= file < 8:
                from_sq = file | (4 if side == 0 else 3) << 3
                if board[from_sq] == pawn:
                    yield Candidate(from_sq, pos.ep_square, 0, pawn, 0, en_passant=True)
    for from_sq in range(64):
        piece = board[from_sq]
        if not _own(piece, side):
            continue
        kind = piece_kind(piece)
        if kind == PAWN:
            yield from _pawn_moves(pos, from_sq)
            continue
        for delta in PIECE_STEPS[kind]:
            to_sq = _step(from_sq, delta)
            while to_sq is not None and not _own(board[to_sq], side):
                yield Candidate(from_sq, to_sq, 0, piece, board[to_sq])
                if kind not in SLIDERS or board[to_sq] != 0:
                    break
                to_sq = _step(to_sq, delta)
        if kind == KING and from_sq == KING_HOME[side]:
            yield from _castlings(pos, from_sq)


def _pawn_moves(pos: Position, from_sq: int) -> Iterator[Candidate]:
    side, board = pos.side, pos.board
    pawn = board[from_sq]
    sign = 1 if side == 0 else -1
    for step, (df, dr) in enumerate(PAWN_STEPS):
        to_sq = _step(from_sq, (df, sign * dr))
        if to_sq is None:
            continue
        target = board[to_sq]
        if step == 0:
            ok = target == 0
        elif step == 1:
            start_rank = 1 if side == 0 else 6
            ok = (from_sq >> 3 == start_rank and target == 0 and
                  board[from_sq + 8 * sign] == 0)
        else:
            ok = _hostile(target, side)
        if not ok:
            continue
        if to_sq >> 3 == (7 if side == 0 else 0):
            for promo in PROMOTIONS:
                yield Candidate(from_sq, to_sq, promo, pawn, target)
        else:
            yield Candidate(from_sq, to_sq, 0, pawn, target, double=step == 1)


def _castlings(pos: Position, home: int) -> Iterator[Candidate]:
    side, board = pos.side, pos.board
    king = board[home]
    for step in (CASTLE_KINGSIDE, CASTLE_QUEENSIDE):
        queenside = step == CASTLE_QUEENSIDE
        between = (home - 1, home - 2, home - 3) if queenside else (home + 1, home + 2)
        if pos.castling >> castling_bit(side, queenside) & 1 and \
                all(board[square] == 0 for square in between):
            yield Candidate(home, home - 2 if queenside else home + 2, 0, king, 0, castle=True)


def attacked(pos: Position, square: int, colour: int) -> bool:
    """Whether a piece of ``colour`` attacks ``square``."""
    board = pos.board
    for ray, delta in enumerate(ORTHOGONAL + DIAGONAL):
        at, distance = _step(square, delta), 1
        while at is not None and board[at] == 0:
            at, distance = _step(at, delta), distance + 1
        if at is None or piece_colour(board[at]) != colour:
            continue
        kind = piece_kind(board[at])
        if kind == QUEEN or kind == (ROOK if ray < 4 else BISHOP):
            return True
        if distance == 1 and (kind == KING or
                              (kind == PAWN and ray in PAWN_ATTACK_RAYS[colour])):
            return True
    return any(at is not None and board[at] == piece_code(KNIGHT, colour)
               for at in (_step(square, delta) for delta in KNIGHT_JUMPS))


@dataclass(frozen=True)
class Undo:
    castling: int
    ep_square: Optional[int]


def _castling_after(castling: int, move: Candidate) -> int:
    return castling & ~CASTLING_LOSS.get(move.from_sq, 0) & ~CASTLING_LOSS.get(move.to_sq, 0)


def _rook_squares(move: Candidate) -> Tuple[int, int]:
    """A castling's rook: from, to."""
    if move.to_sq & 7 == 6:
        return move.from_sq + 3, move.from_sq + 1
    return move.from_sq - 4, move.from_sq - 1


def make(pos: Position, move: Candidate) -> Undo:
    """Play ``move`` on ``pos``; return what :func:`unmake` needs."""
    undo = Undo(pos.castling, pos.ep_square)
    mover = piece_colour(move.piece)
    board = pos.board
    board[move.to_sq] = piece_code(move.promo, mover) if move.promo else move.piece
    board[move.from_sq] = 0
    if move.en_passant:
        board[(move.to_sq & 7) | (move.from_sq & 0o70)] = 0
    if move.castle:
        rook_from, rook_to = _rook_squares(move)
        board[rook_to], board[rook_from] = board[rook_from], 0
    if piece_kind(move.piece) == KING:
        pos.kings[mover] = move.to_sq
    pos.side ^= 1
    pos.castling = _castling_after(pos.castling, move)
    pos.ep_square = (move.from_sq + move.to_sq) // 2 if move.double else None
    return undo


def unmake(pos: Position, move: Candidate, undo: Undo) -> None:
    """Take back ``move``, made with :func:`make` returning ``undo``."""
    mover = piece_colour(move.piece)
    board = pos.board
    board[move.from_sq] = move.piece
    board[move.to_sq] = move.captured
    if move.en_passant:
        board[(move.to_sq & 7) | (move.from_sq & 0o70)] = piece_code(PAWN, mover ^ 1)
    if move.castle:
        rook_from, rook_to = _rook_squares(move)
        board[rook_from], board[rook_to] = board[rook_to], 0
    if piece_kind(move.piece) == KING:
        pos.kings[mover] = move.from_sq
    pos.side = mover
    pos.castling, pos.ep_square = undo.castling, undo.ep_square


def _is_legal(pos: Position, move: Candidate) -> bool:
    """Make, test the mover's king, unmake (castling: first its square and
    the square it passes)."""
    mover = piece_colour(move.piece)
    if move.castle:
        passing = (move.from_sq + move.to_sq) // 2
        if attacked(pos, move.from_sq, mover ^ 1) or attacked(pos, passing, mover ^ 1):
            return False
    undo = make(pos, move)
    try:
        return not attacked(pos, pos.kings[mover], mover ^ 1)
    finally:
        unmake(pos, move, undo)


def legal_moves(pos: Position, *, en_passant: bool = True) -> Iterator[Tuple[Candidate, int]]:
    """The legal moves of ``pos`` in the generator's order, each with its
    detector word (barrier as :func:`axon.sim.model.encode.is_barrier`).

    The moves are found one at a time, so the caller may make each one (and
    unmake it) before taking the next."""
    ep_legal = False
    for move in pseudo_moves(pos, en_passant=en_passant):
        if not _is_legal(pos, move):
            continue
        # En passant captures come first, so a node's flag is known before
        # its other moves: with a legal one, no later position can recur.
        ep_legal |= move.en_passant
        barrier = (move.captured != 0 or move.en_passant or move.castle or
                   piece_kind(move.piece) == PAWN or ep_legal or
                   _castling_after(pos.castling, move) != pos.castling)
        yield move, pack_word(move.from_sq, move.to_sq, move.piece, barrier)
