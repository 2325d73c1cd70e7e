"""The exported Verilog as a Verilog shop sees it: Verilator's lint, the
documented port list, and a plain testbench in Icarus and Verilator.

Each tool's test skips cleanly where the tool is not installed."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from axon.hdl.params import LEAN, SHIPPED
from axon.sim.backends.export import export, module_ports


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "Verilog lint and testbenches"


ROOT = Path(__file__).resolve().parent.parent
TESTBENCH = ROOT / "docs" / "axon_detector_tb.v"
# What `axon export` writes by default: the repetition core alone.
CORE = SHIPPED.replace(upcoming=False)


def _needs(tool):
    return pytest.mark.skipif(shutil.which(tool) is None, reason=f"{tool} is not installed")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    directory = tmp_path_factory.mktemp("verilog")
    export(str(directory / "axon_detector.v"), config=CORE)
    return directory


@pytest.mark.quick
def test_documented_port_list_is_the_files_in_its_order(exported):
    text = (ROOT / "docs" / "embedding.md").read_text()
    block = text[text.index("```verilog\nmodule axon_detector("):]
    block = block[:block.index("```", 3)]
    written = [(direction, int(high) + 1 if high else 1, name) for direction, high, name in
               re.findall(r"^\s*(input|output)\s+(?:\[(\d+):0\])?\s*(\w+)", block, flags=re.M)]
    assert written == module_ports((exported / "axon_detector.v").read_text())


@_needs("verilator")
@pytest.mark.parametrize("config", [CORE, SHIPPED, LEAN], ids=["default", "upcoming", "lean"])
def test_verilator_lint_is_clean(tmp_path, config):
    path = tmp_path / "axon_detector.v"
    export(str(path), config=config)
    lint = subprocess.run(["verilator", "--lint-only", "-Wall", path.name], cwd=tmp_path,
                          capture_output=True, text=True)
    assert lint.returncode == 0 and lint.stdout + lint.stderr == "", lint.stderr[-2000:]


@_needs("verilator")
def test_lint_finds_what_the_waivers_cover(tmp_path):
    # Without its waivers the generated file is not clean: they are needed,
    # and the test above would notice a tool that ignored them.
    path = tmp_path / "axon_detector.v"
    export(str(path), config=CORE)
    bare = "\n".join(line for line in path.read_text().splitlines()
                     if "verilator lint_" not in line)
    path.write_text(bare)
    lint = subprocess.run(["verilator", "--lint-only", "-Wall", path.name], cwd=tmp_path,
                          capture_output=True, text=True)
    assert lint.returncode != 0 and "UNUSEDSIGNAL" in lint.stderr


def _testbench(directory):
    shutil.copy(TESTBENCH, directory / TESTBENCH.name)
    return TESTBENCH.name


@_needs("iverilog")
def test_testbench_in_icarus(exported):
    bench = _testbench(exported)
    subprocess.run(["iverilog", "-g2005", "-o", "tb.vvp", bench, "axon_detector.v"],
                   cwd=exported, check=True, capture_output=True)
    run = subprocess.run(["vvp", "-n", "tb.vvp"], cwd=exported, capture_output=True, text=True,
                         timeout=300)
    assert "PASS" in run.stdout and "FAIL" not in run.stdout, run.stdout


@_needs("verilator")
def test_testbench_in_verilator(exported):
    bench = _testbench(exported)
    subprocess.run(["verilator", "--binary", "--top-module", "tb", "-Wno-fatal", bench,
                    "axon_detector.v"], cwd=exported, check=True, capture_output=True,
                   timeout=900)
    run = subprocess.run([str(exported / "obj_dir" / "Vtb")], cwd=exported,
                         capture_output=True, text=True, timeout=300)
    assert "PASS" in run.stdout and "FAIL" not in run.stdout, run.stdout


@_needs("iverilog")
def test_testbench_catches_a_wrong_answer(exported, tmp_path):
    # The same bench expecting a count of 3 where the detector finds 2.
    bench = (exported / _testbench(exported)).read_text().replace("query(7, 3, 2, 1);",
                                                                  "query(7, 3, 3, 1);")
    assert "query(7, 3, 3, 1);" in bench
    (exported / "wrong_tb.v").write_text(bench)
    subprocess.run(["iverilog", "-g2005", "-o", "wrong.vvp", "wrong_tb.v", "axon_detector.v"],
                   cwd=exported, check=True, capture_output=True)
    run = subprocess.run(["vvp", "-n", "wrong.vvp"], cwd=exported, capture_output=True,
                         text=True, timeout=300)
    assert "FAIL: top 7 root 3" in run.stdout and "PASS" not in run.stdout
