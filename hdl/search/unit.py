# amaranth: UnusedElaboratable=no
# (The detector is made with the unit, so that its configuration is checked
# at once; it is elaborated when the unit is.)
"""The search unit: negamax alpha-beta in gateware, with the repetition
detector asked at every node."""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

from ..detector import AxonDetector
from ..params import SHIPPED, DetectorConfig
from ..word import MoveWord
from .evaluation import MoveValue, square_value
from .layout import Move, NodeEvent, Score, SearchEntry
from .make import WritePhase
from .rules import DRAW_COUNT_LIMIT, INFINITY, MATE, MAX_DEPTH, NODE_BITS
from .walk import TreeWalk, passing_square


__all__ = ["SearchUnit"]


class SearchUnit(wiring.Component):
    """Search a position to a fixed depth by negamax alpha-beta
    (fail-soft), in the move generator's order, with an
    :class:`~axon.hdl.AxonDetector` asked at every node but the root.

    The model is :mod:`axon.sim.engine.unit` (docs/search_unit.md). Depth
    0 is the evaluation: material and pawn advance, kept up to date by each
    make and unmake. A node with no legal move scores a mate
    (``-MATE + ply``) or a stalemate (0). Making a legal move writes its
    move word into the detector's move list above the node's; the child's
    query asks about the position after it (``top`` its word,
    ``root_address`` the last word of the game history), and a draw by
    repetition scores 0. Unmaking writes nothing: the next move overwrites
    the word.

    The detector's answer is awaited only where it is needed: a move's
    query starts as soon as the move is made, while the attack test decides
    whether it is legal (an illegal move's answer is dropped); an inner
    node generates its moves while its query runs and waits, if at all,
    before it makes the first; a leaf's score is taken before the next move
    is made, its query running while its move is unmade and the next one
    generated. ``wait_clocks`` counts the clocks still spent waiting.

    The host writes the 64 squares through ``load_*`` and the game
    history's move words through ``history_*`` (addresses 0 up to
    ``root_address``), sets the position's state, the depth and the root
    address, and pulses ``start``; ``busy`` falls with the result.

    Parameters
    ----------
    config : DetectorConfig
        The embedded detector (default :data:`~axon.hdl.params.SHIPPED`).
    repetition : bool
        ``False`` builds a broken variant that ignores the detector's
        answer, for tests that must catch it.

    Members
    -------
    load_en, load_square, load_piece : in
        Write a square's Table 1 piece code while idle.
    history_en, history_addr, history_word : in
        Write a game-history word into the detector's move list while idle.
    side, castling, ep_valid, ep_sq : in
        The root position, sampled at ``start`` (as :class:`Perft` takes them).
    root_address : Signal(range(-1, config.depth)), in
        The last game-history word's address, -1 for none; sampled at ``start``.
    depth : Signal(4), in
        1 .. MAX_DEPTH plies, sampled at ``start``.
    start : Signal(1), in
    busy : Signal(1), out
    score : Score, out
        The root's score, from its side to move's view.
    best_valid : Signal(1), out; best_move : Move, out
        The first root move with the best score (none without a legal move).
    nodes, terminal, repetitions, queries : Signal(NODE_BITS), out
        The search's nodes (the root included), the nodes searched no
        further, those the detector scored a draw, and its queries.
    clocks, wait_clocks : Signal(NODE_BITS), out
        Clocks from ``start`` to the result, and of them the clocks the
        walk stood waiting for the detector's answer.
    node_valid : Signal(1), out; node : NodeEvent, out
        One clock per node as it returns, in the model's order.
    """

    def __init__(self, config=SHIPPED, *, repetition: bool = True):
        if not isinstance(repetition, bool):
            raise TypeError(f"repetition must be a bool, not {repetition!r}")
        self._config = DetectorConfig.checked(config)
        self.repetition = repetition
        depth = config.depth
        counter = Out(NODE_BITS)
        super().__init__({
            "load_en": In(1), "load_square": In(6), "load_piece": In(4),
            "history_en": In(1), "history_addr": In(range(depth)), "history_word": In(MoveWord),
            "side": In(1), "castling": In(4), "ep_valid": In(1), "ep_sq": In(6),
            "root_address": In(range(-1, depth)), "depth": In(4), "start": In(1),
            "busy": Out(1), "score": Out(Score), "best_valid": Out(1), "best_move": Out(Move),
            "nodes": counter, "terminal": counter, "repetitions": counter, "queries": counter,
            "clocks": counter, "wait_clocks": counter,
            "node_valid": Out(1), "node": Out(NodeEvent),
        })
        self.detector = AxonDetector(self._config)

    @property
    def config(self):
        return self._config

    def elaborate(self, platform):
        m = Module()
        walk = TreeWalk(m, entry=SearchEntry, depth=MAX_DEPTH + 1)
        m.submodules.detector = det = self.detector
        m.submodules.move_value = value = MoveValue()
        s = _SearchRegisters(self._config.depth)
        m.d.comb += [
            value.candidate.eq(walk.cand),
            walk.push.data.alpha.eq(s.alpha), walk.push.data.beta.eq(s.beta),
            walk.push.data.best.eq(s.best), walk.push.data.moved.eq(s.moved),
            det.query.start.eq(s.ask), det.query.top.eq(s.ask_top),
            det.query.root_address.eq(s.root), det.query.count_limit.eq(DRAW_COUNT_LIMIT),
        ]
        m.d.sync += [self.node_valid.eq(0), s.ask.eq(0)]
        with m.If(self.busy):
            m.d.sync += self.clocks.eq(self.clocks + 1)
        self._answer(m, walk, det, s)
        self._walk(m, walk, det, value, s)
        return m

    def _answer(self, m, walk, det, s):
        """The detector's answer, whatever the walk is doing: a leaf's
        score is taken into its parent's, an inner node's draw noted."""
        draw = det.query.result.draw if self.repetition else 0
        # An answer is taken once the king's test has said whose it is.
        with m.If(s.pending & ~s.ask & det.query.done & (s.asked != Asked.CHECKING)):
            m.d.sync += s.pending.eq(0)
            with m.Switch(s.asked):
                with m.Case(Asked.LEAF):
                    leaf_score = Mux(draw, 0, s.leaf_eval)
                    self._event(m, walk.regs.ply + 1, s.leaf_move, -s.beta, -s.alpha, 1, draw,
                                leaf_score)
                    self._terminal(m, draw)
                    self._take(m, walk, s, -leaf_score, s.alpha, s.beta, s.best, s.leaf_move)
                with m.Case(Asked.INNER):
                    m.d.sync += s.own_draw.eq(draw)

    def _walk(self, m, walk, det, value, s):
        """Generate, make, test the mover's king, write the word and ask
        the detector, go a ply deeper or take a leaf's answer, unmake."""
        r, gen, attack, cand = walk.regs, walk.gen, walk.attack, walk.cand
        with m.FSM():
            with m.State("IDLE"):
                self._idle(m, walk, det, s)
            with m.State("GEN"):
                self._generate(m, walk, s)
            # Castling: the king may not stand in check nor pass through it.
            with m.State("CASTLE_FROM"):
                walk.castle_test(m, cand.move.from_sq, "CASTLE_PASS", "GEN")
            with m.State("CASTLE_PASS"):
                walk.castle_test(m, passing_square(cand), "MAKE", "GEN")
            with m.State("MAKE"):
                walk.board_writes(m, WritePhase.MAKE)
                walk.make(m)
                m.d.sync += s.eval.eq(s.eval + value.delta)
                with m.If(cand.en_passant | cand.castle):
                    m.next = "MAKE_SPECIAL"
                with m.Else():
                    m.next = "CHECK"
            with m.State("MAKE_SPECIAL"):
                walk.board_writes(m, WritePhase.MAKE_SPECIAL)
                m.next = "CHECK"
            with m.State("CHECK"):
                walk.test(m, r.king_sq[walk.mover], ~walk.mover)
                self._ask(m, walk, det, s)
                m.next = "CHECK_WAIT"
            with m.State("CHECK_WAIT"):
                with m.If(attack.done):
                    with m.If(attack.attacked):
                        # The move's query was asked for nothing: its answer is dropped.
                        m.d.sync += s.asked.eq(Asked.DROPPED)
                        m.next = "UNMAKE"
                    with m.Else():
                        self._legal(m, walk, s)
            with m.State("PUSH"):
                m.d.comb += [walk.push.en.eq(1), gen.start.eq(1)]
                m.d.sync += [r.ply.eq(r.ply + 1), r.node_ep_legal.eq(0), s.alpha.eq(-s.beta),
                             s.beta.eq(-s.alpha), s.best.eq(-INFINITY), s.moved.eq(0)]
                m.next = "GEN"
            with m.State("MATE_TEST"):
                # No legal move: mated if the king stands in check, else stalemate.
                with m.If(~attack.busy & ~attack.done):
                    walk.test(m, r.king_sq[r.side], ~r.side)
                with m.If(attack.done):
                    m.d.sync += s.ret.eq(Mux(attack.attacked, -MATE + r.ply, 0))
                    self._terminal(m, 0)
                    m.next = "RETURN"
            with m.State("RETURN"):
                self._return(m, walk, s)
            with m.State("UNMAKE"):
                walk.board_writes(m, WritePhase.UNMAKE)
                walk.unmake(m)
                m.d.sync += s.eval.eq(s.eval - value.delta)
                with m.If(cand.en_passant | cand.castle):
                    m.next = "UNMAKE_SPECIAL"
                with m.Else():
                    m.d.comb += gen.next.eq(1)
                    m.next = "GEN"
            with m.State("UNMAKE_SPECIAL"):
                walk.board_writes(m, WritePhase.UNMAKE_SPECIAL)
                m.d.comb += gen.next.eq(1)
                m.next = "GEN"

    def _idle(self, m, walk, det, s):
        """Take the host's squares and history words; start the search."""
        board = walk.board
        walk.load(m, self.load_en, self.load_square, self.load_piece)
        # The evaluation follows the loads: the new piece in, the old one out.
        with m.If(self.load_en):
            m.d.sync += s.eval.eq(s.eval + square_value(m, self.load_piece, self.load_square,
                                                        "loaded") -
                                  square_value(m, board.load_previous, self.load_square,
                                               "replaced"))
        m.d.comb += [det.memory.write_en.eq(self.history_en),
                     det.memory.write_addr.eq(self.history_addr),
                     det.memory.write_word.eq(self.history_word)]
        with m.If(self.start):
            walk.start(m, self.side, self.castling, self.ep_valid, self.ep_sq, self.depth)
            m.d.sync += [
                s.root.eq(self.root_address), s.alpha.eq(-INFINITY), s.beta.eq(INFINITY),
                s.best.eq(-INFINITY), s.moved.eq(0), s.own_draw.eq(0), s.cut.eq(0),
                s.pending.eq(0), self.busy.eq(1), self.best_valid.eq(0), self.nodes.eq(1),
                self.terminal.eq(0), self.repetitions.eq(0), self.queries.eq(0),
                self.clocks.eq(0), self.wait_clocks.eq(0),
            ]
            m.d.comb += walk.gen.start.eq(1)
            m.next = "GEN"

    def _generate(self, m, walk, s):
        """The node's next move, once the detector has answered what the
        walk needs: the node's own query before its first move, a leaf's
        before the next move."""
        gen, cand = walk.gen, walk.cand
        with m.If(s.pending):
            with m.If(gen.valid | gen.done):
                m.d.sync += self.wait_clocks.eq(self.wait_clocks + 1)
        with m.Elif(s.own_draw):
            m.d.sync += s.ret.eq(0)
            self._terminal(m, 1)
            m.next = "RETURN"
        with m.Elif(s.cut):
            m.d.sync += s.ret.eq(s.best)
            m.next = "RETURN"
        with m.Elif(gen.valid):
            with m.If(cand.castle):
                m.next = "CASTLE_FROM"
            with m.Else():
                m.next = "MAKE"
        with m.Elif(gen.done):
            with m.If(s.moved):
                m.d.sync += s.ret.eq(s.best)
                m.next = "RETURN"
            with m.Else():
                m.next = "MATE_TEST"

    def _ask(self, m, walk, det, s):
        """The made move's word goes into the move list above the node's,
        and the child's query starts on the next clock (a write and a
        query's start may not share a clock), while the attack test decides
        whether the move is legal at all."""
        top = s.root + walk.regs.ply + 1
        m.d.comb += [det.memory.write_en.eq(1), det.memory.write_addr.eq(top),
                     det.memory.write_word.eq(walk.word())]
        m.d.sync += [s.ask.eq(1), s.ask_top.eq(top), s.pending.eq(1),
                     s.asked.eq(Asked.CHECKING)]

    def _legal(self, m, walk, s):
        """A legal move: a leaf's answer is taken when it comes, an inner
        node is entered."""
        r = walk.regs
        walk.legal(m)
        m.d.sync += [s.moved.eq(1), self.nodes.eq(self.nodes + 1),
                     self.queries.eq(self.queries + 1)]
        with m.If(r.ply == r.depth - 1):
            # The leaf's score from its side to move's view, the mover's opponent.
            m.d.sync += [s.asked.eq(Asked.LEAF), s.leaf_move.eq(walk.cand.move),
                         s.leaf_eval.eq(Mux(walk.mover, s.eval, -s.eval))]
            m.next = "UNMAKE"
        with m.Else():
            m.d.sync += s.asked.eq(Asked.INNER)
            m.next = "PUSH"

    def _return(self, m, walk, s):
        """The node's score ``ret`` goes to its parent (or out, at the root)."""
        r, parent = walk.regs, walk.parent.data
        with m.If(r.ply == 0):
            self._event(m, 0, 0, -INFINITY, INFINITY, 0, 0, s.ret)
            m.d.sync += [self.score.eq(s.ret), self.busy.eq(0)]
            m.next = "IDLE"
        with m.Else():
            move = walk.parent_node.gen.candidate.move
            self._event(m, r.ply, move, -parent.beta, -parent.alpha, 1, s.own_draw, s.ret)
            walk.pop(m)
            m.d.sync += [s.beta.eq(parent.beta), s.moved.eq(parent.moved), s.own_draw.eq(0)]
            self._take(m, walk, s, -s.ret, parent.alpha, parent.beta, parent.best, move,
                       ply=r.ply - 1)
            m.next = "UNMAKE"

    def _take(self, m, walk, s, score, alpha, beta, best, move, ply=None):
        """A child's ``score`` (the node's view) into the node's ``best``
        and ``alpha``; a cutoff once alpha reaches ``beta``. At the root the
        best move is kept."""
        ply = walk.regs.ply if ply is None else ply
        raised = Signal(Score, name="raised_alpha")
        m.d.comb += raised.eq(Mux(score > alpha, score, alpha))
        m.d.sync += [s.best.eq(Mux(score > best, score, best)), s.alpha.eq(raised),
                     s.cut.eq(raised >= beta)]
        with m.If((ply == 0) & (score > best)):
            m.d.sync += [self.best_valid.eq(1), self.best_move.eq(move)]

    def _terminal(self, m, draw):
        """A node searched no further; a draw by repetition counted."""
        m.d.sync += [self.terminal.eq(self.terminal + 1),
                     self.repetitions.eq(self.repetitions + draw)]

    def _event(self, m, ply, move, alpha, beta, queried, draw, score):
        node = self.node
        m.d.sync += [self.node_valid.eq(1), node.ply.eq(ply), node.move.eq(move),
                     node.alpha.eq(alpha), node.beta.eq(beta), node.queried.eq(queried),
                     node.draw.eq(draw), node.score.eq(score)]


class Asked(enum.Enum, shape=2):
    """Whose answer the query in flight brings: not known while the
    mover's king is tested, a leaf's score, an inner node's draw, or
    nobody's (the move was illegal)."""
    CHECKING = 0
    LEAF = 1
    INNER = 2
    DROPPED = 3


class _SearchRegisters:
    """The search's registers beside the walk's: the node's window and best
    score, the detector's query in flight, a leaf's waiting score and the
    score a node returns."""

    def __init__(self, depth):
        self.alpha = Signal(Score)
        self.beta = Signal(Score)
        self.best = Signal(Score)
        self.moved = Signal()
        self.cut = Signal()
        self.eval = Signal(Score)           # White's view
        self.root = Signal(range(-1, depth))
        self.ask = Signal()                 # start the query on this clock
        self.ask_top = Signal(range(depth))
        self.pending = Signal()             # a query's answer is awaited
        self.asked = Signal(Asked)          # ... and whose it is
        self.own_draw = Signal()            # the node's own query said draw
        self.leaf_move = Signal(Move)
        self.leaf_eval = Signal(Score)
        self.ret = Signal(Score)
