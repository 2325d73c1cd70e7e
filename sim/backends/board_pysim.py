"""The board design in Amaranth's simulator, spoken to at its UART pins.

:class:`PysimBoard` is a :class:`~axon.sim.backends.transport.Transport`:
the host's link client (:class:`axon.sim.backends.link.Link`) talks to it as to a
board on a serial port, and every byte goes through the board's UART, link
and detector (:class:`~axon.hdl.board.top.AxonBoard`) clock by clock. It is what
``axon query --port sim://`` runs.
"""

import collections
from dataclasses import dataclass

from amaranth.sim import Simulator

from ...hdl.params import SHIPPED
from ...hdl.board.protocol import MAX_WORDS
from ...hdl.board.top import AxonBoard
from .transport import Transport


__all__ = ["PysimBoard"]


@dataclass(frozen=True)
class _Gap:
    clocks: int


async def _ticks(ctx, count):
    # A loop rather than `ctx.tick().repeat()`: the latter leaves an async
    # generator open in a background testbench, which complains when collected.
    for _ in range(count):
        await ctx.tick()


class PysimBoard(Transport):
    """The board design in the Amaranth simulator, spoken to at its UART pins.

    Host bytes are serialised onto ``uart_rx`` bit by bit; ``uart_tx`` is
    sampled mid-bit and deserialised. The simulation advances only while a
    transaction needs it: :meth:`read` runs clocks until the bytes asked for
    have arrived, or until the board has been silent for longer than it ever
    takes to answer (then it returns fewer, like a serial port timing out).

    Parameters
    ----------
    config : DetectorConfig
        The board's detectors'.
    detectors : int
        Detectors behind the link.
    unit, perft : bool
        A search unit, a perft core on the board; while one counts (the
        design's ``busy``), a silent line is no sign that the board is done.
    divisor : int
        Clocks per bit; small (4) keeps the simulation fast.
    timeout_bits : int
        The link's inter-byte timeout in bit times.

    Members
    -------
    design : AxonBoard
        The design simulated (:meth:`_make_dut`).
    leds : dict
        ``{"repetition": bool, "error": bool}``, the board's LEDs now.
    clocks : int
        Clocks simulated so far.
    """

    # A simulated clock of 1 µs keeps femtosecond arithmetic exact.
    PERIOD = 1e-6
    CHUNK  = 64

    def __init__(self, config=SHIPPED, *, divisor=4, timeout_bits=64, detectors=1, unit=False,
                 perft=False):
        self.config = config
        self.divisor, self.timeout_bits = divisor, timeout_bits
        self.detectors = detectors
        self.unit = unit
        self.perft = perft
        self.design = self._make_dut()
        depth = config.depth
        self.timeout_clocks = divisor * timeout_bits
        # Longest silence of a board that will still answer: the inter-byte
        # timeout, then a full scan or the largest write or read (8 clocks a word).
        self._silence_limit = (self.timeout_clocks + depth + 8 * min(depth, MAX_WORDS) +
                               2 * self.CHUNK)
        self._to_board = collections.deque()
        self._from_board = bytearray()
        self._sending = False
        self._receiving = False
        self._activity = 0
        self.clocks = 0
        self._sim = Simulator(self.design)
        self._sim.add_clock(self.PERIOD)
        self.leds = {"repetition": False, "error": False}
        self._busy = False
        self._sim.add_testbench(self._drive_line, background=True)
        self._sim.add_testbench(self._sample_line, background=True)
        self._sim.add_process(self._watch_leds)

    def _make_dut(self):
        """The design at the pins; a broken variant for a test overrides it."""
        return AxonBoard(self.config, divisor=self.divisor, timeout_bits=self.timeout_bits,
                         detectors=self.detectors, unit=self.unit, perft=self.perft)

    async def _drive_line(self, ctx):
        rx = self.design.uart_rx
        while True:
            if not self._to_board:
                self._sending = False
                await _ticks(ctx, self.divisor)
                continue
            self._sending = True
            item = self._to_board.popleft()
            if isinstance(item, _Gap):
                ctx.set(rx, 1)
                await _ticks(ctx, item.clocks)
                continue
            for bit in [0, *((item >> i) & 1 for i in range(8)), 1]:
                ctx.set(rx, bit)
                await _ticks(ctx, self.divisor)
            self._activity += 1

    async def _sample_line(self, ctx):
        tx = self.design.uart_tx
        while True:
            await ctx.negedge(tx)
            self._receiving = True
            # The start bit began on this clock edge: sample mid-bit.
            await _ticks(ctx, self.divisor // 2)
            byte = 0
            for index in range(8):
                await _ticks(ctx, self.divisor)
                byte |= ctx.get(tx) << index
            await _ticks(ctx, self.divisor)
            if ctx.get(tx):
                self._from_board.append(byte)
            self._activity += 1
            self._receiving = False

    async def _watch_leds(self, ctx):
        # What a person looking at the board would see, for tests.
        # And whether a search or a perft runs, which keeps a silent board
        # answering.
        design = self.design
        while True:
            repetition, error, busy = await ctx.changed(design.led_repetition,
                                                        design.led_error, design.busy)
            self.leds = {"repetition": bool(repetition), "error": bool(error)}
            self._busy = bool(busy)

    def _run(self, clocks):
        self.clocks += clocks
        self._sim.run_until(self.clocks * self.PERIOD)

    def write(self, data):
        self._to_board.extend(bytes(data))

    def read(self, count, timeout=None):
        silent = 0
        while len(self._from_board) < count:
            before = self._activity
            self._run(self.CHUNK)
            if (self._activity != before or self._sending or self._receiving or
                    self._to_board or self._busy):
                silent = 0
            else:
                silent += self.CHUNK
                if silent > self._silence_limit:
                    break
        data = bytes(self._from_board[:count])
        del self._from_board[:count]
        return data

    def idle(self, clocks):
        """Keep the line high for ``clocks`` after what was written so far."""
        self._to_board.append(_Gap(clocks))

    def flush(self):
        """Run until everything written has been sent."""
        while self._to_board or self._sending:
            self._run(self.CHUNK)

    def resync(self):
        self.idle(self.timeout_clocks + 2 * self.divisor)
        self.flush()
        self.read(1 << 16)      # wait for any answer to what came before, and drop it
        self._from_board.clear()
