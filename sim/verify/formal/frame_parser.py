"""The host link's frame parser against an independent framer."""

from amaranth.hdl import *

from ....hdl.board.link import FrameReceiver
from ....hdl.board.protocol import CRC8, START
from .harness import free, Harness


# A short inter-byte timeout keeps truncated frames within the bounded checks.
TIMEOUT = 4


class _CrcBlindReceiver(FrameReceiver):
    """Broken: the CRC misses the top bit of every byte, so a frame whose
    bytes differ there only passes."""
    def _crc_byte(self, byte):
        return byte[:7]


def frame_parser(broken):
    def body(m):
        parser = _CrcBlindReceiver if broken else FrameReceiver
        m.submodules.receiver = receiver = parser(timeout=TIMEOUT)
        free(m, receiver.rx.valid)
        free(m, receiver.rx.payload)
        free(m, receiver.listen)

        # A shadow framer with its own CRC processor, fed from its own
        # framing: it must end every frame on the same clock as the parser and
        # judge it the same way.
        m.submodules.reference_crc = reference = CRC8(data_width=8).create()
        state   = Signal(range(5))           # 0 hunt, 1 length, 2 command, 3 payload, 4 crc
        crc     = reference.crc
        length  = Signal(8)
        seen    = Signal(8)
        silence = Signal(range(TIMEOUT + 1))
        ended   = Signal()                   # a frame ended on the last clock
        intact  = Signal()                   # ... whole, with a matching CRC
        byte    = receiver.rx.payload
        byte_in = receiver.rx.valid & receiver.listen
        m.d.comb += [
            reference.data.eq(byte),
            reference.start.eq(byte_in & (state == 0) & (byte == START)),
            reference.valid.eq(byte_in & (state >= 1) & (state <= 3)),
        ]
        m.d.sync += ended.eq(0)
        with m.If(byte_in):
            m.d.sync += silence.eq(0)
        with m.Elif(silence != TIMEOUT):
            m.d.sync += silence.eq(silence + 1)
        with m.If(byte_in):
            with m.Switch(state):
                with m.Case(0):
                    with m.If(byte == START):
                        m.d.sync += [state.eq(1), seen.eq(0)]
                with m.Case(1):
                    m.d.sync += [length.eq(byte), state.eq(2)]
                with m.Case(2):
                    m.d.sync += state.eq(Mux(length == 0, 4, 3))
                with m.Case(3):
                    m.d.sync += seen.eq(seen + 1)
                    with m.If(seen == length - 1):
                        m.d.sync += state.eq(4)
                with m.Case(4):
                    m.d.sync += [ended.eq(1), intact.eq(byte == crc), state.eq(0)]
        with m.Elif((state != 0) & (silence == TIMEOUT)):
            m.d.sync += [ended.eq(1), intact.eq(0), state.eq(0)]

        # The invariant that makes it inductive, itself asserted: the parser
        # is in the shadow's stage, with the same CRC, length, byte count
        # and silence.
        parsed = receiver.observe
        m.d.comb += [
            Assert(state <= 4),
            Assert(parsed.stage == state),
            Assert(parsed.crc == crc),
            Assert(receiver.length == length),
            Assert(parsed.received == seen),
            Assert(parsed.silence == silence),
        ]
        m.d.comb += Assert(receiver.frame_done == ended)
        with m.If(receiver.frame_done):
            m.d.comb += [
                Assert((receiver.error == 0) == intact),
                Assert(receiver.length == length),
            ]
    return Harness(body)
