"""``axon search``: the detector inside a search, node by node.

A small alpha-beta engine (:mod:`axon.sim.engine.alphabeta`) searches a
position to a fixed depth by iterative deepening and asks its repetition test
at every node: none, python-chess, or a detector session of any backend (the
golden model, the RTL in Amaranth's simulator or CXXRTL, a board or a
simulated board over the link). ``--compare`` searches without the test and
with it, depth by depth, and prints how much smaller the tree got.
``--engine gateware`` searches as the search unit does
(:mod:`axon.sim.engine.unit`): its model with the golden detector, or on
``--backend pysim`` or ``cxxrtl`` its RTL (:class:`axon.hdl.search.SearchUnit`),
which asks the detector inside it.
"""

import argparse
import json
import sys

import chess

from ...hdl.search.rules import MAX_DEPTH
from ..backends.link import Link, LinkError, LinkTimeout, UnitSession, open_transport
from ..backends.cxxrtl import CxxrtlError
from ..engine.repetition import ChessTest, DetectorTest, NoTest, SearchTooDeep
from ..engine.unit import ENGINES, UNIT_BACKENDS, UnitTest, engine_for
from ..engine.trace import TraceWriter
from ..model.games import GameError, display_name, plural, position_problems
from .args import EXIT_INTERRUPTED, UsageError, add_pruning, check_output_file, config_from, \
    int_at_least, load_input
from .backends import BACKENDS, backend_name


__all__ = ["register", "search_command", "REPETITION_TESTS", "ENGINE_NAMES", "KEPT_OPTIONS", "check_options",
           "detector_session", "search_document", "nodes_per_second", "is_suite", "unit_rtl",
           "unit_test"]

REPETITION_TESTS = ("off", "detector", "python-chess")
ENGINE_NAMES = tuple(ENGINES)

_EPILOG = """\
The position is --fen FEN, or a game's position after --ply N plies
(GAME.pgn --game G --ply N): the game's moves up to it are game history,
where a repetition counts only as a third occurrence (a second one counts
inside the search). Every node but the root asks the repetition test once;
a draw by repetition scores 0.00. Columns: depth; the key move; the
evaluation in pawns for the side to move (#N: mate in N moves); nodes
(positions visited, the root included); terminal (nodes searched no further);
reps (nodes scored a draw by repetition); cutoffs (with --upcoming-cutoff: nodes
whose alpha became the draw value); queries (questions to the test);
seconds. --engine gateware searches as the search unit does: moves in the
gateware move generator's order, depth 0 the evaluation (no quiescence), no
principal variation first, no null move, no upcoming cutoff; --backend
golden (the default) runs its model with the golden detector, --backend
pysim or cxxrtl its RTL (axon.hdl.search.SearchUnit, the shipped detector
inside it), with the unit's clocks in --json. Exit status: 0; 1 when the
detector or the link fails; 2 on bad input; 130 on Ctrl-C, after the depths
finished so far.

SUITE.epd (a test suite: FEN fields with id, bm and am) searches each
position, --jobs N at once, and prints a row per position in the file's
order (id, key move, whether it solves bm/am, nodes, repetitions), then
solved/total, nodes and nodes per second; with --json one object a line.
Ctrl-C prints the positions finished.
"""


def register(commands):
    parser = commands.add_parser(
        "search", help="search a position with the detector as the repetition test",
        description="Search a position by iterative deepening (negamax alpha-beta, "
                    "quiescence on captures and promotions, material and pawn advance) "
                    "and ask the repetition test at every node.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pgn", nargs="?", metavar="GAME.pgn|SUITE.epd",
                        help="a PGN file whose game --game, after --ply plies, is the root; "
                             "or an EPD file (.epd): search each of its positions")
    parser.add_argument("--fen", help="the root position, without game history")
    # Unset (None) is game 1, so that --game with a suite is refused.
    parser.add_argument("--game", type=int_at_least(1), default=None, metavar="G",
                        help="the game, from 1 in file order (default 1)")
    parser.add_argument("--ply", type=int_at_least(0), default=None, metavar="N",
                        help="the game's first N plies are game history (default: all)")
    parser.add_argument("--depth", type=int_at_least(1), default=6, metavar="D",
                        help="search to 1, 2, ... D plies (default 6)")
    parser.add_argument("--engine", choices=ENGINE_NAMES, default="python",
                        help="the search: python, the engine's own (default); gateware, "
                             "the search unit's (the generator's move order, no "
                             "quiescence): its model on --backend golden, its RTL on "
                             "pysim or cxxrtl")
    parser.add_argument("--repetition", choices=REPETITION_TESTS, default="detector",
                        help="the repetition test at every node (default detector)")
    # Unset (None) is golden, so that a --backend the search would not use is refused.
    parser.add_argument("--backend", choices=tuple(BACKENDS), default=None,
                        type=backend_name,
                        help="the detector: golden model, RTL in Amaranth's simulator (pysim; "
                             "sim is another name for it), or RTL compiled with CXXRTL "
                             "(default golden)")
    parser.add_argument("--port", metavar="URL",
                        help="the detector of a board over the link instead: a serial port, "
                             "sim://BOARD or cxxrtl://BOARD")
    parser.add_argument("--jobs", type=int_at_least(1), default=None, metavar="N",
                        help="with SUITE.epd: search N positions at once, each with its own "
                             "detector (N processes, or N detectors of the --port board) "
                             "(default 1)")
    add_pruning(parser)
    parser.add_argument("--compare", action="store_true",
                        help="search without the test and with it, depth by depth, and "
                             "print the shrinkage")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--trace", metavar="FILE",
                        help="write the search's start, then one JSON row per detector query "
                             "with its path (.jsonl, or .jsonl.gz)")
    parser.add_argument("--show", metavar="JSON",
                        help="search nothing: print the table of a kept --json output")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=search_command)


def root_from(options):
    """``(start position, game history, description)`` of the options."""
    if options.fen is not None:
        if options.pgn is not None:
            raise UsageError("give --fen or GAME.pgn, not both")
        try:
            start = chess.Board(options.fen)
        except ValueError as error:
            raise UsageError(f"--fen {options.fen!r}: {error}") from None
        if not start.is_valid():
            raise UsageError(f"--fen {options.fen!r}: not a legal position: "
                             f"{position_problems(start)}")
        return start, [], options.fen
    if options.pgn is None:
        raise UsageError("give the position: --fen FEN, or GAME.pgn --game G --ply N")
    options.keep_going = False
    found = load_input("search", options)
    name = display_name(options.pgn)
    if options.game is None:
        options.game = 1
    game = next((game for game in found.games if game.number == options.game), None)
    if game is None:
        raise GameError(f"{name}: --game {options.game} is out of range: the file has "
                        f"{plural(found.total, 'game')} (1..{found.total})")
    ply = len(game.moves) if options.ply is None else options.ply
    if ply > len(game.moves):
        raise GameError(f"{name}: {game.label}: --ply {ply} is out of range "
                        f"(0..{len(game.moves)})")
    return game.board, game.moves[:ply], f"{name} {game.label} after ply {ply}"


def check_options(options):
    """Refuse an option the search would not use, in one line; then unset
    ``--backend`` is the golden model, for the detector."""
    given = [name for name, value in (("--backend", options.backend), ("--port", options.port),
                                      ("--trace", options.trace)) if value is not None]
    if options.repetition != "detector" and given:
        raise UsageError(f"{given[0]} is for the detector: --repetition "
                         f"{options.repetition} does not use it")
    if options.repetition == "off" and options.upcoming_cutoff:
        raise UsageError("--upcoming-cutoff asks the repetition test: --repetition off has none")
    if options.compare and options.repetition == "off":
        raise UsageError("--compare searches without the test and with it: give "
                         "--repetition detector or python-chess")
    if options.backend is not None and options.port is not None:
        raise UsageError("--backend and --port each name a detector: give one")
    if options.engine == "gateware":
        if unit_rtl(options) and options.depth > MAX_DEPTH:
            raise UsageError(f"--depth {options.depth}: the search unit's RTL searches 1 to "
                             f"{MAX_DEPTH} plies")
        if unit_rtl(options) and options.trace is not None:
            raise UsageError(f"--trace: the search unit's RTL asks its detector itself; "
                             f"{unit_place(options)} has no query to trace")
        for flag, value in (("--upcoming-cutoff", options.upcoming_cutoff),
                            ("--null-move", options.null_move)):
            if value:
                raise UsageError(f"{flag}: the search unit has none; --engine gateware "
                                 f"searches without it")
    if options.backend is None and options.repetition == "detector":
        options.backend = "golden"


def detector_session(options):
    """The detector session ``--backend`` or ``--port`` asks for."""
    if options.port is not None:
        try:
            transport = open_transport(options.port, log=None if options.quiet else _say)
        except (TypeError, ValueError) as error:
            raise UsageError(f"--port {options.port}: {error}") from None
        # The board reports its configuration (IDENTIFY), simulated or real.
        return Link(transport).session(), f"link {options.port}"
    # --depth is the search's here; the detector is the shipped configuration.
    config = config_from(argparse.Namespace(), gateware=options.backend != "golden")
    extra = {"log": _say} if options.backend == "cxxrtl" and not options.quiet else {}
    return BACKENDS[options.backend](config, **extra), options.backend


def unit_clocks_line(run):
    """The search unit's clocks over a run's depths: in all, a node, and
    those it stood waiting for its detector."""
    nodes = sum(row["nodes"] for row in run["depths"])
    clocks = sum(row["clocks"] for row in run["depths"])
    waiting = sum(row["wait_clocks"] for row in run["depths"])
    return (f"{run['label']}: {clocks:,} clocks, {clocks / nodes:.1f} a node; "
            f"{waiting:,} waiting for the detector ({100 * waiting / max(clocks, 1):.1f} %)")


def unit_rtl(options):
    """Whether the search runs in the search unit's RTL: ``--engine
    gateware`` on ``--backend pysim`` or ``cxxrtl``, or on the ``--port``
    board's unit."""
    return options.engine == "gateware" and (options.backend in UNIT_BACKENDS or
                                             options.port is not None)


def unit_place(options):
    """Where the search unit's RTL runs, as the output names it."""
    return f"--port {options.port}" if options.port is not None else \
        f"--backend {options.backend}"


def unit_label(options):
    """The run's label of a search in the unit's RTL."""
    where = f"link {options.port}" if options.port is not None else options.backend
    return f"search unit ({where})"


def unit_link(options):
    """The :class:`Link` of ``--port``, once the board said it has a
    search unit."""
    try:
        transport = open_transport(options.port, log=None if options.quiet else _say)
    except (TypeError, ValueError) as error:
        raise UsageError(f"--port {options.port}: {error}") from None
    link = Link(transport)
    try:
        units = link.units
    except ValueError as error:         # a board of another protocol version
        link.close()
        raise UsageError(f"--port {options.port}: {error}") from None
    except BaseException:
        link.close()
        raise
    if not units:
        link.close()
        raise UsageError(f"--port {options.port}: the board has no search unit; build one "
                         f"with axon build --unit, or simulate one with ?unit=yes")
    return link


def unit_test(options):
    """The search unit's RTL: of ``--backend``, with the shipped detector,
    or the ``--port`` board's."""
    if options.port is not None:
        return UnitTest("link", session=UnitSession(unit_link(options)))
    config = config_from(argparse.Namespace(), gateware=True)
    log = _say if options.backend == "cxxrtl" and not options.quiet else None
    return UnitTest(options.backend, config, log=log)


def _say(line):
    print(f"axon search: {line}", file=sys.stderr, flush=True)


class _Progress:
    def __init__(self, label, enabled):
        self.label = label
        self.enabled = enabled and sys.stderr.isatty()
        self.shown = False

    def __call__(self, depth, nodes, done, moves):
        if self.enabled:
            sys.stderr.write(f"\r{self.label} depth {depth}: {nodes:,} nodes, root move "
                             f"{done + 1}/{moves}   ")
            sys.stderr.flush()
            self.shown = True

    def clear(self):
        if self.shown:
            sys.stderr.write("\r" + " " * 72 + "\r")
            sys.stderr.flush()
            self.shown = False


def _percent(before, after):
    return None if not before else round(100 * (before - after) / before, 1)


def shrinkage(off, on):
    """Per cent fewer nodes and terminal nodes with the test than without."""
    return {"nodes": _percent(off["nodes"], on["nodes"]),
            "terminal": _percent(off["terminal"], on["terminal"])}


def _totals(rows):
    keys = ("nodes", "terminal", "repetitions", "upcoming", "queries", "seconds")
    return {key: sum(row[key] for row in rows) for key in keys}


def format_table(runs, compare, upcoming_cutoff=False):
    """The per-depth table of one run, or of the run without the test beside
    the run with it (``compare``); with ``upcoming_cutoff``, the cutoffs'
    column (the rows' ``upcoming``)."""
    def cells(row, tested):
        found = [row["move"] or "-", row["evaluation"], f"{row['nodes']:,}",
                 f"{row['terminal']:,}"]
        if tested:
            found += [f"{row['repetitions']:,}"] + \
                ([f"{row['upcoming']:,}"] if upcoming_cutoff else []) + [f"{row['queries']:,}"]
        return found + [f"{row['seconds']:.2f}"]

    heads = []
    for run in runs:
        tested = run["repetition"] != "off"
        heads.append(["move", "eval", "nodes", "terminal"] +
                     (["reps"] + (["cutoffs"] if upcoming_cutoff else []) + ["queries"]
                      if tested else []) + ["s"])
    lines = []
    header = ["depth"] + [head for run_heads in heads for head in run_heads]
    if compare:
        header += ["nodes -%", "terminal -%"]
    table = [header]
    depths = min(len(run["depths"]) for run in runs)
    for index in range(depths):
        rows = [run["depths"][index] for run in runs]
        line = [str(rows[0]["depth"])]
        for run, row in zip(runs, rows):
            line += cells(row, run["repetition"] != "off")
        if compare:
            shrunk = shrinkage(rows[0], rows[1])
            line += [f"{shrunk['nodes']:.1f}", f"{shrunk['terminal']:.1f}"]
        table.append(line)
    if depths:
        totals = [_totals(run["depths"][:depths]) for run in runs]
        line = ["all"]
        for run, total in zip(runs, totals):
            tested = run["repetition"] != "off"
            line += ["", "", f"{total['nodes']:,}", f"{total['terminal']:,}"]
            if tested:
                line += [f"{total['repetitions']:,}"] + \
                    ([f"{total['upcoming']:,}"] if upcoming_cutoff else []) + \
                    [f"{total['queries']:,}"]
            line.append(f"{total['seconds']:.2f}")
        if compare:
            shrunk = shrinkage(totals[0], totals[1])
            line += [f"{shrunk['nodes']:.1f}", f"{shrunk['terminal']:.1f}"]
        table.append(line)
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]
    for row in table:
        lines.append("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
    # Each run's label over its first column.
    title, column = "", 1
    for run, run_heads in zip(runs, heads):
        start = sum(width + 2 for width in widths[:column])
        title = title.ljust(start) + run["label"] + ":"
        column += len(run_heads)
    if compare:
        title = title.ljust(sum(width + 2 for width in widths[:column])) + "with the test:"
    return "\n".join([title.rstrip()] + lines) + "\n"


def nodes_per_second(run):
    """A run's nodes per second over its depths (``None`` without time)."""
    total = _totals(run["depths"])
    if not total["seconds"]:
        return None
    rate = total["nodes"] / total["seconds"]
    # A link in simulation searches a few nodes a second: keep a decimal there.
    return round(rate) if rate >= 10 else round(rate, 1)


# The options a --json output keeps, so that its search can be run again.
KEPT_OPTIONS = ("fen", "pgn", "game", "ply", "depth", "engine", "repetition", "backend", "port",
                "upcoming_cutoff", "null_move", "compare")
# The keys of those options in a --json output that are not their names:
# the cutoff's flag is "upcoming" there.
OPTION_KEYS = {"upcoming_cutoff": "upcoming"}


# The keys of a --json output that --show reads.
KEPT_KEYS = ("position", "history_plies", "options", "runs")


def show_command(options, out):
    """``--show``: the table of a kept ``--json`` output."""
    try:
        with open(options.show) as file:
            document = json.load(file)
        if not isinstance(document, dict):
            raise ValueError(f"a JSON {type(document).__name__}, not an object")
        missing = [key for key in KEPT_KEYS if key not in document]
        if missing:
            raise ValueError(f"it has no {', '.join(repr(key) for key in missing)}")
        # A run kept before --engine was the engine's own.
        kept = argparse.Namespace(json=False, **{"engine": "python", **document["options"]})
        for name, key in OPTION_KEYS.items():
            setattr(kept, name, getattr(kept, key, None))
        runs = document["runs"]
        where, history = document["position"], document["history_plies"]
    except (OSError, ValueError, TypeError) as error:
        print(f"axon search: error: --show {options.show}: not a kept axon search --json "
              f"output: {getattr(error, 'strerror', None) or error}", file=sys.stderr)
        return 2
    _write(out, kept, where, history, runs, document.get("interrupted", False))
    return 0


def is_suite(path):
    """Whether the positional file is a test suite (EPD) rather than a game."""
    return path is not None and path.lower().endswith(".epd")


def search_command(options, out=None):
    out = sys.stdout if out is None else out
    if options.show is not None:
        return show_command(options, out)
    if options.jobs not in (None, 1):
        print("axon search: error: --jobs is for a suite: give SUITE.epd", file=sys.stderr)
        return 2
    session = trace = None
    runs, interrupted = [], False
    try:
        check_options(options)
        if options.trace:
            check_output_file("--trace", options.trace)
        start, history, where = root_from(options)
        tests = []
        if options.compare and options.repetition != "off":
            tests.append(("off", NoTest()))
        if options.repetition == "detector" and unit_rtl(options):
            test = session = unit_test(options)
            tests.append((unit_label(options), test))
        elif options.repetition == "detector":
            session, backend = detector_session(options)
            if options.trace:
                trace = TraceWriter(options.trace)
            try:
                test = DetectorTest(session, ask_upcoming=options.upcoming_cutoff,
                                    on_query=trace.record if trace else None)
            except ValueError as error:
                raise UsageError(str(error)) from None
            tests.append((f"detector ({backend})", test))
        elif options.repetition == "python-chess":
            tests.append(("python-chess", ChessTest()))
        else:
            tests.append(("off", NoTest()))
        engines = []
        for label, test in tests:
            try:
                engine = engine_for(options.engine, start, history, test,
                                    upcoming_cutoff=options.upcoming_cutoff,
                                    null_move=options.null_move,
                                    progress=_Progress(label, not options.quiet))
            except ValueError as error:
                raise UsageError(str(error)) from None
            engines.append(engine)
            runs.append({"label": label, "repetition": test.name, "depths": []})
        try:
            for depth in range(1, options.depth + 1):
                for engine, run in zip(engines, runs):
                    result = engine.search(depth)
                    engine.progress.clear()
                    run["depths"].append(result.as_dict())
        except KeyboardInterrupt:
            interrupted = True
            for engine in engines:
                engine.progress.clear()
        finished = min(len(run["depths"]) for run in runs)
        for run in runs:
            del run["depths"][finished:]
            run["nodes_per_second"] = nodes_per_second(run)
        _write(out, options, where, len(history), runs, interrupted)
        if interrupted:
            print(f"axon search: interrupted; {plural(finished, 'depth')} finished",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        return 0
    except (UsageError, GameError) as error:
        print(f"axon search: error: {error}", file=sys.stderr)
        return 2
    except (LinkError, LinkTimeout, CxxrtlError, SearchTooDeep) as error:
        print(f"axon search: error: {error}", file=sys.stderr)
        return 1
    finally:
        if trace is not None:
            trace.close()
        if session is not None and hasattr(session, "close"):
            session.close()


def search_document(options, where, history, runs, interrupted):
    """A search's ``--json`` output, which ``--show`` reads: the position,
    its game history's plies, the options that search it again, the runs
    (each with its per-depth table) and whether it was interrupted."""
    document = {"position": where, "history_plies": history,
                "options": {OPTION_KEYS.get(name, name): getattr(options, name)
                            for name in KEPT_OPTIONS},
                "runs": runs, "interrupted": interrupted}
    if len(runs) == 2:
        document["shrinkage"] = [shrinkage(off, on) for off, on in
                                 zip(runs[0]["depths"], runs[1]["depths"])]
        document["shrinkage_total"] = shrinkage(_totals(runs[0]["depths"]),
                                                _totals(runs[1]["depths"]))
    return document


def _write(out, options, where, history, runs, interrupted):
    compare = len(runs) == 2
    if options.json:
        document = search_document(options, where, history, runs, interrupted)
        out.write(json.dumps(document, indent=1) + "\n")
        return
    out.write(f"axon search: {where}; {plural(history, 'ply', 'plies')} of game history"
              f"{'; the search unit' if options.engine == 'gateware' else ''}"
              f"{'; upcoming cutoff' if options.upcoming_cutoff else ''}"
              f"{'; null move' if options.null_move else ''}\n")
    if runs and runs[0]["depths"]:
        out.write(format_table(runs, compare, options.upcoming_cutoff))
        rates = ", ".join(f"{run['label']} {run['nodes_per_second']:,}"
                          for run in runs if run["nodes_per_second"] is not None)
        out.write(f"nodes per second: {rates}\n")
        for run in runs:
            if "clocks" in run["depths"][0]:
                out.write(unit_clocks_line(run) + "\n")
