"""The interface facts of the detector that hardware and software must agree on.

One source for the widths and limits of the query port, the clock counts of
a query, and the detector's configuration: :class:`DetectorConfig`, one
frozen value of its depth, chain count, rules, pool layout, scan and
upcoming block, with its one :meth:`~DetectorConfig.check` and the facts
derived from it (the pool layout, the latency, the worst-case clocks). The
gateware, the golden model, every backend, the board tops, the proofs, the
command line, the host link and the CXXRTL harness generator all take them
from here. This module is the only one that looks at what a rule set, a pool
layout or a scan *is*; everything else asks the configuration.
"""

import enum as py_enum
import warnings
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

from amaranth.lib import enum

from .pools import POOL_KINDS, SPILL_KIND_SLOTS, kind_slots


__all__ = ["COUNT_LIMIT_BITS", "COUNT_LIMIT_MAX", "CYCLE_BITS", "DEPTH_MAX",
           "LATENCY_OVERHEAD", "REFETCH_CLOCKS", "SHORT_ANSWER_CLOCKS", "FRESH_SAVED_CLOCKS",
           "RESTART_CLOCKS", "Written",
           "LEAN_LATENCY_OVERHEAD",
           "WALKED_LATENCY_OVERHEAD", "WALKED_COMPARE_CLOCKS", "walked_word_clocks",
           "BACKSTOP_CHAINS", "BACKSTOP_HANDOFF_CLOCKS",
           "HUNG_MARGIN_CLOCKS",
           "Rules", "Pools", "Scan", "DetectorConfig", "SHIPPED", "CORE", "LEAN", "WALKED",
           "Stop", "gateware_rules", "check_depth", "check_count_limit"]

# ``count_limit`` is a 4-bit port: a query looks for at most 15 equal positions
# (4 is enough for the fivefold rule).
COUNT_LIMIT_BITS = 4
COUNT_LIMIT_MAX = (1 << COUNT_LIMIT_BITS) - 1

# The detector counts the clocks of a query in this many bits. A scan takes
# about one clock a pair of plies, so this bounds the move list.
CYCLE_BITS = 16
DEPTH_MAX = 1 << (CYCLE_BITS - 1)

# The pair scanner (axon.hdl.scanner): clocks from sampling ``start`` to
# ``done``, beyond one per applied pair: the read, ahead, hand and decide
# stages of the last (stopping) pair.
LATENCY_OVERHEAD = 4
# A refetch after a same-side pair costs this many idle clocks: the fetch,
# read and ahead stages refill.
REFETCH_CLOCKS = 3
# A query of the pair scan that starts right after the host wrote the word at
# its top, with no other query between (a search's every node), starts from
# the words just written: it takes SHORT_ANSWER_CLOCKS when its first pair
# stops it for a reason other than an overflow, else FRESH_SAVED_CLOCKS fewer
# than any other query (its first two pairs skip the read and ahead stages).
# One that starts after a write to another word takes RESTART_CLOCKS more:
# it starts as if its top were that word, and restarts.
SHORT_ANSWER_CLOCKS = 1
FRESH_SAVED_CLOCKS = 2
RESTART_CLOCKS = 1
# The lean scanner (axon.hdl.lean): clocks beyond one per applied word, the
# read and hand stages of the word that stops the scan.
LEAN_LATENCY_OVERHEAD = 2
# The walked list (axon.hdl.walkedlist) behind the one-word scan: a word it
# applies takes two clocks (judged and handed over; the list's update)
# besides one for each open chain of its side that the list walks. The word
# that stops the scan takes this many, its judging clock (a stop at an
# overflow costs the word's walk and update instead).
WALKED_LATENCY_OVERHEAD = 1
# A word whose walk is not empty takes this many clocks more: the list
# counts each entry's comparison on the clock after it reads the entry.
WALKED_COMPARE_CLOCKS = 1


def walked_word_clocks(open_chains):
    """Clocks the walked list's scan takes for a word it applies, whose
    side has ``open_chains`` chains open: judged and handed over, the walk
    of those chains, the last comparison counted (if it walks) and the
    update."""
    return 2 + open_chains + (WALKED_COMPARE_CLOCKS if open_chains else 0)

# The backstop behind the pools (axon.hdl.backstop): a walked list of this
# many chains, 16 a side, as many as a side has pieces, so that no legal
# position overflows it. A query whose pools overflow is asked again of it
# on the clock the pools' scan is done; that clock, BACKSTOP_HANDOFF_CLOCKS,
# comes between the pools' clocks and the walked list's.
BACKSTOP_CHAINS = 32
BACKSTOP_HANDOFF_CLOCKS = 1
# A simulated query is hung once it runs this many clocks past its worst
# case: the upcoming answer's 8 clocks after `done` (UPCOMING_CLOCKS, which
# tests/test_hdl_params.py holds equal), and one to see it.
HUNG_MARGIN_CLOCKS = 9


class Rules(py_enum.Enum):
    """The chain-list rules (see :mod:`axon.sim.model.golden`).

    ``PAPER`` is the paper's section 5 (symmetry closes a pair of chains);
    ``EXACT`` adds the link rule, so that equal positions are exactly FIDE's.
    Both are gateware. ``CPW`` is the chessprogramming wiki's pseudo-code,
    in the golden model only, for comparison.
    """
    PAPER = "paper"
    EXACT = "exact"
    CPW   = "cpw"

    @property
    def in_gateware(self) -> bool:
        return self is not Rules.CPW

    @property
    def sided(self) -> bool:
        """Chains of one side never meet the other's: half the slots serve
        each side, and an equal position needs an even number of plies."""
        return self is not Rules.CPW

    @property
    def fide(self) -> bool:
        """Equal positions are exactly FIDE's (the others have known blind spots)."""
        return self is Rules.EXACT

    @property
    def unpaired(self) -> bool:
        """A pool keeps its chains' starts and ends unpaired (the link rule
        needs no pairing, the paper's symmetry rule does)."""
        return self is Rules.EXACT

    @property
    def symmetry(self) -> bool:
        """Two chains that mirror each other close at once (the paper's rule)."""
        return self is Rules.PAPER


class Pools(py_enum.Enum):
    """How a side's chain slots are split into pools (see :mod:`axon.hdl.pools`).

    ``KIND``: a pool per piece kind (the shipped layout). ``SPILL``: a pool
    per kind for the starting material and one spill pool a side for any
    kind (``exact`` rules only). ``SIDE``: one pool a side that keeps each
    chain's kind with it (the lean layout at 4 chains). ``WALKED``: one list a
    side in block RAM, walked an entry a clock for each word
    (:mod:`axon.hdl.walkedlist`; ``exact`` rules and the one-word scan only);
    at 32 chains a side holds all 16 pieces it can have, so it never
    overflows on a legal game (the 1K boards' layout).
    """
    KIND   = "kind"
    SPILL  = "spill"
    SIDE   = "side"
    WALKED = "walked"
    # The walked list's name before 0.4 (deprecated, for one minor version):
    # ``Pools.SERIAL`` is ``Pools.WALKED``, and ``Pools("serial")`` warns.
    SERIAL = "walked"

    @classmethod
    def _missing_(cls, value: object) -> Optional["Pools"]:
        if value == "serial":
            warnings.warn("the pool layout 'serial' is now called 'walked'",
                          DeprecationWarning, stacklevel=2)
            return cls.WALKED
        return None


class Written(py_enum.Enum):
    """What the host wrote since the last query started, as the pair scan
    sees it when the next one starts: ``NOTHING``; the word at the query's
    ``TOP`` last (a search's every node: the query starts from the words
    just written); or another word last (``ELSEWHERE``: the query restarts
    from its top a clock late)."""
    NOTHING   = "nothing"
    TOP       = "top"
    ELSEWHERE = "elsewhere"

    @classmethod
    def before(cls, top: int, last_write: Optional[int]) -> "Written":
        """For a query at ``top``, after a last write at ``last_write``
        (``None``: none since the last query)."""
        if last_write is None:
            return cls.NOTHING
        return cls.TOP if last_write == top else cls.ELSEWHERE


class Scan(py_enum.Enum):
    """How the scanner reads the move list. ``PAIR``: two plies a clock from
    a two-bank move list (:mod:`axon.hdl.scanner`, the shipped scan).
    ``SINGLE``: one a clock from one bank (:mod:`axon.hdl.lean`, the 1K
    boards' lean scan); it has no upcoming repetition."""
    PAIR   = "pair"
    SINGLE = "single"


# Words a build report adds for a layout other than the shipped one.
_POOLS_NOTE = {Pools.KIND: "", Pools.SPILL: "a spill pool a side", Pools.SIDE: "one pool a side",
               Pools.WALKED: "a walked list a side in block RAM"}
_SCAN_NOTE = {Scan.PAIR: "", Scan.SINGLE: "one ply a clock"}


def _names(members):
    return ", ".join(member.value for member in members)


def _member(kind, value, noun):
    """``value`` as a member of the enum ``kind``: a member, or its name."""
    if isinstance(value, kind):
        return value
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{noun} must be one of {_names(kind)}, not {value!r}") from None


def _can_have_upcoming(scan):
    return scan is Scan.PAIR


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def gateware_rules(rules, noun="rules"):
    """``rules`` (a member of :class:`Rules` or its name) if the gateware
    implements it; else a ``ValueError`` naming ``noun``."""
    known = tuple(member for member in Rules if member.in_gateware)
    if isinstance(rules, Rules) and rules in known:
        return rules
    shown = rules.value if isinstance(rules, Rules) else rules
    if shown in (member.value for member in known):
        return Rules(shown)
    raise ValueError(f"{noun} must be one of {_names(known)}, not {shown!r}")


@dataclass(frozen=True)
class DetectorConfig:
    """One detector's configuration: what the gateware is built with and
    what every model of it answers for.

    ``rules``, ``pools`` and ``scan`` take a member of :class:`Rules`,
    :class:`Pools`, :class:`Scan` or its name (``"exact"``). ``upcoming``
    ``None`` means wherever the scan can have it (the pair scan);
    it is resolved on construction, so that ``config.upcoming`` is a bool.
    Construction checks the names only; :meth:`check` checks the rest.

    Attributes
    ----------
    depth : int
        Move-list entries, even (the move list is two banks).
    chains : int
        Chain-list slots, even: half serve each side.
    rules : Rules
    pools : Pools
    scan : Scan
    upcoming : bool
        Also answer the upcoming repetition (:mod:`axon.hdl.upcoming`).
    backstop : bool
        A query whose pools overflow is answered by a walked list behind
        them (:mod:`axon.hdl.backstop`, :attr:`backstop_config`), which no
        legal position overflows; the answer says so (``backstop``).
    """
    depth:    int = 256
    chains:   int = 24
    rules:    Rules = Rules.EXACT
    pools:    Pools = Pools.KIND
    scan:     Scan = Scan.PAIR
    upcoming: Optional[bool] = None
    backstop: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", _member(Rules, self.rules, "rules"))
        object.__setattr__(self, "pools", _member(Pools, self.pools, "pools"))
        object.__setattr__(self, "scan", _member(Scan, self.scan, "scan"))
        if self.upcoming is None:
            object.__setattr__(self, "upcoming", self.upcoming_possible)

    def replace(self, **changes: Any) -> "DetectorConfig":
        """This configuration with ``changes``. Unless given, ``upcoming``
        and ``backstop`` stay what they are, but for a layout that cannot
        have them (so that ``CORE.replace(scan="pair") == CORE``, and
        ``SHIPPED.replace(pools="walked", scan="single")`` has no backstop,
        the walked list being its own)."""
        if "upcoming" not in changes:
            scan = _member(Scan, changes.get("scan", self.scan), "scan")
            changes["upcoming"] = self.upcoming and _can_have_upcoming(scan)
        if "backstop" not in changes and self.backstop is True:
            changes["backstop"] = replace(self, **changes, backstop=False).backstop_possible
        return replace(self, **changes)

    @classmethod
    def checked(cls, config: "DetectorConfig", **options: Any) -> "DetectorConfig":
        """``config`` if it is a configuration that passes :meth:`check`
        (``options`` are its)."""
        if not isinstance(config, cls):
            raise TypeError(f"Configuration must be a {cls.__name__}, not {config!r}")
        return config.check(**options)

    def check(self, *, gateware: bool = True, where: str = "") -> "DetectorConfig":
        """Raise ``TypeError`` or ``ValueError`` for a configuration that
        cannot be built (``gateware``) or modelled; the message names the
        field, prefixed by ``where`` (``"--"`` for options). Returns ``self``."""
        if gateware:
            gateware_rules(self.rules, f"{where}rules")
        check_depth(self.depth, f"{where}depth")
        if not _is_int(self.chains):
            raise TypeError(f"{where}chains must be a positive integer, not {self.chains!r}")
        if self.chains < 1:
            raise ValueError(f"{where}chains must be a positive integer, not {self.chains!r}")
        if self.rules.sided and self.chains % 2:
            raise ValueError(f"{where}chains must be even for the {self.rules.value} rules (half "
                             f"the slots serve each side), not {self.chains!r}")
        if self.pools is Pools.SPILL and not self.rules.unpaired:
            # Its pools share entries by keeping starts and ends unpaired,
            # which the paper's symmetry rule cannot do.
            raise ValueError(f"the spill pool layout needs the exact rules, not "
                             f"{self.rules.value!r}")
        if self.walked:
            # The list walks its entries between the words it is given; only
            # the one-word scan waits for it (the golden model's answers do
            # not depend on the scan).
            if not self.rules.unpaired:
                raise ValueError(f"the walked pool layout needs the exact rules, not "
                                 f"{self.rules.value!r}")
            if gateware and self.pair_scan:
                raise ValueError(f"the walked pool layout needs the {Scan.SINGLE.value!r} scan, "
                                 f"not {self.scan.value!r}")
            if self.hung_after_clocks >= 1 << CYCLE_BITS:
                raise ValueError(f"{where}depth {self.depth} is too deep for a walked list of "
                                 f"{self.chains // 2} entries a side: a query could take more "
                                 f"than {(1 << CYCLE_BITS) - 1} clocks")
        if not isinstance(self.upcoming, bool):
            raise TypeError(f"{where}upcoming must be True or False, not {self.upcoming!r}")
        if self.upcoming and not self.upcoming_possible:
            raise ValueError(f"the upcoming repetition needs the pair scan, not "
                             f"scan {self.scan.value!r}")
        if not isinstance(self.backstop, bool):
            raise TypeError(f"{where}backstop must be True or False, not {self.backstop!r}")
        if self.backstop:
            self._check_backstop(gateware, where)
        return self

    def _check_backstop(self, gateware: bool, where: str) -> None:
        if self.walked:
            raise ValueError(f"the walked pool layout is its own backstop: {where}backstop "
                             f"needs another")
        if not self.rules.unpaired:
            raise ValueError(f"the backstop is a walked list, which needs the exact rules, "
                             f"not {self.rules.value!r}")
        if gateware and not self.pair_scan:
            raise ValueError(f"the backstop needs the {Scan.PAIR.value!r} scan, not "
                             f"{self.scan.value!r}")
        if self.hung_after_clocks >= 1 << CYCLE_BITS:
            raise ValueError(f"{where}depth {self.depth} is too deep for the backstop: a "
                             f"query could take more than {(1 << CYCLE_BITS) - 1} clocks")

    @property
    def backstop_possible(self) -> bool:
        """Whether this layout can have a backstop (:attr:`backstop`): pools
        in logic cells (not the walked list, which is its own), the exact
        rules, the pair scan, and a depth whose slowest query the clock
        counter can count."""
        if self.walked or not self.rules.unpaired or not self.pair_scan:
            return False
        if not _is_int(self.depth) or not _is_int(self.chains) or self.chains < 1:
            return True     # check() says what is wrong
        return replace(self, backstop=True).hung_after_clocks < 1 << CYCLE_BITS

    # -- the pool layout ---------------------------------------------------

    @property
    def backstop_config(self) -> "DetectorConfig":
        """The walked list behind the pools (:attr:`backstop`): this depth
        and rules, :data:`BACKSTOP_CHAINS` chains, the one-word scan."""
        return DetectorConfig(depth=self.depth, chains=BACKSTOP_CHAINS, rules=self.rules,
                              pools=Pools.WALKED, scan=Scan.SINGLE, upcoming=False)

    @property
    def spill_slots(self) -> int:
        """How many of a side's slots form its spill pool (0 but for
        ``Pools.SPILL``): what its kinds' pools for the starting material
        leave, and at least one."""
        if self.pools is not Pools.SPILL:
            return 0
        per_side = self.chains // 2
        return per_side - min(SPILL_KIND_SLOTS, per_side - 1)

    @property
    def side_pools(self) -> Tuple[Tuple[Optional[int], int], ...]:
        """One side's pools: a tuple of ``(kind, slots)``.

        ``kind`` is a Table 1 piece type, or ``None`` for a pool that takes
        every kind (``Pools.SIDE``). Kinds without a pool are left out. With
        24 chains a side has K1 Q2 R3 B3 N3; from 16 chains up every side's
        starting material fits. With ``Pools.SPILL`` these are the kinds'
        pools only (:attr:`spill_slots` gives the spill pool's size).
        """
        per_side = self.chains // 2 - self.spill_slots
        if self.pools in (Pools.SIDE, Pools.WALKED):
            return ((None, per_side),)
        return kind_slots(per_side)

    @property
    def pooled_kinds(self) -> Optional[Tuple[int, ...]]:
        """The piece kinds (Table 1 types) a side has a pool for, or
        ``None`` for every kind: a move of any other kind overflows."""
        if self.keeps_kinds:
            return None
        if self.spills:
            return POOL_KINDS
        return tuple(kind for kind, _ in self.side_pools if kind is not None)

    @property
    def keeps_kinds(self) -> bool:
        """A pool holds chains of any kind and keeps each one's kind with it."""
        return self.pools in (Pools.SIDE, Pools.WALKED)

    @property
    def walked(self) -> bool:
        """A side's chains are one list in block RAM, walked an entry a clock
        (:mod:`axon.hdl.walkedlist`): a query's clocks depend on how many
        chains are open, not on its plies alone."""
        return self.pools is Pools.WALKED

    @property
    def serial(self) -> bool:
        """Deprecated name of :attr:`walked`, for one minor version."""
        warnings.warn("DetectorConfig.serial is now DetectorConfig.walked",
                      DeprecationWarning, stacklevel=2)
        return self.walked

    @property
    def spills(self) -> bool:
        """A side has a spill pool beside its kinds' pools."""
        return self.pools is Pools.SPILL

    def never_overflows(self, material: Dict[int, int]) -> bool:
        """The capacity guarantee: does a side with ``material`` (``{kind:
        count}`` of its non-pawn pieces, Table 1 types) never overflow,
        whatever it plays? A chain is one displaced piece, so a side needs
        at most as many chains of a kind as it has pieces of that kind.
        Pools by kind hold them when each kind fits its pool; one pool a
        side when the pieces fit it; the spill layout when the pieces beyond
        each kind's pool, summed over the kinds, fit the spill pool (a
        spilled entry of a kind is only ever placed while that kind's pool
        is full, so the spill pool never holds more of a kind than the
        kind's pieces beyond its pool). With a backstop, the walked list
        behind the pools answers whatever they overflow."""
        if self.backstop:
            return self.backstop_config.never_overflows(material)
        layout = dict(self.side_pools)
        if self.keeps_kinds:
            return sum(material.values()) <= layout[None]
        beyond = sum(max(0, count - layout.get(kind, 0)) for kind, count in material.items())
        return beyond <= self.spill_slots

    # -- the scan and its clocks ---------------------------------------------

    @property
    def pair_scan(self) -> bool:
        """Two plies a clock from a two-bank move list (else one from one)."""
        return self.scan is Scan.PAIR

    @property
    def upcoming_possible(self) -> bool:
        """Whether this scan can have the upcoming repetition (the pair scan can)."""
        return _can_have_upcoming(self.scan)

    @property
    def latency_overhead(self) -> int:
        """Clocks of a query beyond one per applied pair (pair scan) or word
        (beyond the walks' clocks too, for the walked list)."""
        if self.walked:
            return WALKED_LATENCY_OVERHEAD
        return LATENCY_OVERHEAD if self.pair_scan else LEAN_LATENCY_OVERHEAD

    @property
    def latency_fixed(self) -> bool:
        """Whether a legal game's query takes :meth:`latency` clocks, known
        from its plies alone (not with the walked list, whose walks depend
        on the chains open: :func:`axon.sim.model.walked.walked_clocks`;
        nor with a backstop, which walks them when the pools overflow)."""
        return not self.walked and not self.backstop

    @property
    def latency_words(self) -> str:
        """:meth:`latency` in words, for a query that applies P plies."""
        if self.walked:
            return f"2P + W + {WALKED_LATENCY_OVERHEAD}"
        if self.pair_scan:
            return (f"floor(P/2) + {LATENCY_OVERHEAD}; right after the word at the top is "
                    f"written, {SHORT_ANSWER_CLOCKS} when P <= 1 (but an overflow), else "
                    f"floor(P/2) + {LATENCY_OVERHEAD - FRESH_SAVED_CLOCKS}; right after "
                    f"another word, floor(P/2) + {LATENCY_OVERHEAD + RESTART_CLOCKS}")
        return f"P + {LEAN_LATENCY_OVERHEAD}"

    def latency(self, plies_scanned: int, *, written: Written = Written.NOTHING,
                stop: Optional["Stop"] = None) -> int:
        """Clocks from the clock that samples ``start`` to ``done``, for a
        move list whose words alternate sides (every legal game): two plies
        a clock, or one with the lean scan. The walked list's depend on the
        chains it walks too (:attr:`latency_fixed`), so it has none.

        The pair scan's depend on what the host ``written`` since the last
        query (:class:`Written`): right after the word at the top, a query
        takes :data:`SHORT_ANSWER_CLOCKS` when its first pair stops it
        (``plies_scanned`` 0 or 1) for a reason other than an overflow
        (``stop``), else :data:`FRESH_SAVED_CLOCKS` fewer; after another
        word, :data:`RESTART_CLOCKS` more."""
        if self.walked:
            raise ValueError("a walked list's clocks depend on the chains it walks: "
                             "see axon.sim.model.walked.walked_clocks")
        if not self.pair_scan:
            return plies_scanned + LEAN_LATENCY_OVERHEAD
        clocks = plies_scanned // 2 + LATENCY_OVERHEAD
        if written is Written.ELSEWHERE:
            return clocks + RESTART_CLOCKS
        if written is Written.NOTHING:
            return clocks
        if plies_scanned <= 1 and stop is not Stop.OVERFLOW:
            return SHORT_ANSWER_CLOCKS
        return clocks - FRESH_SAVED_CLOCKS

    def worst_case_clocks(self, top: int) -> int:
        """Clocks from the clock that samples ``start`` to the one where
        ``done`` is high, at most, for a query whose top of stack is
        ``top``: ``top + 1`` words can be read, one clock each in the worst
        case (after a refetch), plus the pipeline and one refetch. The lean
        scan reads one a clock always and never refetches. The walked list
        takes :func:`walked_word_clocks` a word, walking at most a side's
        entries for it.
        The termination proof proves this bound. A backstop adds its walked
        list's, after the pools' scan."""
        if self.backstop:
            return (self.replace(backstop=False).worst_case_clocks(top) +
                    BACKSTOP_HANDOFF_CLOCKS + self.backstop_config.worst_case_clocks(top))
        if self.walked:
            return ((top + 1) * walked_word_clocks(self.chains // 2) +
                    WALKED_LATENCY_OVERHEAD)
        if self.pair_scan:
            return top + 1 + LATENCY_OVERHEAD + REFETCH_CLOCKS + RESTART_CLOCKS
        return top + 1 + LEAN_LATENCY_OVERHEAD

    @property
    def hung_after_clocks(self) -> int:
        """Clocks after the starting one at which a simulated query is given
        up as hung, on every backend: the worst case at the top of the move
        list, and :data:`HUNG_MARGIN_CLOCKS` more, which turn a hung design
        into a failure, not a hang."""
        return self.worst_case_clocks(self.depth - 1) + HUNG_MARGIN_CLOCKS

    # -- names -------------------------------------------------------------

    @property
    def note(self) -> str:
        """Words for a layout other than the shipped one (``""`` for it),
        each after a comma: ``", one pool a side, one ply a clock"``, and
        ``", no backstop"`` for pools that could have one and have not."""
        # The walked list has its own pace, one word at a time as it is ready.
        scan = "" if self.walked else _SCAN_NOTE[self.scan]
        backstop = "no backstop" if not self.backstop and self.backstop_possible else ""
        return "".join(f", {words}" for words in (_POOLS_NOTE[self.pools], scan, backstop)
                       if words)

    @property
    def key(self) -> str:
        """A short name of the whole configuration, for file names and cache keys."""
        return (f"d{self.depth}-c{self.chains}-{self.rules.value}-{self.pools.value}-"
                f"{self.scan.value}{'-upcoming' if self.upcoming else ''}"
                f"{'-backstop' if self.backstop else ''}")


# The shipped configuration: what a detector, a session and a board are built
# with unless told otherwise. Its backstop makes it exact on any legal
# position: what the pools by kind overflow, the walked list behind them
# answers.
SHIPPED = DetectorConfig(backstop=True)

# The repetition core alone: the shipped configuration without the upcoming
# block. It is the embedding API's default (`AxonDetector()`), and what the
# core's clock and size figures are about; the block costs area, not clock
# of the core's loop.
CORE = SHIPPED.replace(upcoming=False)

# The 1K boards' (1280 logic cells) lean configuration: 4 chains in one
# unpaired pool a side that keeps each chain's kind, scanned one word a clock
# from a one-bank move list. With the two-plies-a-clock scanner the same
# chains and link need about 1440 logic cells: more than a 1K board has.
LEAN = DetectorConfig(chains=4, pools=Pools.SIDE, scan=Scan.SINGLE)

# The 1K boards' configuration: the one-word scan with a walked chain list in
# block RAM, 16 entries a side, as many as a side has pieces, so that no
# legal game overflows. The chains cost block RAM, not logic cells.
WALKED = DetectorConfig(chains=32, pools=Pools.WALKED, scan=Scan.SINGLE)

# The walked list's names before 0.4, deprecated, for one minor version.
SERIAL = WALKED
SERIAL_LATENCY_OVERHEAD = WALKED_LATENCY_OVERHEAD
SERIAL_COMPARE_CLOCKS = WALKED_COMPARE_CLOCKS
serial_word_clocks = walked_word_clocks


if TYPE_CHECKING:
    # An Amaranth enum is a Python enum with a shape; a type checker reads
    # Python's (Amaranth's carries no type information).
    from enum import Enum as ShapedEnum
else:
    ShapedEnum = enum.Enum


# The shape is a class argument of Amaranth's enum, which Python's does not take.
class Stop(ShapedEnum, shape=2):  # type: ignore[call-arg]
    """Why a scan ended: the ``stop`` field of the answer, and the golden model's."""
    BARRIER  = 0  # read a word with the barrier bit: an irreversible move
    BOTTOM   = 1  # applied the word at address 0
    LIMIT    = 2  # found ``count_limit`` equal positions
    OVERFLOW = 3  # a move needed a new chain and its pool had no free slot, or
                  # the list is impossible: a move met two chains of its piece
                  # at once, or moved nothing


def check_depth(depth, name="Move-list depth"):
    """Refuse a move-list depth that is not an even integer in 2..DEPTH_MAX.

    Even: the move list is two banks, and a scan reads a pair of plies a clock.
    At most DEPTH_MAX: the clock counter's width.
    """
    message = f"{name} must be an even integer in 2..{DEPTH_MAX}, not {depth!r}"
    # Not a number at all is a TypeError; a number that will not do, as for
    # the chain count, a ValueError.
    if not _is_int(depth):
        raise TypeError(message)
    if depth < 2 or depth % 2 or depth > DEPTH_MAX:
        raise ValueError(message)


def check_count_limit(count_limit):
    """Refuse a count limit that the 4-bit port cannot carry."""
    if not _is_int(count_limit) or not 0 <= count_limit <= COUNT_LIMIT_MAX:
        raise ValueError(f"count_limit must be in 0..{COUNT_LIMIT_MAX}, not {count_limit!r}")
