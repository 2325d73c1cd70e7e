"""Run :class:`axon.hdl.search.Perft` compiled with CXXRTL.

The model is built and cached by :class:`~axon.sim.backends.cxxrtl.CxxrtlModel`
(the generated C++ and the binary, keyed by everything they are made of); a
small testbench (``perft_cxxrtl_harness.cc``, beside this file) loads each
position through the load port, starts it and prints the root moves and the
total as the gateware gives them. Many positions run in one process.
"""

from dataclasses import dataclass
from typing import List, Sequence, Tuple

import chess

from ...hdl.search import Perft
from ..search.movegen import Position
from ..search.perft import GatewareRun, PerftResult, check_depth, move_uci
from .cxxrtl import CxxrtlError, CxxrtlModel


__all__ = ["PerftCxxrtl", "PerftCxxrtlConfig", "CLOCK_LIMIT"]

# A run is given up after this many clocks: depth 7 from the start position
# (3.2e9 leaves at about 30 clocks each) fits.
CLOCK_LIMIT = 1 << 40


@dataclass(frozen=True)
class PerftCxxrtlConfig:
    """What the model is built of; ``key`` names its cached files."""
    en_passant: bool = True

    @property
    def key(self) -> str:
        return "perft" if self.en_passant else "perft-no-ep"


class PerftCxxrtl(CxxrtlModel):
    """Perft in the gateware, compiled with CXXRTL: a few million clocks a
    second.

    Parameters
    ----------
    en_passant : bool
        ``False``: the broken generator, for tests.
    build_dir, log :
        Cache directory and progress lines, see
        :class:`~axon.sim.backends.cxxrtl.CxxrtlModel`.
    """

    DESIGN_NAME     = "axon_perft"
    MERGE_MODULES   = False
    HARNESS         = ("position_harness.cc", "perft_cxxrtl_harness.cc")
    HARNESS_PACKAGE = __package__
    HARNESS_PORTS   = ("clk", "load_en", "load_square", "load_piece", "side", "castling",
                       "ep_valid", "ep_sq", "depth", "start", "busy", "nodes", "root_valid",
                       "root_move", "root_nodes")

    def __init__(self, *, en_passant: bool = True, build_dir=None, log=None):
        self.config = PerftCxxrtlConfig(en_passant)
        super().__init__(build_dir, log=log)

    def _make_dut(self):
        return Perft(en_passant=self.config.en_passant)

    def _defines(self):
        return ['#define AXON_HARNESS_NAME "axon perft harness"',
                f"#define AXON_CLOCK_LIMIT {CLOCK_LIMIT}ull"]

    def run(self, board: chess.Board, depth: int) -> GatewareRun:
        """Perft of ``board`` to ``depth``."""
        return self.run_many([(board, depth)])[0]

    def run_many(self, jobs: Sequence[Tuple[chess.Board, int]]) -> List[GatewareRun]:
        """Perft of each ``(board, depth)``, in one process."""
        lines = []
        for board, depth in jobs:
            check_depth(depth)
            pos = Position.from_board(board)
            ep = pos.ep_square
            lines.append(" ".join(map(str, [depth, pos.side, pos.castling, int(ep is not None),
                                             ep or 0, *pos.board])))
        output = self._run_binary(("\n".join(lines) + "\n").encode()).decode()
        runs: List[GatewareRun] = []
        roots: List[Tuple[str, int]] = []
        for line in output.splitlines():
            tag, first, second = line.split()
            if tag == "root":
                roots.append((move_uci(int(first)), int(second)))
            else:
                runs.append(GatewareRun(PerftResult(int(first), tuple(roots)), (), int(second)))
                roots = []
        if len(runs) != len(jobs):
            raise CxxrtlError(f"the perft model answered {len(runs)} positions of {len(jobs)}")
        return runs
