# amaranth: UnusedElaboratable=no
import os

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


# What each test module pays for: `pytest --budget N` reports the run's time
# by these names, so that a growing run shows which capability grew.
CAPABILITIES = {
    "test_board_backends.py": "the board simulated at its pins",
    "test_boards.py":       "board builds and fit",
    "test_capacity.py":     "pool layouts and capacity",
    "test_cli.py":          "command line",
    "test_cxxrtl.py":       "CXXRTL backend",
    "test_docs.py":         "documentation site",
    "test_encode.py":       "move encoding",
    "test_export.py":       "Verilog export",
    "test_formal.py":       "formal proofs",
    "test_fuzz_cli.py":     "command-line errors",
    "test_html.py":         "explanation page",
    "test_golden.py":       "golden model against python-chess",
    "test_hdl_params.py":   "embedding API and parameters",
    "test_interrupt.py":    "Ctrl-C",
    "test_layers.py":       "layering",
    "test_link.py":         "host link",
    "test_link_parts.py":   "host link, part by part",
    "test_linksoak.py":     "host link soak",
    "test_netlist.py":      "synthesised netlist",
    "test_observe.py":      "observation view of the gateware",
    "test_pathcheck.py":    "upcoming repetition (gateware)",
    "test_peers.py":        "benchmark peers",
    "test_pgn_input.py":    "PGN input",
    "test_program.py":      "flashing a board",
    "test_readme.py":       "documentation against its sources",
    "test_search.py":       "the detector inside a search",
    "test_search_bench.py": "benchmark search workload",
    "test_serial.py":       "serial chain list in block RAM",
    "test_rtl.py":          "RTL against the golden model",
    "test_soak.py":         "soaks",
    "test_uart.py":         "UART",
    "test_upcoming.py":     "upcoming repetition (model)",
    "test_upcoming_rtl.py": "upcoming repetition (RTL)",
    "test_verilog.py":      "Verilog lint and testbenches",
    "test_version.py":      "interface version, changelog and licence",
    "test_waves.py":        "waveforms",
    "test_word.py":         "move word",
}


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
    def capability(nodeid):
        return CAPABILITIES.get(nodeid.split("::")[0].rsplit("/", 1)[-1], "(no capability)")
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
