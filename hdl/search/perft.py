"""Perft in gateware: generate, make, test, recurse, unmake and count."""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..word import MoveWord
from .layout import Move
from .make import WritePhase
from .rules import MAX_DEPTH, NODE_BITS
from .walk import TreeWalk, passing_square


__all__ = ["Perft"]


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
        walk = TreeWalk(m, en_passant=self.en_passant, depth=MAX_DEPTH + 1)
        self._walk(m, walk, _Counts())
        return m

    def _walk(self, m, walk, counts):
        """The tree walk: generate a move, make it, test the mover's king,
        then go a ply deeper or count a leaf, and unmake."""
        r, gen, attack, cand = walk.regs, walk.gen, walk.attack, walk.cand

        m.d.sync += [self.move_valid.eq(0), self.root_valid.eq(0)]
        with m.FSM():
            with m.State("IDLE"):
                walk.load(m, self.load_en, self.load_square, self.load_piece)
                with m.If(self.start):
                    walk.start(m, self.side, self.castling, self.ep_valid, self.ep_sq,
                               self.depth)
                    m.d.sync += [self.nodes.eq(0), self.busy.eq(1)]
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
                walk.castle_test(m, cand.move.from_sq, "CASTLE_PASS", "GEN")
            with m.State("CASTLE_PASS"):
                walk.castle_test(m, passing_square(cand), "MAKE", "GEN")
            with m.State("MAKE"):
                walk.board_writes(m, WritePhase.MAKE)
                walk.make(m)
                with m.If(cand.en_passant | cand.castle):
                    m.next = "MAKE_SPECIAL"
                with m.Else():
                    m.next = "CHECK"
            with m.State("MAKE_SPECIAL"):
                walk.board_writes(m, WritePhase.MAKE_SPECIAL)
                m.next = "CHECK"
            with m.State("CHECK"):
                walk.test(m, r.king_sq[walk.mover], ~walk.mover)
                m.next = "CHECK_WAIT"
            with m.State("CHECK_WAIT"):
                with m.If(attack.done):
                    m.d.sync += counts.legal.eq(~attack.attacked)
                    with m.If(attack.attacked):
                        m.next = "UNMAKE"
                    with m.Else():
                        self._legal(m, walk, counts)
                        with m.If(r.ply == r.depth - 1):
                            m.d.sync += self.nodes.eq(self.nodes + 1)
                            m.next = "UNMAKE"
                        with m.Else():
                            m.next = "PUSH"
            with m.State("PUSH"):
                m.d.comb += [walk.push.en.eq(1), gen.start.eq(1)]
                m.d.sync += [r.ply.eq(r.ply + 1), r.node_ep_legal.eq(0)]
                m.next = "GEN"
            with m.State("POP"):
                walk.pop(m)
                m.d.sync += counts.legal.eq(1)
                m.next = "UNMAKE"
            with m.State("UNMAKE"):
                walk.board_writes(m, WritePhase.UNMAKE)
                walk.unmake(m)
                self._root_count(m, walk, counts)
                with m.If(cand.en_passant | cand.castle):
                    m.next = "UNMAKE_SPECIAL"
                with m.Else():
                    m.d.comb += gen.next.eq(1)
                    m.next = "GEN"
            with m.State("UNMAKE_SPECIAL"):
                walk.board_writes(m, WritePhase.UNMAKE_SPECIAL)
                m.d.comb += gen.next.eq(1)
                m.next = "GEN"

    def _root_count(self, m, walk, counts):
        """A root move's count goes out as it is unmade."""
        with m.If((walk.regs.ply == 0) & counts.legal):
            m.d.sync += [self.root_valid.eq(1), self.root_move.eq(walk.cand.move),
                         self.root_nodes.eq(self.nodes - counts.root_base)]

    def _legal(self, m, walk, counts):
        """A legal move goes out with its move word
        (:meth:`~axon.hdl.search.walk.TreeWalk.barrier`)."""
        r, cand = walk.regs, walk.cand
        walk.legal(m)
        m.d.sync += [
            self.move_valid.eq(1), self.move_ply.eq(r.ply), self.move.eq(cand.move),
            self.move_word.from_sq.eq(cand.move.from_sq), self.move_word.to_sq.eq(cand.move.to_sq),
            self.move_word.piece.eq(cand.piece), self.move_word.barrier.eq(walk.barrier()),
        ]
        with m.If(r.ply == 0):
            m.d.sync += counts.root_base.eq(self.nodes)


class _Counts:
    """Perft's own registers: the root move's first leaf count, and whether
    the move being unmade was legal."""

    def __init__(self):
        self.root_base = Signal(NODE_BITS)
        self.legal = Signal()
