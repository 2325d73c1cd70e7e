"""``axon scan``: one answer per ply, printed as the session answers it."""

import sys

from .answers import AnswerWriter, answered_games
from .backends import make_session
from .progress import Progress


__all__ = ["scan"]


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
