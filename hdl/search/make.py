"""The board writes that make and unmake a move."""

from amaranth.hdl import Cat, Const, Module, Mux
from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

from .board import WriteSignature
from .layout import Candidate
from .rules import PAWN, ROOK


__all__ = ["MoveWrites", "WritePhase"]


class WritePhase(enum.Enum, shape=2):
    """A move's writes in order: the mover's two squares, then a castling's
    rook or the pawn taken en passant (only for those)."""
    MAKE = 0
    MAKE_SPECIAL = 1
    UNMAKE = 2
    UNMAKE_SPECIAL = 3


class MoveWrites(wiring.Component):
    """The two board writes of each phase of making and unmaking
    ``candidate``; combinational.

    Members
    -------
    candidate : Candidate, in
    phase : WritePhase, in
    enable : Signal(1), in
    write_a, write_b : Out(WriteSignature)
        To the board's write ports.
    """

    candidate: In(Candidate)
    phase:     In(WritePhase)
    enable:    In(1)
    write_a:   Out(WriteSignature)
    write_b:   Out(WriteSignature)

    def elaborate(self, platform):
        m = Module()
        cand = self.candidate
        mover = cand.piece[3]
        from_sq, to_sq = cand.move.from_sq, cand.move.to_sq
        placed = Mux(cand.move.promo != 0, Cat(cand.move.promo, mover), cand.piece)
        beside = Cat(to_sq[:3], from_sq[3:])            # the pawn taken en passant
        kingside = to_sq[:3] == 6
        rook_from = Mux(kingside, from_sq + 3, from_sq - 4)
        rook_to = Mux(kingside, from_sq + 1, from_sq - 1)
        rook = Cat(Const(ROOK, 3), mover)

        def write(port, addr, data):
            m.d.comb += [port.addr.eq(addr), port.data.eq(data), port.en.eq(self.enable)]

        with m.Switch(self.phase):
            with m.Case(WritePhase.MAKE):
                write(self.write_a, to_sq, placed)
                write(self.write_b, from_sq, 0)
            with m.Case(WritePhase.MAKE_SPECIAL):
                with m.If(cand.en_passant):
                    write(self.write_a, beside, 0)
                with m.Else():
                    write(self.write_a, rook_to, rook)
                    write(self.write_b, rook_from, 0)
            with m.Case(WritePhase.UNMAKE):
                write(self.write_a, from_sq, cand.piece)
                write(self.write_b, to_sq, cand.captured)
            with m.Case(WritePhase.UNMAKE_SPECIAL):
                with m.If(cand.en_passant):
                    write(self.write_a, beside, Cat(Const(PAWN, 3), ~mover))
                with m.Else():
                    write(self.write_a, rook_from, rook)
                    write(self.write_b, rook_to, 0)
        return m
