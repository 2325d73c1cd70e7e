# amaranth: UnusedElaboratable=no
# (PlatformTop makes its AxonBoard here: a board whose constructor refuses
# its parameters still exists half-made, and the error says what was wrong;
# a second "never used" warning would only confuse. Every design made here
# is elaborated in normal use.)
"""The board design: detectors, host link and UART, and its pins on a platform.

:class:`AxonBoard` is everything but the pins, so the simulator drives the
very same design at its UART pins. :class:`PlatformTop` requests those pins
and the two LEDs from an amaranth-boards platform.

LEDs:

* *repetition*: the last query found an equal position (cleared by RESET).
* *error*: a frame was answered with an error; it stays lit until the next
  frame that is executed, so a glance tells whether the host is in step.
"""

from amaranth.hdl import *
from amaranth.lib import io, wiring
from amaranth.lib.wiring import In, Out

from ..params import SHIPPED, DetectorConfig
from ..search import Perft, SearchUnit
from .array import DetectorArray
from .link import HostLink
from .uart import UARTReceiver, UARTTransmitter, check_divisor


__all__ = ["AxonBoard", "PlatformTop", "DEFAULT_TIMEOUT_BITS", "TIMEOUT_SECONDS"]

# A frame is sent in one write; a gap this long inside a frame means the rest
# is not coming. USB bridges deliver a frame's bytes in a few packets of one
# or two 1 ms USB frames, well inside it.
TIMEOUT_SECONDS = 0.010
DEFAULT_TIMEOUT_BITS = round(TIMEOUT_SECONDS * 1_000_000)   # at 1 Mbaud


class AxonBoard(wiring.Component):
    """Repetition detectors served over an 8N1 UART.

    Parameters
    ----------
    config : DetectorConfig
        Each detector's, as for :class:`~axon.hdl.detector.AxonDetector`.
    detectors : int
        Detectors behind the link (:class:`~axon.hdl.board.array.DetectorArray`), 1..255.
    divisor : int
        Clocks per UART bit (board clock / baud).
    timeout_bits : int
        Inter-byte timeout of the link in bit times.
    unit : bool
        Carry a search unit (:class:`~axon.hdl.search.SearchUnit`, with a
        detector of ``config`` of its own) for the SEARCH command.
    perft : bool
        Carry a perft core (:class:`~axon.hdl.search.Perft`) for the PERFT
        command.

    Members
    -------
    uart_rx : Signal(1), in
        Serial data from the host, idle high.
    uart_tx : Signal(1), out
        Serial data to the host, idle high.
    led_repetition : Signal(1), out
    led_error : Signal(1), out
    busy : Signal(1), out
        A SEARCH or PERFT is being executed; a simulator waits for it to end.
    """

    def __init__(self, config=SHIPPED, *, divisor=12, timeout_bits=DEFAULT_TIMEOUT_BITS,
                 detectors=1, unit=False, perft=False):
        # Checked before the detector is made: a refused board makes no part.
        check_divisor(divisor)
        if not isinstance(timeout_bits, int) or timeout_bits < 20:
            raise TypeError(f"Timeout must be an integer of at least 20 bit times (two bytes), "
                            f"not {timeout_bits!r}")
        for name, value in (("unit", unit), ("perft", perft)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {value!r}")
        self.array = DetectorArray(DetectorConfig.checked(config), detectors)
        self.unit = SearchUnit(self.array.config) if unit else None
        self.perft = Perft() if perft else None
        self.divisor = divisor
        self.timeout_bits = timeout_bits
        super().__init__({
            "uart_rx":        In(1, init=1),
            "uart_tx":        Out(1, init=1),
            "led_repetition": Out(1),
            "led_error":      Out(1),
            "busy":           Out(1),
        })

    config    = property(lambda self: self.array.config)
    detectors = property(lambda self: self.array.count)
    units     = property(lambda self: 0 if self.unit is None else 1)
    perft_cores = property(lambda self: 0 if self.perft is None else 1)

    def elaborate(self, platform):
        m = Module()
        array = self.array
        m.submodules.uart_rx = uart_rx = UARTReceiver(divisor=self.divisor)
        m.submodules.uart_tx = uart_tx = UARTTransmitter(divisor=self.divisor)
        m.submodules.link = link = HostLink(array, timeout=self.divisor * self.timeout_bits,
                                            unit=self.unit, perft=self.perft)
        m.submodules.array = array
        if self.unit is not None:
            # A byte from the host stops a search: the unit starts afresh.
            m.submodules.unit = ResetInserter({"sync": link.unit_stop})(self.unit)
            wiring.connect(m, link.unit, self.unit)
        if self.perft is not None:
            m.submodules.perft = ResetInserter({"sync": link.perft_stop})(self.perft)
            wiring.connect(m, link.perft, self.perft)
        if self.unit is not None or self.perft is not None:
            m.d.comb += self.busy.eq(link.running)

        wiring.connect(m, uart_rx.stream, link.rx)
        wiring.connect(m, link.tx, uart_tx.stream)
        wiring.connect(m, link.detector, array)
        m.d.comb += [
            uart_rx.rx.eq(self.uart_rx),
            self.uart_tx.eq(uart_tx.tx),
            self.led_repetition.eq(link.repetition),
        ]

        with m.If(link.bad_frame):
            m.d.sync += self.led_error.eq(1)
        with m.Elif(link.good_frame):
            m.d.sync += self.led_error.eq(0)

        return m


def _timeout_bits(spec, baud):
    return max(20, round(TIMEOUT_SECONDS * (spec.baud if baud is None else baud)))


class PlatformTop(Elaboratable):
    """:class:`AxonBoard` on the pins of an amaranth-boards platform.

    Parameters
    ----------
    spec : BoardSpec
        Which LEDs to use, see :mod:`axon.boards.platforms`.
    config : DetectorConfig or None
        Each detector's (default ``spec.config``, the board's own).
    detectors : int
        Detectors behind the link (default 1).
    unit : bool
        Carry a search unit (default no).
    perft : bool
        Carry a perft core (default no).
    divisor : int
        Clocks per UART bit at the board clock.
    baud : int
        The baud rate, for an inter-byte timeout of :data:`TIMEOUT_SECONDS`
        (default ``spec.baud``).
    """

    def __init__(self, spec, config=None, *, divisor, baud=None, detectors=1, unit=False,
                 perft=False):
        self.spec = spec
        self.board = AxonBoard(spec.config if config is None else config, divisor=divisor,
                               timeout_bits=_timeout_bits(spec, baud), detectors=detectors,
                               unit=unit, perft=perft)

    def elaborate(self, platform):
        m = Module()
        m.submodules.board = board = self.board
        uart = platform.request("uart", 0, dir="-")
        m.submodules.uart_rx_buffer = uart_rx = io.Buffer("i", uart.rx)
        m.submodules.uart_tx_buffer = uart_tx = io.Buffer("o", uart.tx)
        m.d.comb += [
            board.uart_rx.eq(uart_rx.i),
            uart_tx.o.eq(board.uart_tx),
        ]
        for name, led, signal in (("led_repetition", self.spec.led_repetition,
                                   board.led_repetition),
                                  ("led_error", self.spec.led_error, board.led_error)):
            if led is not None:
                m.submodules[name] = buffer = io.Buffer("o", platform.request(*led, dir="-"))
                m.d.comb += buffer.o.eq(signal)
        return m
