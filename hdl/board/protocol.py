"""The link protocol's definitions, shared by the board and the host.

What the link's gateware (:mod:`axon.hdl.board.link`) and the host's frame
codec (:mod:`axon.sim.backends.link_codec`) agree on: the frame format, the
commands, the error codes, the CRC and the payload layouts. It is part of the
board gateware and so imports nothing above it; ``docs/protocol.md`` is the
description for people. Every frame, in both directions, is::

    0xA5  LEN  CMD  payload[LEN]  CRC

and every payload begins with the index of the detector the frame is for (a
request) or from (an answer): a board carries an array of detectors behind
one link.

``CRC`` is CRC-8/SMBUS (polynomial x^8 + x^2 + x + 1 = 0x07, initial value 0,
no reflection, no final XOR) over ``LEN``, ``CMD`` and the payload. Multi-byte
fields are little-endian; a move word travels as three bytes, bits 17-23 zero.
"""

from amaranth.lib import data
from amaranth.lib import enum as hdl_enum
from amaranth.lib.crc import Algorithm, catalog

from ..params import COUNT_LIMIT_BITS, CYCLE_BITS, Pools, Rules, Scan
from ..result import QueryResult
from ..search.layout import Move, Score
from ..search.rules import MAX_DEPTH, NODE_BITS
from ..version import INTERFACE_VERSION


__all__ = [
    "START", "CRC_POLY", "PROTOCOL_VERSION", "MAX_PAYLOAD", "MAX_WORDS", "WORD_BYTES",
    "INDEX_BYTES", "ROOT_BYTES", "OCCUPANCY_BYTES", "QUERY_REQUEST_BYTES", "QUERY_ANSWER_BYTES",
    "QUERY_RECORD_BYTES", "IDENTITY_RECORD_BYTES", "ERROR_BYTES", "RX_BUFFER_BYTES", "MAX_DETECTORS",
    "RULES_CODES", "POOLS_CODES", "SCAN_CODES", "Command", "ErrorCode", "RESPONSE_FLAG",
    "ERROR_RESPONSE", "CRC8", "crc8", "IdentityRecord", "IDENTITY_BYTES", "identity_record",
    "BOARD_BYTES", "SEARCH_REQUEST_BYTES", "SEARCH_RECORD_BYTES", "SEARCH_ANSWER_BYTES",
    "SearchRecord", "MAX_SEARCH_DEPTH", "STOP_BYTE", "PERFT_REQUEST_BYTES",
    "PERFT_RECORD_BYTES", "PERFT_ANSWER_BYTES", "PerftRecord",
]

START            = 0xA5
CRC_POLY         = 0x07
# Version 2: QUERY carries the occupancy and its answer the upcoming repetition.
# Version 3: QUERY carries the search's root and its answer the draw.
# Version 4: IDENTIFY answers the whole configuration and the interface's version.
# Version 5: every payload begins with a detector index, the board buffers
# requests, and IDENTIFY reports the detectors and the buffer.
# Version 6: the QUERY answer says whether its upcoming part is exact.
# Version 7: SEARCH runs a board's search unit and PERFT its perft core;
# IDENTIFY reports them.
PROTOCOL_VERSION = 7
MAX_PAYLOAD      = 255
WORD_BYTES       = 3
# Every payload's first byte: the detector the frame is for or from.
INDEX_BYTES      = 1
# IDENTIFY reports the detector count in one byte.
MAX_DETECTORS    = 255
# A write frame holds the index, a 3-byte header and the words in 255
# payload bytes.
MAX_WORDS        = (MAX_PAYLOAD - INDEX_BYTES - 3) // WORD_BYTES
# QUERY: index (1), top (2), count limit (1), root address (2, signed), occupancy
# (8); its answer: the index, the result record (8) and the upcoming
# repetition (5).
ROOT_BYTES          = 2
OCCUPANCY_BYTES     = 8
QUERY_REQUEST_BYTES = INDEX_BYTES + 3 + ROOT_BYTES + OCCUPANCY_BYTES
QUERY_RECORD_BYTES  = data.Layout.cast(QueryResult).size // 8
QUERY_ANSWER_BYTES  = INDEX_BYTES + QUERY_RECORD_BYTES
# Request bytes a board of several detectors holds while it executes or
# answers earlier ones: one iCE40 block RAM. A host may have requests of at
# most this many bytes sent and not yet answered; more may be dropped. A
# board of one detector has none (IDENTIFY says 0): it drops the bytes that
# come while it is busy, and a host sends it one request at a time.
RX_BUFFER_BYTES  = 512
# SEARCH: index (1), first and last depth (1 each), side to move and
# castling rights (1), en passant square (1), root address (2, signed), the
# 64 squares' 4-bit piece codes (32); each answer: the index and a
# SearchRecord.
BOARD_BYTES          = 32
SEARCH_REQUEST_BYTES = INDEX_BYTES + 4 + ROOT_BYTES + BOARD_BYTES
MAX_SEARCH_DEPTH     = MAX_DEPTH
# PERFT: index (1), depth (1), side to move and castling rights (1), en
# passant square (1), the 64 squares (32); each answer: the index and a
# PerftRecord.
PERFT_REQUEST_BYTES  = INDEX_BYTES + 3 + BOARD_BYTES
# A byte the host sends while a search or a perft runs stops it; this one
# is never a frame's start, so a board that was not busy drops it.
STOP_BYTE            = 0x00
# An error answer: the index, the error code, the request's CMD byte.
ERROR_BYTES      = INDEX_BYTES + 2
RESPONSE_FLAG    = 0x80
ERROR_RESPONSE   = 0xFF
RULES_CODES      = {Rules.PAPER: 0, Rules.EXACT: 1}
POOLS_CODES      = {Pools.KIND: 0, Pools.SPILL: 1, Pools.SIDE: 2, Pools.WALKED: 3}
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
    SEARCH   = 0x06
    PERFT    = 0x07


class ErrorCode(hdl_enum.IntEnum, shape=4):
    """The error answer's code: an Amaranth enum, so that the link's gateware
    holds it in a signal of this shape and the host reads the same values."""
    NONE            = 0x00  # no error: the frame is acted upon (never sent)
    BAD_CRC         = 0x01  # the CRC byte does not match
    TRUNCATED       = 0x02  # the line went idle for the inter-byte timeout mid-frame
    UNKNOWN_COMMAND = 0x03
    BAD_LENGTH      = 0x04  # LEN does not fit the command, or n is 0 or above MAX_WORDS
    ADDRESS_RANGE   = 0x05  # start + n is beyond the move-list depth
    TOP_RANGE       = 0x06  # query top is not an address of the move list
    BAD_ARGUMENT    = 0x07  # count limit above 15, or root address outside -1..depth - 1
    NO_DETECTOR     = 0x08  # the index is not below the board's detector (or SEARCH: unit) count
    STOPPED         = 0x09  # a byte from the host stopped the search or perft


# The frame check, from Amaranth's catalogue: the same definition serves the
# host's codec and the gateware (axon.hdl.board.link makes its CRC processors of it).
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
    backstop:        1    # a backstop answers what the pools overflow
    reserved:        6
    chains:          8
    depth:           16
    count_bits:      8
    cycle_bits:      8
    max_words:       8
    detectors:       8    # detectors behind the link, indices 0..detectors - 1
    rx_buffer:       16   # RX_BUFFER_BYTES, or 0: no request buffer
    units:           8    # search units, indices 0..units - 1 (SEARCH)
    perft_cores:     8    # perft cores, indices 0..perft_cores - 1 (PERFT)


# The answer's payload: the index, then the record.
IDENTITY_RECORD_BYTES = IdentityRecord.as_shape().size // 8
IDENTITY_BYTES = INDEX_BYTES + IDENTITY_RECORD_BYTES


def identity_record(config, detectors=1, rx_buffer=0, units=0, perft_cores=0):
    """The field values of IDENTIFY's answer for a board of ``detectors``
    detectors of ``config``, ``units`` search units and ``perft_cores``
    perft cores, with a request buffer of ``rx_buffer`` bytes, for
    ``IdentityRecord.const``."""
    major, minor, patch = INTERFACE_VERSION
    return {
        "version": PROTOCOL_VERSION,
        "interface_major": major, "interface_minor": minor, "interface_patch": patch,
        "rules": RULES_CODES[config.rules], "pools": POOLS_CODES[config.pools],
        "scan": SCAN_CODES[config.scan], "upcoming": int(config.upcoming),
        "backstop": int(config.backstop),
        "chains": config.chains, "depth": config.depth,
        "count_bits": COUNT_LIMIT_BITS, "cycle_bits": CYCLE_BITS, "max_words": MAX_WORDS,
        "detectors": detectors, "rx_buffer": rx_buffer, "units": units,
        "perft_cores": perft_cores,
    }


class SearchRecord(data.Struct):
    """One of SEARCH's answers, little-endian: a depth's result as the
    search unit (:class:`~axon.hdl.search.SearchUnit`) gives it. ``score``
    is the root's, from its side to move's view (a mate in N plies is
    32,000 - N); ``best_move`` holds only if ``best_valid``."""
    depth:       8
    score:       Score
    best_move:   Move
    best_valid:  1
    nodes:       NODE_BITS
    terminal:    NODE_BITS
    repetitions: NODE_BITS
    queries:     NODE_BITS
    clocks:      NODE_BITS
    wait_clocks: NODE_BITS


SEARCH_RECORD_BYTES = SearchRecord.as_shape().size // 8
SEARCH_ANSWER_BYTES = INDEX_BYTES + SEARCH_RECORD_BYTES



class PerftRecord(data.Struct):
    """One of PERFT's answers, little-endian: a root move and its leaf
    nodes, in the move generator's order; then, ``last`` set, the leaf
    nodes in all (``move`` zero)."""
    move:  Move
    last:  1
    nodes: NODE_BITS


PERFT_RECORD_BYTES = PerftRecord.as_shape().size // 8
PERFT_ANSWER_BYTES = INDEX_BYTES + PERFT_RECORD_BYTES