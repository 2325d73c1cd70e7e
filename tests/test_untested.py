"""The test run says what it did not test: one line at the end names each
capability skipped for want of an optional Debian tool, and the one
``apt-get install`` line that brings them all."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import debian_packages, untested_line


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the test run's report of what it skipped"


@pytest.mark.quick
def test_each_skip_reason_names_its_package():
    # The reasons the test modules give, as they give them.
    assert debian_packages("the CXXRTL backend compiles with g++, which is not on PATH") == ["g++"]
    assert debian_packages("needs GTKWave and xvfb-run (Debian: apt install gtkwave xvfb)") == \
        ["gtkwave", "xvfb"]
    assert debian_packages("Chromium is not installed") == ["chromium"]
    assert debian_packages("openFPGALoader is not installed") == ["openfpgaloader"]
    assert debian_packages("the games against Stockfish need stockfish, not on PATH") == \
        ["stockfish"]
    assert debian_packages("long sweep: run with --runslow") == []


@pytest.mark.quick
def test_the_line_names_capabilities_and_one_install():
    line = untested_line([("waveforms", "needs GTKWave and xvfb-run"),
                          ("CXXRTL backend", "g++ is not on PATH"),
                          ("waveforms", "iverilog is not installed"),
                          ("board builds", "long sweep: run with --runslow")])
    assert line == ("untested for want of a Debian tool: CXXRTL backend (g++); waveforms "
                    "(gtkwave, iverilog, xvfb). To test them: apt-get install -y g++ gtkwave "
                    "iverilog xvfb")
    # Skipped for another reason only: nothing to say.
    assert untested_line([("board builds", "long sweep: run with --runslow")]) is None


def test_a_run_prints_the_line(tmp_path):
    # A run of its own, with this conftest, whose one test skips for GTKWave.
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_one.py").write_text(
        'import pytest\nCAPABILITY = "waveforms in GTKWave"\n'
        'def test_waves():\n    pytest.skip("needs GTKWave and xvfb-run")\n'
        'def test_fine():\n    pass\n')
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                          str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "untested for want of a Debian tool: waveforms in GTKWave (gtkwave, xvfb). " \
           "To test them: apt-get install -y gtkwave xvfb" in run.stdout
