"""The board: 64 cells of 4-bit piece codes in registers."""

from amaranth.hdl import Array, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


__all__ = ["Board", "ReadSignature", "WriteSignature"]

# A reader's view of a combinational read port: the square out, its piece in.
ReadSignature = wiring.Signature({"addr": Out(6), "piece": In(4)})
# A writer's view of a write port; the cell takes ``data`` at the clock edge.
WriteSignature = wiring.Signature({"addr": Out(6), "data": Out(4), "en": Out(1)})


class Board(wiring.Component):
    """64 piece cells (Table 1 codes, 0 empty), read combinationally.

    Registers rather than a block RAM: the generator, the attack test and
    the occupancy masks read in the same clock, and a move writes two cells
    a clock.

    Members
    -------
    gen_read, attack_read : In(ReadSignature)
        Combinational read ports of the move generator and the attack test.
    load : In(WriteSignature)
        The host's write port, for setting up a position.
    write_a, write_b : In(WriteSignature)
        Write ports of make and unmake; never two on one cell in a clock.
    white, black : Signal(64), out
        Bit ``sq`` is set when a piece of that colour stands on ``sq``.
    load_previous : Signal(4), out
        The piece on ``load.addr``, which a load replaces (an incremental
        evaluation takes it out as the new one comes in).
    """

    gen_read:    In(ReadSignature)
    attack_read: In(ReadSignature)
    load:        In(WriteSignature)
    write_a:     In(WriteSignature)
    write_b:     In(WriteSignature)
    white:       Out(64)
    black:       Out(64)
    load_previous: Out(4)

    def elaborate(self, platform):
        m = Module()
        cells = Array(Signal(4, name=f"cell_{square}") for square in range(64))
        for port in (self.gen_read, self.attack_read):
            m.d.comb += port.piece.eq(cells[port.addr])
        m.d.comb += self.load_previous.eq(cells[self.load.addr])
        for square, cell in enumerate(cells):
            for port in (self.load, self.write_a, self.write_b):
                with m.If(port.en & (port.addr == square)):
                    m.d.sync += cell.eq(port.data)
            m.d.comb += [
                self.white[square].eq((cell != 0) & ~cell[3]),
                self.black[square].eq((cell != 0) & cell[3]),
            ]
        return m
