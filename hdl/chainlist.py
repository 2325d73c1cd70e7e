"""The chain list: N parallel (piece, from, to) registers updated in one clock.

This is the paper's ``CHAIN_LIST`` with every slot compared at once. One move
word goes in per clock; every comparator of section 5.2's rules runs in
parallel and the whole list takes its next state on the same edge. Ties (only
possible with nonsense words) go to the lowest slot, like the golden model's
``ChainList``, which this component is checked against.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .word import MoveWord


__all__ = ["ChainList", "CHAIN_RULES"]

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


class ChainList(wiring.Component):
    """The concatenating list of section 5 with all comparators in parallel.

    Parameters
    ----------
    chains : int
        Number of slots; the paper uses 16, the wiki 24.
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
        The move word read from the move list; its barrier bit is ignored.
    overflow : Signal(1), out
        ``move`` needs a new slot and none is free; the list is left as it is.
    empty : Signal(1), out
        Every chain is closed.
    """

    def __init__(self, chains=24, rules="exact"):
        if not isinstance(chains, int) or chains < 1:
            raise TypeError(f"Chain count must be a positive integer, not {chains!r}")
        if rules not in CHAIN_RULES:
            raise ValueError(f"Chain rules must be one of {', '.join(CHAIN_RULES)}, "
                             f"not {rules!r}")
        self._chains = chains
        self._rules = rules
        super().__init__({
            "clear":    In(1),
            "apply":    In(1),
            "move":     In(MoveWord),
            "overflow": Out(1),
            "empty":    Out(1),
        })

    @property
    def chains(self):
        return self._chains

    @property
    def rules(self):
        return self._rules

    def elaborate(self, platform):
        m = Module()
        n = self._chains

        chain_valid = Signal(n)
        chain_piece = [Signal(4, name=f"chain{i}_piece") for i in range(n)]
        chain_from  = [Signal(6, name=f"chain{i}_from") for i in range(n)]
        chain_to    = [Signal(6, name=f"chain{i}_to") for i in range(n)]

        move_piece = self.move.piece
        move_from  = self.move.from_sq
        move_to    = self.move.to_sq

        same_piece = Cat(chain_valid[i] & (chain_piece[i] == move_piece) for i in range(n))

        # Transition: the move ends on the square where a chain begins.
        transition_hits = Signal(n)
        transition_slot = Signal(n)
        transition      = Signal()
        m.d.comb += [
            transition_hits.eq(same_piece & Cat(chain_from[i] == move_to for i in range(n))),
            transition_slot.eq(_lowest(transition_hits)),
            transition.eq(transition_hits.any()),
        ]

        # The updated chain runs from the move's from-square to `updated_to`:
        # the old chain's end after a transition, the move's own end otherwise.
        updated_to = Signal(6)
        m.d.comb += updated_to.eq(Mux(transition, _select(transition_slot, chain_to), move_to))
        # Reflection: a chain that returns to its own start is closed.
        closes = Signal()
        m.d.comb += closes.eq(move_from == updated_to)

        free_slot = Signal(n)
        m.d.comb += free_slot.eq(_lowest(~chain_valid))

        partner_slot = Signal(n)
        partner      = Signal()
        if self._rules == "paper":
            # Symmetry: A→B and B→A of one piece are two pieces that swapped.
            m.d.comb += partner_slot.eq(_lowest(same_piece &
                Cat((chain_from[i] == updated_to) & (chain_to[i] == move_from)
                    for i in range(n))))
        else:
            # Link: a chain X→F of the same piece meets the updated chain F→T,
            # where F is the move's from-square; the partner becomes X→T.
            m.d.comb += partner_slot.eq(_lowest(same_piece &
                Cat(chain_to[i] == move_from for i in range(n))))
        m.d.comb += partner.eq(partner_slot.any())
        # The joined chain X→T closes when X == T (for symmetry, always).
        partner_closes = Signal()
        m.d.comb += partner_closes.eq(_select(partner_slot, chain_from) == updated_to)

        m.d.comb += [
            self.overflow.eq(~transition & ~closes & ~partner & ~free_slot.any()),
            self.empty.eq(~chain_valid.any()),
        ]

        with m.If(self.clear):
            m.d.sync += chain_valid.eq(0)
        with m.Elif(self.apply & ~self.overflow):
            with m.If(closes):
                # Transition then reflection; an inserted A→A never takes a slot.
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
