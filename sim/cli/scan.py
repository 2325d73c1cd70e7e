"""``axon scan``: one answer per ply, printed as the session answers it."""

import argparse
import sys

from .answers import JSONL_KEYS, AnswerWriter, answered_games
from .args import add_layout
from .backends import make_session
from .game_commands import add_game_options, run_game_command, run_on_games
from .progress import Progress


__all__ = ["register", "scan"]

_SCAN_EPILOG = """\
Games are numbered from 1 in file order, plies from 1. draw is the draw by
repetition of a search from the root (--root N or a game's [Root "N"] tag):
a third occurrence, or a second one after the root position; without a root
every ply is game history and draw means a third occurrence. threefold and fivefold
come from the detector's count of earlier equal positions (2 and 4 of them):
they need --count-limit 2 and 4 (the default 4 gives both); with a lower
limit, or after an overflow or a window-limited scan, a count that reached
the limit cannot tell and they are null (? in the table).
Exit status: 0, or 2 on bad input or when --keep-going skipped a game.
"""


def register(commands):
    """``axon scan``."""
    parser = commands.add_parser("scan", help="answer a query after every ply",
                                 description="Answer a repetition query after every ply.",
                                 epilog=_SCAN_EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_options(parser, backend="golden")
    add_layout(parser)
    parser.add_argument("--jsonl", action="store_true",
                        help="one JSON object per ply: " + ", ".join(JSONL_KEYS))
    parser.add_argument("--vcd", metavar="FILE",
                        help="pysim backend: write a waveform and a .gtkw beside it")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=scan_command)


def scan_command(options):
    """``axon scan`` as the command line runs it: the exit status."""
    return run_game_command(options, lambda options: run_on_games(options, scan))


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
