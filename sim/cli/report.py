"""``axon report``: one page for a PGN file, a strip of plies a game.

Each ply is a cell coloured by the golden model's answer, as ``axon scan``
gives it, each answer on a channel of its own so that all of them show where
they meet: a repetition, a threefold or fivefold claim fill the cell (its
count written in it), the fifty-move rule is a bar on top, an upcoming
repetition a bar below, a draw for the search's root a frame and an overflow
a dashed border. The move numbers stand beside the cells. A summary heads
the page with the counts ``axon scan`` prints, and the games skipped.

``--explain`` chooses the plies that link to their explanation: ``none``;
``repetitions`` (the default), the plies with a repetition, with its steps,
and those with only an upcoming one, with the answer and the board; ``all``,
every ply with every step. The explanations of a game share one page,
``OUT_files/game-G.html#ply-N``, whose boards the browser draws from a FEN a
ply, so that the report grows with the plies it explains.

Each game's heading names its players, event, round and date, as the tags
give them; under the summary an index links the games that hold a
repetition.

The report streams: games are read, answered and written one at a time into
the page's body, which is then copied under the summary and the index, so
that a large file needs the memory of one game. The explanation pages are
written into a temporary folder and moved beside the page once the page is
written: a page that cannot be written leaves nothing behind.
"""

import html
import io
import os
import re
import shutil
import sys
import tempfile

from ..backends.session import GoldenSession
from ..model.explain_html import game_page, ply_section
from ..model.games import GameRecord
from .args import GameStream, check_output_file, finish_skipped
from .answers import AnswerWriter, answered_games, ply_record
from .explain import explain_ply
from .game_commands import add_game_options, run_game_command
from .progress import Progress


__all__ = ["register", "write_report", "game_heading", "EXPLAIN_CHOICES"]

#: ``--explain``: which plies link to their explanation (see the module's text).
EXPLAIN_CHOICES = ("none", "repetitions", "all")

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
.summary { background: #f3f3f3; padding: .6em 1em; }
.strip { display: flex; flex-wrap: wrap; gap: 2px; margin: .3em 0 1em; align-items: center; }
.ply { min-width: 2.4em; height: 1.7em; padding: 0 .25em; font-size: .75em; display: flex;
       align-items: center; justify-content: center; background: #e8e8e8; color: #222;
       text-decoration: none; box-sizing: border-box; white-space: nowrap; }
.ply sup { font-size: .7em; margin-left: .1em; }
.n { font-size: .6em; color: #888; margin-left: .4em; min-width: 1.4em; text-align: right; }
.numbered { display: inline-flex; align-items: center; gap: 2px; white-space: nowrap; }
.index li { margin: .1em 0; }
.repetition { background: #f2c14e; } .threefold { background: #e07a2f; color: #fff; }
.fivefold { background: #b3261e; color: #fff; } .draw { outline: 2px solid #5b3fd1; }
.overflow { border: 2px dashed #333; }
.fifty { box-shadow: inset 0 4px 0 #1e78c8; } .upcoming { box-shadow: inset 0 -4px 0 #9b3fd1; }
.fifty.upcoming { box-shadow: inset 0 4px 0 #1e78c8, inset 0 -4px 0 #9b3fd1; }
.legend span.ply { display: inline-flex; margin: 0 .3em 0 .8em; vertical-align: middle; }
.skipped { color: #b3261e; }
"""

_LEGEND = ('<p class="legend">'
           'Each cell is a ply, its move in SAN. '
           '<span class="ply repetition">Nf3<sup>2</sup></span>the position repeats (the '
           'small figure: how many times before) '
           '<span class="ply threefold">Nf3<sup>2</sup></span>threefold repetition '
           '<span class="ply fivefold">Nf3<sup>4</sup></span>fivefold '
           '<span class="ply draw">Nf3</span>a draw for the search '
           '<span class="ply upcoming">Nf3</span>a move can repeat at once (upcoming) '
           '<span class="ply fifty">Nf3</span>fifty-move rule '
           '<span class="ply overflow">Nf3</span>overflow (the answer may miss one) '
           '<span class="n">12</span>move number. A cell may carry several at once.</p>')


def _classes(record):
    names = []
    for name, key in (("repetition", "repetition"), ("threefold", "threefold"),
                      ("fivefold", "fivefold"), ("draw", "draw"), ("upcoming", "upcoming"),
                      ("fifty", "fifty_move"), ("overflow", "overflow")):
        if record[key]:
            names.append(name)
    return names


def _tooltip(game, record):
    parts = [f"{game.move_label(record['ply'])} ({record['move']})"]
    if record["repetition"]:
        parts.append(f"repetition, {record['count']} earlier, nearest {record['distance']} "
                     f"plies back")
    if record["threefold"]:
        parts.append("threefold repetition")
    if record["fivefold"]:
        parts.append("fivefold repetition")
    if record["draw"]:
        parts.append("a draw for the search")
    if record["upcoming"]:
        parts.append(f"upcoming {record['upcoming_move']}")
    if record["fifty_move"]:
        parts.append("fifty-move rule")
    if record["overflow"]:
        parts.append("overflow")
    return "; ".join(parts)


# Tag values that say nothing: PGN's "unknown" and an empty date.
_UNKNOWN = ("", "?", "-", "????")


def _tag(game, name):
    value = game.headers.get(name, "").strip()
    if name == "Date":
        # 1851.??.?? is 1851: a date says what it knows.
        value = re.sub(r"(\.\?\?)+$", "", value)
    return None if value in _UNKNOWN else value


def game_heading(game: GameRecord) -> str:
    """``game 3: Staunton – Williams, London, round 2, 1851.06.01``: the
    game's number, then its players, event, round and date as far as the
    tags give them (``game 3`` alone when they give none)."""
    parts = []
    white, black = _tag(game, "White"), _tag(game, "Black")
    if white or black:
        parts.append(f"{white or '?'} \u2013 {black or '?'}")
    for name, shown in (("Event", "{}"), ("Round", "round {}"), ("Date", "{}")):
        value = _tag(game, name)
        if value:
            parts.append(shown.format(value))
    return f"game {game.number}" + (f": {', '.join(parts)}" if parts else "")


def _count(count, singular, many):
    """``1 ply``, ``19,866 plies``: a count with the search tables' separators."""
    return f"{count:,} {singular if count == 1 else many}"


def _index(repeating):
    """The index of the games that hold a repetition: ``(number, heading,
    plies that repeat, plies with a threefold repetition)`` each."""
    if not repeating:
        return '<p class="index">No game holds a repetition.</p>\n'
    items = "".join(
        f'<li><a href="#game-{number}">{html.escape(heading)}</a>: '
        f'{_count(plies, "ply repeats", "plies repeat")} an earlier position'
        + (f", {threefold:,} with a threefold repetition" if threefold else "") + "</li>"
        for number, heading, plies, threefold in repeating)
    return (f'<nav class="index"><p>{_count(len(repeating), "game holds", "games hold")} '
            f"a repetition:</p><ul>{items}</ul></nav>\n")


def _explained(record, choice):
    """Whether the ply links to an explanation, and whether with its steps."""
    if choice == "all":
        return True, True
    if choice == "repetitions" and (record["repetition"] or record["upcoming"]):
        return True, bool(record["repetition"])
    return False, False


def write_report(games, options, out_path, err=None):
    """Answer ``games`` (an iterable of game records; a
    :class:`~axon.sim.cli.args.GameStream` also says which it skipped) and
    write the page to ``out_path``; return the summary line (the counts of
    ``axon scan``, and the games skipped)."""
    files = os.path.splitext(out_path)[0] + "_files"
    session = GoldenSession(options.config)
    counter = AnswerWriter(io.StringIO(), count_limit=options.count_limit)
    counts = {"threefold": 0, "upcoming": 0, "explained": 0}
    progress = Progress(getattr(games, "expected", None), err,
                        enabled=err is not None and not getattr(options, "quiet", False),
                        command="axon report")

    interrupted = False
    repeating = []
    with tempfile.TemporaryFile("w+") as body, \
            tempfile.TemporaryDirectory(prefix="axon-report-") as pages:
        try:
            _answer_games(games, options, session, counter, body, (pages, files), progress,
                          counts, repeating)
        except KeyboardInterrupt:
            # Ctrl-C: the page of the games answered so far, said to be partial.
            interrupted = True
        progress.done()
        body.seek(0)
        skipped = list(getattr(games, "skipped", ()))
        summary = (f"{_count(counter.game_count, 'game', 'games')}, "
                   f"{_count(counter.plies, 'ply', 'plies')}, "
                   f"{_count(counter.repetitions, 'ply repeats', 'plies repeat')} an earlier "
                   f"position, {counts['threefold']:,} with a threefold repetition, "
                   f"{counts['upcoming']:,} with an upcoming repetition"
                   + (f"; {_count(len(skipped), 'game', 'games')} skipped, unreadable "
                      f"(listed in their place)" if skipped else "")
                   + (" (interrupted: the games answered so far)" if interrupted else ""))
        with open(out_path, "w") as out:
            title = f"axon report: {os.path.basename(options.pgn)}"
            explained = {"none": "No ply links to an explanation (--explain none).",
                         "repetitions": "A ply with a repetition or an upcoming one links "
                                        "to its explanation.",
                         "all": "Every ply links to its explanation."}[options.explain]
            out.write(f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                      f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
                      f"<body><h1>{html.escape(title)}</h1>"
                      f'<p class="summary">{html.escape(summary)}</p>{_index(repeating)}'
                      f"{_LEGEND}<p>{explained}</p>\n")
            shutil.copyfileobj(body, out)
            out.write("</body></html>\n")
        # The page is written: its explanations go beside it.
        for name in sorted(os.listdir(pages)):
            os.makedirs(files, exist_ok=True)
            shutil.move(os.path.join(pages, name), os.path.join(files, name))
    if interrupted:
        print(f"wrote {out_path}: {summary}")
        raise KeyboardInterrupt
    return summary


def _move_number(game, ply):
    """The move number to print before ``ply`` (1-based), or ``None`` inside a move."""
    board = game.board
    white = (ply - 1) % 2 == (0 if board.turn else 1)
    number = board.fullmove_number + (ply - 1 + (not board.turn)) // 2
    if white:
        return f"{number}"
    return f"{number}\u2026" if ply == 1 else None


def _answer_games(games, options, session, counter, body, folders, progress, counts,
                  repeating):
    """Write each game's strip to ``body``, counting as ``axon scan`` does,
    and each game's explanation page into ``folders``: ``(where it is
    written, where the page links to it)``; add each game that holds a
    repetition to ``repeating`` (see :func:`_index`)."""
    pages, files = folders
    skipped = getattr(games, "skipped", [])
    listed = 0
    for game, rows in answered_games(games, session, options, progress):
        for message in skipped[listed:]:
            body.write(f'<h2 class="skipped">{html.escape(message)}: skipped</h2>\n')
        listed = len(skipped)
        counter.game_count += 1
        heading = game_heading(game)
        body.write(f'<h2 id="game-{game.number}">{html.escape(heading)}</h2>'
                   f'<div class="strip">')
        plies_repeating = plies_threefold = 0
        page_name = f"game-{game.number}.html"
        link_base = html.escape(f"{os.path.basename(files)}/{page_name}", quote=True)
        sections = []
        board = game.board.copy(stack=False)
        for answer, fifty in rows:
            board.push(game.moves[answer.window.ply])
            record = ply_record(answer, fifty, options.count_limit)
            counter.plies += 1
            counter.repetitions += record["repetition"]
            counts["threefold"] += bool(record["threefold"])
            counts["upcoming"] += bool(record["upcoming"])
            plies_repeating += bool(record["repetition"])
            plies_threefold += bool(record["threefold"])
            ply = record["ply"]
            number = _move_number(game, ply)
            if number is not None:
                # The number and its move in one box, so that a line never
                # breaks between them.
                body.write(f'<span class="numbered"><span class="n">{number}</span>')
            classes = " ".join(["ply", *_classes(record)])
            # The move itself, so that a chess player reads the strip without
            # hovering; a repetition's count of earlier occurrences beside it.
            label = html.escape(game.sans[ply - 1]) + \
                (f"<sup>{record['count']}</sup>" if record["repetition"] else "")
            tip = html.escape(_tooltip(game, record), quote=True)
            linked, steps = _explained(record, options.explain)
            if linked:
                shown = explain_ply(game, ply, options, window=answer.window,
                                    board=board.copy(stack=False), result=answer.result,
                                    steps=steps)
                sections.append(ply_section(shown, game=game, ply=ply, steps=steps,
                                            pgn=options.pgn))
                counts["explained"] += 1
                body.write(f'<a class="{classes}" href="{link_base}#ply-{ply}" '
                           f'title="{tip}">{label}</a>')
            else:
                body.write(f'<span class="{classes}" title="{tip}">{label}</span>')
            if number is not None:
                body.write("</span>")
        body.write("</div>\n")
        if plies_repeating:
            repeating.append((game.number, heading, plies_repeating, plies_threefold))
        if sections:
            with open(os.path.join(pages, page_name), "w") as page:
                page.write(game_page(f"{game.label}: the plies explained", sections))
    for message in skipped[listed:]:
        body.write(f'<h2 class="skipped">{html.escape(message)}: skipped</h2>\n')


def register(commands):
    """``axon report``."""
    parser = commands.add_parser(
        "report", help="one page for a PGN file: a strip of plies a game, coloured by the answer",
        description="Write one self-contained page for a PGN file: a summary (the counts of "
                    "axon scan), then a strip of plies a game, each coloured by the golden "
                    "model's answer; a ply with a repetition or an upcoming repetition links to "
                    "its explanation, on one page a game written beside the report "
                    "(OUT_files/game-G.html).")
    add_game_options(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the page to write")
    parser.add_argument("--explain", choices=EXPLAIN_CHOICES, default="repetitions",
                        help="which plies link to their explanation, one page a game "
                             "beside the report: none; repetitions, the plies with a "
                             "repetition (with their steps) or an upcoming one; all, every "
                             "ply with every step (default repetitions)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=report_command)


def report_command(options):
    """``axon report`` as the command line runs it: the exit status."""
    def body(options):
        check_output_file("-o", options.output)
        # Games are answered as they are read.
        games = GameStream(options.command, options)
        summary = write_report(games, options, options.output, err=sys.stderr)
        print(f"wrote {options.output}: {summary}")
        return finish_skipped(options.command, 0, games)
    return run_game_command(options, body)
