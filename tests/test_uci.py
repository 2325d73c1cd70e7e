# amaranth: UnusedElaboratable=no
"""``axon uci``: the engine driven by the chess programs that speak UCI.

Every test starts the installed script, as a GUI does: python-chess's
engine client (``chess.engine.SimpleEngine``) for the handshake, the
analysis, the draws and the games; the plain pipe for the fastchess
compliance steps and the protocol's edges (a bad position, a stop, Ctrl-C).
At a fixed depth the engine must search the tree of ``axon search`` on the
same history, node for node; the draws of the detector must be
python-chess's, and without a repetition test they must be gone.

The default run plays one short game of the engine against itself and asks
CXXRTL once; ``--runslow`` adds four games at 10+0.1 (never lost on time),
two games against Stockfish (Debian's ``stockfish``) with every detector
answer checked by python-chess, and a game over ``cxxrtl://icebreaker``.
"""

import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import chess.pgn
import pytest
from hypothesis import given, settings, strategies as st

from axon.sim.backends.link import LinkTimeout
from axon.sim.engine.repetition import ChessTest
from axon.sim.engine.alphabeta import game_over
from axon.sim.engine.trace import check_trace, read_trace
from axon.sim.engine.uci import GameLine, Output, PositionError, UciEngine, UciOptions, uci_score
from axon.sim.model.encode import is_barrier
from axon.sim.model.games import load_games
from axon.sim.model.generate import random_endgame, random_game


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the UCI engine"


AXON = os.path.join(os.path.dirname(sys.executable), "axon")
DATA = os.path.join(os.path.dirname(__file__), os.pardir, "sim", "data")
UCI_PAGE = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "uci.md")

# White is a rook down and checks on e8 and h5 for ever: the history has
# been round the cycle twice, so the next check's position is a third
# occurrence, a draw the search sees at depth 2.
PERPETUAL = "8/6pk/8/8/1r6/q7/5PPP/3Q2K1 w - - 0 1"
PERPETUAL_HISTORY = "d1h5 h7g8 h5e8 g8h7 e8h5 h7g8 h5e8 g8h7".split()
PERPETUAL_CHECK = "e8h5"
# White is a rook up; the kings have stepped out and back twice, so the
# root is the third occurrence, and the king's step the search without a
# repetition test plays first (g1h2) would repeat a position a third time.
AVOID = "7k/8/8/8/8/8/8/R5K1 w - - 0 1"
AVOID_HISTORY = "g1h2 h8g8 h2g1 g8h8 g1h2 h8g8 h2g1 g8h8".split()
REPEATING_STEP = "g1h2"


@contextlib.contextmanager
def open_engine(*args):
    """``axon uci ARGS`` under python-chess's client, sent ``quit`` at the end
    (leaving the ``with`` alone would kill it before its trace is closed)."""
    engine = chess.engine.SimpleEngine.popen_uci([AXON, "uci", *args], timeout=120)
    try:
        yield engine
    finally:
        try:
            engine.quit()
        finally:
            engine.close()


def board_after(fen, moves):
    board = chess.Board(fen)
    for move in moves:
        board.push_uci(move)
    return board


class Pipe:
    """``axon uci`` on a plain pipe: send lines, read lines until one matches."""

    def __init__(self, *args):
        self.process = subprocess.Popen([AXON, "uci", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.lines = []

    def send(self, *lines):
        for line in lines:
            self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, prefix, timeout=120):
        """The lines read up to and including the first that starts with ``prefix``."""
        found = []
        reader = threading.Thread(target=lambda: found.extend(self._read(prefix)), daemon=True)
        reader.start()
        reader.join(timeout)
        assert found and found[-1].startswith(prefix), \
            f"no {prefix!r} within {timeout} s; read {found or self.lines}"
        return found

    def _read(self, prefix):
        lines = []
        for line in self.process.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            lines.append(line)
            if line.startswith(prefix):
                break
        return lines

    def close(self):
        """Quit; the exit status and standard error."""
        try:
            self.send("quit")
        except BrokenPipeError:
            pass
        rest, stderr = self.process.communicate(timeout=60)
        self.lines.extend(rest.splitlines())
        return self.process.returncode, stderr


@pytest.fixture
def pipe():
    opened = []

    def start(*args):
        opened.append(Pipe(*args))
        return opened[-1]
    yield start
    for each in opened:
        if each.process.poll() is None:
            each.process.kill()
            each.process.communicate()


# -- the handshake --------------------------------------------------------------

@pytest.mark.quick
def test_handshake_names_the_engine_and_its_options():
    with open_engine() as engine:
        assert engine.id["name"].startswith("axon ") and engine.id["author"]
        options = engine.options
        assert options["Repetition"].var == ["detector", "python-chess", "off"]
        assert options["Repetition"].default == "detector"
        assert options["Backend"].var == ["golden", "pysim", "cxxrtl"]
        assert options["Port"].type == "string"
        for name in ("UpcomingRepetition", "NullMove", "Ponder"):
            assert options[name].type == "check" and options[name].default is False
        for name in ("Threads", "Hash"):
            assert options[name].type == "spin"
        engine.configure({"Repetition": "python-chess", "Threads": 2, "Hash": 64,
                          "UpcomingRepetition": True, "NullMove": True})
        # A move under a clock, as python-chess's play asks for it.
        board = board_after(chess.STARTING_FEN, ["d2d4"])
        played = engine.play(board, chess.engine.Limit(white_clock=2, black_clock=2,
                                                       white_inc=0.1, black_inc=0.1))
        assert played.move in board.legal_moves


def test_flags_are_the_options_defaults():
    # A GUI that runs a fixed configuration gives flags; they show as defaults.
    with open_engine("--repetition", "off", "--null-move", "--threads", "3") as engine:
        assert engine.options["Repetition"].default == "off"
        assert engine.options["NullMove"].default is True
        assert engine.options["Threads"].default == 3


def test_options_say_what_they_do(pipe):
    engine = pipe()
    engine.send("setoption name Threads value 4", "setoption name Hash value 128",
                "setoption name Port value sim://icebreaker", "setoption name Port value",
                "setoption name Repetition value sometimes", "setoption name Colour value red",
                "isready")
    lines = engine.until("readyok")
    said = "\n".join(lines)
    assert "info string Threads 4: accepted; the search runs in one thread" in said
    assert "info string Hash 128: accepted; the engine keeps no table" in said
    assert "info string Port sim://icebreaker takes the place of Backend golden" in said
    assert "info string Port unset: Backend golden is the detector" in said
    assert "Repetition 'sometimes'" in said and "no option 'Colour'" in said
    assert all(line.startswith(("info string", "readyok")) for line in lines), lines
    assert engine.close() == (0, "")


# -- the fastchess compliance steps ---------------------------------------------

def test_fastchess_compliance_steps(pipe):
    engine = pipe()
    engine.send("uci")
    lines = engine.until("uciok")
    assert any(line.startswith("id name ") for line in lines)
    assert any(line.startswith("id author ") for line in lines)
    engine.send("isready")
    engine.until("readyok")
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    engine.send(f"position fen {fen}", "go wtime 100")
    lines = engine.until("bestmove")
    scored = [line for line in lines if line.startswith("info") and " score " in line]
    assert scored, lines
    best = lines[-1].split()[1]
    assert chess.Move.from_uci(best) in chess.Board(fen).legal_moves
    engine.send("position startpos moves e2e4 e7e5", "go wtime 100")
    best = engine.until("bestmove")[-1].split()[1]
    assert chess.Move.from_uci(best) in board_after(chess.STARTING_FEN, ["e2e4", "e7e5"]) \
        .legal_moves
    assert engine.close() == (0, "")


# -- a fixed depth is axon search's tree ------------------------------------------

def _generated(seed):
    """A seeded endgame that repeats, written to a PGN: the start, its moves,
    and a ply whose position has occurred before."""
    rng = random.Random(seed)
    start, moves = random_game(rng, 60, random_endgame(rng))
    board, plies = start.copy(), []
    for ply, move in enumerate(moves, start=1):
        board.push(move)
        if board.is_repetition(2) and not board.is_repetition(3) and not game_over(board):
            plies.append(ply)
    return start, moves, plies[len(plies) // 2]


def _history(case, tmp_path):
    """``(PGN path, game, ply, depth, start board, moves to the ply)``."""
    if case == "diep-axon":
        game = load_games(os.path.join(DATA, "diep_axon.pgn"))[0]
        return os.path.join(DATA, "diep_axon.pgn"), 1, 98, 4, game.board, game.moves[:98]
    seed = {"seed-11": 11, "seed-12": 12}[case]
    start, moves, ply = _generated(seed)
    game = chess.pgn.Game.from_board(board_after(start.fen(), [m.uci() for m in moves]))
    path = tmp_path / f"{case}.pgn"
    path.write_text(str(game) + "\n")
    return str(path), 1, ply, 4, start, moves[:ply]


@pytest.mark.parametrize("case", ["diep-axon", "seed-11", "seed-12"])
def test_analyse_at_a_depth_is_axon_search(case, tmp_path):
    path, game, ply, depth, start, moves = _history(case, tmp_path)
    board = start.copy()
    for move in moves:
        board.push(move)
    # The position has occurred before: its history holds a repetition.
    assert board.is_repetition(2)
    search = subprocess.run([AXON, "search", path, "--game", str(game), "--ply", str(ply),
                             "--depth", str(depth), "--json", "-q"],
                            capture_output=True, text=True, timeout=300)
    assert search.returncode == 0, search.stderr
    depths = json.loads(search.stdout)["runs"][0]["depths"]
    assert any(row["repetitions"] for row in depths)
    with open_engine() as engine:
        info = engine.analyse(board, chess.engine.Limit(depth=depth))
    score = info["score"].relative
    assert info["depth"] == depth
    assert info["nodes"] == sum(row["nodes"] for row in depths)
    assert info["pv"][0].uci() == depths[-1]["uci"]
    assert (f"mate {score.mate()}" if score.is_mate() else f"cp {score.score()}") == \
        uci_score(depths[-1]["score"])


def _kept(line):
    return line.base.fen(), [move.uci() for move in line.history], line.board.fen()


def test_a_game_sent_move_by_move_is_the_game_loaded_at_once():
    # A GUI sends the whole game every move; only the new moves are played.
    start, moves = random_game(random.Random(5), 300, reversible_bias=0.97)
    fen, texts = start.fen(), [move.uci() for move in moves]
    line = GameLine()
    for plies in range(len(texts) + 1):
        line = line.extended(fen, texts[:plies])
    fresh = GameLine().extended(fen, texts)
    assert _kept(line) == _kept(fresh)
    # The history starts at the last barrier: nothing before it can recur.
    assert line.base.fen() == fen or is_barrier(line.base, line.history[0])
    walk = line.base.copy()
    for index, move in enumerate(line.history):
        assert index == 0 or not is_barrier(walk, move)
        walk.push(move)
    assert walk.fen() == line.board.fen() and len(line.history) < len(texts)
    # Another game from the same start is loaded afresh, not on top.
    board = board_after(fen, texts[:10])
    other = texts[:10] + [next(move.uci() for move in board.legal_moves
                               if move.uci() != texts[10])]
    assert _kept(line.extended(fen, other)) == _kept(GameLine().extended(fen, other))
    # A refused position leaves the line as it was.
    with pytest.raises(PositionError, match=r"move 2 \(e2e4\): illegal"):
        line.extended(chess.STARTING_FEN, ["e2e4", "e2e4"])
    assert _kept(line) == _kept(fresh)


# -- the draws -----------------------------------------------------------------------

def test_perpetual_check_is_found_and_blind_without_a_test():
    board = board_after(PERPETUAL, PERPETUAL_HISTORY)
    found = {}
    with open_engine() as engine:
        for repetition in ("detector", "python-chess", "off"):
            engine.configure({"Repetition": repetition})
            info = engine.analyse(board, chess.engine.Limit(depth=2))
            found[repetition] = (info["pv"][0].uci(), info["score"].relative.score())
    assert found["detector"] == found["python-chess"] == (PERPETUAL_CHECK, 0)
    # Blind to the draw, the rook down is all the search sees.
    move, score = found["off"]
    assert move != PERPETUAL_CHECK and score < -200


def test_winning_side_avoids_the_repetition_and_repeats_without_a_test():
    board = board_after(AVOID, AVOID_HISTORY)
    found = {}
    with open_engine() as engine:
        for repetition in ("detector", "python-chess", "off"):
            engine.configure({"Repetition": repetition})
            played = engine.play(board, chess.engine.Limit(depth=3),
                                 info=chess.engine.INFO_SCORE)
            assert played.move in board.legal_moves
            found[repetition] = (played.move.uci(), played.info["score"].relative.score())
    assert found["detector"] == found["python-chess"]
    assert found["detector"][0] != REPEATING_STEP and found["detector"][1] == 500
    assert found["off"] == (REPEATING_STEP, 500)


# -- a game ----------------------------------------------------------------------------

def finished(board):
    """Whether the game is over by the rules, as an arbiter ends it: mate,
    stalemate, dead position, the 75-move rule, fivefold; or a draw a
    player claims: a position's third occurrence, fifty moves. (python-chess's
    ``claim_draw`` also counts a third occurrence one legal move away, which
    the player to move need not play.)"""
    return board.is_game_over() or board.is_repetition(3) or board.can_claim_fifty_moves()


def play_game(white, black, board, limit, max_plies=None):
    """Play ``white`` against ``black`` from ``board`` until the game ends by
    the rules (or after ``max_plies``); every move must be legal."""
    plies = 0
    while not finished(board):
        if max_plies is not None and plies >= max_plies:
            break
        engine = white if board.turn == chess.WHITE else black
        played = engine.play(board, limit)
        assert played.move is not None and played.move in board.legal_moves, \
            f"{played.move} is not legal in {board.fen()}"
        board.push(played.move)
        plies += 1
    return board


def test_a_game_against_itself_ends_by_the_rules():
    # A rook up from the history that repeats: the winner must avoid the
    # third occurrence, and the game ends in mate or by a rule of draws.
    board = board_after(AVOID, AVOID_HISTORY[:4])
    with open_engine() as engine:
        play_game(engine, engine, board, chess.engine.Limit(depth=2))
    assert finished(board) and len(board.move_stack) > 4, board.fen()


def test_the_pages_match_script_prints_what_the_page_shows():
    # The script as the page prints it, with axon on the PATH, as a reader runs it.
    with open(UCI_PAGE) as page:
        text = page.read()
    script = re.search(r"<!-- script: match -->\n```python\n(.*?)```", text, re.S).group(1)
    shown = re.search(r"<!-- output of the script: match -->\n```\n(.*?)```", text,
                      re.S).group(1)
    env = {**os.environ, "PATH": os.path.dirname(AXON) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown


# -- the protocol's edges ------------------------------------------------------------

def test_stop_gets_a_legal_bestmove(pipe):
    engine = pipe()
    engine.send("position startpos moves e2e4 e7e5 g1f3", "go infinite")
    engine.until("info depth 2")
    engine.send("stop")
    best = engine.until("bestmove")[-1].split()
    board = board_after(chess.STARTING_FEN, ["e2e4", "e7e5", "g1f3"])
    assert chess.Move.from_uci(best[1]) in board.legal_moves
    board.push_uci(best[1])
    assert chess.Move.from_uci(best[3]) in board.legal_moves
    # quit during a search answers too, then ends the engine.
    engine.send("go infinite")
    engine.until("info depth 1")
    code, stderr = engine.close()
    assert code == 0 and stderr == ""
    assert engine.lines[-1].startswith("bestmove ")


def test_bad_positions_are_named_and_the_engine_goes_on(pipe):
    engine = pipe()
    engine.send("position startpos moves e2e4", "position fen not/a/fen w - - 0 1",
                "position startpos moves e2e4 e7e5 e1e3", "what is this", "go depth 1")
    lines = engine.until("bestmove")
    said = "\n".join(lines)
    assert "info string position refused: fen 'not/a/fen w - - 0 1'" in said
    assert "info string position refused: move 3 (e1e3): illegal in" in said
    # The position stays the last good one: black to move after e2e4.
    best = lines[-1].split()[1]
    assert chess.Move.from_uci(best) in board_after(chess.STARTING_FEN, ["e2e4"]).legal_moves
    # A null move in the game: the side to move passes.
    engine.send("position startpos moves e2e4 0000", "go depth 1")
    best = engine.until("bestmove")[-1].split()[1]
    assert chess.Move.from_uci(best) in \
        board_after(chess.STARTING_FEN, ["e2e4", "0000"]).legal_moves
    # A game already over: no move, and why.
    engine.send("position startpos moves f2f3 e7e5 g2g4 d8h4", "go depth 1")
    lines = engine.until("bestmove")
    assert lines[-1] == "bestmove 0000"
    assert any(line.startswith("info string the game is over: checkmate") for line in lines)
    assert all(line.startswith(("info ", "bestmove ")) for line in engine.lines)
    assert engine.close() == (0, "")


def test_go_limits_nodes_and_movetime(pipe):
    engine = pipe()
    board = board_after(chess.STARTING_FEN, ["e2e4", "e7e5"])
    engine.send("position startpos moves e2e4 e7e5", "go nodes 150")
    lines = engine.until("bestmove")
    # The node that reaches the limit is the last: nodes count from go's start.
    assert [line for line in lines if " nodes " in line][-1].split()[:3] == \
        ["info", "nodes", "150"]
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    engine.send("go movetime 300")
    lines = engine.until("bestmove")
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    assert engine.close() == (0, "")


class _ChessOnly:
    """The repetition test of every option: python-chess's (no backend to make)."""
    def ready(self, options):
        return ChessTest()

    def close(self):
        pass


# Words of the protocol and around it, put together at random.
_WORDS = ["uci", "isready", "ucinewgame", "position", "startpos", "fen", "moves", "go",
          "depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo",
          "infinite", "ponder", "stop", "ponderhit", "setoption", "name", "value", "Threads",
          "Hash", "Repetition", "Port", "off", "detector", "-1", "0", "1", "2", "abc", "e2e4",
          "e7e5", "e2e5", "0000", "a7a8q", "8/8/8/8/8/8/8/8", "w", "b", "-", "KQkq",
          "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", "\u00e9"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_WORDS), max_size=8).map(" ".join), max_size=8))
def test_any_command_lines_leave_a_usable_engine(lines):
    # Whatever comes in, what goes out reads as UCI, and the engine answers after it.
    out = io.StringIO()
    engine = UciEngine(UciOptions(), Output(out), _ChessOnly())
    for line in lines + ["stop", "position startpos moves e2e4", "go depth 1", "stop",
                         "isready"]:
        engine.command(line)
    engine.close()
    printed = out.getvalue().splitlines()
    assert all(line.startswith(("info ", "bestmove ", "id ", "option ", "uciok", "readyok"))
               for line in printed), printed
    assert printed[-1] == "readyok"
    best = [line for line in printed if line.startswith("bestmove ")][-1].split()[1]
    assert chess.Move.from_uci(best) in board_after(chess.STARTING_FEN, ["e2e4"]).legal_moves


class _FailsAtTen(ChessTest):
    """A repetition test that raises ``error`` at its tenth question."""
    def __init__(self, error):
        super().__init__()
        self.error = error

    def is_draw(self, board):
        if self.queries >= 10:
            raise self.error
        return super().is_draw(board)


class _FailsOnce:
    def __init__(self, error):
        self.made = 0
        self.error = error

    def ready(self, options):
        if not hasattr(self, "test"):
            self.made += 1
            self.test = _FailsAtTen(self.error) if self.made == 1 else ChessTest()
        return self.test

    def close(self):
        self.__dict__.pop("test", None)


@pytest.mark.parametrize("error, said", [
    (LinkTimeout("the board stopped answering"),
     "the detector failed: the board stopped answering"),
    # A fault of the engine's own: the GUI still gets a move, and the fault's name.
    (KeyError("e4"), "the search failed: KeyError: 'e4'")])
def test_a_failed_search_gets_a_legal_move_and_a_new_test(error, said):
    out, tests = io.StringIO(), _FailsOnce(error)
    engine = UciEngine(UciOptions(), Output(out), tests)
    board = board_after(chess.STARTING_FEN, ["e2e4"])
    for _ in range(2):
        engine.command("position startpos moves e2e4")
        engine.command("go depth 2")
        assert engine.thinking.answered.wait(120)
        # The search has answered: stop only collects it.
        engine.command("stop")
    engine.close()
    printed = out.getvalue().splitlines()
    assert f"info string {said}" in printed
    bests = [line.split()[1] for line in printed if line.startswith("bestmove ")]
    assert len(bests) == 2 and all(chess.Move.from_uci(best) in board.legal_moves
                                   for best in bests)
    # The second search asked a test made again, and went to depth 2.
    assert tests.made == 2
    assert any(line.startswith("info depth 2 ") for line in printed)


def _restore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setpgrp()


def test_ctrl_c_ends_the_engine_cleanly():
    process = subprocess.Popen([AXON, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=_restore_sigint)
    with process:
        process.stdin.write("position startpos\ngo infinite\n")
        process.stdin.flush()
        assert process.stdout.readline().startswith("info depth 1")
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert stderr == "axon uci: interrupted\n"
    assert "bestmove" in stdout


def test_trace_checks_every_query_against_python_chess(tmp_path):
    trace = tmp_path / "uci.jsonl.gz"
    board = board_after(PERPETUAL, PERPETUAL_HISTORY)
    with open_engine("--trace", str(trace)) as engine:
        engine.analyse(board, chess.engine.Limit(depth=2))
        board.push_uci(PERPETUAL_CHECK)
        board.push_uci("h7g8")
        engine.analyse(board, chess.engine.Limit(depth=1))
    rows = read_trace(str(trace))
    assert len({row["root"] for row in rows}) == 2
    assert rows and any(row["draw"] for row in rows)
    assert check_trace(rows) == []


def _depth_lines(lines):
    """The ``info depth`` lines without their clock (time, nps)."""
    kept = []
    for line in lines:
        if line.startswith("info depth "):
            words = line.split()
            kept.append(" ".join(word for index, word in enumerate(words)
                                 if not {words[index - 1], word} & {"time", "nps"}))
    return kept


def test_cxxrtl_backend_is_made_ready_and_searches_the_golden_tree(pipe):
    if shutil.which("g++") is None:
        pytest.skip("the CXXRTL model is compiled with g++, not on PATH")
    position = f"position fen {PERPETUAL} moves {' '.join(PERPETUAL_HISTORY)}"
    golden = pipe()
    golden.send(position, "go depth 2")
    expected = golden.until("bestmove")
    engine = pipe()
    # The model compiles before readyok, which GUIs wait on, saying so.
    engine.send("setoption name Backend value cxxrtl", "isready")
    lines = engine.until("readyok", timeout=600)
    assert lines[0] == "info string Backend cxxrtl: making the detector ready"
    engine.send(position, "go depth 2")
    found = engine.until("bestmove")
    assert _depth_lines(found) == _depth_lines(expected) and found[-1] == expected[-1]
    assert len(_depth_lines(found)) == 2
    assert engine.close() == (0, "")


# -- long games: --runslow ---------------------------------------------------------------

@pytest.mark.slow
def test_timed_games_never_lose_on_time():
    # Four games at 10+0.1 from the start position, each side's clock kept
    # here as a GUI keeps it.
    with open_engine() as first, open_engine() as second:
        for game in range(4):
            board = chess.Board()
            clocks = {chess.WHITE: 10.0, chess.BLACK: 10.0}
            white, black = (first, second) if game % 2 == 0 else (second, first)
            while not finished(board) and board.ply() < 300:
                engine = white if board.turn == chess.WHITE else black
                began = time.monotonic()
                played = engine.play(board, chess.engine.Limit(
                    white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                    white_inc=0.1, black_inc=0.1))
                clocks[board.turn] -= time.monotonic() - began
                assert clocks[board.turn] > 0, f"game {game + 1}: lost on time at ply " \
                                               f"{board.ply()}"
                clocks[board.turn] += 0.1
                assert played.move in board.legal_moves
                board.push(played.move)


def _stockfish_start(case):
    """A history that holds a repetition, the game not over: the rook up
    that must not repeat, or a seeded endgame whose position has occurred
    before."""
    if case == "rook-up":
        return board_after(AVOID, AVOID_HISTORY[:4])
    start, moves, ply = _generated(11)
    return board_after(start.fen(), [move.uci() for move in moves[:ply]])


@pytest.mark.slow
@pytest.mark.parametrize("case", ["rook-up", "seed-11"])
def test_games_against_stockfish(case, tmp_path):
    # Debian installs it in /usr/games, which a shell's PATH may leave out.
    found = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if found is None:
        pytest.skip("the games against Stockfish need stockfish, not on PATH nor in /usr/games")
    trace = tmp_path / "uci.jsonl.gz"
    board = _stockfish_start(case)
    assert board.is_repetition(2) and not finished(board)
    axon_side = board.turn
    stockfish = chess.engine.SimpleEngine.popen_uci(found)
    try:
        stockfish.configure({"Skill Level": 0})
        with open_engine("--trace", str(trace)) as engine:
            plies = 0
            while not finished(board) and plies < 120:
                if board.turn == axon_side:
                    played = engine.play(board, chess.engine.Limit(depth=2))
                else:
                    played = stockfish.play(board, chess.engine.Limit(depth=1))
                assert played.move in board.legal_moves
                board.push(played.move)
                plies += 1
    finally:
        stockfish.quit()
    # Every node's answer of the detector is python-chess's.
    rows = read_trace(str(trace))
    assert rows and check_trace(rows) == []
    assert finished(board) or plies == 120


@pytest.mark.slow
def test_a_game_over_a_simulated_board():
    if shutil.which("g++") is None:
        pytest.skip("the CXXRTL board is compiled with g++, not on PATH")
    board = board_after(PERPETUAL, PERPETUAL_HISTORY)
    with open_engine("--port", "cxxrtl://icebreaker") as engine:
        play_game(engine, engine, board, chess.engine.Limit(depth=2), max_plies=12)
    assert finished(board)
