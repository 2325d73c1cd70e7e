"""``axon export --ip``: the detector as an IP package a Verilog shop installs.

The package is a directory:

* ``rtl/``: the Verilog and its parameter header, as ``axon export
  --verilog`` writes them (:func:`~axon.sim.backends.export.export`);
* ``axon_detector.core``: a FuseSoC CAPI2 core, ``axon:repetition:detector``
  at the interface version (``templates/axon_detector.core``), with the
  targets ``default`` (the RTL), ``lint`` (Verilator, ``--lint-only -Wall``)
  and ``sim`` (Icarus, the Verilog testbench). The cocotb tests run through
  pytest: FuseSoC 2.4's simulation flow (Edalize 0.6) sets up cocotb 1, not
  cocotb 2, and its exit status does not say whether the tests passed;
* ``tb/axon_detector_tb.v``: a plain Verilog testbench
  (``testbench/axon_detector_tb.v``, copied) that reads the expectations
  when it runs, and ``tb/axon_detector_fields.vh``, the answer's fields by
  name for it (:func:`fields_text`);
* ``tests/``: the cocotb tests (``axon_detector_cocotb.py``), the pytest
  file that runs them (``test_axon_detector.py``) and the expectations
  (``expect.jsonl``, :mod:`axon.sim.ip.expect`);
* ``README.md`` (:mod:`~axon.sim.ip.readme`), which defines the interface,
  and ``pytest.ini`` (so that ``pytest`` on the package is
  configured by the package, not by a project around it).

Nothing in the package imports ``axon``: cocotb and a simulator are all a
Verilog team needs to run it.
"""

import json
import os
import shutil

from amaranth.lib import data

from ...hdl.params import CORE, DetectorConfig
from ...hdl.result import ResultLayout, UpcomingLayout
from ...hdl.version import VERSION
from ..backends.export import export
from .expect import GROUPS, expectations
from .readme import configuration_text, readme_text
from .template import TEMPLATES, fill


__all__ = ["VLNV_NAME", "vlnv", "write_package", "core_text", "fields_text"]

# Vendor, library and name of the core; the version is the interface's.
VLNV_NAME = "axon:repetition:detector"
TESTBENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testbench")
# What the package's own files are called inside it.
VERILOG = "rtl/axon_detector.v"
HEADER = "rtl/axon_detector_params.vh"
VERILOG_TB = "tb/axon_detector_tb.v"
FIELDS = "tb/axon_detector_fields.vh"
EXPECT = "tests/expect.jsonl"
COCOTB_MODULE = "axon_detector_cocotb"
# Copied as they are: the testbenches read the expectations when they run.
COPIED = {VERILOG_TB: "axon_detector_tb.v",
          f"tests/{COCOTB_MODULE}.py": f"{COCOTB_MODULE}.py",
          "tests/test_axon_detector.py": "test_axon_detector.py"}


def vlnv() -> str:
    """The core's name, ``axon:repetition:detector:VERSION``."""
    return f"{VLNV_NAME}:{VERSION}"


def core_text(config: DetectorConfig) -> str:
    """The CAPI2 core file (``templates/axon_detector.core``)."""
    return fill("axon_detector.core", {
        "vlnv": vlnv(),
        "description": f"Axon draw-by-repetition detector for chess engines "
                       f"({configuration_text(config)}), interface {VERSION}"})


def _field_lines(vector: str, layout: data.Layout, first: int):
    for index, (name, _) in enumerate(layout, first):
        upper = f"AXON_DETECTOR_{vector}_{name.upper()}"
        yield (f"    field_vector[{index}] = {vector}; field_name[{index}] = \"{name}\";\n"
               f"    field_lsb[{index}] = {upper}_LSB; field_width[{index}] = {upper}_WIDTH;")


def fields_text(config: DetectorConfig) -> str:
    """``tb/axon_detector_fields.vh``: the fields of the two answer vectors
    by name, from the layouts the header's offsets come from, so that the
    Verilog testbench finds each of ``expect.jsonl``'s fields by its name
    (``templates/axon_detector_fields.vh``)."""
    result = ResultLayout(config.depth, backstop=config.backstop)
    upcoming = UpcomingLayout(config.depth)
    fields = [*_field_lines("RESULT", result, 0),
              *_field_lines("UPCOMING", upcoming, len(list(result)))]
    return fill("axon_detector_fields.vh", {"count": len(fields), "fields": "\n".join(fields)})


def write_package(directory: str, config: DetectorConfig = CORE, *,
                  user_games=()) -> list:
    """Write the IP package of a detector of ``config`` into ``directory``
    (created if need be); ``user_games``, ``(source, [GameRecord])`` pairs,
    add the ``user`` group of the expectations. Returns the paths written,
    relative to ``directory``."""
    lines = expectations(config, user_games=user_games)
    written = []

    def path(name):
        full = os.path.join(directory, name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        written.append(name)
        return full

    export(path(VERILOG), config=config)
    written.append(HEADER)
    with open(path(EXPECT), "w") as file:
        for line in lines:
            file.write(json.dumps(line) + "\n")
    for name, source in COPIED.items():
        shutil.copyfile(os.path.join(TESTBENCH, source), path(name))
    with open(path(FIELDS), "w") as file:
        file.write(fields_text(config))
    with open(path("axon_detector.core"), "w") as file:
        file.write(core_text(config))
    shutil.copyfile(TEMPLATES / "pytest.ini", path("pytest.ini"))
    with open(path("README.md"), "w") as file:
        file.write(readme_text(config, lines, vlnv=vlnv(), vlnv_name=VLNV_NAME, groups=GROUPS))
    return written
