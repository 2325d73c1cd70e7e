"""The IP package's text templates: files in ``templates/`` (package data),
filled in by name.

In a template, ``${name}`` is a placeholder and nothing else is: a ``$``
alone, as a shell prompt in a README, stays as written.
"""

import string
from pathlib import Path
from typing import Mapping


__all__ = ["TEMPLATES", "fill"]

TEMPLATES = Path(__file__).resolve().parent / "templates"


class _Template(string.Template):
    # Only the braced form; the other groups string.Template asks for never match.
    pattern = (r"\$(?:\{(?P<braced>[a-z_][a-z0-9_]*)\}"  # type: ignore[assignment]
               r"|(?P<escaped>(?!))|(?P<named>(?!))|(?P<invalid>(?!)))")


def fill(name: str, values: Mapping[str, object]) -> str:
    """The template ``name`` with each ``${key}`` replaced by ``values[key]``
    (a ``KeyError`` names a placeholder that ``values`` lacks)."""
    return _Template((TEMPLATES / name).read_text()).substitute(values)
