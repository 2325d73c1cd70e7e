"""``axon query``: the answers of ``axon scan`` from a board (or ``sim://``).

Each game is loaded into the board's move list window by window, by the same
rule as the sim backend (:mod:`axon.sim.model.history`), and queried after every
ply; the rows are formatted by ``axon scan``'s own code, so that
``axon query --port sim:// --jsonl`` prints exactly what
``axon scan --backend sim --jsonl`` prints.
"""

import sys
from urllib.parse import urlsplit, parse_qs, urlencode, urlunsplit

from ..model.games import GameError
from ...hdl.params import COUNT_LIMIT_MAX
from ...boards.host import (SIMULATED_SCHEMES, Board, LinkError, LinkTimeout, open_transport,
                            sim_options)
from ...boards.platforms import BOARDS
from ..backends.cxxrtl import CxxrtlError
from ..backends.session import answers
from .args import UsageError, finish_skipped, load_input, warn_unpooled
from .simulate import Progress, write_answers


__all__ = ["QueryError", "run_query"]


class QueryError(Exception):
    def __init__(self, message, exit_code=2):
        super().__init__(message)
        self.exit_code = exit_code


def _sim_url(port, **wanted):
    """``port`` with the --chains/--rules/--depth the URL does not set itself."""
    parts = urlsplit(port)
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    for name, value in wanted.items():
        if value is not None:
            options.setdefault(name, str(value))
    return urlunsplit(parts._replace(query=urlencode(options)))


def _sim_config(url, where=""):
    """The detector configuration a ``sim://`` (or ``cxxrtl://``) URL asks
    for, checked as ``axon scan`` checks its options; ``where`` starts the
    message."""
    parts = urlsplit(url)
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    if parts.netloc and parts.netloc not in BOARDS:
        raise UsageError(f"{where}unknown board {parts.netloc!r}; choose from "
                         f"{', '.join(BOARDS)}")
    prefix, field = ("", "--") if where == "--" else (where, "")
    try:
        config, _ = sim_options(parts.netloc, options, scheme=parts.scheme)
        return config.check(where=field)
    except (TypeError, ValueError) as error:
        raise UsageError(f"{prefix}{error}") from None


def _say(line):
    print(f"axon query: {line}", file=sys.stderr)


def run_query(args, out=None):
    out = sys.stdout if out is None else out
    if not 0 <= args.count_limit <= COUNT_LIMIT_MAX:
        raise QueryError(f"--count-limit must be in 0..{COUNT_LIMIT_MAX}, not {args.count_limit}")
    try:
        found = load_input("query", args)
    except GameError as error:
        raise QueryError(str(error)) from None
    games = found.games

    port = args.port
    simulated = urlsplit(port).scheme in SIMULATED_SCHEMES
    if simulated:
        # The URL first, then what --chains, --rules and --depth add to it.
        for url, where in ((port, f"--port {port}: "), (None, "--")):
            url = url or _sim_url(port, chains=args.chains, rules=args.rules,
                                  depth=args.depth)
            try:
                config = _sim_config(url, where)
            except UsageError as error:
                raise QueryError(str(error)) from None
        port = url
        warn_unpooled("query", config)
    try:
        transport = open_transport(port, log=None if args.quiet else _say)
    except (TypeError, ValueError) as error:
        raise QueryError(str(error)) from None
    except (LinkTimeout, CxxrtlError) as error:
        raise QueryError(str(error), exit_code=1) from None

    with transport:
        board = Board(transport)
        try:
            identity = board.identify()
            # A rule set this host knows is shown by its name.
            rules = getattr(identity.rules, "value", identity.rules)
            for name, wanted, actual in (("chains", args.chains, identity.chains),
                                         ("rules", args.rules, rules),
                                         ("depth", args.depth, identity.depth)):
                if wanted is not None and wanted != actual:
                    raise QueryError(f"the board on {args.port} has {name} {actual}, "
                                     f"not {wanted}; rebuild it with axon build --{name} "
                                     f"{wanted}")
            progress = Progress(len(games), enabled=not args.quiet)
            found_answers = answers(games, board, count_limit=args.count_limit,
                                    root=args.root, progress=progress)
            progress.done()
        except (LinkError, LinkTimeout, CxxrtlError) as error:
            raise QueryError(f"{args.port}: {error}", exit_code=1) from None
    # Formatting belongs to `axon scan`: the same function prints both.
    write_answers(games, found_answers, out, args.jsonl, count_limit=args.count_limit)
    return finish_skipped("query", 0, found)
