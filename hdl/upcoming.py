# amaranth: UnusedElaboratable=no
# (The parts made here are made with the component that owns them, for its
# observation view; they are used when it is. A component made and never
# elaborated is still reported, where it was made.)
"""Upcoming repetition: can the side to move give an earlier position back with one move?

After an odd number of words, if exactly one chain is open and it is a piece
of the side to move, ``(piece, a, b)``, the move ``b→a`` repeats the earlier
position exactly when it is pseudo-legal now (:class:`~axon.hdl.pathcheck.PathCheck`;
the rule is :func:`axon.sim.model.golden.upcoming_move`).

The scanner applies a pair of words a clock, newer and older. The state
after the newer word (the odd depth) is never in the pools' registers: it is
the newer word's side as it is *after* the pair, and the other side as it
was *before* it (the older word only touches the other side; a lone newer
word, after a refetch, leaves the other side as it was). So this block
registers, every clock, the two sides' :data:`~axon.hdl.chainlist.LoneChainLayout`
summaries (the mover's in full, the other side's ``empty``), keeps the
previous clock's beside them, and when the scanner reports a taken newer
word picks from "after" and "before" by which side the word was.

Everything here runs beside the scan, from registers, and never feeds the
scanner: the repetition answer and its latency do not change. The pipeline
of one taken newer word:

* the decide clock of its pair (the scanner's ``taken_newer``); the pools'
  summaries after the pair are registered;
* the mover's side is picked from them;
* *candidate*: before and after are both registered now; the candidate is
  picked and registered;
* five clocks of path check;
* *answer*: the first reachable verdict of the query is latched.

So the upcoming answer of a query is complete :data:`UPCOMING_CLOCKS` clocks
after ``done`` (the last candidate comes from the pair that stops the scan,
decided on the clock that raises ``done``): ``upcoming.done`` rises then.

A query that the pools overflow goes on in the backstop's walked list
(:mod:`axon.hdl.backstop`), which holds every chain: it offers its state
after each word it applies (``backstop``), both sides at once, from its
registers. That state is registered with the mover's side picked, and a
candidate made of it as of the pools' word, a clock earlier than theirs,
so the walked scan's last word, judged on the clock before its ``done``,
has its verdict before ``upcoming.done`` too. The pools' scan waits while
the walked list runs, so the two never offer a candidate on one clock. The
walked list meets again every candidate the pools met before their
overflow, at the same depths, and the latch keeps the first reachable
one: the answer is the walked list's, exact on any legal position.

``answer.exact`` says that the answer is complete: a move was found (the
most recent one: the scan meets depths in order), or the scan ended at a
barrier or the bottom (``scan_complete``). A count limit or an overflow
(the pools alone, without a backstop) may stop it before an upcoming
repetition further back: "none" then means only "none within
``plies_scanned``".
"""

from amaranth.hdl import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In

from .observe import Meaning, Observation, registers
from .pathcheck import PATH_CHECK_LATENCY, PathCheck
from .params import check_depth
from .ports import AppliedWordSignature, LoneChainLayout, UpcomingSignature
from .result import UpcomingLayout


__all__ = ["UpcomingLayout", "Upcoming", "UPCOMING_CLOCKS"]

# Clocks from `done` to `upcoming.done`: the summary register, the candidate
# register, the path check, and the answer register.
UPCOMING_CLOCKS = 2 + PATH_CHECK_LATENCY + 1


def _taken_layout(depth):
    """A word the scanner's decide stage took, as the block follows it."""
    return data.StructLayout({"taken": 1, "by_mover": 1, "inside": 1, "depth": range(depth + 1)})


def _tag_layout(depth):
    """What a candidate carries through the path check to its verdict."""
    return data.StructLayout({"from_sq": 6, "to_sq": 6, "draw": 1, "distance": range(depth + 1)})


class Upcoming(wiring.Component):
    """Candidate detection and path check of the upcoming repetition.

    Parameters
    ----------
    depth : int
        Move-list entries, for the distance's width.

    Members
    -------
    query : In(UpcomingSignature(depth))
        The query's ``occupancy``, held from its start until ``done`` (the
        path check reads it a few clocks after each candidate), and the
        ``answer``, which holds from ``done`` until the next start; ``done``
        rises :data:`UPCOMING_CLOCKS` clocks after the scan's.
    scan_start : Signal(1), in
        A query starts: forget the last answer and any candidate in flight.
    mover_black : Signal(1), in
        The side to move in the queried position is Black; steady from the
        clock after the scan's first read.
    white_lone, black_lone : LoneChainLayout, in
        The chain list's per-side summaries (from its registers).
    taken_newer : Signal(1), in
        The scanner's decide stage takes the newer word of a pair on this
        clock: the chain list applied it on the clock before.
    taken_newer_black : Signal(1), in
        That word is Black's.
    taken_depth : Signal(range(depth + 1)), in
        Words applied once that word is (its depth).
    taken_inside : Signal(1), in
        The position that word leaves to compare lies after the root: a
        move back to it is a draw for the search (``answer.draw``).
    scan_done : Signal(1), in
        The scanner's ``done``.
    scan_complete : Signal(1), in
        With ``scan_done``: the scan ended at a barrier or the bottom of
        the list.
    backstop : In(AppliedWordSignature(depth))
        The backstop's walked list, word by word, once the pools handed a
        query over (all 0 without a backstop).

    Attributes
    ----------
    observe : Observation
        What the waveforms show of the block (:mod:`axon.hdl.observe`):
        ``mover_black``; the decided ``word`` it follows (taken, by the mover,
        inside the search, its depth); the backstop's word
        (``backstop_word``), the mover's side after it (``backstop_mover``)
        and whether the other side has none open
        (``backstop_other_empty``); the ``candidate`` it offers the path
        check (``candidate_valid``, ``candidate_kind``, ``candidate_tag``: the
        move back and its distance); the candidates still ``in_flight``; and
        the ``path_check``'s verdict.
    """

    def __init__(self, depth):
        check_depth(depth)
        self._depth = depth
        super().__init__({
            "query":             In(UpcomingSignature(depth)),
            "scan_start":        In(1),
            "mover_black":       In(1),
            "white_lone":        In(LoneChainLayout),
            "black_lone":        In(LoneChainLayout),
            "taken_newer":       In(1),
            "taken_newer_black": In(1),
            "taken_depth":       In(range(depth + 1)),
            "taken_inside":      In(1),
            "scan_done":         In(1),
            "scan_complete":     In(1),
            "backstop":          In(AppliedWordSignature(depth)),
        })
        self._path_check = PathCheck(tag_width=_tag_layout(depth).size)
        self.observe = Observation({
            "mover_black": self.mover_black,
            **registers({
                "word":            _taken_layout(depth),
                "backstop_word":   _taken_layout(depth),
                "backstop_mover":  LoneChainLayout,
                "backstop_other_empty": 1,
                "candidate_valid": 1,
                "candidate_kind":  3,
                "candidate_tag":   _tag_layout(depth),
                # Candidates of the last query still in the path check when a
                # new one starts are dropped: this shadow of their valid bits
                # is cleared.
                "in_flight":       PATH_CHECK_LATENCY,
            }),
            "path_check": self._path_check.observe,
        }, meanings={"candidate_kind": Meaning.KIND,
                     "candidate_tag": {"from_sq": Meaning.SQUARE, "to_sq": Meaning.SQUARE}})

    @staticmethod
    def _odd(depth):
        """The rule's parity: only after an odd number of words is the other
        side to move in the earlier position. (A formal proof's broken
        variant overrides it.)"""
        return depth[0]

    def _pools_word(self, m):
        """The pools' word a candidate comes from, and the state after it:
        ``(word, mover's side, the other side has none open)``."""
        depth = self._depth
        # Both sides' summaries, registered as they come from the pools; then
        # the mover's side and the other side's emptiness, and the same a
        # clock earlier: "after" and "before" the pair decided two clocks ago.
        white_lone = Signal(LoneChainLayout)
        black_lone = Signal(LoneChainLayout)
        mover_after  = Signal(LoneChainLayout)
        mover_before = Signal(LoneChainLayout)
        other_empty_after  = Signal()
        other_empty_before = Signal()
        m.d.sync += [
            white_lone.eq(self.white_lone),
            black_lone.eq(self.black_lone),
            mover_after.eq(Mux(self.mover_black, black_lone, white_lone)),
            other_empty_after.eq(Mux(self.mover_black, white_lone.empty, black_lone.empty)),
            mover_before.eq(mover_after),
            other_empty_before.eq(other_empty_after),
        ]

        # The decide stage's word, two clocks later, when its "after" is here.
        decided = Signal(_taken_layout(depth))
        word    = self.observe.word
        m.d.sync += [
            decided.taken.eq(self.taken_newer & ~self.scan_start),
            decided.by_mover.eq(self.taken_newer_black == self.mover_black),
            decided.depth.eq(self.taken_depth),
            decided.inside.eq(self.taken_inside),
            word.eq(decided),
            word.taken.eq(decided.taken & ~self.scan_start),
        ]

        # The state after the word: its own side after the pair, the other
        # side before it. One open chain in all, the mover's, at odd depth.
        mover_state = Signal(LoneChainLayout)
        other_empty = Signal()
        m.d.comb += [
            mover_state.eq(Mux(word.by_mover, mover_after, mover_before)),
            other_empty.eq(Mux(word.by_mover, other_empty_before, other_empty_after)),
        ]
        return word, mover_state, other_empty

    def _backstop_word(self, m):
        """The backstop's word, as :meth:`_pools_word` gives the pools': the
        walked list's state after it is whole (both sides current) on the
        clock it is offered, so one register stage picks the mover's side."""
        backstop, view = self.backstop, self.observe
        word = view.backstop_word
        m.d.sync += [
            word.taken.eq(backstop.applied & ~self.scan_start),
            word.by_mover.eq(1),
            word.depth.eq(backstop.depth),
            word.inside.eq(backstop.inside),
            view.backstop_mover.eq(Mux(self.mover_black, backstop.black_lone,
                                       backstop.white_lone)),
            view.backstop_other_empty.eq(Mux(self.mover_black, backstop.white_lone.empty,
                                             backstop.black_lone.empty)),
        ]
        return word, view.backstop_mover, view.backstop_other_empty

    def _finish(self, m, latching):
        """``done``, :data:`UPCOMING_CLOCKS` after the scan's, and with it
        ``answer.exact``; ``latching``: a verdict is latched on this clock."""
        # `done` rises on the clock after the last pair's decision; the answer
        # follows UPCOMING_CLOCKS later.
        done_before = Signal()
        done_delay  = Signal(UPCOMING_CLOCKS - 1)
        m.d.sync += [
            done_before.eq(self.scan_done),
            done_delay.eq(Mux(self.scan_start, 0, Cat(self.scan_done & ~done_before, done_delay[:-1]))),
        ]
        with m.If(self.scan_start):
            m.d.sync += self.query.done.eq(0)
        with m.Elif(done_delay[-1]):
            # The last verdict is in (or comes on this clock): a move found
            # is the most recent; none found is the whole answer only when
            # the scan met the barrier or the bottom.
            m.d.sync += [
                self.query.done.eq(1),
                self.query.answer.exact.eq(self.query.answer.found | latching |
                                           self.scan_complete),
            ]

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        view = self.observe
        pools_word, pools_mover, pools_other_empty = self._pools_word(m)
        backstop_word, backstop_mover, backstop_other_empty = self._backstop_word(m)

        # The word a candidate comes from: the backstop's while it runs (the
        # pools' scan waits then, and takes none), else the pools'.
        from_backstop = backstop_word.taken
        state = Signal(LoneChainLayout)
        state_other_empty = Signal()
        state_word = Signal(_taken_layout(depth))
        m.d.comb += [
            state.eq(Mux(from_backstop, backstop_mover, pools_mover)),
            state_other_empty.eq(Mux(from_backstop, backstop_other_empty, pools_other_empty)),
            state_word.eq(Mux(from_backstop, backstop_word, pools_word)),
            state_word.taken.eq(from_backstop | pools_word.taken),
        ]

        m.submodules.path_check = path_check = self._path_check
        candidate_valid = view.candidate_valid
        candidate_kind  = view.candidate_kind
        candidate_tag   = view.candidate_tag
        m.d.sync += [
            candidate_valid.eq(state_word.taken & self._odd(state_word.depth) & state.single &
                               state_other_empty & ~self.scan_start),
            candidate_kind.eq(state.kind),
            # The move goes from where the piece stands now to where it stood.
            candidate_tag.from_sq.eq(state.end),
            candidate_tag.to_sq.eq(state.start),
            # Plies from the position after the move back to the earlier one.
            candidate_tag.distance.eq(state_word.depth + 1),
            candidate_tag.draw.eq(state_word.inside),
        ]
        m.d.comb += [
            path_check.valid.eq(candidate_valid),
            path_check.kind.eq(candidate_kind),
            path_check.from_sq.eq(candidate_tag.from_sq),
            path_check.to_sq.eq(candidate_tag.to_sq),
            path_check.tag.eq(candidate_tag),
            path_check.occupancy.eq(self.query.occupancy),
        ]

        # The candidates in the path check, as its own valid pipeline
        # (`verdict_valid`) has them, but cleared by a new query's start: a
        # verdict on the last query's candidate never answers this one.
        in_flight = view.in_flight
        m.d.sync += in_flight.eq(Mux(self.scan_start, 0, Cat(candidate_valid, in_flight[:-1])))

        # The first reachable verdict is the most recent earlier position.
        verdict = Signal(_tag_layout(depth))
        latching = Signal()
        m.d.comb += [
            verdict.eq(path_check.verdict_tag),
            latching.eq(in_flight[-1] & path_check.reachable & ~self.query.answer.found),
        ]
        with m.If(self.scan_start):
            m.d.sync += self.query.answer.eq(0)
        with m.Elif(latching):
            m.d.sync += [
                self.query.answer.found.eq(1),
                self.query.answer.from_sq.eq(verdict.from_sq),
                self.query.answer.to_sq.eq(verdict.to_sq),
                self.query.answer.distance.eq(verdict.distance),
                self.query.answer.draw.eq(verdict.draw),
            ]
        self._finish(m, latching)
        return m
