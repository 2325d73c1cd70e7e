"""Identical modules of a design merged into one, so that a simulator compiles
a repeated part once.

Amaranth writes one RTLIL module per instance: a board of 16 identical
detectors holds 16 copies of the detector's modules, which differ in their
names only, and CXXRTL, which flattens the design by default, compiles each
copy again. :func:`merge_identical_modules` finds the modules whose bodies are
the same, keeps one of each, points every instance at it, and marks the
outermost shared modules (a detector of the board, not its parts)
``keep_hierarchy``: ``write_cxxrtl`` then flattens everything else as before,
and writes one C++ class for the shared module, instantiated once per
instance.

Two module bodies are the same when their text is, once the children they
instantiate are named by their representatives and the ports that Amaranth
names after a netlist cell (``port$5473$20``, a number counted over the whole
design) are named by their place in the module instead. Renaming a port in a
module and at each of its instances changes no behaviour; a module that still
differs in any other way is left alone, so the merge can only miss a sharing,
never join two modules that behave differently.
"""

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Dict, List, Tuple


__all__ = ["MergedDesign", "merge_identical_modules"]

# A port named after the netlist cell that drives it and the offset of its
# first bit: the number is global to the design, so it differs between the
# copies of a module.
_CELL_NUMBERED = re.compile(r"\\port\$\d+\$(\d+)")
_WIRE = re.compile(r"^\s*wire .*?(\\\S+)$")
_CELL = re.compile(r"^(  cell )(\S+)( .*)$")
_CONNECT = re.compile(r"^(    connect )(\\\S+)( .*)$")


@dataclass(frozen=True)
class MergedDesign:
    """The design with its identical modules merged.

    Members
    -------
    rtlil : str
        The RTLIL text, one module for each set of identical ones.
    modules : int
        Modules of the design as written, one per instance.
    distinct : int
        Modules left after the merge.
    shared : tuple of (str, int)
        The modules marked ``keep_hierarchy`` and how many instances of each
        the design holds.
    """

    rtlil:    str
    modules:  int
    distinct: int
    shared:   Tuple[Tuple[str, int], ...]


class _Module:
    def __init__(self, name: str, attributes: List[str], body: List[str]) -> None:
        self.name = name
        self.attributes = attributes
        self.body = body
        self.ports = self._local_port_names()

    def _local_port_names(self) -> Dict[str, str]:
        """Each cell-numbered port renamed by its order in the module."""
        declared, renamed = set(), {}
        for line in self.body:
            match = _WIRE.match(line)
            if match:
                declared.add(match.group(1))
                cell_numbered = _CELL_NUMBERED.fullmatch(match.group(1))
                if cell_numbered:
                    renamed[match.group(1)] = f"\\port${len(renamed)}${cell_numbered.group(1)}"
        if set(renamed.values()) & (declared - set(renamed)):
            return {}       # a name of the module's own is taken: keep them all
        return renamed

    def rename(self, text: str) -> str:
        return _CELL_NUMBERED.sub(lambda match: self.ports.get(match.group(0), match.group(0)),
                                  text)


def _parse(text: str) -> Dict[str, _Module]:
    """The modules of an RTLIL text as Amaranth writes it: attributes, then
    ``module NAME`` and a body that ends with an unindented ``end``."""
    modules: Dict[str, _Module] = {}
    attributes: List[str] = []
    current = None
    for number, line in enumerate(text.splitlines(), 1):
        if current is not None:
            if line == "end":
                modules[current[0]] = _Module(current[0], current[1], current[2])
                current = None
            else:
                current[2].append(line)
        elif line.startswith("module "):
            current = (line[len("module "):].strip(), attributes, [])
            attributes = []
        elif line.startswith("attribute "):
            attributes.append(line)
        elif line.strip() and not line.startswith("autoidx"):
            raise ValueError(f"RTLIL line {number} is outside a module: {line}")
    if current is not None:
        raise ValueError(f"RTLIL module {current[0]} has no end")
    return modules


def merge_identical_modules(text: str) -> MergedDesign:
    """Merge the modules of RTLIL ``text`` that differ in their names only;
    see the module docstring."""
    modules = _parse(text)
    representative: Dict[str, str] = {}
    by_body: Dict[str, str] = {}
    bodies: Dict[str, List[str]] = {}

    def merged(name: str) -> str:
        """``name``'s representative, its children merged first."""
        if name in representative:
            return representative[name]
        module = modules[name]
        body, child = [], None
        for line in module.body:
            cell = _CELL.match(line)
            if cell:
                child = modules.get(cell.group(2))
                if child is not None:
                    line = cell.group(1) + merged(child.name) + cell.group(3)
            elif line == "  end":
                child = None
            elif child is not None and _CONNECT.match(line):
                # The first name is the child's port, the signal is ours.
                connect = _CONNECT.match(line)
                line = (connect.group(1) + child.ports.get(connect.group(2), connect.group(2)) +
                        module.rename(connect.group(3)))
            else:
                line = module.rename(line)
            body.append(line)
        key = "\n".join(body)
        representative[name] = by_body.setdefault(key, name)
        bodies[name] = body
        return representative[name]

    for name in modules:
        merged(name)
    kept = [name for name in modules if representative[name] == name]

    instances: Dict[str, int] = defaultdict(int)
    parents: Dict[str, set] = defaultdict(set)

    def count(name: str, times: int) -> None:
        instances[name] += times
        for line in bodies[name]:
            cell = _CELL.match(line)
            if cell and cell.group(2) in modules:
                parents[cell.group(2)].add(name)
                count(cell.group(2), times)

    for name in kept:
        if any(line.split()[1:2] == ["\\top"] for line in modules[name].attributes):
            count(name, 1)
    # The outermost shared modules: a detector keeps its hierarchy, and its
    # parts (shared between detectors too) are flattened into it.
    shared = [name for name in kept if instances[name] > 1 and
              all(instances[parent] == 1 for parent in parents[name])]
    lines = []
    for name in kept:
        lines += modules[name].attributes
        if name in shared:
            lines.append("attribute \\keep_hierarchy 1")
        lines += [f"module {name}", *bodies[name], "end"]
    return MergedDesign("\n".join(lines) + "\n", len(modules), len(kept),
                        tuple((name, instances[name]) for name in shared))
