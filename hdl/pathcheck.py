"""The path check of an upcoming repetition: can a piece go straight back?

When the scan finds a single open chain of the side to move, ``(piece, a,
b)``, the move ``b→a`` gives the earlier position back exactly when it is a
pseudo-legal move now (see :func:`axon.sim.model.golden.upcoming_move`): the piece
can go from ``b`` to ``a`` on an empty board, and every square strictly between
them is empty in the current position.

A between-mask of all 4096 square pairs would cost more logic than the chain
list, and walking the ray a square a clock would let a blocked candidate hold
up the next one. This check takes one candidate a clock instead, as a short
pipeline: the geometry and the step between squares first, then the squares
on the way (at most six, for a line of eight) and their occupancy bits, then
the verdict. The scanner offers at most one candidate a clock (one odd depth
a pair of plies), so nothing ever waits.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .pools import BISHOP, KING, KNIGHT, QUEEN, ROOK


__all__ = ["PathCheck", "PATH_CHECK_LATENCY"]

# Clocks from a candidate at the inputs to its verdict at the outputs.
PATH_CHECK_LATENCY = 3

# The longest line has six squares between its ends.
_MAX_BETWEEN = 6


class PathCheck(wiring.Component):
    """Pseudo-legality of one piece's move back, one candidate a clock.

    Members
    -------
    valid : Signal(1), in
        A candidate is offered on this clock.
    kind : Signal(3), in
        The piece type (Table 1): 2 knight … 6 king; other types never move
        back (a pawn move is always a barrier).
    from_sq : Signal(6), in
        Where the piece stands now (the chain's end).
    to_sq : Signal(6), in
        Where it stood in the earlier position (the chain's start).
    occupancy : Signal(64), in
        The current position's occupied squares, bit *i* = square *i*; held
        steady while candidates are in the pipeline.
    verdict_valid : Signal(1), out
        ``PATH_CHECK_LATENCY`` clocks after ``valid``.
    reachable : Signal(1), out
        The move is pseudo-legal: the candidate gives the earlier position back.
    """

    valid:         In(1)
    kind:          In(3)
    from_sq:       In(6)
    to_sq:         In(6)
    occupancy:     In(64)
    verdict_valid: Out(1)
    reachable:     Out(1)

    def elaborate(self, platform):
        m = Module()

        # Stage 1: the geometry, from the file and rank distances.
        file_delta = Signal(signed(4))
        rank_delta = Signal(signed(4))
        m.d.comb += [
            file_delta.eq(self.to_sq[:3] - self.from_sq[:3]),
            rank_delta.eq(self.to_sq[3:] - self.from_sq[3:]),
        ]
        files = Signal(3)
        ranks = Signal(3)
        m.d.comb += [
            files.eq(Mux(file_delta < 0, -file_delta, file_delta)),
            ranks.eq(Mux(rank_delta < 0, -rank_delta, rank_delta)),
        ]
        straight = Signal()   # one rank or one file, not the same square
        diagonal = Signal()
        m.d.comb += [
            straight.eq((files == 0) ^ (ranks == 0)),
            diagonal.eq((files == ranks) & (files != 0)),
        ]
        moves_so = Signal()
        with m.Switch(self.kind):
            with m.Case(KNIGHT):
                m.d.comb += moves_so.eq(((files == 1) & (ranks == 2)) |
                                        ((files == 2) & (ranks == 1)))
            with m.Case(KING):
                m.d.comb += moves_so.eq((files <= 1) & (ranks <= 1) & (files | ranks).any())
            with m.Case(BISHOP):
                m.d.comb += moves_so.eq(diagonal)
            with m.Case(ROOK):
                m.d.comb += moves_so.eq(straight)
            with m.Case(QUEEN):
                m.d.comb += moves_so.eq(straight | diagonal)

        geometry_valid = Signal()
        geometry_ok    = Signal()
        start_sq       = Signal(6)
        square_step    = Signal(signed(5))   # from one square of the line to the next
        between_count  = Signal(3)           # squares strictly between the ends
        m.d.sync += [
            geometry_valid.eq(self.valid),
            geometry_ok.eq(moves_so),
            start_sq.eq(self.from_sq),
            square_step.eq(8 * ((rank_delta > 0) - (rank_delta < 0)) +
                           ((file_delta > 0) - (file_delta < 0))),
            # A knight or king has nothing between; off a line the move is
            # already refused.
            between_count.eq(Mux((straight | diagonal) & (self.kind != KNIGHT) &
                                 (self.kind != KING), Mux(files > ranks, files, ranks) - 1, 0)),
        ]

        # Stage 2: the squares between, and whether each is occupied.
        path_valid   = Signal()
        path_ok      = Signal()
        path_blocked = Signal(_MAX_BETWEEN)
        m.d.sync += [
            path_valid.eq(geometry_valid),
            path_ok.eq(geometry_ok),
        ]
        for index in range(_MAX_BETWEEN):
            square = Signal(6, name=f"between{index + 1}_sq")
            m.d.comb += square.eq(start_sq + (index + 1) * square_step)
            m.d.sync += path_blocked[index].eq((between_count > index) &
                                               self.occupancy.bit_select(square, 1))

        # Stage 3: the verdict.
        m.d.sync += [
            self.verdict_valid.eq(path_valid),
            self.reachable.eq(path_valid & path_ok & ~path_blocked.any()),
        ]
        return m
