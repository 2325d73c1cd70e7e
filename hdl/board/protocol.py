"""The link protocol's definitions, and frame encoding and decoding.

What the link's gateware (:mod:`axon.hdl.board.link`) and the host share: the
frame format, the commands, the error codes, the CRC, the payload layouts,
and the host's requests and payload readers. It is part of the board
gateware and so imports nothing above it; the host reads a query's answer
into the golden model's terms in :mod:`axon.boards.host`; ``docs/protocol.md``
is the description for people. Every frame, in both directions, is::

    0xA5  LEN  CMD  payload[LEN]  CRC

``CRC`` is CRC-8/SMBUS (polynomial x^8 + x^2 + x + 1 = 0x07, initial value 0,
no reflection, no final XOR) over ``LEN``, ``CMD`` and the payload. Multi-byte
fields are little-endian; a move word travels as three bytes, bits 17-23 zero.
"""

from dataclasses import dataclass

from amaranth.lib import data
from amaranth.lib import enum as hdl_enum
from amaranth.lib.crc import Algorithm, catalog

from ..params import COUNT_LIMIT_BITS, CYCLE_BITS, DetectorConfig, Pools, Rules, Scan
from ..result import QueryResult
from ..version import INTERFACE_VERSION


__all__ = [
    "START", "CRC_POLY", "PROTOCOL_VERSION", "MAX_PAYLOAD", "MAX_WORDS", "WORD_BYTES",
    "ROOT_BYTES", "OCCUPANCY_BYTES", "QUERY_REQUEST_BYTES", "QUERY_ANSWER_BYTES",
    "RULES_CODES", "POOLS_CODES", "SCAN_CODES", "Command", "ErrorCode", "RESPONSE_FLAG", "ERROR_RESPONSE",
    "CRC8", "crc8", "encode_frame", "holds_known_frame", "FrameDecoder", "Frame", "Identity",
    "IdentityRecord", "IDENTITY_BYTES", "identity_record", "ProtocolVersionError",
    "identify_request", "write_request", "read_request", "query_request", "reset_request",
    "parse_identity", "parse_words", "parse_error",
]

START            = 0xA5
CRC_POLY         = 0x07
# Version 2: QUERY carries the occupancy and its answer the upcoming repetition.
# Version 3: QUERY carries the search's root and its answer the draw.
# Version 4: IDENTIFY answers the whole configuration and the interface's version.
PROTOCOL_VERSION = 4
MAX_PAYLOAD      = 255
WORD_BYTES       = 3
# A write frame holds a 3-byte header and the words in 255 payload bytes.
MAX_WORDS        = (MAX_PAYLOAD - 3) // WORD_BYTES
# QUERY: top (2), count limit (1), root (2, signed), occupancy (8); its
# answer: the result record (8) and the upcoming repetition (5).
ROOT_BYTES          = 2
OCCUPANCY_BYTES     = 8
QUERY_REQUEST_BYTES = 3 + ROOT_BYTES + OCCUPANCY_BYTES
QUERY_ANSWER_BYTES  = data.Layout.cast(QueryResult).size // 8
RESPONSE_FLAG    = 0x80
ERROR_RESPONSE   = 0xFF
RULES_CODES      = {Rules.PAPER: 0, Rules.EXACT: 1}
POOLS_CODES      = {Pools.KIND: 0, Pools.SPILL: 1, Pools.SIDE: 2, Pools.SERIAL: 3}
SCAN_CODES       = {Scan.PAIR: 0, Scan.SINGLE: 1}


class Command(hdl_enum.IntEnum, shape=8):
    """The request's ``CMD`` byte: an Amaranth enum, so that the link's
    gateware compares a byte of this shape with it and the host sends the
    same values."""
    IDENTIFY = 0x01
    WRITE    = 0x02
    READ     = 0x03
    QUERY    = 0x04
    RESET    = 0x05


class ErrorCode(hdl_enum.IntEnum, shape=3):
    """The error answer's code: an Amaranth enum, so that the link's gateware
    holds it in a signal of this shape and the host reads the same values."""
    NONE            = 0x00  # no error: the frame is acted upon (never sent)
    BAD_CRC         = 0x01  # the CRC byte does not match
    TRUNCATED       = 0x02  # the line went idle for the inter-byte timeout mid-frame
    UNKNOWN_COMMAND = 0x03
    BAD_LENGTH      = 0x04  # LEN does not fit the command, or n is 0 or above MAX_WORDS
    ADDRESS_RANGE   = 0x05  # start + n is beyond the move-list depth
    TOP_RANGE       = 0x06  # query top is not an address of the move list
    BAD_ARGUMENT    = 0x07  # count limit above 15, or root outside -1..depth - 1


# The frame check, from Amaranth's catalogue: the same definition serves the
# host here and the gateware (axon.hdl.board.link derives its update from it).
CRC8 = catalog.CRC8_SMBUS
assert CRC8.polynomial == CRC_POLY


def crc8(data, crc=0):
    """CRC-8/SMBUS of ``data`` (bytes), carrying on from the register value
    ``crc``; ``crc8(b"123456789") == 0xF4``."""
    algorithm = CRC8 if crc == CRC8.initial_crc else Algorithm(
        crc_width=CRC8.crc_width, polynomial=CRC8.polynomial, initial_crc=crc,
        reflect_input=CRC8.reflect_input, reflect_output=CRC8.reflect_output,
        xor_output=CRC8.xor_output)
    return algorithm(data_width=8).compute(data)


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
    command: int
    payload: bytes


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


def _address_count(address, count):
    if not isinstance(address, int) or not 0 <= address <= 0xffff:
        raise ValueError(f"address must be an integer in 0..65535, not {address!r}")
    if not isinstance(count, int) or not 1 <= count <= MAX_WORDS:
        raise ValueError(f"word count must be an integer in 1..{MAX_WORDS}, not {count!r}")
    return address.to_bytes(2, "little") + bytes([count])


def identify_request():
    return encode_frame(Command.IDENTIFY)


def write_request(address, words):
    words = list(words)
    payload = bytearray(_address_count(address, len(words)))
    for word in words:
        if not isinstance(word, int) or not 0 <= word < (1 << 17):
            raise ValueError(f"move word must be a 17-bit integer, not {word!r}")
        payload += word.to_bytes(WORD_BYTES, "little")
    return encode_frame(Command.WRITE, payload)


def read_request(address, count):
    return encode_frame(Command.READ, _address_count(address, count))


def query_request(top, count_limit, occupancy=0, root=-1):
    """A QUERY frame: ``root`` is the address of the last word of the game
    history (-1 for none), sent as a signed 16-bit number."""
    if not isinstance(top, int) or not 0 <= top <= 0xffff:
        raise ValueError(f"top must be an integer in 0..65535, not {top!r}")
    if not isinstance(count_limit, int) or not 0 <= count_limit <= 0xff:
        raise ValueError(f"count limit must be a byte, not {count_limit!r}")
    if not isinstance(root, int) or not -0x8000 <= root <= 0x7fff:
        raise ValueError(f"root must be a signed 16-bit integer, not {root!r}")
    if not isinstance(occupancy, int) or not 0 <= occupancy < 1 << 64:
        raise ValueError(f"occupancy must be a 64-bit bitboard, not {occupancy!r}")
    return encode_frame(Command.QUERY, top.to_bytes(2, "little") + bytes([count_limit]) +
                        root.to_bytes(ROOT_BYTES, "little", signed=True) +
                        occupancy.to_bytes(OCCUPANCY_BYTES, "little"))


def reset_request():
    return encode_frame(Command.RESET)


class ProtocolVersionError(ValueError):
    """The board speaks another version of the link protocol than this host."""


@dataclass(frozen=True)
class Identity:
    """What a board says it is (IDENTIFY's answer).

    Attributes
    ----------
    version : int
        The link protocol's version, :data:`PROTOCOL_VERSION`.
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
    """
    version:    int
    interface:  tuple
    config:     DetectorConfig
    count_bits: int
    cycle_bits: int
    max_words:  int

    @property
    def rules(self):
        return self.config.rules

    @property
    def chains(self):
        return self.config.chains

    @property
    def depth(self):
        return self.config.depth


class IdentityRecord(data.Struct):
    """IDENTIFY's answer, little-endian: the link's gateware sends this
    layout's constant (:func:`identity_record`) and the host reads the bytes
    back with it. ``version`` comes first in every protocol version, so that
    a host can tell a board it cannot read."""
    version:         8
    interface_major: 8
    interface_minor: 8
    interface_patch: 8
    rules:           8    # RULES_CODES
    pools:           8    # POOLS_CODES
    scan:            8    # SCAN_CODES
    upcoming:        1    # the upcoming block is built in
    reserved:        7
    chains:          8
    depth:           16
    count_bits:      8
    cycle_bits:      8
    max_words:       8


IDENTITY_BYTES = IdentityRecord.as_shape().size // 8


def identity_record(config):
    """The field values of IDENTIFY's answer for a board of ``config``, for
    ``IdentityRecord.const``."""
    major, minor, patch = INTERFACE_VERSION
    return {
        "version": PROTOCOL_VERSION,
        "interface_major": major, "interface_minor": minor, "interface_patch": patch,
        "rules": RULES_CODES[config.rules], "pools": POOLS_CODES[config.pools],
        "scan": SCAN_CODES[config.scan], "upcoming": int(config.upcoming),
        "chains": config.chains, "depth": config.depth,
        "count_bits": COUNT_LIMIT_BITS, "cycle_bits": CYCLE_BITS, "max_words": MAX_WORDS,
    }


def _decode(codes, code, noun):
    for member, known in codes.items():
        if known == code:
            return member
    raise ValueError(f"identify answer has unknown {noun} code {code}")


def parse_identity(payload):
    """The :class:`Identity` of IDENTIFY's answer; a board of another protocol
    version raises :class:`ProtocolVersionError`."""
    if payload and payload[0] != PROTOCOL_VERSION:
        raise ProtocolVersionError(
            f"the board speaks link protocol version {payload[0]}, this host version "
            f"{PROTOCOL_VERSION}: build and program it again with this axon "
            f"(axon build, axon program)")
    if len(payload) != IDENTITY_BYTES:
        raise ValueError(f"identify answer has {len(payload)} bytes, expected {IDENTITY_BYTES}")
    record = IdentityRecord.as_shape().from_bits(int.from_bytes(payload, "little"))
    config = DetectorConfig(depth=record.depth, chains=record.chains,
                            rules=_decode(RULES_CODES, record.rules, "rules"),
                            pools=_decode(POOLS_CODES, record.pools, "pools"),
                            scan=_decode(SCAN_CODES, record.scan, "scan"),
                            upcoming=bool(record.upcoming))
    return Identity(version=record.version,
                    interface=(record.interface_major, record.interface_minor,
                               record.interface_patch),
                    config=config, count_bits=record.count_bits,
                    cycle_bits=record.cycle_bits, max_words=record.max_words)


def parse_words(payload):
    if len(payload) % WORD_BYTES:
        raise ValueError(f"read answer of {len(payload)} bytes is not a whole number of words")
    return [int.from_bytes(payload[i:i + WORD_BYTES], "little")
            for i in range(0, len(payload), WORD_BYTES)]


def parse_error(payload):
    """``(ErrorCode or int, command byte)`` from an error answer."""
    if len(payload) != 2:
        raise ValueError(f"error answer has {len(payload)} bytes, expected 2")
    try:
        code = ErrorCode(payload[0])
    except ValueError:
        code = payload[0]
    return code, payload[1]
