# amaranth: UnusedElaboratable=no
"""The search unit in gateware (:class:`axon.hdl.search.SearchUnit`): its
RTL searches the tree of its model (``axon search --engine gateware`` on
the golden backend), depth by depth through the installed ``axon`` script
on CXXRTL, and node by node in Amaranth's simulator."""

import json
import os
import subprocess
import sys

import chess
import pytest

from axon.hdl.params import SHIPPED
from axon.hdl.search import SearchUnit
from axon.sim.backends.search_cxxrtl import SearchCxxrtl
from axon.sim.backends.search_pysim import SearchPysim
from axon.sim.cli.backends import BACKENDS
from axon.sim.engine.alphabeta import INFINITY, MATE, Engine
from axon.sim.engine.repetition import DetectorTest, NoTest
from axon.sim.engine.unit import UNIT_FLAGS, UnitEngine, UnitTest, generator_order
from axon.sim.search.unit import UnitJob
from axon.hdl.search.rules import INFINITY as UNIT_INFINITY
from axon.hdl.search.rules import MATE as UNIT_MATE


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the search unit's RTL"

pytestmark = pytest.mark.filterwarnings("error")

AXON = os.path.join(os.path.dirname(sys.executable), "axon")
DATA = os.path.join(os.path.dirname(__file__), os.pardir, "sim", "data")
WAC_018 = "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1"
FIGURE1 = [os.path.join(DATA, "paper_figure1.pgn"), "--ply", "14"]
DETERMINED = ("depth", "move", "uci", "score", "nodes", "terminal", "repetitions", "upcoming",
              "queries")
# Kings and knights after the knights went out and back twice: the root is
# the start position's third occurrence, and two plies deep the position
# after 1. Nf3 Nf6 comes a third time, a draw the detector must see.
SHUFFLE_FEN = "4k1n1/8/8/8/8/8/8/4K1N1 w - - 0 1"
SHUFFLE = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8".split()


def _axon(*args, timeout=300):
    return subprocess.run([AXON, "search", *args], capture_output=True, text=True,
                          timeout=timeout)


def _depths(*args):
    found = _axon(*args, "--json", "-q")
    assert found.returncode == 0, found.stderr
    run, = json.loads(found.stdout)["runs"]
    return [{key: row[key] for key in DETERMINED} for row in run["depths"]], run


def _gateware(*position, backend, depth):
    return _depths(*position, "--engine", "gateware", "--backend", backend, "--depth",
                   str(depth))


@pytest.mark.quick
def test_cxxrtl_searches_the_models_tree_on_wac018():
    unit, run = _gateware("--fen", WAC_018, backend="cxxrtl", depth=3)
    model, _ = _gateware("--fen", WAC_018, backend="golden", depth=3)
    assert unit == model
    assert [row["uci"] for row in unit] == ["g1h1", "g1h1", "a8f8"]
    assert run["label"] == "search unit (cxxrtl)"
    # The unit's clocks come with each depth: tens a node, hardly any of
    # them waiting for the detector, whose queries run during the king's test.
    for row in run["depths"]:
        assert 20 * row["nodes"] < row["clocks"] < 100 * row["nodes"]
        assert 0 <= row["wait_clocks"] < row["clocks"] // 50


def test_cxxrtl_scores_the_draw_that_changes_the_move():
    """The paper's figure 1 after 14 plies: the unit's detector sees the
    draw h5g5 reaches; without a test the model plays h5h1."""
    unit, _ = _gateware(*FIGURE1, backend="cxxrtl", depth=3)
    model, _ = _gateware(*FIGURE1, backend="golden", depth=3)
    chess_tree, _ = _depths(*FIGURE1, "--engine", "gateware", "--depth", "3",
                            "--repetition", "python-chess")
    blind, _ = _depths(*FIGURE1, "--engine", "gateware", "--depth", "3", "--repetition", "off")
    assert unit == model == chess_tree
    assert (unit[-1]["uci"], unit[-1]["score"]) == ("h5g5", 0)
    assert unit[-1]["repetitions"] > 0
    assert (blind[-1]["uci"], blind[-1]["score"]) == ("h5h1", -600)


def test_cxxrtl_searches_a_suite_with_jobs():
    def rows(backend):
        found = subprocess.run([AXON, "search", os.path.join(DATA, "wac_small.epd"),
                                "--engine", "gateware", "--backend", backend, "--depth", "2",
                                "--jobs", "2", "--json", "-q"],
                               capture_output=True, text=True, timeout=300)
        assert found.returncode == 0, found.stderr
        lines = [json.loads(line) for line in found.stdout.splitlines()]
        return [(line["id"], [{key: row[key] for key in DETERMINED}
                              for row in line["runs"][0]["depths"]]) for line in lines]
    unit = rows("cxxrtl")
    assert len(unit) == 9
    assert unit == rows("golden")


def test_the_text_output_gives_the_units_clocks():
    found = _axon("--fen", WAC_018, "--engine", "gateware", "--backend", "cxxrtl", "--depth",
                  "2", "-q")
    assert found.returncode == 0, found.stderr
    last = found.stdout.splitlines()[-1]
    assert last.startswith("search unit (cxxrtl): ") and "a node" in last and "waiting" in last


@pytest.mark.slow
def test_cxxrtl_searches_the_models_tree_deeper():
    unit, _ = _gateware("--fen", WAC_018, backend="cxxrtl", depth=5)
    model, _ = _gateware("--fen", WAC_018, backend="golden", depth=5)
    assert unit == model
    assert unit[-1]["repetitions"] > 0


# -- node by node, in Amaranth's simulator -------------------------------------

def _unit_score(score):
    """The model's score in the unit's scale."""
    if abs(score) == INFINITY:
        return UNIT_INFINITY if score > 0 else -UNIT_INFINITY
    if abs(score) >= MATE - 1000:
        return (UNIT_MATE - (MATE - abs(score))) * (1 if score > 0 else -1)
    return score


def _model_nodes(board, history, depth, test=None):
    visits = []
    test = DetectorTest(BACKENDS["golden"](SHIPPED)) if test is None else test
    engine = Engine(board, history, test, flags=UNIT_FLAGS, order=generator_order,
                    on_node=visits.append)
    result = engine.search(depth)
    return result, [(visit.ply, visit.move, _unit_score(visit.alpha), _unit_score(visit.beta),
                     visit.draw, _unit_score(visit.score)) for visit in visits]


def _unit_nodes(board, history, depth, backend="pysim", **variant):
    if backend == "pysim":
        session, options = SearchPysim(**variant), {}
    else:
        session, options = SearchCxxrtl(**variant), {"trace": True}
    engine = UnitEngine(board, history, UnitTest(backend, session=session))
    found = engine.test.session.run(UnitJob(engine.position, engine.words, depth), **options)
    return found, [(node.ply, node.move, node.alpha, node.beta, node.draw, node.score)
                   for node in found.trace]


def _shuffle():
    board = chess.Board(SHUFFLE_FEN)
    return board, [chess.Move.from_uci(move) for move in SHUFFLE]


@pytest.mark.quick
def test_pysim_nodes_are_the_models_node_by_node():
    board, history = _shuffle()
    model, model_nodes = _model_nodes(board, history, 2)
    unit, unit_nodes = _unit_nodes(board, history, 2)
    assert unit_nodes == model_nodes
    assert len(unit_nodes) == model.nodes == unit.nodes
    assert unit.repetitions == model.repetitions == 1
    assert any(node[4] for node in unit_nodes)
    assert (unit.move, unit.score) == (model.uci, model.score)


def test_pysim_ignoring_the_detector_fails():
    """The broken unit that takes no draw from its detector: the node where
    the detector says draw scores as if it had not."""
    board, history = _shuffle()
    _, model_nodes = _model_nodes(board, history, 2)
    broken, broken_nodes = _unit_nodes(board, history, 2, repetition=False)
    assert broken_nodes != model_nodes
    assert broken.repetitions == 0


def test_pysim_through_the_command_line():
    position = ["--fen", "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1"]
    unit, _ = _gateware(*position, backend="pysim", depth=2)
    model, _ = _gateware(*position, backend="golden", depth=2)
    assert unit == model


@pytest.mark.slow
@pytest.mark.parametrize("fen, depth", [
    # Castling, en passant, promotions and captures of every kind.
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2),
    ("4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1", 3),
    # A mate in one at depth 3: mated nodes score -MATE + ply.
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 3),
], ids=["kiwipete", "en-passant-promotions", "back-rank-mate"])
def test_pysim_nodes_are_the_models_deeper(fen, depth):
    board = chess.Board(fen)
    _, model_nodes = _model_nodes(board, [], depth)
    _, unit_nodes = _unit_nodes(board, [], depth)
    assert unit_nodes == model_nodes


# -- node by node, on CXXRTL --------------------------------------------------------

def test_cxxrtl_nodes_are_the_models_node_by_node():
    # The same nodes in the compiled model, each as the unit returns from
    # it: WAC.018 to depth 3 and the knights' shuffle with its draw.
    for board, history, depth in ((chess.Board(WAC_018), [], 3), (*_shuffle(), 3)):
        model, model_nodes = _model_nodes(board, history, depth)
        unit, unit_nodes = _unit_nodes(board, history, depth, backend="cxxrtl")
        assert unit_nodes == model_nodes
        assert len(unit_nodes) == model.nodes == unit.nodes
    assert unit.repetitions == model.repetitions > 0
    # Broken: the model without a repetition test is not the unit's tree.
    _, blind_nodes = _model_nodes(board, history, depth, test=NoTest())
    assert blind_nodes != unit_nodes


@pytest.mark.slow
@pytest.mark.parametrize("fen, depth", [
    (WAC_018, 5),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1", 4),
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 4),
], ids=["wac018", "kiwipete", "en-passant-promotions", "back-rank-mate"])
def test_cxxrtl_nodes_are_the_models_deeper(fen, depth):
    board = chess.Board(fen)
    _, model_nodes = _model_nodes(board, [], depth)
    _, unit_nodes = _unit_nodes(board, [], depth, backend="cxxrtl")
    assert unit_nodes == model_nodes


# -- bad input --------------------------------------------------------------------

@pytest.mark.quick
@pytest.mark.parametrize("args, message", [
    (["--port", "sim://icebreaker"], "--port sim://icebreaker: the board has no search unit"),
    (["--backend", "cxxrtl", "--trace", "t.jsonl"], "--trace: the search unit's RTL asks"),
    (["--backend", "pysim", "--depth", "16"], "--depth 16: the search unit's RTL searches 1 to 15"),
])
def test_refusals_are_one_line(args, message, tmp_path):
    found = subprocess.run([AXON, "search", "--fen", WAC_018, "--engine", "gateware", *args],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert found.returncode == 2
    assert found.stderr.count("\n") == 1 and message in found.stderr


@pytest.mark.quick
def test_constructors_check_their_parameters():
    with pytest.raises(TypeError, match="repetition must be a bool"):
        SearchUnit(repetition="no")
    with pytest.raises(TypeError, match="Configuration must be a DetectorConfig"):
        SearchUnit("shipped")
    with pytest.raises(ValueError, match="the search unit runs on pysim or cxxrtl"):
        UnitTest("golden")
