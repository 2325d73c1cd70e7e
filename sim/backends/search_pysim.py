"""Run :class:`axon.hdl.search.SearchUnit` in Amaranth's simulator."""

from typing import Callable, Optional

from ...hdl.params import SHIPPED, DetectorConfig
from ...hdl.search import SearchUnit
from ..search.unit import (UnitJob, UnitNode, UnitResult, check_unit_depth, move_name,
                           node_of, signed)
from .perft_pysim import simulate


__all__ = ["SearchPysim", "load_search"]


async def load_search(ctx, dut, job: UnitJob):
    """Write the 64 squares and the game history's words, set the position,
    the root address and the depth, and pulse ``start``."""
    for square, piece in enumerate(job.position.board):
        ctx.set(dut.load_en, 1)
        ctx.set(dut.load_square, square)
        ctx.set(dut.load_piece, piece)
        await ctx.tick()
    ctx.set(dut.load_en, 0)
    for address, word in enumerate(job.words):
        ctx.set(dut.history_en, 1)
        ctx.set(dut.history_addr, address)
        ctx.set(dut.history_word.as_value(), word)
        await ctx.tick()
    ctx.set(dut.history_en, 0)
    pos = job.position
    ctx.set(dut.side, pos.side)
    ctx.set(dut.castling, pos.castling)
    ctx.set(dut.ep_valid, pos.ep_square is not None)
    ctx.set(dut.ep_sq, pos.ep_square or 0)
    ctx.set(dut.root_address, job.root_address)
    ctx.set(dut.depth, job.depth)
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.start, 0)


def _event(ctx, dut) -> UnitNode:
    node = dut.node
    move = node.move
    return node_of(ctx.get(node.ply), ctx.get(move.from_sq), ctx.get(move.to_sq),
                   ctx.get(move.promo), ctx.get(node.alpha) & 0xFFFF,
                   ctx.get(node.beta) & 0xFFFF, ctx.get(node.queried),
                   ctx.get(node.draw), ctx.get(node.score) & 0xFFFF)


class SearchPysim:
    """The search unit simulated clock by clock: slow (a few thousand
    clocks a second), but it records every node as the unit returns from it.

    Parameters
    ----------
    config : DetectorConfig
        The unit's detector (default :data:`~axon.hdl.params.SHIPPED`).
    repetition : bool
        ``False``: the broken unit that ignores the detector, for tests.
    on_node : callable or None
        ``on_node(UnitNode)`` for each node as it returns.
    vcd : str or None
        Write a waveform of each run there.
    clock_limit : int
        Give up (``TimeoutError``) after this many clocks.
    """

    def __init__(self, config: DetectorConfig = SHIPPED, *, repetition: bool = True,
                 on_node: Optional[Callable[[UnitNode], None]] = None,
                 vcd: Optional[str] = None, clock_limit: int = 10_000_000):
        self.config = DetectorConfig.checked(config)
        self.repetition = repetition
        self.on_node = on_node
        self.vcd = vcd
        self.clock_limit = clock_limit

    @property
    def depth(self) -> int:
        """The move list's depth."""
        return self.config.depth

    def run(self, job: UnitJob) -> UnitResult:
        """Search ``job`` in the unit."""
        check_unit_depth(job.depth)
        dut = SearchUnit(self.config, repetition=self.repetition)
        found = {}
        trace = []

        async def testbench(ctx):
            await load_search(ctx, dut, job)
            clocks = 0
            while True:
                await ctx.tick()
                clocks += 1
                if ctx.get(dut.node_valid):
                    node = _event(ctx, dut)
                    trace.append(node)
                    if self.on_node is not None:
                        self.on_node(node)
                if not ctx.get(dut.busy):
                    break
                if clocks >= self.clock_limit:
                    raise TimeoutError(f"the search unit ran past {self.clock_limit} clocks")
            best = dut.best_move
            found["result"] = UnitResult(
                score=signed(ctx.get(dut.score) & 0xFFFF),
                move=(move_name(ctx.get(best.from_sq), ctx.get(best.to_sq), ctx.get(best.promo))
                      if ctx.get(dut.best_valid) else None),
                nodes=ctx.get(dut.nodes), terminal=ctx.get(dut.terminal),
                repetitions=ctx.get(dut.repetitions), queries=ctx.get(dut.queries),
                clocks=ctx.get(dut.clocks), wait_clocks=ctx.get(dut.wait_clocks), trace=trace)

        simulate(dut, testbench, self.vcd)
        return found["result"]

    def close(self) -> None:
        """Nothing to end: each run is a simulation of its own."""
