"""The move list: the game history and search line, in block RAM.

The scanner takes two plies a clock, so the list is kept in two banks, even
and odd addresses, and one read returns the word at ``scan_addr`` and the one
below it. The read port is shared: the scanner owns it during a query, the
host between queries (to read moves back). Host writes are refused while a
query runs, so a scan never sees a word change under it.
"""

from amaranth.hdl import *
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from ._params import refused
from .word import MoveWord


__all__ = ["MoveList"]


class MoveList(wiring.Component):
    """Two-bank block-RAM move list with a host port and a scan port.

    Parameters
    ----------
    depth : int
        Number of move words; even, since the banks split it in two.

    Members
    -------
    scan_active : Signal(1), in
        A query is running: host writes are refused.
    read_addr : Signal(range(depth)), in
        Address of the newer word to read.
    read_newer : MoveWord, out
        The word at last clock's ``read_addr``.
    read_older : MoveWord, out
        The word just below it (meaningless when ``read_addr`` was 0).
    host_write_addr : Signal(range(depth)), in
    host_write_word : MoveWord, in
    host_write_en : Signal(1), in
        Store ``host_write_word``; ignored while ``scan_active``.
    host_write_refused : Signal(1), out
        ``host_write_en`` was high during a query, and nothing was written.
    """

    def __init__(self, depth=256):
        if not isinstance(depth, int) or depth < 2 or depth % 2:
            raise refused(self, TypeError(
                f"Move-list depth must be an even integer of at least 2, not {depth!r}"))
        self._depth = depth
        super().__init__({
            "scan_active":        In(1),
            "read_addr":          In(range(depth)),
            "read_newer":         Out(MoveWord),
            "read_older":         Out(MoveWord),
            "host_write_addr":    In(range(depth)),
            "host_write_word":    In(MoveWord),
            "host_write_en":      In(1),
            "host_write_refused": Out(1),
        })

    @property
    def depth(self):
        return self._depth

    def elaborate(self, platform):
        m = Module()
        banks = []
        for parity in ("even", "odd"):
            bank = memory.Memory(shape=MoveWord, depth=self._depth // 2, init=[])
            m.submodules[f"{parity}_bank"] = bank
            banks.append(bank)

        write_enable = Signal()
        m.d.comb += [
            write_enable.eq(self.host_write_en & ~self.scan_active),
            self.host_write_refused.eq(self.host_write_en & self.scan_active),
        ]
        for parity, bank in enumerate(banks):
            write_port = bank.write_port()
            m.d.comb += [
                write_port.addr.eq(self.host_write_addr >> 1),
                write_port.data.eq(self.host_write_word),
                write_port.en.eq(write_enable & (self.host_write_addr[0] == parity)),
            ]

        # Words `read_addr` and `read_addr - 1` always sit in different banks.
        even_read = banks[0].read_port()
        odd_read  = banks[1].read_port()
        newer_is_odd = Signal()
        m.d.comb += [
            even_read.addr.eq(self.read_addr >> 1),
            odd_read.addr.eq((self.read_addr - 1) >> 1),
        ]
        m.d.sync += newer_is_odd.eq(self.read_addr[0])
        m.d.comb += [
            self.read_newer.eq(Mux(newer_is_odd, odd_read.data, even_read.data)),
            self.read_older.eq(Mux(newer_is_odd, even_read.data, odd_read.data)),
        ]
        return m
