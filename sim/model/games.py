"""Load PGN files for the ``axon`` command line, refusing anything doubtful.

python-chess is forgiving: it skips what it cannot parse, logs the error and
goes on. A repetition detector checked on a silently shortened game proves
little, so a problem in a game's mainline is fatal to that game and raised as
:class:`GameError` with a one-line message that names the game and the ply.
Variations are never scanned: a bad move in one is a warning naming the game,
and the game is answered. With ``keep_going`` a bad game is skipped (and named
in :attr:`PgnFile.skipped`) instead of ending the whole file.

Numbering, here and in every ``axon`` command: games are numbered from 1 in
file order (a skipped game keeps its number), plies from 1 (ply 1 is the
first half-move; ply 0 would be the start position).
"""

import glob
import io
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Tuple

import chess
import chess.pgn

from .encode import encode_moves


__all__ = ["bundled_files", "GameError", "GameRecord", "PgnFile", "load_games", "read_games", "read_pgn",
           "iter_pgn", "game_chunks", "plural", "position_problems", "POSITION_PROBLEMS",
           "STDIN"]

# The file name that means standard input.
STDIN = "-"

# What a read finds, in file order: ``("game", GameRecord)``,
# ``("skipped", line)`` or ``("warning", line)``.
PgnEvent = Tuple[str, Any]


class GameError(Exception):
    """Bad input; ``str(error)`` is the one-line message for the user."""


def plural(count: int, singular: str, many: Optional[str] = None) -> str:
    """``1 game``, ``2 games``; ``many`` for other plurals (``plies``)."""
    return f"{count} {singular if count == 1 else many or singular + 's'}"


@dataclass
class GameRecord:
    """One game of a PGN file, ready for the detector.

    Members
    -------
    number : int
        1-based position in the file (skipped games count).
    headers : dict
        The PGN tag pairs.
    board : chess.Board
        The start position (FEN/SetUp honoured).
    moves : list of chess.Move
        The mainline, every move legal (or a null move ``--``).
    sans, ucis : list of str
        The same moves in SAN and UCI.
    words : list of int
        :func:`~axon.sim.model.encode.encode_moves` of the moves.
    root : int or None
        The ``[Root "N"]`` tag: the game's first N plies are game history, the
        rest a search path (see :meth:`history`); ``None`` without the tag.
    """
    number:  int
    headers: dict
    board:   chess.Board
    moves:   List[chess.Move] = field(default_factory=list)
    sans:    List[str] = field(default_factory=list)
    ucis:    List[str] = field(default_factory=list)
    words:   List[int] = field(default_factory=list)
    root:    Optional[int] = None

    def history(self, default: Optional[int] = None) -> int:
        """Plies of game history before the search path: the ``[Root]`` tag,
        else ``default`` (``--root``), else every ply (a game is history)."""
        for plies in (self.root, default):
            if plies is not None:
                return plies
        return len(self.moves)

    @property
    def name(self) -> str:
        """The Event tag, else ``White - Black``, else ``""``."""
        event = self.headers.get("Event", "?")
        if event not in ("", "?"):
            return event
        players = [self.headers.get(side, "?") for side in ("White", "Black")]
        return "" if all(p in ("", "?") for p in players) else " - ".join(players)

    @property
    def label(self) -> str:
        """``game 3`` or ``game 3 ("Event name")`` for messages."""
        return f"game {self.number}" + (f' ("{self.name}")' if self.name else "")

    def move_label(self, ply: int) -> str:
        """``12. Nf3`` or ``12... Nf6`` for the 1-based ``ply``."""
        board = self.board
        number = board.fullmove_number + (ply - 1 + (board.turn == chess.BLACK)) // 2
        white = (ply - 1) % 2 == 0 if board.turn == chess.WHITE else (ply - 1) % 2 == 1
        return f"{number}{'.' if white else '...'} {self.sans[ply - 1]}"

    def occupancies(self) -> List[int]:
        """The occupied squares after each ply, as 64-bit bitboards: what a
        query gives the detector for the upcoming repetition."""
        return [int(board.occupied) for board in self.positions()]

    def positions(self) -> Iterator[chess.Board]:
        """The board after each ply (fresh copies, without move stacks)."""
        board = self.board.copy(stack=False)
        for move in self.moves:
            board.push(move)
            board = _trimmed(board)
            yield board.copy(stack=False)


@dataclass
class PgnFile:
    """What :func:`read_pgn` found in a file.

    Members
    -------
    games : list of GameRecord
        The games to answer, in file order.
    skipped : list of str
        With ``keep_going``: one line per game left out, naming it and why.
    warnings : list of str
        One line per bad variation (the game is answered; variations never are).
    total : int
        Games in the file, skipped ones included.
    """
    games:    List[GameRecord]
    skipped:  List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    total:    int = 0


# Moves of history a board keeps while a long game is read: enough for
# python-chess to open a variation (it takes back the last move), while the
# memory of a game of any length stays that of its move list.
_KEPT_PLIES = 8


def _trimmed(board: chess.Board) -> chess.Board:
    """``board``, or once its history is twice :data:`_KEPT_PLIES` moves long,
    a copy that keeps the last of them (python-chess's ``copy(stack=N)``):
    a copy every few plies, so that a board's history stays short."""
    if len(board.move_stack) > 2 * _KEPT_PLIES:
        return board.copy(stack=_KEPT_PLIES)
    return board


class _ReadGame:
    """One game as :class:`_MainlineBuilder` read it: tags, mainline moves and
    the errors, without python-chess's tree of nodes (a node a ply)."""

    def __init__(self) -> None:
        self.headers = chess.pgn.Headers({})
        self.moves: List[chess.Move] = []
        self.errors: List[Exception] = []
        # (ply, exception), mainline only
        self.located_errors: List[Tuple[int, Exception]] = []
        self.tags_seen = 0

    @property
    def moves_seen(self) -> int:
        return len(self.moves)

    def board(self) -> chess.Board:
        return self.headers.board()

    def mainline_moves(self) -> List[chess.Move]:
        return self.moves


class _MainlineBuilder(chess.pgn.BaseVisitor[_ReadGame]):
    """Reads the mainline only and records where each parse error happened.

    Variations are skipped by python-chess's reader itself: its recovery from
    a bad move inside a variation leaves its board stack one deep too many,
    so that later siblings and mainline moves are read against the wrong
    position (and ``1. e4 (1. Nc6) (1. Nd6)`` ends in an ``IndexError``).
    :func:`_check_movetext` checks the variations instead.
    """

    def begin_game(self) -> None:
        self.game = _ReadGame()

    def begin_headers(self) -> chess.pgn.Headers:
        return self.game.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.game.tags_seen += 1
        self.game.headers[tagname] = tagvalue

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def end_variation(self) -> None:
        pass    # nothing was pushed: the variation was skipped

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        # The reader's board keeps the game's history, as long as the moves
        # kept here: it is python-chess's, and needs it to skip variations.
        self.game.moves.append(move)

    def handle_error(self, error: Exception) -> None:
        self.game.located_errors.append((self.game.moves_seen + 1, error))
        self.game.errors.append(error)

    def result(self) -> _ReadGame:
        return self.game


# Positions python-chess can set up but no game of chess can reach or play on.
#: What each of python-chess's status flags says is wrong with a position.
POSITION_PROBLEMS = {
    chess.STATUS_NO_WHITE_KING:         "no white king",
    chess.STATUS_NO_BLACK_KING:         "no black king",
    chess.STATUS_TOO_MANY_KINGS:        "too many kings",
    chess.STATUS_TOO_MANY_WHITE_PAWNS:  "more than 8 white pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS:  "more than 8 black pawns",
    chess.STATUS_PAWNS_ON_BACKRANK:     "pawns on the first or last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "more than 16 white pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "more than 16 black pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS:   "castling rights without the king and rook at home",
    chess.STATUS_INVALID_EP_SQUARE:     "an en-passant square no pawn can have crossed",
    chess.STATUS_OPPOSITE_CHECK:        "the side not to move is in check",
    chess.STATUS_EMPTY:                 "empty board",
    chess.STATUS_TOO_MANY_CHECKERS:     "more than two pieces give check",
    chess.STATUS_IMPOSSIBLE_CHECK:      "a check that no last move can have given",
}

# What a game's start position may not have: a PGN's FEN with odd castling
# rights or a stale en-passant square is still read (python-chess plays from
# it), as many files in the wild have them.
_FATAL_STATUS = (chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING |
                 chess.STATUS_TOO_MANY_KINGS | chess.STATUS_PAWNS_ON_BACKRANK |
                 chess.STATUS_OPPOSITE_CHECK | chess.STATUS_EMPTY)


def position_problems(board: chess.Board, *, only: int = ~0) -> str:
    """What is wrong with ``board``'s position, as ``"too many kings, ..."``
    (``""`` if nothing), among the status flags in ``only``: the one
    wording of every command that reads a position (a PGN's FEN, ``--fen``,
    an EPD line)."""
    status = board.status() & only
    return ", ".join(text for flag, text in POSITION_PROBLEMS.items() if status & flag)


_ERROR_KINDS = (
    (chess.IllegalMoveError, "illegal move"),
    (chess.AmbiguousMoveError, "ambiguous move"),
    (chess.InvalidMoveError, "invalid move"),
)


def _describe(error: Exception) -> str:
    for kind, text in _ERROR_KINDS:
        if isinstance(error, kind):
            return f"{text}: {error}"
    return f"parse error: {error}"


def _start_board(game: _ReadGame, number: int) -> chess.Board:
    try:
        board = game.board()
    except ValueError as error:
        fen = game.headers.get("FEN")
        if fen is None:
            raise GameError(f"game {number}: bad start position: {error}") from None
        raise GameError(f"game {number}: bad FEN {fen!r}: {error}") from None
    problems = position_problems(board, only=_FATAL_STATUS)
    if problems:
        raise GameError(f"game {number}: bad FEN {board.fen()!r}: {problems}")
    return board


def _root_tag(headers: Mapping[str, str], number: int) -> Optional[int]:
    """The ``[Root "N"]`` tag's N, or ``None``."""
    value = headers.get("Root")
    if value is None:
        return None
    if not re.fullmatch(r"\d{1,9}", value.strip()):
        raise GameError(f'game {number}: [Root "{value}"] must be a number of plies of game '
                        f'history, 0 or more')
    return int(value)


def _record(game: _ReadGame, number: int, board: chess.Board) -> GameRecord:
    if game.located_errors:
        ply, error = game.located_errors[0]
        raise GameError(f"game {number}, ply {ply}: {_describe(error)}")
    record = GameRecord(number=number, headers=dict(game.headers), board=board.copy(stack=False),
                        root=_root_tag(game.headers, number))
    for ply, move in enumerate(game.mainline_moves(), start=1):
        # The parser only adds legal moves; checked again because a move list
        # built from an illegal move would be nonsense to every backend.
        if move and not board.is_legal(move):
            raise GameError(f"game {number}, ply {ply}: illegal move {move.uci()} "
                            f"in {board.fen()}")
        record.moves.append(move)
        record.sans.append(board.san(move))
        record.ucis.append(move.uci())
        board.push(move)
        board = _trimmed(board)
    record.words = encode_moves(record.board, record.moves)
    return record


# What may stand in movetext besides comments: move numbers, SAN (with check
# and annotation marks), NAGs, results and variation brackets.
_MOVE_NUMBER = re.compile(r"\d+\.+|\d+$")
_SAN_TOKEN = re.compile(r"(?:[NBKRQ]?[a-h]?[1-8]?[\-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?"
                        r"|[PNBRQK]?@[a-h][1-8]|--|Z0|0000|@@@@|O-O(?:-O)?|0-0(?:-0)?)"
                        r"[+#]?(?:[!?]{1,2})?")
_OTHER_TOKEN = re.compile(r"\$\d+|[!?]{1,2}|\*|1-0|0-1|1/2-1/2")


def _movetext_tokens(movetext: str) -> Iterator[str]:
    """Moves, NAGs, results and brackets, without comments, tags and escapes."""
    lines = [line for line in movetext.splitlines()
             if not line.startswith(("[", "%"))]
    text = re.sub(r"\{[^}]*\}?|;[^\n]*", " ", "\n".join(lines))
    for match in re.finditer(r"\(|\)|[^\s()]+", text):
        token = match.group()
        token = _MOVE_NUMBER.sub("", token, count=1) if _MOVE_NUMBER.match(token) else token
        if token and not _OTHER_TOKEN.fullmatch(token):
            yield token


def _check_movetext(movetext: str, board: chess.Board,
                    number: int) -> Tuple[Optional[Tuple[int, str]], List[str]]:
    """Walk the movetext the way python-chess reads it, variations included.

    Returns ``(stray, warnings)``. ``stray`` is the first mainline token that
    is no move, as ``(ply, token)``, or ``None``: python-chess skips such a
    token without a word (``1. Ke9`` reads as a game of no moves). The walk
    stops at the first illegal mainline move, which the reader reports.
    ``warnings`` has one line per variation that holds an illegal move or a
    token that is no move, at the first one (what follows it, and the
    variations inside, are not checked).
    """
    lines = [board.copy()]          # the mainline, then each open variation
    plies = [0]                     # the plies played on each (the boards keep few)
    dead = [False]                  # a variation after its first bad move
    warnings: List[str] = []
    for token in _movetext_tokens(movetext):
        if token == "(":
            # python-chess ignores a "(" before the mainline's first move.
            if len(lines) > 1 or lines[-1].move_stack:
                variation = lines[-1].copy(stack=_KEPT_PLIES)
                dead.append(dead[-1] or not variation.move_stack)
                plies.append(plies[-1])
                if variation.move_stack:
                    variation.pop()
                    plies[-1] -= 1
                lines.append(variation)
            continue
        if token == ")":
            if len(lines) > 1:
                lines.pop()
                plies.pop()
                dead.pop()
            continue
        line = lines[-1]
        if len(lines) == 1:
            if not _SAN_TOKEN.fullmatch(token):
                return (plies[0] + 1, token), warnings
            try:
                line.push_san(token.rstrip("!?"))
            except ValueError:
                break
            plies[0] += 1
            lines[-1] = _trimmed(line)
            continue
        if dead[-1]:
            continue
        try:
            if not _SAN_TOKEN.fullmatch(token):
                raise ValueError(f"{token!r} is not a move")
            line.push_san(token.rstrip("!?"))
            plies[-1] += 1
            lines[-1] = _trimmed(line)
        except ValueError as error:
            dead[-1] = True
            warnings.append(f"game {number}, ply {plies[-1] + 1} (in a variation): "
                            f"{_describe(error)}; the variation is ignored")
    return None, warnings


def _check_tags(text: str, number: int, line: int) -> None:
    """Refuse a malformed tag line among a game's tags (``text``, whose first
    line is the file's ``line``): python-chess drops such a line without a
    word, so that a file cut inside a tag would read as a game of no moves."""
    for offset, text_line in enumerate(text.splitlines()):
        if not text_line.strip() or text_line.startswith(("%", ";")):
            continue
        if not text_line.startswith("["):
            return
        if not chess.pgn.TAG_REGEX.match(text_line):
            raise GameError(f"game {number}, line {line + offset}: malformed tag "
                            f"{text_line.strip()!r} (a tag is [Name \"value\"] on one line)")


def _read_game(text: str, begin: int, end: int, game: _ReadGame, number: int,
               warnings: List[str], line: int = 1) -> GameRecord:
    """The :class:`GameRecord` of one game python-chess read from
    ``text[begin:end]``, which starts on the file's ``line``."""
    _check_tags(text[begin:end], number, line)
    board = _start_board(game, number)
    stray, problems = _check_movetext(text[begin:end], board, number)
    # A skipped token usually makes the next move illegal: name the token,
    # which is the fault, unless an error comes before it.
    if stray is not None and (not game.located_errors or
                              stray[0] <= game.located_errors[0][0]):
        ply, token = stray
        raise GameError(f"game {number}, ply {ply}: {token!r} is not a move")
    if game.tags_seen == 0 and game.moves_seen == 0 and not game.located_errors:
        raise GameError(f"game {number}: no PGN tags or moves found; is this a PGN file?")
    record = _record(game, number, board)
    warnings += problems
    return record


def _read_text(text: str, *, keep_going: bool = False, first: int = 1,
               first_line: int = 1) -> Iterator[PgnEvent]:
    """Events of the games python-chess reads in ``text``, numbered from
    ``first``, whose first line is the file's ``first_line``:
    ``("game", GameRecord)``, ``("skipped", line)``, ``("warning", line)``."""
    handle = io.StringIO(text)
    number = first - 1
    while True:
        begin = handle.tell()
        game = chess.pgn.read_game(handle, Visitor=_MainlineBuilder)
        if game is None:
            break
        number += 1
        warnings: List[str] = []
        try:
            record = _read_game(text, begin, handle.tell(), game, number, warnings,
                                line=first_line + text.count("\n", 0, begin))
        except GameError as error:
            if not keep_going:
                raise
            yield "skipped", str(error)
            continue
        for line in warnings:
            yield "warning", line
        yield "game", record


def read_games(text: str, *, keep_going: bool = False) -> PgnFile:
    """Parse PGN ``text``; return a :class:`PgnFile`.

    A game with a bad mainline (or start position) raises :class:`GameError`,
    or with ``keep_going`` is left out and listed in ``skipped``.
    """
    found = PgnFile(games=[])
    for kind, item in _read_text(_long_move_numbers(text), keep_going=keep_going):
        _collect(found, kind, item)
    if not found.total:
        raise GameError("no games found")
    return found


def _collect(found: PgnFile, kind: str, item: Any) -> None:
    if kind == "game":
        found.games.append(item)
        found.total = item.number
    elif kind == "skipped":
        found.skipped.append(item)
        found.total += 1
    else:
        found.warnings.append(item)


# python-chess reads the "0000" in a move number from 10000 on as a null move;
# the number itself says nothing the ply count does not.
_LONG_MOVE_NUMBER = re.compile(r"(?m)(?:^|(?<=[\s(]))\d{4,}(?=\.|\s|$)")


def _long_move_numbers(text: str) -> str:
    """``text`` with move numbers of four digits or more written as ``1``,
    outside the tag lines."""
    if not re.search(r"\d{4}", text):
        return text
    return "".join(line if line.startswith("[") else _LONG_MOVE_NUMBER.sub("1", line)
                   for line in text.splitlines(keepends=True))


def game_chunks(lines: Iterable[bytes]) -> Iterator[bytes]:
    """The bytes of each game in an iterable of byte ``lines``, by python-chess's
    rule: a game's movetext ends at the first empty line outside a ``{}``
    comment. What comes between games (empty lines, ``%`` escapes) goes with
    the next game. Only one game is held at a time."""
    chunk, movetext, in_comment = [], False, False
    for line in lines:
        blank = not line.strip()
        if movetext and blank and not in_comment:
            chunk.append(line)
            yield b"".join(chunk)
            chunk, movetext = [], False
            continue
        chunk.append(line)
        if in_comment:
            in_comment = _still_in_comment(line, True)
        elif not blank and not line.startswith((b"[", b"%", b";")):
            movetext = True
            in_comment = _still_in_comment(line, False)
    if chunk:
        yield b"".join(chunk)


def _still_in_comment(line: bytes, in_comment: bool) -> bool:
    """Whether a ``{`` comment is open at the end of ``line``."""
    position = 0
    while True:
        if in_comment:
            close = line.find(b"}", position)
            if close < 0:
                return True
            in_comment, position = False, close + 1
        else:
            opening = line.find(b"{", position)
            semicolon = line.find(b";", position)
            if opening < 0 or 0 <= semicolon < opening:
                return False
            in_comment, position = True, opening + 1


def _decode(chunk: bytes, first: bool) -> str:
    """UTF-8 (a byte-order mark at the start of the file is dropped), else
    Latin-1, in which every byte decodes: the choice is made for each game."""
    try:
        return chunk.decode("utf-8-sig" if first else "utf-8")
    except UnicodeDecodeError:
        # Older PGN files are often Latin-1.
        return chunk.decode("latin-1")


def _lines(path: str) -> Iterator[bytes]:
    if path == STDIN:
        yield from sys.stdin.buffer
        return
    with open(path, "rb") as file:
        yield from file


def display_name(path: str) -> str:
    """How messages name ``path``: ``<stdin>`` for ``-``."""
    return "<stdin>" if path == STDIN else path


def iter_pgn(path: str, *, keep_going: bool = False) -> Iterator[PgnEvent]:
    """The games of the PGN file at ``path`` (``-``: standard input) as they are read.

    Yields ``("game", GameRecord)``, ``("skipped", line)`` (with ``keep_going``)
    and ``("warning", line)`` in file order, a game at a time, so that a
    reader can answer a game before the next one is read. Raises
    :class:`GameError` with the file name in the message; every ``line``
    starts with the file name too.
    """
    name = display_name(path)
    number = 0
    first = True
    line = 1
    try:
        for chunk in game_chunks(_lines(path)):
            if b"\x00" in chunk:
                raise GameError(f"{name}: unreadable PGN: the file holds binary data")
            text = _long_move_numbers(_decode(chunk, first))
            first = False
            try:
                for kind, item in _read_text(text, keep_going=keep_going, first=number + 1,
                                             first_line=line):
                    if kind == "game":
                        number = item.number
                    elif kind == "skipped":
                        number += 1
                    yield kind, (item if kind == "game" else f"{name}: {item}")
            except GameError as error:
                raise GameError(f"{name}: {error}") from None
            line += chunk.count(b"\n")
    except OSError as error:
        raise GameError(f"{name}: cannot read: {error.strerror or error}") from None
    if not number:
        raise GameError(f"{name}: no games found")


def read_pgn(path: str, *, keep_going: bool = False) -> PgnFile:
    """Read the PGN file at ``path`` (``-``: standard input); return a :class:`PgnFile`.

    Raises :class:`GameError` with the file name in the message. Every line
    in ``skipped`` and ``warnings`` starts with the file name too.
    """
    found = PgnFile(games=[])
    for kind, item in iter_pgn(path, keep_going=keep_going):
        _collect(found, kind, item)
    return found


def load_games(path: str) -> List[GameRecord]:
    """The games of the PGN file at ``path``, strictly (:func:`read_pgn`, warnings dropped)."""
    return read_pgn(path).games


def bundled_files() -> List[str]:
    """Paths of the example PGN files shipped with the package (``sim/data``)."""
    data = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    return sorted(glob.glob(os.path.join(data, "*.pgn")))
