"""The software peers of ``axon bench``: the same repetition queries, on a CPU.

Three programs answer every query of the benchmark corpus ("is the position
after the word at ``top`` a repetition?", stop at the first one found):

* ``cpw_c``: the chain-list pseudo-code of the chessprogramming wiki
  ("Repetitions", section "Repetition of Moves"), translated line for line
  to C (``peers/cpw_chain.c``). 24 entries, squares only, returns at the first
  closure, stops at a word with the barrier bit. Its input is the move-word
  array, as the detector's is.
* ``zobrist_c``: what engines do today (``peers/zobrist_scan.c``): compare the
  64-bit Zobrist key of the position with the keys 4, 6, 8, ... plies back,
  no further than ``min(halfmove clock, plies since the start or the last
  null move)``, as Stockfish does. The keys are computed here, before any
  timing: an engine keeps them up to date as it makes moves, so the query is
  the comparison loop alone.
* ``golden_python``: :func:`axon.sim.model.golden.perpetual` with the ``exact``
  rules, the model the gateware is checked against.

How the C peers are timed: the sources are compiled at run time with the
system C compiler (``cc``, else ``gcc``; ``-O2``, each peer in its own
translation unit and no link-time optimisation, so that no call can be inlined
into the timing loop or hoisted out of it) into a temporary build directory.
``peers/harness.c`` reads the corpus from a binary file and, after a warm-up
pass that records every answer, times each query as a block of K calls
between two ``clock_gettime(CLOCK_MONOTONIC)`` reads, K being the smallest
``repeats * 2**j`` for which the block lasts at least ``min_block_ns``; results
go into a volatile sink. The whole pass is repeated ``runs`` times and a
query's figure is the median over the passes. Calling the same query K times
in a row trains the caches and the branch predictor on it, so these are
best-case figures; each pass also times all queries once each in corpus order
(``stream_mean``), which is closer to a search calling the test at every node.
The cost of an empty call (``baseline_ns``) is reported, not subtracted.

The Python peer is timed with :func:`time.perf_counter_ns` around
``python_repeats`` back-to-back calls, ``python_runs`` times per query (median
over the runs), plus one untimed call that gives the answer, with the garbage
collector paused: 3 x 3 took 13 to 23 s for 20,000 to 27,000 queries on a
2-core AMD EPYC virtual machine.

CPU figures are noisy: they depend on the processor, its frequency scaling,
the compiler and whatever else the machine is doing. Compare peers measured in
the same call; do not compare figures from different machines or runs to a
few per cent.
"""

import gc
import math
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

import chess
import chess.polyglot

from ....hdl.word import WORD_BITS
from ...model.encode import encode_moves
from ...model.golden import perpetual


__all__ = ["PeerGame", "PeerError", "PEERS", "CFLAGS", "make_peer_games", "zobrist_key",
           "find_compiler", "build_peers", "run_peers"]

PEERS = ("cpw_c", "zobrist_c", "golden_python")
C_PEERS = ("cpw_c", "zobrist_c")
C_SOURCES = ("harness.c", "cpw_chain.c", "zobrist_scan.c", "baseline.c")
C_HEADERS = ("peers.h",)
# -O2 as an engine build would use; nothing machine specific (-march=native),
# so that the figures do not depend on which CPU the binary was tuned for.
CFLAGS = ("-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra")
BINARY = "peers_bench"
_MAGIC = b"AXPEERS1"
_BARRIER_WORD = 1 << (WORD_BITS - 1)


class PeerError(RuntimeError):
    """The C peers could not be built or run."""


@dataclass
class PeerGame:
    """One game of the query corpus, with what every peer needs.

    Members
    -------
    words : list of int
        17-bit move words (:mod:`axon.hdl.word` layout, barrier bit 16).
    keys : list of int
        64-bit Zobrist key (:func:`zobrist_key`) of the position after each
        ply; ``len(keys) == len(words)``.
    start_key : int
        Zobrist key of the start position.
    halfmove : list of int
        python-chess ``halfmove_clock`` after each ply: plies since the last
        capture or pawn move (it does not reset on a null move).
    plies_from_null : list of int or None
        Plies since the start position or the last null move, after each ply
        (Stockfish's ``pliesFromNull``). ``None`` (the default) means a game
        without null moves: ``1, 2, 3, ...``.
    """
    words:    List[int]
    keys:     List[int]
    start_key: int
    halfmove: List[int]
    plies_from_null: Optional[List[int]] = field(default=None)

    def __post_init__(self):
        if self.plies_from_null is None:
            self.plies_from_null = list(range(1, len(self.words) + 1))
        for name in ("keys", "halfmove", "plies_from_null"):
            if len(getattr(self, name)) != len(self.words):
                raise ValueError(f"a PeerGame needs one {name} entry per word: "
                                 f"{len(self.words)} words, {len(getattr(self, name))} {name}")
        for word in self.words:
            if not isinstance(word, int) or not 0 <= word < (1 << WORD_BITS):
                raise ValueError(f"move words must be integers in range "
                                 f"0..{(1 << WORD_BITS) - 1}, not {word!r}")
        for key in (self.start_key, *self.keys):
            if not isinstance(key, int) or not 0 <= key < (1 << 64):
                raise ValueError(f"Zobrist keys must be 64-bit unsigned integers, not {key!r}")
        for name in ("halfmove", "plies_from_null"):
            for value in getattr(self, name):
                if not isinstance(value, int) or not 0 <= value < (1 << 32):
                    raise ValueError(f"{name} entries must be non-negative integers, "
                                     f"not {value!r}")


class _LegalEnPassantHasher(chess.polyglot.ZobristHasher):
    # Polyglot hashes the en-passant file whenever an enemy pawn stands beside
    # the pushed pawn, legal capture or not. FIDE (and python-chess's
    # is_repetition) count the en-passant right only when the capture is
    # legal, so a pinned pawn would make two equal positions differ. Hash the
    # file only then, as engines that follow FIDE do.
    def hash_ep_square(self, board):
        if board.has_legal_en_passant():
            return self.array[772 + chess.square_file(board.ep_square)]
        return 0


_hasher = _LegalEnPassantHasher(chess.polyglot.POLYGLOT_RANDOM_ARRAY)


def zobrist_key(board):
    """The Polyglot Zobrist key of ``board``, en passant counted only when legal.

    It equals :func:`chess.polyglot.zobrist_hash` except when an en-passant
    capture is possible on the board but illegal (a pinned pawn).
    """
    return _hasher(board)


def make_peer_games(records):
    """``[(start_board, moves), ...]`` -> list of :class:`PeerGame`.

    The keys are computed from scratch for every position, which gives the
    same values an engine's incremental update would; none of this is timed.
    """
    games = []
    for board, moves in records:
        board = board.copy(stack=False)
        words = encode_moves(board, moves)
        start_key = zobrist_key(board)
        keys, halfmove, plies_from_null = [], [], []
        since_null = 0
        for move in moves:
            board.push(move)
            since_null = 0 if not move else since_null + 1
            keys.append(zobrist_key(board))
            halfmove.append(board.halfmove_clock)
            plies_from_null.append(since_null)
        games.append(PeerGame(words=words, keys=keys, start_key=start_key, halfmove=halfmove,
                              plies_from_null=plies_from_null))
    return games


def find_compiler(cc=None):
    """The C compiler's path: ``cc`` if given (a name or a path), else ``cc`` or ``gcc``."""
    names = [cc] if cc is not None else ["cc", "gcc"]
    for name in names:
        path = shutil.which(name)
        if path is not None:
            return path
    if cc is not None:
        raise PeerError(f"the C peers need a C compiler: {cc!r} was not found")
    raise PeerError("the C peers need a C compiler: neither `cc` nor `gcc` is on PATH "
                    "(on Debian/Ubuntu: apt-get install gcc), or pass cc=")


def _source_dir():
    return Path(__file__).resolve().parent


def build_peers(build_dir, *, cc=None, sources=None):
    """Compile the C peers into ``build_dir``; return ``(binary, command, version)``.

    ``sources`` is the directory holding the C files (default: ``peers/``
    beside this module); the tests point it at doctored copies. ``command`` is
    the compiler command line, run inside ``build_dir``.
    """
    compiler = find_compiler(cc)
    sources = Path(sources) if sources is not None else _source_dir()
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    for name in C_SOURCES + C_HEADERS:
        if not (sources / name).is_file():
            raise PeerError(f"C peer source {sources / name} is missing")
        shutil.copyfile(sources / name, build_dir / name)
    command = [compiler, *CFLAGS, "-o", BINARY, *C_SOURCES]
    process = subprocess.run(command, cwd=build_dir, capture_output=True, text=True)
    if process.returncode != 0:
        tail = "\n".join(process.stderr.splitlines()[-30:])
        raise PeerError(f"compiling the C peers failed:\n  {shlex.join(command)}\n{tail}")
    version = subprocess.run([compiler, "--version"], capture_output=True,
                             text=True).stdout.splitlines()
    return build_dir / BINARY, shlex.join(command), (version[0] if version else "")


def _check_queries(games, queries):
    queries = list(queries)
    if not queries:
        raise ValueError("run_peers needs at least one query")
    for query in queries:
        try:
            game, top = query
        except (TypeError, ValueError):
            raise ValueError(f"a query is a (game_index, top) pair, not {query!r}") from None
        if not isinstance(game, int) or not 0 <= game < len(games):
            raise ValueError(f"query {query!r}: game index must be in 0..{len(games) - 1}")
        if not isinstance(top, int) or not 0 <= top < len(games[game].words):
            raise ValueError(f"query {query!r}: top must be a ply index in "
                             f"0..{len(games[game].words) - 1} of game {game}")
    return queries


def _positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")


def _write_corpus(path, games, queries):
    """The binary corpus file that ``peers/harness.c`` reads (format there)."""
    words, keys, rule50, from_null = array("I"), array("Q"), array("I"), array("I")
    if words.itemsize != 4 or keys.itemsize != 8:
        raise PeerError("this platform has no 32-bit 'I' or 64-bit 'Q' array type")
    for game in games:
        # Entry 0 of a game stands for its start position; its barrier word
        # ends every scan there (the wiki's move list needs one).
        words.append(_BARRIER_WORD)
        words.extend(game.words)
        keys.append(game.start_key)
        keys.extend(game.keys)
        rule50.append(0)
        rule50.extend(game.halfmove)
        from_null.append(0)
        from_null.extend(game.plies_from_null)
    header = array("I", [len(games), len(queries), len(words)])
    plies = array("I", [len(game.words) for game in games])
    with open(path, "wb") as file:
        file.write(_MAGIC)
        for part in (header, plies, words, keys, rule50, from_null,
                     array("I", [game for game, _ in queries]),
                     array("I", [top for _, top in queries])):
            file.write(part.tobytes())


def _run_c_peers(binary, work_dir, games, queries, *, runs, repeats, min_block_ns,
                 count_limit):
    corpus = Path(work_dir) / "corpus.bin"
    output = Path(work_dir) / "timings.txt"
    _write_corpus(corpus, games, queries)
    command = [str(binary), str(corpus), str(output), str(runs), str(repeats),
               str(min_block_ns), str(count_limit)]
    process = subprocess.run(command, capture_output=True, text=True)
    if process.returncode != 0:
        raise PeerError(f"the C peers exited with status {process.returncode}: "
                        f"{process.stderr.strip()}")
    lines = output.read_text().splitlines()
    if len(lines) != len(queries) + 1:
        raise PeerError(f"the C peers gave {len(lines) - 1} answers, not {len(queries)}")
    resolution, baseline, stream_cpw, stream_zobrist = (float(x) for x in lines[0].split())
    ns = {"cpw_c": [], "zobrist_c": []}
    answers = {"cpw_c": [], "zobrist_c": []}
    blocks = {"cpw_c": [], "zobrist_c": []}
    for line in lines[1:]:
        cpw_ns, zobrist_ns, cpw_answer, zobrist_answer, cpw_k, zobrist_k = line.split()
        ns["cpw_c"].append(float(cpw_ns))
        ns["zobrist_c"].append(float(zobrist_ns))
        answers["cpw_c"].append(cpw_answer == "1")
        answers["zobrist_c"].append(zobrist_answer == "1")
        blocks["cpw_c"].append(int(cpw_k))
        blocks["zobrist_c"].append(int(zobrist_k))
    return {"ns": ns, "answers": answers, "repeats": blocks,
            "stream": {"cpw_c": stream_cpw, "zobrist_c": stream_zobrist},
            "clock_resolution_ns": resolution, "baseline_ns": baseline}


def _run_golden(games, queries, *, count_limit, runs, repeats):
    ns, answers = [], []
    timer = time.perf_counter_ns
    collecting = gc.isenabled()
    gc.disable()
    try:
        for game, top in queries:
            words = games[game].words
            # The first call is untimed: it gives the answer and warms up.
            answers.append(perpetual(words, top, count_limit=count_limit).repetition)
            samples = []
            for _ in range(runs):
                began = timer()
                for _ in range(repeats):
                    perpetual(words, top, count_limit=count_limit)
                samples.append((timer() - began) / repeats)
            ns.append(statistics.median(samples))
    finally:
        if collecting:
            gc.enable()
    return ns, answers


def _distribution(values):
    ordered = sorted(values)
    return {
        "mean": statistics.fmean(ordered),
        "median": statistics.median(ordered),
        "p99": ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)],
        "max": ordered[-1],
        "queries": len(ordered),
    }


def run_peers(games, queries, *, count_limit=1, runs=5, repeats=64, min_block_ns=1000,
              python_runs=3, python_repeats=3, cc=None, peers=PEERS, build_dir=None,
              sources=None, keep_samples=False):
    """Time the software peers on ``queries``; return figures and answers.

    Parameters
    ----------
    games : list of PeerGame
        From :func:`make_peer_games`.
    queries : list of (int, int)
        ``(game_index, top)``: is the position after ``games[game_index].words[top]``
        a repetition?
    count_limit : int
        Stop after this many equal positions (1: the first, as a search asks).
        The wiki's pseudo-code always stops at the first closure; the answer
        (repetition or not) does not depend on the limit.
    runs, repeats, min_block_ns :
        C timing: passes over all queries, and the least number of calls
        timed as one block and the least duration of a block (see the module
        docstring).
    python_runs, python_repeats :
        The same for ``golden_python`` (no minimum block duration).
    cc : str or None
        C compiler name or path (default ``cc``, else ``gcc``).
    peers : iterable of str
        Which of :data:`PEERS` to run.
    build_dir : str or Path or None
        Where to compile and write the corpus (default: a temporary directory,
        removed afterwards).
    sources : str or Path or None
        Directory of the C sources (default ``peers/`` beside this module).
    keep_samples : bool
        Also return every query's figure, under ``"samples_ns"``.

    Returns a dict: per peer ``{"mean", "median", "p99", "max", "queries"}`` in
    ns per query (the C peers add ``"stream_mean"``, ``"repeats_min"`` and
    ``"repeats_max"``); ``"compiler"`` (the command line, run inside the
    build directory), ``"compiler_version"``, ``"timing"`` (the method),
    ``"seconds"`` (wall time of each part) and ``"answers"``: per peer, one
    bool per query, in query order.
    """
    began = time.monotonic()
    for name, value in (("count_limit", count_limit), ("runs", runs), ("repeats", repeats),
                        ("python_runs", python_runs), ("python_repeats", python_repeats)):
        _positive(name, value)
    if not isinstance(min_block_ns, int) or min_block_ns < 0:
        raise ValueError(f"min_block_ns must be a non-negative integer, not {min_block_ns!r}")
    peers = tuple(peers)
    for name in peers:
        if name not in PEERS:
            raise ValueError(f"unknown peer {name!r}; the peers are {', '.join(PEERS)}")
    for game in games:
        if not isinstance(game, PeerGame):
            raise ValueError(f"games must be PeerGame objects (make_peer_games), "
                             f"not {type(game).__name__}")
    queries = _check_queries(games, queries)

    result = {"answers": {}, "seconds": {}}
    samples = {}
    timing = {"count_limit": count_limit}
    if any(name in C_PEERS for name in peers):
        with tempfile.TemporaryDirectory(prefix="axon-peers-") as temporary:
            work_dir = Path(build_dir) if build_dir is not None else Path(temporary)
            started = time.monotonic()
            binary, command, version = build_peers(work_dir, cc=cc, sources=sources)
            result["compiler"] = command
            result["compiler_version"] = version
            result["seconds"]["build"] = time.monotonic() - started
            started = time.monotonic()
            measured = _run_c_peers(binary, work_dir, games, queries, runs=runs,
                                    repeats=repeats, min_block_ns=min_block_ns,
                                    count_limit=count_limit)
            result["seconds"]["c_peers"] = time.monotonic() - started
        for name in C_PEERS:
            if name in peers:
                figures = _distribution(measured["ns"][name])
                figures["stream_mean"] = measured["stream"][name]
                figures["repeats_min"] = min(measured["repeats"][name])
                figures["repeats_max"] = max(measured["repeats"][name])
                result[name] = figures
                result["answers"][name] = measured["answers"][name]
                samples[name] = measured["ns"][name]
        timing["c"] = {"clock": "clock_gettime(CLOCK_MONOTONIC)", "runs": runs,
                       "min_repeats": repeats, "min_block_ns": min_block_ns,
                       "statistic": "per-query median over runs",
                       "clock_resolution_ns": measured["clock_resolution_ns"],
                       "baseline_ns": measured["baseline_ns"]}
    if "golden_python" in peers:
        started = time.monotonic()
        ns, answers = _run_golden(games, queries, count_limit=count_limit, runs=python_runs,
                                  repeats=python_repeats)
        result["seconds"]["golden_python"] = time.monotonic() - started
        result["golden_python"] = _distribution(ns)
        result["answers"]["golden_python"] = answers
        samples["golden_python"] = ns
        timing["python"] = {"clock": "time.perf_counter_ns", "runs": python_runs,
                            "repeats": python_repeats,
                            "statistic": "per-query median over runs", "gc": "paused"}
    result["timing"] = timing
    result["seconds"]["total"] = time.monotonic() - began
    if keep_samples:
        result["samples_ns"] = samples
    return result
