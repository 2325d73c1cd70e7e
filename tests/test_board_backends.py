# amaranth: UnusedElaboratable=no
"""The board simulated at its UART pins, in each backend, answers like the golden model.

The host's link client (:class:`~axon.sim.backends.link.Link`) talks to the
board design in Amaranth's simulator and compiled with CXXRTL through the one
transport interface; every answer, result and clock count, must be the golden
model's. Each backend has a broken variant, a board whose scan is not the
one it claims, that must be caught.
"""

import random
import shutil

import pytest

from axon.sim.backends.link import Link, open_transport
from axon.hdl.board.top import AxonBoard
from axon.hdl.params import COUNT_LIMIT_MAX, LEAN, SHIPPED, WALKED, Pools, Scan
from axon.sim.backends.board_cxxrtl import CxxrtlBoard
from axon.sim.backends.board_pysim import PysimBoard
from axon.sim.backends.pysim import expected_cycles
from axon.sim.backends.session import Answer, HostWrites
from axon.sim.backends.transport import Transport
from axon.sim.model.golden import perpetual
from axon.sim.verify.soak import make_batch, random_image, random_occupancy, random_root


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the board simulated at its pins"


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the CXXRTL board is compiled with g++, not on PATH")

# In Amaranth's simulator, small boards keep a game's load and a query at the
# pins to a fraction of a second: the shipped pair scan with the upcoming
# block, and the 1K boards' lean scan.
CONFIGS = {"shipped": SHIPPED.replace(depth=32, chains=4), "lean": LEAN.replace(depth=32),
           "walked": WALKED.replace(depth=32)}
QUERIES = 6


def jobs(config, seed=1):
    """``(words, queries)``: a game, and a random image that takes the scan's
    other paths (refetches, barriers), :data:`QUERIES` queries each."""
    rng = random.Random(seed)
    depth = config.depth
    game = make_batch(seed, 0, 2, depth=depth)[0]
    image = random_image(rng, depth, "mixed")
    return [(game.words, rng.sample(game.queries, QUERIES)),
            (image, [(top, rng.randint(0, COUNT_LIMIT_MAX), random_occupancy(rng, image, top),
                      random_root(rng, top, depth)) for top in rng.sample(range(depth), QUERIES)])]


def disagreements(transport, config, *, first=False):
    """Queries of :func:`jobs` whose answer through ``transport`` is not the
    golden model's; with ``first``, the count stops at the first one. Each
    job's queries follow its load, and then the first is asked again as a
    search asks, right after the write of its top's word."""
    link = Link(transport)
    assert link.identify().depth == config.depth
    board = link.session()
    wrong, writes = 0, HostWrites()
    for words, queries in jobs(config):
        board.load(words)
        writes.loaded(words)
        for number, (top, count_limit, occupancy, root) in enumerate([*queries, queries[0]]):
            again = number == len(queries)
            occupancy = occupancy if config.upcoming else None
            golden = perpetual(words, top, root_address=root, config=config,
                               count_limit=count_limit, occupancy=occupancy)
            if again:
                answer = board.write_and_query([(top, words[top])], top, count_limit, occupancy,
                                               root)
                writes.wrote(top)
            else:
                answer = board.query(top, count_limit, occupancy, root)
            cycles = expected_cycles(words, top, golden, config, writes.starts(top))
            # A board without the upcoming block says its answer is not available.
            wrong += answer != Answer(golden if config.upcoming else golden.without_upcoming(),
                                      cycles)
            if first and wrong:
                return wrong
    return wrong


class MislabelledPysimBoard(PysimBoard):
    """A board whose scan (or, for the walked list, pool layout) is not the
    one its configuration says."""
    def _make_dut(self):
        if self.config.walked:
            built = self.config.replace(pools=Pools.SIDE)
        else:
            built = self.config.replace(scan=Scan.PAIR if self.config.scan == Scan.SINGLE
                                        else Scan.SINGLE)
        return AxonBoard(built, divisor=self.divisor, timeout_bits=self.timeout_bits)


class MislabelledCxxrtlBoard(CxxrtlBoard):
    _make_dut = MislabelledPysimBoard._make_dut


@pytest.mark.quick
@pytest.mark.parametrize("name", CONFIGS)
def test_pysim_board_answers_like_the_golden_model(name):
    config = CONFIGS[name]
    assert issubclass(PysimBoard, Transport) and issubclass(CxxrtlBoard, Transport)
    assert disagreements(PysimBoard(config), config) == 0
    assert disagreements(MislabelledPysimBoard(config), config, first=True) > 0


@needs_gxx
@pytest.mark.quick
@pytest.mark.parametrize("config", [SHIPPED, WALKED], ids=["shipped", "walked"])
def test_cxxrtl_board_answers_like_the_golden_model(config):
    # The boards as built, which the link soak compiles too: one cache.
    with CxxrtlBoard(config) as board:
        assert disagreements(board, config) == 0
    if config == WALKED:
        with MislabelledCxxrtlBoard(config) as board:
            assert disagreements(board, config, first=True) > 0


@needs_gxx
def test_cxxrtl_board_is_a_port_url():
    # `axon query --port cxxrtl://...` opens this; a request the board
    # refuses, and a resync, leave it answering.
    with open_transport("cxxrtl://icestick") as transport:
        assert isinstance(transport, CxxrtlBoard) and transport.config == WALKED
        link = Link(transport)
        link.session().load([0] * 8)
        transport.write(b"\xa5\x05")        # half a frame: the line goes idle after it
        transport.resync()
        assert link.session().read_moves(0, 8) == [0] * 8
        assert link.identify().chains == 32


@needs_gxx
def test_query_command_over_cxxrtl_prints_what_sim_prints(capsys):
    import os
    import axon.sim
    from axon.sim.cli.main import main
    pgn = os.path.join(os.path.dirname(axon.sim.__file__), "data", "paper_figure5.pgn")
    outputs = []
    for port in ("sim://icestick", "cxxrtl://icestick"):
        assert main(["query", "--port", port, "--jsonl", "-q", pgn]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) > 10
    assert main(["query", "--port", "cxxrtl://?chain=3", pgn]) == 2
    assert "unknown cxxrtl:// option 'chain'" in capsys.readouterr().err
