"""The detector's named ports, and the buses between its parts.

Each signature is written from the side that asks: the host asks the
detector a query and drives its move memory, the scanner asks the move list
for words and the chain list to apply them. The side that answers takes the
signature flipped (``In(...)``), so that inside :class:`~axon.hdl.AxonDetector`
every hookup is one :func:`amaranth.lib.wiring.connect`.

Exported as Verilog, a member is a port named by its path:
``query__start``, ``memory__write_addr``, ``upcoming__answer``.
"""

from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .params import COUNT_LIMIT_BITS, CYCLE_BITS, check_depth
from .result import ResultLayout, UpcomingLayout
from .word import MoveWord


__all__ = ["DepthSignature", "QuerySignature", "MoveMemorySignature", "UpcomingSignature", "PairReadSignature",
           "SingleReadSignature", "SideBusSignature", "ChainBusSignature", "LoneChainLayout",
           "AppliedWordSignature"]


# A side's chains as the upcoming repetition asks about them: ``empty`` (none
# open), ``single`` (exactly one), and then ``kind`` (Table 1 type), ``start``
# (its square in the earlier position) and ``end`` (its square now).
LoneChainLayout = data.StructLayout({"empty": 1, "single": 1, "kind": 3, "start": 6,
                                     "end": 6})


class DepthSignature(wiring.Signature):
    """A signature whose members (``_members(depth)``) depend on the move
    list's depth only, which is checked first: a subclass gives
    ``_members``. Two are equal when they are of one class and depth."""

    def __init__(self, depth):
        check_depth(depth)
        self._depth = depth
        super().__init__(self._members(depth))

    @property
    def depth(self):
        return self._depth

    def __eq__(self, other):
        return type(other) is type(self) and other.depth == self.depth

    def __hash__(self):
        return hash((type(self), self._depth))

    def __repr__(self):
        return f"{type(self).__name__}({self._depth})"


class QuerySignature(DepthSignature):
    """One query at a time: ask with ``start``, the answer comes with ``done``.

    Members (from the asking side)
    ------------------------------
    start : Signal(1), out
        Begin a query with ``top``, ``root_address`` and ``count_limit``;
        ignored while ``busy``.
    top : Signal(range(depth)), out
        Address of the most recent move.
    root_address : Signal(range(-1, depth), init=-1), out
        Address of the last word of the game history: a search starts from
        the position after it, and only what lies after that position is the
        search's own path (``result.draw``). -1: from the position before
        address 0.
    count_limit : Signal(COUNT_LIMIT_BITS), out
        Stop after this many equal positions (1 = stop at the first), and
        once the draw is decided: a lone occurrence at or before the root
        does not stop the scan.
    busy : Signal(1), in
    done : Signal(1), in
        ``result`` and ``cycles`` hold the last query's answer, until the
        next ``start``.
    result : ResultLayout(depth, backstop=backstop), in
    cycles : Signal(CYCLE_BITS), in
        Clocks from ``start`` to ``done`` of the last query.
    """

    def __init__(self, depth, *, backstop=False):
        self._backstop = bool(backstop)
        super().__init__(depth)

    @property
    def backstop(self):
        """The answer has the ``backstop`` bit (a detector with one)."""
        return self._backstop

    def __eq__(self, other):
        return super().__eq__(other) and other.backstop == self.backstop

    def __hash__(self):
        return hash((type(self), self.depth, self.backstop))

    def __repr__(self):
        return (f"{type(self).__name__}({self.depth}"
                f"{', backstop=True' if self.backstop else ''})")

    def _members(self, depth):
        return {
            "start":        Out(1),
            "top":          Out(range(depth)),
            "root_address": Out(range(-1, depth), init=-1),
            "count_limit":  Out(COUNT_LIMIT_BITS),
            "busy":         In(1),
            "done":         In(1),
            "result":       In(ResultLayout(depth, backstop=self._backstop)),
            "cycles":       In(CYCLE_BITS),
        }


class MoveMemorySignature(DepthSignature):
    """The host's port to the move list: one write and one read a clock.

    Members (from the host's side)
    ------------------------------
    write_addr : Signal(range(depth)), out
    write_word : MoveWord, out
    write_en : Signal(1), out
        Store ``write_word``; refused (not deferred) while a query runs and
        on the clock that starts one, so that a scan never sees a word change.
    write_refused : Signal(1), in
        ``write_en`` was refused on this clock, and nothing was written.
    read_addr : Signal(range(depth)), out
    read_word : MoveWord, in
        The word at last clock's ``read_addr`` while no query runs (the
        scanner owns the block RAM's read port during one); a word written
        on that clock is read as written.
    """

    @staticmethod
    def _members(depth):
        return {
            "write_addr":    Out(range(depth)),
            "write_word":    Out(MoveWord),
            "write_en":      Out(1),
            "write_refused": In(1),
            "read_addr":     Out(range(depth)),
            "read_word":     In(MoveWord),
        }


class UpcomingSignature(DepthSignature):
    """The upcoming repetition of a query (see :mod:`axon.hdl.upcoming`).

    Members (from the asking side)
    ------------------------------
    occupancy : Signal(64), out
        The queried position's occupied squares, bit *i* = square *i*; held
        from ``start`` until ``done`` of this port.
    answer : UpcomingLayout(depth), in
        The side to move can repeat an earlier position with one move: which
        move, and how far back.
    done : Signal(1), in
        ``answer`` holds the last query's upcoming repetition, until the next
        ``start``: ``UPCOMING_CLOCKS`` clocks after the query's ``done``.
    """

    @staticmethod
    def _members(depth):
        return {
            "occupancy": Out(64),
            "answer":    In(UpcomingLayout(depth)),
            "done":      In(1),
        }


class AppliedWordSignature(DepthSignature):
    """A chain list that applies a word at a time, as the upcoming repetition
    follows it: each word applied, and the list's state after it.

    Members (from the list's side)
    ------------------------------
    applied : Signal(1), out
        The list holds its state after a word on this clock (once a clock
        for each word it applies).
    depth : Signal(range(depth + 1)), out
        Words applied, that one included.
    inside : Signal(1), out
        The position those words leave to compare lies after the root.
    white_lone, black_lone : LoneChainLayout, out
        Each side's open chains on this clock.
    """

    @staticmethod
    def _members(depth):
        return {
            "applied":    Out(1),
            "depth":      Out(range(depth + 1)),
            "inside":     Out(1),
            "white_lone": Out(LoneChainLayout),
            "black_lone": Out(LoneChainLayout),
        }


class PairReadSignature(DepthSignature):
    """The pair scanner's reads of the two-bank move list, one row a bank a clock.

    Members (from the scanner's side)
    ---------------------------------
    active : Signal(1), out
        A query runs or starts on this clock: host writes are refused.
    reading : Signal(1), out
        The scanner drives the rows (the host's reads wait).
    even_row, odd_row : Signal(range(depth // 2)), out
        Read word ``2 * even_row`` and word ``2 * odd_row + 1``.
    even_word, odd_word : MoveWord, in
        The words at the rows of the last clock that read; between queries,
        after a write, the two words below the one below the word written.
    written : Signal(1), in
    written_addr : Signal(range(depth)), in
        The host's write is stored on this clock (only between queries),
        at this address.
    fresh : Signal(1), in
        The host has written since the last query started; the members
        below describe its last write, and ``even_word`` and ``odd_word``
        hold the pair of words two and three below it.
    newest_addr : Signal(range(depth)), in
    newest_word : MoveWord, in
        The address and word of that write.
    newest_nothing : Signal(1), in
        That word moves nothing (from == to).
    below_word : MoveWord, in
        The word just below it (at ``newest_addr - 1``).
    below_nothing : Signal(1), in
        That word moves nothing.
    """

    @staticmethod
    def _members(depth):
        return {
            "active":         Out(1),
            "reading":        Out(1),
            "even_row":       Out(range(depth // 2)),
            "odd_row":        Out(range(depth // 2)),
            "even_word":      In(MoveWord),
            "odd_word":       In(MoveWord),
            "written":        In(1),
            "written_addr":   In(range(depth)),
            "fresh":          In(1),
            "newest_addr":    In(range(depth)),
            "newest_word":    In(MoveWord),
            "newest_nothing": In(1),
            "below_word":     In(MoveWord),
            "below_nothing":  In(1),
        }


class SingleReadSignature(DepthSignature):
    """The lean scanner's reads of the one-bank move list, one word a clock.

    Members (from the scanner's side)
    ---------------------------------
    active, reading : Signal(1), out
        As for :class:`PairReadSignature`.
    addr : Signal(range(depth)), out
    word : MoveWord, in
        The word at last clock's ``addr``.
    """

    @staticmethod
    def _members(depth):
        return {
            "active":  Out(1),
            "reading": Out(1),
            "addr":    Out(range(depth)),
            "word":    In(MoveWord),
        }


class _FixedSignature(wiring.Signature):
    """A signature without parameters: any two of one class are equal."""

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))

    def __repr__(self):
        return f"{type(self).__name__}()"


class SideBusSignature(_FixedSignature):
    """The scanner's hold on one side's pools: a move a clock.

    Members (from the scanner's side)
    ---------------------------------
    move : MoveWord, out
        The move the side's pools apply on this clock, if told to.
    next : MoveWord, out
        What ``move`` will be on the next clock: the pools compare their
        slots with it a clock ahead.
    apply_next : Signal(1), out
        Apply ``next`` on the next clock: said a clock early, so that the
        pools' apply is a register.
    first, apply_first, first_nothing : out
        On the clock that starts a query from the words a host has just
        written (the chain bus's ``load_first``), the move applied on the
        next clock instead of ``next``, whether to apply it, and whether it
        moves nothing. The pools decode it for their registers as they do
        ``next``, but never compare their slots with it: the list is
        empty then.
    overflow : Signal(1), in
        The side's pool had no slot for its move; applying it changed nothing.
    """

    def __init__(self):
        super().__init__({
            "move":          Out(MoveWord),
            "next":          Out(MoveWord),
            "apply_next":    Out(1),
            "first":         Out(MoveWord),
            "apply_first":   Out(1),
            "first_nothing": Out(1),
            "overflow":      In(1),
        })


class ChainBusSignature(_FixedSignature):
    """The scanner's hold on the chain list: a move for each side a clock.

    Members (from the scanner's side)
    ---------------------------------
    clear : Signal(1), out
        Empty every chain (the first clock of a query).
    load_first : Signal(1), out
        With ``clear``: the sides' ``first`` moves are applied on the next
        clock (a query that starts from the words just written).
    white, black : SideBusSignature, out
        Each side's moves and its pools' overflow.
    empty : Signal(1), in
        Every chain is closed.
    """

    def __init__(self):
        super().__init__({
            "clear":      Out(1),
            "load_first": Out(1),
            "white": Out(SideBusSignature()),
            "black": Out(SideBusSignature()),
            "empty": In(1),
        })
