"""``axon explain --html``: the explanation as a page, built from the same rows
as the text table, self-contained, and rendered by a real browser where one
is installed."""

import html
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
    """Every table of a page as a list of rows of cell texts. A cell that
    says a thing in plain words over the paper's (``span.paper``) is read
    as the paper's words, which the text table prints."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self._paper, self._span = [], None, None, []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell, self._paper = "", None
        elif tag == "span" and self._cell is not None:
            self._span.append(dict(attrs).get("class"))
            if self._span[-1] == "paper":
                self._paper = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell if self._paper is None else self._paper)
            self._cell = None
        elif tag == "span" and self._span:
            self._span.pop()

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
            if self._span and self._span[-1] == "paper":
                self._paper += data


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
    # One row a step, with its move and chains for the board the script
    # draws from the position's FEN; the pieces' pictures are in the page once.
    text = path.read_text()
    assert len(re.findall(r'<tr class="step"', text)) == 4
    assert 'data-fen="' in text and text.count('id="white-knight"') == 1
    assert "Rule of symmetry applied" in text and "repetition yes, distance 8" in text


@pytest.mark.quick
def test_page_speaks_a_chess_players_words(capsys, tmp_path):
    path = _page(capsys, tmp_path, FIGURE5, "--game", 1, "--ply", 8, "--rules", "paper")
    text = path.read_text()
    # The paper's column names are the second line under plain ones.
    assert re.search(r"Moves not yet undone<span class=\"paper\">LIST_OF_MOVES</span>", text)
    assert re.search(r"How many<span class=\"paper\">UnClosed_chains</span>", text)
    # The answer first in plain words, the detector's line below it.
    answer = text[text.index('<div class="answer">'):text.index('<p class="paper">')]
    assert "This position stood on the board before" in answer
    assert "the root is" not in answer and "LIST_OF_MOVES" not in answer
    assert "White's knight c4-a3 is a new move not yet undone." in html.unescape(text)


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
    numbers = tuple(int(n.replace(",", "")) for n in
                    re.findall(r"\d[\d,]*", printed.split(": ", 1)[1]))
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
    links = re.findall(r'href="([^"#]+#[^"]+)"', text)
    assert len(links) >= numbers[2]
    for link in links:
        page, anchor = link.split("#")
        assert f'id="{anchor}"' in (out.parent / page).read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, flags=re.I)
    # A ply explained without its steps gives the command that writes them,
    # the PGN file included, as a user can paste it.
    pages = "".join(path.read_text() for path in (out.parent / "report_files").glob("*.html"))
    hints = re.findall(r"as does <code>(axon explain [^<]*)</code>", pages)
    assert hints and all(hint.startswith(f"axon explain {traps} --game ") for hint in hints)


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


# --- a report that stays small ------------------------------------------------------

def _generated_pgn(path, count, plies, seed=150):
    """``count`` generated games (half from the opening, half pawnless
    endgames that shuttle and repeat) as a PGN file."""
    import chess
    import chess.pgn
    from axon.sim.model.generate import game_corpus
    with open(path, "w") as out:
        for number, (start, moves) in enumerate(game_corpus(count, seed, plies=plies), 1):
            game = chess.pgn.Game()
            game.headers["Event"] = f"generated {number}"
            if start.fen() != chess.STARTING_FEN:
                game.setup(start)
            node = game
            for move in moves:
                node = node.add_variation(move)
            print(game, file=out, end="\n\n")
    return path


def _tree_size(path):
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


# What a report of 150 games may take: at most this many bytes, page and
# explanation pages together (pro rata for fewer games), and this many times
# the CPU time of axon scan.
REPORT_BYTES = 20_000_000
REPORT_TIME_FACTOR = 3.0


# The default run takes 40 games; the long sweep the 150 the docs speak of.
@pytest.mark.parametrize("games", [40, pytest.param(150, marks=pytest.mark.slow)])
def test_report_of_many_games_stays_small_and_quick(games, capsys, tmp_path):
    import time
    # Games of 100 to 200 plies (150 of them, about 22,000 plies, are as many
    # as 150 engine games), which repeat far more often than engine games do.
    pgn = _generated_pgn(tmp_path / "games.pgn", games, (100, 200))
    started = time.process_time()
    assert main(["scan", str(pgn), "-q"]) == 0
    scan_time = time.process_time() - started
    capsys.readouterr()
    report = tmp_path / "report" / "report.html"
    started = time.process_time()
    assert main(["report", str(pgn), "-o", str(report), "-q"]) == 0
    report_time = time.process_time() - started
    summary = capsys.readouterr().out
    size = _tree_size(report.parent)
    assert f"{games} games" in summary
    assert int(re.search(r"([\d,]+) plies", summary).group(1).replace(",", "")) > 100 * games
    assert size <= REPORT_BYTES * games / 150, f"{size:,} bytes"
    assert report_time <= REPORT_TIME_FACTOR * scan_time, (report_time, scan_time)
    # One explanation page a game, no more.
    pages = list((report.parent / "report_files").iterdir())
    assert 0 < len(pages) <= games


def test_report_explains_what_is_asked(capsys, tmp_path):
    pgn = _generated_pgn(tmp_path / "games.pgn", 4, (30, 60))
    sizes, links = {}, {}
    for choice in ("none", "repetitions", "all"):
        out = tmp_path / choice / "report.html"
        assert main(["report", str(pgn), "-o", str(out), "-q", "--explain", choice]) == 0
        plies = int(re.search(r"([\d,]+) plies", capsys.readouterr().out).group(1)
                    .replace(",", ""))
        links[choice] = len(re.findall(r'href="report_files/game-\d+\.html#ply-\d+"',
                                       out.read_text()))
        sizes[choice] = _tree_size(out.parent)
    assert links["none"] == 0 and not (tmp_path / "none" / "report_files").exists()
    assert 0 < links["repetitions"] < plies and links["all"] == plies
    assert sizes["none"] < sizes["repetitions"] < sizes["all"]


@pytest.mark.quick
def test_report_numbers_the_moves(capsys, tmp_path):
    path = tmp_path / "game.pgn"
    path.write_text('[Event "numbers"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 *\n\n'
                    '[Event "black first"]\n[SetUp "1"]\n'
                    '[FEN "4k3/8/8/8/8/8/8/4K1N1 b - - 0 30"]\n\n30... Kd7 31. Nf3 Ke8 *\n')
    out, _ = _report(capsys, tmp_path, path)
    strips = re.findall(r'<div class="strip">(.*?)</div>', out.read_text())
    numbers = [re.findall(r'<span class="n">([^<]+)</span>', strip) for strip in strips]
    assert numbers == [["1", "2", "3"], ["30\u2026", "31"]]
    # Each cell shows its move, readable without hovering; a repetition its count.
    moves = [re.findall(r'class="ply[^"]*"[^>]*>([^<]+)', strip) for strip in strips]
    assert moves == [["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"], ["Kd7", "Nf3", "Ke8"]]
    assert re.search(r'title="3\. Nf3[^"]*">Nf3<sup>1</sup></a>', out.read_text())


@pytest.mark.quick
def test_report_states_skipped_games(capsys, tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text('[Event "good"]\n\n1. Nf3 Nf6 *\n\n[Event "bad"]\n\n1. e4 e5 2. Ke3 *\n\n'
                    '[Event "good too"]\n\n1. d4 d5 *\n')
    out = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(out), "-q", "--keep-going"]) == 2
    printed = capsys.readouterr().out
    assert "1 game skipped" in printed
    text = html.unescape(out.read_text())
    assert "1 game skipped" in text[:text.index("</p>", text.index('class="summary"'))]
    # The skipped game is named in its place, between the two it stood between.
    assert text.index('game 1: good<') < text.index('class="skipped"') < \
        text.index('game 3: good too<')


# Three games: players, event, round and date where the tags give them; the
# second and third repeat a position.
HEADED = ('[Event "London"]\n[Round "2"]\n[Date "1851.??.??"]\n[White "Staunton, Howard"]\n'
          '[Black "Williams, Elijah"]\n\n1. e4 e5 *\n\n'
          '[Event "?"]\n[White "Anderssen"]\n[Black "Kieseritzky"]\n\n'
          '1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *\n\n'
          '[Event "Casual"]\n\n1. Nc3 Nc6 2. Nb1 Nb8 *\n')


def test_report_names_the_players_and_indexes_the_repetitions(tmp_path):
    # Through the installed script, as a user writes a report.
    from .test_cli import _script
    path, out = tmp_path / "headed.pgn", tmp_path / "report.html"
    path.write_text(HEADED)
    done = subprocess.run([_script(), "report", str(path), "-o", str(out), "-q"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    headings = re.findall(r'<h2 id="game-(\d+)">([^<]*)</h2>', text)
    assert [(number, html.unescape(heading)) for number, heading in headings] == [
        ("1", "game 1: Staunton, Howard \u2013 Williams, Elijah, London, round 2, 1851"),
        ("2", "game 2: Anderssen \u2013 Kieseritzky"),
        ("3", "game 3: Casual")]
    # The index links the games that hold a repetition, and only those.
    index = text[text.index('<nav class="index">'):text.index("</nav>")]
    assert re.findall(r'href="#game-(\d+)"', index) == ["2", "3"]
    assert "5 plies repeat an earlier position, 1 with a threefold repetition" in \
        html.unescape(index)
    # A move number and its move are one box: a line never breaks between them.
    strips = re.findall(r'<div class="strip">(.*?)</div>', text)
    numbered = re.findall(r'<span class="numbered"><span class="n">(\d+)</span>'
                          r'<(?:a|span) class="ply[^"]*"[^>]*>([^<]+)', strips[1])
    assert numbered == [("1", "Nf3"), ("2", "Ng1"), ("3", "Nf3"), ("4", "Ng1")]
    assert ".numbered { display: inline-flex;" in text and "white-space: nowrap" in text
    # Broken: a file without a repetition has an index that says so.
    path.write_text(HEADED.split("\n\n[Event \"?\"]")[0] + "\n")
    done = subprocess.run([_script(), "report", str(path), "-o", str(out), "-q"],
                          capture_output=True, text=True, timeout=120)
    assert "No game holds a repetition." in out.read_text() and 'href="#game-' not in \
        out.read_text()


def test_report_counts_have_thousands_separators(capsys, tmp_path):
    # The London 1851 file's 19,866 plies, as the search tables print a count.
    out = tmp_path / "report.html"
    assert main(["report", str(LONDON_1851), "-o", str(out), "-q", "--explain", "none"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r": 251 games, 19,866 plies, \d+ plies repeat", printed), printed
    assert "19,866 plies" in out.read_text() and "19866" not in out.read_text()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_report_that_cannot_be_written_leaves_nothing(tmp_path):
    # `-o /dev/full`: the page fails to be written, and the explanation
    # pages that would stand beside it are not left behind.
    from .test_cli import _script
    traps = next(path for path in bundled_files() if path.endswith("traps.pgn"))
    before = set(Path("/dev").iterdir())
    done = subprocess.run([_script(), "report", traps, "-o", "/dev/full", "-q"],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == \
        (1, "axon report: error: cannot write the output: No space left on device\n")
    assert set(Path("/dev").iterdir()) == before and not Path("/dev/full_files").exists()
    # Broken: the same report to a file that can be written has its pages.
    out = tmp_path / "traps.html"
    done = subprocess.run([_script(), "report", traps, "-o", str(out), "-q"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and list((tmp_path / "traps_files").glob("game-*.html"))


# A pawnless ending 96 halfmoves after the last capture: by the fourth ply the
# fifty-move rule holds, and the knights' shuffle repeats the position.
FIFTY_AND_REPETITION = ('[Event "both"]\n[SetUp "1"]\n[FEN "4k1n1/8/8/8/8/8/8/4K1N1 w - - 96 60"]'
                        '\n\n60. Nf3 Nf6 61. Ng1 Ng8 62. Nf3 Nf6 *\n')


def _chromium_dom(page, script=""):
    """The document Chromium renders from ``page`` (a path), after the
    page's own script and then ``script``, which may write into it."""
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu"]
    if script:
        probe = page.with_name("probe-" + page.name)
        probe.write_text(page.read_text().replace("</body>", f"<script>{script}</script></body>"))
        page = probe
    return subprocess.run([*browser, "--dump-dom", page.as_uri()], capture_output=True,
                          text=True, timeout=120).stdout


# Each answer's look in the report (the computed style that shows it).
ANSWER_LOOKS = {
    "repetition": ("backgroundColor", "rgb(242, 193, 78)"),
    "fifty": ("boxShadow", "rgb(30, 120, 200)"),
    "upcoming": ("boxShadow", "rgb(155, 63, 209)"),
    "draw": ("outlineColor", "rgb(91, 63, 209)"),
}


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_chromium_shows_every_answer_where_they_meet(capsys, tmp_path):
    path = tmp_path / "both.pgn"
    path.write_text(FIFTY_AND_REPETITION)
    out, _ = _report(capsys, tmp_path, path, "--root", "0")
    text = out.read_text()
    assert re.search(r'class="ply repetition[^"]*fifty', text)
    # Every cell that carries an answer shows each of its answers' looks.
    script = """
      const found = [];
      for (const cell of document.querySelectorAll(".strip .ply")) {
        const style = getComputedStyle(cell);
        found.push(cell.className + "=" + [style.backgroundColor, style.boxShadow,
                                           style.outlineColor, style.outlineStyle].join("|"));
      }
      const out = document.createElement("pre"); out.id = "looks";
      out.textContent = found.join("\\n"); document.body.appendChild(out);
    """
    dom = _chromium_dom(out, script)
    looks = html.unescape(dom[dom.index('<pre id="looks">') + 16:dom.index("</pre>")])
    checked = 0
    for line in looks.splitlines():
        classes, style = line.split("=", 1)
        for answer in set(classes.split()) & set(ANSWER_LOOKS):
            assert ANSWER_LOOKS[answer][1] in style, (classes, style)
            checked += 1
        if {"repetition", "fifty"} <= set(classes.split()):
            checked += 100
    assert checked > 100


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_chromium_draws_coinciding_arrows_side_by_side(capsys, tmp_path):
    # Figure 5's first step: the move c4-a3 and the chain it starts share squares.
    path = _page(capsys, tmp_path, FIGURE5, "--game", 1, "--ply", 8, "--rules", "paper")
    dom = _chromium_dom(path)
    lines = re.findall(r'<line class="arrow (\w+)" data-squares="c4a3" x1="([\d.-]+)" '
                       r'y1="([\d.-]+)" x2="([\d.-]+)" y2="([\d.-]+)"', dom)
    assert {kind for kind, *_ in lines} == {"move", "white"}
    (_, *first), (_, *second) = lines
    # Parallel, a lane apart: no point of one is a point of the other.
    assert first != second
    assert min(abs(float(a) - float(b)) for a, b in zip(first, second)) > 3
