"""Gateware half of the host link: frame receiver, command executor, frame sender.

The frame format both halves share is in :mod:`axon.hdl.board.protocol`, the
host's half in :mod:`axon.sim.backends.link` (its frames in
:mod:`axon.sim.backends.link_codec`), the description for people in
``docs/protocol.md``. A request goes through three steps:

0. On a board of several detectors, the request bytes wait in a buffer of
   :data:`~axon.hdl.board.protocol.RX_BUFFER_BYTES` while earlier frames are
   executed and answered, so a host may send several frames (a query for
   each detector) at once. A board of one drops them, as before.
1. :class:`FrameReceiver` hunts for the start marker, stores the payload in
   the frame buffer and checks the CRC. Nothing outside the frame buffer
   changes while a frame is received, so a corrupted, truncated or unknown
   frame can never reach the move list.
2. :class:`HostLink` checks the command, the detector index and the
   arguments and only then acts on the indexed detector (of a
   :class:`~axon.hdl.board.array.DetectorArray`); it writes the answer's
   payload back into the frame buffer.
3. :class:`FrameSender` sends the answer frame from the frame buffer.

The board answers every frame, in the order received, before it takes the
next one from the buffer; the detectors are fast beside the UART, so one
executor serves them all. A board with a search unit or a perft core
answers SEARCH and PERFT with several frames, as the unit finishes each
depth and the core each root move; a byte from the host stops them.
"""

from amaranth.hdl import *
from amaranth.lib import data, fifo, memory, stream, wiring

from ..search.rules import MAX_DEPTH
from amaranth.lib.wiring import In, Out

from ..observe import Observation, registers
from ..params import COUNT_LIMIT_MAX
from ..result import QueryResult
from .protocol import (START, CRC8, MAX_PAYLOAD, MAX_WORDS, WORD_BYTES, RESPONSE_FLAG,
                       ERROR_RESPONSE, INDEX_BYTES, ROOT_BYTES, OCCUPANCY_BYTES,
                       QUERY_REQUEST_BYTES, QUERY_RECORD_BYTES, IDENTITY_RECORD_BYTES,
                       ERROR_BYTES, RX_BUFFER_BYTES, BOARD_BYTES, SEARCH_REQUEST_BYTES,
                       SEARCH_RECORD_BYTES, MAX_SEARCH_DEPTH, PERFT_REQUEST_BYTES,
                       PERFT_RECORD_BYTES, Command, ErrorCode, IdentityRecord, PerftRecord,
                       SearchRecord, identity_record)


__all__ = ["FrameReceiver", "FrameSender", "HostLink", "RequestArguments", "WordsArguments",
           "QueryArguments", "SearchArguments", "PerftArguments"]

# Answer records the executor copies into the frame buffer, and their bytes.
# (The index before them is the request's own, already in the buffer, but
# for an error, whose record carries it.) A board with a search unit has
# SEARCH's record too, and one with a perft core PERFT's.
_RECORDS = {"identity": IDENTITY_RECORD_BYTES, "query": QUERY_RECORD_BYTES, "word": WORD_BYTES,
            "error": ERROR_BYTES}
# Root moves a perft gives at most: their counts wait here while the
# answers before them are sent.
_ROOT_MOVES = 256
# The payload's bytes before the arguments: the detector index.
_ARGS_AT = INDEX_BYTES


def _check_timeout(timeout):
    if not isinstance(timeout, int) or timeout < 1:
        raise TypeError(f"Inter-byte timeout must be a positive number of clocks, "
                        f"not {timeout!r}")


class FrameReceiver(wiring.Component):
    """Receive one frame into the frame buffer and check it.

    Parameters
    ----------
    timeout : int
        Clocks without a byte after which a partly received frame is dropped
        as truncated and the receiver hunts for a start marker again.

    Members
    -------
    rx : stream.Signature(8, always_ready=True), in
        Bytes from the UART; always taken.
    listen : Signal(1), in
        Bytes are parsed only while this is high; others are dropped.
    buffer_addr, buffer_data : Signal(8), out
    buffer_en : Signal(1), out
        Write port of the frame buffer: payload byte ``buffer_addr``.
    frame_done : Signal(1), out
        One clock: a frame ended, well formed or not; the fields below hold it.
    command, length : Signal(8), out
    args : Signal(32), out
        The first four payload bytes: the detector index, then the
        little-endian address/top and count; 0 where the frame had none.
    error : ErrorCode, out
        ``NONE``, ``BAD_CRC`` or ``TRUNCATED``.

    Attributes
    ----------
    observe : Observation
        The parser's state (:mod:`axon.hdl.observe`): the ``stage`` of the
        frame (0 hunting for a start marker, 1 length, 2 command, 3 payload,
        4 CRC byte; 7 if the state register holds none of them, which never
        happens), the ``crc`` so far, the payload bytes ``received`` so far
        and the clocks of ``silence`` without a byte. The formal proof's
        invariants compare them with an independent framer.
    """

    def __init__(self, *, timeout):
        _check_timeout(timeout)
        self._timeout = timeout
        super().__init__({
            # Every byte is taken (those not listened to are dropped).
            "rx":          In(stream.Signature(8, always_ready=True)),
            "listen":      In(1),
            "buffer_addr": Out(8),
            "buffer_data": Out(8),
            "buffer_en":   Out(1),
            "frame_done":  Out(1),
            "command":     Out(8),
            "length":      Out(8),
            "args":        Out(32),
            "error":       Out(ErrorCode),
        })
        kept = registers({"stage": 3, "received": 8, "silence": range(timeout + 1)})
        # The frame check is Amaranth's CRC processor of the catalogue's
        # CRC-8/SMBUS, the host's definition, made in ``elaborate``; ``crc``
        # follows its register. (A processor made here would be reported
        # unused, from inside Amaranth, whenever a receiver is never elaborated.)
        self.observe = Observation({"stage": kept["stage"], "crc": Signal(8, name="crc"),
                                    "received": kept["received"], "silence": kept["silence"]})

    def _crc_byte(self, byte):
        """The byte the CRC takes in: a method so that a broken variant, a
        subclass, can break it."""
        return byte

    def elaborate(self, platform):
        m = Module()
        m.submodules.crc = crc_unit = CRC8(data_width=8).create()

        byte     = self.rx.payload
        byte_in  = Signal()
        view     = self.observe
        crc      = view.crc
        m.d.comb += crc.eq(crc_unit.crc)
        m.d.comb += crc_unit.data.eq(self._crc_byte(byte))
        received = view.received              # payload bytes so far
        silence  = view.silence
        m.d.comb += [
            byte_in.eq(self.rx.valid & self.listen),
            self.buffer_addr.eq(received),
            self.buffer_data.eq(byte),
        ]
        m.d.sync += self.frame_done.eq(0)

        with m.If(byte_in):
            m.d.sync += silence.eq(0)
        with m.Elif(silence != self._timeout):
            m.d.sync += silence.eq(silence + 1)

        def give_up_when_silent():
            # Inside a frame, a silent line means the rest is not coming; a
            # byte arriving on this very clock still counts.
            with m.If(~byte_in & (silence == self._timeout)):
                m.d.sync += [self.frame_done.eq(1), self.error.eq(ErrorCode.TRUNCATED)]
                m.next = "HUNT"

        with m.FSM() as fsm:
            with m.State("HUNT"):
                # Anything but a start marker is line noise or the tail of a
                # frame that was already rejected.
                with m.If(byte_in & (byte == START)):
                    # A frame truncated before its CMD byte reports command 0.
                    m.d.comb += crc_unit.start.eq(1)
                    m.d.sync += [received.eq(0), self.command.eq(0), self.args.eq(0)]
                    m.next = "LENGTH"

            with m.State("LENGTH"):
                give_up_when_silent()
                with m.If(byte_in):
                    m.d.comb += crc_unit.valid.eq(1)
                    m.d.sync += self.length.eq(byte)
                    m.next = "COMMAND"

            with m.State("COMMAND"):
                give_up_when_silent()
                with m.If(byte_in):
                    m.d.comb += crc_unit.valid.eq(1)
                    m.d.sync += self.command.eq(byte)
                    with m.If(self.length == 0):
                        m.next = "CHECK"
                    with m.Else():
                        m.next = "PAYLOAD"

            with m.State("PAYLOAD"):
                give_up_when_silent()
                with m.If(byte_in):
                    m.d.comb += self.buffer_en.eq(1)
                    m.d.comb += crc_unit.valid.eq(1)
                    m.d.sync += received.eq(received + 1)
                    with m.Switch(received):
                        for index in range(4):
                            with m.Case(index):
                                m.d.sync += self.args.word_select(index, 8).eq(byte)
                    with m.If(received == self.length - 1):
                        m.next = "CHECK"

            with m.State("CHECK"):
                give_up_when_silent()
                with m.If(byte_in):
                    m.d.sync += [
                        self.frame_done.eq(1),
                        self.error.eq(Mux(byte == crc, ErrorCode.NONE, ErrorCode.BAD_CRC)),
                    ]
                    m.next = "HUNT"

        m.d.comb += view.stage.eq(7)
        for stage, name in enumerate(("HUNT", "LENGTH", "COMMAND", "PAYLOAD", "CHECK")):
            with m.If(fsm.ongoing(name)):
                m.d.comb += view.stage.eq(stage)
        return m


class FrameSender(wiring.Component):
    """Send one answer frame whose payload is in the frame buffer.

    Members
    -------
    start : Signal(1), in
        Send a frame with ``command`` and the first ``length`` buffer bytes.
    command, length : Signal(8), in
    busy : Signal(1), out
    buffer_addr : Signal(8), out
    buffer_data : Signal(8), in
        Read port of the frame buffer, one clock of latency.
    tx : stream.Signature(8), out
        Bytes to the UART.
    """

    def __init__(self):
        super().__init__({
            "start":       In(1),
            "command":     In(8),
            "length":      In(8),
            "busy":        Out(1),
            "buffer_addr": Out(8),
            "buffer_data": In(8),
            "tx":          Out(stream.Signature(8)),
        })

    def elaborate(self, platform):
        m = Module()

        m.submodules.crc = crc_unit = CRC8(data_width=8).create()
        command = Signal(8)
        length  = Signal(8)
        crc     = crc_unit.crc
        sent    = Signal(8)                   # payload bytes sent
        m.d.comb += self.buffer_addr.eq(sent)

        # Every byte taken after the marker goes into the CRC.
        m.d.comb += [crc_unit.valid.eq(self.tx.valid & self.tx.ready),
                     crc_unit.data.eq(self.tx.payload)]

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [command.eq(self.command), length.eq(self.length),
                                 sent.eq(0)]
                    m.next = "MARKER"

            with m.State("MARKER"):
                m.d.comb += [self.busy.eq(1), self.tx.valid.eq(1), self.tx.payload.eq(START)]
                with m.If(self.tx.ready):
                    # The marker is outside the CRC: it starts it afresh.
                    m.d.comb += [crc_unit.start.eq(1), crc_unit.valid.eq(0)]
                    m.next = "LENGTH"

            with m.State("LENGTH"):
                m.d.comb += [self.busy.eq(1), self.tx.valid.eq(1), self.tx.payload.eq(length)]
                with m.If(self.tx.ready):
                    m.next = "COMMAND"

            with m.State("COMMAND"):
                m.d.comb += [self.busy.eq(1), self.tx.valid.eq(1), self.tx.payload.eq(command)]
                with m.If(self.tx.ready):
                    with m.If(length == 0):
                        m.next = "CRC"
                    with m.Else():
                        m.next = "FETCH"

            with m.State("FETCH"):
                # The buffer answers `sent` one clock later.
                m.d.comb += self.busy.eq(1)
                m.next = "PAYLOAD"

            with m.State("PAYLOAD"):
                m.d.comb += [self.busy.eq(1), self.tx.valid.eq(1),
                             self.tx.payload.eq(self.buffer_data)]
                with m.If(self.tx.ready):
                    m.d.sync += sent.eq(sent + 1)
                    with m.If(sent == length - 1):
                        m.next = "CRC"
                    with m.Else():
                        m.next = "FETCH"

            with m.State("CRC"):
                m.d.comb += [self.busy.eq(1), self.tx.valid.eq(1), self.tx.payload.eq(crc)]
                with m.If(self.tx.ready):
                    m.next = "IDLE"

        return m


class WordsArguments(data.Struct):
    """WRITE's and READ's arguments, the payload's first four bytes
    (``docs/protocol.md``, "Commands"); WRITE's words follow them."""
    index: 8     # the detector the frame is for
    start: 16    # the first word's address; moves on word by word
    count: 8     # n, the words written or read; counts down the words left


class QueryArguments(data.Struct):
    """QUERY's first four bytes (``docs/protocol.md``, "Commands"); the root
    (:data:`~axon.hdl.board.protocol.ROOT_BYTES`, signed) and the occupancy
    (:data:`~axon.hdl.board.protocol.OCCUPANCY_BYTES`) follow them, read from
    the frame buffer."""
    index:       8    # the detector the frame is for
    top:         16   # the queried position's last word
    count_limit: 8    # equal positions that stop the scan


class SearchArguments(data.Struct):
    """SEARCH's first four bytes (``docs/protocol.md``, "Commands"); the en
    passant square, the root (signed) and the 64 squares follow them, read
    from the frame buffer."""
    index:    8    # the search unit the frame is for
    first:    8    # the depth searched first; moves on depth by depth
    last:     8    # the depth searched last
    side:     1    # the side to move (1: Black)
    castling: 4    # the castling rights, as the search unit takes them
    reserved: 3


class PerftArguments(data.Struct):
    """PERFT's first four bytes (``docs/protocol.md``, "Commands"); the 64
    squares follow them, read from the frame buffer."""
    index:    8    # the perft core the frame is for
    depth:    8
    side:     1    # the side to move (1: Black)
    castling: 4    # the castling rights, as the perft core takes them
    reserved: 3
    ep_sq:    6    # the en passant square, if ep_valid
    spare:    1
    ep_valid: 1


class RequestArguments(data.Union):
    """A request's first four payload bytes as :class:`FrameReceiver` keeps
    them, read as each command's arguments (IDENTIFY and RESET take the
    ``index`` alone)."""
    index:  8
    words:  WordsArguments
    query:  QueryArguments
    search: SearchArguments
    perft:  PerftArguments


class _LinkWires:
    """The signals that the parts of one elaborated :class:`HostLink` share:
    each part's function makes some and reads others'."""


class HostLink(wiring.Component):
    """Link between the host's byte stream and an array of detectors.

    Parameters
    ----------
    detector : DetectorArray
        The detectors to serve (:class:`~axon.hdl.board.array.DetectorArray`);
        its ``config`` (``depth``, ``chains``, ``rules``), ``count`` and port
        signature are read, and ``detector`` below has the flipped signature.
    timeout : int
        Inter-byte timeout in clocks, see :class:`FrameReceiver`.

    Members
    -------
    rx : stream.Signature(8), in
    tx : stream.Signature(8), out
        Bytes from and to the UART.
    detector : flipped detector signature, out
        Connect with ``wiring.connect(m, link.detector, detector)``; its
        ``select`` is the frame's detector index, and its ``soft_reset`` the
        RESET command's.
    soft_reset : Signal(1), out
        One clock: a RESET command reset the selected detector's scanner and
        chain list; the move list is block RAM and keeps its contents.
    good_frame, bad_frame : Signal(1), out
        One clock: a request was executed, or answered with an error.
    repetition : Signal(1), out
        The last query found an equal position.

    With a search ``unit`` or a ``perft`` core, also:

    unit : flipped search unit signature, out
        Connect with ``wiring.connect(m, link.unit, unit)``: WRITE to index 0
        writes its game history too, SEARCH loads and starts it.
    unit_stop : Signal(1), out
        One clock: a byte from the host stopped the search; reset the unit.
    perft : flipped perft signature, out
        Connect with ``wiring.connect(m, link.perft, perft)``: PERFT loads
        and starts it.
    perft_stop : Signal(1), out
        One clock: a byte from the host stopped the perft; reset the core.
    running : Signal(1), out
        A SEARCH or PERFT is being executed (the unit or the core counts,
        or an answer is sent).
    """

    def __init__(self, detector, *, timeout, unit=None, perft=None):
        _check_timeout(timeout)
        for name in ("config", "count", "signature"):
            if not hasattr(detector, name):
                raise TypeError(f"Detector must be a DetectorArray-like component with "
                                f"'{name}', not {detector!r}")
        config = detector.config
        if not 2 <= config.depth <= 0x8000:
            raise ValueError(f"Link addresses are 16 bits and the root a signed 16-bit "
                             f"number; depth {config.depth} does not fit")
        if not 1 <= config.chains <= 0xff:
            raise ValueError(f"Identify reports the chain count in one byte; "
                             f"{config.chains} does not fit")
        self._config = config
        self._count  = detector.count
        self._rx_buffer = RX_BUFFER_BYTES if detector.count > 1 else 0
        self._depth  = config.depth
        self._timeout = timeout
        self._units = 0 if unit is None else 1
        self._perft_cores = 0 if perft is None else 1
        self._records = dict(_RECORDS)
        if unit is not None:
            self._records["search"] = SEARCH_RECORD_BYTES
        if perft is not None:
            self._records["perft"] = PERFT_RECORD_BYTES
        members = {
            "rx":         In(stream.Signature(8)),
            "tx":         Out(stream.Signature(8)),
            "detector":   Out(detector.signature.flip()),
            "soft_reset": Out(1),
            "good_frame": Out(1),
            "bad_frame":  Out(1),
            "repetition": Out(1),
        }
        if unit is not None:
            if unit.config.depth != config.depth:
                raise ValueError(f"The search unit's move list ({unit.config.depth} words) "
                                 f"must be the detectors' ({config.depth}): WRITE fills both")
            members.update({"unit": Out(unit.signature.flip()), "unit_stop": Out(1)})
        if perft is not None:
            members.update({"perft": Out(perft.signature.flip()), "perft_stop": Out(1)})
        if unit is not None or perft is not None:
            members["running"] = Out(1)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        s = _LinkWires()
        self._frame_paths(m, s)
        self._registers(m, s)
        sources = self._answer_sources(m, s)
        self._argument_checks(m, s)
        self._record_bytes(m, s, sources)

        with m.FSM():
            with m.State("IDLE"):
                self._receive(m, s)
            with m.State("DECODE"):
                self._decode(m, s)
            with m.State("ERROR"):
                m.d.comb += self.bad_frame.eq(1)
                self._answer(m, s, "error", ERROR_RESPONSE)
            with m.State("STORE"):
                self._store(m, s)
            self._write_states(m, s)
            self._read_states(m, s)
            self._query_states(m, s)
            if self._units or self._perft_cores:
                self._board_states(m, s)
            if self._units:
                self._search_states(m, s)
            if self._perft_cores:
                self._perft_states(m, s)
            with m.State("SEND"):
                m.d.comb += s.sender.start.eq(1)
                m.next = "SEND_WAIT"
            with m.State("SEND_WAIT"):
                with m.If(~s.sender.busy):
                    if self._units or self._perft_cores:
                        # A SEARCH answers each depth as it is done, a
                        # PERFT each root move.
                        with m.If(self.running):
                            self._next_by_command(m, s, "SEARCH_NEXT", "PERFT_NEXT")
                        with m.Else():
                            m.next = "IDLE"
                    else:
                        m.next = "IDLE"

        return m

    def _frame_paths(self, m, s):
        """The receiver, the sender, the frame buffer between them and the
        request buffer before the receiver: the path of a frame's bytes."""
        m.submodules.receiver = s.receiver = FrameReceiver(timeout=self._timeout)
        m.submodules.sender   = s.sender   = FrameSender()
        m.submodules.buffer   = buffer     = memory.Memory(shape=8, depth=MAX_PAYLOAD + 1, init=[])
        # Request bytes wait here while earlier frames are executed and
        # answered. Every byte from the UART is taken; one that finds the
        # buffer full is dropped (a host keeps what it has outstanding within
        # RX_BUFFER_BYTES). The inter-byte timeout runs only while the
        # receiver listens and the buffer is empty: a frame that waited in it
        # is whole or not by the time the line went quiet.
        # A board of one detector has no buffer (its logic cells are scarce
        # on a 1K device, and one detector needs no requests in flight): it
        # drops the bytes that come while it is busy.
        s.buffer_write = buffer.write_port()
        s.buffer_read  = buffer.read_port()

        if self._rx_buffer:
            m.submodules.rx_buffer = rx_buffer = fifo.SyncFIFOBuffered(
                width=8, depth=self._rx_buffer)
            m.d.comb += [
                rx_buffer.w_data.eq(self.rx.payload),
                rx_buffer.w_en.eq(self.rx.valid),
                self.rx.ready.eq(1),
                s.receiver.rx.payload.eq(rx_buffer.r_data),
                s.receiver.rx.valid.eq(rx_buffer.r_rdy),
                rx_buffer.r_en.eq(s.receiver.listen),
            ]
        else:
            wiring.connect(m, wiring.flipped(self.rx), s.receiver.rx)
        wiring.connect(m, s.sender.tx, wiring.flipped(self.tx))

    def _registers(self, m, s):
        """The executor's registers: the request as received, where the
        answer stands in the frame buffer, and the words and the occupancy
        taken from it; and what they drive (the frame buffer's ports, the
        sender, the selected detector)."""
        s.command  = Signal(8, name="command")
        s.length   = Signal(8, name="length")
        # The payload's first four bytes, as the receiver keeps them; the
        # address and the count move on word by word during WRITE and READ.
        s.args     = args = Signal(RequestArguments, name="args")
        s.error    = Signal(ErrorCode, name="error")

        s.stored     = Signal(9, name="stored")      # answer payload bytes in the buffer; also
                                                     # the read pointer while executing a write
        # STORE copies the bytes of one record straight from its source, which
        # holds still meanwhile: no 64-bit copy register and its load muxes.
        s.record     = Signal(range(len(self._records)), name="record")
        s.byte_index = Signal(range(max(self._records.values())), name="byte_index")
        s.word       = Signal(24, name="word")       # a move word of WRITE; QUERY's root, in
                                                     # its top two bytes
        s.reading    = Signal(name="reading")        # STORE returns to the READ loop
        s.answer_cmd = Signal(8, name="answer_cmd")
        # QUERY's root (signed), in `word`, which no query uses otherwise;
        # and the queried position's occupancy, the payload's last eight
        # bytes, held for the detector until the upcoming answer is in.
        s.root       = s.word[8 * (3 - ROOT_BYTES):].as_signed()
        s.occupancy  = Signal(64, name="occupancy")

        s.store_addr = Signal(8, name="store_addr")
        s.store_data = Signal(8, name="store_data")
        s.store_en   = Signal(name="store_en")
        receiver, sender, detector = s.receiver, s.sender, self.detector
        m.d.comb += [
            s.buffer_write.addr.eq(Mux(s.store_en, s.store_addr, receiver.buffer_addr)),
            s.buffer_write.data.eq(Mux(s.store_en, s.store_data, receiver.buffer_data)),
            s.buffer_write.en.eq(s.store_en | receiver.buffer_en),
            s.buffer_read.addr.eq(Mux(sender.busy, sender.buffer_addr, s.stored)),
            sender.buffer_data.eq(s.buffer_read.data),
            sender.command.eq(s.answer_cmd),
            sender.length.eq(s.stored),
            detector.select.eq(args.index),
            detector.soft_reset.eq(self.soft_reset),
            detector.memory.read_addr.eq(args.words.start),
            detector.memory.write_addr.eq(args.words.start),
            detector.memory.write_word.eq(s.word[:17]),
            detector.query.top.eq(args.query.top),
            detector.query.root_address.eq(s.root),
            detector.query.count_limit.eq(args.query.count_limit),
            detector.upcoming.occupancy.eq(s.occupancy),
        ]
        if self._units or self._perft_cores:
            # A byte from the host while a search or a perft runs.
            s.stop_seen = Signal(name="stop_seen")
            with m.If(self.running & self.rx.valid):
                m.d.sync += s.stop_seen.eq(1)
        if self._units:
            self._unit_ports(m, s)
        if self._perft_cores:
            self._perft_ports(m, s)

    def _perft_ports(self, m, s):
        """What the perft core takes: PERFT's position and depth; and the
        buffer its root moves' counts wait in, and the answer's register."""
        perft, args = self.perft, s.args.perft
        m.d.comb += [
            perft.side.eq(args.side),
            perft.castling.eq(args.castling),
            perft.ep_valid.eq(args.ep_valid),
            perft.ep_sq.eq(args.ep_sq),
            perft.depth.eq(args.depth),
        ]
        root = fifo.SyncFIFOBuffered(width=data.Layout.cast(PerftRecord).size,
                                     depth=_ROOT_MOVES)
        # A stopped perft's counts go with it.
        m.submodules.root_moves = ResetInserter(self.perft_stop)(root)
        s.root_fifo = root
        s.perft_answer = Signal(PerftRecord, name="perft_answer")
        entry = Signal(PerftRecord)
        m.d.comb += [entry.move.eq(perft.root_move), entry.nodes.eq(perft.root_nodes),
                     root.w_data.eq(entry), root.w_en.eq(perft.root_valid)]

    def _unit_ports(self, m, s):
        """What the search unit takes: WRITE's words as game history, and
        SEARCH's position, root and depth (the en passant byte and the root
        in ``word``, which no search uses otherwise)."""
        unit, search = self.unit, s.args.search
        m.d.comb += [
            unit.history_addr.eq(s.args.words.start),
            unit.history_word.eq(s.word[:17]),
            unit.side.eq(search.side),
            unit.castling.eq(search.castling),
            unit.ep_valid.eq(s.word[7]),
            unit.ep_sq.eq(s.word[:6]),
            unit.root_address.eq(s.root),
            unit.depth.eq(search.first),
        ]

    def _answer_sources(self, m, s):
        """The answer records STORE copies into the frame buffer, by name:
        each straight from its source, which holds still meanwhile."""
        detector = self.detector
        identity = IdentityRecord.const(identity_record(self._config, self._count,
                                                          self._rx_buffer, self._units,
                                                          self._perft_cores))
        # The QUERY answer is the detector's ports in the record's fixed widths.
        query_answer = Signal(QueryResult)
        for name, _ in detector.query.result.shape():
            m.d.comb += query_answer[name].eq(detector.query.result[name])
        for name, _ in detector.upcoming.answer.shape():
            m.d.comb += query_answer.upcoming[name].eq(detector.upcoming.answer[name])
        m.d.comb += query_answer.cycles.eq(detector.query.cycles)
        query_record = query_answer.as_value()

        sources = {
            "identity": identity,
            "query":    query_record,
            "word":     detector.memory.read_word.as_value(),
            "error":    Cat(s.args.index, s.error, C(0, 8 - Shape.cast(ErrorCode).width),
                            s.command),
        }
        if self._units:
            unit = self.unit
            search_answer = Signal(SearchRecord)
            m.d.comb += search_answer.depth.eq(s.args.search.first)
            for name in ("score", "best_move", "best_valid", "nodes", "terminal",
                         "repetitions", "queries", "clocks", "wait_clocks"):
                m.d.comb += search_answer[name].eq(getattr(unit, name))
            sources["search"] = search_answer.as_value()
        if self._perft_cores:
            sources["perft"] = s.perft_answer.as_value()
        return sources

    def _record_bytes(self, m, s, sources):
        """The byte of the selected record (``record``) at ``byte_index``,
        and whether it is the record's last."""
        s.record_byte = Signal(8, name="record_byte")
        s.record_last = Signal(name="record_last")
        with m.Switch(s.record):
            for index, (name, size) in enumerate(self._records.items()):
                with m.Case(index):
                    padded = Cat(sources[name], C(0, 8 * size))[:8 * size]
                    m.d.comb += [s.record_byte.eq(padded.word_select(s.byte_index, 8)),
                                 s.record_last.eq(s.byte_index == size - 1)]

    def _argument_checks(self, m, s):
        """What DECODE checks of the request before it acts, in the order the
        error codes are documented: the length each command takes, a known
        command, and the range of WRITE's and READ's words."""
        command, length, words = s.command, s.length, s.args.words
        s.words_fit   = (words.count != 0) & (words.count <= MAX_WORDS)
        s.range_fits  = (words.start + words.count) <= self._depth
        write_bytes = _ARGS_AT + 3 + words.count * WORD_BYTES
        s.length_fits = length_fits = Signal(name="length_fits")
        with m.Switch(command):
            with m.Case(Command.IDENTIFY, Command.RESET):
                m.d.comb += length_fits.eq(length == _ARGS_AT)
            with m.Case(Command.WRITE):
                m.d.comb += length_fits.eq((length >= _ARGS_AT + 3) & s.words_fit &
                                           (length == write_bytes))
            with m.Case(Command.READ):
                m.d.comb += length_fits.eq((length == _ARGS_AT + 3) & s.words_fit)
            with m.Case(Command.QUERY):
                m.d.comb += length_fits.eq(length == QUERY_REQUEST_BYTES)
            with m.Case(Command.SEARCH):
                m.d.comb += length_fits.eq(length == SEARCH_REQUEST_BYTES)
            with m.Case(Command.PERFT):
                m.d.comb += length_fits.eq(length == PERFT_REQUEST_BYTES)
        s.known = Signal(name="known")
        m.d.comb += s.known.eq(command.matches(*(int(c) for c in Command)))

    def _answer(self, m, s, name, answer_command):
        """Go to STORE to copy record ``name`` into the answer, sent as
        ``answer_command``."""
        # The index is the answer's first byte: the request's, still in
        # the buffer, or in the error record (whose request may have had none).
        m.d.sync += [
            s.record.eq(list(self._records).index(name)), s.byte_index.eq(0),
            s.stored.eq(0 if name == "error" else _ARGS_AT),
            s.answer_cmd.eq(answer_command),
        ]
        m.next = "STORE"

    def _take_payload(self, m, s, name, register, size, then):
        """States ``{name}_FETCH`` and ``{name}_BYTE``: shift the frame
        buffer's next ``size`` bytes, from ``stored`` on, into the top of
        ``register`` (so the first byte ends lowest), then go to ``then``.
        A byte takes two clocks: the buffer's read, then the shift."""
        with m.State(f"{name}_FETCH"):
            m.next = f"{name}_BYTE"
        with m.State(f"{name}_BYTE"):
            m.d.sync += [register.eq(Cat(register[8:], s.buffer_read.data)),
                         s.stored.eq(s.stored + 1), s.byte_index.eq(s.byte_index + 1)]
            with m.If(s.byte_index == size - 1):
                m.next = then
            with m.Else():
                m.next = f"{name}_FETCH"

    def _fail(self, m, s, code):
        """Go to ERROR to answer with ``code``."""
        m.d.sync += s.error.eq(code)
        m.next = "ERROR"

    def _receive(self, m, s):
        """State ``IDLE``: wait for the receiver's next frame and take it."""
        receiver = s.receiver
        # Not on the clock a frame ends: the next frame's first byte
        # waits in the buffer until this one is answered, so that the
        # receiver is never inside a frame while the executor is busy
        # (where its inter-byte timeout would run).
        m.d.comb += receiver.listen.eq(~receiver.frame_done)
        with m.If(receiver.frame_done):
            m.d.sync += [s.command.eq(receiver.command), s.length.eq(receiver.length),
                         s.args.eq(receiver.args), s.error.eq(receiver.error),
                         s.reading.eq(0)]
            m.next = "DECODE"

    def _decode(self, m, s):
        """State ``DECODE``: the checks in the documented order; only a frame
        that passes them all acts, and only on the detector it names."""
        command, args = s.command, s.args
        with m.If(s.error != ErrorCode.NONE):
            m.next = "ERROR"
        with m.Elif(~s.known):
            self._fail(m, s, ErrorCode.UNKNOWN_COMMAND)
        with m.Elif(~s.length_fits):
            self._fail(m, s, ErrorCode.BAD_LENGTH)
        with m.Elif(args.index >= Mux(command == Command.SEARCH, self._units,
                                      Mux(command == Command.PERFT, self._perft_cores,
                                          self._count))):
            self._fail(m, s, ErrorCode.NO_DETECTOR)
        with m.Elif(command == Command.IDENTIFY):
            m.d.comb += self.good_frame.eq(1)
            self._answer(m, s, "identity", Command.IDENTIFY | RESPONSE_FLAG)
        with m.Elif(command == Command.WRITE):
            with m.If(~s.range_fits):
                self._fail(m, s, ErrorCode.ADDRESS_RANGE)
            with m.Else():
                m.d.comb += self.good_frame.eq(1)
                m.d.sync += [s.stored.eq(_ARGS_AT + 3), s.byte_index.eq(0)]
                m.next = "WRITE_FETCH"
        with m.Elif(command == Command.READ):
            with m.If(~s.range_fits):
                self._fail(m, s, ErrorCode.ADDRESS_RANGE)
            with m.Else():
                m.d.comb += self.good_frame.eq(1)
                m.d.sync += [s.stored.eq(_ARGS_AT), s.reading.eq(1),
                             s.answer_cmd.eq(Command.READ | RESPONSE_FLAG)]
                m.next = "READ_FETCH"
        with m.Elif(command == Command.QUERY):
            with m.If(args.query.top >= self._depth):
                self._fail(m, s, ErrorCode.TOP_RANGE)
            with m.Elif(args.query.count_limit > COUNT_LIMIT_MAX):
                self._fail(m, s, ErrorCode.BAD_ARGUMENT)
            with m.Else():
                # The root is checked once it is read from the buffer.
                m.d.sync += [s.stored.eq(_ARGS_AT + 3), s.byte_index.eq(0)]
                m.next = "ROOT_FETCH"
        if self._units:
            # (A board without a unit refuses SEARCH as NO_DETECTOR above.)
            with m.Elif(command == Command.SEARCH):
                search = args.search
                with m.If((search.first == 0) | (search.first > search.last) |
                          (search.last > MAX_SEARCH_DEPTH)):
                    self._fail(m, s, ErrorCode.BAD_ARGUMENT)
                with m.Else():
                    m.d.sync += [s.stored.eq(_ARGS_AT + 3), s.byte_index.eq(0)]
                    m.next = "SEARCH_FETCH"
        if self._perft_cores:
            # (A board without a perft core refuses PERFT as NO_DETECTOR above.)
            with m.Elif(command == Command.PERFT):
                with m.If((args.perft.depth == 0) | (args.perft.depth > MAX_DEPTH)):
                    self._fail(m, s, ErrorCode.BAD_ARGUMENT)
                with m.Else():
                    # The squares follow the four bytes of arguments.
                    m.d.sync += [s.stored.eq(_ARGS_AT + 3), s.byte_index.eq(0)]
                    m.next = "BOARD_FETCH"
        with m.Else():       # RESET
            m.d.comb += [self.good_frame.eq(1), self.soft_reset.eq(1)]
            m.d.sync += [self.repetition.eq(0), s.stored.eq(_ARGS_AT),
                         s.answer_cmd.eq(Command.RESET | RESPONSE_FLAG)]
            m.next = "SEND"

    def _store(self, m, s):
        """State ``STORE``: copy the record to the answer payload, least
        significant byte first; then send it, or go on reading words."""
        m.d.comb += [s.store_en.eq(1), s.store_addr.eq(s.stored), s.store_data.eq(s.record_byte)]
        m.d.sync += [s.stored.eq(s.stored + 1), s.byte_index.eq(s.byte_index + 1)]
        with m.If(s.record_last):
            with m.If(s.reading):
                m.d.sync += s.args.words.start.eq(s.args.words.start + 1)
                m.next = "READ_FETCH"
            with m.Else():
                m.next = "SEND"

    def _write_states(self, m, s):
        """WRITE: three payload bytes make a word; only whole, checked frames
        get here."""
        words = s.args.words
        self._take_payload(m, s, "WRITE", s.word, WORD_BYTES, then="WRITE_WORD")
        with m.State("WRITE_WORD"):
            m.d.comb += self.detector.memory.write_en.eq(1)
            if self._units:
                # Detector 0's game history is the search unit's too.
                m.d.comb += self.unit.history_en.eq(words.index == 0)
            m.d.sync += [words.start.eq(words.start + 1), words.count.eq(words.count - 1),
                         s.byte_index.eq(0)]
            with m.If(words.count == 1):
                m.d.sync += [s.stored.eq(_ARGS_AT),
                             s.answer_cmd.eq(Command.WRITE | RESPONSE_FLAG)]
                m.next = "SEND"
            with m.Else():
                m.next = "WRITE_FETCH"

    def _read_states(self, m, s):
        """READ: one word from the move list, then its three bytes to the
        buffer (through STORE)."""
        words = s.args.words
        with m.State("READ_FETCH"):
            with m.If(words.count == 0):
                m.next = "SEND"
            with m.Else():
                m.next = "READ_WORD"
        with m.State("READ_WORD"):
            # The word stays on `read_word` while STORE copies it: the
            # address moves on only when STORE is done.
            m.d.sync += [s.record.eq(list(self._records).index("word")), s.byte_index.eq(0),
                         words.count.eq(words.count - 1)]
            m.next = "STORE"

    def _query_states(self, m, s):
        """QUERY: the root's bytes from the frame buffer and its check; the
        occupancy's bytes, then start, and wait for the whole answer."""
        detector, root = self.detector, s.root
        self._take_payload(m, s, "ROOT", s.word, ROOT_BYTES, then="ROOT_CHECK")
        with m.State("ROOT_CHECK"):
            # -1, or an address: compared unsigned, a constant each.
            with m.If((root.as_unsigned() >= self._depth) & (root != -1)):
                self._fail(m, s, ErrorCode.BAD_ARGUMENT)
            with m.Else():
                m.d.sync += s.byte_index.eq(0)
                m.next = "QUERY_FETCH"
        self._take_payload(m, s, "QUERY", s.occupancy, OCCUPANCY_BYTES, then="QUERY_START")
        with m.State("QUERY_START"):
            m.d.comb += [self.good_frame.eq(1), detector.query.start.eq(1)]
            m.next = "QUERY_WAIT"

        with m.State("QUERY_WAIT"):
            # `done` and `upcoming.done` fell on the clock that sampled
            # `start`; the upcoming answer comes a fixed few clocks after
            # `done` (at once for a detector built without it).
            with m.If(detector.upcoming.done):
                m.d.sync += self.repetition.eq(detector.query.result.repetition)
                self._answer(m, s, "query", Command.QUERY | RESPONSE_FLAG)

    def _next_by_command(self, m, s, search, perft):
        """Go to state ``search`` for a SEARCH, ``perft`` for a PERFT: on a
        board of one of the two, no test."""
        if self._units and self._perft_cores:
            with m.If(s.command == Command.SEARCH):
                m.next = search
            with m.Else():
                m.next = perft
        else:
            m.next = search if self._units else perft

    def _board_states(self, m, s):
        """The 64 squares of SEARCH or PERFT, from the frame buffer into the
        search unit or the perft core, two a byte; then start it."""
        with m.State("BOARD_FETCH"):
            m.next = "BOARD_LOW"
        square_pair = s.byte_index[:(BOARD_BYTES - 1).bit_length()]
        targets = ([(self.unit, Command.SEARCH)] if self._units else []) + \
                  ([(self.perft, Command.PERFT)] if self._perft_cores else [])
        for half, name in enumerate(("BOARD_LOW", "BOARD_HIGH")):
            with m.State(name):
                # A byte holds two squares, the lower-numbered in its low nibble.
                for target, command in targets:
                    m.d.comb += [
                        target.load_en.eq(s.command == command),
                        target.load_square.eq(Cat(C(half, 1), square_pair)),
                        target.load_piece.eq(s.buffer_read.data.word_select(half, 4)),
                    ]
                if half == 0:
                    m.next = "BOARD_HIGH"
                else:
                    m.d.sync += [s.stored.eq(s.stored + 1), s.byte_index.eq(s.byte_index + 1)]
                    with m.If(s.byte_index == BOARD_BYTES - 1):
                        m.d.comb += self.good_frame.eq(1)
                        m.d.sync += s.stop_seen.eq(0)
                        self._next_by_command(m, s, "SEARCH_START", "PERFT_START")
                    with m.Else():
                        m.next = "BOARD_FETCH"

    def _search_states(self, m, s):
        """SEARCH: the en passant byte and the root from the frame buffer
        and their check, then the squares (:meth:`_board_states`); then a
        search of each depth from ``first`` to ``last``, each answered as
        it ends. A byte from the host while it runs stops it, but for the
        last depth's answer, which ends the SEARCH."""
        unit, search, root = self.unit, s.args.search, s.root
        self._take_payload(m, s, "SEARCH", s.word, 1 + ROOT_BYTES, then="SEARCH_CHECK")
        with m.State("SEARCH_CHECK"):
            # The deepest ply writes its word at root + last: inside the
            # move list, so that no stored word is overwritten by a wrap.
            with m.If((root.as_unsigned() >= self._depth) & (root != -1)):
                self._fail(m, s, ErrorCode.BAD_ARGUMENT)
            with m.Elif(root + search.last >= self._depth):
                self._fail(m, s, ErrorCode.BAD_ARGUMENT)
            with m.Else():
                m.d.sync += s.byte_index.eq(0)
                m.next = "BOARD_FETCH"
        with m.State("SEARCH_START"):
            m.d.comb += unit.start.eq(1)
            m.d.sync += self.running.eq(1)
            m.next = "SEARCH_WAIT"
        with m.State("SEARCH_WAIT"):
            with m.If(s.stop_seen):
                m.d.comb += self.unit_stop.eq(1)
                m.d.sync += self.running.eq(0)
                self._fail(m, s, ErrorCode.STOPPED)
            with m.Elif(~unit.busy):
                self._answer(m, s, "search", Command.SEARCH | RESPONSE_FLAG)
        with m.State("SEARCH_NEXT"):
            with m.If(search.first == search.last):
                m.d.sync += self.running.eq(0)
                m.next = "IDLE"
            with m.Elif(s.stop_seen):
                m.d.sync += self.running.eq(0)
                self._fail(m, s, ErrorCode.STOPPED)
            with m.Else():
                m.d.sync += search.first.eq(search.first + 1)
                m.next = "SEARCH_START"

    def _perft_states(self, m, s):
        """PERFT: count, and answer each root move's count as it comes
        out of the buffer; then the total, which ends the PERFT. A byte from
        the host while it runs stops it."""
        perft, root, answer = self.perft, s.root_fifo, s.perft_answer
        with m.State("PERFT_START"):
            m.d.comb += perft.start.eq(1)
            m.d.sync += [self.running.eq(1), answer.last.eq(0)]
            m.next = "PERFT_NEXT"
        with m.State("PERFT_NEXT"):
            with m.If(answer.last):
                # The total went out: done.
                m.d.sync += [self.running.eq(0), answer.last.eq(0)]
                m.next = "IDLE"
            with m.Elif(s.stop_seen):
                m.d.comb += self.perft_stop.eq(1)
                m.d.sync += self.running.eq(0)
                self._fail(m, s, ErrorCode.STOPPED)
            with m.Elif(root.r_rdy):
                m.d.comb += root.r_en.eq(1)
                m.d.sync += answer.eq(root.r_data)
                self._answer(m, s, "perft", Command.PERFT | RESPONSE_FLAG)
            with m.Elif(~perft.busy & (root.level == 0)):
                # The last root move's count went into the buffer on the
                # clock the core fell idle: the buffer is empty only after it.
                m.d.sync += [answer.move.eq(0), answer.last.eq(1), answer.nodes.eq(perft.nodes)]
                self._answer(m, s, "perft", Command.PERFT | RESPONSE_FLAG)
