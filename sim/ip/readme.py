"""The IP package's README: ``templates/README.md`` filled in from the
gateware's own facts.

Every width, field offset, code and latency comes from the layouts and
parameters the gateware is built from (:class:`~axon.hdl.result.ResultLayout`,
:class:`~axon.hdl.result.UpcomingLayout`, :class:`~axon.hdl.word.MoveWord`,
:class:`~axon.hdl.params.Stop`, :class:`~axon.hdl.params.DetectorConfig`), as
the header ``axon_detector_params.vh`` does, so that a field added to a
layout appears in both. The timing diagram is drawn by
:mod:`~axon.sim.ip.timing`.
"""

from typing import Mapping, Sequence

from amaranth.hdl import Shape
from amaranth.lib import data

from ...hdl.params import (BACKSTOP_HANDOFF_CLOCKS, COUNT_LIMIT_MAX, WALKED_COMPARE_CLOCKS,
                           WALKED_LATENCY_OVERHEAD, DetectorConfig, Stop)
from ...hdl.result import ResultLayout, UpcomingLayout
from ...hdl.upcoming import UPCOMING_CLOCKS
from ...hdl.version import VERSION
from ...hdl.word import PIECE_LETTERS, WORD_BITS, MoveWord
from .template import fill
from .timing import EXAMPLE_COUNT_LIMIT, EXAMPLE_WORDS, draw, query_timing


__all__ = ["VERILATOR_FLOOR", "WORD_MEANINGS", "RESULT_MEANINGS", "UPCOMING_MEANINGS",
           "STOP_MEANINGS", "configuration_text", "field_table", "readme_text"]

# The oldest Verilator that cocotb 2 runs with (its VPI); the package's
# pytest file skips below it.
VERILATOR_FLOOR = "5.036"

WORD_MEANINGS = {
    "from_sq": "the square the piece moves from (0 = a1 ... 63 = h8)",
    "to_sq":   "the square it moves to",
    "piece":   "the moving piece's code (below): kind in bits 0-2, colour in bit 3 (1 = Black)",
    "barrier": "no earlier position can recur after this move (below)",
}
RESULT_MEANINGS = {
    "repetition":    "an earlier position equals the queried one",
    "draw":          "a draw by repetition for the search from the root: a third occurrence "
                     "(two earlier equal positions anywhere), or one earlier equal position "
                     "after the root position",
    "overflow":      "a move needed a chain slot that its pool did not have; what was found "
                     "before stays valid",
    "stop":          "why the scan ended (below)",
    "count":         "equal earlier positions found: `count_limit`, or fewer when the scan "
                     "ended first; 2 at limit 1 when the first lay at or before the root",
    "distance":      "plies back to the most recent equal position; 0 if none",
    "plies_scanned": "words applied (P in the latency)",
    "backstop":      "the pools overflowed and the backstop, a walked list behind them that no "
                     "legal position overflows, gave this answer",
}
UPCOMING_MEANINGS = {
    "found":    "the side to move can reach an earlier position with one move",
    "draw":     "that earlier position lies after the root: a search scores the move a draw",
    "from_sq":  "the move's from-square (of the most recent such position)",
    "to_sq":    "the move's to-square",
    "distance": "plies from the position after that move back to the earlier one: even, "
                "at least 4",
    "exact":    "the answer is complete: a move was found, or the scan ended at a barrier or "
                "the bottom, so `found` 0 is a true \"none\"; 0 when a count limit or an "
                "overflow stopped the scan first (then \"none within `plies_scanned`\")",
}
STOP_MEANINGS = {
    Stop.BARRIER:  "read a word with the barrier bit (not applied)",
    Stop.BOTTOM:   "applied the word at address 0",
    Stop.LIMIT:    "found `count_limit` equal positions (and the draw is decided)",
    Stop.OVERFLOW: "a move needed a chain slot its pool did not have, or the list is no legal "
                   "game's",
}
def _bits(offset: int, width: int) -> str:
    return str(offset) if width == 1 else f"{offset + width - 1}:{offset}"


def field_table(layout: data.Layout, meanings: Mapping[str, str]) -> str:
    """A Markdown table of ``layout``'s fields, bit 0 first: name, bits,
    width and what each means. Every field must have its meaning here: a
    field added to a layout without one is refused, not printed bare."""
    missing = [name for name, _ in layout if name not in meanings]
    if missing:
        raise KeyError(f"no meaning for the field(s) {', '.join(missing)}")
    rows = ["| field | bits | width | meaning |", "|---|---|---|---|"]
    for name, field in sorted(layout, key=lambda item: item[1].offset):
        width = Shape.cast(field.shape).width
        rows.append(f"| `{name}` | {_bits(field.offset, width)} | {width} | "
                    f"{meanings[name]} |")
    return "\n".join(rows)


def _piece_table() -> str:
    kinds = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}
    rows = ["| code | piece |", "|---|---|"]
    for code, letter in sorted(PIECE_LETTERS.items()):
        if letter == "-":
            rows.append(f"| {code} | none (a null move) |")
        else:
            colour = "white" if letter.isupper() else "black"
            rows.append(f"| {code} | {colour} {kinds[letter.upper()]} |")
    return "\n".join(rows)


def _stop_table() -> str:
    rows = ["| code | name | meaning |", "|---|---|---|"]
    rows += [f"| {member.value} | `{member.name}` | {STOP_MEANINGS[member]} |" for member in Stop]
    return "\n".join(rows)


def _backstop_latency(config: DetectorConfig) -> str:
    if not config.backstop:
        return ""
    worst = config.worst_case_clocks(config.depth - 1)
    return (f" A query whose pools overflow is answered by the backstop (`backstop` set): "
            f"it takes the pools' clocks up to their overflow, {BACKSTOP_HANDOFF_CLOCKS} "
            f"more to hand it over, then the walked list's from the top: 2 clocks a word it "
            f"applies, plus 1 for each open chain of the word's side that it walks and "
            f"{WALKED_COMPARE_CLOCKS} more when it walks any, and {WALKED_LATENCY_OVERHEAD} "
            f"for the word that stops it. No query takes more than {worst} clocks.")


def configuration_text(config: DetectorConfig) -> str:
    """The configuration in words, as the README and the core's description give it."""
    return (f"depth {config.depth}, chains {config.chains}, rules {config.rules.value}"
            f"{config.note}, {'with' if config.upcoming else 'without'} the upcoming block")


def readme_text(config: DetectorConfig, lines: Sequence[Mapping], *, vlnv: str,
                vlnv_name: str, groups: Mapping[str, str]) -> str:
    """The package's README for a detector of ``config`` whose expectations
    are ``lines`` (header first); ``groups`` names their groups."""
    counts = {group: sum(line["group"] == group for line in lines[1:]) for group in groups}
    timing = query_timing(config)
    top = len(EXAMPLE_WORDS) - 1
    plies = len(EXAMPLE_WORDS)
    diagram_text = (
        f"The diagram shows a query at address {top} right after the host wrote "
        f"addresses {top - 1} and {top} (a search asks so at every node), after an earlier "
        f"query whose answer is still shown. The list holds two knight shuffles from the "
        f"start position (Ng1-f3 Ng8-f6 Nf3-g1 Nf6-g8, twice), `root_address` is -1 and "
        f"`count_limit` {EXAMPLE_COUNT_LIMIT}: the scan applies all {plies} words, so C = "
        f"{timing.clocks}. One column of `clk` is one clock period; `x` marks a value that "
        f"means nothing then.")
    return fill("README.md", {
        "vlnv": vlnv, "vlnv_name": vlnv_name, "version": VERSION,
        "configuration": configuration_text(config),
        "depth": config.depth,
        "addr_bits": Shape.cast(range(config.depth)).width,
        "root_address_bits": Shape.cast(range(-1, config.depth)).width,
        "word_bits": WORD_BITS,
        "result_bits": ResultLayout(config.depth, backstop=config.backstop).size,
        "upcoming_bits": UpcomingLayout(config.depth).size,
        "count_limit_max": COUNT_LIMIT_MAX,
        "word_table": field_table(MoveWord.as_shape(), WORD_MEANINGS),
        "barrier_bit": dict((name, field.offset) for name, field in MoveWord.as_shape())["barrier"],
        "piece_table": _piece_table(),
        "result_table": field_table(ResultLayout(config.depth, backstop=config.backstop),
                                    RESULT_MEANINGS),
        "stop_table": _stop_table(),
        "upcoming_table": field_table(UpcomingLayout(config.depth), UPCOMING_MEANINGS),
        "upcoming_clocks": UPCOMING_CLOCKS,
        "diagram_text": diagram_text,
        "diagram": draw(timing, top),
        "latency": (config.latency_words + ", for a move list whose words alternate sides "
                    "(every legal game)"),
        "backstop_latency": _backstop_latency(config),
        "verilator_floor": VERILATOR_FLOOR,
        "groups": "\n".join(f"| `{group}` | {counts[group]} | {what} |"
                            for group, what in groups.items()),
    })
