# amaranth: UnusedElaboratable=no
"""Perft on a board, over the link: PERFT sends the position and the depth,
the board's perft core counts, and the board answers each root move's count
and the total, which ``axon perft --port`` prints as ``go perft`` does and
python-chess counts. A byte from the host stops a count; a board without a
core, or a depth out of range, is refused."""

import json

import chess
import pytest

from axon.hdl.board.protocol import Command, ErrorCode, STOP_BYTE
from axon.hdl.board.top import AxonBoard
from axon.hdl.params import SHIPPED
from axon.hdl.search import Perft
from axon.sim.backends.board_pysim import PysimBoard
from axon.sim.backends.link import Link, LinkError, open_link
from axon.sim.backends.link_codec import FrameDecoder, encode_frame, parse_error, perft_request
from axon.sim.search.movegen import Position

from .test_perft import (EN_PASSANT, KIWIPETE, TINY, WIKI, axon_perft, random_positions,
                         reference)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "perft over the link"

PERFT_BOARD = "sim://?perft=yes"


def _divide_on(port, fen, depth):
    found = axon_perft("--fen", fen, "--depth", str(depth), "--port", port, "--json", "-q")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["nodes"] == sum(answer["moves"].values())
    return answer["moves"]


@pytest.mark.quick
def test_a_board_in_simulation_counts_as_python_chess():
    """Through the installed script: castling both ways, en passant and
    promotions, the count and each root move's, in the generator's order."""
    assert _divide_on(PERFT_BOARD, TINY, 2) == reference(chess.Board(TINY), 2)


def test_counts_come_in_the_generators_order_and_again_after_a_stop(search_board):
    board = chess.Board(KIWIPETE)
    counted = search_board.perft(Position.from_board(board), 1)
    assert counted.divide() == reference(board, 1) and counted.nodes == 48
    # Mated at the root: no root move, a total of 0.
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert search_board.perft(Position.from_board(mated), 2) == (0, ())


def _stop(transport, request, clocks):
    """Send ``request``, then a stop byte ``clocks`` later; the answers
    that came before the board's STOPPED."""
    transport.write(request)
    transport.idle(clocks)
    transport.write(bytes([STOP_BYTE]))
    decoder, frames = FrameDecoder(), []
    while not any(frame.command == 0xFF for frame in frames):
        data = transport.read(1, None)
        assert data, "the board never answered the stopped count"
        frames += decoder.feed(data)
    assert parse_error(frames[-1].payload) == (ErrorCode.STOPPED, Command.PERFT)
    return frames[:-1]


def test_a_byte_from_the_host_stops_a_count():
    """A deep count, stopped by one byte while the core counts, and a
    shallow one stopped while the root moves' counts wait to be sent: the
    board answers STOPPED, drops what waits, and counts the next exactly."""
    transport = PysimBoard(SHIPPED, perft=True)
    link = Link(transport)
    assert link.identify().perft_cores == 1
    kiwipete = Position.from_board(chess.Board(KIWIPETE))
    assert _stop(transport, perft_request(kiwipete, 6), 4_000) == []
    sent = _stop(transport, perft_request(kiwipete, 1), 3_000)
    assert 0 < len(sent) < 48
    board = chess.Board(EN_PASSANT)
    assert link.perft(Position.from_board(board), 1).divide() == reference(board, 1)


def test_a_board_without_a_core_and_bad_depths_are_refused(search_board):
    position = Position.from_board(chess.Board())
    plain = open_link("sim://")
    try:
        assert plain.identify().perft_cores == 0
        with pytest.raises(LinkError) as refused:
            plain.transact(perft_request(position, 1), Command.PERFT)
        assert refused.value.code == ErrorCode.NO_DETECTOR
    finally:
        plain.close()
    for depth in (0, 16):
        payload = bytearray(perft_request(position, 1)[3:-1])
        payload[1] = depth
        with pytest.raises(LinkError) as refused:
            search_board.transact(encode_frame(Command.PERFT, payload), Command.PERFT)
        assert refused.value.code == ErrorCode.BAD_ARGUMENT
    with pytest.raises(ValueError, match="perft core"):
        search_board.perft(position, 1, core=1)


class _BoardOfABrokenCore(PysimBoard):
    """A broken board: its perft core takes no pawn en passant."""

    def _make_dut(self):
        board = AxonBoard(self.config, divisor=self.divisor, timeout_bits=self.timeout_bits,
                          perft=True)
        board.perft = Perft(en_passant=False)
        return board


def test_a_board_whose_core_misses_en_passant_is_caught():
    board = chess.Board(EN_PASSANT)
    broken = Link(_BoardOfABrokenCore(SHIPPED, perft=True))
    assert broken.perft(Position.from_board(board), 1).divide() != reference(board, 1)


def test_the_command_line_refuses_a_board_without_a_core():
    found = axon_perft("--fen", chess.STARTING_FEN, "--depth", "1", "--port", "sim://")
    assert found.returncode == 2
    assert found.stderr.strip().splitlines() == [
        "axon perft: error: --port sim://: the board has no perft core; build one with "
        "axon build --perft, or simulate one with ?perft=yes"]
    found = axon_perft("--fen", chess.STARTING_FEN, "--depth", "1", "--port", PERFT_BOARD,
                       "--backend", "golden")
    assert found.returncode == 2 and found.stderr.count("\n") == 1


@pytest.mark.slow
def test_a_compiled_board_counts_the_wiki_positions_and_random_ones():
    """The board compiled with CXXRTL: the wiki's six positions to depth 3,
    and 20 random positions, none of them in the repository, at depth 2."""
    port = "cxxrtl://?perft=yes"
    for name, fen in WIKI.items():
        assert _divide_on(port, fen, 3) == reference(chess.Board(fen), 3), name
    link = open_link(port)
    try:
        for board in random_positions(20, seed=7):
            assert link.perft(Position.from_board(board), 2).divide() == \
                reference(board, 2), board.fen()
    finally:
        link.close()
