"""The interface's version: one number in ``pyproject.toml``, the same in
``axon --version``, the changelog and the licence file beside it."""

import re
from pathlib import Path

import pytest

from axon.hdl.version import INTERFACE_VERSION, VERSION
from axon.sim.cli.main import main


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "interface version, changelog and licence"


pytestmark = pytest.mark.quick

ROOT = Path(__file__).resolve().parent.parent


def pyproject_version(text):
    """The ``version`` of ``pyproject.toml``'s ``[project]`` table."""
    project = text[text.index("[project]"):]
    return re.search(r'^version = "([^"]+)"$', project, flags=re.M).group(1)


def changelog_version(text):
    """The newest version ``CHANGELOG.md`` speaks of: the one its
    ``[Unreleased]`` section says it is, else its newest release heading."""
    sections = re.findall(r"^## \[([^\]]+)\](.*?)(?=^## \[|\Z)", text, flags=re.M | re.S)
    if not sections:
        raise ValueError("the changelog has no section")
    name, body = sections[0]
    if name == "Unreleased":
        said = re.search(r"This is version (\d+\.\d+\.\d+)", body)
        if said:
            return said.group(1)
        if len(sections) < 2:
            raise ValueError("the [Unreleased] section names no version, and no release follows")
        name = sections[1][0]
    return name


def check_versions_agree(changelog, pyproject):
    """Raise ``AssertionError`` unless the changelog's newest version is
    ``pyproject.toml``'s."""
    said, released = changelog_version(changelog), pyproject_version(pyproject)
    assert said == released, f"CHANGELOG.md says {said}, pyproject.toml {released}"


def test_changelog_names_the_version_of_pyproject():
    check_versions_agree((ROOT / "CHANGELOG.md").read_text(), (ROOT / "pyproject.toml").read_text())


def test_an_old_changelog_fails():
    pyproject = (ROOT / "pyproject.toml").read_text()
    stale = (ROOT / "CHANGELOG.md").read_text().replace(f"This is version {VERSION}",
                                                        "This is version 0.1.9")
    with pytest.raises(AssertionError, match="0.1.9"):
        check_versions_agree(stale, pyproject)


def test_a_release_heading_is_read_too():
    pyproject = (ROOT / "pyproject.toml").read_text()
    released = f"# Changelog\n\n## [Unreleased]\n\n## [{VERSION}] - 2026-11-25\n\n### Added\n"
    check_versions_agree(released, pyproject)
    with pytest.raises(AssertionError):
        check_versions_agree(released.replace(f"[{VERSION}]", "[0.1.0]"), pyproject)


def test_installed_version_is_pyprojects():
    assert VERSION == pyproject_version((ROOT / "pyproject.toml").read_text())
    assert ".".join(map(str, INTERFACE_VERSION)) == VERSION


def test_version_option(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"axon {VERSION}\n"


def test_changelog_says_how_to_migrate_the_verilog_interface():
    text = " ".join((ROOT / "CHANGELOG.md").read_text().split())
    for fact in ("query__root", "AXON_DETECTOR_ROOT_NONE", "PINMISSING", "from 22 to 23",
                 "`stop` = `BOTTOM`", "To migrate"):
        assert fact in text, fact


def test_licence_is_the_one_pyproject_names():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = { text = "BSD-2-Clause" }' in pyproject
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("BSD 2-Clause License\n")
    assert "Redistributions in binary form must reproduce" in licence
