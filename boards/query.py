"""``axon query``: the answers of ``axon scan`` from a board (or ``sim://``).

Each game is loaded into the board's move list window by window, by the same
rule as the sim backend (:mod:`axon.sim.history`), and queried after every
ply; the rows are formatted by ``axon scan``'s own code, so that
``axon query --port sim:// --jsonl`` prints exactly what
``axon scan --backend sim --jsonl`` prints.
"""

import sys
from urllib.parse import urlsplit, parse_qs, urlencode, urlunsplit

from ..sim.games import GameError
from ..sim.history import is_window_limited, window_segments
from .host import Board, LinkError, LinkTimeout, open_transport


__all__ = ["QueryError", "board_answers", "run_query"]

COUNT_LIMIT_MAX = 15


class QueryError(Exception):
    def __init__(self, message, exit_code=2):
        super().__init__(message)
        self.exit_code = exit_code


def board_answers(games, board, *, count_limit, progress=None):
    """One list of ``PlyAnswer`` per game (as :func:`axon.sim.commands.rtl_answers`)."""
    from ..sim.commands import PlyAnswer
    depth = board.identity.depth
    answers = []
    for position, game in enumerate(games):
        game_answers = []
        occupancies = game.occupancies()
        for base, words, plies in window_segments(game.words, depth):
            board.write_moves(0, words)
            for window in plies:
                result, cycles = board.query(window.top, count_limit, occupancies[window.ply])
                game_answers.append(PlyAnswer(game, window, result, cycles,
                                              is_window_limited(result, game.words, base)))
                if progress:
                    progress.update(position, window.ply + 1)
        answers.append(game_answers)
    return answers


def _sim_url(port, **wanted):
    """``port`` with the --chains/--rules/--depth the URL does not set itself."""
    parts = urlsplit(port)
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    for name, value in wanted.items():
        if value is not None:
            options.setdefault(name, str(value))
    return urlunsplit(parts._replace(query=urlencode(options)))


def run_query(args, out=None):
    out = sys.stdout if out is None else out
    if not 0 <= args.count_limit <= COUNT_LIMIT_MAX:
        raise QueryError(f"--count-limit must be in 0..{COUNT_LIMIT_MAX}, not {args.count_limit}")
    from ..sim.cli import finish_skipped, load_input
    from ..sim.commands import Progress, write_answers
    try:
        found = load_input("query", args)
    except GameError as error:
        raise QueryError(str(error)) from None
    games = found.games

    port = args.port
    simulated = port.startswith("sim:")
    if simulated:
        port = _sim_url(port, chains=args.chains, rules=args.rules, depth=args.depth)
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
            answers = board_answers(games, board, count_limit=args.count_limit,
                                    progress=progress)
            progress.done()
        except (LinkError, LinkTimeout) as error:
            raise QueryError(f"{args.port}: {error}", exit_code=1) from None
    # Formatting belongs to `axon scan`: the same function prints both.
    write_answers(games, answers, out, args.jsonl, count_limit=args.count_limit)
    return finish_skipped("query", 0, found)
