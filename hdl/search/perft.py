"""Perft in gateware: generate, make, test, recurse, unmake and count."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..word import MoveWord
from .attack import AttackTest
from .board import Board
from .layout import Move, StackEntry
from .movegen import MoveGenerator
from .rules import CASTLING_LOSS, KING, MAX_DEPTH, NODE_BITS, PAWN, ROOK


__all__ = ["Perft"]


def castling_kept(square):
    """The 4-bit mask of the castling rights a move from or to ``square`` keeps."""
    kept = Const(0xF, 4)
    for home, loss in CASTLING_LOSS.items():
        kept = Mux(square == home, ~loss & 0xF, kept)
    return kept


class Perft(wiring.Component):
    """Count the leaf nodes of the legal move tree to ``depth``, and each
    root move's share ("divide").

    The host writes the 64 squares through ``load_*``, sets the side to move,
    the castling rights (cleaned: a right only with its king and rook at
    home), the en passant square (only when a pawn can take there) and the
    depth, and pulses ``start``. Each pseudo-legal move of the
    :class:`MoveGenerator` is made on the :class:`Board`; the
    :class:`AttackTest` asks whether the mover's king is attacked (for a
    castling, first the king's square and the square it passes); a legal
    move comes out on ``move_*`` with its move word, and is counted at the
    last ply or recursed into; then it is unmade. The undo stack
    (:class:`~amaranth.lib.memory.Memory`, one :class:`StackEntry` a ply)
    keeps each ply's generator state and what unmaking its move needs.

    Parameters
    ----------
    en_passant : bool
        Passed to the generator: ``False`` is a broken variant for tests.

    Members
    -------
    load_en, load_square, load_piece : in
        Write a square's Table 1 piece code while idle.
    side, castling, ep_valid, ep_sq : in
        The position, sampled at ``start``.
    depth : Signal(4), in
        1 .. MAX_DEPTH, sampled at ``start``.
    start : Signal(1), in
    busy : Signal(1), out
    nodes : Signal(NODE_BITS), out
        The leaf count so far; the total once ``busy`` falls.
    move_valid : Signal(1), out
        One clock per legal move found, at any ply.
    move_ply : Signal(4), out
    move : Move, out
    move_word : MoveWord, out
        The move's detector word; its barrier bit is
        :func:`axon.sim.model.encode.is_barrier`'s.
    root_valid : Signal(1), out
        One clock when a root move's subtree is counted.
    root_move : Move, out
    root_nodes : Signal(NODE_BITS), out
    """

    load_en:     In(1)
    load_square: In(6)
    load_piece:  In(4)
    side:        In(1)
    castling:    In(4)
    ep_valid:    In(1)
    ep_sq:       In(6)
    depth:       In(4)
    start:       In(1)
    busy:        Out(1)
    nodes:       Out(NODE_BITS)
    move_valid:  Out(1)
    move_ply:    Out(4)
    move:        Out(Move)
    move_word:   Out(MoveWord)
    root_valid:  Out(1)
    root_move:   Out(Move)
    root_nodes:  Out(NODE_BITS)

    def __init__(self, *, en_passant: bool = True):
        if not isinstance(en_passant, bool):
            raise TypeError(f"en_passant must be a bool, not {en_passant!r}")
        self.en_passant = en_passant
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.board = board = Board()
        m.submodules.gen = gen = MoveGenerator(en_passant=self.en_passant)
        m.submodules.attack = attack = AttackTest()
        m.submodules.stack = stack = Memory(shape=StackEntry, depth=MAX_DEPTH + 1, init=[])
        push = stack.write_port()
        parent = stack.read_port()

        depth = Signal(4)
        ply = Signal(4)
        side = Signal()
        castling = Signal(4)
        ep_valid = Signal()
        ep_sq = Signal(6)
        king_sq = Array(Signal(6, name=f"king_sq_{colour}") for colour in range(2))
        old_castling = Signal(4)
        old_ep_valid = Signal()
        old_ep_sq = Signal(6)
        node_ep_legal = Signal()
        root_base = Signal(NODE_BITS)
        legal = Signal()

        wiring.connect(m, gen.read, board.gen_read)
        wiring.connect(m, attack.read, board.attack_read)
        m.d.comb += [
            gen.side.eq(side), gen.castling.eq(castling), gen.ep_valid.eq(ep_valid),
            gen.ep_sq.eq(ep_sq), gen.white.eq(board.white), gen.black.eq(board.black),
            gen.state_in.eq(parent.data.gen),
            parent.addr.eq(ply - 1),
            push.addr.eq(ply),
            push.data.gen.eq(gen.state),
            push.data.old_castling.eq(old_castling),
            push.data.old_ep_valid.eq(old_ep_valid),
            push.data.old_ep_sq.eq(old_ep_sq),
            push.data.node_ep_legal.eq(node_ep_legal),
        ]

        cand = gen.candidate
        mover = cand.piece[3]
        from_sq, to_sq = cand.move.from_sq, cand.move.to_sq
        placed = Mux(cand.move.promo != 0, Cat(cand.move.promo, mover), cand.piece)
        moves_king = cand.piece[:3] == KING
        special = cand.en_passant | cand.castle
        beside = Cat(to_sq[:3], from_sq[3:])            # the pawn taken en passant
        kingside = to_sq[:3] == 6
        rook_from = Mux(kingside, from_sq + 3, from_sq - 4)
        rook_to = Mux(kingside, from_sq + 1, from_sq - 1)
        rook = Cat(Const(ROOK, 3), mover)
        passing = Mux(kingside, from_sq + 1, from_sq - 1)
        new_castling = castling & castling_kept(from_sq) & castling_kept(to_sq)

        def write(port, addr, data):
            return [port.addr.eq(addr), port.data.eq(data), port.en.eq(1)]

        def test(square, colour):
            m.d.comb += [attack.start.eq(1), attack.square.eq(square), attack.colour.eq(colour)]

        m.d.sync += [self.move_valid.eq(0), self.root_valid.eq(0)]
        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.load_en):
                    m.d.comb += write(board.write_a, self.load_square, self.load_piece)
                    with m.If(self.load_piece[:3] == KING):
                        m.d.sync += king_sq[self.load_piece[3]].eq(self.load_square)
                with m.If(self.start):
                    m.d.sync += [depth.eq(self.depth), ply.eq(0), side.eq(self.side),
                                 castling.eq(self.castling), ep_valid.eq(self.ep_valid),
                                 ep_sq.eq(self.ep_sq), self.nodes.eq(0), node_ep_legal.eq(0),
                                 self.busy.eq(1)]
                    m.d.comb += gen.start.eq(1)
                    m.next = "GEN"
            with m.State("GEN"):
                with m.If(gen.valid):
                    with m.If(cand.castle):
                        m.next = "CASTLE_FROM"
                    with m.Else():
                        m.next = "MAKE"
                with m.Elif(gen.done):
                    with m.If(ply == 0):
                        m.d.sync += self.busy.eq(0)
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "POP"
            # Castling: the king may not stand in check nor pass through it.
            with m.State("CASTLE_FROM"):
                test(from_sq, ~mover)
                m.next = "CASTLE_FROM_WAIT"
            with m.State("CASTLE_FROM_WAIT"):
                with m.If(attack.done):
                    with m.If(attack.attacked):
                        m.d.comb += gen.next.eq(1)
                        m.next = "GEN"
                    with m.Else():
                        m.next = "CASTLE_PASS"
            with m.State("CASTLE_PASS"):
                test(passing, ~mover)
                m.next = "CASTLE_PASS_WAIT"
            with m.State("CASTLE_PASS_WAIT"):
                with m.If(attack.done):
                    with m.If(attack.attacked):
                        m.d.comb += gen.next.eq(1)
                        m.next = "GEN"
                    with m.Else():
                        m.next = "MAKE"
            with m.State("MAKE"):
                m.d.comb += write(board.write_a, to_sq, placed)
                m.d.comb += write(board.write_b, from_sq, 0)
                m.d.sync += [side.eq(~side), castling.eq(new_castling),
                             ep_valid.eq(cand.double), ep_sq.eq(Cat(from_sq[:3], passing_rank(from_sq, mover))),
                             old_castling.eq(castling), old_ep_valid.eq(ep_valid),
                             old_ep_sq.eq(ep_sq)]
                with m.If(moves_king):
                    m.d.sync += king_sq[mover].eq(to_sq)
                with m.If(special):
                    m.next = "MAKE_SPECIAL"
                with m.Else():
                    m.next = "CHECK"
            with m.State("MAKE_SPECIAL"):
                with m.If(cand.en_passant):
                    m.d.comb += write(board.write_a, beside, 0)
                with m.Else():
                    m.d.comb += write(board.write_a, rook_to, rook)
                    m.d.comb += write(board.write_b, rook_from, 0)
                m.next = "CHECK"
            with m.State("CHECK"):
                test(king_sq[mover], ~mover)
                m.next = "CHECK_WAIT"
            with m.State("CHECK_WAIT"):
                with m.If(attack.done):
                    m.d.sync += legal.eq(~attack.attacked)
                    with m.If(attack.attacked):
                        m.next = "UNMAKE"
                    with m.Else():
                        m.d.sync += [
                            self.move_valid.eq(1), self.move_ply.eq(ply), self.move.eq(cand.move),
                            self.move_word.from_sq.eq(from_sq), self.move_word.to_sq.eq(to_sq),
                            self.move_word.piece.eq(cand.piece),
                            self.move_word.barrier.eq(
                                (cand.captured != 0) | special | (cand.piece[:3] == PAWN) |
                                node_ep_legal | (castling != old_castling)),
                        ]
                        with m.If(cand.en_passant):
                            m.d.sync += node_ep_legal.eq(1)
                        with m.If(ply == 0):
                            m.d.sync += root_base.eq(self.nodes)
                        with m.If(ply == depth - 1):
                            m.d.sync += self.nodes.eq(self.nodes + 1)
                            m.next = "UNMAKE"
                        with m.Else():
                            m.next = "PUSH"
            with m.State("PUSH"):
                m.d.comb += [push.en.eq(1), gen.start.eq(1)]
                m.d.sync += [ply.eq(ply + 1), node_ep_legal.eq(0)]
                m.next = "GEN"
            with m.State("POP"):
                # The parent's entry has been on the read port since this node began.
                m.d.comb += gen.restore.eq(1)
                m.d.sync += [ply.eq(ply - 1), legal.eq(1),
                             old_castling.eq(parent.data.old_castling),
                             old_ep_valid.eq(parent.data.old_ep_valid),
                             old_ep_sq.eq(parent.data.old_ep_sq),
                             node_ep_legal.eq(parent.data.node_ep_legal)]
                m.next = "UNMAKE"
            with m.State("UNMAKE"):
                m.d.comb += write(board.write_a, from_sq, cand.piece)
                m.d.comb += write(board.write_b, to_sq, cand.captured)
                m.d.sync += [side.eq(mover), castling.eq(old_castling),
                             ep_valid.eq(old_ep_valid), ep_sq.eq(old_ep_sq)]
                with m.If(moves_king):
                    m.d.sync += king_sq[mover].eq(from_sq)
                with m.If((ply == 0) & legal):
                    m.d.sync += [self.root_valid.eq(1), self.root_move.eq(cand.move),
                                 self.root_nodes.eq(self.nodes - root_base)]
                with m.If(special):
                    m.next = "UNMAKE_SPECIAL"
                with m.Else():
                    m.d.comb += gen.next.eq(1)
                    m.next = "GEN"
            with m.State("UNMAKE_SPECIAL"):
                with m.If(cand.en_passant):
                    m.d.comb += write(board.write_a, beside, Cat(Const(PAWN, 3), ~mover))
                with m.Else():
                    m.d.comb += write(board.write_a, rook_from, rook)
                    m.d.comb += write(board.write_b, rook_to, 0)
                m.d.comb += gen.next.eq(1)
                m.next = "GEN"
        return m


def passing_rank(from_sq, mover):
    """The rank a pawn's two-square step passes over: its en passant square's."""
    return Mux(mover, from_sq[3:] - 1, from_sq[3:] + 1)[:3]
