# amaranth: UnusedElaboratable=no
"""The software peers of ``axon bench`` against independent references.

Every answer a peer gives while it is being timed is checked here on a small
corpus: the C chain list against the golden model's ``cpw`` rules, the C
Zobrist scan against python-chess's ``Board.is_repetition`` (and the oracle
where null moves are involved), the Python peer against the ``exact`` rules.
Doctored copies of the C sources show that a broken peer would be caught.
Timing figures are only checked for sanity: they are noise at this size.
"""

import math
import shutil

import chess
import chess.pgn
import chess.polyglot
import pytest

from axon.sim.model.generate import game_corpus
from axon.sim.model.golden import perpetual
from axon.sim.model.oracle import oracle_answers
from axon.sim.bench.peers import (PEERS, PeerError, PeerGame, find_compiler, make_peer_games,
                            run_peers, zobrist_key)
from axon.hdl.params import DetectorConfig


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "benchmark peers"


needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                              reason="the C peers need `cc` or `gcc` on PATH")

# Fast settings: one pass, one call per block. The figures mean nothing here.
QUICK = dict(runs=1, repeats=1, min_block_ns=0, python_runs=1, python_repeats=1)


def line(fen, ucis):
    board = chess.Board(fen)
    return board, [chess.Move.from_uci(uci) for uci in ucis]


# 1. Nf3 Nf6 2. Ng1 Ng8: ply 4 repeats the start position, exactly as far back
# as the halfmove clock allows (an off-by-one in the bound misses it).
KNIGHTS_HOME = line(chess.STARTING_FEN, ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3"])
# 1. e4 makes an en-passant capture d4xe3 possible on the board but illegal
# (the d4 pawn is pinned against the king on a4), so FIDE's position after
# 1. e4 recurs after 1... Nc6 2. Nf3 Nb8 3. Ng1. Polyglot keys differ there.
PINNED_EN_PASSANT = line("1n6/8/8/8/k2p3R/8/4P3/4K1N1 w - - 0 1",
                         ["e2e4", "b8c6", "g1f3", "c6b8", "f3g1"])
# Null moves hand a side two moves in a row; positions across one are not
# compared (the halfmove clock does not reset on a null move, pliesFromNull
# does). Ply 5 would "repeat" ply 1 across the null moves.
ACROSS_NULL = line(chess.STARTING_FEN, ["g1f3", "0000", "f3g1", "0000", "g1f3", "b8c6",
                                        "f3g1", "c6b8", "g1f3"])
HAND_MADE = [KNIGHTS_HOME, PINNED_EN_PASSANT, ACROSS_NULL]


def bundled_games():
    from importlib.resources import files
    records = []
    for name in ("paper_figure1.pgn", "paper_figure5.pgn"):
        with (files("axon.sim") / "data" / name).open() as file:
            while (game := chess.pgn.read_game(file)) is not None:
                records.append((game.board(), list(game.mainline_moves())))
    return records


@pytest.fixture(scope="module")
def corpus():
    records = HAND_MADE + bundled_games() + game_corpus(24, seed=11)
    games = make_peer_games(records)
    queries = [(index, top) for index, game in enumerate(games) for top in range(len(game.words))]
    return records, games, queries


@pytest.fixture(scope="module")
def measured(corpus):
    _, games, queries = corpus
    return run_peers(games, queries, **QUICK)


def python_chess_repetitions(board, moves):
    """Per ply: has this position occurred before (python-chess, FIDE rules)?"""
    if any(not move for move in moves):
        # python-chess's is_repetition walks back over null moves; the oracle
        # does not compare across them, as an engine does not.
        return [answer.repetition for answer in oracle_answers(board, moves, count_limit=1)]
    board = board.copy(stack=False)
    answers = []
    for move in moves:
        board.push(move)
        answers.append(board.is_repetition(2))
    return answers


def mismatches(answers, expected):
    assert len(answers) == len(expected)
    return [index for index, (got, want) in enumerate(zip(answers, expected)) if got != want]


def cpw_reference(games, queries):
    return [perpetual(games[game].words, top, config=DetectorConfig(rules="cpw"), count_limit=1).repetition
            for game, top in queries]


def python_chess_reference(records, queries):
    per_game = [python_chess_repetitions(board, moves) for board, moves in records]
    return [per_game[game][top] for game, top in queries]


# -- keys and games -------------------------------------------------------------

@pytest.mark.quick
def test_keys_are_polyglot_keys_without_en_passant():
    board, moves = KNIGHTS_HOME
    game, = make_peer_games([(board, moves)])
    board = board.copy()
    assert game.start_key == chess.polyglot.zobrist_hash(board)
    for move, key, halfmove in zip(moves, game.keys, game.halfmove):
        board.push(move)
        assert key == chess.polyglot.zobrist_hash(board)
        assert halfmove == board.halfmove_clock
    assert game.keys[3] == game.start_key


def test_keys_count_en_passant_only_when_legal():
    board, moves = PINNED_EN_PASSANT
    game, = make_peer_games([(board, moves)])
    after_e4 = board.copy()
    after_e4.push(moves[0])
    assert after_e4.ep_square is not None and not after_e4.has_legal_en_passant()
    # Polyglot hashes the (illegal) en-passant file; the peer's key does not.
    assert chess.polyglot.zobrist_hash(after_e4) != zobrist_key(after_e4)
    assert game.keys[0] == game.keys[4]


def test_plies_from_null_reset_on_null_moves():
    game, = make_peer_games([ACROSS_NULL])
    assert game.plies_from_null == [1, 0, 1, 0, 1, 2, 3, 4, 5]
    # The halfmove clock runs on over the null moves.
    assert game.halfmove == [1, 2, 3, 4, 5, 6, 7, 8, 9]


@pytest.mark.quick
def test_peer_game_checks_lengths():
    with pytest.raises(ValueError, match=r"one keys entry per word: 2 words, 1 keys"):
        PeerGame(words=[1, 2], keys=[5], start_key=0, halfmove=[1, 2])
    with pytest.raises(ValueError, match=r"move words must be integers in range 0..131071"):
        PeerGame(words=[1 << 17], keys=[5], start_key=0, halfmove=[1])
    with pytest.raises(ValueError, match=r"64-bit unsigned"):
        PeerGame(words=[1], keys=[1 << 64], start_key=0, halfmove=[1])


# -- answers ----------------------------------------------------------------------

@needs_cc
def test_cpw_c_equals_golden_cpw_rules(corpus, measured):
    _, games, queries = corpus
    assert mismatches(measured["answers"]["cpw_c"], cpw_reference(games, queries)) == []


@needs_cc
def test_zobrist_c_equals_python_chess(corpus, measured):
    records, _, queries = corpus
    expected = python_chess_reference(records, queries)
    assert mismatches(measured["answers"]["zobrist_c"], expected) == []
    # The corpus has something to find, including the hand-made cases.
    assert sum(expected) > 20
    assert expected[3] and expected[queries.index((1, 4))]


@pytest.mark.quick
@needs_cc
def test_golden_python_answers(corpus, measured):
    records, games, queries = corpus
    exact = [perpetual(games[game].words, top, config=DetectorConfig(rules="exact"), count_limit=1).repetition
             for game, top in queries]
    assert measured["answers"]["golden_python"] == exact
    assert mismatches(exact, python_chess_reference(records, queries)) == []


@needs_cc
def test_figures_are_sane(corpus, measured):
    _, _, queries = corpus
    for name in PEERS:
        figures = measured[name]
        assert figures["queries"] == len(queries)
        for key in ("mean", "median", "p99", "max"):
            assert math.isfinite(figures[key]) and figures[key] >= 0
        assert figures["median"] <= figures["p99"] <= figures["max"]
    assert measured["compiler"].split()[1:3] == ["-O2", "-std=c11"]
    assert set(measured["answers"]) == set(PEERS)
    assert measured["seconds"]["total"] > 0


@needs_cc
def test_null_moves_bound_the_scan(corpus):
    # Without pliesFromNull the scan would compare across the null moves.
    _, games, _ = corpus
    across = games[2]
    assert across.keys[4] == across.keys[0]
    unbounded = PeerGame(words=across.words, keys=across.keys, start_key=across.start_key,
                         halfmove=across.halfmove)
    queries = [(0, 4)]
    assert run_peers([across], queries, peers=["zobrist_c"],
                     **QUICK)["answers"]["zobrist_c"] == [False]
    assert run_peers([unbounded], queries, peers=["zobrist_c"],
                     **QUICK)["answers"]["zobrist_c"] == [True]


# -- a broken peer is caught ----------------------------------------------------

@needs_cc
@pytest.mark.parametrize("peer, source, original, broken", [
    # A short chain list overflows on the knight manoeuvres of Figure 5.
    ("cpw_c", "cpw_chain.c", "#define CHAIN_ENTRIES 24", "#define CHAIN_ENTRIES 2"),
    # Off by one at the halfmove bound: misses 1. Nf3 Nf6 2. Ng1 Ng8.
    ("zobrist_c", "zobrist_scan.c", "i <= end", "i < end"),
])
def test_a_broken_peer_is_caught(corpus, tmp_path, peer, source, original, broken):
    from axon.sim.bench.peers import _source_dir
    records, games, queries = corpus
    sources = tmp_path / "sources"
    shutil.copytree(_source_dir(), sources)
    text = (sources / source).read_text()
    assert original in text
    (sources / source).write_text(text.replace(original, broken))
    result = run_peers(games, queries, peers=[peer], sources=sources, **QUICK)
    expected = (cpw_reference(games, queries) if peer == "cpw_c"
                else python_chess_reference(records, queries))
    assert mismatches(result["answers"][peer], expected) != []


# -- errors -----------------------------------------------------------------------

@pytest.mark.quick
def test_parameters_are_checked(corpus):
    _, games, queries = corpus
    with pytest.raises(ValueError, match=r"count_limit must be a positive integer, not 0"):
        run_peers(games, queries, count_limit=0)
    with pytest.raises(ValueError, match=r"runs must be a positive integer, not 0"):
        run_peers(games, queries, runs=0)
    with pytest.raises(ValueError, match=r"unknown peer 'stockfish'"):
        run_peers(games, queries, peers=["stockfish"])
    with pytest.raises(ValueError, match=r"query \(0, 99\): top must be a ply index in 0..4"):
        run_peers(games, [(0, 99)])
    with pytest.raises(ValueError, match=r"query \(999, 0\): game index must be in"):
        run_peers(games, [(999, 0)])
    with pytest.raises(ValueError, match=r"at least one query"):
        run_peers(games, [])
    with pytest.raises(ValueError, match=r"must be PeerGame objects"):
        run_peers([([1], [2])], [(0, 0)])


def test_missing_compiler_is_reported():
    with pytest.raises(PeerError, match=r"need a C compiler: 'no-such-cc-axon' was not found"):
        find_compiler("no-such-cc-axon")


@needs_cc
def test_compile_error_is_reported(corpus, tmp_path):
    from axon.sim.bench.peers import _source_dir
    _, games, _ = corpus
    sources = tmp_path / "sources"
    shutil.copytree(_source_dir(), sources)
    (sources / "zobrist_scan.c").write_text("this is not C\n")
    with pytest.raises(PeerError, match=r"compiling the C peers failed"):
        run_peers(games, [(0, 0)], sources=sources, **QUICK)


@needs_cc
def test_bench_corpus_answers():
    """The C peers on the benchmark's own corpus (about 20,000 queries)."""
    from importlib.resources import files
    records = list(game_corpus(300, seed=2024))
    for path in sorted(files("axon.sim").joinpath("data").iterdir(), key=str):
        if path.name.endswith(".pgn"):
            with path.open() as file:
                while (game := chess.pgn.read_game(file)) is not None:
                    records.append((game.board(), list(game.mainline_moves())))
    games = make_peer_games(records)
    queries = [(index, top) for index, game in enumerate(games) for top in range(len(game.words))]
    result = run_peers(games, queries, peers=["cpw_c", "zobrist_c"], **QUICK)
    assert mismatches(result["answers"]["cpw_c"], cpw_reference(games, queries)) == []
    assert mismatches(result["answers"]["zobrist_c"],
                      python_chess_reference(records, queries)) == []
