"""The move list: the game history and search line, in block RAM.

The scanner takes two plies a clock and, on the first read of a query, four:
it needs the second pair a clock early so that the chain list can compare its
slots with it ahead of time. The list is therefore kept in four banks, by
address modulo 4, and one read returns the word at ``read_addr`` and the
three below it. The read port is shared: the scanner owns it during a query,
the host between queries (to read moves back). Host writes are refused while
a query runs, so a scan never sees a word change under it.
"""

from amaranth.hdl import *
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from ._params import refused
from .word import MoveWord


__all__ = ["MoveList", "READ_WIDTH"]

# Words one read returns: the addressed word and the ones below it.
READ_WIDTH = 4


class MoveList(wiring.Component):
    """Four-bank block-RAM move list with a host port and a scan port.

    Parameters
    ----------
    depth : int
        Number of move words; even.

    Members
    -------
    scan_active : Signal(1), in
        A query is running: host writes are refused.
    read_addr : Signal(range(depth)), in
        Address of the newest word to read.
    read_words : ArrayLayout(MoveWord, 4), out
        The words at last clock's ``read_addr`` and the three addresses below
        it, newest first (meaningless below address 0).
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
            "read_words":         Out(data.ArrayLayout(MoveWord, READ_WIDTH)),
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
        bank_depth = -(-self._depth // READ_WIDTH)
        banks = []
        for index in range(READ_WIDTH):
            bank = memory.Memory(shape=MoveWord, depth=bank_depth, init=[])
            m.submodules[f"bank{index}"] = bank
            banks.append(bank)

        write_enable = Signal()
        m.d.comb += [
            write_enable.eq(self.host_write_en & ~self.scan_active),
            self.host_write_refused.eq(self.host_write_en & self.scan_active),
        ]
        for index, bank in enumerate(banks):
            write_port = bank.write_port()
            m.d.comb += [
                write_port.addr.eq(self.host_write_addr >> 2),
                write_port.data.eq(self.host_write_word),
                write_port.en.eq(write_enable & (self.host_write_addr[:2] == index)),
            ]

        # Word `read_addr - j` lives in bank `(read_addr - j) % 4`: the banks
        # at or below `read_addr % 4` read row `read_addr // 4`, the others
        # the row below it.
        row     = self.read_addr >> 2
        column  = self.read_addr[:2]
        outputs = []
        for index, bank in enumerate(banks):
            read_port = bank.read_port()
            m.d.comb += read_port.addr.eq(Mux(column >= index, row, row - 1))
            outputs.append(read_port.data)

        # Put the banks' words in address order, newest first.
        read_column = Signal(2)
        m.d.sync += read_column.eq(column)
        for offset in range(READ_WIDTH):
            with m.Switch(read_column):
                for value in range(READ_WIDTH):
                    with m.Case(value):
                        m.d.comb += self.read_words[offset].eq(
                            outputs[(value - offset) % READ_WIDTH])
        return m
