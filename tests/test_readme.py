# amaranth: UnusedElaboratable=no
"""The README and the docs tell the truth: the synopsis is the command line's,
the figure tables are what ``axon bench --readme`` prints from the run kept as
``docs/bench.json``, and the sample outputs are what the commands print."""

import argparse
import json
import re
import shutil
from pathlib import Path

import pytest

from axon.sim.bench.benchmark import REGENERATE, bench_header
from axon.sim.bench.fingerprint import GATEWARE_ROOT, gateware_fingerprint
from axon.sim.bench.readme import readme_tables
from axon.sim.cli.main import build_parser, main


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "documentation against its sources"


ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CLI_DOC = DOCS / "cli.md"
BOARDS_DOC = DOCS / "boards.md"
BENCH_RUN = DOCS / "bench.json"

_OPTION = re.compile(r"(?<![\w/-])(--?[a-z][\w-]*)")
_CHOICES = re.compile(r"(--?[a-z][\w-]*) ([\w-]+(?:\|[\w-]+)+)(?![\w/:|])")


def _synopsis():
    """``{command: text}`` from the first code block of the command-line page."""
    block = CLI_DOC.read_text().split("```")[1]
    commands = {}
    for line in block.strip().splitlines():
        if line.startswith("axon "):
            name = line.split()[1]
            commands[name] = line[len("axon " + name):]
        else:
            commands[name] += " " + line.strip()
    return commands


def _subparsers():
    parser = build_parser()
    action = next(action for action in parser._actions
                  if isinstance(action, argparse._SubParsersAction))
    return action.choices


@pytest.mark.quick
def test_synopsis_lists_every_command():
    assert sorted(_synopsis()) == sorted(_subparsers())


@pytest.mark.quick
@pytest.mark.parametrize("command", sorted(_subparsers()))
def test_synopsis_matches_help(command):
    text = _synopsis()[command]
    parser = _subparsers()[command]
    written = set(_OPTION.findall(text))
    known = set()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.help == argparse.SUPPRESS:
            # A deprecated name, kept for a while and shown nowhere.
            known.update(action.option_strings)
            continue
        if not action.option_strings:
            metavar = action.metavar or action.dest.upper()
            assert metavar in text, f"axon {command}: {metavar} missing from the synopsis"
            continue
        known.update(action.option_strings)
        assert written & set(action.option_strings), \
            f"axon {command}: {'/'.join(action.option_strings)} missing from the synopsis"
        if action.required:
            option = next(o for o in action.option_strings if o in written)
            assert f"[{option}" not in text, f"axon {command}: {option} is required"
    assert written <= known, f"axon {command} has no {sorted(written - known)}"
    for option, choices in _CHOICES.findall(text):
        action = next(a for a in parser._actions if option in a.option_strings)
        assert set(choices.split("|")) == set(action.choices), (command, option)


# --- axon bench --readme -----------------------------------------------------------

def _fits(device, lcs, available, runs, flops=952):
    return {"device": device, "fmax_mhz": {"min": min(runs), "median": sorted(runs)[1],
                                           "max": max(runs), "runs": runs},
            "logic_cells": {"used": lcs, "available": available,
                            "percent": round(100 * lcs / available, 1)},
            "flip_flops": flops, "block_rams": {"used": 9, "available": 30}}


MISFIT = {"error": "2 chains need ~1689 logic cells, the iCE40HX1K has 1280; "
                   "no chain count fits"}

BENCH = {
    "machine": {"date": "2026-11-23"}, "seconds": 413.1,
    "corpus": {"queries": 27019},
    "simulation": {"mismatches": 0, "latency_formula": "floor(P/2) + 3",
                   "formula_holds": True},
    "plies_scanned": {"mean": 23.69, "median": 11, "p99": 127, "max": 158},
    "clocks_per_query": {"mean": 14.62, "median": 8, "p99": 66, "max": 82},
    "plies_per_clock": 2.0,
    "hardware": {"core-up5k": _fits("iCE40UP5K-SG48", 2063, 5280, [38.32, 37.8, 37.29]),
                 "core-hx8k": _fits("iCE40HX8K-CT256", 2063, 7680, [95.15, 90.73, 88.98]),
                 "icebreaker": _fits("iCE40UP5K-SG48", 2780, 5280, [29.56, 28.55, 31.36]),
                 "icestick": MISFIT,
                 "hx8k": _fits("iCE40HX8K-CT256", 2757, 7680, [77.41, 83.17, 79.91])},
    "ns_per_query": {"fpga:core-up5k": {"mean": 386.8, "p99": 1746.0},
                     "fpga:core-hx8k": {"mean": 161.1, "p99": 727.4},
                     "cpw_c": {"mean": 61.1, "p99": 235.2,
                               "ratio_to_fpga": {"fpga:core-hx8k": 0.38}},
                     "golden_python": {"mean": 74000.6, "p99": 371831.7,
                                       "ratio_to_fpga": {"fpga:core-hx8k": 459.35}},
                     "new_peer": {"mean": 12.0}},
}


def _tables(text):
    """Each Markdown table of ``text`` as a list of its lines."""
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables


def test_bench_readme_figures():
    text = readme_tables(BENCH)
    # The board table shows seed 1, which is what `axon build` prints.
    assert "| `icebreaker` (default) | UP5K-SG48 | 24 | 2780 / 5280 (52.7 %) | 952 | " \
           "9 / 30 | 29.56 MHz (12 MHz) |" in text
    assert "| `icestick` | HX1K-TQ144 | does not fit | 2 chains need ~1689 / 1280 |" in text
    assert "| bare core, HX8K | 88.98 / 90.73 / 95.15 | 2063 (26.9 %) | 952 | 9 | " \
           "161 (727) |" in text
    assert "| `icestick` top | does not fit: 2 chains need ~1689 of 1280 logic cells |" in text
    assert "27,019 queries, 0 mismatches; sustained 2.0 plies a clock; latency " \
           "`floor(P/2) + 3` on every query." in text
    assert "| golden model in Python | 74,001 | 371,832 | ×459 |" in text
    assert "| wiki chain list in C (`-O2`) | 61.1 | 235.2 | ×0.38 |" in text
    assert "| `new_peer` | 12.0 |  |  |" in text       # a peer it does not know yet
    # A bench.json without hardware or software still gives every table.
    assert len(_tables(readme_tables({}))) == len(_tables(text)) == 6


def test_bench_readme_ecp5_rows_count_lut4s():
    # The ECP5 targets' logic cells are LUT4s, and their rows say so.
    ecp5 = {**_fits("LFE5U-85F-BG381", 1171, 83640, [111.26, 114.18, 116.59], flops=721),
            "family": "ecp5"}
    text = readme_tables({**BENCH, "hardware": {**BENCH["hardware"], "core-lfe5u-85f": ecp5,
                                                "ulx3s-85f": ecp5}})
    assert "| bare core, LFE5U-85F | 111.26 / 114.18 / 116.59 | 1171 LUT4s (1.4 %) | 721 |" \
        in text
    assert "| `ulx3s-85f` | LFE5U-85F-BG381 | 24 | 1171 / 83640 LUT4s (1.4 %) | 721 | " \
           "9 / 30 | 111.26 MHz (25 MHz) |" in text


def test_bench_hardware_alone(tmp_path, capsys):
    # `axon bench --hardware-only` runs the place-and-route phase alone; a
    # target it does not know is reported in its row, and the run fails.
    assert main(["bench", "--hardware-only", "--out", str(tmp_path), "--targets",
                 "core-nosuch"]) == 1
    out, err = capsys.readouterr()
    assert "| core-nosuch | | ValueError: unknown board 'core-nosuch'; supported: " in out
    assert json.loads((tmp_path / "hardware.json").read_text())["core-nosuch"]["error"]
    assert not (tmp_path / "bench.json").exists()
    assert main(["bench", "--hardware-only", "--no-hardware", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("axon bench: error: --hardware-only and --no-hardware "
                                       "exclude each other\n")


def test_readme_tables_have_the_shape_bench_prints():
    # Header rows and first columns: the README's tables are pasted from
    # `axon bench --readme`, not typed in another layout.
    known = {**BENCH, "ns_per_query": {name: figures for name, figures
                                       in BENCH["ns_per_query"].items() if name != "new_peer"}}
    generated = {table[0]: table for table in _tables(readme_tables(known))}
    pasted = {table[0]: table for path in (README, BOARDS_DOC, DOCS / "performance.md",
                                           DOCS / "upcoming.md")
              for table in _tables(path.read_text())}
    for header, table in generated.items():
        assert header in pasted, f"README lacks the table {header}"
        labels = {row.split(" | ")[0] for row in pasted[header][2:]}
        assert {row.split(" | ")[0] for row in table[2:]} <= labels, header


@pytest.mark.quick
def test_readme_figures_agree_with_each_other():
    # The build output block and the board table come from the same seed-1 build.
    text = BOARDS_DOC.read_text()
    build = text[text.index("Output of `axon build` on the iCEBreaker"):]
    cells = re.search(r"logic cells \(ICESTORM_LC\)\s+(\d+) / 5280", build).group(1)
    fmax = re.search(r"Fmax board(?:\.array)?\.clk: ([\d.]+) MHz", build).group(1)
    row = next(line for line in text.splitlines() if line.startswith("| `icebreaker` (default)"))
    assert f"| {cells} / 5280" in row and f"| {fmax} MHz (12 MHz) |" in row
    # The 1K boards' rows: the same build in both tables, within the device.
    boards = text[text.index("## Supported boards"):]
    for board in ("icestick", "icesugar-nano", "nandland-go"):
        row = next(line for line in text.splitlines() if line.startswith(f"| `{board}` |"))
        cells = re.search(r"\| (\d+) / 1280 \(", row).group(1)
        assert int(cells) <= 1280
        assert re.search(rf"^\| `{board}` \|.*\| {cells} / 1280 \(", boards, flags=re.M), board


def test_bench_readme_command(tmp_path, capsys):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(BENCH))
    assert main(["bench", "--readme", str(path)]) == 0
    assert capsys.readouterr().out == readme_tables(BENCH)
    assert main(["bench", "--out", str(tmp_path), "--readme"]) == 0
    assert capsys.readouterr().out == readme_tables(BENCH)
    for text in ("{not json", "[1, 2]"):
        path.write_text(text)
        assert main(["bench", "--readme", str(path)]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and err.startswith(f"axon bench: error: {path}: ")


@pytest.mark.quick
def test_embedding_example_runs():
    # The docs' Amaranth example, exactly as printed.
    example = re.search(r"<!-- embedding-example -->\n```python\n(.*?)```",
                        (DOCS / "embedding.md").read_text(), flags=re.S)
    assert example, "docs/embedding.md has no embedding example"
    exec(compile(example.group(1), "docs/embedding.md", "exec"), {})


@pytest.mark.quick
def test_property_table_comes_from_the_code():
    """The docs' table of proofs is `axon prove --list`'s, so that each
    property's description lives once, beside the proof."""
    from axon.sim.verify.formal import properties_markdown
    text = (DOCS / "formal.md").read_text()
    block = text.split("<!-- axon prove --list -->\n", 1)[1].split("<!-- end axon prove --list -->", 1)[0]
    assert block == properties_markdown()


@pytest.mark.quick
def test_bench_readme_warns_of_a_partial_run(tmp_path, capsys):
    path = tmp_path / "bench.json"
    path.write_text('{"partial": true, "interrupted_in": "place and route"}')
    assert main(["bench", "--readme", str(path)]) == 0
    err = capsys.readouterr().err
    assert err == (f"axon bench: warning: {path}: a partial run (interrupted during place and "
                   f"route); its tables miss what it did not measure\n")


# --- pasted figures and samples against their sources ----------------------------

def _sections(text):
    """``{heading comment: lines}`` of ``axon bench --readme``'s output."""
    sections = {}
    for block in text.split("\n\n<!-- ")[1:]:
        title, body = block.split(" -->\n", 1)
        sections[title] = body.rstrip("\n").splitlines()
    return sections


@pytest.mark.quick
def test_pasted_tables_are_the_kept_bench_run():
    # Every table (and line of figures) `axon bench --readme docs/bench.json`
    # prints is in each file its heading names, word for word: a figure typed
    # in, or left behind by a new run, fails here.
    bench = json.loads(BENCH_RUN.read_text())
    generated = _sections(readme_tables(bench))
    # The search rates', the hardware peer's, the layouts' and the search
    # unit's tables come with a bench that measured them.
    layouts = "layouts" in bench.get("workloads", {}).get("recorded_search", {})
    assert len(generated) == 6 + ("search_host" in bench) + ("hardware_peers" in bench) + \
        layouts + ("search_unit" in bench)
    for title, lines in generated.items():
        for name in re.findall(r"[\w/-]+\.md", title):
            assert "\n".join(lines) in (ROOT / name).read_text(), f"{name}: {title} drifted"


@pytest.mark.quick
def test_readme_figures_are_the_kept_bench_run():
    bench = json.loads(BENCH_RUN.read_text())
    text = " ".join(README.read_text().split())
    hx8k, up5k = bench["hardware"]["core-hx8k"], bench["hardware"]["core-up5k"]
    assert (f"runs at {hx8k['fmax_mhz']['median']} MHz on the HX8K and "
            f"{up5k['fmax_mhz']['median']} MHz on the UP5K") in text
    assert f"in {hx8k['logic_cells']['used']} logic cells" in text


def _samples(path):
    """``[(command, shown lines)]`` of the ``<!-- output of: ... -->`` blocks of ``path``."""
    return [(command, block.splitlines()) for command, block in re.findall(
        r"<!-- output of: (.*?) -->\n```\n(.*?)```", path.read_text(), flags=re.S)]


def _all_samples():
    # The README's are quick; a page's may take longer (a whole tournament).
    for path in [README, *sorted(DOCS.glob("*.md"))]:
        for command, shown in _samples(path):
            yield pytest.param(command, shown, id=f"{path.stem}-{command.split()[1]}",
                               marks=[pytest.mark.quick] if path == README else [])


# A sample's line that stands for lines the command printed and it leaves out.
ELISION = "..."


def check_sample(shown, printed):
    """Raise ``AssertionError`` unless ``printed`` (the command's lines)
    reads as ``shown``: its lines in order, next to each other except where
    an :data:`ELISION` line stands between them, and from the first line to
    the last unless it starts or ends with one."""
    runs, run = [], []
    for line in shown:
        if line == ELISION:
            runs.append(run)
            run = []
        else:
            run.append(line)
    runs.append(run)
    at = 0
    for index, run in enumerate(runs):
        if not run:
            continue
        starts = [start for start in range(at, len(printed) - len(run) + 1)
                  if printed[start:start + len(run)] == run]
        if index == 0:
            starts = starts[:1] if starts[:1] == [0] else []
        assert starts, f"not printed as shown: {run[0]!r} and the {len(run) - 1} lines after it"
        at = starts[0] + len(run)
    if runs[-1]:
        assert at == len(printed), f"{len(printed) - at} more lines printed after {runs[-1][-1]!r} " \
                                   f"and no {ELISION!r} says so"


@pytest.mark.quick
def test_a_sample_must_mark_what_it_leaves_out():
    printed = ["one", "two", "three", "four"]
    check_sample(printed, printed)
    check_sample(["one", ELISION, "three", "four"], printed)
    check_sample([ELISION, "two", ELISION], printed)
    for unmarked in (["one", "three", "four"], ["two", "three", "four"], ["one", "two"],
                     ["one", ELISION, "four", "three"]):
        with pytest.raises(AssertionError):
            check_sample(unmarked, printed)


@pytest.mark.parametrize("command, shown", list(_all_samples()))
def test_samples_are_what_the_commands_print(command, shown, tmp_path, monkeypatch,
                                                    capsys):
    # The sample may leave lines out where it says so, and every line it
    # shows is printed, in that order, by the command run as written from a
    # copy of the checkout.
    (tmp_path / "sim").symlink_to(ROOT / "sim")
    # A page may show a kept output (docs/search/*.json) through its command.
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")
    words = command.split()
    assert words[0] == "axon" and main(words[1:]) == 0
    check_sample(shown, capsys.readouterr().out.splitlines())


@pytest.mark.quick
def test_readme_is_a_front_door():
    lines = README.read_text().splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines"
    # Every page it links to exists.
    for target in re.findall(r"\]\(((?:docs|sim)/[^)#]+)", README.read_text()):
        assert (ROOT / target).is_file(), target


# --- the kept run measured today's gateware ----------------------------------------

def check_bench_gateware(bench, fingerprint):
    """Raise ``AssertionError`` unless ``bench`` (a bench.json) measured the
    gateware whose fingerprint is ``fingerprint``."""
    measured = bench.get("gateware", {}).get("fingerprint")
    assert measured == fingerprint, (
        f"docs/bench.json measured the gateware {measured or '(no fingerprint recorded)'}, "
        f"and the gateware is now {fingerprint}: its figures are out of date. Regenerate it "
        f"with `{REGENERATE}` and paste what `axon bench --readme docs/bench.json` prints")


def test_kept_bench_run_is_of_the_present_gateware():
    check_bench_gateware(json.loads(BENCH_RUN.read_text()), gateware_fingerprint())


def _gateware_copy(tmp_path, name):
    copy = tmp_path / name
    shutil.copytree(GATEWARE_ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


@pytest.mark.quick
def test_a_changed_gateware_fails_the_kept_run(tmp_path):
    measured = {"gateware": {"fingerprint": gateware_fingerprint()}}
    check_bench_gateware(measured, gateware_fingerprint())
    # Comments and docstrings are not the gateware: the same fingerprint.
    reworded = _gateware_copy(tmp_path, "reworded")
    params = reworded / "params.py"
    params.write_text('"""Other words."""\n# A new comment.\n' +
                      params.read_text().split('"""', 2)[2])
    check_bench_gateware(measured, gateware_fingerprint(reworded))
    # One number of the gateware changed: the kept run is of another gateware.
    changed = _gateware_copy(tmp_path, "changed")
    scanner = changed / "scanner.py"
    text = scanner.read_text()
    number = re.search(r"\b(\d+)\b", text.split('"""', 2)[2])
    scanner.write_text(text[:len(text) - len(text.split('"""', 2)[2])]
                       + text.split('"""', 2)[2].replace(number.group(0),
                                                          str(int(number.group(0)) + 1), 1))
    with pytest.raises(AssertionError, match="out of date"):
        check_bench_gateware(measured, gateware_fingerprint(changed))
    # And a run that recorded none, as before the fingerprint, is out of date too.
    with pytest.raises(AssertionError, match="no fingerprint recorded"):
        check_bench_gateware({}, gateware_fingerprint())


@pytest.mark.quick
def test_a_bench_run_records_its_gateware():
    header = bench_header()
    assert header["gateware"]["fingerprint"] == gateware_fingerprint()
    assert header["partial"] is False and header["machine"]["cores"]
    # The regeneration command is the documented one.
    assert f"`{REGENERATE}`" in (DOCS / "performance.md").read_text()


@pytest.mark.quick
def test_readme_ecp5_row_is_the_boards_page_build():
    # The README's ECP5 row is docs/boards.md's `axon build --board ulx3s-85f
    # --detectors 1` row, in the bench table's columns, not typed in.
    def row(path, board):
        line = next(line for line in path.read_text().splitlines()
                    if line.startswith(f"| `{board}` |"))
        return [cell.strip() for cell in line.strip("|").split("|")]
    board, device, chains, luts, flops, rams, fmax = row(README, "ulx3s-85f")
    pasted = [board, device, chains, luts.replace(" LUT4s", ""), flops, rams, fmax]
    assert pasted == row(BOARDS_DOC, "ulx3s-85f") and " LUT4s (" in luts


_COUNTS = {"one": 1, "two": 2, "four": 4, "eight": 8, "sixteen": 16}


def carried_detectors(text):
    """``{board: detectors}`` that ``text`` says a board carries by
    default: "the HX8K carries two", "the 85F carries 16"."""
    from axon.boards.platforms import BOARDS
    said = {}
    for name, count in re.findall(r"the ([A-Za-z0-9-]+) carries (\w+)", text):
        board = next((board for board in BOARDS
                      if board == name.lower() or board.endswith("-" + name.lower())), None)
        if board is not None:
            said[board] = int(count) if count.isdigit() else _COUNTS[count]
    return said


@pytest.mark.quick
def test_docs_say_how_many_detectors_a_board_carries():
    from axon.boards.detectors import default_detectors
    said = {}
    for path in [README, *sorted(DOCS.glob("*.md"))]:
        said.update(carried_detectors(path.read_text()))
    assert said == {"ulx3s-85f": 16}
    for board, count in said.items():
        assert default_detectors(board) == count, board
    # Broken: the sentence as it stood says the HX8K carries two; it has one.
    assert carried_detectors("the HX8K carries two") == {"hx8k": 2} != \
        {"hx8k": default_detectors("hx8k")}
