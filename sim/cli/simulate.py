"""What ``axon scan``, ``axon verify`` and ``axon explain`` do, apart from parsing options.

Every ply of every game is one query: the move list holds the game's words
(the window of :mod:`axon.sim.model.history` for long games) and ``top`` is the
address of the ply's word. Whatever the backend, the answers come from one
loop, :func:`~axon.sim.backends.session.answer_games`, and are printed as
they come: the golden model and a board answer a query at a time, a
simulation a batch of games at a time.
"""

import itertools
import json
import sys

import chess
import time
from dataclasses import dataclass

from ...hdl.params import SHIPPED
from ...hdl.word import PIECE_LETTERS, square_name
from ..backends.cxxrtl import CxxrtlSession
from ..backends.pysim import PysimSession, expected_cycles
from ..backends.session import GoldenSession, PlyAnswer, answer_games, answers
from ..model.explain import Explanation, explain_query, for_side, format_table
from ..model.explain_html import explanation_page
from ..model.games import plural
from ..model.golden import Stop, perpetual
from ..model.history import is_window_limited, root_address, windows
from ..model.oracle import oracle_answers, oracle_upcoming


__all__ = ["BACKENDS", "BACKEND_ALIASES", "backend_name", "Progress", "make_session", "answered_games",
           "AnswerWriter", "write_answers", "scan", "verify", "explain", "explain_ply",
           "PlyExplanation", "JSONL_KEYS"]

# The JSONL schema of ``axon scan --jsonl``, in order.
JSONL_KEYS = ("game", "ply", "move", "repetition", "draw", "distance", "count", "overflow",
              "plies_scanned", "stop", "cycles", "fifty_move", "threefold", "fivefold",
              "upcoming", "upcoming_move", "upcoming_distance", "upcoming_draw")

# Earlier equal positions that make a draw: threefold repetition (FIDE 9.2,
# claimable) and fivefold (FIDE 9.6, the game is drawn).
THREEFOLD_COUNT = 2
FIVEFOLD_COUNT = 4

# Disagreements listed in full by ``axon verify``; the rest are only counted.
SHOWN_DISAGREEMENTS = 5


class Progress:
    """How far a long command is, on stderr.

    On a terminal one line is rewritten in place, at most ten times a second:
    the command, the games done of the total (when the file's games were
    counted) and the rate, ``axon scan: game 12/150, 1,834 plies, 2,310
    plies/s``. Anywhere else (a log file, CI) a plain line with the same
    totals is written only once every ``interval`` seconds, so that a short
    run writes nothing and a long one shows it is alive without flooding the
    log.
    """

    def __init__(self, total_games, stream=None, enabled=True, interval=30.0,
                 clock=time.monotonic, command="axon"):
        self.total = total_games
        self.command = command
        self.stream = sys.stderr if stream is None else stream
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.plain = enabled and not self.tty
        self.interval = 0.1 if self.tty else interval
        self.clock = clock
        self.started = clock()
        # A terminal shows the first update at once; a log waits an interval.
        self.last_time = None if self.tty else self.started
        self.width = 0
        self.plies = 0
        self._at = (None, 0)

    def _count(self, position, ply):
        last_position, last_ply = self._at
        self.plies += ply - last_ply if position == last_position else ply
        self._at = (position, ply)

    def text(self, position):
        """The progress line after game ``position`` (0-based)."""
        games = f"game {position + 1}"
        if self.total is not None and position < self.total:
            games += f"/{self.total}"
        elapsed = self.clock() - self.started
        rate = f", {self.plies / elapsed:,.0f} plies/s" if elapsed > 0 else ""
        return f"{self.command}: {games}, {self.plies:,} {'ply' if self.plies == 1 else 'plies'}" \
               f"{rate}"

    def update(self, position, ply):
        """``position``: 0-based place of the game in the list being answered."""
        if not (self.tty or self.plain):
            return
        self._count(position, ply)
        now = self.clock()
        if self.last_time is not None and now - self.last_time < self.interval:
            return
        self.last_time = now
        text = self.text(position)
        if self.tty:
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def say(self, line):
        """A one-off line about a long step (the first CXXRTL compile), shown
        whenever progress is on, terminal or not."""
        if not (self.tty or self.plain):
            return
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0
        self.stream.write(line + "\n")
        self.stream.flush()

    def done(self):
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


# ``--backend``: the session class of each, and what it takes beyond the
# configuration.
BACKENDS = {
    "golden": GoldenSession,
    "pysim":  PysimSession,
    "cxxrtl": CxxrtlSession,
}

# Other names ``--backend`` takes: ``sim`` was the pysim backend's first name.
BACKEND_ALIASES = {"sim": "pysim"}


def backend_name(name):
    """``--backend``'s value (an argparse ``type``): ``sim`` is ``pysim``."""
    return BACKEND_ALIASES.get(name, name)


def make_session(options, progress=None):
    """The session of ``options.backend`` for ``options.config``: a waveform
    (``options.vcd``) for the pysim backend, ``progress.say`` told of a
    CXXRTL compile."""
    extra = {}
    if options.backend == "pysim":
        extra["vcd"] = getattr(options, "vcd", None)
    if options.backend == "cxxrtl" and progress:
        extra["log"] = progress.say
    return BACKENDS[options.backend](options.config, **extra)


def _fifty_moves(game):
    # python-chess: False when the side to move has no legal move, so a mate
    # on the hundredth halfmove is a mate, not a claimable draw.
    for board in game.positions():
        yield board.is_fifty_moves()


def answered_games(games, session, options, progress=None):
    """For each game, ``(game, rows)``: ``rows`` iterates over ``(PlyAnswer,
    fifty_move)`` after every ply, as ``session`` answers them
    (:func:`~axon.sim.backends.session.answer_games`, with ``options``'
    count limit and root). What ``scan``, ``verify``, ``report`` and
    ``axon query`` print comes from here."""
    for game, plies in answer_games(games, session, count_limit=options.count_limit,
                                    root=getattr(options, "root", None), progress=progress):
        yield game, zip(plies, _fifty_moves(game))


def repetition_claim(answer, count_limit, earlier):
    """Whether ``earlier`` equal earlier positions were found: True, False or
    None (unknown).

    The detector counts equal positions up to ``count_limit`` (or beyond, to
    decide a draw), so it can only tell ``earlier`` when ``count`` reached
    it or when its scan ended at a barrier or the bottom: then ``count`` is
    every equal position there is. A scan cut short by its limit, an
    overflow or the sliding window knows only that it found ``count``.
    """
    result = answer.result
    if result.count >= earlier:
        return True
    complete = result.stop in (Stop.BARRIER, Stop.BOTTOM) and not answer.window_limited
    return False if complete else None


def ply_record(answer, fifty, count_limit):
    """The JSONL record of one answer (:data:`JSONL_KEYS`), as ``axon scan``
    and ``axon report`` print it."""
    result = answer.result
    return {
        "game": answer.game.number,
        "ply": answer.ply,
        "move": answer.game.ucis[answer.window.ply],
        "repetition": result.repetition,
        "draw": result.draw,
        "distance": result.distance,
        "count": result.count,
        "overflow": result.overflow,
        "plies_scanned": result.plies_scanned,
        "stop": result.stop.name.lower(),
        "cycles": answer.cycles,
        "fifty_move": fifty,
        "threefold": repetition_claim(answer, count_limit, THREEFOLD_COUNT),
        "fivefold": repetition_claim(answer, count_limit, FIVEFOLD_COUNT),
        "upcoming": result.upcoming,
        "upcoming_move": uci_of(result.upcoming_move),
        "upcoming_distance": result.upcoming_distance,
        "upcoming_draw": result.upcoming_draw,
    }


def uci_of(squares):
    """``(from, to)`` as UCI (``g1f3``), ``None`` as ``None``."""
    if squares is None:
        return None
    return chess.square_name(squares[0]) + chess.square_name(squares[1])


_TABLE = (("game", ">4"), ("ply", ">4"), ("move", "<22"), ("rep", "<4"), ("draw", "<4"),
          ("dist", ">4"),
          ("count", ">5"), ("scanned", ">7"), ("stop", "<17"), ("cycles", ">6"),
          ("50-move", "<7"), ("3-fold", "<6"), ("5-fold", "<6"), ("upcoming", "<8"))

# How the table shows True, False and None (unknown: see repetition_claim).
# An upcoming repetition that is not available (no upcoming block) is n/a.
_YES_NO = {True: "yes", False: "-", None: "?"}


def _table_line(cells):
    return "  ".join(f"{cell:{spec}}" for cell, (_, spec) in zip(cells, _TABLE)).rstrip()


class AnswerWriter:
    """Prints answers as ``axon scan`` does: JSONL, or the table with a line
    naming each game and a summary line. :meth:`games` may be called once per
    batch of games, so that rows are printed as soon as they are answered."""

    def __init__(self, out, jsonl=False, count_limit=4):
        self.out, self.jsonl, self.count_limit = out, jsonl, count_limit
        self.game_count = self.plies = self.repetitions = 0
        self.started = False

    def _start(self):
        # Written with the first rows, so that a file whose first game is bad
        # prints nothing but its error.
        if not self.started and not self.jsonl:
            self.out.write(_table_line([name for name, _ in _TABLE]) + "\n")
        self.started = True

    def games(self, games, answers):
        for game, game_answers in zip(games, answers):
            self.game(game, zip(game_answers, _fifty_moves(game)))

    def game(self, game, rows):
        """One game's rows from ``(answer, fifty_move)`` pairs, written as they come."""
        self._start()
        self.game_count += 1
        if not self.jsonl:
            self.out.write(f"{game.label}\n")
        for answer, fifty in rows:
            self._row(game, answer, fifty)
        self.out.flush()

    def _row(self, game, answer, fifty):
        out = self.out
        record = ply_record(answer, fifty, self.count_limit)
        self.plies += 1
        self.repetitions += record["repetition"]
        if self.jsonl:
            out.write(json.dumps(record) + "\n")
            return
        stop = record["stop"] + (" (window)" if answer.window_limited else "")
        out.write(_table_line([
            record["game"], record["ply"],
            f"{game.move_label(answer.ply)} {record['move']}",
            "yes" if record["repetition"] else "-",
            "yes" if record["draw"] else "-",
            "-" if record["distance"] is None else record["distance"],
            record["count"], record["plies_scanned"], stop,
            "-" if record["cycles"] is None else record["cycles"],
            _YES_NO[fifty], _YES_NO[record["threefold"]], _YES_NO[record["fivefold"]],
            "n/a" if record["upcoming"] is None else record["upcoming_move"] or "-",
        ]) + "\n")

    def finish(self):
        """The summary line; returns ``(plies, repeating_plies)``."""
        self._start()
        if not self.jsonl:
            self.out.write(f"{plural(self.game_count, 'game')}, "
                           f"{plural(self.plies, 'ply', 'plies')}, "
                           f"{plural(self.repetitions, 'ply repeats', 'plies repeat')} "
                           f"an earlier position\n")
        return self.plies, self.repetitions


def write_answers(games, answers, out, jsonl=False, count_limit=4):
    """Print the answers as ``axon scan`` does (:class:`AnswerWriter`).

    Returns ``(plies, repeating_plies)``. ``axon query`` prints a board's
    answers with this too, so that both commands print the same rows.
    """
    writer = AnswerWriter(out, jsonl, count_limit)
    writer.games(games, answers)
    return writer.finish()


def scan(games, options, out=None, err=None):
    """``axon scan``: print one answer per ply as the session answers it;
    return the exit code."""
    out = sys.stdout if out is None else out
    progress = Progress(len(games) if isinstance(games, list) else getattr(games, "expected", None),
                        err, enabled=not options.quiet, command="axon scan")
    writer = AnswerWriter(out, jsonl=options.jsonl, count_limit=options.count_limit)
    session = make_session(options, progress)
    for game, rows in answered_games(games, session, options, progress):
        writer.game(game, rows)
        progress.done()
    writer.finish()
    return 0


@dataclass(frozen=True)
class Disagreement:
    kind:   str
    answer: PlyAnswer
    ours:   object
    theirs: object


def _compare(answer, other, fields, kind, ours="golden", theirs="rtl"):
    found = []
    for field in fields:
        mine, yours = getattr(answer.result, field), getattr(other, field)
        if mine != yours:
            found.append(Disagreement(f"{ours}/{theirs} {field}", answer, mine, yours))
    return found


_RESULT_FIELDS = ("repetition", "draw", "distance", "count", "overflow", "plies_scanned",
                  "stop", "upcoming", "upcoming_move", "upcoming_distance", "upcoming_draw")
_ORACLE_FIELDS = ("repetition", "draw", "distance", "count")


def _compare_upcoming(answer, truth, history):
    """The golden model's upcoming repetition against python-chess's.

    Exact when the scan ended at a barrier or the bottom of a move list that
    holds the whole game; a scan stopped by its count limit, an overflow or
    the window may miss one further back, but what it reports must be true:
    a legal move that reaches an earlier position."""
    result = answer.result
    move = truth.move and (truth.move.from_square, truth.move.to_square)
    exact = result.stop.name in ("BARRIER", "BOTTOM") and not answer.window_limited
    if exact:
        # The move's earlier position lies `distance` plies before the one
        # after it, ply + 1: a draw when that is past the game history.
        draw = bool(truth.moves) and answer.ply + 1 - truth.distance > history
        return [Disagreement(f"golden/oracle {field}", answer, mine, theirs)
                for field, mine, theirs in (("upcoming", result.upcoming, bool(truth.moves)),
                                            ("upcoming_move", result.upcoming_move, move),
                                            ("upcoming_draw", result.upcoming_draw, draw))
                if mine != theirs]
    reached = {(reply.from_square, reply.to_square) for reply in truth.moves}
    if result.upcoming and result.upcoming_move not in reached:
        return [Disagreement("golden/oracle upcoming_move", answer, result.upcoming_move,
                             sorted(reached))]
    return []


def _show(value):
    return value.name.lower() if hasattr(value, "name") else json.dumps(value)


class _Tally:
    """What ``axon verify`` counts, game by game: plies, findings and
    disagreements (the first few kept in full, the rest only counted)."""

    def __init__(self):
        self.games = self.plies = self.repetitions = self.upcoming = 0
        self.overflows = self.limited = self.compared = 0
        self.kinds = {}
        self.shown = []

    def disagree(self, found):
        for disagreement in found:
            self.kinds[disagreement.kind] = self.kinds.get(disagreement.kind, 0) + 1
            if len(self.shown) < SHOWN_DISAGREEMENTS:
                self.shown.append(disagreement)

    @property
    def disagreements(self):
        return sum(self.kinds.values())


def _verify_game(tally, game, game_golden, game_rtl, options):
    tally.games += 1
    oracle = oracle_answers(game.board, game.moves, count_limit=options.count_limit,
                            root=game.history(options.root))
    upcoming_truth = oracle_upcoming(game.board, game.moves)
    for index, answer in enumerate(game_golden):
        tally.plies += 1
        tally.repetitions += answer.result.repetition
        tally.upcoming += bool(answer.result.upcoming)
        if options.config.rules.fide and options.config.upcoming:
            tally.disagree(_compare_upcoming(answer, upcoming_truth[index],
                                             game.history(options.root)))
        if game_rtl is not None:
            hardware = game_rtl[index]
            # The lean scan answers no upcoming repetition.
            fields = _RESULT_FIELDS if options.config.upcoming else \
                tuple(field for field in _RESULT_FIELDS if not field.startswith("upcoming"))
            tally.disagree(_compare(answer, hardware.result, fields, "rtl"))
            window = answer.window
            cycles = expected_cycles(game.words[window.base:window.ply + 1], window.top,
                                     answer.result, options.config)
            if hardware.cycles != cycles:
                tally.disagree([Disagreement("rtl cycles", answer, cycles, hardware.cycles)])
        if answer.result.overflow:
            tally.overflows += 1
        elif answer.window_limited:
            tally.limited += 1
        else:
            tally.compared += 1
            tally.disagree(_compare(answer, oracle[index], _ORACLE_FIELDS, "oracle",
                                    theirs="oracle"))


def verify(games, options, out=None, err=None):
    """``axon verify``: golden model against RTL and oracle, game by game (batch
    by batch for a simulation); return the exit code."""
    out = sys.stdout if out is None else out
    config = options.config
    progress = Progress(len(games) if isinstance(games, list) else getattr(games, "expected", None),
                        err, enabled=not options.quiet, command="axon verify")
    golden_session = GoldenSession(config)
    simulated = options.backend in ("pysim", "cxxrtl")
    session = make_session(options, progress) if simulated else golden_session
    tally = _Tally()
    for game, plies in answer_games(games, session, count_limit=options.count_limit,
                                    root=options.root, progress=progress):
        plies = list(plies)
        golden, rtl = plies, None
        if simulated:
            golden, rtl = answers([game], golden_session, count_limit=options.count_limit,
                                  root=options.root)[0], plies
        _verify_game(tally, game, golden, rtl, options)
    progress.done()

    backend = ("golden model, RTL simulation and oracle" if simulated
               else "golden model and oracle")
    layout = "" if (config.pools, config.scan) == (SHIPPED.pools, SHIPPED.scan) else \
        f", pools {config.pools.value}, scan {config.scan.value}"
    out.write(f"axon verify: {backend}; rules {config.rules.value}, chains {config.chains}"
              f"{layout}, count limit {options.count_limit}, depth {config.depth}\n")
    out.write(f"games {tally.games}, plies {tally.plies}, repetitions found "
              f"{tally.repetitions}, upcoming repetitions found {tally.upcoming}\n")
    out.write(f"overflow plies {tally.overflows}, window-limited plies {tally.limited} "
              f"(not compared with the oracle; {tally.compared} plies compared)\n")
    if not config.rules.fide:
        out.write(f"note: the {config.rules.value} rules have known blind spots; "
                  f"disagreements with the oracle are expected\n")
    if not tally.compared:
        out.write("nothing was compared with the oracle: every ply overflowed or was "
                  "window-limited (more --chains or --depth, or --pools side)\n")
    if not tally.kinds:
        out.write("disagreements: none\n")
        return 0 if tally.compared else 1
    out.write(f"disagreements: {tally.disagreements} ("
              + ", ".join(f"{kind}: {count}" for kind, count in tally.kinds.items()) + ")\n")
    for disagreement in tally.shown:
        answer = disagreement.answer
        game = answer.game
        ours, theirs = disagreement.kind.split(" ")[0].split("/") \
            if "/" in disagreement.kind else ("expected", "rtl")
        out.write(f"  game {game.number}, ply {answer.ply} ({game.move_label(answer.ply)}, "
                  f"{game.ucis[answer.window.ply]}): {disagreement.kind}: "
                  f"{ours} {_show(disagreement.ours)}, {theirs} {_show(disagreement.theirs)}\n")
    if tally.disagreements > SHOWN_DISAGREEMENTS:
        out.write(f"  ... and {tally.disagreements - SHOWN_DISAGREEMENTS} more\n")
    return 1


def _upcoming_line(words, window, game, options, root, occupancy):
    """The upcoming repetition, and the depth whose single open chain gives
    it; and its move, ``(from, to)`` or ``None``."""
    steps = []
    result = perpetual(words, window.top, root=root, config=options.config,
                       count_limit=options.count_limit, steps=steps, occupancy=occupancy)
    return _upcoming_text(result, steps, window), result.upcoming_move


def _upcoming_text(result, steps, window):
    if not result.upcoming:
        return "upcoming: none (no odd depth left exactly one open chain of the side to " \
               "move whose piece can go straight back)"
    depth = result.upcoming_distance - 1
    (piece, earlier, now), = steps[depth - 1].chains
    back_to = window.base + window.top + 1 - depth
    return (f"upcoming: {uci_of(result.upcoming_move)}, distance {result.upcoming_distance}: "
            f"after {depth} plies (back to the position after ply {back_to}) the only open "
            f"chain is {PIECE_LETTERS.get(piece, '?')} {square_name(earlier)}->"
            f"{square_name(now)}, and {square_name(now)}->{square_name(earlier)} is "
            f"pseudo-legal now; "
            + ("a draw for the search: that position lies after the root"
               if result.upcoming_draw else
               "that position is at or before the root: a draw only if it occurred twice "
               "already"))


@dataclass(frozen=True)
class PlyExplanation:
    """What ``axon explain`` shows of one query, for the text table and the
    pages: the step-by-step :class:`~axon.sim.model.explain.Explanation`,
    its heading lines (the first is the title), the ``labels`` of its rows,
    the queried position ``board`` and the upcoming repetition's move."""
    explanation: object
    heading: list
    labels: object
    board: chess.Board
    upcoming_move: object
    root_ply: int


def explain_ply(game, ply, options, *, window=None, board=None, result=None, steps=True):
    """Explain the query after ``ply`` (1-based) of ``game``.

    ``window`` (its :mod:`~axon.sim.model.history` window), ``board`` (the
    position after ``ply``) and ``result`` (the golden model's answer, with
    the upcoming repetition) may be given by a caller that has them already.
    ``steps=False`` (with ``result``) gives the answer alone, without the
    scan's steps, at no cost beyond the lines it prints."""
    if window is None:
        window = windows(game.words, options.config.depth)[ply - 1]
    if board is None:
        board = next(itertools.islice(game.positions(), ply - 1, None))
    config = options.config
    history = game.history(options.root)
    order = getattr(options, "order", "paper")
    if not steps:
        if result is None:
            raise ValueError("explain_ply(steps=False) needs the answer as result")
        distance = "-" if result.distance is None else result.distance
        heading = [f"{game.label}, ply {ply}: {game.move_label(ply)} ({game.ucis[ply - 1]})",
                   f"answer: repetition {'yes' if result.repetition else 'no'}, distance "
                   f"{distance}, count {result.count}, plies scanned {result.plies_scanned}, "
                   f"stop {result.stop.name.lower()}, draw {'yes' if result.draw else 'no'}"
                   + (f", upcoming {uci_of(result.upcoming_move)}" if result.upcoming else "")]
        explanation = Explanation(order, (), 0, "", result)
        return PlyExplanation(explanation, heading, None, board, result.upcoming_move, history)
    words = game.words[window.base:ply]
    root = root_address(window, history)
    probe = result if result is not None else perpetual(words, window.top, root=root,
                                                        config=config,
                                                        count_limit=options.count_limit)
    explanation = explain_query(words, window.top, root=root, config=config,
                                count_limit=options.count_limit, order=order,
                                base=window.base, root_ply=history,
                                window_limited=is_window_limited(probe, game.words,
                                                                 window.base))
    explanation = for_side(explanation, getattr(options, "side", "both"))
    result = explanation.result
    distance = "-" if result.distance is None else result.distance
    heading = [
        f"{game.label}, ply {ply}: {game.move_label(ply)} ({game.ucis[ply - 1]})",
        f"rules {config.rules.value}, chains {config.chains}, count limit "
        f"{options.count_limit}, order {order}"
        + (f", {options.side} moves only" if getattr(options, "side", "both") != "both"
           else "")
        + (f", move list holds plies {window.base + 1}..{ply}" if window.base else ""),
        f"answer: repetition {'yes' if result.repetition else 'no'}, distance {distance}, "
        f"count {result.count}, plies scanned {result.plies_scanned}, "
        f"stop {result.stop.name.lower()}",
        explanation.draw,
    ]
    upcoming_move = None
    if config.rules.sided:
        line, upcoming_move = _upcoming_line(words, window, game, options, root,
                                             int(board.occupied))
        heading.append(line)

    def labels(address):
        game_ply = window.base + address + 1
        return game_ply, game.sans[game_ply - 1]

    return PlyExplanation(explanation, heading, labels, board, upcoming_move, history)


def explain(game, ply, options, out=None):
    """``axon explain``: the query after ``ply`` (1-based) of ``game``, step by step."""
    out = sys.stdout if out is None else out
    shown = explain_ply(game, ply, options)
    if getattr(options, "html", None):
        page = explanation_page(shown, game=game, ply=ply)
        with open(options.html, "w") as file:
            file.write(page)
        out.write(f"wrote {options.html}\n")
        return 0
    for line in shown.heading:
        out.write(line + "\n")
    out.write("\n")
    for line in format_table(shown.explanation, shown.labels):
        out.write(line + "\n")
    return 0
