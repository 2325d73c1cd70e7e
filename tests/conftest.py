# amaranth: UnusedElaboratable=no
import ast
import os
import pathlib

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
