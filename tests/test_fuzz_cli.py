# amaranth: UnusedElaboratable=no
"""Hostile input to the command line: every case exits 0, 1 or 2, never a traceback."""

import contextlib
import io
import json
import random
import tempfile
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings, strategies as st

from axon.sim.cli.main import main


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "command-line errors"


GOOD = """[Event "fuzz"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *
"""

FEN_GAME = """[Event "fen"]
[SetUp "1"]
[FEN "{fen}"]
[Result "*"]

{moves} *
"""


# How each command is run on a hostile file. `verify` uses the golden model
# (the RTL backends are covered by the RTL tests); `query` is pointed at a
# serial port that does not exist, so that a file that does parse ends with
# exit 1 at the port, never at a board: bad input must be refused before
# anything would be sent.
COMMANDS = {
    "scan":   (["--jsonl", "-q"], (0, 2)),
    # 1: a file whose plies all overflowed (or that has none) compared nothing.
    "verify": (["-q", "--backend", "golden"], (0, 1, 2)),
    "query":  (["--port", "/nonexistent/axon-tty"], (1, 2)),
}


def run(text, *options, binary=False, command="scan"):
    """Run ``command`` on ``text`` as a PGN file; return ``(exit code, stderr)``."""
    extra, codes = COMMANDS[command]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.pgn"
        if binary:
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([command, str(path), *extra, *options])
    err = err.getvalue()
    assert "Traceback" not in err
    assert code in codes, err
    if command == "verify" and code == 1:
        assert "nothing was compared with the oracle" in out.getvalue()
    if code == 2:
        # One line that says what is wrong.
        assert err.count("\n") == 1 and err.startswith(f"axon {command}: error:"), err
    return code, err


def mutations(text, rng):
    """Truncations, deleted/duplicated/replaced characters of a good PGN."""
    if not text:
        return text
    cut = rng.randrange(len(text))
    choice = rng.randrange(4)
    if choice == 0:
        return text[:cut]
    if choice == 1:
        return text[:cut] + text[cut + 1:]
    if choice == 2:
        return text[:cut] + text[cut] * rng.randint(2, 5) + text[cut:]
    return text[:cut] + rng.choice("[]{}()\"\\;%$!?*-=+#0123456789abcdefghKQRBNxO") + text[cut + 1:]


@settings(max_examples=150)
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_pgn(seed):
    rng = random.Random(seed)
    text = GOOD
    for _ in range(rng.randint(1, 4)):
        text = mutations(text, rng)
    run(text)


@settings(max_examples=60)
@given(data=st.binary(max_size=400))
def test_binary_garbage(data):
    run(data, binary=True)


@settings(max_examples=60)
@given(fen=st.text(alphabet="rnbqkpRNBQKP12345678/ wb-KQkqa1h8e3e6 0", max_size=80))
def test_random_fen_headers(fen):
    run(FEN_GAME.format(fen=fen, moves="1. Kf1"))


@pytest.mark.quick
@pytest.mark.parametrize("fen, moves, words", [
    # Impossible positions python-chess refuses or flags.
    ("8/8/8/8/8/8/8/8 w - - 0 1", "1. Ke2", "bad FEN"),
    ("kk6/8/8/8/8/8/8/K7 w - - 0 1", "1. Kb1", "bad FEN"),
    # python-chess's tokenizer skips "Ke9" (no such square) without a word;
    # the loader finds it.
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "1. Ke9 Kd8", "ply 1: 'Ke9' is not a move"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "1. Kf1 Kd8 2. Zz3", "ply 3: 'Zz3' is not a move"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "1. Kf1 Kd8 2. Qd1", "ply 3"),
])
def test_impossible_positions_and_illegal_moves(fen, moves, words):
    code, err = run(FEN_GAME.format(fen=fen, moves=moves))
    assert code == 2 and words in err


def test_ten_thousand_ply_game_slides_the_window(capsys, tmp_path):
    # Knights shuffle for 10,000 plies: far longer than the 256-word move list.
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    moves = [chess.Move.from_uci(shuffle[ply % 4]) for ply in range(10_000)]
    game = chess.pgn.Game()
    node = game
    for move in moves:
        node = node.add_variation(move)
    path = tmp_path / "long.pgn"
    path.write_text(str(game))
    code = main(["scan", str(path), "--jsonl", "-q", "--count-limit", "2"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and len(out) == 10_000
    # From the first repetition on, every ply repeats the position 4 plies back.
    last = json.loads(out[-1])
    assert last["repetition"] and last["distance"] == 4 and last["count"] == 2



@pytest.mark.parametrize("command", ["verify", "query"])
@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_pgn_other_commands(command, seed):
    rng = random.Random(seed)
    text = GOOD
    for _ in range(rng.randint(1, 4)):
        text = mutations(text, rng)
    run(text, command=command)


@pytest.mark.parametrize("command", ["verify", "query"])
@settings(max_examples=25)
@given(data=st.binary(max_size=400))
def test_binary_garbage_other_commands(command, data):
    run(data, binary=True, command=command)


@pytest.mark.quick
@pytest.mark.parametrize("command", ["scan", "verify", "query"])
@pytest.mark.parametrize("text, words", [
    (FEN_GAME.format(fen="8/8/8/8/8/8/8/8 w - - 0 1", moves="1. Ke2"), "bad FEN"),
    (FEN_GAME.format(fen="4k3/8/8/8/8/8/8/4K3 w - - 0 1", moves="1. Kf1 Kd8 2. Qd1"),
     "game 1, ply 3"),
    (FEN_GAME.format(fen="4k3/8/8/8/8/8/8/4K3 w - - 0 1", moves="1. Ke9"),
     "game 1, ply 1: 'Ke9' is not a move"),
    (GOOD[:GOOD.index("2. Ng1")] + "2. N", "game 1, ply 3: 'N' is not a move"),
    ("\x00\x01garbage", "the file holds binary data"),
    ("garbage and nothing else", "'garbage' is not a move"),
])
def test_every_command_names_the_fault(command, text, words):
    code, err = run(text, command=command)
    assert code == 2 and words in err, err


# Every option that names a file, a folder, a board or a port, with the
# command that takes it. Each is checked before any long work: a case that
# got past the check would start a simulation or a synthesis and time out.
PATH_OPTIONS = {
    "scan --vcd":       lambda bad: ["scan", DIEP_PGN, "-q", "--vcd", bad],
    "verify --vcd":     lambda bad: ["verify", DIEP_PGN, "-q", "--vcd", bad],
    "build --build-dir": lambda bad: ["build", "--build-dir", bad],
    "export -o":        lambda bad: ["export", "-o", bad],
    "export --ip":      lambda bad: ["export", "--ip", bad],
    # The games are read before the package's folder is made.
    "export --expect":  lambda bad: ["export", "--ip", "never-made", "--expect", bad],
    "bench --out":      lambda bad: ["bench", "--out", bad, "--no-hardware", "--no-software"],
    "scan GAMES.pgn":   lambda bad: ["scan", bad, "-q"],
    "program BITSTREAM": lambda bad: ["program", bad],
}
NAME_OPTIONS = {
    "demo --board":     lambda bad: ["demo", f"--board={bad}"],
    "build --board":    lambda bad: ["build", f"--board={bad}"],
    "query --port":     lambda bad: ["query", DIEP_PGN, "-q", "--port", f"sim://{bad}"],
}

DIEP_PGN = str(Path(__file__).resolve().parent.parent / "sim" / "data" / "diep_axon.pgn")


# The options that name a folder; the others name a file.
FOLDER_OPTIONS = ("build --build-dir", "bench --out", "export --ip")


def bad_paths(root, folder):
    """Paths no command can write to or read from, under ``root``: a folder
    where a file is wanted (or a file where a folder is), a path through a
    file, a folder that cannot be made."""
    a_file = root / "a-file"
    a_file.write_text("not a folder")
    return st.one_of(
        st.just(str(a_file if folder else root)),
        st.builds(lambda name: str(a_file / name), st.text("abcxyz-_", min_size=1, max_size=8)),
        st.builds(lambda name: f"/proc/{name}/f.out", st.text("abcxyz", min_size=1, max_size=8)),
    )


def run_bad_value(argv, value):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    lines = err.getvalue().splitlines()
    assert "Traceback" not in err.getvalue() and "never awaited" not in err.getvalue()
    assert code == 2, err.getvalue()
    # One line naming the value; argparse prints its usage lines before it.
    assert lines and ": error:" in lines[-1] and value in lines[-1], lines
    if not lines[-1].startswith(("usage", "axon: error", f"axon {argv[0]}: error: argument")):
        assert len(lines) == 1, lines


@pytest.mark.parametrize("option", PATH_OPTIONS)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_bad_paths_are_named(option, data, tmp_path_factory):
    root = tmp_path_factory.mktemp("paths")
    bad = data.draw(bad_paths(root, option in FOLDER_OPTIONS))
    if option == "program BITSTREAM" and bad == str(root):
        bad = str(root / "missing.bin")
    run_bad_value(PATH_OPTIONS[option](bad), bad)


@pytest.mark.parametrize("option", NAME_OPTIONS)
@settings(max_examples=8, deadline=None)
@given(name=st.text("abcdefghijklmnopqrstuvwxyz-_0123456789", min_size=1, max_size=12))
def test_bad_names_are_named(option, name):
    from axon.boards.platforms import BOARDS
    if name in BOARDS:
        return
    run_bad_value(NAME_OPTIONS[option](name), name)


@pytest.mark.quick
def test_bad_board_is_refused_before_any_work(capsys):
    # demo would verify every bundled game (minutes) before it builds.
    assert main(["demo", "--board", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nosuch'" in err and "icestick" in err


# --- a closed or vanished standard output ---------------------------------------

OUTPUT_COMMANDS = [
    ["scan", "sim/data/paper_figure1.pgn"],
    ["scan", "sim/data/paper_figure1.pgn", "--jsonl"],
    ["explain", "sim/data/paper_figure1.pgn", "--game", "1", "--ply", "8"],
    ["prove", "--list"],
    ["--version"],
    ["scan", "--help"],
]
ROOT = Path(__file__).resolve().parent.parent


def _shell(argv, redirect):
    import shlex
    import subprocess
    import sys
    command = " ".join(shlex.quote(part) for part in
                       [sys.executable, "-m", "axon.sim.cli.main", *argv])
    # `: ` reads nothing and exits at once, so the command writes to a pipe
    # whose reader has gone.
    script = {"closed": f"{command} >&-", "broken": f"{command} | :; exit ${{PIPESTATUS[0]}}"}
    return subprocess.run(["bash", "-c", script[redirect]], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("redirect", ["closed", "broken"])
@pytest.mark.parametrize("argv", [
    # The first, axon scan, in the quick tier too: each case starts an interpreter.
    pytest.param(argv, marks=[pytest.mark.quick] if index == 0 else [],
                 id=" ".join(argv[:1] + argv[2:3]))
    for index, argv in enumerate(OUTPUT_COMMANDS)])
def test_no_traceback_without_a_reader(argv, redirect):
    run = _shell(argv, redirect)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    if redirect == "closed":
        assert "standard output is closed" in run.stderr


def test_a_closed_stdout_was_a_traceback_before():
    # The same command in an interpreter that does not give the closed
    # stream a null device: the check above sees what it guards against.
    import subprocess
    import sys
    script = ("import sys; from axon.sim.cli.main import main; "
              "sys.exit(main(['scan', 'sim/data/paper_figure1.pgn'], "
              "reopen_closed_streams=False))")
    run = subprocess.run(["bash", "-c", f'"{sys.executable}" -c "{script}" >&-'], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "Traceback" in run.stderr
