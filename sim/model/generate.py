"""Random but legal games that repeat often, for tests and the benchmark.

Real games rarely repeat, so a uniform random mover would test little. These
games prefer reversible moves, and half of them start from pawnless endgames,
where pieces shuttle and positions recur all the time.
"""

import random
from typing import List, Tuple

import chess


__all__ = ["random_endgame", "random_game", "game_corpus", "crowded_board", "crowded_corpus",
           "crowded_detours"]

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


def crowded_detours(count: int, seed: int,
                    plies: int = 60) -> List[Tuple[chess.Board, List[chess.Move]]]:
    """``count`` games of about ``plies`` reversible moves from crowded
    boards (:func:`crowded_board`), made of nested detours: one side sends
    one piece out, then several pieces of one kind out one after another
    and back in the reverse order, while the other side moves a piece out
    and back between; the first piece is then a move away from
    an earlier position. The detour's pieces of one kind are away at once,
    more than the pools by kind hold, so the pools overflow on queries that
    hold upcoming repetitions far back: the queries the backstop answers.
    A step that is not legal ends its detour early, and the game goes on."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board = crowded_board(rng)
        start = board.copy(stack=False)
        moves: List[chess.Move] = []
        while len(moves) < plies and _detour(board, rng, moves):
            pass
        games.append((start, moves))
    return games


def _quiet_moves(board, squares=None):
    """Reversible moves that give no check, of a piece on ``squares`` (any
    but the king's, if not given): a detour's steps, which its way back can
    undo (a check would force the reply)."""
    king = board.king(board.turn)
    return [move for move in board.legal_moves
            if not board.is_capture(move) and not board.is_castling(move)
            and not board.gives_check(move)
            and (move.from_square in squares if squares is not None
                 else move.from_square != king)]


def _detour(board, rng, moves):
    """Play one nested detour onto ``board`` and ``moves``: the side not to
    move now is the one that detours. False when not even its first step
    could be made."""
    mover = not board.turn
    kinds = [kind for kind in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
             if len(board.pieces(kind, mover)) >= 2]
    if not kinds:
        return False
    kind = rng.choice(kinds)
    # Mostly all of them: more than the kind's pool holds, where there are.
    nested = max(2, len(board.pieces(kind, mover)) - rng.choice((0, 0, 1, 2)))
    other_out = []

    def other_step():
        # The other side's cycle: a piece out, then back.
        if other_out:
            back = chess.Move(other_out[-1].to_square, other_out[-1].from_square)
            if not board.is_legal(back) or board.gives_check(back):
                return False
            other_out.pop()
            move = back
        else:
            choices = _quiet_moves(board)
            if not choices:
                return False
            move = rng.choice(choices)
            other_out.append(move)
        moves.append(move)
        board.push(move)
        return True

    def mover_step(move):
        if not other_step() or not board.is_legal(move) or board.gives_check(move):
            return False
        moves.append(move)
        board.push(move)
        return True

    def out(squares=None):
        if not other_step():
            return None
        choices = _quiet_moves(board, squares)
        if not choices:
            return None
        move = rng.choice(choices)
        moves.append(move)
        board.push(move)
        return move

    if out() is None:
        return False
    away = []
    for _ in range(nested):
        # A piece of the kind that has not moved in this detour.
        home = set(board.pieces(kind, mover)) - {move.to_square for move in away}
        move = out(home)
        if move is None:
            return True
        away.append(move)
    for move in reversed(away):
        if not mover_step(chess.Move(move.to_square, move.from_square)):
            return True
    other_step()
    return True
