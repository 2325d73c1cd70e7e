"""The gateware's view of an ``exact`` chain pool: starts and ends kept unpaired.

For the ``exact`` rules it does not matter which start belongs to which end:
a pool can keep the chains' START squares and END squares as two separate
multisets. With a move ``a→b`` of the pool's kind:

* a start on ``b`` and an end on ``a``: both are freed (reflection, or a
  transition followed by a link);
* a start on ``b`` only (transition): that start becomes ``a``;
* an end on ``a`` only (a link on insertion): that end becomes ``b``;
* neither (insertion): ``a`` joins the starts and ``b`` the ends, if a slot
  is free;
* ``a == b``, two starts on ``b`` or two ends on ``a``: an impossible list,
  an overflow (as in :class:`axon.sim.model.golden.GoldenChainPool`).

This is the projection of the golden model's paired chains onto (starts,
ends), and it evolves the same way: from an empty pool no square is ever both
a start and an end of one kind, so the golden model's "joined chain closes"
case never fires. ``tests/test_golden.py`` checks the two agree on random
words, nonsense included; the formal proof ``pool-rules`` checks the gateware
against this model.
"""

from collections import Counter


__all__ = ["GoldenUnpairedPool"]


class GoldenUnpairedPool:
    """Starts and ends of up to ``size`` chains; ``kinds`` tells whether the
    entries keep the piece (one pool for every kind of a side) or not (one
    pool per kind)."""

    def __init__(self, size, kinds=True):
        self.size = size
        self.kinds = kinds
        self.starts = Counter()
        self.ends = Counter()

    def _key(self, piece, square):
        return (piece, square) if self.kinds else square

    def open_chains(self):
        return sum(self.starts.values())

    def empty(self):
        return not self.starts

    def apply(self, piece, from_sq, to_sq):
        """Apply one move; return False on overflow (the pool is then meaningless)."""
        start, end = self._key(piece, to_sq), self._key(piece, from_sq)
        start_hits, end_hits = self.starts[start], self.ends[end]
        if from_sq == to_sq or start_hits > 1 or end_hits > 1:
            return False
        if start_hits and end_hits:
            self._take(self.starts, start)
            self._take(self.ends, end)
        elif start_hits:
            self._take(self.starts, start)
            self.starts[self._key(piece, from_sq)] += 1
        elif end_hits:
            self._take(self.ends, end)
            self.ends[self._key(piece, to_sq)] += 1
        elif self.open_chains() >= self.size:
            return False
        else:
            self.starts[self._key(piece, from_sq)] += 1
            self.ends[self._key(piece, to_sq)] += 1
        return True

    @staticmethod
    def _take(counter, key):
        counter[key] -= 1
        if not counter[key]:
            del counter[key]
