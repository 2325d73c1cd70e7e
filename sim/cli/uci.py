"""``axon uci``: the engine of ``axon search`` behind the Universal Chess Interface.

The protocol is :mod:`axon.sim.engine.uci`'s; here are the command's flags
(the options' defaults), the detector each option asks for (a backend or a
board over the link, made ready before ``readyok``), and ``--bench``.
"""

import argparse
import sys
import threading
import time
from typing import Optional

from ..backends.cxxrtl import CxxrtlError
from ..backends.link import Link, LinkError, LinkTimeout, open_transport
from ..engine.repetition import ChessTest, DetectorTest, NoTest
from ..engine.trace import TraceWriter
from ..engine.uci import REPETITION_CHOICES, Output, UciEngine, UciOptions
from .args import UsageError, add_pruning, check_output_file, config_from, int_at_least
from .backends import BACKEND_ALIASES, BACKENDS, backend_name


__all__ = ["register", "uci_command", "bench_command", "RepetitionTests"]

# axon uci --bench: the position, the search's time, and how many stops are timed.
BENCH_POSITION = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"
BENCH_POSITION_NAME = "the Ruy Lopez after 3...a6"
BENCH_MOVETIME_MS = 3000
BENCH_STOPS = 10
BENCH_STOP_AFTER = 0.3


_EPILOG = """\
Commands: uci, isready, ucinewgame, setoption, position startpos|fen FEN
[moves ...], go [depth D] [nodes N] [movetime MS] [wtime MS] [btime MS]
[winc MS] [binc MS] [movestogo N] [infinite] [ponder], stop, ponderhit, quit.
Each depth prints `info depth .. seldepth .. score cp|mate .. nodes .. nps ..
time .. pv ..`, with nodes counted from the start of `go`; then `bestmove`
(and `ponder`). The options (Repetition, Backend, Port, UpcomingRepetition,
NullMove, Threads, Hash, Ponder) start as these flags give them. Exit
status: 0 on quit or the end of the input; 2 on a bad flag; 130 on Ctrl-C.
"""


def register(commands):
    parser = commands.add_parser(
        "uci", help="play chess over UCI, with the detector as the repetition test",
        description="A UCI engine on standard input and output: the search of axon search, "
                    "with the game the GUI sends as the detector's game history.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repetition", choices=REPETITION_CHOICES, default="detector",
                        help="the option Repetition: the repetition test at every node "
                             "(default detector)")
    parser.add_argument("--backend", choices=tuple(BACKENDS), default="golden",
                        type=backend_name,
                        help="the option Backend: the detector (default golden)")
    parser.add_argument("--port", metavar="URL", default="",
                        help="the option Port: the detector of a board over the link, in place "
                             "of --backend: a serial port, sim://BOARD or cxxrtl://BOARD")
    add_pruning(parser, uci=True)
    parser.add_argument("--threads", type=int_at_least(1), default=1, metavar="N",
                        help="the option Threads: accepted; the search runs in one thread")
    parser.add_argument("--hash", type=int_at_least(1), default=16, metavar="MB",
                        help="the option Hash: accepted; the engine keeps no table")
    parser.add_argument("--trace", metavar="FILE",
                        help="write every search's start, then one JSON row per detector "
                             "query with its path, as axon search --trace (.jsonl, .jsonl.gz)")
    parser.add_argument("--bench", action="store_true",
                        help="read no commands: measure the engine's nodes per second "
                             f"(go movetime {BENCH_MOVETIME_MS} from {BENCH_POSITION_NAME}) "
                             f"and the time from a stop to its bestmove ({BENCH_STOPS} stops, each "
                             f"{BENCH_STOP_AFTER} s after a go infinite), "
                             "with these options, and print them")
    parser.set_defaults(func=uci_command)


# -- the repetition test of the options -------------------------------------

class RepetitionTests:
    """The repetition test the options ask for, made when first needed (a
    CXXRTL model or a simulated board compiles first) and kept while they hold."""

    def __init__(self, out: Output, trace: Optional[TraceWriter]) -> None:
        self.out = out
        self.trace = trace
        self.test = None
        self.session = None
        self._made_for = None

    def _wanted(self, options):
        return (options.repetition, options.port or options.backend, options.upcoming_cutoff)

    def ready(self, options: UciOptions):
        """The repetition test of ``options``, made now if it is not yet."""
        if self.test is not None and self._made_for == self._wanted(options):
            return self.test
        self.close()
        self._made_for = self._wanted(options)
        if options.repetition == "off":
            self.test = NoTest()
        elif options.repetition == "python-chess":
            self.test = ChessTest()
        else:
            self.test = self._detector_test(options)
        return self.test

    def _detector_test(self, options):
        record = self.trace.record if self.trace is not None else None
        try:
            self.session = self._session(options)
            return DetectorTest(self.session, ask_upcoming=options.upcoming_cutoff,
                                on_query=record)
        except (LinkError, LinkTimeout, CxxrtlError, OSError, TypeError, ValueError,
                UsageError) as error:
            where = f"Port {options.port}" if options.port else f"Backend {options.backend}"
            self.out.info(f"{where}: {error}; the golden model answers instead")
            self.close_session()
            self.session = BACKENDS["golden"](config_from(argparse.Namespace(),
                                                          gateware=False))
            return DetectorTest(self.session, ask_upcoming=options.upcoming_cutoff,
                                on_query=record)

    def _session(self, options):
        def say(line):
            self.out.info(line)
        if options.port:
            say(f"Port {options.port} takes the place of Backend {options.backend}: "
                f"opening the link")
            return Link(open_transport(options.port, log=say)).session()
        config = config_from(argparse.Namespace(), gateware=options.backend != "golden")
        extra = {"log": say} if options.backend == "cxxrtl" else {}
        if options.backend == "golden":
            return BACKENDS["golden"](config)
        say(f"Backend {options.backend}: making the detector ready")
        session = BACKENDS[options.backend](config, **extra)
        # The model is built (CXXRTL) or elaborated (pysim) at its first
        # call: made here, before readyok, not in the first search.
        session.load([])
        say(f"Backend {options.backend}: ready")
        return session

    def close_session(self):
        if self.session is not None and hasattr(self.session, "close"):
            self.session.close()
        self.session = None

    def close(self):
        self.close_session()
        self.test = None
        self._made_for = None


def uci_command(options) -> int:
    settings = UciOptions(repetition=options.repetition, backend=options.backend,
                          port=options.port or "", upcoming_cutoff=options.upcoming_cutoff,
                          null_move=options.null_move, threads=options.threads,
                          hash=options.hash, backends=tuple(BACKENDS), aliases=BACKEND_ALIASES)
    trace = None
    try:
        if options.trace:
            if options.repetition != "detector":
                raise UsageError(f"--trace is for the detector: --repetition "
                                 f"{options.repetition} does not use it")
            check_output_file("--trace", options.trace)
    except UsageError as error:
        print(f"axon uci: error: {error}", file=sys.stderr)
        return 2
    if options.trace:
        trace = TraceWriter(options.trace)
    try:
        if options.bench:
            return bench_command(settings, trace)
        out = Output(sys.stdout)
        # A byte a GUI sends that is not UTF-8 is a word the engine does not
        # know, not the end of the engine.
        if hasattr(sys.stdin, "reconfigure"):
            sys.stdin.reconfigure(errors="replace")
        return UciEngine(settings, out, RepetitionTests(out, trace), trace).run(sys.stdin)
    finally:
        if trace is not None:
            trace.close()



# -- axon uci --bench ---------------------------------------------------------------

class _Timed:
    """A stream the engine writes to in the benchmark: each line with the
    time it was written, and a wait for a line that starts with a prefix."""

    def __init__(self):
        self.lines = []
        self._partial = ""
        self._changed = threading.Condition()

    def write(self, text):
        with self._changed:
            self._partial += text
            while "\n" in self._partial:
                line, self._partial = self._partial.split("\n", 1)
                self.lines.append((time.perf_counter(), line))
            self._changed.notify_all()

    def flush(self):
        pass

    def wait_for(self, prefix, after):
        """The first line from index ``after`` on that starts with ``prefix``:
        ``(index, seconds written, line)``."""
        with self._changed:
            while True:
                for index in range(after, len(self.lines)):
                    if self.lines[index][1].startswith(prefix):
                        return index, *self.lines[index]
                self._changed.wait()


def bench_command(settings: UciOptions, trace: Optional[TraceWriter]) -> int:
    """``axon uci --bench``: nodes per second and the stop's latency, timed
    inside the engine from the command read to the line written."""
    stream = _Timed()
    out = Output(stream)
    engine = UciEngine(settings, out, RepetitionTests(out, trace), trace)
    try:
        engine.command("isready")
        engine.command(BENCH_POSITION)
        engine.command(f"go movetime {BENCH_MOVETIME_MS}")
        index, _, best = stream.wait_for("bestmove", 0)
        depths = [line for _, line in stream.lines[:index] if line.startswith("info depth")]
        words = [line for _, line in stream.lines[:index] if " nodes " in line][-1].split()
        nodes, milliseconds = int(words[words.index("nodes") + 1]), \
            int(words[words.index("time") + 1])
        latencies = []
        for _ in range(BENCH_STOPS):
            engine.command("go infinite")
            # A stop in the middle of a node's work, on any backend.
            time.sleep(BENCH_STOP_AFTER)
            asked = time.perf_counter()
            engine.command("stop")
            index, written, _ = stream.wait_for("bestmove", index + 1)
            latencies.append(written - asked)
    finally:
        engine.close()
    for _, line in stream.lines:
        if line.startswith("info string"):
            print(f"axon uci: {line[len('info string '):]}", file=sys.stderr)
    latencies.sort()
    print(f"axon uci --bench: {settings.test_name()}: {nodes / (milliseconds / 1000):,.0f} "
          f"nodes/s ({nodes:,} nodes in {milliseconds / 1000:.2f} s, go movetime "
          f"{BENCH_MOVETIME_MS} from {BENCH_POSITION_NAME}; "
          f"{'last ' + depths[-1].split(' pv ')[0][5:] if depths else 'no depth finished'}; "
          f"{best})")
    print(f"stop to bestmove: median {1000 * latencies[len(latencies) // 2]:.1f} ms, "
          f"longest {1000 * latencies[-1]:.1f} ms over {len(latencies)} stops")
    return 0
