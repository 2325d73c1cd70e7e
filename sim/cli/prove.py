"""``axon prove``: the formal proofs."""

import os
import sys

from ..verify.formal import PROPERTIES, ToolMissing, find_sby, properties_markdown, run_property
from .args import int_at_least


__all__ = ["register"]


def _property_name(name):
    """A property's name for ``--only``; the walked list's properties are
    still taken by their names before 0.4 (``capacity-serial``), with a
    warning, for one minor version."""
    renamed = name.replace("-serial", "-walked")
    if renamed != name and renamed in {prop.name for prop in PROPERTIES}:
        print(f"axon prove: warning: --only {name} is deprecated and will be removed: "
              f"give --only {renamed}", file=sys.stderr)
        return renamed
    return name


def register(subparsers):
    """Add ``prove`` to an argparse subparsers object."""
    parser = subparsers.add_parser(
        "prove", help="run the formal proofs (SymbiYosys, z3 and yices)",
        description="Prove the detector's and the host link's safety properties with "
                    "SymbiYosys's smtbmc, with z3 and yices (k-induction where it "
                    "converges, bounded model checking from reset elsewhere). Prints one "
                    "line per property: its "
                    "name, 'proven k=N' (k-induction of length N), 'bounded N' (N clocks "
                    "from power-up) or 'FAILED', SymbiYosys's time, and what it says. "
                    "Exit status: 0 if every property holds, 1 if any fails, 2 if the "
                    "tools are missing.")
    parser.add_argument("--bmc-depth", type=int_at_least(1), default=None, metavar="CLOCKS",
                        help="clocks for every property instead of each one's own "
                             "(bounded checks: clocks from reset; proofs: induction length)")
    parser.add_argument("--only", action="append", metavar="NAME",
                        choices=[prop.name for prop in PROPERTIES], type=_property_name,
                        help="run only this property (repeatable)")
    parser.add_argument("--list", action="store_true",
                        help="print the table of properties (name, mode, length, what it "
                             "says) as Markdown and prove nothing")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep the SymbiYosys work files (and traces) in DIR")
    parser.set_defaults(func=main_prove)


def main_prove(args):
    """Run ``axon prove`` with parsed ``args``; return the exit status."""
    if args.list:
        sys.stdout.write(properties_markdown())
        return 0
    try:
        find_sby()
    except ToolMissing as error:
        print(f"axon prove: error: {error}", file=sys.stderr)
        return 2
    failed = 0
    width = max(len(prop.name) for prop in PROPERTIES)
    for prop in PROPERTIES:
        if args.only and prop.name not in args.only:
            continue
        work_dir = None
        if args.keep:
            work_dir = os.path.join(args.keep, prop.name)
            os.makedirs(work_dir, exist_ok=True)
        # Progress on stderr: one property can take minutes.
        print(f"prove: {prop.name} ...", file=sys.stderr, flush=True)
        outcome = run_property(prop, bmc_depth=args.bmc_depth, work_dir=work_dir)
        print(f"{prop.name:<{width}}  {outcome.figure:<11}  {outcome.seconds:6.1f} s  "
              f"{prop.description}", flush=True)
        if not outcome.passed:
            failed += 1
            tail = "\n".join(outcome.log.strip().splitlines()[-12:])
            print(f"  --- {prop.name}: last lines of the SymbiYosys log ---\n{tail}",
                  file=sys.stderr)
    return 1 if failed else 0
