"""``axon explain``: one query, step by step, in the columns of the paper's Table 2.

Table 2 of Vučković and Vidanović (section 5.3) shows the knight swap
C4A3 D2C4 A3B1 B1D2 with, for every move, the chain list (``LIST_OF_MOVES``),
the number of unclosed chains and the rule applied. Two orders are offered:

``scan``
    The hardware order: the words newest-first, as the detector applies
    them, with the golden model's chains (``from`` is the square in the
    earlier position, ``to`` the square now).

``paper``
    The same algebra oldest-first, as Table 2 reads. The window is the last
    ``distance`` plies if a repetition was found, else the plies the scan
    applied. It is computed by running the golden model on the *mirrored*
    window (every word's from and to swapped, the window reversed, at
    addresses ``0..k-1`` with ``top = k - 1``), so that the chain list grows
    from the oldest move; every chain is shown with from and to swapped back.
    The mirrored run has a slot for every ply of the window on each side, so
    it never overflows where the detector did not.

In both orders the chain-list column lists White's chains, then Black's (the
golden model keeps one pool of slots per side), and shows the list after the move's
transition or insertion and before the closing rules of that row (reflection,
symmetry, link) free any slot, as Table 2 does for B1D2; the next row, or the
final ``---`` line, shows what is left.
"""

from dataclasses import dataclass
from typing import Tuple

from ...hdl.word import PIECE_LETTERS, pack_word, piece_colour, square_name, unpack_word
from ...hdl.params import SHIPPED
from .golden import GoldenChainList, Result, Rules, Stop, perpetual


__all__ = ["table_rows", "ExplainRow", "Explanation", "explain_query", "for_side", "ORDERS", "SIDES",
           "format_table"]

ORDERS = ("paper", "scan")
SIDES = ("both", "white", "black")


@dataclass(frozen=True)
class ExplainRow:
    """One applied move.

    Members
    -------
    address : int
        Move-list address of the word (in the detector's move list).
    word : int
        The move word as stored.
    move : str
        The move in the paper's notation, ``C4A3``.
    chains : tuple of str
        The chain list after the transition or insertion, ``("N_C4A3", ...)``.
    unclosed : int
        ``len(chains)``.
    rule : str
        What happened, in the paper's words.
    found : bool
        Every chain closed after an even number of plies (scan order only;
        in paper order the final line says it).
    """
    address:  int
    word:     int
    move:     str
    chains:   Tuple[str, ...]
    unclosed: int
    rule:     str
    found:    bool


@dataclass(frozen=True)
class Explanation:
    order:    str
    rows:     Tuple[ExplainRow, ...]
    unclosed: int            # open chains after the last row
    final:    str            # the last line's text: the verdict or the stop reason
    result:   Result         # the detector's answer (hardware order)
    remaining: Tuple[str, ...] = ()   # the chains left open after the last row
    draw:     str = ""       # why the position is a draw for the search, or why not


def _mirror(word):
    from_sq, to_sq, piece, _ = unpack_word(word)
    return pack_word(to_sq, from_sq, piece)


def _squares(from_sq, to_sq):
    return square_name(from_sq) + square_name(to_sq)


def _letter(piece):
    return PIECE_LETTERS.get(piece, "?")


class _View:
    """How the engine's chains are shown: as they are, or mirrored back."""

    def __init__(self, mirrored):
        self.mirrored = mirrored

    def chain(self, chain):
        piece, from_sq, to_sq = chain
        return (piece, to_sq, from_sq) if self.mirrored else (piece, from_sq, to_sq)

    def column(self, chain):
        piece, from_sq, to_sq = self.chain(chain)
        return f"{_letter(piece)}_{_squares(from_sq, to_sq).upper()}"

    def named(self, chain):
        piece, from_sq, to_sq = self.chain(chain)
        return f"{_letter(piece)}_{_squares(from_sq, to_sq)}"

    def plain(self, chain):
        _, from_sq, to_sq = self.chain(chain)
        return _squares(from_sq, to_sq)

    def pair(self, first, second):
        """Two chains that compose ``first`` then ``second`` in the engine,
        listed in reading order (mirroring reverses time)."""
        return (second, first) if self.mirrored else (first, second)


def _rule_parts(step, move, view):
    """The sentences of the rule column, from the chains ``step`` reports."""
    if step.rule == "reflection":
        # cpw: a word that moves nothing (from == to) closes at once.
        return [f"Rule of reflection applied ({view.named(move)})"]
    if step.met is not None:
        first, second = view.pair(move, step.met)
        parts = [f"Transition ({view.plain(first)} and {view.plain(second)})"]
    else:
        parts = ["Insert"]
    if step.joined is not None:
        first, second = view.pair(step.partner, step.chain)
        parts.append(f"Link ({view.named(first)} and {view.named(second)}) "
                     f"gives {view.named(step.joined)}")
        if step.rule.endswith("reflection"):
            parts.append(f"Rule of reflection applied ({view.named(step.joined)})")
    elif step.partner is not None:
        parts.append(f"Rule of symmetry applied ({view.named(step.chain)} and "
                     f"{view.named(step.partner)})")
    elif step.rule.endswith("reflection"):
        parts.append(f"Rule of reflection applied ({view.named(step.chain)})")
    return parts


def _rule_text(parts):
    # Table 2: "Insert", but "Transition (...). Rule of symmetry applied (...)."
    return parts[0] if len(parts) == 1 else ". ".join(parts) + "."


def _rows(steps, view):
    """One row per golden model step, and the chains left open after the last."""
    rows = []
    for step in steps:
        from_sq, to_sq, piece, _ = unpack_word(step.word)
        move = (piece, from_sq, to_sq)
        parts = _rule_parts(step, move, view)
        if step.found and not view.mirrored:
            parts.append(f"All chains closed after {len(rows) + 1} plies: equal position")
        # Table 2 shows the list before the closing rules of the row free any slot.
        shown = tuple(view.column(chain) for chain in step.staged)
        mover = view.chain(move)
        rows.append(ExplainRow(address=step.address, word=step.word,
                               move=_squares(mover[1], mover[2]).upper(),
                               chains=shown, unclosed=len(shown),
                               rule=_rule_text(parts), found=step.found))
    remaining = steps[-1].chains if steps else ()
    return rows, tuple(view.column(chain) for chain in remaining)


def _stop_text(result, words, top, config, count_limit, window_limited, ply_of):
    address = top - result.plies_scanned
    if result.stop is Stop.BARRIER:
        word = words[address]
        return (f"Irreversible move {_describe_word(word)} at ply {ply_of(address)}: "
                f"the scan stops")
    if result.stop is Stop.BOTTOM:
        if window_limited:
            return ("Bottom of the move list, which does not hold the older plies "
                    "(window-limited: an older repetition may be missed)")
        return "Bottom of the move list: the scan stops"
    if result.stop is Stop.LIMIT:
        return f"Count limit {count_limit} reached: the scan stops"
    word = words[address]
    from_sq, to_sq, piece, _ = unpack_word(word)
    rules, chains = config.rules, config.chains
    chain_list = GoldenChainList(config)
    for applied in range(top, address, -1):
        applied_from, applied_to, applied_piece, _ = unpack_word(words[applied])
        chain_list.apply(applied_piece, applied_from, applied_to)
    if rules is not Rules.CPW and chain_list._pool(piece).impossible(piece, from_sq, to_sq):
        what = ("moves nothing" if from_sq == to_sq else
                "meets two chains of its piece at once")
        return (f"Chain list overflow: {_describe_word(word)} at ply {ply_of(address)} "
                f"{what}, which no legal game does (the move list is impossible)")
    def plural(count):
        return f"{count} slot{'s' if count != 1 else ''}"
    size = len(chain_list._pool(piece).slots)
    if rules is Rules.CPW:
        slots = plural(size)
    elif size:
        slots = f"{plural(size)} for its side and kind"
    else:
        slots = f"no slot for its kind with {chains} chains"
    return (f"Chain list overflow: no free slot ({slots}) for "
            f"{_describe_word(word)} at ply {ply_of(address)} (the answer may miss "
            f"a repetition)")


def _describe_word(word):
    from_sq, to_sq, piece, _ = unpack_word(word)
    return f"{_letter(piece)}_{_squares(from_sq, to_sq).upper()}"


def _position(ply):
    return "the start position" if ply == 0 else f"the position after ply {ply}"


def _draw_text(result, steps, top, root_address, root_ply, ply_of):
    """Which occurrence made the draw for the search from ``root_address`` (the
    position after game ply ``root_ply``), or why none did
    (:func:`axon.sim.model.golden.decides_draw`)."""
    # An equal position found after the word at `address` is the one after
    # the word below it: the position after ply ply_of(address - 1).
    after = [ply_of(step.address - 1) for step in steps if step.found]
    root_text = f"the root is {_position(root_ply)}"
    if top <= root_address:
        root_text += "; this position is game history"
    if not after:
        return f"draw: no, no earlier occurrence ({root_text})"
    if result.draw and len(after) >= 2:
        return (f"draw: yes, a third occurrence: it stood as {_position(after[0])} and as "
                f"{_position(after[1])} ({root_text})")
    if result.draw:
        return (f"draw: yes, a repetition inside the search: it stood as "
                f"{_position(after[0])}, after the root ({root_text})")
    return (f"draw: no, it stood as {_position(after[0])}, at or before the root, where only "
            f"a third occurrence counts, and the scan found no other ({root_text})")


def explain_query(words, top, *, root_address=-1, config=SHIPPED, count_limit=4,
                  order="paper", base=0, window_limited=False, root_ply=None):
    """Explain the query at ``top`` of the move list ``words``, for a search
    from the position after ``root_address`` (see :func:`~axon.sim.model.golden.perpetual`).

    ``base`` is the game index of address 0 (see :mod:`axon.sim.model.history`), used
    only to number plies, and ``root_ply`` the game ply of the root
    position, for the words (default: the one ``root_address`` says);
    ``window_limited`` only changes the wording of a ``bottom`` stop.
    Returns an :class:`Explanation`.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    steps = []
    result = perpetual(words, top, root_address=root_address, config=config,
                       count_limit=count_limit, steps=steps)

    def ply_of(address):
        return base + address + 1

    draw = _draw_text(result, steps, top, root_address,
                      ply_of(root_address) if root_ply is None else root_ply, ply_of)
    stop = _stop_text(result, words, top, config, count_limit, window_limited, ply_of)
    if order == "scan":
        rows, remaining = _rows(steps, _View(False))
        if result.repetition:
            nearest = f"nearest {result.distance} plies back"
            final = (f"Repetition detected ({result.count} equal position"
                     f"{'s' if result.count != 1 else ''}, {nearest}). {stop}.")
        else:
            final = f"No repetition. {stop}."
        return Explanation(order, tuple(rows), len(remaining), final, result, remaining, draw)

    length = result.distance if result.repetition else result.plies_scanned
    window = list(range(top - length + 1, top + 1))        # oldest first
    mirrored = [_mirror(words[address]) for address in reversed(window)]
    mirrored_steps = []
    # Enough slots for every word of the window in each side's pool.
    slots = max(config.chains, 2 * len(mirrored))
    if mirrored:
        perpetual(mirrored, len(mirrored) - 1, config=config.replace(chains=slots),
                  count_limit=len(mirrored) + 1, steps=mirrored_steps)
    rows, remaining = _rows(mirrored_steps, _View(True))
    # Number the rows by the real move list, not the mirrored one.
    rows = [ExplainRow(address=address, word=words[address], move=row.move,
                       chains=row.chains, unclosed=row.unclosed, rule=row.rule,
                       found=row.found)
            for address, row in zip(window, rows)]
    if result.repetition:
        final = "Repetition detected."
    else:
        final = f"No repetition. {stop}."
    return Explanation(order, tuple(rows), len(remaining), final, result, remaining, draw)


def for_side(explanation, side):
    """Only one side's moves and chains.

    Each side has its own pool of chains, so one side's rows are a complete
    account of that pool. Table 2 of the paper shows the knights alone (the
    other side's moves are left out there): ``for_side(..., "white")`` on the
    Figure 5 game gives exactly its rows and counts.
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    if side == "both":
        return explanation
    black = side == "black"

    def ours(chain):
        # Chains are shown as `N_C4A3`: an upper-case letter is a White piece.
        return chain[0].islower() == black

    rows = []
    for row in explanation.rows:
        if bool(piece_colour(unpack_word(row.word)[2])) != black:
            continue
        chains = tuple(chain for chain in row.chains if ours(chain))
        rows.append(ExplainRow(address=row.address, word=row.word, move=row.move,
                               chains=chains, unclosed=len(chains), rule=row.rule,
                               found=row.found))
    remaining = tuple(chain for chain in explanation.remaining if ours(chain))
    return Explanation(explanation.order, tuple(rows), len(remaining), explanation.final,
                       explanation.result, remaining, explanation.draw)


def table_rows(explanation, labels=None):
    """The table's cells: the header, one tuple per row in Table 2's
    columns, and the final line. ``labels`` maps a row's address to ``(ply,
    san)`` for the first columns. The text table and the page both print
    these."""
    header = ("Ply", "SAN", "Move", "LIST_OF_MOVES", "UnClosed_chains", "Rule applied")
    table = [header]
    for row in explanation.rows:
        ply, san = labels(row.address) if labels else ("", "")
        table.append((str(ply), san, row.move, " ".join(row.chains) or "-",
                      str(row.unclosed), row.rule))
    table.append(("", "", "---", "---", str(explanation.unclosed), explanation.final))
    return table


def format_table(explanation, labels=None):
    """The explanation as text lines, columns at least two spaces apart
    (:func:`table_rows`)."""
    table = table_rows(explanation, labels)
    header = table[0]
    widths = [max(len(line[column]) for line in table) for column in range(len(header) - 1)]
    lines = []
    for line in table:
        cells = [cell.ljust(width) for cell, width in zip(line, widths)] + [line[-1]]
        lines.append("  ".join(cells).rstrip())
    return lines
