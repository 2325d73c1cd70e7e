"""How the chain slots are split into pools: one function for gateware and golden model.

A chain is one displaced piece and only ever changes on a move of its own
piece, so the chains of one side and one piece *kind* never meet those of
another. The default layout (``pools="kind"``) gives every side one pool per
kind of piece that can make a reversible move: knight, bishop, rook, queen,
king. A pool then holds at most as many open chains as its side has pieces of
that kind, and a small pool is a fast one. Pawn moves and null moves are
always barriers; a word of a kind that has no pool (a pawn or null move
without the barrier bit, or the unused code 7: nonsense) meets a pool of no
slots and overflows.

Pools by kind trade capacity for speed: a side with three queens needs three
queen slots. ``pools="spill"`` keeps the speed and most of the capacity of
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

``pools="side"`` is the lean layout for the 1K boards: one pool a side that
keeps each chain's kind with it, as the paper's single list does.

:func:`side_pools` is the only place the split is decided; the golden model
(:mod:`axon.sim.model.golden`) and the chain list (:mod:`axon.hdl.chainlist`) both
call it, so they cannot disagree about which move overflows.
"""

import itertools


__all__ = ["POOLS", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING", "POOL_KINDS",
           "STARTING_MATERIAL", "side_pools", "spill_slots", "never_overflows", "check_pools",
           "check_pools_rules"]

POOLS = ("kind", "spill", "side")

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
_SPILL_KIND_SLOTS = len(_FIRST_SLOTS)


def check_pools(pools):
    if pools not in POOLS:
        raise ValueError(f"Pool layout must be one of {', '.join(POOLS)}, not {pools!r}")
    return pools


def check_pools_rules(pools, rules):
    """Refuse the spill layout with other than the ``exact`` rules: its pools
    share entries by keeping starts and ends unpaired, which the paper's
    symmetry rule cannot do."""
    check_pools(pools)
    if pools == "spill" and rules != "exact":
        raise ValueError(f"The spill pool layout needs the exact rules, not {rules!r}")


def spill_slots(chains, pools="kind"):
    """How many of a side's slots form its spill pool (0 but for ``"spill"``):
    what its kinds' pools for the starting material leave, and at least one."""
    check_pools(pools)
    if pools != "spill":
        return 0
    per_side = chains // 2
    return per_side - min(_SPILL_KIND_SLOTS, per_side - 1)


def side_pools(chains, pools="kind"):
    """One side's pools for ``chains`` slots in all: a tuple of ``(kind, slots)``.

    ``kind`` is a Table 1 piece type, or ``None`` for a pool that takes every
    kind (``pools="side"``). Kinds without a pool are left out. With 24 chains
    a side has K1 Q2 R3 B3 N3; from 16 chains up every side's starting
    material fits. With ``pools="spill"`` these are the kinds' pools only
    (:func:`spill_slots` gives the spill pool's size).
    """
    check_pools(pools)
    per_side = chains // 2 - spill_slots(chains, pools)
    if pools == "side":
        return ((None, per_side),)
    order = itertools.chain(_FIRST_SLOTS, itertools.cycle(_SPARE_SLOTS))
    counts = dict.fromkeys(POOL_KINDS, 0)
    for kind in itertools.islice(order, per_side):
        counts[kind] += 1
    return tuple((kind, count) for kind, count in counts.items() if count)


def never_overflows(material, chains, pools="kind"):
    """The capacity guarantee: does a side with ``material`` (``{kind:
    count}`` of its non-pawn pieces, Table 1 types) never overflow, whatever
    it plays? A chain is one displaced piece, so a side needs at most as
    many chains of a kind as it has pieces of that kind. Pools by kind hold
    them when each kind fits its pool; one pool a side when the pieces fit
    it; the spill layout when the pieces beyond each kind's pool, summed over
    the kinds, fit the spill pool (a spilled entry of a kind is only ever
    placed while that kind's pool is full, so the spill pool never holds
    more of a kind than the kind's pieces beyond its pool)."""
    layout = dict(side_pools(chains, pools))
    if pools == "side":
        return sum(material.values()) <= layout[None]
    beyond = sum(max(0, count - layout.get(kind, 0)) for kind, count in material.items())
    return beyond <= spill_slots(chains, pools)
