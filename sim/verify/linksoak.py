"""A long soak of the whole board at its UART pins, with line noise in between.

The board design (:class:`~axon.hdl.board.top.AxonBoard`: UART, framed link,
detector) runs compiled with CXXRTL at its UART pins
(:class:`~axon.sim.backends.board_cxxrtl.CxxrtlBoard`), one process for the
whole soak: the host's traffic is a list of *segments*, after each of which
the line stays idle until the board has fallen silent, so every byte the
board sends belongs to one segment. A segment may also carry a fault: the
design's reset (the top's ``rst``) pulsed on a chosen clock of it.

:func:`run_link_soak` loads games and random words with write frames, asks
queries (some right after a write of their top's word, as a search asks),
reads words back, sends requests the board must refuse, and between
them line noise: garbage bytes, frames with a flipped byte, truncated frames,
frames whose length claims more than follows; and resets injected in the
middle of a scan, of an answer, or of a write frame's last byte. Every query's
answer is checked against the golden model, field by field and clock count;
every refused request against its error code; every noise segment may only
draw error answers; a reset segment may draw anything but a hang, and the
queries after it must be right. At the end the whole move list is read back:
no noise and no reset ever wrote it.
"""

import random
import time
from dataclasses import dataclass, field

from ...hdl.params import SHIPPED, Written
from ..backends.board_cxxrtl import CxxrtlBoard
from ..model.encode import encode_moves
from ..model.generate import game_corpus
from ..model.golden import perpetual
from ..backends.pysim import expected_cycles
from ..backends.session import HostWrites
from .soak import random_occupancy, random_root
from ...hdl.board.protocol import Command, ErrorCode, ERROR_RESPONSE, MAX_WORDS, RESPONSE_FLAG
from ..backends import link_codec
from ..backends.link_codec import FrameDecoder, holds_known_frame, parse_query


__all__ = ["LinkSoakReport", "run_link_soak", "NOISE_KINDS", "noise"]

# Clocks a byte takes on the line: start bit, 8 data bits, stop bit.
BYTE_BITS = 10

NOISE_KINDS = ("flip", "truncate", "garbage", "long", "garbage+bad-crc")


def noise(rng, frame, kind):
    """Line noise made from a valid request ``frame``: one of :data:`NOISE_KINDS`."""
    data = bytearray(frame)
    if kind == "flip":
        index = rng.randrange(1, len(data))
        data[index] ^= rng.randrange(1, 256)
    elif kind == "truncate":
        data = data[:rng.randrange(1, len(data))]
    elif kind == "long":
        # LEN claims more bytes than follow: the inter-byte timeout ends it.
        data[1] = min(255, data[1] + rng.randrange(1, 41))
    elif kind == "garbage":
        data = bytearray(rng.randrange(256) for _ in range(rng.randrange(1, 41)))
    else:
        data = bytearray(rng.randrange(256) for _ in range(rng.randrange(11))) + \
            data[:-1] + bytes([data[-1] ^ 0x5a])
    return bytes(data)


@dataclass
class LinkSoakReport:
    queries:  int = 0
    fresh:    int = 0          # of those, right after the write of their top's word
    noise:    int = 0          # noise segments sent
    refused:  int = 0          # well-formed requests the board must refuse
    writes:   int = 0
    reads:    int = 0
    resets:   int = 0          # segments with the design's reset pulsed
    cut:      int = 0          # of those, the ones that drew no whole answer
    lost:     int = 0          # requests with no answer, or a hang
    wrong:    int = 0          # answers that differ from the expected one
    seconds:  float = 0.0
    failures: list = field(default_factory=list)   # the first few, described

    @property
    def mismatches(self):
        return self.lost + self.wrong

    def summary(self):
        rate = self.queries / self.seconds if self.seconds else 0.0
        return (f"link soak: {self.queries} queries ({self.fresh} right after the write of "
                f"their top), {self.noise} noise segments, "
                f"{self.refused} refused requests, {self.writes} writes, {self.reads} reads, "
                f"{self.resets} resets ({self.cut} cut an answer short) through the UART pins in {self.seconds:.1f} s ({rate:,.0f} queries/s); "
                f"lost {self.lost}, wrong {self.wrong}")


class _Expect:
    """What one segment must draw from the board."""
    def __init__(self, kind, check=None, label=""):
        self.kind, self.check, self.label = kind, check, label


def _read_segment(memory, address, count, label):
    """A read of ``count`` words at ``address``, which must draw the modelled words."""
    want = list(memory[address:address + count])
    return (link_codec.read_request(address, count),
            _Expect(Command.READ, lambda payload: link_codec.parse_words(payload) == want,
                    f"{label} {count} at {address}"))


def _write_cut_short(rng, depth, byte_clocks, divisor):
    """A write with the design's reset pulsed before its last byte (the CRC)
    is whole: the frame never completes, so nothing may be written. Words as
    random as the rest of the soak. ``(frame, expect, reset clock)``."""
    address = rng.randrange(depth)
    count = rng.randrange(1, min(MAX_WORDS, depth - address) + 1)
    frame = link_codec.write_request(address, [rng.randrange(1 << 17) for _ in range(count)])
    return (frame, _Expect("reset", label=f"reset during write of {count} at {address}"),
            (len(frame) - 1) * byte_clocks + rng.randrange(byte_clocks - divisor))


def _new_words(rng, games, depth):
    """The words of the next game of ``games``, or (when they run out, and
    now and then) random words."""
    start_position, moves = next(games, (None, None))
    if moves is None or rng.random() < 0.2:
        return [rng.randrange(1 << 17) for _ in range(rng.randrange(1, depth + 1))]
    return encode_moves(start_position, moves)[:depth]


def _noise_segment(rng, depth):
    """A query frame made noise of a random kind: ``(data, kind)``."""
    kind = rng.choice(NOISE_KINDS)
    frame = link_codec.query_request(rng.randrange(depth), rng.randrange(16))
    return noise(rng, frame, kind), kind


def _plan(rng, queries, config, golden, divisor):
    """The segments and what each must draw, with the move list modelled."""
    depth = config.depth
    memory = [0] * depth
    # What the detector remembers of the writes, for each query's clocks.
    writes = HostWrites()
    segments, expects = [], []
    counts = {"queries": 0, "fresh": 0, "noise": 0, "refused": 0, "writes": 0, "reads": 0,
              "resets": 0}
    byte_clocks = BYTE_BITS * divisor

    def add(data, expect, reset_clock=None):
        segments.append(bytes(data) if reset_clock is None else (bytes(data), reset_clock))
        expects.append(expect)

    def reset_during_query(top, limit):
        # On a clock from the frame's last stop bit to the end of the answer:
        # while the link decodes, the scanner scans, or the answer is sent.
        occupancy = random_occupancy(rng, memory, top)
        expected = golden(list(memory), top, config=config, count_limit=limit,
                          occupancy=occupancy if config.upcoming else None)
        frame = link_codec.query_request(top, limit, occupancy)
        busy = (expected_cycles(memory, top, expected, config, writes.starts(top)) + 16 +
                16 * byte_clocks)
        # Before the query starts or after, the reset leaves no write remembered.
        writes.reset()
        if rng.random() < 0.5:
            busy = expected.plies_scanned // 2 + 8         # mid-scan, mostly
        add(frame, _Expect("reset", label=f"reset during query top={top}"),
            len(frame) * byte_clocks - divisor // 2 + rng.randrange(busy))
        counts["resets"] += 1

    def write(address, words):
        for at in range(0, len(words), MAX_WORDS):
            chunk = words[at:at + MAX_WORDS]
            memory[address + at:address + at + len(chunk)] = chunk
            writes.wrote(address + at + len(chunk) - 1)
            add(link_codec.write_request(address + at, chunk),
                _Expect(Command.WRITE, lambda payload: payload == b"\0",
                        f"write {len(chunk)} words at {address + at}"))
            counts["writes"] += 1

    def query(top, limit):
        # The occupancy of the soak's random images: the newest words'
        # squares and random blockers (it need not be the game's). The lean
        # scan has no upcoming repetition and answers none.
        occupancy = random_occupancy(rng, memory, top)
        root_address = random_root(rng, top, depth)
        expected = golden(list(memory), top, root_address=root_address, config=config,
                          count_limit=limit,
                          occupancy=occupancy if config.upcoming else None)
        after = writes.starts(top)
        cycles = expected_cycles(memory, top, expected, config, after)
        add(link_codec.query_request(top, limit, occupancy, root_address),
            _Expect(Command.QUERY, lambda payload, want=(expected, cycles):
                    parse_query(payload) == want,
                    f"query top={top} root_address={root_address} limit={limit} "
                    f"occupancy={occupancy:#018x} "
                    f"after {after.value}"))
        counts["queries"] += 1
        counts["fresh"] += after is Written.TOP

    games = iter(game_corpus(max(1, queries // 40), seed=rng.randrange(1 << 30)))
    written = 0
    while counts["queries"] < queries:
        # A new game (or, now and then, random words) every forty queries or so.
        if written == 0 or rng.random() < 1 / 40:
            words = _new_words(rng, games, depth)
            if not words:
                continue
            write(0, words)
            written = len(words)
        roll = rng.random()
        if roll < 0.25:
            data, kind = _noise_segment(rng, depth)
            if holds_known_frame(data):
                continue
            add(data, _Expect("noise", label=f"noise ({kind})"))
            counts["noise"] += 1
        elif roll < 0.28:
            # Well-formed requests the board must refuse, with their code.
            roll = rng.random()
            if roll < 0.4:
                request = link_codec.query_request(depth, 1)
                code = (ErrorCode.TOP_RANGE, Command.QUERY)
            elif roll < 0.7:
                request = link_codec.query_request(0, 16)
                code = (ErrorCode.BAD_ARGUMENT, Command.QUERY)
            else:
                root_address = rng.choice((-2, -0x8000, depth, 0x7fff))
                request = link_codec.query_request(0, 1, root_address=root_address)
                code = (ErrorCode.BAD_ARGUMENT, Command.QUERY)
            add(request, _Expect("refused", lambda payload, code=code:
                                 link_codec.parse_error(payload) == code, f"refused {code[0].name}"))
            counts["refused"] += 1
        elif roll < 0.31:
            if rng.random() < 0.7:
                top = rng.randrange(written)
                reset_during_query(top, rng.choice((1, 4, 15)))
            else:
                add(*_write_cut_short(rng, depth, byte_clocks, divisor))
                writes.reset()
                counts["resets"] += 1
        elif roll < 0.33:
            address = rng.randrange(depth)
            count = rng.randrange(1, min(MAX_WORDS, depth - address) + 1)
            add(*_read_segment(memory, address, count, "read"))
            counts["reads"] += 1
        else:
            # Mostly inside the game; now and then above it (old words).
            top = rng.randrange(written) if rng.random() < 0.9 else rng.randrange(depth)
            if rng.random() < 0.3:
                # As a search asks: the top's word written, then the query.
                write(top, [memory[top]])
            query(top, rng.choice((1, 1, 2, 4, rng.randrange(16))))
    # Finally the whole list back: no noise may have written it.
    for address in range(0, depth, MAX_WORDS):
        add(*_read_segment(memory, address, min(MAX_WORDS, depth - address), "final read"))
        counts["reads"] += 1
    return segments, expects, counts


def _whole_answer(data):
    """True if ``data`` is exactly one whole frame that is not an error."""
    decoder = FrameDecoder()
    frames = decoder.feed(data)
    return decoder.needed() == 4 and len(frames) == 1 and frames[0].command != ERROR_RESPONSE


def _judge(expect, hung, data):
    """``None`` if the answer is right, else ``("lost" or "wrong", why)``."""
    decoder = FrameDecoder()
    frames = decoder.feed(data)
    if hung:
        return "lost", "the board was still sending after the segment limit"
    if expect.kind == "reset":
        # Cut short anywhere: a partial answer, an error, or silence are all
        # right; the queries after it tell whether the reset did harm.
        return None
    if decoder.needed() != 4:
        return "wrong", f"{len(data)} bytes that are not whole frames"
    if expect.kind == "noise":
        if any(frame.command != ERROR_RESPONSE for frame in frames):
            return "wrong", f"noise drew {frames}"
        return None
    if not frames:
        return "lost", "no answer"
    if len(frames) != 1:
        return "wrong", f"{len(frames)} answers: {frames}"
    frame = frames[0]
    command = ERROR_RESPONSE if expect.kind == "refused" else expect.kind | RESPONSE_FLAG
    if frame.command != command or not expect.check(frame.payload):
        return "wrong", f"answer {frame}"
    return None


def run_link_soak(queries=10_000, *, seed=0, config=SHIPPED, golden=perpetual, log=None,
                  model=None):
    """Soak the board at its UART pins; return a :class:`LinkSoakReport`.

    ``golden`` computes the expected answers (a test passes a wrong one to
    see the soak fail); ``model`` is a
    :class:`~axon.sim.backends.board_cxxrtl.CxxrtlBoard` of the same
    configuration to reuse. ``config`` is the board's detector
    (:class:`~axon.hdl.params.DetectorConfig`; the 1K boards':
    :data:`~axon.hdl.params.LEAN`).
    """
    began = time.perf_counter()
    rng = random.Random(seed)
    model = model or CxxrtlBoard(config)
    segments, expects, counts = _plan(rng, queries, config, golden, model.divisor)
    report = LinkSoakReport(**counts)
    # One process for the whole plan: the board keeps its state throughout.
    answers = model.exchange(segments)
    for expect, (hung, data) in zip(expects, answers):
        if expect.kind == "reset" and not _whole_answer(data):
            report.cut += 1
        verdict = _judge(expect, hung, data)
        if verdict is not None:
            outcome, why = verdict
            setattr(report, outcome, getattr(report, outcome) + 1)
            if len(report.failures) < 10:
                report.failures.append(f"{expect.label}: {outcome}: {why}")
    report.seconds = time.perf_counter() - began
    if log:
        log(report.summary())
    return report
