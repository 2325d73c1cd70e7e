"""The search unit's model: ``axon search --engine gateware``, the engine
with the gateware move generator's order and the unit's flags."""

import json
import os
import subprocess
import sys

import chess
import pytest

from axon.sim.engine.alphabeta import Engine, SearchFlags, captures_first
from axon.sim.engine.repetition import ChessTest
from axon.sim.engine.unit import UNIT_FLAGS, generator_order


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the search unit's model"

AXON = os.path.join(os.path.dirname(sys.executable), "axon")
DATA = os.path.join(os.path.dirname(__file__), os.pardir, "sim", "data")
WAC_018 = "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# The paper's figure 1 after 14 plies: White's king can go back to where
# the game has already been twice.
FIGURE1 = [os.path.join(DATA, "paper_figure1.pgn"), "--ply", "14"]
DETERMINED = ("depth", "move", "uci", "score", "nodes", "terminal", "repetitions", "upcoming",
              "queries")


def _axon(*args):
    return subprocess.run([AXON, "search", *args], capture_output=True, text=True, timeout=120)


def _depths(*args):
    found = _axon(*args, "--json", "-q")
    assert found.returncode == 0, found.stderr
    run, = json.loads(found.stdout)["runs"]
    return [{key: row[key] for key in DETERMINED} for row in run["depths"]]


@pytest.mark.parametrize("position", [["--fen", WAC_018], FIGURE1], ids=["wac018", "figure1"])
def test_the_units_detector_tree_is_python_chess_tree(position):
    detector = _depths(*position, "--engine", "gateware", "--depth", "3")
    assert detector == _depths(*position, "--engine", "gateware", "--depth", "3",
                               "--repetition", "python-chess")
    assert len(detector) == 3


def test_a_draw_by_repetition_changes_the_units_best_move():
    detector = _depths(*FIGURE1, "--engine", "gateware", "--depth", "3")
    blind = _depths(*FIGURE1, "--engine", "gateware", "--depth", "3", "--repetition", "off")
    assert (detector[-1]["uci"], detector[-1]["score"]) == ("h5g5", 0)
    assert detector[-1]["repetitions"] > 0
    assert (blind[-1]["uci"], blind[-1]["score"]) == ("h5h1", -600)


def test_the_unit_searches_its_own_tree():
    """WAC.018 to depth 3: the unit's nodes, not the engine's own."""
    unit = _depths("--fen", WAC_018, "--engine", "gateware", "--depth", "3")
    assert [(row["uci"], row["score"], row["nodes"]) for row in unit] == \
        [("g1h1", 150, 10), ("g1h1", 0, 64), ("a8f8", 400, 489)]
    own = _depths("--fen", WAC_018, "--depth", "3")
    assert [row["nodes"] for row in own] == [34, 54, 384]


def _nodes(order, flags, depth=3, fen=KIWIPETE):
    engine = Engine(chess.Board(fen), [], ChessTest(), flags=flags, order=order)
    return [result.nodes for result in engine.iterate(depth)]


def test_the_order_and_the_flags_are_what_the_unit_does():
    """Kiwipete to depth 3: the unit's count, which another move order or a
    flag set otherwise would change."""
    assert _nodes(generator_order, UNIT_FLAGS) == [49, 307, 10699]
    assert _depths("--fen", KIWIPETE, "--engine", "gateware", "--depth", "3",
                   "--repetition", "python-chess")[-1]["nodes"] == 10699
    assert _nodes(captures_first, UNIT_FLAGS)[-1] != 10699
    assert _nodes(generator_order, SearchFlags(quiescence=False, pv_first=True))[-1] != 10699


@pytest.mark.quick
@pytest.mark.parametrize("fen", [KIWIPETE, WAC_018,
                                 "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                                 "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                                 "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"])
def test_the_generators_order_has_every_legal_move_once(fen):
    board = chess.Board(fen)
    moves = list(board.legal_moves)
    ordered = generator_order(board, moves)
    assert sorted(ordered, key=str) == sorted(moves, key=str)
    assert ordered != captures_first(board, moves) or len(moves) < 2


@pytest.mark.parametrize("args, message", [
    (["--port", "sim://icebreaker"], "--port sim://icebreaker: the board has no search unit"),
    (["--upcoming-cutoff"], "--upcoming-cutoff: the search unit has none"),
    (["--null-move"], "--null-move: the search unit has none"),
    (["--backend", "cxxrtl", "--null-move"], "--null-move: the search unit has none"),
])
def test_the_unit_refuses_what_it_has_not(args, message):
    found = _axon("--fen", WAC_018, "--engine", "gateware", "--depth", "1", *args)
    assert found.returncode == 2
    assert found.stderr.startswith(f"axon search: error: {message}")
    assert len(found.stderr.splitlines()) == 1
    assert found.stdout == ""


def test_a_suite_with_the_unit(tmp_path):
    found = _axon(os.path.join(DATA, "wac_small.epd"), "--engine", "gateware", "--depth", "3",
                  "--jobs", "2", "--json", "-q")
    assert found.returncode == 0, found.stderr
    rows = [json.loads(line) for line in found.stdout.splitlines()]
    assert [row["id"] for row in rows][:3] == ["WAC.002", "WAC.006", "WAC.018"]
    wac018, = [row for row in rows if row["id"] == "WAC.018"]
    assert wac018["options"]["engine"] == "gateware"
    assert [row["nodes"] for row in wac018["runs"][0]["depths"]] == [10, 64, 489]


def test_the_table_names_the_unit():
    found = _axon("--fen", WAC_018, "--engine", "gateware", "--depth", "2", "-q")
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[0].endswith("; the search unit")
    assert "detector (golden):" in found.stdout


@pytest.mark.quick
def test_engine_flags_are_given_one_way():
    with pytest.raises(ValueError, match="give the flags or upcoming_cutoff and null_move"):
        Engine(chess.Board(), [], ChessTest(), flags=UNIT_FLAGS, null_move=True)
    with pytest.raises(TypeError, match="an engine's flags are a SearchFlags"):
        Engine(chess.Board(), [], ChessTest(), flags={"quiescence": False})
    with pytest.raises(TypeError, match="an engine's move order is a callable"):
        Engine(chess.Board(), [], ChessTest(), order="gateware")
    assert Engine(chess.Board(), [], ChessTest(), null_move=True).flags == \
        SearchFlags(null_move=True)
