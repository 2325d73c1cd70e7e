# amaranth: UnusedElaboratable=no
"""The CXXRTL model against the golden model and against Amaranth's simulator.

The C++ model must give the golden model's answer and clock count, and the
very same ``TimedResult`` as :class:`~axon.sim.backends.pysim.PysimSession` on the same
jobs: the harness drives the ports as the Python testbench does.
"""

import os
import random
import shutil
import subprocess
import time

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from axon.hdl import MoveMemorySignature, QuerySignature, UpcomingSignature
from axon.hdl.word import pack_word
from axon.sim.model.encode import encode_moves
from axon.sim.model.generate import game_corpus
from axon.sim.model.golden import Stop, perpetual
from axon.sim.backends.pysim import PysimSession, expected_cycles, split_query
from axon.sim.backends.session import written_before
from axon.sim.verify.soak import IMAGE_KINDS, random_image
from axon.hdl.params import (FRESH_SAVED_CLOCKS, RESTART_CLOCKS, SHORT_ANSWER_CLOCKS,
                             DetectorConfig, Written)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "CXXRTL backend"


DEPTH = 256
# 24 is the default; 4 chains (two a side) overflow often. (An odd count such
# as 3 is refused: half the slots serve each side.) The last is the 1K
# boards' lean configuration: one pool a side, one ply a clock.
# Each configuration is a model to compile (seconds to half a minute, cold).
# The default run compiles one of each rule set, layout and scan: the exact
# rules at 24 chains in the kind pools (shipped) and at 4 in the lean
# layout, the paper rules at 4 in the kind pools; the other pairings are a
# sweep (the Python simulator's tests take them all).
_DEFAULT_RUN = {("exact", 24, "kind", "pair"), ("exact", 4, "side", "single"),
                ("paper", 4, "kind", "pair")}
CONFIGS = [(rules, chains, pools, scan) if (rules, chains, pools, scan) in _DEFAULT_RUN else
           pytest.param(rules, chains, pools, scan, marks=pytest.mark.slow)
           for rules in ("exact", "paper")
           for chains, pools, scan in ((24, "kind", "pair"), (4, "kind", "pair"),
                                       (4, "side", "single"))]
# The 1K boards' walked chain list in block RAM (exact rules only).
CONFIGS += [("exact", 32, "walked", "single")]

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the CXXRTL backend compiles with g++, which is not on PATH")


@pytest.fixture(scope="module")
def sessions():
    """One built session per configuration, shared by the tests of this file."""
    from axon.sim.backends.cxxrtl import CxxrtlSession
    built = {}

    def get(rules, chains, pools="kind", scan="pair"):
        config = rules, chains, pools, scan
        if config not in built:
            session = CxxrtlSession(config=DetectorConfig(depth=DEPTH, chains=chains, rules=rules, pools=pools, scan=scan))
            session.build()
            info = session.build_info
            print(f"\ncxxrtl {'/'.join(map(str, config))}: "
                  f"{'cached' if info['cached'] else 'compiled'}, "
                  f"convert {info['convert_seconds']:.1f} s, "
                  f"compile {info['compile_seconds']:.1f} s")
            built[config] = session
        return built[config]
    return get


def python_session(session):
    """Amaranth's simulator on the configuration of a CXXRTL ``session``."""
    return PysimSession(session.config)


def search_root(rng, top, length):
    """A root for a query at ``top``: no history, a few plies below, at the
    query, above it (a position of the game history), or anywhere."""
    return rng.choice((-1, max(-1, top - rng.randint(1, 12)), top, min(length - 1, top + 4),
                       rng.randrange(-1, length)))


def game_jobs(games, count_limits=(4, 1, 0, 2, 15), seed=0):
    """One job a game, querying after every ply. Every other game asks its
    last ply first, right after the load wrote its word; the others ask
    the first ply first, after the load wrote another."""
    rng = random.Random(seed)
    jobs = []
    for board, moves in games:
        words = encode_moves(board, moves)
        last = len(words) - 1
        tops = (last, *range(last)) if len(jobs) % 2 == 0 else range(len(words))
        jobs.append((words, [(top, count_limits[top % len(count_limits)], None,
                              search_root(rng, top, len(words)))
                             for top in tops]))
    return jobs


def image_jobs(seed, images_per_kind, queries_per_image=6):
    """Random full-depth images of every soak kind, queried at 0, depth - 1
    and at random; every other image at depth - 1 first, right after the
    load wrote it, the others at 0 first."""
    rng = random.Random(seed)
    jobs = []
    for kind in IMAGE_KINDS:
        for _ in range(images_per_kind):
            ends = [0, DEPTH - 1] if len(jobs) % 2 else [DEPTH - 1, 0]
            tops = ends + [rng.randrange(DEPTH) for _ in range(queries_per_image - 2)]
            jobs.append((random_image(rng, DEPTH, kind),
                         [(top, rng.choice((0, 1, 15, rng.randint(0, 15))), None,
                           search_root(rng, top, DEPTH)) for top in tops]))
    return jobs


def check_against_golden(session, jobs, answers, legal):
    """Every answer and clock count the golden model's. The jobs must hold
    queries after each kind of write (:class:`~axon.hdl.params.Written`),
    so that the clocks' rule for any can fail."""
    stops, draws, starts = set(), set(), set()
    config = session.config
    memory = [0] * DEPTH
    for (words, queries), job_answers, job_written in zip(jobs, answers, written_before(jobs)):
        memory[:len(words)] = words
        assert len(job_answers) == len(queries)
        for query, got, written in zip(queries, job_answers, job_written):
            top, count_limit, _, root = split_query(query)
            expected = perpetual(memory, top, root_address=root, config=config, count_limit=count_limit)
            where = (f"top={top} root={root} limit={count_limit} after {written} "
                     f"words={words[:top + 1]}")
            assert got.result == expected, where
            assert got.cycles == expected_cycles(memory, top, expected, config, written), where
            if legal and config.latency_fixed:
                assert got.cycles == config.latency(expected.plies_scanned, written=written,
                                                    stop=expected.stop), where
            stops.add(expected.stop)
            draws.add((expected.repetition, expected.draw))
            starts.add(written)
    assert starts == set(Written)
    return stops, draws


@needs_gxx
@pytest.mark.parametrize("rules, chains, pools, scan", CONFIGS)
def test_games_match_golden_and_python_simulator(sessions, rules, chains, pools, scan):
    session = sessions(rules, chains, pools, scan)
    # Many games against the golden model: cheap on this backend.
    jobs = game_jobs(game_corpus(150, seed=21, plies=(16, 160)))
    stops, draws = check_against_golden(session, jobs, session.run_batch(jobs), legal=True)
    # Occurrences inside the search and held back by the root both met.
    assert draws >= {(True, True), (True, False)}
    expected_stops = {Stop.BARRIER, Stop.BOTTOM, Stop.LIMIT}
    if chains == 4:
        expected_stops.add(Stop.OVERFLOW)
    assert expected_stops <= stops
    # A few against Amaranth's simulator, answer for answer and clock for clock.
    few = game_jobs(game_corpus(8, seed=22, plies=(16, 80)))
    cxxrtl = session.run_batch(few)
    assert cxxrtl == python_session(session).run_batch(few)
    check_against_golden(session, few, cxxrtl, legal=True)


@needs_gxx
@pytest.mark.parametrize("rules, chains, pools, scan", CONFIGS)
def test_memory_images_match_golden_and_python_simulator(sessions, rules, chains, pools, scan):
    session = sessions(rules, chains, pools, scan)
    jobs = image_jobs(seed=31, images_per_kind=20, queries_per_image=12)
    stops, _ = check_against_golden(session, jobs, session.run_batch(jobs), legal=False)
    assert {Stop.BARRIER, Stop.BOTTOM, Stop.LIMIT} <= stops
    few = image_jobs(seed=32, images_per_kind=1)
    cxxrtl = session.run_batch(few)
    assert cxxrtl == python_session(session).run_batch(few)
    check_against_golden(session, few, cxxrtl, legal=False)


@needs_gxx
def test_hand_written_images(sessions):
    session = sessions("exact", 24)
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)] * (DEPTH // 4)
    all_barrier = [pack_word(12, 28, 1, barrier=True)] * DEPTH
    standing_still = [pack_word(9, 9, 2 | (address & 1) << 3) for address in range(DEPTH)]
    # Each image's first query starts from the words just written, its last
    # asks the same again. Then the shuffle's word below the top, right
    # after a load whose last word is the top, and again.
    jobs = [(words, [(DEPTH - 1, 15), (0, 4), (1, 15), (DEPTH - 1, 0), (DEPTH - 1, 1),
                     (DEPTH - 1, 15)])
            for words in (shuffle, all_barrier, standing_still)]
    jobs.append((shuffle, [(DEPTH - 2, 15), (DEPTH - 2, 15)]))
    answers = session.run_batch(jobs)
    check_against_golden(session, jobs, answers, legal=False)
    # The shuffle from the top finds 15 equal positions, 4 plies apart; the
    # same answer two clocks sooner from the words just written.
    assert answers[0][5].result.count == 15 and answers[0][5].result.distance == 4
    assert answers[0][0].result == answers[0][5].result
    assert answers[0][0].cycles == answers[0][5].cycles - FRESH_SAVED_CLOCKS
    # After a write elsewhere, a clock later.
    assert answers[3][0].result == answers[3][1].result
    assert answers[3][0].cycles == answers[3][1].cycles + RESTART_CLOCKS
    # A barrier on top: nothing applied, in one clock from the words just
    # written. A word that moves nothing comes only from an impossible list:
    # the scan stops there as an overflow, which takes the longer way.
    assert answers[1][5].result.plies_scanned == 0
    assert answers[1][0].cycles == SHORT_ANSWER_CLOCKS < answers[1][5].cycles
    assert answers[2][5].result.stop is Stop.OVERFLOW
    assert answers[2][5].result.plies_scanned == 0
    assert answers[2][0].cycles == answers[2][5].cycles - FRESH_SAVED_CLOCKS


@needs_gxx
def test_speed_against_python_simulator(sessions):
    session = sessions("exact", 24)
    jobs = game_jobs(game_corpus(6, seed=41, plies=(60, 120)))
    began = time.perf_counter()
    python_answers = PysimSession(config=DetectorConfig(depth=DEPTH, chains=24)).run_batch(jobs)
    python_seconds = time.perf_counter() - began
    began = time.perf_counter()
    cxxrtl_answers = session.run_batch(jobs)
    cxxrtl_seconds = time.perf_counter() - began
    assert cxxrtl_answers == python_answers
    # The clocks both testbenches run: a write a word, then each query.
    clocks = (sum(len(words) for words, _ in jobs) +
              sum(answer.cycles for answers in python_answers for answer in answers))
    # On a job this small, starting the process is much of CXXRTL's time; the
    # same jobs fifty times over give its steady rate.
    began = time.perf_counter()
    session.run_batch(jobs * 50)
    steady_seconds = time.perf_counter() - began
    print(f"\n{clocks} clocks: Amaranth simulator {clocks / python_seconds:,.0f} clocks/s, "
          f"CXXRTL {clocks / cxxrtl_seconds:,.0f} clocks/s "
          f"({python_seconds / cxxrtl_seconds:,.0f} times faster); "
          f"CXXRTL on {50 * clocks} clocks {50 * clocks / steady_seconds:,.0f} clocks/s "
          f"({50 * clocks / session.last_run_seconds:,.0f} in the C++ process alone)")
    # Loose, so that a loaded machine does not fail it; it is over 100 times.
    assert cxxrtl_seconds * 20 < python_seconds


@needs_gxx
def test_second_session_uses_the_cache(sessions):
    from axon.sim.backends.cxxrtl import CxxrtlSession
    first = sessions("exact", 24)
    second = CxxrtlSession(config=DetectorConfig(depth=DEPTH, chains=24, rules="exact"))
    assert second.build() == first.build()
    assert second.build_info["cached"]
    # No Yosys run and no g++ run: well under a second.
    assert second.build_info["convert_seconds"] + second.build_info["compile_seconds"] < 2


@needs_gxx
def test_builtin_yosys_wins_over_the_environment(tmp_path, monkeypatch):
    from axon.sim.backends.cxxrtl import CxxrtlSession
    # A $YOSYS that does not exist and a request for the system Yosys: the
    # conversion must still use the built-in one, and leave the setting alone.
    monkeypatch.setenv("YOSYS", str(tmp_path / "no-such-yosys"))
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "system")
    session = CxxrtlSession(config=DetectorConfig(depth=8, chains=2), build_dir=tmp_path)
    source, cached = session._design_source()
    assert not cached and "struct p_axon__detector" in source
    assert os.environ["AMARANTH_USE_YOSYS"] == "system"


class NeverDone(wiring.Component):
    """The detector's ports, with a ``done`` that never rises."""

    def __init__(self, config):
        self.config = config
        depth = config.depth
        super().__init__({
            "query":    In(QuerySignature(depth)),
            "memory":   In(MoveMemorySignature(depth)),
            "upcoming": In(UpcomingSignature(depth)),
        })

    def elaborate(self, platform):
        m = Module()
        # A register, so that the design has the sync domain's clk and rst.
        m.d.sync += self.query.busy.eq(self.query.start | self.query.busy)
        return m


@needs_gxx
def test_a_hung_query_times_out():
    from axon.sim.backends.cxxrtl import CxxrtlSession, DetectorTimeout

    class HungSession(CxxrtlSession):
        def _make_dut(self):
            return NeverDone(self.config)

    # The worst case at the top of 16 words, 16 + 4 + 3 + 1, and the margin of 9.
    session = HungSession(DetectorConfig(depth=16, chains=2))
    began = time.perf_counter()
    with pytest.raises(DetectorTimeout, match=r"job 0: query top=3 count_limit=4 did not "
                                              r"finish in 33 clocks"):
        session.run([0] * 4, [(3, 4)])
    assert session.run_batch([([0] * 4, [(3, 4), (2, 1)])], on_timeout="none") == [[None, None]]
    assert time.perf_counter() - began < 30


def test_pysim_gives_up_on_a_hung_query_where_cxxrtl_does():
    from axon.sim.backends.pysim import DetectorTimeout

    class HungPysimSession(PysimSession):
        def make_dut(self):
            return NeverDone(self.config)

    # The same clock count as the CXXRTL harness's (hung_after_clocks).
    with pytest.raises(DetectorTimeout, match=r"query top=3 did not finish in 33 clocks"):
        HungPysimSession(DetectorConfig(depth=16, chains=2)).run([0] * 4, [(3, 4)])


@pytest.mark.quick
@needs_gxx
def test_bad_jobs_are_refused_before_running(sessions):
    session = sessions("exact", 24)
    with pytest.raises(ValueError, match=r"job 0: 257 words do not fit a move list of depth 256"):
        session.run([0] * 257, [])
    with pytest.raises(ValueError, match=r"job 0: top must be an address in 0..255, not 256"):
        session.run([0], [(256, 1)])
    with pytest.raises(ValueError, match=r"job 1: count_limit must be in 0..15, not 16"):
        session.run_batch([([0], [(0, 1)]), ([0], [(0, 16)])])
    with pytest.raises(ValueError, match=r"move word must be an integer in range 0..131071, "
                                         r"not 131072"):
        session.run([1 << 17], [])
    with pytest.raises(ValueError, match=r"on_timeout must be 'raise' or 'none', not 'ignore'"):
        session.run_batch([], on_timeout="ignore")


@pytest.mark.quick
@needs_gxx
def test_harness_refuses_garbage(sessions):
    binary = sessions("exact", 24).build()
    process = subprocess.run([str(binary)], input=(7).to_bytes(4, "little"),
                             capture_output=True)
    assert process.returncode == 2
    assert b"unknown command (7)" in process.stderr


@pytest.mark.quick
@needs_gxx
def test_odd_chain_count_is_refused():
    from axon.sim.backends.cxxrtl import CxxrtlSession
    with pytest.raises(ValueError, match=r"chains must be even for the exact rules \(half "
                                         r"the slots serve each side\), not 3"):
        CxxrtlSession(config=DetectorConfig(chains=3))


def test_missing_compiler_is_a_clear_error(monkeypatch):
    from axon.sim.backends import cxxrtl
    monkeypatch.setattr(cxxrtl.shutil, "which", lambda name: None)
    with pytest.raises(cxxrtl.CxxrtlError, match=r"needs a C\+\+ compiler: `g\+\+` is not on PATH"):
        cxxrtl.CxxrtlSession(config=DetectorConfig(depth=8, chains=2))


@pytest.mark.quick
def test_default_cache_dir(monkeypatch, tmp_path):
    from axon.sim.backends.cxxrtl import default_cache_dir
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "axon-cxxrtl"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "axon-cxxrtl"
