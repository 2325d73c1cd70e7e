"""Stable results and refused writes: what the host sees around a query."""

from amaranth.hdl import *

from ....hdl.detector import AxonDetector
from ....hdl.lean import LeanMoveList
from ....hdl.movelist import MoveList
from .harness import free, free_host_inputs, Harness, PROOF_CONFIG


def stable_results(broken, config=PROOF_CONFIG):
    """``config``: the detector under proof, the shipped one or the 1K boards'
    lean one (one pool a side, one ply a clock), small."""
    def body(m):
        m.submodules.dut = dut = AxonDetector(config)
        free_host_inputs(m, dut)
        result_before = Signal.like(dut.query.result)
        done_before   = Signal()
        start_before  = Signal()
        m.d.sync += [
            result_before.eq(dut.query.result),
            done_before.eq(dut.query.done),
            start_before.eq(dut.query.start),
        ]
        # A finished query is not running: this also makes the property
        # inductive (a state with both would let the result move under done).
        m.d.comb += Assert(~(dut.query.done & dut.query.busy))
        # From done until the next start, whatever the write port does.
        held = done_before & ~start_before
        if broken:
            # Wrong: also across a start, which begins a new query.
            held = done_before
        with m.If(held):
            m.d.comb += [
                Assert(dut.query.done),
                Assert(dut.query.result.as_value() == result_before.as_value()),
            ]
    return Harness(body)


# --- Writes during a query ----------------------------------------------------

class _LeakyDetector(AxonDetector):
    """A mutated detector whose move list takes host writes during a query."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        m.d.comb += m.submodules.move_list.scan.active.eq(0)
        return m


def writes_refused(broken, config=PROOF_CONFIG):
    def body(m):
        detector = _LeakyDetector if broken else AxonDetector
        m.submodules.dut = dut = detector(config)
        free_host_inputs(m, dut)
        # The starting clock and every busy clock refuse a write, and the
        # move list's own refusal is what the detector reports (so the move
        # list is told the scan is active on exactly those clocks).
        m.d.comb += Assert(dut.memory.write_refused ==
                           (dut.memory.write_en & (dut.query.busy | dut.query.start)))
        # Busy from the clock after start until done: the scan reads the move
        # list only then and on the starting clock.
        m.d.comb += Assert(~(dut.query.busy & dut.query.done))
    return Harness(body)


def refused_writes_keep_words(broken):
    def body(m):
        # Four words, two a bank: the harness reads the two rows of each bank
        # in turn (the even bank's opposite the odd bank's) and compares them
        # with a shadow of the whole list, so every word is checked every
        # other clock, which keeps the property inductive.
        m.submodules.move_list = move_list = MoveList(depth=4)
        for port in (move_list.scan.active, move_list.host.write_addr,
                     move_list.host.write_word, move_list.host.write_en):
            free(m, port)
        turn = Signal()
        m.d.sync += turn.eq(~turn)
        # The scanner's reads own the rows.
        m.d.comb += [move_list.scan.reading.eq(1),
                     move_list.scan.even_row.eq(turn), move_list.scan.odd_row.eq(~turn)]
        shadow = [Signal(17, name=f"shadow{address}") for address in range(4)]
        taken = move_list.host.write_en & ~move_list.scan.active
        if broken:
            # Wrong: as if refused writes landed too.
            taken = move_list.host.write_en
        for address in range(4):
            with m.If(taken & (move_list.host.write_addr == address)):
                m.d.sync += shadow[address].eq(move_list.host.write_word.as_value())
        m.d.comb += Assert(move_list.host.write_refused ==
                           (move_list.host.write_en & move_list.scan.active))
        # The block RAM reads before it writes: compare with last clock's
        # shadow. (There is no read before the first clock.)
        expected = [Signal(17, name=f"expected{address}") for address in range(4)]
        even_row = Signal()
        odd_row  = Signal()
        reading  = Signal()
        m.d.sync += [
            reading.eq(1),
            even_row.eq(move_list.scan.even_row),
            odd_row.eq(move_list.scan.odd_row),
        ]
        for address in range(4):
            m.d.sync += expected[address].eq(shadow[address])
        with m.If(reading):
            m.d.comb += [
                Assert(move_list.scan.even_word.as_value() ==
                       Mux(even_row, expected[2], expected[0])),
                Assert(move_list.scan.odd_word.as_value() ==
                       Mux(odd_row, expected[3], expected[1])),
            ]
    return Harness(body)



def lean_refused_writes_keep_words(broken):
    """The lean one-bank move list's contract, which the lean end-to-end proof
    takes as given: it stores every write it takes and no write it refuses,
    and a read returns the word as it was before the clock's own write."""
    def body(m):
        # Four words: the harness reads them in turn and compares each with a
        # shadow of the whole list, so every word is checked every fourth
        # clock, which keeps the property inductive.
        m.submodules.move_list = move_list = LeanMoveList(depth=4)
        for port in (move_list.scan.active, move_list.host.write_addr,
                     move_list.host.write_word, move_list.host.write_en):
            free(m, port)
        turn = Signal(2)
        m.d.sync += turn.eq(turn + 1)
        # The scanner's reads own the address.
        m.d.comb += [move_list.scan.reading.eq(1), move_list.scan.addr.eq(turn)]
        shadow = Array(Signal(17, name=f"shadow{address}") for address in range(4))
        taken = move_list.host.write_en & ~move_list.scan.active
        if broken:
            # Wrong: as if refused writes landed too.
            taken = move_list.host.write_en
        with m.If(taken):
            m.d.sync += shadow[move_list.host.write_addr].eq(move_list.host.write_word.as_value())
        m.d.comb += Assert(move_list.host.write_refused ==
                           (move_list.host.write_en & move_list.scan.active))
        # The block RAM reads before it writes: compare with last clock's
        # shadow. (There is no read before the first clock.)
        expected = Signal(17)
        reading  = Signal()
        m.d.sync += [reading.eq(1), expected.eq(shadow[turn])]
        with m.If(reading):
            m.d.comb += Assert(move_list.scan.word.as_value() == expected)
    return Harness(body)
