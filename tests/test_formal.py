"""The formal suite: every property holds, and every broken variant fails.

A broken variant is the same harness around a mutated design (a pool that
miscounts, a detector that takes writes during a query, a parser blind to
the CRC) or with a deliberately wrong assertion. If one of them passed, the
proof beside it would not be checking what it claims.
"""

import pytest

from axon.sim.verify import formal
from axon.sim.cli.main import main



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
    assert lines[0].split()[1:3] == ["bounded", "12"]
    assert lines[1].split()[1] == "proven"


def test_termination_bound_is_the_rtl_models_worst_case():
    # The bound the proof uses is the clock model's worst case: every word
    # read one at a time after a refetch.
    from axon.sim.backends.pysim import expected_cycles
    from axon.sim.model.golden import perpetual
    from axon.hdl.word import pack_word
    # White, white (a refetch), then alternating, down to address 0.
    words = [pack_word(8 + i, 16 + i, 2 if i % 2 else 10) for i in range(7)]
    words.append(pack_word(1, 2, 10))
    top = len(words) - 1
    result = perpetual(words, top, chains=24)
    assert expected_cycles(words, top, result) <= formal.termination_bound(top)
    # The lean scan's worst case is every word applied down to address 0:
    # knights shuffling, with no count limit.
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)] * 2
    lean = perpetual(shuffle, 7, chains=4, pools="side", count_limit=15)
    assert lean.plies_scanned == 8
    assert expected_cycles(shuffle, 7, lean, "single") == formal.termination_bound(7, "single")
