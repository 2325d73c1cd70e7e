# amaranth: UnusedElaboratable=no
"""Barrier bits: set on exactly the moves after which no earlier position recurs."""

import chess
import pytest

from axon.hdl.word import unpack_word
from axon.sim.model.encode import encode_move, piece_code


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "move encoding"


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


def barrier(fen, uci):
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci) if uci != "0000" else chess.Move.null()
    assert move == chess.Move.null() or move in board.legal_moves
    return unpack_word(encode_move(board, move))[3]


START = chess.STARTING_FEN


@pytest.mark.parametrize("fen, uci", [
    (START, "e2e4"),                                                     # pawn push
    ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5"),                       # capture
    ("4k3/8/8/3n4/8/2N5/8/4K3 w - - 0 1", "c3d5"),                       # capture by a piece
    ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"),                         # promotion
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"),                       # en passant
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"),                    # castling
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1f1"),                    # king leaves home
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "h1g1"),                    # rook leaves home
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e1f1"),                       # e.p. was legal
    (START, "0000"),                                                     # null move
])
def test_barrier_set(fen, uci):
    assert barrier(fen, uci)


@pytest.mark.parametrize("fen, uci", [
    (START, "g1f3"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", "e1f1"),     # no rights left to lose
    ("r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1", "a1b1"),   # queen-side right already gone
    # An e.p. square without a legal capture (the capturer is pinned to the
    # king along the rank): python-chess treats such positions as equal.
    ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", "a5a4"),
    ("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1", "e1e2"),      # no pawn can take
])
def test_barrier_clear(fen, uci):
    assert not barrier(fen, uci)


def test_piece_codes_follow_table1():
    assert piece_code(chess.Piece(chess.KNIGHT, chess.WHITE)) == 0b0010
    assert piece_code(chess.Piece(chess.KING, chess.BLACK)) == 0b1110
    assert piece_code(None) == 0
