"""The chain pools: bookkeeping, the rules, and capacity."""

from amaranth.hdl import *
from amaranth.lib import data

from ....hdl.chainlist import ChainPool, UnpairedPool
from ....hdl.params import Rules
from ....hdl.word import MoveWord
from .harness import free, Harness, popcount


class ChainEntry(data.Struct):
    """One slot of the reference pool: a chain of one piece type from
    ``from_sq`` (in the position compared) to ``to_sq`` (in the current
    position)."""
    kind:    3
    from_sq: 6
    to_sq:   6


class _MiscountingChainPool(ChainPool):
    """Broken: the open-chain counter never counts the last slot."""
    def _count_slots(self, vector):
        return sum(vector[index] for index in range(len(vector) - 1))


class _MiscountingUnpairedPool(UnpairedPool):
    """Broken: ``open_chains`` never counts the last entry."""
    def _count_slots(self, vector):
        return sum(vector[index] for index in range(len(vector) - 1))


class _HighestFreeUnpairedPool(UnpairedPool):
    """Broken: an insert takes the highest free entry instead of the lowest."""
    def _lowest_free(self, free):
        width = len(free)
        return Cat(free[i] & ~free[i + 1:].any() if i + 1 < width else free[i]
                   for i in range(width))


class _SlotZeroChainPool(ChainPool):
    """Broken: the one-hot select always reads slot 0, so a transition takes
    the chain's end from the wrong slot."""
    def _select_chain(self, onehot, values):
        return values[0]


def _free_pool(m, pool):
    """`pool` driven by free inputs, under its contract: what it applies is
    what it was shown as ``next_move`` a clock before (and, for an
    :class:`UnpairedPool`, nothing is applied on the clock after a clear).
    Returns a signal that is high on the clock after a clear."""
    m.submodules.pool = pool
    free(m, pool.clear)
    free(m, pool.apply)
    free(m, pool.next_move)
    m.d.sync += pool.move.eq(pool.next_move)
    cleared = Signal()
    m.d.sync += cleared.eq(pool.clear)
    if isinstance(pool, UnpairedPool):
        m.d.comb += Assume(~(cleared & pool.apply))
    return cleared


def assert_hit_vectors(m, pool, cleared):
    """The strengthening invariant of every pool proof, itself asserted: the
    registered hit vectors are the comparisons of the slots with the move in
    hand. (An unpaired pool does not clear its vectors with the entries; they
    are right again a clock after a clear, when nothing is applied.)"""
    move = pool.move
    kind, from_sq, to_sq = move.kind, move.from_sq, move.to_sq
    n = pool.slots
    view = pool.observe
    if isinstance(pool, UnpairedPool):
        def same(kinds, i):
            return (view[kinds][i] == kind) if pool.kinds else C(1)
        starts = Cat(pool.observe.start_valid[i] & same("start_kinds", i) &
                     (pool.observe.start_squares[i] == to_sq) for i in range(n))
        ends   = Cat(pool.observe.end_valid[i] & same("end_kinds", i) &
                     (pool.observe.end_squares[i] == from_sq) for i in range(n))
        with m.If(~cleared):
            m.d.comb += [
                Assert(pool.observe.start_hits == starts),
                Assert(pool.observe.end_hits == ends),
            ]
        m.d.comb += Assert(pool.observe.moves_nothing == (from_sq == to_sq))
    else:
        same = [pool.observe.occupied[i] & (pool.observe.chain_kinds[i] == kind) for i in range(n)]
        m.d.comb += [
            Assert(pool.observe.from_hits == Cat(same[i] & (pool.observe.chain_from[i] == to_sq)
                                         for i in range(n))),
            Assert(pool.observe.to_hits == Cat(same[i] & (pool.observe.chain_to[i] == from_sq)
                                       for i in range(n))),
        ]


def paper_bookkeeping(slots):
    def build(broken):
        def body(m):
            pool = (_MiscountingChainPool if broken else ChainPool)(slots, Rules.PAPER)
            cleared = _free_pool(m, pool)
            assert_hit_vectors(m, pool, cleared)

            occupied_before = Signal(slots)
            applied_before  = Signal()            # the last clock applied a move cleanly
            m.d.sync += [
                occupied_before.eq(pool.observe.occupied),
                applied_before.eq(pool.apply & ~pool.clear & ~pool.overflow),
            ]
            freed = occupied_before & ~pool.observe.occupied
            taken = pool.observe.occupied & ~occupied_before
            m.d.comb += [
                Assert(pool.observe.open_chains == popcount(pool.observe.occupied)),
                Assert(pool.empty == (pool.observe.occupied == 0)),
            ]
            # One move frees at most two slots (the paper's symmetry), takes
            # at most one, and never does both.
            with m.If(applied_before):
                m.d.comb += [
                    Assert(popcount(freed) <= 2),
                    Assert(popcount(taken) <= 1),
                    Assert((freed == 0) | (taken == 0)),
                ]
        return Harness(body)
    return build


def unpaired_bookkeeping(slots, kinds=False):
    def build(broken):
        def body(m):
            pool = (_MiscountingUnpairedPool if broken else UnpairedPool)(slots, kinds=kinds)
            cleared = _free_pool(m, pool)
            assert_hit_vectors(m, pool, cleared)
            # Until an overflow (after which the scan stops and the pool is
            # thrown away), as many starts as ends are valid: an insert needs
            # a free end exactly when it has a free start.
            tracking = Signal(init=1)
            with m.If(pool.clear):
                m.d.sync += tracking.eq(1)
            with m.Elif(pool.apply & pool.overflow):
                m.d.sync += tracking.eq(0)
            starts_before  = Signal(slots)
            applied_before = Signal()
            m.d.sync += [
                starts_before.eq(pool.observe.start_valid),
                applied_before.eq(pool.apply & ~pool.clear & ~pool.overflow),
            ]
            m.d.comb += [
                Assert(pool.observe.open_chains == popcount(pool.observe.start_valid)),
                Assert(pool.empty == (pool.observe.start_valid == 0)),
            ]
            with m.If(tracking):
                m.d.comb += Assert(popcount(pool.observe.start_valid) ==
                                   popcount(pool.observe.end_valid))
            # A move frees at most one start (a start and an end together) or
            # takes at most one, never both.
            freed = starts_before & ~pool.observe.start_valid
            taken = pool.observe.start_valid & ~starts_before
            with m.If(applied_before):
                m.d.comb += [
                    Assert(popcount(freed) <= 1),
                    Assert(popcount(taken) <= 1),
                    Assert((freed == 0) | (taken == 0)),
                ]
        return Harness(body)
    return build


# --- The pool follows the rules -----------------------------------------------

def _first(m, name, candidates):
    """One-hot of the lowest set bit of ``candidates``, by a plain priority chain."""
    pick = Signal(len(candidates), name=name)
    taken = C(0, 1)
    for index in range(len(candidates)):
        m.d.comb += pick[index].eq(candidates[index] & ~taken)
        taken = taken | candidates[index]
    return pick


def _or_select(onehot, values):
    """The value whose one-hot select bit is set (0 if none)."""
    result = 0
    for index, value in enumerate(values):
        result = result | Mux(onehot[index], value, 0)
    return result


class _ReferencePool(Elaboratable):
    """The rules exactly as :meth:`axon.sim.model.golden.GoldenChainPool.apply` states them,
    in plain gateware: every comparison against the move in hand, the first
    matching slot taken by priority, nothing computed ahead. Slow and
    obviously the rule; the proof is that :class:`ChainPool`, which compares
    a clock ahead and selects by hit vectors, does the same slot for slot."""

    def __init__(self, slots, rules):
        self.slots = slots
        self.rules = rules
        self.clear    = Signal()
        self.apply    = Signal()
        self.move     = Signal(MoveWord)
        self.occupied = Signal(slots)
        self.chains   = Signal(data.ArrayLayout(ChainEntry, slots))
        self.overflow = Signal()

    def elaborate(self, platform):
        m = Module()
        n = self.slots
        move, chains, occupied = self.move, self.chains, self.occupied
        kind, f, t = move.kind, move.from_sq, move.to_sq
        same = [occupied[i] & (chains[i].kind == kind) for i in range(n)]
        starts_at_t = Cat(same[i] & (chains[i].from_sq == t) for i in range(n))
        ends_at_f   = Cat(same[i] & (chains[i].to_sq == f) for i in range(n))
        # An impossible list: the move moves nothing or meets two chains.
        several = lambda bits: sum(bits[i] for i in range(n)) > 1
        impossible = (f == t) | several(starts_at_t) | several(ends_at_f)

        updated   = _first(m, "ref_updated", starts_at_t)     # transition
        free_slot = _first(m, "ref_free", ~occupied)
        old_to    = _or_select(updated, [chains[i].to_sq for i in range(n)])
        new_occupied = Signal(n)
        new_chains   = Signal.like(chains)
        insert_full  = Signal()
        m.d.comb += [new_occupied.eq(occupied), new_chains.eq(chains)]

        def free(onehot):
            # At most once on any path; a link may then close its partner.
            m.d.comb += new_occupied.eq(occupied & ~onehot)

        with m.If(updated.any()):
            # Transition: the chain t->old_to becomes f->old_to.
            with m.If(f == old_to):
                free(updated)                                   # reflection
            with m.Else():
                if self.rules.symmetry:
                    partner = _first(m, "ref_symmetric", Cat(
                        same[i] & ~updated[i] & (chains[i].from_sq == old_to) &
                        (chains[i].to_sq == f) for i in range(n)))
                    with m.If(partner.any()):
                        free(updated | partner)                 # symmetry
                    with m.Else():
                        self._set_from(m, new_chains, updated, f)
                else:
                    partner = _first(m, "ref_link", ends_at_f & ~updated)
                    with m.If(partner.any()):
                        free(updated)                           # link
                        self._link(m, chains, new_chains, new_occupied, partner, old_to)
                    with m.Else():
                        self._set_from(m, new_chains, updated, f)
        with m.Else():
            # Link (exact only): the inserted move continues a chain X->f.
            partner = _first(m, "ref_insert_link", ends_at_f)
            link = partner.any() if self.rules.unpaired else C(0, 1)
            with m.If(link):
                self._link(m, chains, new_chains, new_occupied, partner, t)
            with m.Elif(free_slot.any()):
                m.d.comb += new_occupied.eq(occupied | free_slot)   # insert
                for i in range(n):
                    with m.If(free_slot[i]):
                        m.d.comb += [
                            new_chains[i].kind.eq(kind),
                            new_chains[i].from_sq.eq(f),
                            new_chains[i].to_sq.eq(t),
                        ]
            with m.Else():
                m.d.comb += insert_full.eq(1)

        m.d.comb += self.overflow.eq(impossible | insert_full)
        with m.If(self.clear):
            m.d.sync += occupied.eq(0)
        with m.Elif(self.apply):
            m.d.sync += [occupied.eq(new_occupied), chains.eq(new_chains)]
        return m

    @staticmethod
    def _set_from(m, new_chains, onehot, square):
        for i in range(len(onehot)):
            with m.If(onehot[i]):
                m.d.comb += new_chains[i].from_sq.eq(square)

    @staticmethod
    def _link(m, chains, new_chains, new_occupied, partner, new_to):
        # The partner X->F absorbs the chain and becomes X->new_to; it closes
        # if that returns it to its start.
        for i in range(len(partner)):
            with m.If(partner[i]):
                m.d.comb += new_chains[i].to_sq.eq(new_to)
                with m.If(chains[i].from_sq == new_to):
                    m.d.comb += new_occupied[i].eq(0)


def _beside_reference(m, pool, reference):
    """Feed `reference` what `pool` is given; return a signal that is high
    while the two are to agree. After an overflow the scan stops and its
    chain list is thrown away; the comparison resumes at the next clear."""
    m.d.comb += [
        reference.clear.eq(pool.clear),
        reference.apply.eq(pool.apply),
        reference.move.eq(pool.move),
    ]
    tracking = Signal(init=1)
    with m.If(pool.clear):
        m.d.sync += tracking.eq(1)
    with m.Elif(pool.apply & reference.overflow):
        m.d.sync += tracking.eq(0)
    return tracking


class ReferenceUnpairedPool(Elaboratable):
    """:class:`axon.sim.model.unpaired.GoldenUnpairedPool` in plain gateware: every
    comparison against the move in hand, the lowest free entry taken by
    priority, nothing computed a clock ahead. The proof is that
    :class:`~axon.hdl.chainlist.UnpairedPool` keeps the same entries."""

    def __init__(self, slots, kinds):
        self.slots = slots
        self.kinds = kinds
        self.clear       = Signal()
        self.apply       = Signal()
        self.move        = Signal(MoveWord)
        self.start_valid = Signal(slots)
        self.end_valid   = Signal(slots)
        self.start_sq    = Signal(data.ArrayLayout(6, slots))
        self.end_sq      = Signal(data.ArrayLayout(6, slots))
        self.start_kind  = Signal(data.ArrayLayout(3, slots))
        self.end_kind    = Signal(data.ArrayLayout(3, slots))
        self.overflow    = Signal()
        self.empty_after = Signal()   # no start valid once ``move`` is applied

    def elaborate(self, platform):
        m = Module()
        n = self.slots
        kind, a, b = self.move.kind, self.move.from_sq, self.move.to_sq
        same_start = [(self.start_kind[i] == kind) if self.kinds else C(1) for i in range(n)]
        same_end   = [(self.end_kind[i] == kind) if self.kinds else C(1) for i in range(n)]
        starts_at_b = Cat(self.start_valid[i] & same_start[i] & (self.start_sq[i] == b)
                          for i in range(n))
        ends_at_a   = Cat(self.end_valid[i] & same_end[i] & (self.end_sq[i] == a)
                          for i in range(n))
        several = lambda bits: sum(bits[i] for i in range(n)) > 1
        free_start = _first(m, "ref_free_start", ~self.start_valid)
        free_end   = _first(m, "ref_free_end", ~self.end_valid)
        m.d.comb += self.overflow.eq((a == b) | several(starts_at_b) | several(ends_at_a) |
                                     ~starts_at_b.any() & ~ends_at_a.any() &
                                     ~free_start.any())

        def write(valid, squares, kinds, onehot, square):
            for i in range(n):
                with m.If(onehot[i]):
                    m.d.sync += [valid[i].eq(1), squares[i].eq(square)]
                    if self.kinds:
                        m.d.sync += kinds[i].eq(kind)

        with m.If(starts_at_b.any() & ends_at_a.any()):
            m.d.comb += self.empty_after.eq((self.start_valid & ~starts_at_b) == 0)
        with m.Elif(starts_at_b.any() | ends_at_a.any()):
            m.d.comb += self.empty_after.eq(self.start_valid == 0)
        with m.Else():
            m.d.comb += self.empty_after.eq(0)

        with m.If(self.clear):
            m.d.sync += [self.start_valid.eq(0), self.end_valid.eq(0)]
        with m.Elif(self.apply):
            with m.If(starts_at_b.any() & ends_at_a.any()):
                m.d.sync += [self.start_valid.eq(self.start_valid & ~starts_at_b),
                             self.end_valid.eq(self.end_valid & ~ends_at_a)]
            with m.Elif(starts_at_b.any()):
                write(self.start_valid, self.start_sq, self.start_kind, starts_at_b, a)
            with m.Elif(ends_at_a.any()):
                write(self.end_valid, self.end_sq, self.end_kind, ends_at_a, b)
            with m.Else():
                write(self.start_valid, self.start_sq, self.start_kind, free_start, a)
                write(self.end_valid, self.end_sq, self.end_kind, free_end, b)
        return m


def unpaired_follows_rules(slots, kinds=False):
    def build(broken):
        def body(m):
            pool = (_HighestFreeUnpairedPool if broken else UnpairedPool)(slots, kinds=kinds)
            cleared = _free_pool(m, pool)
            assert_hit_vectors(m, pool, cleared)
            m.submodules.reference = reference = ReferenceUnpairedPool(slots, kinds)
            tracking = _beside_reference(m, pool, reference)
            with m.If(tracking):
                m.d.comb += [
                    Assert(pool.observe.start_valid == reference.start_valid),
                    Assert(pool.observe.end_valid == reference.end_valid),
                    Assert(pool.empty == (reference.start_valid == 0)),
                ]
                for i in range(slots):
                    m.d.comb += [
                        Assert(~reference.start_valid[i] |
                               (pool.observe.start_squares[i] == reference.start_sq[i])),
                        Assert(~reference.end_valid[i] |
                               (pool.observe.end_squares[i] == reference.end_sq[i])),
                    ]
                    if kinds:
                        m.d.comb += [
                            Assert(~reference.start_valid[i] |
                                   (pool.observe.start_kinds[i] == reference.start_kind[i])),
                            Assert(~reference.end_valid[i] |
                                   (pool.observe.end_kinds[i] == reference.end_kind[i])),
                        ]
                with m.If(pool.apply & ~pool.clear):
                    m.d.comb += Assert(pool.overflow == reference.overflow)
        return Harness(body)
    return build


def paper_follows_rules(slots):
    def build(broken):
        def body(m):
            pool = (_SlotZeroChainPool if broken else ChainPool)(slots, Rules.PAPER)
            cleared = _free_pool(m, pool)
            assert_hit_vectors(m, pool, cleared)
            m.submodules.reference = reference = _ReferencePool(slots, Rules.PAPER)
            tracking = _beside_reference(m, pool, reference)
            with m.If(tracking):
                m.d.comb += [
                    Assert(pool.observe.occupied == reference.occupied),
                    Assert(pool.empty == (reference.occupied == 0)),
                ]
                for i in range(slots):
                    view, chain = pool.observe, reference.chains[i]
                    m.d.comb += Assert(~reference.occupied[i] |
                                       ((view.chain_kinds[i] == chain.kind) &
                                        (view.chain_from[i] == chain.from_sq) &
                                        (view.chain_to[i] == chain.to_sq)))
                with m.If(pool.apply & ~pool.clear):
                    m.d.comb += Assert(pool.overflow == reference.overflow)
        return Harness(body)
    return build


# --- Capacity ---------------------------------------------------------------

def distinct(squares, present):
    """The present squares are all different (the capacity proofs' pieces and entries)."""
    return Cat(~(present[j] & present[k]) | (squares[j] != squares[k])
               for j in range(len(squares)) for k in range(j + 1, len(squares))
               ).all() if len(squares) > 1 else C(1)


def member(square, of_kind, squares, kinds, present):
    """A present piece or entry of ``of_kind`` is on ``square``."""
    return Cat(present[j] & (squares[j] == square) & (kinds[j] == of_kind)
               for j in range(len(squares))).any()


# The kind the capacity proofs move in a pool by kind.
CAPACITY_KIND = 2


def capacity(slots, pieces=None, paired=False, kinds=False):
    """A pool of ``slots`` entries for one kind never overflows while the side
    has at most ``slots`` pieces of that kind (``pieces`` more: the broken
    variant, which must overflow). The unpaired pool of the ``exact`` rules,
    or with ``paired`` the paired pool of the paper's rules. With ``kinds``, the
    pool of the lean layout: one for the side, and the pieces of any kinds.

    Material over free move words is a model of the pieces: at a clear, up
    to ``pieces`` pieces stand on free distinct squares (the top of the
    scan); every applied move ``a->b`` of a kind, read backwards, takes the
    piece of that kind that stands on ``b`` back to ``a``, a square none of
    them stands on. Each argument below is about the pieces of one kind.

    The unpaired pool then holds, as sets, the squares the pieces stand on
    now but not at the top (its starts) and those they stood on at the top
    but not now (its ends): the strengthening invariant, asserted. There are
    at most as many of those as pieces, and an insert means the piece stood
    on ``b`` at the top too, so a full pool is never asked for a new entry.

    The paired pool keeps a chain for some of the pieces: its start is where
    the piece stands now, all distinct, and its end a square some piece
    stood on at the top, all distinct; the squares of the pieces without a
    chain are the top squares no chain ends on (a transition moves a start,
    an insert pairs the moving piece's square with itself, a reflection or
    the paper's symmetry frees chains whose starts are their ends as a set).
    That is the asserted invariant. So a full pool has a chain starting on
    every piece, and the move, whose ``b`` holds a piece, meets one: a
    transition, never an insert; and no two chains end on one square, which
    the pool would call impossible."""
    pieces = slots if pieces is None else pieces

    def build(broken):
        count = pieces + 1 if broken else pieces

        def body(m):
            if not paired:
                pool = UnpairedPool(slots, kinds=kinds)
            else:
                pool = ChainPool(slots, Rules.PAPER)
            cleared = _free_pool(m, pool)
            assert_hit_vectors(m, pool, cleared)
            now   = [Signal(6, name=f"piece{j}_now") for j in range(count)]
            top   = [Signal(6, name=f"piece{j}_top") for j in range(count)]
            there = [Signal(name=f"piece{j}_there") for j in range(count)]
            placed = [Signal(6, name=f"piece{j}_placed") for j in range(count)]
            placed_there = [Signal(name=f"piece{j}_placed_there") for j in range(count)]
            for j in range(count):
                free(m, placed[j])
                free(m, placed_there[j])
            # One kind for a pool by kind (any will do: it only ever sees its
            # own); any for the lean layout's.
            if kinds:
                kind = [Signal(3, name=f"piece{j}_kind") for j in range(count)]
                placed_kind = [Signal(3, name=f"piece{j}_placed_kind") for j in range(count)]
                for j in range(count):
                    free(m, placed_kind[j])
            else:
                kind = placed_kind = [C(CAPACITY_KIND, 3)] * count

            move = pool.move
            stands_on_to = Cat(there[j] & (now[j] == move.to_sq) &
                               (kind[j] == move.kind) for j in range(count))
            stands_on_from = Cat(there[j] & (now[j] == move.from_sq) for j in range(count))
            with m.If(pool.clear):
                m.d.comb += Assume(distinct(placed, placed_there))
                for j in range(count):
                    m.d.sync += [now[j].eq(placed[j]), top[j].eq(placed[j]),
                                 there[j].eq(placed_there[j])]
                    if kinds:
                        m.d.sync += kind[j].eq(placed_kind[j])
            with m.Elif(pool.apply):
                m.d.comb += Assume(stands_on_to.any() & ~stands_on_from.any())
                for j in range(count):
                    with m.If(stands_on_to[j]):
                        m.d.sync += now[j].eq(move.from_sq)

            # The guarantee.
            with m.If(pool.apply & ~pool.clear):
                m.d.comb += Assert(~pool.overflow)

            # The invariant that makes it inductive.
            m.d.comb += [
                Assert(distinct(now, there)),
                Assert(distinct(top, there)),
            ]
            model = (now, top, kind, there)
            if not paired:
                _unpaired_holds_pieces(m, pool, slots, kinds, model)
            else:
                _paired_holds_pieces(m, pool, slots, model)
        return Harness(body)
    return build


def _unpaired_holds_pieces(m, pool, slots, kinds, pieces):
    """The capacity invariant of an unpaired pool: its starts are, as a set,
    the squares the pieces (``now, top, kind, there``) stand on now but not
    at the top, and its ends those they stood on at the top but not now."""
    now, top, kind, there = pieces
    count = len(now)
    one_kind = [C(CAPACITY_KIND, 3)] * slots
    start_kinds = pool.observe.start_kinds if kinds else one_kind
    end_kinds   = pool.observe.end_kinds if kinds else one_kind
    moved = [there[j] & ~member(now[j], kind[j], top, kind, there)
             for j in range(count)]
    left  = [there[j] & ~member(top[j], kind[j], now, kind, there)
             for j in range(count)]
    m.d.comb += [
        Assert(popcount(pool.observe.start_valid) == popcount(Cat(moved))),
        Assert(popcount(pool.observe.end_valid) == popcount(Cat(left))),
        Assert(distinct(pool.observe.start_squares, pool.observe.start_valid)),
        Assert(distinct(pool.observe.end_squares, pool.observe.end_valid)),
    ]
    for i in range(slots):
        with m.If(pool.observe.start_valid[i]):
            m.d.comb += Assert(member(pool.observe.start_squares[i], start_kinds[i],
                                      now, kind, moved))
        with m.If(pool.observe.end_valid[i]):
            m.d.comb += Assert(member(pool.observe.end_squares[i], end_kinds[i],
                                      top, kind, left))


def _paired_holds_pieces(m, pool, slots, pieces):
    """The capacity invariant of a paired pool: each chain starts where a
    piece (of ``now, top, kind, there``) stands now and ends where one stood
    at the top, all distinct; the pieces without a chain are on the top
    squares no chain ends on."""
    now, top, kind, there = pieces
    count = len(now)
    occupied = pool.observe.occupied
    starts = [pool.observe.chain_from[i] for i in range(slots)]
    ends   = [pool.observe.chain_to[i] for i in range(slots)]
    chain_kinds = [pool.observe.chain_kinds[i] for i in range(slots)]
    m.d.comb += [
        Assert(distinct(starts, occupied)),
        Assert(distinct(ends, occupied)),
    ]
    for i in range(slots):
        with m.If(occupied[i]):
            m.d.comb += [
                Assert(member(starts[i], chain_kinds[i], now, kind, there)),
                Assert(member(ends[i], chain_kinds[i], top, kind, there)),
            ]
    for j in range(count):
        with m.If(there[j]):
            m.d.comb += [
                Assert(~member(now[j], kind[j], starts, chain_kinds, occupied) ==
                       (member(now[j], kind[j], top, kind, there) &
                        ~member(now[j], kind[j], ends, chain_kinds, occupied))),
                Assert(~member(top[j], kind[j], ends, chain_kinds, occupied) ==
                       (member(top[j], kind[j], now, kind, there) &
                        ~member(top[j], kind[j], starts, chain_kinds, occupied))),
            ]
