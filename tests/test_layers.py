"""The packages import one way: gateware ← boards ← model ← backends ← tools
← CLI.

The folders are the layers in that order: ``hdl/``, then ``boards/`` (what a
board needs from the toolchain, on the gateware alone), then ``sim/`` with
its own sub-layers. Each module's imports (those inside functions included)
are read from its source with :mod:`ast` and checked against the layer of
every project module it names. A module may import its own layer and the
layers below it, never a layer above, so that a change to the command line
can never break the golden model, and the gateware, or the gateware with
its boards, can be lifted out alone.
"""

import ast
import pathlib

import pytest


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "layering"


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDERS = {"hdl": "axon.hdl", "sim": "axon.sim", "boards": "axon.boards"}

# Lowest first. A package is in the layer of the longest prefix listed here.
# Each top folder is a layer, in the order hdl/, boards/, sim/, and sim/ is
# split into its own from the bottom up: the model, the backends, the tools
# and the CLI.
LAYERS = [
    ("gateware", ["axon.hdl"]),
    ("boards",   ["axon.boards"]),
    ("model",    ["axon.sim.model", "axon.sim"]),
    ("backends", ["axon.sim.backends"]),
    ("tools",    ["axon.sim.verify", "axon.sim.bench", "axon.sim.engine", "axon.sim.ip"]),
    ("cli",      ["axon.sim.cli"]),
]

# What the gateware's users outside Amaranth (the golden model and every
# backend) may take from it: its word and parameter definitions and its
# pool layout, and the move generator's rules and layouts, not its circuits.
MODEL_MAY_USE_FROM_GATEWARE = {"axon.hdl.word", "axon.hdl.params", "axon.hdl.pools",
                               "axon.hdl.result", "axon.hdl.search.rules",
                               "axon.hdl.search.layout"}


def _modules():
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package] + parts)] = path
    return found


MODULES = _modules()


def layer_of(module):
    best = None
    for rank, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (rank, len(prefix), name)
    assert best is not None, f"{module} is in no layer"
    return best[0], best[2]


def imports_of(module, source=None):
    """``(line, imported module)`` for every project module that ``module``
    imports; ``source`` (default: the module's file) is the text to read."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    source = path.read_text() if source is None else source
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names = [f"{prefix}.{alias.name}" for alias in node.names] + [prefix]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.append((node.lineno, name))
                break
    return found


def violations(module, source=None):
    """One line for every import of ``module`` that breaks the layering."""
    rank, name = layer_of(module)
    where = MODULES[module].relative_to(ROOT)
    found = []
    for line, imported in imports_of(module, source):
        imported_rank, imported_name = layer_of(imported)
        if imported_rank > rank:
            found.append(f"{where}:{line}: {module} ({name}) imports {imported} "
                         f"({imported_name}), a layer above it")
        elif name == "model" and imported_name == "gateware" and \
                imported not in MODEL_MAY_USE_FROM_GATEWARE:
            found.append(f"{where}:{line}: the model imports the circuit {imported}; it may "
                         f"only use {', '.join(sorted(MODEL_MAY_USE_FROM_GATEWARE))}")
        elif name == "model" and imported_name == "boards":
            found.append(f"{where}:{line}: the model imports {imported}; it stands on the "
                         f"gateware's definitions alone, never on a board's toolchain")
    return found


def test_every_module_has_a_layer():
    assert len(MODULES) > 40
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    assert violations(module) == []


def test_nothing_imports_the_command_line():
    for module in MODULES:
        if layer_of(module)[1] != "cli":
            assert all(layer_of(imported)[1] != "cli" for _, imported in imports_of(module)), module


@pytest.mark.parametrize("module, source", [
    # An upward import hidden in a function, as a cycle-breaking one would be.
    ("axon.sim.model.golden", "def f():\n    from ..cli.main import main\n"),
    ("axon.hdl.detector", "from ..sim.model import golden\n"),
    ("axon.hdl.detector", "from ..boards.platforms import BOARDS\n"),
    # The boards stand on the gateware alone: nothing of sim/.
    ("axon.boards.build", "import axon.sim.verify.soak\n"),
    ("axon.boards.measure", "def f():\n    from ..sim.backends.link import Link\n"),
    ("axon.boards.platforms", "from ..sim.model.golden import Result\n"),
    # The board's gateware sits below the model, the backends and the host.
    ("axon.hdl.board.protocol", "from ...sim.model.golden import Result\n"),
    ("axon.hdl.board.top", "def f():\n    from ...sim.backends.board_pysim import PysimBoard\n"),
    ("axon.hdl.board.link", "from ...sim.backends.link_codec import parse_query\n"),
    ("axon.hdl.board.link", "from ...boards.synthesis import prepare\n"),
    # The model may use the gateware's definitions, not its circuits, and
    # nothing of the boards.
    ("axon.sim.model.encode", "from ...hdl.detector import AxonDetector\n"),
    ("axon.sim.model.encode", "from ...hdl.board.uart import UARTReceiver\n"),
    ("axon.sim.model.golden", "from ...boards.platforms import BOARDS\n"),
])
def test_the_rule_can_fail(module, source):
    assert len(violations(module, source)) == 1
    allowed = {"sim": "from ...hdl.word import MoveWord\n", "hdl": "from .word import MoveWord\n",
               "boards": "from ..hdl.word import MoveWord\n"}[module.split(".")[1]]
    if module.startswith("axon.hdl.board."):
        allowed = "from ..word import MoveWord\n"
    assert violations(module, allowed) == []


def test_every_folder_is_one_layer():
    """A top folder's modules share its layer (sim/ is cut into its own
    sub-layers), and the folders are in the layers' order: every layer of
    hdl/ is below every layer of boards/, and that below every one of sim/.
    The folders show the order with no exception."""
    folders = {"hdl": {"gateware"}, "boards": {"boards"},
               "sim": {"model", "backends", "tools", "cli"}}
    for module in MODULES:
        assert layer_of(module)[1] in folders[module.split(".")[1]], module
    ranks = {name: rank for rank, (name, _) in enumerate(LAYERS)}
    order = [sorted(ranks[name] for name in folders[folder]) for folder in ("hdl", "boards", "sim")]
    assert order[0][-1] < order[1][0] and order[1][-1] < order[2][0]
    # The link's two halves, and the frames between them.
    assert layer_of("axon.hdl.board.link")[1] == layer_of("axon.hdl.board.protocol")[1] == \
        "gateware"
    assert layer_of("axon.sim.backends.link")[1] == layer_of("axon.sim.backends.link_codec")[1] \
        == "backends"
    assert layer_of("axon.boards.synthesis")[1] == layer_of("axon.boards.toolchain")[1] == "boards"
    # A backend builds on the boards' toolchain; a board's build never on a backend.
    assert violations("axon.sim.backends.netlist",
                      "from ...boards.synthesis import synthesis_script\n") == []
    assert len(violations("axon.boards.build",
                          "from ..sim.backends.link import Link\n")) == 1


def sim_imports_of(module, source=None):
    """The modules of ``sim/`` that ``module`` imports."""
    return [imported for _, imported in imports_of(module, source)
            if imported.startswith("axon.sim.") or imported == "axon.sim"]


def test_boards_import_nothing_from_sim():
    """``boards/`` depends on ``hdl/`` alone: a board is built, programmed and
    measured without the model, the backends or the command line."""
    boards = [module for module in MODULES if module.startswith("axon.boards")]
    assert "axon.boards.build" in boards and "axon.boards.toolchain" in boards
    assert {module: sim_imports_of(module) for module in boards} == \
        {module: [] for module in boards}
    # A broken variant: an import of sim/, as a function's would be.
    assert sim_imports_of("axon.boards.build",
                          "def f():\n    from ..sim.backends import pysim\n") == \
        ["axon.sim.backends.pysim"]



def is_private(name):
    return name.startswith("_") and not name.startswith("__")


def private_imports(module, source=None):
    """``(line, name)`` for every private name (one leading underscore) that
    ``module`` takes from another project module: imported by name, or read
    as an attribute of an imported module."""
    path = MODULES[module]
    source = path.read_text() if source is None else source
    tree = ast.parse(source, str(path))
    found, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                one = ast.ImportFrom(module=node.module, names=[alias], level=node.level)
                imported = [name for _, name in imports_of(module, ast.unparse(one))]
                if not imported:
                    continue                    # not of the project
                if imported[0].rpartition(".")[2] == alias.name:
                    bound[alias.asname or alias.name] = imported[0]
                elif is_private(alias.name):
                    found.append((node.lineno, f"{imported[0]}.{alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in MODULES:
                    bound[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id in bound and is_private(node.attr):
            found.append((node.lineno, f"{bound[node.value.id]}.{node.attr}"))
    return found


def test_no_module_takes_a_private_name_of_another():
    """What another module uses is public: no module of hdl/, boards/ or sim/
    imports a name with one leading underscore from another."""
    found = {module: private_imports(module) for module in MODULES}
    assert {module: names for module, names in found.items() if names} == {}


@pytest.mark.parametrize("module, source", [
    ("axon.boards.measure", "from .build import NAME, _fit_message\n"),
    ("axon.sim.backends.netlist", "def f():\n    from .cxxrtl import _tree_digest\n"),
    ("axon.sim.verify.formal.spill", "from . import pools\nf = pools._free_pool\n"),
    ("axon.sim.cli.main", "from ...hdl import word as w\nx = w._FIELDS\n"),
])
def test_the_private_name_rule_can_fail(module, source):
    assert len(private_imports(module, source)) == 1
    public = source.replace("._", ".").replace(" _", " ")
    assert private_imports(module, public) == []
    # Its own private names, dunders and other packages' are a module's business.
    assert private_imports(module, "import os\nx = os._exit\nfrom .x import __doc__\n"
                                   "def _own():\n    pass\n") == []

def test_every_circuit_is_under_hdl():
    """``boards/`` is what a board needs from the toolchain: no Elaboratable lives there,
    and ``sim/`` keeps only its benches, proof harnesses and measurement tops."""
    for module, path in MODULES.items():
        if module.startswith("axon.boards"):
            source = path.read_text()
            assert "def elaborate(" not in source, module


def marks_quick(source):
    """Whether a test module marks anything ``pytest.mark.quick``: a test, a
    parameter, or the whole module."""
    return any(isinstance(node, ast.Attribute) and node.attr == "quick"
               and ast.unparse(node) == "pytest.mark.quick"
               for node in ast.walk(ast.parse(source)))


def test_quick_tier_reaches_every_test_module():
    """`pytest -m quick` runs something of every test module, so of every part."""
    unmarked = [path.name for path in sorted((ROOT / "tests").glob("test_*.py"))
                if not marks_quick(path.read_text())]
    assert unmarked == []


def test_quick_check_can_fail():
    assert not marks_quick("# pytest.mark.quick\ndef test_a():\n    pass\n")
    assert marks_quick("@pytest.mark.quick\ndef test_a():\n    pass\n")
    assert marks_quick("pytestmark = pytest.mark.quick\n")


def test_every_test_module_names_its_capability(tmp_path):
    """`pytest --budget N` can say what each test pays for: every module
    states its ``CAPABILITY`` itself, so a new one needs no list updated."""
    from .conftest import capability_of
    missing = [path.name for path in (ROOT / "tests").glob("test_*.py")
               if not capability_of(path)]
    assert missing == []
    # A module without one is caught.
    bare = tmp_path / "test_bare.py"
    bare.write_text('"""A module."""\nCAPABILITIES = "not the name"\n')
    assert capability_of(bare) is None


# Amaranth's `AsyncFIFO.elaborate` is about 110 lines. An `elaborate`, and
# any function of the gateware or of a proof's harness, stays about that
# size: a pipeline stage, a command or a wait is a component or a helper of
# its own.
LONGEST_FUNCTION = 120


def long_functions(source, *, every_function):
    """``[(name, lines)]`` for each function of ``source`` longer than
    :data:`LONGEST_FUNCTION` lines (its decorators included): each
    ``elaborate``, and with ``every_function`` each function, nested ones too."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                (every_function or node.name == "elaborate"):
            first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
            lines = node.end_lineno - first + 1
            if lines > LONGEST_FUNCTION:
                found.append((node.name, lines))
    return found


def test_no_elaborate_is_longer_than_amaranths():
    found = {}
    for module, path in MODULES.items():
        every = module.startswith(("axon.hdl", "axon.sim.verify.formal"))
        for name, lines in long_functions(path.read_text(), every_function=every):
            found[f"{module}: {name}"] = lines
    assert found == {}


def test_the_length_rule_can_fail():
    body = "\n".join(["    x = 1"] * LONGEST_FUNCTION)
    assert long_functions(f"def elaborate(self, platform):\n{body}\n",
                          every_function=False) == [("elaborate", LONGEST_FUNCTION + 1)]
    assert long_functions(f"def build(m):\n{body}\n", every_function=False) == []
    assert long_functions(f"def build(m):\n{body}\n", every_function=True) == \
        [("build", LONGEST_FUNCTION + 1)]
    assert long_functions(f"def build(m):\n{body[:-10]}\n", every_function=True) == []
