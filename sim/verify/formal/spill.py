"""The spill layout's capacity: a side's kinds' pools and its spill pool together."""

from amaranth.hdl import *

from ....hdl.chainlist import SideChains
from ....hdl.params import SHIPPED, Pools, Rules
from ....hdl.pools import BISHOP, KNIGHT
from .harness import free, Harness, popcount
from .pools import assert_hit_vectors, distinct, member


__all__ = ["capacity_spill"]

# The two kinds the proof moves, and their pools' sizes: enough for a piece
# of one kind to spill while the other kind's pool holds its own.
SPILL_PROOF_KINDS = (KNIGHT, BISHOP)
# The spill layout's rules and pools (its sizes are the proof's own).
SPILL_CONFIG = SHIPPED.replace(rules=Rules.EXACT, pools=Pools.SPILL, backstop=False)


def capacity_spill(kind_slots=(1, 1), spill=1):
    """A side of the spill layout (:class:`axon.hdl.chainlist.SideChains`,
    ``Pools.SPILL``, here with a pool of ``kind_slots`` for each of two
    kinds and ``spill`` spill entries) never overflows while its pieces
    beyond each kind's pool, summed over the kinds, are at most ``spill``
    (the broken variant allows one more, and must overflow).

    The pieces are modelled as in :func:`axon.sim.verify.formal.pools.capacity`:
    at a clear they stand on free distinct squares, and a move ``a->b`` of a
    kind takes the piece of that kind on ``b`` back to ``a``, a free square.
    The strengthening invariant, asserted: each pool's hit vectors are its
    comparisons with the move in hand; for each kind, the valid starts in its
    pool and the spill pool are, as a set of distinct squares, the squares its
    pieces stand on now but not at the top, and the ends those they stood on
    at the top but not now; and the spill pool holds starts (ends) of a kind
    only up to that kind's pieces beyond its pool. An insert then finds a free
    start and a free end: in the kind's pool, or, when that is full, in the
    spill pool, which the other kinds cannot have filled."""
    layout = tuple(zip(SPILL_PROOF_KINDS, kind_slots))
    most = sum(kind_slots) + spill + 1

    def build(broken):
        allowed = spill + 1 if broken else spill

        def body(m):
            side = SideChains(SPILL_CONFIG, layout=layout, spill=spill)
            m.submodules.side = side
            free(m, side.clear)
            free(m, side.bus.apply_next)
            free(m, side.bus.next)
            m.d.sync += side.bus.move.eq(side.bus.next)
            cleared, applied = Signal(), Signal()
            m.d.sync += [cleared.eq(side.clear), applied.eq(side.bus.apply_next)]
            # The scanner's contract: nothing applied on the clock after a
            # clear; only the proof's kinds move.
            m.d.comb += [
                Assume(~(side.clear & side.bus.apply_next)),
                Assume(Cat(side.bus.next.kind == kind
                           for kind in SPILL_PROOF_KINDS).any()),
            ]
            pools = [pool for _, pool in side.pools] + [side.spill]
            for pool in pools:
                assert_hit_vectors(m, pool, cleared)

            now   = [Signal(6, name=f"piece{j}_now") for j in range(most)]
            top   = [Signal(6, name=f"piece{j}_top") for j in range(most)]
            kind  = [Signal(3, name=f"piece{j}_kind") for j in range(most)]
            there = [Signal(name=f"piece{j}_there") for j in range(most)]
            placed       = [Signal(6, name=f"piece{j}_placed") for j in range(most)]
            placed_kind  = [Signal(3, name=f"piece{j}_placed_kind") for j in range(most)]
            placed_there = [Signal(name=f"piece{j}_placed_there") for j in range(most)]
            for j in range(most):
                free(m, placed[j])
                free(m, placed_kind[j])
                free(m, placed_there[j])

            def beyond(kinds_, present):
                """The pieces beyond each kind's pool, summed over the kinds."""
                total = 0
                for pool_kind, slots in layout:
                    count = popcount(Cat(present[j] & (kinds_[j] == pool_kind)
                                         for j in range(most)))
                    total = total + Mux(count > slots, count - slots, 0)
                return total

            move = side.bus.move
            stands_on_to = Cat(there[j] & (now[j] == move.to_sq) & (kind[j] == move.kind)
                               for j in range(most))
            stands_on_from = Cat(there[j] & (now[j] == move.from_sq) for j in range(most))
            with m.If(side.clear):
                m.d.comb += [
                    Assume(distinct(placed, placed_there)),
                    Assume(beyond(placed_kind, placed_there) <= allowed),
                ]
                for j in range(most):
                    with m.If(placed_there[j]):
                        m.d.comb += Assume(Cat(placed_kind[j] == each
                                               for each in SPILL_PROOF_KINDS).any())
                    m.d.sync += [now[j].eq(placed[j]), top[j].eq(placed[j]),
                                 kind[j].eq(placed_kind[j]), there[j].eq(placed_there[j])]
            with m.Elif(applied):
                m.d.comb += Assume(stands_on_to.any() & ~stands_on_from.any())
                for j in range(most):
                    with m.If(stands_on_to[j]):
                        m.d.sync += now[j].eq(move.from_sq)

            # The guarantee.
            with m.If(applied & ~side.clear):
                m.d.comb += Assert(~side.bus.overflow)

            # The invariant that makes it inductive.
            m.d.comb += [
                Assert(distinct(now, there)),
                Assert(distinct(top, there)),
                Assert(beyond(kind, there) <= allowed),
            ]
            for j in range(most):
                with m.If(there[j]):
                    m.d.comb += Assert(Cat(kind[j] == each for each in SPILL_PROOF_KINDS).any())
            _entries_hold_pieces(m, side, layout, spill, (now, top, kind, there))
        return Harness(body)
    return build


def _entries_hold_pieces(m, side, layout, spill, pieces):
    """For each kind, the valid starts in its pool and the spill pool are,
    as a set of distinct squares, the squares its pieces (``now, top, kind,
    there``, of the model) stand on now but not at the top, and the ends
    those they stood on at the top but not now; the spill pool holds starts
    (ends) of a kind only up to that kind's pieces beyond its pool, and of
    the proof's kinds only."""
    now, top, kind, there = pieces
    most = len(now)
    moved = [there[j] & ~member(now[j], kind[j], top, kind, there) for j in range(most)]
    left  = [there[j] & ~member(top[j], kind[j], now, kind, there) for j in range(most)]
    spill_pool = side.spill.observe
    for (pool_kind, slots), (_, pool) in zip(layout, side.pools):
        pool = pool.observe
        pieces = popcount(Cat(there[j] & (kind[j] == pool_kind) for j in range(most)))
        for entries, valid, spilled_squares, spilled_kinds, spilled_valid, chosen, \
                reference in (
                (pool.start_squares, pool.start_valid, spill_pool.start_squares,
                 spill_pool.start_kinds, spill_pool.start_valid, moved, now),
                (pool.end_squares, pool.end_valid, spill_pool.end_squares,
                 spill_pool.end_kinds, spill_pool.end_valid, left, top)):
            # This kind's entries in both pools, as one list.
            squares = [entries[i] for i in range(slots)] + \
                      [spilled_squares[i] for i in range(spill)]
            present = [valid[i] for i in range(slots)] + \
                      [spilled_valid[i] & (spilled_kinds[i] == pool_kind)
                       for i in range(spill)]
            spilled = popcount(Cat(present[slots:]))
            m.d.comb += [
                Assert(popcount(Cat(present)) ==
                       popcount(Cat(chosen[j] & (kind[j] == pool_kind)
                                    for j in range(most)))),
                Assert(distinct(squares, present)),
                Assert((spilled == 0) | (spilled + slots <= pieces)),
            ]
            for i, square in enumerate(squares):
                with m.If(present[i]):
                    m.d.comb += Assert(member(square, C(pool_kind, 3), reference,
                                              kind, chosen))
    # The spill pool holds only the proof's kinds.
    for valid, kinds_ in ((spill_pool.start_valid, spill_pool.start_kinds),
                          (spill_pool.end_valid, spill_pool.end_kinds)):
        for i in range(spill):
            with m.If(valid[i]):
                m.d.comb += Assert(Cat(kinds_[i] == each
                                       for each in SPILL_PROOF_KINDS).any())
