"""Run the cocotb tests of axon_detector_cocotb.py with pytest: one pytest
test a group of expect.jsonl, on the Verilog in ../rtl.

The simulator is Icarus Verilog (``SIM=icarus``, the default) or Verilator
(``SIM=verilator``, 5.036 or later for cocotb); a test skips when its
simulator is not installed. The build goes to ``../build/SIM``.
"""

import json
import os
import shutil
from pathlib import Path

import pytest
from cocotb_tools.runner import get_runner


HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent
SIM = os.environ.get("SIM", "icarus")
EXECUTABLES = {"icarus": "iverilog", "verilator": "verilator"}
# Icarus in its Verilog-2005 mode: the generated file starts its
# combinational blocks with a declaration's initial value, an event at time
# 0 in Verilog-2005 that SystemVerilog mode does not raise.
BUILD_ARGS = {"icarus": ["-g2005"], "verilator": []}
GROUPS = ("figures", "games", "search", "refused", "user")


@pytest.fixture(scope="module")
def runner():
    executable = EXECUTABLES.get(SIM, SIM)
    if shutil.which(executable) is None:
        pytest.skip(f"{executable} is not installed (SIM={SIM})")
    runner = get_runner(SIM)
    runner.build(sources=[PACKAGE / "rtl" / "axon_detector.v"],
                 includes=[PACKAGE / "rtl"], hdl_toplevel="axon_detector",
                 build_args=BUILD_ARGS.get(SIM, []), build_dir=PACKAGE / "build" / SIM,
                 always=True)
    return runner


def _groups():
    with open(HERE / "expect.jsonl") as file:
        return {json.loads(line)["group"] for line in list(file)[1:] if line.strip()}


@pytest.mark.parametrize("group", GROUPS)
def test_axon_detector(runner, group):
    if group not in _groups():
        pytest.skip(f"expect.jsonl has no {group} group (axon export --expect adds it)")
    runner.test(test_module="axon_detector_cocotb", hdl_toplevel="axon_detector",
                testcase=group, test_dir=PACKAGE / "build" / SIM)
