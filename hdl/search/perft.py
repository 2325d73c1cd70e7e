"""Perft in gateware: generate, make, test, recurse, unmake and count."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..word import MoveWord
from .attack import AttackTest
from .board import Board
from .layout import Move, StackEntry
from .make import MoveWrites, WritePhase
from .movegen import MoveGenerator
from .rules import CASTLING_LOSS, KING, MAX_DEPTH, NODE_BITS, PAWN


__all__ = ["Perft"]


def _castling_kept(square):
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
        m.submodules.writes = writes = MoveWrites()
        m.submodules.stack = stack = Memory(shape=StackEntry, depth=MAX_DEPTH + 1, init=[])
        push = stack.write_port()
        parent = stack.read_port()
        r = _Registers()

        wiring.connect(m, gen.read, board.gen_read)
        wiring.connect(m, attack.read, board.attack_read)
        wiring.connect(m, writes.write_a, board.write_a)
        wiring.connect(m, writes.write_b, board.write_b)
        m.d.comb += [
            gen.side.eq(r.side), gen.castling.eq(r.castling), gen.ep_valid.eq(r.ep_valid),
            gen.ep_sq.eq(r.ep_sq), gen.white.eq(board.white), gen.black.eq(board.black),
            gen.state_in.eq(parent.data.gen),
            writes.candidate.eq(gen.candidate),
            board.load.addr.eq(self.load_square), board.load.data.eq(self.load_piece),
            # The parent's entry is on the read port from a clock after its push.
            parent.addr.eq(r.ply - 1),
            push.addr.eq(r.ply),
            push.data.gen.eq(gen.state),
            push.data.old_castling.eq(r.old_castling),
            push.data.old_ep_valid.eq(r.old_ep_valid),
            push.data.old_ep_sq.eq(r.old_ep_sq),
            push.data.node_ep_legal.eq(r.node_ep_legal),
        ]
        self._walk(m, r, board, gen, attack, writes, push, parent)
        return m

    def _walk(self, m, r, board, gen, attack, writes, push, parent):
        """The tree walk: generate a move, make it, test the mover's king,
        then go a ply deeper or count a leaf, and unmake."""
        cand = gen.candidate
        mover = cand.piece[3]

        def board_writes(phase):
            m.d.comb += [writes.phase.eq(phase), writes.enable.eq(1)]

        def test(square):
            m.d.comb += [attack.start.eq(1), attack.square.eq(square), attack.colour.eq(~mover)]

        def castle_test(square, then):
            """Test a square the castling king needs safe (started on the
            state's first clock); refuse the castling if it is attacked."""
            with m.If(~attack.busy & ~attack.done):
                test(square)
            with m.If(attack.done):
                with m.If(attack.attacked):
                    m.d.comb += gen.next.eq(1)
                    m.next = "GEN"
                with m.Else():
                    m.next = then

        m.d.sync += [self.move_valid.eq(0), self.root_valid.eq(0)]
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += board.load.en.eq(self.load_en)
                with m.If(self.load_en & (self.load_piece[:3] == KING)):
                    m.d.sync += r.king_sq[self.load_piece[3]].eq(self.load_square)
                with m.If(self.start):
                    self._start(m, r)
                    m.d.comb += gen.start.eq(1)
                    m.next = "GEN"
            with m.State("GEN"):
                with m.If(gen.valid):
                    with m.If(cand.castle):
                        m.next = "CASTLE_FROM"
                    with m.Else():
                        m.next = "MAKE"
                with m.Elif(gen.done):
                    with m.If(r.ply == 0):
                        m.d.sync += self.busy.eq(0)
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "POP"
            # Castling: the king may not stand in check nor pass through it.
            with m.State("CASTLE_FROM"):
                castle_test(cand.move.from_sq, "CASTLE_PASS")
            with m.State("CASTLE_PASS"):
                castle_test(_passing(cand), "MAKE")
            with m.State("MAKE"):
                board_writes(WritePhase.MAKE)
                self._make(m, r, cand)
                with m.If(cand.en_passant | cand.castle):
                    m.next = "MAKE_SPECIAL"
                with m.Else():
                    m.next = "CHECK"
            with m.State("MAKE_SPECIAL"):
                board_writes(WritePhase.MAKE_SPECIAL)
                m.next = "CHECK"
            with m.State("CHECK"):
                test(r.king_sq[mover])
                m.next = "CHECK_WAIT"
            with m.State("CHECK_WAIT"):
                with m.If(attack.done):
                    m.d.sync += r.legal.eq(~attack.attacked)
                    with m.If(attack.attacked):
                        m.next = "UNMAKE"
                    with m.Else():
                        self._legal(m, r, cand)
                        with m.If(r.ply == r.depth - 1):
                            m.d.sync += self.nodes.eq(self.nodes + 1)
                            m.next = "UNMAKE"
                        with m.Else():
                            m.next = "PUSH"
            with m.State("PUSH"):
                m.d.comb += [push.en.eq(1), gen.start.eq(1)]
                m.d.sync += [r.ply.eq(r.ply + 1), r.node_ep_legal.eq(0)]
                m.next = "GEN"
            with m.State("POP"):
                m.d.comb += gen.restore.eq(1)
                m.d.sync += [r.ply.eq(r.ply - 1), r.legal.eq(1),
                             r.old_castling.eq(parent.data.old_castling),
                             r.old_ep_valid.eq(parent.data.old_ep_valid),
                             r.old_ep_sq.eq(parent.data.old_ep_sq),
                             r.node_ep_legal.eq(parent.data.node_ep_legal)]
                m.next = "UNMAKE"
            with m.State("UNMAKE"):
                board_writes(WritePhase.UNMAKE)
                self._unmake(m, r, cand)
                with m.If(cand.en_passant | cand.castle):
                    m.next = "UNMAKE_SPECIAL"
                with m.Else():
                    m.d.comb += gen.next.eq(1)
                    m.next = "GEN"
            with m.State("UNMAKE_SPECIAL"):
                board_writes(WritePhase.UNMAKE_SPECIAL)
                m.d.comb += gen.next.eq(1)
                m.next = "GEN"

    def _start(self, m, r):
        """Take the position and the depth; clear the counts."""
        m.d.sync += [r.depth.eq(self.depth), r.ply.eq(0), r.side.eq(self.side),
                     r.castling.eq(self.castling), r.ep_valid.eq(self.ep_valid),
                     r.ep_sq.eq(self.ep_sq), r.node_ep_legal.eq(0), self.nodes.eq(0),
                     self.busy.eq(1)]

    def _make(self, m, r, cand):
        """The position's state after ``cand``; what unmaking needs is kept."""
        from_sq, to_sq = cand.move.from_sq, cand.move.to_sq
        mover = cand.piece[3]
        m.d.sync += [
            r.side.eq(~r.side),
            r.castling.eq(r.castling & _castling_kept(from_sq) & _castling_kept(to_sq)),
            r.ep_valid.eq(cand.double),
            r.ep_sq.eq(Cat(from_sq[:3], Mux(mover, from_sq[3:] - 1, from_sq[3:] + 1)[:3])),
            r.old_castling.eq(r.castling), r.old_ep_valid.eq(r.ep_valid),
            r.old_ep_sq.eq(r.ep_sq),
        ]
        with m.If(cand.piece[:3] == KING):
            m.d.sync += r.king_sq[mover].eq(to_sq)

    def _unmake(self, m, r, cand):
        """The position's state before ``cand``; a root move's count goes out."""
        mover = cand.piece[3]
        m.d.sync += [r.side.eq(mover), r.castling.eq(r.old_castling),
                     r.ep_valid.eq(r.old_ep_valid), r.ep_sq.eq(r.old_ep_sq)]
        with m.If(cand.piece[:3] == KING):
            m.d.sync += r.king_sq[mover].eq(cand.move.from_sq)
        with m.If((r.ply == 0) & r.legal):
            m.d.sync += [self.root_valid.eq(1), self.root_move.eq(cand.move),
                         self.root_nodes.eq(self.nodes - r.root_base)]

    def _legal(self, m, r, cand):
        """A legal move goes out with its move word. The barrier bit is
        :func:`axon.sim.model.encode.is_barrier`'s: a capture, a castling, a
        pawn move, a lost castling right, or any move of a node with a legal
        en passant capture (those come first, so the flag is set in time)."""
        barrier = ((cand.captured != 0) | cand.en_passant | cand.castle |
                   (cand.piece[:3] == PAWN) | r.node_ep_legal | (r.castling != r.old_castling))
        m.d.sync += [
            self.move_valid.eq(1), self.move_ply.eq(r.ply), self.move.eq(cand.move),
            self.move_word.from_sq.eq(cand.move.from_sq), self.move_word.to_sq.eq(cand.move.to_sq),
            self.move_word.piece.eq(cand.piece), self.move_word.barrier.eq(barrier),
        ]
        with m.If(cand.en_passant):
            m.d.sync += r.node_ep_legal.eq(1)
        with m.If(r.ply == 0):
            m.d.sync += r.root_base.eq(self.nodes)


class _Registers:
    """The walk's registers: the position's state beyond the board, the
    current move's undo, the ply and the root move's first leaf count."""

    def __init__(self):
        self.depth = Signal(4)
        self.ply = Signal(4)
        self.side = Signal()
        self.castling = Signal(4)
        self.ep_valid = Signal()
        self.ep_sq = Signal(6)
        self.king_sq = Array(Signal(6, name=f"king_sq_{colour}") for colour in range(2))
        self.old_castling = Signal(4)
        self.old_ep_valid = Signal()
        self.old_ep_sq = Signal(6)
        self.node_ep_legal = Signal()
        self.root_base = Signal(NODE_BITS)
        self.legal = Signal()


def _passing(cand):
    """The square a castling king passes over."""
    from_sq = cand.move.from_sq
    return Mux(cand.move.to_sq[:3] == 6, from_sq + 1, from_sq - 1)
