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
    "verify": (["-q", "--backend", "golden"], (0, 2)),
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
