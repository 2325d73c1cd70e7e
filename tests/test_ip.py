"""``axon export --ip``: the IP package as a Verilog shop uses it.

The commands of docs/embedding.md's FuseSoC section run as printed: the
export, FuseSoC's ``lint`` and ``sim`` targets, and the package's cocotb
tests through pytest. Each skips cleanly where its tool is not installed.
Both testbenches read ``tests/expect.jsonl`` when they run: a changed
answer in it must fail both, and a line added to it must run in both; the
generated Verilog without its lint waivers must fail the lint. The README
defines the interface, and its timing diagram is the detector's.
"""

import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import chess
from amaranth.hdl import ClockDomain, Module
from amaranth.lib import data
from amaranth.sim import Simulator

from axon.hdl import AxonDetector
from axon.hdl.params import SHIPPED
from axon.hdl.result import ResultLayout, UpcomingLayout
from axon.hdl.word import MoveWord
from axon.hdl.version import VERSION
from axon.sim.backends.session import GoldenSession, answers
from axon.sim.cli.main import main
from axon.sim.model.games import bundled_files, load_games
from axon.sim.model.golden import Result
from axon.sim.ip.package import VLNV_NAME, fields_text
from axon.sim.ip.readme import (RESULT_MEANINGS, UPCOMING_MEANINGS, VERILATOR_FLOOR, WORD_MEANINGS,
                              field_table)
from axon.sim.ip.timing import EXAMPLE_COUNT_LIMIT, EXAMPLE_WORDS, draw, query_timing


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


def _run(command, cwd, *, first_on_path=()):
    """``command`` through the shell in ``cwd``, as printed, with the
    tools installed beside the interpreter running the tests first on the
    ``PATH`` (after ``first_on_path``); skips when a tool it needs is missing."""
    missing = _missing(command)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    env = dict(os.environ, AMARANTH_USE_YOSYS="builtin",
               PATH=os.pathsep.join([*map(str, first_on_path), str(Path(sys.executable).parent),
                                     os.environ.get("PATH", "")]))
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
                 "tb/axon_detector_fields.vh", "tests/axon_detector_cocotb.py",
                 "tests/test_axon_detector.py", "pytest.ini", "README.md"):
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
    assert all(line["query"]["root_address"] >= 0 for line in search)
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


def _write_lines(package, lines):
    (package / "tests" / "expect.jsonl").write_text("".join(json.dumps(line) + "\n"
                                                            for line in lines))


@pytest.fixture(scope="module")
def wrong(workdir):
    """A copy of the package whose expectations say a wrong answer:
    ``(name, line number, count the detector finds)``."""
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
    _write_lines(broken, kept)
    return "wrong", len(kept), count


def test_a_changed_answer_fails_the_cocotb_run(workdir, wrong):
    name, number, count = wrong
    run = _run(f"python -m pytest {name} -k search", workdir)
    output = run.stdout + run.stderr
    assert run.returncode == 1, output[-3000:]
    assert f"expect.jsonl line {number} (" in output
    assert f"result.count is {count}, expected {count + 1}" in output


def test_a_changed_answer_fails_the_sim_target(workdir, wrong):
    name, number, count = wrong
    run = _run(_printed_with("sim").replace("--cores-root ip", f"--cores-root {name}"), workdir)
    assert run.returncode != 0
    assert re.search(rf"^FAIL: tests/expect.jsonl line {number} \(.*\): result.count is "
                     rf"{count}, expected {count + 1}$", run.stdout, flags=re.M), run.stdout[-3000:]
    assert "PASS" not in run.stdout


def test_added_cases_run_in_both_testbenches(workdir):
    # The paper's figures and two lines added by hand, in a group of their
    # own: the search's first query (which writes every word it reads),
    # right, then the same saying one word more applied. Both testbenches
    # replay both, and fail on the second alone.
    package = _copy(workdir, "added")
    header, *lines = _lines(package)
    figures = [line for line in lines if line["group"] == "figures"]
    right = dict(next(line for line in lines if line["group"] == "search"),
                 group="mine", case="added by hand")
    plies = right["expect"]["result"]["plies_scanned"]
    result = dict(right["expect"]["result"], plies_scanned=plies + 1)
    wrong = dict(right, case="added by hand, wrong", expect=dict(right["expect"], result=result))
    _write_lines(package, [header, *figures, right, wrong])
    queries = len(figures) + 2
    message = (f"line {queries + 1} (added by hand, wrong): result.plies_scanned is {plies}, "
               f"expected {plies + 1}")
    sim = _run(_printed_with("sim").replace("--cores-root ip", "--cores-root added"), workdir)
    output = sim.stdout + sim.stderr
    assert sim.returncode != 0 and "PASS" not in output, output[-3000:]
    assert f"FAIL: tests/expect.jsonl {message}" in sim.stdout, output[-3000:]
    assert len(re.findall(r"^FAIL: ", sim.stdout, flags=re.M)) == 1, output[-3000:]
    assert f"1 wrong answer(s) in {queries} queries" in output
    cocotb = _run("python -m pytest added -k user", workdir)
    output = cocotb.stdout + cocotb.stderr
    assert cocotb.returncode == 1, output[-3000:]
    assert "AssertionError: 1 wrong answer(s):" in output, output[-3000:]
    assert f"expect.jsonl {message}" in output
    assert "user: 2 queries replayed" in output, output[-3000:]


@pytest.mark.quick
def test_the_readme_and_the_tests_name_one_verilator_floor():
    # The package's pytest file needs no axon, so it states the floor
    # itself: the README's must be the same.
    source = (ROOT / "sim" / "ip" / "testbench" / "test_axon_detector.py").read_text()
    major, minor = re.search(r"^VERILATOR_FLOOR = \((\d+), (\d+)\)$", source,
                             flags=re.M).groups()
    assert VERILATOR_FLOOR == f"{major}.{int(minor):03d}"


@pytest.mark.parametrize("version, floor_skips", [("5.006", True), ("5.036", False)])
def test_cocotb_in_verilator_below_the_floor_skips(workdir, tmp_path, version, floor_skips):
    # A Verilator that says it is VERSION (Debian 12's is 5.006, too old for
    # cocotb 2's VPI); at the floor, the tests go on to build with it (and
    # fail, the stand-in being no compiler).
    fake = tmp_path / "verilator"
    fake.write_text(f"#!/bin/sh\necho 'Verilator {version} 2023-01-22 rev (stand-in)'\n")
    fake.chmod(0o755)
    run = _run("SIM=verilator python -m pytest ip -k figures", workdir, first_on_path=[tmp_path])
    output = run.stdout + run.stderr
    if floor_skips:
        assert run.returncode == 0, output[-3000:]
        assert re.search(r"\b1 skipped\b", output), output[-3000:]
        assert f"verilator {version} is older than 5.036, the oldest that cocotb 2 supports" \
            in output
    else:
        assert run.returncode != 0 and "older than" not in output, output[-3000:]


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
    built = subprocess.run(["iverilog", "-g2005", "-I", "rtl", "-I", "tb", "-o",
                            str(tmp_path / "tb"), "tb/axon_detector_tb.v",
                            "rtl/axon_detector.v"], cwd=package,
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


def _bits(field):
    width = field.width
    return str(field.offset) if width == 1 else f"{field.offset + width - 1}:{field.offset}"


def test_the_readme_defines_the_interface(workdir):
    # What an integrator needs, in the package itself: every field of the
    # move word and of both answers at its place, the squares, the barrier,
    # castling, en passant, promotion, occupancy, root, count_limit, reset
    # and the timing diagram of the exported configuration.
    readme = (workdir / "ip" / "README.md").read_text()
    for layout in (MoveWord.as_shape(), ResultLayout(SHIPPED.depth, backstop=True),
                   UpcomingLayout(SHIPPED.depth)):
        for name, field in layout:
            assert re.search(rf"^\| `{name}` \| {_bits(field)} \| {field.width} \| \w",
                             readme, flags=re.M), name
    for words in ("0 = a1, 1 = b1, ... 7 = h1, 8 = a2, ...", "**The barrier bit**",
                  "**Castling**", "**En passant**", "**Promotion**", "* `query__root_address`:",
                  "* `query__count_limit`:", "bit *i* is 1 when square *i* is occupied",
                  "## Reset", "## Timing"):
        assert words in readme, words
    assert draw(query_timing(SHIPPED), len(EXAMPLE_WORDS) - 1) in readme
    # No placeholder is left, and the full docs are named by their paths.
    assert "${" not in readme and "`docs/embedding.md`" in readme


@pytest.mark.quick
def test_a_field_added_to_a_layout_needs_its_meaning():
    # The answer's tables come from the layouts: every field of the shipped
    # answers has its words, and a field added without words is refused
    # rather than printed bare.
    for layout, meanings in ((ResultLayout(SHIPPED.depth, backstop=True), RESULT_MEANINGS),
                             (UpcomingLayout(SHIPPED.depth), UPCOMING_MEANINGS),
                             (MoveWord.as_shape(), WORD_MEANINGS)):
        table = field_table(layout, meanings)
        assert all(f"| `{name}` |" in table for name, _ in layout)
    layout = data.StructLayout({**dict((name, field.shape) for name, field
                                       in UpcomingLayout(SHIPPED.depth)), "later": 1})
    with pytest.raises(KeyError, match="later"):
        field_table(layout, UPCOMING_MEANINGS)


@pytest.mark.quick
def test_the_verilog_testbench_finds_every_field_by_name():
    # Its table comes from the layouts, as the header's offsets do: each
    # field of both answers, under the header's names for its place.
    text = fields_text(SHIPPED)
    named = re.findall(r'field_vector\[(\d+)\] = (\w+); field_name\[\1\] = "(\w+)";\n'
                       r'\s*field_lsb\[\1\] = AXON_DETECTOR_(\w+)_LSB; '
                       r'field_width\[\1\] = AXON_DETECTOR_\4_WIDTH;', text)
    layouts = [("RESULT", ResultLayout(SHIPPED.depth, backstop=SHIPPED.backstop)),
               ("UPCOMING", UpcomingLayout(SHIPPED.depth))]
    expected = [(vector, name, f"{vector}_{name.upper()}")
                for vector, layout in layouts for name, _ in layout]
    assert [(vector, name, place) for _, vector, name, place in named] == expected
    assert f"localparam FIELDS = {len(expected)};" in text


def _recorded_rows(config, timing):
    """The one-bit ports of the timing diagram's example, clock period by
    clock period, from a simulation of the detector; and what they read
    before the first query."""
    dut = AxonDetector(config)
    top = len(EXAMPLE_WORDS) - 1
    names = list(timing.rows())
    rows = {name: [] for name in names}
    after_reset = {}
    ports = {"memory__write_en": dut.memory.write_en, "query__start": dut.query.start,
             "query__busy": dut.query.busy, "query__done": dut.query.done,
             "upcoming__done": dut.upcoming.done}

    async def write(ctx, address):
        ctx.set(dut.memory.write_addr, address)
        ctx.set(dut.memory.write_word.as_value(), EXAMPLE_WORDS[address])
        ctx.set(dut.memory.write_en, 1)

    async def bench(ctx):
        after_reset.update(busy=ctx.get(dut.query.busy), done=ctx.get(dut.query.done),
                           result=ctx.get(dut.query.result.as_value()),
                           upcoming=ctx.get(dut.upcoming.answer.as_value()))
        ctx.set(dut.upcoming.occupancy, int(chess.Board().occupied))
        ctx.set(dut.query.top, top)
        ctx.set(dut.query.count_limit, EXAMPLE_COUNT_LIMIT)
        # The list, and an earlier query whose answer the diagram shows.
        for address in range(top + 1):
            await write(ctx, address)
            await ctx.tick()
        ctx.set(dut.memory.write_en, 0)
        ctx.set(dut.query.start, 1)
        await ctx.tick()
        ctx.set(dut.query.start, 0)
        await ctx.tick().until(dut.upcoming.done)
        # The drawn periods: two writes, the start, and on.
        for period in range(timing.periods):
            ctx.set(dut.memory.write_en, 0)
            # The periods before the start write the last words up to the top.
            if period < timing.start:
                await write(ctx, top - timing.start + 1 + period)
            ctx.set(dut.query.start, int(period == timing.start))
            for name in names:
                rows[name].append(ctx.get(ports[name]))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return rows, after_reset


def test_the_timing_diagram_is_the_detectors():
    timing = query_timing(SHIPPED)
    rows, after_reset = _recorded_rows(SHIPPED, timing)
    assert rows == timing.rows()
    # A diagram one clock off (done a clock late, upcoming__done on time)
    # differs from what the detector does.
    late = dataclasses.replace(timing, clocks=timing.clocks + 1,
                               upcoming_after=timing.upcoming_after - 1)
    assert rows != late.rows()
    # The README's reset: nothing busy, no answer, every field 0.
    assert after_reset == {"busy": 0, "done": 0, "result": 0, "upcoming": 0}


def test_reset_is_as_the_readme_says():
    # rst after an answer: busy, done and upcoming__done fall (done was
    # high before it), and the move list keeps its words.
    m = Module()
    m.domains.sync = domain = ClockDomain("sync")
    m.submodules.dut = dut = AxonDetector(SHIPPED)
    top = len(EXAMPLE_WORDS) - 1
    seen = {}

    async def bench(ctx):
        for address, word in enumerate(EXAMPLE_WORDS):
            ctx.set(dut.memory.write_addr, address)
            ctx.set(dut.memory.write_word.as_value(), word)
            ctx.set(dut.memory.write_en, 1)
            await ctx.tick()
        ctx.set(dut.memory.write_en, 0)
        ctx.set(dut.query.top, top)
        ctx.set(dut.query.count_limit, EXAMPLE_COUNT_LIMIT)
        ctx.set(dut.query.start, 1)
        await ctx.tick()
        ctx.set(dut.query.start, 0)
        await ctx.tick().until(dut.upcoming.done)
        seen["before"] = (ctx.get(dut.query.done), ctx.get(dut.upcoming.done))
        ctx.set(domain.rst, 1)
        await ctx.tick()
        ctx.set(domain.rst, 0)
        seen["after"] = (ctx.get(dut.query.busy), ctx.get(dut.query.done),
                         ctx.get(dut.upcoming.done))
        ctx.set(dut.memory.read_addr, top)
        await ctx.tick()
        seen["word"] = ctx.get(dut.memory.read_word.as_value())

    sim = Simulator(m)
    sim.add_clock(1e-8, domain="sync")
    sim.add_testbench(bench)
    sim.run()
    assert seen == {"before": (1, 1), "after": (0, 0, 0), "word": EXAMPLE_WORDS[top]}
    readme = (ROOT / "sim" / "ip" / "templates" / "README.md").read_text()
    assert "`query__busy`, `query__done` and `upcoming__done` are 0" in readme
    assert "Reset does not clear the move\nlist" in readme


@pytest.mark.quick
def test_the_page_draws_the_readmes_diagram():
    diagram = draw(query_timing(SHIPPED), len(EXAMPLE_WORDS) - 1)
    shown = re.search(r"<!-- timing diagram: .*? -->\n```\n(.*?)\n```", EMBEDDING.read_text(),
                      flags=re.S)
    assert shown and shown.group(1) == diagram
