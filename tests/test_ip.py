"""``axon export --ip``: the IP package as a Verilog shop uses it.

The commands of docs/embedding.md's FuseSoC section run as printed: the
export, FuseSoC's ``lint`` and ``sim`` targets, and the package's cocotb
tests through pytest. Each skips cleanly where its tool is not installed.
A changed answer in the expectations, or in the Verilog testbench, must
fail the run; so must the generated Verilog without its lint waivers.
"""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from axon.hdl.params import SHIPPED
from axon.hdl.result import ResultLayout, UpcomingLayout
from axon.hdl.version import VERSION
from axon.sim.backends.session import GoldenSession, answers
from axon.sim.cli.main import main
from axon.sim.model.games import bundled_files, load_games
from axon.sim.model.golden import Result
from axon.sim.ip.package import VLNV_NAME


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "IP package: FuseSoC core, Verilog and cocotb testbenches"


ROOT = Path(__file__).resolve().parent.parent
EMBEDDING = ROOT / "docs" / "embedding.md"
# What each printed command needs besides the `axon` installed here.
NEEDS = {"fusesoc": ["fusesoc"], "lint": ["verilator"], "sim": ["iverilog"],
         "pytest": ["cocotb", "iverilog"]}


def _printed():
    """The shell commands of the page's FuseSoC section, each after its ``$``."""
    text = EMBEDDING.read_text()
    section = text[text.index("\n## As a FuseSoC core"):text.index("\n## In Verilog\n")]
    blocks = re.findall(r"^```console\n(.*?)^```", section, flags=re.M | re.S)
    return [line[2:] for block in blocks for line in block.splitlines() if line.startswith("$ ")]


def _printed_with(word):
    found = [command for command in _printed() if word in command.split()]
    assert len(found) == 1, (word, _printed())
    return found[0]


def _missing(command):
    """The tools ``command`` needs that are not installed."""
    words = command.split()
    needed = list(NEEDS["fusesoc"]) if words[0] == "fusesoc" else []
    for word, tools in NEEDS.items():
        if word in words[1:]:
            needed += tools
    return [tool for tool in needed
            if shutil.which(tool) is None and importlib.util.find_spec(tool) is None]


def _run(command, cwd):
    """``command`` through the shell in ``cwd``, as printed, with the
    tools installed beside the interpreter running the tests first on the
    ``PATH``; skips when a tool it needs is missing."""
    missing = _missing(command)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    env = dict(os.environ, AMARANTH_USE_YOSYS="builtin",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    # The package's tests run as its user runs them: without this run's options.
    env.pop("PYTEST_ADDOPTS", None)
    # `python` is the interpreter running the tests.
    command = re.sub(r"^python ", f"{sys.executable} ", command)
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("ip")
    export = _printed()[0]
    assert export.startswith("axon export --ip ip")
    run = _run(export, directory)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == f"core {VLNV_NAME}:{VERSION}: see ip/README.md"
    return directory


def _lines(package):
    with open(package / "tests" / "expect.jsonl") as file:
        return [json.loads(line) for line in file]


@pytest.mark.quick
def test_the_page_prints_every_step():
    commands = _printed()
    assert commands[0].startswith("axon export --ip ip")
    assert [command.split()[:2] + command.split()[-3:] for command in commands[1:3]] == [
        ["fusesoc", "--cores-root", "--target", "lint", VLNV_NAME],
        ["fusesoc", "--cores-root", "--target", "sim", VLNV_NAME]]
    assert commands[3] == "python -m pytest ip"


def test_the_core_is_named_after_the_interface_version(workdir):
    core = (workdir / "ip" / "axon_detector.core").read_text()
    assert core.startswith("CAPI=2:\n")
    assert re.search(r"^name: (\S+)$", core, flags=re.M).group(1) == f"{VLNV_NAME}:{VERSION}"
    targets = core[core.index("\ntargets:\n"):]
    assert re.findall(r"^  (\w+):$", targets, flags=re.M) == ["default", "lint", "sim"]
    for name in ("rtl/axon_detector.v", "rtl/axon_detector_params.vh", "tb/axon_detector_tb.v",
                 "tests/axon_detector_cocotb.py", "tests/test_axon_detector.py", "README.md"):
        assert (workdir / "ip" / name).is_file(), name
    # The tests need no axon: a Verilog team runs them with cocotb alone.
    for name in ("axon_detector_cocotb.py", "test_axon_detector.py"):
        source = (workdir / "ip" / "tests" / name).read_text()
        assert not re.search(r"^\s*(from|import) axon\b", source, flags=re.M), name


def test_the_expectations_cover_what_the_package_promises(workdir):
    header, *lines = _lines(workdir / "ip")
    assert header["version"] == VERSION and header["upcoming_done_after"] > 0
    groups = {group: [line for line in lines if line["group"] == group]
              for group in header["groups"]}
    assert all(groups[group] for group in ("figures", "games", "search", "refused"))
    assert not groups["user"]
    search = groups["search"]
    assert all(line["query"]["root"] >= 0 for line in search)
    assert any(line["expect"]["upcoming"]["found"] for line in search)
    assert any(line["expect"]["result"]["repetition"] for line in search)
    assert any(line["expect"]["result"]["count"] == 2 for line in groups["figures"])
    clocks = {line["refuse"]["clock"] for line in groups["refused"] if "refuse" in line}
    assert 0 in clocks and len(clocks) > 1
    # Each group writes every word it reads: it runs alone, in any order.
    for group in groups.values():
        written = set()
        for line in group:
            written |= {address for address, _ in line["writes"]}
            assert set(range(line["query"]["top"] + 1)) <= written, line["case"]


@pytest.mark.parametrize("target", ["lint", "sim"])
def test_fusesoc_targets_pass(workdir, target):
    run = _run(_printed_with(target), workdir)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    if target == "sim":
        assert re.search(r"^PASS: \d+ queries$", run.stdout, flags=re.M)
        assert "FAIL" not in run.stdout


def test_cocotb_tests_pass_in_icarus(workdir):
    run = _run(_printed_with("pytest"), workdir)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    assert re.search(r"\b4 passed, 1 skipped\b", output), output[-3000:]


def _copy(workdir, name):
    broken = workdir / name
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(workdir / "ip", broken, ignore=shutil.ignore_patterns("build"))
    return broken


def test_a_changed_answer_fails_the_cocotb_run(workdir):
    broken = _copy(workdir, "wrong")
    header, *lines = _lines(broken)
    # The search's first repetition: say it counted one more equal position.
    # The search's lines up to it are enough to replay it (a group writes
    # every word it reads), and quicker than all of them.
    search = [line for line in lines if line["group"] == "search"]
    changed = next(index for index, line in enumerate(search)
                   if line["expect"]["result"]["repetition"])
    count = search[changed]["expect"]["result"]["count"]
    search[changed]["expect"]["result"]["count"] = count + 1
    kept = [header] + search[:changed + 1]
    (broken / "tests" / "expect.jsonl").write_text("".join(json.dumps(line) + "\n"
                                                           for line in kept))
    run = _run("python -m pytest wrong -k search", workdir)
    output = run.stdout + run.stderr
    assert run.returncode == 1, output[-3000:]
    assert f"expect.jsonl line {len(kept)} (" in output
    assert f"result.count is {count}, expected {count + 1}" in output


def test_a_changed_answer_fails_the_sim_target(workdir):
    broken = _copy(workdir, "slow")
    bench = broken / "tb" / "axon_detector_tb.v"
    lines = bench.read_text().splitlines()
    # The first query (of the paper's figures), alone: one clock more than
    # it takes.
    first = next(index for index, line in enumerate(lines) if line.startswith("    query(2, "))
    end = next(index for index, line in enumerate(lines) if "if (failures != 0)" in line)
    call = re.match(r"(    query\(2, (?:[^,]+, ){5})(\d+),", lines[first])
    lines[first] = call.group(1) + str(int(call.group(2)) + 1) + lines[first][call.end(2):]
    bench.write_text("\n".join(lines[:first + 1] + lines[end:]) + "\n")
    run = _run(_printed_with("sim").replace("--cores-root ip", "--cores-root slow"), workdir)
    assert run.returncode != 0
    assert "FAIL: expect.jsonl line 2: query__cycles" in run.stdout
    assert "PASS" not in run.stdout


@pytest.mark.slow
def test_lint_without_the_waivers_fails(workdir):
    # tests/test_verilog.py shows the waivers are needed in the default run.
    broken = _copy(workdir, "bare")
    verilog = broken / "rtl" / "axon_detector.v"
    verilog.write_text("\n".join(line for line in verilog.read_text().splitlines()
                                 if "verilator lint_" not in line))
    run = _run(_printed_with("lint").replace("--cores-root ip", "--cores-root bare"), workdir)
    assert run.returncode != 0 and "UNUSEDSIGNAL" in run.stdout + run.stderr


def test_expect_adds_the_users_games(tmp_path, monkeypatch, capsys):
    (tmp_path / "mine.pgn").write_text(
        '[Event "Knights out and back"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 *\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")
    assert main(["export", "--ip", "pkg", "--expect", "mine.pgn"]) == 0
    user = [line for line in _lines(tmp_path / "pkg") if line.get("group") == "user"]
    assert [line["case"] for line in user] == [
        f'mine.pgn game 1 ("Knights out and back") ply {ply}' for ply in range(1, 6)]
    assert user[-1]["expect"]["result"]["repetition"] == 1
    assert "user" in (tmp_path / "pkg" / "README.md").read_text()


def test_a_backstop_package_passes_its_testbench(tmp_path, monkeypatch):
    # With a backstop, the package's answers have its bit: the expectations
    # name it, the crowded boards' lines include the backstop's answers and
    # clocks, and its Verilog testbench passes in Icarus (as `sim` runs it).
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")
    crowded = ROOT / "sim" / "data" / "capacity" / "crowded.pgn"
    assert main(["export", "--ip", "pkg", "--backstop", "--expect", str(crowded)]) == 0
    lines = [line for line in _lines(tmp_path / "pkg") if "expect" in line]
    assert all("backstop" in line["expect"]["result"] for line in lines)
    assert sum(line["expect"]["result"]["backstop"] for line in lines) >= 100
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog not installed")
    package = tmp_path / "pkg"
    built = subprocess.run(["iverilog", "-g2005", "-I", "rtl", "-o", str(tmp_path / "tb"),
                            "tb/axon_detector_tb.v", "rtl/axon_detector.v"], cwd=package,
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    run = subprocess.run(["vvp", str(tmp_path / "tb")], cwd=package, capture_output=True,
                         text=True, timeout=600)
    assert re.search(r"^PASS: \d+ queries$", run.stdout, flags=re.M), run.stdout[-3000:]


@pytest.mark.quick
@pytest.mark.parametrize("argv, message", [
    (["--ip", "pkg", "-o", "x.v"], "-o goes with --verilog or --rtlil; --ip writes a directory"),
    (["-o", "x.v", "--expect", "mine.pgn"], "--expect goes with --ip"),
    (["--ip", "pkg", "--expect", "missing.pgn"],
     "missing.pgn: cannot read: No such file or directory"),
    (["--ip", "pkg", "--expect", "bad.pgn"], "bad.pgn: game 1, ply 3: illegal move"),
])
def test_bad_ip_options_are_one_line(tmp_path, monkeypatch, capsys, argv, message):
    (tmp_path / "bad.pgn").write_text('[Event "x"]\n\n1. e4 e5 2. Ke3 *\n')
    monkeypatch.chdir(tmp_path)
    assert main(["export", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"axon export: error: {message}") and err.count("\n") == 1
    # Nothing is written before the input is known good.
    assert not (tmp_path / "pkg").exists()


@pytest.mark.quick
def test_port_fields_read_back_as_the_answer():
    # What the expectations say the ports hold is what the simulators read
    # back from them: Result.to_fields is Result.from_fields's inverse.
    games = load_games(next(path for path in bundled_files() if path.endswith("traps.pgn")))
    found = [ply.result for plies in answers(games, GoldenSession(SHIPPED), count_limit=4)
             for ply in plies]
    assert any(result.upcoming for result in found) and any(result.draw for result in found)
    result_layout, upcoming_layout = ResultLayout(SHIPPED.depth), UpcomingLayout(SHIPPED.depth)
    for result in found:
        fields, upcoming = result.to_fields()
        read = Result.from_fields(result_layout.const(fields), upcoming_layout.const(upcoming))
        assert read == result
        # A changed field reads back as another answer.
        fields["plies_scanned"] += 1
        assert Result.from_fields(result_layout.const(fields),
                                  upcoming_layout.const(upcoming)) != result
