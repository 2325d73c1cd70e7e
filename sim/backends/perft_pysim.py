"""Run :class:`axon.hdl.search.Perft` in Amaranth's simulator."""

from typing import List, Optional, Tuple

import chess
from amaranth.sim import Simulator

from ...hdl.search import Perft
from ..search.movegen import Position
from ..search.perft import GatewareRun, PerftResult, check_depth, move_uci


__all__ = ["PerftPysim", "load_position", "simulate"]


def simulate(dut, testbench, vcd: Optional[str] = None) -> None:
    """Run ``testbench`` against ``dut`` with its clock, writing every
    signal to the VCD file ``vcd`` when one is given."""
    sim = Simulator(dut)
    sim.add_clock(1e-7)
    sim.add_testbench(testbench)
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()


async def load_position(ctx, dut, pos: Position, depth: int):
    """Write the 64 squares, set the position and pulse ``start``."""
    for square, piece in enumerate(pos.board):
        ctx.set(dut.load_en, 1)
        ctx.set(dut.load_square, square)
        ctx.set(dut.load_piece, piece)
        await ctx.tick()
    ctx.set(dut.load_en, 0)
    ctx.set(dut.side, pos.side)
    ctx.set(dut.castling, pos.castling)
    ctx.set(dut.ep_valid, pos.ep_square is not None)
    ctx.set(dut.ep_sq, pos.ep_square or 0)
    ctx.set(dut.depth, depth)
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.start, 0)


class PerftPysim:
    """Perft in the gateware, simulated clock by clock: slow (a few thousand
    clocks a second), but it records every legal move the gateware gives.

    Parameters
    ----------
    en_passant : bool
        ``False``: the broken generator, for tests.
    vcd : str or None
        Write a waveform of the run there.
    clock_limit : int
        Give up (``TimeoutError``) after this many clocks.
    """

    def __init__(self, *, en_passant: bool = True, vcd: Optional[str] = None,
                 clock_limit: int = 10_000_000):
        self.en_passant = en_passant
        self.vcd = vcd
        self.clock_limit = clock_limit

    def run(self, board: chess.Board, depth: int) -> GatewareRun:
        check_depth(depth)
        dut = Perft(en_passant=self.en_passant)
        pos = Position.from_board(board)
        trace: List[Tuple[int, str, int]] = []
        roots: List[Tuple[str, int]] = []
        outcome = {}

        async def testbench(ctx):
            await load_position(ctx, dut, pos, depth)
            clocks = 0
            while True:
                await ctx.tick()
                clocks += 1
                if ctx.get(dut.move_valid):
                    trace.append((ctx.get(dut.move_ply), move_uci(ctx.get(dut.move.as_value())),
                                  ctx.get(dut.move_word.as_value())))
                if ctx.get(dut.root_valid):
                    roots.append((move_uci(ctx.get(dut.root_move.as_value())),
                                  ctx.get(dut.root_nodes)))
                if not ctx.get(dut.busy):
                    break
                if clocks >= self.clock_limit:
                    raise TimeoutError(f"perft ran past {self.clock_limit} clocks")
            outcome["nodes"], outcome["clocks"] = ctx.get(dut.nodes), clocks

        simulate(dut, testbench, self.vcd)
        return GatewareRun(PerftResult(outcome["nodes"], tuple(roots)), tuple(trace),
                           outcome["clocks"])
