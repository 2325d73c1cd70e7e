"""The ``axon`` command line: scan, verify and explain PGN games, and the
rest of the project's commands.

Each command registers its own parser in its module (``register``); this
module only lists the modules, in the order ``axon --help`` shows them.
What the game commands share, and how bad input ends them, is in
:mod:`axon.sim.cli.game_commands`.
"""

import argparse
import errno
import gc
import os
import signal
import sys

from .args import EXIT_INTERRUPTED
from . import (bench, board, demo, explain, export, perft, prove, report, scan, soak, suite,
               uci, verify)
from ...hdl.version import VERSION


__all__ = ["main", "build_parser", "COMMAND_MODULES"]

_DESCRIPTION = """\
Draw-by-repetition detection with the Axon algorithm (Vučković and Vidanović,
2007) on the games of a PGN file: every ply of every game is one query of the
detector, answered by the golden model or by the gateware in simulation.
"""

# The modules that register the commands, in the order of ``axon --help``:
# the game commands, the main job, the board commands (build, program,
# query), the long runs, the search (with its suites), the UCI engine and
# the gateware's perft.
COMMAND_MODULES = (scan, verify, explain, report, demo, board, bench, soak, prove, export,
                   suite, uci, perft)


def build_parser():
    parser = argparse.ArgumentParser(prog="axon", description=_DESCRIPTION)
    # Printed by main, not by argparse's version action, which drops a
    # failed write (`axon --version >/dev/full` would say nothing and exit 0).
    parser.add_argument("--version", action="store_true",
                        help="print the interface's version (CHANGELOG.md) and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(commands)
    return parser


def _run(options):
    """Run the command ``options`` holds (its module's ``register`` set
    ``func``); its exit status."""
    return options.func(options)


# A write that failed for want of room: the disk or the quota is full, or the
# file is too large.
OUTPUT_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _ignore_unraisable(unraisable):
    pass


def _reopen_closed_streams(err_name="axon"):
    """Give a closed standard output or error (``axon scan FILE >&-``) a
    null device to write to, so that a command runs as it would with its
    output thrown away; say so once on standard error, if that is open.

    Python leaves ``sys.stdout`` as ``None`` when file descriptor 1 was
    closed at start; a write to it would end in an ``AttributeError``.
    """
    closed = []
    for name, fd in (("stdout", 1), ("stderr", 2)):
        if getattr(sys, name) is None:
            devnull = os.open(os.devnull, os.O_WRONLY)
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
            setattr(sys, name, open(fd, "w", closefd=False))
            closed.append(name)
    if "stdout" in closed and "stderr" not in closed:
        print(f"{err_name}: warning: standard output is closed; what the command prints "
              f"there is discarded", file=sys.stderr)


def _name(options):
    """``axon COMMAND`` as messages name it, or ``axon`` before a command was read."""
    command = getattr(options, "command", None)
    return f"axon {command}" if command else "axon"


def main(argv=None, *, reopen_closed_streams=True):
    """Run the command line; return the exit status.

    ``reopen_closed_streams=False`` leaves a closed standard output as
    Python found it (``None``), as a check of the null device needs."""
    if reopen_closed_streams:
        _reopen_closed_streams()
    parser = build_parser()
    options = None
    code = None
    quiet_collection = None
    try:
        try:
            options = parser.parse_args(argv)
        except SystemExit as exit:
            # --help, or a usage error argparse has printed.
            return exit.code
        if options.version:
            print(f"axon {VERSION}")
            code = 0
        elif options.command is None:
            parser.print_help(sys.stderr)
            return 2
        else:
            code = _run(options)
        # Flush here, not at exit, so that a reader gone by now is caught below.
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        # Ctrl-C: whatever the command had to show it has shown on its way out
        # (a long command catches the interrupt where it can say what it did).
        # A second Ctrl-C during the interpreter's clean-up must not print a
        # traceback either.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # The interrupt may have struck inside a constructor: the half-made
        # object then fails in its destructor as it is collected (Amaranth's
        # unused-elaboratable check reads an attribute never set), which
        # Python reports with a traceback. Nothing it could say matters now:
        # such reports are dropped until the interrupted work is collected,
        # below, as this handler lets go of the interrupt's traceback.
        quiet_collection = sys.unraisablehook
        sys.unraisablehook = _ignore_unraisable
        print(f"{_name(options)}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `axon scan ... | head`: the reader has gone, nothing left to say.
        # Point stdout at /dev/null so that the interpreter's final flush
        # does not fail again. The status stays what the command made of
        # its work so far: a failed build or a skipped game is not hidden.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return code if code is not None else getattr(options, "status", 0)
    except OSError as error:
        # `axon scan ... >/dev/full`: the output cannot be written. Say so in
        # one line, and point stdout at /dev/null so that the interpreter's
        # final flush of what is left does not fail again.
        if error.errno not in OUTPUT_FULL:
            raise
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        print(f"{_name(options)}: error: cannot write the output: "
              f"{os.strerror(error.errno)}", file=sys.stderr)
        return 1
    finally:
        if quiet_collection is not None:
            gc.collect()
            sys.unraisablehook = quiet_collection

if __name__ == "__main__":
    sys.exit(main())
