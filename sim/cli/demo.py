"""``axon demo``: the project's main job, end to end."""

import argparse
import os
import sys

from ...boards.platforms import BOARDS, DEFAULT_BOARD
from ..model.games import bundled_files
from . import board, verify
from .args import UsageError


__all__ = ["register"]

_DEMO_DESCRIPTION = """\
The project's main job, end to end: every bundled game (sim/data/*.pgn), or
the PGN files given, is run through axon verify (golden model, RTL in
Amaranth's simulator and the python-chess oracle must agree on every field
and on the clock count), then the board's bitstream is built with the YoWASP
tools, as axon build --board BOARD builds it.
"""


def register(commands):
    """``axon demo``."""
    parser = commands.add_parser(
        "demo", help="verify every bundled game on the RTL and build the default bitstream",
        description=_DEMO_DESCRIPTION)
    parser.add_argument("pgn", nargs="*", metavar="GAMES.pgn",
                        help="the PGN files to verify (default: every bundled one)")
    parser.add_argument("--board", default=DEFAULT_BOARD, choices=list(BOARDS),
                        help=f"board to build: {', '.join(BOARDS)} (default {DEFAULT_BOARD})")
    parser.add_argument("--no-build", action="store_true", help="only verify the games")
    parser.set_defaults(func=demo_command)


def _parse(module, argv):
    """``argv`` (a command and its arguments) as ``axon`` parses it, for
    the command ``module`` registers."""
    parser = argparse.ArgumentParser(prog="axon")
    module.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def demo_command(args):
    """``axon demo``: the exit status."""
    # The build's own parser gives every option its default, so the demo
    # builds what `axon build --board BOARD` builds; its folder is checked
    # before the verify's minutes, as the build itself checks it.
    argv = ["build", "--board", args.board]
    build = _parse(board, argv)
    if not args.no_build:
        try:
            board.check_build_dir(build)
        except UsageError as error:
            print(f"axon demo: error: {error}", file=sys.stderr)
            return 2
    failures = 0
    for path in args.pgn or bundled_files():
        print(f"== axon verify {os.path.relpath(path)}", flush=True)
        checked = _parse(verify, ["verify", path, "--backend", "pysim", "--quiet"])
        failures += checked.func(checked) != 0
    if args.no_build:
        return 1 if failures else 0
    print(f"== axon {' '.join(argv)}", flush=True)
    status = build.func(build)
    return 1 if failures or status else 0
