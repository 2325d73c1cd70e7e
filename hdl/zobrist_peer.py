"""A hash-key repetition detector in gateware: the benchmark's hardware peer.

This is not the product. It is what an engine's repetition test does today,
built with the same tools and asked the same queries as
:class:`~axon.hdl.AxonDetector`, so that the paper's claim ("logic in
hardware without hash memory") can be weighed against a detector that does
use hash memory. It answers the same fields (repetition, count, distance
and the root-aware draw) through the same :class:`~axon.hdl.ports.QuerySignature`.

How it works, as an engine's key stack does:

* **Incremental Zobrist keys.** A table in block RAM holds a random key per
  (piece code, square), ``zobrist_table``. Every move word written at
  address *a* stores the key of the position after it,
  ``key[a] = key[a - 1] ^ Z[piece][from] ^ Z[piece][to]``. Only a reversible
  word is chained so: a word with the barrier bit (a capture, a pawn move,
  castling, a lost castling right, a null move) starts the chain again from
  key 0, and so does the position before address 0. No position before a
  barrier is ever compared with one after it, so every key the scan compares
  is relative to the same position: the base need not be the board's key,
  and a capture's victim, which no move word names, is never needed.
* **One key per ply,** in block RAM beside the move, with how far below it
  the last barrier lies (its *span*: 0 on a barrier, one more on each word
  after it) and whether there is none (the chain starts before address 0),
  so that a query knows at once how far back it may scan.
* **The scan** compares the key at ``top`` with the keys 2, 4, 6, ... plies
  back (the same side to move), one a clock, down to the floor.

Keys are chained when a word is written, as an engine chains them when it
makes a move: a word rewritten below words already written leaves the keys
above it stale until they are written again. A search writes its line in
order, and so does every workload of the benchmark.

Answers equal the golden model's wherever no two different positions share
a key: with 64-bit keys, none was found on the benchmark's queries; narrower
keys (``key_bits``) collide, and each collision is a false repetition.
"""

from amaranth.hdl import *
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from .params import Stop, check_depth
from .ports import DepthSignature, QuerySignature
from .query import book_equal_position, finish_query, start_query
from .result import ResultLayout
from .word import MoveWord, PIECE_LETTERS


__all__ = ["ZobristPeer", "KeyedMemorySignature", "peer_entry_layout", "zobrist_table", "ZOBRIST_SEED",
           "KEY_BITS_MIN", "KEY_BITS_MAX", "ZOBRIST_WRITE_CLOCKS"]

#: The seed of the table's keys (splitmix64), so that the gateware and the
#: Python model of the peer hold the same table.
ZOBRIST_SEED = 0x41584F4E5A4F4252
KEY_BITS_MIN = 8
KEY_BITS_MAX = 64
#: Clocks a word's write takes: the previous key and the from-square's key are
#: read, then the to-square's key (the table has one read port), then stored.
ZOBRIST_WRITE_CLOCKS = 3

# A table row per (4-bit piece code, square): codes 0, 7, 8 and 15 name no
# piece and keep key 0.
_TABLE_ROWS = 16 * 64


def _check_key_bits(key_bits):
    if not isinstance(key_bits, int) or isinstance(key_bits, bool) or \
            not KEY_BITS_MIN <= key_bits <= KEY_BITS_MAX:
        raise ValueError(f"Key width must be an integer in {KEY_BITS_MIN}..{KEY_BITS_MAX}, "
                         f"not {key_bits!r}")


def zobrist_table(key_bits=64):
    """The peer's key table: ``table[piece << 6 | square]``, a random
    ``key_bits``-bit key for every piece code of :data:`~axon.hdl.word.PIECE_LETTERS`
    (0 for a code that names no piece). A narrower table is the wider one's
    low bits, so that a collision at 32 bits is one of the 64-bit keys'
    low halves."""
    _check_key_bits(key_bits)
    state, table = ZOBRIST_SEED, []
    mask64, mask = (1 << 64) - 1, (1 << key_bits) - 1
    for row in range(_TABLE_ROWS):
        # splitmix64 (Steele, Lea and Flood): one step a row, every row, so
        # that a key does not depend on which codes name pieces.
        state = (state + 0x9E3779B97F4A7C15) & mask64
        key = state
        key = ((key ^ (key >> 30)) * 0xBF58476D1CE4E5B9) & mask64
        key = ((key ^ (key >> 27)) * 0x94D049BB133111EB) & mask64
        key ^= key >> 31
        piece = row >> 6
        table.append(key & mask if piece and piece in PIECE_LETTERS else 0)
    return table


def peer_entry_layout(depth, key_bits):
    """What the peer stores a ply: the key, the span, whether the chain
    starts before address 0, and whether the span is below 2."""
    # `near`: the span is 0 or 1, no candidate to compare; stored, so that a
    # query decides it from the block RAM's output without a comparison.
    return data.StructLayout({"key": key_bits, "span": range(depth + 1), "from_start": 1,
                              "near": 1})


class KeyedMemorySignature(DepthSignature):
    """The host's writes to the peer's move list: a word is taken when
    ``write_en`` and ``write_ready`` are both high, and its key is chained
    over the next clocks.

    Members (from the host's side)
    ------------------------------
    write_addr : Signal(range(depth)), out
    write_word : MoveWord, out
    write_en : Signal(1), out
        Hold until ``write_ready``.
    write_ready : Signal(1), in
        No query runs or starts, and no earlier word's key is being chained.
    """

    @staticmethod
    def _members(depth):
        return {
            "write_addr":  Out(range(depth)),
            "write_word":  Out(MoveWord),
            "write_en":    Out(1),
            "write_ready": In(1),
        }


class _PeerWires:
    """The signals that the states of one elaborated :class:`ZobristPeer`
    share: its registers and its memories' ports."""


class ZobristPeer(wiring.Component):
    """A Zobrist-key repetition detector (see the module docstring).

    Parameters
    ----------
    depth : int
        Move-list entries, even, as the detector's.
    key_bits : int
        The width of a key, ``KEY_BITS_MIN`` to ``KEY_BITS_MAX``: 64 as
        engines use, or fewer to see collisions.

    Members
    -------
    query : In(QuerySignature(depth))
        As the detector's: ``result.overflow`` is never set, and ``stop`` is
        never ``OVERFLOW``. ``busy`` is also high while a word's key is
        being chained, and a ``start`` then is ignored.
    memory : In(KeyedMemorySignature(depth))
        The host's writes.
    """

    def __init__(self, depth=256, *, key_bits=64):
        check_depth(depth)
        _check_key_bits(key_bits)
        self._depth, self._key_bits = depth, key_bits
        super().__init__({
            "query":  In(QuerySignature(depth)),
            "memory": In(KeyedMemorySignature(depth)),
        })

    @property
    def depth(self):
        return self._depth

    @property
    def key_bits(self):
        return self._key_bits


    def elaborate(self, platform):
        m = Module()
        s = _PeerWires()
        entry_layout = peer_entry_layout(self._depth, self._key_bits)
        m.submodules.table = table = memory.Memory(
            shape=self._key_bits, depth=_TABLE_ROWS, init=zobrist_table(self._key_bits))
        m.submodules.entries = entries = memory.Memory(shape=entry_layout, depth=self._depth,
                                                       init=[])
        s.table_read = table.read_port()
        s.entry_read = entries.read_port()
        s.entry_write = entries.write_port()
        self._answer_and_clocks(m, s)
        self._registers(s)

        with m.FSM():
            with m.State("IDLE"):
                self._between_queries(m, s)
            self._write_states(m, s)
            with m.State("TOP"):
                self._top(m, s)
            with m.State("SCAN"):
                self._scan(m, s)
        return m

    def _answer_and_clocks(self, m, s):
        """The answer register and the query's clock count."""
        query = self.query
        s.result = Signal(ResultLayout(self._depth), reset_less=True, name="result")
        m.d.comb += query.result.eq(s.result)
        # The query's clocks, as the detector counts them (zero on the clock
        # that samples `start`, one more on each clock of the scan), but not
        # the clocks of a write: `cycles` keeps the last query's count.
        s.scanning = Signal(name="scanning")
        with m.If(query.start & ~query.busy):
            m.d.sync += query.cycles.eq(0)
        with m.Elif(s.scanning):
            m.d.sync += query.cycles.eq(query.cycles + 1)

    def _registers(self, s):
        """The registers of a write's chaining and of a query's scan."""
        depth, key_bits, query = self._depth, self._key_bits, self.query
        # The write's registers: the word being chained, then its key so far.
        s.word_addr = Signal(range(depth))
        s.word = Signal(MoveWord)
        s.key_so_far = Signal(key_bits)
        s.span_so_far = Signal(range(depth + 1))
        s.from_start_so_far = Signal()

        # The query's registers. The scan is a pipeline of three stages,
        # a candidate a clock: its entry is read (`fetch_addr`), its key is
        # compared with the top's (the read stage's registers describe the
        # candidate whose entry the block RAM gives on this clock), and the
        # comparison is judged (the judge stage's). The comparison has a clock
        # of its own: a 64-bit equality is three levels of logic, and the
        # count and the stop decision follow it.
        s.key_top = Signal(key_bits)
        s.span = Signal(range(depth + 1))     # the top's
        s.from_start = Signal()
        s.top = Signal(range(depth))
        s.fetch_addr = Signal(range(-4, depth))
        # `gap` is the candidate's address less the last barrier's (the
        # floor), counted down from the top's span, so that "the next
        # candidate lies below the floor" is a compare with a constant;
        # `root_gap`, its address less the root.
        s.read_plies = Signal(range(depth + 2))
        s.read_base = Signal()        # the candidate is the position before address 0
        s.read_last = Signal()        # the next candidate lies below the floor
        s.gap = Signal(range(-depth, depth + 1))
        s.root_gap = Signal(range(-depth - 1, depth + 2))
        s.judge_valid = Signal()
        s.judge_equal = Signal()
        s.judge_inside = Signal()     # the candidate lies after the root position
        s.judge_last = Signal()
        # If the judged candidate is equal, the count limit stops the scan:
        # worked out a clock ahead, so that the stop is one gate after the
        # comparison's register.
        s.judge_equal_stops = Signal()
        s.count_limit = Signal.like(query.count_limit, name="count_limit")
        s.root = Signal.like(query.root_address, name="root")
        s.count_reached = Signal()
        s.count_reached_next = Signal()

    def _finish(self, m, s, reason, plies):
        """End the query with ``reason`` after ``plies`` plies."""
        finish_query(m, s.result, reason, self.query.done)
        m.d.sync += s.result.plies_scanned.eq(plies)
        m.next = "IDLE"

    @staticmethod
    def _below_floor_reason(from_start):
        """Why a scan that runs out of candidates stops: the bottom of the
        game, or a barrier."""
        return Mux(from_start, Stop.BOTTOM, Stop.BARRIER)

    def _between_queries(self, m, s):
        """State ``IDLE``: a start reads the top's entry; a write reads the
        previous word's entry and its from-square's key."""
        query, host = self.query, self.memory
        m.d.comb += [
            host.write_ready.eq(~query.start),
            s.entry_read.addr.eq(Mux(query.start, query.top, host.write_addr - 1)),
            s.table_read.addr.eq(Cat(host.write_word.from_sq, host.write_word.piece)),
        ]
        with m.If(query.start):
            m.d.sync += [
                query.done.eq(0),
                s.top.eq(query.top),
                *start_query(query, s.result, s.count_limit, s.root, s.count_reached,
                             s.count_reached_next),
            ]
            m.next = "TOP"
        with m.Elif(host.write_en):
            m.d.sync += [s.word_addr.eq(host.write_addr), s.word.eq(host.write_word)]
            m.next = "FROM"

    def _write_states(self, m, s):
        """States ``FROM`` and ``TO``: a written word's key, chained from the
        previous word's, and its entry stored."""
        query, word = self.query, s.word
        entry_read, entry_write, table_read = s.entry_read, s.entry_write, s.table_read
        # Writes: the previous key and the from-square's key are here.
        with m.State("FROM"):
            m.d.comb += [
                query.busy.eq(1),
                table_read.addr.eq(Cat(word.to_sq, word.piece)),
            ]
            with m.If(s.word_addr == 0):
                m.d.sync += [s.key_so_far.eq(table_read.data), s.span_so_far.eq(1),
                             s.from_start_so_far.eq(1)]
            with m.Else():
                m.d.sync += [s.key_so_far.eq(entry_read.data.key ^ table_read.data),
                             s.span_so_far.eq(entry_read.data.span + 1),
                             s.from_start_so_far.eq(entry_read.data.from_start)]
            m.next = "TO"

        # ... and the to-square's: the word's entry is stored.
        with m.State("TO"):
            m.d.comb += [
                query.busy.eq(1),
                entry_write.addr.eq(s.word_addr),
                entry_write.en.eq(1),
            ]
            with m.If(word.barrier):
                m.d.comb += [entry_write.data.eq(0), entry_write.data.near.eq(1)]
            with m.Else():
                m.d.comb += [entry_write.data.key.eq(s.key_so_far ^ table_read.data),
                             entry_write.data.span.eq(s.span_so_far),
                             entry_write.data.from_start.eq(s.from_start_so_far),
                             entry_write.data.near.eq(s.span_so_far < 2)]
            m.next = "IDLE"

    def _top(self, m, s):
        """State ``TOP``: the entry at ``top`` is here, with its key and
        floor; the scan starts two plies down, unless it stops at once."""
        top, top_entry = s.top, s.entry_read.data
        m.d.comb += [self.query.busy.eq(1), s.scanning.eq(1), s.entry_read.addr.eq(top - 2)]
        m.d.sync += [
            s.key_top.eq(top_entry.key),
            s.span.eq(top_entry.span),
            s.from_start.eq(top_entry.from_start),
            s.fetch_addr.eq(top - 4),
            s.read_plies.eq(2),
            s.read_base.eq(top == 1),
            s.read_last.eq(top_entry.span < 4),
            s.gap.eq(top_entry.span - 2),
            s.root_gap.eq(top - 2 - s.root),
            s.judge_valid.eq(0),
        ]
        with m.If(s.count_reached):
            # A count limit of 0 asks for nothing.
            self._finish(m, s, Stop.LIMIT, 0)
        with m.Elif(top_entry.near):
            self._finish(m, s, self._below_floor_reason(top_entry.from_start), top_entry.span)
        with m.Else():
            m.next = "SCAN"

    def _scan(self, m, s):
        """State ``SCAN``: a candidate a clock through the read and judge
        stages; an equal one is booked, and the limit or the floor stops."""
        result, entry_read = s.result, s.entry_read
        m.d.comb += [self.query.busy.eq(1), s.scanning.eq(1),
                     entry_read.addr.eq(s.fetch_addr[:len(entry_read.addr)])]
        # Read stage to judge stage; the next candidate's read. An
        # equal position judged now counts before the next candidate's
        # stop is worked out (`book_equal_position`'s registers a clock
        # early).
        booked = s.judge_valid & s.judge_equal
        reached_next = Mux(booked, result.count + 2 >= s.count_limit, s.count_reached_next)
        m.d.sync += [
            s.judge_equal_stops.eq(reached_next &
                                   (result.repetition | booked | (s.root_gap > 0))),
            s.judge_valid.eq(1),
            s.judge_equal.eq(Mux(s.read_base, 0, entry_read.data.key) == s.key_top),
            s.judge_inside.eq(s.root_gap > 0),
            s.judge_last.eq(s.read_last),
            result.plies_scanned.eq(s.read_plies),
            s.fetch_addr.eq(s.fetch_addr - 2),
            s.read_plies.eq(s.read_plies + 2),
            s.gap.eq(s.gap - 2),
            s.read_last.eq(s.gap < 4),
            s.root_gap.eq(s.root_gap - 2),
            s.read_base.eq((s.gap == 2) & s.from_start),
        ]
        # The judge stage: `result.plies_scanned` is its candidate's plies.
        # (`count_reached` is never set here: a limit of 0 stops at the
        # top, and a booking that reaches the limit stops at once.)
        limit_reached = Signal()
        m.d.comb += limit_reached.eq(s.judge_equal & s.judge_equal_stops)
        with m.If(s.judge_valid):
            with m.If(s.judge_equal):
                book_equal_position(m, result, s.count_limit, s.count_reached,
                                    s.count_reached_next, s.judge_inside)
            with m.If(limit_reached):
                self._finish(m, s, Stop.LIMIT, result.plies_scanned)
            with m.Elif(s.judge_last):
                self._finish(m, s, self._below_floor_reason(s.from_start), s.span)
