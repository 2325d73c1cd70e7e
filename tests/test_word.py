# amaranth: UnusedElaboratable=no
import pytest
from hypothesis import given, strategies as st

from axon.hdl.word import WORD_BITS, MoveWord, pack_word, unpack_word, word_str


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "move word"


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


def test_word_is_17_bits():
    assert WORD_BITS == 17


def test_round_trip_every_field():
    word = pack_word(0o32, 0o63, 0b1010, barrier=True)
    assert unpack_word(word) == (0o32, 0o63, 0b1010, True)
    assert word == 0o32 | 0o63 << 6 | 0b1010 << 12 | 1 << 16


@given(st.integers(0, 63), st.integers(0, 63), st.integers(0, 15), st.booleans())
def test_pack_and_unpack_agree_with_the_layout(from_sq, to_sq, piece, barrier):
    # The integer helpers are the fast path of the golden model; the layout's
    # own const/from_bits are the reference they must equal.
    fields = {"from_sq": from_sq, "to_sq": to_sq, "piece": piece, "barrier": int(barrier)}
    word = pack_word(from_sq, to_sq, piece, barrier)
    assert word == MoveWord.const(fields).as_bits()
    view = MoveWord.from_bits(word)
    assert unpack_word(word) == (view.from_sq, view.to_sq, view.piece, bool(view.barrier))


def test_word_str_uses_paper_notation():
    # c4 = 26, a3 = 16, white knight = 2
    assert word_str(pack_word(26, 16, 2)) == "N_C4A3"
    assert word_str(pack_word(52, 36, 9, barrier=True)) == "|p_E7E5"


@pytest.mark.parametrize("args, message", [
    ((64, 0, 2), r"from_sq must be an integer in range 0\.\.63, not 64"),
    ((0, -1, 2), r"to_sq must be an integer in range 0\.\.63, not -1"),
    ((0, 0, 16), r"piece must be an integer in range 0\.\.15, not 16"),
])
def test_pack_rejects_out_of_range(args, message):
    with pytest.raises(ValueError, match=message):
        pack_word(*args)


def test_unpack_rejects_wide_word():
    with pytest.raises(ValueError, match=r"move word must be an integer in range 0\.\.131071"):
        unpack_word(1 << 17)
