"""Upcoming repetition in the golden model, against python-chess.

python-chess's side makes every legal move after every ply and looks the
position up in the game's history (:func:`axon.sim.model.oracle.oracle_upcoming`);
the golden model finds the move from its chain list alone, with one path
check on the occupancy bitboard.
"""

import functools
import glob
import os
import random
from dataclasses import replace

import chess
import pytest

from axon.sim.model.encode import encode_moves
from axon.sim.model.games import load_games
from axon.sim.model.generate import crowded_detours, game_corpus, random_endgame, random_game
from axon.sim.model.golden import Stop, perpetual, reaches, squares_between
from axon.sim.model.oracle import oracle_upcoming
from axon.hdl.params import SHIPPED, DetectorConfig, Rules


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "upcoming repetition (model)"


DATA = os.path.join(os.path.dirname(__file__), os.pardir, "sim", "data")


# -- the geometry, square by square against python-chess's tables -------------

@pytest.mark.quick
def test_squares_between_is_python_chess_between():
    for a in chess.SQUARES:
        for b in chess.SQUARES:
            assert squares_between(a, b) == int(chess.between(a, b)), (a, b)


@pytest.mark.quick
@pytest.mark.parametrize("kind", [chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN,
                                  chess.KING])
def test_reaches_is_a_move_on_an_empty_board(kind):
    for a in chess.SQUARES:
        board = chess.Board(None)
        board.set_piece_at(a, chess.Piece(kind, chess.WHITE))
        targets = board.attacks_mask(a)
        for b in chess.SQUARES:
            assert reaches(kind, a, b) == bool(targets >> b & 1), (kind, a, b)


# -- the corpora ----------------------------------------------------------------

def _corpus():
    games = []
    for path in sorted(glob.glob(os.path.join(DATA, "*.pgn"))):
        games += [(record.board, record.moves) for record in load_games(path)]
    games += game_corpus(120, seed=2012)
    rng = random.Random(2013)
    # Pawnless endgames that only shuffle: pieces come and go on detours.
    games += [random_game(rng, 90, random_endgame(rng), reversible_bias=1.0)
              for _ in range(80)]
    return games


@pytest.fixture(scope="module")
def corpus():
    cases = []
    for board, moves in _corpus():
        occupancy, after = [], board.copy(stack=False)
        for move in moves:
            after.push(move)
            occupancy.append(int(after.occupied))
        cases.append((encode_moves(board, moves), occupancy, oracle_upcoming(board, moves)))
    return cases


def _expected(answer):
    move = answer.move and (answer.move.from_square, answer.move.to_square)
    return bool(answer.moves), move, answer.distance


def test_exact_upcoming_matches_python_chess(corpus):
    plies = found = 0
    for game, (words, occupancy, answers) in enumerate(corpus):
        for ply, answer in enumerate(answers, start=1):
            result = perpetual(words, ply - 1, count_limit=15, occupancy=occupancy[ply - 1])
            got = (result.upcoming, result.upcoming_move, result.upcoming_distance)
            if result.stop in (Stop.BARRIER, Stop.BOTTOM):
                assert got == _expected(answer), f"game {game} ply {ply}"
            elif result.upcoming:
                assert got == _expected(answer), f"game {game} ply {ply}"
            plies += 1
            found += result.upcoming
    assert plies > 10000 and found > 1500


def test_upcoming_draw_is_a_position_after_the_root(corpus):
    # The move's earlier position is ply + 1 - distance plies into the game;
    # it is a draw for the search when that lies after the root's ply.
    inside = outside = 0
    for words, occupancy, answers in corpus[::4]:
        for root in (0, len(words) // 2, len(words)):
            for ply, answer in enumerate(answers, start=1):
                result = perpetual(words, ply - 1, root_address=root - 1, count_limit=15,
                                   occupancy=occupancy[ply - 1])
                if result.stop not in (Stop.BARRIER, Stop.BOTTOM) or not answer.move:
                    continue
                expected = ply + 1 - answer.distance > root
                assert result.upcoming_draw == expected, f"root {root} ply {ply}"
                inside += expected
                outside += not expected
    assert inside > 100 and outside > 100


@pytest.mark.parametrize("rules", [Rules.PAPER, Rules.EXACT])
def test_what_a_stopped_scan_reports_is_true(corpus, rules):
    # Stopping at the first repetition (a search's setting) or overflowing on
    # two chains a side may miss an upcoming repetition further back; what it
    # reports must still be python-chess's answer.
    stopped = missed = 0
    for words, occupancy, answers in corpus:
        for ply, answer in enumerate(answers, start=1):
            result = perpetual(words, ply - 1, config=DetectorConfig(rules=rules, chains=4),
                               count_limit=1, occupancy=occupancy[ply - 1])
            if result.upcoming:
                assert (True, result.upcoming_move, result.upcoming_distance) == \
                       _expected(answer)
            elif answer.moves:
                assert result.stop in (Stop.LIMIT, Stop.OVERFLOW) or not rules.fide
                missed += 1
            stopped += result.stop in (Stop.LIMIT, Stop.OVERFLOW)
    assert stopped > 1000 and missed > 10


# -- a blocked path or an unreachable square is the only thing in the way ----------

# Black starts and a Black king walks a cycle back home while one White piece
# goes the long way round; the piece could go straight back but for the one
# thing named. In each twin the obstacle is gone and the move repeats.
LINES = {
    # Qa1-c3-a5; the knight on a3 stands between a5 and a1.
    "queen blocked": ("4k3/8/8/8/8/N7/8/Q6K b - - 0 1", "e8d8 a1c3 d8d7 c3a5 d7e8",
                      "4k3/8/8/8/8/7N/8/Q6K b - - 0 1", ("a5", "a1", 6)),
    # Ra1-b1-b5-a5 while the king walks a square; the knight on a3 blocks.
    "rook blocked": ("4k3/8/8/8/8/N7/8/R6K b - - 0 1", "e8d8 a1b1 d8d7 b1b5 d7e7 b5a5 e7e8",
                     "4k3/8/8/8/8/7N/8/R6K b - - 0 1", ("a5", "a1", 8)),
    # Bc1-a3-f8-h6; the knight on d2 blocks the diagonal back.
    "bishop blocked": ("k7/8/8/8/8/8/3N4/2B4K b - - 0 1", "a8b8 c1a3 b8b7 a3f8 b7a7 f8h6 a7a8",
                       "k7/8/8/8/8/7N/8/2B4K b - - 0 1", ("h6", "c1", 8)),
    # Ng1-f3-e5: e5 to g1 is no knight move.
    "knight out of reach": ("k7/8/8/8/8/8/8/6NK b - - 0 1", "a8b8 g1f3 b8b7 f3e5 b7a8",
                            "k7/8/8/8/8/8/8/6NK b - - 0 1", None),
    # Kg1-f2-e3: e3 is two squares from g1.
    "king out of reach": ("k7/8/8/8/8/8/8/6K1 b - - 0 1", "a8b8 g1f2 b8b7 f2e3 b7a8",
                          "k7/8/8/8/8/8/8/6K1 b - - 0 1", None),
}


def _last_ply(fen, line):
    board = chess.Board(fen)
    moves = [chess.Move.from_uci(uci) for uci in line.split()]
    after = board.copy(stack=False)
    for move in moves:
        assert after.is_legal(move), move
        after.push(move)
    result = perpetual(encode_moves(board, moves), len(moves) - 1, occupancy=int(after.occupied))
    return result, oracle_upcoming(board, moves)[-1]


@pytest.mark.quick
@pytest.mark.parametrize("name", LINES)
def test_blocked_or_unreachable_is_no_upcoming(name):
    fen, line, _, _ = LINES[name]
    result, answer = _last_ply(fen, line)
    assert not answer.moves
    assert (result.upcoming, result.upcoming_move, result.upcoming_distance) == \
           (False, None, None)


@pytest.mark.parametrize("name", [name for name in LINES if LINES[name][3]])
def test_without_the_obstacle_the_move_repeats(name):
    _, line, fen, (from_name, to_name, distance) = LINES[name]
    result, answer = _last_ply(fen, line)
    move = (chess.parse_square(from_name), chess.parse_square(to_name))
    assert (result.upcoming, result.upcoming_move, result.upcoming_distance) == \
           (True, move, distance)
    assert _expected(answer) == (True, move, distance)


@pytest.mark.quick
def test_occupancy_must_be_a_bitboard():
    words = encode_moves(chess.Board(), [chess.Move.from_uci("g1f3")])
    with pytest.raises(ValueError, match=r"occupancy must be a 64-bit bitboard, not -1"):
        perpetual(words, 0, occupancy=-1)


# -- crowded boards, where the backstop answers -----------------------------------

# Seeded at test time: crowded boards (promoted pieces) whose pieces go out on
# nested detours and come back, so that the pools by kind overflow on queries
# that hold upcoming repetitions far back (:func:`crowded_detours`).
CROWDED_DETOUR_SEED = 4606


@functools.lru_cache(maxsize=None)
def crowded_upcoming_games(count, seed=CROWDED_DETOUR_SEED, plies=60):
    """``count`` crowded detour games, each holding upcoming repetitions,
    with their python-chess answers: ``(board, moves, words, occupancies,
    answers)`` (made once a run, for the model's tests and the RTL's)."""
    games = []
    for board, moves in crowded_detours(count * 3, seed, plies):
        answers = oracle_upcoming(board, moves)
        if sum(bool(answer.moves) for answer in answers) < 3:
            continue
        after, occupancy = board.copy(stack=False), []
        for move in moves:
            after.push(move)
            occupancy.append(int(after.occupied))
        games.append((board, moves, encode_moves(board, moves), occupancy, answers))
        if len(games) == count:
            return games
    raise AssertionError(f"too few crowded games with upcoming repetitions from seed {seed}")


def upcoming_disagreement(result, answer, top, root=-1):
    """Why ``result``'s upcoming fields disagree with python-chess's
    ``answer`` for the query at ``top`` (a whole game in the move list), or
    ``None``. ``upcoming_exact`` must say whether the scan found a move or
    ended at a barrier or the bottom; an exact answer equals python-chess's
    in every field (never a false "no"), and an inexact one names only a
    move that python-chess confirms."""
    complete = result.stop in (Stop.BARRIER, Stop.BOTTOM)
    if result.upcoming_exact != (bool(result.upcoming) or complete):
        return f"upcoming_exact {result.upcoming_exact} after a {result.stop.name} stop"
    if result.upcoming_exact:
        # The earlier position is top + 2 - distance plies into the game; the
        # root position, root + 1.
        truth = _expected(answer) + (
            bool(answer.moves and top + 2 - answer.distance > root + 1),)
        got = (result.upcoming, result.upcoming_move, result.upcoming_distance,
               result.upcoming_draw)
        return None if got == truth else f"{got}, python-chess {truth}"
    reached = {(reply.from_square, reply.to_square) for reply in answer.moves}
    if result.upcoming and result.upcoming_move not in reached:
        return f"{result.upcoming_move} reaches no earlier position"
    return None


def crowded_queries(games):
    """Every ply of ``games`` with a root in turn (none, three and six plies
    below the query, at it): ``(words, top, root, occupancy, answer)``."""
    for _, _, words, occupancy, answers in games:
        for top, answer in enumerate(answers):
            root = max(-1, (-1, top - 3, top - 6, top)[top % 4])
            yield words, top, root, occupancy[top], answer


def _pools_upcoming(words, top, root, occupancy):
    """The upcoming answer as the shipped detector gave it before the
    backstop answered it too: the pools' up to their overflow, said to be
    exact where the backstop's scan is (a broken variant that must fail)."""
    answer = perpetual(words, top, root_address=root, count_limit=15, occupancy=occupancy)
    pools = perpetual(words, top, root_address=root, config=SHIPPED.replace(backstop=False),
                      count_limit=15, occupancy=occupancy)
    return replace(answer, upcoming=pools.upcoming, upcoming_move=pools.upcoming_move,
                   upcoming_distance=pools.upcoming_distance, upcoming_draw=pools.upcoming_draw,
                   upcoming_exact=pools.upcoming or answer.stop in (Stop.BARRIER, Stop.BOTTOM))


@pytest.fixture(scope="module")
def crowded_upcoming():
    return crowded_upcoming_games(8)


def _check_backstopped(games):
    queries = backstopped = backstopped_found = 0
    for words, top, root, occupancy, answer in crowded_queries(games):
        result = perpetual(words, top, root_address=root, count_limit=15, occupancy=occupancy)
        where = f"top {top} root {root} of {words[:top + 1]}"
        assert upcoming_disagreement(result, answer, top, root) is None, where
        # No overflow stops a legal scan, and the limit is out of reach.
        assert result.upcoming_exact, where
        queries += 1
        backstopped += result.backstop
        backstopped_found += result.backstop and result.upcoming
    return queries, backstopped, backstopped_found


def test_backstop_answers_the_upcoming_repetition_exactly(crowded_upcoming):
    # The shipped detector on crowded boards: every query's upcoming answer
    # is python-chess's, the backstop's included, and exact.
    queries, backstopped, found = _check_backstopped(crowded_upcoming)
    assert queries > 400 and backstopped > 100 and found > 40, (queries, backstopped, found)


@pytest.mark.slow
def test_backstop_answers_the_upcoming_repetition_exactly_more_games():
    queries, backstopped, found = _check_backstopped(crowded_upcoming_games(60, seed=4607))
    assert queries > 2000 and backstopped > 400 and found > 200, (queries, backstopped, found)


def test_the_pools_upcoming_answer_behind_the_backstop_fails(crowded_upcoming):
    # The broken variant: the upcoming answer of the pools, up to their
    # overflow, under the backstop's stop, says a false "no".
    wrong = sum(upcoming_disagreement(_pools_upcoming(words, top, root, occupancy), answer,
                                      top, root) is not None
                for words, top, root, occupancy, answer in crowded_queries(crowded_upcoming))
    assert wrong > 3


def test_the_pools_alone_say_when_their_upcoming_answer_is_not_exact(crowded_upcoming):
    # Without the backstop an overflow stops the scan: the upcoming answer
    # then says it is not exact, and is never a false "no".
    config = SHIPPED.replace(backstop=False)
    inexact = missed = 0
    for words, top, root, occupancy, answer in crowded_queries(crowded_upcoming):
        result = perpetual(words, top, root_address=root, config=config, count_limit=15,
                           occupancy=occupancy)
        assert upcoming_disagreement(result, answer, top, root) is None, (top, root)
        inexact += not result.upcoming_exact
        missed += not result.upcoming and bool(answer.moves)
    assert inexact > 50 and missed > 2, (inexact, missed)


@pytest.mark.quick
def test_an_answer_without_the_upcoming_block_has_no_exactness():
    words = encode_moves(chess.Board(), [chess.Move.from_uci("g1f3")])
    result = perpetual(words, 0, occupancy=0)
    assert result.upcoming_exact is True and result.without_upcoming().upcoming_exact is None
    assert perpetual(words, 0).upcoming_exact is False
