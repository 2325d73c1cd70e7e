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
from amaranth.lib.wiring import In, Out

from .params import CheckedComponent, check_depth
from .word import MoveWord


__all__ = ["MoveList", "host_write_members"]


def host_write_members(depth):
    """The host's write port and the scan that refuses it, on every move list."""
    return {
        "scan_active":        In(1),
        "host_write_addr":    In(range(depth)),
        "host_write_word":    In(MoveWord),
        "host_write_en":      In(1),
        "host_write_refused": Out(1),
    }


class MoveList(CheckedComponent, wiring.Component):
    """Two-bank block-RAM move list with a host write port and a read row per bank.

    Parameters
    ----------
    depth : int
        Number of move words; even.

    Members
    -------
    scan_active : Signal(1), in
        A query is running: host writes are refused.
    even_row, odd_row : Signal(range(depth // 2)), in
        The row each bank reads: word ``2 * even_row`` and word
        ``2 * odd_row + 1``.
    even_word, odd_word : MoveWord, out
        The words at last clock's rows, as they were before that clock's
        write. (The board builds let Yosys treat a read of the row being
        written as undefined, see ``axon.boards.build``: nothing may rely on
        it. The scan never meets a write; the detector bypasses the host's.)
    host_write_addr : Signal(range(depth)), in
    host_write_word : MoveWord, in
    host_write_en : Signal(1), in
        Store ``host_write_word``; ignored while ``scan_active``.
    host_write_refused : Signal(1), out
        ``host_write_en`` was high during a query, and nothing was written.
    """

    check_parameters = staticmethod(check_depth)

    def __init__(self, depth=256):
        self._depth = depth
        super().__init__({
            "even_row":           In(range(depth // 2)),
            "odd_row":            In(range(depth // 2)),
            "even_word":          Out(MoveWord),
            "odd_word":           Out(MoveWord),
            **host_write_members(depth),
        })

    @property
    def depth(self):
        return self._depth

    def elaborate(self, platform):
        m = Module()
        write_enable = Signal()
        m.d.comb += [
            write_enable.eq(self.host_write_en & ~self.scan_active),
            self.host_write_refused.eq(self.host_write_en & self.scan_active),
        ]
        for parity, (row, word) in enumerate(((self.even_row, self.even_word),
                                              (self.odd_row, self.odd_word))):
            bank = memory.Memory(shape=MoveWord, depth=self._depth // 2, init=[])
            m.submodules[("even_bank", "odd_bank")[parity]] = bank
            write_port = bank.write_port()
            read_port = bank.read_port()
            m.d.comb += [
                write_port.addr.eq(self.host_write_addr >> 1),
                write_port.data.eq(self.host_write_word),
                write_port.en.eq(write_enable & (self.host_write_addr[0] == parity)),
                read_port.addr.eq(row),
                word.eq(read_port.data),
            ]
        return m
