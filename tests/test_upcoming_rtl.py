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
import os
import random
import shutil

import chess
import pytest

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

from .test_upcoming import LINES


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
    and RTL = python-chess where the scan is exact, and true where not."""
    found = exact = 0
    for (words, queries), truth, job_answers, job_written in zip(jobs, truths, answers,
                                                                 written_before(jobs)):
        for (top, count_limit, occupancy, root), answer, timed, written in zip(
                queries, truth, job_answers, job_written):
            where = f"top {top} root {root} of a {len(words)}-word game, after {written}"
            expected = perpetual(words, top, root=root, config=config,
                                 count_limit=count_limit, occupancy=occupancy)
            assert timed.result == expected, where
            assert timed.cycles == expected_cycles(words, top, expected, config, written), where
            move = answer.move and (answer.move.from_square, answer.move.to_square)
            if expected.stop in (Stop.BARRIER, Stop.BOTTOM) and config.rules.fide:
                assert (expected.upcoming, expected.upcoming_move, expected.upcoming_distance) \
                    == (bool(answer.moves), move, answer.distance), where
                # The earlier position is top + 2 - distance plies into the
                # game; the root position, root + 1.
                assert expected.upcoming_draw == \
                    bool(answer.moves and top + 2 - answer.distance > root + 1), where
                exact += 1
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


def test_pysim_backstop_keeps_the_pools_upcoming_answer():
    # Crowded boards, where the pools overflow and the backstop answers the
    # repetition: the upcoming answer is the pools' (up to their overflow),
    # and upcoming.done still comes UPCOMING_CLOCKS after the query's done,
    # which the session checks (after the backstop's answer, not the pools').
    games = crowded_corpus(4, CROWDED_SEED + 3)[3:]
    jobs, truths = _jobs(games)
    config = SHIPPED.replace(backstop=True)
    answers = PysimSession(config).run_batch(jobs)
    _check(jobs, truths, answers, config)
    timed = [answer for job_answers in answers for answer in job_answers]
    assert sum(answer.result.backstop for answer in timed) >= 50
    assert any(answer.result.backstop and answer.result.upcoming for answer in timed)


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
            assert timed.result == perpetual(words, top, root=root, count_limit=limit)
