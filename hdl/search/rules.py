"""The rules of piece movement that the move generator, its attack test and
their Python model share: step vectors, the order of directions, promotions
and castling.

A square is 0 = a1 ... 63 = h8 (python-chess numbering, as in
:mod:`axon.hdl.word`); a step is ``(file delta, rank delta)``. The tuples'
order is the order in which moves come out of the generator and the order
in which the attack test looks.
"""

__all__ = [
    "PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING",
    "ORTHOGONAL", "DIAGONAL", "KNIGHT_JUMPS", "PIECE_STEPS", "SLIDERS", "PAWN_STEPS",
    "PROMOTIONS", "CASTLE_KINGSIDE", "CASTLE_QUEENSIDE", "castling_bit", "CASTLING_LOSS",
    "KING_HOME", "PAWN_ATTACK_RAYS", "MAX_DEPTH", "NODE_BITS", "PIECE_VALUES", "PAWN_ADVANCE",
    "SCORE_BITS", "MATE", "INFINITY", "DRAW_COUNT_LIMIT",
]

# Table 1 piece types (axon.hdl.word); the colour bit is above them.
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6

ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))          # N, E, S, W
DIAGONAL = ((1, 1), (1, -1), (-1, -1), (-1, 1))          # NE, SE, SW, NW
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))

# Each piece's steps in generation order; sliders repeat a step until blocked.
PIECE_STEPS = {
    KNIGHT: KNIGHT_JUMPS,
    BISHOP: DIAGONAL,
    ROOK: ORTHOGONAL,
    QUEEN: ORTHOGONAL + DIAGONAL,
    KING: ORTHOGONAL + DIAGONAL,
}
SLIDERS = (BISHOP, ROOK, QUEEN)

# A White pawn's moves in generation order: one forward, two forward, capture
# towards the a-file, capture towards the h-file. Black's have the rank
# delta negated.
PAWN_STEPS = ((0, 1), (0, 2), (-1, 1), (1, 1))

# A promotion comes out four times, in this order.
PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)

# The king's two castling moves follow its eight steps: step index 8 is
# castling on the king's side, 9 on the queen's side.
CASTLE_KINGSIDE, CASTLE_QUEENSIDE = len(PIECE_STEPS[KING]), len(PIECE_STEPS[KING]) + 1

# Where each colour's king stands while it may still castle (e1, e8).
KING_HOME = (4, 60)


def castling_bit(colour: int, queenside: bool) -> int:
    """The bit of the 4-bit castling rights: White's king side 0, queen side
    1, Black's king side 2, queen side 3."""
    return 2 * colour + int(queenside)


# The rights a move loses when it leaves or lands on each of these squares:
# a king or a rook leaving home, or a rook taken on its home square.
CASTLING_LOSS = {
    4: 0b0011, 7: 0b0001, 0: 0b0010,
    60: 0b1100, 63: 0b0100, 56: 0b1000,
}

# The diagonal rays (indices into ORTHOGONAL + DIAGONAL) along which a pawn
# of each colour attacks the square the ray starts from: a White pawn stands
# one step south-east or south-west of what it attacks.
PAWN_ATTACK_RAYS = ((5, 6), (4, 7))

# The deepest perft the gateware's undo stack holds, and its node counters'
# width (depth 7 from the start position is 3.2e9 nodes).
MAX_DEPTH = 15
NODE_BITS = 48

# The evaluation, in centipawns: the usual material values, and a bonus per
# rank a pawn has advanced from its home rank. The search's model
# (axon.sim.engine.alphabeta) and the search unit score with these.
PIECE_VALUES = {PAWN: 100, KNIGHT: 300, BISHOP: 300, ROOK: 500, QUEEN: 900, KING: 0}
PAWN_ADVANCE = 10

# The search unit's scores: signed 16 bits, a mate in N plies is MATE - N,
# and the root's window is the whole range (docs/search_unit.md says why
# this orders every score as the model's wider ones do).
SCORE_BITS = 16
MATE = 32_000
INFINITY = (1 << (SCORE_BITS - 1)) - 1

# A node's repetition query stops at the first earlier occurrence after the
# root, or goes on for a second one: the least scan that decides a draw.
DRAW_COUNT_LIMIT = 1
