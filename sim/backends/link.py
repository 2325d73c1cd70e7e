"""The host's half of the link: a detector session on a board, over a serial
port or in simulation.

The board's half is the gateware of :mod:`axon.hdl.board.link`; the frames
both speak are encoded and decoded by :mod:`axon.sim.backends.link_codec`.

``open_transport(url)`` gives a :class:`~axon.sim.backends.transport.Transport`:

* ``/dev/ttyUSB1`` (or ``COM3``, optionally ``?baud=115200``): a real board
  through pyserial (:class:`SerialTransport`);
* ``sim://`` or ``sim://icebreaker?chains=4&rules=paper``: the whole board
  design, UART included, in the Amaranth simulator, driven at its UART pins
  (:class:`~axon.sim.backends.board_pysim.PysimBoard`);
* ``cxxrtl://`` with the same board and options: the same, compiled with
  CXXRTL and g++ (:class:`~axon.sim.backends.board_cxxrtl.CxxrtlBoard`).

A simulated board is the named board's configuration (the 1K boards' lean
one) changed by the URL's options, :data:`SIM_OPTIONS`: every field of
:class:`~axon.hdl.params.DetectorConfig` and the UART's ``divisor``
(:func:`simulated_config` reads them, for every caller).

:class:`Board` speaks the link protocol over any of them, and reads the
answers in the golden model's terms
(:func:`~axon.sim.backends.link_codec.parse_query`).
"""

import serial
import time
from urllib.parse import urlsplit, parse_qs

from ...boards.platforms import BOARDS, DEFAULT_BOARD, get_board
from ...hdl.board.protocol import Command, ErrorCode, ERROR_RESPONSE, RESPONSE_FLAG
from ...hdl.board.top import TIMEOUT_SECONDS
from .board_cxxrtl import CxxrtlBoard
from .board_pysim import PysimBoard
from .link_codec import (FrameDecoder, ProtocolVersionError, identify_request, write_request,
                         read_request, query_request, reset_request, parse_identity,
                         parse_words, parse_error, parse_query)
from .session import Answer, Session
from .transport import Transport


__all__ = ["SerialTransport", "open_transport", "simulated_config", "SIMULATED_SCHEMES",
           "SIM_OPTIONS", "Board", "LinkError", "LinkTimeout", "ProtocolVersionError"]

# The URL schemes of the board simulated at its UART pins: in Amaranth's
# simulator, and compiled with CXXRTL.
SIMULATED_SCHEMES = ("sim", "cxxrtl")
# A simulated board's options: the configuration's fields, and clocks per bit.
SIM_OPTIONS = ("depth", "chains", "rules", "pools", "scan", "upcoming", "divisor")
# The UART's clocks per bit in a simulated board: small keeps it fast.
SIM_DIVISOR = 4


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


def open_transport(url, *, baud=None, log=None):
    """A :class:`~axon.sim.backends.transport.Transport` for ``url``; see the
    module docstring. ``log`` receives progress lines of a step that takes
    long the first time (compiling the ``cxxrtl://`` board)."""
    parts = urlsplit(url)
    if parts.scheme in SIMULATED_SCHEMES:
        config, divisor = simulated_config(url)
        if parts.scheme == "cxxrtl":
            return CxxrtlBoard(config, divisor=divisor, log=log)
        return PysimBoard(config, divisor=divisor)
    options = _url_options(parts)
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
    raise ValueError(f"unknown transport {url!r}: give a serial port, sim://[BOARD][?chains=N] "
                     f"or cxxrtl://[BOARD][?chains=N]")


def _url_options(parts):
    return {key: values[-1] for key, values in parse_qs(parts.query).items()}


def simulated_config(url, *, where="", **defaults):
    """``(config, divisor)`` of a ``sim://BOARD?options`` URL (or another of
    :data:`SIMULATED_SCHEMES`): the board's own configuration (the 1K boards'
    lean one) with the :data:`SIM_OPTIONS` the URL gives, then those of
    ``defaults`` (not ``None``) that it does not, checked for the gateware.
    ``upcoming`` is ``yes``/``no`` (or ``true``/``false``, ``1``/``0``).
    A bad option is a ``ValueError`` that names it, after ``where``."""
    parts = urlsplit(url)
    scheme = parts.scheme or "sim"
    spec = get_board(parts.netloc or DEFAULT_BOARD)
    options = _url_options(parts)
    for key in options:
        if key not in SIM_OPTIONS:
            raise ValueError(f"unknown {scheme}:// option {key!r}; known: "
                             f"{', '.join(SIM_OPTIONS)}")
    changes = {key: _option(key, value) for key, value in options.items()}
    for key, value in defaults.items():
        if key not in SIM_OPTIONS:
            raise TypeError(f"unknown {scheme}:// option {key!r}")
        if value is not None:
            changes.setdefault(key, value)
    divisor = changes.pop("divisor", SIM_DIVISOR)
    if divisor < 2:
        raise ValueError(f"option divisor must be an integer of at least 2, not {divisor}")
    return spec.config.replace(**changes).check(where=where), divisor


_BOOLEANS = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}


def _option(key, value):
    if key in ("rules", "pools", "scan"):
        return value
    if key == "upcoming":
        try:
            return _BOOLEANS[value.lower()]
        except KeyError:
            raise ValueError(f"option upcoming must be yes or no, not {value!r}") from None
    return _int_option(key, value)


def _int_option(key, value):
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"option {key} must be an integer, not {value!r}") from None


class Board(Session):
    """The link protocol over a :class:`~axon.sim.backends.transport.Transport`;
    a detector session (:class:`~axon.sim.backends.session.Session`) of the
    configuration the board reports (:attr:`config`, from IDENTIFY).

    A board without the upcoming block answers the upcoming repetition as
    not available: ``None`` in each upcoming field of its results.

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
        """Ask the board what it is: its :class:`~axon.sim.backends.link_codec.Identity`.
        A board of another protocol version raises
        :class:`~axon.sim.backends.link_codec.ProtocolVersionError`."""
        self._identity = parse_identity(self.transact(identify_request(), Command.IDENTIFY))
        return self._identity

    @property
    def identity(self):
        return self._identity or self.identify()

    @property
    def config(self):
        """The board's :class:`~axon.hdl.params.DetectorConfig`, as it reports it."""
        return self.identity.config

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

    def write(self, address, word):
        """Store one word at ``address``: one WRITE frame of one word."""
        self.write_moves(address, [word])

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
        result, cycles = parse_query(payload, upcoming=occupancy is not None)
        if not self.config.upcoming:
            result = result.without_upcoming()
        return Answer(result, cycles)

    def reset(self):
        self.transact(reset_request(), Command.RESET)
