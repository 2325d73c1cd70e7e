"""``axon verify``: the golden model against the RTL and the python-chess
oracle, ply by ply."""

import argparse
import json
import sys
from dataclasses import dataclass

from ...hdl.params import SHIPPED
from ..backends.pysim import expected_cycles
from ..backends.session import GoldenSession, PlyAnswer, answer_games, answers
from ..model.games import plural
from ..model.oracle import oracle_answers, oracle_upcoming
from .answers import upcoming_exact
from .args import add_layout
from .backends import make_session
from .game_commands import add_game_options, run_game_command, run_on_games
from .progress import Progress


__all__ = ["register", "verify", "Disagreement"]

_VERIFY_EPILOG = """\
verify is meant for --rules exact, the rules that agree with FIDE position
equality. The paper's rules (no link rule) and the wiki's cpw pseudo-code have
known blind spots, so with them disagreements with the python-chess oracle are
expected; they are still reported and still make the exit status 1.
Exit status: 0 if everything agrees, 1 on any disagreement, 2 on bad input.
"""


def register(commands):
    """``axon verify``."""
    parser = commands.add_parser(
        "verify", help="check golden model, RTL and python-chess oracle against each other",
        description="Compare the golden model with the RTL simulation (every field and "
                    "the clock count) and with the python-chess oracle (repetition, draw, "
                    "distance, count, and the upcoming repetition, its move and draw: exactly "
                    "where the scan reached a barrier or the bottom, else that what it "
                    "reports is true) on every ply.",
        epilog=_VERIFY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_options(parser, backend="pysim")
    add_layout(parser)
    parser.add_argument("--vcd", metavar="FILE",
                        help="pysim backend: write a waveform and a .gtkw beside it")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=verify_command)


def verify_command(options):
    """``axon verify`` as the command line runs it: the exit status."""
    return run_game_command(options, lambda options: run_on_games(options, verify))

# Disagreements listed in full by ``axon verify``; the rest are only counted.
SHOWN_DISAGREEMENTS = 5

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
                  "stop", "upcoming", "upcoming_move", "upcoming_distance", "upcoming_draw",
                  "upcoming_exact", "backstop")
_ORACLE_FIELDS = ("repetition", "draw", "distance", "count")


def _compare_upcoming(answer, truth, history):
    """The golden model's upcoming repetition against python-chess's.

    An answer that says it is exact (``upcoming_exact``: a move found, the
    most recent, or a scan that ended at a barrier or the bottom of a move
    list that holds the whole game) must be python-chess's in every field:
    it never says a false "no". One that does not (a scan stopped by its
    count limit, an overflow or the window before it found one) may miss
    one further back, but what it reports must be true: a legal move that
    reaches an earlier position."""
    result = answer.result
    move = truth.move and (truth.move.from_square, truth.move.to_square)
    complete = result.stop.name in ("BARRIER", "BOTTOM")
    found = []
    if result.upcoming_exact != (bool(result.upcoming) or complete):
        found.append(Disagreement("golden upcoming_exact", answer, result.upcoming_exact,
                                  bool(result.upcoming) or complete))
    if upcoming_exact(answer):
        # The move's earlier position lies `distance` plies before the one
        # after it, ply + 1: a draw when that is past the game history.
        draw = bool(truth.moves) and answer.ply + 1 - truth.distance > history
        return found + [
            Disagreement(f"golden/oracle {field}", answer, mine, theirs)
            for field, mine, theirs in (("upcoming", result.upcoming, bool(truth.moves)),
                                        ("upcoming_move", result.upcoming_move, move),
                                        ("upcoming_distance", result.upcoming_distance,
                                         truth.distance),
                                        ("upcoming_draw", result.upcoming_draw, draw))
            if mine != theirs]
    reached = {(reply.from_square, reply.to_square) for reply in truth.moves}
    if result.upcoming and result.upcoming_move not in reached:
        found.append(Disagreement("golden/oracle upcoming_move", answer, result.upcoming_move,
                                  sorted(reached)))
    return found


def _show(value):
    return value.name.lower() if hasattr(value, "name") else json.dumps(value)


class _Tally:
    """What ``axon verify`` counts, game by game: plies, findings and
    disagreements (the first few kept in full, the rest only counted)."""

    def __init__(self):
        self.games = self.plies = self.repetitions = self.upcoming = 0
        self.overflows = self.limited = self.compared = self.backstopped = 0
        # Upcoming answers that say they are not exact (none found so far).
        self.inexact = 0
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
        tally.inexact += upcoming_exact(answer) is False
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
                                     answer.result, options.config, hardware.written)
            if hardware.cycles != cycles:
                tally.disagree([Disagreement("rtl cycles", answer, cycles, hardware.cycles)])
        tally.backstopped += answer.result.backstop
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
    if not config.backstop and config.backstop_possible:
        layout += ", no backstop"
    out.write(f"axon verify: {backend}; rules {config.rules.value}, chains {config.chains}"
              f"{layout}, count limit {options.count_limit}, depth {config.depth}\n")
    out.write(f"games {tally.games}, plies {tally.plies}, repetitions found "
              f"{tally.repetitions}, upcoming repetitions found {tally.upcoming}"
              + (f" ({plural(tally.inexact, 'upcoming answer')} not exact)" if tally.inexact
                 else "") + "\n")
    backstop = f" (the backstop answered {tally.backstopped})" if config.backstop else ""
    out.write(f"overflow plies {tally.overflows}{backstop}, window-limited plies "
              f"{tally.limited} (not compared with the oracle; {tally.compared} plies compared)\n")
    if not config.rules.fide:
        out.write(f"note: the {config.rules.value} rules have known blind spots; "
                  f"disagreements with the oracle are expected\n")
    if not tally.compared:
        out.write("nothing was compared with the oracle: every ply overflowed or was "
                  "window-limited (more --chains or --list-depth, or --pools side)\n")
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
