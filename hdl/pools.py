"""The piece kinds the chain pools are made for, and their split of a side's slots.

A chain is one displaced piece and only ever changes on a move of its own
piece, so the chains of one side and one piece *kind* never meet those of
another. The shipped layout (``Pools.KIND``, :class:`axon.hdl.params.Pools`) gives every side one pool per
kind of piece that can make a reversible move: knight, bishop, rook, queen,
king. A pool then holds at most as many open chains as its side has pieces of
that kind, and a small pool is a fast one. Pawn moves and null moves are
always barriers; a word of a kind that has no pool (a pawn or null move
without the barrier bit, or the unused code 7: nonsense) meets a pool of no
slots and overflows.

Pools by kind trade capacity for speed: a side with three queens needs three
queen slots. ``Pools.SPILL`` keeps the speed and most of the capacity of
one pool a side: every kind gets a pool for its starting material (K1 Q1 R2
B2 N2 from 16 chains up), and the rest of a side's slots form one *spill*
pool that takes a chain of any kind when its kind's pool is full, and keeps
the kind with it (``exact`` rules only: the pools keep starts and ends
unpaired, and a start or an end goes to its kind's pool when that has a free
entry, to the spill pool otherwise). The spill pool is small, so it is as fast
as a pool by kind. Its guarantee (proven by the ``capacity-spill`` property,
checked by ``test_capacity_guarantee``): a side never overflows while its
pieces beyond each kind's pool, summed over the kinds, fit the spill slots;
with 24 chains, its starting material plus any four more pieces of any kinds.

``Pools.SIDE`` is the lean layout for the 1K boards: one pool a side that
keeps each chain's kind with it, as the paper's single list does.

:attr:`axon.hdl.params.DetectorConfig.side_pools` is the only place the split
is decided (with :func:`kind_slots` here); the golden model
(:mod:`axon.sim.model.golden`) and the chain list (:mod:`axon.hdl.chainlist`)
both ask it, so they cannot disagree about which move overflows.
"""

import itertools


__all__ = ["KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING", "POOL_KINDS", "STARTING_MATERIAL",
           "SPILL_KIND_SLOTS", "kind_slots"]

# Table 1 piece types (the colour bit is bit 3 of the piece code).
KNIGHT, BISHOP, ROOK, QUEEN, KING = 2, 3, 4, 5, 6
POOL_KINDS = (KING, QUEEN, ROOK, BISHOP, KNIGHT)

# A side's non-pawn pieces at the start of a game.
STARTING_MATERIAL = {KING: 1, QUEEN: 1, ROOK: 2, BISHOP: 2, KNIGHT: 2}

# The order in which a side's slots go to the kinds: first the starting
# material (one each, then the second rook, bishop and knight), so that 8
# slots a side cover it exactly; then spares for promoted pieces, queens first.
_FIRST_SLOTS = (KING, QUEEN, ROOK, BISHOP, KNIGHT, ROOK, BISHOP, KNIGHT)
_SPARE_SLOTS = (QUEEN, ROOK, BISHOP, KNIGHT)

# In the spill layout, how many of a side's slots go to its kinds' pools (in
# the order above); the rest form the spill pool.
SPILL_KIND_SLOTS = len(_FIRST_SLOTS)


def kind_slots(per_side):
    """``per_side`` slots split between the kinds, a pool each: a tuple of
    ``(kind, slots)``, kinds without a slot left out. The first 8 cover the
    starting material; the rest are spares for promoted pieces."""
    order = itertools.chain(_FIRST_SLOTS, itertools.cycle(_SPARE_SLOTS))
    counts = dict.fromkeys(POOL_KINDS, 0)
    for kind in itertools.islice(order, per_side):
        counts[kind] += 1
    return tuple((kind, count) for kind, count in counts.items() if count)
