"""Clocks a query would take under other scan timings, on the search workload.

The scan takes ``floor(P / 2) + 4`` clocks for a query that applies *P*
words of a legal game (the bench checks it on every query). Other timings
are arithmetic on the same *P*, which the golden model gives exactly, so a
design can be weighed before it is built::

    python -m axon.sim.bench.design_space [--games N] [--seed S]

prints, for the bench's search lines and for lines walked from the bundled
PGN games alone, the mean, median and p99 clocks of each timing.
"""

import argparse
import math
import statistics

from ..model.golden import perpetual
from .benchmark import build_corpus
from .search_workload import build_search_lines
from .workload import COUNT_LIMIT


__all__ = ["TIMINGS", "search_plies", "design_space"]


# Clocks for a query that applies `p` words, by scan timing.
TIMINGS = {
    "this scan, floor(P/2) + 4": lambda p: p // 2 + 4,
    "first pair decided as the block RAM returns it (P <= 1 in 2 clocks)":
        lambda p: 2 if p <= 1 else p // 2 + 4,
    "and the second pair (P <= 3 in 3 clocks)":
        lambda p: 2 if p <= 1 else 3 if p <= 3 else p // 2 + 4,
    "and one stage less for every other query":
        lambda p: 2 if p <= 1 else 3 if p <= 3 else p // 2 + 3,
    "bound: two plies a clock, no fixed cost": lambda p: math.ceil(p / 2),
    "bound: four plies a clock, 1 clock fixed": lambda p: math.ceil(p / 4) + 1,
}


def search_plies(lines):
    """Words applied by every query of ``lines`` (golden model, count limit 1)."""
    return [perpetual(line.words, top, root_address=line.root_address,
                      count_limit=COUNT_LIMIT).plies_scanned
            for line in lines for top in line.tops]


def _p99(values):
    ordered = sorted(values)
    return ordered[math.ceil(0.99 * len(ordered)) - 1]


def design_space(plies):
    """``{timing: {"mean", "median", "p99"}}`` of the clocks for ``plies``."""
    table = {}
    for name, clocks in TIMINGS.items():
        values = [clocks(p) for p in plies]
        table[name] = {"mean": round(statistics.fmean(values), 2),
                       "median": statistics.median(values), "p99": _p99(values)}
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m axon.sim.bench.design_space",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="as axon bench (default 300)")
    parser.add_argument("--seed", type=int, default=2024, help="as axon bench (default 2024)")
    options = parser.parse_args(argv)
    for name, games in (("the bench's search lines", build_corpus(options.games, options.seed)),
                        ("lines from the bundled PGN games", build_corpus(0, options.seed))):
        plies = search_plies(build_search_lines(games, options.games, options.seed))
        print(f"{name}: {len(plies)} queries, plies mean {statistics.fmean(plies):.2f}, "
              f"median {statistics.median(plies)}")
        for timing, figures in design_space(plies).items():
            print(f"  {timing}: mean {figures['mean']}, median {figures['median']}, "
                  f"p99 {figures['p99']}")


if __name__ == "__main__":
    main()
