"""What the commands on a PGN file's games share (``scan``, ``verify``,
``explain``, ``report``): their options, the check of them, and the one
way a bad option or a bad game ends such a command.

Bad input (a missing or unreadable file, a PGN error, a bad FEN, an option
out of range) ends the command with exit status 2 and one line on stderr
that names the game and ply; never a traceback. With ``--keep-going`` a bad
game is skipped with a warning instead, the rest are answered, and the exit
status is 2 if anything was skipped. Games are numbered from 1 in file order.
"""

import sys

from ...hdl.params import SHIPPED
from ..model.games import GameError
from .args import (ALL_RULES, COUNT_LIMIT_MAX, SIM_RULES, GameStream, UsageError,
                   add_list_depth, add_pgn_input, check_output_file, config_from,
                   finish_skipped, option_names, warn_unpooled)
from .backends import BACKENDS, backend_name


__all__ = ["add_game_options", "check_game_options", "run_game_command", "run_on_games"]


def add_game_options(parser, *, backend=None):
    """The PGN input, the detector's configuration, ``--count-limit`` and
    ``--root``; with ``backend``, ``--backend`` and its default."""
    add_pgn_input(parser)
    if backend is not None:
        # Unset means the command's default, or pysim when --vcd asks for a waveform.
        parser.add_argument("--backend", choices=tuple(BACKENDS), default=None,
                            type=backend_name,
                            help=f"golden model, RTL in Amaranth's simulator (pysim; sim is "
                                 f"another name for it), or RTL compiled with CXXRTL and g++ "
                                 f"(default {backend}; pysim with --vcd)")
        parser.set_defaults(default_backend=backend)
    parser.add_argument("--rules", choices=ALL_RULES, default=SHIPPED.rules.value,
                        help=f"chain rules (default {SHIPPED.rules.value}; cpw is golden-only)")
    parser.add_argument("--chains", type=int, default=SHIPPED.chains, metavar="N",
                        help=f"chain-list slots, half per side (default {SHIPPED.chains})")
    parser.add_argument("--count-limit", type=int, default=4, metavar="K",
                        help=f"stop after K equal positions, 0..{COUNT_LIMIT_MAX} (default 4)")
    add_list_depth(parser, default=SHIPPED.depth,
                   help=f"move-list entries; longer games slide a window "
                        f"(axon.sim.model.history) (default {SHIPPED.depth})")
    parser.add_argument("--root", type=int, default=None, metavar="N",
                        help="a search from every game's ply N: its first N plies are game "
                             "history, where only a third occurrence is a draw; a game's "
                             "[Root \"N\"] tag wins (default: every ply is game history)")


def check_game_options(options):
    """Check the options of :func:`add_game_options` and give
    ``options.config``; a bad one is a :class:`~axon.sim.cli.args.UsageError`."""
    vcd = getattr(options, "vcd", None)
    if hasattr(options, "default_backend") and options.backend is None:
        options.backend = "pysim" if vcd else options.default_backend
    backend = getattr(options, "backend", "golden")
    # The one configuration every part of the command answers for.
    options.config = config = config_from(options, gateware=False)
    if getattr(options, "root", None) is not None and options.root < 0:
        raise UsageError(f"--root must be a number of plies, 0 or more, not {options.root}")
    if not 0 <= options.count_limit <= COUNT_LIMIT_MAX:
        raise UsageError(f"--count-limit must be in 0..{COUNT_LIMIT_MAX}, "
                         f"not {options.count_limit}")
    if backend in ("pysim", "cxxrtl") and not config.rules.in_gateware:
        raise UsageError(f"--rules {config.rules.value} is golden-only; the pysim backend "
                         f"supports {' and '.join(SIM_RULES)}")
    if backend in ("pysim", "cxxrtl"):
        # What only the gateware needs (the walked list's own scan).
        try:
            config.check(where="--")
        except (TypeError, ValueError) as error:
            raise UsageError(option_names(str(error))) from None
    if vcd and backend != "pysim":
        raise UsageError(f"--vcd needs the pysim backend, not --backend {backend}")
    if vcd:
        check_output_file("--vcd", vcd)
    if getattr(options, "html", None):
        check_output_file("--html", options.html)
    if options.command != "explain":
        warn_unpooled(options.command, config)


def run_game_command(options, body):
    """Check the options, then ``body(options)``: its exit status, or 2 with
    one line on stderr for a bad option or a bad game."""
    try:
        check_game_options(options)
        return body(options)
    except (UsageError, GameError) as error:
        print(f"axon {options.command}: error: {error}", file=sys.stderr)
        return 2


def run_on_games(options, run):
    """``run(games, options)`` over the games of ``options.pgn``, answered as
    they are read: bad input ends the run where it is found, after the rows
    of the games before it. The exit status, 2 if a game was skipped."""
    games = GameStream(options.command, options)
    return finish_skipped(options.command, run(games, options), games)
