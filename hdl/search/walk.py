"""What every walk of the legal move tree shares: the parts wired to one
board, the position's state beyond the board and its change on make and
unmake, the castling test and each legal move's detector word.

:class:`~axon.hdl.search.Perft` and :class:`~axon.hdl.search.SearchUnit`
walk the same tree the same way, each with its own finite-state machine;
this is what they have in common.
"""

from amaranth.hdl import Array, Cat, Const, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

from .attack import AttackTest
from .board import Board
from .layout import StackEntry
from .make import MoveWrites
from .movegen import MoveGenerator
from .rules import CASTLING_LOSS, KING, PAWN


__all__ = ["castling_kept", "passing_square", "PositionRegisters", "TreeWalk"]


def castling_kept(square):
    """The 4-bit mask of the castling rights a move from or to ``square`` keeps."""
    kept = Const(0xF, 4)
    for home, loss in CASTLING_LOSS.items():
        kept = Mux(square == home, ~loss & 0xF, kept)
    return kept


def passing_square(cand):
    """The square a castling king passes over."""
    from_sq = cand.move.from_sq
    return Mux(cand.move.to_sq[:3] == 6, from_sq + 1, from_sq - 1)


class PositionRegisters:
    """The position's state beyond the board, the current move's undo and
    the ply."""

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


class TreeWalk:
    """The board, the move generator, the attack test and the board writes
    of one walk, wired together in ``m``, with the position's registers
    (:class:`PositionRegisters`, ``regs``) and an undo stack of ``depth``
    ``entry`` layouts, one a ply (``entry`` has a :class:`StackEntry`
    field ``node``, or is one).

    The methods add the pieces of a walk's state machine that Perft and
    the search unit share; each is called inside the state it belongs to.
    """

    def __init__(self, m, *, en_passant=True, entry=StackEntry, depth=16):
        m.submodules.board = self.board = Board()
        m.submodules.gen = self.gen = MoveGenerator(en_passant=en_passant)
        m.submodules.attack = self.attack = AttackTest()
        m.submodules.writes = self.writes = MoveWrites()
        m.submodules.stack = self.stack = Memory(shape=entry, depth=depth, init=[])
        self.push = self.stack.write_port()
        self.parent = self.stack.read_port()
        self.regs = r = PositionRegisters()
        self.cand = self.gen.candidate
        self.mover = self.cand.piece[3]
        gen, board, writes = self.gen, self.board, self.writes
        wiring.connect(m, gen.read, board.gen_read)
        wiring.connect(m, self.attack.read, board.attack_read)
        wiring.connect(m, writes.write_a, board.write_a)
        wiring.connect(m, writes.write_b, board.write_b)
        node = self.push.data.node if entry is not StackEntry else self.push.data
        self.parent_node = (self.parent.data.node if entry is not StackEntry
                            else self.parent.data)
        m.d.comb += [
            gen.side.eq(r.side), gen.castling.eq(r.castling), gen.ep_valid.eq(r.ep_valid),
            gen.ep_sq.eq(r.ep_sq), gen.white.eq(board.white), gen.black.eq(board.black),
            gen.state_in.eq(self.parent_node.gen),
            writes.candidate.eq(gen.candidate),
            # The parent's entry is on the read port from a clock after its push.
            self.parent.addr.eq(r.ply - 1),
            self.push.addr.eq(r.ply),
            node.gen.eq(gen.state),
            node.old_castling.eq(r.old_castling),
            node.old_ep_valid.eq(r.old_ep_valid),
            node.old_ep_sq.eq(r.old_ep_sq),
            node.node_ep_legal.eq(r.node_ep_legal),
        ]

    def load(self, m, load_en, load_square, load_piece):
        """The host's write of a square while idle; a king's square is kept."""
        board, r = self.board, self.regs
        m.d.comb += [board.load.addr.eq(load_square), board.load.data.eq(load_piece),
                     board.load.en.eq(load_en)]
        with m.If(load_en & (load_piece[:3] == KING)):
            m.d.sync += r.king_sq[load_piece[3]].eq(load_square)

    def start(self, m, side, castling, ep_valid, ep_sq, depth):
        """Take the position and the depth at the root."""
        r = self.regs
        m.d.sync += [r.depth.eq(depth), r.ply.eq(0), r.side.eq(side), r.castling.eq(castling),
                     r.ep_valid.eq(ep_valid), r.ep_sq.eq(ep_sq), r.node_ep_legal.eq(0)]

    def board_writes(self, m, phase):
        m.d.comb += [self.writes.phase.eq(phase), self.writes.enable.eq(1)]

    def test(self, m, square, colour):
        """Start the attack test: is ``square`` attacked by ``colour``?"""
        m.d.comb += [self.attack.start.eq(1), self.attack.square.eq(square),
                     self.attack.colour.eq(colour)]

    def castle_test(self, m, square, then, refused):
        """Test a square the castling king needs safe (started on the
        state's first clock); refuse the castling (take the next move,
        go to ``refused``) if it is attacked."""
        attack = self.attack
        with m.If(~attack.busy & ~attack.done):
            self.test(m, square, ~self.mover)
        with m.If(attack.done):
            with m.If(attack.attacked):
                m.d.comb += self.gen.next.eq(1)
                m.next = refused
            with m.Else():
                m.next = then

    def make(self, m):
        """The position's state after the candidate; what unmaking needs is kept."""
        r, cand, mover = self.regs, self.cand, self.mover
        from_sq, to_sq = cand.move.from_sq, cand.move.to_sq
        m.d.sync += [
            r.side.eq(~r.side),
            r.castling.eq(r.castling & castling_kept(from_sq) & castling_kept(to_sq)),
            r.ep_valid.eq(cand.double),
            r.ep_sq.eq(Cat(from_sq[:3], Mux(mover, from_sq[3:] - 1, from_sq[3:] + 1)[:3])),
            r.old_castling.eq(r.castling), r.old_ep_valid.eq(r.ep_valid),
            r.old_ep_sq.eq(r.ep_sq),
        ]
        with m.If(cand.piece[:3] == KING):
            m.d.sync += r.king_sq[mover].eq(to_sq)

    def unmake(self, m):
        """The position's state before the candidate."""
        r, cand, mover = self.regs, self.cand, self.mover
        m.d.sync += [r.side.eq(mover), r.castling.eq(r.old_castling),
                     r.ep_valid.eq(r.old_ep_valid), r.ep_sq.eq(r.old_ep_sq)]
        with m.If(cand.piece[:3] == KING):
            m.d.sync += r.king_sq[mover].eq(cand.move.from_sq)

    def pop(self, m):
        """Back to the parent: its generator, and its move's undo."""
        r, parent = self.regs, self.parent_node
        m.d.comb += self.gen.restore.eq(1)
        m.d.sync += [r.ply.eq(r.ply - 1),
                     r.old_castling.eq(parent.old_castling),
                     r.old_ep_valid.eq(parent.old_ep_valid),
                     r.old_ep_sq.eq(parent.old_ep_sq),
                     r.node_ep_legal.eq(parent.node_ep_legal)]

    def barrier(self):
        """The candidate's barrier bit, :func:`axon.sim.model.encode.is_barrier`'s:
        a capture, a castling, a pawn move, a lost castling right (valid
        once the move is made), or any move of a node with a legal en
        passant capture (those come first, so the flag is set in time)."""
        r, cand = self.regs, self.cand
        return ((cand.captured != 0) | cand.en_passant | cand.castle |
                (cand.piece[:3] == PAWN) | r.node_ep_legal | (r.castling != r.old_castling))

    def word(self):
        """The made candidate's move word, a value of this clock."""
        cand = self.cand
        return Cat(cand.move.from_sq, cand.move.to_sq, cand.piece, self.barrier())

    def legal(self, m):
        """The candidate is legal: a legal en passant capture makes every
        move of its node a barrier."""
        with m.If(self.cand.en_passant):
            m.d.sync += self.regs.node_ep_legal.eq(1)
