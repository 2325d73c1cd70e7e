"""The walked chain list's figures: overflows and clocks per query, beside the link.

The 1K boards build the walked list (:data:`~axon.hdl.params.WALKED`), whose
clocks per query depend on the chains it walks. Its answers are the golden
model's and its clocks :func:`axon.sim.model.walked.walked_clocks` (both
held to the gateware by ``tests/test_rtl.py`` and ``tests/test_cxxrtl.py``),
so the figures come from the model: for the game workload (the bench
corpus, every ply queried) and the search workload (the search lines' queries,
with their roots), the overflowing queries, the clocks per query, and how
long those clocks take on each 1K board next to the time its UART needs for
the query's own bytes (the QUERY request and its answer, framed, 10 bits a
byte).
"""

import statistics

from ...boards.platforms import BOARDS
from ...hdl.board.protocol import QUERY_ANSWER_BYTES, QUERY_REQUEST_BYTES
from ...hdl.params import WALKED
from ..model.golden import perpetual
from ..model.walked import walked_clocks


__all__ = ["FRAME_OVERHEAD_BYTES", "query_link_bytes", "walked_figures"]

# A frame's bytes besides its payload: marker, length, command, CRC.
FRAME_OVERHEAD_BYTES = 4
# A UART byte on the line: start bit, 8 data bits, stop bit.
BITS_A_BYTE = 10


def query_link_bytes():
    """The bytes a query puts on the link: its request and its answer, framed."""
    return QUERY_REQUEST_BYTES + QUERY_ANSWER_BYTES + 2 * FRAME_OVERHEAD_BYTES


def _clocks(queries, config, count_limit):
    """``(clocks, overflows)`` of ``[(words, top, root_address)]`` on ``config``."""
    clocks, overflows = [], 0
    for words, top, root_address in queries:
        result = perpetual(words, top, root_address=root_address, config=config,
                           count_limit=count_limit)
        overflows += result.overflow
        clocks.append(walked_clocks(words, top, result, config))
    return clocks, overflows


def _summary(clocks, overflows):
    ordered = sorted(clocks)
    return {"queries": len(clocks), "overflows": overflows,
            "clocks_mean": round(statistics.fmean(clocks), 2) if clocks else 0.0,
            "clocks_median": statistics.median(clocks) if clocks else 0,
            "clocks_p99": ordered[int(0.99 * (len(ordered) - 1))] if ordered else 0,
            "clocks_max": max(clocks, default=0)}


def walked_figures(corpus, lines, *, count_limit, config=WALKED, log=print):
    """The ``serial`` entry of ``bench.json``: for ``corpus`` (the game
    workload, ``[(board, moves, words)]``) and ``lines`` (the search
    workload's lines), each query's overflow and clocks on ``config``, and
    for each board built with it the query's clocks and its link bytes in
    microseconds."""
    games = [(words, top, -1) for _, _, words in corpus for top in range(len(words))]
    searches = [(line.words, top, line.root_address) for line in lines for top in line.tops]
    workloads = {}
    for name, queries in (("game", games), ("search_walks", searches)):
        workloads[name] = _summary(*_clocks(queries, config, count_limit))
    link_bytes = query_link_bytes()
    boards = {}
    for spec in BOARDS.values():
        if spec.config != config:
            continue
        clock = spec.clk_freq
        boards[spec.name] = {
            "clock_mhz": round(clock / 1e6, 3), "baud": spec.baud,
            "link_us": round(link_bytes * BITS_A_BYTE / spec.baud * 1e6, 1),
            **{f"{name}_max_us": round(figures["clocks_max"] / clock * 1e6, 1)
               for name, figures in workloads.items()},
            **{f"{name}_mean_us": round(figures["clocks_mean"] / clock * 1e6, 2)
               for name, figures in workloads.items()},
        }
    figures = {"chains": config.chains, "pools": config.pools.value,
               "count_limit": count_limit, "link_bytes_a_query": link_bytes,
               "workloads": workloads, "boards": boards}
    for name, summary in workloads.items():
        log(f"walked list, {name} workload: {summary['queries']} queries, "
            f"{summary['overflows']} overflows, clocks mean {summary['clocks_mean']}, "
            f"median {summary['clocks_median']}, max {summary['clocks_max']}")
    return figures
