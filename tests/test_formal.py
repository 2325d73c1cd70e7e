"""The formal suite: every property holds, and every broken variant fails.

A broken variant is the same harness around a mutated design (a pool
subclass that miscounts, a detector that takes writes during a query, a
parser subclass blind to the CRC) or with a deliberately wrong assertion or
assumption. If one of them passed, the proof beside it would not be checking
what it claims. The pool properties are proven at every shipped pool size by
the same script, so that the size the README names is not a loophole.
"""

import pytest

from axon.sim import formal
from axon.sim.cli import main



try:
    formal.find_sby()
except formal.ToolMissing as error:   # pragma: no cover - the test extra installs them
    pytest.fail(f"formal tools missing: {error}", pytrace=False)


@pytest.mark.parametrize("prop", formal.PROPERTIES, ids=lambda prop: prop.name)
def test_property_holds(prop):
    outcome = formal.run_property(prop)
    assert outcome.passed, outcome.log[-3000:]
    expected = "proven" if prop.mode == "prove" else f"bounded {prop.depth}"
    assert outcome.status == expected
    assert outcome.figure == (f"proven k={prop.depth}" if prop.mode == "prove"
                              else f"bounded {prop.depth}")


SIZED = [prop for prop in formal.PROPERTIES if prop.sized is not None]


@pytest.mark.parametrize("slots", [size for size in formal.POOL_SIZES
                                   if size != formal.DEFAULT_POOL_SLOTS])
@pytest.mark.parametrize("prop", SIZED, ids=lambda prop: prop.name)
def test_pool_property_proven_at_every_shipped_size(prop, slots):
    # The default run proves the largest size; the same script at the others.
    outcome = formal.run_property(prop, slots=slots)
    assert outcome.passed and outcome.status == "proven", outcome.log[-3000:]


def test_every_pool_property_is_proven_not_bounded():
    assert SIZED and all(prop.mode == "prove" for prop in SIZED)
    # The sizes come from the shipped layouts: K1 Q2 R3 B3 N3 a side, and
    # the lean layout's 2 a side.
    from axon.hdl.detector import AxonDetector
    import inspect
    assert inspect.signature(AxonDetector).parameters["chains"].default == formal.DEFAULT_CHAINS
    assert formal.POOL_SIZES == (1, 2, 3)
    assert formal.LEAN_POOL_SLOTS == 2


def test_a_size_is_refused_for_a_property_without_a_pool():
    with pytest.raises(ValueError, match="termination is not a pool property"):
        formal.run_property(formal.PROPERTIES[0], slots=2)


@pytest.mark.parametrize("prop", formal.PROPERTIES, ids=lambda prop: prop.name)
def test_broken_variant_fails(prop):
    outcome = formal.run_property(prop, broken=True)
    assert not outcome.passed and outcome.status == "FAILED", outcome.log[-3000:]
    # It failed on an assertion, not on a tool or syntax error.
    assert "Assert failed" in outcome.log or "FAIL" in outcome.log, outcome.log[-3000:]


def test_prove_command_prints_one_line_per_property(capsys):
    assert main(["prove", "--only", "stable-results", "--only", "termination",
                 "--depth", "12"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["termination", "stable-results"]
    # Mode, depth or induction length, solver time.
    assert lines[0].split()[1:5] == ["bounded", "12", lines[0].split()[3], "s"]
    assert lines[1].split()[1:3] == ["proven", "k=12"]
    float(lines[1].split()[3])


def test_termination_bound_is_the_rtl_models_worst_case():
    # The bound the proof uses is the clock model's worst case: every word
    # read one at a time after a refetch.
    from axon.sim.rtl import expected_cycles
    from axon.sim.golden import perpetual
    from axon.hdl.word import pack_word
    # White, white (a refetch), then alternating, down to address 0.
    words = [pack_word(8 + i, 16 + i, 2 if i % 2 else 10) for i in range(7)]
    words.append(pack_word(1, 2, 10))
    top = len(words) - 1
    result = perpetual(words, top, chains=24)
    assert expected_cycles(words, top, result) <= formal.termination_bound(top)
