# amaranth: UnusedElaboratable=no
"""``axon demo``, the README's first command, run to its end through the
installed script: the verify of its games on the RTL, then the board's
bitstream build with the YoWASP tools (the cache every build of the suite
shares; the first run ever compiles the WebAssembly, about two minutes).

The bundled games take minutes on the simulator, so the run here verifies
one bundled file (``axon demo FILE``): the same code path, the build
included, which the iCEBreaker's build test in ``tests/test_boards.py``
leaves to ``--runslow``.
"""

import json
import os
import subprocess
import sys

import pytest

import axon.sim


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the main job (axon demo)"


DATA = os.path.join(os.path.dirname(axon.sim.__file__), "data")
FIGURE5 = os.path.join(DATA, "paper_figure5.pgn")


def _axon():
    script = os.path.join(os.path.dirname(sys.executable), "axon")
    if not os.path.exists(script):
        pytest.skip("the axon console script is not installed next to this python")
    return script


def _demo(cwd, *argv):
    # YoWASP tools see the working directory only: the build is relative to it.
    return subprocess.run([_axon(), "demo", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=1200)


def test_demo_runs_to_its_end(tmp_path):
    done = _demo(tmp_path, FIGURE5)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    out = done.stdout
    assert f"== axon verify {os.path.relpath(FIGURE5, tmp_path)}\n" in out
    assert "disagreements: none" in out
    # The build is `axon build --board icebreaker`'s: every option at its default.
    assert "== axon build --board icebreaker\n" in out
    report = json.loads((tmp_path / "build" / "icebreaker" / "axon.report.json").read_text())
    assert report["device"] == "iCE40UP5K-SG48" and report["chains"] == 24
    assert report["detectors"] == 1 and report["seed"] == 1 and report["timing_met"]
    assert (tmp_path / "build" / "icebreaker" / "axon.bin").stat().st_size > 0
    assert out.rstrip().endswith("report: build/icebreaker/axon.report.json")


@pytest.mark.quick
def test_a_demo_whose_build_cannot_be_written_fails_at_once(tmp_path):
    # Broken: a file where the build folder goes. The demo refuses it before
    # its verify (exit 2, nothing verified), as the build itself would.
    (tmp_path / "build").write_text("not a folder")
    done = _demo(tmp_path, FIGURE5)
    assert done.returncode == 2
    assert "axon demo: error: --build-dir build/icebreaker: " in done.stderr
    assert "== axon verify" not in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.quick
def test_a_demo_whose_verify_fails_fails(tmp_path):
    # Broken: a game the verify refuses; the demo reports it after its build
    # (here none: --no-build).
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Event "bad"]\n\n1. e4 e5 2. Ke3 *\n')
    done = _demo(tmp_path, str(bad), "--no-build")
    assert done.returncode == 1
    assert "axon verify: error: " in done.stderr and "Traceback" not in done.stderr
