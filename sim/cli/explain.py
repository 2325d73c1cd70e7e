"""``axon explain``: the query after one ply, step by step, in the columns
of the paper's Table 2, or drawn on a page (``--html``)."""

import argparse
import itertools
import sys
from dataclasses import dataclass

import chess

from ...hdl.word import PIECE_LETTERS, square_name
from ..model.explain import ORDERS, SIDES, Explanation, explain_query, for_side, format_table
from ..model.explain_html import explanation_page
from ..model.games import GameError, display_name, plural
from ..model.golden import perpetual
from ..model.history import is_window_limited, root_address, windows
from .answers import uci_of
from .args import add_backstop, load_input
from .game_commands import add_game_options, run_game_command


__all__ = ["register", "explain", "explain_ply", "PlyExplanation"]

_EXPLAIN_EPILOG = """\
--order paper (the default) reads oldest-first like Table 2 of the paper;
with --rules paper the knight swap of Figure 5 gives exactly Table 2's rows.
--order scan shows the words newest-first, as the detector applies them.
"""


def register(commands):
    """``axon explain``."""
    parser = commands.add_parser(
        "explain", help="show one query step by step (the paper's Table 2)",
        description="Show the scan after one ply step by step in the columns of the "
                    "paper's Table 2: move, chain list, unclosed chains, rule applied.",
        epilog=_EXPLAIN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_options(parser)
    add_backstop(parser)
    parser.add_argument("--game", type=int, required=True, metavar="G",
                        help="game number, from 1 in file order, as axon scan prints it")
    parser.add_argument("--ply", type=int, required=True, metavar="N",
                        help="1-based ply: the query after the N-th half-move")
    parser.add_argument("--order", choices=ORDERS, default="paper",
                        help="paper: oldest first, as Table 2 (default); "
                             "scan: newest first, as the hardware")
    parser.add_argument("--side", choices=SIDES, default="both",
                        help="show one side's moves and chains only (each side has its own "
                             "pool); Table 2 shows the knights alone (default both)")
    parser.add_argument("--html", metavar="FILE",
                        help="write the explanation as one self-contained page instead: the "
                             "board, each step's move and chains as arrows, Table 2's rows")
    parser.set_defaults(func=explain_command)


def explain_command(options):
    """``axon explain`` as the command line runs it: the exit status."""
    def body(options):
        found = load_input(options.command, options)
        return explain(_pick(found, options), options.ply, options)
    return run_game_command(options, body)


def _pick(found, options):
    name = display_name(options.pgn)
    game = next((game for game in found.games if game.number == options.game), None)
    if game is None:
        if 1 <= options.game <= found.total:
            raise GameError(f"{name}: game {options.game} was skipped")
        raise GameError(f"{name}: --game {options.game} is out of range: the file "
                        f"has {plural(found.total, 'game')} (1..{found.total})")
    if not game.moves:
        raise GameError(f"{name}: {game.label} has no moves to explain")
    if not 1 <= options.ply <= len(game.moves):
        raise GameError(f"{name}: {game.label}: --ply {options.ply} is out of range "
                        f"(1..{len(game.moves)})")
    return game


def _upcoming_line(words, window, game, options, root_at, occupancy):
    """The upcoming repetition, and the depth whose single open chain gives
    it; and its move, ``(from, to)`` or ``None``."""
    steps = []
    result = perpetual(words, window.top, root_address=root_at, config=options.config,
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
                   f"stop {result.stop.name.lower()}"
                   + (" (the backstop's)" if result.backstop else "")
                   + f", draw {'yes' if result.draw else 'no'}"
                   + (f", upcoming {uci_of(result.upcoming_move)}" if result.upcoming else "")]
        explanation = Explanation(order, (), 0, "", result)
        return PlyExplanation(explanation, heading, None, board, result.upcoming_move, history)
    words = game.words[window.base:ply]
    root_at = root_address(window, history)
    probe = result if result is not None else perpetual(words, window.top, root_address=root_at,
                                                        config=config,
                                                        count_limit=options.count_limit)
    explanation = explain_query(words, window.top, root_address=root_at, config=config,
                                count_limit=options.count_limit, order=order,
                                base=window.base, root_ply=history,
                                window_limited=is_window_limited(probe, game.words,
                                                                 window.base))
    explanation = for_side(explanation, getattr(options, "side", "both"))
    result = explanation.result
    distance = "-" if result.distance is None else result.distance
    heading = [
        f"{game.label}, ply {ply}: {game.move_label(ply)} ({game.ucis[ply - 1]})",
        f"rules {config.rules.value}, chains {config.chains}"
        + (f" and a walked-list backstop of {config.backstop_config.chains}" if config.backstop
           else "") + f", count limit "
        f"{options.count_limit}, order {order}"
        + (f", {options.side} moves only" if getattr(options, "side", "both") != "both"
           else "")
        + (f", move list holds plies {window.base + 1}..{ply}" if window.base else ""),
        f"answer: repetition {'yes' if result.repetition else 'no'}, distance {distance}, "
        f"count {result.count}, plies scanned {result.plies_scanned}, "
        f"stop {result.stop.name.lower()}"
        + (" (the pools overflowed: the backstop's walked list answered, and the steps "
           "are its)" if result.backstop else ""),
        explanation.draw,
    ]
    upcoming_move = None
    if config.rules.sided:
        line, upcoming_move = _upcoming_line(words, window, game, options, root_at,
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
