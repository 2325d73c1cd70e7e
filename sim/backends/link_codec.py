"""The host's half of the link protocol: frames to bytes and back.

The host encodes its requests (:func:`query_request` and the others) and
decodes the board's answers (:class:`FrameDecoder`, :func:`parse_identity`,
:func:`parse_query` and the others) here; the link session that sends them
is :class:`axon.sim.backends.link.Link`. What both sides share, the frame
format, commands, error codes, CRC and payload layouts, is the gateware's
:mod:`axon.hdl.board.protocol`, whose receiver and sender are in
:mod:`axon.hdl.board.link`; ``docs/protocol.md`` is the description for
people.
"""

from dataclasses import dataclass

from ...hdl.board.protocol import (START, PROTOCOL_VERSION, MAX_PAYLOAD, MAX_WORDS, WORD_BYTES,
                                   INDEX_BYTES, ROOT_BYTES, OCCUPANCY_BYTES,
                                   QUERY_ANSWER_BYTES, ERROR_BYTES, RULES_CODES, POOLS_CODES,
                                   SCAN_CODES, IDENTITY_BYTES, BOARD_BYTES,
                                   SEARCH_ANSWER_BYTES, MAX_SEARCH_DEPTH, PERFT_ANSWER_BYTES,
                                   Command, ErrorCode, IdentityRecord, PerftRecord, SearchRecord,
                                   ERROR_RESPONSE, crc8)
from ...hdl.params import DetectorConfig
from ...hdl.result import QueryResult
from ..model.golden import Result
from ..search.movegen import Position
from ..search.unit import UnitResult, move_name


__all__ = [
    "encode_frame", "holds_known_frame", "FrameDecoder", "Frame", "Identity",
    "ProtocolVersionError", "older_protocol", "older_protocol_error", "identify_request", "write_request", "read_request",
    "query_request", "reset_request", "search_request", "perft_request", "parse_identity",
    "parse_words", "parse_error", "parse_query", "parse_search", "parse_perft",
]


def encode_frame(command, payload=b""):
    """One complete frame, start marker to CRC."""
    payload = bytes(payload)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    if not 0 <= command <= 0xff:
        raise ValueError(f"command must be a byte, not {command!r}")
    body = bytes([len(payload), command]) + payload
    return bytes([START]) + body + bytes([crc8(body)])


@dataclass(frozen=True)
class Frame:
    """A decoded frame: its ``CMD`` byte and its whole payload, whose first
    byte is the detector index (:attr:`detector`)."""
    command: int
    payload: bytes

    @property
    def detector(self):
        """The detector the frame is from, or ``None`` if it has no payload."""
        return self.payload[0] if self.payload else None


def holds_known_frame(data):
    """True if some start marker in ``data`` begins a CRC-correct frame of a
    real command. Line noise that does is a request, and a board rightly
    answers it, so fuzzers and soaks leave such noise out."""
    commands = {int(command) for command in Command}
    for start, byte in enumerate(data):
        if byte != START or start + 3 >= len(data):
            continue
        end = start + 3 + data[start + 1]
        if end < len(data) and crc8(data[start + 1:end]) == data[end] and \
                data[start + 2] in commands:
            return True
    return False


class FrameDecoder:
    """Collects frames from a byte stream, hunting for the start marker.

    Bytes before a start marker, and frames whose CRC fails, are skipped; the
    board sends only whole frames, so this matters only after line noise.
    """

    def __init__(self):
        self._buffer = bytearray()

    def feed(self, data):
        """Add received bytes; return the list of complete :class:`Frame` s."""
        self._buffer += data
        frames = []
        while True:
            start = self._buffer.find(START)
            if start < 0:
                self._buffer.clear()
                return frames
            del self._buffer[:start]
            if len(self._buffer) < 2 or len(self._buffer) < self._buffer[1] + 4:
                return frames
            length = self._buffer[1]
            body = bytes(self._buffer[1:3 + length])
            if crc8(body) == self._buffer[3 + length]:
                frames.append(Frame(body[1], body[2:]))
                del self._buffer[:4 + length]
            else:
                del self._buffer[:1]

    def needed(self):
        """Bytes still missing from the frame being received (at least 1)."""
        if not self._buffer:
            return 4
        if len(self._buffer) < 2:
            return 3
        return max(1, self._buffer[1] + 4 - len(self._buffer))


def _index(detector):
    # Any byte: a board refuses an index at or above its detector count.
    if not isinstance(detector, int) or not 0 <= detector <= 0xff:
        raise ValueError(f"detector index must be a byte, not {detector!r}")
    return bytes([detector])


def _address_count(address, count):
    if not isinstance(address, int) or not 0 <= address <= 0xffff:
        raise ValueError(f"address must be an integer in 0..65535, not {address!r}")
    if not isinstance(count, int) or not 1 <= count <= MAX_WORDS:
        raise ValueError(f"word count must be an integer in 1..{MAX_WORDS}, not {count!r}")
    return address.to_bytes(2, "little") + bytes([count])


# Every request's payload begins with the index of the detector it is for
# (``detector``, 0 by default).

def identify_request(detector=0):
    return encode_frame(Command.IDENTIFY, _index(detector))


def write_request(address, words, detector=0):
    words = list(words)
    payload = bytearray(_index(detector) + _address_count(address, len(words)))
    for word in words:
        if not isinstance(word, int) or not 0 <= word < (1 << 17):
            raise ValueError(f"move word must be a 17-bit integer, not {word!r}")
        payload += word.to_bytes(WORD_BYTES, "little")
    return encode_frame(Command.WRITE, payload)


def read_request(address, count, detector=0):
    return encode_frame(Command.READ, _index(detector) + _address_count(address, count))


def query_request(top, count_limit, occupancy=0, root_address=-1, detector=0):
    """A QUERY frame: ``root_address`` is the address of the last word of the game
    history (-1 for none), sent as a signed 16-bit number."""
    if not isinstance(top, int) or not 0 <= top <= 0xffff:
        raise ValueError(f"top must be an integer in 0..65535, not {top!r}")
    if not isinstance(count_limit, int) or not 0 <= count_limit <= 0xff:
        raise ValueError(f"count limit must be a byte, not {count_limit!r}")
    if not isinstance(root_address, int) or not -0x8000 <= root_address <= 0x7fff:
        raise ValueError(f"root_address must be a signed 16-bit integer, not {root_address!r}")
    if not isinstance(occupancy, int) or not 0 <= occupancy < 1 << 64:
        raise ValueError(f"occupancy must be a 64-bit bitboard, not {occupancy!r}")
    return encode_frame(Command.QUERY, _index(detector) +
                        top.to_bytes(2, "little") + bytes([count_limit]) +
                        root_address.to_bytes(ROOT_BYTES, "little", signed=True) +
                        occupancy.to_bytes(OCCUPANCY_BYTES, "little"))


def reset_request(detector=0):
    return encode_frame(Command.RESET, _index(detector))


def search_request(position: Position, first: int, last: int, root_address: int = -1,
                   unit: int = 0) -> bytes:
    """A SEARCH frame: search ``position`` (the gateware's
    :class:`~axon.sim.search.movegen.Position`) to each depth from ``first``
    to ``last``, after the game history whose last word is at
    ``root_address`` (-1 for none)."""
    if not isinstance(first, int) or not isinstance(last, int) or \
            not 1 <= first <= last <= MAX_SEARCH_DEPTH:
        raise ValueError(f"search depths must be 1 <= first <= last <= {MAX_SEARCH_DEPTH}, "
                         f"not {first!r} to {last!r}")
    if not isinstance(root_address, int) or not -0x8000 <= root_address <= 0x7fff:
        raise ValueError(f"root_address must be a signed 16-bit integer, not {root_address!r}")
    return encode_frame(Command.SEARCH, _index(unit) + bytes([first, last]) +
                        _position_state(position) +
                        root_address.to_bytes(ROOT_BYTES, "little", signed=True) +
                        _squares(position))


def perft_request(position: Position, depth: int, core: int = 0) -> bytes:
    """A PERFT frame: count the leaf nodes of ``position`` (the gateware's
    :class:`~axon.sim.search.movegen.Position`) to ``depth`` plies, root
    move by root move."""
    if not isinstance(depth, int) or not 1 <= depth <= MAX_SEARCH_DEPTH:
        raise ValueError(f"perft depth must be 1..{MAX_SEARCH_DEPTH}, not {depth!r}")
    return encode_frame(Command.PERFT, _index(core) + bytes([depth]) +
                        _position_state(position) + _squares(position))


def _position_state(position):
    # The side to move and the castling rights, then the en passant square.
    ep = 0 if position.ep_square is None else 0x80 | position.ep_square
    return bytes([(position.side & 1) | (position.castling & 0xf) << 1, ep])


def _squares(position):
    # Two squares a byte, the lower-numbered in the low half.
    board = list(position.board)
    if len(board) != 64 or not all(isinstance(code, int) and 0 <= code <= 15 for code in board):
        raise ValueError("a position is 64 piece codes of 4 bits")
    return bytes(board[2 * index] | board[2 * index + 1] << 4 for index in range(BOARD_BYTES))


class ProtocolVersionError(ValueError):
    """The board speaks another version of the link protocol than this host."""


@dataclass(frozen=True)
class Identity:
    """What a board says it is (IDENTIFY's answer).

    Attributes
    ----------
    version : int
        The link protocol's version, :data:`~axon.hdl.board.protocol.PROTOCOL_VERSION`.
    interface : tuple
        ``(major, minor, patch)``: the interface's version the board was
        built from (:data:`axon.hdl.version.INTERFACE_VERSION`).
    config : DetectorConfig
        The board's detector: depth, chains, rules, pool layout, scan and
        whether it has the upcoming block.
    count_bits, cycle_bits : int
        The widths of the count limit and of the clock counter.
    max_words : int
        Move words a WRITE or READ frame holds at most.
    detectors : int
        Detectors behind the link, indices 0..detectors - 1.
    rx_buffer : int
        Request bytes the board holds: a host has at most this many bytes of
        requests sent and not yet answered.
    units : int
        Search units on the board (SEARCH), indices 0..units - 1.
    perft_cores : int
        Perft cores on the board (PERFT), indices 0..perft_cores - 1.
    """
    version:    int
    interface:  tuple
    config:     DetectorConfig
    count_bits: int
    cycle_bits: int
    max_words:  int
    detectors:  int = 1
    rx_buffer:  int = 0
    units:      int = 0
    perft_cores: int = 0

    @property
    def rules(self):
        return self.config.rules

    @property
    def chains(self):
        return self.config.chains

    @property
    def depth(self):
        return self.config.depth


def _decode(codes, code, noun):
    for member, known in codes.items():
        if known == code:
            return member
    raise ValueError(f"identify answer has unknown {noun} code {code}")


def older_protocol(frame):
    """True if ``frame``, the answer to IDENTIFY, is an error answer of the
    protocol before version 5 (no detector index): a board of version 4 or
    older refuses version 5's IDENTIFY as BAD_LENGTH."""
    return frame.command == ERROR_RESPONSE and len(frame.payload) == ERROR_BYTES - INDEX_BYTES


def older_protocol_error():
    return ProtocolVersionError(
        f"the board speaks a link protocol older than version {PROTOCOL_VERSION}, this "
        f"host's: build and program it again with this axon (axon build, axon program)")


def parse_identity(payload):
    """The :class:`Identity` of IDENTIFY's answer; a board of another protocol
    version raises :class:`ProtocolVersionError`."""
    if len(payload) > INDEX_BYTES and payload[INDEX_BYTES] != PROTOCOL_VERSION:
        raise ProtocolVersionError(
            f"the board speaks link protocol version {payload[INDEX_BYTES]}, this host version "
            f"{PROTOCOL_VERSION}: build and program it again with this axon "
            f"(axon build, axon program)")
    if len(payload) != IDENTITY_BYTES:
        raise ValueError(f"identify answer has {len(payload)} bytes, expected {IDENTITY_BYTES}")
    record = IdentityRecord.as_shape().from_bits(
        int.from_bytes(payload[INDEX_BYTES:], "little"))
    config = DetectorConfig(depth=record.depth, chains=record.chains,
                            rules=_decode(RULES_CODES, record.rules, "rules"),
                            pools=_decode(POOLS_CODES, record.pools, "pools"),
                            scan=_decode(SCAN_CODES, record.scan, "scan"),
                            upcoming=bool(record.upcoming), backstop=bool(record.backstop))
    return Identity(version=record.version,
                    interface=(record.interface_major, record.interface_minor,
                               record.interface_patch),
                    config=config, count_bits=record.count_bits,
                    cycle_bits=record.cycle_bits, max_words=record.max_words,
                    detectors=record.detectors, rx_buffer=record.rx_buffer,
                    units=record.units, perft_cores=record.perft_cores)


# The parsers take an answer's whole payload, the detector index first
# (:attr:`Frame.detector`), and read what follows it.

def parse_words(payload):
    words = payload[INDEX_BYTES:]
    if not payload or len(words) % WORD_BYTES:
        raise ValueError(f"read answer of {len(payload)} bytes is not an index and a whole "
                         f"number of words")
    return [int.from_bytes(words[i:i + WORD_BYTES], "little")
            for i in range(0, len(words), WORD_BYTES)]


def parse_error(payload):
    """``(ErrorCode or int, command byte)`` from an error answer."""
    if len(payload) != ERROR_BYTES:
        raise ValueError(f"error answer has {len(payload)} bytes, expected {ERROR_BYTES}")
    code, command = payload[INDEX_BYTES:]
    try:
        code = ErrorCode(code)
    except ValueError:
        pass
    return code, command


def parse_query(payload, upcoming=True):
    """``(Result, cycles)`` from a query answer, a :class:`~axon.hdl.result.QueryResult`;
    without ``upcoming`` (a query that gave no occupancy) the upcoming fields
    are left out."""
    if len(payload) != QUERY_ANSWER_BYTES:
        raise ValueError(f"query answer has {len(payload)} bytes, expected "
                         f"{QUERY_ANSWER_BYTES}")
    record = QueryResult.from_bits(int.from_bytes(payload[INDEX_BYTES:], "little"))
    result = Result.from_fields(record, record.upcoming if upcoming else None)
    return result, record.cycles


def parse_search(payload):
    """``(depth, UnitResult)`` from one of SEARCH's answers, a
    :class:`~axon.hdl.board.protocol.SearchRecord`."""
    if len(payload) != SEARCH_ANSWER_BYTES:
        raise ValueError(f"search answer has {len(payload)} bytes, expected "
                         f"{SEARCH_ANSWER_BYTES}")
    record = SearchRecord.from_bits(int.from_bytes(payload[INDEX_BYTES:], "little"))
    best = record.best_move
    move = move_name(best.from_sq, best.to_sq, best.promo) if record.best_valid else None
    return record.depth, UnitResult(
        score=record.score, move=move, nodes=record.nodes, terminal=record.terminal,
        repetitions=record.repetitions, queries=record.queries, clocks=record.clocks,
        wait_clocks=record.wait_clocks)


def parse_perft(payload):
    """``(move, nodes, last)`` from one of PERFT's answers, a
    :class:`~axon.hdl.board.protocol.PerftRecord`: a root move (UCI) and its
    leaf nodes, or (``last``, move ``None``) the leaf nodes in all."""
    if len(payload) != PERFT_ANSWER_BYTES:
        raise ValueError(f"perft answer has {len(payload)} bytes, expected {PERFT_ANSWER_BYTES}")
    record = PerftRecord.from_bits(int.from_bytes(payload[INDEX_BYTES:], "little"))
    move = record.move
    return (None if record.last else move_name(move.from_sq, move.to_sq, move.promo),
            record.nodes, bool(record.last))
