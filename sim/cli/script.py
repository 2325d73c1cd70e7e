"""The ``axon`` console script.

Loading the command line imports Amaranth, python-chess and every command
(a second or more); a Ctrl-C then must end the command as it does once it
runs, with exit status 130 and no traceback, so the command line is
imported here, where the interrupt can be caught.
"""

import sys
from typing import List, Optional


__all__ = ["main"]

# What a shell reports for a command stopped by SIGINT (128 + 2), as
# axon.sim.cli.args.EXIT_INTERRUPTED, which cannot be imported before the rest.
_EXIT_INTERRUPTED = 130


def main(argv: Optional[List[str]] = None) -> int:
    """Load the command line and run it (:func:`axon.sim.cli.main.main`)."""
    try:
        from .main import main as run
    except KeyboardInterrupt:
        print("axon: interrupted", file=sys.stderr)
        return _EXIT_INTERRUPTED
    return run(argv)
