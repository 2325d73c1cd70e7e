"""``axon soak``: random queries on the compiled gateware against the golden model."""

import sys
import time

from ..backends.cxxrtl import CxxrtlError
from ..verify.linksoak import run_link_soak
from ..verify.soak import BATCH_QUERIES, IMAGE_QUERIES_MAX, soak
from ...hdl.params import SHIPPED
from .args import (EXIT_INTERRUPTED, SIM_RULES, UsageError, add_layout, add_list_depth,
                   config_from, int_at_least, warn_unpooled)


__all__ = ["register"]


def register(subparsers):
    """Add ``soak`` to an argparse subparsers object."""
    parser = subparsers.add_parser(
        "soak", help="random queries on the CXXRTL gateware against the golden model",
        description="Run random queries (legal games and random memory images) on the "
                    "gateware compiled with CXXRTL and compare every field and the clock "
                    "count with the golden model. With --link, soak the whole board design "
                    "instead, through its UART pins, with line noise between requests. "
                    "With --netlist, soak the netlist that synth_ice40 makes of the "
                    "detector for the board, simulated with the iCE40 cell models. "
                    "Needs g++. Exit status: 0 if every answer agrees, 1 on any mismatch "
                    "(or, with --link, any lost answer), 2 on bad options or a build error.")
    parser.add_argument("--queries", type=int_at_least(1), default=None, metavar="N",
                        help=f"queries to run, in whole batches: a batch asks "
                             f"{BATCH_QUERIES:,} queries and ends on a whole memory image, "
                             f"up to {IMAGE_QUERIES_MAX - 1} more, so that --queries 2000 "
                             f"runs one batch, {BATCH_QUERIES:,} to "
                             f"{BATCH_QUERIES + IMAGE_QUERIES_MAX - 1:,} queries (default "
                             f"100000; with --link, N exactly, default 10000)")
    parser.add_argument("--link", action="store_true",
                        help="drive the board top (UART, framed link, detector) at its "
                             "pins, with noise frames, writes and reads in between")
    parser.add_argument("--netlist", action="store_true",
                        help="soak the detector as synthesised for the board (synth_ice40 "
                             "with the board build's options, iCE40 cell models) instead "
                             "of the RTL")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="random seed; a batch is fixed by seed and index (default 0)")
    parser.add_argument("--rules", choices=SIM_RULES, default=SHIPPED.rules.value,
                        help=f"chain rules (default {SHIPPED.rules.value})")
    parser.add_argument("--chains", type=int_at_least(1), default=SHIPPED.chains, metavar="N",
                        help=f"chain-list slots, even, half per side (default {SHIPPED.chains})")
    add_list_depth(parser, default=SHIPPED.depth, minimum=1,
                   help=f"move-list entries, even (default {SHIPPED.depth})")
    add_layout(parser)
    parser.add_argument("--workers", type=int_at_least(1), default=None, metavar="W",
                        help="worker processes (default: one per core)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=main_soak)


class SoakProgress:
    """The soak's progress on stderr: on a terminal one line rewritten in
    place; anywhere else (a log file, CI) a plain line at most once every
    ``interval`` seconds, so that a log reads line by line."""

    def __init__(self, stream=None, interval=30.0, clock=time.monotonic):
        self.stream = sys.stderr if stream is None else stream
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval, self.clock = interval, clock
        self.last = clock()
        self.shown = False

    def __call__(self, done, total, mismatches):
        text = f"soak: {done}/{total} queries, {mismatches} mismatches"
        if self.tty:
            self.stream.write("\r" + text)
            self.shown = True
        elif self.clock() - self.last >= self.interval:
            self.last = self.clock()
            self.stream.write(text + "\n")
        self.stream.flush()

    def end(self):
        """End the terminal's line, if one was shown."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False


def main_soak(args):
    """Run ``axon soak`` with parsed ``args``; print the report; return the exit status."""
    progress = SoakProgress()

    def log(line):
        print(f"soak: {line}", file=sys.stderr, flush=True)

    if args.link and args.netlist:
        print("axon soak: error: --link and --netlist are two different soaks; choose one",
              file=sys.stderr)
        return 2
    try:
        config = config_from(args)
    except UsageError as error:
        print(f"axon soak: error: {error}", file=sys.stderr)
        return 2
    warn_unpooled("soak", config)
    if args.link:
        return _main_link_soak(args, config)
    try:
        report = soak(args.queries or 100_000, args.seed, config, workers=args.workers,
                      progress=None if args.quiet else progress, netlist=args.netlist,
                      log=None if args.quiet else log)
    except (CxxrtlError, ValueError, TypeError) as error:
        progress.end()
        print(f"axon soak: error: {error}", file=sys.stderr)
        return 2
    progress.end()
    print(report.summary())
    if report.build_info is not None:
        info = report.build_info
        how = ("cached" if info["cached"] else
               f"{'synthesised and ' if args.netlist else ''}converted in "
               f"{info['convert_seconds']:.1f} s, compiled in {info['compile_seconds']:.1f} s")
        print(f"  model: {info['binary']} ({how})")
    if report.interrupted:
        print("axon soak: interrupted", file=sys.stderr)
        return 1 if report.mismatches else EXIT_INTERRUPTED
    return 0 if report.mismatches == 0 else 1


def _main_link_soak(args, config):
    """``axon soak --link``: the board top at its UART pins."""

    try:
        report = run_link_soak(args.queries or 10_000, seed=args.seed, config=config)
    except (CxxrtlError, ValueError, TypeError) as error:
        print(f"axon soak: error: {error}", file=sys.stderr)
        return 2
    print(report.summary())
    for failure in report.failures:
        print(f"  {failure}")
    return 0 if report.mismatches == 0 else 1
