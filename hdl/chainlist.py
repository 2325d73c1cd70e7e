"""The chain list: parallel (piece, from, to) registers, two moves a clock.

This is the paper's ``CHAIN_LIST`` with every slot compared at once. A chain
only ever changes on a move of its own piece, so White's and Black's chains
never meet; the list is split into one :class:`ChainPool` per side, and a
White move and a Black move update their pools in the same clock.

Each pool's next state depends only on its registers and the move in hand:
nothing outside gates the update, so the loop that limits the clock is one
pool's compare, lowest-slot pick and register enables.

Ties, possible only with nonsense words, go to the lowest slot of the pool,
like the golden model's ``ChainPool``, which this component is checked
against.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ._params import refused
from .word import MoveWord


__all__ = ["ChainPool", "ChainList", "CHAIN_RULES"]

CHAIN_RULES = ("paper", "exact")


def _lowest(vector):
    """Isolate the lowest set bit; on iCE40 this is one carry chain."""
    return vector & (~vector + 1)[:len(vector)]


def _select(onehot, values):
    """One-hot multiplexer: OR of the values whose select bit is set, as a
    balanced tree so that its depth grows with the log of the slot count."""
    terms = [Mux(onehot[index], value, 0) for index, value in enumerate(values)]
    while len(terms) > 1:
        terms = [terms[i] | terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]


def _check_rules(component, rules):
    if rules not in CHAIN_RULES:
        raise refused(component, ValueError(
            f"Chain rules must be one of {', '.join(CHAIN_RULES)}, not {rules!r}"))


class ChainPool(wiring.Component):
    """One side's slots of the chain list, updated by one move a clock.

    Parameters
    ----------
    slots : int
        Number of chains this pool holds.
    rules : str
        ``"paper"`` (transition, reflection, symmetry) or ``"exact"``
        (transition, reflection, link), as in :mod:`axon.sim.golden`.

    Members
    -------
    clear : Signal(1), in
        Empty every slot (a new query). Takes priority over ``apply``.
    apply : Signal(1), in
        Apply ``move`` on this clock.
    move : MoveWord, in
        A move of this pool's side; its barrier bit is ignored.
    overflow : Signal(1), out
        ``move`` needs a new slot and none is free; applying it changes nothing.
    empty : Signal(1), out
        Every chain of this side is closed.
    open_chains : Signal(range(slots + 1)), out
        The paper's ``UnClosed_chains``: kept as a counter, raised on an
        insert and lowered by every slot a rule frees. Nothing in the detector
        needs it (``empty`` looks at the slots); the formal proofs check that
        it always equals the number of occupied slots.
    occupied : Signal(slots), out
        One bit a slot: it holds an open chain. For the formal proofs.
    """

    def __init__(self, slots=12, rules="exact"):
        if not isinstance(slots, int) or slots < 1:
            raise refused(self, TypeError(
                f"Pool size must be a positive integer, not {slots!r}"))
        _check_rules(self, rules)
        self._slots = slots
        self._rules = rules
        super().__init__({
            "clear":    In(1),
            "apply":    In(1),
            "move":     In(MoveWord),
            "overflow":    Out(1),
            "empty":       Out(1),
            "open_chains": Out(range(slots + 1)),
            "occupied":    Out(slots),
        })

    @property
    def slots(self):
        return self._slots

    @property
    def rules(self):
        return self._rules

    def elaborate(self, platform):
        m = Module()
        n = self._slots

        chain_valid = Signal(n)
        m.d.comb += self.occupied.eq(chain_valid)
        chain_piece = [Signal(4, name=f"chain{i}_piece") for i in range(n)]
        chain_from  = [Signal(6, name=f"chain{i}_from") for i in range(n)]
        chain_to    = [Signal(6, name=f"chain{i}_to") for i in range(n)]

        move_piece = self.move.piece
        move_from  = self.move.from_sq
        move_to    = self.move.to_sq

        # The two comparisons every rule is built from, for all slots at once.
        same_piece      = Cat(chain_valid[i] & (chain_piece[i] == move_piece) for i in range(n))
        from_is_move_to = Signal(n)
        to_is_move_from = Signal(n)
        m.d.comb += [
            from_is_move_to.eq(same_piece & Cat(chain_from[i] == move_to for i in range(n))),
            to_is_move_from.eq(same_piece & Cat(chain_to[i] == move_from for i in range(n))),
        ]

        # Transition: the move ends on the square where a chain begins.
        transition_slot = Signal(n)
        transition      = Signal()
        m.d.comb += [
            transition_slot.eq(_lowest(from_is_move_to)),
            transition.eq(from_is_move_to.any()),
        ]
        # The updated chain runs from the move's from-square to `updated_to`:
        # the old chain's end after a transition, the move's own end otherwise.
        updated_to = Signal(6)
        m.d.comb += updated_to.eq(Mux(transition, _select(transition_slot, chain_to), move_to))

        # Reflection: the updated chain returns to its start and is closed.
        closes = Signal()
        m.d.comb += closes.eq(Mux(transition, (transition_slot & to_is_move_from).any(),
                                  move_from == move_to))

        partner_slot = Signal(n)
        if self._rules == "paper":
            # Symmetry: A→B and B→A of one piece are two pieces that swapped.
            m.d.comb += partner_slot.eq(_lowest(to_is_move_from &
                Cat(chain_from[i] == updated_to for i in range(n))))
        else:
            # Link: a chain X→F of the same piece meets the updated chain F→T
            # (F is the move's from-square) and becomes X→T. Unless the
            # updated chain closed, it is not among these slots.
            #
            # The joined chain never closes: the link rule keeps every square
            # from being both the start of one chain and the end of another
            # of the same piece, so X ≠ T. The golden model still checks it
            # (it is the rule as written) and the tests count it never fires;
            # leaving the comparison out here shortens the critical path.
            m.d.comb += partner_slot.eq(_lowest(to_is_move_from))
        partner = Signal()
        m.d.comb += partner.eq(partner_slot.any() & ~closes)

        free_slot = Signal(n)
        m.d.comb += free_slot.eq(_lowest(~chain_valid))

        # Only an inserted move that neither closes nor links needs a slot.
        insert = Signal()
        m.d.comb += [
            insert.eq(~transition & ~closes & ~partner),
            self.overflow.eq(insert & ~free_slot.any()),
            self.empty.eq(~chain_valid.any()),
        ]

        # Which slots let go of their chain, and which take a new from/to.
        release    = Signal(n)
        take_from  = Signal(n)
        take_to    = Signal(n)
        take_chain = Signal(n)
        m.d.comb += take_chain.eq(Mux(insert, free_slot, 0))
        if self._rules == "paper":
            m.d.comb += [
                release.eq(Mux(closes | partner, transition_slot | Mux(partner, partner_slot, 0),
                               0)),
                take_from.eq(Mux(transition & ~closes & ~partner, transition_slot, 0)),
            ]
        else:
            m.d.comb += [
                # Reflection frees the updated chain; a link folds it into the partner.
                release.eq(Mux(closes | partner, transition_slot, 0)),
                take_from.eq(Mux(transition & ~closes & ~partner, transition_slot, 0)),
                take_to.eq(Mux(partner, partner_slot, 0)),
            ]

        freed = Signal(2)
        m.d.comb += freed.eq(sum(release[i] for i in range(n)))

        with m.If(self.clear):
            m.d.sync += [
                chain_valid.eq(0),
                self.open_chains.eq(0),
            ]
        with m.Elif(self.apply):
            m.d.sync += [
                chain_valid.eq(chain_valid & ~release | take_chain),
                self.open_chains.eq(self.open_chains + take_chain.any() - freed),
            ]
            for i in range(n):
                with m.If(take_from[i] | take_chain[i]):
                    m.d.sync += chain_from[i].eq(move_from)
                # An inserted chain ends on the move's to-square, which is
                # also `updated_to` when there is no transition.
                with m.If(take_to[i] | take_chain[i]):
                    m.d.sync += chain_to[i].eq(updated_to)
                with m.If(take_chain[i]):
                    m.d.sync += chain_piece[i].eq(move_piece)

        return m


class ChainList(wiring.Component):
    """Both sides' pools: a White move and a Black move in the same clock.

    Parameters
    ----------
    chains : int
        Total number of slots, even: half serve White, half Black.
    rules : str
        ``"paper"`` or ``"exact"``.

    Members
    -------
    clear : Signal(1), in
        Empty every slot.
    white_move, black_move : MoveWord, in
        A move for each side's pool.
    apply_white, apply_black : Signal(1), in
        Apply the move to its pool on this clock.
    white_overflow, black_overflow : Signal(1), out
        The pool has no slot for its move; applying it changes nothing.
    empty : Signal(1), out
        Every chain is closed.
    open_chains : Signal(range(chains + 1)), out
        Both pools' ``open_chains`` added (for the formal proofs).
    """

    def __init__(self, chains=24, rules="exact"):
        if not isinstance(chains, int) or chains < 2 or chains % 2:
            raise refused(self, TypeError(
                f"Chain count must be an even integer of at least 2, not {chains!r}"))
        _check_rules(self, rules)
        self._chains = chains
        self._rules = rules
        super().__init__({
            "clear":          In(1),
            "white_move":     In(MoveWord),
            "black_move":     In(MoveWord),
            "apply_white":    In(1),
            "apply_black":    In(1),
            "white_overflow": Out(1),
            "black_overflow": Out(1),
            "empty":          Out(1),
            "open_chains":    Out(range(chains + 1)),
        })

    @property
    def chains(self):
        return self._chains

    @property
    def rules(self):
        return self._rules

    def elaborate(self, platform):
        m = Module()
        m.submodules.white_pool = white = ChainPool(self._chains // 2, self._rules)
        m.submodules.black_pool = black = ChainPool(self._chains // 2, self._rules)
        m.d.comb += [
            white.clear.eq(self.clear),
            white.move.eq(self.white_move),
            white.apply.eq(self.apply_white),
            self.white_overflow.eq(white.overflow),
            black.clear.eq(self.clear),
            black.move.eq(self.black_move),
            black.apply.eq(self.apply_black),
            self.black_overflow.eq(black.overflow),
            self.empty.eq(white.empty & black.empty),
            self.open_chains.eq(white.open_chains + black.open_chains),
        ]
        return m
