"""``axon explain --html``: the explanation of one query as a page to look at.

The page is built from the same :class:`~axon.sim.model.explain.Explanation`
as the text table, row for row: one step per row, each with the board of the
queried position, the step's move and the chain list after it drawn as
arrows (White's in one colour, Black's in another, as the table lists them:
from the first square to the second), the rule that fired, and the row in
Table 2's columns. Everything is inline (SVG from ``chess.svg``, CSS and a
few lines of script), so the page opens offline. Every step is in the page
without script; the script only shows one at a time, with buttons and the
arrow keys.
"""

import html

import chess
import chess.svg

from ...hdl.word import unpack_word
from .explain import table_rows


__all__ = ["explanation_page"]

_COLOURS = {True: "#1f6fd1cc", False: "#d1451fcc"}     # White, Black
_MOVE_COLOUR = "#2e9e44cc"
_UPCOMING_COLOUR = "#9b3fd1cc"

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } .answer { background: #f3f3f3; padding: .6em 1em; }
.step { display: flex; gap: 1.5em; align-items: flex-start; margin: 1em 0;
        border-top: 1px solid #ddd; padding-top: 1em; }
.step table, .rows { border-collapse: collapse; }
td, th { border: 1px solid #ccc; padding: .2em .5em; text-align: left; }
.legend span { display: inline-block; width: 1em; height: .6em; margin: 0 .3em; }
nav { margin: 1em 0; } .scripted .step { display: none; } .scripted .step.shown { display: flex; }
"""

_SCRIPT = """
document.body.classList.add("scripted");
const steps = Array.from(document.querySelectorAll(".step"));
let shown = 0;
function show(index) {
  shown = Math.max(0, Math.min(steps.length - 1, index));
  steps.forEach((step, i) => step.classList.toggle("shown", i === shown));
  document.getElementById("where").textContent = `step ${shown + 1} of ${steps.length}`;
}
document.getElementById("previous").onclick = () => show(shown - 1);
document.getElementById("next").onclick = () => show(shown + 1);
document.addEventListener("keydown", (event) => {
  if (event.key === "ArrowLeft") show(shown - 1);
  if (event.key === "ArrowRight") show(shown + 1);
});
document.querySelector("nav").hidden = false;
show(0);
"""


def _arrow(squares, colour):
    """A ``chess.svg.Arrow`` for ``"C4A3"``-style squares."""
    return chess.svg.Arrow(chess.parse_square(squares[:2].lower()),
                           chess.parse_square(squares[2:4].lower()), color=colour)


def _board_svg(board, arrows):
    return chess.svg.board(board, arrows=arrows, size=320, coordinates=True)


def explanation_page(explanation, board, *, title, answer_lines, labels, upcoming_move=None):
    """The page (a string) for ``explanation`` of the query at ``board`` (the
    queried position). ``answer_lines`` are the text lines that state the
    answer, ``labels`` maps a row's address to ``(ply, san)`` as for
    :func:`~axon.sim.model.explain.table_rows`, and ``upcoming_move`` is
    the upcoming repetition's ``(from, to)``, drawn on the first board."""
    header, *lines = table_rows(explanation, labels)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>", '<div class="answer">']
    parts += [f"<p>{html.escape(line)}</p>" for line in answer_lines]
    parts.append("</div>")
    upcoming = []
    if upcoming_move is not None:
        upcoming = [chess.svg.Arrow(*upcoming_move, color=_UPCOMING_COLOUR)]
        parts.append("<p>The upcoming repetition's move is the purple arrow on every board.</p>")
    parts.append('<p class="legend">Arrows: the step\'s move<span style="background:'
                 f'{_MOVE_COLOUR}"></span>, White\'s chains<span style="background:'
                 f'{_COLOURS[True]}"></span>, Black\'s chains<span style="background:'
                 f'{_COLOURS[False]}"></span>, each from its first square to its second as '
                 "the table lists it, on the queried position.</p>")
    parts.append('<nav hidden><button id="previous">&larr; previous</button> '
                 '<span id="where"></span> <button id="next">next &rarr;</button></nav>')
    for index, (row, cells) in enumerate(zip(explanation.rows, lines)):
        white = not unpack_word(row.word)[2] & 8
        arrows = [_arrow(row.move, _MOVE_COLOUR)] + upcoming
        arrows += [_arrow(chain.split("_", 1)[1], _COLOURS[chain[0].isupper()])
                   for chain in row.chains]
        parts.append(f'<section class="step" id="step-{index + 1}">')
        parts.append(_board_svg(board, arrows))
        parts.append(f"<div><h2>Step {index + 1}: {'White' if white else 'Black'} "
                     f"{html.escape(row.move)}</h2><p>{html.escape(row.rule)}</p>")
        parts.append(_table([header, cells]) + "</div></section>")
    parts.append("<h2>All rows (the text table)</h2>")
    parts.append(_table([header, *lines], css="rows"))
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def _table(rows, css=""):
    head, *body = rows
    out = [f'<table class="{css}"><tr>' + "".join(f"<th>{html.escape(c)}</th>" for c in head)
           + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
            for row in body]
    return "".join(out) + "</table>"
