"""The answers of a scan, as ``axon scan``, ``axon report`` and ``axon query``
print them: one query after every ply, a JSONL record or a table row each.

Every ply of every game is one query: the move list holds the game's words
(the window of :mod:`axon.sim.model.history` for long games) and ``top`` is the
address of the ply's word. Whatever the backend, the answers come from one
loop, :func:`~axon.sim.backends.session.answer_games`, and are printed as
they come: the golden model and a board answer a query at a time, a
simulation a batch of games at a time.
"""

import json
from typing import Optional

import chess

from ..backends.session import PlyAnswer, answer_games
from ..model.games import plural
from ..model.golden import Stop


__all__ = ["JSONL_KEYS", "answered_games", "repetition_claim", "upcoming_exact", "ply_record",
           "uci_of", "AnswerWriter", "write_answers"]

# The JSONL schema of ``axon scan --jsonl``, in order.
JSONL_KEYS = ("game", "ply", "move", "repetition", "draw", "distance", "count", "overflow",
              "plies_scanned", "stop", "cycles", "fifty_move", "threefold", "fivefold",
              "upcoming", "upcoming_move", "upcoming_distance", "upcoming_draw", "upcoming_exact",
              "backstop")

# Earlier equal positions that make a draw: threefold repetition (FIDE 9.2,
# claimable) and fivefold (FIDE 9.6, the game is drawn).
THREEFOLD_COUNT = 2
FIVEFOLD_COUNT = 4


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


def upcoming_exact(answer: PlyAnswer) -> Optional[bool]:
    """Whether the upcoming answer is complete: the detector's
    ``upcoming_exact`` (``None`` without the upcoming block), but a "none"
    from a move list that holds only the game's latest plies (the sliding
    window) is complete only within them."""
    result = answer.result
    if result.upcoming_exact is None:
        return None
    return bool(result.upcoming_exact and (result.upcoming or not answer.window_limited))


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
        # False: a count limit, an overflow or the window stopped the scan
        # before any upcoming repetition, and "none" is only "none so far".
        "upcoming_exact": upcoming_exact(answer),
        # The pools overflowed and the backstop behind them answered.
        "backstop": result.backstop,
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


def _upcoming_cell(record):
    """The table's upcoming column: the move, ``-`` for none, ``?`` for none
    found by a scan that stopped short (not exact), ``n/a`` without the
    upcoming block."""
    if record["upcoming"] is None:
        return "n/a"
    return record["upcoming_move"] or ("-" if record["upcoming_exact"] else "?")


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
        stop = record["stop"] + (" (window)" if answer.window_limited else "") + \
            (" (backstop)" if record["backstop"] else "")
        out.write(_table_line([
            record["game"], record["ply"],
            f"{game.move_label(answer.ply)} {record['move']}",
            "yes" if record["repetition"] else "-",
            "yes" if record["draw"] else "-",
            "-" if record["distance"] is None else record["distance"],
            record["count"], record["plies_scanned"], stop,
            "-" if record["cycles"] is None else record["cycles"],
            _YES_NO[fifty], _YES_NO[record["threefold"]], _YES_NO[record["fivefold"]],
            _upcoming_cell(record),
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
