"""``axon export``: the detector as a standalone Verilog or RTLIL module."""

import os
import sys

from ..backends.export import export
from ...hdl.params import CORE, SHIPPED
from .args import (SIM_RULES, UsageError, add_layout, check_output_file, config_from,
                   int_at_least, warn_unpooled)


__all__ = ["register"]


def register(subparsers):
    """Add ``export`` to an argparse subparsers object."""
    parser = subparsers.add_parser(
        "export", help="write the detector as a standalone Verilog or RTLIL module",
        description="Write the detector as one standalone module (axon_detector) for "
                    "another toolchain. With --verilog, a header of localparams "
                    "(axon_detector_params.vh: field offsets of the result and the move "
                    "word, stop codes, latency) is written beside it.")
    formats = parser.add_mutually_exclusive_group()
    formats.add_argument("--verilog", dest="format", action="store_const", const="verilog",
                         help="Verilog-2005 (the default)")
    formats.add_argument("--rtlil", dest="format", action="store_const", const="rtlil",
                         help="Yosys RTLIL")
    parser.add_argument("--chains", type=int_at_least(1), default=SHIPPED.chains, metavar="N",
                        help=f"chain-list slots, even, half per side (default {SHIPPED.chains})")
    parser.add_argument("--depth", type=int_at_least(1), default=SHIPPED.depth, metavar="D",
                        help=f"move-list entries, even (default {SHIPPED.depth})")
    parser.add_argument("--rules", choices=SIM_RULES, default=SHIPPED.rules.value,
                        help=f"chain rules (default {SHIPPED.rules.value})")
    # The layout; --upcoming adds the upcoming-repetition block
    # (upcoming__occupancy in, upcoming__answer out) to the repetition core.
    add_layout(parser, CORE)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the file to write")
    parser.set_defaults(func=export_command, format="verilog")


def export_command(args):
    try:
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
