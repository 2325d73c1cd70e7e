# amaranth: UnusedElaboratable=no
"""PGN files as they come from study collections, puzzle sets and engine logs.

Comments, NAGs, nested variations, illegal variations, FEN starts and a
truncated last game; --keep-going, standard input, plurals, progress off a
terminal, a reader that goes away (``| head``), and threefold/fivefold.
"""

import contextlib
import io
import os
import random
import subprocess
import sys
from importlib import resources

import chess
import pytest
from hypothesis import given, settings, strategies as st

from axon.sim.cli.main import main
from axon.sim.model.games import load_games

from .test_cli import jsonl, run


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "PGN input"


DATA = resources.files("axon.sim") / "data"
TRAPS = str(DATA / "traps.pgn")
DIEP = str(DATA / "diep_axon.pgn")

# Five games, the kinds of trouble a study collection holds.
STUDY = """\
% an escaped line, ignored by PGN readers
[Event "Study: chapter 1"]
[White "Alice"]
[Black "Bob"]

{ A study chapter, with comments. } 1. e4 $1 e5 ! 2. Nf3 Nc6 ( 2... d6 3. d4
( 3. Bc4 Be7 ( 3... Qxh7 ) ) 3... exd4 ) 3. Bb5 a6!? 4. Ba4 ; a rest-of-line comment
Nf6 5. O-O *

[White "Carol"]
[Black "Dave"]

1. Nf3 Nf6 2. Ng1 Ng8 ( 2... Ke6 ) 3. Nf3 { ; not a comment end ) } Nf6 4. Ng1 Ng8 *

[Event "FEN start"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"]

1. Ra2 Kd8 ( 1... Kf9 ) 2. Ra1 Ke8 3. Ra2 Kd8 4. Ra1 Ke8 *

[Event "Illegal siblings"]

1. e4 ( 1. Nc6 ) ( 1. Nd6 ) 1... c5 *

[Event "Truncated"]

1. d4 d5 2. c4 e6 3. Nc"""

MAINLINES = {
    1: "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1",
    2: "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8",
    3: "a1a2 e8d8 a2a1 d8e8 a1a2 e8d8 a2a1 d8e8",
    4: "e2e4 c7c5",
}

# (game, ply) of each bad variation: the nested 3... Qxh7, a king that
# jumps two squares, a token that is no move, and two illegal siblings.
VARIATION_WARNINGS = [(1, 6, "Qxh7"), (2, 4, "Ke6"), (3, 2, "'Kf9' is not a move"),
                      (4, 1, "Nc6"), (4, 1, "Nd6")]


@pytest.fixture
def study(tmp_path):
    path = tmp_path / "study.pgn"
    path.write_text(STUDY)
    return path


@pytest.mark.quick
def test_study_is_strict_by_default(study, capsys):
    for command in ("scan", "verify"):
        code, out, err = run(capsys, command, study, "-q")
        # Games are answered as they are read: scan has printed games 1 to 4
        # (and their warnings) when it meets game 5; verify prints at the end.
        assert code == 2 and "game 5" not in out
        assert ("game 4" in out) if command == "scan" else out == ""
        assert err.splitlines()[-1] == \
            f"axon {command}: error: {study}: game 5, ply 5: 'Nc' is not a move"


def test_keep_going_answers_the_rest(study, capsys):
    code, out, err = run(capsys, "scan", study, "--keep-going", "--jsonl")
    assert code == 2
    records = jsonl(out)
    for number, ucis in MAINLINES.items():
        assert [r["move"] for r in records if r["game"] == number] == ucis.split()
    assert {r["game"] for r in records} == set(MAINLINES)
    lines = err.splitlines()
    assert "Traceback" not in err
    assert len(lines) == len(VARIATION_WARNINGS) + 2
    for line, (game, ply, what) in zip(lines, VARIATION_WARNINGS):
        assert line.startswith(f"axon scan: warning: {study}: game {game}, ply {ply} "
                               f"(in a variation): ") and what in line, line
        assert line.endswith("the variation is ignored")
    assert lines[-2] == (f"axon scan: warning: {study}: game 5, ply 5: 'Nc' is not a move; "
                         f"game skipped")
    assert lines[-1] == "axon scan: 4 of 5 games answered, 1 skipped (see the warnings above)"
    # The chain list agrees with python-chess on what it did read.
    code, out, _ = run(capsys, "verify", study, "--keep-going", "--backend", "golden", "-q")
    assert code == 2 and "games 4, plies 27" in out and "disagreements: none" in out
    # explain numbers games the same way and knows the one it skipped.
    code, out, err = run(capsys, "explain", study, "--keep-going", "--game", 2, "--ply", 8)
    assert code == 0 and out.startswith('game 2 ("Carol - Dave"), ply 8: 4... Ng8 (f6g8)')
    code, out, err = run(capsys, "explain", study, "--keep-going", "--game", 5, "--ply", 1)
    assert code == 2 and err.splitlines()[-1] == \
        f"axon explain: error: {study}: game 5 was skipped"


@pytest.mark.quick
def test_variation_errors_do_not_shift_the_mainline(tmp_path, capsys):
    # python-chess's reader, after a bad move in a variation, reads what
    # follows against the variation's position: here 2. Nf3 would be a
    # black move. The mainline must come out whole.
    path = tmp_path / "games.pgn"
    path.write_text("1. e4 e5 (1... Qxh7) 2. Nf3 Nc6 (2... Qxh7) (2... Nf6) 3. Bb5 *\n")
    code, out, err = run(capsys, "scan", path, "--jsonl")
    assert code == 0
    assert [r["move"] for r in jsonl(out)] == "e2e4 e7e5 g1f3 b8c6 f1b5".split()
    assert len(err.splitlines()) == 2 and "Traceback" not in err


def test_illegal_siblings_are_warnings(tmp_path, capsys):
    path = tmp_path / "siblings.pgn"
    path.write_text("1. e4 (1. Nc6) (1. Nd6) *\n")
    for command in ("scan", "verify"):
        code, out, err = run(capsys, command, path, "--backend", "golden")
        assert code == 0 and "Traceback" not in err
        assert err.count("game 1, ply 1 (in a variation): illegal move") == 2


@pytest.mark.quick
def test_every_unreadable_game_is_named(tmp_path, capsys):
    good = '[Event "good {0}"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 *\n\n'
    text = (good.format(1) + '[Event "bad"]\n\n1. e4 e5 2. Ke3 *\n\n' + good.format(3)
            + '[Event "bad fen"]\n[SetUp "1"]\n[FEN "8/8/8 w - - 0 1"]\n\n1. Kb1 *\n\n'
            + good.format(5))
    path = tmp_path / "games.pgn"
    path.write_text(text)
    code, out, err = run(capsys, "scan", path, "--keep-going")
    assert code == 2
    lines = err.splitlines()
    assert lines[0].startswith(f"axon scan: warning: {path}: game 2, ply 3: illegal move")
    assert lines[1].startswith(f"axon scan: warning: {path}: game 4: bad FEN")
    assert lines[2] == "axon scan: 3 of 5 games answered, 2 skipped (see the warnings above)"
    named = [line for line in out.splitlines() if line.startswith("game ")][1:]
    assert named == ['game 1 ("good 1")', 'game 3 ("good 3")', 'game 5 ("good 5")']


def test_standard_input(monkeypatch, capsys):
    with open(TRAPS, "rb") as file:
        data = file.read()
    _, from_file, _ = run(capsys, "scan", TRAPS, "--jsonl", "-q")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, from_stdin, err = run(capsys, "scan", "-", "--jsonl", "-q")
    assert code == 0 and err == "" and from_stdin == from_file
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1. e4 Ke9 *\n")))
    code, _, err = run(capsys, "scan", "-")
    assert code == 2 and err == "axon scan: error: <stdin>: game 1, ply 2: 'Ke9' is not a move\n"


@pytest.mark.quick
def test_plurals(tmp_path, capsys):
    path = tmp_path / "one.pgn"
    path.write_text("1. e4 *\n")
    _, out, _ = run(capsys, "scan", path)
    assert out.splitlines()[-1] == "1 game, 1 ply, 0 plies repeat an earlier position"
    path.write_text("1. Nf3 Nf6 2. Ng1 Ng8 *\n")
    _, out, _ = run(capsys, "scan", path)
    assert out.splitlines()[-1] == "1 game, 4 plies, 1 ply repeats an earlier position"


# --- output a chess user expects ---------------------------------------------------

def _python_chess_claims(game):
    board = game.board.copy()
    for move in game.moves:
        board.push(move)
        yield board.is_repetition(3), board.is_fivefold_repetition()


def test_threefold_and_fivefold_match_python_chess(capsys):
    # traps.pgn game 9 reaches threefold at ply 8 and fivefold at ply 16.
    _, out, _ = run(capsys, "scan", TRAPS, "--jsonl")
    records = jsonl(out)
    expected = [claims for game in load_games(TRAPS) for claims in _python_chess_claims(game)]
    assert [(r["threefold"], r["fivefold"]) for r in records] == expected
    game9 = [r for r in records if r["game"] == 9]
    assert [r["ply"] for r in game9 if r["threefold"]][0] == 8
    assert [r["ply"] for r in game9 if r["fivefold"]] == [16]


@pytest.mark.parametrize("count_limit", [0, 1, 2, 3])
def test_claims_below_their_count_limit_are_unknown(count_limit, capsys):
    _, out, _ = run(capsys, "scan", TRAPS, "--jsonl", "--count-limit", count_limit)
    records = jsonl(out)
    expected = [claims for game in load_games(TRAPS) for claims in _python_chess_claims(game)]
    for record, claims in zip(records, expected):
        for key, needed, truth in (("threefold", 2, claims[0]), ("fivefold", 4, claims[1])):
            if count_limit >= needed:
                assert record[key] is truth
            elif record["count"] >= needed:
                assert record[key] is True and truth is True
            elif record["stop"] in ("barrier", "bottom"):
                # The scan was not cut short: it saw every equal position.
                assert record[key] is False and truth is False
            else:
                assert record[key] is None
    # Every ply is game history here: at limit 1 a lone occurrence does not
    # stop the scan, so only the fivefold claim can be cut short.
    assert any(record["fivefold"] is None for record in records)


def test_overflow_and_window_make_claims_unknown(capsys):
    # Two slots without the backstop cannot follow the knights; a short
    # window cuts the game.
    for options, flag in ((["--chains", "2", "--no-backstop"], "overflow"), (["--list-depth", "8"], None)):
        _, out, _ = run(capsys, "scan", DIEP, "--jsonl", *options)
        records = jsonl(out)
        unknown = [r for r in records if r["threefold"] is None]
        assert unknown
        if flag:
            assert all(r[flag] for r in unknown)
        assert all(r["count"] < 2 for r in unknown)


def test_table_names_games_and_claims(tmp_path, capsys):
    _, out, _ = run(capsys, "scan", TRAPS, "--count-limit", 1, "--root", 0)
    lines = out.splitlines()
    assert lines[0].split()[-4:] == ["50-move", "3-fold", "5-fold", "upcoming"]
    assert lines[1] == 'game 1 ("Trap a1: castling rights, rook leaves and returns")'
    # Count limit 1 and a search from the start: the detector stops at the
    # first equal position after the start, a draw for the search, so it is
    # shown as "?" for threefold and fivefold.
    repeating = [line.split() for line in lines if line.split()[:1] != ["game"]
                 and line.split()[5:7] == ["yes", "yes"]]
    assert repeating and all(row[-3:-1] == ["?", "?"] for row in repeating)
    path = tmp_path / "players.pgn"
    path.write_text('[White "Carlsen"]\n[Black "Nepomniachtchi"]\n\n1. e4 *\n\n'
                    '[Event "?"]\n\n1. d4 *\n')
    _, out, _ = run(capsys, "scan", path)
    assert [line for line in out.splitlines() if line.startswith("game ")][1:] == \
           ['game 1 ("Carlsen - Nepomniachtchi")', "game 2"]


# --- the installed script: a reader that goes away, progress in a log ------------

def _script():
    script = os.path.join(os.path.dirname(sys.executable), "axon")
    if not os.path.exists(script):
        pytest.skip("the axon console script is not installed next to this python")
    return script


def test_broken_pipe_is_quiet(tmp_path):
    # `axon scan big.pgn | head -1`: far more output than a pipe holds.
    path = tmp_path / "big.pgn"
    with open(DIEP) as file:
        game = file.read()
    path.write_text("\n\n".join([game] * 40))
    for options in (["--jsonl"], []):
        with subprocess.Popen([_script(), "scan", str(path), *options],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
            first = process.stdout.readline()
            process.stdout.close()
            err = process.stderr.read()
            assert process.wait(timeout=120) == 0
        assert first and err == b"", err.decode()


def test_progress_is_sparse_in_a_log(tmp_path):
    path = tmp_path / "many.pgn"
    path.write_text("".join('[Event "?"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 *\n\n' for _ in range(200)))
    done = subprocess.run([_script(), "scan", str(path), "--jsonl"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 800
    assert done.stderr == ""        # a short run writes no progress into a log


# A file cut inside a tag: python-chess drops a malformed tag line without a
# word, so that the game read as one of no moves.
CUT_IN_A_TAG = '[Event "one"]\n\n1. Nf3 Nf6 *\n\n[Event "two"]\n[White "Al'


@pytest.mark.parametrize("text, game, line, tag", [
    (CUT_IN_A_TAG, 2, 6, '[White "Al'),
    (CUT_IN_A_TAG.rsplit("[", 1)[0] + "[", 2, 6, "["),
    ('[Event "only"]\n[', 1, 2, "["),
])
def test_a_file_cut_inside_a_tag_is_one_line(text, game, line, tag, tmp_path):
    path = tmp_path / "cut.pgn"
    path.write_text(text)
    done = subprocess.run([_script(), "scan", str(path), "-q"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == (f"axon scan: error: {path}: game {game}, line {line}: malformed "
                           f"tag {tag!r} (a tag is [Name \"value\"] on one line)\n")


def test_a_cut_tag_is_skipped_with_keep_going_and_a_whole_one_reads(tmp_path):
    # --keep-going answers the game before the cut and names the one it skipped.
    path = tmp_path / "cut.pgn"
    path.write_text(CUT_IN_A_TAG)
    done = subprocess.run([_script(), "scan", str(path), "-q", "--keep-going"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "game 2, line 6: malformed tag" in done.stderr
    assert "1 game, 2 plies" in done.stdout
    # Broken: the same file with the tag finished reads as two games, rc 0.
    path = tmp_path / "whole.pgn"
    path.write_text(CUT_IN_A_TAG + 'ice"]\n\n1. e4 *\n')
    done = subprocess.run([_script(), "scan", str(path), "-q"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.rstrip().endswith("2 games, 3 plies, 0 plies "
                                                                   "repeat an earlier position")


# --- axon query reads PGN the same way ----------------------------------------------

def test_query_keeps_going_like_scan(study, capsys):
    # On the compiled models, which other tests compile too: Amaranth's
    # simulator of the board at its pins takes ten times longer.
    code, scanned, scan_err = run(capsys, "scan", study, "--keep-going", "--jsonl", "-q",
                                  "--backend", "cxxrtl")
    code_q, queried, query_err = run(capsys, "query", "--port", "cxxrtl://", study,
                                     "--keep-going", "--jsonl", "-q")
    assert code == code_q == 2
    assert queried == scanned
    assert query_err == scan_err.replace("axon scan:", "axon query:")


def test_query_depth(tmp_path, capsys):
    path = tmp_path / "one.pgn"
    path.write_text("1. Nf3 Nf6 2. Ng1 Ng8 *\n")
    code, out, err = run(capsys, "query", "--port", "sim://?depth=64", path, "--list-depth", 128)
    assert code == 2 and out == ""
    assert err == ("axon query: error: the board on sim://?depth=64 has depth 64, not 128; "
                   "rebuild it with axon build --list-depth 128\n")
    code, out, _ = run(capsys, "query", "--port", "sim://", path, "--list-depth", 16, "--jsonl")
    assert code == 0 and [r["count"] for r in jsonl(out)] == [0, 0, 0, 1]


def test_data_readme_numbers_games_as_the_cli_does(capsys):
    # sim/data/README.md: "traps.pgn | 9 (e) | 16 | 4-16 (threefold from 8,
    # fivefold at 16)", and the same game and plies from axon scan.
    text = (DATA / "README.md").read_text()
    assert "| traps.pgn | 9 (e) | 16 | 4-16 (threefold from 8, fivefold at 16) |" in text
    _, out, _ = run(capsys, "scan", TRAPS, "--jsonl")
    game = [r for r in jsonl(out) if r["game"] == 9]
    assert len(game) == 16
    assert [r["ply"] for r in game if r["repetition"]] == list(range(4, 17))
    assert "Trap e" in load_games(TRAPS)[8].headers["Event"]


# --- variations of every shape never disturb the mainline ----------------------------

_VARIATION_TOKENS = ["Nf3", "Nc6", "e4", "e5", "Qxh7", "O-O", "Kf9", "--", "$2", "{ a note }",
                     "1-0", "Bb5+", "exd5", "h8=Q"]


def _variation(rng, depth=0):
    tokens = ["("]
    for _ in range(rng.randint(0, 4)):
        if depth < 3 and rng.random() < 0.2:
            tokens.append(_variation(rng, depth + 1))
        else:
            tokens.append(rng.choice(_VARIATION_TOKENS))
    return " ".join(tokens + [")"])


@settings(max_examples=80)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_variations_keep_the_mainline(seed, tmp_path_factory):
    rng = random.Random(seed)
    board, sans = chess.Board(), []
    for _ in range(rng.randint(1, 30)):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        sans.append(board.san(move))
        board.push(move)
    text = []
    for ply, san in enumerate(sans):
        text.append(f"{ply // 2 + 1}." if ply % 2 == 0 else "")
        text.append(san)
        while rng.random() < 0.3:
            text.append(_variation(rng))
    path = tmp_path_factory.mktemp("variations") / "game.pgn"
    path.write_text('[Event "variations"]\n\n' + " ".join(text) + " *\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["scan", str(path), "--jsonl"])
    assert code == 0 and "Traceback" not in err.getvalue()
    assert [r["move"] for r in jsonl(out.getvalue())] == [m.uci() for m in board.move_stack]
    assert all(line.startswith("axon scan: warning: ") and "(in a variation)" in line
               for line in err.getvalue().splitlines())
