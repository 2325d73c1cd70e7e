"""The path check of an upcoming repetition: can a piece go straight back?

When the scan finds a single open chain of the side to move, ``(piece, a,
b)``, the move ``b→a`` gives the earlier position back exactly when it is a
pseudo-legal move now (see :func:`axon.sim.model.golden.upcoming_move`): the piece
can go from ``b`` to ``a`` on an empty board, and every square strictly between
them is empty in the current position.

A between-mask of all 4096 square pairs would cost more logic than the chain
list, and walking the ray a square a clock would let a blocked candidate hold
up the next one. This check takes one candidate a clock instead, as a
pipeline of five short stages (none deeper than the chain list's loop): the
file and rank distances and directions; the geometry and the squares on the
way (at most six, for a line of eight, each a file and a rank one step
further); the occupancy of each one's rank; the bit of its file; the verdict. The scanner offers at most one candidate a clock (one odd depth
a pair of plies), so nothing ever waits.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .observe import Observation
from .pools import BISHOP, KING, KNIGHT, QUEEN, ROOK


__all__ = ["PathCheck", "PATH_CHECK_LATENCY"]

# Clocks from a candidate at the inputs to its verdict at the outputs.
PATH_CHECK_LATENCY = 5

# The longest line has six squares between its ends.
_MAX_BETWEEN = 6


class PathCheck(wiring.Component):
    """Pseudo-legality of one piece's move back, one candidate a clock.

    Parameters
    ----------
    tag_width : int
        Bits carried beside each candidate to its verdict (default 0).

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
    tag : Signal(tag_width), in
        Carried beside the candidate, unchanged (what the reader needs to
        know about the candidate when its verdict comes).
    verdict_tag : Signal(tag_width), out
        The ``tag`` of the candidate whose verdict this is.

    Attributes
    ----------
    observe : Observation
        Its verdict, ``verdict_valid`` and ``reachable``, for the waveforms
        (:mod:`axon.hdl.observe`).
    """

    def __init__(self, tag_width=0):
        if not isinstance(tag_width, int) or tag_width < 0:
            raise TypeError(f"Tag width must be a non-negative integer, not {tag_width!r}")
        self._tag_width = tag_width
        super().__init__({
            "valid":         In(1),
            "kind":          In(3),
            "from_sq":       In(6),
            "to_sq":         In(6),
            "occupancy":     In(64),
            "tag":           In(tag_width),
            "verdict_valid": Out(1),
            "reachable":     Out(1),
            "verdict_tag":   Out(tag_width),
        })
        self.observe = Observation({"verdict_valid": self.verdict_valid,
                                    "reachable": self.reachable})

    def elaborate(self, platform):
        m = Module()

        # Every stage is at most about three LUT levels deep: the check runs
        # beside the chain list and must not set the clock.
        tags = [Signal(self._tag_width, name=f"tag{stage}")
                for stage in range(1, PATH_CHECK_LATENCY)]
        m.d.sync += [tags[0].eq(self.tag)]
        m.d.sync += [later.eq(earlier) for earlier, later in zip(tags, tags[1:])]
        m.d.sync += self.verdict_tag.eq(tags[-1])

        # Stage 1: the file and rank distances and directions, each from the
        # three bits of the two squares it concerns; the kind decoded.
        def distance_and_direction(to_part, from_part):
            delta = Signal(signed(4))
            m.d.comb += delta.eq(to_part - from_part)
            return Mux(delta < 0, -delta, delta)[:3], delta > 0, delta < 0

        files_now, file_up_now, file_down_now = distance_and_direction(self.to_sq[:3],
                                                                       self.from_sq[:3])
        ranks_now, rank_up_now, rank_down_now = distance_and_direction(self.to_sq[3:],
                                                                       self.from_sq[3:])
        valid1 = Signal()
        files, ranks = Signal(3), Signal(3)
        file_up, file_down, rank_up, rank_down = Signal(), Signal(), Signal(), Signal()
        start_sq = Signal(6)
        is_knight, is_king, is_bishop, is_rook, is_queen = (
            Signal(name=f"is_{name}") for name in ("knight", "king", "bishop", "rook", "queen"))
        m.d.sync += [
            valid1.eq(self.valid),
            files.eq(files_now), ranks.eq(ranks_now),
            file_up.eq(file_up_now), file_down.eq(file_down_now),
            rank_up.eq(rank_up_now), rank_down.eq(rank_down_now),
            start_sq.eq(self.from_sq),
            is_knight.eq(self.kind == KNIGHT), is_king.eq(self.kind == KING),
            is_bishop.eq(self.kind == BISHOP), is_rook.eq(self.kind == ROOK),
            is_queen.eq(self.kind == QUEEN),
        ]

        # Stage 2: can the piece go there on an empty board; the squares
        # between, file and rank apart (a step is -1, 0 or +1 on each), and
        # which of them lie strictly between.
        straight = (files == 0) ^ (ranks == 0)        # one rank or one file, not the same square
        diagonal = (files == ranks) & (files != 0)
        knight_jump = ((files == 1) & (ranks == 2)) | ((files == 2) & (ranks == 1))
        king_step = (files <= 1) & (ranks <= 1) & (files | ranks).any()
        slider = is_bishop | is_rook | is_queen
        moves_so = ((is_knight & knight_jump) | (is_king & king_step) |
                    (is_bishop & diagonal) | (is_rook & straight) |
                    (is_queen & (straight | diagonal)))
        valid2 = Signal()
        geometry_ok = Signal()
        between_file = [Signal(3, name=f"between{index + 1}_file") for index in range(_MAX_BETWEEN)]
        between_rank = [Signal(3, name=f"between{index + 1}_rank") for index in range(_MAX_BETWEEN)]
        between_used = Signal(_MAX_BETWEEN)
        m.d.sync += [valid2.eq(valid1), geometry_ok.eq(moves_so)]
        for index in range(_MAX_BETWEEN):
            steps = index + 1
            file_step = Mux(file_up, steps, Mux(file_down, -steps, 0))
            rank_step = Mux(rank_up, steps, Mux(rank_down, -steps, 0))
            m.d.sync += [
                between_file[index].eq(start_sq[:3] + file_step),
                between_rank[index].eq(start_sq[3:] + rank_step),
                # On a line, `steps` squares from the start is strictly between
                # when it is short of the longer of the two distances. A knight
                # or king has nothing between; off a line the move is refused.
                between_used[index].eq(slider & ((files > steps) | (ranks > steps))),
            ]

        # Stage 3: the rank of each square between, out of the occupancy (an
        # 8:1 choice of bytes); stage 4: its file within that rank. One 64:1
        # choice in a stage would be the deepest logic of the detector.
        valid3 = Signal()
        geometry_ok3 = Signal()
        rank_bits = [Signal(8, name=f"between{index + 1}_rank_bits")
                     for index in range(_MAX_BETWEEN)]
        rank_file = [Signal(3, name=f"between{index + 1}_file3") for index in range(_MAX_BETWEEN)]
        rank_used = Signal(_MAX_BETWEEN)
        m.d.sync += [valid3.eq(valid2), geometry_ok3.eq(geometry_ok), rank_used.eq(between_used)]
        for index in range(_MAX_BETWEEN):
            m.d.sync += [
                rank_bits[index].eq(self.occupancy.word_select(between_rank[index], 8)),
                rank_file[index].eq(between_file[index]),
            ]

        valid4 = Signal()
        path_ok = Signal()
        path_blocked = Signal(_MAX_BETWEEN)
        m.d.sync += [valid4.eq(valid3), path_ok.eq(geometry_ok3)]
        for index in range(_MAX_BETWEEN):
            m.d.sync += path_blocked[index].eq(rank_used[index] &
                                               rank_bits[index].bit_select(rank_file[index], 1))

        # Stage 5: the verdict.
        m.d.sync += [
            self.verdict_valid.eq(valid4),
            self.reachable.eq(valid4 & path_ok & ~path_blocked.any()),
        ]
        return m
