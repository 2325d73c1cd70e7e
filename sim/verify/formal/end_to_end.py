"""End to end: the detector's answer against a model of the golden scan loop."""

import functools

from amaranth.hdl import *

from ....hdl.detector import AxonDetector
from ....hdl.params import LEAN, SHIPPED, Stop as StopReason
from ....hdl.word import MoveWord
from .harness import free_host_inputs, Harness
from .pools import ReferenceUnpairedPool


# The end-to-end proofs scan a free 8-word move list, against a model of the
# golden scan loop with the rules' plain model for each side's pools. The
# pair scan's is proven with the default layout's pools by kind at the
# smallest build that gives every kind a pool (K Q R B N, one entry each a
# side), and at the shipped 24 chains with --runslow; the lean scan's with
# the lean layout (one pool of 2 entries a side, keeping kinds).
END_TO_END_DEPTH = 8
END_TO_END_CHAINS = 10
# The repetition core's pools alone: the upcoming block and the backstop have
# their own proofs.
END_TO_END_PAIR = SHIPPED.replace(depth=END_TO_END_DEPTH, chains=END_TO_END_CHAINS,
                                  upcoming=False, backstop=False)
END_TO_END_LEAN = LEAN.replace(depth=END_TO_END_DEPTH)


def _pool_views(dut):
    """White's and Black's pools as the detector's view shows them: each a
    list of ``(kind, view)`` in the order of
    :attr:`axon.hdl.params.DetectorConfig.side_pools`."""
    sides = dut.observe.chain_list
    return [[(kind, view) for (kind, _), view in zip(dut.config.side_pools, side.values())]
            for side in (sides.white, sides.black)]


def _bank_ports(dut):
    """``(row, word)`` of each bank the scanner reads (two banks for the pair
    scan, one for the lean scan): the scanner's reads, in the detector's view."""
    reads = dut.observe.scanner.reads
    if dut.config.pair_scan:
        return [(reads.even_row, reads.even_word), (reads.odd_row, reads.odd_word)]
    return [(reads.addr, reads.word)]


class _ChainBlindDetector(AxonDetector):
    """Broken: the scanner sees the chain list as empty while up to two
    chains are open, so two displaced pieces go unnoticed."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        open_chains = sum(view.open_chains for side in _pool_views(self) for _, view in side)
        m.d.comb += m.submodules.scanner.chains.empty.eq(open_chains <= 2)
        return m


class _RootBlindDetector(AxonDetector):
    """Broken: the scanner takes every search as starting before address 0,
    so it stops at an occurrence at or before the root, as if it were
    inside the search."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        m.d.comb += m.submodules.scanner.query.root_address.eq(-1)
        return m


# The end-to-end proofs' broken variants: ``broken=True`` is blind to
# chains, ``broken="root"`` to the root.
END_TO_END_BROKEN = {True: _ChainBlindDetector, "root": _RootBlindDetector}


def detector_and_copy(m, detector, config):
    """``detector(config)`` as ``m``'s ``dut`` with free host inputs, and
    the model's copy of its move list as the host wrote it (the block RAM
    and the copy start out all zero). Returns ``(dut, words)``."""
    m.submodules.dut = dut = detector(config)
    free_host_inputs(m, dut)
    words = Array(Signal(MoveWord, name=f"word{address}") for address in range(config.depth))
    with m.If(dut.memory.write_en & ~dut.memory.write_refused):
        m.d.sync += words[dut.memory.write_addr].eq(dut.memory.write_word)
    return dut, words


def _end_to_end_detector(m, broken, config):
    """The detector of ``config`` under the end-to-end proof, its free
    inputs, and the model's copy of the move list with the block RAM held to
    it. Returns ``(dut, words, stored)``: ``stored[bank]`` is the word the
    bank returns; for the two-bank list, once ``stored[4]`` says the banks
    have read, and ``stored[2]`` the word its copy of the word below a write
    returns, once ``stored[3]`` says it has read."""
    depth = config.depth
    dut, words = detector_and_copy(m, END_TO_END_BROKEN[broken] if broken else AxonDetector,
                                   config)
    # The harness takes the block RAM at its contract: a read by the scanner
    # returns the copy's word as it was on the clock of the read (the word
    # last stored at that row, before the clock's own write). That contract
    # is proven on its own (``refused-writes-keep-words`` and ``-lean``); a
    # solver cannot see into a memory's contents, and without it an
    # induction step could start from a memory that disagrees with the
    # model's copy of the list.
    scanned = Signal()
    m.d.sync += scanned.eq(dut.observe.scanner.reads.reading)
    stored = []
    ports = _bank_ports(dut)
    if not config.pair_scan:
        for bank, (row, word) in enumerate(ports):
            stored.append(Signal(MoveWord, name=f"bank{bank}_stored"))
            m.d.sync += stored[bank].eq(words[row * len(ports) + bank])
            with m.If(scanned):
                m.d.comb += Assume(word.as_value() == stored[bank].as_value())
        return dut, words, stored
    # The two-bank list's banks also read on every write it takes (the pair
    # two and three words below it) and hold their words between reads; its
    # own copy reads the word below a write (``refused-writes-keep-words``
    # and ``mirror-keeps-words`` prove the contract).
    reads = dut.observe.scanner.reads
    written = dut.memory.write_en & ~dut.memory.write_refused
    pair_newer = Signal(range(-2, depth), name="written_pair")
    m.d.comb += pair_newer.eq(dut.memory.write_addr - 2)
    write_rows = (pair_newer >> 1, (pair_newer >> 1) - ~pair_newer[0])
    row_bits = (depth // 2 - 1).bit_length()
    banks_read = Signal()   # the banks have read once (their outputs mean nothing before)
    with m.If(reads.reading | written):
        m.d.sync += banks_read.eq(1)
    for bank, (row, word) in enumerate(ports):
        stored.append(Signal(MoveWord, name=f"bank{bank}_stored"))
        address = Signal(range(depth), name=f"bank{bank}_read")
        m.d.comb += address.eq(Cat(bank, Mux(reads.reading, row, write_rows[bank][:row_bits])))
        with m.If(reads.reading | written):
            m.d.sync += stored[bank].eq(words[address])
        with m.If(banks_read):
            m.d.comb += Assume(word.as_value() == stored[bank].as_value())
    below = Signal(MoveWord, name="below_stored")
    below_read = Signal()   # the copy has read once
    with m.If(written):
        m.d.sync += [below.eq(_word_at(words, dut.memory.write_addr - 1)), below_read.eq(1)]
    with m.If(below_read):
        m.d.comb += [
            Assume(reads.below_word.as_value() == below.as_value()),
            Assume(reads.below_nothing == (below.from_sq == below.to_sq)),
        ]
    stored += [below, below_read, banks_read]
    return dut, words, stored


def _word_at(words, address):
    """The copy's word at a (signed) address; below 0, the one the block RAM
    returns there (its row wraps)."""
    return words[Value.cast(address)[:(END_TO_END_DEPTH - 1).bit_length()]]


def drive_side_models(m, white, black, word, starting, apply):
    """Drive the reference models of the two sides' chains with the scan:
    both cleared at a query's ``starting``, the mover's side told ``word``
    with ``apply``. Return ``(overflow, empty_after)`` of the mover's side,
    ``empty_after`` with the other side's chains all closed too."""
    black_move = word.colour
    m.d.comb += [
        white.clear.eq(starting), black.clear.eq(starting),
        white.move.eq(word), black.move.eq(word),
        white.apply.eq(apply & ~black_move), black.apply.eq(apply & black_move),
    ]
    overflow = Mux(black_move, black.overflow, white.overflow)
    empty_after = Mux(black_move, black.empty_after & (white.start_valid == 0),
                      white.empty_after & (black.start_valid == 0))
    return overflow, empty_after


class GoldenAnswer:
    """What the golden scan loop of an end-to-end model has found so far and
    why it stopped: the registers both scan models keep, however they step."""

    def __init__(self, depth):
        self.running  = Signal()
        self.finished = Signal()
        self.top      = Signal(range(depth))
        self.root     = Signal(range(-1, depth))
        self.plies    = Signal(range(depth + 1))
        self.count    = Signal(4)
        self.limit    = Signal(4)
        self.distance = Signal(range(depth + 1))
        self.first_inside = Signal()   # the nearest occurrence lies after the root
        self.stop     = Signal(StopReason)

    def start(self, query):
        """The statements of the clock that samples ``query.start``: nothing
        found yet, from ``query.top`` and ``query.root_address`` with
        ``query.count_limit``."""
        return [self.finished.eq(0), self.top.eq(query.top), self.root.eq(query.root_address),
                self.plies.eq(0), self.count.eq(0), self.limit.eq(query.count_limit),
                self.distance.eq(0), self.first_inside.eq(0)]

    def book(self, m, count, position):
        """Book an equal position: the one after the word at ``position``
        (an address), after ``count`` found before it."""
        m.d.sync += self.count.eq(count + 1)
        with m.If(count == 0):
            m.d.sync += self.first_inside.eq(position > self.root)

    def draw(self, count, first_inside):
        """:func:`axon.sim.model.golden.decides_draw`."""
        return (count >= 2) | ((count == 1) & first_inside)

    def limit_stops(self, count, first_inside):
        """The golden loop's limit test: the count reached, and the draw
        decided (a lone occurrence at or before the root leaves it open)."""
        return (count >= self.limit) & ((count != 1) | first_inside)

    def finish(self, m, reason):
        m.d.sync += [self.running.eq(0), self.finished.eq(1), self.stop.eq(reason)]

    def assert_agrees(self, m, dut):
        """The property: the model has answered whenever the detector has,
        and they agree on every field."""
        result = dut.query.result
        with m.If(dut.query.done):
            m.d.comb += [
                Assert(self.finished),
                Assert(result.repetition == (self.count != 0)),
                Assert(result.draw == self.draw(self.count, self.first_inside)),
                Assert(result.count == self.count),
                Assert(result.distance == self.distance),
                Assert(result.plies_scanned == self.plies),
                Assert(result.stop == self.stop),
                Assert(result.overflow == (self.stop == StopReason.OVERFLOW)),
            ]


class _SideModel:
    """The rules' plain model of one side's pools, in the layout of
    :func:`axon.hdl.pools.side_pools`: a move goes to the pool of its kind,
    and a kind without a pool overflows (as in :class:`~axon.hdl.chainlist.SideChains`
    and the golden model)."""

    def __init__(self, m, side, layout):
        self.pools = []
        for kind, slots in layout:
            pool = ReferenceUnpairedPool(slots, kinds=kind is None)
            m.submodules[f"{side}_model_{kind or 'any'}"] = pool
            self.pools.append((kind, pool))

    @staticmethod
    def takes(kind, move):
        return C(1) if kind is None else move.kind == kind

    def drive(self, m, clear, move, apply):
        for kind, pool in self.pools:
            m.d.comb += [pool.clear.eq(clear), pool.move.eq(move),
                         pool.apply.eq(apply & self.takes(kind, move))]

    def overflow(self, move):
        takes = Cat(self.takes(kind, move) for kind, _ in self.pools)
        return ~takes.any() | Cat(self.takes(kind, move) & pool.overflow
                                  for kind, pool in self.pools).any()

    def closed(self):
        return Cat(pool.start_valid == 0 for _, pool in self.pools).all()


def _assert_pools_as_models(m, dut, models):
    """Each side's pools hold their model pools' entries (asserted while the
    model runs)."""
    for views, model in zip(_pool_views(dut), models):
        for (kind, view), (_, pool) in zip(views, model.pools):
            m.d.comb += [
                Assert(view.start_valid == pool.start_valid),
                Assert(view.end_valid == pool.end_valid),
            ]
            for i in range(pool.slots):
                m.d.comb += [
                    Assert(~pool.start_valid[i] |
                           (view.start_squares[i] == pool.start_sq[i])),
                    Assert(~pool.end_valid[i] | (view.end_squares[i] == pool.end_sq[i])),
                ]
                if kind is None:
                    m.d.comb += [
                        Assert(~pool.start_valid[i] |
                               (view.start_kinds[i] == pool.start_kind[i])),
                        Assert(~pool.end_valid[i] | (view.end_kinds[i] == pool.end_kind[i])),
                    ]


def _assert_hit_vectors_in_view(m, dut, when):
    """Every pool's hit vectors are its comparisons with the move in hand (as
    in every pool proof), and its ``moves_nothing`` says whether that move
    moves nothing, while ``when`` (a query runs and the hand stage holds a
    move). A start's clear empties both the entries and the vectors, so
    they agree from the clock after it; between queries the hand stage may
    hold a move the pools compared with nothing."""
    for views in _pool_views(dut):
        for kind, view in views:
            move = view.move
            slots = len(view.start_valid)
            move_kind, from_sq, to_sq = move.kind, move.from_sq, move.to_sq

            def same(kinds, i):
                return (view[kinds][i] == move_kind) if kind is None else C(1)
            starts = Cat(view.start_valid[i] & same("start_kinds", i) &
                         (view.start_squares[i] == to_sq) for i in range(slots))
            ends   = Cat(view.end_valid[i] & same("end_kinds", i) &
                         (view.end_squares[i] == from_sq) for i in range(slots))
            with m.If(when):
                m.d.comb += [Assert(view.start_hits == starts), Assert(view.end_hits == ends),
                             Assert(view.moves_nothing == (from_sq == to_sq))]


def end_to_end_lean(broken):
    def body(m):
        depth = END_TO_END_DEPTH
        dut, words, stored = _end_to_end_detector(m, broken, END_TO_END_LEAN)

        # The scan model: the golden loop (axon.sim.model.golden.perpetual), one
        # word a clock, with the rules' plain model for each side's pool. It
        # decides about a word on the clock the scanner does (the scanner's
        # hand stage), a clock after its read stage (`pending` on the first).
        models = [_SideModel(m, side, END_TO_END_LEAN.side_pools)
                  for side in ("white", "black")]
        (_, white), = models[0].pools
        (_, black), = models[1].pools
        answer = GoldenAnswer(depth)
        running, finished, top, plies, count, limit, distance = (
            answer.running, answer.finished, answer.top, answer.plies, answer.count,
            answer.limit, answer.distance)
        pending  = Signal()
        address  = Signal(range(-1, depth))   # of the word in hand
        word = _word_at(words, address)
        starting = dut.query.start & ~dut.query.busy
        apply = Signal()
        overflow, empty_after = drive_side_models(m, white, black, word, starting, apply)

        finish = functools.partial(answer.finish, m)

        with m.If(starting):
            m.d.sync += [pending.eq(1), running.eq(0), address.eq(dut.query.top),
                         *answer.start(dut.query)]
        with m.Elif(pending):
            m.d.sync += [pending.eq(0), running.eq(1)]
        with m.Elif(running):
            with m.If(answer.limit_stops(count, answer.first_inside)):
                finish(StopReason.LIMIT)
            with m.Elif(address < 0):
                finish(StopReason.BOTTOM)
            with m.Elif(word.barrier):
                finish(StopReason.BARRIER)
            with m.Elif(overflow):
                finish(StopReason.OVERFLOW)
            with m.Else():
                m.d.comb += apply.eq(1)
                m.d.sync += [plies.eq(plies + 1), address.eq(address - 1)]
                # All chains closed after an even number of plies: the
                # position repeats.
                with m.If(plies[0] & empty_after):
                    # The position the word leaves is the one after the word below it.
                    answer.book(m, count, address - 1)
                    with m.If(count == 0):
                        m.d.sync += distance.eq(plies + 1)

        answer.assert_agrees(m, dut)

        # The invariants that make it inductive, each asserted: the scanner's
        # pipeline holds the model's words and counts, stage by stage, and
        # each side's pool the model pool's entries.
        result   = dut.query.result
        pipeline = dut.observe.scanner
        active   = pending | running
        read_at  = Signal(range(-2, depth))   # the word in the read stage
        m.d.comb += read_at.eq(Mux(running, address - 1, address))
        all_closed = (white.start_valid == 0) & (black.start_valid == 0)
        # The scanner books an equal position on the clock after the word
        # that leaves it; the model books it with that word.
        booked_late = all_closed & (plies != 0) & ~plies[0]
        m.d.comb += Assert(dut.query.busy == active)
        with m.If(active):
            m.d.comb += [
                # The model's own: it walks down from the top, and finds at
                # most one equal position in two plies.
                Assert(address + plies == top),
                Assert(address >= -1),
                Assert(count * 2 <= plies),
                Assert(~dut.query.done),
                Assert(pipeline.read_valid),
                Assert(pipeline.hand_valid == running),
                Assert(pipeline.read_present == (read_at >= 0)),
                Assert(pipeline.fetch_addr == read_at - 1),
                Assert(stored[0].as_value() == _word_at(words, read_at).as_value()),
                Assert(pipeline.count_limit == limit),
                Assert(pipeline.root == answer.root),
                Assert(pipeline.read_inside == (read_at > answer.root)),
                Assert(pipeline.count_reached ==
                       answer.limit_stops(result.count, answer.first_inside)),
                Assert(pipeline.count_reached_next == (result.count + 1 >= limit)),
                Assert(pipeline.scanned_odd == plies[0]),
                Assert(pipeline.scanned_nonzero == (plies != 0)),
                Assert(result.plies_scanned == plies),
                Assert(result.draw == answer.draw(result.count, answer.first_inside)),
                # The nearest occurrence, the one `distance` plies back.
                Assert((count == 0) | (answer.first_inside == (top - distance > answer.root))),
                Assert(count == result.count + booked_late),
                Assert(result.repetition == (result.count != 0)),
                Assert(result.distance == Mux(result.count != 0, distance, 0)),
                Assert((result.count != 0) | (distance == Mux(count != 0, plies, 0))),
            ]
            for ((_, view),), side_black in zip(_pool_views(dut), (0, 1)):
                m.d.comb += Assert(view.apply ==
                                   (running & (pipeline.hand_word.colour == side_black)))
            _assert_pools_as_models(m, dut, models)
        with m.Else():
            m.d.comb += [
                Assert(~pipeline.read_valid),
                Assert(dut.query.done == finished),
            ]
        with m.If(running):
            m.d.comb += [
                Assert(pipeline.hand_present == (address >= 0)),
                Assert(pipeline.hand_inside == (address > answer.root)),
                Assert(pipeline.hand_word.as_value() == word.as_value()),
            ]
        _assert_hit_vectors_in_view(m, dut, running)
    return Harness(body)


def end_to_end_pair(broken, chains=END_TO_END_CHAINS):
    config = END_TO_END_PAIR.replace(chains=chains)

    def body(m):
        proof = _PairScanProof(m, broken, config)
        proof.hand(m)
        proof.start_or_decide(m)
        proof.answer.assert_agrees(m, proof.dut)
        # The invariants that make it inductive, each asserted: every valid
        # stage of the scanner's pipeline holds the pair the model expects
        # there, the decide stage what the model noted, the answer so far
        # the model's counts, and each side's pool the model pool's entries.
        proof.assert_query_control(m)
        proof.assert_fresh_write(m)
        proof.assert_while_running(m)
        proof.assert_chain_list_applies(m)
    return Harness(body)


class _PairScanProof:
    """The pair scan's end-to-end proof, part by part: the detector under it,
    the model of the golden scan loop (axon.sim.model.golden.perpetual) with
    the rules' plain model for each side's pool, a pair of words at a time,
    and the invariants that tie the scanner's pipeline to the model.

    The model follows the scanner's two last stages: on a clock that hands a
    pair to the chain list (`hand`), the model pools apply what the scanner
    applies there (both words, or after two words of one side, the newer
    alone from then on) and note what the golden loop needs of them; on the
    next (`decide`), it judges the pair's words in the golden loop's order.
    It books an equal position at the next word, as the scanner does; the
    golden loop books it with the word that leaves it, and nothing is judged
    in between, so the answer is the same."""

    def __init__(self, m, broken, config):
        depth = END_TO_END_DEPTH
        self.dut, self.words, self.stored = _end_to_end_detector(m, broken, config)
        dut = self.dut
        self.pipeline = dut.observe.scanner
        self.result   = dut.query.result
        self.models = [_SideModel(m, side, config.side_pools) for side in ("white", "black")]
        self.answer = GoldenAnswer(depth)
        self.address  = Signal(range(-8, depth), name="address")  # the newer word of the next pair handed
        self.single   = Signal(name="single")  # one word a pair, after a same-side pair
        self.starting = dut.query.start & ~dut.query.busy
        # A start while the host's last write is fresh goes on from the words
        # just written, as if its top were that word; if it is not, the scan
        # restarts from the top on the next clock (nothing is handed then).
        self.reads       = self.pipeline.reads
        self.from_write  = self.starting & self.reads.fresh
        self.top_written = dut.query.top == self.reads.newest_addr
        self.restarting  = Signal(name="restarting")
        # The decide stage judges the first pair on the clock after such a
        # start when the words alone stop the scan; the model judges it then
        # too (`early`), before the pair leaves the hand stage.
        self.early       = Signal(name="early")

    def pair_at(self, addr, single):
        """What the golden loop reads of the pair whose newer word is at
        ``addr``: the words, whether each is in the list, and whether
        the older word goes to the other side's pool with it."""
        newer, older = _word_at(self.words, addr), _word_at(self.words, addr - 1)
        same_side = newer.colour == older.colour
        return newer, older, addr >= 0, addr >= 1, same_side, ~single & ~same_side

    def hand(self, m):
        """Hand: the model pools apply the pair at ``address``, and note what
        the decision needs of them."""
        depth = END_TO_END_DEPTH
        white, black = self.models
        address, single = self.address, self.single
        newer, older, _, _, same_side, both = self.pair_at(address, single)
        newer_black = newer.colour
        handed = self.pipeline.hand.valid & self.answer.running & ~self.restarting
        white_move = Signal(MoveWord, name="white_move")
        black_move = Signal(MoveWord, name="black_move")
        m.d.comb += [
            white_move.eq(Mux(newer_black, older.as_value(), newer.as_value())),
            black_move.eq(Mux(newer_black, newer.as_value(), older.as_value())),
        ]
        white.drive(m, self.starting, white_move, handed & Mux(newer_black, both, 1))
        black.drive(m, self.starting, black_move, handed & Mux(newer_black, 1, both))
        # What the decision needs of the pools, noted on the hand clock.
        self.judging        = Signal(name="judging")   # a pair was handed on the last clock
        self.judged_addr    = Signal(range(-8, depth), name="judged_addr")
        self.judged_single  = Signal(name="judged_single")
        self.judged_words   = Signal(range(3), name="judged_words")  # the words it handed: 1 or 2
        self.white_overflow = Signal(name="white_overflow")
        self.black_overflow = Signal(name="black_overflow")
        self.closed_before  = Signal(name="closed_before")  # every chain closed before the pair
        m.d.sync += [self.judging.eq(handed), self.early.eq(0)]
        with m.If(handed):
            m.d.sync += [
                self.judged_addr.eq(address),
                self.judged_single.eq(single),
                self.judged_words.eq(Mux(both, 2, 1)),
                self.white_overflow.eq(white.overflow(white_move)),
                self.black_overflow.eq(black.overflow(black_move)),
                self.closed_before.eq(white.closed() & black.closed()),
                address.eq(address - Mux(both, 2, 1)),
                single.eq(single | same_side),
            ]
        # The pair the decide stage judges.
        self.judged = self.pair_at(self.judged_addr, self.judged_single)

    def _first_pair_stops(self, dut):
        """What the golden loop says of the first pair from the words alone:
        the limit 0, a barrier at the top, or the top word applied (to empty
        pools it is, unless it moves nothing or has no pool) and the bottom
        or a barrier below it. Returns ``(stops, both)``."""
        white, _ = self.models
        first_newer, first_older = (_word_at(self.words, dut.query.top),
                                    _word_at(self.words, dut.query.top - 1))
        first_applies = ((first_newer.from_sq != first_newer.to_sq) &
                         Cat(_SideModel.takes(kind, first_newer) for kind, _ in white.pools).any())
        first_stops = ((dut.query.count_limit == 0) | first_newer.barrier |
                       first_applies & ((dut.query.top == 0) | first_older.barrier))
        return first_stops, first_newer.colour != first_older.colour

    def start_or_decide(self, m):
        """A start, judged at once when the words alone stop the scan; else
        the decision: the golden loop over the judged pair's words."""
        dut, answer = self.dut, self.answer
        running, plies, count, distance = answer.running, answer.plies, answer.count, \
            answer.distance
        (j_newer, j_older, j_newer_present, j_older_present, _, j_both) = self.judged
        newer_overflow = Mux(j_newer.colour, self.black_overflow, self.white_overflow)
        older_overflow = Mux(j_newer.colour, self.white_overflow, self.black_overflow)
        equal = self.closed_before & (plies != 0) & ~plies[0]
        booked = Signal(4, name="booked")
        m.d.comb += booked.eq(count + equal)

        # The equal position is the one after the pair's newer word.
        first_inside = Mux(equal & (count == 0), self.judged_addr > answer.root,
                           answer.first_inside)

        finish = functools.partial(answer.finish, m)
        first_stops, first_both = self._first_pair_stops(dut)
        with m.If(self.starting):
            m.d.sync += [running.eq(1), self.address.eq(dut.query.top), self.single.eq(0),
                         self.judging.eq(0),
                         self.restarting.eq(self.from_write & ~self.top_written),
                         *answer.start(dut.query)]
            with m.If(self.from_write & self.top_written & first_stops):
                m.d.sync += [
                    self.judging.eq(1), self.early.eq(1),
                    self.judged_addr.eq(dut.query.top), self.judged_single.eq(0),
                    self.judged_words.eq(Mux(first_both, 2, 1)),
                    self.white_overflow.eq(0), self.black_overflow.eq(0),
                    self.closed_before.eq(1),
                ]
        with m.Elif(running & self.judging):
            with m.If(equal):
                answer.book(m, count, self.judged_addr)
                with m.If(count == 0):
                    m.d.sync += distance.eq(plies)
            with m.If(answer.limit_stops(booked, first_inside)):
                finish(StopReason.LIMIT)
            with m.Elif(~j_newer_present):
                finish(StopReason.BOTTOM)
            with m.Elif(j_newer.barrier):
                finish(StopReason.BARRIER)
            with m.Elif(newer_overflow):
                finish(StopReason.OVERFLOW)
            with m.Else():
                m.d.sync += plies.eq(plies + 1)
                with m.If(~self.judged_single):
                    # The older word, next in the golden loop: the limit
                    # cannot be reached after an odd number of plies. Of a
                    # same-side pair it is applied with the next pair.
                    with m.If(~j_older_present):
                        finish(StopReason.BOTTOM)
                    with m.Elif(j_older.barrier):
                        finish(StopReason.BARRIER)
                    with m.Elif(j_both & older_overflow):
                        finish(StopReason.OVERFLOW)
                    with m.Elif(j_both):
                        m.d.sync += plies.eq(plies + 2)

    def assert_query_control(self, m):
        """The detector is busy exactly while the model runs, restarts when
        the model does, and is done when the model finished."""
        dut, running = self.dut, self.answer.running
        m.d.comb += [
            Assert(dut.query.busy == running),
            Assert(self.pipeline.restarting == (running & self.restarting)),
            # A query reads the banks on its starting clock, a write too.
            Assert(~(running | self.reads.fresh) | self.stored[4]),
        ]
        with m.If(running):
            m.d.sync += self.restarting.eq(0)
        with m.If(~running):
            m.d.comb += Assert(dut.query.done == self.answer.finished)

    def assert_fresh_write(self, m):
        """Between queries, after a write the list took: the registers and
        the banks hold what the start from it needs, as the copy has it."""
        reads, pipeline, stored, words = self.reads, self.pipeline, self.stored, self.words
        newest = Signal(range(-8, END_TO_END_DEPTH), name="newest")
        m.d.comb += newest.eq(reads.newest_addr)
        newest_even, newest_odd = (Mux(newest[0], newest - 3, newest - 2),
                                   Mux(newest[0], newest - 2, newest - 3))
        fresh_fetch_even, fresh_fetch_odd = (Mux(newest[0], newest - 5, newest - 4),
                                             Mux(newest[0], newest - 4, newest - 5))
        fresh_rows = slice(1, (END_TO_END_DEPTH - 1).bit_length())
        with m.If(reads.fresh):
            m.d.comb += [
                Assert(~self.answer.running),
                Assert(reads.newest_word.as_value() == _word_at(words, newest).as_value()),
                Assert(reads.newest_nothing ==
                       (reads.newest_word.from_sq == reads.newest_word.to_sq)),
                Assert(stored[3]),
                Assert(stored[2].as_value() == _word_at(words, newest - 1).as_value()),
                Assert(stored[0].as_value() == _word_at(words, newest_even).as_value()),
                Assert(stored[1].as_value() == _word_at(words, newest_odd).as_value()),
                Assert(pipeline.read_addr == newest - 2),
                Assert(pipeline.read_newer_odd == newest[0]),
                Assert(pipeline.read_present == Cat(newest >= 2, newest >= 3)),
                Assert(pipeline.fetch_addr == newest - 4),
                Assert(pipeline.fetch_newer_odd == newest[0]),
                Assert(pipeline.even_row == fresh_fetch_even[fresh_rows]),
                Assert(pipeline.odd_row == fresh_fetch_odd[fresh_rows]),
            ]

    def assert_while_running(self, m):
        """During a query: the model's own counts and the answer so far, the
        restart, the stages from the fetch to the hand, the decide stage,
        and the pools."""
        depth = END_TO_END_DEPTH
        pipeline, address, single = self.pipeline, self.address, self.single
        step = Mux(single, 1, 2)
        hand, ahead = pipeline.hand, pipeline.ahead
        ahead_at = Signal(range(-16, depth), name="ahead_at")
        read_at  = Signal(range(-16, depth), name="read_at")
        fetch_at = Signal(range(-16, depth), name="fetch_at")
        m.d.comb += [
            ahead_at.eq(address - Mux(hand.valid, step, 0)),
            read_at.eq(ahead_at - Mux(ahead.valid, step, 0)),
            fetch_at.eq(read_at - Mux(pipeline.read_valid, step, 0)),
        ]
        with m.If(self.answer.running):
            self._assert_counts(m)
            with m.If(self.restarting):
                self._assert_restart(m)
            with m.Else():
                self._assert_stages(m, fetch_at, read_at, ahead_at)
            with m.If(self.judging):
                self._assert_decide_stage(m)
            _assert_pools_as_models(m, self.dut, self.models)

    def _assert_counts(self, m):
        """The model's own counts, and the answer so far the model's."""
        answer, pipeline, result = self.answer, self.pipeline, self.result
        plies, count, limit, distance = answer.plies, answer.count, answer.limit, answer.distance
        m.d.comb += [
            # The model's own: it walks down from the top, and finds at
            # most one equal position in two plies.
            Assert(self.address + plies +
                   Mux(self.judging & ~self.early, self.judged_words, 0) == answer.top),
            Assert(self.address >= -4),
            Assert(plies <= answer.top + 1),
            Assert(~self.judging | (self.address + self.judged_words >= -1)),
            # (Booked at the next word: none yet for the plies so far.)
            Assert((count == 0) | (count * 2 < plies)),
            Assert(~self.dut.query.done),
            Assert(pipeline.single_step == self.single),
            Assert(pipeline.decide_valid == self.judging),
            Assert(pipeline.count_limit == limit),
            Assert(pipeline.root == answer.root),
            Assert(pipeline.count_reached == answer.limit_stops(count, answer.first_inside)),
            Assert(pipeline.count_reached_next == (count + 1 >= limit)),
            Assert(pipeline.scanned_odd == plies[0]),
            Assert(pipeline.booking_ready == ((plies != 0) & ~plies[0])),
            Assert(result.plies_scanned == plies),
            Assert(result.count == count),
            Assert(result.distance == distance),
            Assert(result.repetition == (count != 0)),
            Assert(result.draw == answer.draw(count, answer.first_inside)),
            Assert((count != 0) | (distance == 0)),
        ]

    def _assert_restart(self, m):
        """What the start took is dropped now; the fetch registers hold the
        top, which the banks read on this clock."""
        pipeline, top = self.pipeline, self.answer.top
        top_even, top_odd = _even_odd(top)
        m.d.comb += [
            Assert(~self.judging),
            Assert(self.answer.plies == 0),
            Assert(pipeline.fetch_addr == top),
            Assert(pipeline.fetch_newer_odd == top[0]),
            Assert(pipeline.even_row == top_even[_ROW_BITS]),
            Assert(pipeline.odd_row == top_odd[_ROW_BITS]),
        ]

    def _holds_pair(self, stage, addr):
        """Asserts that ``stage`` holds the pair whose newer word is at ``addr``."""
        newer, older, newer_present, older_present, same_side, both = \
            self.pair_at(addr, self.single)
        newer_black = newer.colour
        root = self.answer.root
        return [
            Assert(stage.addr == addr),
            Assert(stage.newer_odd == addr[0]),
            Assert(stage.single_step == self.single),
            Assert(stage.newer_present == newer_present),
            Assert(stage.older_present == older_present),
            Assert(stage.newer_barrier == newer.barrier),
            Assert(stage.older_barrier == older.barrier),
            Assert(stage.newer_black == newer_black),
            Assert(stage.newer_inside == (addr > root)),
            Assert(stage.older_inside == (addr - 1 > root)),
            Assert(stage.same_side == same_side),
            Assert(stage.apply_white == Mux(newer_black, both, 1)),
            Assert(stage.apply_black == Mux(newer_black, 1, both)),
            Assert(stage.white_move.as_value() ==
                   Mux(newer_black, older.as_value(), newer.as_value())),
            Assert(stage.black_move.as_value() ==
                   Mux(newer_black, newer.as_value(), older.as_value())),
        ]

    def _assert_stages(self, m, fetch_at, read_at, ahead_at):
        """The pipeline, from the fetch to the hand stage; its invalid stages
        (after the start or a refetch) come first."""
        pipeline, stored, words = self.pipeline, self.stored, self.words
        hand, ahead = pipeline.hand, pipeline.ahead
        read_even, read_odd = _even_odd(read_at)
        fetch_even, fetch_odd = _even_odd(fetch_at)
        m.d.comb += [
            Assert(~hand.valid | ahead.valid),
            Assert(~ahead.valid | pipeline.read_valid),
            Assert(pipeline.fetch_addr == fetch_at),
            Assert(pipeline.fetch_newer_odd == fetch_at[0]),
            Assert(pipeline.even_row == fetch_even[_ROW_BITS]),
            Assert(pipeline.odd_row == fetch_odd[_ROW_BITS]),
        ]
        with m.If(pipeline.read_valid):
            m.d.comb += [
                Assert(pipeline.read_addr == read_at),
                Assert(pipeline.read_newer_odd == read_at[0]),
                Assert(pipeline.read_present == Cat(read_at >= 0, read_at >= 1)),
                Assert(stored[0].as_value() == _word_at(words, read_even).as_value()),
                Assert(stored[1].as_value() == _word_at(words, read_odd).as_value()),
            ]
        with m.If(ahead.valid):
            m.d.comb += self._holds_pair(ahead, ahead_at)
        with m.If(hand.valid):
            m.d.comb += self._holds_pair(hand, self.address)

    def _assert_decide_stage(self, m):
        """The decide stage holds what the model noted of the judged pair."""
        pipeline, root = self.pipeline, self.answer.root
        judged_addr, judged_single, judged_words = (self.judged_addr, self.judged_single,
                                                    self.judged_words)
        (j_newer, j_older, j_newer_present, j_older_present, j_same_side,
         j_both) = self.judged
        newer_blocked = ~j_newer_present | j_newer.barrier
        m.d.comb += [
            Assert(pipeline.decide_single_step == judged_single),
            Assert(pipeline.decide_newer_present == j_newer_present),
            Assert(pipeline.decide_older_present == j_older_present),
            Assert(pipeline.decide_newer_barrier == j_newer.barrier),
            Assert(pipeline.decide_older_barrier == j_older.barrier),
            Assert(pipeline.decide_same_side == j_same_side),
            Assert(pipeline.decide_newer_black == j_newer.colour),
            Assert(pipeline.decide_newer_inside == (judged_addr > root)),
            Assert(pipeline.decide_older_inside == (judged_addr - 1 > root)),
            Assert(pipeline.decide_white_overflow == self.white_overflow),
            Assert(pipeline.decide_black_overflow == self.black_overflow),
            Assert(pipeline.decide_empty_before == self.closed_before),
            Assert(pipeline.decide_newer_blocked == newer_blocked),
            Assert(pipeline.decide_older_blocked ==
                   (~judged_single & (~j_older_present | j_older.barrier))),
            Assert(pipeline.decide_older_checked == j_both),
            Assert(judged_words == Mux(j_both, 2, 1)),
            # (The first pair judged early is still in the hand stage.)
            Assert(judged_addr == self.address + Mux(self.early, 0, judged_words)),
        ]

    def assert_chain_list_applies(self, m):
        """The chain list applies what the hand stage holds, each move in the
        pool of its kind."""
        hand = self.pipeline.hand
        for views, apply, move in zip(_pool_views(self.dut), (hand.apply_white, hand.apply_black),
                                      (hand.white_move, hand.black_move)):
            for kind, view in views:
                m.d.comb += Assert(view.apply == (apply & _SideModel.takes(kind, move)))
        m.d.comb += Assert(~hand.apply_white & ~hand.apply_black | hand.valid)
        _assert_hit_vectors_in_view(m, self.dut, self.answer.running & hand.valid)


# The bits of an address that give its bank row.
_ROW_BITS = slice(1, (END_TO_END_DEPTH - 1).bit_length())


def _even_odd(addr):
    """The addresses of a pair's words in the even and the odd bank."""
    return Mux(addr[0], addr - 1, addr), Mux(addr[0], addr, addr - 1)
