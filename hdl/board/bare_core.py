"""The bare core: the detector alone, with every input and output registered.

The benchmark measures the detector's own area and clock on a device with
this top. It is fed and read through shift registers, so that it needs only
three pins and nothing of the detector is optimised away. The benchmark's
hardware peer, :class:`~axon.hdl.zobrist_peer.ZobristPeer`, is measured
the same way (:class:`BarePeer`), and so is the search layer's perft
(:class:`BarePerft`), and the search unit with its detector
(:class:`BareSearchUnit`).
"""

from amaranth.hdl import *
from amaranth.lib import io

from amaranth.lib import wiring

from ..detector import AxonDetector
from ..params import SHIPPED
from ..search import Perft, SearchUnit
from ..zobrist_peer import ZobristPeer


__all__ = ["BareCore", "BarePeer", "BarePerft", "BareSearchUnit"]


def shift_registers(m, platform, inputs, outputs):
    """Drive ``inputs`` from a register shifted in from the UART's RX pin, and
    shift ``outputs`` out to its TX pin from a register that a load (two ones
    in a row at the input's end) captures them in."""
    uart = platform.request("uart", 0, dir="-")
    m.submodules.serial_in = serial_in = io.Buffer("i", uart.rx)
    m.submodules.serial_out = serial_out = io.Buffer("o", uart.tx)
    shift_in = Signal(len(inputs))
    captured = Signal(len(outputs))
    load = Signal()
    m.d.sync += [
        shift_in.eq(Cat(serial_in.i, shift_in[:-1])),
        load.eq(shift_in[-1] & serial_in.i),
    ]
    m.d.comb += [
        inputs.eq(shift_in),
        serial_out.o.eq(captured[0]),
    ]
    with m.If(load):
        m.d.sync += captured.eq(outputs)
    with m.Else():
        m.d.sync += captured.eq(captured >> 1)


class BareCore(Elaboratable):
    """The detector with registered inputs and outputs, for timing and area.

    A serial input shifts into a register that drives every detector input; a
    load pin captures every output into a register that shifts out to a pin.
    ``config`` is the detector's :class:`~axon.hdl.params.DetectorConfig`.
    """

    def __init__(self, config):
        self.config = config

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = AxonDetector(self.config)
        inputs = Cat(core.query.start, core.query.top, core.query.count_limit, core.memory.write_addr,
                     core.memory.write_word, core.memory.write_en, core.memory.read_addr)
        outputs = Cat(core.query.busy, core.query.done, core.query.result, core.query.cycles, core.memory.write_refused,
                      core.memory.read_word)
        if self.config.upcoming:
            # The occupancy and the upcoming answer, so that the path check is
            # not optimised away (their 86 shift-register cells are counted).
            inputs = Cat(inputs, core.upcoming.occupancy)
            outputs = Cat(outputs, core.upcoming.answer, core.upcoming.done)

        shift_registers(m, platform, inputs, outputs)
        return m


class BarePeer(Elaboratable):
    """The hash-key peer with registered inputs and outputs, as
    :class:`BareCore` has the detector: every member of its signature."""

    def __init__(self, key_bits, depth=256):
        self.key_bits, self.depth = key_bits, depth

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = ZobristPeer(self.depth, key_bits=self.key_bits)
        inputs, outputs = [], []
        for _, member, value in core.signature.flatten(core):
            (inputs if member.flow is wiring.In else outputs).append(value)
        shift_registers(m, platform, Cat(*inputs), Cat(*outputs))
        return m


class BarePerft(Elaboratable):
    """:class:`~axon.hdl.search.Perft` (the move generator, make and unmake,
    the attack test and the undo stack) with registered inputs and outputs,
    as :class:`BareCore` has the detector."""

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = Perft()
        inputs, outputs = [], []
        for _, member, value in core.signature.flatten(core):
            (inputs if member.flow is wiring.In else outputs).append(value)
        shift_registers(m, platform, Cat(*inputs), Cat(*outputs))
        return m


class BareSearchUnit(Elaboratable):
    """:class:`~axon.hdl.search.SearchUnit` (the perft walk with a score on
    every node and its embedded detector, of ``config``) with registered
    inputs and outputs, as :class:`BareCore` has the detector."""

    def __init__(self, config=SHIPPED):
        self.config = config

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = SearchUnit(self.config)
        inputs, outputs = [], []
        for _, member, value in core.signature.flatten(core):
            (inputs if member.flow is wiring.In else outputs).append(value)
        shift_registers(m, platform, Cat(*inputs), Cat(*outputs))
        return m
