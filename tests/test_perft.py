# amaranth: UnusedElaboratable=no
"""``axon perft``: the gateware's legal move tree, counted in the gateware.

The golden model, the RTL in CXXRTL and in Amaranth's simulator must give
python-chess's perft, root move by root move, on the chessprogramming wiki's
perft positions and on random positions; the RTL's legal moves, node by node
and with their detector words, must be the model's; a generator built
without en passant must fail the same comparison.
"""

import json
import os
import random
import shutil
import subprocess
import sys

import chess
import pytest

from axon.hdl.search import MoveGenerator, Perft
from axon.sim.backends.perft_pysim import PerftPysim
from axon.sim.model.encode import encode_move
from axon.sim.search.movegen import Position, legal_moves, uci
from axon.sim.search.perft import perft, trace


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the move generator and perft in gateware"


AXON = os.path.join(os.path.dirname(sys.executable), "axon")
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the CXXRTL backend compiles with g++, which is not on PATH")

# The chessprogramming wiki's "Perft Results" positions.
START = chess.STARTING_FEN
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"
WIKI = {"start": START, "kiwipete": KIWIPETE, "position3": POSITION_3,
        "position4": POSITION_4, "position5": POSITION_5, "position6": POSITION_6}
# The wiki's published depth-3 totals, a check on the reference itself.
WIKI_DEPTH_3 = {"start": 8902, "kiwipete": 97862, "position3": 2812, "position4": 9467,
                "position5": 62379, "position6": 89890}

# White may take f6 en passant, and both sides may still castle.
EN_PASSANT = "r3k2r/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/R3K2R w KQkq f6 0 3"
# Little material, so that the simulator walks the whole tree at depth 2
# in seconds: en passant, castling both ways and a promotion.
TINY = "r3k3/1P6/8/3pP3/8/8/8/R3K2R w KQq d6 0 2"


def reference(board, depth):
    """python-chess's perft, per root move (UCI -> leaf nodes)."""
    def count(depth):
        if depth == 1:
            return board.legal_moves.count()
        nodes = 0
        for move in board.legal_moves:
            board.push(move)
            try:
                nodes += count(depth - 1)
            finally:
                board.pop()
        return nodes

    divide = {}
    for move in board.legal_moves:
        board.push(move)
        try:
            divide[move.uci()] = 1 if depth == 1 else count(depth - 1)
        finally:
            board.pop()
    return divide


def axon_perft(*args):
    return subprocess.run([AXON, "perft", *args], capture_output=True, text=True, timeout=600)


def perft_json(fen, depth, backend):
    process = axon_perft("--fen", fen, "--depth", str(depth), "--backend", backend, "--json",
                         "-q")
    assert process.returncode == 0, process.stderr
    answer = json.loads(process.stdout)
    assert answer["nodes"] == sum(answer["moves"].values())
    return answer


def random_positions(count, seed=2026):
    """Positions of random legal games from the start, none of them over."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        board = chess.Board()
        for _ in range(rng.randrange(0, 90)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            positions.append(board.copy(stack=False))
    return positions


@pytest.fixture(scope="module")
def wiki_depth_3():
    return {name: reference(chess.Board(fen), 3) for name, fen in WIKI.items()}


# --- the reference and the golden model --------------------------------------------

@pytest.mark.quick
def test_the_reference_is_the_wikis(wiki_depth_3):
    assert {name: sum(divide.values()) for name, divide in wiki_depth_3.items()} == WIKI_DEPTH_3


@pytest.mark.parametrize("name", sorted(WIKI))
def test_golden_is_python_chess(name, wiki_depth_3):
    answer = perft_json(WIKI[name], 3, "golden")
    assert answer["moves"] == wiki_depth_3[name]


def test_golden_text_output_is_go_perft():
    process = axon_perft("--fen", START, "--depth", "2", "--backend", "golden")
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert lines[:2] == ["b1c3: 20", "b1a3: 20"]
    assert lines[-2:] == ["", "Nodes searched: 400"]
    assert len(lines) == 20 + 2


@pytest.mark.quick
def test_model_words_are_encodes():
    # Every legal move of many positions, with the barrier bit of
    # axon.sim.model.encode (captures, pawn moves, castling, lost rights, a
    # legal en passant in the position).
    for board in random_positions(60, seed=7) + [chess.Board(EN_PASSANT), chess.Board(TINY)]:
        got = {uci(move): word for move, word in legal_moves(Position.from_board(board))}
        assert got == {move.uci(): encode_move(board, move) for move in board.legal_moves}, \
            board.fen()


@pytest.mark.quick
def test_model_without_en_passant_fails():
    board = chess.Board(EN_PASSANT)
    assert perft(board, 2).divide() == reference(board, 2)
    assert perft(board, 2, en_passant=False).divide() != reference(board, 2)


# --- the RTL in CXXRTL --------------------------------------------------------------

@needs_gxx
@pytest.mark.parametrize("name", sorted(WIKI))
def test_cxxrtl_is_python_chess(name, wiki_depth_3):
    answer = perft_json(WIKI[name], 3, "cxxrtl")
    assert answer["moves"] == wiki_depth_3[name]
    assert list(answer["moves"]) == [move for move, _ in perft(chess.Board(WIKI[name]), 1).moves]


@needs_gxx
@pytest.mark.slow
def test_cxxrtl_prints_its_compile(tmp_path):
    # A cold cache: the compile (some 25 s) is announced, then the count.
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    process = subprocess.run([AXON, "perft", "--fen", START, "--depth", "1"],
                             capture_output=True, text=True, env=env, timeout=600)
    assert process.returncode == 0, process.stderr
    assert "compiling" in process.stderr and "compiled in" in process.stderr
    assert process.stdout.splitlines()[-1] == "Nodes searched: 20"


def _random_positions_on_cxxrtl(count):
    from axon.sim.backends.perft_cxxrtl import PerftCxxrtl
    boards = random_positions(count)
    runs = PerftCxxrtl().run_many([(board, 2) for board in boards])
    wrong = [board.fen() for board, run in zip(boards, runs)
             if run.result.divide() != reference(board, 2)]
    assert not wrong


@needs_gxx
def test_cxxrtl_nodes_without_moves():
    # Mated at the root; mate and stalemate among the root's replies.
    from axon.sim.backends.perft_cxxrtl import PerftCxxrtl
    fens = ["rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"]
    runs = PerftCxxrtl().run_many([(chess.Board(fen), 2) for fen in fens])
    assert [run.result.divide() for run in runs] == \
        [reference(chess.Board(fen), 2) for fen in fens]
    assert runs[0].result.nodes == 0 and 0 in runs[1].result.divide().values()


@needs_gxx
def test_random_positions_on_cxxrtl():
    _random_positions_on_cxxrtl(20)


@needs_gxx
@pytest.mark.slow
def test_many_random_positions_on_cxxrtl():
    _random_positions_on_cxxrtl(200)


# --- the RTL in Amaranth's simulator ------------------------------------------------

def test_pysim_through_the_command_line():
    answer = perft_json(EN_PASSANT, 1, "pysim")
    assert answer["moves"] == reference(chess.Board(EN_PASSANT), 1)
    assert "e5f6" in answer["moves"]


def test_pysim_moves_are_the_models_node_by_node():
    # Every legal move the gateware gives, at both plies, in order, with its
    # move word, against the model's walk of the same tree.
    board = chess.Board(TINY)
    run = PerftPysim().run(board, 2)
    assert {"e5d6", "e1g1", "e1c1", "b7b8q", "b7a8n"} <= {move for _, move, _ in run.trace}
    assert run.trace == tuple(trace(board, 2))
    assert run.result == perft(board, 2)
    assert run.result.divide() == reference(board, 2)
    # Every piece, castling both ways, captures and checks: the root's moves.
    kiwipete = chess.Board(KIWIPETE)
    assert PerftPysim().run(kiwipete, 1).trace == tuple(trace(kiwipete, 1))


def test_pysim_without_en_passant_fails():
    board = chess.Board(EN_PASSANT)
    assert PerftPysim(en_passant=False).run(board, 1).result.divide() != reference(board, 1)


# --- on the FPGA ----------------------------------------------------------------------

@pytest.mark.slow
def test_perft_fits_the_hx8k_with_its_stack_in_block_ram(tmp_path, monkeypatch):
    # Minutes of Yosys and nextpnr: the bench's perft target, one seed.
    from axon.boards.measure import measure
    monkeypatch.chdir(tmp_path)
    figures = measure("perft-hx8k", seeds=1, build_root="build")
    assert figures.logic_cells["used"] < figures.logic_cells["available"]
    assert figures.block_rams["used"] >= 1
    assert figures.fmax_mhz["median"] > 12


# --- bad input ------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--fen", "not a fen", "--depth", "2"], "bad FEN 'not a fen'"),
    (["--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "--depth", "2"], "not a legal position"),
    (["--fen", START, "--depth", "0"], "depth must be 1..15, not 0"),
    (["--fen", START, "--depth", "two"], "--depth must be an integer, not 'two'"),
])
def test_bad_input_is_one_line(args, message):
    process = axon_perft(*args, "--backend", "golden")
    assert process.returncode == 2
    assert process.stdout == ""
    assert process.stderr.count("\n") == 1 and message in process.stderr
    assert process.stderr.startswith("axon perft: error: ")


@pytest.mark.quick
def test_constructors_check_their_parameters():
    with pytest.raises(TypeError, match="en_passant must be a bool, not 1"):
        Perft(en_passant=1)
    with pytest.raises(TypeError, match="en_passant must be a bool, not 'no'"):
        MoveGenerator(en_passant="no")
