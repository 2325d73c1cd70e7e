"""8N1 asynchronous serial receiver and transmitter.

A small pair in the shape of amaranth-stdio's ``serial.py`` (which is not on
PyPI): each side is a :class:`~amaranth.lib.wiring.Component` whose nested
``Signature`` checks its parameters, bytes move as
:mod:`amaranth.lib.stream` transfers, and the receiver reports errors as a
:class:`~amaranth.lib.data.StructLayout`.

The line idles high. A frame is one start bit (low), eight data bits, least
significant first, and one stop bit (high). ``divisor`` is the number of
clocks per bit, so the baud rate is the clock frequency divided by it.
"""

from amaranth.hdl import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out


__all__ = ["UARTReceiver", "UARTTransmitter", "RXErrors", "SerialSignature", "MIN_DIVISOR",
           "check_divisor", "divisor_for"]

# The receiver samples mid-bit, two clocks after the synchroniser; below four
# clocks per bit there is no middle left to sample.
MIN_DIVISOR = 4


def divisor_for(clk_freq, baud):
    """Clocks per bit for ``baud`` at ``clk_freq``; the rate must be within 2 %."""
    divisor = round(clk_freq / baud)
    if divisor < MIN_DIVISOR:
        raise ValueError(f"{baud} baud needs at least {MIN_DIVISOR} clocks per bit; "
                         f"a {clk_freq / 1e6:g} MHz clock gives {clk_freq / baud:.2f}")
    error = abs(clk_freq / divisor - baud) / baud
    if error > 0.02:
        raise ValueError(f"{baud} baud is {error:.1%} off at {clk_freq / 1e6:g} MHz "
                         f"(divisor {divisor}); a UART tolerates about 2 %")
    return divisor


def check_divisor(divisor):
    """Refuse a UART divisor below :data:`MIN_DIVISOR` clocks per bit."""
    if not isinstance(divisor, int) or divisor < MIN_DIVISOR:
        raise TypeError(f"Divisor must be an integer of at least {MIN_DIVISOR} clocks per "
                        f"bit, not {divisor!r}")


class SerialSignature(wiring.Signature):
    """What both directions' signatures share: the clocks per bit the side
    is built for, checked once.

    Parameters
    ----------
    members : dict
        The side's members.
    divisor : int
        Clocks per bit, at least :data:`MIN_DIVISOR`.
    """

    def __init__(self, members, *, divisor):
        check_divisor(divisor)
        self._divisor = divisor
        super().__init__(members)

    @property
    def divisor(self):
        return self._divisor


class RXErrors(data.StructLayout):
    """Receiver error strobes, each high for one clock.

    ``frame``: the stop bit was low; the byte is dropped.
    ``overflow``: a byte arrived while the previous one was still not taken; the
    new byte is dropped.
    """
    def __init__(self):
        super().__init__({"frame": 1, "overflow": 1})


class UARTReceiver(wiring.Component):
    """8N1 receiver with start-bit validation and mid-bit sampling.

    Parameters
    ----------
    divisor : int
        Clocks per bit, at least :data:`MIN_DIVISOR`.

    Members
    -------
    rx : Signal(1), in
        The serial line; synchronised inside, so it may be an input pin.
    stream : stream.Signature(8), out
        Received bytes. ``valid`` stays high until ``ready``.
    errors : RXErrors, out
    """

    class Signature(SerialSignature):
        def __init__(self, *, divisor):
            super().__init__({
                "rx":     In(1, init=1),
                "stream": Out(stream.Signature(8)),
                "errors": Out(RXErrors()),
            }, divisor=divisor)

    def __init__(self, *, divisor):
        super().__init__(self.Signature(divisor=divisor))

    def elaborate(self, platform):
        m = Module()
        divisor = self.signature.divisor

        line = Signal(init=1)
        m.submodules.line_sync = FFSynchronizer(self.rx, line, init=1)

        timer    = Signal(range(divisor))
        bit_left = Signal(range(8))
        shreg    = Signal(8)

        with m.If(self.stream.ready):
            m.d.sync += self.stream.valid.eq(0)
        m.d.sync += self.errors.eq(0)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(~line):
                    # Half a bit on, the start bit must still be low; a shorter
                    # pulse is noise, not a frame.
                    m.d.sync += timer.eq(divisor // 2 - 1)
                    m.next = "START"

            with m.State("START"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    with m.If(line):
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += [timer.eq(divisor - 1), bit_left.eq(7)]
                        m.next = "DATA"

            with m.State("DATA"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    m.d.sync += [timer.eq(divisor - 1), shreg.eq(Cat(shreg[1:], line))]
                    m.d.sync += bit_left.eq(bit_left - 1)
                    with m.If(bit_left == 0):
                        m.next = "STOP"

            with m.State("STOP"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    with m.If(~line):
                        m.d.sync += self.errors.frame.eq(1)
                        # A break or a misaligned frame: resume at the next idle
                        # level, not at the next low sample.
                        m.next = "WAIT_IDLE"
                    with m.Else():
                        with m.If(self.stream.valid & ~self.stream.ready):
                            m.d.sync += self.errors.overflow.eq(1)
                        with m.Else():
                            m.d.sync += [self.stream.payload.eq(shreg), self.stream.valid.eq(1)]
                        # Leaving at mid stop bit gives half a bit of slack to
                        # a transmitter whose clock is a little slower.
                        m.next = "IDLE"

            with m.State("WAIT_IDLE"):
                with m.If(line):
                    m.next = "IDLE"

        return m


class UARTTransmitter(wiring.Component):
    """8N1 transmitter.

    Parameters
    ----------
    divisor : int
        Clocks per bit, at least :data:`MIN_DIVISOR`.

    Members
    -------
    tx : Signal(1), out
        The serial line, high when idle.
    stream : stream.Signature(8), in
        Bytes to send; ``ready`` is high while the transmitter is idle.
    """

    class Signature(SerialSignature):
        def __init__(self, *, divisor):
            super().__init__({
                "tx":     Out(1, init=1),
                "stream": In(stream.Signature(8)),
            }, divisor=divisor)

    def __init__(self, *, divisor):
        super().__init__(self.Signature(divisor=divisor))

    def elaborate(self, platform):
        m = Module()
        divisor = self.signature.divisor

        timer    = Signal(range(divisor))
        bit_left = Signal(range(10))
        # Stop bit, data, start bit; shifted out from the bottom.
        shreg    = Signal(10, init=1)

        m.d.comb += self.tx.eq(shreg[0])

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.stream.ready.eq(1)
                with m.If(self.stream.valid):
                    m.d.sync += [
                        shreg.eq(Cat(C(0, 1), self.stream.payload, C(1, 1))),
                        timer.eq(divisor - 1),
                        bit_left.eq(9),
                    ]
                    m.next = "SEND"

            with m.State("SEND"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    m.d.sync += timer.eq(divisor - 1)
                    with m.If(bit_left == 0):
                        # The stop bit has lasted a full bit time; the line stays high.
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += [shreg.eq(Cat(shreg[1:], C(1, 1))), bit_left.eq(bit_left - 1)]

        return m
