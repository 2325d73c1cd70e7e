# amaranth: UnusedElaboratable=no
"""Waveforms: the VCD and GTKWave save file written by ``--vcd`` and ``AXON_WAVES``."""

import os
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from axon.hdl.detector import AxonDetector
from axon.sim.cli.main import main
from axon.sim.backends.pysim import RtlSession
from axon.sim.backends.waves import (WAVES_ENV, WINDOW_SIZE, _WAVE_PIXELS, trace_signals, vcd_end_time,
                            wave_file_for_test, write_gtkw, zoom_to_fit)
from axon.hdl.params import DetectorConfig

from .lines import KNIGHT_SWAP, play


FIGURE5 = str(resources.files("axon.sim") / "data" / "paper_figure5.pgn")


@pytest.fixture
def waves(request):
    """A per-test VCD path under ``$AXON_WAVES``, or ``None`` (no waves by default)."""
    return wave_file_for_test(request.node.nodeid)


def read_vcd_names(path):
    """Every variable of a VCD as GTKWave names it; written independently of
    ``axon.sim.backends.waves.vcd_signals``."""
    text = Path(path).read_text()
    header = text[:text.index("$enddefinitions")]
    names, scope = set(), []
    for match in re.finditer(r"\$scope\s+\w+\s+(\S+)\s+\$end|\$upscope\s+\$end|"
                             r"\$var\s+(\w+)\s+(\d+)\s+\S+\s+(\S+)(?:\s+\[[^\]]*\])?\s+\$end",
                             header):
        if match.group(0).startswith("$scope"):
            scope.append(match.group(1))
        elif match.group(0).startswith("$upscope"):
            scope.pop()
        else:
            size = int(match.group(3))
            names.add(".".join(scope + [match.group(4)]) +
                      (f"[{size - 1}:0]" if size > 1 else ""))
    return names


def read_gtkw(path):
    """``(groups, traces)`` of a GTKWave save file."""
    groups, traces = [], []
    for line in Path(path).read_text().splitlines():
        if not line or line[0] in "[*@^":
            continue
        if line.startswith("-"):
            groups.append(line[1:])
            continue
        line = re.sub(r"^\+\{[^}]*\} ", "", line)        # alias
        line = re.sub(r"^\(\d+\)", "", line)             # one bit of a vector
        traces.append(line)
    return groups, traces


def check_waves(vcd, chains):
    gtkw = os.path.splitext(vcd)[0] + ".gtkw"
    assert os.path.exists(vcd) and os.path.exists(gtkw)
    names = read_vcd_names(vcd)
    groups, traces = read_gtkw(gtkw)
    assert traces and set(traces) <= names, sorted(set(traces) - names)
    for group in ("Query", "Scanner", "Chain list", "Upcoming"):
        assert group in groups
    assert "not in the VCD" not in Path(gtkw).read_text()
    # Every entry of every pool (the exact rules' unpaired pools: a start
    # and an end square each, and their valid bits).
    for field in ("start", "end"):
        assert len([t for t in traces if re.search(rf"\.{field}\d+_sq\[", t)]) == chains
        valid = {t for t in traces if re.search(rf"\.{field}_valid(\[|$)", t)}
        assert sum(int(match.group(1)) + 1 if (match := re.search(r"\[(\d+):0\]", t)) else 1
                   for t in valid) == chains
    for port in ("query__start", "query__done", "query__busy", r"\query__result.repetition",
                 "query__cycles[15:0]"):
        assert f"bench.top.{port}" in traces or any(
            t.startswith(f"bench.top.{port}[") for t in traces), port
    assert "bench.top.scanner.fsm_state" in traces
    return traces


def test_scan_vcd_option(tmp_path, capsys):
    # --vcd implies the sim backend, and makes the directories it names.
    vcd = tmp_path / "new" / "deeper" / "figure5.vcd"
    code = main(["scan", FIGURE5, "--jsonl", "--vcd", str(vcd),
                 "--chains", "6"])
    capsys.readouterr()
    assert code == 0
    check_waves(str(vcd), chains=6)


def test_verify_vcd_option(tmp_path, capsys):
    vcd = tmp_path / "verify.vcd"
    # One pool a side: at 4 chains the kind pools would leave every ply uncompared.
    assert main(["verify", FIGURE5, "--vcd", str(vcd), "--chains", "4", "--pools", "side"]) == 0
    capsys.readouterr()
    check_waves(str(vcd), chains=4)


@pytest.mark.quick
def test_write_gtkw_reports_missing_signals(tmp_path):
    session = RtlSession(config=DetectorConfig(depth=16, chains=2),
                         vcd=str(tmp_path / "knights.vcd"))
    start, moves, words = play(KNIGHT_SWAP)
    session.run(words, [(7, 4)])
    # A detector with more slots than the VCD holds: the layout says so.
    missing = write_gtkw(str(tmp_path / "knights.vcd"), str(tmp_path / "other.gtkw"),
                         AxonDetector(config=DetectorConfig(depth=16, chains=8)))
    assert missing == ["chain list: 2 slots in the VCD, the detector has 8"]
    assert "not in the VCD" in (tmp_path / "other.gtkw").read_text()


@pytest.mark.quick
def test_trace_signals_are_ports():
    dut = AxonDetector(config=DetectorConfig(depth=16, chains=2))
    traces = trace_signals(dut)
    assert any(trace is dut.query.start for trace in traces)
    assert any(trace is dut.query.result for trace in traces)
    assert any(trace is dut.query.cycles for trace in traces)


def test_waves_only_when_asked(tmp_path):
    assert wave_file_for_test("tests/test_x.py::test_y", environ={}) is None
    path = wave_file_for_test("tests/test_x.py::test_y[a-1]",
                              environ={WAVES_ENV: str(tmp_path / "waves")})
    assert path == str(tmp_path / "waves" / "tests_test_x.py_test_y_a-1.vcd")
    assert (tmp_path / "waves").is_dir()


def test_session_with_waves_fixture(waves):
    # With AXON_WAVES=DIR this leaves DIR/tests_test_waves.py_test_session_...vcd
    # and .gtkw for GTKWave; by default it writes nothing.
    start, moves, words = play(KNIGHT_SWAP)
    session = RtlSession(config=DetectorConfig(depth=16, chains=4, pools="side"), vcd=waves)
    [timed] = session.run(words, [(7, 4)])
    assert timed.result.repetition and timed.result.distance == 8
    if waves:
        check_waves(waves, chains=4)


# -- opening the save file ---------------------------------------------------------

@pytest.fixture(scope="module")
def figure5_waves(tmp_path_factory):
    vcd = tmp_path_factory.mktemp("waves") / "figure5.vcd"
    assert main(["scan", FIGURE5, "--vcd", str(vcd), "--chains", "6", "-q"]) == 0
    return vcd, vcd.with_suffix(".gtkw")


def test_gtkw_opens_on_the_whole_run(figure5_waves, capsys):
    capsys.readouterr()
    vcd, gtkw = figure5_waves
    text = gtkw.read_text()
    assert f"[size] {WINDOW_SIZE[0]} {WINDOW_SIZE[1]}" in text
    zoom = float(re.search(r"^\*(-?[\d.]+) ", text, flags=re.M).group(1))
    end = vcd_end_time(str(vcd))
    assert end > 10**9    # fs: more than a microsecond of simulation
    assert zoom == pytest.approx(zoom_to_fit(end), abs=1e-5)
    # GTKWave shows 2 ** -zoom time units a pixel: the run fills the wave pane.
    assert 2 ** -zoom * _WAVE_PIXELS == pytest.approx(end, rel=1e-4)


def test_squares_and_pieces_are_translated(figure5_waves):
    _, gtkw = figure5_waves
    lines = gtkw.read_text().splitlines()
    filters = {}
    for previous, line in zip(lines, lines[1:]):
        if re.match(r"\^\d+ ", previous):
            filters[line] = previous.split(" ", 1)[1]
    squares = [trace for trace in filters if re.search(r"(start|end)\d+_sq\[|\.(from|to)_sq", trace)]
    assert squares and all(filters[trace].endswith(".squares.txt") for trace in squares)
    table = dict(line.split() for line in Path(filters[squares[0]]).read_text().splitlines())
    assert len(table) == 64 and table["26"] == "c4" and table["0"] == "a1" and table["63"] == "h8"
    pieces = [trace for trace in filters if trace.endswith(".piece[3:0]")]
    assert pieces and all(filters[trace].endswith(".pieces.txt") for trace in pieces)
    table = dict(line.split() for line in Path(filters[pieces[0]]).read_text().splitlines())
    assert (table["2"], table["10"], table["6"], table["14"]) == ("N", "n", "K", "k")
    # Nothing else is translated: counters and addresses stay numbers.
    assert not any("plies_scanned" in trace or "fetch_addr" in trace for trace in filters)


def test_gtkwave_opens_the_save_file_without_errors(figure5_waves, tmp_path):
    gtkwave, xvfb_run = shutil.which("gtkwave"), shutil.which("xvfb-run")
    if not gtkwave or not xvfb_run:
        pytest.skip("needs GTKWave and xvfb-run (Debian: apt install gtkwave xvfb)")
    vcd, gtkw = figure5_waves
    script = tmp_path / "report.tcl"
    script.write_text('puts "OPENED [gtkwave::getZoomFactor] [gtkwave::getMaxTime]"\n'
                      "gtkwave::/File/Quit\n")
    process = subprocess.run([xvfb_run, "-a", gtkwave, "-S", str(script), str(gtkw)],
                             capture_output=True, text=True, timeout=120)
    assert "ERROR" not in process.stderr, process.stderr
    zoom, max_time = re.search(r"OPENED (\S+) (\d+)", process.stdout).groups()
    # GTKWave took the save file's zoom and read the whole VCD.
    assert float(zoom) == pytest.approx(zoom_to_fit(vcd_end_time(str(vcd))), abs=1e-4)
    assert int(max_time) == vcd_end_time(str(vcd))
