"""Run the cocotb tests of axon_detector_cocotb.py with pytest: one pytest
test a group of expect.jsonl, on the Verilog in ../rtl.

The simulator is Icarus Verilog (``SIM=icarus``, the default) or Verilator
(``SIM=verilator``, 5.036 or later for cocotb 2); a test skips when its
simulator is not installed, or is a Verilator too old for cocotb. The build
goes to ``../build/SIM``.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cocotb_tools.runner import get_runner

from axon_detector_cocotb import BUILT_IN, in_group


HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent
SIM = os.environ.get("SIM", "icarus")
EXECUTABLES = {"icarus": "iverilog", "verilator": "verilator"}
# Icarus in its Verilog-2005 mode: the generated file starts its
# combinational blocks with a declaration's initial value, an event at time
# 0 in Verilog-2005 that SystemVerilog mode does not raise.
BUILD_ARGS = {"icarus": ["-g2005"], "verilator": []}
GROUPS = (*BUILT_IN, "user")
# cocotb 2's VPI needs Verilator 5.036 or later: an older one fails to
# compile it ('clearEvalNeeded' is not a member of 'VerilatedVpi').
VERILATOR_FLOOR = (5, 36)


def verilator_version(executable="verilator"):
    """``(major, minor)`` of the Verilator on the ``PATH``, or ``None``
    when its ``--version`` says none."""
    run = subprocess.run([executable, "--version"], capture_output=True, text=True)
    found = re.search(r"Verilator (\d+)\.(\d+)", run.stdout + run.stderr)
    return (int(found.group(1)), int(found.group(2))) if found else None


def too_old(version):
    """Why a Verilator of ``version`` cannot run the tests, or ``None``."""
    floor = "%d.%03d" % VERILATOR_FLOOR
    if version is None:
        return f"cannot tell the version of verilator (cocotb 2 needs {floor} or later)"
    if version < VERILATOR_FLOOR:
        return (f"verilator {version[0]}.{version[1]:03d} is older than {floor}, the "
                f"oldest that cocotb 2 supports")
    return None


@pytest.fixture(scope="module")
def runner():
    executable = EXECUTABLES.get(SIM, SIM)
    if shutil.which(executable) is None:
        pytest.skip(f"{executable} is not installed (SIM={SIM})")
    if SIM == "verilator":
        reason = too_old(verilator_version(executable))
        if reason:
            pytest.skip(reason)
    runner = get_runner(SIM)
    runner.build(sources=[PACKAGE / "rtl" / "axon_detector.v"],
                 includes=[PACKAGE / "rtl"], hdl_toplevel="axon_detector",
                 build_args=BUILD_ARGS.get(SIM, []), build_dir=PACKAGE / "build" / SIM,
                 always=True)
    return runner


def _lines():
    with open(HERE / "expect.jsonl") as file:
        return [json.loads(line) for line in list(file)[1:] if line.strip()]


@pytest.mark.parametrize("group", GROUPS)
def test_axon_detector(runner, group):
    if not any(in_group(line, group) for line in _lines()):
        pytest.skip(f"expect.jsonl has no {group} group (axon export --expect adds it)")
    runner.test(test_module="axon_detector_cocotb", hdl_toplevel="axon_detector",
                testcase=group, test_dir=PACKAGE / "build" / SIM)
