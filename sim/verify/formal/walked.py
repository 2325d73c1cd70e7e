"""The walked chain list's proofs: capacity, termination with its worst case, end to end.

The list keeps its entries in block RAM (:mod:`axon.hdl.walkedlist`). A
solver sees a memory's rows only through read ports, so the harnesses read
every row with comb read ports of their own (the list makes its memories in
its constructor for that) and state what the rows hold.
"""

from amaranth.hdl import *

from ....hdl.detector import AxonDetector
from ....hdl.params import (WALKED, WALKED_COMPARE_CLOCKS, Stop as StopReason,
                            walked_word_clocks)
from ....hdl.walkedlist import WalkedChainList
from ....hdl.walkedscan import WalkedScanner
from .harness import Harness, free, popcount
from .termination import query_timer
from .end_to_end import GoldenAnswer, detector_and_copy, drive_side_models
from .pools import ReferenceUnpairedPool, distinct, member


__all__ = ["WALKED_PROOF_ENTRIES", "WALKED_TERMINATION_ENTRIES", "capacity_walked",
           "termination_walked", "WALKED_END_TO_END", "WALKED_END_TO_END_BROKEN",
           "end_to_end_walked"]

# The capacity proof's side: this many entries and as many pieces. Its
# broken variant keeps the pieces and takes one entry fewer. (The same
# script at 3 to 5 entries: tests/test_formal.py, --runslow.)
WALKED_PROOF_ENTRIES = 2
# Termination is proven at the shipped size: 16 entries a side, 256 words.
WALKED_TERMINATION_ENTRIES = WALKED.chains // 2


def _rows(m, memory, first, count, name):
    """The rows ``first .. first + count - 1`` of ``memory``, as the harness
    reads them (a comb read port each)."""
    rows = []
    for row in range(first, first + count):
        port = memory.read_port(domain="comb")
        m.d.comb += port.addr.eq(row)
        entry = Signal.like(port.data, name=f"{name}{row - first}")
        m.d.comb += entry.eq(port.data)
        rows.append(entry)
    return rows


def capacity_walked(entries=WALKED_PROOF_ENTRIES):
    """A side of the walked list with ``entries`` entries never overflows
    while it has at most ``entries`` pieces, of any kinds (the broken
    variant: the same pieces and one entry fewer, which must overflow).

    As in the pools' ``capacity`` proof, material over free move words is a
    model of the pieces: at a clear they stand on free distinct squares
    (the top of the scan), and every applied move ``a->b``, read backwards,
    takes the piece of its kind that stands on ``b`` back to ``a``, a square
    none stands on. The model moves when the list updates itself with the
    move (``updating``), so that while the list walks, its rows and the
    model say the same. White moves only: Black's entries are the same
    gateware at other rows.

    The invariant, asserted: the side's live rows hold, as sets, the squares
    (with kinds) the pieces stand on now but not at the top (starts) and
    those they stood on at the top but not now (ends), each once, as many
    as the open count; what the walk has counted, where it found it and
    the last row it read are those of the rows below its index; the move in
    hand is a legal one. An insert then means that the moving piece stood on
    ``b`` at the top too, so not every piece has moved: the list is not
    full. And the registers that copy each side's entry 0 hold its rows."""
    def build(broken):
        pieces = entries
        size = entries - 1 if broken else entries

        def body(m):
            config = WALKED.replace(depth=8, chains=2 * size)
            m.submodules.chains = chains = WalkedChainList(config)
            view = chains.observe
            bus = chains.scan
            starts = _rows(m, chains.starts, 0, size, "start")
            ends = _rows(m, chains.ends, 0, size, "end")
            for port in (bus.clear, bus.apply, bus.word):
                free(m, port)
            busy = view.walking | view.comparing | view.updating
            # Its contract: a word only while idle; White's words only.
            m.d.comb += Assume(~bus.apply | bus.clear | ~busy)
            m.d.comb += Assume(~bus.apply | ~bus.word.colour)

            model = _Pieces(m, pieces)
            model.follow(m, bus, view)

            # The guarantee.
            m.d.comb += Assert(~bus.done | ~bus.overflow)

            # The invariant that makes it inductive.
            live = [view.white_open > i for i in range(size)]
            _rows_hold_pieces(m, view, starts, ends, live, model)
            with m.If(busy):
                _walk_counted(m, view, starts, ends, live, model)
            with m.If(view.walking):
                m.d.comb += Assert(view.walk_index < view.white_open)
            # The copies of each side's entry 0, which tell the upcoming
            # repetition a side's lone chain, are the rows themselves.
            black_starts = _rows(m, chains.starts, size, 1, "black_start")
            black_ends = _rows(m, chains.ends, size, 1, "black_end")
            m.d.comb += [
                Assert(view.white_start_0 == starts[0]),
                Assert(view.white_end_0 == ends[0]),
                Assert(view.black_start_0 == black_starts[0]),
                Assert(view.black_end_0 == black_ends[0]),
            ]
            _list_registers_agree(m, view, size)
        return Harness(body)
    return build


class _Pieces:
    """The capacity proof's model of a side's pieces: where each stands now,
    where it stood at the top of the scan, its kind, and whether it is on
    the board at all; placed freely at a clear."""

    def __init__(self, m, pieces):
        self.count = pieces
        self.now    = [Signal(6, name=f"piece{j}_now") for j in range(pieces)]
        self.top    = [Signal(6, name=f"piece{j}_top") for j in range(pieces)]
        self.kind   = [Signal(3, name=f"piece{j}_kind") for j in range(pieces)]
        self.there  = [Signal(name=f"piece{j}_there") for j in range(pieces)]
        self.placed = [Signal(6, name=f"piece{j}_placed") for j in range(pieces)]
        self.placed_kind  = [Signal(3, name=f"piece{j}_placed_kind") for j in range(pieces)]
        self.placed_there = [Signal(name=f"piece{j}_placed_there") for j in range(pieces)]
        for j in range(pieces):
            free(m, self.placed[j])
            free(m, self.placed_kind[j])
            free(m, self.placed_there[j])

    def stands_on_to(self, move):
        return Cat(self.there[j] & (self.now[j] == move.to_sq) & (self.kind[j] == move.kind)
                   for j in range(self.count))

    def stands_on_from(self, move):
        return Cat(self.there[j] & (self.now[j] == move.from_sq) for j in range(self.count))

    def legal(self, move):
        return self.stands_on_to(move).any() & ~self.stands_on_from(move).any()

    def follow(self, m, bus, view):
        """Place the pieces at a clear, assume every word handed over is a
        legal move, and take the moving piece back when the list updates."""
        now, top, kind, there = self.now, self.top, self.kind, self.there
        with m.If(bus.clear):
            m.d.comb += Assume(distinct(self.placed, self.placed_there))
            for j in range(self.count):
                m.d.sync += [now[j].eq(self.placed[j]), top[j].eq(self.placed[j]),
                             kind[j].eq(self.placed_kind[j]),
                             there[j].eq(self.placed_there[j])]
        with m.Else():
            with m.If(bus.apply):
                m.d.comb += Assume(self.legal(bus.word))
            with m.If(view.updating):
                moving = self.stands_on_to(view.move)
                for j in range(self.count):
                    with m.If(moving[j]):
                        m.d.sync += now[j].eq(view.move.from_sq)


def _rows_hold_pieces(m, view, starts, ends, live, pieces):
    """The live rows of White's side hold, as sets, the squares the pieces
    stand on now but not at the top (starts) and those they stood on at the
    top but not now (ends), each once, as many as the open count."""
    now, top, kind, there = pieces.now, pieces.top, pieces.kind, pieces.there
    size = len(live)
    moved = [there[j] & ~member(now[j], kind[j], top, kind, there)
             for j in range(pieces.count)]
    left  = [there[j] & ~member(top[j], kind[j], now, kind, there)
             for j in range(pieces.count)]
    m.d.comb += [
        Assert(distinct(now, there)),
        Assert(distinct(top, there)),
        Assert(view.black_open == 0),
        Assert(view.white_open <= size),
        Assert(view.white_open == popcount(Cat(moved))),
        Assert(view.white_open == popcount(Cat(left))),
        Assert(~(view.walking & view.updating)),
    ]
    for i in range(size):
        with m.If(live[i]):
            m.d.comb += [
                Assert(member(starts[i].square, starts[i].kind, now, kind, moved)),
                Assert(member(ends[i].square, ends[i].kind, top, kind, left)),
            ]
            for k in range(i + 1, size):
                with m.If(live[k]):
                    m.d.comb += [
                        Assert((starts[i].square != starts[k].square) |
                               (starts[i].kind != starts[k].kind)),
                        Assert((ends[i].square != ends[k].square) |
                               (ends[i].kind != ends[k].kind)),
                    ]


def _walk_counted(m, view, starts, ends, live, pieces):
    """While the list is busy with a move: the move is a legal White one, and
    what the walk has counted, where it found it and the last row it read
    are those of the rows below its index."""
    size = len(live)
    move = view.move
    on_start = [(entry.kind == move.kind) & (entry.square == move.to_sq)
                for entry in starts]
    on_end = [(entry.kind == move.kind) & (entry.square == move.from_sq)
              for entry in ends]
    # Rows the walk has counted: below its index while it walks, but
    # the one it compared on the clock before (counted on this one),
    # and so on to every live one when it updates.
    compared = [Mux(view.walking, view.walk_index > i + view.comparing,
                    Mux(view.comparing, view.white_open > i + 1, live[i]))
                for i in range(size)]
    m.d.comb += [
        Assert(pieces.legal(move)),
        Assert(~move.colour),
        Assert(view.start_hits == popcount(Cat(c & s for c, s in
                                               zip(compared, on_start)))),
        Assert(view.end_hits == popcount(Cat(c & e for c, e in
                                             zip(compared, on_end)))),
        Assert((view.start_hits == 0) | (view.start_at < view.white_open)),
        Assert((view.end_hits == 0) | (view.end_at < view.white_open)),
    ]
    for i in range(size):
        with m.If((view.start_hits != 0) & (view.start_at == i)):
            m.d.comb += Assert(compared[i] & on_start[i])
        with m.If((view.end_hits != 0) & (view.end_at == i)):
            m.d.comb += Assert(compared[i] & on_end[i])
        with m.If(view.comparing & (view.match_index == i)):
            m.d.comb += [Assert(view.start_match == on_start[i]),
                         Assert(view.end_match == on_end[i])]
        # The last row read: the one below the walk's index, or
        # the last live one.
        last = Mux(view.walking, view.walk_index == i + 1, view.white_open == i + 1)
        with m.If(last):
            m.d.comb += [Assert(view.last_start == starts[i]),
                         Assert(view.last_end == ends[i])]


def _list_registers_agree(m, view, entries):
    """What the walked list keeps twice, asserted equal: each side's
    ``closed`` flag and its open count; while it applies a move, ``still``,
    ``full`` (of ``entries`` a side) and ``overflowing`` and the move and
    the walk's counts, the walk's
    ``walk_last`` and the last live entry of the mover's side."""
    side_open = Mux(view.move.colour, view.black_open, view.white_open)
    m.d.comb += [
        Assert(view.white_closed == (view.white_open == 0)),
        Assert(view.black_closed == (view.black_open == 0)),
    ]
    with m.If(view.walking | view.comparing | view.updating):
        m.d.comb += [Assert(view.still == (view.move.from_sq == view.move.to_sq)),
                     Assert(view.full == (side_open == entries)),
                     Assert(view.overflowing == (view.still | (view.start_hits == 2) |
                                                 (view.end_hits == 2) |
                                                 (view.start_hits == 0) & (view.end_hits == 0) &
                                                 view.full))]
    m.d.comb += Assert(~(view.comparing & view.updating))
    with m.If(view.walking):
        m.d.comb += Assert(view.walk_last == side_open - 1)
    # The comparison being counted is the entry read on the clock before.
    with m.If(view.comparing):
        m.d.comb += Assert(view.match_index == Mux(view.walking, view.walk_index - 1,
                                                   side_open - 1))
    with m.If(view.walking & ~view.comparing):
        m.d.comb += Assert(view.walk_index == 0)


def _walked_clocks_left(entries, word_addr, judging, walking, walk_index, comparing, updating):
    """The termination proof's ranking function: busy clocks after this one,
    at most. Judging the word at ``A``: each of ``A .. 0`` applied with a
    full walk (:func:`~axon.hdl.params.walked_word_clocks` of ``entries``),
    then the judging clock of the absent word at -1. Applying it: what is
    left of its walk, its last comparison and its update, then the words
    below."""
    word = walked_word_clocks(entries)
    below = word_addr * word + 1
    return Mux(judging, (word_addr + 1) * word,
               Mux(walking, entries - walk_index + WALKED_COMPARE_CLOCKS + below,
                   Mux(comparing, 1 + below, below)))


def termination_walked(broken, config=None, entries=None):
    """The walked scanner with its chain list, for a move list of
    ``config.depth`` words whatever it reads (the words are free): a started
    query raises ``done`` within :meth:`~axon.hdl.params.DetectorConfig.worst_case_clocks`
    (``(top + 1) * walked_word_clocks(entries) + 1``). The broken variant claims two
    clocks a word without the walks, which must fail."""
    config = WALKED if config is None else config
    entries = config.chains // 2 if entries is None else entries

    def body(m):
        m.submodules.scanner = scanner = WalkedScanner(config.depth)
        m.submodules.chains = chains = WalkedChainList(config, entries=entries)
        m.d.comb += [
            chains.scan.clear.eq(scanner.chains.clear),
            chains.scan.apply.eq(scanner.chains.apply),
            chains.scan.word.eq(scanner.chains.word),
            scanner.chains.done.eq(chains.scan.done),
            scanner.chains.overflow.eq(chains.scan.overflow),
            scanner.chains.empty.eq(chains.scan.empty),
        ]
        query = scanner.query
        for port in (query.start, query.top, query.count_limit, query.root_address,
                     scanner.reads.word):
            free(m, port)
        waiting, waited, top = query_timer(m, query, config.worst_case_clocks(config.depth - 1))
        bound = (top + 1) * walked_word_clocks(entries) + 1
        claimed = 2 * (top + 1) + 1 if broken else bound
        m.d.comb += Assert(~waiting | query.done | (waited < claimed))
        m.d.comb += Assert(~waiting | query.busy | query.done)

        # The ranking invariant, asserted.
        pipe, view = scanner.observe, chains.observe
        side_open = Mux(view.move.colour, view.black_open, view.white_open)
        left = _walked_clocks_left(entries, pipe.word_addr, pipe.judging, view.walking,
                                   view.walk_index, view.comparing, view.updating)
        m.d.comb += [
            Assert(~(pipe.judging & pipe.applying)),
            Assert(pipe.applying == (view.walking | view.comparing | view.updating)),
            Assert(~(view.walking & view.updating)),
            Assert(view.white_open <= entries),
            Assert(view.black_open <= entries),
            Assert(query.busy == (pipe.judging | pipe.applying)),
            Assert(~query.busy | waiting),
        ]
        with m.If(view.walking):
            m.d.comb += Assert(view.walk_index < side_open)
        _list_registers_agree(m, view, entries)
        with m.If(query.busy):
            m.d.comb += [
                Assert(pipe.word_addr >= -1),
                Assert(pipe.word_addr <= top),
                Assert(~pipe.applying | (pipe.word_addr >= 0)),
                Assert(waited + left < bound),
            ]
    return Harness(body)


# The end-to-end check: a small walked detector from power-up, its move list
# written by the free host port, every query against the golden scan loop.
WALKED_END_TO_END = WALKED.replace(depth=4, chains=4)


class _WalkedChainBlindDetector(AxonDetector):
    """Broken: the scanner sees the walked list as empty always, so every
    even number of words looks like a repetition."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        m.d.comb += m.submodules.scanner.chains.empty.eq(1)
        return m


WALKED_END_TO_END_BROKEN = {True: _WalkedChainBlindDetector}


def end_to_end_walked(broken, config=WALKED_END_TO_END):
    """From power-up, whatever the host writes and asks: every answer of the
    walked detector, and its clock count, is the golden scan loop's, with
    the rules' plain model for each side's list
    (:class:`~axon.sim.verify.formal.pools.ReferenceUnpairedPool`) and the
    clocks of :func:`axon.sim.model.walked.walked_clocks` (two a word, one
    a walked chain, one for the word that stops the scan). Bounded: checked
    for every input sequence up to the property's length in clocks."""
    def body(m):
        depth = config.depth
        dut, words = detector_and_copy(
            m, WALKED_END_TO_END_BROKEN[broken] if broken else AxonDetector, config)

        entries = config.chains // 2
        white = ReferenceUnpairedPool(entries, kinds=True)
        black = ReferenceUnpairedPool(entries, kinds=True)
        m.submodules.white_model, m.submodules.black_model = white, black
        answer = GoldenAnswer(depth)
        running, plies, count, distance = answer.running, answer.plies, answer.count, \
            answer.distance
        address = Signal(range(-1, depth))
        clocks = Signal(range(config.hung_after_clocks))
        word = words[address[:(depth - 1).bit_length()]]
        black_move = word.colour
        starting = dut.query.start & ~dut.query.busy
        apply = Signal()
        overflow, empty_after = drive_side_models(m, white, black, word, starting, apply)
        walked = Mux(black_move, popcount(black.start_valid), popcount(white.start_valid))
        word_clocks = 2 + walked + Mux(walked != 0, WALKED_COMPARE_CLOCKS, 0)

        with m.If(starting):
            m.d.sync += [running.eq(1), address.eq(dut.query.top), clocks.eq(0),
                         *answer.start(dut.query)]
        with m.Elif(running):
            with m.If(answer.limit_stops(count, answer.first_inside)):
                answer.finish(m, StopReason.LIMIT)
                m.d.sync += clocks.eq(clocks + 1)
            with m.Elif(address < 0):
                answer.finish(m, StopReason.BOTTOM)
                m.d.sync += clocks.eq(clocks + 1)
            with m.Elif(word.barrier):
                answer.finish(m, StopReason.BARRIER)
                m.d.sync += clocks.eq(clocks + 1)
            with m.Elif(overflow):
                answer.finish(m, StopReason.OVERFLOW)
                m.d.sync += clocks.eq(clocks + word_clocks)
            with m.Else():
                m.d.comb += apply.eq(1)
                m.d.sync += [plies.eq(plies + 1), address.eq(address - 1),
                             clocks.eq(clocks + word_clocks)]
                with m.If(plies[0] & empty_after):
                    answer.book(m, count, address - 1)
                    with m.If(count == 0):
                        m.d.sync += distance.eq(plies + 1)

        answer.assert_agrees(m, dut)
        with m.If(dut.query.done):
            m.d.comb += Assert(dut.query.cycles == clocks)
    return Harness(body)
