# amaranth: UnusedElaboratable=no
# (The block RAMs are made with the list, for the formal proofs to read; they
# are used when it is.)
"""The walked chain list: the paper's linear list of unclosed chains, in block RAM.

A side never has more chains open than it has pieces, at most 16, so a list
of 16 entries a side can never overflow on a legal game. Compared in
parallel, 32 entries cost far more logic cells than a 1K device has; kept in
block RAM and walked one entry a clock, they cost two block RAMs and a
counter. :class:`WalkedChainList` does that for the ``exact`` rules, with
the starts and ends of a side's chains kept unpaired, as
:class:`~axon.hdl.chainlist.UnpairedPool` keeps them (the rules and why they
equal the golden model's: :mod:`axon.sim.model.unpaired`), each entry with
its piece kind, so that one list serves every kind of a side.

A side's starts are one block RAM list, its ends another, both packed at
the bottom: entries ``0 .. open - 1`` are live, ``open`` is a register. The
two lists are read at one index together, so a walk takes one clock for each
open chain of the mover's side. For a move ``a→b`` of kind ``k`` the walk
counts the starts on ``(k, b)`` and the ends on ``(k, a)`` (two of either,
or ``a == b``, only come from an impossible list: an overflow, as in the
golden model), notes where they are, and keeps the last entry; the update
that follows writes at most one entry of each list:

* a start on ``b`` and an end on ``a``: both are freed, and the last entry
  of each list moves into the freed place, so that the lists stay packed;
* a start on ``b`` only: that start becomes ``(k, a)``;
* an end on ``a`` only: that end becomes ``(k, b)``;
* neither: ``(k, a)`` and ``(k, b)`` are appended, unless the side's list is
  full: an overflow.

A word takes one clock to hand over, one for each open chain of its side,
one to count the last entry's comparison (each entry read is compared on
its clock and counted on the next, so that the block RAMs feed only a
comparison and a register) and one for the update, which raises
``done``; with no chain of its side open the walk is empty and the word
takes two. ``clear`` (a new query)
empties both sides by zeroing their counts: what lies above a count is never
read.

For the upcoming repetition each side's entry 0 of both lists is also kept
in registers, written with the block RAMs' row: a side with one open chain
has it there, packed at the bottom, so ``white_lone`` and ``black_lone`` say
which chain it is with no other read port.
"""

from amaranth.hdl import *
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from .observe import MOVE_WORD_MEANINGS, Meaning, Observation, registers
from .params import DetectorConfig, Pools
from .ports import LoneChainLayout
from .word import MoveWord


__all__ = ["WalkedBusSignature", "WalkedEntry", "WalkedChainList"]


class WalkedBusSignature(wiring.Signature):
    """The scanner's hold on the walked chain list: one word at a time.

    Members (from the scanner's side)
    ---------------------------------
    clear : Signal(1), out
        Empty every chain (the first clock of a query); the list must not be
        applying a word then, or it gives up that word.
    apply : Signal(1), out
        Apply ``word`` (one clock; the list takes it then). Only while the
        list is idle: between a ``done`` and the next ``apply``.
    word : MoveWord, out
        The word to apply, with ``apply``; its barrier bit is ignored.
    done : Signal(1), in
        The list updated itself with the word, or could not (``overflow``),
        on this clock. It is idle from the next one.
    overflow : Signal(1), in
        With ``done``: the word needed a new entry in a full list, or comes
        from an impossible move list; the list is then meaningless until
        the next ``clear``.
    empty : Signal(1), in
        Every chain of both sides is closed (from the clock after ``done``).
    """

    def __init__(self):
        super().__init__({
            "clear":    Out(1),
            "apply":    Out(1),
            "word":     Out(MoveWord),
            "done":     In(1),
            "overflow": In(1),
            "empty":    In(1),
        })

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))

    def __repr__(self):
        return f"{type(self).__name__}()"


class WalkedEntry(data.Struct):
    """A start or an end of one chain: its piece kind (Table 1 type) and square."""
    kind:   3
    square: 6


class WalkedChainList(wiring.Component):
    """Both sides' chains as two packed lists each in block RAM, walked an entry a clock.

    Parameters
    ----------
    config : DetectorConfig
        A configuration with ``Pools.WALKED``: its ``chains`` (half serve
        each side).
    entries : int or None
        A side's entries, if not the configuration's half of its chains:
        the formal proofs' broken variants take one fewer.

    Members
    -------
    scan : In(WalkedBusSignature())
        The scanner's words and the list's verdicts.
    white_lone, black_lone : LoneChainLayout, out
        Whether exactly one chain of the side is open, and which, from
        registers (as :class:`~axon.hdl.chainlist.SideChains` says it of
        the pools): what the upcoming repetition asks of the list.

    Attributes
    ----------
    starts, ends : amaranth.lib.memory.Memory
        The block RAMs of the starts and the ends: row ``i`` is White's entry
        ``i``, row ``entries + i`` Black's.
    observe : Observation
        The list's registers (:mod:`axon.hdl.observe`), for the formal
        proofs and the waveforms: the ``move`` it applies (while idle, the
        word offered), ``walking`` (it compares an entry on this clock, the
        one at ``walk_index``; the walk ends at ``walk_last``) and
        ``comparing`` (it counts the comparison of the entry at
        ``match_index``, ``start_match`` and ``end_match``, on this clock),
        ``updating`` (it updates itself on this clock), ``white_open`` and
        ``black_open`` (each side's open chains: its live entries) and
        ``white_closed`` and ``black_closed`` (none is open), whether the
        move moves nothing (``still``) and its side's list is ``full``,
        whether its update overflows as far as the walk counted
        (``overflowing``), and what
        the walk found so far: ``start_hits`` and ``end_hits`` (how many
        starts lie on the move's to-square and ends on its from-square, of
        its kind, 2 for two or more), ``start_at`` and ``end_at`` (where),
        ``last_start`` and ``last_end`` (the last entry read); then
        ``white_start_0``, ``white_end_0``, ``black_start_0`` and
        ``black_end_0``, the copies of each side's entry 0.
    """

    def __init__(self, config, *, entries=None):
        DetectorConfig.checked(config)
        if not config.walked:
            raise ValueError(f"a walked chain list needs the {Pools.WALKED.value!r} pool "
                             f"layout, not {config.pools.value!r}")
        if entries is None:
            entries = config.chains // 2
        if not isinstance(entries, int) or isinstance(entries, bool) or entries < 1:
            raise TypeError(f"A side's entries must be a positive integer, not {entries!r}")
        self._config = config
        self._entries = entries
        super().__init__({"scan": In(WalkedBusSignature()), "white_lone": Out(LoneChainLayout),
                          "black_lone": Out(LoneChainLayout)})
        # The two block RAMs, White's entries in the first ``entries`` rows
        # and Black's after them; made here, so that a formal proof can read
        # every row (with read ports of its own) to state what they hold.
        self.starts = memory.Memory(shape=WalkedEntry, depth=2 * entries, init=[])
        self.ends = memory.Memory(shape=WalkedEntry, depth=2 * entries, init=[])
        self.observe = Observation({
            **registers({"move": MoveWord, "walking": 1, "updating": 1,
                         "walk_index": range(entries), "walk_last": range(entries),
                         "white_open": range(entries + 1), "black_open": range(entries + 1),
                         "white_closed": 1, "black_closed": 1, "still": 1, "full": 1,
                         "overflowing": 1,
                         "comparing": 1, "start_match": 1, "end_match": 1,
                         "match_index": range(entries),
                         "start_hits": range(3), "end_hits": range(3),
                         "start_at": range(entries), "end_at": range(entries),
                         "last_start": WalkedEntry, "last_end": WalkedEntry,
                         **{f"{side}_{end}_0": WalkedEntry for side in ("white", "black")
                            for end in ("start", "end")}},
                      init={"white_closed": 1, "black_closed": 1}),
        }, meanings={"move": MOVE_WORD_MEANINGS,
                     **{name: {"kind": Meaning.KIND, "square": Meaning.SQUARE}
                        for name in ("last_start", "last_end", "white_start_0", "white_end_0",
                                     "black_start_0", "black_end_0")}})

    @property
    def config(self):
        return self._config

    @property
    def entries(self):
        """A side's entries."""
        return self._entries

    def _address(self, black, index):
        """The block-RAM row of a side's entry: White's first, then Black's."""
        return Mux(black, self._entries, 0) + index

    def _lone_chains(self, m, writes):
        """Copy each side's entry 0 as ``writes``, ``(write port, entry)``
        of the starts and the ends, write its row, and tell each side's lone
        chain from the copies."""
        view = self.observe
        for side, row in (("white", 0), ("black", self._entries)):
            for end, (write, entry) in zip(("start", "end"), writes):
                with m.If(write.en & (write.addr == row)):
                    m.d.sync += getattr(view, f"{side}_{end}_0").eq(entry)
        for side, lone in (("white", self.white_lone), ("black", self.black_lone)):
            start_0, end_0 = getattr(view, f"{side}_start_0"), getattr(view, f"{side}_end_0")
            m.d.comb += [
                lone.empty.eq(getattr(view, f"{side}_closed")),
                lone.single.eq(getattr(view, f"{side}_open") == 1),
                # One open chain: one start and one end, of its kind.
                lone.kind.eq(end_0.kind),
                lone.start.eq(start_0.square),
                lone.end.eq(end_0.square),
            ]

    def _walk(self, m, start_read, end_read):
        """Read the mover's open entries one a clock, compare each with the
        move in hand and count the hits on the next clock."""
        n = self._entries
        scan, view = self.scan, self.observe
        move = view.move
        black, kind = move.colour, move.kind
        # Which entry the block RAMs read on this clock (its data is there on
        # the next): the mover's first when a word is handed over, else the
        # one after the entry being compared.
        read_address = Signal(range(2 * n))
        with m.If(view.walking):
            m.d.comb += read_address.eq(self._address(black, view.walk_index + 1))
        with m.Else():
            m.d.comb += read_address.eq(self._address(scan.word.colour, 0))
        m.d.comb += [start_read.addr.eq(read_address), end_read.addr.eq(read_address)]

        # Whether the update overflows, from what the walk counted so far:
        # kept in a register, as the scanner's next step waits for it.
        def overflows(start_hits, end_hits):
            return (view.still | (start_hits == 2) | (end_hits == 2) |
                    (start_hits == 0) & (end_hits == 0) & view.full)

        # The walk: compare the entry read with the move in hand, and register
        # the verdict; the next clock counts it (`comparing`), off the block
        # RAMs' paths.
        start_entry, end_entry = start_read.data, end_read.data
        with m.If(view.walking):
            m.d.sync += [
                view.last_start.eq(start_entry), view.last_end.eq(end_entry),
                view.start_match.eq((start_entry.kind == kind) &
                                    (start_entry.square == move.to_sq)),
                view.end_match.eq((end_entry.kind == kind) & (end_entry.square == move.from_sq)),
                view.match_index.eq(view.walk_index),
            ]
            with m.If(view.walk_index == view.walk_last):
                m.d.sync += view.walking.eq(0)
            with m.Else():
                m.d.sync += view.walk_index.eq(view.walk_index + 1)
        with m.If(view.comparing):
            m.d.sync += view.overflowing.eq(overflows(
                Mux(view.start_match, Mux(view.start_hits == 0, 1, 2), view.start_hits),
                Mux(view.end_match, Mux(view.end_hits == 0, 1, 2), view.end_hits)))
            with m.If(view.start_match):
                m.d.sync += [view.start_hits.eq(Mux(view.start_hits == 0, 1, 2)),
                             view.start_at.eq(view.match_index)]
            with m.If(view.end_match):
                m.d.sync += [view.end_hits.eq(Mux(view.end_hits == 0, 1, 2)),
                             view.end_at.eq(view.match_index)]

    def _write(self, m, start_write, end_write, side_open):
        """The update from what the walk found: at most one entry of each
        list written, ``(start_hit, end_hit, new_start, new_end, opened,
        updates)``."""
        n = self._entries
        scan, view = self.scan, self.observe
        move = view.move
        black, kind = move.colour, move.kind
        # The update, from what the walk found.
        start_hit = Signal()
        end_hit = Signal()
        m.d.comb += [
            start_hit.eq(view.start_hits != 0),
            end_hit.eq(view.end_hits != 0),
            scan.done.eq(view.updating),
            scan.overflow.eq(view.updating & view.overflowing),
        ]
        new_start = Signal(WalkedEntry)
        new_end = Signal(WalkedEntry)
        opened = Signal(range(n + 1))
        with m.If(start_hit & end_hit):
            # Both freed: the last entries fill their places.
            m.d.comb += [
                new_start.eq(view.last_start),
                start_write.addr.eq(self._address(black, view.start_at)),
                new_end.eq(view.last_end),
                end_write.addr.eq(self._address(black, view.end_at)),
                start_write.en.eq(1), end_write.en.eq(1),
                opened.eq(side_open - 1),
            ]
        with m.Elif(start_hit):
            # A transition: the start moves back to the move's from-square.
            m.d.comb += [
                new_start.kind.eq(kind), new_start.square.eq(move.from_sq),
                start_write.addr.eq(self._address(black, view.start_at)),
                start_write.en.eq(1),
                opened.eq(side_open),
            ]
        with m.Elif(end_hit):
            # A link on insertion: the end moves on to the move's to-square.
            m.d.comb += [
                new_end.kind.eq(kind), new_end.square.eq(move.to_sq),
                end_write.addr.eq(self._address(black, view.end_at)),
                end_write.en.eq(1),
                opened.eq(side_open),
            ]
        with m.Else():
            # An insert: a new chain after the live ones (a full list has
            # overflowed, and nothing is written).
            m.d.comb += [
                new_start.kind.eq(kind), new_start.square.eq(move.from_sq),
                new_end.kind.eq(kind), new_end.square.eq(move.to_sq),
                start_write.addr.eq(self._address(black, side_open)),
                end_write.addr.eq(self._address(black, side_open)),
                start_write.en.eq(1), end_write.en.eq(1),
                opened.eq(side_open + 1),
            ]
        m.d.comb += [start_write.data.eq(new_start), end_write.data.eq(new_end)]
        # Nothing is written but on an update that does not overflow.
        updates = Signal()
        m.d.comb += updates.eq(view.updating & ~scan.overflow)
        with m.If(~updates):
            m.d.comb += [start_write.en.eq(0), end_write.en.eq(0)]

        return start_hit, end_hit, new_start, new_end, opened, updates

    def elaborate(self, platform):
        m = Module()
        n = self._entries
        scan = self.scan
        view = self.observe
        move = view.move
        m.submodules.starts = starts = self.starts
        m.submodules.ends = ends = self.ends
        start_read, end_read = starts.read_port(), ends.read_port()
        start_write, end_write = starts.write_port(), ends.write_port()

        black = move.colour
        side_open = Signal(range(n + 1))
        m.d.comb += [
            side_open.eq(Mux(black, view.black_open, view.white_open)),
            # From registers: the scanner judges its next word from `empty`.
            scan.empty.eq(view.white_closed & view.black_closed),
        ]

        self._walk(m, start_read, end_read)
        start_hit, end_hit, new_start, new_end, opened, updates = self._write(
            m, start_write, end_write, side_open)

        self._lone_chains(m, ((start_write, new_start), (end_write, new_end)))

        # A side's chains all close only when a move frees a start and an
        # end of its one open chain.
        closes = Signal()
        m.d.comb += closes.eq(start_hit & end_hit & (side_open == 1))

        # While idle the list takes the word offered whether or not it is
        # applied, so that only `walking` and `updating` wait for the
        # scanner's verdict on it.
        idle = Signal()
        word_open = Signal(range(n + 1))
        m.d.comb += [
            idle.eq(~view.walking & ~view.comparing & ~view.updating),
            word_open.eq(Mux(scan.word.colour, view.black_open, view.white_open)),
        ]
        with m.If(idle):
            m.d.sync += [
                move.eq(scan.word),
                view.walk_index.eq(0),
                view.walk_last.eq(word_open - 1),
                view.still.eq(scan.word.from_sq == scan.word.to_sq),
                view.full.eq(word_open == n),
                view.overflowing.eq((scan.word.from_sq == scan.word.to_sq) | (word_open == n)),
                view.start_hits.eq(0), view.end_hits.eq(0),
            ]

        with m.If(scan.clear):
            # A new query: both sides empty, and any word in hand given up.
            m.d.sync += [view.white_open.eq(0), view.black_open.eq(0),
                         view.white_closed.eq(1), view.black_closed.eq(1),
                         view.walking.eq(0), view.comparing.eq(0), view.updating.eq(0)]
        with m.Elif(view.comparing & ~view.walking):
            # The walk's last entry counted: the update is next.
            m.d.sync += [view.comparing.eq(0), view.updating.eq(1)]
        with m.Elif(view.walking):
            m.d.sync += view.comparing.eq(1)
        with m.Elif(view.updating):
            m.d.sync += view.updating.eq(0)
            with m.If(updates):
                with m.If(black):
                    m.d.sync += [view.black_open.eq(opened), view.black_closed.eq(closes)]
                with m.Else():
                    m.d.sync += [view.white_open.eq(opened), view.white_closed.eq(closes)]
        with m.Elif(scan.apply & idle):
            # A word handed over: walk the mover's open chains, if any.
            m.d.sync += [
                view.walking.eq(word_open != 0),
                view.updating.eq(word_open == 0),
            ]
        return m
