"""``axon explain --html`` and the report's explanation pages: queries as pages to look at.

A page holds one section per explained ply. A section says the answer in a
chess player's words (the detector's own line below it, in small type), and
holds the text table's rows, cell for cell (:func:`~axon.sim.model.explain.table_rows`),
with the paper's column names (Table 2: ``LIST_OF_MOVES``, ``UnClosed_chains``)
as a second line and a tooltip under plain ones.

The boards are drawn in the browser from compact data, so that a page grows
with its plies and their rows, not with a board a step: a section carries its
position as a FEN, and the script draws it once, with the arrows of the step
shown: the step's move, the chains after it (each from its first square to its
second, as the table lists it) and the upcoming repetition's move. Arrows
that share their squares are drawn side by side, never on top of each other.
The piece pictures are ``chess.svg``'s, once a page. Everything is inline, so
the page opens offline; without script the rows and the answer are still there.
"""

import html
import json
import re
import shlex

import chess
import chess.svg

from ...hdl.word import PIECE_LETTERS, unpack_word
from .explain import table_rows


__all__ = ["explanation_page", "game_page", "ply_section", "plain_answer", "plain_rule",
           "COLUMNS"]

# The text table's columns in a chess player's words, each with the paper's
# name (Table 2) that the text table prints.
COLUMNS = (
    ("Ply", "Ply"),
    ("Move", "SAN"),
    ("From-to", "Move"),
    ("Moves not yet undone", "LIST_OF_MOVES"),
    ("How many", "UnClosed_chains"),
    ("What happened", "Rule applied"),
)

_PIECE_NAMES = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen",
                "K": "king"}

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 80em; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; }
.answer { background: #f3f3f3; padding: .4em 1em; }
.answer p { margin: .3em 0; } .paper { display: block; color: #777; font-size: .8em; }
.explained { border-top: 1px solid #ccc; margin-top: 1.5em; }
.view { display: flex; gap: 1.5em; align-items: flex-start; flex-wrap: wrap; }
.board svg { width: 360px; height: 360px; }
table { border-collapse: collapse; margin: .8em 0; }
td, th { border: 1px solid #ccc; padding: .2em .5em; text-align: left; vertical-align: top; }
th .paper { font-weight: normal; } tr.shown td { background: #fff6d8; }
.legend span { display: inline-block; width: 1.2em; height: .5em; margin: 0 .3em; }
nav button { margin-right: .3em; }
"""

# Arrow colours: the step's move, White's and Black's chains, the upcoming move.
COLOURS = {"move": "#2e9e44", "white": "#1f6fd1", "black": "#d1451f", "upcoming": "#9b3fd1"}

_SCRIPT = r"""
const COLOURS = %(colours)s;
const NAMES = {p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king"};
const SQUARE = 45, LANE = 9;
function squareXY(name) {
  const file = name.charCodeAt(0) - 97, rank = Number(name[1]) - 1;
  return [file * SQUARE + SQUARE / 2, (7 - rank) * SQUARE + SQUARE / 2];
}
function boardSvg(fen, arrows) {
  const out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="-14 0 374 374">'];
  out.push('<defs>');
  for (const [kind, colour] of Object.entries(COLOURS))
    out.push(`<marker id="head-${kind}" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" ` +
             `markerHeight="3" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${colour}"/></marker>`);
  out.push('</defs>');
  for (let rank = 0; rank < 8; rank++)
    for (let file = 0; file < 8; file++)
      out.push(`<rect x="${file * SQUARE}" y="${rank * SQUARE}" width="${SQUARE}" ` +
               `height="${SQUARE}" fill="${(rank + file) %% 2 ? "#d18b47" : "#ffce9e"}"/>`);
  for (let i = 0; i < 8; i++) {
    out.push(`<text x="${i * SQUARE + 19}" y="372" font-size="11">${"abcdefgh"[i]}</text>`);
    out.push(`<text x="-11" y="${i * SQUARE + 27}" font-size="11">${8 - i}</text>`);
  }
  fen.split(" ")[0].split("/").forEach((row, rank) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) { file += Number(c); continue; }
      const colour = c === c.toUpperCase() ? "white" : "black";
      out.push(`<use href="#${colour}-${NAMES[c.toLowerCase()]}" ` +
               `transform="translate(${file * SQUARE},${rank * SQUARE})"/>`);
      file += 1;
    }
  });
  // Arrows between the same two squares (either way) take lanes side by side.
  const groups = {};
  for (const arrow of arrows) {
    const key = [arrow.from, arrow.to].sort().join("");
    (groups[key] = groups[key] || []).push(arrow);
  }
  for (const group of Object.values(groups))
    group.forEach((arrow, lane) => {
      let [x1, y1] = squareXY(arrow.from), [x2, y2] = squareXY(arrow.to);
      const length = Math.hypot(x2 - x1, y2 - y1) || 1;
      const shift = (lane - (group.length - 1) / 2) * LANE;
      const [nx, ny] = [-(y2 - y1) / length * shift, (x2 - x1) / length * shift];
      // Stop short of the centre so that the head sits on the square.
      const [ex, ey] = [x2 - (x2 - x1) / length * 10, y2 - (y2 - y1) / length * 10];
      out.push(`<line class="arrow ${arrow.kind}" data-squares="${arrow.from}${arrow.to}" ` +
               `x1="${(x1 + nx).toFixed(1)}" y1="${(y1 + ny).toFixed(1)}" ` +
               `x2="${(ex + nx).toFixed(1)}" y2="${(ey + ny).toFixed(1)}" ` +
               `stroke="${COLOURS[arrow.kind]}" stroke-width="7" stroke-opacity=".8" ` +
               `stroke-linecap="round" marker-end="url(#head-${arrow.kind})"/>`);
    });
  out.push("</svg>");
  return out.join("");
}
function arrowsOf(section, row) {
  const arrows = [];
  const add = (squares, kind) => {
    if (squares && /^[a-h][1-8][a-h][1-8]/.test(squares))
      arrows.push({from: squares.slice(0, 2), to: squares.slice(2, 4), kind: kind});
  };
  if (row) {
    add(row.dataset.move, "move");
    for (const chain of (row.dataset.chains || "").split(" ").filter(Boolean))
      add(chain.slice(2).toLowerCase(), chain[0] === chain[0].toUpperCase() ? "white" : "black");
  } else {
    add(section.dataset.last, "move");
  }
  add(section.dataset.upcoming, "upcoming");
  return arrows;
}
let current = null;
function show(section, index) {
  const rows = Array.from(section.querySelectorAll("tr.step"));
  const shown = rows.length ? Math.max(0, Math.min(rows.length - 1, index)) : -1;
  section.dataset.shown = shown;
  rows.forEach((row, i) => row.classList.toggle("shown", i === shown));
  const row = rows[shown];
  section.querySelector(".board").innerHTML = boardSvg(section.dataset.fen, arrowsOf(section, row));
  const where = section.querySelector(".where");
  if (where) where.textContent = row ? `step ${shown + 1} of ${rows.length}: ` +
                                       row.querySelector(".plain").textContent : "";
  current = section;
}
document.body.classList.add("scripted");
for (const section of document.querySelectorAll("section.explained")) {
  const nav = section.querySelector("nav");
  if (nav) {
    nav.hidden = false;
    nav.querySelector(".previous").onclick = () => show(section, Number(section.dataset.shown) - 1);
    nav.querySelector(".next").onclick = () => show(section, Number(section.dataset.shown) + 1);
  }
  show(section, 0);
}
const target = location.hash && document.getElementById(location.hash.slice(1));
current = target || document.querySelector("section.explained");
document.addEventListener("keydown", (event) => {
  if (!current) return;
  if (event.key === "ArrowLeft") show(current, Number(current.dataset.shown) - 1);
  if (event.key === "ArrowRight") show(current, Number(current.dataset.shown) + 1);
});
"""


def _pieces():
    """``chess.svg``'s piece pictures, once a page, for the boards to use."""
    return ('<svg width="0" height="0" style="position:absolute"><defs>'
            + "".join(chess.svg.PIECES.values()) + "</defs></svg>")


def _position(game, ply):
    if ply <= 0:
        return "the start position"
    return f"the position after {game.move_label(ply)}"


def plain_answer(result, *, game, ply, root_ply):
    """The answer after ``ply`` of ``game`` in a chess player's words: a list
    of sentences. ``root_ply`` is where the search starts (the game history
    ends): the number of plies of the game."""
    lines = []
    if result.repetition:
        earlier = ply - result.distance
        times = "once" if result.count == 1 else f"{result.count} times"
        lines.append(f"This position stood on the board before: {times} found, the nearest "
                     f"{result.distance} plies ago ({_position(game, earlier)}).")
    else:
        reasons = {
            "BARRIER": "the look back stopped at a capture, a pawn move or a lost castling "
                       "right, before which no position can come back",
            "BOTTOM": "the look back reached the oldest move the detector holds (the game's "
                      "first, unless the game is longer than its move list)",
            "OVERFLOW": "the look back ran out of room to follow the pieces (a repetition "
                        "may be missed)",
            "LIMIT": "the look back stopped at its limit",
        }
        lines.append(f"No earlier occurrence of this position: {reasons[result.stop.name]}.")
    history = ply <= root_ply
    if result.draw:
        lines.append("A draw by repetition: the third time this position appears."
                     if result.count >= 2 or history else
                     f"A draw for the engine's search, which starts from "
                     f"{_position(game, root_ply)}: the position repeats inside it.")
    elif result.repetition:
        lines.append("Not a draw yet: in the game itself a draw needs the third occurrence."
                     if history else
                     f"Not a draw yet: the earlier occurrence lies in the game before the "
                     f"search (which starts from {_position(game, root_ply)}), where only "
                     f"a third occurrence counts.")
    if result.upcoming:
        (from_sq, to_sq) = result.upcoming_move
        lines.append(f"The side to move can bring back an earlier position at once with "
                     f"{chess.square_name(from_sq)}-{chess.square_name(to_sq)} (the purple "
                     f"arrow), going back {result.upcoming_distance} plies"
                     + (", a draw for the search." if result.upcoming_draw else "."))
    return lines


def _piece_of(row):
    letter = PIECE_LETTERS.get(unpack_word(row.word)[2], "?")
    side = "White's" if letter.isupper() else "Black's"
    return f"{side} {_PIECE_NAMES.get(letter.upper(), 'piece')}"


def plain_rule(row):
    """What a step did, in a chess player's words: one sentence a part of
    the paper's rule text (``Insert``, ``Transition (...)``, ...)."""
    piece, squares = _piece_of(row), row.move.lower()
    move = f"{squares[:2]}-{squares[2:]}"
    said = []
    for part in [part.strip(" .") for part in re.split(r"\.\s+", row.rule) if part.strip(" .")]:
        if part == "Insert":
            said.append(f"{piece} {move} is a new move not yet undone")
        elif part.startswith("Transition"):
            said.append(f"{piece} {move} continues an earlier move of its own, which now "
                        f"runs from where that one started")
        elif part.startswith("Rule of symmetry"):
            said.append("two moves undo each other (one piece goes where the other came "
                        "from and back): both are crossed out")
        elif part.startswith("Rule of reflection"):
            said.append("a piece is back on the square it started from: crossed out")
        elif part.startswith("Link"):
            said.append("two moves of the same kind join into one")
        elif part.startswith("All chains closed"):
            said.append("every move is undone: this position stood on the board then")
        else:
            said.append(part)
    text = "; ".join(said)
    return text[:1].upper() + text[1:] + "."


def ply_section(shown, *, game, ply, steps=True, pgn="GAMES.pgn"):
    """One explained ply as a ``<section>`` (a string): the answer, the board
    drawn by the page's script, and (with ``steps``) the rows, one a step;
    without them, the ``axon explain`` command that writes them for the
    file ``pgn``."""
    explanation = shown.explanation
    title, *answer_lines = shown.heading
    result = explanation.result
    plain = plain_answer(result, game=game, ply=ply, root_ply=shown.root_ply)
    upcoming = shown.upcoming_move
    data = {
        "fen": shown.board.fen(),
        "last": game.ucis[ply - 1],
        "upcoming": "" if upcoming is None else
                    chess.square_name(upcoming[0]) + chess.square_name(upcoming[1]),
    }
    attributes = " ".join(f'data-{key}="{html.escape(value, quote=True)}"'
                          for key, value in data.items())
    parts = [f'<section class="explained" id="ply-{ply}" {attributes}>',
             f"<h2>{html.escape(title)}</h2>", '<div class="answer">']
    parts += [f"<p>{html.escape(line)}</p>" for line in plain]
    parts.append('<p class="paper">' + "<br>".join(html.escape(line) for line in answer_lines)
                 + "</p></div>")
    parts.append('<div class="view"><div class="board"></div><div>')
    if steps:
        if explanation.rows:
                parts.append('<nav hidden><button class="previous">&larr; previous</button>'
                         '<button class="next">next &rarr;</button> '
                         '<span class="where"></span>'
                         "</nav>")
        parts.append(_rows_table(explanation, shown.labels))
    else:
        parts.append("<p>The steps of this ply are not written here (<code>axon report "
                     "--explain all</code> writes them, as does <code>"
                     + html.escape(f"axon explain {shlex.quote(pgn)} --game {game.number} "
                                   f"--ply {ply} --html FILE") + "</code>).</p>")
    parts.append("</div></div></section>")
    return "\n".join(parts)


def _rows_table(explanation, labels):
    """The text table's rows as HTML, one ``tr.step`` a step with its move and
    chains for the script; the header in plain words over the paper's."""
    header, *lines = table_rows(explanation, labels)
    out = ['<table class="rows"><tr>']
    for (plain, _), paper in zip(COLUMNS, header):
        second = "" if plain == paper else f'<span class="paper">{html.escape(paper)}</span>'
        out.append(f'<th title="{html.escape(paper, quote=True)} in the paper">'
                   f"{html.escape(plain)}{second}</th>")
    out.append("</tr>")
    for row, cells in zip(explanation.rows, lines):
        out.append(f'<tr class="step" data-move="{html.escape(row.move.lower())}" '
                   f'data-chains="{html.escape(" ".join(row.chains), quote=True)}">')
        *first, rule = cells
        out += [f"<td>{html.escape(cell)}</td>" for cell in first]
        out.append(f'<td><span class="plain">{html.escape(plain_rule(row))}</span>'
                   f'<span class="paper">{html.escape(rule)}</span></td></tr>')
    final = lines[len(explanation.rows):]
    for cells in final:
        out.append("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in cells)
                   + "</tr>")
    out.append("</table>")
    return "".join(out)


def _legend():
    def swatch(kind):
        return f'<span style="background:{COLOURS[kind]}"></span>'
    return (f'<p class="legend">Arrows: the move{swatch("move")} White\'s moves not yet '
            f'undone{swatch("white")} Black\'s{swatch("black")} the upcoming repetition'
            f'{swatch("upcoming")}; arrows between the same squares lie side by side.</p>')


def game_page(title, sections, intro=""):
    """A page of explained plies (``sections`` from :func:`ply_section`)."""
    script = _SCRIPT % {"colours": json.dumps(COLOURS)}
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        _pieces(), f"<h1>{html.escape(title)}</h1>", intro, _legend(), *sections,
        f"<script>{script}</script></body></html>",
    ]) + "\n"


def explanation_page(shown, *, game, ply):
    """The page of ``axon explain --html``: one ply, every step."""
    return game_page(shown.heading[0], [ply_section(shown, game=game, ply=ply)])
