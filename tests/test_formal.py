# amaranth: UnusedElaboratable=no
"""The formal suite: every property holds, and every broken variant fails.

A broken variant is the same harness around a mutated design (a pool
subclass that miscounts, a detector that takes writes during a query, a
parser subclass blind to the CRC) or with a deliberately wrong assertion or
assumption. If one of them passed, the proof beside it would not be checking
what it claims. The pool properties are proven at every shipped pool size by
the same script, so that the size the docs name is not a loophole.

Each SymbiYosys run is a subprocess: the runs the selected tests need are
started together, as many at once as there are cores, and each test waits
for its own.
"""

import inspect
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from axon.hdl.detector import AxonDetector
from axon.hdl.params import LEAN, SHIPPED
from axon.hdl.pools import POOL_KINDS
from axon.sim.verify import formal
from axon.sim.cli.main import main
from axon.hdl.params import DetectorConfig


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "formal proofs"


try:
    formal.find_sby()
except formal.ToolMissing as error:   # pragma: no cover - the test extra installs them
    pytest.fail(f"formal tools missing: {error}", pytrace=False)


SIZED = [prop for prop in formal.PROPERTIES if prop.sized is not None]
# The default run proves the shipped size and depth, and one smaller of each
# by the same script; the long sweep every one.
SMALLER_SIZES = [pytest.param(size, marks=[] if size == 1 else [pytest.mark.slow])
                 for size in formal.POOL_SIZES if size != formal.DEFAULT_POOL_SLOTS]
DEEP = [prop for prop in formal.PROPERTIES if prop.at_depth is not None]
SMALLER_DEPTHS = [pytest.param(depth, marks=[] if depth == 16 else [pytest.mark.slow])
                  for depth in formal.TERMINATION_DEPTHS if depth != formal.DEFAULT_DEPTH]

_runs = {}


def _job(item):
    """The run a formal test needs: (property, broken, slots, list depth), or None."""
    test = item.originalname if hasattr(item, "originalname") else item.name
    params = getattr(item, "callspec", None)
    if params is None or "prop" not in params.params:
        return None
    prop = params.params["prop"]
    broken = params.params.get("variant", True) if test == "test_broken_variant_fails" else False
    return (prop.name, broken, params.params.get("slots"), params.params.get("list_depth"))


@pytest.fixture(scope="module", autouse=True)
def _run_selected_together(request):
    """Start every run the selected tests of this module need, two (or as
    many as there are cores) at a time, slowest first."""
    # Not the skipped ones (the slow properties without --runslow).
    jobs = [_job(item) for item in request.session.items if item.module is request.module
            and item.get_closest_marker("skip") is None]
    jobs = sorted({job for job in jobs if job is not None},
                  key=lambda job: job[0] not in ("end-to-end", "end-to-end-lean", "termination"))
    by_name = {prop.name: prop for prop in formal.PROPERTIES}
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as executor:
        for name, broken, slots, list_depth in jobs:
            _runs[name, broken, slots, list_depth] = executor.submit(
                formal.run_property, by_name[name], broken=broken, slots=slots,
                list_depth=list_depth)
        yield
        for future in _runs.values():
            future.cancel()


def _outcome(prop, broken=False, slots=None, list_depth=None):
    return _runs[prop.name, broken, slots, list_depth].result()


def _slow(prop, *values, id=None, marks=()):
    """A parameter of ``prop``'s test, behind --runslow if the property is slow."""
    return pytest.param(prop, *values, id=id,
                        marks=[*marks, *([pytest.mark.slow] if prop.slow else [])])


@pytest.mark.parametrize("prop", [_slow(prop, id=prop.name,
                                        marks=[pytest.mark.quick] if prop.name == "frame-parser"
                                        else [])
                                  for prop in formal.PROPERTIES])
def test_property_holds(prop):
    outcome = _outcome(prop)
    assert outcome.passed, outcome.log[-3000:]
    expected = "proven" if prop.mode == "prove" else f"bounded {prop.bmc_depth}"
    assert outcome.status == expected
    assert outcome.figure == (f"proven k={prop.bmc_depth}" if prop.mode == "prove"
                              else f"bounded {prop.bmc_depth}")


# The pair scan's end-to-end variant blind to chains needs a long trace to
# fail (46 s with yices, where every other variant takes seconds): the
# default run keeps its variant blind to the root, the long sweep both.
_LONG_TO_FAIL = {("end-to-end", True)}


def _broken_marks(prop, variant):
    if prop.name == "rules-exact":
        return [pytest.mark.quick]
    return [pytest.mark.slow] if (prop.name, variant) in _LONG_TO_FAIL else []


BROKEN = [_slow(prop, variant, id=prop.name + ("" if variant is True else f"-{variant}"),
                marks=_broken_marks(prop, variant))
          for prop in formal.PROPERTIES for variant in prop.broken_variants]


@pytest.mark.parametrize("prop, variant", BROKEN)
def test_broken_variant_fails(prop, variant):
    outcome = _outcome(prop, broken=variant)
    assert not outcome.passed and outcome.status == "FAILED", outcome.log[-3000:]
    # It failed on an assertion, with a trace from power-up (not only an
    # induction step from an unreachable state), not on a tool error.
    assert "failed assertion" in outcome.log, outcome.log[-3000:]
    assert "DONE (FAIL" in outcome.log, outcome.log[-3000:]


@pytest.mark.parametrize("slots", SMALLER_SIZES)
@pytest.mark.parametrize("prop", SIZED, ids=lambda prop: prop.name)
def test_pool_property_proven_at_every_shipped_size(prop, slots):
    # The same script as the largest size's (the default run: size 1 too).
    outcome = _outcome(prop, slots=slots)
    assert outcome.passed and outcome.status == "proven", outcome.log[-3000:]


@pytest.mark.parametrize("list_depth", SMALLER_DEPTHS)
@pytest.mark.parametrize("prop", DEEP, ids=lambda prop: prop.name)
def test_scan_property_proven_at_every_depth(prop, list_depth):
    # The shipped depth's script (256 words), with the same induction
    # length, at every power of two below it (the default run: 16): the
    # ranking invariant, not a length above the longest scan, closes it.
    outcome = _outcome(prop, list_depth=list_depth)
    assert outcome.passed and outcome.status == "proven", outcome.log[-3000:]
    assert outcome.figure == f"proven k={prop.bmc_depth}"


@pytest.mark.slow
@pytest.mark.parametrize("slots", [4, 5, 6])
def test_unpaired_rules_proven_beyond_the_shipped_sizes(slots):
    # Larger builds (more spare slots for promoted pieces) keep the same
    # proof: the exact pool against its plain model, by the same induction.
    prop = next(prop for prop in formal.PROPERTIES if prop.name == "rules-exact")
    outcome = formal.run_property(prop, slots=slots)
    assert outcome.passed and outcome.status == "proven", outcome.log[-3000:]


@pytest.mark.slow
def test_end_to_end_proven_at_the_shipped_chain_count():
    # The default run proves the pair scan end to end at 10 chains, a pool
    # for every kind; the shipped 24 (K1 Q2 R3 B3 N3 a side) by the same script.
    outcome = formal.run_property(formal.END_TO_END_SHIPPED)
    assert outcome.passed and outcome.status == "proven", outcome.log[-3000:]


def test_end_to_end_gives_every_kind_a_pool():
    # The pair scan's end-to-end proof has every kind's pool, and the
    # dispatch to them, in it; the shipped build only has more entries.
    assert sorted(kind for kind, _ in DetectorConfig(chains=formal.END_TO_END_CHAINS).side_pools) == sorted(POOL_KINDS)
    assert formal.END_TO_END_SHIPPED.name == "end-to-end"


def test_every_property_is_proven_by_induction():
    # The end-to-end checks of both parallel scans are proven for every clock
    # from power-up. The walked list's is bounded (11 clocks from power-up,
    # docs/formal.md says so); nothing else is left bounded.
    bounded = [prop.name for prop in formal.PROPERTIES if prop.mode != "prove"]
    assert bounded == ["end-to-end-walked"]
    names = [prop.name for prop in formal.PROPERTIES]
    assert "end-to-end" in names and "end-to-end-lean" in names


@pytest.mark.quick
def test_pool_sizes_are_the_shipped_ones():
    assert SIZED and all(prop.mode == "prove" for prop in SIZED)
    # The sizes come from the shipped layouts: K1 Q2 R3 B3 N3 a side, and
    # the lean layout's 2 a side.
    assert (inspect.signature(AxonDetector).parameters["config"].default.chains ==
            formal.DEFAULT_CHAINS)
    assert formal.POOL_SIZES == (1, 2, 3)
    assert formal.LEAN_POOL_SLOTS == 2
    # Both pools of the rules the gateware has, exact and paper, have the
    # capacity proof.
    assert {"capacity", "capacity-paper"} <= {prop.name for prop in SIZED}


def test_termination_is_proven_at_the_shipped_depth():
    assert (inspect.signature(AxonDetector).parameters["config"].default.depth ==
            formal.DEFAULT_DEPTH)
    assert [prop.name for prop in DEEP] == ["termination", "termination-lean"]
    assert formal.TERMINATION_DEPTHS == (2, 4, 8, 16, 32, 64, 128, 256)
    # A short induction, far below the longest scan (264 clocks at top 255).
    assert all(prop.bmc_depth <= 8 < SHIPPED.worst_case_clocks(formal.DEFAULT_DEPTH - 1)
               for prop in DEEP)


def test_a_size_is_refused_for_a_property_without_a_pool():
    stable = next(prop for prop in formal.PROPERTIES if prop.name == "stable-results")
    with pytest.raises(ValueError, match="stable-results is not a pool property"):
        formal.run_property(stable, slots=2)
    with pytest.raises(ValueError, match="stable-results is not proven at the shipped depth"):
        formal.run_property(stable, list_depth=8)


def test_prove_command_prints_one_line_per_property(capsys):
    assert main(["prove", "--only", "stable-results", "--only", "writes-refused",
                 "--bmc-depth", "6"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["stable-results", "writes-refused"]
    # Mode, induction length, solver time.
    assert lines[0].split()[1:3] == ["proven", "k=6"]
    assert lines[0].split()[4] == "s"
    float(lines[0].split()[3])


@pytest.mark.quick
def test_prove_list_is_the_property_table(capsys):
    # The docs include this table; each description is written once, in the
    # Property table.
    assert main(["prove", "--list"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == [prop.name for prop in formal.PROPERTIES]
    for row, prop in zip(rows, formal.PROPERTIES):
        assert row.endswith(f"| {prop.description} |")


@pytest.mark.quick
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
    result = perpetual(words, top, config=DetectorConfig(chains=24))
    assert expected_cycles(words, top, result, SHIPPED) <= SHIPPED.worst_case_clocks(top)
    # The lean scan's worst case is every word applied down to address 0:
    # knights shuffling, with no count limit.
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)] * 2
    lean = perpetual(shuffle, 7, config=DetectorConfig(chains=4, pools="side"), count_limit=15)
    assert lean.plies_scanned == 8
    assert expected_cycles(shuffle, 7, lean, LEAN) == LEAN.worst_case_clocks(7)


@pytest.mark.slow
@pytest.mark.parametrize("entries", [3, 4, 5])
def test_walked_capacity_proven_at_more_entries(entries):
    # The same induction for a longer walked list side (11 s, 38 s, 102 s).
    from axon.sim.verify.formal.walked import capacity_walked
    prop = next(prop for prop in formal.PROPERTIES if prop.name == "capacity-walked")
    outcome = formal.run_property(formal.Property(prop.name, prop.description,
                                                  capacity_walked(entries), "prove", 2))
    assert outcome.passed and outcome.status == "proven", outcome.log[-3000:]
