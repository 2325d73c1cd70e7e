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
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In

from .params import check_depth
from .ports import MoveMemorySignature, PairReadSignature
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

    def __init__(self, depth, *, scan):
        check_depth(depth)
        self._depth = depth
        super().__init__({
            "host": In(MoveMemorySignature(depth)),
            "scan": In(scan),
        })

    @property
    def depth(self):
        return self._depth


class MoveList(MoveMemory):
    """Two-bank block-RAM move list (the members are those of
    :class:`MoveMemory`).

    Parameters
    ----------
    depth : int
        Number of move words; even.

    Members
    -------
    scan : In(PairReadSignature(depth))
        Word ``2 * even_row`` and word ``2 * odd_row + 1``.
    """

    def __init__(self, depth):
        super().__init__(depth, scan=PairReadSignature(depth))

    def elaborate(self, platform):
        m = Module()
        host, scan = self.host, self.scan
        write_enable = refuse_writes(m, host, scan.active)
        # The host reads one word: both banks read its row, and this picks one.
        host_read_odd = Signal()
        m.d.sync += host_read_odd.eq(host.read_addr[0])
        host_row = host.read_addr >> 1
        for parity, (row, word) in enumerate(((scan.even_row, scan.even_word),
                                              (scan.odd_row, scan.odd_word))):
            bank = memory.Memory(shape=MoveWord, depth=self._depth // 2, init=[])
            m.submodules[("even_bank", "odd_bank")[parity]] = bank
            write_port = bank.write_port()
            read_port = bank.read_port()
            m.d.comb += [
                write_port.addr.eq(host.write_addr >> 1),
                write_port.data.eq(host.write_word),
                write_port.en.eq(write_enable & (host.write_addr[0] == parity)),
                read_port.addr.eq(Mux(scan.reading, row, host_row)),
                word.eq(read_port.data),
            ]
        host_read(m, host, Mux(host_read_odd, scan.odd_word, scan.even_word))
        return m
