"""The exported Verilog as a Verilog shop sees it: Verilator's lint, the
documented port list, and the IP package's plain Verilog testbench in
Icarus and Verilator, as the "In Verilog" section prints its commands.

Each tool's test skips cleanly where the tool is not installed."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from axon.hdl.params import LEAN, SHIPPED
from axon.sim.backends.export import export, module_ports


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "Verilog lint and testbenches"


ROOT = Path(__file__).resolve().parent.parent
# The one source of the plain Verilog testbench: `axon export --ip` copies it.
TESTBENCH = ROOT / "sim" / "ip" / "testbench" / "axon_detector_tb.v"
# The page runs the testbench's commands in the package it exports.
IN_PACKAGE = "cd ip && "
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


def _printed_in_header():
    """The shell commands in the testbench's header, each after its ``$``."""
    return re.findall(r"^//   \$ (.+)$", TESTBENCH.read_text(), flags=re.M)


def _printed_on_page():
    """The shell commands in the console blocks of the page's "In Verilog"
    section (tests/test_ip.py runs those of the FuseSoC section)."""
    text = (ROOT / "docs" / "embedding.md").read_text()
    text = text[text.index("\n## In Verilog\n"):]
    blocks = re.findall(r"^```console\n(.*?)^```", text, flags=re.M | re.S)
    return [line[2:] for block in blocks for line in block.splitlines() if line.startswith("$ ")]


def _tools(command):
    return {part.split()[0] for part in command.split("&&")}


def _run_as_printed(directory, commands):
    """Run ``commands`` one by one in ``directory`` through the shell,
    exactly as printed; return the failed ones with their exit status and
    output."""
    # `axon` is the one installed beside the interpreter running the tests.
    env = dict(os.environ, AMARANTH_USE_YOSYS="builtin",
               PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                     os.environ.get("PATH", "")]))
    failed = []
    for command in commands:
        run = subprocess.run(command, shell=True, cwd=directory, env=env, capture_output=True,
                             text=True, timeout=900)
        if run.returncode != 0 or "FAIL" in run.stdout:
            failed.append((command, run.returncode, (run.stdout + run.stderr)[-2000:]))
    return failed


@pytest.mark.quick
def test_the_header_and_the_page_print_the_same_commands():
    header, page = _printed_in_header(), _printed_on_page()
    assert any("iverilog" in command for command in header)
    assert any("verilator --binary" in command for command in header)
    in_package = {command[len(IN_PACKAGE):] for command in page
                  if command.startswith(IN_PACKAGE)}
    assert set(header) <= in_package, set(header) - in_package
    assert "axon export --ip ip" in page


@pytest.mark.parametrize("simulator", ["iverilog", "verilator"])
def test_printed_commands_run_as_printed(tmp_path, simulator):
    if shutil.which(simulator) is None:
        pytest.skip(f"{simulator} is not installed")
    # The header's commands are the page's, in the package's directory.
    commands = _printed_on_page()
    mine = [command for command in commands if _tools(command) & {"axon", simulator}]
    assert mine[0].startswith("axon export") and len(mine) >= 3
    assert _run_as_printed(tmp_path, mine) == []


@_needs("iverilog")
def test_a_wrong_answer_fails_the_printed_command(tmp_path):
    # The page's package with one answer changed: the first query of the
    # paper's figures says one clock more than it takes. Its lines up to it
    # are enough (a group writes every word it reads).
    commands = [command for command in _printed_on_page()
                if _tools(command) & {"axon", "iverilog"}]
    export, icarus = commands[-2:]
    assert export == "axon export --ip ip" and "iverilog" in icarus
    assert _run_as_printed(tmp_path, [export]) == []
    expect = tmp_path / "ip" / "tests" / "expect.jsonl"
    header, first = [json.loads(line) for line in expect.read_text().splitlines()[:2]]
    first["expect"]["cycles"] += 1
    expect.write_text(json.dumps(header) + "\n" + json.dumps(first) + "\n")
    failed = _run_as_printed(tmp_path, [icarus])
    assert [command for command, _, _ in failed] == [icarus]
    _, status, output = failed[0]
    assert status == 1 and "PASS" not in output
    assert f"FAIL: tests/expect.jsonl line 2 ({first['case']}): query__cycles is " \
           f"{first['expect']['cycles'] - 1}, expected {first['expect']['cycles']}" in output
