"""The ``axon`` command line: scan, verify and explain PGN games.

``build``, ``program`` and ``query`` (the board commands) are registered by
:mod:`axon.sim.cli.board`.

Bad input (a missing or unreadable file, a PGN error, a bad FEN, an option
out of range) ends the command with exit status 2 and one line on stderr
that names the game and ply; never a traceback. With ``--keep-going`` a bad
game is skipped with a warning instead, the rest are answered, and the exit
status is 2 if anything was skipped. Games are numbered from 1 in file order.
"""

import argparse
import errno
import gc
import os
import signal
import sys

from ..model.explain import ORDERS, SIDES
from ..model.games import GameError, bundled_files, display_name, plural
from ...boards.platforms import BOARDS, DEFAULT_BOARD
from .args import (ALL_RULES, COUNT_LIMIT_MAX, EXIT_INTERRUPTED, SIM_RULES, GameStream,
                   UsageError, add_backstop, add_layout, add_list_depth, add_pgn_input, check_output_file,
                   config_from, finish_skipped, load_input, option_names, warn_unpooled)
from . import bench, board, export, perft, prove, search, soak, suite, uci
from .report import EXPLAIN_CHOICES, report_command
from .answers import JSONL_KEYS
from .backends import BACKENDS, backend_name
from .explain import explain as explain_command
from .scan import scan as scan_command
from .verify import verify as verify_command
from ...hdl.params import SHIPPED
from ...hdl.version import VERSION


__all__ = ["main", "build_parser", "add_pgn_input", "load_input"]

_DESCRIPTION = """\
Draw-by-repetition detection with the Axon algorithm (Vučković and Vidanović,
2007) on the games of a PGN file: every ply of every game is one query of the
detector, answered by the golden model or by the gateware in simulation.
"""

_VERIFY_EPILOG = """\
verify is meant for --rules exact, the rules that agree with FIDE position
equality. The paper's rules (no link rule) and the wiki's cpw pseudo-code have
known blind spots, so with them disagreements with the python-chess oracle are
expected; they are still reported and still make the exit status 1.
Exit status: 0 if everything agrees, 1 on any disagreement, 2 on bad input.
"""

_SCAN_EPILOG = """\
Games are numbered from 1 in file order, plies from 1. draw is the draw by
repetition of a search from the root (--root N or a game's [Root "N"] tag):
a third occurrence, or a second one after the root position; without a root
every ply is game history and draw means a third occurrence. threefold and fivefold
come from the detector's count of earlier equal positions (2 and 4 of them):
they need --count-limit 2 and 4 (the default 4 gives both); with a lower
limit, or after an overflow or a window-limited scan, a count that reached
the limit cannot tell and they are null (? in the table).
Exit status: 0, or 2 on bad input or when --keep-going skipped a game.
"""

_EXPLAIN_EPILOG = """\
--order paper (the default) reads oldest-first like Table 2 of the paper;
with --rules paper the knight swap of Figure 5 gives exactly Table 2's rows.
--order scan shows the words newest-first, as the detector applies them.
"""


def _add_common(parser, *, backend=None):
    add_pgn_input(parser)
    if backend is not None:
        # Unset means the command's default, or pysim when --vcd asks for a waveform.
        parser.add_argument("--backend", choices=tuple(BACKENDS), default=None,
                            type=backend_name,
                            help=f"golden model, RTL in Amaranth's simulator (pysim; sim is "
                                 f"another name for it), or RTL compiled with CXXRTL and g++ "
                                 f"(default {backend}; pysim with --vcd)")
        parser.set_defaults(default_backend=backend)
    parser.add_argument("--rules", choices=ALL_RULES, default=SHIPPED.rules.value,
                        help=f"chain rules (default {SHIPPED.rules.value}; cpw is golden-only)")
    parser.add_argument("--chains", type=int, default=SHIPPED.chains, metavar="N",
                        help=f"chain-list slots, half per side (default {SHIPPED.chains})")
    parser.add_argument("--count-limit", type=int, default=4, metavar="K",
                        help=f"stop after K equal positions, 0..{COUNT_LIMIT_MAX} (default 4)")
    add_list_depth(parser, default=SHIPPED.depth,
                   help=f"move-list entries; longer games slide a window "
                        f"(axon.sim.model.history) (default {SHIPPED.depth})")
    parser.add_argument("--root", type=int, default=None, metavar="N",
                        help="a search from every game's ply N: its first N plies are game "
                             "history, where only a third occurrence is a draw; a game's "
                             "[Root \"N\"] tag wins (default: every ply is game history)")


def build_parser():
    parser = argparse.ArgumentParser(prog="axon", description=_DESCRIPTION)
    # Printed by main, not by argparse's version action, which drops a
    # failed write (`axon --version >/dev/full` would say nothing and exit 0).
    parser.add_argument("--version", action="store_true",
                        help="print the interface's version (CHANGELOG.md) and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    scan = commands.add_parser("scan", help="answer a query after every ply",
                               description="Answer a repetition query after every ply.",
                               epilog=_SCAN_EPILOG,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_common(scan, backend="golden")
    add_layout(scan)
    scan.add_argument("--jsonl", action="store_true",
                      help="one JSON object per ply: " + ", ".join(JSONL_KEYS))
    scan.add_argument("--vcd", metavar="FILE",
                      help="pysim backend: write a waveform and a .gtkw beside it")
    scan.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")

    verify = commands.add_parser(
        "verify", help="check golden model, RTL and python-chess oracle against each other",
        description="Compare the golden model with the RTL simulation (every field and "
                    "the clock count) and with the python-chess oracle (repetition, draw, "
                    "distance, count, and the upcoming repetition, its move and draw: exactly "
                    "where the scan reached a barrier or the bottom, else that what it "
                    "reports is true) on every ply.",
        epilog=_VERIFY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_common(verify, backend="pysim")
    add_layout(verify)
    verify.add_argument("--vcd", metavar="FILE",
                        help="pysim backend: write a waveform and a .gtkw beside it")
    verify.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")

    explain = commands.add_parser(
        "explain", help="show one query step by step (the paper's Table 2)",
        description="Show the scan after one ply step by step in the columns of the "
                    "paper's Table 2: move, chain list, unclosed chains, rule applied.",
        epilog=_EXPLAIN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_common(explain)
    add_backstop(explain)
    explain.add_argument("--game", type=int, required=True, metavar="G",
                         help="game number, from 1 in file order, as axon scan prints it")
    explain.add_argument("--ply", type=int, required=True, metavar="N",
                         help="1-based ply: the query after the N-th half-move")
    explain.add_argument("--order", choices=ORDERS, default="paper",
                         help="paper: oldest first, as Table 2 (default); "
                              "scan: newest first, as the hardware")
    explain.add_argument("--side", choices=SIDES, default="both",
                         help="show one side's moves and chains only (each side has its own "
                              "pool); Table 2 shows the knights alone (default both)")
    explain.add_argument("--html", metavar="FILE",
                         help="write the explanation as one self-contained page instead: the "
                              "board, each step's move and chains as arrows, Table 2's rows")

    report = commands.add_parser(
        "report", help="one page for a PGN file: a strip of plies a game, coloured by the answer",
        description="Write one self-contained page for a PGN file: a summary (the counts of "
                    "axon scan), then a strip of plies a game, each coloured by the golden "
                    "model's answer; a ply with a repetition or an upcoming repetition links to "
                    "its explanation, on one page a game written beside the report "
                    "(OUT_files/game-G.html).")
    _add_common(report)
    report.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the page to write")
    report.add_argument("--explain", choices=EXPLAIN_CHOICES, default="repetitions",
                        help="which plies link to their explanation, one page a game "
                             "beside the report: none; repetitions, the plies with a "
                             "repetition (with their steps) or an upcoming one; all, every "
                             "ply with every step (default repetitions)")
    report.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")

    # The main job runs the other commands, so it lives here; the board
    # commands (build, program, query) and the long runs have modules of their own.
    _register_demo(commands)
    for module in (board, bench, soak, prove, export, search, uci, perft):
        module.register(commands)
    # A suite file is searched position by position: the suite's command
    # sits on the single search's.
    commands.choices["search"].set_defaults(func=suite.search_or_suite_command)
    return parser


def _check_options(options):
    vcd = getattr(options, "vcd", None)
    if hasattr(options, "default_backend") and options.backend is None:
        options.backend = "pysim" if vcd else options.default_backend
    backend = getattr(options, "backend", "golden")
    # The one configuration every part of the command answers for.
    options.config = config = config_from(options, gateware=False)
    if getattr(options, "root", None) is not None and options.root < 0:
        raise UsageError(f"--root must be a number of plies, 0 or more, not {options.root}")
    if not 0 <= options.count_limit <= COUNT_LIMIT_MAX:
        raise UsageError(f"--count-limit must be in 0..{COUNT_LIMIT_MAX}, "
                         f"not {options.count_limit}")
    if backend in ("pysim", "cxxrtl") and not config.rules.in_gateware:
        raise UsageError(f"--rules {config.rules.value} is golden-only; the pysim backend "
                         f"supports {' and '.join(SIM_RULES)}")
    if backend in ("pysim", "cxxrtl"):
        # What only the gateware needs (the walked list's own scan).
        try:
            config.check(where="--")
        except (TypeError, ValueError) as error:
            raise UsageError(option_names(str(error))) from None
    if vcd and backend != "pysim":
        raise UsageError(f"--vcd needs the pysim backend, not --backend {backend}")
    if vcd:
        check_output_file("--vcd", vcd)
    if getattr(options, "html", None):
        check_output_file("--html", options.html)
    if options.command != "explain":
        warn_unpooled(options.command, config)


def _pick(found, options):
    name = display_name(options.pgn)
    game = next((game for game in found.games if game.number == options.game), None)
    if game is None:
        if 1 <= options.game <= found.total:
            raise GameError(f"{name}: game {options.game} was skipped")
        raise GameError(f"{name}: --game {options.game} is out of range: the file "
                        f"has {plural(found.total, 'game')} (1..{found.total})")
    if not game.moves:
        raise GameError(f"{name}: {game.label} has no moves to explain")
    if not 1 <= options.ply <= len(game.moves):
        raise GameError(f"{name}: {game.label}: --ply {options.ply} is out of range "
                        f"(1..{len(game.moves)})")
    return game


_DEMO_DESCRIPTION = """\
The project's main job, end to end: every bundled game (sim/data/*.pgn), or
the PGN files given, is run through axon verify (golden model, RTL in
Amaranth's simulator and the python-chess oracle must agree on every field
and on the clock count), then the board's bitstream is built with the YoWASP
tools, as axon build --board BOARD builds it.
"""


def _register_demo(commands):
    parser = commands.add_parser(
        "demo", help="verify every bundled game on the RTL and build the default bitstream",
        description=_DEMO_DESCRIPTION)
    parser.add_argument("pgn", nargs="*", metavar="GAMES.pgn",
                        help="the PGN files to verify (default: every bundled one)")
    parser.add_argument("--board", default=DEFAULT_BOARD, choices=list(BOARDS),
                        help=f"board to build: {', '.join(BOARDS)} (default {DEFAULT_BOARD})")
    parser.add_argument("--no-build", action="store_true", help="only verify the games")
    parser.set_defaults(func=_demo)


def _demo(args):
    # The build's own parser gives every option its default, so the demo
    # builds what `axon build --board BOARD` builds; its folder is checked
    # before the verify's minutes, as the build itself checks it.
    argv = ["build", "--board", args.board]
    build = build_parser().parse_args(argv)
    if not args.no_build:
        try:
            board.check_build_dir(build)
        except UsageError as error:
            print(f"axon demo: error: {error}", file=sys.stderr)
            return 2
    failures = 0
    for path in args.pgn or bundled_files():
        print(f"== axon verify {os.path.relpath(path)}", flush=True)
        status = main(["verify", path, "--backend", "pysim", "--quiet"])
        failures += status != 0
    if args.no_build:
        return 1 if failures else 0
    print(f"== axon {' '.join(argv)}", flush=True)
    status = build.func(build)
    return 1 if failures or status else 0


def _run(options):
    if options.command not in ("scan", "verify", "explain", "report"):
        return options.func(options)
    try:
        _check_options(options)
        if options.command == "explain":
            found = load_input(options.command, options)
            return explain_command(_pick(found, options), options.ply, options)
        # Games are answered as they are read; bad input ends the run where
        # it is found, after the rows of the games before it.
        games = GameStream(options.command, options)
        if options.command == "report":
            return finish_skipped(options.command, report_command(options, games), games)
        run = scan_command if options.command == "scan" else verify_command
        return finish_skipped(options.command, run(games, options), games)
    except (UsageError, GameError) as error:
        print(f"axon {options.command}: error: {error}", file=sys.stderr)
        return 2


# A write that failed for want of room: the disk or the quota is full, or the
# file is too large.
OUTPUT_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _ignore_unraisable(unraisable):
    pass


def _reopen_closed_streams(err_name="axon"):
    """Give a closed standard output or error (``axon scan FILE >&-``) a
    null device to write to, so that a command runs as it would with its
    output thrown away; say so once on standard error, if that is open.

    Python leaves ``sys.stdout`` as ``None`` when file descriptor 1 was
    closed at start; a write to it would end in an ``AttributeError``.
    """
    closed = []
    for name, fd in (("stdout", 1), ("stderr", 2)):
        if getattr(sys, name) is None:
            devnull = os.open(os.devnull, os.O_WRONLY)
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
            setattr(sys, name, open(fd, "w", closefd=False))
            closed.append(name)
    if "stdout" in closed and "stderr" not in closed:
        print(f"{err_name}: warning: standard output is closed; what the command prints "
              f"there is discarded", file=sys.stderr)


def _name(options):
    """``axon COMMAND`` as messages name it, or ``axon`` before a command was read."""
    command = getattr(options, "command", None)
    return f"axon {command}" if command else "axon"


def main(argv=None, *, reopen_closed_streams=True):
    """Run the command line; return the exit status.

    ``reopen_closed_streams=False`` leaves a closed standard output as
    Python found it (``None``), as a check of the null device needs."""
    if reopen_closed_streams:
        _reopen_closed_streams()
    parser = build_parser()
    options = None
    code = None
    quiet_collection = None
    try:
        try:
            options = parser.parse_args(argv)
        except SystemExit as exit:
            # --help, or a usage error argparse has printed.
            return exit.code
        if options.version:
            print(f"axon {VERSION}")
            code = 0
        elif options.command is None:
            parser.print_help(sys.stderr)
            return 2
        else:
            code = _run(options)
        # Flush here, not at exit, so that a reader gone by now is caught below.
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        # Ctrl-C: whatever the command had to show it has shown on its way out
        # (a long command catches the interrupt where it can say what it did).
        # A second Ctrl-C during the interpreter's clean-up must not print a
        # traceback either.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # The interrupt may have struck inside a constructor: the half-made
        # object then fails in its destructor as it is collected (Amaranth's
        # unused-elaboratable check reads an attribute never set), which
        # Python reports with a traceback. Nothing it could say matters now:
        # such reports are dropped until the interrupted work is collected,
        # below, as this handler lets go of the interrupt's traceback.
        quiet_collection = sys.unraisablehook
        sys.unraisablehook = _ignore_unraisable
        print(f"{_name(options)}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `axon scan ... | head`: the reader has gone, nothing left to say.
        # Point stdout at /dev/null so that the interpreter's final flush
        # does not fail again. The status stays what the command made of
        # its work so far: a failed build or a skipped game is not hidden.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return code if code is not None else getattr(options, "status", 0)
    except OSError as error:
        # `axon scan ... >/dev/full`: the output cannot be written. Say so in
        # one line, and point stdout at /dev/null so that the interpreter's
        # final flush of what is left does not fail again.
        if error.errno not in OUTPUT_FULL:
            raise
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        print(f"{_name(options)}: error: cannot write the output: "
              f"{os.strerror(error.errno)}", file=sys.stderr)
        return 1
    finally:
        if quiet_collection is not None:
            gc.collect()
            sys.unraisablehook = quiet_collection

if __name__ == "__main__":
    sys.exit(main())
