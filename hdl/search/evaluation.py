"""The search unit's incremental evaluation: material and pawn advance, as
:func:`axon.sim.engine.alphabeta.evaluate` counts them, changed by each
move rather than counted again at every leaf."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .layout import Candidate, Score
from .rules import PAWN, PAWN_ADVANCE, PIECE_VALUES


__all__ = ["MoveValue", "square_value"]


def square_value(m, code, square, name):
    """What the piece ``code`` on ``square`` adds to White's evaluation
    (a Black piece subtracts): its material, and for a pawn
    ``PAWN_ADVANCE`` per rank it has gone from its home rank. An empty
    square (code 0) is worth 0."""
    kind, black, rank = code[:3], code[3], square[3:]
    material = Array(Const(PIECE_VALUES.get(piece, 0), Score) for piece in range(8))[kind]
    # Tables rather than arithmetic on the 3-bit rank: the rank below a
    # White pawn's home is -1 ranks advanced.
    white_advance = Array(Const(PAWN_ADVANCE * (rank_ - 1), Score) for rank_ in range(8))
    black_advance = Array(Const(PAWN_ADVANCE * (6 - rank_), Score) for rank_ in range(8))
    worth = Signal(Score, name=f"{name}_worth")
    value = Signal(Score, name=name)
    m.d.comb += [
        worth.eq(material + Mux(kind == PAWN, Mux(black, black_advance[rank],
                                                  white_advance[rank]), 0)),
        value.eq(Mux(black, -worth, worth)),
    ]
    return value


class MoveValue(wiring.Component):
    """How much ``candidate`` changes White's evaluation when it is made
    (unmaking it changes it back by as much); combinational.

    Members
    -------
    candidate : Candidate, in
    delta : Score, out
    """

    candidate: In(Candidate)
    delta:     Out(Score)

    def elaborate(self, platform):
        m = Module()
        cand = self.candidate
        mover = cand.piece[3]
        from_sq, to_sq = cand.move.from_sq, cand.move.to_sq
        placed = Mux(cand.move.promo != 0, Cat(cand.move.promo, mover), cand.piece)
        # The pawn taken en passant stands beside the to-square.
        taken_beside = Mux(cand.en_passant, Cat(Const(PAWN, 3), ~mover), 0)
        beside = Cat(to_sq[:3], from_sq[3:])
        m.d.comb += self.delta.eq(
            square_value(m, placed, to_sq, "arrives") -
            square_value(m, cand.piece, from_sq, "leaves") -
            square_value(m, cand.captured, to_sq, "captured") -
            square_value(m, taken_beside, beside, "taken_en_passant"))
        return m
