"""Host driver for a detector board, over a serial port or in simulation.

``open_transport(url)`` gives a :class:`Transport`:

* ``/dev/ttyUSB1`` (or ``COM3``, optionally ``?baud=115200``): a real board
  through pyserial (:class:`SerialTransport`);
* ``sim://`` or ``sim://icebreaker?chains=3&rules=paper``: the whole board
  design, UART included, in the Amaranth simulator, driven at its UART pins
  (:class:`SimTransport`).

:class:`Board` speaks the link protocol over either.
"""

import collections
import serial
import time
from dataclasses import dataclass
from urllib.parse import urlsplit, parse_qs

from amaranth.sim import Simulator

from ..hdl.params import SHIPPED
from ..sim.backends.session import Answer, Session
from .protocol import (Command, ErrorCode, MAX_WORDS, ERROR_RESPONSE, RESPONSE_FLAG, FrameDecoder,
                       identify_request, write_request, read_request, query_request,
                       reset_request, parse_identity, parse_words, parse_query, parse_error)
from .platforms import BOARDS, DEFAULT_BOARD, get_board
from .top import AxonBoard, TIMEOUT_SECONDS


__all__ = ["Transport", "SerialTransport", "SimTransport", "open_transport",
           "Board", "LinkError", "LinkTimeout"]


class LinkError(RuntimeError):
    """The board answered with an error frame (``code``), or with the answer
    to another command than the one asked (``answer``, that frame's command)."""
    def __init__(self, code, command, *, answer=None):
        self.code = code
        self.command = command
        self.answer = answer
        if answer is not None:
            message = (f"board answered with frame 0x{answer:02x} to command "
                       f"0x{command:02x}, which expects 0x{command | RESPONSE_FLAG:02x}")
        else:
            name = code.name if isinstance(code, ErrorCode) else f"code {code}"
            message = f"board reported {name} for command 0x{command:02x}"
        super().__init__(message)


class LinkTimeout(RuntimeError):
    """The board did not answer."""


class Transport:
    """A byte pipe to a board."""

    def write(self, data):
        raise NotImplementedError

    def read(self, count, timeout):
        """Up to ``count`` bytes; fewer if ``timeout`` seconds pass without them."""
        raise NotImplementedError

    def resync(self):
        """Stay silent for longer than the board's inter-byte timeout and drop
        anything received, so that the board's parser hunts for a frame again."""
        raise NotImplementedError

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SerialTransport(Transport):
    """A board on a serial port (pyserial).

    Parameters
    ----------
    port : str
    baud : int
    """

    def __init__(self, port, *, baud=1_000_000):

        try:
            self._port = serial.Serial(port, baudrate=baud, timeout=1.0)
        except serial.SerialException as error:
            raise LinkTimeout(f"cannot open serial port {port}: {error}") from None
        self._resync_seconds = 2 * TIMEOUT_SECONDS

    def write(self, data):
        self._port.write(data)
        self._port.flush()

    def read(self, count, timeout):
        self._port.timeout = timeout
        return self._port.read(count)

    def resync(self):
        time.sleep(self._resync_seconds)
        self._port.reset_input_buffer()

    def close(self):
        self._port.close()


@dataclass(frozen=True)
class _Gap:
    clocks: int


async def _ticks(ctx, count):
    # A loop rather than `ctx.tick().repeat()`: the latter leaves an async
    # generator open in a background testbench, which complains when collected.
    for _ in range(count):
        await ctx.tick()


class SimTransport(Transport):
    """The board design in the Amaranth simulator, spoken to at its UART pins.

    Host bytes are serialised onto ``uart_rx`` bit by bit; ``uart_tx`` is
    sampled mid-bit and deserialised. The simulation advances only while a
    transaction needs it: :meth:`read` runs clocks until the bytes asked for
    have arrived, or until the board has been silent for longer than it ever
    takes to answer (then it returns fewer, like a serial port timing out).

    Parameters
    ----------
    config : DetectorConfig
        The board's detector.
    divisor : int
        Clocks per bit; small (4) keeps the simulation fast.
    timeout_bits : int
        The link's inter-byte timeout in bit times.

    Members
    -------
    leds : dict
        ``{"repetition": bool, "error": bool}``, the board's LEDs now.
    """

    # A simulated clock of 1 µs keeps femtosecond arithmetic exact.
    PERIOD = 1e-6
    CHUNK  = 64

    def __init__(self, config=SHIPPED, *, divisor=4, timeout_bits=64):
        self.design = AxonBoard(config, divisor=divisor, timeout_bits=timeout_bits)
        depth = config.depth
        self.divisor = divisor
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
        self._sim.add_testbench(self._drive_line, background=True)
        self._sim.add_testbench(self._sample_line, background=True)
        self._sim.add_process(self._watch_leds)

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
        design = self.design
        while True:
            repetition, error = await ctx.changed(design.led_repetition, design.led_error)
            self.leds = {"repetition": bool(repetition), "error": bool(error)}

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
            if self._activity != before or self._sending or self._receiving or self._to_board:
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


def open_transport(url, *, baud=None):
    """A :class:`Transport` for ``url``; see the module docstring."""
    parts = urlsplit(url)
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    if parts.scheme == "sim":
        config, divisor = sim_options(parts.netloc, options)
        return SimTransport(config, divisor=divisor)
    if parts.scheme in ("", "serial") or len(parts.scheme) == 1:   # /dev/ttyUSB1, COM3, C:\...
        port = parts.path if parts.scheme == "serial" else url.split("?")[0]
        if not port:
            raise ValueError(f"no serial port in {url!r}")
        for key in options:
            if key != "baud":
                raise ValueError(f"unknown serial option {key!r}; known: baud")
        if "baud" in options:
            baud = _int_option("baud", options["baud"])
        return SerialTransport(port, baud=baud or BOARDS[DEFAULT_BOARD].baud)
    raise ValueError(f"unknown transport {url!r}: give a serial port or sim://[BOARD][?chains=N]")


def sim_options(board, options):
    """``(config, divisor)`` of a ``sim://BOARD?options`` URL: the board's
    own configuration (the 1K boards' lean one) with the ``chains``,
    ``depth`` and ``rules`` the options give, and the ``divisor``."""
    spec = get_board(board or DEFAULT_BOARD)
    known = ("chains", "depth", "rules", "divisor")
    changes = {}
    for key, value in options.items():
        if key not in known:
            raise ValueError(f"unknown sim:// option {key!r}; known: {', '.join(known)}")
        changes[key] = value if key == "rules" else _int_option(key, value)
    divisor = changes.pop("divisor", 4)
    return spec.config.replace(**changes), divisor


def _int_option(key, value):
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"option {key} must be an integer, not {value!r}") from None


class Board(Session):
    """The link protocol over a :class:`Transport`; a detector session
    (:class:`~axon.sim.backends.session.Session`) of the board's configuration.

    Parameters
    ----------
    transport : Transport
    timeout : float
        Seconds to wait for an answer (a serial port; the simulator decides by
        itself when the board has gone quiet).
    """

    def __init__(self, transport, *, timeout=1.0):
        self.transport = transport
        self.timeout = timeout
        self._identity = None

    def transact(self, request, command):
        """Send ``request``, return the payload of the answer to ``command``."""
        self.transport.write(request)
        decoder = FrameDecoder()
        while True:
            data = self.transport.read(decoder.needed(), self.timeout)
            if not data:
                raise LinkTimeout(f"no answer to command 0x{command:02x}")
            frames = decoder.feed(data)
            if frames:
                break
        frame = frames[0]
        if frame.command == ERROR_RESPONSE:
            raise LinkError(*parse_error(frame.payload))
        if frame.command != command | RESPONSE_FLAG:
            raise LinkError(None, command, answer=frame.command)
        return frame.payload

    def identify(self):
        self._identity = parse_identity(self.transact(identify_request(), Command.IDENTIFY))
        return self._identity

    @property
    def identity(self):
        return self._identity or self.identify()

    @property
    def depth(self):
        return self.identity.depth

    def load(self, words):
        words = list(words)
        self._check_fits(words)
        self.write_moves(0, words)

    def write_moves(self, address, words):
        words = list(words)
        step = self.identity.max_words
        for offset in range(0, len(words), step):
            self.transact(write_request(address + offset, words[offset:offset + step]),
                          Command.WRITE)

    def read_moves(self, address, count):
        step = self.identity.max_words
        words = []
        for offset in range(0, count, step):
            payload = self.transact(read_request(address + offset,
                                                 min(step, count - offset)), Command.READ)
            words += parse_words(payload)
        return words

    def query(self, top, count_limit=4, occupancy=None, root=-1):
        """The :class:`~axon.sim.backends.session.Answer` of a scan back from
        ``top`` for a search from the position after ``root`` (-1: no game
        history); with the position's ``occupancy`` (a 64-bit bitboard) the
        result has the upcoming repetition too."""
        payload = self.transact(query_request(top, count_limit, occupancy or 0, root),
                                Command.QUERY)
        return Answer(*parse_query(payload, upcoming=occupancy is not None))

    def reset(self):
        self.transact(reset_request(), Command.RESET)
