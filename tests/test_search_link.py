# amaranth: UnusedElaboratable=no
"""The search unit on a board, over the link: SEARCH loads the position and
runs the unit depth by depth, and ``axon search --engine gateware --port``
prints the tree of the unit's model (``--backend golden``). A byte from the
host stops a search; a board without a unit, or a search whose plies would
run past the move list, is refused before anything changes."""

import json
import os

import chess
import pytest

from axon.hdl.board.protocol import Command, ErrorCode, SEARCH_REQUEST_BYTES, STOP_BYTE
from axon.hdl.board.top import AxonBoard
from axon.hdl.params import SHIPPED
from axon.hdl.search import SearchUnit
from axon.sim.backends.board_pysim import PysimBoard
from axon.sim.backends.link import Link, LinkError, UnitSession, open_link
from axon.sim.backends.link_codec import (FrameDecoder, encode_frame, parse_error,
                                          search_request)
from axon.sim.model.encode import encode_move
from axon.sim.search.movegen import Position
from axon.sim.search.unit import UnitJob

from .test_search_unit import (DATA, DETERMINED, FIGURE1, SHUFFLE, SHUFFLE_FEN, WAC_018,
                               _axon as _search, _depths as unit_depths)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the search unit over the link"

UNIT_BOARD = "sim://?unit=yes"


def _depths(*args):
    return unit_depths(*args, "--engine", "gateware")


def _shuffle():
    board = chess.Board(SHUFFLE_FEN)
    words = []
    for move in map(chess.Move.from_uci, SHUFFLE):
        words.append(encode_move(board, move))
        board.push(move)
    return Position.from_board(board), words


@pytest.mark.quick
def test_a_board_in_simulation_searches_the_models_tree():
    """Through the installed script, the board's unit (Amaranth's simulator
    at the UART pins) gives the model's table, clocks and all."""
    board, run = _depths("--fen", WAC_018, "--depth", "2", "--port", UNIT_BOARD)
    model, _ = _depths("--fen", WAC_018, "--depth", "2")
    assert board == model
    assert run["label"] == f"search unit (link {UNIT_BOARD})"
    assert all(20 * row["nodes"] < row["clocks"] < 100 * row["nodes"]
               for row in run["depths"])


def test_one_search_answers_each_depth_and_the_draw_from_history(search_board):
    """SEARCH from depth 1 to 2 answers twice. With the game history of
    the shuffle loaded, the detector's draws count; with none, none."""
    position, words = _shuffle()
    loaded = search_board.search(position, 1, 2, history=words)
    assert [depth for depth, _ in loaded] == [1, 2]
    assert loaded[1][1].repetitions > 0 and loaded[1][1].score == 0
    bare = search_board.search(position, 2, 2, history=[])
    assert bare[0][1].repetitions == 0
    # A depth over UnitSession, the command line's backend.
    assert UnitSession(search_board).run(UnitJob(position, tuple(words), 1)) == loaded[0][1]


def test_a_board_without_a_unit_and_bad_searches_are_refused(search_board):
    position, words = _shuffle()
    plain = open_link("sim://")
    try:
        assert plain.identify().units == 0
        with pytest.raises(LinkError) as refused:
            plain.transact(search_request(position, 1, 1), Command.SEARCH)
        assert refused.value.code == ErrorCode.NO_DETECTOR
    finally:
        plain.close()
    # Depth 0, depths the wrong way round, and a root so high that the
    # search's words would run past the move list: refused, history kept.
    search_board.write_moves(0, 0, words)
    depth = search_board.config.depth
    depth_zero = bytearray(search_request(position, 1, 1)[3:-1])
    depth_zero[1] = 0
    for request in (search_request(position, 2, 2, root_address=depth - 2),
                    encode_frame(Command.SEARCH, depth_zero),
                    encode_frame(Command.SEARCH, bytes([0, 3, 2]) +
                                 bytes(SEARCH_REQUEST_BYTES - 3))):
        with pytest.raises(LinkError) as refused:
            search_board.transact(request, Command.SEARCH)
        assert refused.value.code == ErrorCode.BAD_ARGUMENT
    assert search_board.read_moves(0, 0, len(words)) == words
    with pytest.raises(ValueError, match="search unit"):
        search_board.search(position, 1, 1, unit=1)


def test_a_byte_from_the_host_stops_a_search():
    """A deep search, stopped by one byte: the board answers STOPPED, then
    serves the next frame, its game history intact."""
    transport = PysimBoard(SHIPPED, unit=True)
    link = Link(transport)
    position = Position.from_board(chess.Board())
    words = [encode_move(chess.Board(), chess.Move.from_uci("e2e4"))]
    link.write_moves(0, 0, words)
    transport.write(search_request(position, 6, 6, root_address=0))
    transport.idle(3_000)
    transport.write(bytes([STOP_BYTE]))
    decoder, frames = FrameDecoder(), []
    while not frames:
        data = transport.read(1, None)
        assert data, "the board never answered the stopped search"
        frames += decoder.feed(data)
    assert frames[0].command == 0xFF
    assert parse_error(frames[0].payload) == (ErrorCode.STOPPED, Command.SEARCH)
    assert transport.clocks < 20_000
    assert link.identify().units == 1
    assert link.read_moves(0, 0, 1) == words
    # And it searches again.
    (depth, result), = link.search(position, 1, 1, history=words)
    assert (depth, result.nodes) == (1, 21)


class _BoardOfABlindUnit(PysimBoard):
    """A broken board: its unit ignores the detector's answers."""

    def _make_dut(self):
        board = AxonBoard(self.config, divisor=self.divisor, timeout_bits=self.timeout_bits,
                          unit=True)
        board.unit = SearchUnit(self.config, repetition=False)
        return board


def test_a_board_whose_unit_ignores_its_detector_misses_the_draw():
    position, words = _shuffle()
    blind = Link(_BoardOfABlindUnit(SHIPPED, unit=True))
    (_, result), = blind.search(position, 2, 2, history=words)
    assert result.repetitions == 0


@pytest.mark.slow
def test_a_compiled_board_searches_the_models_tree():
    """The board compiled with CXXRTL: WAC.018 to depth 4, and the paper's
    figure 1, whose draw changes the move, as the model searches them."""
    url = "cxxrtl://?unit=yes"
    for position, depth in ((["--fen", WAC_018], 4), (FIGURE1, 3)):
        board, _ = _depths(*position, "--depth", str(depth), "--port", url)
        model, _ = _depths(*position, "--depth", str(depth))
        assert board == model
    assert board[-1]["uci"] == "h5g5" and board[-1]["score"] == 0


@pytest.mark.slow
def test_a_suite_runs_on_a_compiled_board():
    url = "cxxrtl://?unit=yes"
    suite = os.path.join(DATA, "wac_small.epd")
    found = _search(suite, "--engine", "gateware", "--depth", "2", "--port", url, "--json",
                    "-q")
    model = _search(suite, "--engine", "gateware", "--depth", "2", "--json", "-q")
    assert found.returncode == 0, found.stderr

    def rows(output):
        return [[{key: row[key] for key in DETERMINED} for row in json.loads(line)["runs"][0]
                 ["depths"]] for line in output.splitlines()]
    assert rows(found.stdout) == rows(model.stdout)


def test_the_command_line_refuses_a_board_without_a_unit():
    found = _search("--fen", WAC_018, "--engine", "gateware", "--depth", "1", "--port", "sim://")
    assert found.returncode == 2
    assert found.stderr.strip().splitlines() == [
        "axon search: error: --port sim://: the board has no search unit; build one with "
        "axon build --unit, or simulate one with ?unit=yes"]
    found = _search("--fen", WAC_018, "--engine", "gateware", "--depth", "1", "--port",
                    "sim://?unit=maybe")
    assert found.returncode == 2 and "unit must be yes or no" in found.stderr
