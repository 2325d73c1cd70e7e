# amaranth: UnusedElaboratable=no
"""``axon search``: the same tree from every repetition test, node for node.

The engine searches with python-chess's transposition keys as its
repetition test, then with a detector session of each backend (the golden
model, the RTL in Amaranth's simulator and in CXXRTL, the board simulated at
its pins over the link): node counts, key moves, evaluations and repetitions
noted must be identical at every depth, at depths where repetitions occur.
A detector blind to the root, or one that misses a capture's barrier, must
give another tree; a trace of the detector's queries recomputed by
python-chess alone must show no difference.
"""

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest

from axon.sim.backends.link import Link, open_transport
from axon.hdl.word import pack_word, unpack_word
from axon.sim.backends.session import GoldenSession
from axon.sim.cli.main import EXIT_INTERRUPTED, main
from axon.sim.engine.repetition import ChessTest, DetectorTest, NoTest, history_window
from axon.sim.engine.alphabeta import Engine, evaluate, format_score
from axon.sim.engine.trace import QUERY_KEYS, TraceWriter, check_trace, read_trace
from axon.sim.model.games import load_games


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the detector inside a search"


DATA = os.path.join(os.path.dirname(__file__), os.pardir, "sim", "data")
DOCS_SEARCH = Path(__file__).resolve().parents[1] / "docs" / "search-experiment.md"
AXON = os.path.join(os.path.dirname(sys.executable), "axon")
WAC_018 = "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1"

# Kings in their corners behind blocked pawns, after the kings have stepped
# out and back twice: the root is the start position's third occurrence, and
# the tree is small enough for the board simulated at its pins.
CORNERS = "7k/8/8/p7/P7/8/8/7K w - - 0 1"
CORNERS_HISTORY = "h1g1 h8g8 g1h1 g8h8 h1g1 h8g8 g1h1 g8h8".split()


def diep_history(ply):
    """DIEP - AXON (the paper's appendix game) up to ``ply``: the start and the moves."""
    game = load_games(os.path.join(DATA, "diep_axon.pgn"))[0]
    return game.board, game.moves[:ply]


def tree(board, history, test, depth, **options):
    """What must not depend on the repetition test: per depth the key move,
    the score, the nodes, the terminal nodes, the repetitions noted and the
    upcoming cutoffs."""
    engine = Engine(board, history, test, **options)
    return [(result.depth, result.uci, result.score, result.nodes, result.terminal,
             result.repetitions, result.upcoming_cutoffs) for result in engine.iterate(depth)]


def corners():
    return chess.Board(CORNERS), [chess.Move.from_uci(uci) for uci in CORNERS_HISTORY]


class BlindToRoot(GoldenSession):
    """A detector that ignores the root: every earlier occurrence counts as
    one inside the search."""
    def query(self, top, count_limit, occupancy=None, root_address=-1):
        return super().query(top, count_limit, occupancy, -1)


class MissesCaptureBarrier(GoldenSession):
    """A detector that stores a capture by a piece without its barrier bit,
    so that its scans run on past the capture."""
    def write(self, address, word):
        from_sq, to_sq, piece, barrier = unpack_word(word)
        if barrier and piece & 7 not in (0, 1):      # not a null move, not a pawn
            word = pack_word(from_sq, to_sq, piece, barrier=False)
        super().write(address, word)


# Positions and depths at which repetitions occur, each a few seconds at most.
CASES = {
    "wac018": (lambda: (chess.Board(WAC_018), []), 6, {}),
    "wac018-null-move": (lambda: (chess.Board(WAC_018), []), 6, {"null_move": True}),
    "diep-endgame": (lambda: diep_history(88), 5, {}),
    "corners-upcoming": (corners, 6, {"upcoming_cutoff": True}),
}


@pytest.fixture(scope="module")
def expected():
    """python-chess's tree of each case."""
    found = {}
    for name, (position, depth, options) in CASES.items():
        board, history = position()
        found[name] = tree(board, history, ChessTest(), depth, **options)
    return found


@pytest.mark.quick
@pytest.mark.parametrize("name", list(CASES))
def test_golden_detector_gives_python_chess_tree(name, expected):
    position, depth, options = CASES[name]
    board, history = position()
    found = tree(board, history, DetectorTest(GoldenSession(), **_upcoming(options)), depth,
                 **options)
    assert found == expected[name]
    # A case where nothing repeats would prove nothing.
    assert sum(row[5] for row in found) > 0


def _upcoming(options):
    return {"ask_upcoming": options.get("upcoming_cutoff", False)}


def test_repetitions_change_the_tree(expected):
    """The test matters: without it, the trees of the cases differ."""
    for name, (position, depth, options) in CASES.items():
        board, history = position()
        assert tree(board, history, NoTest(), depth, **options) != expected[name], name


@pytest.mark.parametrize("broken, name", [(BlindToRoot, "diep-endgame"),
                                          (MissesCaptureBarrier, "wac018")])
def test_broken_detector_gives_another_tree(broken, name, expected):
    position, depth, options = CASES[name]
    board, history = position()
    found = tree(board, history, DetectorTest(broken(), **_upcoming(options)), depth, **options)
    assert found != expected[name]


def test_cxxrtl_detector_gives_python_chess_tree(expected):
    cxxrtl = pytest.importorskip("axon.sim.backends.cxxrtl")
    try:
        session = cxxrtl.CxxrtlSession()
    except cxxrtl.CxxrtlError as error:
        pytest.skip(str(error))
    with session:
        for name in ("wac018", "corners-upcoming"):
            position, depth, options = CASES[name]
            board, history = position()
            assert tree(board, history, DetectorTest(session, **_upcoming(options)), depth,
                        **options) == expected[name], name


def test_pysim_detector_gives_python_chess_tree():
    from axon.sim.backends.pysim import PysimSession
    board, history = corners()
    wanted = tree(board, history, ChessTest(), 4, upcoming_cutoff=True)
    with PysimSession() as session:
        found = tree(board, history, DetectorTest(session, ask_upcoming=True), 4,
                     upcoming_cutoff=True)
    assert found == wanted
    assert sum(row[5] for row in found) > 0


def test_link_detector_gives_python_chess_tree():
    """The board simulated at its UART pins, a word's WRITE and a QUERY a node."""
    board, history = corners()
    wanted = tree(board, history, ChessTest(), 2)
    with open_transport("sim://icebreaker") as transport:
        found = tree(board, history, DetectorTest(Link(transport).session()), 2)
    assert found == wanted
    assert sum(row[5] for row in found) > 0


def _trace(path, board, history, depth, **options):
    trace = TraceWriter(str(path))
    test = DetectorTest(GoldenSession(), ask_upcoming=options.get("upcoming_cutoff", False),
                        on_query=trace.record)
    for _ in Engine(board, history, test, **options).iterate(depth):
        pass
    trace.close()
    rows = read_trace(path)
    assert len(rows) == trace.rows == test.queries
    return rows


def _docs_checker():
    """The reader and the checker docs/search-experiment.md prints, as printed."""
    source = DOCS_SEARCH.read_text().split("```python\n")[1].split("```")[0]
    namespace = {}
    exec(source, namespace)
    return namespace["rows"], namespace["expected"]


@pytest.mark.quick
def test_trace_recomputed_by_python_chess(tmp_path):
    path = tmp_path / "trace.jsonl.gz"
    rows = _trace(path, *corners(), 5, upcoming_cutoff=True)
    with gzip.open(path, "rt") as file:
        lines = file.read().splitlines()
    # The search's start once, then a row a query with its path alone.
    start = json.loads(lines[0])
    assert start["root"] == len(CORNERS_HISTORY) == len(start["history"].split())
    assert all(set(json.loads(line)) == set(QUERY_KEYS) for line in lines[1:])
    docs_rows, expected = _docs_checker()
    # The docs' reader gives the rows read_trace gives, and its check agrees.
    assert [{key: row[key] for key in ("fen", "moves", "root")} for row in docs_rows(lines)] \
        == [{key: row[key] for key in ("fen", "moves", "root")} for row in rows]
    assert sum(row["draw"] for row in rows) > 0
    # The host's look-up for an upcoming repetition at or before the root is a row too.
    assert {row["count_limit"] for row in rows} == {1, 2}
    # Null moves, written 0000, on WAC.018 searched with null-move pruning.
    rows += _trace(tmp_path / "wac.jsonl", chess.Board(WAC_018), [], 4, null_move=True)
    assert any("0000" in row["moves"] for row in rows)
    assert sum(row["draw"] for row in rows) > 0
    assert check_trace(rows) == []
    fields = ("repetition", "count", "distance", "draw")
    assert all(expected(row) == {key: row[key] for key in fields} for row in rows)
    # The check can fail: a row with another answer is found.
    tampered = [dict(row) for row in rows]
    first_draw = next(row for row in tampered if row["draw"])
    first_draw["draw"] = False
    assert len(check_trace(tampered)) == 1


def test_history_window_keeps_from_the_last_barrier():
    barrier = pack_word(12, 28, 1, barrier=True)
    quiet = pack_word(6, 21, 2)
    assert history_window([quiet, barrier, quiet, quiet], 256) == 1
    # No barrier, or one too far back: as much as leaves room for the path.
    assert history_window([quiet] * 300, 256) == 300 - (256 - 64)
    with pytest.raises(ValueError, match="no room for game history"):
        history_window([quiet], 64)


def test_evaluation_and_scores():
    assert evaluate(chess.Board(WAC_018)) == 150           # a pawn five ranks up
    assert evaluate(chess.Board(WAC_018.replace(" w ", " b "))) == -150
    assert format_score(150) == "+1.50"
    assert format_score(1_000_000 - 3) == "#2"
    assert format_score(-(1_000_000 - 2)) == "#-1"


def test_engine_checks_its_arguments():
    with pytest.raises(ValueError, match="needs a repetition test"):
        Engine(chess.Board(), [])
    with pytest.raises(ValueError, match=r"is stalemate \(Black has no legal move and is not "
                                         r"in check\); nothing to search"):
        Engine(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), [], NoTest())
    with pytest.raises(ValueError, match=r"is checkmate \(Black is mated\)"):
        Engine(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), [], NoTest())
    # A dead draw still has moves: the words say why there is nothing to search.
    with pytest.raises(ValueError, match=r"is a dead draw \(neither side has the material to "
                                         r"mate\), though Black has 3 legal moves"):
        Engine(chess.Board("7k/8/8/8/8/8/8/K7 b - - 0 1"), [], NoTest())


# -- the command line -----------------------------------------------------------

@pytest.mark.quick
def test_compare_prints_both_runs(capsys):
    assert main(["search", "--fen", WAC_018, "--depth", "5", "--compare", "-q"]) == 0
    out = capsys.readouterr().out
    title = next(line for line in out.splitlines() if "off:" in line)
    assert title.split() == ["off:", "detector", "(golden):", "with", "the", "test:"]
    assert "nodes -%" in out
    assert len([line for line in out.splitlines() if line.strip().startswith("5 ")]) == 1


def test_json_of_a_game_position(capsys):
    assert main(["search", os.path.join(DATA, "diep_axon.pgn"), "--ply", "88", "--depth", "3",
                 "--repetition", "python-chess", "--compare", "--json", "-q"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["history_plies"] == 88
    assert [run["repetition"] for run in document["runs"]] == ["off", "python-chess"]
    assert [row["depth"] for row in document["runs"][1]["depths"]] == [1, 2, 3]
    assert set(document["shrinkage_total"]) == {"nodes", "terminal"}


@pytest.mark.parametrize("args, message", [
    (["--fen", "not a fen"], "--fen 'not a fen'"),
    ([], "give the position"),
    (["DIEP", "--game", "2"], "--game 2 is out of range"),
    (["DIEP", "--ply", "99"], "--ply 99 is out of range"),
    (["--fen", WAC_018, "--repetition", "off", "--trace", "t.jsonl"],
     "--trace is for the detector: --repetition off does not use it"),
    # An option the search would not use is refused, not ignored.
    (["--fen", WAC_018, "--repetition", "off", "--compare"],
     "--compare searches without the test and with it: give --repetition detector or "
     "python-chess"),
    (["--fen", WAC_018, "--repetition", "python-chess", "--backend", "cxxrtl"],
     "--backend is for the detector: --repetition python-chess does not use it"),
    (["--fen", WAC_018, "--repetition", "python-chess", "--port", "sim://"],
     "--port is for the detector: --repetition python-chess does not use it"),
    (["--fen", WAC_018, "--repetition", "off", "--upcoming-cutoff"],
     "--upcoming-cutoff asks the repetition test: --repetition off has none"),
    (["--fen", WAC_018, "--backend", "pysim", "--port", "sim://"],
     "--backend and --port each name a detector: give one"),
    (["--show", "NOT_KEPT"], "not a kept axon search --json output: it has no 'options', 'runs'"),
    (["--show", "A_LIST"], "not a kept axon search --json output: a JSON list, not an object"),
])
def test_bad_input_is_one_line(args, message, capsys, tmp_path):
    (tmp_path / "not_kept.json").write_text('{"position": "x", "history_plies": 0}')
    (tmp_path / "list.json").write_text('[1, 2]')
    files = {"DIEP": os.path.join(DATA, "diep_axon.pgn"),
             "NOT_KEPT": str(tmp_path / "not_kept.json"), "A_LIST": str(tmp_path / "list.json")}
    args = [files.get(arg, arg) for arg in args]
    assert main(["search", *args, "-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_backend_sim_is_pysim(capsys):
    # The name the CHANGELOG and the docs give, as axon scan takes it.
    assert main(["search", "--fen", WAC_018, "--depth", "1", "--backend", "sim", "-q"]) == 0
    assert "detector (pysim)" in capsys.readouterr().out


# Black has one legal move (Kb8): a search of a few nodes, for a link in simulation.
ONE_MOVE = "k7/8/1K6/8/8/8/8/7R b - - 0 1"


def _tree(stdout):
    """The table's rows without the seconds column, and without the title."""
    return [line.split()[:-1] for line in stdout.splitlines()
            if line.split() and (line.split()[0].isdigit() or line.split()[0] == "all")]


@pytest.mark.parametrize("port, depth", [("sim://icebreaker", 1), ("cxxrtl://icebreaker", 2)])
def test_search_through_a_link_by_the_command_line(port, depth, tmp_path):
    # The path a user takes: the installed script, --port, the board's own
    # configuration from IDENTIFY, and a trace of every query.
    if port.startswith("cxxrtl") and shutil.which("g++") is None:
        pytest.skip("the CXXRTL board is compiled with g++, not on PATH")
    trace = tmp_path / "t.jsonl.gz"
    common = ["search", "--fen", ONE_MOVE, "--depth", str(depth), "-q"]
    linked = subprocess.run([AXON, *common, "--port", port, "--trace", str(trace)],
                            capture_output=True, text=True, timeout=600)
    assert linked.returncode == 0 and linked.stderr == "", linked.stderr
    chess_test = subprocess.run([AXON, *common, "--repetition", "python-chess"],
                                capture_output=True, text=True, timeout=120)
    assert _tree(linked.stdout) == _tree(chess_test.stdout)
    assert f"detector (link {port})" in linked.stdout
    queries = int(_tree(linked.stdout)[-1][-1])
    assert len(read_trace(str(trace))) == queries > 0


def _restore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setpgrp()


def test_ctrl_c_prints_the_finished_depths():
    process = subprocess.Popen([AXON, "search", "--fen", WAC_018, "--depth", "30", "-q"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=_restore_sigint)
    # Long enough to load and finish depth 1 on a busy machine.
    time.sleep(6)
    assert process.poll() is None
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == EXIT_INTERRUPTED, stderr
    assert b"Traceback" not in stderr and b"depths finished" in stderr
    assert b"\n    1 " in stdout


# -- the kept runs of docs/search-experiment.md ----------------------------------------------

KEPT_RUNS = sorted((DOCS_SEARCH.parent / "search").glob("*.json"))
# What a run of the same search must reproduce, depth by depth.
DETERMINED = ("depth", "move", "score", "nodes", "terminal", "repetitions", "upcoming",
              "queries")


def _command(options, depth):
    argv = [] if options["pgn"] is None else [options["pgn"], "--game", str(options["game"])]
    for name in ("fen", "ply", "repetition", "backend", "port"):
        # The detector's options only with the detector: the search refuses
        # them with another test (a kept run records golden all the same).
        if name in ("backend", "port") and options["repetition"] != "detector":
            continue
        if options[name] is not None:
            argv += [f"--{name}", str(options[name])]
    # A kept run's options name the cutoff's flag "upcoming".
    argv += [f"--{flag}" for name, flag in (("upcoming", "upcoming-cutoff"),
                                            ("null_move", "null-move"), ("compare", "compare"))
             if options[name]]
    return argv + ["--depth", str(depth)]


@pytest.mark.parametrize("path", KEPT_RUNS, ids=[path.stem for path in KEPT_RUNS])
def test_kept_runs_are_what_the_command_gives(path, capsys, monkeypatch):
    """The docs' long runs are kept as their --json output; the same search,
    run again to a few plies, gives the same first depths."""
    kept = json.loads(path.read_text())
    assert not kept["interrupted"]
    monkeypatch.chdir(DOCS_SEARCH.parents[1])
    assert main(["search", *_command(kept["options"], 3), "--json", "-q"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert fresh["position"] == kept["position"]
    assert [run["label"] for run in fresh["runs"]] == [run["label"] for run in kept["runs"]]
    for fresh_run, kept_run in zip(fresh["runs"], kept["runs"]):
        assert len(kept_run["depths"]) == kept["options"]["depth"]
        for row, kept_row in zip(fresh_run["depths"], kept_run["depths"]):
            assert {key: row[key] for key in DETERMINED} == \
                {key: kept_row[key] for key in DETERMINED}


# -- the bench's recorded search workload -------------------------------------------

def _small_searches():
    from axon.sim.bench.recorded import RecordedSearch
    return (RecordedSearch(label="WAC.018", fen=WAC_018, pgn=None, plies=0, depth=3),
            RecordedSearch(label="DIEP - AXON after 44... Qd3+", fen=None, pgn="diep_axon.pgn",
                           plies=88, depth=2))


def _cxxrtl_session():
    cxxrtl = pytest.importorskip("axon.sim.backends.cxxrtl")
    try:
        return cxxrtl.CxxrtlSession()
    except cxxrtl.CxxrtlError as error:
        pytest.skip(str(error))


def test_recorded_workload_replays_on_the_rtl():
    from axon.sim.bench.recorded import record_searches, simulate_recorded
    loads, summary = record_searches(log=lambda line: None, searches=_small_searches())
    queries = sum(len(load.queries) for load in loads)
    assert queries == sum(found["queries"] for found in summary)
    # A search asks along its lines: far fewer loads than queries.
    assert len(loads) < queries
    session = _cxxrtl_session()
    sim = simulate_recorded(loads, session, "cxxrtl", log=lambda line: None)
    assert sim["mismatches"] == 0 and len(sim["cycles"]) == queries
    # A recorded answer the search was not told is caught.
    recorded = loads[0].queries[0]
    loads[0].queries[0] = recorded._replace(
        told=recorded.told.__class__(**{**recorded.told.__dict__, "draw": not recorded.told.draw}))
    assert simulate_recorded(loads, session, "cxxrtl", log=lambda line: None)["mismatches"] == 1


def _host_rates(links):
    from axon.sim.bench.recorded import host_rates
    _cxxrtl_session()
    return host_rates(log=lambda line: None, depths={"host": 2, "link": 1}, links=links)


def test_host_rates_of_each_test():
    rates = _host_rates(())
    assert set(rates) == {"off", "python-chess", "golden", "cxxrtl"}
    assert rates["off"]["queries"] == 0
    assert rates["golden"]["queries"] == rates["cxxrtl"]["queries"] > 0
    assert all(figures["nodes_per_second"] > 0 for figures in rates.values())


@pytest.mark.slow
def test_link_bytes_per_node():
    link = _host_rates(("sim://icebreaker",))["link:sim://icebreaker"]
    # A node is a WRITE frame of one word and a QUERY frame, and their answers.
    assert link["bytes_per_node"] > 0
    assert link["nodes_per_second_at_1_mbaud"] == round(100_000 / link["bytes_per_node"])


def test_kept_wac018_runs_are_one_tree():
    """The depth-12 runs of docs/search-experiment.md: python-chess's test and the
    golden model's detector searched the same tree, depth by depth."""
    detector = json.loads((DOCS_SEARCH.parent / "search" / "wac018.json").read_text())
    chess_run = json.loads((DOCS_SEARCH.parent / "search" /
                            "wac018-python-chess.json").read_text())
    tested, = [run for run in detector["runs"] if run["repetition"] == "detector"]
    assert len(tested["depths"]) == 12
    assert [{key: row[key] for key in DETERMINED} for row in tested["depths"]] == \
        [{key: row[key] for key in DETERMINED} for row in chess_run["runs"][0]["depths"]]


# Two white kings: --fen and a PGN's FEN tag say the same of one position,
# and so does a suite's EPD line.
TWO_WHITE_KINGS = "4k3/8/8/8/8/8/8/K3K3 w - - 0 1"


def test_an_illegal_position_is_named_alike_everywhere(tmp_path):
    def error_of(*argv):
        done = subprocess.run([AXON, *argv], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        return done.stderr
    pgn = tmp_path / "kings.pgn"
    pgn.write_text(f'[SetUp "1"]\n[FEN "{TWO_WHITE_KINGS}"]\n\n1. Kb1 *\n')
    epd = tmp_path / "kings.epd"
    epd.write_text(" ".join(TWO_WHITE_KINGS.split()[:4]) + ' id "kings";\n')
    assert error_of("search", "--fen", TWO_WHITE_KINGS, "--depth", "1") == \
        f"axon search: error: --fen '{TWO_WHITE_KINGS}': not a legal position: too many kings\n"
    assert error_of("scan", str(pgn)) == \
        f"axon scan: error: {pgn}: game 1: bad FEN '{TWO_WHITE_KINGS}': too many kings\n"
    assert error_of("search", str(epd), "--depth", "1").endswith(
        "line 1: not a legal position: too many kings\n")
    # Broken: a legal position (a rook for one of the kings) is searched.
    done = subprocess.run([AXON, "search", "--fen", TWO_WHITE_KINGS.replace("K3K3", "K2R4"),
                           "--depth", "1", "-q"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.quick
def test_upcoming_is_the_old_name_of_upcoming_cutoff():
    # `axon search --upcoming` and `axon uci --upcoming` were the cutoff's
    # flag before --upcoming-cutoff (--upcoming is the detector's block
    # elsewhere): taken, with a warning, until 0.5.
    base = ["search", "--fen", CORNERS, "--depth", "2", "-q"]
    new = subprocess.run([AXON, *base, "--upcoming-cutoff"], capture_output=True, text=True,
                         timeout=120)
    old = subprocess.run([AXON, *base, "--upcoming"], capture_output=True, text=True,
                         timeout=120)
    assert new.returncode == old.returncode == 0 and new.stderr == ""
    assert "; upcoming cutoff" in new.stdout.splitlines()[0]
    assert _without_seconds(old.stdout) == _without_seconds(new.stdout)
    assert old.stderr == ("axon search: warning: --upcoming is deprecated here and will be "
                          "removed in 0.5: give --upcoming-cutoff (the search's "
                          "upcoming-repetition cutoff)\n")
    # The engine's and the test's keywords, the same way.
    board, history = corners()
    with pytest.warns(DeprecationWarning, match="upcoming_cutoff"):
        engine = Engine(board, history, ChessTest(), upcoming=True)
    assert engine.upcoming_cutoff
    with pytest.warns(DeprecationWarning, match="ask_upcoming"):
        assert DetectorTest(GoldenSession(), upcoming=True).ask_upcoming
    result = next(iter(engine.iterate(1)))
    with pytest.warns(DeprecationWarning, match="upcoming_cutoffs"):
        assert result.upcoming == result.upcoming_cutoffs
    assert result.as_dict()["upcoming"] == result.upcoming_cutoffs


def _without_seconds(text):
    # The table's rows but for the timings (the last column, and the rate).
    return [line.rsplit(maxsplit=1)[0] for line in text.splitlines()
            if line and not line.startswith("nodes per second")]


@pytest.mark.quick
def test_the_engines_old_module_name_still_imports_with_a_warning(monkeypatch):
    # axon.sim.engine.search was the engine's module until it was named
    # alphabeta (three modules were called search.py); it stays until 0.5.
    import importlib
    monkeypatch.delitem(sys.modules, "axon.sim.engine.search", raising=False)
    with pytest.warns(DeprecationWarning, match="axon.sim.engine.alphabeta"):
        old = importlib.import_module("axon.sim.engine.search")
    assert old.Engine is Engine and old.DepthResult.__module__ == "axon.sim.engine.alphabeta"
