"""``axon demo``: the project's main job, end to end.

1. Every bundled game (``sim/data/*.pgn``) is run through ``axon verify``:
   the golden model, the RTL in Amaranth's simulator and the python-chess
   oracle answer a query after every ply, and must agree on every field and
   on the clock count.
2. The default board's bitstream (iCEBreaker) is built with the YoWASP tools,
   and its utilisation and Fmax are printed.
"""

import argparse
import glob
import os


__all__ = ["register", "bundled_games"]


def bundled_games():
    """Paths of the example PGN files shipped with the package."""
    return sorted(glob.glob(os.path.join(os.path.dirname(__file__), "data", "*.pgn")))


def demo_command(args):
    from ..boards.commands import build_command
    from .cli import main

    failures = 0
    for path in bundled_games():
        print(f"== axon verify {os.path.relpath(path)}", flush=True)
        status = main(["verify", path, "--backend", "sim", "--quiet"])
        failures += status != 0
    if args.no_build:
        return 1 if failures else 0
    print(f"== axon build --board {args.board}", flush=True)
    build = argparse.Namespace(board=args.board, chains=None, depth=None, rules="exact",
                               seed=1, build_dir=None)
    status = build_command(build)
    return 1 if failures or status else 0


def register(subparsers):
    parser = subparsers.add_parser(
        "demo", help="verify every bundled game on the RTL and build the default bitstream",
        description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", default="icebreaker", help="board to build (default icebreaker)")
    parser.add_argument("--no-build", action="store_true", help="only verify the games")
    parser.set_defaults(func=demo_command)
