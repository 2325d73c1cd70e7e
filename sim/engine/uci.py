"""The Universal Chess Interface around the engine: ``axon uci``'s protocol.

A chess program (a GUI such as Cute Chess, lichess-bot, python-chess's
``chess.engine``) talks to the engine in lines of text. Each ``position ...
moves ...`` is the game so far: its moves from the last irreversible one on
are the repetition test's game history, the root is the position after
them, and the search scores a repetition as :class:`~.search.Engine` does
(a third occurrence anywhere, a second one inside the tree). The search
runs in a thread of its own beside the command loop, so that ``stop`` and
``quit`` are answered at the next node (:class:`~.search.SearchStopped`).

The repetition test comes from the caller, the ``tests`` of
:class:`UciEngine`: an object whose ``ready(options)`` returns the test the
options ask for, made when first needed, and whose ``close()`` ends it.
"""

import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, TextIO, Tuple

import chess

from ...hdl.version import VERSION
from ..backends.cxxrtl import CxxrtlError
from ..backends.link import LinkError, LinkTimeout
from ..model.encode import is_barrier
from .repetition import ChessTest, DetectorTest, NoTest, SearchTooDeep
from .alphabeta import MATE, Engine, SearchStopped, game_over
from .trace import TraceWriter


__all__ = ["UciOptions", "GameLine", "PositionError", "parse_position", "GoLimits", "parse_go",
           "think_time", "Output", "uci_score", "Thinking", "UciEngine", "ENGINE_NAME",
           "ENGINE_AUTHOR", "REPETITION_CHOICES", "MAX_DEPTH"]

ENGINE_NAME = f"axon {VERSION}"
ENGINE_AUTHOR = "the Axon developers"
# The option Repetition's values, as GUIs list them: the detector first.
REPETITION_CHOICES = tuple(test.name for test in (DetectorTest, ChessTest, NoTest))
# The deepest iteration: the search path (quiescence included) must fit the
# move list's room above the game history (axon.sim.engine.repetition.MAX_PLY).
MAX_DEPTH = 32
# What a move costs beyond the search: the GUI's reading and the pipe (ms).
MOVE_OVERHEAD_MS = 30
# Moves a clock is shared over when the GUI does not say (movestogo).
MOVES_TO_GO = 30
THREADS_MAX = 256
HASH_MAX = 33554432


# -- the options ---------------------------------------------------------------

@dataclass
class UciOptions:
    """The engine's options, as ``setoption`` and the flags set them."""
    repetition: str = "detector"
    backend:    str = "golden"
    port:       str = ""
    upcoming_cutoff: bool = False
    null_move:  bool = False
    threads:    int = 1
    hash:       int = 16
    ponder:     bool = False
    # The Backend option's values, and other names each takes (``sim``).
    backends:   Tuple[str, ...] = ("golden",)
    aliases:    Mapping[str, str] = field(default_factory=dict)

    @property
    def upcoming(self) -> bool:
        """Deprecated: :attr:`upcoming_cutoff`, until 0.5."""
        warnings.warn("UciOptions.upcoming is now UciOptions.upcoming_cutoff; .upcoming stays "
                      "until 0.5", DeprecationWarning, stacklevel=2)
        return self.upcoming_cutoff

    def declarations(self) -> List[str]:
        """The ``option`` lines of the ``uci`` answer, with these values as defaults."""
        def check(value):
            return "true" if value else "false"
        return [
            "option name Repetition type combo default " + self.repetition +
            "".join(f" var {name}" for name in REPETITION_CHOICES),
            "option name Backend type combo default " + self.backend +
            "".join(f" var {name}" for name in self.backends),
            f"option name Port type string default {self.port or '<empty>'}",
            f"option name UpcomingRepetition type check default {check(self.upcoming_cutoff)}",
            f"option name NullMove type check default {check(self.null_move)}",
            f"option name Threads type spin default {self.threads} min 1 max {THREADS_MAX}",
            f"option name Hash type spin default {self.hash} min 1 max {HASH_MAX}",
            f"option name Ponder type check default {check(self.ponder)}",
        ]

    def set(self, name: str, value: str) -> List[str]:
        """Set the option ``name`` (any case) to ``value``; the ``info string``
        lines it is worth; ``ValueError`` naming the fault if it is none."""
        key = name.lower()
        if key == "repetition":
            if value not in REPETITION_CHOICES:
                raise ValueError(f"Repetition {value!r}: expected one of "
                                 f"{', '.join(REPETITION_CHOICES)}")
            self.repetition = value
        elif key == "backend":
            value = self.aliases.get(value, value)
            if value not in self.backends:
                raise ValueError(f"Backend {value!r}: expected one of "
                                 f"{', '.join(self.backends)}")
            self.backend = value
            if self.port:
                return [f"Backend {value} is kept for later: Port {self.port} is the "
                        f"detector while it is set"]
        elif key == "port":
            self.port = "" if value in ("", "<empty>") else value
            if self.port:
                return [f"Port {self.port} takes the place of Backend {self.backend}"]
            return [f"Port unset: Backend {self.backend} is the detector"]
        elif key in ("upcomingrepetition", "nullmove", "ponder"):
            if value.lower() not in ("true", "false"):
                raise ValueError(f"{name} {value!r}: expected true or false")
            attribute = {"upcomingrepetition": "upcoming_cutoff", "nullmove": "null_move",
                         "ponder": "ponder"}[key]
            setattr(self, attribute, value.lower() == "true")
        elif key in ("threads", "hash"):
            try:
                number = int(value)
            except ValueError:
                raise ValueError(f"{name} {value!r}: expected a whole number") from None
            limit = THREADS_MAX if key == "threads" else HASH_MAX
            if not 1 <= number <= limit:
                raise ValueError(f"{name} {number}: expected 1..{limit}")
            setattr(self, key, number)
            return [self.threads_note() if key == "threads" else self.hash_note()]
        else:
            raise ValueError(f"no option {name!r}")
        return []

    def threads_note(self) -> str:
        return (f"Threads {self.threads}: accepted; the search runs in one thread (its "
                f"move order depends on the last iteration, which one thread keeps)")

    def hash_note(self) -> str:
        return (f"Hash {self.hash}: accepted; the engine keeps no table, since a position's "
                f"score depends on the path to it once repetitions count")

    def test_name(self) -> str:
        """What answers the repetition test, in words."""
        if self.repetition != "detector":
            return self.repetition
        return f"detector (link {self.port})" if self.port else f"detector ({self.backend})"


# -- the position ----------------------------------------------------------------

class PositionError(ValueError):
    """A ``position`` command the engine cannot take, with the fault named."""


@dataclass
class GameLine:
    """The game the GUI sends, kept between ``position`` commands.

    ``base`` is the position before the last irreversible move (a barrier:
    no earlier position can recur after it) and ``history`` the moves from
    there to the current position ``board``: the engine's game history,
    which holds every position a repetition can reach. A ``position`` that
    extends the last one plays only its new moves."""
    start_fen: str = chess.STARTING_FEN
    moves: List[str] = field(default_factory=list)
    base: chess.Board = field(default_factory=chess.Board)
    history: List[chess.Move] = field(default_factory=list)
    board: chess.Board = field(default_factory=chess.Board)

    def extended(self, start_fen: str, moves: List[str]) -> "GameLine":
        """The game after ``moves`` from ``start_fen``; this one is left as it is.
        ``PositionError`` names a broken FEN or the move at fault."""
        if start_fen == self.start_fen and moves[:len(self.moves)] == self.moves:
            line = GameLine(start_fen, list(self.moves), self.base, list(self.history),
                            # The moves kept too: fivefold repetition ends a game.
                            self.board.copy())
            new = moves[len(self.moves):]
        else:
            try:
                board = chess.Board(start_fen)
            except ValueError as error:
                raise PositionError(f"fen {start_fen!r}: {error}") from None
            if not board.is_valid():
                raise PositionError(f"fen {start_fen!r}: not a legal position "
                                    f"({_status(board)})")
            line = GameLine(start_fen, [], board.copy(stack=False), [], board)
            new = moves
        for text in new:
            line._play(text)
        return line

    def _play(self, text):
        board = self.board
        where = f"move {len(self.moves) + 1} ({text})"
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise PositionError(f"{where}: not a move in UCI notation") from None
        if move:
            if move not in board.legal_moves:
                raise PositionError(f"{where}: illegal in {board.fen()}")
        elif board.is_check():
            # A null move in check leaves a king in capture: no position.
            raise PositionError(f"{where}: a null move with the king in check, "
                                f"in {board.fen()}")
        if is_barrier(board, move):
            self.base, self.history = board.copy(stack=False), []
        self.history.append(move)
        board.push(move)
        self.moves.append(text)


def _status(board):
    status = board.status()
    names = [flag.name.lower().replace("_", " ") for flag in chess.Status
             if flag and flag in status and flag.name]
    return ", ".join(names) or "invalid"


def parse_position(tokens: List[str]) -> Tuple[str, List[str]]:
    """``(start FEN, UCI moves)`` of a ``position`` command's arguments."""
    if "moves" in tokens:
        at = tokens.index("moves")
        setup, moves = tokens[:at], tokens[at + 1:]
    else:
        setup, moves = tokens, []
    if setup[:1] == ["startpos"] and len(setup) == 1:
        return chess.STARTING_FEN, moves
    if setup[:1] == ["fen"] and len(setup) > 1:
        return " ".join(setup[1:]), moves
    raise PositionError("expected position startpos|fen FEN [moves ...], got "
                        f"{' '.join(['position'] + tokens)!r}")


# -- go ----------------------------------------------------------------------------

@dataclass
class GoLimits:
    """What a ``go`` command asks for (times in milliseconds)."""
    depth:     Optional[int] = None
    nodes:     Optional[int] = None
    movetime:  Optional[int] = None
    wtime:     Optional[int] = None
    btime:     Optional[int] = None
    winc:      int = 0
    binc:      int = 0
    movestogo: Optional[int] = None
    infinite:  bool = False
    ponder:    bool = False
    ignored:   List[str] = field(default_factory=list)

    def clock(self, white: bool) -> Optional[int]:
        return self.wtime if white else self.btime


_GO_NUMBERS = ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo",
               "mate")


def parse_go(tokens: List[str]) -> GoLimits:
    """The limits of a ``go`` command's arguments; words it does not know (or
    ``searchmoves``, ``mate``) are listed in ``ignored``."""
    limits = GoLimits()
    index = 0
    while index < len(tokens):
        word = tokens[index]
        if word in _GO_NUMBERS and index + 1 < len(tokens):
            try:
                value = int(tokens[index + 1])
            except ValueError:
                limits.ignored.append(f"{word} {tokens[index + 1]}")
                index += 2
                continue
            if word == "mate":
                limits.ignored.append(f"mate {value}")
            elif word in ("depth", "nodes", "movestogo"):
                setattr(limits, word, max(1, value))
            else:
                # A clock can run below zero in some GUIs: nothing left.
                setattr(limits, word, max(0, value))
            index += 2
        elif word in ("infinite", "ponder"):
            setattr(limits, word, True)
            index += 1
        elif word == "searchmoves":
            moves = []
            index += 1
            while index < len(tokens) and tokens[index] not in _GO_NUMBERS + \
                    ("infinite", "ponder"):
                moves.append(tokens[index])
                index += 1
            limits.ignored.append("searchmoves " + " ".join(moves))
        else:
            limits.ignored.append(word)
            index += 1
    return limits


def think_time(limits: GoLimits, white: bool) -> Tuple[Optional[float], Optional[float],
                                                     Optional[float]]:
    """``(soft, hard, panic)`` seconds for a move, or ``None`` each: after
    ``soft`` no new iteration starts (the next would take several times as
    long); at ``hard`` the search stops once depth 1 is done; at ``panic``
    it stops whatever it is doing, so that the clock never runs out."""
    if limits.movetime is not None:
        hard = max(1, limits.movetime - MOVE_OVERHEAD_MS) / 1000
        return None, hard, hard
    left = limits.clock(white)
    if left is None:
        return None, None, None
    increment = limits.winc if white else limits.binc
    moves = limits.movestogo or MOVES_TO_GO
    share = left / moves + 0.75 * increment
    usable = max(1, left - MOVE_OVERHEAD_MS)
    hard = min(3 * share, usable / 5)
    return 0.5 * share / 1000, max(1, hard) / 1000, max(1, usable / 2) / 1000


# -- the engine's output --------------------------------------------------------

class Output:
    """Lines to the GUI, one writer at a time (the command loop and the
    search's thread both write); a reader gone is noted in ``gone``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.gone = False
        self._lock = threading.Lock()

    def send(self, line: str) -> None:
        with self._lock:
            if self.gone:
                raise BrokenPipeError("the GUI has closed the engine's output")
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (BrokenPipeError, ValueError):
                self.gone = True
                raise BrokenPipeError("the GUI has closed the engine's output") from None

    def info(self, text: str) -> None:
        # One line a message: a newline inside would start a line the GUI misreads.
        self.send("info string " + " ".join(str(text).split()))


def uci_score(score: int) -> str:
    """``cp N`` or ``mate N`` (moves, negative when the side to move is mated)."""
    if abs(score) >= MATE - 1000:
        moves = (MATE - abs(score) + 1) // 2
        return f"mate {moves}" if score > 0 else f"mate -{moves}"
    return f"cp {score}"


# -- a search ---------------------------------------------------------------------

class Thinking:
    """One ``go``: the search in its own thread, iterative deepening with an
    ``info`` line a depth, then ``bestmove``."""

    def __init__(self, out: Output, line: GameLine, test, options: UciOptions,
                 limits: GoLimits, trace: Optional[TraceWriter]) -> None:
        self.out = out
        self.line = line
        self.test = test
        self.options = options
        self.limits = limits
        self.trace = trace
        self.began = time.perf_counter()
        self.stopped = threading.Event()
        # Set as bestmove is written: a GUI may send setoption at once.
        self.answered = threading.Event()
        # The repetition test failed (a link lost): made again for the next go.
        self.failed = False
        # Set while the GUI ponders on our time: no clock until ``ponderhit``.
        self.pondering = limits.ponder
        self._deadlines(self.began)
        self.thread = threading.Thread(target=self._run, name="axon uci search", daemon=True)

    def _deadlines(self, now):
        soft, hard, panic = think_time(self.limits, self.line.board.turn == chess.WHITE)
        self.soft = None if soft is None or self.pondering else now + soft
        self.hard = None if hard is None or self.pondering else now + hard
        self.panic = None if panic is None or self.pondering else now + panic

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        """End the search at its next node; its ``bestmove`` follows."""
        self.stopped.set()

    def ponderhit(self) -> None:
        """The GUI's move was the one pondered on: the clock runs from now."""
        if self.pondering:
            self.pondering = False
            self._deadlines(time.perf_counter())

    def join(self) -> None:
        self.thread.join()

    # -- in the search's thread --

    def _run(self):
        try:
            self._think()
        except BrokenPipeError:
            pass
        except (LinkError, LinkTimeout, CxxrtlError, SearchTooDeep) as error:
            self._failed(f"the detector failed: {error}")
        except Exception as error:
            # A GUI waits for bestmove whatever went wrong: a legal move,
            # and the fault named, rather than a silent engine.
            self._failed(f"the search failed: {type(error).__name__}: {error}")
        finally:
            self.answered.set()

    def _failed(self, why):
        self.failed = True
        try:
            self.out.info(why)
            self._answer(f"bestmove {self._any_move()}")
        except BrokenPipeError:
            pass

    def _answer(self, line):
        # The search is over before the GUI can read its bestmove and send
        # the next command (setoption comes at once from python-chess).
        self.answered.set()
        self.out.send(line)

    def _any_move(self):
        move = next(iter(self.line.board.legal_moves), None)
        return move.uci() if move else "0000"

    def _should_stop(self):
        if self.stopped.is_set():
            return True
        limits = self.limits
        if limits.nodes is not None and self.done_nodes + self.engine.nodes >= limits.nodes:
            return True
        if self.panic is not None or self.hard is not None:
            now = time.perf_counter()
            if self.panic is not None and now >= self.panic:
                return True
            if self.hard is not None and self.depth_done and now >= self.hard:
                return True
        return False

    def _think(self):
        out, line = self.out, self.line
        over = game_over(line.board)
        if over:
            out.info(f"the game is over: {over}")
            self._wait_for_stop()
            self._answer("bestmove 0000")
            return
        if self.trace is not None:
            self.trace.begin()
        self.done_nodes = 0
        self.depth_done = 0
        self.stopped_early = False
        self.engine = Engine(line.base, line.history, self.test,
                             upcoming_cutoff=self.options.upcoming_cutoff,
                             null_move=self.options.null_move, stop=self._should_stop)
        most = min(self.limits.depth or MAX_DEPTH, MAX_DEPTH)
        pv: List[chess.Move] = []
        only_move = line.board.legal_moves.count() == 1
        for depth in range(1, most + 1):
            try:
                result = self.engine.search(depth)
            except SearchStopped:
                self.stopped_early = True
                break
            self.done_nodes += result.nodes
            self.depth_done = depth
            pv = self.engine.pv
            elapsed = time.perf_counter() - self.began
            out.send(f"info depth {depth} seldepth {self.engine.seldepth} "
                     f"score {uci_score(result.score)} nodes {self.done_nodes} "
                     f"nps {int(self.done_nodes / max(elapsed, 1e-6))} "
                     f"time {int(elapsed * 1000)} pv {' '.join(move.uci() for move in pv)}")
            if not self.pondering and self._enough(result, only_move):
                break
        if self.stopped_early:
            pv = self._stopped(pv)
        self._wait_for_stop()
        best = pv[0].uci() if pv else self._any_move()
        ponder = f" ponder {pv[1].uci()}" if len(pv) > 1 else ""
        self._answer(f"bestmove {best}{ponder}")

    def _stopped(self, pv):
        """The line of a search stopped in an iteration: the nodes of the
        iteration given up count too, as GUIs count them. Stopped in depth
        1, the root's best so far is the move, and its score a lower bound
        (a GUI that asked for little time still gets a score)."""
        engine = self.engine
        searched = self.done_nodes + engine.nodes
        elapsed = time.perf_counter() - self.began
        counts = (f"nodes {searched} nps {int(searched / max(elapsed, 1e-6))} "
                  f"time {int(elapsed * 1000)}")
        if self.depth_done or not engine.partial_pv:
            self.out.send(f"info {counts}")
            return pv if self.depth_done else []
        pv = engine.partial_pv
        self.out.send(f"info depth 1 seldepth {engine.seldepth} score "
                      f"{uci_score(engine.partial_score)} lowerbound {counts} "
                      f"pv {' '.join(move.uci() for move in pv)}")
        return pv

    def _enough(self, result, only_move):
        """Whether the deepening ends after this iteration (``go`` with a
        clock or a limit; ``go infinite`` runs until ``stop``)."""
        limits = self.limits
        if limits.infinite:
            return False
        if self.soft is not None:
            if time.perf_counter() >= self.soft or only_move:
                return True
            # A mate found needs no deeper look under a clock.
            if abs(result.score) >= MATE - 1000:
                return True
        return False

    def _wait_for_stop(self):
        """``go infinite`` and pondering: ``bestmove`` waits for ``stop``
        (or ``ponderhit``), as the protocol asks."""
        while (self.limits.infinite or self.pondering) and not self.stopped.is_set():
            self.stopped.wait(0.05)
            if not self.pondering and not self.limits.infinite:
                break


# -- the command loop -------------------------------------------------------------

class UciEngine:
    """The command loop: reads commands, answers, and runs one search at a time.

    Parameters
    ----------
    options : UciOptions
        The options, as the flags set them; ``setoption`` changes them.
    out : Output
        Where the answers go.
    tests : object
        ``ready(options)`` gives the repetition test of ``options`` (made at
        ``isready`` or the first ``go``, kept while they hold); ``close()``
        ends it.
    trace : TraceWriter or None
        Told of each search's start (:meth:`TraceWriter.begin`).
    """

    def __init__(self, options: UciOptions, out: Output, tests: Any,
                 trace: Optional[TraceWriter] = None) -> None:
        self.options = options
        self.out = out
        self.trace = trace
        self.tests = tests
        self.line = GameLine()
        self.thinking: Optional[Thinking] = None
        self.handlers: Dict[str, Callable[[List[str]], Optional[bool]]] = {
            "uci": self._uci, "isready": self._isready, "ucinewgame": self._ucinewgame,
            "setoption": self._setoption, "position": self._position, "go": self._go,
            "stop": self._stop, "ponderhit": self._ponderhit, "quit": self._quit,
        }

    def run(self, commands: TextIO) -> int:
        try:
            while True:
                text = commands.readline()
                if not text:
                    break
                if self.out.gone:
                    raise BrokenPipeError("the GUI has closed the engine's output")
                if self.command(text) is False:
                    break
        finally:
            self.close()
        return 0

    def close(self) -> None:
        """Stop the search under way (its ``bestmove`` is written) and end
        the detector."""
        self._end_search()
        self.tests.close()

    def command(self, text: str) -> Optional[bool]:
        """Answer one command line; ``False`` for ``quit``."""
        words = text.split()
        # Unknown words before a command are skipped, as the protocol says.
        while words and words[0] not in self.handlers:
            words.pop(0)
        if not words:
            return None
        return self.handlers[words[0]](words[1:])

    def _uci(self, _):
        self.out.send(f"id name {ENGINE_NAME}")
        self.out.send(f"id author {ENGINE_AUTHOR}")
        for line in self.options.declarations():
            self.out.send(line)
        self.out.send("uciok")

    def _isready(self, _):
        # A backend that compiles first is made ready here: GUIs wait on isready.
        if not self._searching():
            self.tests.ready(self.options)
        self.out.send("readyok")

    def _ucinewgame(self, _):
        self._end_search()
        self.line = GameLine()

    def _setoption(self, words):
        if "name" not in words:
            self.out.info("setoption: expected setoption name NAME [value VALUE]")
            return
        rest = words[words.index("name") + 1:]
        if "value" in rest:
            at = rest.index("value")
            name, value = " ".join(rest[:at]), " ".join(rest[at + 1:])
        else:
            name, value = " ".join(rest), ""
        if self._searching():
            self.out.info(f"setoption {name}: refused while the engine searches")
            return
        self._end_search()
        try:
            notes = self.options.set(name, value)
        except ValueError as error:
            self.out.info(f"setoption: {error}")
            return
        for note in notes:
            self.out.info(note)

    def _position(self, words):
        try:
            start_fen, moves = parse_position(words)
            self.line = self.line.extended(start_fen, moves)
        except PositionError as error:
            self.out.info(f"position refused: {error}; the position stays "
                          f"{self.line.board.fen()}")

    def _go(self, words):
        self._end_search()
        limits = parse_go(words)
        if limits.ignored:
            self.out.info(f"go: ignored {', '.join(limits.ignored)}")
        test = self.tests.ready(self.options)
        self.thinking = Thinking(self.out, self.line, test, self.options, limits, self.trace)
        self.thinking.start()

    def _stop(self, _):
        self._end_search()

    def _ponderhit(self, _):
        if self.thinking is not None:
            self.thinking.ponderhit()

    def _quit(self, _):
        return False

    def _searching(self):
        return self.thinking is not None and not self.thinking.answered.is_set()

    def _end_search(self):
        """Stop the search under way, if any, and wait for its ``bestmove``."""
        if self.thinking is not None:
            self.thinking.stop()
            self.thinking.join()
            if self.thinking.failed:
                self.tests.close()
            self.thinking = None
