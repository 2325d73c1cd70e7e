"""Golden model of the paper's PERPETUAL function (section 5).

Read this next to section 5.2 of Vučković and Vidanović. A query scans the
move list backwards from ``top`` and keeps a *chain list*: one entry
``(piece, from, to)`` per displaced piece, meaning "the piece that stood on
``from`` in the position being compared stands on ``to`` in the current
position". Every move read updates the list by these rules:

* **transition**: the move ``A→B`` meets a chain ``B→C`` of the same piece
  (the chain list holds what happened *after* the move); the chain becomes
  ``A→C``. Without such a chain the move is *inserted* as a new chain.
* **reflection**: a chain ``A→A`` is closed and its slot freed.
* **symmetry** (``paper``): after an update, chains ``A→B`` and ``B→A`` of one
  piece are identical pieces that swapped places; both are freed.
* **link** (``exact``): generalises symmetry to any permutation of identical
  pieces. After a chain gets the new from-square ``F``, another chain of the
  same piece that ends on ``F`` (``X→F``) is joined with it into ``X→T``; the
  joined chain takes the other's slot, and closes if ``X == T``. An inserted
  move that links needs no slot of its own.

The current position equals an earlier one when every chain is closed; the
``paper`` and ``exact`` rules also require an even number of plies, so that the
same side is to move. The slots are split between the sides and the piece kinds (see
:class:`GoldenChainList`). ``cpw`` is the chessprogramming-wiki pseudo-code: square
matching without the piece, no symmetry, no side-to-move check.

The slot structure is modelled exactly as the gateware has it, so that
nonsense words give the same answer in both. In a legal game no two chains of
one piece ever start on the same square (two pieces would stand on it) or end
on the same square (two pieces would have stood on it at the top); a move that
meets two such chains therefore comes from an impossible move list, as does a
word that moves nothing (from == to). Either stops the scan as an overflow, a
move the chain list cannot follow. This lets the gateware take each
comparison's hit vector as the chosen slot, without a priority pick, and keep
the from == to test out of its update loop.
"""

import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ...hdl.pools import BISHOP, KING, KNIGHT, POOL_KINDS, QUEEN, ROOK
from ...hdl.params import SHIPPED, DetectorConfig, Rules, Stop
from ...hdl.word import piece_colour, piece_kind, unpack_word
from .spill import SpillSide


__all__ = ["Rules", "Stop", "Result", "Step", "perpetual", "reaches", "squares_between",
           "inside_search", "decides_draw"]


@dataclass(frozen=True)
class Result:
    """The answer to one query; the gateware produces the same fields."""
    repetition:    bool
    distance:      Optional[int]   # plies back to the most recent equal position
    count:         int             # equal earlier positions found
    overflow:      bool
    plies_scanned: int             # words applied to the chain list
    stop:          Stop
    # The position is a draw by repetition for a search from the position
    # after ``root_address`` (see :func:`perpetual`): a third occurrence, or
    # a second one inside the search.
    draw:          bool = False
    # Upcoming repetition (only with an ``occupancy``, see :func:`perpetual`):
    # the side to move can return to an earlier position with one move.
    # ``None`` in each upcoming field: not available, the detector has no
    # upcoming block (:meth:`without_upcoming`).
    upcoming:          Optional[bool] = False
    upcoming_move:     Optional[tuple] = None   # (from, to) of that move
    upcoming_distance: Optional[int] = None     # plies from the position after it
                                                # back to the earlier position
    upcoming_draw:     Optional[bool] = False   # that earlier position lies after the root
    # The upcoming answer is complete: a move was found (the most recent
    # one), or the scan ended at a barrier or the bottom of the list. False:
    # a count limit or an overflow stopped the scan first, and "none" means
    # only "none within ``plies_scanned``".
    upcoming_exact:    Optional[bool] = False
    # The pools overflowed and the backstop behind them gave this answer
    # (``DetectorConfig.backstop``).
    backstop:          bool = False

    def without_upcoming(self) -> "Result":
        """This answer from a detector without the upcoming block: the
        upcoming repetition is not available (``None``), which is not the
        same as "none found" (``False``)."""
        return replace(self, upcoming=None, upcoming_move=None, upcoming_distance=None,
                       upcoming_draw=None, upcoming_exact=None)

    @classmethod
    def from_fields(cls, fields: Any, upcoming: Any = None) -> "Result":
        """The answer that the gateware's fields say: ``fields`` is the
        ``result`` port or the link's record read back as a
        :class:`amaranth.lib.data.Const` (the layout's ``from_bits``);
        ``upcoming``, the upcoming answer's, or ``None`` where the query asked
        for none. The one place where hardware fields become a
        :class:`Result`: the Python simulator, CXXRTL and the host link all
        read their answers here."""
        repetition = bool(fields.repetition)
        found: Dict[str, Any] = {}
        if upcoming is not None:
            found["upcoming_exact"] = bool(upcoming.exact)
        if upcoming is not None and upcoming.found:
            found.update(upcoming=True, upcoming_move=(upcoming.from_sq, upcoming.to_sq),
                         upcoming_distance=upcoming.distance,
                         upcoming_draw=bool(upcoming.draw))
        return cls(repetition=repetition,
                   # The gateware shows distance 0 when nothing was found.
                   distance=fields.distance if repetition else None,
                   count=fields.count, overflow=bool(fields.overflow),
                   plies_scanned=fields.plies_scanned, stop=Stop(fields.stop),
                   draw=bool(fields.draw), backstop=bool(getattr(fields, "backstop", 0)),
                   **found)

    def to_fields(self, *, backstop: bool = False) -> Tuple[Dict[str, int], Dict[str, int]]:
        """``(result, upcoming)``: the values, by field name, that the
        ``result`` port's fields (``ResultLayout``, of a detector with a
        ``backstop`` if so) and the ``upcoming`` port's (``UpcomingLayout``)
        hold for this answer, as integers: what :meth:`from_fields` reads
        back. A field of something not found is 0, as the gateware shows it;
        an answer without the upcoming repetition (none found, or not
        available) has every upcoming field 0 but ``exact``."""
        result = {"repetition": int(self.repetition), "draw": int(self.draw),
                  "overflow": int(self.overflow), "stop": self.stop.value, "count": self.count,
                  # None where nothing was found, as 0 in the gateware.
                  "distance": self.distance or 0,
                  "plies_scanned": self.plies_scanned,
                  **({"backstop": int(self.backstop)} if backstop else {})}
        if self.upcoming and self.upcoming_move is not None:
            from_sq, to_sq = self.upcoming_move
            upcoming = {"found": 1, "draw": int(bool(self.upcoming_draw)), "from_sq": from_sq,
                        "to_sq": to_sq, "distance": self.upcoming_distance or 0}
        else:
            upcoming = {"found": 0, "draw": 0, "from_sq": 0, "to_sq": 0, "distance": 0}
        upcoming["exact"] = int(bool(self.upcoming_exact))
        return result, upcoming


@dataclass(frozen=True)
class Step:
    """One applied word, for ``axon explain``.

    Besides the list after the move, a step names the chains that took part
    in it, so that explain can word the rules without applying them again.
    Every chain is ``(piece, from, to)``.
    """
    address: int
    word:    int
    rule:    str                   # what happened, in the paper's words
    chains:  tuple                 # the chains after the move
    found:   bool                  # all chains closed here, with the right parity
    staged:  tuple                 # the chains after the transition or insertion, before
                                   # reflection, symmetry or a link freed or joined any
    met:     Optional[tuple]       # the chain the move met by transition, as it was
    chain:   tuple                 # the chain the transition or insertion made; for a
                                   # word that moves nothing (cpw), the move itself
    partner: Optional[tuple]       # the chain closed with ``chain`` by symmetry or
                                   # linked with it, as it was
    joined:  Optional[tuple]       # the chain that link made of the two


# A chain of the chain list: (piece, from square, to square).
Chain = Tuple[int, int, int]


def _check_query(words: Sequence[int], top: int, root_address: int,
                 config: DetectorConfig, count_limit: int) -> None:
    DetectorConfig.checked(config, gateware=False)
    if not isinstance(count_limit, int) or count_limit < 0:
        raise ValueError(f"count limit must be a non-negative integer, not {count_limit!r}")
    if not isinstance(top, int) or not 0 <= top < len(words):
        raise ValueError(f"top of stack must be an address in 0..{len(words) - 1}, not {top!r}")
    if not isinstance(root_address, int) or not -1 <= root_address < len(words):
        raise ValueError(f"root_address must be an address in -1..{len(words) - 1}, "
                         f"not {root_address!r}")


class GoldenChainPool:
    """Slots of the concatenating list: ``slots[i]`` is ``None`` or ``(piece, from, to)``.

    A chain is replaced, never changed in place, so that the chains an
    :meth:`apply` reports keep the values they had. After an :meth:`apply`
    that did not overflow, these attributes tell which chains took part (see
    :class:`Step`): ``met``, ``chain``, ``partner`` and ``joined``; ``slot``
    and ``partner_slot`` are where ``chain`` and ``partner`` stood, for
    :meth:`staged`.
    """

    # The chain the last apply made: every apply that does not overflow sets it.
    chain: Chain

    def __init__(self, size: int, rules: Rules) -> None:
        self.slots: List[Optional[Chain]] = [None] * size
        self.rules = rules
        self.met: Optional[Chain] = None
        self.partner: Optional[Chain] = None
        self.joined: Optional[Chain] = None
        self.slot: Optional[int] = None
        self.partner_slot: Optional[int] = None

    def _first(self, predicate: Callable[[Chain], bool],
               exclude: Optional[int] = None) -> Optional[int]:
        for index, slot in enumerate(self.slots):
            if slot is not None and index != exclude and predicate(slot):
                return index
        return None

    def _held(self, index: int) -> Chain:
        """The chain in slot ``index``, which :meth:`_first` found holding one."""
        chain = self.slots[index]
        if chain is None:
            raise RuntimeError(f"slot {index} holds no chain")
        return chain

    def _free(self) -> Optional[int]:
        return next((index for index, slot in enumerate(self.slots) if slot is None), None)

    def _same_piece(self, piece: int) -> Callable[[Chain], bool]:
        # The wiki's pseudo-code compares squares only.
        return lambda slot: self.rules is Rules.CPW or slot[0] == piece

    def empty(self) -> bool:
        return all(slot is None for slot in self.slots)

    def snapshot(self) -> Tuple[Chain, ...]:
        return tuple(slot for slot in self.slots if slot is not None)

    def staged(self) -> Tuple[Chain, ...]:
        """The chains as the last move's transition or insertion left them,
        before reflection, symmetry or a link freed or joined any: the list
        Table 2 of the paper shows on the move's row."""
        slots = list(self.slots)
        if self.partner is not None and self.partner_slot is not None:
            slots[self.partner_slot] = self.partner
        if self.slot == len(slots):
            slots.append(self.chain)
        elif self.slot is not None:
            slots[self.slot] = self.chain
        return tuple(slot for slot in slots if slot is not None)

    def impossible(self, piece: int, from_sq: int, to_sq: int) -> bool:
        """Does the move move nothing, or meet two chains of its piece at one
        end? Only an impossible move list does that (see the module
        docstring)."""
        same = [slot for slot in self.slots if slot is not None and slot[0] == piece]
        return (from_sq == to_sq or
                sum(slot[1] == to_sq for slot in same) > 1 or
                sum(slot[2] == from_sq for slot in same) > 1)

    def apply(self, piece: int, from_sq: int, to_sq: int) -> Optional[str]:
        """Apply one move; return the rule text, or ``None`` on overflow."""
        same_piece = self._same_piece(piece)
        if self.rules is not Rules.CPW and self.impossible(piece, from_sq, to_sq):
            return None
        self.partner = self.joined = None

        # Transition: the move ends where a chain begins.
        updated = self._first(lambda slot: same_piece(slot) and slot[1] == to_sq)
        if updated is not None:
            self.met = met = self._held(updated)
            self.slots[updated] = (met[0], from_sq, met[2])
            rule = "transition"
        elif from_sq == to_sq:
            # The wiki's code: a nonsense word that moves nothing closes at once,
            # without entering the list.
            self.met, self.chain, self.slot = None, (piece, from_sq, to_sq), None
            return "reflection"
        else:
            self.met = None
            if self.rules is Rules.EXACT:
                partner = self._first(lambda slot: slot[0] == piece and slot[2] == from_sq)
                if partner is not None:
                    # The move needs no slot of its own; :meth:`staged` shows it in
                    # the slot an insertion would take, past the end if none is free.
                    free = self._free()
                    self.chain = (piece, from_sq, to_sq)
                    self.slot = len(self.slots) if free is None else free
                    return self._link(partner, to_sq, "insert")
            updated = self._free()
            if updated is None:
                return None
            self.slots[updated] = (piece, from_sq, to_sq)
            rule = "insert"

        self.chain = chain = self._held(updated)
        self.slot = updated
        chain_piece, chain_from, chain_to = chain
        if chain_from == chain_to:
            self.slots[updated] = None
            return rule + "+reflection"
        if self.rules is Rules.PAPER:
            partner = self._first(lambda slot: slot[0] == chain_piece and
                                  slot[1] == chain_to and slot[2] == chain_from,
                                  exclude=updated)
            if partner is not None:
                self.partner, self.partner_slot = self._held(partner), partner
                self.slots[updated] = self.slots[partner] = None
                return rule + "+symmetry"
        if self.rules is Rules.EXACT:
            partner = self._first(lambda slot: slot[0] == chain_piece and slot[2] == chain_from,
                                  exclude=updated)
            if partner is not None:
                self.slots[updated] = None
                return self._link(partner, chain_to, rule)
        return rule

    def _link(self, partner: int, new_to: int, rule: str) -> str:
        # The partner X→F absorbs F→T and becomes X→T.
        self.partner, self.partner_slot = self._held(partner), partner
        piece, from_sq, _ = self.partner
        self.joined = self.slots[partner] = (piece, from_sq, new_to)
        if from_sq == new_to:
            self.slots[partner] = None
            return rule + "+link+reflection"
        return rule + "+link"


class SpillingPool(GoldenChainPool):
    """The paired chains of one side and kind in the spill layout: as many
    slots as the kind's pool and the side's spill pool together, and
    :class:`axon.sim.model.spill.SpillSide` to say when a new start or end
    finds no entry in either, as the gateware places them."""

    def __init__(self, size: int, rules: Rules, side: SpillSide) -> None:
        super().__init__(size, rules)
        self.side = side

    def apply(self, piece: int, from_sq: int, to_sq: int) -> Optional[str]:
        if self.impossible(piece, from_sq, to_sq) or not self.side.fits(piece_kind(piece), from_sq, to_sq):
            return None
        rule = super().apply(piece, from_sq, to_sq)
        self.side.apply(piece_kind(piece), from_sq, to_sq)
        return rule


class GoldenChainList:
    """The chain list, split into pools by side and piece kind.

    A chain only ever changes on a move of its own piece, so chains of
    different sides or kinds never meet: the ``paper`` and ``exact`` rules
    give every side a pool per kind (``Pools.KIND``), a pool per kind and
    a spill pool (``Pools.SPILL``, ``exact`` only), or one pool
    (``Pools.SIDE``), as the configuration (:class:`~axon.hdl.params.DetectorConfig`)
    lays them out for the
    gateware. A move of a kind without a pool meets a pool of no slots and
    overflows. The wiki's pseudo-code matches squares regardless of the piece,
    so ``cpw`` keeps one shared pool.
    """

    def __init__(self, config: DetectorConfig) -> None:
        size, rules = config.chains, config.rules
        self.no_pool = GoldenChainPool(0, rules)
        self.pools: List[GoldenChainPool]
        self.by_piece: Dict[int, GoldenChainPool] = {}
        if rules is Rules.CPW:
            self.pools = [GoldenChainPool(size, rules)]
            self.by_piece = dict.fromkeys(range(16), self.pools[0])
            return
        self.pools = []
        if config.spills:
            self._spill_pools(config)
            return
        for colour in (0, 8):
            for kind, slots in config.side_pools:
                pool = GoldenChainPool(slots, rules)
                self.pools.append(pool)
                kinds = range(8) if kind is None else (kind,)
                self.by_piece.update({colour | each: pool for each in kinds})

    def _spill_pools(self, config: DetectorConfig) -> None:
        layout, spill = config.side_pools, config.spill_slots
        for colour in (0, 8):
            side = SpillSide(layout, spill)
            for kind in POOL_KINDS:
                pool = SpillingPool(dict(layout).get(kind, 0) + spill, config.rules, side)
                self.pools.append(pool)
                self.by_piece[colour | kind] = pool

    def _pool(self, piece: int) -> GoldenChainPool:
        return self.by_piece.get(piece, self.no_pool)

    def apply(self, piece: int, from_sq: int, to_sq: int) -> Optional[str]:
        """Apply one move; return the rule text, or ``None`` on overflow."""
        return self._pool(piece).apply(piece, from_sq, to_sq)

    def empty(self) -> bool:
        return all(pool.empty() for pool in self.pools)

    def snapshot(self) -> Tuple[Chain, ...]:
        return tuple(chain for pool in self.pools for chain in pool.snapshot())

    def step(self, address: int, word: int, piece: int, rule: str, found: bool) -> Step:
        """The :class:`Step` for the move of ``piece`` just applied."""
        # Only the mover's pool changed; the other pools are as they were.
        mover = self._pool(piece)
        staged = tuple(chain for pool in self.pools
                       for chain in (pool.staged() if pool is mover else pool.snapshot()))
        return Step(address, word, rule, self.snapshot(), found, staged=staged,
                    met=mover.met, chain=mover.chain, partner=mover.partner,
                    joined=mover.joined)


def _line_step(from_sq: int, to_sq: int) -> Optional[Tuple[int, int]]:
    """``(file step, rank step)`` of a rook or bishop line from one square to
    the other, or ``None`` if they share no line or diagonal."""
    files = (to_sq & 7) - (from_sq & 7)
    ranks = (to_sq >> 3) - (from_sq >> 3)
    if (files, ranks) == (0, 0) or (files and ranks and abs(files) != abs(ranks)):
        return None
    return (files > 0) - (files < 0), (ranks > 0) - (ranks < 0)


def squares_between(from_sq: int, to_sq: int) -> int:
    """Bitboard of the squares strictly between two squares on one rank, file
    or diagonal; 0 for squares that share none (or are neighbours)."""
    step = _line_step(from_sq, to_sq)
    if step is None:
        return 0
    mask = 0
    file, rank = (from_sq & 7) + step[0], (from_sq >> 3) + step[1]
    while file + 8 * rank != to_sq:
        mask |= 1 << (file + 8 * rank)
        file, rank = file + step[0], rank + step[1]
    return mask


def reaches(kind: int, from_sq: int, to_sq: int) -> bool:
    """Can a piece of type ``kind`` move from one square to the other on an
    empty board? No castling, no pawns (a pawn move is always a barrier)."""
    files = abs((to_sq & 7) - (from_sq & 7))
    ranks = abs((to_sq >> 3) - (from_sq >> 3))
    if kind == KNIGHT:
        return {files, ranks} == {1, 2}
    if kind == KING:
        return max(files, ranks) == 1
    step = _line_step(from_sq, to_sq)
    if step is None:
        return False
    diagonal = all(step)
    return (kind == QUEEN or (kind == BISHOP and diagonal) or
            (kind == ROOK and not diagonal))


def upcoming_move(chain_list: GoldenChainList, plies: int, mover_colour: int,
                  occupancy: int) -> Optional[Tuple[int, int]]:
    """The move that returns to the position ``plies`` back, or ``None``.

    After an odd number of plies, if exactly one chain is open and it is a
    piece of the side to move, ``(piece, a, b)``, that piece stood on ``a``
    then and stands on ``b`` now, and everything else stands as it did; the
    move ``b→a`` gives the earlier position back (the other side to move
    included) exactly when it is pseudo-legal now: the piece can go from ``b``
    to ``a`` and every square between them is empty in ``occupancy``. The
    mover's king needs no check: the earlier position was legal with the
    other side to move, so that king was not attacked in it.
    """
    if plies % 2 == 0:
        return None
    chains = chain_list.snapshot()
    if len(chains) != 1:
        return None
    piece, earlier_sq, current_sq = chains[0]
    if piece_colour(piece) != mover_colour:
        return None
    if not reaches(piece_kind(piece), current_sq, earlier_sq):
        return None
    if squares_between(current_sq, earlier_sq) & occupancy:
        return None
    return current_sq, earlier_sq


def inside_search(plies: int, top: int, root_address: int) -> bool:
    """Is the position ``plies`` back from ``top`` strictly after the root
    position (the one after the word at ``root_address``)? That position is
    the one
    after the word at ``top - plies``."""
    return top - plies > root_address


def decides_draw(count: int, first_inside: bool) -> bool:
    """The search's draw rule (the wiki's "Assigning Draw Score", Stockfish's
    ``is_draw(ply)``): a third occurrence anywhere, or a second one whose
    earlier occurrence lies inside the search. The scan meets the nearest
    occurrence first, so ``first_inside`` (that one lies after the root) is
    all that is needed of where they lie."""
    return count >= 2 or (count == 1 and first_inside)


def _backstopped(words: Sequence[int], top: int, *, config: DetectorConfig,
                 steps: Optional[List[Step]], **query: Any) -> Result:
    """:func:`perpetual` on a detector with a backstop: the pools' answer,
    or, when they overflow, the walked list's behind them, from the top
    again (``steps`` are then the walked list's). The upcoming repetition
    is then the walked list's too: it holds every chain, so it meets every
    candidate the pools met before their overflow (the same, at the same
    depths) and the ones after it."""
    answer = _scan(words, top, config=config.replace(backstop=False), steps=steps, **query)
    if not answer.overflow:
        return answer
    if steps is not None:
        steps.clear()
    walked = _scan(words, top, config=config.backstop_config, steps=steps, **query)
    return replace(walked, backstop=True)


def perpetual(words: Sequence[int], top: int, *, root_address: int = -1,
              config: DetectorConfig = SHIPPED, count_limit: int = 4,
              steps: Optional[List["Step"]] = None, occupancy: Optional[int] = None,
              **deprecated: int) -> Result:
    """Scan ``words`` back from address ``top``; return a :class:`Result`.

    ``words`` is the move-list contents (17-bit move words, index = address).
    If ``steps`` is a list, one :class:`Step` per applied word is appended.
    ``config`` gives the ``rules`` (:class:`~axon.hdl.params.Rules`, with
    the golden-only ``CPW``), the ``chains`` and the ``pools`` layout
    (:class:`~axon.hdl.params.DetectorConfig`; its ``depth``, ``scan`` and
    ``upcoming`` change no answer).

    ``root_address`` is the address of the last word of the game history
    (``root``, its old name, stays until 0.5 with a warning): a search
    starts from the position after it (the *root position*), and the words
    above it are the search path. ``-1``, the default, is a search from the
    position before the move list's first word. The answer's ``draw`` says
    whether the position is a draw by repetition for that search: two or
    more earlier occurrences anywhere (a third occurrence), or one that lies
    strictly after the root position. A query at or below the root
    (``top <= root_address``) asks about a position of the game history, where only
    a third occurrence is a draw.

    ``count_limit`` stops the scan once ``count`` equal positions are found,
    but never while the draw is undecided: a lone occurrence at or before
    the root does not stop a scan at limit 1, which goes on for a second one.
    From limit 2 on the root changes when the scan stops not at all.
    ``repetition``, ``distance``, ``count`` and ``stop`` mean what they mean
    without a root.

    With ``occupancy``, the current position's occupied squares as a 64-bit
    bitboard (bit *i* = square *i*), the scan also looks for an *upcoming*
    repetition (``paper`` and ``exact`` rules): the first depth at which
    :func:`upcoming_move` finds a move. The side to move is the other side
    than the piece of the word at ``top``. The answer is exact when the scan
    ends at a barrier or the bottom; one that stops at its count limit or
    overflows may miss an upcoming repetition further back, but what it
    reports is still true, and ``upcoming_exact`` says which. ``upcoming_draw``
    says that the move reaches a
    position strictly after the root, which a search scores a draw at once;
    one that reaches a position at or before the root is a draw only if
    that position has occurred twice already, which the host must look up.
    """
    if deprecated:
        root_address = _deprecated_root(root_address, deprecated)
    _check_query(words, top, root_address, config, count_limit)
    if config.backstop:
        return _backstopped(words, top, root_address=root_address, config=config,
                            count_limit=count_limit, steps=steps, occupancy=occupancy)
    return _scan(words, top, root_address=root_address, config=config, count_limit=count_limit,
                 steps=steps, occupancy=occupancy)


def _deprecated_root(root_address: int, deprecated: Dict[str, int]) -> int:
    # The keyword `root`: the old name of root_address.
    unknown = set(deprecated) - {"root"}
    if unknown:
        raise TypeError(f"perpetual() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    warnings.warn("perpetual(root=...) is now perpetual(root_address=...); root= stays until 0.5",
                  DeprecationWarning, stacklevel=3)
    if root_address != -1:
        raise TypeError("perpetual() got both root_address and its deprecated name root")
    return deprecated["root"]


def _scan(words: Sequence[int], top: int, *, root_address: int, config: DetectorConfig,
          count_limit: int, steps: Optional[List[Step]], occupancy: Optional[int]) -> Result:
    """:func:`perpetual` on one chain list: the pools, or the walked list."""
    rules = config.rules
    if occupancy is not None and not (isinstance(occupancy, int) and 0 <= occupancy < 1 << 64):
        raise ValueError(f"occupancy must be a 64-bit bitboard, not {occupancy!r}")
    # The occupancy the scan looks for an upcoming repetition with, if it does.
    look_ahead = occupancy if rules is not Rules.CPW else None
    mover_colour = 1 - piece_colour(unpack_word(words[top])[2])
    chain_list = GoldenChainList(config)
    address, plies, count, distance = top, 0, 0, None
    upcoming = None
    while True:
        draw = decides_draw(count, distance is not None and
                            inside_search(distance, top, root_address))
        # A lone occurrence at or before the root leaves the draw undecided.
        if count >= count_limit and (draw or count == 0):
            stop = Stop.LIMIT
            break
        if address < 0:
            stop = Stop.BOTTOM
            break
        from_sq, to_sq, piece, barrier = unpack_word(words[address])
        if barrier:
            stop = Stop.BARRIER
            break
        rule = chain_list.apply(piece, from_sq, to_sq)
        if rule is None:
            stop = Stop.OVERFLOW
            break
        plies += 1
        # Same side to move means an even number of plies back.
        found = chain_list.empty() and (rules is Rules.CPW or plies % 2 == 0)
        if found:
            count += 1
            if distance is None:
                distance = plies
        if look_ahead is not None and upcoming is None:
            move = upcoming_move(chain_list, plies, mover_colour, look_ahead)
            if move is not None:
                # The move makes the position after ``top + 1``; it is the one
                # ``plies + 1`` back from there.
                upcoming = (move, plies + 1, inside_search(plies + 1, top + 1, root_address))
        if steps is not None:
            steps.append(chain_list.step(address, words[address], piece, rule, found))
        address -= 1
    return Result(repetition=count > 0, distance=distance, count=count,
                  overflow=stop is Stop.OVERFLOW, plies_scanned=plies, stop=stop, draw=draw,
                  upcoming=upcoming is not None,
                  upcoming_move=upcoming and upcoming[0],
                  upcoming_distance=upcoming and upcoming[1],
                  upcoming_draw=bool(upcoming and upcoming[2]),
                  # Without an occupancy nothing was asked, and nothing is known.
                  upcoming_exact=look_ahead is not None and (upcoming is not None or
                                                             stop in (Stop.BARRIER, Stop.BOTTOM)))
