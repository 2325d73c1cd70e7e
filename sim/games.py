"""Load PGN files for the ``axon`` command line, refusing anything doubtful.

python-chess is forgiving: it skips what it cannot parse, logs the error and
goes on. A repetition detector checked on a silently shortened game proves
little, so every problem here is fatal and raised as :class:`GameError` with
a one-line message that names the game (0-based index, as ``axon scan``
prints it) and the ply (1-based, ply 1 is the first move).
"""

import io
import re
from dataclasses import dataclass, field
from typing import List

import chess
import chess.pgn

from .encode import encode_moves


__all__ = ["GameError", "GameRecord", "load_games", "read_games"]


class GameError(Exception):
    """Bad input; ``str(error)`` is the one-line message for the user."""


@dataclass
class GameRecord:
    """One game of a PGN file, ready for the detector.

    Members
    -------
    index : int
        0-based position in the file.
    headers : dict
        The PGN tag pairs.
    board : chess.Board
        The start position (FEN/SetUp honoured).
    moves : list of chess.Move
        The mainline, every move legal (or a null move ``--``).
    sans, ucis : list of str
        The same moves in SAN and UCI.
    words : list of int
        :func:`~axon.sim.encode.encode_moves` of the moves.
    """
    index:   int
    headers: dict
    board:   chess.Board
    moves:   List[chess.Move] = field(default_factory=list)
    sans:    List[str] = field(default_factory=list)
    ucis:    List[str] = field(default_factory=list)
    words:   List[int] = field(default_factory=list)

    @property
    def label(self):
        """``game 3`` or ``game 3 ("Event name")`` for messages."""
        event = self.headers.get("Event", "?")
        return f"game {self.index}" if event in ("", "?") else f'game {self.index} ("{event}")'

    def move_label(self, ply):
        """``12. Nf3`` or ``12... Nf6`` for the 1-based ``ply``."""
        board = self.board
        number = board.fullmove_number + (ply - 1 + (board.turn == chess.BLACK)) // 2
        white = (ply - 1) % 2 == 0 if board.turn == chess.WHITE else (ply - 1) % 2 == 1
        return f"{number}{'.' if white else '...'} {self.sans[ply - 1]}"

    def positions(self):
        """The board after each ply (fresh copies, without move stacks)."""
        board = self.board.copy(stack=False)
        for move in self.moves:
            board.push(move)
            yield board.copy(stack=False)


class _StrictGameBuilder(chess.pgn.GameBuilder):
    """Records where each parse error happened instead of logging it."""

    def begin_game(self):
        super().begin_game()
        self.tags_seen = 0
        self.moves_seen = 0
        self.located_errors = []     # (ply, in_variation, exception)

    def visit_header(self, tagname, tagvalue):
        self.tags_seen += 1
        super().visit_header(tagname, tagvalue)

    def visit_move(self, board, move):
        self.moves_seen += 1
        super().visit_move(board, move)

    def handle_error(self, error):
        node = self.variation_stack[-1]
        depth = 0
        while node.parent is not None:
            node = node.parent
            depth += 1
        self.located_errors.append((depth + 1, len(self.variation_stack) > 1, error))
        self.game.errors.append(error)

    def result(self):
        game = super().result()
        game.tags_seen = self.tags_seen
        game.moves_seen = self.moves_seen
        game.located_errors = self.located_errors
        return game


# Positions python-chess can set up but no game of chess can reach or play on.
_FATAL_STATUS = {
    chess.STATUS_NO_WHITE_KING:      "no white king",
    chess.STATUS_NO_BLACK_KING:      "no black king",
    chess.STATUS_TOO_MANY_KINGS:     "too many kings",
    chess.STATUS_PAWNS_ON_BACKRANK:  "pawns on the first or last rank",
    chess.STATUS_OPPOSITE_CHECK:     "the side not to move is in check",
    chess.STATUS_EMPTY:              "empty board",
}

_ERROR_KINDS = (
    (chess.IllegalMoveError, "illegal move"),
    (chess.AmbiguousMoveError, "ambiguous move"),
    (chess.InvalidMoveError, "invalid move"),
)


def _describe(error):
    for kind, text in _ERROR_KINDS:
        if isinstance(error, kind):
            return f"{text}: {error}"
    return f"parse error: {error}"


def _start_board(game, index):
    try:
        board = game.board()
    except ValueError as error:
        fen = game.headers.get("FEN")
        if fen is None:
            raise GameError(f"game {index}: bad start position: {error}") from None
        raise GameError(f"game {index}: bad FEN {fen!r}: {error}") from None
    problems = [text for flag, text in _FATAL_STATUS.items() if board.status() & flag]
    if problems:
        raise GameError(f"game {index}: bad FEN {board.fen()!r}: {', '.join(problems)}")
    return board


def _record(game, index):
    if game.tags_seen == 0 and game.moves_seen == 0 and not game.located_errors:
        raise GameError(f"game {index}: no PGN tags or moves found; is this a PGN file?")
    board = _start_board(game, index)
    if game.located_errors:
        ply, in_variation, error = game.located_errors[0]
        where = f"game {index}, ply {ply}" + (" (in a variation)" if in_variation else "")
        raise GameError(f"{where}: {_describe(error)}")
    record = GameRecord(index=index, headers=dict(game.headers), board=board.copy(stack=False))
    for ply, move in enumerate(game.mainline_moves(), start=1):
        # The parser only adds legal moves; checked again because a move list
        # built from an illegal move would be nonsense to every backend.
        if move and not board.is_legal(move):
            raise GameError(f"game {index}, ply {ply}: illegal move {move.uci()} "
                            f"in {board.fen()}")
        record.moves.append(move)
        record.sans.append(board.san(move))
        record.ucis.append(move.uci())
        board.push(move)
    record.words = encode_moves(record.board, record.moves)
    return record


# What may stand in movetext besides comments: move numbers, SAN (with check
# and annotation marks), NAGs, results and variation brackets.
_MOVE_NUMBER = re.compile(r"\d+\.+|\d+$")
_SAN_TOKEN = re.compile(r"(?:[NBKRQ]?[a-h]?[1-8]?[\-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?"
                        r"|[PNBRQK]?@[a-h][1-8]|--|Z0|0000|@@@@|O-O(?:-O)?|0-0(?:-0)?)"
                        r"[+#]?(?:[!?]{1,2})?")
_OTHER_TOKEN = re.compile(r"\$\d+|[!?]{1,2}|\*|1-0|0-1|1/2-1/2|\(|\)")


def _stray_token(movetext):
    """The first movetext token that is neither a move nor PGN punctuation,
    with the ply it stands at; ``None`` if there is none. python-chess skips
    such tokens without a word (``1. Ke9`` reads as a game of no moves)."""
    lines = [line for line in movetext.splitlines()
             if not line.startswith(("[", "%"))]
    text = re.sub(r"\{[^}]*\}?|;[^\n]*", " ", "\n".join(lines))
    ply, depth = 0, 0
    for token in re.findall(r"\(|\)|[^\s()]+", text):
        token = _MOVE_NUMBER.sub("", token, count=1) if _MOVE_NUMBER.match(token) else token
        if not token:
            continue
        if _SAN_TOKEN.fullmatch(token):
            ply += depth == 0
        elif token == "(":
            depth += 1
        elif token == ")":
            depth = max(depth - 1, 0)
        elif not _OTHER_TOKEN.fullmatch(token):
            return ply + 1, token
    return None


def read_games(text):
    """Parse PGN ``text``; return a list of :class:`GameRecord`."""
    handle = io.StringIO(text)
    records = []
    while True:
        begin = handle.tell()
        game = chess.pgn.read_game(handle, Visitor=_StrictGameBuilder)
        if game is None:
            break
        index = len(records)
        stray = _stray_token(text[begin:handle.tell()])
        # A skipped token usually makes the next move illegal: name the
        # token, which is the fault, unless an error comes before it.
        if stray is not None and (not game.located_errors or
                                  stray[0] <= game.located_errors[0][0]):
            ply, token = stray
            raise GameError(f"game {index}, ply {ply}: {token!r} is not a move")
        records.append(_record(game, index))
    if not records:
        raise GameError("no games found")
    return records


def load_games(path):
    """Read the PGN file at ``path``; return a list of :class:`GameRecord`.

    Raises :class:`GameError` with the file name in the message.
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise GameError(f"{path}: cannot read: {error.strerror or error}") from None
    if b"\x00" in data:
        raise GameError(f"{path}: unreadable PGN: the file holds binary data")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Older PGN files are often Latin-1; every byte decodes.
        text = data.decode("latin-1")
    try:
        return read_games(text)
    except GameError as error:
        raise GameError(f"{path}: {error}") from None
