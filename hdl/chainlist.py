"""The chain list: parallel (piece, from, to) registers, two moves a clock.

This is the paper's ``CHAIN_LIST`` with every slot compared at once. A chain
only ever changes on a move of its own piece, so White's and Black's chains
never meet; the list is split into one :class:`ChainPool` per side, and a
White move and a Black move update their pools in the same clock.

Ties, possible only with nonsense words, go to the lowest slot of the pool,
like the golden model's ``ChainPool``, which this component is checked
against.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .word import MoveWord


__all__ = ["ChainPool", "ChainList", "CHAIN_RULES"]

CHAIN_RULES = ("paper", "exact")


def _lowest(vector):
    """Isolate the lowest set bit; on iCE40 this is one carry chain."""
    return vector & (~vector + 1)[:len(vector)]


def _select(onehot, values):
    """One-hot multiplexer: OR of the values whose select bit is set."""
    result = 0
    for index, value in enumerate(values):
        result = result | Mux(onehot[index], value, 0)
    return result


def _check_rules(rules):
    if rules not in CHAIN_RULES:
        raise ValueError(f"Chain rules must be one of {', '.join(CHAIN_RULES)}, not {rules!r}")


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
        Apply ``move`` on this clock, unless ``overflow`` is high.
    move : MoveWord, in
        A move of this pool's side; its barrier bit is ignored.
    overflow : Signal(1), out
        ``move`` needs a new slot and none is free; nothing changes.
    empty : Signal(1), out
        Every chain of this side is closed.
    """

    def __init__(self, slots=12, rules="exact"):
        if not isinstance(slots, int) or slots < 1:
            raise TypeError(f"Pool size must be a positive integer, not {slots!r}")
        _check_rules(rules)
        self._slots = slots
        self._rules = rules
        super().__init__({
            "clear":    In(1),
            "apply":    In(1),
            "move":     In(MoveWord),
            "overflow": Out(1),
            "empty":    Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._slots

        chain_valid = Signal(n)
        chain_piece = [Signal(4, name=f"chain{i}_piece") for i in range(n)]
        chain_from  = [Signal(6, name=f"chain{i}_from") for i in range(n)]
        chain_to    = [Signal(6, name=f"chain{i}_to") for i in range(n)]

        move_piece = self.move.piece
        move_from  = self.move.from_sq
        move_to    = self.move.to_sq

        same_piece = Cat(chain_valid[i] & (chain_piece[i] == move_piece) for i in range(n))
        # The two comparisons every rule is built from, for all slots at once.
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
            # (F is the move's from-square); the partner becomes X→T. Unless
            # the updated chain closed, it cannot be among these slots.
            m.d.comb += partner_slot.eq(_lowest(to_is_move_from))
        partner = Signal()
        m.d.comb += partner.eq(partner_slot.any())
        # The joined chain X→T closes when X == T.
        partner_closes = Signal()
        m.d.comb += partner_closes.eq(_select(partner_slot, chain_from) == updated_to)

        free_slot = Signal(n)
        m.d.comb += free_slot.eq(_lowest(~chain_valid))

        # Only an inserted move that neither closes nor links needs a slot.
        m.d.comb += [
            self.overflow.eq(~transition & (move_from != move_to) & ~free_slot.any() &
                             (~partner if self._rules == "exact" else 1)),
            self.empty.eq(~chain_valid.any()),
        ]

        with m.If(self.clear):
            m.d.sync += chain_valid.eq(0)
        with m.Elif(self.apply & ~self.overflow):
            with m.If(closes):
                m.d.sync += chain_valid.eq(chain_valid & ~transition_slot)
            with m.Elif(partner):
                if self._rules == "paper":
                    m.d.sync += chain_valid.eq(chain_valid & ~transition_slot & ~partner_slot)
                else:
                    with m.If(partner_closes):
                        m.d.sync += chain_valid.eq(chain_valid & ~transition_slot & ~partner_slot)
                    with m.Else():
                        m.d.sync += chain_valid.eq(chain_valid & ~transition_slot)
                    for i in range(n):
                        with m.If(partner_slot[i]):
                            m.d.sync += chain_to[i].eq(updated_to)
            with m.Elif(transition):
                for i in range(n):
                    with m.If(transition_slot[i]):
                        m.d.sync += chain_from[i].eq(move_from)
            with m.Else():
                m.d.sync += chain_valid.eq(chain_valid | free_slot)
                for i in range(n):
                    with m.If(free_slot[i]):
                        m.d.sync += [
                            chain_piece[i].eq(move_piece),
                            chain_from[i].eq(move_from),
                            chain_to[i].eq(move_to),
                        ]

        return m


class ChainList(wiring.Component):
    """Both sides' pools, taking a newer and an older move in one clock.

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
    newer, older : MoveWord, in
        Two consecutive moves, newer first. Each goes to its side's pool.
    apply_newer, apply_older : Signal(1), in
        Apply the move. Apply ``older`` only if it is of the other side.
    overflow_newer, overflow_older : Signal(1), out
        The move's pool has no slot for it (``overflow_older`` is meaningful
        only when the two moves are of different sides).
    empty : Signal(1), out
        Every chain is closed.
    """

    def __init__(self, chains=24, rules="exact"):
        if not isinstance(chains, int) or chains < 2 or chains % 2:
            raise TypeError(f"Chain count must be an even integer of at least 2, not {chains!r}")
        _check_rules(rules)
        self._chains = chains
        self._rules = rules
        super().__init__({
            "clear":          In(1),
            "newer":          In(MoveWord),
            "apply_newer":    In(1),
            "older":          In(MoveWord),
            "apply_older":    In(1),
            "overflow_newer": Out(1),
            "overflow_older": Out(1),
            "empty":          Out(1),
        })

    @property
    def chains(self):
        return self._chains

    @property
    def rules(self):
        return self._rules

    def elaborate(self, platform):
        m = Module()
        pools = []
        for side in ("white", "black"):
            pool = ChainPool(self._chains // 2, self._rules)
            m.submodules[f"{side}_pool"] = pool
            pools.append(pool)

        # Table 1: the top bit of the piece code is the colour (1 = Black).
        newer_black = self.newer.piece[3]
        older_black = self.older.piece[3]
        for black, pool in enumerate(pools):
            newer_here = newer_black == black
            m.d.comb += [
                pool.clear.eq(self.clear),
                pool.move.eq(Mux(newer_here, self.newer, self.older)),
                pool.apply.eq(Mux(newer_here, self.apply_newer, self.apply_older)),
            ]
        m.d.comb += [
            self.overflow_newer.eq(Mux(newer_black, pools[1].overflow, pools[0].overflow)),
            self.overflow_older.eq(Mux(older_black, pools[1].overflow, pools[0].overflow)),
            self.empty.eq(pools[0].empty & pools[1].empty),
        ]
        return m
