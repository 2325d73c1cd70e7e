"""``axon soak``: millions of random queries, CXXRTL gateware against the golden model.

With ``netlist=True`` (``axon soak --netlist``) the gateware is not the RTL but
the netlist ``synth_ice40`` makes of it for the board, simulated with the
iCE40 cell models (:class:`axon.sim.backends.netlist.NetlistSession`); the queries and
the checks are the same.

Every query compares every field of the answer and the clock count. The
queries come in batches, each fixed by ``(seed, batch index)`` so that any
mismatch can be replayed alone (:func:`make_batch`). A batch mixes

* random legal games from :func:`axon.sim.model.generate.game_corpus`, queried after
  every ply: words alternate sides, so a query must take exactly
  :meth:`axon.hdl.params.DetectorConfig.latency` ``(plies_scanned)`` clocks;
* more such games asked as a search asks: each ply's query right after a
  load that ends with the word at its top, so that every one starts from
  the words just written;
* random memory images of the full depth, the way a hypothesis strategy would
  draw them: uniform words, near-collision words over a few squares and two or
  three piece codes (in random or alternating colours), all-barrier images,
  words whose from-square is their to-square, and word-by-word mixtures of
  these; each image is queried at random tops (0 and ``depth - 1`` often).
  Their clock count must be :func:`axon.sim.backends.pysim.expected_cycles`, which
  allows for the refetch after two words of one side.

A job's first query follows its load: on the pair scan it takes fewer
clocks at the load's last word, and one more at another
(:meth:`~axon.hdl.params.DetectorConfig.latency`,
:class:`~axon.sim.backends.session.HostWrites`).

Every query also carries an occupancy bitboard and the upcoming repetition
(``upcoming``, its move, distance, draw and ``upcoming_exact``) is compared
too: a game's query gets
the position's real occupancy, or now and then that occupancy with random
squares added or cleared (blockers on the way back, or none); an image's
query gets the squares its newest words moved to (where the pieces stand)
plus random blockers of a random density (:func:`random_occupancy`).

Count limits are random in 0..15. The golden model in Python is the slow part
(a few thousand to fifteen thousand queries a second), so the batches run in
a pool of worker processes, one per core, each generating its batch, running
the compiled detector on it and checking it.
"""

import multiprocessing
import os
import random
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import List, Optional

from ...hdl.params import COUNT_LIMIT_MAX, SHIPPED, DetectorConfig, Written
from ...hdl.word import WORD_BITS, pack_word, piece_code, piece_kind, word_str
from ..model import golden
from ..model.encode import encode_moves
from ..model.generate import game_corpus
from ..backends.cxxrtl import CxxrtlError, CxxrtlSession
from ..backends.netlist import NetlistSession
from ..backends.pysim import expected_cycles
from ..backends.session import written_before


__all__ = ["IMAGE_KINDS", "IMAGE_QUERIES_MAX", "random_image", "random_root", "make_batch", "check_batch", "soak",
           "Mismatch", "SoakReport"]

# Queries per batch: large enough that starting the C++ process (a few ms) and
# sending a pool task are lost in the noise, small enough to spread 100,000
# queries over both workers evenly.
BATCH_QUERIES = 4000
# The shares of queries that go to legal games, queried after every ply of a
# load and asked as a search asks; the rest go to memory images.
GAME_SHARE = 0.5
SEARCH_SHARE = 0.15
# The most queries asked of one random memory image. A batch ends on a
# whole image, so it runs its queries and up to one less than this more.
IMAGE_QUERIES_MAX = 32
# Mismatches kept in full in the report (all are counted).
KEEP_MISMATCHES = 10

IMAGE_KINDS = ("wild", "near", "alternating", "barriers", "still", "mixed")


# -- what to ask ------------------------------------------------------------------

def _near_alphabet(rng):
    """A few squares and two or three piece codes, so that chains collide."""
    squares = rng.sample(range(64), rng.randint(2, 5))
    pieces = rng.sample(range(16), rng.randint(2, 3))
    return squares, pieces


def random_image(rng, depth, kind):
    """``depth`` random move words of one of :data:`IMAGE_KINDS`."""
    if kind not in IMAGE_KINDS:
        raise ValueError(f"image kind must be one of {', '.join(IMAGE_KINDS)}, not {kind!r}")
    squares, pieces = _near_alphabet(rng)
    # An occasional barrier stops some scans early in the near kinds.
    barrier_rate = rng.choice((0.0, 0.0, 0.01, 0.05))
    # Alternating images give White's pieces to one parity of address and
    # Black's to the other, as in a legal game: the scanner's two-plies-a-clock
    # path. The other kinds mostly take its refetch path.
    phase = rng.randrange(2)

    def near(address, alternate):
        piece = rng.choice(pieces)
        if alternate:
            piece = piece_code(piece_kind(piece), (address + phase) & 1)
        return pack_word(rng.choice(squares), rng.choice(squares), piece,
                         rng.random() < barrier_rate)

    def still(address):
        piece = piece_code(piece_kind(rng.choice(pieces)), (address + phase) & 1)
        square = rng.choice(squares)
        return pack_word(square, square, piece)

    def word(address, kind):
        if kind == "wild":
            return rng.getrandbits(WORD_BITS)
        if kind == "near":
            return near(address, alternate=False)
        if kind == "alternating":
            return near(address, alternate=True)
        if kind == "barriers":
            return rng.getrandbits(WORD_BITS - 1) | 1 << (WORD_BITS - 1)
        if kind == "still":
            return still(address)
        return word(address, rng.choice(("wild", "near", "alternating", "alternating",
                                         "still", "barriers")))

    if kind == "mixed":
        return [word(address, "mixed") for address in range(depth)]
    return [word(address, kind) for address in range(depth)]


def random_occupancy(rng, words, top):
    """An occupancy for a query at ``top`` of a random image: the to-squares
    of the newest words (where their pieces stand, the ends of the chains the
    path check asks about) and random blockers, from none to dense."""
    occupancy = 0
    for address in range(top, max(-1, top - rng.randint(0, 12)), -1):
        occupancy |= 1 << (words[address] >> 6 & 63)
    density = rng.choice((0.0, 0.05, 0.15, 0.4))
    for square in range(64):
        if rng.random() < density:
            occupancy |= 1 << square
    return occupancy


def _game_occupancy(rng, occupied):
    """A game position's occupancy, now and then with squares added or cleared."""
    pick = rng.random()
    if pick < 0.8:
        return occupied
    if pick < 0.9:
        return occupied | rng.getrandbits(64) & rng.getrandbits(64)
    return occupied & ~(rng.getrandbits(64) & rng.getrandbits(64))


def _random_tops(rng, depth, count):
    tops = []
    for _ in range(count):
        pick = rng.random()
        tops.append(0 if pick < 0.1 else depth - 1 if pick < 0.25 else rng.randrange(depth))
    return tops


@dataclass(frozen=True)
class Job:
    """One move-list load and its queries; ``legal`` for a game's words."""
    kind: str
    words: list
    queries: list
    legal: bool


def random_root(rng, top, depth):
    """A search's root for a query at ``top``: none, a few plies below the
    query, at it, or anywhere in the move list (above it: game history)."""
    return rng.choice((-1, max(-1, top - rng.randint(1, 12)), top, rng.randrange(-1, depth)))


def make_batch(seed, index, queries=BATCH_QUERIES, *, depth):
    """The jobs of batch ``index`` of a soak with ``seed``: about ``queries`` queries."""
    rng = random.Random(f"axon-soak:{seed}:{index}")
    jobs, asked = [], 0
    longest = max(2, min(250, depth))
    for kind, share in (("game", GAME_SHARE), ("search", SEARCH_SHARE)):
        target = asked + int(queries * share)
        while asked < target:
            count = max(1, (target - asked) // 130)
            for board, moves in game_corpus(count, rng.getrandbits(32),
                                            plies=(min(20, longest), longest)):
                words = encode_moves(board, moves)
                if not words:
                    continue
                after, occupied = board.copy(stack=False), []
                for move in moves:
                    after.push(move)
                    occupied.append(int(after.occupied))
                if kind == "game":
                    game_queries = [(top, rng.randint(0, COUNT_LIMIT_MAX),
                                     _game_occupancy(rng, occupied[top]),
                                     random_root(rng, top, len(words)))
                                    for top in range(len(words))]
                    jobs.append(Job(kind, words, game_queries, legal=True))
                    asked += len(game_queries)
                    continue
                # A search writes the word at the top, then asks; its root
                # is at or below the top.
                for top in range(len(words)):
                    jobs.append(Job(kind, words[:top + 1],
                                    [(top, rng.randint(0, COUNT_LIMIT_MAX),
                                      _game_occupancy(rng, occupied[top]),
                                      random_root(rng, top, top + 1))], legal=True))
                asked += len(words)
    while asked < queries:
        kind = rng.choice(IMAGE_KINDS)
        tops = _random_tops(rng, depth, rng.randint(8, IMAGE_QUERIES_MAX))
        image = random_image(rng, depth, kind)
        jobs.append(Job(kind, image,
                        [(top, rng.randint(0, COUNT_LIMIT_MAX), random_occupancy(rng, image, top),
                          random_root(rng, top, depth))
                         for top in tops], legal=False))
        asked += len(tops)
    return jobs


# -- checking ---------------------------------------------------------------------

@dataclass(frozen=True)
class Mismatch:
    """One query where the gateware and the golden model disagree."""
    batch: int
    job: int
    kind: str
    top: int
    root_address: int
    count_limit: int
    occupancy: int
    words: list                    # the move list up to ``top``
    expected: golden.Result
    expected_cycles: int
    got: object                    # TimedResult, or None for a timeout

    def describe(self):
        got = ("no answer: done never rose (timeout)" if self.got is None else
               f"{self.got.result} in {self.got.cycles} clocks")
        newest = " ".join(word_str(word) for word in reversed(self.words[-8:]))
        return (f"batch {self.batch} job {self.job} ({self.kind}) top={self.top} "
                f"root_address={self.root_address} count_limit={self.count_limit} "
                f"occupancy={self.occupancy:#018x}\n"
                f"    expected {self.expected} in {self.expected_cycles} clocks\n"
                f"    got      {got}\n"
                f"    newest words first: {newest}{' ...' if len(self.words) > 8 else ''}")


@dataclass
class BatchReport:
    queries: int = 0
    mismatches: int = 0
    first: List[Mismatch] = field(default_factory=list)
    stops: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    repetitions: int = 0
    draws: int = 0
    upcoming: int = 0
    refetched: int = 0
    fresh: int = 0
    backstopped: int = 0
    seconds: Counter = field(default_factory=Counter)


def _session(config, build_dir, netlist=False, netlist_edit=None, log=None):
    if netlist:
        return NetlistSession(config, build_dir=build_dir, log=log, netlist_edit=netlist_edit)
    return CxxrtlSession(config, build_dir=build_dir, log=log)


_worker_session = None


def _init_worker(*session_arguments):
    global _worker_session
    # Ctrl-C is the parent's to handle: it stops the pool and reports the
    # batches that finished. A worker would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_session = _session(*session_arguments)


def check_batch(session, seed, index, queries=BATCH_QUERIES, keep=KEEP_MISMATCHES):
    """Generate batch ``index``, run it on ``session`` and check every answer."""
    report = BatchReport()
    began = time.perf_counter()
    jobs = make_batch(seed, index, queries, depth=session.depth)
    generated = time.perf_counter()
    batch = [(job.words, job.queries) for job in jobs]
    answers = session.run_batch(batch, on_timeout="none")
    simulated = time.perf_counter()
    for job_index, (job, job_answers, job_written) in enumerate(zip(jobs, answers,
                                                                    written_before(batch))):
        for (top, count_limit, occupancy, root_address), got, written in zip(
                job.queries, job_answers, job_written):
            config = session.config
            expected = golden.perpetual(job.words, top, root_address=root_address,
                                        config=config, count_limit=count_limit,
                                        occupancy=occupancy if config.upcoming else None)
            clocks = (config.latency(expected.plies_scanned, written=written, stop=expected.stop)
                      if job.legal and config.latency_fixed else
                      expected_cycles(job.words, top, expected, config, written))
            report.queries += 1
            report.stops[expected.stop.name.lower()] += 1
            report.kinds[job.kind] += 1
            report.repetitions += expected.repetition
            report.draws += expected.draw
            report.upcoming += expected.upcoming
            # Two words of one side on the way: the pair scanner's slow path
            # (a backstop's answer takes the walked list's clocks besides).
            report.refetched += (config.pair_scan and not expected.backstop and
                                 clocks != config.latency(expected.plies_scanned,
                                                          written=written, stop=expected.stop))
            report.backstopped += expected.backstop
            # Started from the words just written, on the pair scan.
            report.fresh += written is Written.TOP and config.pair_scan
            if got is None or got.result != expected or got.cycles != clocks:
                report.mismatches += 1
                if len(report.first) < keep:
                    report.first.append(Mismatch(index, job_index, job.kind, top, root_address,
                                                 count_limit, occupancy, job.words[:top + 1],
                                                 expected, clocks, got))
    report.seconds.update(generate=generated - began, cxxrtl=simulated - generated,
                          golden=time.perf_counter() - simulated)
    return report


def _check_batch_in_worker(arguments):
    return check_batch(_worker_session, *arguments)


@dataclass
class SoakReport:
    """What :func:`soak` found.

    ``seconds`` is the wall time; ``work_seconds`` splits the workers' time
    into generating queries, running the C++ model and the golden model.
    ``model`` is ``"cxxrtl"`` (the RTL) or ``"netlist"`` (after synth_ice40).
    """
    queries: int
    mismatches: int
    first_mismatches: List[Mismatch]
    seconds: float
    queries_per_second: float
    stops: Counter
    kinds: Counter
    repetitions: int
    refetched: int
    work_seconds: dict
    build_info: Optional[dict]
    seed: int
    config: DetectorConfig
    workers: int
    model: str = "cxxrtl"
    upcoming: int = 0           # queries with an upcoming repetition
    draws: int = 0              # queries that are a draw for the search from their root
    fresh: int = 0              # pair-scan queries that started from the words just written
    backstopped: int = 0        # queries the backstop answered (its pools overflowed)
    interrupted: bool = False   # Ctrl-C: the figures are of the batches that finished

    def summary(self):
        lines = [
            f"soak{' of the synth_ice40 netlist' if self.model == 'netlist' else ''}"
            f"{' (interrupted)' if self.interrupted else ''}: "
            f"{self.queries} queries (seed {self.seed}, rules {self.config.rules.value}, "
            f"{self.config.chains} chains{self.config.note}"
            f", depth {self.config.depth}, {self.workers} worker"
            f"{'s' if self.workers != 1 else ''}) in {self.seconds:.1f} s: "
            f"{self.queries_per_second:,.0f} queries/s",
            "  stops: " + ", ".join(f"{name} {count}" for name, count in sorted(self.stops.items()))
            + f"; repetitions found: {self.repetitions}, draws for the search: {self.draws}"
              f"; upcoming repetitions found: "
              f"{self.upcoming}; queries with a refetch: "
              f"{self.refetched}; queries from the words just written: {self.fresh}"
              + (f"; answered by the backstop: {self.backstopped}"
                 if self.config.backstop else ""),
            "  queries by source: " + ", ".join(f"{name} {count}"
                                                for name, count in sorted(self.kinds.items())),
            "  worker time: " + ", ".join(f"{name} {seconds:.1f} s"
                                          for name, seconds in sorted(self.work_seconds.items())),
            f"  mismatches: {self.mismatches}",
        ]
        for mismatch in self.first_mismatches:
            lines.append("  " + mismatch.describe())
        return "\n".join(lines)


def _default_workers():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def soak(queries=100_000, seed=0, config=SHIPPED, *, workers=None,
         batch_queries=BATCH_QUERIES, build_dir=None, keep=KEEP_MISMATCHES, progress=None,
         netlist=False, netlist_edit=None, log=None):
    """Run about ``queries`` random queries on the CXXRTL model; return a :class:`SoakReport`.

    The count is rounded up to whole batches of ``batch_queries``. ``workers``
    processes check batches in parallel (default: one per core; 1 runs in this
    process). ``progress``, if given, is called with ``(queries done, queries
    total, mismatches)`` after each batch. ``netlist`` soaks the synthesised
    netlist instead of the RTL, changed by ``netlist_edit`` if given (see
    :class:`~axon.sim.backends.netlist.NetlistSession`). ``log`` receives the build's
    progress lines (synthesis, compilation). ``config`` is the detector's
    (:class:`~axon.hdl.params.DetectorConfig`; the 1K boards':
    :data:`~axon.hdl.params.LEAN`).
    """
    if not isinstance(queries, int) or queries < 1:
        raise ValueError(f"query count must be a positive integer, not {queries!r}")
    if not isinstance(batch_queries, int) or batch_queries < 1:
        raise ValueError(f"batch size must be a positive integer, not {batch_queries!r}")
    if workers is None:
        workers = _default_workers()
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"worker count must be a positive integer, not {workers!r}")
    batches = -(-queries // batch_queries)
    workers = min(workers, batches)
    # Built here, once, so that the workers find the binary in the cache.
    session = _session(config, build_dir, netlist, netlist_edit, log)
    session.build()

    began = time.perf_counter()
    total = BatchReport()
    tasks = [(seed, index, batch_queries, keep) for index in range(batches)]

    def collect(reports):
        for report in reports:
            total.queries += report.queries
            total.mismatches += report.mismatches
            total.first.extend(report.first[:keep - len(total.first)])
            total.stops.update(report.stops)
            total.kinds.update(report.kinds)
            total.repetitions += report.repetitions
            total.draws += report.draws
            total.upcoming += report.upcoming
            total.refetched += report.refetched
            total.fresh += report.fresh
            total.backstopped += report.backstopped
            total.seconds.update(report.seconds)
            if progress is not None:
                # Batches overshoot their size by part of a game.
                progress(total.queries, max(total.queries, batches * batch_queries),
                         total.mismatches)

    interrupted = False
    try:
        if workers == 1:
            collect(check_batch(session, *task) for task in tasks)
        else:
            # Leaving the block terminates the workers, Ctrl-C or not.
            with multiprocessing.Pool(workers, initializer=_init_worker,
                                      initargs=(config, build_dir, netlist,
                                                netlist_edit, None)) as pool:
                collect(pool.imap(_check_batch_in_worker, tasks))
    except KeyboardInterrupt:
        # Report the batches that finished; the caller says it was cut short.
        interrupted = True
    seconds = time.perf_counter() - began
    return SoakReport(
        queries=total.queries, mismatches=total.mismatches, first_mismatches=total.first,
        seconds=seconds, queries_per_second=total.queries / seconds if seconds else 0.0, stops=total.stops,
        kinds=total.kinds, repetitions=total.repetitions, draws=total.draws,
        upcoming=total.upcoming,
        refetched=total.refetched, fresh=total.fresh, backstopped=total.backstopped,
        work_seconds=dict(total.seconds),
        build_info=session.build_info, seed=seed, config=config,
        workers=workers, model="netlist" if netlist else "cxxrtl", interrupted=interrupted)
