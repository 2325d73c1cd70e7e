"""``axon query``: the answers of ``axon scan`` from a board (or ``sim://``).

Each game is loaded into the board's move list window by window and queried
after every ply, by the loop every backend shares
(:func:`~axon.sim.backends.session.answer_games`); each row is printed by
``axon scan``'s own code as soon as it is answered, so that
``axon query --port sim:// --jsonl`` prints exactly what
``axon scan --backend pysim --jsonl`` prints.
"""

import itertools
import sys
from urllib.parse import urlsplit, parse_qs, urlencode, urlunsplit

from ..model.games import GameError
from ...hdl.params import COUNT_LIMIT_MAX
from ..backends.link import (SIMULATED_SCHEMES, Link, LinkError, LinkTimeout,
                             ProtocolVersionError, open_transport, simulated_config)
from ..backends.cxxrtl import CxxrtlError
from .args import CONFIG_OPTIONS, GameStream, finish_skipped, option_names, warn_unpooled
from .answers import AnswerWriter, answered_games
from .progress import Progress


__all__ = ["QueryError", "run_query"]


class QueryError(Exception):
    def __init__(self, message, exit_code=2):
        super().__init__(message)
        self.exit_code = exit_code


def _shown(value):
    """An option's value as the command line and a URL spell it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return getattr(value, "value", value)


def _sim_url(port, wanted):
    """``port`` with the configuration options the URL does not set itself."""
    parts = urlsplit(port)
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    for name, value in wanted.items():
        options.setdefault(name, str(_shown(value)))
    return urlunsplit(parts._replace(query=urlencode(options)))


def _simulated(port, wanted):
    """The URL of the board to simulate: ``port`` with what the options add
    to it. The URL is checked alone first, then with the options."""
    try:
        simulated_config(port)
    except (TypeError, ValueError) as error:
        raise QueryError(f"--port {port}: {error}") from None
    try:
        simulated_config(port, where="--", **wanted)
    except (TypeError, ValueError) as error:
        raise QueryError(option_names(str(error))) from None
    return _sim_url(port, wanted)


def _check_board(port, config, wanted):
    """Refuse a board whose configuration is not what the options ask for."""
    for name, value in wanted.items():
        actual = getattr(config, name)
        if _shown(value) != _shown(actual):
            option = (option_names(f"--{name}") if name != "upcoming" else
                      "--upcoming" if value else "--no-upcoming")
            argument = "" if name == "upcoming" else f" {_shown(value)}"
            raise QueryError(f"the board on {port} has {name} {_shown(actual)}, not "
                             f"{_shown(value)}; rebuild it with axon build {option}{argument}")


def _say(line):
    print(f"axon query: {line}", file=sys.stderr)


def run_query(args, out=None):
    out = sys.stdout if out is None else out
    if not 0 <= args.count_limit <= COUNT_LIMIT_MAX:
        raise QueryError(f"--count-limit must be in 0..{COUNT_LIMIT_MAX}, not {args.count_limit}")
    wanted = {name: getattr(args, name) for name in CONFIG_OPTIONS
              if getattr(args, name, None) is not None}
    # The first game is read before the port is opened, so that a file that
    # cannot be read, or a bad first game, is refused before any board is
    # touched; a later bad game ends the run after the rows before it, as
    # in `axon scan`.
    found = GameStream("query", args)
    games = iter(found)
    try:
        first = list(itertools.islice(games, 1))
    except GameError as error:
        raise QueryError(str(error)) from None
    games = itertools.chain(first, games)
    port = args.port
    if urlsplit(port).scheme in SIMULATED_SCHEMES:
        port = _simulated(port, wanted)
    try:
        transport = open_transport(port, log=None if args.quiet else _say)
    except (TypeError, ValueError) as error:
        raise QueryError(f"--port {args.port}: {error}") from None
    except (LinkTimeout, CxxrtlError) as error:
        raise QueryError(str(error), exit_code=1) from None

    with transport:
        link = Link(transport)
        writer = AnswerWriter(out, args.jsonl, count_limit=args.count_limit)
        try:
            link.identify()
            _check_board(args.port, link.config, wanted)
            warn_unpooled("query", link.config)
            progress = Progress(None, enabled=not args.quiet)
            for game, rows in answered_games(games, link.session(), args, progress):
                writer.game(game, rows)
                progress.done()
        except GameError as error:
            raise QueryError(str(error)) from None
        except (LinkError, LinkTimeout, CxxrtlError, ProtocolVersionError) as error:
            raise QueryError(f"{args.port}: {error}", exit_code=1) from None
    writer.finish()
    return finish_skipped("query", 0, found)
