"""The sequential pseudo-legal move generator."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .board import ReadSignature
from .layout import Candidate, GenState, GEN_DONE, GEN_EP, GEN_KIND, GEN_PIECE, GEN_SCAN
from .rules import (CASTLE_KINGSIDE, CASTLE_QUEENSIDE, KING, KING_HOME, PAWN, PAWN_STEPS,
                    PIECE_STEPS, PROMOTIONS, SLIDERS)


__all__ = ["MoveGenerator"]


def _step_tables():
    """Each (kind, step)'s file and rank delta, indexed by ``kind << 4 | step``,
    and each kind's number of steps (the king's two castlings included)."""
    deltas = [(0, 0)] * 128
    counts = [1] * 8
    for kind, steps in list(PIECE_STEPS.items()) + [(PAWN, PAWN_STEPS)]:
        for step, delta in enumerate(steps):
            deltas[kind << 4 | step] = delta
        counts[kind] = len(steps)
    counts[KING] = CASTLE_QUEENSIDE + 1
    return deltas, counts


class MoveGenerator(wiring.Component):
    """The pseudo-legal moves of the side to move, one at a time, in a fixed
    order (docs/perft.md): en passant captures (the capturing pawn on the
    a-file side first); then the pieces by from-square a1 ... h8, each by
    its steps in :mod:`~axon.hdl.search.rules` order, a slider's step by
    distance; a king's castlings after its steps (king side, then queen
    side); a pawn's one-step, two-step, captures to the a- then h-file side,
    each promotion as Q, R, B, N. Castling is given when the rights and the
    empty squares allow it; whether the king passes through check is the
    caller's test.

    A clock examines one square: the walk to the next own piece takes one
    clock (a priority encoder over the occupancy), the read of its type
    another, each step of a piece one.

    Parameters
    ----------
    en_passant : bool
        Generate en passant captures; ``False`` builds a broken variant that
        tests must catch.

    Members
    -------
    start : Signal(1), in
        Begin the moves of the position on the board.
    next : Signal(1), in
        Take the held candidate and look for the next one.
    restore, state_in : Signal(1), in; GenState, in
        Resume a node saved from ``state``.
    side, castling, ep_valid, ep_sq : in
        The position's side to move, rights and en passant square.
    white, black : Signal(64), in
        The board's occupancy.
    read : Out(ReadSignature)
    state : GenState, out
    valid : Signal(1), out
        ``candidate`` holds a move until ``next``.
    done : Signal(1), out
        The node has no more moves.
    candidate : Candidate, out
    """

    start:     In(1)
    next:      In(1)
    restore:   In(1)
    state_in:  In(GenState)
    side:      In(1)
    castling:  In(4)
    ep_valid:  In(1)
    ep_sq:     In(6)
    white:     In(64)
    black:     In(64)
    read:      Out(ReadSignature)
    state:     Out(GenState)
    valid:     Out(1)
    done:      Out(1)
    candidate: Out(Candidate)

    def __init__(self, *, en_passant: bool = True):
        if not isinstance(en_passant, bool):
            raise TypeError(f"en_passant must be a bool, not {en_passant!r}")
        self.en_passant = en_passant
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        st = Signal(GenState)
        m.d.comb += [
            self.state.eq(st),
            self.candidate.eq(st.candidate),
            self.valid.eq(st.holding),
            self.done.eq(st.stage == GEN_DONE),
        ]
        ep_from, ep_match, ep_candidate = self._en_passant(m, st)
        found, any_left = self._next_piece(m, st)
        target, step_ok, piece_candidate, is_slider, last_step = self._piece_step(m, st)

        def next_step():
            with m.If(st.step == last_step):
                with m.If(st.from_sq == 63):
                    m.d.sync += st.stage.eq(GEN_DONE)
                with m.Else():
                    m.d.sync += [st.stage.eq(GEN_SCAN), st.from_sq.eq(st.from_sq + 1)]
            with m.Else():
                m.d.sync += [st.step.eq(st.step + 1), st.to_sq.eq(st.from_sq), st.promo.eq(0)]

        def next_ep():
            with m.If(st.step == 0):
                m.d.sync += st.step.eq(1)
            with m.Else():
                m.d.sync += [st.stage.eq(GEN_SCAN), st.from_sq.eq(0), st.step.eq(0)]

        with m.Switch(st.stage):
            with m.Case(GEN_EP):
                m.d.comb += self.read.addr.eq(ep_from)
            with m.Case(GEN_KIND):
                m.d.comb += self.read.addr.eq(st.from_sq)
            with m.Default():
                m.d.comb += self.read.addr.eq(target)

        with m.If(self.start):
            m.d.sync += [st.stage.eq(GEN_EP if self.en_passant else GEN_SCAN), st.from_sq.eq(0),
                         st.step.eq(0), st.promo.eq(0), st.holding.eq(0)]
        with m.Elif(self.restore):
            m.d.sync += st.eq(self.state_in)
        with m.Elif(st.holding):
            # The candidate is taken: the next promotion piece, the next
            # square of a slider's ray, or the next step.
            with m.If(self.next):
                m.d.sync += st.holding.eq(0)
                with m.If(st.stage == GEN_EP):
                    next_ep()
                with m.Elif((st.candidate.move.promo != 0) & (st.promo != len(PROMOTIONS) - 1)):
                    m.d.sync += st.promo.eq(st.promo + 1)
                with m.Elif(is_slider & (st.candidate.captured == 0)):
                    m.d.sync += st.to_sq.eq(st.candidate.move.to_sq)
                with m.Else():
                    next_step()
        with m.Else():
            with m.Switch(st.stage):
                with m.Case(GEN_EP):
                    with m.If(ep_match):
                        m.d.sync += [*ep_candidate, st.holding.eq(1)]
                    with m.Else():
                        next_ep()
                with m.Case(GEN_SCAN):
                    with m.If(any_left):
                        m.d.sync += [st.stage.eq(GEN_KIND), st.from_sq.eq(found)]
                    with m.Else():
                        m.d.sync += st.stage.eq(GEN_DONE)
                with m.Case(GEN_KIND):
                    m.d.sync += [st.stage.eq(GEN_PIECE), st.to_sq.eq(st.from_sq),
                                 st.kind.eq(self.read.piece[:3]), st.step.eq(0), st.promo.eq(0)]
                with m.Case(GEN_PIECE):
                    with m.If(step_ok):
                        m.d.sync += [*piece_candidate, st.holding.eq(1)]
                    with m.Else():
                        next_step()
        return m

    def _en_passant(self, m, st):
        """The capturing pawn beside the en passant square, towards the
        a-file at step 0, the h-file at step 1: its square, whether it is
        there, and the candidate."""
        side = self.side
        pawn = Cat(Const(PAWN, 3), side)
        ep_file = Signal(signed(5))
        m.d.comb += ep_file.eq(self.ep_sq[:3] + Mux(st.step[0], 1, -1))
        ep_from = Cat(ep_file[:3], Mux(side, 3, 4)[:3])
        ep_match = self.ep_valid & (ep_file >= 0) & (ep_file < 8) & (self.read.piece == pawn)
        ep_candidate = [
            st.candidate.move.from_sq.eq(ep_from), st.candidate.move.to_sq.eq(self.ep_sq),
            st.candidate.move.promo.eq(0), st.candidate.piece.eq(pawn),
            st.candidate.captured.eq(0), st.candidate.en_passant.eq(1),
            st.candidate.castle.eq(0), st.candidate.double.eq(0),
        ]
        return ep_from, ep_match, ep_candidate

    def _next_piece(self, m, st):
        """The first square at or after ``from_sq`` with a piece of the side
        to move (a priority encoder over its occupancy), and whether any."""
        remaining = Signal(64)
        offset = Signal(6)
        found = Signal(6)
        m.d.comb += remaining.eq(Mux(self.side, self.black, self.white) >> st.from_sq)
        for bit in reversed(range(64)):
            with m.If(remaining[bit]):
                m.d.comb += offset.eq(bit)
        m.d.comb += found.eq(st.from_sq + offset)
        return found, remaining.any()

    def _piece_step(self, m, st):
        """The piece's current step from ``to_sq``: its target square,
        whether it is a move, the candidate, whether the piece slides, and
        the piece's last step index."""
        side = self.side
        occupied = self.white | self.black
        piece = self.read.piece
        deltas, counts = _step_tables()
        index = Cat(st.step, st.kind)
        file_delta = Array(Const(df, signed(3)) for df, _ in deltas)[index]
        rank_delta = Array(Const(dr, signed(3)) for _, dr in deltas)[index]
        last_step = Array(Const(count - 1, 4) for count in counts)[st.kind]
        is_pawn = st.kind == PAWN
        is_king = st.kind == KING
        is_slider = Cat(st.kind == kind for kind in SLIDERS).any()
        target_file = Signal(signed(5))
        target_rank = Signal(signed(6))
        m.d.comb += [
            target_file.eq(st.to_sq[:3] + file_delta),
            target_rank.eq(st.to_sq[3:] + Mux(is_pawn & side, -rank_delta, rank_delta)),
        ]
        on_board = ((target_file >= 0) & (target_file < 8) &
                    (target_rank >= 0) & (target_rank < 8))
        target = Cat(target_file[:3], target_rank[:3])
        empty = piece == 0
        friendly = ~empty & (piece[3] == side)
        hostile = ~empty & (piece[3] != side)

        from_rank = st.from_sq[3:]
        passed = Cat(st.from_sq[:3], Mux(side, from_rank - 1, from_rank + 1)[:3])
        pawn_ok = Array([
            on_board & empty,
            on_board & empty & (from_rank == Mux(side, 6, 1)) & ~occupied.bit_select(passed, 1),
            on_board & hostile,
            on_board & hostile,
        ])[st.step[:2]]
        home = Mux(side, KING_HOME[1], KING_HOME[0])
        kingside_clear = ~Mux(side, occupied[61] | occupied[62], occupied[5] | occupied[6])
        queenside_clear = ~Mux(side, occupied[57] | occupied[58] | occupied[59],
                               occupied[1] | occupied[2] | occupied[3])
        castle_kingside = is_king & (st.step == CASTLE_KINGSIDE)
        castle = castle_kingside | (is_king & (st.step == CASTLE_QUEENSIDE))
        castle_ok = (st.from_sq == home) & Mux(
            castle_kingside,
            self.castling.bit_select(side << 1, 1) & kingside_clear,
            self.castling.bit_select((side << 1) | 1, 1) & queenside_clear)
        step_ok = Mux(is_pawn, pawn_ok, Mux(castle, castle_ok, on_board & ~friendly))
        destination = Mux(castle, Mux(castle_kingside, home + 2, home - 2), target)
        promotes = is_pawn & (target_rank == Mux(side, 0, 7))
        promo_kind = Array(Const(kind, 3) for kind in PROMOTIONS)[st.promo]
        piece_candidate = [
            st.candidate.move.from_sq.eq(st.from_sq), st.candidate.move.to_sq.eq(destination),
            st.candidate.move.promo.eq(Mux(promotes, promo_kind, 0)),
            st.candidate.piece.eq(Cat(st.kind, side)),
            st.candidate.captured.eq(Mux(castle, 0, piece)), st.candidate.en_passant.eq(0),
            st.candidate.castle.eq(castle), st.candidate.double.eq(is_pawn & (st.step == 1)),
        ]
        return target, step_ok, piece_candidate, is_slider, last_step
