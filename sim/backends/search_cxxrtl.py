"""Run :class:`axon.hdl.search.SearchUnit` compiled with CXXRTL.

The model is built and cached by :class:`~axon.sim.backends.cxxrtl.CxxrtlModel`
(the generated C++ and the binary, keyed by everything they are made of); a
small testbench (``search_cxxrtl_harness.cc``, beside this file) loads each
search's position and game history through the unit's ports, starts it and
prints the result and the counters as the unit gives them. Many searches
run in one process.
"""

from dataclasses import dataclass
from typing import List, Sequence

from amaranth.hdl import Shape
from amaranth.lib import data

from ...hdl.params import SHIPPED, DetectorConfig
from ...hdl.search import SearchUnit
from ...hdl.search.layout import Move, NodeEvent
from ..search.unit import (UnitJob, UnitNode, UnitResult, check_unit_depth, encode_job,
                           move_name, node_of, signed)
from .cxxrtl import CxxrtlError, CxxrtlModel


__all__ = ["SearchCxxrtl", "SearchCxxrtlConfig", "CLOCK_LIMIT", "node_from_bits"]

# A search is given up after this many clocks (a few hours of the model).
CLOCK_LIMIT = 1 << 40


_EVENT = data.Layout.cast(NodeEvent)
_MOVE = data.Layout.cast(Move)


def _field(value: int, layout: data.Layout, name: str) -> int:
    field = layout[name]
    return value >> field.offset & ((1 << field.width) - 1)


def node_from_bits(value: int) -> UnitNode:
    """The :class:`UnitNode` of a :class:`~axon.hdl.search.layout.NodeEvent`'s
    bits, as the harness prints them."""
    move = _field(value, _EVENT, "move")
    return node_of(_field(value, _EVENT, "ply"), _field(move, _MOVE, "from_sq"),
                   _field(move, _MOVE, "to_sq"), _field(move, _MOVE, "promo"),
                   *(_field(value, _EVENT, name)
                     for name in ("alpha", "beta", "queried", "draw", "score")))


@dataclass(frozen=True)
class SearchCxxrtlConfig:
    """What the model is built of; ``key`` names its cached files."""
    detector: DetectorConfig = SHIPPED
    repetition: bool = True

    @property
    def key(self) -> str:
        return f"{self.detector.key}{'' if self.repetition else '-blind'}"


class SearchCxxrtl(CxxrtlModel):
    """The search unit compiled with CXXRTL: a few hundred thousand clocks
    a second.

    Parameters
    ----------
    config : DetectorConfig
        The unit's detector (default :data:`~axon.hdl.params.SHIPPED`).
    repetition : bool
        ``False``: the broken unit that ignores the detector, for tests.
    build_dir, log :
        Cache directory and progress lines, see
        :class:`~axon.sim.backends.cxxrtl.CxxrtlModel`.
    """

    DESIGN_NAME     = "axon_search_unit"
    # Flattened, as the detector's session is: CXXRTL evaluates a flat
    # design's clock in one pass.
    MERGE_MODULES   = False
    HARNESS         = ("position_harness.cc", "search_cxxrtl_harness.cc")
    HARNESS_PACKAGE = __package__
    HARNESS_PORTS   = ("clk", "load_en", "load_square", "load_piece", "history_en",
                       "history_addr", "history_word", "side", "castling", "ep_valid", "ep_sq",
                       "root_address", "depth", "start", "busy", "score", "best_valid",
                       "best_move", "nodes", "terminal", "repetitions", "queries", "clocks",
                       "wait_clocks", "node_valid", "node")

    def __init__(self, config: DetectorConfig = SHIPPED, *, repetition: bool = True,
                 build_dir=None, log=None):
        self.config = SearchCxxrtlConfig(DetectorConfig.checked(config), repetition)
        super().__init__(build_dir, log=log)

    @property
    def depth(self) -> int:
        """The move list's depth."""
        return self.config.detector.depth

    def _make_dut(self):
        return SearchUnit(self.config.detector, repetition=self.config.repetition)

    def _defines(self):
        root_bits = Shape.cast(range(-1, self.depth)).width
        return ['#define AXON_HARNESS_NAME "axon search unit harness"',
                f"#define AXON_CLOCK_LIMIT {CLOCK_LIMIT}ull",
                f"#define AXON_DEPTH {self.depth}u",
                f"#define AXON_ROOT_MASK {(1 << root_bits) - 1}u"]

    def run(self, job: UnitJob, *, trace: bool = False) -> UnitResult:
        """Search ``job`` in the unit; with ``trace``, the result's
        ``trace`` holds every node as the unit returns from it."""
        return self.run_many([job], trace=trace)[0]

    def run_many(self, jobs: Sequence[UnitJob], *, trace: bool = False) -> List[UnitResult]:
        """Search each job, in one process (with ``trace``, as :meth:`run`)."""
        lines = []
        for job in jobs:
            check_unit_depth(job.depth)
            if len(job.words) > self.depth:
                raise ValueError(f"{len(job.words)} words of game history do not fit a "
                                 f"move list of {self.depth}")
            lines.append(" ".join(map(str, [int(trace), *encode_job(job)])))
        output = self._run_binary(("\n".join(lines) + "\n").encode()).decode()
        results: List[UnitResult] = []
        nodes: List[UnitNode] = []
        for line in output.splitlines():
            kind, *fields = line.split()
            if kind == "node":
                low, high = map(int, fields)
                nodes.append(node_from_bits(low | high << 64))
                continue
            (score, best_valid, best, count, terminal, repetitions, queries, clocks,
             wait_clocks) = map(int, fields)
            move = (move_name(best & 63, best >> 6 & 63, best >> 12) if best_valid else None)
            results.append(UnitResult(signed(score), move, count, terminal, repetitions,
                                      queries, clocks, wait_clocks, nodes))
            nodes = []
        if len(results) != len(jobs):
            raise CxxrtlError(f"the search unit's model answered {len(results)} searches of "
                              f"{len(jobs)}")
        return results

    def close(self) -> None:
        """Nothing to end: each run is a process of its own."""
