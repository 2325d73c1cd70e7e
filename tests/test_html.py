"""``axon explain --html``: the explanation as a page, built from the same rows
as the text table, self-contained, and rendered by a real browser where one
is installed."""

import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from axon.sim.cli.main import main
from axon.sim.model.games import bundled_files, load_games

from .test_cli import FIGURE5, TABLE2


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "explanation page"


class _Tables(HTMLParser):
    """Every table of a page as a list of rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _page(capsys, tmp_path, *argv):
    path = tmp_path / "explain.html"
    assert main(["explain", *map(str, argv), "--html", str(path)]) == 0
    assert capsys.readouterr().out == f"wrote {path}\n"
    return path


def _text_rows(capsys, *argv):
    assert main(["explain", *map(str, argv)]) == 0
    lines = capsys.readouterr().out.split("\n\n", 1)[1].splitlines()
    return lines


@pytest.mark.quick
def test_figure5_page_holds_table2(capsys, tmp_path):
    path = _page(capsys, tmp_path, FIGURE5, "--game", 1, "--ply", 8, "--rules", "paper",
                 "--side", "white")
    parser = _Tables()
    parser.feed(path.read_text())
    rows = parser.tables[-1][1:-1]        # the whole table, without header and final line
    assert [(row[2], row[3], row[4], row[5]) for row in rows] == TABLE2
    assert parser.tables[-1][-1][-1] == "Repetition detected."
    # One section per step, each with its board (an SVG) and its row.
    text = path.read_text()
    assert len(re.findall(r'<section class="step"', text)) == 4
    assert text.count("<svg") >= 4
    assert "Rule of symmetry applied" in text and "repetition yes, distance 8" in text


def test_page_rows_are_the_text_tables_for_every_bundled_game(capsys, tmp_path):
    checked = 0
    for path in bundled_files():
        for game in load_games(path):
            for ply in sorted({4, len(game.moves) // 2, len(game.moves)} - {0}):
                if ply > len(game.moves):
                    continue
                page = _page(capsys, tmp_path, path, "--game", game.number, "--ply", ply)
                parser = _Tables()
                parser.feed(page.read_text())
                text = _text_rows(capsys, path, "--game", game.number, "--ply", ply)
                assert len(parser.tables[-1]) == len(text)
                for cells, line in zip(parser.tables[-1], text):
                    assert [cell for cell in cells if cell] == \
                           [cell.strip() for cell in re.split(r"\s{2,}", line) if cell.strip()]
                checked += 1
    assert checked > 40


@pytest.mark.quick
def test_page_fetches_nothing(capsys, tmp_path):
    text = _page(capsys, tmp_path, FIGURE5, "--game", 1, "--ply", 8).read_text()
    # chess.svg's xmlns names a namespace; nothing is loaded from anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, flags=re.I)
    assert "@import" not in text and not re.search(r"url\(\s*['\"]?https?:", text)
    assert "<script src" not in text and "<link" not in text


@pytest.mark.quick
def test_a_bad_html_path_is_one_line(capsys, tmp_path):
    (tmp_path / "a-file").write_text("")
    code = main(["explain", FIGURE5, "--game", "1", "--ply", "8", "--html",
                 str(tmp_path / "a-file" / "x.html")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "--html" in err


def _png_colours(path):
    """The distinct pixel values of an 8-bit RGB or RGBA PNG (zlib alone)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert depth == 8 and colour in (2, 6)
    chunks, at = b"", 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            chunks += data[at + 8:at + 8 + length]
        at += 12 + length
    raw = zlib.decompress(chunks)
    stride = width * (3 if colour == 2 else 4)
    # Filter bytes aside, the first row's bytes and a sample of the rest.
    pixels = {raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)] for row in
              range(0, height, max(1, height // 50))}
    return len(pixels)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_chromium_renders_the_page(capsys, tmp_path):
    path = _page(capsys, tmp_path, FIGURE5, "--game", 1, "--ply", 8, "--rules", "paper")
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu"]
    dom = subprocess.run([*browser, "--dump-dom", path.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    # The script ran (it marks the body and says which step shows), and the
    # rows and the answer are in the rendered document.
    assert "scripted" in dom and "step 1 of" in dom
    assert "Transition (c4b1 and b1d2)" in dom and "repetition yes, distance 8" in dom
    shot = tmp_path / "page.png"
    subprocess.run([*browser, "--window-size=1200,900", f"--screenshot={shot}", path.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.exists() and _png_colours(shot) > 10      # not a blank page


# --- axon report --------------------------------------------------------------

def _scan_counts(capsys, path, *options):
    assert main(["scan", str(path), "--jsonl", "-q", *options]) == 0
    import json
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return (len({r["game"] for r in records}), len(records),
            sum(r["repetition"] for r in records), sum(r["threefold"] is True for r in records),
            sum(r["upcoming"] for r in records))


def _report(capsys, tmp_path, pgn, *options):
    out = tmp_path / "report.html"
    assert main(["report", str(pgn), "-o", str(out), "-q", *options]) == 0
    printed = capsys.readouterr().out
    numbers = tuple(int(n) for n in re.findall(r"\d+", printed.split(": ", 1)[1]))
    return out, numbers


@pytest.mark.quick
def test_report_counts_are_scans(capsys, tmp_path):
    traps = next(path for path in bundled_files() if path.endswith("traps.pgn"))
    out, numbers = _report(capsys, tmp_path, traps)
    assert numbers == _scan_counts(capsys, traps)
    text = out.read_text()
    # Every ply a cell; the plies with a repetition or upcoming one link to
    # their explanation page, which exists beside the report.
    assert len(re.findall(r'class="ply[^"]*" (?:href="[^"]*" )?title=', text)) == numbers[1]
    links = re.findall(r'href="([^"]+)"', text)
    assert len(links) >= numbers[2] and all((out.parent / link).is_file() for link in links)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, flags=re.I)


LONDON_1851 = Path(bundled_files()[0]).parent / "tournaments" / "london1851.pgn"


def test_report_of_a_real_tournament_with_a_root(capsys, tmp_path):
    # 251 games of the London 1851 tournament, with the file's CRLF line ends.
    _, numbers = _report(capsys, tmp_path, LONDON_1851, "--root", "10")
    assert numbers[0] == 251 and numbers == _scan_counts(capsys, LONDON_1851, "--root", "10")
    # The file holds repetitions and upcoming ones, so the counts test something.
    assert numbers[2] > 0 and numbers[4] > 0


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
@pytest.mark.parametrize("pgn, event", [
    (next(path for path in bundled_files() if path.endswith("traps.pgn")), "Trap a1"),
    (LONDON_1851, "London"),
])
def test_chromium_renders_the_report(capsys, tmp_path, pgn, event):
    out, numbers = _report(capsys, tmp_path, pgn)
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu"]
    dom = subprocess.run([*browser, "--dump-dom", out.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    assert f"{numbers[0]} games, {numbers[1]} plies" in dom and event in dom
    shot = tmp_path / "report.png"
    subprocess.run([*browser, "--window-size=1000,700", f"--screenshot={shot}", out.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.exists() and _png_colours(shot) > 10
