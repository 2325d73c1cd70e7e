"""The documentation builds: ``sphinx-build -W`` (a warning is an error) on
``docs/``, the API reference generated from the docstrings included."""

import re
import subprocess
import sys
from pathlib import Path

import pytest


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "documentation site"


ROOT = Path(__file__).resolve().parents[1]


def _sphinx_build(tmp_path, source):
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(source), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("sphinx", reason="Sphinx is not installed (the docs extra)")
    pytest.importorskip("myst_parser", reason="MyST is not installed (the docs extra)")
    out = tmp_path_factory.mktemp("docs")
    built = _sphinx_build(out, ROOT / "docs")
    assert built.returncode == 0, built.stderr
    return out / "html"


@pytest.mark.quick
def test_docs_build_without_warnings(site):
    pages = {path.stem for path in site.glob("*.html")}
    sources = {path.stem for path in (ROOT / "docs").glob("*.md")}
    assert sources <= pages, sources - pages


def check_pages_kept(site, source):
    """Raise ``AssertionError`` unless the built ``site`` has the page of each
    Markdown file of ``source`` (its title on it) and Sphinx's own search page
    besides: a file named like one of Sphinx's pages (``search.md``) is
    overwritten by it without a warning."""
    import html
    for path in sorted(source.glob("*.md")):
        # A page that includes another file (the changelog) has no title of its own.
        title = next((line[2:].strip() for line in path.read_text().splitlines()
                      if line.startswith("# ")), "")
        page = site / f"{path.stem}.html"
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text())) if page.is_file() else ""
        assert page.is_file() and title.replace("`", "") in text, \
            f"{path.name} lost its page ({page.name}) to another"
    assert 'id="search-results"' in (site / "search.html").read_text(), \
        "the site has no search page"


@pytest.mark.quick
def test_site_has_every_page_and_the_search_page(site):
    check_pages_kept(site, ROOT / "docs")


def test_a_page_named_like_sphinx_search_fails(tmp_path):
    pytest.importorskip("myst_parser", reason="MyST is not installed (the docs extra)")
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text('extensions = ["myst_parser"]\n')
    (source / "index.md").write_text("# Title\n\n```{toctree}\nsearch\n```\n")
    (source / "search.md").write_text("# The detector in a search\n\nText.\n")
    built = _sphinx_build(tmp_path, source)
    assert built.returncode == 0, built.stderr
    with pytest.raises(AssertionError, match="search.md lost its page"):
        check_pages_kept(tmp_path / "html", source)


def test_api_reference_comes_from_the_docstrings(site):
    text = (site / "api.html").read_text()
    # The detector, its ports and the session interface, each with the words
    # of its docstring.
    for name in ("AxonDetector", "QuerySignature", "MoveMemorySignature", "Session",
                 "perpetual", "Link"):
        assert re.search(rf'id="[\w.]*{name}"', text), name
    assert "Begin a query with" in text


def test_a_broken_page_fails_the_build(tmp_path):
    # The -W gate can fail: a link to a missing page is an error.
    pytest.importorskip("myst_parser", reason="MyST is not installed (the docs extra)")
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text('extensions = ["myst_parser"]\n')
    (source / "index.md").write_text("# Title\n\nSee [a page](missing.md).\n")
    built = _sphinx_build(tmp_path, source)
    assert built.returncode != 0 and "missing" in built.stderr
