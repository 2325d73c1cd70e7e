"""The board subcommands of ``axon``: ``build``, ``program`` and ``query``.

``axon.sim.cli.main`` calls :func:`register` with its subparsers object. Each
handler takes the parsed arguments and returns an exit code: 0 for success,
1 when a tool or the board failed, 2 for bad input. Every failure is one line
on stderr, never a traceback.
"""

import os
import shlex
import subprocess
import sys

from ...boards.build import BuildError, build
from ...boards.platforms import BOARDS, DEFAULT_BOARD, get_board
from ...boards.program import (BitstreamError, ProgrammerError, check_bitstream, failure_reason,
                               programmer_command)
from ...hdl.params import SHIPPED
from .args import (SIM_RULES, UsageError, add_layout, add_list_depth, add_pgn_input,
                   check_directory, config_from, int_at_least)
from .board_query import QueryError, run_query


__all__ = ["register", "build_command", "program_command", "query_command"]


def _error(command, message, code):
    print(f"axon {command}: error: {message}", file=sys.stderr)
    return code


def register(subparsers):
    """Add ``build``, ``program`` and ``query`` to an argparse subparsers object."""
    boards = ", ".join(f"{name}" for name in BOARDS)

    build = subparsers.add_parser(
        "build", help="build a bitstream for an iCE40 or ECP5 board (YoWASP toolchain)",
        description=f"Build the detector with its UART link for a board ({boards}).")
    build.add_argument("--board", default=DEFAULT_BOARD, choices=list(BOARDS),
                       help=f"target board (default {DEFAULT_BOARD})")
    build.add_argument("--chains", type=int_at_least(0), default=None,
                       help="chain-list slots, even (default: the board's, see docs/boards.md)")
    add_list_depth(build, default=None, minimum=0,
                   help=f"move-list entries (default {SHIPPED.depth})")
    build.add_argument("--rules", default=None, choices=SIM_RULES,
                       help=f"chain-list rules (default {SHIPPED.rules.value})")
    add_layout(build, base=None)
    build.add_argument("--detectors", type=int_at_least(1), default=None, metavar="N",
                       help="detectors behind the link (default: the most that fit the "
                            "board with a margin, see docs/protocol.md)")
    build.add_argument("--unit", action="store_true",
                       help="a search unit beside the detectors, for axon search --engine "
                            "gateware --port (it fits the ECP5 boards)")
    build.add_argument("--perft", action="store_true",
                       help="a perft core beside the detectors, for axon perft --port")
    build.add_argument("--seed", type=int_at_least(0), default=1,
                       help="nextpnr placement seed (default 1)")
    build.add_argument("--build-dir", default=None,
                       help="build directory (default build/BOARD, relative to here)")
    build.set_defaults(func=build_command)

    program = subparsers.add_parser(
        "program", help="flash a bitstream with iceprog or openFPGALoader",
        description="Program a board with whichever of iceprog and openFPGALoader is on PATH.")
    program.add_argument("--board", default=DEFAULT_BOARD, choices=list(BOARDS),
                         help=f"target board (default {DEFAULT_BOARD})")
    program.add_argument("bitstream", nargs="?", default=None,
                         help="bitstream file (default build/BOARD/axon.bin, or axon.bit "
                              "for an ECP5 board)")
    program.set_defaults(func=program_command)

    query = subparsers.add_parser(
        "query", help="scan games on a board (or sim://) like axon scan",
        description="Load each game into a detector board and query it after every ply; "
                    "prints the same JSONL as `axon scan --backend pysim`, each row as soon as "
                    "it is answered. The configuration options are what the board must "
                    "have (the board says what it has), or for sim:// what to simulate "
                    "where the URL does not say. The board has no --backend or --vcd: for "
                    "a waveform, run axon scan --backend pysim --vcd.")
    query.add_argument("--port", required=True,
                       help="serial port (/dev/ttyUSB1, COM3[?baud=N]), or the board "
                            "simulated at its UART pins: sim://[BOARD][?OPTION=VALUE&...], "
                            "options depth, chains, rules, pools, scan, upcoming (yes/no) and "
                            "divisor (Amaranth's simulator) or cxxrtl://[BOARD][?...] "
                            "(compiled with CXXRTL and g++)")
    add_pgn_input(query)
    query.add_argument("--jsonl", action="store_true", help="one JSON object per ply")
    query.add_argument("--rules", choices=SIM_RULES, default=None,
                       help="rules the board must have (sim://: the rules to simulate)")
    query.add_argument("--chains", type=int_at_least(0), default=None, metavar="N",
                       help="chains the board must have (sim://: the chains to simulate)")
    add_list_depth(query, default=None, minimum=0,
                   help="move-list entries the board must have (sim://: the entries to "
                        "simulate)")
    add_layout(query, base=None)
    query.add_argument("--count-limit", type=int_at_least(0), default=4, metavar="K",
                       help="stop a scan after this many equal positions (default 4, max 15)")
    query.add_argument("--root", type=int_at_least(0), default=None, metavar="N",
                       help="a search from every game's ply N (a game's [Root \"N\"] tag "
                            "wins; default: every ply is game history)")
    query.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    query.set_defaults(func=query_command)


def check_build_dir(args):
    """Check that the build's folder can be written, before any long work
    (a build's, or the demo's verify before its build); raise
    :class:`UsageError` naming it. A folder that was not there is left for
    the build to create, so that a failed first build still removes it."""
    build_dir = args.build_dir or os.path.join("build", args.board)
    existed = os.path.isdir(build_dir)
    check_directory("--build-dir", build_dir)
    if not existed:
        os.rmdir(build_dir)


def build_command(args):
    try:
        check_build_dir(args)
    except UsageError as error:
        return _error("build", str(error), 2)
    try:
        config = config_from(args, base=get_board(args.board).config)
    except UsageError as error:
        return _error("build", str(error), 2)
    try:
        report = build(args.board, config=config, detectors=args.detectors, unit=args.unit,
                       perft=args.perft, seed=args.seed, build_dir=args.build_dir,
                       log=lambda line: print(line, file=sys.stderr))
    except BuildError as error:
        # Set before printing, so that a reader gone early (| head) does not
        # turn the failure into exit 0.
        args.status = error.exit_code
        _error("build", str(error), error.exit_code)
        for line in (error.report.lines() if error.report else ()):
            print(line)
        return error.exit_code
    for line in report.lines():
        print(line)
    print(f"report: {os.path.join(os.path.dirname(report.bitstream), 'axon.report.json')}")
    return 0


def program_command(args):
    spec = get_board(args.board)
    bitstream = args.bitstream or os.path.join("build", spec.name,
                                               f"axon.{spec.family.bitstream}")
    if not os.path.isfile(bitstream):
        hint = "" if args.bitstream else f"; run axon build --board {spec.name} first"
        return _error("program", f"bitstream {bitstream} not found{hint}", 2)
    try:
        check_bitstream(spec, bitstream)
    except (BitstreamError, OSError) as error:
        return _error("program", str(error), 2)
    try:
        command = programmer_command(spec, bitstream)
    except ProgrammerError as error:
        return _error("program", str(error), 1)
    tool = os.path.basename(command[0])
    print(f"programming {spec.name}: {shlex.join(command)}", flush=True)
    try:
        process = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        return _error("program", f"{tool} could not run: {error}", 1)
    if process.returncode != 0:
        reason = failure_reason(process.stderr + "\n" + process.stdout)
        return _error("program", f"{tool} failed (exit {process.returncode}): {reason}", 1)
    print(f"programmed {spec.name} with {tool}: {bitstream}")
    return 0


def query_command(args):
    try:
        return run_query(args)
    except QueryError as error:
        return _error("query", str(error), error.exit_code)
