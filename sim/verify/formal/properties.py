"""The table of properties: what ``axon prove`` proves, and how."""

import functools
from dataclasses import dataclass
from typing import Callable

from ....hdl.params import LEAN, SHIPPED, WALKED, walked_word_clocks
from .harness import (DEFAULT_CHAINS, DEFAULT_POOL_SLOTS, LEAN_POOL_SLOTS, PROOF_CONFIG,
                      PROOF_LEAN_CONFIG)
from .termination import DEFAULT_DEPTH, termination
from .pools import (capacity, paper_bookkeeping, paper_follows_rules, unpaired_bookkeeping,
                    unpaired_follows_rules)
from .spill import capacity_spill
from .end_to_end import END_TO_END_BROKEN, END_TO_END_DEPTH, end_to_end_lean, end_to_end_pair
from .writes import (MIRROR_BROKEN, MIRROR_DEPTH, lean_refused_writes_keep_words,
                     mirror_keeps_words, refused_writes_keep_words, stable_results,
                     writes_refused)
from .frame_parser import frame_parser
from .upcoming import upcoming_single_chain
from .backstop import backstop_takes_overflows
from .walked import (WALKED_END_TO_END, WALKED_END_TO_END_BROKEN, WALKED_PROOF_ENTRIES,
                     capacity_walked, end_to_end_walked, termination_walked)


@dataclass(frozen=True)
class Property:
    name:        str
    description: str
    build:       Callable            # build(broken) -> Elaboratable
    mode:        str                 # "prove" (k-induction) or "bmc"
    bmc_depth:   int                 # clocks: induction length, or clocks checked
    engine:      str = "smtbmc z3"   # the SymbiYosys engine line
    # For a pool property: sized(slots) -> build, the same harness at any
    # pool size (tests/test_formal.py proves it at every shipped size).
    sized:       Callable = None
    # For a property of the scan proven at the shipped move-list depth:
    # at_depth(depth) -> build, the same harness at any depth
    # (tests/test_formal.py proves it at every power of two up to it).
    at_depth:    Callable = None
    # The broken variants, each passed to ``build`` as ``broken``: every one
    # must fail. Most properties have one.
    broken_variants: tuple = (True,)
    # Minutes rather than seconds: the default test run leaves it (and its
    # broken variants) to --runslow; `axon prove` runs it.
    slow:        bool = False
    # Clocks from power-up its broken variants need to fail, if more than
    # the runner's least (``BROKEN_BMC_DEPTH``).
    broken_bmc_depth: int = 0
    # The engine of its broken variants, if not ``engine`` (the one whose
    # counterexample traces SymbiYosys can read back).
    broken_engine: str = ""


# The default test run proves the walked scan's termination on a move list
# this deep (seconds); the shipped depth takes minutes (--runslow).
WALKED_TERMINATION_SMALL_DEPTH = 16
# The pair scan's detector without the backstop, whose scan and pools the
# properties below prove; the backstop's own are the `-backstop` ones.
POOLS = SHIPPED.replace(backstop=False)
# The walked end-to-end check is bounded. SMT-BMC with yices on the design
# Yosys has simplified first (--syn) takes about a minute to 10 clocks and
# five more for the 11th; ABC's bmc3 reached 16, but it runs yosys-abc,
# which no PyPI package installs.
WALKED_END_TO_END_CLOCKS = 11
WALKED_END_TO_END_ENGINE = "smtbmc --syn yices"
# The inductions that yices closes in a fraction of z3's time (on the
# machine of docs/formal.md's figures: end-to-end 6 s against 25, the
# termination 3 against 7, stable results 4 against 9); z3 is the faster on
# the others, by far on the paired pools' capacity (3 s against 113).
YICES = "smtbmc yices"
# The walked detector at the proofs' small size (8 words, 2 entries a side).
WALKED_SMALL = WALKED.replace(depth=8, chains=4)
# The pair detector with a backstop at the proofs' small size (its walked
# list keeps its 16 entries a side).
BACKSTOP_SMALL = PROOF_CONFIG.replace(backstop=True, upcoming=False)


def _pool_property(name, description, sized, depth, slots=DEFAULT_POOL_SLOTS):
    return Property(name, description, sized(slots), "prove", depth, sized=sized)


def _depth_property(name, description, at_depth, depth, **options):
    return Property(name, description, at_depth(DEFAULT_DEPTH), "prove", depth,
                    at_depth=at_depth, **options)


def _termination_at(config):
    """The termination harness of ``config``'s scan as a function of the move-list depth."""
    return lambda depth: functools.partial(termination, config=config.replace(depth=depth))


PROPERTIES = [
    _depth_property(
        "termination",
        f"a started query raises done within top + {POOLS.worst_case_clocks(0)} clocks, on a "
        f"{DEFAULT_DEPTH}-word move list, whatever it reads and the chain list says",
        # The ranking invariant closes the induction at any depth; 8 clocks
        # flush the scanner's pipeline (fetch, read, ahead, hand, decide).
        _termination_at(POOLS), 8, engine=YICES),
    _pool_property(
        "bookkeeping-exact",
        "the unpaired pool: open-chain count == valid starts (== valid ends until "
        "an overflow); empty <=> no start valid; a move frees or takes at most one start",
        unpaired_bookkeeping, 2),
    _pool_property(
        "bookkeeping-paper",
        "the paired pool of the paper's rules: open-chain count == occupied slots; "
        "empty <=> no slot occupied; a move frees at most two slots or takes one",
        paper_bookkeeping, 2),
    _pool_property(
        "rules-exact",
        "the unpaired pool of one kind (compares a clock ahead) holds the same starts "
        "and ends in the same entries as a plain model of sim/model/unpaired.py, and "
        "overflows on the same moves",
        unpaired_follows_rules, 2),
    Property("bookkeeping-exact-lean",
             "the same for the lean layout's pool (2 entries), which keeps each entry's kind",
             unpaired_bookkeeping(LEAN_POOL_SLOTS, kinds=True), "prove", 2),
    Property("rules-exact-lean",
             "the same for the lean layout's pool, which keeps each entry's kind",
             unpaired_follows_rules(LEAN_POOL_SLOTS, kinds=True), "prove", 2),
    _pool_property(
        "rules-paper",
        "the paired pool of the paper's rules holds the same chains in the same slots "
        "as a plain first-match model of transition, reflection and symmetry",
        paper_follows_rules, 2),
    _pool_property(
        "capacity",
        "a pool of n entries for one kind never overflows while the side has at most "
        "n pieces of that kind (a model of the pieces' squares drives the moves)",
        capacity, 2),
    _pool_property(
        "capacity-paper",
        "the same for the paired pool of the paper's rules",
        functools.partial(capacity, paired=True), 2),
    Property("capacity-spill",
             "a side of the spill layout (a pool for each of two kinds, one spill entry "
             "that takes either) never overflows while its pieces beyond each kind's pool, "
             "summed, fit the spill pool",
             capacity_spill(), "prove", 2),
    Property("capacity-lean",
             "the lean layout's pool (2 entries for a side, any kinds) never overflows "
             "while the side has at most 2 non-pawn pieces",
             capacity(LEAN_POOL_SLOTS, kinds=True), "prove", 2),
    Property("capacity-paper-lean",
             "the same for the lean layout's paired pool of the paper's rules",
             capacity(LEAN_POOL_SLOTS, paired=True, kinds=True), "prove", 2),
    Property("end-to-end",
             f"on a free {END_TO_END_DEPTH}-word move list and a free root, the detector's "
             "done (two plies a clock, pools by kind) comes with repetition, draw, count, "
             "distance, plies and stop reason exactly as the golden scan loop says, with the "
             "rules' plain model for the pools; broken variants blind to chains and to the "
             "root",
             end_to_end_pair, "prove", 2, engine=YICES,
             broken_variants=tuple(END_TO_END_BROKEN)),
    Property("end-to-end-lean",
             f"on a free {END_TO_END_DEPTH}-word move list and a free root, the lean "
             "detector's done comes with repetition, draw, count, distance, plies and stop "
             "reason exactly as the golden scan loop says, with the rules' plain model for "
             "the pools; the same broken variants",
             end_to_end_lean, "prove", 2, engine=YICES,
             broken_variants=tuple(END_TO_END_BROKEN)),
    Property("stable-results",
             "done and result hold from done until the next start, whatever the "
             "write port does",
             stable_results, "prove", 12, engine=YICES),
    Property("writes-refused",
             "the detector refuses host writes on the starting clock and every busy "
             "clock of a query, and says so",
             writes_refused, "prove", 4),
    Property("refused-writes-keep-words",
             "the move list stores every write it takes and no write it refuses "
             "(both rows of each bank read in turn: every word checked every other clock)",
             refused_writes_keep_words, "prove", 4),
    Property("mirror-keeps-words",
             "the two-bank move list's three copies (the scanner's banks, the copy for the "
             "word below a write, the host's) each store every write it takes and no write it "
             "refuses; a bank returns the row it read last (the scanner's, or on a write the "
             "one of the pair two and three below it) until it reads again, the below copy the "
             "word below the last write: the contract the end-to-end proof takes as given; "
             "while the host's last write is fresh the scanner is given its address and word, "
             "the word below it and the pair two and three below it, as written "
             f"({MIRROR_DEPTH} words); broken: a mirror register that keeps its word when its "
             "address is rewritten, a below copy that misses a write that follows another",
             mirror_keeps_words, "prove", 2, broken_variants=tuple(MIRROR_BROKEN)),
    _depth_property(
        "termination-lean",
        f"the same for the 1K boards' lean scan (one ply a clock): within top + "
        f"{LEAN.worst_case_clocks(0)} clocks",
        _termination_at(LEAN), 3),
    Property("refused-writes-keep-words-lean",
             "the lean one-bank move list stores every write it takes and no write it "
             "refuses (its words read in turn, each every fourth clock): the contract the "
             "lean end-to-end proof takes as given",
             lean_refused_writes_keep_words, "prove", 6),
    Property("stable-results-lean",
             "the same for the lean detector",
             functools.partial(stable_results, config=PROOF_LEAN_CONFIG), "prove", 12),
    Property("writes-refused-lean",
             "the same for the lean detector and its one-bank move list",
             functools.partial(writes_refused, config=PROOF_LEAN_CONFIG), "prove", 4),
    Property("upcoming-single-chain",
             "upcoming implies that after an odd number of words, distance - 1, exactly one "
             "chain was open and it was the side to move's, in the pools or in the backstop's "
             "walked list",
             upcoming_single_chain, "prove", 12),
    Property("capacity-walked",
             f"a side of the walked list in block RAM with {WALKED_PROOF_ENTRIES} entries "
             f"(any kinds) never overflows while the side has at most {WALKED_PROOF_ENTRIES} "
             "pieces; its rows hold the moved pieces' squares (a model of the pieces drives "
             "the moves), and the copies of each side's row 0 (its lone chain, for the "
             "upcoming repetition) hold the rows; broken: one entry fewer",
             capacity_walked(), "prove", 2,
             # Filling the short list takes a clear and an insert for each
             # piece, each walking the entries before it and counting the
             # last comparison: 12 clocks for 3.
             broken_bmc_depth=12),
    Property("termination-walked",
             f"the walked scan with its list ({WALKED.chains // 2} entries a side) raises done "
             f"within (top + 1) * {walked_word_clocks(WALKED.chains // 2)} + 1 clocks, on a "
             f"{WALKED_TERMINATION_SMALL_DEPTH}-word move list, whatever it reads; broken: "
             "two clocks a word",
             functools.partial(termination_walked,
                               config=WALKED.replace(depth=WALKED_TERMINATION_SMALL_DEPTH)),
             "prove", 2),
    Property("termination-walked-shipped",
             f"the same on the shipped {WALKED.depth}-word move list",
             functools.partial(termination_walked, config=WALKED), "prove", 2, slow=True),
    Property("end-to-end-walked",
             f"from power-up, the walked detector ({WALKED_END_TO_END.depth} words, "
             f"{WALKED_END_TO_END.chains // 2} entries a side) answers every query, every "
             "field and its clock count, as the golden scan loop with the rules' plain "
             "model and two clocks a word plus one a walked chain and one to count a "
             "walk's last comparison; broken: blind to "
             "chains",
             end_to_end_walked, "bmc", WALKED_END_TO_END_CLOCKS,
             engine=WALKED_END_TO_END_ENGINE, broken_engine="smtbmc z3",
             broken_variants=tuple(WALKED_END_TO_END_BROKEN), slow=True,
             broken_bmc_depth=16),
    Property("stable-results-walked",
             "the same for the walked detector",
             functools.partial(stable_results, config=WALKED_SMALL), "prove", 12),
    Property("writes-refused-walked",
             "the same for the walked detector (its one-bank move list is the lean one: "
             "refused-writes-keep-words-lean)",
             functools.partial(writes_refused, config=WALKED_SMALL), "prove", 4),
    Property("stable-results-backstop",
             "the same for the detector with a backstop (its walked list of 16 entries a "
             "side), whose answer is the walked list's once the pools overflow",
             functools.partial(stable_results, config=BACKSTOP_SMALL), "prove", 12,
             slow=True),
    Property("writes-refused-backstop",
             "the same for the detector with a backstop, which reads the move list through "
             "the host's copy while it answers",
             functools.partial(writes_refused, config=BACKSTOP_SMALL), "prove", 4),
    Property("backstop-takes-overflows",
             "with a backstop, an answer that says overflow is the backstop's: the pools' "
             "overflows never reach the host (the walked list's own never happen while a "
             "side has no more pieces than its entries: capacity-walked); broken: without "
             "the backstop",
             functools.partial(backstop_takes_overflows, config=BACKSTOP_SMALL), "prove", 4),
    Property("frame-parser",
             "the parser ends every frame where an independent framer does, and "
             "passes exactly the frames whose CRC matches",
             frame_parser, "prove", 2),
]


# The pair scan's end-to-end proof at the shipped chain count (K1 Q2 R3 B3 N3 a
# side): the same script, minutes rather than seconds (tests/test_formal.py,
# --runslow).
END_TO_END_SHIPPED = Property(
    "end-to-end", f"the same at the shipped {DEFAULT_CHAINS} chains",
    functools.partial(end_to_end_pair, chains=DEFAULT_CHAINS), "prove", 2)


def properties_markdown(properties=PROPERTIES):
    """The table of properties as Markdown: name, mode, length and what each
    says. ``axon prove --list`` prints it and the docs include it, so each
    description is written once, here."""
    modes = {"prove": "k-induction", "bmc": "bounded"}
    rows = ["| property | mode | length | what it says |", "|---|---|---|---|"]
    for prop in properties:
        length = f"k = {prop.bmc_depth}" if prop.mode == "prove" else f"{prop.bmc_depth} clocks"
        rows.append(f"| `{prop.name}` | {modes[prop.mode]} | {length} | {prop.description} |")
    return "\n".join(rows) + "\n"
