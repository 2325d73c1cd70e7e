"""The attack test: is a square attacked by a colour?"""

from amaranth.hdl import Array, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .board import ReadSignature
from .rules import (BISHOP, DIAGONAL, KING, KNIGHT, KNIGHT_JUMPS, ORTHOGONAL, PAWN,
                    PAWN_ATTACK_RAYS, QUEEN, ROOK)


__all__ = ["AttackTest", "ATTACK_STEPS"]

# Eight rays (orthogonal, then diagonal), then the eight knight jumps.
ATTACK_STEPS = ORTHOGONAL + DIAGONAL + KNIGHT_JUMPS


class AttackTest(wiring.Component):
    """Whether ``square`` is attacked by a piece of colour ``colour``, one
    board read a clock.

    It walks the eight rays from ``square`` (orthogonal first, then
    diagonal) to the first piece on each, then reads the eight knight
    squares, and stops at the first attacker: at most 7 x 8 + 8 clocks, a
    few dozen on a middle-game board.

    Members
    -------
    start : Signal(1), in
        Begin a test of ``square`` and ``colour`` (sampled with it).
    square : Signal(6), in
    colour : Signal(1), in
        The attacking colour (1 Black).
    done : Signal(1), out
        One clock when the answer is in ``attacked``.
    attacked : Signal(1), out
    busy : Signal(1), out
    read : Out(ReadSignature)
        The board read port.
    """

    start:    In(1)
    square:   In(6)
    colour:   In(1)
    done:     Out(1)
    attacked: Out(1)
    busy:     Out(1)
    read:     Out(ReadSignature)

    def elaborate(self, platform):
        m = Module()
        origin = Signal(6)
        colour = Signal()
        at = Signal(6)          # the last square read on the current ray
        step = Signal(4)        # index into ATTACK_STEPS
        distance = Signal(3)    # of the square being read, from ``origin``
        file_delta = Array(Const(df, signed(3)) for df, _ in ATTACK_STEPS)[step]
        rank_delta = Array(Const(dr, signed(3)) for _, dr in ATTACK_STEPS)[step]
        target_file = Signal(signed(5))
        target_rank = Signal(signed(5))
        m.d.comb += [
            target_file.eq(at[:3] + file_delta),
            target_rank.eq(at[3:] + rank_delta),
            self.read.addr.eq(target_file[:3] | target_rank[:3] << 3),
        ]
        on_board = ((target_file >= 0) & (target_file < 8) &
                    (target_rank >= 0) & (target_rank < 8))
        piece = self.read.piece
        kind = piece[:3]
        ours = (piece != 0) & (piece[3] == colour)      # the attacker's colour
        is_ray = step < 8
        orthogonal = step < 4
        adjacent = distance == 1
        pawn_rays = Array(Const((1 << a) | (1 << b), 8) for a, b in PAWN_ATTACK_RAYS)[colour]
        ray_hit = ours & (
            (kind == QUEEN) |
            (orthogonal & (kind == ROOK)) |
            (~orthogonal & (kind == BISHOP)) |
            (adjacent & (kind == KING)) |
            (adjacent & (kind == PAWN) & pawn_rays.bit_select(step[:3], 1)))
        jump_hit = ours & (kind == KNIGHT)

        m.d.sync += self.done.eq(0)
        with m.If(self.start):
            m.d.sync += [origin.eq(self.square), colour.eq(self.colour), at.eq(self.square),
                         step.eq(0), distance.eq(1), self.busy.eq(1), self.attacked.eq(0)]
        with m.Elif(self.busy):
            next_step = [at.eq(origin), distance.eq(1), step.eq(step + 1)]
            finish = [self.busy.eq(0), self.done.eq(1)]
            with m.If(on_board & Mux(is_ray, ray_hit, jump_hit)):
                m.d.sync += [*finish, self.attacked.eq(1)]
            with m.Elif(on_board & is_ray & (piece == 0)):
                m.d.sync += [at.eq(self.read.addr), distance.eq(distance + 1)]
            with m.Elif(step == len(ATTACK_STEPS) - 1):
                m.d.sync += finish
            with m.Else():
                m.d.sync += next_step
        return m
