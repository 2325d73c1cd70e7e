"""A test suite: the positions of an EPD file, each with the moves it asks for.

An EPD line is a position's first four FEN fields and its operations, as
python-chess reads them (:meth:`chess.Board.from_epd`): ``id`` names the
position, ``bm`` gives the best moves and ``am`` the moves to avoid (SAN,
several allowed); ``hmvc`` and ``fmvn`` set the move counters. A search
*solves* a position when its key move is one of the ``bm`` moves and none of
the ``am`` moves; a position with neither has nothing to solve.

A bad line is a :class:`SuiteError` that names the file and the line, in one
line, before anything is searched.
"""

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import chess

from ..model.games import position_problems
from .alphabeta import game_over


__all__ = ["SuiteError", "SuitePosition", "read_suite", "parse_suite"]


class SuiteError(ValueError):
    """A bad EPD line; ``str(error)`` is the one-line message for the user."""


@dataclass(frozen=True)
class SuitePosition:
    """One position of a suite.

    ``index`` is its place in the file's positions (from 0), ``line`` its
    line number (from 1), ``id`` the ``id`` operation (``line N`` without
    one), ``bm`` and ``am`` the moves in SAN (empty when the line has none).
    """
    index: int
    line:  int
    id:    str
    fen:   str
    bm:    Tuple[str, ...] = field(default=())
    am:    Tuple[str, ...] = field(default=())

    @property
    def expected(self) -> str:
        """What the position asks for, as a suite prints it: ``bm Rh8``, ``am Qxb2``."""
        return "; ".join(f"{name} {' '.join(moves)}" for name, moves in
                         (("bm", self.bm), ("am", self.am)) if moves)

    def solved(self, move: Optional[str]) -> Optional[bool]:
        """Whether the key ``move`` (SAN) solves the position; ``None`` when
        it asks for nothing."""
        if not (self.bm or self.am):
            return None
        return move is not None and (not self.bm or move in self.bm) and move not in self.am


def _moves(board, operations, name):
    moves = operations.get(name, [])
    if not isinstance(moves, list):
        raise ValueError(f"{name} must be moves, not {moves!r}")
    return tuple(board.san(move) for move in moves)


def _position(index, number, text):
    try:
        board, operations = chess.Board.from_epd(text)
    except ValueError as error:
        raise ValueError(f"not an EPD position: {error}") from None
    if not board.is_valid():
        raise ValueError(f"not a legal position: {position_problems(board)}")
    over = game_over(board)
    if over:
        raise ValueError(f"the position is {over}; nothing to search")
    name = operations.get("id", f"line {number}")
    return SuitePosition(index=index, line=number, id=str(name), fen=board.fen(),
                         bm=_moves(board, operations, "bm"), am=_moves(board, operations, "am"))


def parse_suite(data: bytes, name: str) -> List[SuitePosition]:
    """The positions of the EPD text ``data``, in file order; blank lines
    and lines starting with ``#`` are skipped. ``name`` names the file in a
    :class:`SuiteError`."""
    positions = []
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise SuiteError(f"{name}: line {number}: not UTF-8 text (byte {error.start + 1} "
                             f"of the line is 0x{raw[error.start]:02x})") from None
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        try:
            positions.append(_position(len(positions), number, text))
        except ValueError as error:
            raise SuiteError(f"{name}: line {number}: {error}") from None
    if not positions:
        raise SuiteError(f"{name}: no EPD positions in the file")
    return positions


def read_suite(path: str) -> List[SuitePosition]:
    """The positions of the EPD file at ``path`` (:func:`parse_suite`)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise SuiteError(f"{path}: cannot read the file: {error.strerror or error}") from None
    return parse_suite(data, path)
