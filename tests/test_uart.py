# amaranth: UnusedElaboratable=no
"""The 8N1 UART pair: parameter checks, loopback, and a bus-functional receiver test."""

import random

import pytest
from amaranth.hdl import *
from amaranth.sim import Simulator

from axon.hdl.board.uart import UARTReceiver, UARTTransmitter, divisor_for


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "UART"


@pytest.mark.quick
def test_divisor_checked():
    for bad in (3, 0, 4.0, "12", None):
        with pytest.raises(TypeError, match=r"Divisor must be an integer of at least 4 clocks "
                                            r"per bit, not "):
            UARTReceiver(divisor=bad)
        with pytest.raises(TypeError, match=r"Divisor must be an integer"):
            UARTTransmitter(divisor=bad)


@pytest.mark.quick
def test_divisor_for():
    assert divisor_for(12e6, 1_000_000) == 12
    assert divisor_for(25e6, 1_000_000) == 25
    assert divisor_for(12e6, 115_200) == 104
    with pytest.raises(ValueError, match=r"4000000 baud needs at least 4 clocks per bit; "
                                         r"a 12 MHz clock gives 3.00"):
        divisor_for(12e6, 4_000_000)
    with pytest.raises(ValueError, match=r"is 4.0% off at 12 MHz \(divisor 5\)"):
        divisor_for(12e6, 2_500_000)


class _Loopback(Elaboratable):
    def __init__(self, divisor):
        self.tx = UARTTransmitter(divisor=divisor)
        self.rx = UARTReceiver(divisor=divisor)

    def elaborate(self, platform):
        m = Module()
        m.submodules.tx = self.tx
        m.submodules.rx = self.rx
        m.d.comb += self.rx.rx.eq(self.tx.tx)
        return m


@pytest.mark.parametrize("divisor", [4, 5, 12])
def test_loopback(divisor):
    rng = random.Random(divisor)
    sent = [rng.randrange(256) for _ in range(24)] + [0x00, 0xff, 0xa5]
    received = []
    dut = _Loopback(divisor)

    async def sender(ctx):
        for byte in sent:
            ctx.set(dut.tx.stream.payload, byte)
            ctx.set(dut.tx.stream.valid, 1)
            await ctx.tick().until(dut.tx.stream.ready)
            ctx.set(dut.tx.stream.valid, 0)
        # Let the last byte arrive.
        await ctx.tick().repeat(divisor * 12)

    async def receiver(ctx):
        ctx.set(dut.rx.stream.ready, 1)
        while True:
            await ctx.tick()
            if ctx.get(dut.rx.stream.valid):
                received.append(ctx.get(dut.rx.stream.payload))
            assert not ctx.get(dut.rx.errors.frame)
            assert not ctx.get(dut.rx.errors.overflow)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(sender)
    sim.add_testbench(receiver, background=True)
    sim.run()
    assert received == sent


class _LineDriver:
    """Bus-functional model of a serial line: bit times in (possibly fractional) clocks."""

    def __init__(self, ctx, line):
        self.ctx = ctx
        self.line = line
        self.clock_debt = 0.0

    async def hold(self, level, clocks):
        self.ctx.set(self.line, level)
        self.clock_debt += clocks
        whole = int(self.clock_debt)
        self.clock_debt -= whole
        for _ in range(whole):
            await self.ctx.tick()

    async def byte(self, value, bit_clocks, stop=1):
        await self.hold(0, bit_clocks)
        for index in range(8):
            await self.hold((value >> index) & 1, bit_clocks)
        await self.hold(stop, bit_clocks)


def _run_rx(divisor, drive):
    """Run ``drive(line_driver)``; return (bytes, frame errors, overflow errors)."""
    dut = UARTReceiver(divisor=divisor)
    received, frame_errors, overflows = [], [], []

    async def driver(ctx):
        await ctx.tick().repeat(3)
        await drive(_LineDriver(ctx, dut.rx))
        ctx.set(dut.rx, 1)
        await ctx.tick().repeat(divisor * 12)

    async def monitor(ctx):
        ctx.set(dut.stream.ready, 1)
        while True:
            await ctx.tick()
            if ctx.get(dut.stream.valid):
                received.append(ctx.get(dut.stream.payload))
            if ctx.get(dut.errors.frame):
                frame_errors.append(len(received))
            if ctx.get(dut.errors.overflow):
                overflows.append(len(received))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(driver)
    sim.add_testbench(monitor, background=True)
    sim.run()
    return received, frame_errors, overflows


@pytest.mark.parametrize("divisor,rate_error", [
    (4, -0.01), (4, 0.0), (4, 0.01),
    (12, -0.03), (12, 0.0), (12, 0.03),
    (25, -0.03), (25, 0.03),
])
def test_rx_tolerates_rate_error(divisor, rate_error):
    # Mid-bit sampling leaves half a bit, less one clock of edge detection,
    # over the 9.5 bits up to the stop bit's middle: 3 % at 12 clocks per bit,
    # only about 1 % at the simulator's 4.
    sent = [0x55, 0xaa, 0x00, 0xff, 0xa5, 0x3c]

    async def drive(line):
        for byte in sent:
            await line.byte(byte, divisor * (1 + rate_error))

    assert _run_rx(divisor, drive) == (sent, [], [])


def test_rx_ignores_glitch():
    divisor = 12

    async def drive(line):
        # Shorter than half a bit: noise, not a start bit.
        await line.hold(0, divisor // 2 - 3)
        await line.hold(1, divisor * 3)
        await line.byte(0x42, divisor)

    assert _run_rx(divisor, drive) == ([0x42], [], [])


def test_rx_framing_error_and_break():
    divisor = 8

    async def drive(line):
        await line.byte(0x11, divisor)
        await line.byte(0x22, divisor, stop=0)   # stop bit low: dropped, flagged
        await line.hold(1, divisor * 2)
        await line.hold(0, divisor * 30)          # a break: one error, no bytes
        await line.hold(1, divisor * 2)
        await line.byte(0x33, divisor)

    received, frame_errors, overflows = _run_rx(divisor, drive)
    assert received == [0x11, 0x33]
    assert frame_errors == [1, 1]
    assert overflows == []


@pytest.mark.quick
def test_rx_overflow():
    divisor = 4
    dut = UARTReceiver(divisor=divisor)
    flagged = []

    async def driver(ctx):
        line = _LineDriver(ctx, dut.rx)
        await line.hold(1, 3)
        await line.byte(0x01, divisor)
        await line.byte(0x02, divisor)          # nobody took 0x01
        await line.hold(1, divisor * 4)
        assert ctx.get(dut.stream.valid)
        assert ctx.get(dut.stream.payload) == 0x01

    async def monitor(ctx):
        while True:
            await ctx.tick()
            if ctx.get(dut.errors.overflow):
                flagged.append(True)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(driver)
    sim.add_testbench(monitor, background=True)
    sim.run()
    assert flagged == [True]
