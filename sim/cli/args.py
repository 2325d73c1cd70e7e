"""What the ``axon`` commands share: option types, the PGN input, exit statuses."""

import argparse
import sys

from ...hdl.params import COUNT_LIMIT_MAX, DEPTH_MAX, RULES
from ..model.games import plural, read_pgn


__all__ = ["COUNT_LIMIT_MAX", "DEPTH_MAX", "EXIT_INTERRUPTED", "SIM_RULES", "UsageError",
           "int_at_least", "add_pgn_input", "load_input", "finish_skipped"]

# What a shell reports for a command stopped by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130
# The gateware's rule sets, the default first (as the options list them).
SIM_RULES = ("exact",) + tuple(rules for rules in RULES if rules != "exact")


class UsageError(Exception):
    """A bad option value; exit status 2."""


def int_at_least(minimum):
    """An argparse ``type``: an integer no smaller than ``minimum``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected an integer of at least {minimum}, not {value}")
        return value
    parse.__name__ = f"integer >= {minimum}"
    return parse


def add_pgn_input(parser):
    """The PGN argument and ``--keep-going``, shared with ``axon query``."""
    parser.add_argument("pgn", metavar="GAMES.pgn",
                        help="PGN file, - for standard input (FEN/SetUp headers honoured)")
    parser.add_argument("--keep-going", action="store_true",
                        help="skip a game whose mainline is unreadable, with a warning naming "
                             "it, answer the rest, and exit 2 at the end (default: stop at it)")


def load_input(command, options, err=None):
    """The games of ``options.pgn``, with warnings and skipped games on stderr.

    Returns the :class:`~axon.sim.model.games.PgnFile`; raises :class:`GameError`
    for a file that cannot be read at all, or (without ``--keep-going``) for
    a bad game.
    """
    err = sys.stderr if err is None else err
    found = read_pgn(options.pgn, keep_going=getattr(options, "keep_going", False))
    for line in found.warnings:
        err.write(f"axon {command}: warning: {line}\n")
    for line in found.skipped:
        err.write(f"axon {command}: warning: {line}; game skipped\n")
    return found


def finish_skipped(command, code, found, err=None):
    """The exit status once a ``--keep-going`` run is done: 2 if it skipped a game.

    A disagreement (1, from verify) outranks it; the summary goes to stderr.
    """
    if not found.skipped:
        return code
    err = sys.stderr if err is None else err
    err.write(f"axon {command}: {len(found.games)} of {plural(found.total, 'game')} "
              f"answered, {len(found.skipped)} skipped (see the warnings above)\n")
    return code or 2
