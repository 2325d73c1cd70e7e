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
