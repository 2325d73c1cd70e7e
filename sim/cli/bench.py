"""``axon bench``: clocks, Fmax, area and ns per query against software peers."""

import json
import os
import sys

from ..bench.benchmark import hardware_markdown, markdown, run_bench, run_hardware
from ..bench.readme import readme_tables
from .args import UsageError, check_directory


__all__ = ["register"]


def readme_command(path):
    """``axon bench --readme``: print the documentation's tables from ``path`` (a bench.json)."""
    try:
        with open(path) as file:
            bench = json.load(file)
    except (OSError, ValueError) as error:
        print(f"axon bench: error: {path}: cannot read a bench.json: "
              f"{getattr(error, 'strerror', None) or error}", file=sys.stderr)
        return 2
    if not isinstance(bench, dict):
        print(f"axon bench: error: {path}: not a bench.json (no JSON object)", file=sys.stderr)
        return 2
    if bench.get("partial"):
        # Tables of an interrupted run would pass for a whole one's.
        print(f"axon bench: warning: {path}: a partial run (interrupted during "
              f"{bench.get('interrupted_in', '?')}); its tables miss what it did not measure",
              file=sys.stderr)
    print(readme_tables(bench), end="")
    return 0


def bench_command(args):
    if args.readme is not None:
        return readme_command(args.readme or os.path.join(args.out, "bench.json"))
    try:
        check_directory("--out", args.out)
    except UsageError as error:
        print(f"axon bench: error: {error}", file=sys.stderr)
        return 2
    if args.hardware_only:
        if args.no_hardware:
            print("axon bench: error: --hardware-only and --no-hardware exclude each other",
                  file=sys.stderr)
            return 2
        results = run_hardware(args.out, seeds=args.seeds, targets=args.targets,
                               log=lambda line: print(line, file=sys.stderr))
        print("\n".join(hardware_markdown(results)))
        return 1 if any("error" in figures for figures in results.values()) else 0
    bench = run_bench(args.out, seeds=args.seeds, games=args.games,
                      hardware_targets=args.targets,
                      skip_hardware=args.no_hardware, skip_software=args.no_software,
                      log=lambda line: print(line, file=sys.stderr))
    print(markdown(bench))
    workloads = bench["workloads"]
    failed = (bench["simulation"]["mismatches"] or
              any(workload.get("mismatches") or workload.get("oracle_mismatches")
                  for workload in workloads.values()))
    return 1 if failed else 0


def register(subparsers):
    parser = subparsers.add_parser(
        "bench", help="measure clocks, Fmax, area and ns per query against software peers",
        description="What one repetition query costs, in hardware and in software: the "
                    "game and search workloads on the RTL (every answer checked against the "
                    "golden model and python-chess), nextpnr's Fmax and area, and software "
                    "peers on the same queries. Writes OUT/bench.json and OUT/bench.md.")
    parser.add_argument("--out", default="bench", help="output directory (default: bench/)")
    parser.add_argument("--seeds", type=int, default=5, help="nextpnr seeds per target (default 5); "
                        "the search unit on the UP5K, which it does not fit, 1")
    parser.add_argument("--games", type=int, default=300, help="generated games in the corpus (default 300)")
    parser.add_argument("--no-hardware", action="store_true", help="skip the nextpnr runs")
    parser.add_argument("--no-software", action="store_true", help="skip the software peers")
    parser.add_argument("--hardware-only", action="store_true",
                        help="only the nextpnr runs (of --targets): writes OUT/hardware.json, "
                             "not bench.json")
    parser.add_argument("--targets", nargs="+", metavar="TARGET",
                        help="nextpnr targets (default: the bare cores, e.g. core-up5k, core-hx8k, "
                             "core-lfe5u-85f, every iCE40 board, and the search layer: the "
                             "perft core perft-up5k, perft-hx8k and the search unit unit-up5k, "
                             "unit-hx8k, unit-lfe5u-85f)")
    parser.add_argument("--readme", nargs="?", const="", metavar="BENCH_JSON",
                        help="run nothing: print the documentation's figure tables from "
                             "BENCH_JSON (default OUT/bench.json), each headed by the files "
                             "it belongs in (README.md, docs/boards.md, docs/performance.md)")
    parser.set_defaults(func=bench_command)
