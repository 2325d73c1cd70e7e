"""Stable results, refused writes and the move list's copies: what the host and
the scanner see of the list around a query."""

from amaranth.hdl import *
from amaranth.lib import data

from ....hdl.detector import AxonDetector
from ....hdl.lean import LeanMoveList
from ....hdl.movelist import MoveList
from ....hdl.word import MoveWord
from .harness import backstop_invariants, free, free_host_inputs, Harness, PROOF_CONFIG


def stable_results(broken, config=PROOF_CONFIG):
    """``config``: the detector under proof, the shipped one or the 1K boards'
    lean one (one pool a side, one ply a clock), small."""
    def body(m):
        m.submodules.dut = dut = AxonDetector(config)
        free_host_inputs(m, dut)
        if config.backstop:
            backstop_invariants(m, dut)
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
        if config.backstop:
            backstop_invariants(m, dut)
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


# --- The words just written, mirrored for a query -------------------------------

# Eight words: the pair two and three below the newest word then has both
# its words present with the newer one in either bank (its older word a row
# down in the odd bank, or in the same row of the even bank), and the
# addresses below 0 that wrap in the banks and the below copy are there too.
MIRROR_DEPTH = 8


class _ObservedMoveList(MoveList):
    """The two-bank move list, with every row of its three copies shown to the
    harness through read ports of its own (``rows``: ``{copy: tuple of
    signals}``), which the design has not: a solver sees a memory's contents
    only through its reads."""

    _COPIES = {"even_bank": (MoveWord, 2), "odd_bank": (MoveWord, 2),
               "below_copy": (data.StructLayout({"word": MoveWord, "moves": 1}), 1),
               "host_copy": (MoveWord, 1)}

    def __init__(self, depth):
        super().__init__(depth)
        # Made here, so that the harness can name them before the list
        # elaborates; its memories are made in `elaborate`.
        self.rows = {name: tuple(Signal(shape, name=f"{name}_{row}")
                                 for row in range(depth // per_row))
                     for name, (shape, per_row) in self._COPIES.items()}

    def elaborate(self, platform):
        m = super().elaborate(platform)
        for name, rows in self.rows.items():
            memory = getattr(m.submodules, name)
            if memory.shape != rows[0].shape():
                raise TypeError(f"The harness shows {name}'s rows as {rows[0].shape()!r}, "
                                f"but the move list keeps {memory.shape!r}")
            for row, shown in enumerate(rows):
                port = memory.read_port(domain="comb")
                m.d.comb += [port.addr.eq(row), shown.eq(port.data)]
        return m


class _StaleMirrorMoveList(_ObservedMoveList):
    """A mutated move list whose register of the newest word keeps its word
    when the host rewrites the address it already holds."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        host, scan = self.host, self.scan
        with m.If(host.write_en & ~scan.active & (host.write_addr == scan.newest_addr)):
            m.d.sync += [scan.newest_word.eq(scan.newest_word),
                         scan.newest_nothing.eq(scan.newest_nothing)]
        return m


class _ForgetfulBelowMoveList(_ObservedMoveList):
    """A mutated move list whose copy for the word below a write stores only
    the first write after a query: the one before every query of a search,
    but not the next of two writes in a row."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        host, scan = self.host, self.scan
        below_write, = m.submodules.below_copy.write_ports
        m.d.comb += below_write.en.eq(host.write_en & ~scan.active & ~scan.fresh)
        return m


MIRROR_BROKEN = {True: _StaleMirrorMoveList, "below": _ForgetfulBelowMoveList}


def _moves_nothing(word):
    word = data.View(MoveWord, word)
    return word.from_sq == word.to_sq


def mirror_keeps_words(broken):
    """What the pair scanner takes from :class:`~axon.hdl.movelist.MoveList`:
    every copy of the list holds the writes taken and no refused one; the
    banks and the copy of the word below a write return what the end-to-end
    proof assumes they do; and while ``fresh``, the newest word, the one
    below it and the pair two and three below it are the list's as the host
    wrote it, for a start from the words just written."""
    def body(m):
        depth = MIRROR_DEPTH
        move_list = (MIRROR_BROKEN[broken] if broken else _ObservedMoveList)(depth)
        m.submodules.move_list = move_list
        host, scan = move_list.host, move_list.scan
        for port in (scan.active, scan.even_row, scan.odd_row, host.write_addr,
                     host.write_word, host.write_en, host.read_addr):
            free(m, port)
        # In the detector the scan reads the list exactly while it is active
        # (on the starting clock and while busy).
        m.d.comb += scan.reading.eq(scan.active)

        taken = host.write_en & ~scan.active
        # Like the block RAM, all zero at power-up: a word that moves nothing.
        shadow = Array(Signal(17, name=f"shadow{address}") for address in range(depth))
        with m.If(taken):
            m.d.sync += shadow[host.write_addr].eq(host.write_word.as_value())
        m.d.comb += [
            Assert(host.write_refused == (host.write_en & scan.active)),
            Assert(scan.written == taken),
            Assert(~scan.written | (scan.written_addr == host.write_addr)),
        ]

        # Every row of every copy is the shadow's: each write taken lands in
        # all three, no refused one in any. This also makes it inductive.
        rows = move_list.rows
        for address in range(depth):
            bank = rows[("even_bank", "odd_bank")[address % 2]][address // 2]
            below = rows["below_copy"][address]
            m.d.comb += [
                Assert(bank.as_value() == shadow[address]),
                Assert(rows["host_copy"][address].as_value() == shadow[address]),
                Assert(below.word.as_value() == shadow[address]),
                Assert(below.moves == ~_moves_nothing(shadow[address])),
            ]

        # A read port's output register has no value before its first
        # clock, nor before its first read.
        clocked = Signal()
        m.d.sync += clocked.eq(1)
        address_bits = (depth - 1).bit_length()

        def word_at(address):
            """The shadow's word at a signed address, wrapping below 0 as the
            block RAM's rows do."""
            return shadow[Value.cast(address)[:address_bits]]

        # The host reads the word at last clock's address as it is after
        # that clock's write.
        read_addr = Signal.like(host.read_addr)
        m.d.sync += read_addr.eq(host.read_addr)
        with m.If(clocked):
            m.d.comb += Assert(host.read_word.as_value() == word_at(read_addr))

        _reads_as_assumed(m, host, scan, taken, word_at)
        _fresh_words_as_written(m, scan, shadow)

        # Without a write taken, the registers of the last write hold, and
        # nothing becomes fresh.
        held = [scan.fresh, scan.newest_addr, scan.newest_word.as_value(), scan.newest_nothing]
        before = [Signal.like(value, name=f"before_{index}") for index, value in enumerate(held)]
        taken_before = Signal()
        m.d.sync += [taken_before.eq(taken), *(old.eq(value) for old, value in zip(before, held))]
        with m.If(clocked & ~taken_before):
            m.d.comb += [Assert(~scan.fresh | before[0]),
                         *(Assert(value == old) for value, old in zip(held[1:], before[1:]))]
    return Harness(body)


def _reads_as_assumed(m, host, scan, taken, word_at):
    """The banks and the below copy return what the end-to-end proof
    assumes, ``word_at`` being the shadow's word at an address."""
    write_addr = host.write_addr
    # The contract the end-to-end proof takes as given. A bank returns the
    # word at the row it read last, as it was before that clock's write,
    # and holds it until it reads again: it reads the scanner's row while
    # the scan reads, and on a write taken the one of the pair two and
    # three below it that it holds. The below copy returns the word just
    # below the last write taken, and whether it moves nothing.
    for bank, (row, word) in enumerate(((scan.even_row, scan.even_word),
                                        (scan.odd_row, scan.odd_word))):
        expected = Signal(17, name=f"bank{bank}_expected")
        has_read = Signal(name=f"bank{bank}_has_read")
        with m.If(scan.reading):
            m.d.sync += [expected.eq(word_at(Cat(C(bank, 1), row))), has_read.eq(1)]
        with m.Elif(taken):
            m.d.sync += [expected.eq(word_at(Mux(write_addr[0] == bank, write_addr - 2,
                                                 write_addr - 3))),
                         has_read.eq(1)]
        with m.If(has_read):
            m.d.comb += Assert(word.as_value() == expected)
    below_expected = Signal(17)
    below_has_read = Signal()
    with m.If(taken):
        m.d.sync += [below_expected.eq(word_at(write_addr - 1)), below_has_read.eq(1)]
    with m.If(below_has_read):
        m.d.comb += [
            Assert(scan.below_word.as_value() == below_expected),
            Assert(scan.below_nothing == _moves_nothing(below_expected)),
        ]


def _fresh_words_as_written(m, scan, shadow):
    """While ``fresh``, the words a start from the last write takes are the
    shadow's."""
    # While fresh, what a start from the words just written takes: the
    # words of the last write, from the registers, the below copy and
    # the banks' held outputs. Words below address 0 are not asked for
    # (the scanner takes them as absent).
    newest = scan.newest_addr
    # The pair's newer word, two below the newest, is in the newest's bank.
    pair_newer = Mux(newest[0], scan.odd_word.as_value(), scan.even_word.as_value())
    pair_older = Mux(newest[0], scan.even_word.as_value(), scan.odd_word.as_value())
    with m.If(scan.fresh):
        m.d.comb += [
            Assert(scan.newest_word.as_value() == shadow[newest]),
            Assert(scan.newest_nothing == _moves_nothing(shadow[newest])),
        ]
        with m.If(newest >= 1):
            m.d.comb += [
                Assert(scan.below_word.as_value() == shadow[newest - 1]),
                Assert(scan.below_nothing == _moves_nothing(shadow[newest - 1])),
            ]
        with m.If(newest >= 2):
            m.d.comb += Assert(pair_newer == shadow[newest - 2])
        with m.If(newest >= 3):
            m.d.comb += Assert(pair_older == shadow[newest - 3])
