"""``axon prove`` on a fresh install: every registered property's engine
runs programs that the project's own dependencies install (PyPI), never one
that only a Debian Yosys brings (``yosys-abc``)."""

import dataclasses

import pytest

from axon.sim.verify.formal import END_TO_END_SHIPPED, PROPERTIES
from axon.sim.verify.formal.engines import (SBY_PROGRAMS, dependency_programs, engine_programs,
                                           missing_programs)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "formal proofs on a fresh install"


def check_engines(properties, provided):
    """Raise ``AssertionError`` naming each property whose engine (or its
    broken variants' engine) needs a program not in ``provided``."""
    missing = []
    for prop in properties:
        for engine in {prop.engine, prop.broken_engine or prop.engine}:
            for program in missing_programs(engine, provided):
                missing.append(f"{prop.name}: engine {engine!r} runs {program}, which no "
                               f"dependency of the project installs")
    assert not missing, "\n".join(missing)


@pytest.mark.quick
def test_every_property_runs_on_the_projects_own_dependencies():
    provided = dependency_programs()
    assert set(SBY_PROGRAMS) <= provided, set(SBY_PROGRAMS) - provided
    check_engines([*PROPERTIES, END_TO_END_SHIPPED], provided)


@pytest.mark.quick
def test_a_property_naming_a_missing_engine_fails():
    provided = dependency_programs()
    # yosys-abc comes only with a native Yosys, never from PyPI.
    abc = dataclasses.replace(PROPERTIES[0], engine="abc bmc3")
    with pytest.raises(AssertionError, match=rf"{PROPERTIES[0].name}: engine 'abc bmc3' runs "
                                             rf"yosys-abc"):
        check_engines([abc], provided)
    # A broken variant's engine counts as much as the proof's.
    broken = dataclasses.replace(PROPERTIES[0], broken_engine="smtbmc boolector")
    with pytest.raises(AssertionError, match="runs boolector"):
        check_engines([broken], provided)


@pytest.mark.quick
def test_engine_lines_name_their_programs():
    assert engine_programs("smtbmc z3") == ("z3",)
    assert engine_programs("smtbmc --syn yices") == ("yices-smt2",)
    assert engine_programs("smtbmc") == ("yices-smt2",)
    assert engine_programs("abc bmc3") == ("yosys-abc",)
    with pytest.raises(ValueError, match="unknown SMT-BMC solver"):
        engine_programs("smtbmc nonesuch")
