# amaranth: UnusedElaboratable=no
"""Upcoming repetition in the gateware: RTL against the golden model and python-chess.

The compiled RTL (CXXRTL) answers every ply of the corpus of
``tests/test_upcoming.py`` (the bundled games, generated games biased to
reversible moves and pawnless shuffles); the Python simulator answers the
bundled games, the blocked and out-of-reach lines with their twins, and a few
reversible games. Every answer equals the golden model's field for field,
its clock count is the repetition's own (the upcoming answer does not delay
it; the queries follow each kind of write, :class:`~axon.hdl.params.Written`),
and python-chess agrees wherever the scan ended at a barrier or the
bottom.
"""

import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys

import chess
import chess.pgn
import pytest

from axon.hdl.detector import AxonDetector
from axon.hdl.upcoming import UPCOMING_CLOCKS
from axon.sim.model.encode import encode_moves
from axon.sim.model.games import load_games
from axon.sim.model.generate import crowded_corpus, game_corpus, random_endgame, random_game
from axon.sim.model.golden import Stop, perpetual
from axon.sim.model.oracle import oracle_upcoming
from axon.sim.backends.pysim import PysimSession, expected_cycles
from axon.sim.bench.capacity import CROWDED_SEED
from axon.sim.backends.session import written_before
from axon.hdl.params import SHIPPED, DetectorConfig

from .test_upcoming import (CROWDED_DETOUR_SEED, LINES, crowded_upcoming_games,
                            upcoming_disagreement)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "upcoming repetition (RTL)"


DATA = os.path.join(os.path.dirname(__file__), os.pardir, "sim", "data")

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the CXXRTL backend compiles with g++, not on PATH")


def _bundled(pattern="*.pgn"):
    games = []
    for path in sorted(glob.glob(os.path.join(DATA, pattern))):
        games += [(record.board, record.moves) for record in load_games(path)]
    return games


def _reversible(count, seed):
    rng = random.Random(seed)
    return [random_game(rng, 90, random_endgame(rng), reversible_bias=1.0)
            for _ in range(count)]


def _lines():
    games = []
    for fen, line, twin_fen, _ in LINES.values():
        moves = [chess.Move.from_uci(uci) for uci in line.split()]
        games += [(chess.Board(fen), moves), (chess.Board(twin_fen), moves)]
    return games


def _jobs(games, count_limit=15):
    """``(words, queries)`` jobs, every ply with its occupancy and a search
    root in turn (none, three and six plies below the query, at it), and the
    python-chess answers. Every other game asks its last ply first, right
    after the load wrote its word."""
    jobs, truths = [], []
    for board, moves in games:
        after, queries = board.copy(stack=False), []
        for ply, move in enumerate(moves):
            after.push(move)
            root = max(-1, (-1, ply - 3, ply - 6, ply)[ply % 4])
            queries.append((ply, count_limit, int(after.occupied), root))
        truth = oracle_upcoming(board, moves)
        if len(jobs) % 2 == 0:
            queries, truth = queries[-1:] + queries[:-1], truth[-1:] + truth[:-1]
        jobs.append((encode_moves(board, moves), queries))
        truths.append(truth)
    return jobs, truths


def _check(jobs, truths, answers, config=SHIPPED):
    """RTL = golden on every field and the repetition's clock count; golden
    and RTL = python-chess where the answer says it is exact
    (``upcoming_exact``, which must say so exactly when the scan found a move
    or ended at a barrier or the bottom), and true where not."""
    found = exact = 0
    for (words, queries), truth, job_answers, job_written in zip(jobs, truths, answers,
                                                                 written_before(jobs)):
        for (top, count_limit, occupancy, root), answer, timed, written in zip(
                queries, truth, job_answers, job_written):
            where = f"top {top} root {root} of a {len(words)}-word game, after {written}"
            expected = perpetual(words, top, root_address=root, config=config,
                                 count_limit=count_limit, occupancy=occupancy)
            assert timed.result == expected, where
            assert timed.cycles == expected_cycles(words, top, expected, config, written), where
            if config.rules.fide:
                why = upcoming_disagreement(expected, answer, top, root)
                assert why is None, f"{where}: {why}"
                exact += expected.upcoming_exact
            elif expected.upcoming:
                reached = {(reply.from_square, reply.to_square) for reply in answer.moves}
                assert expected.upcoming_move in reached, where
            found += expected.upcoming
    return found, exact


def test_pysim_bundled_games_and_blocked_lines():
    # The paper's figures and the traps (the long Diep game is left to the
    # CXXRTL run below, to keep the Python simulation short).
    jobs, truths = _jobs(_bundled("paper_*.pgn") + _bundled("traps.pgn") + _lines() +
                         _reversible(2, 1212))
    answers = PysimSession().run_batch(jobs)
    found, exact = _check(jobs, truths, answers)
    assert found > 100 and exact > 250


def test_pysim_backstop_answers_the_upcoming_repetition():
    # Crowded boards, where the pools overflow and the backstop answers the
    # repetition: the backstop answers the upcoming repetition too, and
    # upcoming.done still comes UPCOMING_CLOCKS after the query's done,
    # which the session checks (after the backstop's answer, not the pools').
    games = crowded_corpus(4, CROWDED_SEED + 3)[3:]
    jobs, truths = _jobs(games)
    config = SHIPPED.replace(backstop=True)
    answers = PysimSession(config).run_batch(jobs)
    _check(jobs, truths, answers, config)
    timed = [answer for job_answers in answers for answer in job_answers]
    assert sum(answer.result.backstop for answer in timed) >= 50
    assert any(answer.result.backstop and answer.result.upcoming for answer in timed)


class _PoolsUpcomingDetector(AxonDetector):
    """The detector whose upcoming block ignores the backstop: its answer
    stays the pools', up to their overflow (a broken variant)."""
    @staticmethod
    def _follow_backstop(m, backstop, upcoming):
        pass


class _PoolsUpcomingSession(PysimSession):
    def make_dut(self):
        return _PoolsUpcomingDetector(self.config)


def _missed_by_the_pools():
    """One crowded detour game cut after the first query where the pools,
    overflowing, miss the upcoming repetition that the backstop finds: a
    job of that query alone, and its python-chess answer."""
    config = SHIPPED.replace(backstop=False)
    for _, _, words, occupancy, answers in crowded_upcoming_games(8):
        for top, answer in enumerate(answers):
            pools = perpetual(words, top, config=config, count_limit=15,
                              occupancy=occupancy[top])
            if pools.overflow and answer.moves and not pools.upcoming:
                return [(words[:top + 1], [(top, 15, occupancy[top], -1)])], [[answer]]
    raise AssertionError("no crowded query that the pools miss")


def test_pysim_the_backstop_finds_what_the_pools_miss():
    # The pools overflow before the upcoming repetition's depth: the
    # backstop's walked list finds it (exact), and the detector whose
    # upcoming block ignores the backstop says a false "no", which fails.
    jobs, truths = _missed_by_the_pools()
    answers = PysimSession().run_batch(jobs)
    assert _check(jobs, truths, answers) == (1, 1)
    assert answers[0][0].result.backstop and answers[0][0].result.upcoming_exact
    broken = _PoolsUpcomingSession().run_batch(jobs)
    assert not broken[0][0].result.upcoming
    with pytest.raises(AssertionError):
        _check(jobs, truths, broken)


def test_pysim_blocked_lines_paper_rules():
    jobs, truths = _jobs(_lines())
    config = DetectorConfig(rules="paper")
    answers = PysimSession(config).run_batch(jobs)
    found, _ = _check(jobs, truths, answers, config)
    assert found > 2


@pytest.mark.quick
def test_pysim_a_wrong_occupancy_is_caught():
    # The blocked lines answered on an empty board (occupancy 0): the piece
    # goes straight back through its blocker, which python-chess refuses.
    jobs, truths = _jobs([game for game in _lines()])
    cleared = [(words, [(top, limit, 0, root) for top, limit, _, root in queries])
               for words, queries in jobs]
    answers = PysimSession().run_batch(cleared)
    with pytest.raises(AssertionError):
        _check(jobs, truths, answers)


@needs_gxx
@pytest.mark.parametrize("generated, shuffles", [
    (20, 20), pytest.param(120, 80, marks=pytest.mark.slow)])
def test_cxxrtl_upcoming_corpus(generated, shuffles):
    # The default run takes a sample of test_upcoming.py's corpus (python-chess
    # pushing every legal move at every ply is the slow part); --runslow the
    # whole of it.
    from axon.sim.backends.cxxrtl import CxxrtlSession
    games = (_bundled() + game_corpus(generated, seed=2012) + _reversible(shuffles, 2013) +
             _lines())
    jobs, truths = _jobs(games)
    answers = CxxrtlSession().run_batch(jobs)
    found, exact = _check(jobs, truths, answers)
    assert found > 12 * (generated + shuffles) and exact > 50 * (generated + shuffles)


@needs_gxx
@pytest.mark.parametrize("rules", [
    "exact", pytest.param("paper", marks=pytest.mark.slow)])
def test_cxxrtl_a_stopped_scan_reports_only_true_moves(rules):
    # Stop at the first repetition (a search's setting), four chains (two a
    # side, so overflows are common): the scan may miss a repetition further
    # back but what it reports is a move python-chess confirms.
    from axon.sim.backends.cxxrtl import CxxrtlSession
    games = _reversible(12, 77) + game_corpus(8, seed=78)
    jobs, truths = _jobs(games, count_limit=1)
    config = DetectorConfig(chains=4, rules=rules)
    answers = CxxrtlSession(config).run_batch(jobs)
    found, _ = _check(jobs, truths, answers, config)
    assert found > 30
    stops = {perpetual(words, top, config=config, count_limit=1).stop
             for words, queries in jobs for top, _, _, _ in queries}
    assert {Stop.LIMIT, Stop.OVERFLOW} <= stops


def test_a_new_query_forgets_the_last_ones_candidates():
    # Start the next query on the clock `done` rises, before the first one's
    # upcoming answer is in: its candidates still in the path check must not
    # leak into the second answer.
    from axon.sim.backends.pysim import write_words
    board = chess.Board("k7/8/8/8/8/8/8/6NK b - - 0 1")
    moves = [chess.Move.from_uci(uci) for uci in "a8b8 g1f3 b8a8 f3g1 a8b8".split()]
    words = encode_moves(board, moves)
    after = board.copy(stack=False)
    for move in moves:
        after.push(move)
    occupancy = int(after.occupied)
    session = PysimSession(config=DetectorConfig(depth=16))
    dut = session.make_dut()
    seen = {}

    async def bench(ctx):
        await write_words(ctx, dut, words)
        for top in (len(words) - 1, 0):
            ctx.set(dut.query.top, top)
            ctx.set(dut.query.count_limit, 15)
            ctx.set(dut.upcoming.occupancy, occupancy)
            ctx.set(dut.query.start, 1)
            await ctx.tick()
            ctx.set(dut.query.start, 0)
            while not ctx.get(dut.query.done):
                await ctx.tick()
        for _ in range(UPCOMING_CLOCKS):
            await ctx.tick()
        seen["done"] = ctx.get(dut.upcoming.done)
        seen["found"] = ctx.get(dut.upcoming.answer.found)

    session.simulate(dut, bench)
    assert perpetual(words, len(words) - 1, occupancy=occupancy).upcoming
    assert not perpetual(words, 0, occupancy=occupancy).upcoming
    assert seen == {"done": 1, "found": 0}


@pytest.mark.quick
def test_without_upcoming_the_detector_answers_none():
    jobs, _ = _jobs(_lines())
    answers = PysimSession(config=DetectorConfig(upcoming=False)).run_batch(jobs[:2])
    for (words, queries), job_answers in zip(jobs, answers):
        for (top, limit, _, root), timed in zip(queries, job_answers):
            assert timed.result == perpetual(words, top, root_address=root, count_limit=limit)


# -- through the command line: crowded detours, generated here ------------------

def _script():
    script = os.path.join(os.path.dirname(sys.executable), "axon")
    if not os.path.exists(script):
        pytest.skip("the axon console script is not installed next to this python")
    return script


def _crowded_pgn(path, games):
    """Write the crowded detour games (with their FENs) to a PGN file."""
    with open(path, "w") as out:
        for number, (board, moves, *_) in enumerate(games, start=1):
            game = chess.pgn.Game.from_board(board)
            game.headers["Event"] = f"crowded detours {number}"
            node = game
            for move in moves:
                node = node.add_variation(move)
            print(game, file=out, end="\n\n")
    return path


def _summary(stdout):
    """``(plies, backstopped, upcoming found, not exact)`` from a verify."""
    plies = int(re.search(r"games \d+, plies (\d+),", stdout).group(1))
    backstopped = int(re.search(r"the backstop answered (\d+)", stdout).group(1))
    found = int(re.search(r"upcoming repetitions found (\d+)", stdout).group(1))
    inexact = re.search(r"\((\d+) upcoming answers? not exact\)", stdout)
    return plies, backstopped, found, int(inexact.group(1)) if inexact else 0


@needs_gxx
@pytest.mark.parametrize("count, seed", [(8, CROWDED_DETOUR_SEED),
                                         pytest.param(40, 4608, marks=pytest.mark.slow)])
def test_cxxrtl_verify_crowded_detours(tmp_path, count, seed):
    # `axon verify --backend cxxrtl`: the compiled shipped detector equals the
    # golden model in every field (upcoming_exact included) and its clocks,
    # and python-chess agrees with every upcoming answer, all exact, the
    # backstop's included.
    pgn = _crowded_pgn(tmp_path / "crowded.pgn", crowded_upcoming_games(count, seed))
    done = subprocess.run([_script(), "verify", str(pgn), "--backend", "cxxrtl",
                           "--count-limit", "15", "-q"],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("disagreements: none"), done.stdout
    plies, backstopped, found, inexact = _summary(done.stdout)
    assert plies > 50 * count and backstopped > 12 * count and found > 20 * count, done.stdout
    assert inexact == 0, done.stdout


def test_the_pools_alone_say_their_upcoming_answer_is_not_exact(tmp_path):
    # `--no-backstop`: the pools overflow, and a "no" after an overflow is
    # not exact: `upcoming_exact` false in the JSONL, `?` in the table, and
    # where the JSONL says exact, python-chess agrees.
    games = crowded_upcoming_games(8)
    pgn = _crowded_pgn(tmp_path / "crowded.pgn", games)
    done = subprocess.run([_script(), "scan", str(pgn), "--no-backstop", "--count-limit", "15",
                           "--jsonl"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    truths = [answer for *_, answers in games for answer in answers]
    assert len(records) == len(truths)
    inexact = 0
    for record, truth in zip(records, truths):
        if record["upcoming_exact"]:
            move = truth.move and truth.move.uci()
            assert (record["upcoming"], record["upcoming_move"], record["upcoming_distance"]) \
                == (bool(truth.moves), move, truth.distance), record
        else:
            assert record["overflow"] and not record["upcoming"], record
            inexact += 1
    assert inexact > 50
    done = subprocess.run([_script(), "scan", str(pgn), "--no-backstop", "--count-limit", "15"],
                          capture_output=True, text=True, timeout=300)
    rows = [line.split() for line in done.stdout.splitlines() if "overflow" in line]
    assert rows and all(row[-1] in ("?", "-") or len(row[-1]) == 4 for row in rows)
    assert sum(row[-1] == "?" for row in rows) == inexact
