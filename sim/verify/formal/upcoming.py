"""Upcoming repetition: the block between a model of the chain list and the scanner."""

from amaranth.asserts import AnySeq
from amaranth.hdl import *

from ....hdl.upcoming import Upcoming
from .harness import free, Harness


UPCOMING_PROOF_DEPTH = 8


class _UpcomingAnyParity(Upcoming):
    """A mutated upcoming block that forgets the rule's odd depth."""
    @staticmethod
    def _odd(depth):
        return C(1)


def upcoming_single_chain(broken):
    def body(m):
        block = _UpcomingAnyParity if broken else Upcoming
        m.submodules.dut = dut = block(UPCOMING_PROOF_DEPTH)
        for port in (dut.scan_start, dut.taken_newer, dut.taken_newer_black, dut.taken_depth,
                     dut.scan_done, dut.query.occupancy):
            free(m, port)
        # The scanner's contract: the side to move is fixed for a query (here
        # chosen freely on the starting clock), no word is taken on that clock,
        # and depths fit the move list.
        mover_black = Signal()
        with m.If(dut.scan_start):
            m.d.sync += mover_black.eq(AnySeq(1))
        m.d.comb += [
            dut.mover_black.eq(mover_black),
            Assume(~(dut.scan_start & dut.taken_newer)),
            Assume(dut.taken_depth <= UPCOMING_PROOF_DEPTH),
        ]
        # The chain list, as per-side open-chain counts (any, on any clock);
        # the summaries follow from them, the squares and kinds are free.
        counts = {}
        for side, lone in (("white", dut.white_lone), ("black", dut.black_lone)):
            count = Signal(2, name=f"{side}_open_chains")
            free(m, count)
            free(m, lone.kind)
            free(m, lone.start)
            free(m, lone.end)
            m.d.comb += [lone.empty.eq(count == 0), lone.single.eq(count == 1)]
            counts[side] = count
        earlier = {side: Signal(2, name=f"{side}_open_chains_before") for side in counts}
        m.d.sync += [earlier[side].eq(counts[side]) for side in counts]
        # A taken word's state: its own side as the chain list holds it now,
        # the other side as it was a clock earlier (before the word's pair).
        # `qualified[d]`: since the query started, some word (the pools' or
        # the backstop's) left exactly one open chain, the mover's, after an
        # odd number d of words.
        word_white = Mux(dut.taken_newer_black, earlier["white"], counts["white"])
        word_black = Mux(dut.taken_newer_black, counts["black"], earlier["black"])
        mover_count = Mux(mover_black, word_black, word_white)
        other_count = Mux(mover_black, word_white, word_black)
        # The backstop's walked list, word by word: both sides as it holds
        # them on the clock it offers a word (any counts, squares and kinds).
        backstop = dut.backstop
        for port in (backstop.applied, backstop.depth, backstop.inside):
            free(m, port)
        walked_counts = {}
        for side, lone in (("white", backstop.white_lone), ("black", backstop.black_lone)):
            count = Signal(2, name=f"walked_{side}_open_chains")
            free(m, count)
            free(m, lone.kind)
            free(m, lone.start)
            free(m, lone.end)
            m.d.comb += [lone.empty.eq(count == 0), lone.single.eq(count == 1)]
            walked_counts[side] = count
        m.d.comb += [
            Assume(~(dut.scan_start & backstop.applied)),
            Assume(backstop.depth <= UPCOMING_PROOF_DEPTH),
        ]
        walked_mover = Mux(mover_black, walked_counts["black"], walked_counts["white"])
        walked_other = Mux(mover_black, walked_counts["white"], walked_counts["black"])
        qualified = Signal(UPCOMING_PROOF_DEPTH + 1)
        pools_qualify = Signal()
        walked_qualify = Signal()
        m.d.comb += [
            pools_qualify.eq(dut.taken_newer & dut.taken_depth[0] & (mover_count == 1) &
                             (other_count == 0)),
            walked_qualify.eq(backstop.applied & backstop.depth[0] & (walked_mover == 1) &
                              (walked_other == 0)),
        ]
        with m.If(dut.scan_start):
            m.d.sync += qualified.eq(0)
        with m.Else():
            m.d.sync += qualified.eq(
                qualified |
                Mux(pools_qualify, (1 << dut.taken_depth)[:len(qualified)], 0) |
                Mux(walked_qualify, (1 << backstop.depth)[:len(qualified)], 0))
        # A found upcoming repetition names one of those depths: its distance
        # is the depth plus one, even.
        named_depth = Signal(range(UPCOMING_PROOF_DEPTH + 2))
        m.d.comb += named_depth.eq(dut.query.answer.distance - 1)
        with m.If(dut.query.answer.found):
            m.d.comb += [
                Assert(dut.query.answer.distance >= 2),
                Assert(~dut.query.answer.distance[0]),
                Assert(qualified.bit_select(named_depth, 1)),
            ]
    return Harness(body)
