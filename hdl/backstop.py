# amaranth: UnusedElaboratable=no
# (The parts are made with the backstop, for its observation view.)
"""The backstop: a walked chain list behind the pools, for the queries they overflow.

The pools by kind hold every chain of an ordinary game, but a crowded board
(promoted pieces, many pieces of a kind displaced at once) can open more
chains of a kind than its pool has slots: the pools' scan then stops with an
overflow, and the answer is not exact. A detector with a backstop
(:attr:`~axon.hdl.params.DetectorConfig.backstop`) asks such a query again of
a walked list (:mod:`axon.hdl.walkedlist`, walked by its own one-word scan,
:mod:`axon.hdl.walkedscan`), whose 16 entries a side hold every piece a side
can have, so no legal position overflows it. It reads the move list through
the host's copy, whose port the host does not use while a query runs.

The backstop sits between the host's query and the pools' scan. It starts
on the clock the pools' scan is done, which waits for it, busy, so a
backstopped query takes the pools' clocks to their overflow, that clock
(:data:`~axon.hdl.params.BACKSTOP_HANDOFF_CLOCKS`) and then the walked
list's (:func:`axon.sim.model.walked.walked_clocks`): many, on rare
queries only.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .observe import Observation, registers
from .params import COUNT_LIMIT_BITS
from .ports import AppliedWordSignature, QuerySignature, SingleReadSignature
from .walkedlist import WalkedChainList
from .walkedscan import WalkedScanner


__all__ = ["Backstop"]


class Backstop(wiring.Component):
    """Between the host's query and the pools' scan: the walked list and its
    scan, asked a query the pools overflowed.

    Parameters
    ----------
    config : DetectorConfig
        The detector's configuration; the backstop is built as its
        :attr:`~axon.hdl.params.DetectorConfig.backstop_config`.

    Members
    -------
    query : In(QuerySignature(depth, backstop=True))
        The host's query: the pools' answer, or once they handed the query
        over, the backstop's, with ``result.backstop`` set. ``busy`` and
        ``cycles`` are the pools' scan's, which waits, busy and counting,
        while the backstop answers.
    pools : Out(QuerySignature(depth))
        The pools' scan, asked as the host asks.
    finishing : Signal(1), out
        The backstop's answer is complete on this clock: the pools' scan
        stops waiting (``done`` rises on the next).
    reads : Out(SingleReadSignature(depth))
        Its reads of the move list, one word a clock.
    upcoming : Out(AppliedWordSignature(depth))
        Each word the walked list applies and its state after it, for the
        upcoming repetition (:class:`~axon.hdl.upcoming.Upcoming`), which
        the pools' scan no longer feeds once they handed the query over.

    Attributes
    ----------
    observe : Observation
        The query as the backstop keeps it and where it is (``asking_pools``,
        ``backstopped``), the ``pools`` port and the walked scan's
        (``walked``), then the walked scan's registers (``scanner``) and the
        list's (``chain_list``).
    """

    def __init__(self, config):
        walked = config.backstop_config
        depth = walked.depth
        super().__init__({
            "query":     In(QuerySignature(depth, backstop=True)),
            "pools":     Out(QuerySignature(depth)),
            "finishing": Out(1),
            "reads":     Out(SingleReadSignature(depth)),
            "upcoming":  Out(AppliedWordSignature(depth)),
        })
        self._scanner = WalkedScanner(depth)
        self._chain_list = WalkedChainList(walked)
        self.observe = Observation({
            **registers({
                # The query as the host asked it: the host may change its
                # ports once the start is taken.
                "top":          range(depth),
                "root":         range(-1, depth),
                "count_limit":  COUNT_LIMIT_BITS,
                # From the start to the pools' answer; then whether the
                # backstop took the query over (until the next start).
                "asking_pools": 1,
                "backstopped":  1,
            }),
            # What the pools' scan answers, and the walked scan.
            "pools":        self.pools,
            "walked":       self._scanner.query,
            "scanner":      self._scanner.observe,
            "chain_list":   self._chain_list.observe,
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.scanner = scanner = self._scanner
        m.submodules.chain_list = chain_list = self._chain_list
        wiring.connect(m, wiring.flipped(self.reads), scanner.reads)
        wiring.connect(m, scanner.chains, chain_list.scan)
        query, pools, walked, kept = self.query, self.pools, scanner.query, self.observe

        hand_over = Signal()
        m.d.comb += [
            pools.start.eq(query.start),
            pools.top.eq(query.top),
            pools.root_address.eq(query.root_address),
            pools.count_limit.eq(query.count_limit),
            query.busy.eq(pools.busy),
            query.cycles.eq(pools.cycles),
            hand_over.eq(kept.asking_pools & pools.done & pools.result.overflow),
            walked.start.eq(hand_over),
            walked.top.eq(kept.top),
            walked.root_address.eq(kept.root),
            walked.count_limit.eq(kept.count_limit),
            self.finishing.eq(scanner.finishing),
            self.upcoming.applied.eq(scanner.applied),
            self.upcoming.depth.eq(scanner.applied_depth),
            self.upcoming.inside.eq(scanner.applied_inside),
            self.upcoming.white_lone.eq(chain_list.white_lone),
            self.upcoming.black_lone.eq(chain_list.black_lone),
        ]
        with m.If(query.start & ~query.busy):
            m.d.sync += [kept.top.eq(query.top), kept.root.eq(query.root_address),
                         kept.count_limit.eq(query.count_limit),
                         kept.asking_pools.eq(1), kept.backstopped.eq(0)]
        with m.Elif(pools.done & kept.asking_pools):
            m.d.sync += [kept.asking_pools.eq(0), kept.backstopped.eq(pools.result.overflow)]

        # The answer: the pools', or once they handed over, the backstop's.
        with m.If(kept.backstopped):
            m.d.comb += [
                query.done.eq(walked.done),
                query.result.eq(walked.result),
                query.result.backstop.eq(1),
            ]
        with m.Else():
            m.d.comb += [
                query.done.eq(pools.done & ~hand_over),
                query.result.eq(pools.result),
            ]
        return m
