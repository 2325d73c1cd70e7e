# amaranth: UnusedElaboratable=no
"""The ``axon`` command line: scan, verify, explain, and every way input can be bad."""

import dataclasses
import json
import os
import re
import subprocess
import sys
from importlib import resources

import chess
import pytest

from axon.hdl.params import Pools
from axon.hdl.word import pack_word
from axon.sim.backends import session
from axon.sim.cli import progress as commands
from axon.sim.cli.main import main
from axon.sim.model.explain import explain_query, format_table
from axon.sim.model.golden import Result, Stop, perpetual
from axon.sim.model.history import is_window_limited, window_segments, windows
from axon.sim.model.oracle import oracle_answers
from axon.hdl.params import DetectorConfig


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "command line"


DATA = resources.files("axon.sim") / "data"
FIGURE1 = str(DATA / "paper_figure1.pgn")
FIGURE5 = str(DATA / "paper_figure5.pgn")
DIEP = str(DATA / "diep_axon.pgn")
TRAPS = str(DATA / "traps.pgn")
CROWDED = str(DATA / "capacity" / "crowded.pgn")

KEYS = ["game", "ply", "move", "repetition", "draw", "distance", "count", "overflow",
        "plies_scanned", "stop", "cycles", "fifty_move", "threefold", "fivefold",
        "upcoming", "upcoming_move", "upcoming_distance", "upcoming_draw", "upcoming_exact",
        "backstop"]

# Table 2 of the paper, the four knight rows: move, LIST_OF_MOVES, UnClosed_chains, rule.
TABLE2 = [
    ("C4A3", "N_C4A3", "1", "Insert"),
    ("D2C4", "N_C4A3 N_D2C4", "2", "Insert"),
    ("A3B1", "N_C4B1 N_D2C4", "2", "Transition (c4a3 and a3b1)"),
    ("B1D2", "N_C4D2 N_D2C4", "2",
     "Transition (c4b1 and b1d2). Rule of symmetry applied (N_c4d2 and N_d2c4)."),
]


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def jsonl(out):
    return [json.loads(line) for line in out.splitlines()]


def write_pgn(tmp_path, text, name="games.pgn"):
    path = tmp_path / name
    path.write_text(text)
    return path


def pgn_game(moves, fen=None, event="?"):
    headers = f'[Event "{event}"]\n'
    if fen:
        headers += f'[SetUp "1"]\n[FEN "{fen}"]\n'
    return f"{headers}\n{moves} *\n\n"


# --- scan -------------------------------------------------------------------

@pytest.mark.quick
def test_scan_jsonl_schema_and_answers(capsys):
    code, out, err = run(capsys, "scan", FIGURE1, "--jsonl")
    assert code == 0 and err == ""
    records = jsonl(out)
    assert len(records) == 17 + 5
    for record in records:
        assert list(record) == KEYS
        assert record["stop"] in ("barrier", "bottom", "limit", "overflow")
        assert record["cycles"] is None
        assert isinstance(record["fifty_move"], bool)
        assert (record["distance"] is None) == (not record["repetition"])
        assert (record["upcoming_move"] is None) == (not record["upcoming"])
        assert (record["upcoming_distance"] is None) == (not record["upcoming"])
    # The oracle, which compares whole positions, is the independent reference.
    from axon.sim.model.games import load_games
    for game in load_games(FIGURE1):
        oracle = oracle_answers(game.board, game.moves)
        mine = [record for record in records if record["game"] == game.number]
        assert [record["ply"] for record in mine] == list(range(1, len(game.moves) + 1))
        assert [record["move"] for record in mine] == game.ucis
        assert [(r["repetition"], r["draw"], r["distance"], r["count"]) for r in mine] == \
               [(o.repetition, o.draw, o.distance, o.count) for o in oracle]
    # Section 4: the position after 1. Qh6+ recurs at plies 9 and 17.
    assert records[16]["count"] == 2 and records[16]["distance"] == 8


def test_scan_golden_and_sim_agree(capsys):
    golden_code, golden_out, _ = run(capsys, "scan", FIGURE5, "--jsonl")
    sim_code, sim_out, _ = run(capsys, "scan", FIGURE5, "--jsonl", "--backend", "pysim")
    assert golden_code == sim_code == 0
    golden, sim = jsonl(golden_out), jsonl(sim_out)
    assert len(sim) == 24
    assert all(isinstance(record["cycles"], int) for record in sim)
    for record in sim:
        record["cycles"] = None
    assert sim == golden


@pytest.mark.quick
def test_scan_table(capsys):
    code, out, err = run(capsys, "scan", FIGURE5)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["game", "ply", "move", "rep", "draw", "dist", "count",
                                "scanned", "stop", "cycles", "50-move", "3-fold", "5-fold",
                                "upcoming"]
    # A line naming each game (its Event tag) before its rows.
    assert len(lines) == 1 + 3 + 24 + 1
    assert lines[1] == 'game 1 ("Vuckovic-Vidanovic 2007, Figure 5 / Table 2")'
    assert lines[2].split() == ["1", "1", "1.", "Na3", "c4a3", "-", "-", "-", "0", "1",
                                "bottom", "-", "-", "-", "-", "-"]
    # White's knight on d2 can go back to b1: the position after 2. Ndc4 again.
    assert lines[9].split() == ["1", "8", "4...", "Kh8", "g8h8", "yes", "-", "8", "1", "8",
                                "bottom", "-", "-", "-", "-", "d2b1"]
    assert lines[10].startswith("game 2 (")
    assert lines[-1] == "3 games, 24 plies, 3 plies repeat an earlier position"
    assert err == ""      # three games: no progress


def test_scan_options(capsys):
    # Count limit 1 stops at the first equal position inside the search
    # (from ply 0 here: every earlier position is after the root) ...
    _, out, _ = run(capsys, "scan", FIGURE1, "--jsonl", "--count-limit", "1", "--root", "0")
    assert jsonl(out)[8]["stop"] == "limit" and jsonl(out)[8]["plies_scanned"] == 8
    assert jsonl(out)[8]["draw"]
    # ... but not at one in the game history, where a draw needs a third
    # occurrence: without a root every ply is game history.
    _, out, _ = run(capsys, "scan", FIGURE1, "--jsonl", "--count-limit", "1")
    assert jsonl(out)[8]["stop"] == "bottom" and jsonl(out)[8]["plies_scanned"] == 9
    assert not jsonl(out)[8]["draw"] and jsonl(out)[16]["draw"]
    # Count limit 0 stops before reading anything.
    _, out, _ = run(capsys, "scan", FIGURE1, "--jsonl", "--count-limit", "0")
    assert {(r["stop"], r["plies_scanned"]) for r in jsonl(out)} == {("limit", 0)}
    # One slot a side, without the backstop: the knights overflow it.
    _, out, _ = run(capsys, "scan", FIGURE5, "--jsonl", "--chains", "2", "--no-backstop")
    overflow = [r for r in jsonl(out) if r["overflow"]]
    assert overflow and all(r["stop"] == "overflow" for r in overflow)
    # The paper's rules miss the three-knight rotation (game 1), exact finds it.
    for rules, found in (("paper", False), ("exact", True), ("cpw", False)):
        _, out, _ = run(capsys, "scan", FIGURE5, "--jsonl", "--rules", rules)
        assert jsonl(out)[15]["repetition"] is found, rules
    # cpw may use an odd chain count (one shared pool).
    code, _, _ = run(capsys, "scan", FIGURE5, "--rules", "cpw", "--chains", "3")
    assert code == 0


def test_fifty_move_and_mate(tmp_path, capsys):
    fen = "7k/8/6K1/8/8/8/8/R7 w - - 99 80"
    path = write_pgn(tmp_path, pgn_game("80. Ra7", fen) + pgn_game("80. Ra8#", fen))
    _, out, _ = run(capsys, "scan", path, "--jsonl")
    quiet, mate = jsonl(out)
    assert quiet["fifty_move"] is True
    # Mate on the hundredth halfmove: the game is won, not a fifty-move draw.
    assert mate["fifty_move"] is False


def test_progress(tmp_path, capsys):
    path = write_pgn(tmp_path, "".join(pgn_game("1. Nf3 Nf6 2. Ng1 Ng8") for _ in range(12)))
    # stderr is no terminal here: a short run writes no progress at all.
    code, out, err = run(capsys, "scan", path, "--jsonl")
    assert code == 0 and len(jsonl(out)) == 48
    assert err == ""
    # The total it shows is the file's games, counted by their Event tags.
    from axon.sim.cli.args import expected_games
    assert expected_games(str(path)) == 12 and expected_games("-") is None
    assert expected_games(str(tmp_path / "absent.pgn")) is None

    class Stream:
        def __init__(self, tty):
            self.tty, self.text = tty, ""
        def isatty(self):
            return self.tty
        def write(self, text):
            self.text += text
        def flush(self):
            pass

    # A terminal: the command, the games done of the total, the plies and the rate.
    now = [0.0]
    terminal = Stream(True)
    progress = commands.Progress(40, terminal, command="axon scan", clock=lambda: now[0])
    progress.update(0, 60)
    now[0] = 2.0
    progress.update(2, 60)
    progress.done()
    assert terminal.text.startswith("\raxon scan: game 1/40, 60 plies")
    assert "\raxon scan: game 3/40, 120 plies, 60 plies/s" in terminal.text
    assert terminal.text.endswith("\r")

    # A log gets one plain line with the totals per interval (30 s), however
    # many games pass.
    now = [0.0]
    log = Stream(False)
    progress = commands.Progress(1000, log, command="axon verify", clock=lambda: now[0])
    for position in range(1000):
        now[0] = position * 0.1          # 100 s in all
        progress.update(position, 1)
    progress.done()
    assert log.text.splitlines() == ["axon verify: game 301/1000, 301 plies, 10 plies/s",
                                     "axon verify: game 601/1000, 601 plies, 10 plies/s",
                                     "axon verify: game 901/1000, 901 plies, 10 plies/s"]
    # A file that holds fewer games than counted is shown without a total.
    short = Stream(True)
    progress = commands.Progress(2, short, clock=lambda: 1.0)
    progress.update(4, 1)
    assert "game 5," in short.text and "/2" not in short.text
    quiet = Stream(True)
    progress = commands.Progress(40, quiet, enabled=False)
    progress.update(0, 1)
    assert quiet.text == ""


# --- history: the sliding window -----------------------------------------------

def _word(barrier=False):
    return pack_word(chess.G1, chess.F3, 2, barrier=barrier)


@pytest.mark.quick
def test_window_rule():
    # No barrier: the window slides ply by ply once the list is full.
    words = [_word()] * 7
    assert [(w.base, w.top) for w in windows(words, 4)] == \
           [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (3, 3)]
    # A barrier at index 2 becomes address 0 when ply 5 does not fit ...
    words = [_word(), _word(), _word(True), _word(), _word(), _word(), _word()]
    assert [w.base for w in windows(words, 4)] == [0, 0, 0, 0, 2, 2, 3]
    # ... until even that window is too long.
    segments = window_segments(words, 4)
    assert [(base, len(seg_words), [w.ply for w in plies])
            for base, seg_words, plies in segments] == \
           [(0, 4, [0, 1, 2, 3]), (2, 4, [4, 5]), (3, 4, [6])]
    bottom = Result(False, None, 0, False, 4, Stop.BOTTOM)
    assert is_window_limited(bottom, words, 3)
    assert not is_window_limited(bottom, words, 0)
    assert not is_window_limited(bottom, words, 2)      # the barrier is address 0
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        windows(words, 0)


def test_window_backends_agree(capsys):
    # DIEP-AXON ends in a long reversible run: depth 8 cuts it.
    _, golden, _ = run(capsys, "scan", DIEP, "--jsonl", "--list-depth", "8")
    _, sim, _ = run(capsys, "scan", DIEP, "--jsonl", "--list-depth", "8", "--backend", "pysim")
    golden, sim = jsonl(golden), jsonl(sim)
    for record in sim:
        record["cycles"] = None
    assert sim == golden
    assert max(record["plies_scanned"] for record in golden) == 8
    code, out, _ = run(capsys, "verify", DIEP, "--list-depth", "8")
    assert code == 0
    assert re.search(r"window-limited plies ([1-9]\d*)", out)


# --- verify -----------------------------------------------------------------

def test_verify_agrees(capsys):
    code, out, err = run(capsys, "verify", FIGURE5)
    assert code == 0
    assert "games 3, plies 24, repetitions found 3" in out
    assert "overflow plies 0 (the backstop answered 0), window-limited plies 0" in out
    assert out.rstrip().endswith("disagreements: none")
    code, out, _ = run(capsys, "verify", TRAPS, "--backend", "golden")
    assert code == 0 and "disagreements: none" in out


def _lying(monkeypatch):
    real = perpetual

    def lie(words, top, **kwargs):
        result = real(words, top, **kwargs)
        if top == 7:
            # Ply 8 of each game: claim there is no repetition.
            return Result(False, None, 0, result.overflow, result.plies_scanned, result.stop)
        return result

    # Every golden answer of scan and verify comes from the golden session.
    monkeypatch.setattr(session, "perpetual", lie)


@pytest.mark.quick
def test_verify_catches_a_lying_golden_model(monkeypatch, capsys):
    _lying(monkeypatch)
    code, out, _ = run(capsys, "verify", FIGURE5, "--backend", "golden")
    assert code == 1
    assert "golden/oracle repetition: 3" in out
    assert "game 1, ply 8 (4... Kh8, g8h8): golden/oracle repetition: golden false, " \
           "oracle true" in out
    code, out, _ = run(capsys, "verify", FIGURE5)
    assert code == 1
    assert "golden/rtl repetition: 3" in out and "golden/rtl distance: 3" in out


def test_verify_paper_rules_report_blind_spots(capsys):
    code, out, _ = run(capsys, "verify", FIGURE5, "--rules", "paper", "--backend", "golden")
    assert code == 1
    assert "known blind spots" in out
    assert "game 2, ply 8" in out


def test_verify_help_says_exact(capsys):
    code, out, _ = run(capsys, "verify", "--help")
    assert code == 0
    assert "verify is meant for --rules exact" in out


# --- explain ------------------------------------------------------------------

def _split(line):
    return re.split(r"\s{2,}", line.strip())


@pytest.mark.quick
def test_explain_reproduces_table2():
    # The paper's four knight moves alone, oldest first.
    words = [pack_word(chess.C4, chess.A3, 2), pack_word(chess.D2, chess.C4, 2),
             pack_word(chess.A3, chess.B1, 2), pack_word(chess.B1, chess.D2, 2)]
    explanation = explain_query(words, 3, config=DetectorConfig(rules="paper"), order="paper")
    rows = [(row.move, " ".join(row.chains), str(row.unclosed), row.rule)
            for row in explanation.rows]
    assert rows == TABLE2
    lines = format_table(explanation)
    assert _split(lines[-1]) == ["---", "---", "0", "Repetition detected."]
    assert [tuple(_split(line)) for line in lines[1:-1]] == TABLE2


def test_explain_command_on_figure5(capsys):
    code, out, err = run(capsys, "explain", FIGURE5, "--game", 1, "--ply", 8,
                         "--rules", "paper")
    assert code == 0 and err == ""
    lines = out.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("Ply")))
    table = [_split(line) for line in lines[header + 1:]]
    knights = [row for row in table if row[1].startswith("N")]
    # The knight rows, with the king's chains left out, are Table 2.
    assert [(row[2], " ".join(c for c in row[3].split() if c.startswith("N_")), row[5])
            for row in knights] == [(move, chains, rule) for move, chains, _, rule in TABLE2]
    # The unclosed count includes the black king's chain where one is open.
    assert [row[4] for row in knights] == ["1", "3", "2", "3"]
    assert table[-1] == ["---", "---", "0", "Repetition detected."]
    assert "answer: repetition yes, distance 8, count 1" in out


def test_explain_white_side_is_exactly_table2(capsys):
    code, out, err = run(capsys, "explain", FIGURE5, "--game", 1, "--ply", 8,
                         "--rules", "paper", "--side", "white")
    assert code == 0 and err == ""
    lines = out.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("Ply")))
    table = [_split(line) for line in lines[header + 1:]]
    # Ply and SAN columns first, then Table 2's four columns, row for row.
    assert [tuple(row[2:]) for row in table[:-1]] == TABLE2
    assert table[-1] == ["---", "---", "0", "Repetition detected."]


def test_explain_side_rejects_unknown_side(capsys):
    code, out, err = run(capsys, "explain", FIGURE5, "--game", 1, "--ply", 8, "--side", "red")
    assert code == 2 and "invalid choice: 'red'" in err and "Traceback" not in err


def test_explain_scan_order_follows_the_golden_steps(capsys):
    code, out, _ = run(capsys, "explain", DIEP, "--game", 1, "--ply", 98, "--order", "scan")
    assert code == 0
    lines = out.splitlines()
    table = [_split(line) for line in lines[lines.index(next(
        line for line in lines if line.startswith("Ply"))) + 1:]]
    from axon.sim.model.games import load_games
    game = load_games(DIEP)[0]
    steps = []
    result = perpetual(game.words, 97, steps=steps)
    assert [int(row[0]) for row in table[:-1]] == [step.address + 1 for step in steps]
    assert len(table) - 1 == result.plies_scanned == 17
    assert table[-1][:3] == ["---", "---", "2"]
    assert "Repetition detected (2 equal positions, nearest 4 plies back)" in table[-1][3]
    assert "Irreversible move K_G3G4 at ply 81" in table[-1][3]


def test_explain_without_repetition(capsys):
    code, out, _ = run(capsys, "explain", FIGURE5, "--game", 2, "--ply", 8,
                       "--rules", "paper")
    assert code == 0
    last = _split(out.splitlines()[-1])
    assert last[:2] == ["---", "---"] and last[2] != "0"
    assert last[3].startswith("No repetition. Bottom of the move list")


# --- bad input ------------------------------------------------------------------

BAD_PGN = {
    "illegal": (pgn_game("1. e4 e5") + pgn_game("1. e4 e5 2. Ke3 Nc6"),
                r"game 2, ply 3: illegal move.*Ke3"),
    "bad fen": (pgn_game("1. e4", fen="8/8/8/ w - - 0 1"), r"game 1: bad FEN '8/8/8/ w"),
    "no kings": (pgn_game("1. Kb1", fen="8/8/8/8/8/8/8/K7 w - - 0 1"),
                 r"game 1: bad FEN .*no black king"),
    "not pgn": ("hello world ))) ((\n", r"game 1, ply 1: 'hello' is not a move"),
    "empty": ("\n\n", r"no games found"),
}


@pytest.mark.parametrize("case", BAD_PGN)
def test_bad_pgn(case, tmp_path, capsys):
    text, message = BAD_PGN[case]
    path = write_pgn(tmp_path, text)
    for command in ("scan", "verify", "explain"):
        extra = ["--game", "1", "--ply", "1"] if command == "explain" else []
        code, out, err = run(capsys, command, path, *extra)
        assert code == 2
        if command == "scan" and case == "illegal":
            # Rows stream: the good game 1 is printed before game 2 is read,
            # and the run ends there, without a summary line.
            assert out.splitlines()[1] == "game 1" and "game 2" not in out
            assert "plies" not in out.splitlines()[-1]
        else:
            assert out == ""
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert re.search(message, err), err
        assert str(path) in err


def test_bad_files(tmp_path, capsys):
    code, _, err = run(capsys, "scan", tmp_path / "missing.pgn")
    assert code == 2 and "missing.pgn: cannot read" in err and len(err.splitlines()) == 1
    binary = tmp_path / "binary.pgn"
    binary.write_bytes(b"\x00\x01\x02PK\x03\x04")
    code, _, err = run(capsys, "scan", binary)
    assert code == 2 and "unreadable PGN" in err


BAD_OPTIONS = [
    (["scan", FIGURE5, "--chains", "0"], "--chains must be a positive integer, not 0"),
    (["scan", FIGURE5, "--chains", "5"], "--chains must be even for the exact rules"),
    (["scan", FIGURE5, "--count-limit", "16"], "--count-limit must be in 0..15, not 16"),
    (["scan", FIGURE5, "--count-limit", "-1"], "--count-limit must be in 0..15, not -1"),
    (["scan", FIGURE5, "--list-depth", "7"], "--list-depth must be an even integer in 2..32768, not 7"),
    (["scan", FIGURE5, "--backend", "pysim", "--rules", "cpw"],
     "--rules cpw is golden-only; the pysim backend supports exact and paper"),
    (["verify", FIGURE5, "--rules", "cpw"], "--rules cpw is golden-only"),
    (["scan", FIGURE5, "--backend", "golden", "--vcd", "x.vcd"],
     "--vcd needs the pysim backend, not --backend golden"),
    (["verify", FIGURE5, "--backend", "cxxrtl", "--vcd", "x.vcd"],
     "--vcd needs the pysim backend, not --backend cxxrtl"),
    (["scan", FIGURE5, "--vcd", "/dev/null/x.vcd"],
     "--vcd /dev/null/x.vcd: cannot create the directory /dev/null: not a directory"),
    (["explain", FIGURE5, "--game", "4", "--ply", "1"],
     "--game 4 is out of range: the file has 3 games (1..3)"),
    (["explain", FIGURE5, "--game", "0", "--ply", "1"], "--game 0 is out of range"),
    (["explain", FIGURE5, "--game", "3", "--ply", "9"],
     'game 3 ("Rook swap"): --ply 9 is out of range (1..8)'),
    (["explain", FIGURE5, "--game", "3", "--ply", "0"], "--ply 0 is out of range (1..8)"),
]


@pytest.mark.quick
@pytest.mark.parametrize("argv, message", BAD_OPTIONS)
def test_bad_options(argv, message, capsys):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert message in err


def test_explain_game_without_moves(tmp_path, capsys):
    path = write_pgn(tmp_path, pgn_game("", event="Empty"))
    code, _, err = run(capsys, "explain", path, "--game", 1, "--ply", 1)
    assert code == 2 and 'game 1 ("Empty") has no moves to explain' in err
    code, out, _ = run(capsys, "scan", path)
    assert code == 0 and out.splitlines()[-1] == "1 game, 0 plies, 0 plies repeat an " \
                                                 "earlier position"


@pytest.mark.quick
def test_no_command(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "scan" in err


# --- the installed script ---------------------------------------------------------

def _script():
    script = os.path.join(os.path.dirname(sys.executable), "axon")
    if not os.path.exists(script):
        pytest.skip("the axon console script is not installed next to this python")
    return script


def test_installed_script():
    script = _script()
    done = subprocess.run([script, "scan", FIGURE5, "--jsonl"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 24
    done = subprocess.run([script, "scan", FIGURE5, "--count-limit", "99"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "axon scan: error: --count-limit must be in 0..15, not 99\n"


def test_backstop_through_the_installed_script():
    # The bundled crowded boards overflow the pools by kind alone on 168
    # plies; with the shipped backstop none overflows, and exactly those are
    # its answers.
    script = _script()

    def scan(*options):
        done = subprocess.run([script, "scan", CROWDED, "--jsonl", "--count-limit", "1",
                               *options], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return jsonl(done.stdout)

    overflowing = {(record["game"], record["ply"]) for record in scan("--no-backstop")
                   if record["overflow"]}
    assert len(overflowing) == 168
    backstopped = scan()
    assert not any(record["overflow"] for record in backstopped)
    assert {(record["game"], record["ply"]) for record in backstopped
            if record["backstop"]} == overflowing
    # The gateware (compiled with CXXRTL) gives the same answers in the
    # clocks the golden model says (pools, then the walked list), and
    # python-chess agrees with them all.
    done = subprocess.run([script, "verify", CROWDED, "--backstop", "--backend", "cxxrtl",
                           "--count-limit", "1", "-q"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "overflow plies 0 (the backstop answered 168), window-limited plies 0 (not " \
        "compared with the oracle; 576 plies compared)" in done.stdout
    assert done.stdout.rstrip().endswith("disagreements: none")
    # Broken: without it the same check leaves the overflowing plies out.
    done = subprocess.run([script, "verify", CROWDED, "--backend", "golden", "--count-limit",
                           "1", "--no-backstop", "-q"], capture_output=True, text=True,
                          timeout=300)
    assert "overflow plies 168," in done.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", [
    ["scan", FIGURE5, "-q"],
    ["search", "--fen", "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", "--depth", "1", "-q"],
    ["--version"],
])
def test_a_full_output_is_one_line(command):
    # `>/dev/full`: every write fails with ENOSPC.
    with open("/dev/full", "w") as full:
        done = subprocess.run([_script(), *command], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    name = "axon" if command[0].startswith("-") else f"axon {command[0]}"
    assert done.returncode == 1
    assert done.stderr == f"{name}: error: cannot write the output: No space left on device\n"
    # Broken: the same command to /dev/null prints nothing on stderr and exits 0.
    done = subprocess.run([_script(), *command], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")


def test_explain_every_ply_of_the_examples():
    # Explain formats the chains each golden model step reports; here every
    # ply of the example files, in both orders and all rules, must give one
    # row per step (or per ply of the repetition, in paper order).
    from axon.sim.model.games import load_games
    for path in (TRAPS, DIEP, FIGURE5):
        for game in load_games(path):
            for top in range(len(game.words)):
                for rules in ("exact", "paper", "cpw"):
                    steps = []
                    result = perpetual(game.words, top, config=DetectorConfig(rules=rules),
                                       steps=steps)
                    scan = explain_query(game.words, top, config=DetectorConfig(rules=rules),
                                         order="scan")
                    assert [row.address for row in scan.rows] == \
                           [step.address for step in steps]
                    assert scan.unclosed == len(steps[-1].chains if steps else ())
                    paper = explain_query(game.words, top, config=DetectorConfig(rules=rules),
                                          order="paper")
                    expected = result.distance if result.repetition else result.plies_scanned
                    assert len(paper.rows) == expected
                    assert [row.address for row in paper.rows] == \
                           list(range(top - expected + 1, top + 1))
                    if result.repetition:
                        assert paper.unclosed == 0 and paper.final == "Repetition detected."


def test_explain_stop_reasons(capsys):
    _, out, _ = run(capsys, "explain", FIGURE5, "--game", 1, "--ply", 5, "--chains", 2,
                    "--no-backstop")
    # Two chains are one king slot a side: the first knight move meets no pool.
    assert out.splitlines()[-1].endswith(
        "No repetition. Chain list overflow: no free slot (no slot for its kind with 2 "
        "chains) for N_A3B1 at ply 5 (the answer may miss a repetition).")
    # Ten are one slot a kind: the second displaced knight finds it taken.
    _, out, _ = run(capsys, "explain", FIGURE5, "--game", 1, "--ply", 5, "--chains", 10,
                    "--no-backstop")
    assert out.splitlines()[-1].endswith(
        "No repetition. Chain list overflow: no free slot (1 slot for its side and kind) for "
        "N_D2C4 at ply 3 (the answer may miss a repetition).")
    _, out, _ = run(capsys, "explain", FIGURE5, "--game", 1, "--ply", 5, "--chains", 18,
                    "--no-backstop")
    assert "Chain list overflow" not in out.splitlines()[-1]
    _, out, _ = run(capsys, "explain", DIEP, "--game", 1, "--ply", 93, "--list-depth", 8)
    assert "move list holds plies 86..93" in out
    assert "(window-limited: an older repetition may be missed)" in out.splitlines()[-1]
    _, out, _ = run(capsys, "explain", DIEP, "--game", 1, "--ply", 1, "--count-limit", 0)
    assert out.splitlines()[-1].split("  ")[-1] == \
           "No repetition. Count limit 0 reached: the scan stops."


def test_cxxrtl_backend_prints_what_the_sim_backend_prints(capsys):
    pytest.importorskip("axon.sim.backends.cxxrtl")
    code, sim_out, _ = run(capsys, "scan", FIGURE5, "--backend", "pysim", "--jsonl", "-q")
    assert code == 0
    code, cxx_out, _ = run(capsys, "scan", FIGURE5, "--backend", "cxxrtl", "--jsonl", "-q")
    assert code == 0 and cxx_out == sim_out
    code, out, _ = run(capsys, "verify", FIGURE5, "--backend", "cxxrtl", "-q")
    assert code == 0 and "disagreements: none" in out


# --- layouts from the command line ------------------------------------------------

def test_walked_layout_scan_prints_what_the_1k_board_prints(capsys):
    # The iCEstick builds the walked list, 32 chains, handed a word at a time.
    code, scan, _ = run(capsys, "scan", FIGURE5, "--backend", "pysim", "--pools", "walked",
                        "--scan", "single", "--chains", "32", "-q")
    code_query, query, _ = run(capsys, "query", "--port", "sim://icestick", FIGURE5, "-q")
    assert code == code_query == 0
    assert scan == query and len(scan.splitlines()) > 10
    # The lean layout answers otherwise: other clocks, overflows.
    lean = run(capsys, "scan", FIGURE5, "--backend", "pysim", "--pools", "side", "--scan",
               "single", "--chains", "4", "-q")[1]
    assert lean != scan


@pytest.mark.quick
def test_layout_without_a_pool_for_some_kinds_says_so_once(capsys):
    code, _, err = run(capsys, "scan", DIEP, "--chains", "4", "--no-backstop", "-q")
    assert code == 0
    assert err == ("axon scan: warning: --chains 4 with --pools kind leaves no pool for R, B, "
                   "N: every scan that meets a move of these kinds overflows (--pools side "
                   "gives each side one pool for every kind)\n")
    # The backstop answers what the pools overflow: nothing to say.
    assert run(capsys, "scan", DIEP, "--chains", "4", "-q")[2] == ""
    assert run(capsys, "scan", DIEP, "--chains", "4", "--pools", "side", "-q")[2] == ""
    assert run(capsys, "scan", DIEP, "-q")[2] == ""


def test_verify_that_compared_nothing_fails(capsys, tmp_path):
    # Two chains: a king pool alone, so every knight move overflows.
    path = write_pgn(tmp_path, "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 *\n")
    code, out, err = run(capsys, "verify", path, "--backend", "golden", "--chains", "2",
                         "--no-backstop", "-q")
    assert code == 1
    assert "0 plies compared" in out and "nothing was compared with the oracle" in out
    assert "no pool for Q, R, B, N" in err
    code, out, _ = run(capsys, "verify", path, "--backend", "golden", "--chains", "2",
                       "--pools", "side", "-q")
    assert code == 0 and "6 plies compared" in out


def test_walked_layout_needs_its_scan_in_the_gateware(capsys):
    # The golden model answers the walked layout with any scan; the gateware
    # only with its own, and says so in one line.
    code, _, err = run(capsys, "verify", FIGURE5, "--backend", "pysim", "--pools", "walked",
                       "--chains", "32")
    assert code == 2 and err == ("axon verify: error: the walked pool layout needs the "
                                 "'single' scan, not 'pair'\n")
    assert run(capsys, "scan", FIGURE5, "--pools", "walked", "--chains", "32", "-q")[0] == 0


@pytest.mark.parametrize("command", ["scan", "verify", "soak", "export"])
def test_layout_options_everywhere(capsys, command):
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    pools = "{" + ",".join(pools.value for pools in Pools) + "}"
    assert f"--pools {pools}" in text and "--scan {pair,single}" in text


@pytest.mark.quick
def test_depth_is_the_old_name_of_list_depth():
    # --depth on a detector command still gives the move list's size, with one
    # line on stderr that says its new name; --list-depth says nothing.
    def scan(*options):
        return subprocess.run([_script(), "scan", DIEP, "--jsonl", "-q", *options],
                              capture_output=True, text=True, timeout=120)
    new, old = scan("--list-depth", "8"), scan("--depth", "8")
    assert new.returncode == old.returncode == 0 and new.stderr == ""
    assert old.stdout == new.stdout
    assert old.stderr == "axon scan: warning: --depth 8 is deprecated here and will be " \
                         "removed: give --list-depth 8 (the move list's entries)\n"
    # Broken: the default move list answers the 98 plies otherwise.
    assert scan().stdout != new.stdout


@pytest.mark.quick
def test_serial_is_the_old_name_of_the_walked_layout():
    # --pools serial, the walked list's name before 0.4, still gives it, with
    # one line on stderr that says its new name; --pools walked says nothing.
    def scan(pools, chains="32"):
        return subprocess.run([_script(), "scan", DIEP, "--jsonl", "-q", "--pools", pools,
                               "--scan", "single", "--chains", chains],
                              capture_output=True, text=True, timeout=120)
    new, old = scan("walked"), scan("serial")
    assert new.returncode == old.returncode == 0 and new.stderr == ""
    assert old.stdout == new.stdout
    assert old.stderr == "axon scan: warning: --pools serial is deprecated and will be " \
                         "removed: give --pools walked\n"
    # Broken: one chain a side overflows where the walked list does not.
    assert scan("side", "2").stdout != new.stdout


@pytest.mark.quick
def test_a_walked_property_is_still_taken_by_its_old_name():
    def prove(name):
        return subprocess.run([_script(), "prove", "--only", name, "--list"],
                              capture_output=True, text=True, timeout=120)
    new, old = prove("capacity-walked"), prove("capacity-serial")
    assert new.returncode == old.returncode == 0 and new.stderr == ""
    assert old.stderr == "axon prove: warning: --only capacity-serial is deprecated and will " \
                         "be removed: give --only capacity-walked\n"
    # A name that never was one is still refused.
    assert prove("frame-parser-serial").returncode == 2


def test_the_build_command_names_every_family_of_its_boards():
    # `axon --help` through the installed script: the build's line names the
    # family of every board --board lists (the ULX3S is an ECP5).
    from axon.boards.platforms import BOARDS
    done = subprocess.run([_script(), "--help"], capture_output=True, text=True, timeout=120)
    line = next(line for line in done.stdout.splitlines() if line.strip().startswith("build "))
    families = {spec.family.name for spec in BOARDS.values()}
    assert families == {"ice40", "ecp5"}
    for family in families:
        assert family in line.lower(), line


def test_help_texts(capsys):
    def help_of(*command):
        assert main([*command, "--help"]) == 0
        return " ".join(capsys.readouterr().out.split())
    assert "upcoming repetition" in help_of("verify")
    query = help_of("query")
    assert "--chains N" in query and "--count-limit K" in query
    assert "CHAINS" not in query and "COUNT_LIMIT" not in query
    assert "--board {icebreaker,icestick," in help_of("demo")
    bench = help_of("bench")
    assert "seeds per target (default 5)" in bench and "in the corpus (default 300)" in bench


# --- streaming PGN input -------------------------------------------------------------

def test_rows_are_printed_before_the_file_ends():
    # Game 1's rows come while game 2 is still unwritten: nothing waits for the
    # whole file.
    import select
    with subprocess.Popen([sys.executable, "-m", "axon.sim.cli.main", "scan", "-",
                           "--jsonl", "-q"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        process.stdin.write(b'[Event "one"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 *\n\n')
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 60)
        assert ready, "no row before the end of the input"
        first = json.loads(process.stdout.readline())
        assert (first["game"], first["ply"]) == (1, 1)
        process.stdin.write(b'[Event "two"]\n\n1. e4 *\n')
        process.stdin.close()
        rest = process.stdout.read().decode().splitlines()
        assert process.wait(timeout=60) == 0
        assert [json.loads(line)["game"] for line in rest] == [1, 1, 1, 2]


def _peak_rss_of_scan(path):
    """Peak resident memory (bytes) of ``axon scan path -q`` run as a process."""
    import resource
    script = ("import resource, sys\n"
              "from axon.sim.cli.main import main\n"
              "code = main(['scan', sys.argv[1], '-q'])\n"
              "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
              "sys.exit(code)\n")
    process = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                             text=True, timeout=900)
    assert process.returncode == 0, process.stderr
    return int(process.stdout.splitlines()[-1]) * 1024


def _shuffles(plies):
    return " ".join(f"{n}. {'Nf3 Nf6' if n % 2 else 'Ng1 Ng8'}" for n in range(1, plies // 2 + 1))


@pytest.mark.slow
def test_memory_is_one_games(tmp_path):
    # A 500,000-ply game of knight shuffles is answered in the memory of one
    # game (its moves and words, about 1 KB a ply)...
    huge = tmp_path / "huge.pgn"
    huge.write_text(pgn_game(_shuffles(500_000)))
    assert _peak_rss_of_scan(huge) < 1 << 30
    # ...and more games do not add up: four games take what two take.
    game = pgn_game(_shuffles(50_000))
    two, four = tmp_path / "two.pgn", tmp_path / "four.pgn"
    two.write_text(game * 2)
    four.write_text(game * 4)
    assert _peak_rss_of_scan(four) < 1.05 * _peak_rss_of_scan(two)


def test_game_chunks_hold_one_game_at_a_time():
    from axon.sim.model.games import game_chunks
    consumed = []

    def lines():
        for game in range(1, 1000):
            for line in (f'[Event "{game}"]\n', "\n", "1. e4 { a comment\n", "\n",
                         "over lines } e5 *\n", "\n"):
                consumed.append(game)
                yield line.encode()

    chunks = game_chunks(lines())
    first = next(chunks)
    # A blank line inside a comment does not end the game.
    assert first.decode().count("\n") == 6 and b"over lines" in first
    assert consumed[-1] == 1
    assert next(chunks).startswith(b'[Event "2"]') and consumed[-1] == 2


@pytest.mark.quick
def test_decoding_is_chosen_per_game(tmp_path, capsys):
    path = tmp_path / "mixed.pgn"
    path.write_bytes('[Event "Café ☕"]\n\n1. e4 *\n\n'.encode()
                     + b'[Event "Caf\xe9"]\n\n1. d4 *\n\n'
                     + '[Event "Öl 🎉"]\n\n1. c4 *\n'.encode())
    code, out, _ = run(capsys, "scan", path, "-q")
    assert code == 0
    assert ['game 1 ("Café ☕")', 'game 2 ("Café")', 'game 3 ("Öl 🎉")'] == \
        [line for line in out.splitlines() if line.startswith("game ")][1:]


@pytest.mark.quick
def test_move_numbers_of_any_size(tmp_path, capsys):
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 9999"
    path = write_pgn(tmp_path, pgn_game("9999. Nf3 Nf6 10000. Ng1 Ng8 10001. Nf3 Nf6 "
                                        "100000. Ng1", fen=fen))
    code, out, err = run(capsys, "scan", path, "-q")
    assert code == 0, err
    moves = [line.split()[2:4] for line in out.splitlines()[2:-1]]
    assert moves[2] == ["10000.", "Ng1"] and len(moves) == 7


def test_warnings_come_in_file_order(tmp_path, capsys):
    variation = pgn_game("1. e4 (1. Ke9) e5")
    bad = pgn_game("1. e4 e5 2. Ke3")
    path = write_pgn(tmp_path, variation + bad + variation)
    code, _, err = run(capsys, "scan", path, "-q", "--keep-going")
    assert code == 2
    games = [re.search(r"game (\d+)", line).group(1) for line in err.splitlines()[:-1]]
    assert games == ["1", "2", "3"], err


def test_keep_going_status_survives_a_broken_pipe(tmp_path):
    games = pgn_game("1. e4 e5 2. Ke3") + pgn_game("1. Nf3 Nf6 2. Ng1 Ng8") * 300
    path = write_pgn(tmp_path, games)
    process = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m axon.sim.cli.main scan --keep-going -q "$0" '
                       f'| head -1; exit ${{PIPESTATUS[0]}}', str(path)],
        capture_output=True, text=True, timeout=120)
    assert process.stdout.startswith("game ")
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr


# --- the search's root ----------------------------------------------------------

SHUFFLES = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 *\n"


@pytest.mark.quick
def test_root_tag_wins_over_the_option(capsys, tmp_path):
    path = write_pgn(tmp_path, f'[Root "4"]\n\n{SHUFFLES}\n{SHUFFLES}')
    code, out, _ = run(capsys, "scan", path, "--jsonl", "--count-limit", "1", "--root", "8")
    records = jsonl(out)
    assert code == 0 and all("draw" in record for record in records)
    # The start position recurs after plies 4, 8 and 12. From ply 4 on the
    # search's own positions count at once: ply 8 is a draw in game 1 ...
    draws = {game: [r["ply"] for r in records if r["game"] == game and r["draw"]]
             for game in (1, 2)}
    assert draws[1] == list(range(8, 13))
    # ... and from ply 8 ply 12 is, while the earlier ones need a third.
    assert draws[2] == list(range(8, 13))
    by_ply = {(r["game"], r["ply"]): r for r in records}
    assert (by_ply[1, 9]["count"], by_ply[1, 9]["stop"]) == (1, "limit")
    assert (by_ply[2, 9]["count"], by_ply[2, 9]["stop"]) == (2, "limit")
    code, out, _ = run(capsys, "scan", path, "--jsonl", "--count-limit", "1", "--root", "0")
    # The tag's game is as it was; from the start, the start position itself
    # is the root position (ply 4 no draw), and every later one counts.
    again = jsonl(out)
    assert [r["draw"] for r in again][:12] == [r["draw"] for r in records][:12]
    assert [r["ply"] for r in again[12:] if r["draw"]] == list(range(5, 13))


@pytest.mark.quick
@pytest.mark.parametrize("tag", ["-1", "four", "1.5", ""])
def test_a_bad_root_tag_names_the_game(capsys, tmp_path, tag):
    path = write_pgn(tmp_path, f"{SHUFFLES}\n[Root \"{tag}\"]\n\n{SHUFFLES}")
    code, out, err = run(capsys, "scan", path, "-q")
    assert code == 2 and len(err.splitlines()) == 1
    assert f'game 2: [Root "{tag}"] must be a number of plies of game history' in err


@pytest.mark.quick
def test_a_negative_root_option_is_refused(capsys):
    code, _, err = run(capsys, "scan", FIGURE1, "--root", "-2")
    assert code == 2 and "--root must be a number of plies, 0 or more, not -2" in err


@pytest.mark.parametrize("backend", ["golden", "cxxrtl"])
def test_verify_compares_the_draw_for_every_root(capsys, backend):
    for root in ("0", "3", "9", "40"):
        code, out, _ = run(capsys, "verify", DIEP, "--backend", backend, "--count-limit", "1",
                           "--root", root, "-q")
        assert code == 0 and "disagreements: none" in out, out


def test_verify_catches_a_wrong_draw(capsys, monkeypatch):
    # An oracle that scores every repetition a draw, as a search that ignored
    # the root would: the draw column must disagree.
    from axon.sim.cli import verify
    real = verify.oracle_answers
    monkeypatch.setattr(verify, "oracle_answers", lambda *args, **kwargs: [
        dataclasses.replace(answer, draw=answer.repetition) for answer in real(*args, **kwargs)])
    code, out, _ = run(capsys, "verify", DIEP, "--backend", "golden", "--count-limit", "1", "-q")
    assert code == 1 and "golden/oracle draw" in out


@pytest.mark.quick
def test_explain_says_which_occurrence_made_the_draw(capsys, tmp_path):
    path = write_pgn(tmp_path, f'[Root "4"]\n\n{SHUFFLES}')

    def draw_line(ply):
        code, out, _ = run(capsys, "explain", path, "--game", "1", "--ply", str(ply),
                           "--count-limit", "1")
        assert code == 0
        return next(line for line in out.splitlines() if line.startswith("draw: "))

    assert draw_line(4) == ("draw: no, it stood as the start position, at or before the root, "
                            "where only a third occurrence counts, and the scan found no other "
                            "(the root is the position after ply 4; this position is game "
                            "history)")
    assert draw_line(8) == ("draw: yes, a third occurrence: it stood as the position after ply 4 "
                            "and as the start position (the root is the position after ply 4)")
    assert draw_line(12) == ("draw: yes, a repetition inside the search: it stood as the "
                             "position after ply 8, after the root (the root is the position "
                             "after ply 4)")
    assert draw_line(1).startswith("draw: no, no earlier occurrence")


def test_verify_on_search_lines(capsys, tmp_path):
    # The bench's search workload as PGN: start positions, null moves and a
    # [Root] tag a line; the draw of every ply against python-chess.
    from axon.sim.model.generate import game_corpus
    from axon.sim.model.search_lines import search_lines, write_pgn
    lines = search_lines(game_corpus(20, seed=3, plies=(20, 120)), 120, seed=4)
    path = tmp_path / "lines.pgn"
    with open(path, "w") as file:
        write_pgn(lines, file)
    code, out, _ = run(capsys, "verify", path, "--backend", "golden", "--count-limit", "1",
                       "-q")
    assert code == 0 and "disagreements: none" in out, out
    code, out, _ = run(capsys, "scan", path, "--count-limit", "1", "--jsonl", "-q")
    records = jsonl(out)
    assert len(records) == sum(len(line.moves) for line in lines)
    assert any(r["draw"] for r in records) and any(r["repetition"] and not r["draw"]
                                                   for r in records)


@pytest.mark.quick
def test_each_command_registers_its_own_parser():
    # main only lists the modules; each module's register adds its commands,
    # each with the function that runs it.
    import argparse
    import inspect
    from axon.sim.cli import main as main_module
    assert "add_parser" not in inspect.getsource(main_module)
    found = {}
    for module in main_module.COMMAND_MODULES:
        parser = argparse.ArgumentParser(prog="axon")
        commands = parser.add_subparsers(dest="command")
        module.register(commands)
        assert commands.choices, module.__name__
        for name, command in commands.choices.items():
            assert callable(command.get_default("func")), name
            found[name] = module.__name__.rsplit(".", 1)[1]
    assert {name: found[name] for name in ("scan", "verify", "explain", "report", "demo")} == \
        {"scan": "scan", "verify": "verify", "explain": "explain", "report": "report",
         "demo": "demo"}
    assert list(found) == list(main_module.build_parser()._subparsers._group_actions[0].choices)
