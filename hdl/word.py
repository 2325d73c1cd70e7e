"""The move word: one entry of the move list.

The paper's ``Move_Type`` (section 5.1) is 24 bits: from-square, to-square and
a ``Piece_Flags`` byte holding the 4-bit piece code of Table 1 and four flag
bits that mark irreversible moves. The detector only ever asks one question of
the flags, "may the scan go past this move?", so they collapse into a single
*barrier* bit and the word shrinks to 17 bits::

     16   15  14    12 11         6 5          0
    +---+---+--------+------------+------------+
    | B | C |  type  |  to square | from square|
    +---+---+--------+------------+------------+
          `- piece -`

* ``from_sq``, ``to_sq``: 0 = a1, 1 = b1, ... 63 = h8 (python-chess numbering).
* ``piece``: the Table 1 code, colour bit ``C`` (1 = Black) above the type
  (1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king, 0 none/null move).
  A word names them ``kind`` (the type) and ``colour``; an integer piece
  code splits with :func:`piece_kind` and :func:`piece_colour`.
* ``barrier``: no position before this move can ever recur after it, so the
  scan stops on reading this word without applying it.
"""

from typing import Tuple

from amaranth.hdl import Value
from amaranth.lib import data


__all__ = [
    "WORD_BITS", "MoveWord", "pack_word", "unpack_word", "word_str", "square_name", "is_barrier",
    "PIECE_NONE", "PIECE_LETTERS", "PIECE_KIND_BITS", "piece_kind", "piece_colour", "piece_code",
]

# The piece code's type bits; the colour bit is the one above them.
PIECE_KIND_BITS = 3


class MoveWord(data.Struct):
    """One move-list entry; see the module docstring for the bit diagram.

    ``kind`` and ``colour`` name the two parts of ``piece``: the layout keeps
    the paper's one 4-bit piece code, which waveforms show as a letter."""
    # A layout's annotations are widths, which a type checker takes for types.
    from_sq: 6      # type: ignore[valid-type]
    to_sq:   6      # type: ignore[valid-type]
    piece:   4      # type: ignore[valid-type]
    barrier: 1      # type: ignore[valid-type]

    @property
    def kind(self) -> Value:
        """The piece's type (Table 1: 1 pawn ... 6 king, 0 none), without its colour."""
        return self.piece[:PIECE_KIND_BITS]

    @property
    def colour(self) -> Value:
        """The piece's colour bit: 1 for Black."""
        return self.piece[PIECE_KIND_BITS]


WORD_BITS = MoveWord.as_shape().size
assert WORD_BITS == 17

PIECE_NONE = 0
# Table 1 codes to FEN letters (upper case is White).
PIECE_LETTERS = {0: "-", 1: "P", 2: "N", 3: "B", 4: "R", 5: "Q", 6: "K",
                 9: "p", 10: "n", 11: "b", 12: "r", 13: "q", 14: "k"}

_FILES = "abcdefgh"


# Each field's (name, offset, mask), read once from the layout, so that the
# host's integer words and the gateware's struct cannot disagree. (The
# layout's own ``const``/``from_bits`` build Amaranth values, a hundred times
# slower than these shifts, and the golden model unpacks every word it scans.)
_FIELDS = tuple((name, field.offset, (1 << field.width) - 1)
                for name, field in data.Layout.cast(MoveWord))


def pack_word(from_sq: int, to_sq: int, piece: int, barrier: bool = False) -> int:
    """Pack move fields into a 17-bit integer move word."""
    values = {"from_sq": from_sq, "to_sq": to_sq, "piece": piece, "barrier": int(bool(barrier))}
    word = 0
    for name, offset, mask in _FIELDS:
        value = values[name]
        if not isinstance(value, int) or not 0 <= value <= mask:
            raise ValueError(f"{name} must be an integer in range 0..{mask}, not {value!r}")
        word |= value << offset
    return word


def unpack_word(word: int) -> Tuple[int, int, int, bool]:
    """Split a move word into ``(from_sq, to_sq, piece, barrier)``."""
    if not isinstance(word, int) or not 0 <= word < (1 << WORD_BITS):
        raise ValueError(f"move word must be an integer in range 0..{(1 << WORD_BITS) - 1}, "
                         f"not {word!r}")
    from_sq, to_sq, piece, barrier = (word >> offset & mask for _, offset, mask in _FIELDS)
    return from_sq, to_sq, piece, bool(barrier)


def piece_kind(piece: int) -> int:
    """The type of the integer piece code ``piece`` (``MoveWord.kind``)."""
    return piece & ((1 << PIECE_KIND_BITS) - 1)


def piece_colour(piece: int) -> int:
    """The colour bit of the integer piece code ``piece`` (``MoveWord.colour``): 1 for Black."""
    return piece >> PIECE_KIND_BITS & 1


def piece_code(kind: int, colour: int) -> int:
    """The integer piece code of type ``kind`` and colour bit ``colour``."""
    return kind | colour << PIECE_KIND_BITS


_BARRIER_OFFSET = dict((name, offset) for name, offset, _ in _FIELDS)["barrier"]


def is_barrier(word: int) -> bool:
    """Whether the integer move word ``word`` is a barrier (``MoveWord.barrier``)."""
    return bool(word >> _BARRIER_OFFSET & 1)


def square_name(square: int) -> str:
    """The square's name, e.g. ``c4`` for 26."""
    return _FILES[square & 7] + str((square >> 3) + 1)


def word_str(word: int) -> str:
    """Human-readable form in the paper's notation, e.g. ``N_C4A3`` or ``|p_E7E5``."""
    from_sq, to_sq, piece, barrier = unpack_word(word)
    letter = PIECE_LETTERS.get(piece, "?")
    mark = "|" if barrier else ""
    return f"{mark}{letter}_{square_name(from_sq).upper()}{square_name(to_sq).upper()}"
