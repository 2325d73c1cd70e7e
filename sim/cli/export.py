"""``axon export``: the detector as a standalone Verilog or RTLIL module, or as an IP package."""

import os
import sys

from ..backends.export import export
from ..ip.package import vlnv, write_package
from ..model.games import GameError, load_games
from ...hdl.params import CORE, SHIPPED
from .args import (SIM_RULES, UsageError, add_layout, add_list_depth, check_directory,
                   check_output_file, config_from, int_at_least, warn_unpooled)


__all__ = ["register"]


def register(subparsers):
    """Add ``export`` to an argparse subparsers object."""
    parser = subparsers.add_parser(
        "export", help="write the detector as a standalone Verilog or RTLIL module",
        description="Write the detector as one standalone module (axon_detector) for "
                    "another toolchain. With --verilog, a header of localparams "
                    "(axon_detector_params.vh: field offsets of the result and the move "
                    "word, stop codes, latency) is written beside it. With --ip, an IP "
                    "package: the Verilog and its header, a FuseSoC core, a Verilog "
                    "testbench and cocotb tests with the golden model's answers.")
    formats = parser.add_mutually_exclusive_group()
    formats.add_argument("--verilog", dest="format", action="store_const", const="verilog",
                         help="Verilog-2005 (the default)")
    formats.add_argument("--rtlil", dest="format", action="store_const", const="rtlil",
                         help="Yosys RTLIL")
    formats.add_argument("--ip", metavar="DIR",
                         help="an IP package in DIR: the Verilog, its header, a FuseSoC "
                              "core (axon:repetition:detector), a Verilog testbench and "
                              "cocotb tests (DIR/README.md says how to run them)")
    parser.add_argument("--expect", action="append", default=[], metavar="GAMES.pgn",
                        help="with --ip: add these games to the tests' expectations, a "
                             "query after every ply (repeat for more files)")
    parser.add_argument("--chains", type=int_at_least(1), default=SHIPPED.chains, metavar="N",
                        help=f"chain-list slots, even, half per side (default {SHIPPED.chains})")
    add_list_depth(parser, default=SHIPPED.depth, minimum=1,
                   help=f"move-list entries, even (default {SHIPPED.depth})")
    parser.add_argument("--rules", choices=SIM_RULES, default=SHIPPED.rules.value,
                        help=f"chain rules (default {SHIPPED.rules.value})")
    # The layout; --upcoming adds the upcoming-repetition block
    # (upcoming__occupancy in, upcoming__answer out) to the repetition core.
    add_layout(parser, CORE)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="the file to write (not with --ip)")
    parser.set_defaults(func=export_command, format="verilog")


def export_command(args):
    if args.ip is not None:
        return _ip_command(args)
    try:
        if args.output is None:
            raise UsageError("-o FILE is required (or --ip DIR for a package)")
        if args.expect:
            raise UsageError("--expect goes with --ip")
        check_output_file("-o", args.output)
        config = config_from(args, base=CORE)
        written = export(args.output, args.format, config=config)
    except UsageError as error:
        print(f"axon export: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"axon export: error: {error.filename or args.output}: cannot write: "
              f"{error.strerror or error}", file=sys.stderr)
        return 2
    except (TypeError, ValueError) as error:
        print(f"axon export: error: {error}", file=sys.stderr)
        return 2
    warn_unpooled("export", config)
    for path in written:
        # Name every file as the output was named: relative when -o was.
        shown = path if os.path.isabs(args.output) else os.path.relpath(path)
        print(f"wrote {shown}")
    return 0


def _ip_command(args):
    try:
        if args.output is not None:
            raise UsageError("-o goes with --verilog or --rtlil; --ip writes a directory")
        config = config_from(args, base=CORE)
        # Every game is read before anything is written: a bad file leaves no
        # half-written package.
        user_games = [(os.path.basename(path), load_games(path)) for path in args.expect]
        check_directory("--ip", args.ip)
        written = write_package(args.ip, config, user_games=user_games)
    except (UsageError, GameError) as error:
        print(f"axon export: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"axon export: error: {error.filename or args.ip}: cannot write: "
              f"{error.strerror or error}", file=sys.stderr)
        return 2
    warn_unpooled("export", config)
    for name in written:
        print(f"wrote {os.path.join(args.ip, name)}")
    print(f"core {vlnv()}: see {os.path.join(args.ip, 'README.md')}")
    return 0
