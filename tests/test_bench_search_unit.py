# amaranth: UnusedElaboratable=no
"""The bench's search unit: ``bench.json``'s ``search_unit`` (its clocks a
node, nodes a second at its targets' median Fmax, the area of the unit and
of the perft core, an LFE5U-85F of units) and its table in ``axon bench
--readme`` and docs/search_unit.md, from a faked place and route and a
stand-in for the unit's RTL."""

import json
import pathlib
import subprocess
import sys

import pytest

from axon.boards.measure import SEARCH_TARGETS, all_targets
from axon.sim.bench.benchmark import run_bench
from axon.sim.bench.readme import UNIT_AREA_HEADER, UNIT_CLOCKS_HEADER, readme_tables
from axon.sim.bench.search_unit import (DEEP_BLUE_NODES_PER_SECOND, UNIT_SEARCHES, UnitSearch,
                                        search_unit_figures, units_in)
from axon.sim.search.unit import UnitResult


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "benchmark search unit"

ROOT = pathlib.Path(__file__).resolve().parent.parent
AXON = str(pathlib.Path(sys.executable).with_name("axon"))
WAC_DEPTH_2 = (UnitSearch("WAC.018", UNIT_SEARCHES[0].fen, None, 0, 2),)


class CountingUnit:
    """A stand-in for the unit's RTL: each search ``nodes`` nodes at
    ``per_node`` clocks each, ``waiting`` of them waiting for the detector."""
    depth = 256

    def __init__(self, nodes=100, per_node=40, waiting=8):
        self.nodes, self.per_node, self.waiting = nodes, per_node, waiting

    def run(self, job):
        nodes = self.nodes * job.depth
        return UnitResult(score=0, move="a7a8q", nodes=nodes, terminal=nodes - 1,
                          repetitions=0, queries=nodes - 1, clocks=self.per_node * nodes,
                          wait_clocks=self.waiting * job.depth)


def _fits(device, used, available, runs, rams=(12, 32), family="ice40"):
    return {"device": device, "family": family, "seeds": list(range(1, len(runs) + 1)),
            "fmax_mhz": {"min": min(runs), "median": sorted(runs)[len(runs) // 2],
                         "max": max(runs), "runs": runs},
            "logic_cells": {"used": used, "available": available,
                            "percent": round(100 * used / available, 1)},
            "flip_flops": 1500, "block_rams": {"used": rams[0], "available": rams[1]},
            "critical_path": {}}


# A recorded place and route of the search layer's targets, as hardware.json has it.
HARDWARE = {
    "unit-up5k": {"error": "does not fit: the design needs 6852 ICESTORM_LC, the device "
                           "has 5280",
                  "does_not_fit": {"cell": "ICESTORM_LC", "used": 6852, "available": 5280,
                                   "percent": 129.8}},
    "unit-hx8k": _fits("iCE40HX8K-CT256", 6900, 7680, [30.0, 32.0, 31.0]),
    "unit-lfe5u-85f": _fits("LFE5U-85F-BG381", 9000, 83640, [40.0, 50.0, 45.0],
                            rams=(12, 208), family="ecp5"),
    "perft-up5k": _fits("iCE40UP5K-SG48", 3000, 5280, [20.0, 21.0, 22.0], rams=(1, 30)),
    "perft-hx8k": _fits("iCE40HX8K-CT256", 3000, 7680, [60.0, 61.0, 62.0], rams=(1, 32)),
}

SEARCH_KEYS = {"position", "depth", "nodes", "clocks", "clocks_per_node", "wait_clocks",
               "wait_share", "nodes_per_second"}
UNIT_KEYS = {"searches", "total", "fmax_mhz", "area", "array", "deep_blue"}


def check_search_unit(unit):
    """What ``bench.json``'s ``search_unit`` must hold: raise ``AssertionError``
    naming what is missing or wrong."""
    assert UNIT_KEYS <= set(unit), f"search_unit lacks {UNIT_KEYS - set(unit)}"
    for found in unit["searches"] + [unit["total"]]:
        keys = SEARCH_KEYS - {"position", "depth"} if found is unit["total"] else SEARCH_KEYS
        assert keys <= set(found), f"{found.get('position', 'total')} lacks {keys - set(found)}"
        assert found["clocks_per_node"] == round(found["clocks"] / found["nodes"], 2)
        assert found["wait_share"] == round(found["wait_clocks"] / found["clocks"], 4)
        for target, rate in found["nodes_per_second"].items():
            assert rate == pytest.approx(unit["fmax_mhz"][target] * 1e6 /
                                         found["clocks_per_node"], rel=1e-3), target
    assert unit["deep_blue"]["nodes_per_second_per_chip"] == list(DEEP_BLUE_NODES_PER_SECOND)
    assert "Artificial Intelligence 134 (2002)" in unit["deep_blue"]["source"]


@pytest.fixture(scope="module")
def unit():
    return search_unit_figures(HARDWARE, searches=WAC_DEPTH_2, session=CountingUnit(),
                               log=lambda line: None)


@pytest.mark.quick
def test_the_default_run_places_the_search_layer():
    assert set(SEARCH_TARGETS) == {"perft-up5k", "perft-hx8k", "unit-up5k", "unit-hx8k",
                                   "unit-lfe5u-85f"}
    assert set(SEARCH_TARGETS) <= set(all_targets())


@pytest.mark.quick
def test_search_unit_figures(unit):
    check_search_unit(unit)
    (wac,) = unit["searches"]
    # Depths 1 and 2, each a search of its own: 100 and 200 nodes.
    assert (wac["nodes"], wac["clocks"], wac["clocks_per_node"]) == (300, 12000, 40.0)
    assert (wac["wait_clocks"], wac["wait_share"]) == (24, 0.002)
    # The unit that does not fit has no rate; the others have theirs at the median.
    assert unit["fmax_mhz"] == {"unit-hx8k": 31.0, "unit-lfe5u-85f": 45.0}
    assert wac["nodes_per_second"] == {"unit-hx8k": 775_000, "unit-lfe5u-85f": 1_125_000}
    assert unit["total"]["python"]["nodes"] == 300 and wac["python"]["nodes_per_second"] > 0
    assert unit["area"]["unit-up5k"] == {"fits": False, "does_not_fit": {
        "cell": "ICESTORM_LC", "used": 6852, "available": 5280, "percent": 129.8}}
    assert unit["area"]["perft-hx8k"]["fits"] is True
    # 85 % of 83,640 LUT4s is 7 units of 9,000; of 208 BRAMs, 14 of 12.
    assert unit["array"]["units"] == 7 and unit["array"]["by_block_rams"] == 14
    assert "not a build" in unit["array"]["computed_from"]


@pytest.mark.quick
@pytest.mark.parametrize("broken", ["clocks_per_node", "wait_share", "nodes_per_second"])
def test_a_search_unit_section_without_a_key_fails(unit, broken):
    searches = [{key: value for key, value in found.items() if key != broken}
                for found in unit["searches"]]
    with pytest.raises(AssertionError, match=broken):
        check_search_unit({**unit, "searches": searches})
    with pytest.raises(AssertionError, match="array"):
        check_search_unit({key: value for key, value in unit.items() if key != "array"})


@pytest.mark.quick
def test_units_in_counts_the_scarcer_resource():
    one = _fits("LFE5U-85F-BG381", 2000, 83640, [50.0], rams=(40, 208), family="ecp5")
    # 85 % of the LUT4s holds 35 units, of the BRAMs 4.
    assert units_in(one)["units"] == 4
    assert units_in({"error": "does not fit"}) is None


def _tables(text):
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables


@pytest.mark.quick
def test_readme_prints_the_search_unit_tables(unit, tmp_path):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"hardware": HARDWARE, "search_unit": unit}))
    found = subprocess.run([AXON, "bench", "--readme", str(path)], capture_output=True,
                           text=True, check=True).stdout
    section = found[found.index("<!-- docs/search_unit.md: the search unit in the bench -->"):]
    clocks, area = _tables(section)[:2]
    assert clocks[0] == "| " + " | ".join(UNIT_CLOCKS_HEADER) + " |"
    assert clocks[2] == ("| WAC.018, depth 2 | 300 | 12,000 | 40.00 | 24 (0.2 %) | "
                         "does not fit | 775,000 | 1,125,000 | " +
                         f"{unit['searches'][0]['python']['nodes_per_second']:,} |")
    assert area[0] == "| " + " | ".join(UNIT_AREA_HEADER) + " |"
    assert ("| search unit, UP5K |  | does not fit: 6,852 / 5,280 ICESTORM_LC (129.8 %) "
            "|  |  |  |") in area
    assert "| search unit, LFE5U-85F | LFE5U-85F-BG381 | 9000 / 83640 LUT4s (10.8 %) | 1500 " \
           "| 12 / 208 | 40.00 / 45.00 / 50.00 |" in area
    assert "| perft core, HX8K | HX8K-CT256 | 3000 / 7680 (39.1 %) | 1500 | 1 / 32 | " \
           "60.00 / 61.00 / 62.00 |" in area
    assert ("Units in the LFE5U-85F: 7 within 85 % of its 83,640 LUT4s and 208 BRAMs, "
            "computed from one unit's use (9,000 LUT4s, 12 BRAMs), not from a build of 7 "
            "units") in section
    assert "Deep Blue's chess chip searched 2,000,000 to 2,500,000 nodes/s" in section
    # A bench.json from before the search unit prints no such table.
    assert "search unit in the bench" not in readme_tables({"hardware": HARDWARE})


@pytest.mark.quick
def test_search_unit_page_has_the_tables_to_paste_into():
    # The paste replaces each table of docs/search_unit.md with the same header row.
    page = (ROOT / "docs" / "search_unit.md").read_text()
    headers = [table[0] for table in _tables(page)]
    for header in (UNIT_CLOCKS_HEADER, UNIT_AREA_HEADER):
        assert headers.count("| " + " | ".join(header) + " |") == 1, header[0]
    paragraphs = [p for p in page.split("\n\n") if p.startswith("Units in the LFE5U-85F: ")]
    assert len(paragraphs) == 1


def test_bench_reports_the_search_unit(tmp_path):
    # A small whole run: no place and route, the unit's RTL a stand-in.
    from .test_search_bench import ClockedGolden, SMALL_SEARCHES
    run_bench(str(tmp_path), games=2, skip_hardware=True, skip_software=True,
              log=lambda line: None, rtl=(ClockedGolden(), "golden"), searches=SMALL_SEARCHES,
              crowded_games=2, unit_searches=WAC_DEPTH_2, unit_session=CountingUnit())
    written = json.loads((tmp_path / "bench.json").read_text())
    unit = written["search_unit"]
    check_search_unit(unit)
    assert unit["fmax_mhz"] == {} and unit["area"] == {} and unit["array"] is None
    # No software timed: the model's own rate is not either.
    assert "python" not in unit["total"]
    assert "| WAC.018, depth 2 | 300 | 12,000 | 40.00 | 24 (0.2 %) |  |  |  |  |" in \
        readme_tables(written)
