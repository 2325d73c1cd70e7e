"""Hand-made lines from the paper and the wiki, shared by the tests.

Each is ``(fen, uci_moves)``, in the paper's from-to notation. They are written out here rather than read from
``sim/data`` so that each test names exactly the line it depends on.
"""

import chess

from axon.hdl.word import pack_word
from axon.sim.model.encode import encode_moves


# Figure 5 / Table 2: White knights on c4 and d2 swap places while the black
# king shuffles; after 8 plies the position is the starting one.
KNIGHT_SWAP = ("7k/8/8/8/2N5/8/3N4/7K w - - 0 1",
               "c4a3 h8g8 d2c4 g8h8 a3b1 h8g8 b1d2 g8h8".split())

# Three knights rotate b3 -> c6, c6 -> d4, d4 -> b3 (through a5): the paper's
# symmetry rule only knows two-piece swaps.
THREE_KNIGHTS = ("7k/8/2N5/8/3N4/1N6/8/7K w - - 0 1",
                 "b3a5 h8g8 d4b3 g8h8 c6d4 h8g8 a5c6 g8h8".split())

# A king triangle: after 5 plies the placement is the starting one, but Black
# is to move, so it is not a repetition.
KING_TRIANGLE = ("7k/8/8/8/8/8/8/K7 w - - 0 1",
                 "a1b1 h8g8 b1b2 g8h8 b2a1".split())

# Two rooks on a1 and d1 exchange squares through a3 and d3.
ROOK_SWAP = ("7k/8/8/8/8/8/8/R2R3K w - - 0 1",
             "a1a3 h8g8 d1a1 g8h8 a3d3 h8g8 d3d1 g8h8".split())

# Figure 1 and section 5.1: C1H6 H8G8 H6G5 G8H8 G5H6 repeats after 4 plies.
FIGURE1 = ("q4r1k/5p2/8/8/8/8/8/2Q3K1 w - - 0 1",
           "c1h6 h8g8 h6g5 g8h8 g5h6".split())


def play(line):
    """``(board, moves, words)`` for a line."""
    fen, ucis = line
    board = chess.Board(fen)
    start = board.copy()
    moves = []
    for uci in ucis:
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            raise ValueError(f"{uci} is illegal in {board.fen()}")
        moves.append(move)
        board.push(move)
    return start, moves, encode_moves(start, moves)


# Two white knights that the scan has seen leave one square (x = c3), then a
# white knight move back onto it: two chains start where the move ends. The
# black king's step out and back closes in between, so only the knights remain.
def two_chains_meet_one_move():
    """Move words (oldest first) of an impossible list: see the comment above."""
    x, a, b, y = 18, 0, 1, 33   # c3, a1, b1, b5
    white_knight, black_king = 2, 8 | 6   # Table 1: colour bit above the type
    words = [pack_word(y, x, white_knight), pack_word(60, 59, black_king),
             pack_word(x, b, white_knight), pack_word(59, 60, black_king),
             pack_word(x, a, white_knight)]
    return words
