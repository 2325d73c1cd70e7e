# amaranth: UnusedElaboratable=no
"""``axon search SUITE.epd``: a test suite, N positions at a time.

Each position's tree (per depth the key move, score, nodes, terminal nodes,
repetitions) must be the same with ``--jobs 1``, with ``--jobs 2`` (two
processes, each with its own detector) and with python-chess's repetition
test, and the ``--json`` objects must come in the file's order whichever
search ends first. A bad EPD line is one line naming it; Ctrl-C prints the
positions finished and exits 130.
"""

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from axon.sim.cli.main import EXIT_INTERRUPTED, main
from axon.sim.engine.suite import SuitePosition, parse_suite, read_suite


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "a test suite, N positions at a time"


ROOT = Path(__file__).resolve().parents[1]
SHIPPED_SUITE = ROOT / "sim" / "data" / "wac_small.epd"
AXON = os.path.join(os.path.dirname(sys.executable), "axon")

# The slowest first, so that with two searches at once the second and third
# end before the first: the output must still come in the file's order. At
# depth 5 each has repetitions inside the search.
SMALL_SUITE = """\
7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - bm Rb7; id "WAC.006";
# kings in their corners behind blocked pawns
7k/8/8/p7/P7/8/8/7K w - - id "corners";
k7/8/1K6/8/8/8/8/7R b - - bm Kb8; id "one move";
"""
SMALL_IDS = ["WAC.006", "corners", "one move"]
# What must not depend on how the positions were searched.
DETERMINED = ("depth", "move", "score", "nodes", "terminal", "repetitions", "upcoming")


@pytest.fixture
def small_suite(tmp_path):
    path = tmp_path / "small.epd"
    path.write_text(SMALL_SUITE)
    return str(path)


def _objects(capsys, args):
    assert main(["search", *args, "--json", "-q"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def trees(objects):
    """``{id: per-depth tree}`` of a suite's --json objects."""
    return {found["id"]: [{key: row[key] for key in DETERMINED}
                          for row in found["runs"][0]["depths"]] for found in objects}


def in_file_order(objects, ids):
    return [found["id"] for found in objects] == ids


def test_trees_do_not_depend_on_jobs(small_suite, capsys):
    one = _objects(capsys, [small_suite, "--depth", "5", "--jobs", "1"])
    two = _objects(capsys, [small_suite, "--depth", "5", "--jobs", "2"])
    chess_test = _objects(capsys, [small_suite, "--depth", "5", "--repetition", "python-chess"])
    assert trees(one) == trees(two) == trees(chess_test)
    assert in_file_order(one, SMALL_IDS) and in_file_order(two, SMALL_IDS)
    # Repetitions inside the search, or the comparison would prove little.
    assert all(sum(row["repetitions"] for row in tree) > 0 for tree in trees(two).values())
    # Each object is the single search's --json output, and --show reads it.
    assert two[0]["options"]["fen"] == two[0]["position"] and two[0]["bm"] == ["Rb7"]
    assert {"move", "solved", "line", "am", "runs", "options"} <= set(two[0])
    # The checks can fail: without the test the trees differ, and the
    # objects in another order are not in the file's.
    corners = Path(small_suite).with_name("corners.epd")
    corners.write_text(SMALL_SUITE.splitlines()[2] + "\n")
    off = _objects(capsys, [str(corners), "--depth", "5", "--repetition", "off"])
    assert trees(off)["corners"] != trees(two)["corners"]
    assert not in_file_order(list(reversed(two)), SMALL_IDS)


def test_a_kept_object_is_shown(small_suite, capsys, tmp_path):
    first = _objects(capsys, [small_suite, "--depth", "2"])[0]
    kept = tmp_path / "first.json"
    kept.write_text(json.dumps(first))
    assert main(["search", "--show", str(kept)]) == 0
    assert "7k/p7/1R5K/6r1/6p1/6P1/8/8 w - -" in capsys.readouterr().out


@pytest.mark.quick
def test_the_table_and_the_end_line(small_suite, capsys):
    assert main(["search", small_suite, "--depth", "4", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split() for line in lines[2:-1]}
    assert rows["WAC.006"][:2] == ["WAC.006", "Rb7"] and "yes" in rows["WAC.006"]
    # A position that asks for nothing is neither solved nor not.
    assert rows["corners"][3:5] == ["-", "-"]
    assert lines[-1].startswith("solved 2/2; ") and "nodes/s" in lines[-1]


@pytest.mark.quick
def test_solved_is_a_best_move_and_no_move_to_avoid():
    position = SuitePosition(0, 1, "x", "8/8/8/8/8/8/8/K6k w - - 0 1", bm=("Rh8",), am=())
    assert position.solved("Rh8") is True and position.solved("Kh1") is False
    avoid = SuitePosition(0, 1, "x", "8/8/8/8/8/8/8/K6k w - - 0 1", am=("Qxb2",))
    assert avoid.solved("Qc2") is True and avoid.solved("Qxb2") is False
    assert avoid.expected == "am Qxb2" and position.expected == "bm Rh8"
    assert SuitePosition(0, 1, "x", "8/8/8/8/8/8/8/K6k w - - 0 1").solved("Kb1") is None


@pytest.mark.quick
def test_the_shipped_suite_reads():
    positions = read_suite(str(SHIPPED_SUITE))
    assert "WAC.018" in [position.id for position in positions]
    assert all(position.bm for position in positions)


GOOD = 'R7/P4k2/8/8/8/8/r7/6K1 w - - bm Rh8; id "WAC.018";\n'


@pytest.mark.quick
@pytest.mark.parametrize("text, message", [
    (GOOD + GOOD + "R7/P4k2/8/8/8/8/r7 w - - bm Rh8;\n", "line 3: not an EPD position"),
    (GOOD + "\nR7/P4k2/8/8/8/8/r7/6K1 w - - bm Qh8;\n", "line 3: not an EPD position"),
    (GOOD + "7k/6Q1/6K1/8/8/8/8/8 b - - id \"mate\";\n",
     "line 2: the position is checkmate (Black is mated); nothing to search"),
    (GOOD + "8/8/8/8/8/8/8/8 w - - id \"empty\";\n", "line 2: not a legal position"),
    ("# no positions\n\n", "no EPD positions in the file"),
])
def test_a_bad_epd_line_is_named(text, message, tmp_path, capsys):
    path = tmp_path / "bad.epd"
    path.write_text(text)
    assert main(["search", str(path), "--depth", "1", "-q"]) == 2
    err = capsys.readouterr().err
    assert f"axon search: error: {path}: {message}" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    # The check fails on a good line.
    path.write_text(GOOD)
    assert main(["search", str(path), "--depth", "1", "-q"]) == 0


@pytest.mark.quick
def test_a_byte_that_is_not_utf8_is_named():
    with pytest.raises(ValueError, match=r"s\.epd: line 2: not UTF-8 text \(byte 3 of the "
                                         r"line is 0xff\)"):
        parse_suite(GOOD.encode() + b"R7\xff/P4k2\n", "s.epd")


@pytest.mark.quick
@pytest.mark.parametrize("args, message", [
    (["--fen", "8/8/8/8/8/8/8/K6k w - - 0 1"], "--fen is for one position"),
    (["--ply", "3"], "--ply is for one position"),
    (["--compare"], "--compare is for one position"),
])
def test_options_of_one_position_are_refused(args, message, small_suite, capsys):
    assert main(["search", small_suite, *args, "-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.quick
def test_jobs_is_for_a_suite(capsys):
    assert main(["search", "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1", "--jobs", "2", "-q"]) == 2
    assert capsys.readouterr().err == "axon search: error: --jobs is for a suite: give " \
                                      "SUITE.epd\n"


def _search_jobs(suite, port):
    return subprocess.run([AXON, "search", suite, "--depth", "1", "--port", port, "--jobs",
                           "2", "-q"], capture_output=True, text=True, timeout=600)


def test_more_jobs_than_the_board_has_detectors(small_suite):
    # Through the installed script: the refusal names the URL that simulates
    # as many detectors as asked for.
    done = _search_jobs(small_suite, "sim://icebreaker?depth=66")
    assert done.returncode == 2
    assert done.stderr == "axon search: error: --jobs 2: the board on " \
                          "sim://icebreaker?depth=66 has 1 detector; give --jobs 1 or fewer, " \
                          "or simulate 2 with --port sim://icebreaker?depth=66&detectors=2\n"


# Two detectors of the HX8K in Amaranth's simulator: minutes on two cores.
@pytest.mark.slow
def test_the_url_a_refusal_names_has_the_detectors(small_suite):
    done = _search_jobs(small_suite, "sim://hx8k?depth=66")
    assert done.returncode == 2 and "--port sim://hx8k?depth=66&detectors=2\n" in done.stderr
    named = done.stderr.rsplit("--port ", 1)[1].strip()
    done = _search_jobs(small_suite, named)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) > len(SMALL_SUITE.splitlines())


def test_more_jobs_than_a_real_board_has_detectors_names_the_build():
    from axon.sim.cli.suite import _more_detectors
    assert _more_detectors("/dev/ttyUSB1", 2) == "or build the board with axon build " \
                                                "--detectors 2"
    assert _more_detectors("cxxrtl://hx8k", 2) == "or simulate 2 with --port " \
                                                  "cxxrtl://hx8k?detectors=2"


# The search path's room is taken from the move list before the first search.
def test_a_move_list_without_room_for_history_is_one_line(small_suite, capsys):
    assert main(["search", small_suite, "--depth", "1", "-q", "--port",
                 "sim://icebreaker?depth=64"]) == 2
    assert capsys.readouterr().err == \
        "axon search: error: --port sim://icebreaker?depth=64: a move list of depth 64 " \
        "leaves no room for game history below a search path of 64 plies\n"


def test_a_suite_through_a_link_says_what_the_link_carried(small_suite, capsys):
    # Two words of history room, the least that searches; python-chess's trees.
    assert main(["search", small_suite, "--depth", "1", "--json", "--port",
                 "sim://icebreaker?depth=66"]) == 0
    captured = capsys.readouterr()
    linked = [json.loads(line) for line in captured.out.splitlines()]
    assert trees(linked) == trees(_objects(capsys, [small_suite, "--depth", "1",
                                                    "--repetition", "python-chess"]))
    end = captured.err.splitlines()[-1]
    # A write and a query a node, and the identification and loads.
    trips, each = re.fullmatch(
        r"axon search: link: ([\d,]+) round trips, [\d,]+ bytes \([\d,]+ sent, [\d,]+ "
        r"received\): ([\d.]+) round trips and [\d.]+ bytes a node", end).groups()
    nodes = sum(row["nodes"] for found in linked for row in found["runs"][0]["depths"])
    trips = int(trips.replace(",", ""))
    assert nodes < trips < 3 * nodes and float(each) == round(trips / nodes, 2)


@pytest.mark.quick
def test_progress_counts_positions_and_nodes():
    from axon.sim.cli.suite import SuiteProgress
    now = [0.0]
    stream = io.StringIO()
    progress = SuiteProgress(9, stream=stream, clock=lambda: now[0], command="axon search")
    for seconds, position, nodes in ((30, 0, 1_000), (31, 1, 500), (60, 2, 1_500)):
        now[0] = seconds
        progress.update(position, nodes)
    # A log's line every 30 s, with the positions and nodes so far.
    assert stream.getvalue() == "axon search: 1/9 positions, 1,000 nodes, 33 nodes/s\n" \
                                "axon search: 3/9 positions, 3,000 nodes, 50 nodes/s\n"
    # Off (-q): nothing.
    quiet = io.StringIO()
    SuiteProgress(9, stream=quiet, enabled=False).update(0, 1)
    assert quiet.getvalue() == ""


def _restore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setpgrp()


# In this process (1) and in worker processes (2); the default run takes the second.
@pytest.mark.parametrize("jobs", [pytest.param("1", marks=pytest.mark.slow), "2"])
def test_ctrl_c_prints_the_positions_finished(jobs, tmp_path):
    # A position of a second at depth 7, then one of many minutes.
    path = tmp_path / "long.epd"
    path.write_text('7k/8/8/p7/P7/8/8/7K w - - id "corners";\n'
                    '8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - bm Rxb2; id "WAC.002";\n')
    process = subprocess.Popen([AXON, "search", str(path), "--depth", "7", "--jobs", jobs],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=_restore_sigint)
    # However the test goes, the search is gone in two minutes.
    watchdog = threading.Timer(120, os.killpg, (process.pid, signal.SIGKILL))
    watchdog.start()
    with process:
        try:
            lines = []
            # The first position's row: then WAC.002 is being searched.
            while not any(line.startswith(b"corners ") for line in lines):
                line = process.stdout.readline()
                assert line, process.stderr.read().decode()
                lines.append(line)
            time.sleep(1)
            assert process.poll() is None
            signalled = time.monotonic()
            os.killpg(process.pid, signal.SIGINT)
            stdout, stderr = process.communicate(timeout=30)
            seconds = time.monotonic() - signalled
        finally:
            watchdog.cancel()
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    stdout = b"".join(lines).decode() + stdout.decode()
    assert process.returncode == EXIT_INTERRUPTED, stderr
    assert b"Traceback" not in stderr and seconds < 2.0
    assert "axon search: interrupted; 1 of 2 positions finished" in stderr.decode()
    assert "solved 0/0 (1 of 2 positions finished); " in stdout
    assert "WAC.002 " not in stdout.split("\n", 2)[2]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_full_output_is_one_line(small_suite):
    with open("/dev/full", "w") as full:
        done = subprocess.run([AXON, "search", small_suite, "--depth", "2", "--jobs", "2",
                               "-q"], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    assert done.returncode == 1
    assert done.stderr == "axon search: error: cannot write the output: No space left on " \
                          "device\n"


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["cxxrtl", "pysim"])
def test_rtl_processes_give_python_chess_trees(backend, small_suite, capsys):
    if backend == "cxxrtl" and shutil.which("g++") is None:
        pytest.skip("the CXXRTL backend compiles with g++, which is not on PATH")
    depth = "5" if backend == "cxxrtl" else "3"
    rtl = _objects(capsys, [small_suite, "--depth", depth, "--jobs", "2", "--backend", backend])
    chess_test = _objects(capsys, [small_suite, "--depth", depth,
                                   "--repetition", "python-chess"])
    assert trees(rtl) == trees(chess_test)
    assert in_file_order(rtl, SMALL_IDS)


@pytest.mark.slow
def test_the_sixteen_detector_board_from_an_empty_cache(tmp_path, capsys):
    # A first user's run: the model is compiled, with a line that says
    # roughly how long it takes, and the 16 detectors give python-chess's trees.
    if shutil.which("g++") is None:
        pytest.skip("the CXXRTL backend compiles with g++, which is not on PATH")
    linked = subprocess.run([AXON, "search", str(SHIPPED_SUITE), "--depth", "2", "--jobs", "16",
                             "--port", "cxxrtl://ulx3s-85f", "--json"], capture_output=True,
                            text=True, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})
    assert linked.returncode == 0, linked.stderr
    assert re.search(r"^axon search: compiling \d+\.\d MB of C\+\+ with g\+\+ .* \(1 class for "
                     r"16 identical instances\), about \d+ (s|minutes) of one core \(once; ",
                     linked.stderr, re.M)
    chess_test = _objects(capsys, [str(SHIPPED_SUITE), "--depth", "2",
                                   "--repetition", "python-chess"])
    assert trees(json.loads(line) for line in linked.stdout.splitlines()) == trees(chess_test)


@pytest.mark.slow
def test_the_shipped_suite_through_a_link(capsys):
    if shutil.which("g++") is None:
        pytest.skip("the CXXRTL backend compiles with g++, which is not on PATH")
    linked = _objects(capsys, [str(SHIPPED_SUITE), "--depth", "1", "--port",
                               "cxxrtl://icebreaker"])
    chess_test = _objects(capsys, [str(SHIPPED_SUITE), "--depth", "1",
                                   "--repetition", "python-chess"])
    assert trees(linked) == trees(chess_test)
