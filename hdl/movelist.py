"""The move list: the game history and search line, in block RAM.

The scanner takes two plies a clock. The list is kept in two banks, even and
odd addresses, each with its own read address, so that one read returns two
consecutive words, whichever bank the newer one is in. The scanner keeps a
row counter per bank and drives the bank addresses straight from them: no
adder or multiplexer sits between a counter and the block RAM. The read port
is shared: the scanner owns it during a query, the host between queries (to
read moves back). Host writes are refused while a query runs, so a scan never
sees a word change under it.
"""

from amaranth.hdl import *
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In

from .params import check_depth
from .ports import MoveMemorySignature, PairReadSignature, SingleReadSignature
from .word import MoveWord


__all__ = ["MoveMemory", "MoveList", "refuse_writes", "host_read"]


def refuse_writes(m, host, scan_active):
    """Refuse the host's write while a scan is active, and say so; returns the
    write enable that reaches the block RAM."""
    write_enable = Signal()
    m.d.comb += [
        write_enable.eq(host.write_en & ~scan_active),
        host.write_refused.eq(host.write_en & scan_active),
    ]
    return write_enable


def host_read(m, host, stored_word):
    """Give the host ``stored_word``, the block RAM's word at last clock's
    ``read_addr``, unless the host wrote that address on that clock: then the
    word it wrote. The bypass lets synthesis leave a read of the row being
    written undefined (see :mod:`axon.boards.synthesis`)."""
    read_fresh = Signal()
    fresh_word = Signal(MoveWord)
    m.d.sync += [
        read_fresh.eq(host.write_en & ~host.write_refused & (host.write_addr == host.read_addr)),
        fresh_word.eq(host.write_word),
    ]
    m.d.comb += host.read_word.eq(Mux(read_fresh, fresh_word, stored_word))


class MoveMemory(wiring.Component):
    """A block-RAM move list with the host's port and a scanner's: what the
    two-bank :class:`MoveList` and the one-bank
    :class:`~axon.hdl.lean.LeanMoveList` share. Each passes how its scanner
    reads it.

    Parameters
    ----------
    depth : int
        Number of move words; even for both lists, so that a configuration's
        depth means the same for both scans.
    scan : wiring.Signature
        The move list's side of the scanner's read port.

    Members
    -------
    host : In(MoveMemorySignature(depth))
        The host's writes, refused while ``scan.active``, and its reads, served
        while the scanner is not ``scan.reading``.
    scan : In(scan)
        The scanner's reads, each a clock later, as the words were before that
        clock's write. (The board builds let Yosys treat a read of the word
        being written as undefined, see ``axon.boards.synthesis``: nothing may
        rely on it. The scan never meets a write, and the host's reads bypass
        it, see :func:`host_read`.)
    """

    def __init__(self, depth, *, scan, members=None):
        check_depth(depth)
        self._depth = depth
        super().__init__({
            "host": In(MoveMemorySignature(depth)),
            "scan": In(scan),
            **(members or {}),
        })

    @property
    def depth(self):
        return self._depth


class MoveList(MoveMemory):
    """Two-bank block-RAM move list (the members are those of
    :class:`MoveMemory`), with what a query needs of the words just written.

    A search writes the word at the top of stack just before it asks about
    it, so the scanner can start such a query from the newest words at once
    instead of waiting for block RAM. On every accepted write the list keeps
    the word and its address in registers and reads the three words below
    it while the write is stored: the word just below from a copy of its own,
    the pair under that from the scanner's banks, which then hold their
    outputs until the scanner reads again. ``fresh`` says that they describe
    the host's last write and no query has started since.

    The list is kept three times, every write going to each copy: the two
    banks the scanner reads, a copy for the word below a write, and a copy
    for the host's reads, which then never disturb what a query will use.

    Parameters
    ----------
    depth : int
        Number of move words; even.

    backstop : bool
        Also serve a backstop's reads (:mod:`axon.hdl.backstop`), from the
        host's copy while it is ``active``.

    Members
    -------
    scan : In(PairReadSignature(depth))
        Word ``2 * even_row`` and word ``2 * odd_row + 1``, and the words of
        the last write.
    backstop : In(SingleReadSignature(depth))
        With a backstop only: the word at last clock's ``addr``. It reads
        only while the scanner is ``active``, which refuses writes.
    """

    def __init__(self, depth, *, backstop=False):
        self._backstop = backstop
        super().__init__(depth, scan=PairReadSignature(depth),
                         members={"backstop": In(SingleReadSignature(depth))} if backstop else {})

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        host, scan = self.host, self.scan
        # (A backstop reads only while the scanner waits for it, busy: its
        # queries refuse writes as the scanner's do.)
        write_enable = refuse_writes(m, host, scan.active)
        written = host.write_addr
        nothing = Signal()
        m.d.comb += nothing.eq(host.write_word.from_sq == host.write_word.to_sq)

        m.d.comb += [
            scan.written.eq(write_enable),
            scan.written_addr.eq(written),
        ]
        # The word and address of the last write, and whether a query has
        # started since.
        with m.If(write_enable):
            m.d.sync += [
                scan.fresh.eq(1),
                scan.newest_addr.eq(written),
                scan.newest_word.eq(host.write_word),
                scan.newest_nothing.eq(nothing),
            ]
        with m.Elif(scan.reading):
            m.d.sync += scan.fresh.eq(0)

        # The scanner's banks. On a write they read the pair whose newer word
        # is two below it (the scanner's row arithmetic, from the write's
        # address), then hold it until the scanner reads.
        pair_newer = Signal(range(-2, depth))
        m.d.comb += pair_newer.eq(written - 2)
        write_rows = (pair_newer >> 1, (pair_newer >> 1) - ~pair_newer[0])
        for parity, (row, word, write_row) in enumerate(((scan.even_row, scan.even_word, write_rows[0]),
                                                         (scan.odd_row, scan.odd_word, write_rows[1]))):
            bank = memory.Memory(shape=MoveWord, depth=depth // 2, init=[])
            m.submodules[("even_bank", "odd_bank")[parity]] = bank
            write_port = bank.write_port()
            read_port = bank.read_port()
            m.d.comb += [
                write_port.addr.eq(written >> 1),
                write_port.data.eq(host.write_word),
                write_port.en.eq(write_enable & (written[0] == parity)),
                read_port.addr.eq(Mux(scan.reading, row, write_row)),
                read_port.en.eq(scan.reading | write_enable),
                word.eq(read_port.data),
            ]

        # The word below a write, and whether it moves a piece, in one copy;
        # read only on a write, so it holds until the next. (Stored as
        # "moves", so that a word never written, all zero, moves nothing, as
        # its squares say.)
        below = memory.Memory(shape=data.StructLayout({"word": MoveWord, "moves": 1}),
                              depth=depth, init=[])
        m.submodules.below_copy = below
        below_write = below.write_port()
        below_read = below.read_port()
        m.d.comb += [
            below_write.addr.eq(written),
            below_write.data.word.eq(host.write_word),
            below_write.data.moves.eq(~nothing),
            below_write.en.eq(write_enable),
            below_read.addr.eq(written - 1),
            below_read.en.eq(write_enable),
            scan.below_word.eq(below_read.data.word),
            scan.below_nothing.eq(~below_read.data.moves),
        ]

        # The host's reads, from a copy of their own; a backstop's too: the
        # host reads only between queries, the backstop only in one.
        read_addr = host.read_addr
        if self._backstop:
            read_addr = Mux(self.backstop.active, self.backstop.addr, host.read_addr)
        host_copy = memory.Memory(shape=MoveWord, depth=depth, init=[])
        m.submodules.host_copy = host_copy
        host_write = host_copy.write_port()
        host_port = host_copy.read_port()
        m.d.comb += [
            host_write.addr.eq(written),
            host_write.data.eq(host.write_word),
            host_write.en.eq(write_enable),
            host_port.addr.eq(read_addr),
        ]
        host_read(m, host, host_port.data)
        if self._backstop:
            m.d.comb += self.backstop.word.eq(host_port.data)
        return m
