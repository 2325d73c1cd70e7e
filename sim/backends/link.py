"""The host's half of the link: a detector session on a board, over a serial
port or in simulation.

The board's half is the gateware of :mod:`axon.hdl.board.link`; the frames
both speak are encoded and decoded by :mod:`axon.sim.backends.link_codec`.

``open_transport(url)`` gives a :class:`~axon.sim.backends.transport.Transport`:

* ``/dev/ttyUSB1`` (or ``COM3``, optionally ``?baud=115200``): a real board
  through pyserial (:class:`SerialTransport`);
* ``sim://`` or ``sim://icebreaker?chains=4&rules=paper`` (or
  ``sim://ice40-hx8k-b-evn?detectors=4``): the whole board
  design, UART included, in the Amaranth simulator, driven at its UART pins
  (:class:`~axon.sim.backends.board_pysim.PysimBoard`);
* ``cxxrtl://`` with the same board and options: the same, compiled with
  CXXRTL and g++ (:class:`~axon.sim.backends.board_cxxrtl.CxxrtlBoard`).

A simulated board is the named board's configuration (the 1K boards' lean
one) changed by the URL's options, :data:`SIM_OPTIONS`: every field of
:class:`~axon.hdl.params.DetectorConfig` and the UART's ``divisor``
and the detectors behind the link (:func:`simulated_board` reads them, for
every caller).

:class:`Board` speaks the link protocol over any of them, and reads the
answers in the golden model's terms
(:func:`~axon.sim.backends.link_codec.parse_query`).
"""

import collections
import os
import threading
import time
from typing import Any, Callable, Deque, List, NamedTuple, Optional, Sequence, Tuple
from urllib.parse import urlsplit, parse_qs

import serial

from ...boards.detectors import default_detectors
from ...boards.platforms import BOARDS, DEFAULT_BOARD, get_board
from ...hdl.board.protocol import (Command, ErrorCode, ERROR_RESPONSE, MAX_DETECTORS,
                                   RESPONSE_FLAG)
from ...hdl.board.top import TIMEOUT_SECONDS
from ...hdl.params import DetectorConfig
from .board_cxxrtl import CxxrtlBoard
from .board_pysim import PysimBoard
from .link_codec import (FrameDecoder, Identity, ProtocolVersionError, identify_request,
                         write_request, read_request, query_request, reset_request,
                         parse_identity, parse_words, parse_error, parse_query,
                         older_protocol, older_protocol_error)
from .session import Answer, Session
from .transport import Transport


__all__ = ["SerialTransport", "open_transport", "open_board", "simulated_config",
           "simulated_board", "SimulatedBoard", "SIMULATED_SCHEMES", "SIM_OPTIONS", "Board",
           "DetectorSession", "LinkError", "LinkTimeout", "PortError", "ProtocolVersionError"]

# The URL schemes of the board simulated at its UART pins: in Amaranth's
# simulator, and compiled with CXXRTL.
SIMULATED_SCHEMES = ("sim", "cxxrtl")
# A simulated board's options: the configuration's fields, and clocks per bit.
# A simulated board's options: the configuration's fields, clocks per bit,
# and the detectors behind the link.
SIM_OPTIONS = ("depth", "chains", "rules", "pools", "scan", "upcoming", "backstop", "divisor",
               "detectors")
# The UART's clocks per bit in a simulated board: small keeps it fast.
SIM_DIVISOR = 4


class LinkError(RuntimeError):
    """The board answered with an error frame (``code``), or with the answer
    to another command than the one asked (``answer``, that frame's command)."""
    def __init__(self, code, command, *, answer=None, detail=None):
        self.code = code
        self.command = command
        self.answer = answer
        if detail is not None:
            message = (f"board answered with frame 0x{answer:02x} to command "
                       f"0x{command:02x}: {detail}")
        elif answer is not None:
            message = (f"board answered with frame 0x{answer:02x} to command "
                       f"0x{command:02x}, which expects 0x{command | RESPONSE_FLAG:02x}")
        else:
            name = code.name if isinstance(code, ErrorCode) else f"code {code}"
            message = f"board reported {name} for command 0x{command:02x}"
        super().__init__(message)


class LinkTimeout(RuntimeError):
    """The board did not answer."""


class PortError(ValueError):
    """A serial port that cannot be opened: it does not exist, it is busy or
    it is not the user's. A bad ``--port``, refused before any work."""


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
            # pyserial's message repeats the port and the OS error; the
            # caller names the port, so the reason alone is said.
            reason = os.strerror(error.errno) if isinstance(error.errno, int) else \
                str(error.args[0] if error.args else error)
            raise PortError(f"cannot open the serial port: {reason}") from None
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


def open_transport(url: str, *, baud: Optional[int] = None,
                   log: Optional[Callable[[str], None]] = None) -> Transport:
    """A :class:`~axon.sim.backends.transport.Transport` for ``url``; see the
    module docstring. ``log`` receives progress lines of a step that takes
    long the first time (compiling the ``cxxrtl://`` board)."""
    parts = urlsplit(url)
    if parts.scheme in SIMULATED_SCHEMES:
        board = simulated_board(url)
        if parts.scheme == "cxxrtl":
            return CxxrtlBoard(board.config, divisor=board.divisor, detectors=board.detectors,
                               log=log)
        return PysimBoard(board.config, divisor=board.divisor, detectors=board.detectors)
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


class SimulatedBoard(NamedTuple):
    """What a ``sim://`` or ``cxxrtl://`` URL simulates: each detector's
    configuration, the UART's clocks per bit, and the detectors."""
    config:    DetectorConfig
    divisor:   int
    detectors: int


def simulated_config(url: str, *, where: str = "",
                     **defaults: Any) -> Tuple[DetectorConfig, int]:
    """``(config, divisor)`` of a ``sim://BOARD?options`` URL, as
    :func:`simulated_board` reads it."""
    board = simulated_board(url, where=where, **defaults)
    return board.config, board.divisor


def simulated_board(url: str, *, where: str = "", **defaults: Any) -> SimulatedBoard:
    """The :class:`SimulatedBoard` of a ``sim://BOARD?options`` URL (or
    another of :data:`SIMULATED_SCHEMES`): the board's own configuration (the
    1K boards' lean one) and detector count
    (:func:`~axon.boards.detectors.default_detectors`) with the
    :data:`SIM_OPTIONS` the URL gives, then those of ``defaults`` (not
    ``None``) that it does not, checked for the gateware. ``upcoming`` and
    ``backstop`` are ``yes``/``no`` (or ``true``/``false``, ``1``/``0``). A bad option is a
    ``ValueError`` that names it, after ``where``."""
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
    detectors = changes.pop("detectors", default_detectors(spec.name))
    if not 1 <= detectors <= MAX_DETECTORS:
        raise ValueError(f"option detectors must be an integer in 1..{MAX_DETECTORS}, "
                         f"not {detectors}")
    return SimulatedBoard(spec.config.replace(**changes).check(where=where), divisor, detectors)


_BOOLEANS = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}


def _option(key, value):
    if key in ("rules", "pools", "scan"):
        return value
    if key in ("upcoming", "backstop"):
        try:
            return _BOOLEANS[value.lower()]
        except KeyError:
            raise ValueError(f"option {key} must be yes or no, not {value!r}") from None
    return _int_option(key, value)


def _int_option(key, value):
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"option {key} must be an integer, not {value!r}") from None


class _Request:
    """One request frame on its way: its answer's payload, or the error it drew."""
    __slots__ = ("frame", "command", "detector", "payload", "error", "done")

    def __init__(self, frame, command, detector):
        self.frame, self.command, self.detector = frame, command, detector
        self.payload = self.error = None
        self.done = False

    def settle(self, payload=None, error=None):
        self.payload, self.error, self.done = payload, error, True


class Board(Session):
    """The link protocol over a :class:`~axon.sim.backends.transport.Transport`.

    A board carries :attr:`detectors` detectors of one configuration
    (:attr:`config`, from IDENTIFY). :meth:`sessions` gives a detector
    session (:class:`~axon.sim.backends.session.Session`) for each; the
    board itself is the session of detector 0, as a board of one detector is.

    The sessions may be used from as many threads at once: each request
    waits for its answer, and a link transfer carries every request that is
    ready when it starts (as many bytes as the board's request buffer holds),
    so N searches on N detectors share each round trip. The board answers in
    the order it was asked, each answer naming its detector.

    A board without the upcoming block answers the upcoming repetition as
    not available: ``None`` in each upcoming field of its results.

    Parameters
    ----------
    transport : Transport
    timeout : float
        Seconds to wait for an answer (a serial port; the simulator decides by
        itself when the board has gone quiet).
    """

    def __init__(self, transport: Transport, *, timeout: float = 1.0) -> None:
        self.transport = transport
        self.timeout = timeout
        self._identity: Optional[Identity] = None
        self._ready = threading.Condition()
        self._pending: Deque[_Request] = collections.deque()
        self._transferring = False
        self._sessions: Optional[List["DetectorSession"]] = None
        # For measurements: link transfers (round trips) made, and their bytes.
        self.transfers = 0
        self.bytes_sent = 0
        self.bytes_received = 0

    # -- the link ----------------------------------------------------------------------

    def exchange(self, requests: Sequence[Tuple[bytes, int, int]]) -> List[bytes]:
        """Send ``(frame, command, detector)`` requests, with whatever other
        threads have ready; return each one's answer payload, in order. The
        first request that drew an error frame raises its :class:`LinkError`
        (after all of them were answered)."""
        mine = [_Request(*request) for request in requests]
        with self._ready:
            self._pending.extend(mine)
            while not all(request.done for request in mine):
                if self._transferring:
                    self._ready.wait()
                    continue
                batch = self._take_batch()
                self._transferring = True
                self._ready.release()
                try:
                    self._transfer(batch)
                finally:
                    self._ready.acquire()
                    self._transferring = False
                    self._ready.notify_all()
        for request in mine:
            if request.error is not None:
                raise request.error
        return [request.payload for request in mine]

    def _take_batch(self):
        # As many ready requests as the board's buffer holds, at least one;
        # before IDENTIFY has told its size, one at a time.
        room = self._identity.rx_buffer if self._identity else 0
        batch = [self._pending.popleft()]
        room -= len(batch[0].frame)
        while self._pending and len(self._pending[0].frame) <= room:
            room -= len(self._pending[0].frame)
            batch.append(self._pending.popleft())
        return batch

    def _transfer(self, batch):
        self.transfers += 1
        sending = b"".join(request.frame for request in batch)
        self.bytes_sent += len(sending)
        try:
            self.transport.write(sending)
        except BaseException as error:
            for request in batch:
                request.settle(error=error)
            raise
        decoder, frames = FrameDecoder(), collections.deque()
        for at, request in enumerate(batch):
            try:
                while not frames:
                    data = self.transport.read(decoder.needed(), self.timeout)
                    if not data:
                        raise LinkTimeout(f"no answer to command 0x{request.command:02x}")
                    self.bytes_received += len(data)
                    frames.extend(decoder.feed(data))
                request.settle(*self._judge(request, frames.popleft()))
            except LinkTimeout as error:
                for lost in batch[at:]:
                    lost.settle(error=error)
                return
            except BaseException as error:
                for lost in batch[at:]:
                    if not lost.done:
                        lost.settle(error=error)
                raise

    @staticmethod
    def _judge(request, frame):
        """``(payload, error)`` of ``frame``, the answer to ``request``."""
        if request.command == Command.IDENTIFY and older_protocol(frame):
            return None, older_protocol_error()
        if frame.command == ERROR_RESPONSE:
            try:
                return None, LinkError(*parse_error(frame.payload))
            except ValueError as error:
                return None, LinkError(None, request.command, answer=frame.command,
                                       detail=str(error))
        if frame.command != request.command | RESPONSE_FLAG:
            return None, LinkError(None, request.command, answer=frame.command)
        if frame.detector != request.detector:
            return None, LinkError(None, request.command, answer=frame.command,
                                   detail=f"from detector {frame.detector}, asked "
                                          f"{request.detector}")
        return frame.payload, None

    def transact(self, request: bytes, command: int, detector: int = 0) -> bytes:
        """Send ``request`` (for ``detector``), return the payload of the
        answer to ``command``."""
        return self.exchange([(request, command, detector)])[0]

    # -- what the board is ---------------------------------------------------------------

    def identify(self) -> Identity:
        """Ask the board what it is: its :class:`~axon.sim.backends.link_codec.Identity`.
        A board of another protocol version raises
        :class:`~axon.sim.backends.link_codec.ProtocolVersionError`."""
        self._identity = parse_identity(self.transact(identify_request(), Command.IDENTIFY))
        return self._identity

    @property
    def identity(self) -> Identity:
        return self._identity or self.identify()

    @property
    def config(self) -> DetectorConfig:  # type: ignore[override]
        """Each detector's :class:`~axon.hdl.params.DetectorConfig`, as the board reports it."""
        return self.identity.config

    @property
    def detectors(self) -> int:
        """Detectors on the board, as it reports them."""
        return self.identity.detectors

    def sessions(self) -> List["DetectorSession"]:
        """A :class:`DetectorSession` for each detector, in index order (the
        same objects each time)."""
        if self._sessions is None:
            self._sessions = [DetectorSession(self, index) for index in range(self.detectors)]
        return list(self._sessions)

    # -- detector 0's session, and any detector's requests ----------------------------

    def load(self, words: Sequence[int], *, detector: int = 0) -> None:
        words = list(words)
        self._check_fits(words)
        self.write_moves(0, words, detector=detector)

    def write_moves(self, address: int, words: Sequence[int], *, detector: int = 0) -> None:
        self.exchange(self._write_requests(address, list(words), detector))

    def _write_requests(self, address, words, detector):
        # The WRITE frames that store `words` from `address`, as many words
        # a frame as the board takes.
        step = self.identity.max_words
        return [(write_request(address + offset, words[offset:offset + step], detector),
                 Command.WRITE, detector) for offset in range(0, len(words), step)]

    def write(self, address: int, word: int, *, detector: int = 0) -> None:
        """Store one word at ``address``: one WRITE frame of one word."""
        self.write_moves(address, [word], detector=detector)

    def read_moves(self, address: int, count: int, *, detector: int = 0) -> List[int]:
        step = self.identity.max_words
        words = []
        for offset in range(0, count, step):
            # One frame a transfer: a READ's answer is long, its request short.
            payload = self.transact(read_request(address + offset, min(step, count - offset),
                                                 detector), Command.READ, detector)
            words += parse_words(payload)
        return words

    def query(self, top: int, count_limit: int = 4, occupancy: Optional[int] = None,
              root: int = -1, *, detector: int = 0) -> Answer:
        """The :class:`~axon.sim.backends.session.Answer` of a scan back from
        ``top`` for a search from the position after ``root`` (-1: no game
        history); with the position's ``occupancy`` (a 64-bit bitboard) the
        result has the upcoming repetition too."""
        return self.write_and_query((), top, count_limit, occupancy, root, detector=detector)

    def write_and_query(self, writes: Sequence[Tuple[int, int]], top: int, count_limit: int = 4,
                        occupancy: Optional[int] = None, root: int = -1, *,
                        detector: int = 0) -> Answer:
        """Store each ``(address, word)`` of ``writes`` (a WRITE frame each),
        then answer a query (see :meth:`query`): the frames in one transfer,
        which the board answers in order."""
        requests = [request for address, word in writes
                    for request in self._write_requests(address, [word], detector)]
        requests.append((query_request(top, count_limit, occupancy or 0, root, detector),
                         Command.QUERY, detector))
        payload = self.exchange(requests)[-1]
        result, cycles = parse_query(payload, upcoming=occupancy is not None)
        if not self.config.upcoming:
            result = result.without_upcoming()
        return Answer(result, cycles)

    def reset(self, *, detector: int = 0) -> None:
        self.transact(reset_request(detector), Command.RESET, detector)


class DetectorSession(Session):
    """One detector of a :class:`Board`: a detector session
    (:class:`~axon.sim.backends.session.Session`) whose requests name its
    index. Sessions of one board may be used from different threads at once;
    one session from one thread at a time, as any session.

    Members
    -------
    board : Board
    index : int
        The detector's index on the board.
    """

    def __init__(self, board: Board, index: int) -> None:
        self.board = board
        self.index = index

    @property
    def config(self) -> DetectorConfig:  # type: ignore[override]
        return self.board.config

    def load(self, words: Sequence[int]) -> None:
        self.board.load(words, detector=self.index)

    def write(self, address: int, word: int) -> None:
        self.board.write(address, word, detector=self.index)

    def read_moves(self, address: int, count: int) -> List[int]:
        return self.board.read_moves(address, count, detector=self.index)

    def query(self, top: int, count_limit: int = 4, occupancy: Optional[int] = None,
              root: int = -1) -> Answer:
        return self.board.query(top, count_limit, occupancy, root, detector=self.index)

    def write_and_query(self, writes: Sequence[Tuple[int, int]], top: int, count_limit: int = 4,
                        occupancy: Optional[int] = None, root: int = -1) -> Answer:
        return self.board.write_and_query(writes, top, count_limit, occupancy, root,
                                          detector=self.index)

    def reset(self) -> None:
        self.board.reset(detector=self.index)


def open_board(url: str, *, baud: Optional[int] = None, timeout: float = 1.0,
               log: Optional[Callable[[str], None]] = None) -> Board:
    """A :class:`Board` on the transport of ``url`` (:func:`open_transport`);
    ``board.sessions()`` gives one session per detector. Close it with
    ``board.transport.close()``."""
    return Board(open_transport(url, baud=baud, log=log), timeout=timeout)
