# amaranth: UnusedElaboratable=no
"""Waveforms: the VCD and GTKWave save file written by ``--vcd`` and ``AXON_WAVES``."""

import math
import os
import re
import shutil
from importlib import resources
from pathlib import Path

import pytest
from amaranth.hdl import Signal

from axon.hdl.detector import AxonDetector
from axon.hdl.observe import Observation, fields
from axon.sim.cli.main import main
from axon.sim.backends.pysim import PysimSession
from axon.sim.backends.gtkwave import WaveWindow, grab, headless_gtkwave, window_times
from axon.sim.backends.gtkwave import main as gtkwave_main
from axon.sim.backends.waves import (GTKWAVE_FRAME_PIXELS, RUN_PIXELS, SCREEN, SIGNALS_WIDTH,
                                     SST_WIDTH, WINDOW_DRAWN,
                                     WAVES_ENV, WINDOW_SIZE, trace_signals, vcd_end_time,
                                     wave_file_for_test, write_gtkw, zoom_to_fit)
from axon.hdl.params import SHIPPED, DetectorConfig
from axon.hdl.result import ResultLayout

from .lines import KNIGHT_SWAP, play


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "waveforms"


DOCS = Path(__file__).resolve().parents[1] / "docs"
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
    for group in ("Query", "Scanner", "Chain list", "Upcoming", "Upcoming check", "Memory"):
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
    assert any(t.startswith("bench.top.scanner.fetch_addr[") for t in traces)
    return traces


def test_scan_vcd_option(tmp_path, capsys):
    # --vcd implies the pysim backend, and makes the directories it names.
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


# The layouts whose every observed signal must be in the VCD: the pair scan
# with pools by kind and the upcoming block, and the lean scan.
VIEWED = {"pair": DetectorConfig(depth=16, chains=10),
          "lean": DetectorConfig(depth=16, chains=4, pools="side", scan="single")}


@pytest.fixture(scope="module", params=sorted(VIEWED))
def knights_vcd(request, tmp_path_factory):
    """A VCD of the knights' swap, and the configuration that wrote it."""
    config = VIEWED[request.param]
    vcd = tmp_path_factory.mktemp("knights") / "knights.vcd"
    start, moves, words = play(KNIGHT_SWAP)
    PysimSession(config=config, vcd=str(vcd)).run(words, [(7, 4)])
    return vcd, config


def observed_traces(dut):
    """How many traces the detector's view asks for: a field of a layout each."""
    return sum(len(fields(value)) for _, _, value, _ in dut.observe.signals())


@pytest.mark.quick
def test_every_observed_signal_is_in_the_vcd(knights_vcd, tmp_path):
    vcd, config = knights_vcd
    dut = AxonDetector(config)
    assert write_gtkw(str(vcd), str(tmp_path / "knights.gtkw"), dut) == []
    _, traces = read_gtkw(tmp_path / "knights.gtkw")
    # Each once, but for the move the query group shows again in chess terms.
    assert len(set(traces)) == observed_traces(dut)
    again = [trace for trace in set(traces) if traces.count(trace) > 1]
    assert len(traces) - len(set(traces)) == len(again) in (3, 6)
    assert all(re.search(r"(_move|_word)\.(from_sq|to_sq|piece)", trace) for trace in again)
    assert set(traces) <= read_vcd_names(vcd)


class ViewOfAbsentRegister(AxonDetector):
    """Broken: its view shows a register that nothing in the design drives or reads."""
    def __init__(self, config):
        super().__init__(config)
        self.observe = Observation({**self.observe, "ghost": Signal(3, name="ghost")})


@pytest.mark.quick
def test_write_gtkw_reports_a_view_signal_not_in_the_design(knights_vcd, tmp_path):
    vcd, config = knights_vcd
    missing = write_gtkw(str(vcd), str(tmp_path / "other.gtkw"), ViewOfAbsentRegister(config))
    assert missing == ["bench.top.ghost"]
    assert "not in the VCD: bench.top.ghost" in (tmp_path / "other.gtkw").read_text()


@pytest.mark.quick
def test_write_gtkw_reports_a_signal_the_vcd_lacks(knights_vcd, tmp_path):
    vcd, config = knights_vcd
    # The same run, with the scanner's fetch address taken out of the header.
    header, body = vcd.read_text().split("$enddefinitions", 1)
    lines = header.splitlines()
    scope, kept = [], []
    for line in lines:
        words = line.split()
        if words[:1] == ["$scope"]:
            scope.append(words[2])
        elif words[:1] == ["$upscope"]:
            scope.pop()
        elif words[:1] == ["$var"] and scope[-1:] == ["scanner"] and words[4] == "fetch_addr":
            continue
        kept.append(line)
    assert len(kept) == len(lines) - 1
    lacking = tmp_path / "lacking.vcd"
    lacking.write_text("\n".join(kept) + "\n$enddefinitions" + body)
    missing = write_gtkw(str(lacking), str(tmp_path / "lacking.gtkw"), AxonDetector(config))
    assert missing == ["bench.top.scanner.fetch_addr"]


@pytest.mark.quick
def test_write_gtkw_reports_a_detector_other_than_the_one_simulated(knights_vcd, tmp_path):
    vcd, config = knights_vcd
    # More chains than the VCD's detector has: pools it does not have.
    missing = write_gtkw(str(vcd), str(tmp_path / "other.gtkw"),
                         AxonDetector(config.replace(chains=24)))
    assert missing and all(name.startswith("bench.top.chain_list.") for name in missing)


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
    session = PysimSession(config=DetectorConfig(depth=16, chains=4, pools="side"), vcd=waves)
    [timed] = session.run(words, [(7, 4)])
    assert timed.result.repetition and timed.result.distance == 8
    if waves:
        check_waves(waves, chains=4)


# -- opening the save file ---------------------------------------------------------

@pytest.fixture(scope="module")
def figure5_waves(tmp_path_factory):
    # The bundled games at the default layout: 38,400 ns of simulation.
    vcd = tmp_path_factory.mktemp("waves") / "figure5.vcd"
    assert main(["scan", FIGURE5, "--vcd", str(vcd), "-q"]) == 0
    return vcd, vcd.with_suffix(".gtkw")


def vcd_first_time(path):
    """The first timestamp after a VCD's header."""
    text = Path(path).read_text()
    return int(re.search(r"^#(\d+)", text[text.index("$enddefinitions"):], flags=re.M).group(1))


def test_gtkw_opens_on_the_whole_run(figure5_waves, capsys):
    capsys.readouterr()
    vcd, gtkw = figure5_waves
    text = gtkw.read_text()
    for line in (f"[size] {WINDOW_SIZE[0]} {WINDOW_SIZE[1]}", f"[sst_width] {SST_WIDTH}",
                 f"[signals_width] {SIGNALS_WIDTH}", "[sst_expanded] 1", "[timestart] 0"):
        assert line in text.splitlines(), line
    zoom = float(re.search(r"^\*(-?[\d.]+) ", text, flags=re.M).group(1))
    end = vcd_end_time(str(vcd))
    assert end > 10**9    # fs: more than a microsecond of simulation
    assert zoom == pytest.approx(zoom_to_fit(end), abs=1e-5)
    # GTKWave shows 2 ** -zoom time units a frame of 200 pixels: the run
    # spans RUN_PIXELS of the wave pane.
    assert 2 ** -zoom / GTKWAVE_FRAME_PIXELS * RUN_PIXELS == pytest.approx(end, rel=1e-4)


def test_squares_and_pieces_are_translated(figure5_waves):
    _, gtkw = figure5_waves
    lines = gtkw.read_text().splitlines()
    filters = {}
    for previous, line in zip(lines, lines[1:]):
        if re.match(r"\^\d+ ", previous):
            filters[line] = previous.split(" ", 1)[1]
    squares = [trace for trace in filters if re.search(r"(start|end)\d+_sq\[|\.(from|to)_sq", trace)]
    assert squares and all(filters[trace].endswith(".squares.txt") for trace in squares)
    # The filter files are named relative to the save file's folder.
    filters = {trace: str(gtkw.parent / path) for trace, path in filters.items()}
    table = dict(line.split() for line in Path(filters[squares[0]]).read_text().splitlines())
    assert len(table) == 64 and table["26"] == "c4" and table["0"] == "a1" and table["63"] == "h8"
    pieces = [trace for trace in filters if trace.endswith(".piece[3:0]")]
    assert pieces and all(filters[trace].endswith(".pieces.txt") for trace in pieces)
    table = dict(line.split() for line in Path(filters[pieces[0]]).read_text().splitlines())
    assert (table["2"], table["10"], table["6"], table["14"]) == ("N", "n", "K", "k")
    # Nothing else is translated: counters and addresses stay numbers.
    assert not any("plies_scanned" in trace or "fetch_addr" in trace for trace in filters)


def test_the_root_is_shown_signed(figure5_waves):
    # query.root_address is -1 for a query with no game history: GTKWave's flags
    # 0x400 (signed) with 0x20 (decimal) show -1, not 511; an unsigned
    # counter stays plain decimal (0x20 alone).
    _, gtkw = figure5_waves
    lines = gtkw.read_text().splitlines()
    flags = {}
    for previous, line in zip(lines, lines[1:]):
        if line.startswith("+{") or line.startswith("bench."):
            at = lines.index(line)
            flag = next(lines[back] for back in range(at - 1, -1, -1)
                        if lines[back].startswith("@"))
            flags[line.split()[-1]] = int(flag[1:], 16)
    roots = [trace for trace in flags if re.search(r"query__root_address\[", trace)]
    assert roots and all(flags[trace] & 0x400 and flags[trace] & 0x20 for trace in roots)
    counters = [trace for trace in flags if "plies_scanned" in trace]
    assert counters and not any(flags[trace] & 0x400 for trace in counters)


def test_save_file_names_no_absolute_path(figure5_waves, tmp_path):
    vcd, gtkw = figure5_waves
    text = gtkw.read_text()
    assert str(tmp_path) not in text and str(gtkw.parent) not in text
    for line in text.splitlines():
        assert not re.search(r'(^|[\s"])/', line), line
    assert f'[dumpfile] "{vcd.name}"' in text.splitlines()
    # Moved elsewhere, the folder still opens: its files are found from the save file.
    moved = tmp_path / "moved"
    shutil.copytree(gtkw.parent, moved)
    if headless_gtkwave() is not None:
        view = gtkwave_view(moved / gtkw.name)
        assert view.last == vcd_end_time(str(vcd)) and view.shows_whole_run()


def _traces(gtkw, group):
    """``[(alias, name)]`` of the traces directly in ``group`` of a save file."""
    lines = gtkw.read_text().splitlines()
    start = lines.index(f"-{group}")
    end = lines.index(f"-{group}", start + 1)
    return [re.match(r"\+\{(.*)\} (\S+)$", line).groups() for line in lines[start:end]
            if line.startswith("+")]


def test_query_group_opens_on_the_answer_and_the_move(figure5_waves):
    _, gtkw = figure5_waves
    traces = _traces(gtkw, "Query")
    names = [name for _, name in traces]
    # The answer's fields first (the shipped detector's: the backstop's flag
    # last), then a move in chess terms, both sides.
    fields = len(ResultLayout(SHIPPED.depth, backstop=SHIPPED.backstop).members)
    assert fields == 8 and names[fields - 1].endswith("query__result.backstop")
    assert all("query__result." in name for name in names[:fields])
    move = names[fields:fields + 6]
    assert [re.search(r"(white|black)_move\.(\w+)", name).groups() for name in move] == [
        ("white", "from_sq"), ("white", "to_sq"), ("white", "piece"),
        ("black", "from_sq"), ("black", "to_sq"), ("black", "piece")]
    lines = gtkw.read_text().splitlines()
    for name in move:
        filtered = lines[lines.index(next(line for line in lines if line.endswith(" " + name))) - 1]
        assert filtered.startswith("^") and filtered.endswith((".squares.txt", ".pieces.txt"))
    assert "query__start" in names[fields + 6]


def test_names_are_shown_unescaped(figure5_waves):
    _, gtkw = figure5_waves
    aliases = re.findall(r"^\+\{(.*)\} ", gtkw.read_text(), flags=re.M)
    traces = [line for line in gtkw.read_text().splitlines() if line.startswith("bench.")]
    # Every trace has its alias; none keeps the VCD's backslash, or a dot
    # that GTKWave would read as a scope and cut at.
    assert aliases and not traces
    assert not any("\\" in alias or "." in alias for alias in aliases)
    assert "query__result repetition" in aliases and "ahead white_move to_sq[5:0]" in aliases


def gtkwave_view(gtkw):
    """What the real GTKWave's wave pane shows once its window is laid out and
    once it is drawn; both must agree."""
    if headless_gtkwave() is None:
        pytest.skip("needs GTKWave and xvfb-run (Debian: apt install gtkwave xvfb)")
    built, shown = window_times(str(gtkw))
    assert built == shown
    return shown


def test_gtkwave_shows_the_whole_run(figure5_waves):
    vcd, gtkw = figure5_waves
    view = gtkwave_view(gtkw)
    print(f"GTKWave shows {view}")
    # GTKWave read the whole VCD ...
    assert (view.first, view.last) == (vcd_first_time(vcd), vcd_end_time(str(vcd)))
    # ... and its wave pane shows all of it, filling at least half of the pane.
    assert view.start <= view.first and view.end >= view.last
    assert view.end - view.start <= 2 * (view.last - view.first)
    assert view.shows_whole_run()
    # docs/waves.md pastes what python -m axon.sim.backends.gtkwave prints for this run.
    assert f"shown:    {view}\nthe whole run is shown" in (DOCS / "waves.md").read_text()


@pytest.mark.quick
def test_whole_run_check_reads_gtkwave_numbers():
    run = dict(first=0, last=38_400_000_000, zoom=-33.0, unit_per_pixel=43_735_723.3)
    assert WaveWindow(0, 42_686_065_974, **run).shows_whole_run()
    assert WaveWindow(0, 42_686_065_974, **run).pane_pixels == 976
    # The start of the run only, a pane that starts late, one four times too wide.
    assert not WaveWindow(0, 174_545_325, **run).shows_whole_run()
    assert not WaveWindow(1000, 42_686_065_974, **run).shows_whole_run()
    assert not WaveWindow(0, 170_744_263_914, **run).shows_whole_run()


# Save files that must fail the check above: GTKWave's zoom read as time per
# pixel (2 ** -zoom is per 200-pixel frame), which shows the first 0.5 % of
# the run; and a zoom 4 times too far out.
WRONG_ZOOMS = {"time per pixel": lambda end: -math.log2(end / 1100),
               "4 times out": lambda end: zoom_to_fit(end) - 2}


@pytest.mark.parametrize("wrong", sorted(WRONG_ZOOMS))
def test_gtkwave_view_check_fails_on_a_wrong_zoom(figure5_waves, tmp_path, wrong):
    vcd, gtkw = figure5_waves
    other = tmp_path / "wrong.gtkw"
    zoom = WRONG_ZOOMS[wrong](vcd_end_time(str(vcd)))
    session = PysimSession()      # the layout axon scan simulates by default
    dut = AxonDetector(session.config)
    assert write_gtkw(str(vcd), str(other), dut, zoom=zoom) == []

    def lines(path):    # but for its own name and its filter files' names
        return [line for line in path.read_text().splitlines()
                if not line.startswith(("[savefile]", "[dumpfile]", "^"))]
    differ = [(a, b) for a, b in zip(lines(gtkw), lines(other)) if a != b]
    assert len(lines(gtkw)) == len(lines(other)) and len(differ) == 1, differ
    assert differ[0][1].startswith("*")
    view = gtkwave_view(other)
    print(f"GTKWave shows {view}")
    assert view.zoom == pytest.approx(zoom, abs=1e-4)
    assert not view.shows_whole_run()


def png_size(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_gtkwave_draws_the_picture_in_the_docs(figure5_waves, tmp_path):
    # docs/waves.md gives the command that drew docs/waves.png; GTKWave
    # draws a picture of its whole window, as large as the one committed.
    docs = DOCS
    command = ("python -m axon.sim.backends.gtkwave /tmp/waves/figure5.gtkw "
               "--screenshot docs/waves.png")
    assert command in (docs / "waves.md").read_text()
    width, height = png_size(docs / "waves.png")
    assert (docs / "waves.png").stat().st_size < 200_000
    if headless_gtkwave() is None:
        pytest.skip("needs GTKWave and xvfb-run (Debian: apt install gtkwave xvfb)")
    _, gtkw = figure5_waves
    grab(str(gtkw), str(tmp_path / "waves.png"))
    assert png_size(tmp_path / "waves.png") == (width, height)
    assert width >= WINDOW_SIZE[0] and height >= WINDOW_SIZE[1]
    # The window fits a 1600 x 900 screen with room for a title bar.
    assert width <= WINDOW_DRAWN[0] and height <= WINDOW_DRAWN[1]
    assert width <= SCREEN[0] and height <= SCREEN[1] - 30


# --- a long run -------------------------------------------------------------------

def repeat_vcd(source, target, copies):
    """Write ``target``: the VCD ``source`` with its value changes after time
    0 played ``copies`` times in a row, a VCD of a long run made in a second."""
    text = Path(source).read_text()
    head, body = text.split("$enddefinitions $end", 1)
    end = int(re.findall(r"^#(\d+)", body, flags=re.M)[-1]) + 1
    first = body.index("\n#", body.index("#0") + 2)
    start, rest = body[:first], body[first:]
    with open(target, "w") as out:
        out.write(head + "$enddefinitions $end" + start)
        for copy in range(copies):
            out.write(re.sub(r"^#(\d+)", lambda m: f"#{int(m.group(1)) + copy * end}", rest,
                             flags=re.M))


@pytest.fixture(scope="module")
def long_waves(figure5_waves, tmp_path_factory):
    """A 45 MB VCD, as long as ten games' and more, with its save file."""
    vcd, _ = figure5_waves
    folder = tmp_path_factory.mktemp("long")
    long_vcd = folder / "long.vcd"
    repeat_vcd(vcd, long_vcd, 110)
    assert long_vcd.stat().st_size > 40_000_000
    write_gtkw(str(long_vcd), str(folder / "long.gtkw"), AxonDetector(PysimSession().config))
    return long_vcd, folder / "long.gtkw"


def test_gtkwave_check_and_picture_of_a_long_run(long_waves, tmp_path):
    vcd, gtkw = long_waves
    view = gtkwave_view(gtkw)
    assert view.last == vcd_end_time(str(vcd)) and view.shows_whole_run()
    grab(str(gtkw), str(tmp_path / "long.png"))
    width, height = png_size(tmp_path / "long.png")
    assert width <= SCREEN[0] and height <= SCREEN[1] - 30


def test_a_check_that_does_not_wait_for_the_layout_fails_on_a_long_run(long_waves):
    # GTKWave's main loop runs the -R script before the -S one on a large
    # dump: a check that quits at its first tick never reads the layout.
    _, gtkw = long_waves
    if headless_gtkwave() is None:
        pytest.skip("needs GTKWave and xvfb-run (Debian: apt install gtkwave xvfb)")
    with pytest.raises(RuntimeError, match="printed no window times"):
        window_times(str(gtkw), wait_for_layout=False)


def test_a_run_too_big_for_the_time_given_is_one_line_and_exit_1(long_waves, capsys):
    _, gtkw = long_waves
    if headless_gtkwave() is None:
        pytest.skip("needs GTKWave and xvfb-run (Debian: apt install gtkwave xvfb)")
    assert gtkwave_main([str(gtkw), "--timeout", "0.3"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "too big" in err and "MB" in err
    assert "fewer games" in err and "--timeout" in err
