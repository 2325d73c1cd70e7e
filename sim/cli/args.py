"""What the ``axon`` commands share: option types, the PGN input, exit statuses."""

import argparse
import os
import re
import sys

from ...hdl.params import COUNT_LIMIT_MAX, DEPTH_MAX, SHIPPED, Pools, Rules, Scan
from ...hdl.pools import POOL_KINDS
from ...hdl.word import PIECE_LETTERS
from ..model.games import PgnFile, iter_pgn, plural


__all__ = ["COUNT_LIMIT_MAX", "DEPTH_MAX", "EXIT_INTERRUPTED", "SIM_RULES", "ALL_RULES", "CONFIG_OPTIONS",
           "UsageError", "int_at_least", "add_pgn_input", "load_input", "finish_skipped",
           "add_layout", "add_backstop", "add_list_depth", "add_pruning",
           "option_names", "config_from", "unpooled_kinds", "warn_unpooled", "check_output_file",
           "check_directory", "GameStream", "expected_games"]

# What a shell reports for a command stopped by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130
# The gateware's rule sets, the shipped one first (as the options list them),
# and every rule set the golden model has.
SIM_RULES = (SHIPPED.rules.value,) + tuple(rules.value for rules in Rules
                                          if rules.in_gateware and rules is not SHIPPED.rules)
ALL_RULES = tuple(rules.value for rules in Rules)
# The options that make a detector configuration, by their field names.
CONFIG_OPTIONS = ("depth", "chains", "rules", "pools", "scan", "upcoming", "backstop")


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


class _DeprecatedDepth(argparse.Action):
    """``--depth`` on a command that takes a move list's size: the old name
    of ``--list-depth``, taken as it with a warning, as ``depth`` is the
    search's plies elsewhere."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: warning: --depth {values} is deprecated here and will be "
              f"removed: give --list-depth {values} (the move list's entries)",
              file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_list_depth(parser, *, default, minimum=None, help):
    """``--list-depth D``, the move list's entries (``DetectorConfig.depth``),
    in ``options.depth``; ``--depth`` still gives it, with a warning."""
    kind = int if minimum is None else int_at_least(minimum)
    parser.add_argument("--list-depth", dest="depth", type=kind, default=default, metavar="D",
                        help=help)
    parser.add_argument("--depth", dest="depth", type=kind, default=argparse.SUPPRESS,
                        action=_DeprecatedDepth, help=argparse.SUPPRESS)


def _pools_value(prog):
    """``--pools``' values, with ``serial``, the walked list's name before
    0.3, taken as ``walked`` with a warning (for one minor version)."""
    def pools_value(value):
        if value == "serial":
            print(f"{prog}: warning: --pools serial is deprecated and will be removed: "
                  f"give --pools {Pools.WALKED.value}", file=sys.stderr)
            return Pools.WALKED.value
        return value
    return pools_value


class _DeprecatedUpcoming(argparse.Action):
    """``--upcoming`` on a search: the old name of ``--upcoming-cutoff``,
    taken as it with a warning, as ``--upcoming`` is the detector's block
    elsewhere."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: warning: --upcoming is deprecated here and will be removed "
              f"in 0.5: give --upcoming-cutoff (the search's upcoming-repetition cutoff)",
              file=sys.stderr)
        setattr(namespace, self.dest, True)


def add_pruning(parser, *, uci=False):
    """``--upcoming-cutoff`` and ``--null-move``, the search's pruning, in
    ``options.upcoming_cutoff`` and ``options.null_move``; ``--upcoming``
    still gives the cutoff, with a warning. With ``uci``, each help names
    the UCI option it sets."""
    def option(name, text):
        return f"the option {name}: {text}" if uci else text

    parser.add_argument("--upcoming-cutoff", action="store_true",
                        help=option("UpcomingRepetition",
                                    "cut alpha to the draw value where the side to move can "
                                    "reach a draw by repetition in one move (Stockfish's "
                                    "upcoming-repetition cutoff)"))
    parser.add_argument("--upcoming", dest="upcoming_cutoff", nargs=0,
                        action=_DeprecatedUpcoming, default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)
    parser.add_argument("--null-move", action="store_true",
                        help=option("NullMove",
                                    "null-move pruning (a null move is a barrier for the test)"))


def add_layout(parser, base=SHIPPED):
    """``--pools``, ``--scan``, ``--upcoming`` and (but for a board's
    configuration) ``--backstop``: the detector's layout
    (:class:`~axon.hdl.params.Pools`, :class:`~axon.hdl.params.Scan`), as
    the 1K boards build it with ``side`` and ``single``
    (:data:`~axon.hdl.params.LEAN`), and its upcoming block. Unset, each is
    that of the configuration the command starts from (:func:`config_from`):
    ``base``, or ``None`` for the board's."""
    def default(value):
        return "the board's" if base is None else value

    parser.add_argument("--pools", choices=[pools.value for pools in Pools], default=None,
                        type=_pools_value(parser.prog),
                        help=f"kind: a pool per piece kind and side; side: one pool a side "
                             f"(the 1K boards' lean layout); spill: a spill pool a side "
                             f"beside the kinds'; walked: one list a side in block RAM, "
                             f"walked an entry a clock (the 1K boards' layout, with --scan "
                             f"single) (default {default(base and base.pools.value)})")
    parser.add_argument("--scan", choices=[scan.value for scan in Scan], default=None,
                        help=f"pair: two words a clock; single: one a clock (the 1K boards' "
                             f"lean scanner) (default {default(base and base.scan.value)})")
    with_it = base and ("with it" if base.upcoming else "without it")
    parser.add_argument("--upcoming", action=argparse.BooleanOptionalAction, default=None,
                        help=f"with the upcoming-repetition block, or without it "
                             f"(--no-upcoming), when the answer's upcoming fields are not "
                             f"available (null); only the pair scan can have it "
                             f"(default {default(with_it)})")
    if base is not None:
        # A board is built with its own configuration, which has none.
        add_backstop(parser, base)


def add_backstop(parser, base=SHIPPED):
    """``--backstop``: a walked list behind the pools (``DetectorConfig.backstop``)."""
    parser.add_argument("--backstop", action=argparse.BooleanOptionalAction, default=None,
                        help=f"a walked list behind the pools answers the queries they "
                             f"overflow, exactly, in more clocks (the upcoming repetition "
                             f"too); the pair scan only "
                             f"(default {'with it' if base.backstop else 'without it'})")


def config_from(options, base=SHIPPED, *, gateware=True, where="--"):
    """The detector configuration the command line asks for: ``base`` with
    each of ``depth``, ``chains``, ``rules``, ``pools``, ``scan`` and
    ``upcoming`` that ``options`` (an argparse namespace) has and gives (not
    ``None``), checked (:meth:`~axon.hdl.params.DetectorConfig.check`, for
    the gateware or the golden model alone). A bad value is a
    :class:`UsageError` that names its option, prefixed by ``where``."""
    changes = {name: getattr(options, name) for name in CONFIG_OPTIONS
               if getattr(options, name, None) is not None}
    try:
        return base.replace(**changes).check(gateware=gateware, where=where)
    except (TypeError, ValueError) as error:
        raise UsageError(option_names(str(error))) from None


def option_names(message: str) -> str:
    """``message``, which names configuration fields as options
    (``--depth``), with the options the command line has for them: the
    move list's ``depth`` is ``--list-depth``."""
    return re.sub(r"--depth\b", "--list-depth", message)


def unpooled_kinds(config):
    """The piece kinds (letters) that ``config``'s chains and pool layout
    leave without a pool: every move of such a piece overflows the scan."""
    pooled = {kind for kind, _ in config.side_pools}
    if None in pooled:
        return ()
    return tuple(PIECE_LETTERS[kind] for kind in POOL_KINDS if kind not in pooled)


def warn_unpooled(command, config, err=None):
    """Say once, on stderr, which kinds the layout leaves without a pool
    (nothing for the golden-only rules, whose one pool takes every kind, nor
    with a backstop, which answers what the pools overflow)."""
    kinds = unpooled_kinds(config) if config.rules.in_gateware and not config.backstop else ()
    if kinds:
        err = sys.stderr if err is None else err
        err.write(f"axon {command}: warning: --chains {config.chains} with --pools "
                  f"{config.pools.value} leaves "
                  f"no pool for {', '.join(kinds)}: every scan that meets a move of "
                  f"{'that kind' if len(kinds) == 1 else 'these kinds'} overflows "
                  f"(--pools {Pools.SIDE.value} gives each side one pool for every kind)\n")


def _reason(error):
    if isinstance(error, FileExistsError) or isinstance(error, NotADirectoryError):
        return "not a directory"
    return error.strerror or str(error)


def check_directory(option, path):
    """Create the directory ``path`` if need be and check it is writable;
    raise :class:`UsageError` naming ``option`` and the path."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot create the directory: "
                         f"{_reason(error)}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: the directory is not writable")


def check_output_file(option, path):
    """Check that the file ``path`` can be written (its directory created if
    need be), before any long work; raise :class:`UsageError` naming ``option``
    and the path. Leaves no file behind that was not there."""
    if os.path.isdir(path):
        raise UsageError(f"{option} {path}: is a directory, not a file")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot create the directory {directory}: "
                         f"{_reason(error)}") from None
    existed = os.path.exists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot write: {_reason(error)}") from None
    if not existed:
        os.remove(path)


def add_pgn_input(parser):
    """The PGN argument and ``--keep-going``, shared with ``axon query``."""
    parser.add_argument("pgn", metavar="GAMES.pgn",
                        help="PGN file, - for standard input (FEN/SetUp headers honoured)")
    parser.add_argument("--keep-going", action="store_true",
                        help="skip a game whose mainline is unreadable, with a warning naming "
                             "it, answer the rest, and exit 2 at the end (default: stop at it)")


def load_input(command, options, err=None):
    """The games of ``options.pgn``, with warnings and skipped games on stderr
    in file order.

    Returns the :class:`~axon.sim.model.games.PgnFile`; raises :class:`GameError`
    for a file that cannot be read at all, or (without ``--keep-going``) for
    a bad game.
    """
    stream = GameStream(command, options, err)
    games = list(stream)
    return PgnFile(games=games, skipped=stream.skipped, total=stream.total)


class GameStream:
    """The games of ``options.pgn``, one at a time as they are read, with each
    warning and skipped game on stderr in file order as it comes.

    Holds no game itself. ``options.status`` becomes 2 at the first skipped
    game, so that a command whose reader has gone (``| head``) still exits 2.
    """

    def __init__(self, command, options, err=None):
        self.command = command
        self.options = options
        self.err = sys.stderr if err is None else err
        self.skipped = []
        self.answered = 0
        self.total = 0

    @property
    def expected(self):
        """The number of games the file seems to hold (its ``[Event`` tags),
        for progress; ``None`` for standard input or a file without them."""
        if not hasattr(self, "_expected"):
            self._expected = expected_games(self.options.pgn)
        return self._expected

    def __iter__(self):
        for kind, item in iter_pgn(self.options.pgn,
                                   keep_going=getattr(self.options, "keep_going", False)):
            if kind == "game":
                self.answered += 1
                self.total = item.number
                yield item
            elif kind == "skipped":
                self.skipped.append(item)
                self.total += 1
                self.options.status = 2
                self.err.write(f"axon {self.command}: warning: {item}; game skipped\n")
            else:
                self.err.write(f"axon {self.command}: warning: {item}\n")
            self.err.flush()


def expected_games(path):
    """How many games the PGN file at ``path`` seems to hold: the lines that
    start an ``[Event`` tag, counted without parsing. ``None`` for standard
    input, a file that cannot be read, or one with no such line."""
    if path == "-":
        return None
    try:
        with open(path, "rb") as file:
            count = sum(1 for line in file if line.lstrip(b"\xef\xbb\xbf").startswith(b"[Event "))
    except OSError:
        return None
    return count or None


def finish_skipped(command, code, found, err=None):
    """The exit status once a ``--keep-going`` run is done: 2 if it skipped a game.

    A disagreement (1, from verify) outranks it; the summary goes to stderr.
    """
    if not found.skipped:
        return code
    err = sys.stderr if err is None else err
    answered = found.answered if hasattr(found, "answered") else len(found.games)
    err.write(f"axon {command}: {answered} of {plural(found.total, 'game')} "
              f"answered, {len(found.skipped)} skipped (see the warnings above)\n")
    return code or 2
