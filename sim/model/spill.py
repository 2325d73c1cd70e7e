"""Where a side's chains stand in the spill layout (:mod:`axon.hdl.pools`).

The gateware keeps an ``exact`` pool's starts and ends unpaired
(:mod:`axon.sim.model.unpaired`). In the spill layout a kind's starts and
ends lie in its own pool or in the side's spill pool, and each new start and
each new end goes to the kind's pool when it has a free entry there, to the
spill pool otherwise; a start or end that is moved stays where it is, and a
freed one frees its entry. So a start and the end it is paired with may lie in
different pools, and whether a move overflows depends on where each entry
lies, not only on how many chains are open.

:class:`SpillSide` follows exactly that for one side, a multiset of squares
per pool and end, and says which inserts find no entry. The golden model's
paired chains decide everything else (:class:`axon.sim.model.golden.GoldenChainList`);
the two agree on the starts and ends of every kind, which
``tests/test_golden.py`` checks.
"""

from collections import Counter


__all__ = ["SpillSide"]

# Where a side's entry lies: its kind's pool, or the side's spill pool.
OWN, SPILL = "own pool", "spill pool"


class SpillSide:
    """One side's starts and ends in its kinds' pools and its spill pool.

    ``layout`` is :attr:`axon.hdl.params.DetectorConfig.side_pools`'s ``(kind, slots)``
    tuple; ``spill`` the spill pool's size. A kind with neither a pool nor
    spill slots never gets here (the golden model has no pool for it).
    """

    def __init__(self, layout, spill):
        self.slots = dict(layout)
        self.spill = spill
        # Entries are (kind, square) pairs; a kind's pool holds only its own.
        self.starts = {OWN: Counter(), SPILL: Counter()}
        self.ends = {OWN: Counter(), SPILL: Counter()}

    def _used(self, entries, where, kind):
        if where == SPILL:
            return sum(entries[SPILL].values())
        return sum(count for (each, _), count in entries[OWN].items() if each == kind)

    def _room(self, entries, kind):
        """The pool a new entry of ``kind`` goes to, or ``None`` if all are full."""
        if self._used(entries, OWN, kind) < self.slots.get(kind, 0):
            return OWN
        if self._used(entries, SPILL, kind) < self.spill:
            return SPILL
        return None

    @staticmethod
    def _where(entries, key):
        return next(where for where in (OWN, SPILL) if entries[where][key])

    @staticmethod
    def _take(entries, where, key):
        entries[where][key] -= 1
        if not entries[where][key]:
            del entries[where][key]

    def fits(self, kind, from_sq, to_sq):
        """Would a move of ``kind`` find its entries (a possible move: at most
        one start on ``to_sq`` and one end on ``from_sq``)?"""
        if self.starts[OWN][(kind, to_sq)] + self.starts[SPILL][(kind, to_sq)]:
            return True
        if self.ends[OWN][(kind, from_sq)] + self.ends[SPILL][(kind, from_sq)]:
            return True
        return (self._room(self.starts, kind) is not None and
                self._room(self.ends, kind) is not None)

    def apply(self, kind, from_sq, to_sq):
        """Apply a move that :meth:`fits` (the unpaired rules)."""
        start, end = (kind, to_sq), (kind, from_sq)
        start_hit = self.starts[OWN][start] + self.starts[SPILL][start]
        end_hit = self.ends[OWN][end] + self.ends[SPILL][end]
        if start_hit:
            where = self._where(self.starts, start)
            self._take(self.starts, where, start)
            if not end_hit:
                self.starts[where][(kind, from_sq)] += 1
        if end_hit:
            where = self._where(self.ends, end)
            self._take(self.ends, where, end)
            if not start_hit:
                self.ends[where][(kind, to_sq)] += 1
        if not start_hit and not end_hit:
            self.starts[self._room(self.starts, kind)][(kind, from_sq)] += 1
            self.ends[self._room(self.ends, kind)][(kind, to_sq)] += 1

    def spilled(self):
        """How many starts lie in the spill pool."""
        return sum(self.starts[SPILL].values())
