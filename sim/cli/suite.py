"""``axon search SUITE.epd``: every position of a test suite, N at a time.

The positions of an EPD file (:mod:`axon.sim.engine.suite`) are searched as
``axon search --fen`` searches one, with the same options. ``--jobs N``
searches N at once, each with its own detector: N worker processes for the
golden model, the RTL in simulation or python-chess's test
(:func:`~axon.sim.engine.jobs.search_in_processes`), or over ``--port`` the
detector sessions of one board's link, one thread each
(:func:`~axon.sim.engine.jobs.search_in_threads`, sessions from
:func:`link_sessions`). Each search has its own detector and its own
position, so a position's tree does not depend on ``--jobs``.

The results are printed in the file's order as soon as each one and all
before it are done: a row per position (its id, the key move, what the line
asks for and whether the move solves it, nodes, repetitions), then an end
line with solved/total, nodes and nodes per second; with ``--json`` one
object per line and position, the single search's ``--json`` output with the
position's ``id``, ``line``, ``bm``, ``am``, ``move`` and ``solved``.
"""

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional
from urllib.parse import parse_qsl, urlencode, urlsplit

from ...hdl.params import DetectorConfig
from ..backends.cxxrtl import CxxrtlError
from ..backends.link import (SIMULATED_SCHEMES, Link, LinkError, LinkTimeout, UnitSession,
                             open_transport)
from ..engine.jobs import JobFailed, SearchJob, search_in_processes, search_in_threads
from ..engine.repetition import ChessTest, DetectorTest, NoTest, SearchTooDeep
from ..engine.suite import SuiteError, read_suite
from ..engine.unit import UNIT_BACKENDS, UnitTest
from ..model.games import plural
from .args import EXIT_INTERRUPTED, UsageError, config_from
from .backends import BACKENDS
from .progress import Progress
from . import search
from .search import (KEPT_OPTIONS, check_options, is_suite, nodes_per_second, search_command,
                     search_document)


__all__ = ["register", "suite_command", "link_sessions", "TestMaker", "SUITE_KEYS"]

# What a --json object has beyond the single search's output.
SUITE_KEYS = ("id", "line", "bm", "am", "move", "solved")


def link_sessions(link: Link) -> List[Any]:
    """The detector sessions of the board on the link opened on ``--port``,
    one per detector: ``--jobs N`` over a link searches with the first N of
    them, each from its own thread."""
    return link.sessions()


@dataclass(frozen=True)
class TestMaker:
    """A repetition test of its own for each worker process (picklable):
    python-chess's, none, a detector of ``backend`` in ``config``, or with
    ``--engine gateware`` on pysim or cxxrtl the search unit's RTL."""
    repetition: str
    backend:    Optional[str] = None
    config:     Optional[DetectorConfig] = None
    upcoming_cutoff: bool = False
    engine:     str = "python"

    def __call__(self):
        if self.engine == "gateware" and self.backend in UNIT_BACKENDS and \
                self.repetition == "detector":
            return UnitTest(self.backend, self.config)
        if self.repetition == "python-chess":
            return ChessTest()
        if self.repetition == "off":
            return NoTest()
        return DetectorTest(BACKENDS[self.backend](self.config),
                            ask_upcoming=self.upcoming_cutoff)


def _refuse_single_options(options):
    """The options of one position's search that a suite would not use."""
    for option, given in (("--fen", options.fen is not None),
                          ("--game", options.game is not None),
                          ("--ply", options.ply is not None),
                          ("--compare", options.compare),
                          ("--trace", options.trace is not None)):
        if given:
            raise UsageError(f"{option} is for one position: SUITE.epd searches each of its "
                             f"positions")


class SuiteProgress(Progress):
    """``axon search: 3/9 positions, 12,345 nodes, 2,310 nodes/s``: the
    positions finished, and their nodes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.nodes = 0

    def text(self, position):
        """The progress line once ``position + 1`` positions are finished."""
        elapsed = self.clock() - self.started
        rate = f", {self.nodes / elapsed:,.0f} nodes/s" if elapsed > 0 else ""
        return f"{self.command}: {position + 1}/{self.total} positions, {self.nodes:,} nodes" \
               f"{rate}"

    def update(self, position, nodes):
        """The search of one more position finished (``position``: the
        0-based count of those finished before it), in ``nodes`` nodes."""
        if not (self.tty or self.plain):
            return
        self.nodes += nodes
        self._show(position)


def _label(options):
    if options.repetition != "detector":
        return options.repetition
    if search.unit_rtl(options):
        return search.unit_label(options)
    return f"detector ({'link ' + options.port if options.port else options.backend})"


class _Rows:
    """The positions' results, written in the file's order as they complete."""

    def __init__(self, out, options, positions, label):
        self.out = out
        self.options = options
        self.positions = positions
        self.label = label
        self.found: Dict[int, Dict[str, Any]] = {}
        self.written = 0
        self.id_width = max(len("id"), *(len(position.id) for position in positions))
        self.expected_width = max(len("expected"),
                                  *(len(position.expected) for position in positions))

    def header(self, jobs):
        if self.options.json:
            return
        self.out.write(f"axon search: {self.options.pgn}: "
                       f"{plural(len(self.positions), 'position')} to depth "
                       f"{self.options.depth}; {self.label}; "
                       f"{plural(jobs, 'search', 'searches')} at once"
                       f"{'; the search unit' if self.options.engine == 'gateware' else ''}"
                       f"{'; upcoming cutoff' if self.options.upcoming_cutoff else ''}"
                       f"{'; null move' if self.options.null_move else ''}\n")
        self.out.write(self._cells("id", "move", "eval", "expected", "solved", "nodes", "reps",
                                   "s"))
        self.out.flush()

    def _cells(self, *cells):
        name, move, evaluation, expected, solved, nodes, reps, seconds = cells
        return f"{name:<{self.id_width}}  {move:<7}  {evaluation:>6}  " \
               f"{expected:<{self.expected_width}}  {solved:<6}  {nodes:>9}  {reps:>5}  " \
               f"{seconds:>7}".rstrip() + "\n"

    def add(self, index, depths):
        position = self.positions[index]
        last = depths[-1]
        self.found[index] = {
            "position": position, "depths": depths, "move": last["move"],
            "solved": position.solved(last["move"]),
            "nodes": sum(row["nodes"] for row in depths),
            "repetitions": sum(row["repetitions"] for row in depths),
            "seconds": sum(row["seconds"] for row in depths)}

    def ready(self):
        """Whether the next result to write has been found."""
        return self.written in self.found

    def flush(self, *, all_finished=False):
        """Write the results whose predecessors are all written; with
        ``all_finished``, every result found (the rest were not finished)."""
        while self.written < len(self.positions):
            if self.written in self.found:
                self._write(self.found[self.written])
            elif not all_finished:
                break
            self.written += 1
        self.out.flush()

    def _write(self, found):
        position = found["position"]
        if self.options.json:
            run = {"label": self.label, "repetition": self.options.repetition,
                   "depths": found["depths"]}
            run["nodes_per_second"] = nodes_per_second(run)
            kept = argparse.Namespace(**{name: getattr(self.options, name)
                                         for name in KEPT_OPTIONS})
            kept.fen, kept.pgn, kept.game, kept.ply, kept.compare = \
                position.fen, None, None, None, False
            document = {"id": position.id, "line": position.line, "bm": list(position.bm),
                        "am": list(position.am), "move": found["move"],
                        "solved": found["solved"],
                        **search_document(kept, position.fen, 0, [run], False)}
            self.out.write(json.dumps(document) + "\n")
            return
        solved = {None: "-", True: "yes", False: "no"}[found["solved"]]
        self.out.write(self._cells(position.id, found["move"] or "-",
                                   found["depths"][-1]["evaluation"], position.expected or "-",
                                   solved, f"{found['nodes']:,}",
                                   f"{found['repetitions']:,}", f"{found['seconds']:.2f}"))

    def summary(self, seconds):
        """The end line: solved/total (of the positions that ask for a
        move), nodes, and the rates over the wall-clock ``seconds``."""
        found = list(self.found.values())
        judged = [entry for entry in found if entry["solved"] is not None]
        nodes = sum(entry["nodes"] for entry in found)
        rate = nodes / seconds if seconds else 0
        finished = "" if len(found) == len(self.positions) else \
            f" ({len(found)} of {len(self.positions)} positions finished)"
        return f"solved {sum(entry['solved'] for entry in judged)}/{len(judged)}{finished}; " \
               f"{nodes:,} nodes in {seconds:.2f} s: {rate:,.0f} nodes/s, " \
               f"{len(found) / seconds if seconds else 0:.2f} positions/s"


def _link_line(link, rows):
    """What the searches cost the link: round trips (transfers) and bytes,
    in all and a node, identification and loads included."""
    nodes = sum(entry["nodes"] for entry in rows.found.values())
    moved = link.bytes_sent + link.bytes_received
    each = (f": {link.transfers / nodes:.2f} round trips and {moved / nodes:.1f} bytes a node"
            if nodes else "")
    return f"link: {link.transfers:,} round trips, {moved:,} bytes ({link.bytes_sent:,} " \
           f"sent, {link.bytes_received:,} received){each}"


def _say(line):
    print(f"axon search: {line}", file=sys.stderr, flush=True)


def _more_detectors(port, jobs):
    """How to get ``jobs`` detectors: a simulated board's URL option, or a
    real board's build."""
    parts = urlsplit(port)
    if parts.scheme not in SIMULATED_SCHEMES:
        return f"or build the board with axon build --detectors {jobs}"
    query = [(key, value) for key, value in parse_qsl(parts.query) if key != "detectors"]
    url = f"{parts.scheme}://{parts.netloc}{parts.path}?" \
          f"{urlencode([*query, ('detectors', jobs)])}"
    return f"or simulate {jobs} with --port {url}"


def _prepared(options, jobs):
    """``(how the searches run, the link or None)``:
    how is a generator factory over the jobs."""
    if options.repetition == "detector" and options.port is not None and \
            options.engine == "gateware":
        link = search.unit_link(options)
        if jobs > link.units:
            link.close()
            raise UsageError(f"--jobs {jobs}: the board on {options.port} has "
                             f"{plural(link.units, 'search unit')}; give --jobs "
                             f"{link.units} or fewer")
        tests = [UnitTest("link", session=UnitSession(link, index)) for index in range(jobs)]
        return (lambda work, on_ready: search_in_threads(work, tests)), link
    if options.repetition == "detector" and options.port is not None:
        try:
            transport = open_transport(options.port, log=None if options.quiet else _say)
        except (TypeError, ValueError) as error:
            raise UsageError(f"--port {options.port}: {error}") from None
        try:
            link = Link(transport)
            sessions = link_sessions(link)
            try:
                # Each asks its board what it is (IDENTIFY) as it is made.
                tests = [DetectorTest(session, ask_upcoming=options.upcoming_cutoff)
                         for session in sessions]
            except ValueError as error:
                raise UsageError(f"--port {options.port}: {error}") from None
            if jobs > len(sessions):
                raise UsageError(f"--jobs {jobs}: the board on {options.port} has "
                                 f"{plural(len(sessions), 'detector')}; give --jobs "
                                 f"{len(sessions)} or fewer, "
                                 f"{_more_detectors(options.port, jobs)}")
            tests = tests[:jobs]
        except BaseException:
            transport.close()
            raise
        return (lambda work, on_ready: search_in_threads(work, tests)), link
    config = None
    if options.repetition == "detector":
        config = config_from(argparse.Namespace(), gateware=options.backend != "golden")
        if options.upcoming_cutoff and not config.upcoming:
            raise UsageError("this detector has no upcoming-repetition block; "
                             "--upcoming-cutoff needs one")
    make_test = TestMaker(options.repetition, options.backend, config, options.upcoming_cutoff,
                          options.engine)
    in_unit = search.unit_rtl(options) and options.repetition == "detector"
    if jobs == 1:
        if in_unit:
            test = search.unit_test(options)
        elif options.repetition == "detector":
            extra = {"log": _say} if options.backend == "cxxrtl" and not options.quiet else {}
            test = DetectorTest(BACKENDS[options.backend](config, **extra),
                                ask_upcoming=options.upcoming_cutoff)
        else:
            test = make_test()

        def in_this_process(work, on_ready):
            try:
                yield from search_in_threads(work, [test])
            finally:
                session = getattr(test, "session", None)
                if session is not None and hasattr(session, "close"):
                    session.close()
        return in_this_process, None
    if in_unit and options.backend == "cxxrtl":
        # Compiled here, once and with its progress line, not by each worker.
        search.unit_test(options).build()
    elif options.backend == "cxxrtl" and options.repetition == "detector":
        BACKENDS["cxxrtl"](config, log=None if options.quiet else _say).build()
    return (lambda work, on_ready: search_in_processes(work, make_test, jobs,
                                                       on_ready=on_ready)), None


def suite_command(options, out=None):
    """``axon search SUITE.epd``; the exit status."""
    out = sys.stdout if out is None else out
    link = rows = None
    interrupted = False
    try:
        check_options(options)
        _refuse_single_options(options)
        positions = read_suite(options.pgn)
        jobs = min(options.jobs or 1, len(positions))
        run, link = _prepared(options, jobs)
        rows = _Rows(out, options, positions, _label(options))
        rows.header(jobs)
        progress = SuiteProgress(len(positions), enabled=not options.quiet,
                                 command="axon search")
        work = [SearchJob(position.index, position.fen, options.depth,
                          upcoming_cutoff=options.upcoming_cutoff, null_move=options.null_move,
                          engine=options.engine)
                for position in positions]
        # From when the detectors are ready: their start-up is not the search's.
        began = time.perf_counter()

        def ready() -> None:
            nonlocal began
            began = time.perf_counter()

        searches = run(work, ready)
        try:
            for result in searches:
                if result.error is not None:
                    position = positions[result.index]
                    raise JobFailed(f"{position.id} (line {position.line}): {result.error}")
                rows.add(result.index, result.depths)
                if rows.ready():
                    # The progress line off the terminal while rows are written.
                    progress.done()
                    rows.flush()
                progress.update(len(rows.found) - 1, rows.found[result.index]["nodes"])
        except KeyboardInterrupt:
            interrupted = True
        finally:
            searches.close()
            progress.done()
        seconds = time.perf_counter() - began
        rows.flush(all_finished=True)
        lines = [rows.summary(seconds)]
        if link is not None:
            lines.append(_link_line(link, rows))
        for line in lines:
            if not options.json:
                out.write(line + "\n")
                out.flush()
            elif not options.quiet:
                _say(line)
        if interrupted:
            _say(f"interrupted; {len(rows.found)} of "
                 f"{plural(len(positions), 'position')} finished")
            return EXIT_INTERRUPTED
        return 0
    except (UsageError, SuiteError) as error:
        _say(f"error: {error}")
        return 2
    except (LinkError, LinkTimeout, CxxrtlError, SearchTooDeep, JobFailed) as error:
        if rows is not None:
            rows.flush()
        _say(f"error: {error}")
        return 1
    finally:
        if link is not None:
            link.close()


def register(commands):
    """``axon search``: the single search's parser, whose command searches
    a suite file position by position (:func:`search_or_suite_command`)."""
    search.register(commands)
    commands.choices["search"].set_defaults(func=search_or_suite_command)


def search_or_suite_command(options, out=None):
    """``axon search``: a suite's command for ``SUITE.epd``, else the single
    search's (which builds the suite's rows, hence this module on top)."""
    if options.show is None and is_suite(options.pgn):
        return suite_command(options, out)
    return search_command(options, out)
