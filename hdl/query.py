"""What every scanner shares: the query's clock count, its answer, and the
order of the stop decision, and the component around them.

A scanner walks the move list back from the top of stack and hands the words
to the chain list; :class:`~axon.hdl.scanner.Scanner` takes two plies a
clock, :class:`~axon.hdl.lean.LeanScanner` one. Whatever the pace, both must
give the golden model's answer, so the bookkeeping of the answer lives here
once, and both stop for the same reasons in the same order.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .observe import MOVE_WORD_MEANINGS, Observation, registers
from .params import Stop, check_depth
from .ports import ChainBusSignature, QuerySignature


__all__ = ["QueryScanner", "count_query_clocks", "stop_reason_in_order", "book_equal_position",
           "limit_reached_by", "start_query", "start_scan", "finish_query"]


class QueryScanner(wiring.Component):
    """Query sequencing for one move list and one chain list: the members and
    attributes every scanner has. A scanner passes how it reads the move list,
    its pipeline's registers, and any members of its own.

    Parameters
    ----------
    depth : int
        Move-list entries; addresses run from 0 to ``depth - 1``.
    reads : wiring.Signature
        The scanner's side of its move list's read port.
    pipeline : dict
        Every register of its pipeline, ``{name: shape}`` in the order a
        waveform shows them.
    reset_less : set of str
        The registers that take no reset (set by every start).
    members : dict
        Further members, by name.

    Members
    -------
    query : In(QuerySignature(depth))
        The query, as the detector's (``busy``: the scanner owns the move
        list's read port).
    reads : Out(reads)
        Its reads of the move list.
    chains : Out(ChainBusSignature())
        The words it hands the :class:`~axon.hdl.chainlist.ChainList`:
        ``apply_*_next`` is said a clock early, so that the chain list's
        apply is a register.

    Attributes
    ----------
    observe : Observation
        Every register of the pipeline by its name (made here, driven by
        ``elaborate``), then ``reads``: what the formal proofs' invariants
        name (``axon.sim.verify.formal``: the end-to-end model, and the
        termination proof's ranking function) and the waveforms show (see
        :mod:`axon.hdl.observe`).
    """

    def __init__(self, depth, *, reads, pipeline, reset_less, members={}):
        check_depth(depth)
        self._depth = depth
        super().__init__({
            "query":  In(QuerySignature(depth)),
            "reads":  Out(reads),
            "chains": Out(ChainBusSignature()),
            **members,
        })
        pipeline = registers(pipeline, reset_less=reset_less)
        # Any register that holds move words shows them as moves.
        self.observe = Observation({**pipeline, "reads": self.reads}, meanings={
            name: MOVE_WORD_MEANINGS for name in (*pipeline, "reads")})

    @property
    def depth(self):
        return self._depth


def count_query_clocks(m, query):
    """Count the clocks of a query in ``query.cycles``: zero on the clock that
    samples ``start``, one more on each busy clock. Counted in gateware rather
    than in a testbench, so that a board can report it."""
    with m.If(query.start & ~query.busy):
        m.d.sync += query.cycles.eq(0)
    with m.Elif(query.busy):
        m.d.sync += query.cycles.eq(query.cycles + 1)


def stop_reason_in_order(m, stop_reason, limit_reached, words):
    """Drive ``stop_reason`` with the first reason in the decision order of
    the module docstring: the limit, then for each word, newest first, the
    bottom (absent), a barrier, an overflow.

    ``words`` holds ``(present, barrier, overflow)`` for each word the decision
    judges; the last reason is the one left when the scan stops for none of
    the others, so its condition is not tested (it may be ``None``).
    Shared by every scanner, so that they stop for the same reason.
    """
    reasons = [(limit_reached, Stop.LIMIT)]
    for present, barrier, overflow in words:
        reasons += [(~present, Stop.BOTTOM), (barrier, Stop.BARRIER),
                    (overflow, Stop.OVERFLOW)]
    with m.If(reasons[0][0]):
        m.d.comb += stop_reason.eq(reasons[0][1])
    for condition, reason in reasons[1:-1]:
        with m.Elif(condition):
            m.d.comb += stop_reason.eq(reason)
    with m.Else():
        m.d.comb += stop_reason.eq(reasons[-1][1])


def book_equal_position(m, result, count_limit, count_reached, count_reached_next, inside):
    """Count an equal position found by the decision on this clock: the first
    one gives ``repetition`` and ``distance``. ``inside`` says that it lies
    after the root; with an earlier one, or on its own then, it decides the
    draw (:func:`axon.sim.model.golden.decides_draw`).

    ``count_reached`` (the count limit stops the scan: ``count >=
    count_limit`` and the draw decided) and ``count_reached_next``
    (``count + 1 >= count_limit``) are registers, so that the limit test is
    a multiplexer (:func:`limit_reached_by`), not an adder."""
    decides = Signal()
    m.d.comb += decides.eq(result.repetition | inside)
    m.d.sync += [
        result.count.eq(result.count + 1),
        result.draw.eq(decides),
        count_reached.eq(count_reached_next & decides),
        count_reached_next.eq(result.count + 2 >= count_limit),
    ]
    with m.If(result.count == 0):
        m.d.sync += [
            result.repetition.eq(1),
            result.distance.eq(result.plies_scanned),
        ]


def limit_reached_by(result, equal_position, inside, count_reached, count_reached_next):
    """Does the count limit stop the scan on this clock? With an equal
    position booked now, when it reaches the limit and decides the draw (a
    lone occurrence at or before the root does not); else as before."""
    return Mux(equal_position, count_reached_next & (result.repetition | inside), count_reached)


def start_query(query, result, count_limit_register, root_register, count_reached,
                count_reached_next):
    """What a scanner loads on the clock that samples ``start``: an empty
    answer, the query's root, and the limit registers of
    :func:`book_equal_position` (a limit of 0 stops before any word, with
    nothing to decide)."""
    return [
        count_limit_register.eq(query.count_limit),
        root_register.eq(query.root_address),
        count_reached.eq(query.count_limit == 0),
        count_reached_next.eq(query.count_limit <= 1),
        result.eq(0),
    ]


def start_scan(m, query, chains, result, pipe, *, reads=None, loads=(), then=()):
    """The starting clock that every scanner of a move list shares: the
    first read (on ``reads``, if the scanner reads a move list while it
    starts), the chain list cleared, ``done`` lowered, the scanner's own
    ``loads``, :func:`start_query` loaded into the pipeline's registers of
    the same names (``count_limit``, ``root``, ``count_reached``,
    ``count_reached_next``), the parity of the words taken reset
    (``scanned_odd``), and ``then`` the rest of the scanner's own."""
    if reads is not None:
        m.d.comb += reads.reading.eq(1)
    m.d.comb += chains.clear.eq(1)
    m.d.sync += [
        query.done.eq(0),
        *loads,
        *start_query(query, result, pipe.count_limit, pipe.root,
                     pipe.count_reached, pipe.count_reached_next),
        pipe.scanned_odd.eq(0),
        *then,
    ]


def finish_query(m, result, stop_reason, done):
    """The decision stops the scan: the answer is complete."""
    m.d.sync += [
        result.stop.eq(stop_reason),
        result.overflow.eq(stop_reason == Stop.OVERFLOW),
        done.eq(1),
    ]
