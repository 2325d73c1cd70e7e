"""``axon bench --readme``: the documentation's figure tables, printed from a ``bench.json``.

The tables in README.md (the boards), docs/boards.md and docs/performance.md
are pasted from this output, so that every figure in them comes from one
benchmark run instead of being typed in. Each table's heading comment names
the files it belongs in; the run they were pasted from is kept as
docs/bench.json, and a test holds them to it. The keys of
``bench.json`` are read defensively: a run that skipped the hardware or the
software peers, or an older or newer ``bench.json``, leaves cells empty
rather than failing.
"""

import re

from ...boards.platforms import BOARDS, DEFAULT_BOARD
from .capacity import layout_name
from .search_unit import ARRAY_TARGET, UNIT_TARGETS


__all__ = ["readme_tables", "BARE_CORES", "PEER_NAMES", "SEARCH_LABEL", "SEARCH_GATEWARE",
           "UNIT_CLOCKS_HEADER", "UNIT_AREA_HEADER"]

# Bench targets that are the bare core, and how the docs name them.
BARE_CORES = {"core-up5k": "bare core, UP5K", "core-hx8k": "bare core, HX8K",
              "core-lfe5u-25f": "bare core, LFE5U-25F", "core-lfe5u-85f": "bare core, LFE5U-85F"}

# How the docs name each software peer of axon.sim.bench.peers; a peer not
# listed here is shown by its key.
PEER_NAMES = {
    "cpw_c": "wiki chain list in C (`-O2`)",
    "zobrist_c": "Stockfish-style Zobrist scan in C (`-O2`, keys precomputed)",
    "golden_python": "golden model in Python",
}

# The software peers are compared with the fastest bare core.
RATIO_TARGET = "core-hx8k"

_DOES_NOT_FIT = re.compile(r"(\d+) chains need ~(\d+) logic cells, the \S+ has (\d+)")


def _number(value, digits=1):
    """``143.8``, ``212,893``: thousands separated, decimals only below 1000."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _row(cells):
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _table(header, rows):
    return [_row(header), _row(["---"] * len(header)), *(_row(row) for row in rows)]


def _short_device(device):
    return device[len("iCE40"):] if device.startswith("iCE40") else device


def _seed_one(figures):
    """Fmax of seed 1, the seed ``axon build`` uses; the median if absent."""
    fmax = figures.get("fmax_mhz", {})
    runs = fmax.get("runs") or []
    return runs[0] if runs else fmax.get("median")


def _boards(bench):
    """The board targets: those that fit first, in the benchmark's order."""
    hardware = bench.get("hardware", {})
    names = [name for name in hardware if name in BOARDS]
    return sorted(names, key=lambda name: "error" in hardware[name])


def _misfit(figures):
    """``(chains, needed, available)`` from a does-not-fit error, or ``None``."""
    found = _DOES_NOT_FIT.search(figures.get("error", ""))
    return found.groups() if found else None


def _lut4s(figures):
    """What an ECP5's logic cells are: its LUT4s, said in the cell."""
    return " LUT4s" if figures.get("family") == "ecp5" else ""


def _cells(figures):
    cells = figures.get("logic_cells", {})
    return (f"{cells.get('used', '?')} / {cells.get('available', '?')}{_lut4s(figures)} "
            f"({cells.get('percent', '?')} %)")


def _board_table(bench):
    rows = []
    for name in _boards(bench):
        figures, spec = bench["hardware"][name], BOARDS[name]
        board = f"`{name}`" + (" (default)" if name == DEFAULT_BOARD else "")
        if "error" in figures:
            misfit = _misfit(figures)
            why = (f"{misfit[0]} chains need ~{misfit[1]} / {misfit[2]}" if misfit
                   else figures["error"])
            rows.append([board, _short_device(spec.device), "does not fit", why, "", "", ""])
            continue
        rams = figures.get("block_rams", {})
        rows.append([board, _short_device(figures.get("device", spec.device)), spec.config.chains,
                     _cells(figures), figures.get("flip_flops", ""),
                     f"{rams.get('used', '?')} / {rams.get('available', '?')}",
                     f"{_number(_seed_one(figures), 2)} MHz "
                     f"({_number(spec.clk_freq / 1e6, 0)} MHz)"])
    return _table(["`--board`", "device", "chains", "logic cells", "flip-flops", "BRAMs",
                   "Fmax (board clock)"], rows)


def _boards_readme_table(bench):
    rows = []
    for name in _boards(bench):
        figures, spec = bench["hardware"][name], BOARDS[name]
        board = f"`{name}`" + (" (default)" if name == DEFAULT_BOARD else "")
        baud = "1 M" if spec.baud == 1_000_000 else f"{spec.baud:,}".replace(",", " ")
        first = [board, spec.description.split(" (")[0], _short_device(spec.device),
                 f"{_number(spec.clk_freq / 1e6, 0)} MHz", baud, spec.config.chains]
        if "error" in figures:
            misfit = _misfit(figures)
            why = (f"does not fit (~{misfit[1]} / {misfit[2]})" if misfit
                   else figures["error"])
            rows.append(first + [why, "", "", ""])
            continue
        cells, rams = figures.get("logic_cells", {}), figures.get("block_rams", {})
        flops = figures.get("flip_flops")
        share = (f" ({100 * flops / cells['available']:.1f} %)"
                 if flops is not None and cells.get("available") else "")
        rows.append(first + [_cells(figures), f"{flops}{share}",
                             f"{rams.get('used', '?')} / {rams.get('available', '?')}",
                             f"{_number(_seed_one(figures), 2)} MHz"])
    return _table(["`--board`", "board", "device", "clock", "baud", "chains", "LCs", "FFs",
                   "BRAMs", "Fmax"], rows)


# The search workload's rows follow the game workload's, their labels marked
# so; the seeded walks' rows, where a bench has both, come last.
SEARCH_LABEL = ", search workload"
WALKS_LABEL = ", search walks"


def _search(bench):
    """``bench.json``'s recorded search workload, or ``{}`` (a bench from before it)."""
    return bench.get("workloads", {}).get("recorded_search", {})


def _walks(bench):
    """The seeded walks beside the recorded search workload, or ``{}``."""
    return bench.get("workloads", {}).get("search_walks", {})


def _distribution_rows(figures_of, suffix=""):
    rows = []
    for key, label in (("plies_scanned", "plies scanned"),
                       ("clocks_per_query", "clocks per query")):
        figures = figures_of.get(key, {})
        rows.append([label + suffix] + [_number(figures.get(name), 2)
                                        for name in ("mean", "median", "p99", "max")])
    return rows


def _search_sentence(search):
    share = search.get("share_below_4_plies")
    done = "; ".join(f"{found.get('position')} to depth {found.get('depth')}"
                     for found in search.get("searches", []))
    return (f"Search workload: the {_number(search.get('queries'))} queries of "
            f"`axon search` ({done}), replayed with "
            f"{search.get('mismatches', '?')} mismatches against the golden model; "
            f"{'?' if share is None else _number(100 * share, 1)} % of its queries "
            f"apply fewer than 4 words." + _ratio_clause(search))


def _ratio_clause(search):
    # The per-query target on this workload too: below the C chain list.
    ratios = search.get("ratio_to_c_chain_list", {})
    parts = [f"the {BARE_CORES[name].split(', ')[1]} core {_number(float(ratios[name]), 2)}"
             for name in BARE_CORES if name in ratios]
    return (f" Its time per query against the C chain list's: {', '.join(parts)}."
            if parts else "")


def _distribution_table(bench):
    rows = _distribution_rows(bench)
    search, walks = _search(bench), _walks(bench)
    if search:
        rows += _distribution_rows(search, SEARCH_LABEL)
    if walks:
        rows += _distribution_rows(walks, WALKS_LABEL)
    table = _table(["", "mean", "median", "p99", "max"], rows)
    simulation = bench.get("simulation", {})
    queries = bench.get("corpus", {}).get("queries")
    sentence = (f"{_number(queries)} queries, {simulation.get('mismatches', '?')} mismatches; "
                f"sustained {bench.get('plies_per_clock', '?')} plies a clock; latency "
                f"`{simulation.get('latency_formula', '?')}`"
                + (" on every query." if simulation.get("formula_holds") else "."))
    overflows = bench.get("overflows")
    if overflows:
        sentence += (f" Overflows: {overflows.get('shipped', '?')} shipped, "
                     f"{overflows.get('pools_by_kind', '?')} with the pools by kind alone, "
                     f"{overflows.get('one_pool_a_side', '?')} with one pool a side.")
    if search:
        sentence += " " + _search_sentence(search)
    if walks:
        sentence += (f" Search walks: {_number(walks.get('queries'))} queries from "
                     f"{_number(walks.get('lines'))} seeded lines, "
                     f"{walks.get('mismatches', '?')} mismatches, "
                     f"{walks.get('oracle_mismatches', '?')} against python-chess's draw.")
    return table + ["", sentence]


def _target_table(bench):
    hardware = bench.get("hardware", {})
    ns = bench.get("ns_per_query", {})
    rows = []
    for name in [name for name in BARE_CORES if name in hardware] + _boards(bench):
        figures = hardware[name]
        label = BARE_CORES.get(name) or f"`{name}` top"
        if "error" in figures:
            misfit = _misfit(figures)
            why = (f"does not fit: {misfit[0]} chains need ~{misfit[1]} of {misfit[2]} "
                   f"logic cells" if misfit else figures["error"])
            rows.append([label, why, "", "", "", "", ""])
            continue
        fmax = figures.get("fmax_mhz", {})
        ratio = ""
        if name in BARE_CORES:
            timing = ns.get(f"fpga:{name}", {})
            speed = f"{_number(timing.get('mean'), 0)} ({_number(timing.get('p99'), 0)})"
            # The core's per-query target: below the C chain list (< 1).
            found = bench.get("ratio_to_c_chain_list", {}).get(name)
            ratio = "" if found is None else _number(float(found), 2)
        else:
            speed = f"(runs at {_number(BOARDS[name].clk_freq / 1e6, 0)} MHz)"
        cells = figures.get("logic_cells", {})
        rows.append([label, " / ".join(_number(fmax.get(key), 2)
                                       for key in ("min", "median", "max")),
                     f"{cells.get('used', '?')}{_lut4s(figures)} ({cells.get('percent', '?')} %)",
                     figures.get("flip_flops", ""),
                     figures.get("block_rams", {}).get("used", ""), speed, ratio])
    return _table(["target", "Fmax min / median / max (MHz)", "logic cells", "FFs", "BRAMs",
                   "ns/query mean (p99) at median Fmax", "ratio to the C chain list"], rows)


def _fmax_span(figures):
    fmax = figures.get("fmax_mhz", {})
    return " / ".join(_number(fmax.get(key), 2) for key in ("min", "median", "max"))


def _upcoming_table(bench):
    """The bare core with and without the upcoming block, on both devices."""
    hardware = bench.get("hardware", {})
    rows = []
    for label, suffix in (("`CORE` (`upcoming=False`, the default)", ""),
                          ("`SHIPPED` (`upcoming=True`)", "-upcoming")):
        hx8k, up5k = (hardware.get(f"core-{device}{suffix}", {}) for device in ("hx8k", "up5k"))
        rows.append([label, _fmax_span(hx8k), _fmax_span(up5k),
                     hx8k.get("logic_cells", {}).get("used", ""), hx8k.get("flip_flops", "")])
    return _table(["bare core", "Fmax HX8K min / median / max (MHz)",
                   "Fmax UP5K min / median / max (MHz)", "logic cells", "FFs"], rows)


def _peer_rows(ns, suffix=""):
    rows = []
    for name, figures in ns.items():
        if name.startswith("fpga:"):
            continue
        ratio = figures.get("ratio_to_fpga", {}).get(f"fpga:{RATIO_TARGET}")
        rows.append([PEER_NAMES.get(name, f"`{name}`") + suffix, _number(figures.get("mean")),
                     _number(figures.get("p99")),
                     "" if ratio is None else f"×{_number(ratio, 2 if ratio < 10 else 0)}"])
    return rows


def _search_core_rows(ns):
    """The bare cores on the search workload, at their median Fmax."""
    return [[label + SEARCH_LABEL, _number(ns[f"fpga:{name}"].get("mean")),
             _number(ns[f"fpga:{name}"].get("p99")), ""]
            for name, label in BARE_CORES.items() if f"fpga:{name}" in ns]


def _peer_table(bench):
    rows = _peer_rows(bench.get("ns_per_query", {}))
    search_ns = _search(bench).get("ns_per_query", {})
    rows += _search_core_rows(search_ns) + _peer_rows(search_ns, SEARCH_LABEL)
    return _table(["implementation", "ns/query mean", "p99",
                   f"ratio to the {BARE_CORES[RATIO_TARGET].split(', ')[1]} core"], rows)


def _search_host_table(bench):
    """What the detector costs a host search: its node rate with each
    repetition test, the link's bytes a node and the rate they allow at
    1 Mbaud, beside the bare cores' time per query at their median Fmax."""
    host = bench.get("search_host", {})
    rows = []
    for name, figures in host.items():
        rows.append([f"`{name}`", figures.get("depth"), _number(figures.get("nodes")),
                     _number(figures.get("nodes_per_second")),
                     _number(figures.get("us_per_node")),
                     _number(figures.get("bytes_per_node"), 2) if "bytes_per_node" in figures
                     else "", _number(figures.get("nodes_per_second_at_1_mbaud"))
                     if "bytes_per_node" in figures else ""])
    ns = _search(bench).get("ns_per_query", {})
    for name, label in BARE_CORES.items():
        if f"fpga:{name}" in ns:
            per_query = ns[f"fpga:{name}"].get("mean")
            rows.append([label + ", a query", "", "", "",
                         _number(None if per_query is None else per_query / 1000, 3), "", ""])
    return _table(["repetition test", "depth", "nodes", "nodes/s", "µs a node",
                   "link bytes a node", "nodes/s the link allows at 1 Mbaud"], rows)


def _median(figures):
    return figures.get("fmax_mhz", {}).get("median")


def _chain_list_and_key_scan_table(bench):
    """Our bare core beside the hash-key peer in gateware: area, block RAM,
    clock, clocks per query on both workloads, and how exact each is."""
    hardware, workloads = bench.get("hardware", {}), bench.get("workloads", {})
    rows = []

    def row(label, hx8k, up5k, game, search, memory, inexact):
        clocks = [figures.get("clocks_per_query", {}) for figures in (game, search)]
        period = _median(hx8k)
        ns = ("" if not period or "mean" not in clocks[1] else
              _number(clocks[1]["mean"] * 1e3 / period, 1))
        rows.append([label, hx8k.get("logic_cells", {}).get("used", ""),
                     hx8k.get("block_rams", {}).get("used", ""), _number(_median(hx8k), 2),
                     _number(_median(up5k), 2),
                     " / ".join(f"{_number(found.get('mean'), 2)} ({found.get('p99', '')})"
                                for found in clocks),
                     ns, memory, " / ".join(_number(count) for count in inexact)])

    game, search = workloads.get("game", {}), workloads.get("recorded_search", {})
    capacity = bench.get("capacity", {})
    overflows = {workload: capacity.get(workload, {}).get("overflows", {})
                 for workload in ("bench_corpus", "crowded")}
    layouts = _search(bench).get("layouts", {})
    bits = bench.get("memory_per_ply_bits", {}).get("axon_word", "")
    if "core-hx8k" in hardware:
        row("chain list (`CORE`: 24 chains by kind, the backstop): overflows",
            hardware["core-hx8k"], hardware.get("core-up5k", {}), game, search, bits,
            [bench.get("overflows", {}).get("shipped"), search.get("overflows"),
             overflows["crowded"].get("shipped")])
    if "core-hx8k-kind" in hardware and "kind" in layouts:
        # The pools answer the game workload in the shipped core's clocks
        # wherever they do not overflow, which on the bench corpus is everywhere.
        row("its pools alone (`backstop=False`): overflows",
            hardware["core-hx8k-kind"], hardware.get("core-up5k-kind", {}),
            game if not overflows["bench_corpus"].get("kind") else {}, layouts["kind"], bits,
            [overflows["bench_corpus"].get("kind"), layouts["kind"].get("overflows"),
             overflows["crowded"].get("kind")])
    for name, peer in bench.get("hardware_peers", {}).items():
        found = peer.get("workloads", {})
        row(f"Zobrist key scan, {peer.get('key_bits')}-bit keys: collisions",
            peer.get("hardware", {}).get(f"{name}-hx8k", {}),
            peer.get("hardware", {}).get(f"{name}-up5k", {}),
            found.get("game", {}), found.get("recorded_search", {}),
            peer.get("memory_per_ply_bits", ""),
            [found.get(workload, {}).get("answers_unlike_golden")
             for workload in ("game", "recorded_search", "crowded")])
    return _table(["detector", "logic cells", "BRAMs", "Fmax HX8K (MHz)", "Fmax UP5K (MHz)",
                   "clocks per query, game / search: mean (p99)",
                   "ns per search query at HX8K median", "bits stored a ply",
                   "answers unlike the exact model, game / search / crowded"], rows)


def _layout_table(bench):
    """The recorded search queries on every layout of the chain list: its
    bare core's size and clock on the HX8K and the UP5K, the clocks a query
    takes, and the time at the median Fmax beside the C chain list."""
    hardware = bench.get("hardware", {})
    layouts = _search(bench).get("layouts", {})
    rows = []
    for name, figures in layouts.items():
        cores = {device: next((target for target in figures.get("bare_cores", [])
                               if target.startswith(f"core-{device}")), None)
                 for device in ("hx8k", "up5k")}
        built = {device: hardware.get(target, {}) for device, target in cores.items()}
        ns = figures.get("ns_per_query", {})
        timed = {device: ns.get(f"fpga:{target}", {}) for device, target in cores.items()}
        clocks = figures.get("clocks_per_query", {})
        rows.append([f"`{layout_name(name)}`" +
                     (f" ({figures['words']})" if figures.get("words") else ""),
                     figures.get("chains", ""), figures.get("overflows", ""),
                     " / ".join(_number(clocks.get(key), 2 if key == "mean" else 1)
                                for key in ("mean", "median", "p99")),
                     built["hx8k"].get("logic_cells", {}).get("used", ""),
                     " / ".join(_number(_median(built[device]), 2) for device in cores),
                     " / ".join(_number(timed[device].get("mean")) for device in cores),
                     " / ".join(_number(timed[device].get("ratio_to_c_chain_list"), 2)
                                for device in cores)])
    return _table(["layout", "chains", "overflows", "clocks mean / median / p99",
                   "logic cells (HX8K)", "Fmax median HX8K / UP5K (MHz)",
                   "ns per query HX8K / UP5K", "ratio to the C chain list HX8K / UP5K"], rows)


# The search layer's bench targets, and how the docs name them.
SEARCH_GATEWARE = {"unit-hx8k": "search unit, HX8K", "unit-up5k": "search unit, UP5K",
                   "unit-lfe5u-85f": "search unit, LFE5U-85F",
                   "perft-hx8k": "perft core, HX8K", "perft-up5k": "perft core, UP5K"}

UNIT_CLOCKS_HEADER = ["search in the unit (depths 1 to D)", "nodes", "clocks", "clocks a node",
                      "waiting for the detector",
                      *(f"nodes/s at median Fmax, {SEARCH_GATEWARE[target].split(', ')[1]}"
                        for target in UNIT_TARGETS),
                      "nodes/s, the model in Python"]
UNIT_AREA_HEADER = ["search gateware", "device", "logic cells", "flip-flops", "BRAMs",
                    "Fmax min / median / max (MHz)"]


def _unit_rate(rate, area, target):
    if target in rate:
        return _number(rate[target])
    return "does not fit" if area.get(target, {}).get("fits") is False else ""


def _unit_row(label, figures, area):
    rate = figures.get("nodes_per_second", {})
    share = figures.get("wait_share")
    return [label, _number(figures.get("nodes")), _number(figures.get("clocks")),
            _number(figures.get("clocks_per_node"), 2),
            "" if share is None else f"{_number(figures.get('wait_clocks'))} "
                                     f"({_number(100 * share, 1)} %)",
            *(_unit_rate(rate, area, target) for target in UNIT_TARGETS),
            _number(figures.get("python", {}).get("nodes_per_second"))]


def _unit_area_row(target, figures):
    label = SEARCH_GATEWARE.get(target, f"`{target}`")
    if "does_not_fit" in figures:
        short = figures["does_not_fit"]
        return [label, "", f"does not fit: {_number(short.get('used'))} / "
                           f"{_number(short.get('available'))} {short.get('cell', '')} "
                           f"({_number(short.get('percent'), 1)} %)", "", "", ""]
    if not figures.get("fits", True) or "error" in figures:
        return [label, "", figures.get("error", "not measured"), "", "", ""]
    rams = figures.get("block_rams") or {}
    return [label, _short_device(figures.get("device") or ""), _cells(figures),
            figures.get("flip_flops", ""),
            f"{rams.get('used', '?')} / {rams.get('available', '?')}", _fmax_span(figures)]


def _unit_sentence(unit):
    array, deep_blue = unit.get("array"), unit.get("deep_blue", {})
    total = unit.get("total", {})
    if array:
        rate = total.get("nodes_per_second", {}).get(ARRAY_TARGET)
        sentence = (f"Units in the LFE5U-85F: {array.get('units')} within "
                    f"{_number(100 * array.get('margin', 0), 0)} % of its "
                    f"{_number(array['logic_cells']['available'])} LUT4s and "
                    f"{_number(array['block_rams']['available'])} BRAMs, computed from one "
                    f"unit's use ({_number(array['logic_cells']['used'])} LUT4s, "
                    f"{_number(array['block_rams']['used'])} BRAMs), not from a build of "
                    f"{array.get('units')} units")
        sentence += ("." if rate is None else
                     f"; at its median Fmax they would search "
                     f"{_number(array.get('units') * rate)} nodes/s together.")
    else:
        sentence = "Units in the LFE5U-85F: not measured (no place and route of the unit)."
    low_high = deep_blue.get("nodes_per_second_per_chip") or []
    if len(low_high) == 2:
        sentence += (f" Deep Blue's chess chip searched {_number(low_high[0])} to "
                     f"{_number(low_high[1])} nodes/s ({deep_blue.get('source', '')}).")
    return sentence


def _search_unit_tables(bench):
    """The search unit's clocks a node and nodes a second, the area of the
    unit and of the perft core, and an array of units in the LFE5U-85F."""
    unit = bench.get("search_unit", {})
    area = unit.get("area", {})
    rows = [_unit_row(f"{found.get('position')}, depth {found.get('depth')}", found, area)
            for found in unit.get("searches", [])]
    if unit.get("searches"):
        rows.append(_unit_row("all of them", unit.get("total", {}), area))
    area_rows = [_unit_area_row(target, area[target]) for target in SEARCH_GATEWARE
                 if target in area]
    return (_table(UNIT_CLOCKS_HEADER, rows) + [""] + _table(UNIT_AREA_HEADER, area_rows)
            + ["", _unit_sentence(unit)])


def readme_tables(bench):
    """The documentation's tables for ``bench`` (a loaded ``bench.json``), as Markdown text."""
    machine = bench.get("machine", {})
    sections = [
        ("README.md and docs/boards.md: the boards", _board_table(bench)),
        ("docs/performance.md: clocks", _distribution_table(bench)),
        ("docs/performance.md: targets", _target_table(bench)),
        ("docs/performance.md: software peers", _peer_table(bench)),
        ("docs/boards.md: supported boards", _boards_readme_table(bench)),
        ("docs/upcoming.md: the upcoming block's cost", _upcoming_table(bench)),
    ]
    if "hardware_peers" in bench:
        sections.append(("README.md, docs/performance.md and docs/capacity.md: the chain "
                         "list and the key scan", _chain_list_and_key_scan_table(bench)))
    if _search(bench).get("layouts"):
        sections.append(("docs/performance.md: the search workload on every layout",
                         _layout_table(bench)))
    if "search_host" in bench:
        sections.append(("docs/search-experiment.md: what the detector costs a search",
                         _search_host_table(bench)))
    if "search_unit" in bench:
        sections.append(("docs/search_unit.md: the search unit in the bench",
                         _search_unit_tables(bench)))
    lines = [f"<!-- axon bench --readme: the run of {machine.get('date', '?')}, "
             f"{bench.get('seconds', '?')} s; Fmax of seed 1 in the board tables -->"]
    for title, table in sections:
        lines += ["", f"<!-- {title} -->", *table]
    return "\n".join(lines) + "\n"
