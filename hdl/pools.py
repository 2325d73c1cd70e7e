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

``pools="side"`` is the lean layout for the 1K boards: one pool a side that
keeps each chain's kind with it, as the paper's single list does.

:func:`side_pools` is the only place the split is decided; the golden model
(:mod:`axon.sim.model.golden`) and the chain list (:mod:`axon.hdl.chainlist`) both
call it, so they cannot disagree about which move overflows.
"""

import itertools


__all__ = ["POOLS", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING", "POOL_KINDS",
           "STARTING_MATERIAL", "side_pools", "check_pools"]

POOLS = ("kind", "side")

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


def check_pools(pools):
    if pools not in POOLS:
        raise ValueError(f"pool layout must be one of {', '.join(POOLS)}, not {pools!r}")
    return pools


def side_pools(chains, pools="kind"):
    """One side's pools for ``chains`` slots in all: a tuple of ``(kind, slots)``.

    ``kind`` is a Table 1 piece type, or ``None`` for a pool that takes every
    kind (``pools="side"``). Kinds without a pool are left out. With 24 chains
    a side has K1 Q2 R3 B3 N3; from 16 chains up every side's starting
    material fits.
    """
    check_pools(pools)
    per_side = chains // 2
    if pools == "side":
        return ((None, per_side),)
    order = itertools.chain(_FIRST_SLOTS, itertools.cycle(_SPARE_SLOTS))
    counts = dict.fromkeys(POOL_KINDS, 0)
    for kind in itertools.islice(order, per_side):
        counts[kind] += 1
    return tuple((kind, count) for kind, count in counts.items() if count)
