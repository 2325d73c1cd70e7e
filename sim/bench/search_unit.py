"""The bench's search unit: what a node costs in gateware, and what area.

The search unit (:class:`axon.hdl.search.SearchUnit`, docs/search_unit.md)
searches fixed positions on its CXXRTL model
(:class:`~axon.sim.backends.search_cxxrtl.SearchCxxrtl`), each depth from 1
to the search's a search of its own, as ``axon search --engine gateware``
runs them: the nodes, the clocks, the clocks a node and the clocks the walk
stood waiting for the detector. At each device's median Fmax (the targets
``unit-*`` of :data:`axon.boards.measure.SEARCH_TARGETS`) the clocks a node
become nodes per second, beside the model's own search of the same trees in
Python on this CPU (the same nodes, with the golden model as its detector)
and Deep Blue's chip.

The place-and-route figures of the unit and of the perft core come from the
bench's hardware phase; :func:`units_in` says how many units an ECP5 would
hold, computed from one unit's measured use (not from a build of that many).
"""

import math
import time
from dataclasses import dataclass
from typing import Callable, Optional

from ...boards.measure import SEARCH_TARGETS
from ...hdl.params import SHIPPED
from ..backends.session import GoldenSession
from ..engine.repetition import DetectorTest
from ..engine.unit import UnitEngine, UnitTest, engine_for
from .recorded import WAC_018, position


__all__ = ["UnitSearch", "UNIT_SEARCHES", "UNIT_TARGETS", "ARRAY_TARGET", "ARRAY_MARGIN",
           "DEEP_BLUE_NODES_PER_SECOND", "DEEP_BLUE_CITATION", "search_unit_figures",
           "unit_clocks", "python_rates", "units_in"]

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@dataclass(frozen=True)
class UnitSearch:
    """A search the bench runs in the unit: depths 1 to ``depth`` from
    ``fen`` (or the first game of the bundled ``pgn`` after ``plies``)."""
    label: str
    fen:   Optional[str]
    pgn:   Optional[str]
    plies: int
    depth: int


# The paper's WAC.018, the paper's figure-1 game after 14 plies (a draw by
# repetition changes its best move) and Kiwipete (every kind of move).
UNIT_SEARCHES = (
    UnitSearch("WAC.018", WAC_018, None, 0, 5),
    UnitSearch("paper figure 1, ply 14", None, "paper_figure1.pgn", 14, 4),
    UnitSearch("Kiwipete", KIWIPETE, None, 0, 3),
)

# The unit's targets whose median Fmax turns clocks a node into nodes a second.
UNIT_TARGETS = ("unit-up5k", "unit-hx8k", "unit-lfe5u-85f")
# The device an array of units would fill, and the share of it they may take.
ARRAY_TARGET = "unit-lfe5u-85f"
ARRAY_MARGIN = 0.85

# Deep Blue's chess chip searched 2 to 2.5 million positions a second:
# M. Campbell, A. J. Hoane Jr., F.-h. Hsu, "Deep Blue", Artificial
# Intelligence 134 (2002) 57-83, section 3.
DEEP_BLUE_NODES_PER_SECOND = (2_000_000, 2_500_000)
DEEP_BLUE_CITATION = ("M. Campbell, A. J. Hoane Jr., F.-h. Hsu, \"Deep Blue\", "
                      "Artificial Intelligence 134 (2002) 57-83")


def _root(search):
    return position(search.fen, search.pgn, search.plies)


def unit_clocks(searches=UNIT_SEARCHES, session=None, log=print):
    """Each search in the unit's RTL (``session``, by default the CXXRTL
    model): ``[{position, depth, nodes, clocks, ...}]``, depths 1 to the
    search's summed."""
    test = UnitTest("cxxrtl", SHIPPED, log=log, session=session)
    test.build()
    found = []
    for search in searches:
        board, history = _root(search)
        engine = UnitEngine(board, history, test)
        results = list(engine.iterate(search.depth))
        nodes = sum(result.nodes for result in results)
        clocks = sum(result.clocks for result in results)
        waiting = sum(result.wait_clocks for result in results)
        found.append({"position": search.label, "history_plies": search.plies,
                      "depth": search.depth, "nodes": nodes,
                      "queries": sum(result.queries for result in results),
                      "repetitions": sum(result.repetitions for result in results),
                      "clocks": clocks, "clocks_per_node": round(clocks / nodes, 2),
                      "wait_clocks": waiting, "wait_share": round(waiting / clocks, 4),
                      "move": results[-1].uci, "score": results[-1].score})
        log(f"search unit: {search.label} to depth {search.depth}: {nodes} nodes, "
            f"{clocks} clocks, {clocks / nodes:.1f} a node, {100 * waiting / clocks:.1f} % "
            f"waiting for the detector")
    return found


def python_rates(searches=UNIT_SEARCHES, log=print):
    """The model's search of the same trees in Python (``--engine gateware
    --backend golden``): ``[{nodes, seconds, nodes_per_second}]``."""
    rates = []
    for search in searches:
        board, history = _root(search)
        engine = engine_for("gateware", board, history, DetectorTest(GoldenSession(SHIPPED)))
        began = time.perf_counter()
        nodes = sum(result.nodes for result in engine.iterate(search.depth))
        seconds = time.perf_counter() - began
        rates.append({"nodes": nodes, "seconds": round(seconds, 3),
                      "nodes_per_second": round(nodes / seconds)})
        log(f"search unit's model in Python: {search.label}: {nodes} nodes, "
            f"{nodes / seconds:.0f} nodes/s")
    return rates


def units_in(figures, margin=ARRAY_MARGIN):
    """How many units a device holds within ``margin`` of its logic cells
    (an ECP5's LUT4s) and block RAMs, from ``figures``, one unit's
    place-and-route result; ``None`` without them."""
    cells, rams = figures.get("logic_cells", {}), figures.get("block_rams", {})
    if not cells.get("used") or not cells.get("available") or not rams.get("available"):
        return None
    by_cells = math.floor(margin * cells["available"] / cells["used"])
    by_rams = (math.floor(margin * rams["available"] / rams["used"]) if rams.get("used")
               else by_cells)
    return {"units": min(by_cells, by_rams), "margin": margin,
            "by_logic_cells": by_cells, "by_block_rams": by_rams,
            "logic_cells": {"used": cells["used"], "available": cells["available"]},
            "block_rams": {"used": rams.get("used", 0), "available": rams["available"]},
            "computed_from": "one unit's measured use, not a build of that many units"}


def _area(figures):
    if "does_not_fit" in figures:
        return {"fits": False, "does_not_fit": figures["does_not_fit"]}
    if "error" in figures:
        return {"fits": False, "error": figures["error"]}
    return {"fits": True, "device": figures.get("device"), "family": figures.get("family"),
            "logic_cells": figures.get("logic_cells"), "flip_flops": figures.get("flip_flops"),
            "block_rams": figures.get("block_rams"), "fmax_mhz": figures.get("fmax_mhz")}


def search_unit_figures(hardware, *, searches=UNIT_SEARCHES, session=None, python=True,
                        log: Callable[[str], None] = print):
    """``bench.json``'s ``search_unit``: the place-and-route results of the
    search layer's targets in ``hardware`` (target -> figures, the bench's),
    each search's clocks in the unit, nodes a second at each unit target's
    median Fmax, and (``python``) the model's own rate on this CPU."""
    found = unit_clocks(searches, session, log)
    rates = python_rates(searches, log) if python else [None] * len(found)
    fmax = {target: hardware[target]["fmax_mhz"]["median"] for target in UNIT_TARGETS
            if "fmax_mhz" in hardware.get(target, {})}
    for figures, rate in zip(found, rates):
        figures["nodes_per_second"] = {target: round(mhz * 1e6 * figures["nodes"] /
                                                     figures["clocks"])
                                       for target, mhz in fmax.items()}
        if rate:
            figures["python"] = rate
    nodes = sum(figures["nodes"] for figures in found)
    clocks = sum(figures["clocks"] for figures in found)
    waiting = sum(figures["wait_clocks"] for figures in found)
    total = {"nodes": nodes, "clocks": clocks, "clocks_per_node": round(clocks / nodes, 2),
             "wait_clocks": waiting, "wait_share": round(waiting / clocks, 4),
             "nodes_per_second": {target: round(mhz * 1e6 * nodes / clocks)
                                  for target, mhz in fmax.items()}}
    if python:
        seconds = sum(rate["seconds"] for rate in rates)
        total["python"] = {"nodes": nodes, "seconds": round(seconds, 3),
                           "nodes_per_second": round(nodes / seconds)}
    return {
        "backend": "cxxrtl",
        "detector": SHIPPED.key,
        "searches": found,
        "total": total,
        "fmax_mhz": fmax,
        "area": {target: _area(hardware[target]) for target in SEARCH_TARGETS
                 if target in hardware},
        "array": units_in(hardware.get(ARRAY_TARGET, {})),
        "deep_blue": {"nodes_per_second_per_chip": list(DEEP_BLUE_NODES_PER_SECOND),
                      "source": DEEP_BLUE_CITATION},
    }
