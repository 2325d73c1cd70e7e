"""The fingerprint of the gateware a benchmark measured.

``axon bench`` records it in ``bench.json``, so that the kept run
(``docs/bench.json``) says which gateware its figures are of, and a test can
tell when the gateware has changed since: then the figures in the docs are
out of date, and ``axon bench`` must run again.

The fingerprint is a SHA-256 of the code of every module under ``hdl/``
(``axon.hdl``, the board's gateware included), read as Python syntax trees:
a change to what the gateware does changes it, while comments, docstrings,
blank lines and line numbers do not.
"""

import ast
import hashlib
from pathlib import Path

from ... import hdl


__all__ = ["gateware_fingerprint", "GATEWARE_ROOT"]

#: The gateware's sources: the ``axon.hdl`` package's folder.
GATEWARE_ROOT = Path(hdl.__file__).resolve().parent


def _without_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and \
                    isinstance(getattr(body[0], "value", None), ast.Constant) and \
                    isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def gateware_fingerprint(root=None):
    """``"sha256:..."`` of the code of the gateware's modules under ``root``
    (default :data:`GATEWARE_ROOT`), file by file in the order of their paths."""
    root = Path(GATEWARE_ROOT if root is None else root)
    digest = hashlib.sha256()
    paths = sorted(root.rglob("*.py"), key=lambda path: path.relative_to(root).as_posix())
    if not paths:
        raise ValueError(f"{root}: no gateware sources (*.py) to fingerprint")
    for path in paths:
        tree = _without_docstrings(ast.parse(path.read_text(), filename=str(path)))
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(ast.dump(tree, annotate_fields=True, include_attributes=False).encode())
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()
