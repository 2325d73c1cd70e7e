# amaranth: UnusedElaboratable=no
"""``axon export``: the Verilog a user gets answers like the golden model."""

import re

import pytest

from axon.hdl.params import SHIPPED, Stop
from axon.hdl.result import ResultLayout
from axon.hdl.version import INTERFACE_VERSION, VERSION
from axon.hdl.word import MoveWord
from axon.sim.cli.main import main
from axon.sim.backends.export import VerilogSession
from axon.sim.verify.soak import check_batch


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "Verilog export"

# What `axon export` writes by default: the repetition core alone.
CORE = SHIPPED.replace(upcoming=False)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    directory = tmp_path_factory.mktemp("export")
    import os
    here = os.getcwd()
    # Relative paths: the built-in Yosys is WebAssembly and sees the working
    # directory only.
    os.chdir(directory)
    try:
        assert main(["export", "--verilog", "-o", "axon_detector.v"]) == 0
    finally:
        os.chdir(here)
    return directory / "axon_detector.v", directory / "axon_detector_params.vh"


def _localparams(path):
    return {name: int(value) for name, value in
            re.findall(r"^localparam (\w+) = (\d+);$", path.read_text(), flags=re.M)}


@pytest.mark.quick
def test_header_gives_every_field_and_stop_code(exported):
    _, header = exported
    params = _localparams(header)
    for field_name, field in ResultLayout(256, backstop=True):
        assert params[f"AXON_DETECTOR_RESULT_{field_name.upper()}_LSB"] == field.offset
        assert params[f"AXON_DETECTOR_RESULT_{field_name.upper()}_WIDTH"] == field.width
    for field_name, field in MoveWord.as_shape():
        assert params[f"AXON_DETECTOR_WORD_{field_name.upper()}_LSB"] == field.offset
    assert {name: value for name, value in params.items() if name.startswith("AXON_DETECTOR_STOP_")} == \
           {f"AXON_DETECTOR_STOP_{member.name}": member.value for member in Stop}
    assert params["AXON_DETECTOR_RESULT_BITS"] == ResultLayout(256, backstop=True).size
    assert params["AXON_DETECTOR_ROOT_ADDRESS_BITS"] == 9     # signed, -1..255
    assert "localparam AXON_DETECTOR_ROOT_ADDRESS_NONE = -1;" in header.read_text()


@pytest.mark.quick
def test_header_carries_the_interface_version(exported):
    _, header = exported
    params = _localparams(header)
    carried = tuple(params[f"AXON_DETECTOR_VERSION_{part}"] for part in ("MAJOR", "MINOR", "PATCH"))
    assert carried == INTERFACE_VERSION
    assert f"// Interface version {VERSION}:" in header.read_text()


@pytest.mark.quick
def test_exported_module_ports(exported):
    verilog, _ = exported
    module = re.search(r"^module axon_detector\(([^)]*)\);", verilog.read_text(), flags=re.M)
    assert set(module.group(1).replace(" ", "").split(",")) == {
        "clk", "rst",
        "query__start", "query__top", "query__root_address", "query__count_limit", "query__busy", "query__done",
        "query__result", "query__cycles",
        "memory__write_addr", "memory__write_word", "memory__write_en", "memory__write_refused",
        "memory__read_addr", "memory__read_word",
        "upcoming__occupancy", "upcoming__answer", "upcoming__done"}


def test_exported_verilog_answers_like_the_golden_model(exported, tmp_path):
    verilog, _ = exported
    session = VerilogSession(str(verilog), CORE, build_dir=tmp_path)
    # The soak's batches: legal games and random move-list images.
    report = check_batch(session, seed=13, index=0, queries=3000)
    assert report.queries >= 3000 and report.mismatches == 0
    assert len(report.kinds) > 3


def test_a_broken_export_is_caught(exported, tmp_path):
    # A module whose scanners (the pools' and the backstop's) never raise
    # done must fail the same check.
    verilog, _ = exported
    text = verilog.read_text()
    broken_text, edits = re.subn(r"^(\s*)query__done <= \\\$\d+ ;$", r"\1query__done <= 1'h0;",
                                 text, flags=re.M)
    assert edits == 2
    broken = tmp_path / "broken.v"
    broken.write_text(broken_text)
    session = VerilogSession(str(broken), CORE, build_dir=tmp_path)
    report = check_batch(session, seed=13, index=0, queries=200)
    assert report.mismatches == report.queries > 0
