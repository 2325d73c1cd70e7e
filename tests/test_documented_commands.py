"""Every ``axon`` command the README and ``docs/*.md`` print runs as printed.

The commands are taken from the pages themselves: each line of a code block
that starts with ``axon`` or ``$ axon`` (a ``$`` block's other lines are what
the command before them prints on stderr, exactly), and each ``axon ...`` in
backquotes in the text that is a whole command (more than the command's
name, no placeholder such as ``GAMES.pgn``, ``FILE`` or ``...``). Synopsis
lines (``[--option]``) are the command-line page's, which
``tests/test_readme.py`` checks against ``--help``; the
``<!-- output of: ... -->`` samples it runs through the installed script too.

Each command runs through the installed console script, with ``bash -c`` as
a user's shell would run it, in a scratch directory that holds the
checkout's ``sim/`` and a copy of ``docs/``. How each is run:

* ``run`` (the default): it must exit 0 within two minutes.
* ``start``: a long command (a build, a soak, a deep search) runs only with
  ``--runslow``: those that end within minutes are run to the end, the
  others (hours) are started, let run a few seconds and stopped with Ctrl-C,
  all at once; each must have started cleanly (nothing on stderr that says
  error, no traceback) and stop with exit status 130 (or have finished with
  0). The default run covers the search through a link by the command line
  in ``tests/test_search.py``, in seconds.
* ``board``: it needs a board on a serial port or a programmer; here it must
  fail in one line that names what is missing, never with a traceback.
"""

import contextlib
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from axon.sim.cli.main import build_parser


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "documented commands, as printed"


ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# A word that stands for something the reader supplies.
_PLACEHOLDER = re.compile(r"^(?:[A-Z][A-Z0-9_]*(?:\.\w+)?|\.\.\.|…|.*\|.*)$")
_SYNOPSIS = re.compile(r"\[-|\[[A-Z]")

# How the long or board-bound commands are run (see the module's text); a
# command not named here must finish with exit status 0. "start" entries
# say whether --runslow runs them to the end.
START, START_ALWAYS, BOARD = "start", "start-always", "board"
HOW = {
    # Minutes: a bitstream build each.
    "axon build": START,
    "axon build --board icestick": START,
    "axon build --board icestick --pools side --chains 4": START,
    "axon build --board hx8k --pools walked --scan single --chains 32": START,
    "axon build --board icestick --chains 8 --pools side": START,
    # An ECP5 with 16 detectors: minutes of nextpnr.
    "axon build --board ulx3s-85f": START,
    "axon build --board ulx3s-85f --detectors 1": START,
    "axon build --board ulx3s-85f --detectors 1 --unit": START,
    "axon build --board ulx3s-85f --detectors 1 --unit --perft": START,
    # A whole benchmark: builds, place and route seeds, the corpus.
    "axon bench --out bench": START_ALWAYS,
    "axon bench --out bench && cp bench/bench.json docs/bench.json": START_ALWAYS,
    # Proofs: minutes (SymbiYosys and the solver).
    "axon prove --only capacity-spill": START,
    # Soaks of hours, or minutes of CXXRTL compile and queries.
    "axon soak --chains 32 --pools walked --scan single": START_ALWAYS,
    "axon soak --netlist": START_ALWAYS,
    "axon soak --link": START_ALWAYS,
    "axon soak --queries 10000000 --seed 3": START_ALWAYS,
    "axon soak --netlist --queries 1000000 --seed 20": START_ALWAYS,
    "axon soak --link --queries 10000 --seed 1": START_ALWAYS,
    # The board in simulation, about 2 plies a second.
    "axon query --port sim:// sim/data/traps.pgn --jsonl": START,
    "axon query --port sim://icestick sim/data/paper_figure5.pgn": START,
    # Searches of seconds to hours.
    'axon search --fen "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1" --depth 6 --compare': START,
    "axon search sim/data/diep_axon.pgn --game 1 --ply 88 --depth 8 --backend cxxrtl": START,
    'axon search --fen "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1" --depth 2 --port sim://icebreaker '
    '--trace nodes.jsonl.gz': START,
    'axon search --fen "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1" --depth 12 --compare --null-move '
    '--json': START_ALWAYS,
    "axon search sim/data/diep_axon.pgn --ply 75 --depth 8 --compare --null-move --json":
        START_ALWAYS,
    "axon search sim/data/diep_axon.pgn --ply 88 --depth 8 --compare --null-move --json":
        START_ALWAYS,
    # A test suite's rates, a process each: seconds to a minute of CXXRTL.
    "axon search sim/data/wac_small.epd --depth 4 --backend golden --jobs 1 -q": START,
    "axon search sim/data/wac_small.epd --depth 4 --backend golden --jobs 2 -q": START,
    "axon search sim/data/wac_small.epd --depth 4 --backend cxxrtl --jobs 1 -q": START,
    "axon search sim/data/wac_small.epd --depth 4 --backend cxxrtl --jobs 2 -q": START,
    # A suite over the ULX3S-85F's 16 detectors: minutes of the model's
    # compile, then minutes of search.
    **{f"axon search sim/data/wac_small.epd --depth {depth} --jobs {jobs} --port "
       f"cxxrtl://ulx3s-85f --json": START_ALWAYS
       for depth, jobs in ((2, 1), (2, 2), (2, 4), (2, 8), (3, 4))},
    # The search unit on a board in simulation: seconds of Amaranth's
    # simulator, a minute of the model's compile (tests/test_search_link.py
    # runs the first by the command line in the default run).
    'axon search --fen "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1" --engine gateware --depth 2 '
    '--port "sim://?unit=yes"': START,
    'axon search sim/data/paper_figure1.pgn --ply 14 --engine gateware --depth 3 --port '
    '"cxxrtl://?unit=yes"': START,
    # Perft on a board in simulation (tests/test_perft_link.py runs the
    # first by the command line in the default run).
    'axon perft --fen "r3k3/1P6/8/3pP3/8/8/8/R3K2R w KQq d6 0 2" --depth 2 --port '
    '"sim://?perft=yes"': START,
    'axon perft --fen "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" '
    '--depth 3 --port "cxxrtl://?perft=yes"': START,
    # The engine's speed on a compiled model or a board in simulation:
    # minutes of compile with a cold cache; pysim's, tens of seconds.
    "axon uci --bench --backend cxxrtl": START,
    "axon uci --bench --backend pysim": START,
    "axon uci --bench --port cxxrtl://icebreaker": START,
    # A board model's first compile, a minute or more (the docs give its cost).
    "axon query --port cxxrtl://icebreaker sim/data/paper_figure1.pgn": START,
    "axon query --port cxxrtl://ulx3s-85f sim/data/paper_figure1.pgn": START,
    # A board and a programmer, or a serial port.
    "axon program": BOARD,
    "axon query --port /dev/ttyUSB1 sim/data/traps.pgn --jsonl": BOARD,
}

# Seconds a started command runs before Ctrl-C.
STARTED_SECONDS = 10


@dataclass(frozen=True)
class Documented:
    command: str          # as printed, continuation lines joined
    where: str            # page:line
    stderr: tuple = None  # a `$` example's lines: exactly what it prints on stderr


def _is_command(text):
    """Whether an ``axon ...`` in the text is a whole command to run: more
    than the command's name (``axon build``, as the text speaks of it),
    no placeholder, and options the command takes as they stand (not
    ``axon scan --jsonl``, an option spoken of)."""
    words = shlex.split(text.replace("…", "..."), comments=True)
    if len(words) < 3 and words[1:] != ["--version"]:
        return False
    if any(_PLACEHOLDER.match(word) for word in words[1:] if word not in ("|", "&&")):
        return False
    for stop in ("|", "&&"):
        words = words[:words.index(stop)] if stop in words else words
    if words[1:] == ["--version"]:
        return True
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            build_parser().parse_args(words[1:])
    except SystemExit:
        return False
    return True


def _command(text):
    """A command line without its shell comment."""
    return re.sub(r"\s+#\s.*$", "", text)


def documented_commands(pages=PAGES, root=ROOT):
    """The :class:`Documented` commands of ``pages``, in page order, each once."""
    found = {}
    for path in pages:
        name = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        lines = path.read_text().splitlines()
        index = 0
        while index < len(lines):
            line = lines[index]
            if not line.lstrip().startswith("```"):
                for text in re.findall(r"`(axon [^`]+)`", line):
                    if _is_command(text):
                        found.setdefault(text, Documented(text, f"{name}:{index + 1}"))
                index += 1
                continue
            # A code block; an output sample's block holds output only.
            sample = index > 0 and lines[index - 1].startswith("<!-- output of:")
            end = next(at for at in range(index + 1, len(lines))
                       if lines[at].lstrip().startswith("```"))
            block = [text.strip() for text in lines[index + 1:end]]
            # Continuation lines joined, as a shell reads them.
            joined, start_at = [], []
            for at, text in enumerate(block):
                if joined and joined[-1].endswith("\\"):
                    joined[-1] = joined[-1][:-1].rstrip() + " " + text
                else:
                    joined.append(text)
                    start_at.append(index + 2 + at)
            prompted = any(text.startswith("$ ") for text in joined)
            for at, text in enumerate(joined):
                where = f"{name}:{start_at[at]}"
                if sample:
                    break
                if prompted and text.startswith("$ axon "):
                    printed = []
                    for after in joined[at + 1:]:
                        if after.startswith("$ "):
                            break
                        printed.append(after)
                    found.setdefault(text[2:], Documented(text[2:], where, tuple(printed)))
                elif not prompted and text.startswith("axon ") and not _SYNOPSIS.search(text):
                    found.setdefault(_command(text), Documented(_command(text), where))
            index = end + 1
    return list(found.values())


def _script_dir():
    script = shutil.which("axon") or os.path.join(os.path.dirname(sys.executable), "axon")
    if not os.path.exists(script):
        pytest.skip("the axon console script is not installed")
    return os.path.dirname(script)


def _scratch(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "sim").symlink_to(ROOT / "sim")
    # A copy: a command that writes under docs/ must not touch the checkout's.
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def _environment():
    env = dict(os.environ)
    env["PATH"] = _script_dir() + os.pathsep + env.get("PATH", "")
    # Amaranth's built-in Yosys converts faster; what the commands do is the same.
    env["AMARANTH_USE_YOSYS"] = "builtin"
    return env


def _restore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setpgrp()


def _said_error(stderr):
    return "Traceback" in stderr or re.search(r"^axon \w+: error:", stderr, flags=re.M)


def check_started(started, seconds=STARTED_SECONDS):
    """Let each of ``started`` (``[(Documented, cwd)]``) run for ``seconds``
    (all at once, so that the wait is paid once), stop it with Ctrl-C, and
    raise ``AssertionError`` naming each one that did not start cleanly."""
    processes = []
    for documented, cwd in started:
        process = subprocess.Popen(["bash", "-c", documented.command], cwd=cwd,
                                   env=_environment(), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True,
                                   preexec_fn=_restore_sigint)
        processes.append((documented, process))
    time.sleep(seconds)
    failures = []
    for documented, process in processes:
        try:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
            _, stderr = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if process.returncode not in (0, 130) or _said_error(stderr):
            failures.append(f"{documented.where}: `{documented.command}` did not start "
                            f"cleanly: exit {process.returncode}\n{stderr[-2000:]}")
    assert not failures, "\n".join(failures)


def check_command(documented, how, cwd, env, *, runslow=False):
    """Run one documented command to its end as ``how`` says; raise
    ``AssertionError`` naming the page and line unless it does what the
    page says."""
    command, where = documented.command, documented.where
    if how == BOARD:
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=120)
        lines = done.stderr.splitlines()
        assert done.returncode not in (0, 130) and len(lines) == 1 and \
            lines[0].startswith(f"axon {command.split()[1]}: error: ") and \
            "Traceback" not in done.stderr, \
            f"{where}: `{command}` without a board: {done.returncode}\n{done.stderr}"
        return
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=3600 if runslow else 120)
    if documented.stderr is not None:
        # The command's own lines (a build's progress lines aside).
        said = [line for line in done.stderr.splitlines() if line.startswith("axon ")]
        assert said == list(documented.stderr), \
            f"{where}: `{command}` printed on stderr\n{done.stderr}\nnot as the page shows:\n" \
            + "\n".join(documented.stderr)
        if any(": error: " in line for line in documented.stderr):
            assert done.returncode not in (0, 130), f"{where}: `{command}` exited 0"
            return
    assert done.returncode == 0, \
        f"{where}: `{command}` exited {done.returncode}\n{done.stderr[-2000:]}"


COMMANDS = documented_commands()


def _run_to_the_end(documented, runslow):
    how = HOW.get(documented.command, "run")
    return how in ("run", BOARD) or (how == START and runslow)


@pytest.mark.parametrize("documented", COMMANDS, ids=[doc.command for doc in COMMANDS])
def test_documented_command_runs_as_printed(documented, tmp_path, request):
    runslow = request.config.getoption("--runslow")
    if not _run_to_the_end(documented, runslow):
        pytest.skip("a long command: run with --runslow (test_long_commands_start_cleanly)")
    check_command(documented, HOW.get(documented.command, "run"), _scratch(tmp_path),
                  _environment(), runslow=runslow)


@pytest.mark.slow
def test_long_commands_start_cleanly(tmp_path, request):
    runslow = request.config.getoption("--runslow")
    check_started([(documented, _scratch(tmp_path / str(index)))
                   for index, documented in enumerate(COMMANDS)
                   if not _run_to_the_end(documented, runslow)])


@pytest.mark.quick
def test_the_pages_are_read_as_a_user_reads_them():
    commands = {doc.command: doc for doc in COMMANDS}
    # A code block's command, a `$` example with its error, a whole command
    # in the text; a synopsis, a sample's output and a placeholder are not.
    assert "axon build" in commands and "axon --version" in commands
    assert commands["axon scan sim/data/traps.pgn --vcd /tmp"].stderr == (
        "axon scan: error: --vcd /tmp: is a directory, not a file",)
    assert "axon bench --readme docs/bench.json" in commands
    assert not any(command.startswith("axon search: ") or "[--" in command or
                   "GAMES.pgn" in command or "FEN" in command.split() for command in commands)
    # Each way of running names a command the pages still print.
    assert set(HOW) <= set(commands), set(HOW) - set(commands)


def test_a_documented_command_that_fails_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Scan a file that is not there: `axon scan sim/data/not_there.pgn -q`.\n\n"
        "```text\n$ axon scan sim/data/traps.pgn --chains 0\n"
        "axon scan: error: not the words the command says\n```\n\n"
        "```sh\naxon search --fen \"8/8/8/8/8/8/8/K6k w - - 0 1\" --depth 1 "
        "--repetition python-chess --backend golden\n```\n")
    found = documented_commands([page], tmp_path)
    assert [doc.command.split()[1] for doc in found] == ["scan", "scan", "search"]
    cwd, env = _scratch(tmp_path / "run"), _environment()
    for documented in found:
        with pytest.raises(AssertionError, match=r"page\.md:\d+: `axon "):
            check_command(documented, "run", cwd, env)
    # Started and stopped: a command that fails at once did not start cleanly.
    with pytest.raises(AssertionError, match=r"page\.md:1: `axon scan sim/data/not_there.pgn "
                                             r"-q` did not start cleanly"):
        check_started([(found[0], cwd)], seconds=8)
