# amaranth: UnusedElaboratable=no
"""The link soak: the whole board at its UART pins, with noise and resets."""

import argparse
import dataclasses
import random
import shutil

import pytest

from axon.sim.backends import link_codec
from axon.sim.backends.board_cxxrtl import CxxrtlBoard
from axon.sim.verify.linksoak import NOISE_KINDS, noise, run_link_soak
from axon.sim.backends.link_codec import holds_known_frame
from axon.hdl.board.top import AxonBoard
from axon.sim.cli import soak as soak_module
from axon.sim.model.golden import perpetual
from axon.hdl.params import LEAN, Scan


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "host link soak"


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the link soak compiles the board with CXXRTL and g++, "
                                      "not on PATH")


@pytest.fixture(scope="module")
def board_model():
    model = CxxrtlBoard()
    model.build()
    return model


@needs_gxx
def test_link_soak_2k_queries(board_model):
    report = run_link_soak(2_000, seed=1, model=board_model, log=print)
    assert report.queries >= 2_000
    assert (report.lost, report.wrong) == (0, 0), report.failures
    # Every kind of traffic was there, and resets really cut answers short.
    assert report.noise > 200 and report.refused > 20
    assert report.writes > 20 and report.reads > 20
    assert report.resets > 20 and report.cut > report.resets // 2
    # Queries as a search asks them, right after the write of their top, and others.
    assert 60 < report.fresh < report.queries // 2


@needs_gxx
@pytest.mark.slow
def test_link_soak_10k_queries(board_model):
    report = run_link_soak(10_000, seed=1, model=board_model, log=print)
    assert (report.lost, report.wrong) == (0, 0), report.failures


@needs_gxx
def test_link_soak_lean_board():
    # The 1K boards' design (one pool a side, one ply a clock) behind the same
    # link: answers and clock counts at the pins, noise and resets included.
    report = run_link_soak(2_000, seed=3, log=print, config=LEAN)
    assert report.queries >= 2_000
    assert (report.lost, report.wrong) == (0, 0), report.failures
    assert report.resets > 20 and report.cut > 0

    # A board with the pair scan that claims the lean one: the same answers,
    # other clock counts, which the soak must catch.
    class MislabelledBoard(CxxrtlBoard):
        def _make_dut(self):
            return AxonBoard(self.config.replace(scan=Scan.PAIR), divisor=self.divisor,
                             timeout_bits=self.timeout_bits)
    report = run_link_soak(300, seed=4, model=MislabelledBoard(LEAN), config=LEAN)
    assert report.wrong > 0 and report.lost == 0


@needs_gxx
def test_link_soak_fails_when_the_golden_model_lies(board_model):
    def lying(words, top, **options):
        result = perpetual(words, top, **options)
        if top == 7:
            return dataclasses.replace(result, count=result.count + 1)
        return result

    report = run_link_soak(300, seed=2, golden=lying, model=board_model)
    assert report.wrong > 0 and report.lost == 0
    assert "query top=7" in report.failures[0]
    assert "wrong 0" not in report.summary()


@pytest.mark.quick
def test_link_soak_counts_silence_and_hangs_as_lost():
    class Silent:
        divisor = 4

        def exchange(self, segments):
            return [(index % 2 == 0, b"") for index, _ in enumerate(segments)]

    report = run_link_soak(50, seed=3, model=Silent())
    # A noise or reset segment may draw silence; a request may not, and a
    # hang is lost whatever the segment was.
    assert report.lost > 0 and report.wrong == 0
    assert report.failures and "lost" in report.failures[0]


@pytest.mark.quick
def test_noise_is_never_a_real_request():
    rng = random.Random(4)
    frame = link_codec.query_request(10, 4)
    assert holds_known_frame(frame) and holds_known_frame(b"\x00\x13" + frame)
    assert not holds_known_frame(frame[:-1])
    for kind in NOISE_KINDS:
        for _ in range(50):
            data = noise(rng, frame, kind)
            assert data != frame
            if kind == "truncate":
                assert frame.startswith(data) and len(data) < len(frame)


@needs_gxx
def test_soak_command_link(capsys):
    parser = argparse.ArgumentParser(prog="axon")
    soak_module.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["soak", "--link", "--queries", "200", "--seed", "5"])
    assert args.func(args) == 0
    output = capsys.readouterr().out
    assert "link soak: 200 queries" in output and "lost 0, wrong 0" in output

    args = parser.parse_args(["soak", "--link", "--chains", "3"])
    assert args.func(args) == 2
    assert "axon soak: error: --chains must be even for the exact rules" in capsys.readouterr().err
