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
from ...boards.host import Board, LinkError, LinkTimeout, open_transport
from ...boards.platforms import BOARDS, DEFAULT_BOARD, get_board
from ..backends.session import answers
from .args import SIM_RULES, UsageError, check_layout, finish_skipped, load_input, warn_unpooled
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


def _layout(url):
    """``(chains, pools)`` of a checked ``sim://`` URL."""
    parts = urlsplit(url)
    spec = get_board(parts.netloc or DEFAULT_BOARD)
    chains = parse_qs(parts.query).get("chains", [spec.chains])[-1]
    return int(chains), spec.pools


def _check_sim(url, where=""):
    """The layout a ``sim://`` URL asks for, checked as ``axon scan`` checks its
    options; ``where`` starts the message."""
    parts = urlsplit(url)
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    if parts.netloc and parts.netloc not in BOARDS:
        raise UsageError(f"{where}unknown board {parts.netloc!r}; choose from "
                         f"{', '.join(BOARDS)}")
    spec = get_board(parts.netloc or DEFAULT_BOARD)
    numbers = {}
    for key in ("chains", "depth"):
        text = options.get(key, str(getattr(spec, key)))
        try:
            numbers[key] = int(text)
        except ValueError:
            raise UsageError(f"{where}{key} must be an integer, not {text!r}") from None
    rules = options.get("rules", "exact")
    if rules not in SIM_RULES:
        raise UsageError(f"{where}rules must be one of {', '.join(SIM_RULES)}, not {rules!r}")
    try:
        check_layout(numbers["chains"], rules, numbers["depth"], where="--" if where == "--"
                     else "")
    except UsageError as error:
        raise UsageError(f"{where if where != '--' else ''}{error}") from None


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
    simulated = port.startswith("sim:")
    if simulated:
        # The URL first, then what --chains, --rules and --depth add to it.
        for url, where in ((port, f"--port {port}: "), (None, "--")):
            url = url or _sim_url(port, chains=args.chains, rules=args.rules,
                                  depth=args.depth)
            try:
                _check_sim(url, where)
            except UsageError as error:
                raise QueryError(str(error)) from None
        port = url
        warn_unpooled("query", *_layout(port))
    try:
        transport = open_transport(port)
    except (TypeError, ValueError) as error:
        raise QueryError(str(error)) from None
    except LinkTimeout as error:
        raise QueryError(str(error), exit_code=1) from None

    with transport:
        board = Board(transport)
        try:
            identity = board.identify()
            for name, wanted, actual in (("chains", args.chains, identity.chains),
                                         ("rules", args.rules, identity.rules),
                                         ("depth", args.depth, identity.depth)):
                if wanted is not None and wanted != actual:
                    raise QueryError(f"the board on {args.port} has {name} {actual}, "
                                     f"not {wanted}; rebuild it with axon build --{name} "
                                     f"{wanted}")
            progress = Progress(len(games), enabled=not args.quiet)
            found_answers = answers(games, board, count_limit=args.count_limit,
                                    root=args.root, progress=progress)
            progress.done()
        except (LinkError, LinkTimeout) as error:
            raise QueryError(f"{args.port}: {error}", exit_code=1) from None
    # Formatting belongs to `axon scan`: the same function prints both.
    write_answers(games, found_answers, out, args.jsonl, count_limit=args.count_limit)
    return finish_skipped("query", 0, found)
