"""``axon perft``: count the legal move tree of a position, in the gateware."""

import argparse
import json
import sys

from ..backends.cxxrtl import CxxrtlError
from ..backends.link import Link, LinkError, LinkTimeout, open_transport
from ..backends.perft_cxxrtl import PerftCxxrtl
from ..backends.perft_pysim import PerftPysim
from ..search.movegen import Position
from ..search.perft import PerftInputError, check_depth, parse_position, perft
from ...hdl.search.rules import MAX_DEPTH
from .args import EXIT_INTERRUPTED
from .progress import Progress


__all__ = ["register", "perft_command", "PERFT_BACKENDS"]

PERFT_BACKENDS = ("golden", "pysim", "cxxrtl")

_DESCRIPTION = """\
Count the leaf nodes of the legal move tree of --fen to --depth plies, as
engines' `go perft` does: one line per root move (`e2e4: 20`) in the move
generator's order, then `Nodes searched: N`. With the cxxrtl or pysim
backend the whole count runs in the gateware (axon.hdl.search.Perft): it
generates, makes, tests, recurses and unmakes every move itself; golden is
its Python model. With --port the count runs in the perft core of a board
(built with axon build --perft, or simulated: sim://?perft=yes,
cxxrtl://?perft=yes): the host sends the position and the depth, the board
answers each root move's count and the total.
"""

_EPILOG = """\
Exit status: 0, 1 if the CXXRTL model cannot be built or run or the board
does not answer, 2 on a bad FEN, depth or --port, 130 if interrupted.
"""


def register(commands):
    """Add ``perft`` to an argparse subparsers object."""
    parser = commands.add_parser("perft", help="count the legal move tree in the gateware",
                                 description=_DESCRIPTION, epilog=_EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fen", required=True, help="the root position")
    # Read as text and checked by the command, so that a bad depth is one line.
    parser.add_argument("--depth", required=True, metavar="N",
                        help=f"plies, 1..{MAX_DEPTH}")
    # Unset (None) is cxxrtl, so that a --backend beside --port is refused.
    parser.add_argument("--backend", choices=PERFT_BACKENDS, default=None,
                        help="the gateware compiled with CXXRTL (default), in Amaranth's "
                             "simulator (pysim, slow), or the golden Python model")
    parser.add_argument("--port", metavar="URL",
                        help="the perft core of a board over the link instead: a serial "
                             "port, sim://?perft=yes or cxxrtl://?perft=yes")
    parser.add_argument("--json", action="store_true",
                        help='print {"nodes": N, "moves": {"e2e4": 20, ...}}')
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=perft_command)


def _parse(options):
    try:
        depth = int(options.depth)
    except ValueError:
        raise PerftInputError(f"--depth must be an integer, not {options.depth!r}") from None
    return parse_position(options.fen), check_depth(depth)


def perft_command(options, out=None):
    """Run ``axon perft`` with parsed ``options``; return the exit status."""
    out = sys.stdout if out is None else out
    try:
        board, depth = _parse(options)
    except PerftInputError as error:
        print(f"axon perft: error: {error}", file=sys.stderr)
        return 2
    if options.backend is not None and options.port is not None:
        print("axon perft: error: --backend and --port each name a perft: give one",
              file=sys.stderr)
        return 2
    progress = Progress(None, enabled=not options.quiet, command="axon perft")
    try:
        if options.port is not None:
            result = _on_board(options.port, board, depth, progress)
        elif options.backend == "golden":
            result = perft(board, depth)
        elif options.backend == "pysim":
            result = PerftPysim().run(board, depth).result
        else:
            result = PerftCxxrtl(log=progress.say).run(board, depth).result
    except PerftInputError as error:
        print(f"axon perft: error: {error}", file=sys.stderr)
        return 2
    except (CxxrtlError, LinkError, LinkTimeout) as error:
        first = str(error).splitlines()[0]
        print(f"axon perft: error: {first}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("axon perft: interrupted; nothing counted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        progress.done()
    if options.json:
        json.dump({"nodes": result.nodes, "moves": result.divide()}, out)
        out.write("\n")
    else:
        for move, nodes in result.moves:
            out.write(f"{move}: {nodes}\n")
        out.write(f"\nNodes searched: {result.nodes}\n")
    return 0


def _on_board(port, board, depth, progress):
    """The count of the perft core of the board on ``port``."""
    try:
        transport = open_transport(port, log=progress.say)
    except (TypeError, ValueError) as error:
        raise PerftInputError(f"--port {port}: {error}") from None
    link = Link(transport)
    try:
        try:
            cores = link.perft_cores
        except ValueError as error:         # a board of another protocol version
            raise PerftInputError(f"--port {port}: {error}") from None
        if not cores:
            raise PerftInputError(f"--port {port}: the board has no perft core; build one "
                                  f"with axon build --perft, or simulate one with ?perft=yes")
        return link.perft(Position.from_board(board), depth)
    finally:
        link.close()
