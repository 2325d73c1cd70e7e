"""The host's half of the link: a board's detectors, over a serial port or
in simulation.

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

:class:`Link` speaks the link protocol over any of them: it asks the board
what it is (IDENTIFY), frames the requests, and sends those of every
detector over the one transport, routing each answer back to its detector.
It hands out a detector session
(:class:`~axon.sim.backends.session.Session`) for each detector
(:class:`DetectorSession`, :meth:`Link.sessions`), which reads the answers in
the golden model's terms (:func:`~axon.sim.backends.link_codec.parse_query`).
"""

import collections
import os
import threading
import time
import warnings
from typing import Any, Callable, Deque, Dict, List, NamedTuple, Optional, Sequence, Tuple
from urllib.parse import urlsplit, parse_qs

import serial

from ...boards.detectors import default_detectors
from ...boards.platforms import BOARDS, DEFAULT_BOARD, get_board
from ...hdl.board.protocol import (Command, ErrorCode, ERROR_RESPONSE, MAX_DETECTORS,
                                   RESPONSE_FLAG, STOP_BYTE)
from ...hdl.board.top import TIMEOUT_SECONDS
from ...hdl.params import DetectorConfig
from .board_cxxrtl import CxxrtlBoard
from .board_pysim import PysimBoard
from ..search.movegen import Position
from ..search.perft import PerftResult
from ..search.unit import UnitJob, UnitResult, check_unit_depth
from .link_codec import (FrameDecoder, Identity, ProtocolVersionError, identify_request,
                         write_request, read_request, query_request, reset_request,
                         search_request, perft_request, parse_identity, parse_words,
                         parse_error, parse_query, parse_search, parse_perft, older_protocol,
                         older_protocol_error)
from .session import Answer, Query, Session, deprecated_root
from .transport import Transport


__all__ = ["SerialTransport", "open_transport", "open_link", "simulated_config",
           "simulated_board", "SimulatedBoard", "SIMULATED_SCHEMES", "SIM_OPTIONS", "Link",
           "DetectorSession", "UnitSession", "LinkError", "LinkTimeout", "PortError",
           "ProtocolVersionError", "Board", "open_board"]

# The minor version that drops the deprecated names of this module.
_REMOVED_IN = "0.5"

# The URL schemes of the board simulated at its UART pins: in Amaranth's
# simulator, and compiled with CXXRTL.
SIMULATED_SCHEMES = ("sim", "cxxrtl")
# A simulated board's options: the configuration's fields, clocks per bit,
# the detectors behind the link, and whether it carries a search unit and a
# perft core.
SIM_OPTIONS = ("depth", "chains", "rules", "pools", "scan", "upcoming", "backstop", "divisor",
               "detectors", "unit", "perft")
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
                               unit=board.unit, perft=board.perft, log=log)
        return PysimBoard(board.config, divisor=board.divisor, detectors=board.detectors,
                          unit=board.unit, perft=board.perft)
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
    configuration, the UART's clocks per bit, the detectors, and whether a
    search unit (``?unit=yes``) and a perft core (``?perft=yes``) are on
    the board."""
    config:    DetectorConfig
    divisor:   int
    detectors: int
    unit:      bool = False
    perft:     bool = False


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
    ``None``) that it does not, checked for the gateware. ``upcoming``,
    ``backstop``, ``unit`` and ``perft`` are ``yes``/``no`` (or ``true``/``false``, ``1``/``0``). A bad option is a
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
    unit = changes.pop("unit", False)
    perft = changes.pop("perft", False)
    return SimulatedBoard(spec.config.replace(**changes).check(where=where), divisor, detectors,
                          unit, perft)


_BOOLEANS = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}


def _option(key, value):
    if key in ("rules", "pools", "scan"):
        return value
    if key in ("upcoming", "backstop", "unit", "perft"):
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
    """One request frame on its way: its answer's payload (a list of
    payloads, if it has more than one answer), or the error it drew.
    ``answers`` is the count of its answers, or a function of a payload
    that says whether it is the last."""
    __slots__ = ("frame", "command", "detector", "answers", "timeout", "payload", "error",
                 "done")

    def __init__(self, frame, command, detector, answers=1, timeout=None):
        self.frame, self.command, self.detector = frame, command, detector
        self.answers, self.timeout = answers, timeout
        self.payload = self.error = None
        self.done = False

    def settle(self, payload=None, error=None):
        self.payload, self.error, self.done = payload, error, True


class Link:
    """The link protocol over a :class:`~axon.sim.backends.transport.Transport`:
    the host's multiplexer of a board's detectors.

    A board carries :attr:`detectors` detectors of one configuration
    (:attr:`config`, from IDENTIFY). :meth:`sessions` gives a detector
    session (:class:`DetectorSession`, a
    :class:`~axon.sim.backends.session.Session`) for each; the link itself
    is no session: each of its requests names its detector.

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

    Members
    -------
    transfers, bytes_sent, bytes_received : int
        Link transfers (round trips) made, and their bytes, for measurements.
    """

    def __init__(self, transport: Transport, *, timeout: float = 1.0) -> None:
        self.transport = transport
        self.timeout = timeout
        self._identity: Optional[Identity] = None
        self._ready = threading.Condition()
        self._pending: Deque[_Request] = collections.deque()
        self._transferring = False
        self._sessions: Dict[int, "DetectorSession"] = {}
        self.transfers = 0
        self.bytes_sent = 0
        self.bytes_received = 0

    def close(self) -> None:
        """Close the transport."""
        self.transport.close()

    # -- the multiplexer -----------------------------------------------------------------

    def exchange(self, requests: Sequence[Tuple[Any, ...]]) -> List[Any]:
        """Send ``(frame, command, detector)`` requests, with whatever other
        threads have ready; return each one's answer payload, in order. The
        first request that drew an error frame raises its :class:`LinkError`
        (after all of them were answered). A request of ``(frame, command,
        detector, answers, timeout)`` has ``answers`` answer frames, or as
        many as end with one of which ``answers(payload)`` is true (its
        payload is their list), each awaited for ``timeout`` seconds (the
        link's if ``None``)."""
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
                payloads = []
                while True:
                    while not frames:
                        data = self.transport.read(decoder.needed(),
                                                   request.timeout or self.timeout)
                        if not data:
                            raise LinkTimeout(f"no answer to command 0x{request.command:02x}")
                        self.bytes_received += len(data)
                        frames.extend(decoder.feed(data))
                    payload, refusal = self._judge(request, frames.popleft())
                    if refusal is not None:
                        # An error answer is the request's last.
                        request.settle(error=refusal)
                        break
                    payloads.append(payload)
                    if callable(request.answers):
                        if request.answers(payload):
                            request.settle(payloads)
                            break
                    elif len(payloads) == request.answers:
                        request.settle(payloads[0] if request.answers == 1 else payloads)
                        break
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
        return [self.session(index) for index in range(self.detectors)]

    def session(self, index: int = 0) -> "DetectorSession":
        """The :class:`DetectorSession` of detector ``index`` (the same
        object each time). Detector 0, every board's (the only one of a
        board of one detector), is the default; it is made without asking
        the board anything."""
        if index != 0 and not 0 <= index < self.detectors:
            raise ValueError(f"detector must be in 0..{self.detectors - 1}, not {index}")
        if index not in self._sessions:
            self._sessions[index] = DetectorSession(self, index)
        return self._sessions[index]

    # -- a detector's requests -----------------------------------------------------------

    def write_moves(self, detector: int, address: int, words: Sequence[int]) -> None:
        """Store ``words`` from ``address`` in ``detector``'s move list."""
        self.exchange(self._write_requests(detector, address, list(words)))

    def _write_requests(self, detector, address, words):
        # The WRITE frames that store `words` from `address`, as many words
        # a frame as the board takes.
        step = self.identity.max_words
        return [(write_request(address + offset, words[offset:offset + step], detector),
                 Command.WRITE, detector) for offset in range(0, len(words), step)]

    def read_moves(self, detector: int, address: int, count: int) -> List[int]:
        """``count`` words of ``detector``'s move list from ``address``."""
        step = self.identity.max_words
        words = []
        for offset in range(0, count, step):
            # One frame a transfer: a READ's answer is long, its request short.
            payload = self.transact(read_request(address + offset, min(step, count - offset),
                                                 detector), Command.READ, detector)
            words += parse_words(payload)
        return words

    def write_and_query(self, detector: int, writes: Sequence[Tuple[int, int]],
                        query: Query) -> Answer:
        """Store each ``(address, word)`` of ``writes`` in ``detector`` (a
        WRITE frame each), then answer ``query``: the frames in one transfer,
        which the board answers in order."""
        requests = [request for address, word in writes
                    for request in self._write_requests(detector, address, [word])]
        requests.append((query_request(query.top, query.count_limit, query.occupancy or 0,
                                       query.root_address, detector),
                         Command.QUERY, detector))
        payload = self.exchange(requests)[-1]
        result, cycles = parse_query(payload, upcoming=query.occupancy is not None)
        if not self.config.upcoming:
            result = result.without_upcoming()
        return Answer(result, cycles)

    def reset(self, detector: int) -> None:
        """Reset ``detector``."""
        self.transact(reset_request(detector), Command.RESET, detector)

    # -- the search unit's requests ------------------------------------------------------

    @property
    def units(self) -> int:
        """Search units on the board, as it reports them."""
        return self.identity.units

    def search(self, position: Position, first: int, last: int, *,
               history: Optional[Sequence[int]] = None, root_address: int = -1,
               unit: int = 0, timeout: float = 3600.0) -> List[Tuple[int, UnitResult]]:
        """Search ``position`` in search unit ``unit`` to each depth from
        ``first`` to ``last``: ``(depth, result)`` for each, waiting at
        most ``timeout`` seconds for each depth. The game history ends at
        ``root_address`` of detector ``unit``'s move list, which is the
        unit's; ``history`` loads it from address 0 first (the root is then
        its last word). Interrupted (``KeyboardInterrupt``), it stops the
        board's search before it raises."""
        if not 0 <= unit < self.units:
            raise ValueError(f"the board has {self.units} search units; there is no unit "
                             f"{unit} (build one with axon build --unit)")
        requests = []
        if history is not None:
            history = list(history)
            root_address = len(history) - 1
            if history:
                requests = self._write_requests(unit, 0, history)
        if root_address + 1 + last > self.config.depth:
            raise ValueError(f"{root_address + 1} words of game history and {last} plies do "
                             f"not fit a move list of {self.config.depth}")
        requests.append((search_request(position, first, last, root_address, unit),
                         Command.SEARCH, unit, last - first + 1, timeout))
        try:
            answers = self.exchange(requests)[-1]
        except KeyboardInterrupt:
            self.stop_search()
            raise
        return [parse_search(payload) for payload in
                (answers if isinstance(answers, list) else [answers])]

    @property
    def perft_cores(self) -> int:
        """Perft cores on the board, as it reports them."""
        return self.identity.perft_cores

    def perft(self, position: Position, depth: int, *, core: int = 0,
              timeout: float = 3600.0) -> PerftResult:
        """Count the leaf nodes of ``position`` to ``depth`` plies in perft
        core ``core``: the total and each root move's, in the move
        generator's order, waiting at most ``timeout`` seconds for each
        answer. Interrupted (``KeyboardInterrupt``), it stops the board's
        count before it raises."""
        if not 0 <= core < self.perft_cores:
            raise ValueError(f"the board has {self.perft_cores} perft cores; there is no core "
                             f"{core} (build one with axon build --perft)")
        request = (perft_request(position, depth, core), Command.PERFT, core,
                   lambda payload: parse_perft(payload)[2], timeout)
        try:
            answers = self.exchange([request])[0]
        except KeyboardInterrupt:
            self.stop_search()
            raise
        *moves, (_, total, _) = [parse_perft(payload) for payload in answers]
        return PerftResult(total, tuple((move, nodes) for move, nodes, _ in moves))

    def stop_search(self) -> None:
        """Stop a search or a perft the board is running: a byte that
        starts no frame, then the line quiet, and whatever came back
        dropped."""
        self.transport.write(bytes([STOP_BYTE]))
        self.transport.resync()


class DetectorSession(Session):
    """One detector of a :class:`Link`: a detector session
    (:class:`~axon.sim.backends.session.Session`) whose requests the link
    sends with its index. Sessions of one link may be used from different
    threads at once; one session from one thread at a time, as any session.

    Members
    -------
    link : Link
    index : int
        The detector's index on the board.
    """

    def __init__(self, link: Link, index: int) -> None:
        self.link = link
        self.index = index

    @property
    def board(self) -> Link:
        """Deprecated: :attr:`link`."""
        warnings.warn(f"DetectorSession.board is now DetectorSession.link; .board stays "
                      f"until {_REMOVED_IN}", DeprecationWarning, stacklevel=2)
        return self.link

    @property
    def config(self) -> DetectorConfig:  # type: ignore[override]
        """The detector's :class:`~axon.hdl.params.DetectorConfig`, as the board reports it."""
        return self.link.config

    def load(self, words: Sequence[int]) -> None:
        words = list(words)
        self._check_fits(words)
        self.link.write_moves(self.index, 0, words)

    def write_moves(self, address: int, words: Sequence[int]) -> None:
        """Store ``words`` from ``address``, as many words a WRITE frame as
        the board takes."""
        self.link.write_moves(self.index, address, words)

    def write(self, address: int, word: int) -> None:
        """Store one word at ``address``: one WRITE frame of one word."""
        self.link.write_moves(self.index, address, [word])

    def read_moves(self, address: int, count: int) -> List[int]:
        return self.link.read_moves(self.index, address, count)

    def query(self, top: int, count_limit: int = 4, occupancy: Optional[int] = None,
              root_address: int = -1, **deprecated: int) -> Answer:
        """The :class:`~axon.sim.backends.session.Answer` of a scan back from
        ``top`` for a search from the position after the word at
        ``root_address`` (-1: no game history); with the position's
        ``occupancy`` (a 64-bit bitboard) the result has the upcoming
        repetition too."""
        root_address = deprecated_root(root_address, deprecated, "query")
        return self.link.write_and_query(self.index, (),
                                         Query(top, count_limit, occupancy, root_address))

    def write_and_query(self, writes: Sequence[Tuple[int, int]], top: int, count_limit: int = 4,
                        occupancy: Optional[int] = None, root_address: int = -1,
                        **deprecated: int) -> Answer:
        """Store each ``(address, word)`` of ``writes`` (a WRITE frame each),
        then answer a query (see :meth:`query`): the frames in one transfer,
        which the board answers in order."""
        root_address = deprecated_root(root_address, deprecated, "write_and_query")
        return self.link.write_and_query(self.index, writes,
                                         Query(top, count_limit, occupancy, root_address))

    def reset(self) -> None:
        self.link.reset(self.index)


class UnitSession:
    """A board's search unit over a :class:`Link`: the search unit's
    backend that :class:`~axon.sim.engine.unit.UnitTest` runs, as it runs
    the unit's RTL in a simulator. Each search sends its game history
    (a few WRITE frames: other sessions may have written detector 0 since)
    and one SEARCH of one depth.

    Members
    -------
    link : Link
    index : int
        The unit's index on the board.
    """

    def __init__(self, link: Link, index: int = 0) -> None:
        self.link = link
        self.index = index

    @property
    def depth(self) -> int:
        """The move list's depth."""
        return self.link.config.depth

    def run(self, job: UnitJob) -> UnitResult:
        """Search ``job`` in the board's unit."""
        check_unit_depth(job.depth)
        ((_, result),) = self.link.search(job.position, job.depth, job.depth,
                                          history=job.words, unit=self.index)
        return result

    def close(self) -> None:
        self.link.close()


def open_link(url: str, *, baud: Optional[int] = None, timeout: float = 1.0,
              log: Optional[Callable[[str], None]] = None) -> Link:
    """A :class:`Link` on the transport of ``url`` (:func:`open_transport`);
    ``link.sessions()`` gives one session per detector. Close it with
    ``link.close()``."""
    return Link(open_transport(url, baud=baud, log=log), timeout=timeout)


class Board(Session):
    """Deprecated: :class:`Link`, which was the session of its detector 0
    too; that session is now ``Link.session(0)``. ``Board`` stays until 0.5:
    it is the session of detector 0 of a :class:`Link` (:attr:`link`), and
    has the link's members; each request takes the detector's index
    (``detector=``), as before."""

    def __init__(self, transport: Transport, *, timeout: float = 1.0) -> None:
        warnings.warn(f"Board is now Link, and a detector's session Link.session(index); "
                      f"Board stays as a deprecated alias until {_REMOVED_IN}",
                      DeprecationWarning, stacklevel=2)
        self.link = Link(transport, timeout=timeout)

    def __getattr__(self, name: str) -> Any:
        # The link's members: transport, identify, sessions, transfers, ...
        if name == "link":
            raise AttributeError(name)
        return getattr(self.link, name)

    @property
    def config(self) -> DetectorConfig:  # type: ignore[override]
        return self.link.config

    def load(self, words: Sequence[int], *, detector: int = 0) -> None:
        self.link.session(detector).load(words)

    def write(self, address: int, word: int, *, detector: int = 0) -> None:
        self.link.session(detector).write(address, word)

    def write_moves(self, address: int, words: Sequence[int], *, detector: int = 0) -> None:
        self.link.session(detector).write_moves(address, words)

    def read_moves(self, address: int, count: int, *, detector: int = 0) -> List[int]:
        return self.link.session(detector).read_moves(address, count)

    def query(self, top: int, count_limit: int = 4, occupancy: Optional[int] = None,
              root_address: int = -1, *, detector: int = 0, **deprecated: int) -> Answer:
        return self.link.session(detector).query(top, count_limit, occupancy, root_address,
                                                 **deprecated)

    def write_and_query(self, writes: Sequence[Tuple[int, int]], top: int, count_limit: int = 4,
                        occupancy: Optional[int] = None, root_address: int = -1, *,
                        detector: int = 0, **deprecated: int) -> Answer:
        return self.link.session(detector).write_and_query(writes, top, count_limit, occupancy,
                                                           root_address, **deprecated)

    def reset(self, *, detector: int = 0) -> None:
        self.link.session(detector).reset()


def open_board(url: str, *, baud: Optional[int] = None, timeout: float = 1.0,
               log: Optional[Callable[[str], None]] = None) -> Link:
    """Deprecated: :func:`open_link`, until 0.5."""
    warnings.warn(f"open_board is now open_link; open_board stays until {_REMOVED_IN}",
                  DeprecationWarning, stacklevel=2)
    return open_link(url, baud=baud, timeout=timeout, log=log)
