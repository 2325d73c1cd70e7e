"""Random but legal games that repeat often, for tests and the benchmark.

Real games rarely repeat, so a uniform random mover would test little. These
games prefer reversible moves, and half of them start from pawnless endgames,
where pieces shuttle and positions recur all the time.
"""

import random

import chess


__all__ = ["random_endgame", "random_game", "game_corpus", "crowded_board", "crowded_corpus"]

# Material for pawnless endgames, kings added by random_endgame.
_ENDGAME_MATERIAL = [
    "QR", "RN", "RB", "QNN", "RRN", "QBN", "NNN", "RR", "QQ", "BN", "QRBN",
]


def random_endgame(rng):
    """A legal pawnless position: kings plus pieces split between the sides."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, 2 + 8)
        board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.BLACK))
        for letter in rng.choice(_ENDGAME_MATERIAL):
            color = rng.choice((chess.WHITE, chess.BLACK))
            board.set_piece_at(squares.pop(), chess.Piece.from_symbol(
                letter if color == chess.WHITE else letter.lower()))
        board.turn = rng.choice((chess.WHITE, chess.BLACK))
        if board.is_valid() and not board.is_game_over():
            return board


def random_game(rng, plies, board=None, reversible_bias=0.9, shuffle_rate=None):
    """Return ``(start_board, moves)``: up to ``plies`` legal moves.

    With probability ``reversible_bias`` a move is drawn from the reversible
    moves only. Of those draws, a fraction ``shuffle_rate`` (random per game
    unless given) replays the move of four plies ago in reverse when legal,
    which closes chains the way shuffling players do; long runs of it give
    fourfold and fivefold repetitions.
    """
    if shuffle_rate is None:
        shuffle_rate = rng.uniform(0.3, 0.97)
    board = (board or chess.Board()).copy(stack=False)
    start = board.copy(stack=False)
    moves = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        reversible = [move for move in legal
                      if not board.is_capture(move) and not board.is_castling(move)
                      and board.piece_type_at(move.from_square) != chess.PAWN]
        move = None
        if reversible and rng.random() < reversible_bias:
            if len(moves) >= 4 and rng.random() < shuffle_rate:
                back = moves[-4]
                undo = chess.Move(back.to_square, back.from_square)
                if undo in reversible:
                    move = undo
            if move is None:
                move = rng.choice(reversible)
        if move is None:
            move = rng.choice(legal)
        moves.append(move)
        board.push(move)
    return start, moves


def game_corpus(count, seed, plies=(20, 120)):
    """``count`` games from a fixed seed: half from the opening, half endgames."""
    rng = random.Random(seed)
    games = []
    for index in range(count):
        board = random_endgame(rng) if index % 2 else chess.Board()
        games.append(random_game(rng, rng.randint(*plies), board))
    return games


# A crowded side: its king and 6 to 12 more pieces, promoted ones among them
# (up to five queens, or four rooks, bishops or knights).
_CROWDED_PIECES = {chess.QUEEN: (1, 5), chess.ROOK: (0, 4), chess.BISHOP: (0, 4),
                   chess.KNIGHT: (0, 4)}
_CROWDED_SIZE = (6, 12)


def crowded_board(rng):
    """A legal pawnless position where each side has more pieces of some kind
    than its starting material: what a search meets down promotion lines."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, 64)
        for color in chess.COLORS:
            board.set_piece_at(squares.pop(), chess.Piece(chess.KING, color))
            wanted = rng.randint(*_CROWDED_SIZE)
            counts = {kind: rng.randint(*bounds) for kind, bounds in _CROWDED_PIECES.items()}
            pieces = [kind for kind, count in counts.items() for _ in range(count)]
            rng.shuffle(pieces)
            for kind in pieces[:wanted]:
                board.set_piece_at(squares.pop(), chess.Piece(kind, color))
        board.turn = rng.choice(chess.COLORS)
        if board.is_valid() and not board.is_game_over():
            return board


def crowded_corpus(count, seed, plies=(60, 160)):
    """``count`` games from crowded pawnless boards (:func:`crowded_board`),
    almost all reversible moves, with little shuffling back: many pieces of
    one kind displaced at once, the hardest case for the pools' capacity."""
    rng = random.Random(seed)
    return [random_game(rng, rng.randint(*plies), crowded_board(rng), reversible_bias=0.97,
                        shuffle_rate=rng.uniform(0.0, 0.5))
            for _ in range(count)]
