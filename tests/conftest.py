# amaranth: UnusedElaboratable=no
import ast
import json
import os
import pathlib
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


def pytest_configure(config):
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


@pytest.fixture
def waves(request):
    """A per-test VCD path under ``$AXON_WAVES``, or ``None`` (the default)."""
    return wave_file_for_test(request.node.nodeid)


def pytest_terminal_summary(terminalreporter, config):
    """``--budget N``: the slowest tests and what each capability costs."""
    count = config.getoption("--budget")
    if not count:
        return
    seconds = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) in ("setup", "call", "teardown"):
                seconds[report.nodeid] = seconds.get(report.nodeid, 0.0) + report.duration
    found = {}

    def capability(nodeid):
        path = nodeid.split("::")[0]
        if path not in found:
            found[path] = capability_of(config.rootpath / path) or "(no capability)"
        return found[path]
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
