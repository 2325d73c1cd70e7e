"""What the bench's workloads share: the detector they run on, how an RTL
query is put, the figures each workload reports and ``bench.md``'s lines on
them."""

import math
import statistics

from ...hdl.params import SHIPPED
from ..backends.pysim import expected_cycles
from ..backends.session import Query


__all__ = ["CONFIG", "COUNT_LIMIT", "rtl_query", "rtl_clocks",
           "distribution", "ns_per_query", "workload_figures", "workload_markdown"]

# The detector every workload runs on: the shipped one.
CONFIG = SHIPPED
COUNT_LIMIT = 1

def rtl_query(top, count_limit, occupancy, root_address=-1):
    """The :class:`~axon.sim.backends.session.Query` of
    ``CxxrtlSession.run_batch`` / ``PysimSession.run_batch``: the one place
    where the bench puts a query to the RTL. ``root_address`` -1 is a search from the
    start of the move list: every query of the game workload."""
    return Query(top=top, count_limit=count_limit, occupancy=occupancy, root_address=root_address)


def rtl_clocks(words, top, result, written):
    """The clocks the RTL must take for a workload's query at ``top`` of
    ``words``, whose golden answer is ``result``, after the host ``written``
    since the last query (:class:`~axon.sim.backends.session.HostWrites`):
    :func:`~axon.sim.backends.pysim.expected_cycles`, which for a legal game
    the pools answer is the latency formula."""
    return expected_cycles(words, top, result, CONFIG, written)


def distribution(values):
    """``{"mean", "median", "p99", "max"}`` of a list of numbers."""
    ordered = sorted(values)
    return {
        "mean": round(statistics.fmean(ordered), 3),
        "median": statistics.median(ordered),
        "p99": ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)],
        "max": ordered[-1],
    }


def ns_per_query(clocks, fmax_mhz, peers):
    """ns per query of each device (``"fpga:TARGET"``, from the clocks'
    distribution at the target's median Fmax) and of each software peer
    (``run_peers`` figures, or ``None`` when they were not run), with the
    ratios between them; and the FPGA's ratio to the C chain list per
    target (``{}`` without that peer)."""
    ns = {}
    for target, fmax in fmax_mhz.items():
        period = 1e3 / fmax["median"]
        ns[f"fpga:{target}"] = {"mean": round(clocks["mean"] * period, 1),
                                "median": round(clocks["median"] * period, 1),
                                "p99": round(clocks["p99"] * period, 1),
                                "queries_per_second": round(1e9 / (clocks["mean"] * period))}
    for name in ("cpw_c", "zobrist_c", "golden_python"):
        if peers and name in peers:
            figures = peers[name]
            ns[name] = {"mean": round(figures["mean"], 1), "median": round(figures["median"], 1),
                        "p99": round(figures["p99"], 1),
                        "queries_per_second": round(1e9 / figures["mean"])}
    fpga = {name: figures for name, figures in ns.items() if name.startswith("fpga:")}
    for name, figures in ns.items():
        if not name.startswith("fpga:"):
            figures["ratio_to_fpga"] = {device: round(figures["mean"] / fpga_figures["mean"], 2)
                                        for device, fpga_figures in fpga.items()}
            figures["ratio_note"] = ", ".join(f"{device[5:]} ×{ratio}" for device, ratio
                                              in figures["ratio_to_fpga"].items())
    # The per-query target: below the wiki's chain list in C, per device.
    ratio = {}
    if "cpw_c" in ns:
        ratio = {name[5:]: round(figures["mean"] / ns["cpw_c"]["mean"], 3)
                 for name, figures in fpga.items()}
        for name, figures in fpga.items():
            figures["ratio_to_c_chain_list"] = ratio[name[5:]]
    return ns, ratio


def workload_figures(plies, cycles, fmax_mhz, peers):
    """One entry of ``bench.json``'s ``workloads``."""
    clocks = distribution(cycles)
    ns, ratio = ns_per_query(clocks, fmax_mhz, peers)
    figures = {"queries": len(plies), "plies_scanned": distribution(plies),
               "clocks_per_query": clocks,
               # Queries that end before the scan applies 4 words: what a
               # barrier a few plies back costs.
               "share_below_4_plies": round(sum(p < 4 for p in plies) / len(plies), 4),
               "ns_per_query": ns, "ratio_to_c_chain_list": ratio}
    return figures


def workload_markdown(bench):
    """``bench.md``'s lines on the two workloads side by side, then the search
workload's ns per query."""
    workloads = bench.get("workloads")
    if not workloads:
        return []
    lines = ["", "| workload | queries | plies mean / median / p99 | clocks mean / median / p99 "
             "| below 4 plies | mismatches |", "|---|---|---|---|---|---|"]
    for name, figures in workloads.items():
        plies, clocks = figures["plies_scanned"], figures["clocks_per_query"]
        checks = f"{figures['mismatches']} RTL"
        if "oracle_mismatches" in figures:
            checks += f", {figures['oracle_mismatches']} python-chess"
        lines.append(f"| {name} | {figures['queries']} | {plies['mean']} / {plies['median']} / "
                     f"{plies['p99']} | {clocks['mean']} / {clocks['median']} / {clocks['p99']} "
                     f"| {100 * figures['share_below_4_plies']:.1f} % | {checks} |")
    search = workloads["recorded_search"]
    if "searches" in search:
        done = "; ".join(f"{found['position']} to depth {found['depth']} ({found['queries']} "
                         f"queries, {found['repetitions']} repetitions)"
                         for found in search["searches"])
        lines += ["", f"Search workload: the queries of axon search, recorded: {done}; "
                  f"each replayed as the search asked it, right after the host wrote the "
                  f"word at its top."]
    walks = workloads.get("search_walks")
    if walks:
        lines += ["", f"Search walks: {walks['lines']} lines of {walks['walk_plies']['min']} "
                  f"to {walks['walk_plies']['max']} plies from the corpus's positions (seed "
                  f"{walks['seed']}), {walks['null_moves']} null moves; {walks['draws']} "
                  f"draws at the root. The RTL takes each line's root."]
    lines += ["", "| implementation | search ns/query mean | median | p99 | "
              "ratio to the C chain list |", "|---|---|---|---|---|"]
    for name, figures in search["ns_per_query"].items():
        lines.append(f"| {name} | {figures['mean']} | {figures['median']} | {figures['p99']} | "
                     f"{figures.get('ratio_to_c_chain_list', '')} |")
    host = bench.get("search_host")
    if host:
        lines += ["", "| repetition test | depth | nodes | nodes/s | µs/node | bytes/node | "
                  "nodes/s at 1 Mbaud |", "|---|---|---|---|---|---|---|"]
        for name, figures in host.items():
            lines.append(f"| {name} | {figures['depth']} | {figures['nodes']} | "
                         f"{figures['nodes_per_second']} | {figures['us_per_node']} | "
                         f"{figures.get('bytes_per_node', '')} | "
                         f"{figures.get('nodes_per_second_at_1_mbaud', '')} |")
    return lines
