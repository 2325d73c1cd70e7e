# amaranth: UnusedElaboratable=no
import pytest
from hypothesis import given, strategies as st

from axon.hdl.word import (PIECE_KIND_BITS, WORD_BITS, MoveWord, is_barrier, pack_word, piece_code,
                           piece_colour, piece_kind, unpack_word, word_str)


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


def piece_parts_in_gateware(words):
    """``(kind, colour, barrier)`` that a circuit reads through ``MoveWord``'s
    names, for each integer word of ``words``, in Amaranth's simulator."""
    from amaranth.hdl import Module, Signal
    from amaranth.sim import Simulator
    word, kind, colour, barrier = Signal(MoveWord), Signal(3), Signal(), Signal()
    m = Module()
    m.d.comb += [kind.eq(word.kind), colour.eq(word.colour), barrier.eq(word.barrier)]
    found = []

    async def testbench(ctx):
        for value in words:
            ctx.set(word.as_value(), value)
            found.append((ctx.get(kind), ctx.get(colour), ctx.get(barrier)))

    sim = Simulator(m)
    sim.add_testbench(testbench)
    sim.run()
    return found


def test_kind_and_colour_name_the_piece_code():
    # Every piece code, in the gateware and in the host's integer helpers.
    words = [pack_word(12, 28, piece, barrier=piece % 3 == 0) for piece in range(16)]
    expected = [(piece_kind(piece), piece_colour(piece), int(is_barrier(word)))
                for piece, word in enumerate(words)]
    assert piece_parts_in_gateware(words) == expected
    assert [piece_code(kind, colour) for kind, colour, _ in expected] == list(range(16))
    # Table 1: a black knight is type 2 with the colour bit set.
    assert (piece_kind(10), piece_colour(10)) == (2, 1) and piece_code(6, 0) == 6
    assert PIECE_KIND_BITS == 3


def test_kind_and_colour_checks_can_fail():
    # A broken variant: colour and kind swapped for bits of the wrong place.
    words = [pack_word(0, 0, piece) for piece in (2, 10)]
    swapped = [(piece & 1, piece >> 1 & 1, 0) for piece in (2, 10)]
    assert piece_parts_in_gateware(words) != swapped
    assert not is_barrier(pack_word(63, 63, 15)) and is_barrier(pack_word(0, 0, 0, True))
