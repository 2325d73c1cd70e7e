"""The public Python API is typed, and a type checker agrees with its types.

Every public signature of the detector sessions, the configuration, the
golden model and the search engine is annotated (checked here from the
source), and mypy checks those modules: a body that breaks its own
annotations, or a caller that breaks them, fails the run.
"""

import ast
import os
import pathlib
import subprocess
import sys

import pytest


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "type hints"


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


ROOT = pathlib.Path(__file__).resolve().parents[1]

# The typed API: each module's public names whose signatures are annotated.
TYPED = {
    "axon.hdl.params":           ["DetectorConfig", "Rules"],
    "axon.sim.model.golden":     ["Result", "perpetual", "reaches", "squares_between",
                                  "inside_search", "decides_draw"],
    "axon.sim.backends.session": ["Session", "GoldenSession", "PlyAnswer", "batches",
                                  "answer_games", "answers", "HostWrites", "written_before"],
    "axon.sim.backends.pysim":   ["PysimSession"],
    "axon.sim.backends.cxxrtl":  ["CxxrtlSession"],
    "axon.sim.backends.link":    ["Board", "open_transport", "simulated_config"],
    "axon.sim.engine.search":    ["Engine", "DepthResult"],
    "axon.sim.engine.uci":       ["UciOptions", "GameLine", "parse_position", "GoLimits",
                                  "parse_go", "think_time", "Output", "uci_score", "UciEngine"],
}
FOLDERS = {"hdl": "axon.hdl", "sim": "axon.sim", "boards": "axon.boards"}


def path_of(module):
    folder = next(folder for folder, package in FOLDERS.items()
                  if module == package or module.startswith(package + "."))
    parts = module.split(".")[2:]
    return ROOT.joinpath(folder, *parts).with_suffix(".py")


def _untyped(function, where):
    arguments = function.args
    named = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    if named and named[0].arg in ("self", "cls"):
        named = named[1:]
    missing = [argument.arg for argument in named if argument.annotation is None]
    missing += [f"*{star.arg}" for star in (arguments.vararg, arguments.kwarg)
                if star is not None and star.annotation is None]
    if function.returns is None:
        missing.append("return")
    return [f"{where}: {', '.join(missing)}"] if missing else []


def untyped_signatures(source, names):
    """``name: what lacks a type`` for each public function among ``names``,
    and each public method (``__init__`` included) of the classes among
    them, in ``source``."""
    found = []
    for node in ast.parse(source).body:
        if getattr(node, "name", None) not in names:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += _untyped(node, node.name)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        (not item.name.startswith("_") or item.name == "__init__"):
                    found += _untyped(item, f"{node.name}.{item.name}")
    return found


def test_every_public_signature_is_typed():
    missing = {module: untyped_signatures(path_of(module).read_text(), names)
               for module, names in TYPED.items()}
    assert {module: found for module, found in missing.items() if found} == {}


def test_the_signature_check_can_fail():
    source = ("class Session:\n"
              "    def load(self, words) -> None: ...\n"
              "    def _private(self, x): ...\n"
              "def perpetual(words: list, *, top) -> int: ...\n"
              "def helper(x): ...\n")
    assert untyped_signatures(source, ["Session", "perpetual"]) == \
        ["Session.load: words", "perpetual: top"]


def mypy(tmp_path, modules, probe=None):
    """Run mypy on ``modules`` (and the source ``probe``, as a module of its
    own) as the installed package sees them; return ``(status, output)``."""
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e .[test]")
    # The editable install maps axon.hdl to hdl/ by an import hook, which a
    # type checker does not run: a package tree of links stands in for it.
    tree = tmp_path / "tree"
    (tree / "axon").mkdir(parents=True)
    for folder in FOLDERS:
        (tree / "axon" / folder).symlink_to(ROOT / folder, target_is_directory=True)
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
               "--ignore-missing-imports", "--follow-imports=silent", "--no-error-summary",
               "--hide-error-context"]
    for module in modules:
        command += ["-m", module]
    if probe is not None:
        (tree / "probe.py").write_text(probe)
        command += ["-m", "probe"]
    process = subprocess.run(command, cwd=tree, capture_output=True, text=True,
                             env={**os.environ, "MYPYPATH": str(tree)})
    return process.returncode, process.stdout + process.stderr


def test_the_typed_api_type_checks(tmp_path):
    status, output = mypy(tmp_path, TYPED)
    assert status == 0, output


def test_a_caller_that_breaks_the_types_fails(tmp_path):
    # The broken variant: a caller that takes a clock count for text and
    # asks a session about a square by name.
    probe = ("from axon.hdl.params import SHIPPED\n"
             "from axon.sim.backends.session import GoldenSession\n"
             "clocks: str = SHIPPED.latency(4)\n"
             "GoldenSession().query('e4', 1)\n")
    status, output = mypy(tmp_path, ["axon.hdl.params", "axon.sim.backends.session"], probe)
    assert status == 1
    assert 'probe.py:3: error: Incompatible types in assignment (expression has type "int", ' \
           'variable has type "str")' in output
    assert 'probe.py:4: error: Argument 1 to "query" of "GoldenSession" has incompatible ' \
           'type "str"; expected "int"' in output
