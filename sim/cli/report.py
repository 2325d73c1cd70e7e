"""``axon report``: one page for a PGN file, a strip of plies a game.

Each ply is a cell coloured by the golden model's answer, as ``axon scan``
gives it: a repetition (its count written in it), a threefold or fivefold
claim, a draw for the search's root, an upcoming repetition, the fifty-move
rule, an overflow. A ply with a repetition or an upcoming repetition links to
its explanation, an ``axon explain --html`` page written beside the report
(``OUT_files/``); the others say their answer in a tooltip. A summary heads
the page with the counts ``axon scan`` prints.

The report streams: games are read, answered and written one at a time into
the page's body, which is then copied under the summary, so that a large
file needs the memory of one game.
"""

import argparse
import html
import io
import os
import shutil
import sys
import tempfile

from ..backends.session import GoldenSession
from ..model.games import plural
from .args import check_output_file
from .simulate import AnswerWriter, answered_games, explain, ply_record


__all__ = ["write_report"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
.summary { background: #f3f3f3; padding: .6em 1em; }
.strip { display: flex; flex-wrap: wrap; gap: 2px; margin: .3em 0 1em; }
.ply { width: 1.6em; height: 1.6em; font-size: .7em; display: flex; align-items: center;
       justify-content: center; background: #e8e8e8; color: #444; text-decoration: none; }
.repetition { background: #f2c14e; } .threefold { background: #e07a2f; color: #fff; }
.fivefold { background: #b3261e; color: #fff; } .draw { outline: 2px solid #5b3fd1; }
.upcoming { box-shadow: inset 0 -4px 0 #9b3fd1; } .fifty { background: #9ec5e8; }
.overflow { background: #555; color: #fff; }
.legend span { display: inline-block; padding: 0 .4em; margin-right: .4em; }
"""

_LEGEND = ('<p class="legend"><span class="ply repetition">2</span>repetition (count) '
           '<span class="ply threefold">2</span>threefold <span class="ply fivefold">4</span>'
           'fivefold <span class="ply draw">&nbsp;</span>draw for the search '
           '<span class="ply upcoming">&nbsp;</span>upcoming repetition '
           '<span class="ply fifty">&nbsp;</span>fifty-move rule '
           '<span class="ply overflow">&nbsp;</span>overflow</p>')


def _classes(record):
    names = []
    if record["repetition"]:
        names.append("repetition")
    if record["threefold"]:
        names.append("threefold")
    if record["fivefold"]:
        names.append("fivefold")
    if record["draw"]:
        names.append("draw")
    if record["upcoming"]:
        names.append("upcoming")
    if record["fifty_move"] and not record["repetition"]:
        names.append("fifty")
    if record["overflow"]:
        names.append("overflow")
    return names


def _tooltip(game, record):
    parts = [f"{game.move_label(record['ply'])} ({record['move']})"]
    if record["repetition"]:
        parts.append(f"repetition, {record['count']} earlier, nearest {record['distance']} "
                     f"plies back")
    if record["draw"]:
        parts.append("a draw for the search")
    if record["upcoming"]:
        parts.append(f"upcoming {record['upcoming_move']}")
    if record["fifty_move"]:
        parts.append("fifty-move rule")
    if record["overflow"]:
        parts.append("overflow")
    return "; ".join(parts)


def write_report(games, options, out_path, err=None):
    """Answer ``games`` (an iterable of game records) and write the page to
    ``out_path``; return the summary line (the counts of ``axon scan``)."""
    files = os.path.splitext(out_path)[0] + "_files"
    session = GoldenSession(options.config)
    counter = AnswerWriter(io.StringIO(), count_limit=options.count_limit)
    counts = {"threefold": 0, "upcoming": 0}

    interrupted = False
    with tempfile.TemporaryFile("w+") as body:
        try:
            _answer_games(games, options, session, counter, body, files, err, counts)
        except KeyboardInterrupt:
            # Ctrl-C: the page of the games answered so far, said to be partial.
            interrupted = True
        body.seek(0)
        summary = (f"{plural(counter.game_count, 'game')}, "
                   f"{plural(counter.plies, 'ply', 'plies')}, "
                   f"{plural(counter.repetitions, 'ply repeats', 'plies repeat')} an earlier "
                   f"position, {counts['threefold']} with a threefold repetition, "
                   f"{counts['upcoming']} with an upcoming repetition"
                   + (" (interrupted: the games answered so far)" if interrupted else ""))
        with open(out_path, "w") as out:
            title = f"axon report: {os.path.basename(options.pgn)}"
            out.write(f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                      f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
                      f"<body><h1>{html.escape(title)}</h1>"
                      f'<p class="summary">{html.escape(summary)}</p>{_LEGEND}\n')
            shutil.copyfileobj(body, out)
            out.write("</body></html>\n")
    if interrupted:
        print(f"wrote {out_path}: {summary}")
        raise KeyboardInterrupt
    return summary


def _answer_games(games, options, session, counter, body, files, err, counts):
    """Write each game's strip to ``body``, counting as ``axon scan`` does."""
    for game, rows in answered_games(games, session, options):
        counter.game_count += 1
        body.write(f"<h2>{html.escape(game.label)}</h2><div class=\"strip\">")
        for answer, fifty in rows:
            record = ply_record(answer, fifty, options.count_limit)
            counter.plies += 1
            counter.repetitions += record["repetition"]
            counts["threefold"] += bool(record["threefold"])
            counts["upcoming"] += bool(record["upcoming"])
            classes = " ".join(["ply", *_classes(record)])
            label = str(record["count"]) if record["repetition"] else ""
            tip = html.escape(_tooltip(game, record), quote=True)
            if record["repetition"] or record["upcoming"]:
                name = f"game-{game.number}-ply-{record['ply']}.html"
                os.makedirs(files, exist_ok=True)
                page = argparse.Namespace(**{**vars(options),
                                             "html": os.path.join(files, name),
                                             "order": "paper", "side": "both"})
                explain(game, record["ply"], page, out=io.StringIO())
                link = html.escape(f"{os.path.basename(files)}/{name}", quote=True)
                body.write(f'<a class="{classes}" href="{link}" title="{tip}">{label}</a>')
            else:
                body.write(f'<span class="{classes}" title="{tip}">{label}</span>')
        body.write("</div>\n")
        if err is not None and not getattr(options, "quiet", False):
            err.write(f"axon report: {game.label}: {plural(len(game.moves), 'ply', 'plies')}\n")


def report_command(options, games):
    """``axon report``: returns the exit status."""
    check_output_file("-o", options.output)
    summary = write_report(games, options, options.output, err=sys.stderr)
    print(f"wrote {options.output}: {summary}")
    return 0
