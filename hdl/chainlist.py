# amaranth: UnusedElaboratable=no
# (The parts made here are made with the component that owns them, for its
# observation view; they are used when it is. A component made and never
# elaborated is still reported, where it was made.)
"""The chain list: the paper's ``CHAIN_LIST``, every slot compared at once, two moves a clock.

A chain only ever changes on a move of its own piece, so chains of different
sides or piece kinds never meet. The list is split into pools by side and
kind (:mod:`axon.hdl.pools`): a side's moves go to :class:`SideChains`,
which hands each to the pool of its kind, and a White move and a Black move
update their sides in the same clock. A small pool is a fast one.

For the ``exact`` rules a pool keeps its chains' starts and ends unpaired
(:class:`UnpairedPool`): a move only ever writes its own squares into an
entry, or frees one. The ``paper`` rules need the pairing for symmetry and
keep :class:`ChainPool`, which holds ``(kind, from, to)`` slots.

What limits the clock is the loop from a pool's registers back to themselves.
To keep it short, the comparisons of every slot with a move are made a clock
*ahead*, against the move that comes next, and registered as two hit vectors:
which chains start where the move ends, and which end where it starts. The
clock that applies the move only decides from those vectors, and patches the
next move's vectors for the slots it rewrites; the wide comparisons against
the slot registers are never in the loop.

In a legal game each hit vector has at most one bit set: two chains of one
piece cannot start on one square (two pieces would stand there) nor end on one
(two pieces would have stood there at the top of the scan). The vectors
therefore select their slot directly, without a priority pick. A move that
sets two bits, or moves nothing, only comes from an impossible move list; it
is reported as an overflow and ends the scan, as the golden model defines it,
so the update loop need not handle it.
"""

from amaranth.hdl import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .observe import MOVE_WORD_MEANINGS, Meaning, Observation, registers
from .params import DetectorConfig, Rules, gateware_rules
from .pools import POOL_KINDS
from .ports import ChainBusSignature, LoneChainLayout, SideBusSignature
from .word import MoveWord


__all__ = ["ChainPool", "UnpairedPool", "ChainList", "LoneChainLayout",
           "PoolLoneLayout"]


def _pool_name(kind):
    """A side's pool of ``kind`` (``None``: any kind), as the design, its
    signals and its view name it: ``pool_2``, ``pool_any``."""
    return f"pool_{'any' if kind is None else kind}"


# What a pool tells its side about the chains it holds, for the upcoming
# repetition: it ``holds`` one or more, ``several``, and the OR of its valid
# entries' ``kind`` (0 in a pool of one kind), ``start`` and ``end`` squares
# -- the chain's own, when it holds exactly one. Made from the registers
# alone, a few LUT levels without a priority pick.
PoolLoneLayout = data.StructLayout({"holds": 1, "several": 1, "kind": 3, "start": 6, "end": 6})


# Up to this many bits, the vector helpers below are plain logic: a few LUTs
# in parallel beat a carry chain and its routing.
_SHORT_VECTOR = 4


def _lowest(vector):
    """Isolate the lowest set bit; on iCE40 a long one is one carry chain."""
    if len(vector) <= _SHORT_VECTOR:
        return Cat(vector[i] & ~vector[:i].any() if i else vector[0]
                   for i in range(len(vector)))
    return vector & (~vector + 1)[:len(vector)]


def _several(vector):
    """More than one bit set: clearing the lowest leaves something."""
    if len(vector) <= _SHORT_VECTOR:
        pairs = [vector[i] & vector[j] for i in range(len(vector))
                 for j in range(i + 1, len(vector))]
        return Cat(pairs).any() if pairs else C(0)
    return (vector & (vector - 1)[:len(vector)]).any()


def _select(onehot, values):
    """One-hot multiplexer: OR of the values whose select bit is set, as a
    balanced tree so that its depth grows with the log of the slot count."""
    terms = [Mux(onehot[index], value, 0) for index, value in enumerate(values)]
    while len(terms) > 1:
        terms = [terms[i] | terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]


def _popcount(vector):
    return sum(vector[i] for i in range(len(vector)))


def _check_slots(slots):
    if not isinstance(slots, int) or slots < 1:
        raise TypeError(f"Pool size must be a positive integer, not {slots!r}")


def _pool_ports():
    """The members every pool has (see :class:`ChainPool`)."""
    return {
        "clear":       In(1),
        # A query starts from the words just written: the move applied on
        # the next clock is the side's first, which moves nothing when
        # `first_nothing` says so (see SideBusSignature).
        "load_first":    In(1),
        "first_nothing": In(1),
        "apply":       In(1),
        "move":        In(MoveWord),
        "next_move":   In(MoveWord),
        "overflow":    Out(1),
        "empty":       Out(1),
        "lone":        Out(PoolLoneLayout),
    }


class _PoolHelpers:
    """The vector helpers both pools use, as methods: the formal proofs'
    broken variants (:mod:`axon.sim.verify.formal.pools`) are subclasses
    that override one of them."""

    def _lowest_free(self, free):
        """One-hot of the free slot an insert takes: the lowest."""
        return _lowest(free)

    def _count_slots(self, vector):
        """How many slots ``vector`` marks (the open-chain counter and its steps)."""
        return _popcount(vector)


def _pool_inputs(pool):
    """What a pool's view shows first: the move it is given, and when."""
    return {"clear": pool.clear, "apply": pool.apply, "move": pool.move}


def _lone(m, lone, valid, ends_valid, kinds, starts, ends):
    """Drive a pool's ``lone`` (:data:`PoolLoneLayout`) from its registers."""
    m.d.comb += [
        lone.holds.eq(valid.any()),
        lone.several.eq(_several(valid)),
        lone.kind.eq(_select(valid, kinds) if kinds else 0),
        lone.start.eq(_select(valid, starts)),
        lone.end.eq(_select(ends_valid, ends)),
    ]


class ChainPool(_PoolHelpers, wiring.Component):
    """A pool of paired ``(kind, from, to)`` slots, updated by one move a clock
    (the ``paper`` rules; the ``exact`` ones use :class:`UnpairedPool`).

    Parameters
    ----------
    slots : int
        Number of chains this pool holds.
    rules : Rules
        ``Rules.PAPER`` (transition, reflection, symmetry) or ``Rules.EXACT``
        (transition, reflection, link), as in :mod:`axon.sim.model.golden`.

    Members
    -------
    clear : Signal(1), in
        Empty every slot (a new query). Takes priority over ``apply``.
    apply : Signal(1), in
        Apply ``move`` on this clock.
    move : MoveWord, in
        A move of this pool's side; its colour and barrier bits are ignored.
    next_move : MoveWord, in
        What ``move`` will be on the next clock, whether or not it is applied
        then: the pool compares its slots with it a clock ahead.
    overflow : Signal(1), out
        ``move`` needs a new slot and none is free, or comes from an
        impossible move list: it moves nothing, or meets two chains of its
        piece at once. The scan stops there; what applying it did is thrown
        away.
    empty : Signal(1), out
        Every chain of this side is closed.
    lone : PoolLoneLayout, out
        What the pool holds, for the upcoming repetition
        (:data:`PoolLoneLayout`); synthesis drops it when nothing reads it.

    Attributes
    ----------
    observe : Observation
        The pool's registers (:mod:`axon.hdl.observe`), for the formal proofs
        and the waveforms, after the ``clear``, ``apply`` and ``move`` it is
        given: ``occupied`` (one bit a slot: it holds an open
        chain); ``chain_kinds``, ``chain_from`` and ``chain_to``, a tuple of
        one register a slot each (meaningful where ``occupied``); ``from_hits``
        and ``to_hits``, the registered hit vectors of ``move`` (the slots
        whose chain starts where it ends, and ends where it starts: the
        proofs' induction invariant is that they equal those comparisons);
        and ``open_chains``, the paper's ``UnClosed_chains``, kept as a
        counter, raised on an insert and lowered by every slot a rule frees.
        Nothing in the detector needs the counter (``empty`` looks at the
        slots); the proofs check that it always equals the number of
        occupied slots.
    """

    def __init__(self, slots, rules):
        _check_slots(slots)
        self._slots = slots
        self._rules = gateware_rules(rules, "Chain rules")
        super().__init__(_pool_ports())
        # A pool holds one side's pieces, so a slot keeps only the piece type.
        self.observe = Observation({
            **_pool_inputs(self),
            **registers({"occupied": slots}),
            "chain_kinds": tuple(Signal(3, name=f"chain{i}_kind") for i in range(slots)),
            "chain_from":  tuple(Signal(6, name=f"chain{i}_from") for i in range(slots)),
            "chain_to":    tuple(Signal(6, name=f"chain{i}_to") for i in range(slots)),
            **registers({"from_hits": slots, "to_hits": slots, "open_chains": range(slots + 1)}),
        }, meanings={"move": MOVE_WORD_MEANINGS, "chain_kinds": Meaning.KIND,
                     "chain_from": Meaning.SQUARE, "chain_to": Meaning.SQUARE,
                     **dict.fromkeys(("occupied", "from_hits", "to_hits"), Meaning.FLAGS)})

    @property
    def slots(self):
        return self._slots

    @property
    def rules(self):
        return self._rules

    def _select_chain(self, onehot, values):
        """The value of the slot whose one-hot bit is set."""
        return _select(onehot, values)

    def elaborate(self, platform):
        m = Module()
        n = self._slots
        view = self.observe
        chain_valid = view.occupied
        chain_kind, chain_from, chain_to = view.chain_kinds, view.chain_from, view.chain_to
        _lone(m, self.lone, chain_valid, chain_valid, chain_kind, chain_from, chain_to)

        move      = self.move
        move_kind = move.kind
        following = self.next_move

        # The hit vectors of the move in hand, made on the previous clock.
        from_hits  = view.from_hits   # chains that start where the move ends
        to_hits    = view.to_hits     # chains that end where the move starts

        # Transition: the move ends on the square where a chain begins.
        transition = Signal()
        meets_end  = Signal()
        m.d.comb += [
            transition.eq(from_hits.any()),
            meets_end.eq(to_hits.any()),
        ]
        # The updated chain runs from the move's from-square to `updated_to`:
        # the old chain's end after a transition, the move's own end otherwise.
        updated_to = Signal(6)
        m.d.comb += updated_to.eq(Mux(transition, self._select_chain(from_hits, chain_to),
                                      move.to_sq))

        # Reflection: the updated chain returns to its start and is closed.
        # (An inserted chain never does: a move from a square to itself is
        # an overflow, see `impossible` below.)
        closes = Signal()
        m.d.comb += closes.eq((from_hits & to_hits).any())

        release   = Signal(n)   # slots whose chain closes or is folded away
        take_from = Signal(n)   # slots whose chain gets the move's from-square
        take_to   = Signal(n)   # slots whose chain gets `updated_to` as its end
        insert    = Signal()
        if self._rules.symmetry:
            # Symmetry: A→B and B→A of one piece are two pieces that swapped.
            symmetry = Signal()
            m.d.comb += [
                symmetry.eq(~closes & (to_hits &
                            Cat(chain_from[i] == updated_to for i in range(n))).any()),
                release.eq(Mux(closes | symmetry, from_hits, 0) | Mux(symmetry, to_hits, 0)),
                take_from.eq(Mux(closes | symmetry, 0, from_hits)),
                insert.eq(~transition),
            ]
        else:
            # Link: a chain X→F of the same piece meets the updated chain F→T
            # (F is the move's from-square) and becomes X→T, freeing the
            # updated chain's slot; an inserted move that links needs none.
            #
            # The joined chain never closes: the link rule keeps every square
            # from being both the start of one chain and the end of another
            # of the same piece, so X ≠ T. The golden model still checks it
            # (it is the rule as written) and the tests count it never fires.
            partner = Signal()
            m.d.comb += [
                partner.eq(meets_end & ~closes),
                release.eq(Mux(meets_end, from_hits, 0)),
                take_from.eq(Mux(meets_end, 0, from_hits)),
                take_to.eq(Mux(partner, to_hits, 0)),
                insert.eq(~transition & ~meets_end),
            ]

        # A move that moves nothing or meets two chains at one end comes from
        # an impossible move list (see the module docstring). The scan stops
        # there, so the loop above need not care what it does.
        impossible = Signal()
        m.d.comb += impossible.eq((move.from_sq == move.to_sq) |
                                  _several(from_hits) | _several(to_hits))

        free_slot  = Signal(n)
        take_chain = Signal(n)   # the free slot an inserted move occupies
        m.d.comb += [
            free_slot.eq(self._lowest_free(~chain_valid)),
            take_chain.eq(Mux(insert, free_slot, 0)),
            self.overflow.eq(insert & ~free_slot.any() | impossible),
            self.empty.eq(~chain_valid.any()),
        ]

        # The next move's hit vectors: the comparisons with the slots as they
        # are, except for the slots this move rewrites, which compare the
        # values they are being given (a few comparisons of two moves).
        next_kind      = following.kind
        same_kind      = Cat(chain_kind[i] == next_kind for i in range(n))
        from_hits_kept = chain_valid & same_kind & Cat(chain_from[i] == following.to_sq
                                                       for i in range(n))
        to_hits_kept   = chain_valid & same_kind & Cat(chain_to[i] == following.from_sq
                                                       for i in range(n))
        from_hit_given = Signal()
        to_hit_given   = Signal()
        m.d.comb += [
            from_hit_given.eq((move_kind == next_kind) & (move.from_sq == following.to_sq)),
            to_hit_given.eq((move_kind == next_kind) & (updated_to == following.from_sq)),
        ]
        from_hits_applied = Cat(
            Mux(take_from[i] | take_chain[i], from_hit_given, ~release[i] & from_hits_kept[i])
            for i in range(n))
        to_hits_applied = Cat(
            Mux(take_to[i] | take_chain[i], to_hit_given, ~release[i] & to_hits_kept[i])
            for i in range(n))

        self._update(m, release=release, take_from=take_from, take_to=take_to,
                     take_chain=take_chain, updated_to=updated_to,
                     hits_applied=(from_hits_applied, to_hits_applied),
                     hits_kept=(from_hits_kept, to_hits_kept))
        return m

    def _update(self, m, *, release, take_from, take_to, take_chain, updated_to,
                hits_applied, hits_kept):
        """The slots after a clear, an applied move or neither, and the hit
        vectors for the next move (``hits_applied`` when this one is applied,
        ``hits_kept`` when it is not)."""
        n = self._slots
        view, move = self.observe, self.move
        chain_valid, open_chains = view.occupied, view.open_chains
        chain_kind, chain_from, chain_to = view.chain_kinds, view.chain_from, view.chain_to
        from_hits, to_hits = view.from_hits, view.to_hits
        from_hits_applied, to_hits_applied = hits_applied
        from_hits_kept, to_hits_kept = hits_kept
        move_kind = move.kind

        with m.If(self.clear):
            m.d.sync += [
                chain_valid.eq(0),
                open_chains.eq(0),
                from_hits.eq(0),
                to_hits.eq(0),
            ]
        with m.Elif(self.apply):
            m.d.sync += [
                chain_valid.eq(chain_valid & ~release | take_chain),
                open_chains.eq(open_chains + take_chain.any() - self._count_slots(release)),
                from_hits.eq(from_hits_applied),
                to_hits.eq(to_hits_applied),
            ]
            for i in range(n):
                with m.If(take_from[i] | take_chain[i]):
                    m.d.sync += chain_from[i].eq(move.from_sq)
                # An inserted chain ends on the move's to-square, which is
                # also `updated_to` when there is no transition.
                with m.If(take_to[i] | take_chain[i]):
                    m.d.sync += chain_to[i].eq(updated_to)
                with m.If(take_chain[i]):
                    m.d.sync += chain_kind[i].eq(move_kind)
        with m.Else():
            m.d.sync += [
                from_hits.eq(from_hits_kept),
                to_hits.eq(to_hits_kept),
            ]


class UnpairedPool(_PoolHelpers, wiring.Component):
    """An ``exact`` pool that keeps its chains' starts and ends unpaired.

    For the ``exact`` rules it does not matter which start belongs to which
    end (:mod:`axon.sim.model.unpaired` states the rules and why they equal the
    golden model's). The pool keeps two register files, the start squares and
    the end squares, each entry with a valid bit. A move ``a→b`` only ever
    writes its own squares: ``a`` into a start entry, ``b`` into an end entry.
    No value moves from one entry to another, so the update loop is the hit
    vectors deciding which entries to write, free or keep, and nothing else:

    * a start on ``b`` and an end on ``a``: both entries are freed;
    * a start on ``b`` only: that start becomes ``a``;
    * an end on ``a`` only: that end becomes ``b``;
    * neither: ``a`` and ``b`` go into the lowest free start and end entries
      (there are as many free starts as free ends); none free is an overflow.

    As in :class:`ChainPool`, the hit vectors of a move are made a clock
    ahead; an entry the move writes compares the move's own square with the
    next move (two move registers), so no slot register feeds the compare
    that is in the loop.

    Parameters
    ----------
    slots : int
        Number of chains this pool holds.
    kinds : bool
        Keep each entry's piece kind and compare it (one pool for every kind
        of a side, the lean layout, or the spill pool). Without it the pool
        serves one kind and compares squares only.
    shared : bool
        The pool shares a kind's chains with another (the spill layout,
        :mod:`axon.hdl.pools`): a start may lie in one pool and its end in
        the other, so the pool takes the other's hits into its rules and
        inserts only where it is told to. :class:`SideChains` decides its
        overflow from the members below.

    Members
    -------
    clear, apply, move, next_move, overflow, empty, lone :
        As for :class:`ChainPool`, except that ``apply`` must be low on the
        clock after ``clear`` (the scanner's pipeline never applies then).
    peer_start_hit, peer_end_hit : Signal(1), in
        Only with ``shared``: the other pool holds a start on ``move``'s
        to-square, an end on its from-square.
    insert_start, insert_end : Signal(1), in
        Only with ``shared``: a new start, a new end goes into this pool.
    start_hit, end_hit, free_start, free_end, inserts, impossible : Signal(1), out
        Only with ``shared``: this pool holds a start, an end that ``move``
        meets; it has a free start, end entry; ``move`` meets no start or
        end in either pool; ``move`` comes from an impossible list as far as
        this pool can tell.

    Attributes
    ----------
    observe : Observation
        The pool's registers (:mod:`axon.hdl.observe`), for the formal proofs
        and the waveforms, after the ``clear``, ``apply`` and ``move`` it is
        given: the register files ``start_valid`` and
        ``end_valid`` (a bit an entry), ``start_squares`` and
        ``end_squares``, and with ``kinds`` ``start_kinds`` and
        ``end_kinds`` (a signal an entry); the registered comparisons of
        ``move``, ``start_hits`` and ``end_hits`` (the entries holding a
        start on its to-square and an end on its from-square) and
        ``moves_nothing`` (its two squares are equal), which the proofs'
        induction invariant equates with those comparisons; and
        ``open_chains``, the valid starts counted.
    """

    def __init__(self, slots=3, kinds=False, shared=False):
        _check_slots(slots)
        self._slots = slots
        self._kinds = bool(kinds)
        self._shared = bool(shared)
        sharing = {
            "peer_start_hit": In(1), "peer_end_hit": In(1),
            "insert_start": In(1), "insert_end": In(1),
            "start_hit": Out(1), "end_hit": Out(1), "free_start": Out(1), "free_end": Out(1),
            "inserts": Out(1), "impossible": Out(1),
        } if shared else {}
        super().__init__({**sharing, **_pool_ports()})
        files = {
            "start_squares": tuple(Signal(6, name=f"start{i}_sq") for i in range(slots)),
            "end_squares":   tuple(Signal(6, name=f"end{i}_sq") for i in range(slots)),
        }
        if self._kinds:
            files["start_kinds"] = tuple(Signal(3, name=f"start{i}_kind") for i in range(slots))
            files["end_kinds"]   = tuple(Signal(3, name=f"end{i}_kind") for i in range(slots))
        self.observe = Observation({
            **_pool_inputs(self),
            **registers({"start_valid": slots, "end_valid": slots}),
            **files,
            **registers({"start_hits": slots, "end_hits": slots, "moves_nothing": 1,
                         "open_chains": range(slots + 1)}, init={"moves_nothing": 1}),
        }, meanings={"move": MOVE_WORD_MEANINGS,
                     **{name: Meaning.KIND if name.endswith("kinds") else Meaning.SQUARE
                        for name in files},
                     **dict.fromkeys(("start_valid", "end_valid", "start_hits", "end_hits"),
                                     Meaning.FLAGS)})

    @property
    def slots(self):
        return self._slots

    @property
    def kinds(self):
        return self._kinds

    @property
    def shared(self):
        return self._shared

    rules = Rules.EXACT

    def elaborate(self, platform):
        m = Module()
        n = self._slots
        move, following = self.move, self.next_move
        view = self.observe
        start_valid, end_valid = view.start_valid, view.end_valid
        start_sq, end_sq = view.start_squares, view.end_squares
        start_kind = view.start_kinds if self._kinds else None
        end_kind   = view.end_kinds if self._kinds else None

        m.d.comb += [
            view.open_chains.eq(self._count_slots(start_valid)),
            self.empty.eq(~start_valid.any()),
        ]
        # Until an overflow (which ends the scan) a pool has as many valid
        # ends as starts, so one start means one chain.
        _lone(m, self.lone, start_valid, end_valid, start_kind, start_sq, end_sq)

        # The hit vectors of the move in hand, made on the previous clock.
        start_hits = view.start_hits   # starts on the move's to-square
        end_hits   = view.end_hits     # ends on the move's from-square
        start_hit  = Signal()   # a start on the move's to-square, here or in the peer
        end_hit    = Signal()
        insert     = Signal()
        m.d.comb += [
            start_hit.eq(start_hits.any() | (self.peer_start_hit if self._shared else 0)),
            end_hit.eq(end_hits.any() | (self.peer_end_hit if self._shared else 0)),
            insert.eq(~start_hit & ~end_hit),
        ]
        insert_start = self.insert_start if self._shared else C(1)
        insert_end = self.insert_end if self._shared else C(1)

        free_start = Signal(n)
        free_end   = Signal(n)
        m.d.comb += [
            free_start.eq(self._lowest_free(~start_valid)),
            free_end.eq(self._lowest_free(~end_valid)),
        ]
        # The entries the move writes with its own squares, and those it
        # frees, on a clock that applies it: "not the other end hit, and (hit
        # here, or no hit at this end and the lowest free)".
        write_start = Signal(n)
        write_end   = Signal(n)
        freed_start = Signal(n)
        freed_end   = Signal(n)
        m.d.comb += [
            write_start.eq(Mux(self.apply & ~end_hit,
                               start_hits | Mux(start_hit | ~insert_start, 0, free_start), 0)),
            write_end.eq(Mux(self.apply & ~start_hit,
                             end_hits | Mux(end_hit | ~insert_end, 0, free_end), 0)),
            freed_start.eq(Mux(self.apply & end_hit, start_hits, 0)),
            freed_end.eq(Mux(self.apply & start_hit, end_hits, 0)),
        ]

        # A move that moves nothing or meets two entries at one end comes
        # from an impossible move list; the scan stops there. The first test
        # is made on the next move a clock ahead, like the hit vectors.
        # (Its reset value is that of the all-zero move word in hand after reset.)
        moves_nothing = view.moves_nothing
        m.d.sync += moves_nothing.eq(Mux(self.load_first, self.first_nothing,
                                         following.from_sq == following.to_sq))
        impossible = Signal()
        m.d.comb += [
            impossible.eq(moves_nothing | _several(start_hits) | _several(end_hits)),
            self.overflow.eq(insert & ~free_start.any() | impossible),
        ]
        if self._shared:
            m.d.comb += [
                self.start_hit.eq(start_hits.any()),
                self.end_hit.eq(end_hits.any()),
                self.free_start.eq(free_start.any()),
                self.free_end.eq(free_end.any()),
                self.inserts.eq(insert),
                self.impossible.eq(impossible),
            ]

        # The next move's hit vectors. A written entry holds the move's own
        # square: compare two moves. A kept one compares its register.
        def same_kind(kind):
            return (kind == following.kind) if self._kinds else C(1)
        move_kind = move.kind
        start_given = same_kind(move_kind) & (move.from_sq == following.to_sq)
        end_given   = same_kind(move_kind) & (move.to_sq == following.from_sq)
        start_kept  = Cat(start_valid[i] & (start_sq[i] == following.to_sq) &
                          same_kind(start_kind[i] if self._kinds else None)
                          for i in range(n))
        end_kept    = Cat(end_valid[i] & (end_sq[i] == following.from_sq) &
                          same_kind(end_kind[i] if self._kinds else None)
                          for i in range(n))

        self._update(m, write=(write_start, write_end), freed=(freed_start, freed_end),
                     given=(start_given, end_given), kept=(start_kept, end_kept))
        return m

    def _update(self, m, *, write, freed, given, kept):
        """The entries after a clear or a clock, and the hit vectors for the
        next move: ``given`` where an entry is written with the move's own
        square, ``kept`` where it keeps its register."""
        n = self._slots
        view, move = self.observe, self.move
        start_valid, end_valid = view.start_valid, view.end_valid
        start_sq, end_sq = view.start_squares, view.end_squares
        start_kind = view.start_kinds if self._kinds else None
        end_kind   = view.end_kinds if self._kinds else None
        start_hits, end_hits = view.start_hits, view.end_hits
        write_start, write_end = write
        freed_start, freed_end = freed
        start_given, end_given = given
        start_kept, end_kept = kept
        move_kind = move.kind

        # A clear empties the hit vectors with the entries (a synchronous
        # reset of their registers, no logic on the compare path), so that
        # the clock after it may apply a move: the first of a query that
        # starts from the words just written.
        with m.If(self.clear):
            m.d.sync += [
                start_hits.eq(0),
                end_hits.eq(0),
            ]
        with m.Else():
            m.d.sync += [
                start_hits.eq(Cat(Mux(write_start[i], start_given, ~freed_start[i] & start_kept[i])
                                  for i in range(n))),
                end_hits.eq(Cat(Mux(write_end[i], end_given, ~freed_end[i] & end_kept[i])
                                for i in range(n))),
            ]
        with m.If(self.clear):
            m.d.sync += [
                start_valid.eq(0),
                end_valid.eq(0),
            ]
        with m.Else():
            m.d.sync += [
                start_valid.eq(start_valid & ~freed_start | write_start),
                end_valid.eq(end_valid & ~freed_end | write_end),
            ]
        # The squares are written whether or not `clear` empties the pool
        # on this clock: an invalid entry's square is never looked at, and the
        # write enable stays short.
        for i in range(n):
            with m.If(write_start[i]):
                m.d.sync += start_sq[i].eq(move.from_sq)
                if self._kinds:
                    m.d.sync += start_kind[i].eq(move_kind)
            with m.If(write_end[i]):
                m.d.sync += end_sq[i].eq(move.to_sq)
                if self._kinds:
                    m.d.sync += end_kind[i].eq(move_kind)


class SideChains(wiring.Component):
    """One side's pools (:func:`axon.hdl.pools.side_pools`), one move a clock.

    A move goes to the pool of its piece kind; a kind without a pool (a pawn
    or null move without its barrier bit: nonsense) is an overflow, as in the
    golden model. In the spill layout a move also meets the side's spill
    pool, which holds starts and ends of any kind (see :meth:`_spill`). ``exact`` pools keep starts and ends unpaired
    (:class:`UnpairedPool`); the ``paper`` rules need the pairing for
    symmetry and use :class:`ChainPool`.

    Members
    -------
    clear, empty :
        As for :class:`ChainPool`.
    bus : In(SideBusSignature())
        The side's ``move``, its ``next`` a clock ahead, ``apply_next`` (apply
        ``next`` on the next clock: the pools' apply is a register, decoded
        with the kind a clock early) and the ``overflow`` the pools answer.
    lone : LoneChainLayout, out
        Whether exactly one chain of this side is open, and which: what the
        upcoming repetition asks of the pools. Made from the registers alone,
        so a reader that registers it adds nothing to the update loop; nothing
        reads it when the detector is built without ``upcoming``, and
        synthesis drops it.

    Attributes
    ----------
    pools : tuple of (kind, pool)
        The side's pools, made with it, ``kind`` as in
        :func:`axon.hdl.pools.side_pools`.
    spill : UnpairedPool or None
        The spill pool (the spill layout only).
    observe : Observation
        Each pool's view, by the pool's name in the design: ``pool_2`` (the
        knights' pool), ``pool_any`` (one pool for every kind), then
        ``pool_spill``.
    """

    def __init__(self, config, *, layout=None, spill=None):
        # ``layout`` and ``spill`` replace the configuration's sizes: the
        # formal proofs' small sides.
        config.check()
        self._layout = config.side_pools if layout is None else tuple(layout)
        rules = self._rules = config.rules
        spill = config.spill_slots if spill is None else spill
        slots = sum(count for _, count in self._layout) + spill
        # A pool's members, but the move, its apply (said a clock early) and
        # the overflow come and go over the scanner's side bus.
        ports = _pool_ports()
        for name in ("apply", "move", "next_move", "first_nothing", "overflow", "lone"):
            del ports[name]
        super().__init__({**ports, "bus": In(SideBusSignature()),
                          "lone": Out(LoneChainLayout)})
        # Made here rather than in `elaborate`, so that the side's view shows
        # its pools' registers.
        shared = bool(spill)
        self.pools = tuple(
            (kind, UnpairedPool(slots, kinds=kind is None, shared=shared) if rules.unpaired
             else ChainPool(slots, rules))
            for kind, slots in self._layout)
        self.spill = UnpairedPool(spill, kinds=True, shared=True) if spill else None
        self.observe = Observation({
            **{_pool_name(kind): pool.observe for kind, pool in self.pools},
            **({"pool_spill": self.spill.observe} if spill else {}),
        })

    def _ahead(self, decode):
        """``decode(move, apply)`` of the move applied on the next clock:
        the side's ``first`` on a start from the words just written, else
        its ``next``. Registered, it describes the move in hand."""
        return Mux(self.load_first, decode(self.bus.first, self.bus.apply_first),
                   decode(self.bus.next, self.bus.apply_next))

    def elaborate(self, platform):
        m = Module()
        matches, overflows, empties, lones = [], [], [], []
        for kind, pool in self.pools:
            m.submodules[_pool_name(kind)] = pool
            # Decoded a clock ahead, from the next move: the pool's move then
            # is always last clock's next move.
            match = Signal(name=f"{_pool_name(kind)}_move", init=int(kind is None))
            apply = Signal(name=f"{_pool_name(kind)}_apply")
            if kind is not None:
                m.d.sync += match.eq(self._ahead(lambda move, _, kind=kind: move.kind == kind))
            m.d.sync += apply.eq(self._ahead(
                lambda move, applied, kind=kind:
                    applied & (1 if kind is None else move.kind == kind)))
            m.d.comb += [
                pool.clear.eq(self.clear),
                pool.load_first.eq(self.load_first),
                pool.first_nothing.eq(self.bus.first_nothing),
                pool.apply.eq(apply),
                pool.move.eq(self.bus.move),
                pool.next_move.eq(self.bus.next),
            ]
            matches.append(match)
            overflows.append(match & pool.overflow)
            empties.append(pool.empty)
            lones.append(self._pool_lone(m, pool, kind))
        kinds = [kind for kind, _ in self._layout]
        if self.spill is not None:
            kinds = list(POOL_KINDS)
            overflows = self._spill(m, matches)
            empties.append(self.spill.empty)
            lones.append(self._pool_lone(m, self.spill, None))
        # A kind without a pool (nonsense), also a clock ahead; after reset
        # the move in hand is the all-zero word, a null move.
        no_pool = Signal(init=int(None not in kinds))
        if None not in kinds:
            m.d.sync += no_pool.eq(self._ahead(
                lambda move, _: ~Cat(move.kind == kind for kind in kinds).any()))
        m.d.comb += [
            self.bus.overflow.eq(no_pool | Cat(overflows).any()),
            self.empty.eq(Cat(empties).all()),
        ]

        # One chain in the side: one pool holds exactly one and the others
        # none. Only then is the summary meaningful, so the squares are a
        # plain OR of every valid entry of the side (a few LUT levels, no
        # priority), and the kind an OR over the pools that hold a chain.
        holds   = Cat(any_valid for any_valid, _, _, _, _ in lones)
        several = Cat(more for _, more, _, _, _ in lones)
        one_pool = Signal()
        m.d.comb += one_pool.eq(holds.any() & ~_several(holds))
        m.d.comb += [
            self.lone.empty.eq(self.empty),
            self.lone.single.eq(one_pool & ~several.any()),
            self.lone.kind.eq(_or_all(kind for _, _, kind, _, _ in lones)),
            self.lone.start.eq(_or_all(start for _, _, _, start, _ in lones)),
            self.lone.end.eq(_or_all(end for _, _, _, _, end in lones)),
        ]
        return m

    def _spill(self, m, matches):
        """Wire the spill pool to the kinds' pools; return the overflow terms.

        A move's starts and ends may lie in its kind's pool or in the spill
        pool: each pool takes the other's hits into its rules, and a new
        start or end goes to the kind's pool if it has a free entry there,
        else to the spill pool. ``matches`` are the kinds' pools' registered
        "the move is of this kind"."""
        spill = self.spill
        m.submodules.pool_spill = spill
        # Any kind with a pool of its own or not, decoded a clock ahead.
        spilled = Signal(name="spill_apply")
        m.d.sync += spilled.eq(self._ahead(
            lambda move, applied: applied & Cat(move.kind == kind for kind in POOL_KINDS).any()))
        m.d.comb += [
            spill.clear.eq(self.clear),
            spill.load_first.eq(self.load_first),
            spill.first_nothing.eq(self.bus.first_nothing),
            spill.apply.eq(spilled),
            spill.move.eq(self.bus.move),
            spill.next_move.eq(self.bus.next),
        ]
        own = [(match, pool) for match, (_, pool) in zip(matches, self.pools)]
        # What the move's own kind pool says (nothing for a kind without one).
        kind_start_hit  = Cat(match & pool.start_hit for match, pool in own).any()
        kind_end_hit    = Cat(match & pool.end_hit for match, pool in own).any()
        kind_free_start = Cat(match & pool.free_start for match, pool in own).any()
        kind_free_end   = Cat(match & pool.free_end for match, pool in own).any()
        kind_impossible = Cat(match & pool.impossible for match, pool in own).any()
        for _, pool in own:
            m.d.comb += [
                pool.peer_start_hit.eq(spill.start_hit),
                pool.peer_end_hit.eq(spill.end_hit),
                pool.insert_start.eq(1),
                pool.insert_end.eq(1),
            ]
        m.d.comb += [
            spill.peer_start_hit.eq(kind_start_hit),
            spill.peer_end_hit.eq(kind_end_hit),
            spill.insert_start.eq(~kind_free_start),
            spill.insert_end.eq(~kind_free_end),
        ]
        # An insert with no free start or no free end in either pool; or an
        # impossible list, in one pool or across the two (a start, or an end,
        # in both).
        full = (~kind_free_start & ~spill.free_start) | (~kind_free_end & ~spill.free_end)
        across = (kind_start_hit & spill.start_hit) | (kind_end_hit & spill.end_hit)
        return [spill.inserts & full, spill.impossible, kind_impossible, across]

    def _pool_lone(self, m, pool, kind):
        """``(holds, several, kind, start, end)`` of one pool (its ``lone``,
        with the kind of a pool of one kind)."""
        lone = pool.lone
        holds = Signal(name=f"{_pool_name(kind)}_holds")
        m.d.comb += holds.eq(lone.holds)
        lone_kind = Mux(holds, kind, 0) if kind is not None else lone.kind
        return holds, lone.several, lone_kind, lone.start, lone.end


def _or_all(values):
    values = list(values)
    total = values[0]
    for value in values[1:]:
        total = total | value
    return total


class ChainList(wiring.Component):
    """Both sides' pools: a White move and a Black move in the same clock.

    Parameters
    ----------
    config : DetectorConfig
        Its ``chains`` (half serve White, half Black, split between the
        piece kinds by :attr:`~axon.hdl.params.DetectorConfig.side_pools`),
        ``rules`` and ``pools``.

    Members
    -------
    scan : In(ChainBusSignature())
        The scanner's moves for each side's pools, with ``next`` a clock ahead
        (see :class:`ChainPool`'s ``next_move``), and the pools' verdicts.
    white_lone, black_lone : LoneChainLayout, out
        Each side's single open chain, see :class:`SideChains`.

    Attributes
    ----------
    white_chains, black_chains : SideChains
        Each side's pools, made with the list.
    observe : Observation
        ``white`` and ``black``: each side's view (:class:`SideChains`).
    """

    def __init__(self, config):
        self._config = DetectorConfig.checked(config)
        super().__init__({
            "scan":           In(ChainBusSignature()),
            "white_lone":     Out(LoneChainLayout),
            "black_lone":     Out(LoneChainLayout),
        })
        # Made here rather than in `elaborate`, so that the list's view shows
        # each side's pools.
        self.white_chains = SideChains(config)
        self.black_chains = SideChains(config)
        self.observe = Observation({"white": self.white_chains.observe,
                                    "black": self.black_chains.observe})

    @property
    def config(self):
        return self._config

    def elaborate(self, platform):
        m = Module()
        m.submodules.white = white = self.white_chains
        m.submodules.black = black = self.black_chains
        scan = self.scan
        wiring.connect(m, wiring.flipped(scan.white), white.bus)
        wiring.connect(m, wiring.flipped(scan.black), black.bus)
        m.d.comb += [
            white.clear.eq(scan.clear),
            black.clear.eq(scan.clear),
            white.load_first.eq(scan.load_first),
            black.load_first.eq(scan.load_first),
            scan.empty.eq(white.empty & black.empty),
            self.white_lone.eq(white.lone),
            self.black_lone.eq(black.lone),
        ]
        return m
