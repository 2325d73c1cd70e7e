"""The move list: the game history and search line, in block RAM.

One synchronous read port is shared: the scanner owns it during a query, the
host between queries (to read moves back). Host writes are refused while a
query runs, so a scan never sees a word change under it.
"""

from amaranth.hdl import *
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from .word import MoveWord


__all__ = ["MoveList"]


class MoveList(wiring.Component):
    """Block-RAM move list with a host port and a scan port.

    Parameters
    ----------
    depth : int
        Number of move words.

    Members
    -------
    scan_active : Signal(1), in
        A query is running: the scan port reads, host writes are refused.
    scan_addr : Signal(range(depth)), in
    scan_word : MoveWord, out
        The word at ``scan_addr`` (or ``host_read_addr``) of the previous clock.
    host_read_addr : Signal(range(depth)), in
        Read address used while ``scan_active`` is low.
    host_write_addr : Signal(range(depth)), in
    host_write_word : MoveWord, in
    host_write_en : Signal(1), in
        Store ``host_write_word``; ignored while ``scan_active``.
    host_write_refused : Signal(1), out
        ``host_write_en`` was high during a query, and nothing was written.
    """

    def __init__(self, depth=256):
        if not isinstance(depth, int) or depth < 2:
            raise TypeError(f"Move-list depth must be an integer of at least 2, not {depth!r}")
        self._depth = depth
        super().__init__({
            "scan_active":        In(1),
            "scan_addr":          In(range(depth)),
            "scan_word":          Out(MoveWord),
            "host_read_addr":     In(range(depth)),
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
        m.submodules.storage = storage = memory.Memory(shape=MoveWord, depth=self._depth, init=[])

        write_port = storage.write_port()
        read_port  = storage.read_port()
        m.d.comb += [
            write_port.addr.eq(self.host_write_addr),
            write_port.data.eq(self.host_write_word),
            write_port.en.eq(self.host_write_en & ~self.scan_active),
            self.host_write_refused.eq(self.host_write_en & self.scan_active),
            read_port.addr.eq(Mux(self.scan_active, self.scan_addr, self.host_read_addr)),
            self.scan_word.eq(read_port.data),
        ]
        return m
