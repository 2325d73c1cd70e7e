"""Turn python-chess moves into move words, with the barrier bit set right.

The barrier bit marks a move after which no earlier position can ever recur,
so the detector may stop there (the paper's "reversible flag", section 5.1).
Together with the ``exact`` rules it makes "every chain closed after an even
number of plies" the same test as FIDE's position equality: placement, side to
move, castling rights and en passant.
"""

import chess

from ...hdl.word import PIECE_NONE, pack_word


__all__ = ["piece_code", "is_barrier", "encode_move", "encode_moves", "position_key"]


def piece_code(piece):
    """Table 1 of the paper: colour bit (1 = Black) above the python-chess type."""
    if piece is None:
        return PIECE_NONE
    return (0 if piece.color == chess.WHITE else 8) | piece.piece_type


def is_barrier(board, move):
    """True if no position up to and including ``board`` can follow ``move``."""
    if not move:
        # A null move gives one side two moves in a row (paper, 4.1).
        return True
    if board.is_capture(move) or board.is_castling(move):
        return True
    if board.piece_type_at(move.from_square) == chess.PAWN:
        return True
    # A position with a legal en-passant capture differs from every later one:
    # the right is gone after this move whatever it is.
    if board.has_legal_en_passant():
        return True
    # Castling rights only ever shrink: a king or rook leaving home, or a
    # rook captured on its home square (already a capture above).
    rights_before = board.clean_castling_rights()
    board.push(move)
    try:
        rights_after = board.clean_castling_rights()
    finally:
        board.pop()
    return rights_after != rights_before


def encode_move(board, move):
    """The move word of ``move`` played from ``board`` (which is not changed)."""
    if not move:
        return pack_word(0, 0, PIECE_NONE, barrier=True)
    return pack_word(move.from_square, move.to_square,
                     piece_code(board.piece_at(move.from_square)),
                     barrier=is_barrier(board, move))


def encode_moves(board, moves):
    """Encode a line of moves from ``board``; ``board`` is left unchanged."""
    board = board.copy(stack=False)
    words = []
    for move in moves:
        words.append(encode_move(board, move))
        board.push(move)
    return words


def position_key(board):
    """What FIDE article 9.2 compares: placement, side to move, castling
    rights and an en-passant capture that is actually legal."""
    return (board.board_fen(), board.turn, board.clean_castling_rights(),
            board.ep_square if board.has_legal_en_passant() else None)
