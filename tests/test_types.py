"""The public Python API is typed, and a type checker agrees with its types.

Every public signature of the detector sessions, the configuration, the
golden model, the move word, the PGN reader, the search engine and its
repetition tests is annotated (checked here from the source), and mypy
checks those modules: a body that breaks its own annotations, or a caller
that breaks them, fails the run. In the modules of :data:`STRICT` every
function, private ones included, must be annotated (mypy's
``disallow_untyped_defs``), and the repetition tests must implement the
engine's :class:`~axon.sim.engine.repetition.RepetitionTest` protocol.
"""

import ast
import os
import pathlib
import re
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
                                  "inside_search", "decides_draw", "upcoming_move",
                                  "GoldenChainPool", "SpillingPool", "GoldenChainList"],
    "axon.sim.model.games":      ["plural", "GameRecord", "read_games", "game_chunks",
                                  "display_name", "iter_pgn", "read_pgn", "load_games",
                                  "bundled_files"],
    "axon.hdl.word":             ["MoveWord", "pack_word", "unpack_word", "piece_kind",
                                  "piece_colour", "piece_code", "is_barrier", "square_name",
                                  "word_str"],
    "axon.sim.engine.repetition": ["RepetitionTest", "NoTest", "ChessTest", "DetectorTest",
                                   "history_room", "history_window"],
    "axon.sim.backends.session": ["Session", "GoldenSession", "PlyAnswer", "batches",
                                  "answer_games", "answers", "HostWrites", "written_before"],
    "axon.sim.backends.pysim":   ["PysimSession"],
    "axon.sim.search.movegen":   ["Position", "pseudo_moves", "attacked", "make", "unmake",
                                  "legal_moves", "uci"],
    "axon.sim.search.perft":     ["PerftResult", "perft", "trace", "parse_position",
                                  "check_depth", "move_uci"],
    "axon.sim.backends.cxxrtl":  ["CxxrtlSession"],
    "axon.sim.backends.link":    ["Link", "DetectorSession", "open_transport", "open_link",
                                  "simulated_config"],
    "axon.sim.engine.alphabeta":    ["Engine", "DepthResult"],
    "axon.sim.engine.uci":       ["UciOptions", "GameLine", "parse_position", "GoLimits",
                                  "parse_go", "think_time", "Output", "uci_score", "UciEngine"],
}
# Modules whose every function, private ones included, must be annotated.
STRICT = ["axon.sim.model.golden", "axon.sim.engine.repetition", "axon.sim.model.games",
          "axon.hdl.word"]
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


def _link_tree(source, target, replaced):
    """``target`` a tree of links to ``source``'s files, but for the files of
    ``replaced`` (paths relative to ``target``: their text), written anew."""
    here = {path: text for path, text in replaced.items()
            if path == target or target in path.parents}
    if not here:
        target.symlink_to(source, target_is_directory=source.is_dir())
    elif target in here:
        target.write_text(here[target])
    else:
        target.mkdir()
        for entry in source.iterdir():
            _link_tree(entry, target / entry.name, here)


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    """One cache for the module's runs: what they share (the standard
    library's stubs, python-chess) is analysed once."""
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(tmp_path, modules, probe=None, replaced=None, cache=None):
    """Run mypy on ``modules`` (and the source ``probe``, as a module of its
    own) as the installed package sees them, every module of :data:`STRICT`
    with ``disallow_untyped_defs``; return ``(status, output)``. ``replaced``
    maps a module to the source it has in this run (a broken variant);
    ``cache``, the cache's folder, else one of this run's own."""
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e .[test]")
    # The editable install maps axon.hdl to hdl/ by an import hook, which a
    # type checker does not run: a package tree of links stands in for it.
    tree = tmp_path / "tree"
    (tree / "axon").mkdir(parents=True)
    replaced = {tree / "axon" / path_of(module).relative_to(ROOT): text
                for module, text in (replaced or {}).items()}
    for folder in FOLDERS:
        _link_tree(ROOT / folder, tree / "axon" / folder, replaced)
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\n[mypy-{','.join(STRICT)}]\ndisallow_untyped_defs = True\n")
    command = [sys.executable, "-m", "mypy", "--config-file", str(config),
               "--cache-dir", str(cache or tmp_path / "cache"),
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


def test_the_typed_api_type_checks(tmp_path, mypy_cache):
    status, output = mypy(tmp_path, TYPED, cache=mypy_cache)
    assert status == 0, output


def test_a_caller_that_breaks_the_types_fails(tmp_path, mypy_cache):
    # The broken variant: a caller that takes a clock count for text and
    # asks a session about a square by name.
    probe = ("from axon.hdl.params import SHIPPED\n"
             "from axon.sim.backends.session import GoldenSession\n"
             "clocks: str = SHIPPED.latency(4)\n"
             "GoldenSession().query('e4', 1)\n")
    status, output = mypy(tmp_path, ["axon.hdl.params", "axon.sim.backends.session"], probe,
                          cache=mypy_cache)
    assert status == 1
    assert 'probe.py:3: error: Incompatible types in assignment (expression has type "int", ' \
           'variable has type "str")' in output
    assert 'probe.py:4: error: Argument 1 to "query" of "GoldenSession" has incompatible ' \
           'type "str"; expected "int"' in output


def test_the_strict_modules_are_checked():
    assert set(STRICT) <= set(TYPED)


def _error_lines(output, path):
    """``(line, message)`` of each mypy error in the file at ``path``."""
    return [(int(line), message) for line, message in
            re.findall(rf"^{re.escape(path)}:(\d+): error: (.*)$", output, re.MULTILINE)]


def test_an_unannotated_function_in_a_strict_module_fails(tmp_path, mypy_cache):
    # The broken variant: each strict module with a function added that has
    # no annotations, which mypy alone would take as untyped and not check.
    added = "def added(value):\n    return value\n"
    replaced = {module: path_of(module).read_text() + "\n\n" + added for module in STRICT}
    status, output = mypy(tmp_path, STRICT, replaced=replaced, cache=mypy_cache)
    assert status == 1
    for module, text in replaced.items():
        line = text.splitlines().index("def added(value):") + 1
        path = f"axon/{path_of(module).relative_to(ROOT)}"
        assert _error_lines(output, path) == \
            [(line, "Function is missing a type annotation  [no-untyped-def]")], output


def test_the_repetition_tests_implement_the_protocol():
    from axon.sim.engine import alphabeta, repetition
    assert alphabeta.RepetitionTest is repetition.RepetitionTest
    for test in (repetition.NoTest, repetition.ChessTest, repetition.DetectorTest):
        assert repetition.RepetitionTest in test.__mro__


def test_a_repetition_test_that_breaks_the_protocol_fails(tmp_path, mypy_cache):
    # The broken variant: NoTest says its draw in words.
    source = path_of("axon.sim.engine.repetition").read_text()
    typed = "    def is_draw(self, board: chess.Board) -> bool:\n        return False\n"
    assert source.count(typed) == 1
    broken = source.replace(typed, '    def is_draw(self, board: chess.Board) -> str:\n'
                                   '        return "no"\n')
    status, output = mypy(tmp_path, ["axon.sim.engine.repetition"],
                          replaced={"axon.sim.engine.repetition": broken}, cache=mypy_cache)
    assert status == 1
    line = broken.splitlines().index("    def is_draw(self, board: chess.Board) -> str:") + 1
    assert _error_lines(output, "axon/sim/engine/repetition.py") == \
        [(line, 'Return type "str" of "is_draw" incompatible with return type "bool" in '
                'supertype "RepetitionTest"  [override]')], output


def test_an_engine_takes_what_implements_the_protocol_only(tmp_path, mypy_cache):
    # A test of the caller's own is taken as it has every method, though it
    # does not name the protocol; the broken variant lacks upcoming_draw.
    probe = ("from typing import Sequence\n"
             "import chess\n"
             "from axon.sim.engine.alphabeta import Engine\n"
             "class Half:\n"
             "    queries = 0\n"
             "    def start(self, board: chess.Board, history: Sequence[chess.Move]) -> None: ...\n"
             "    def push(self, board: chess.Board, move: chess.Move) -> None: ...\n"
             "    def pop(self) -> None: ...\n"
             "    def is_draw(self, board: chess.Board) -> bool: return False\n"
             "class Whole(Half):\n"
             "    def upcoming_draw(self, board: chess.Board) -> bool: return False\n"
             "Engine(chess.Board(), [], Whole())\n"
             "Engine(chess.Board(), [], Half())\n")
    status, output = mypy(tmp_path, ["axon.sim.engine.alphabeta"], probe, cache=mypy_cache)
    assert status == 1
    errors = _error_lines(output, "probe.py")
    assert [line for line, _ in errors] == [13], output
    assert errors[0][1].startswith('Argument 3 to "Engine" has incompatible type "Half"'), output
