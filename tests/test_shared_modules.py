# amaranth: UnusedElaboratable=no
"""Identical modules merged before CXXRTL writes a design.

A board's detectors are identical, and Amaranth writes one RTLIL module per
instance: merged, they are one C++ class that g++ compiles once, however
many the board holds. Modules that differ stay apart. Whether the merged
models answer like the golden model is the board tests' job
(``test_board_backends.py``, ``test_array.py``, and the 16-detector suite in
``test_search_suite.py``).
"""

import re
import shutil

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from axon.sim.backends.board_cxxrtl import CxxrtlBoard
from axon.sim.backends.link import simulated_board
from axon.sim.backends.shared_modules import merge_identical_modules


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "the CXXRTL models' compile"

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="a CXXRTL model needs g++, not on PATH")


class Counter(wiring.Component):
    """A counter by ``step``, doubled by a part of its own, so that a merged
    module has children."""
    count: Out(8)

    def __init__(self, step):
        self.step = step
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = Doubler()
        value = Signal(8)
        m.d.sync += value.eq(value + self.step)
        m.d.comb += [inner.value.eq(value), self.count.eq(inner.doubled)]
        return m


class Doubler(wiring.Component):
    value:   In(8)
    doubled: Out(8)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.doubled.eq(self.value << 1)
        return m


class Pair(wiring.Component):
    """Two counters, of the given steps, side by side in one output."""
    both: Out(16)

    def __init__(self, steps):
        self.steps = steps
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        for index, step in enumerate(self.steps):
            m.submodules[f"counter_{index}"] = counter = Counter(step)
            m.d.comb += self.both[8 * index:8 * index + 8].eq(counter.count)
        return m


@pytest.mark.quick
def test_identical_modules_become_one_and_different_ones_stay_apart():
    same = merge_identical_modules(rtlil.convert(Pair((1, 1)), name="pair", emit_src=False))
    # pair, two counters, two inners: pair, one counter and its inner.
    assert (same.modules, same.distinct) == (5, 3)
    # The counter keeps its hierarchy; its inner part is flattened into it.
    assert same.shared == (("\\pair.counter_0", 2),)
    assert same.rtlil.count("attribute \\keep_hierarchy 1") == 1
    assert "cell \\pair.counter_0 \\counter_1" in same.rtlil
    # Counters by another step differ in a constant: nothing to share but
    # the inner parts.
    apart = merge_identical_modules(rtlil.convert(Pair((1, 2)), name="pair", emit_src=False))
    assert (apart.modules, apart.distinct) == (5, 4)
    assert apart.shared == (("\\pair.counter_0.inner", 2),)


# Two copies of a module whose port Amaranth named after a netlist cell: the
# number differs, and the copies are still one module. (In a detector, the
# scanner has such ports.)
NUMBERED_PORTS = """attribute \\top 1
module \\top
  wire width 2 \\a
  wire width 2 \\b
  wire width 2 output 0 \\both
  cell \\top.left \\left
    connect \\port$11$0 \\a [1:0]
  end
  cell \\top.right \\right
    connect \\port$22$0 \\b [1:0]
  end
  connect \\both {{ \\a [0] \\b [0] }}
end
module \\top.left
  wire width 2 output 0 \\port$11$0
  connect \\port$11$0 2'01
end
module \\top.right
  wire width 2 output 0 \\port$22$0
  connect \\port$22$0 {right}
end
"""


def test_ports_numbered_by_the_netlist_do_not_keep_copies_apart():
    same = merge_identical_modules(NUMBERED_PORTS.format(right="2'01"))
    assert same.distinct == 2 and same.shared == (("\\top.left", 2),)
    assert "connect \\port$0$0 \\b [1:0]" in same.rtlil
    apart = merge_identical_modules(NUMBERED_PORTS.format(right="2'10"))
    assert apart.distinct == 3 and apart.shared == ()


def test_bad_rtlil_is_refused_by_line():
    with pytest.raises(ValueError, match=r"^RTLIL line 2 is outside a module: wire width 1 \\a$"):
        merge_identical_modules("attribute \\top 1\nwire width 1 \\a\n")
    with pytest.raises(ValueError, match=r"^RTLIL module \\m has no end$"):
        merge_identical_modules("module \\m\n  wire width 1 \\a\n")


class UnmergedCxxrtlBoard(CxxrtlBoard):
    """The board model as CXXRTL writes it unmerged: every detector flattened
    into the board's class, compiled once per detector."""
    MERGE_MODULES = False


def module_classes(source):
    """The C++ classes CXXRTL wrote, one per module kept."""
    return re.findall(r"^struct (p_\w+) : public module \{", source, re.M)


@needs_gxx
@pytest.mark.parametrize("model", [CxxrtlBoard, UnmergedCxxrtlBoard])
def test_a_boards_detectors_are_one_cxx_class(tmp_path, model):
    # What `--port cxxrtl://hx8k?detectors=2` compiles, written and not compiled.
    board = simulated_board("cxxrtl://hx8k?detectors=2")
    source, cached = model(board.config, divisor=board.divisor, detectors=board.detectors,
                           build_dir=tmp_path)._design_source()
    assert not cached
    one_class = module_classes(source) == ["p_axon__board_2e_array_2e_detector__0",
                                           "p_axon__board"]
    assert one_class == (model is CxxrtlBoard)
