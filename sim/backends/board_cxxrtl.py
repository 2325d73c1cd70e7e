"""The board design compiled with CXXRTL, spoken to at its UART pins.

The board design (:class:`~axon.hdl.board.top.AxonBoard`: UART, framed link,
detector) is compiled like the detector alone in
:mod:`axon.sim.backends.cxxrtl`, with a testbench
(``cxxrtl_uart_harness.cc``, beside this file) that plays the host's UART: it
serialises bytes onto ``uart_rx`` and samples ``uart_tx`` mid-bit. The host's
traffic is a list of *segments*; after each, the line stays idle until the
board has been silent for longer than it ever takes to answer, so every byte
the board sends belongs to one segment. A segment may also carry a fault:
the design's reset (the top's ``rst``) pulsed on a chosen clock of it.
While a board with a search unit or a perft core counts (its ``busy``),
the line may be silent and the segment goes on: the answers belong to it
too.

:class:`CxxrtlBoard` runs a whole list of segments in one process
(:meth:`~CxxrtlBoard.exchange`, what the link soak does), or is a
:class:`~axon.sim.backends.transport.Transport` for the host's link client
(:class:`axon.sim.backends.link.Link`, what ``axon query --port cxxrtl://`` does):
then one process lives as long as the transport, and each :meth:`read` sends
what was written since the last one as one segment.
"""

import subprocess
import time
from array import array

from ...hdl.params import SHIPPED
from ...hdl.board.protocol import MAX_WORDS
from ...hdl.board.top import AxonBoard
from .cxxrtl import CxxrtlError, CxxrtlModel
from .transport import Transport


__all__ = ["CxxrtlBoard", "DIVISOR", "TIMEOUT_BITS", "SEGMENT_LIMIT"]

# Clocks per UART bit: the smallest the UART takes, so that a segment costs
# few clocks; the link is the same at any divisor.
DIVISOR = 4
TIMEOUT_BITS = 64
# A segment still sending after this many clocks is a hang (the clocks of a
# search or a perft, whose length the host chose, are not counted).
SEGMENT_LIMIT = 1_000_000
# Marks a segment with a reset clock, as the harness reads it.
RESET_FLAG = 1 << 31
# Status word of a segment's answer: the board fell silent, or still sent.
_SILENT, _HUNG = 0, 1


def _segment_words(segment):
    """One segment as the harness reads it: ``bytes``, or ``(bytes, reset_clock)``."""
    words = array("I")
    if isinstance(segment, tuple):
        segment, reset_clock = segment
        words.extend((RESET_FLAG | len(segment), reset_clock))
    else:
        words.append(len(segment))
    words.extend(segment)
    return words


class CxxrtlBoard(CxxrtlModel, Transport):
    """:class:`~axon.hdl.board.top.AxonBoard` compiled with CXXRTL, at its UART pins.

    Parameters
    ----------
    config, divisor, timeout_bits, detectors, unit, perft :
        As for :class:`~axon.hdl.board.top.AxonBoard`.
    build_dir, log :
        Cache directory and progress lines, see :class:`~axon.sim.backends.cxxrtl.CxxrtlModel`.

    Members
    -------
    hung : bool
        The last segment sent as a transport was still drawing bytes after
        ``SEGMENT_LIMIT`` clocks. The others are
        :class:`~axon.sim.backends.cxxrtl.CxxrtlModel`'s.
    """

    DESIGN_NAME     = "axon_board"
    HARNESS         = "cxxrtl_uart_harness.cc"
    HARNESS_PACKAGE = __package__
    HARNESS_PORTS   = ("clk", "rst", "uart_rx", "uart_tx", "busy")

    def __init__(self, config=SHIPPED, *, divisor=DIVISOR, timeout_bits=TIMEOUT_BITS,
                 detectors=1, unit=False, perft=False, build_dir=None, log=None):
        self.config = config
        self.divisor, self.timeout_bits = divisor, timeout_bits
        self.detectors = detectors
        self.unit = unit
        self.perft = perft
        super().__init__(build_dir, log=log)
        self._process = None
        self._written = bytearray()
        self._received = bytearray()
        self.hung = False

    def _make_dut(self):
        """The design at the pins; a broken variant for a test overrides it."""
        return AxonBoard(self.config, divisor=self.divisor, timeout_bits=self.timeout_bits,
                         detectors=self.detectors, unit=self.unit, perft=self.perft)

    @property
    def quiet_clocks(self):
        """Silence that ends a segment: longer than the board ever takes to
        start answering (the inter-byte timeout, then the longest write or
        read, or a full scan)."""
        return (self.divisor * self.timeout_bits + 8 * MAX_WORDS + self.config.depth +
                4 * self.divisor)

    def _defines(self):
        return [f"#define AXON_DIVISOR {self.divisor}u",
                f"#define AXON_QUIET_CLOCKS {self.quiet_clocks}u",
                f"#define AXON_SEGMENT_LIMIT {SEGMENT_LIMIT}u"]

    # -- a list of segments in one process ------------------------------------------

    def exchange(self, segments):
        """Send each segment in turn from power-up; return, per segment,
        ``(hung, answer bytes)``.

        A segment is ``bytes``, or ``(bytes, reset_clock)`` to hold the
        design's reset high on that clock of the segment (counted from its
        first clock, while the bytes are being sent or after).
        """
        payload = array("I")
        for segment in segments:
            payload.extend(_segment_words(segment))
        words = array("I")
        words.frombytes(self._run_binary(payload.tobytes()))
        answers, at = [], 0
        while at < len(words):
            status, count = words[at], words[at + 1]
            answers.append((status == _HUNG, bytes(words[at + 2:at + 2 + count].tolist())))
            at += 2 + count
        if len(answers) != len(segments):
            raise CxxrtlError(f"the board model answered {len(answers)} segments of "
                              f"{len(segments)}")
        return answers

    # -- a transport: one process, one segment a read -----------------------------------

    def _start(self):
        if self._process is None:
            binary = self.build()
            self._process = subprocess.Popen([str(binary)], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return self._process

    def _read_exactly(self, count):
        data = bytearray()
        while len(data) < count:
            chunk = self._process.stdout.read(count - len(data))
            if not chunk:
                status = self._process.wait()
                error = self._process.stderr.read().decode(errors="replace").strip()
                self._process = None
                raise CxxrtlError(f"the board model stopped with status {status}: "
                                  f"{error or 'no message'}")
            data += chunk
        return bytes(data)

    def _send_written(self):
        """Send the bytes written so far as one segment and collect its answer."""
        process = self._start()
        began = time.perf_counter()
        process.stdin.write(_segment_words(bytes(self._written)).tobytes())
        process.stdin.flush()
        self._written.clear()
        header = array("I")
        header.frombytes(self._read_exactly(2 * header.itemsize))
        status, count = header
        answer = array("I")
        answer.frombytes(self._read_exactly(count * answer.itemsize))
        self._received += bytes(answer.tolist())
        self.hung = status == _HUNG
        self.last_run_seconds = time.perf_counter() - began

    def write(self, data):
        self._written += bytes(data)

    def read(self, count, timeout=None):
        """Up to ``count`` bytes of the answers; what was written since the
        last read goes out first as one segment, so a frame must be written
        whole before it is read after (a segment ends with a silence longer
        than the link's inter-byte timeout, as a frame split over two reads
        would on a real line)."""
        if len(self._received) < count and self._written:
            self._send_written()
        data = bytes(self._received[:count])
        del self._received[:count]
        return data

    def resync(self):
        # Every segment ends with the line idle past the inter-byte timeout.
        if self._written:
            self._send_written()
        self._received.clear()

    def close(self):
        process, self._process = self._process, None
        if process is not None:
            process.stdin.close()
            process.wait()
            process.stdout.close()
            process.stderr.close()
