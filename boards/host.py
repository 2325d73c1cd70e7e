"""The host's link client for a detector board, over a serial port or in simulation.

``open_transport(url)`` gives a :class:`~axon.sim.backends.transport.Transport`:

* ``/dev/ttyUSB1`` (or ``COM3``, optionally ``?baud=115200``): a real board
  through pyserial (:class:`SerialTransport`);
* ``sim://`` or ``sim://icebreaker?chains=4&rules=paper``: the whole board
  design, UART included, in the Amaranth simulator, driven at its UART pins
  (:class:`~axon.sim.backends.board_pysim.PysimBoard`);
* ``cxxrtl://`` with the same board and options: the same, compiled with
  CXXRTL and g++ (:class:`~axon.sim.backends.board_cxxrtl.CxxrtlBoard`).

:class:`Board` speaks the link protocol over any of them, and reads the
answers in the golden model's terms (:func:`parse_query`).
"""

import serial
import time
from urllib.parse import urlsplit, parse_qs

from ..hdl.result import QueryResult
from ..sim.backends.board_cxxrtl import CxxrtlBoard
from ..sim.backends.board_pysim import PysimBoard
from ..sim.backends.session import Answer, Session
from ..sim.backends.transport import Transport
from ..sim.model.golden import Result
from ..hdl.board.protocol import (Command, ErrorCode, ERROR_RESPONSE, QUERY_ANSWER_BYTES, RESPONSE_FLAG,
                       FrameDecoder, identify_request, write_request, read_request,
                       query_request, reset_request, parse_identity, parse_words, parse_error)
from .platforms import BOARDS, DEFAULT_BOARD, get_board
from ..hdl.board.top import TIMEOUT_SECONDS


__all__ = ["SerialTransport", "open_transport", "sim_options", "SIMULATED_SCHEMES",
           "parse_query", "Board", "LinkError", "LinkTimeout"]

# The URL schemes of the board simulated at its UART pins: in Amaranth's
# simulator, and compiled with CXXRTL.
SIMULATED_SCHEMES = ("sim", "cxxrtl")


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
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    if parts.scheme in SIMULATED_SCHEMES:
        config, divisor = sim_options(parts.netloc, options, scheme=parts.scheme)
        if parts.scheme == "cxxrtl":
            return CxxrtlBoard(config, divisor=divisor, log=log)
        return PysimBoard(config, divisor=divisor)
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


def sim_options(board, options, *, scheme="sim"):
    """``(config, divisor)`` of a ``sim://BOARD?options`` URL (or another of
    :data:`SIMULATED_SCHEMES`): the board's own configuration (the 1K boards'
    lean one) with the ``chains``, ``depth`` and ``rules`` the options give,
    and the ``divisor``."""
    spec = get_board(board or DEFAULT_BOARD)
    known = ("chains", "depth", "rules", "divisor")
    changes = {}
    for key, value in options.items():
        if key not in known:
            raise ValueError(f"unknown {scheme}:// option {key!r}; known: {', '.join(known)}")
        changes[key] = value if key == "rules" else _int_option(key, value)
    divisor = changes.pop("divisor", 4)
    return spec.config.replace(**changes), divisor


def _int_option(key, value):
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"option {key} must be an integer, not {value!r}") from None


def parse_query(payload, upcoming=True):
    """``(Result, cycles)`` from a query answer, a :class:`~axon.hdl.result.QueryResult`;
    without ``upcoming`` (a query that gave no occupancy) the upcoming fields
    are left out."""
    if len(payload) != QUERY_ANSWER_BYTES:
        raise ValueError(f"query answer has {len(payload)} bytes, expected "
                         f"{QUERY_ANSWER_BYTES}")
    record = QueryResult.from_bits(int.from_bytes(payload, "little"))
    result = Result.from_fields(record, record.upcoming if upcoming else None)
    return result, record.cycles


class Board(Session):
    """The link protocol over a :class:`~axon.sim.backends.transport.Transport`;
    a detector session (:class:`~axon.sim.backends.session.Session`) of the
    board's configuration.

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
        return Answer(*parse_query(payload, upcoming=occupancy is not None))

    def reset(self):
        self.transact(reset_request(), Command.RESET)
