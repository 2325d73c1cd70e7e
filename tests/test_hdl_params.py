# amaranth: UnusedElaboratable=no
# (The tests here make components whose constructors refuse their
# parameters, on purpose: each exists half-made and is never used.)
"""Gateware constructors reject bad parameters with messages that say what was given.

Unlike the other test files, this one does not silence UnusedElaboratable:
a refused component must not warn "created but never used" on its own (the
test run turns warnings into errors), so the header would hide a defect.
"""

import dataclasses

import pytest
from amaranth.hdl import Fragment, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from axon.hdl import MoveMemorySignature, QuerySignature, UpcomingSignature
from axon.hdl.ports import ChainBusSignature, PairReadSignature, SingleReadSignature

from axon.hdl.chainlist import ChainList, ChainPool, UnpairedPool
from axon.hdl.detector import AxonDetector
from axon.hdl.lean import LeanMoveList, LeanScanner
from axon.hdl.movelist import MoveList
from axon.hdl.pathcheck import PathCheck
from axon.hdl.scanner import Scanner
from axon.hdl.upcoming import Upcoming
from axon.hdl.board.top import AxonBoard
from axon.hdl.params import (FRESH_SAVED_CLOCKS, LATENCY_OVERHEAD, LEAN, LEAN_LATENCY_OVERHEAD,
                             REFETCH_CLOCKS, RESTART_CLOCKS, SHORT_ANSWER_CLOCKS, CORE, WALKED,
                             WALKED_LATENCY_OVERHEAD, SHIPPED, DetectorConfig, Pools, Rules, Scan,
                             Stop, Written)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "embedding API and parameters"


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


@pytest.mark.parametrize("make, error, message", [
    (lambda: ChainList(DetectorConfig(chains=0)), ValueError,
     r"^chains must be a positive integer, not 0$"),
    (lambda: ChainList(DetectorConfig(chains=7)), ValueError,
     r"^chains must be even for the exact rules \(half the slots serve each side\), not 7$"),
    (lambda: ChainList(DetectorConfig(rules="cpw")), ValueError,
     r"^rules must be one of paper, exact, not 'cpw'$"),
    (lambda: ChainList(24), TypeError, r"^Configuration must be a DetectorConfig, not 24$"),
    (lambda: ChainPool(0, Rules.PAPER), TypeError, r"Pool size must be a positive integer, not 0"),
    (lambda: ChainPool(2, Rules.CPW), ValueError,
     r"^Chain rules must be one of paper, exact, not 'cpw'$"),
    (lambda: UnpairedPool(slots=0), TypeError, r"Pool size must be a positive integer, not 0"),
    (lambda: DetectorConfig(pools="piece"), ValueError,
     r"^pools must be one of kind, spill, side, walked, not 'piece'$"),
    (lambda: ChainList(DetectorConfig(rules="paper", pools="spill")), ValueError,
     r"^the spill pool layout needs the exact rules, not 'paper'$"),
    (lambda: AxonDetector(DetectorConfig(scan="single", upcoming=True)), ValueError,
     r"^the upcoming repetition needs the pair scan, not scan 'single'$"),
    (lambda: AxonDetector(DetectorConfig(upcoming=1)), TypeError,
     r"^upcoming must be True or False, not 1$"),
    (lambda: MoveList(depth=255), ValueError,
     r"^Move-list depth must be an even integer in 2\.\.32768, not 255$"),
    (lambda: Scanner(depth="256"), TypeError,
     r"^Move-list depth must be an even integer in 2\.\.32768, not '256'$"),
    (lambda: AxonDetector(DetectorConfig(chains=2.5)), TypeError,
     r"^chains must be a positive integer, not 2\.5$"),
    (lambda: AxonDetector(DetectorConfig(depth=100.0)), TypeError,
     r"^depth must be an even integer in 2\.\.32768, not 100\.0$"),
    (lambda: AxonDetector(DetectorConfig(depth=1 << 16)), ValueError,
     r"^depth must be an even integer in 2\.\.32768, not 65536$"),
    (lambda: AxonDetector(DetectorConfig(rules="cpw")), ValueError,
     r"^rules must be one of paper, exact, not 'cpw'$"),
    (lambda: DetectorConfig(rules="wiki"), ValueError,
     r"^rules must be one of paper, exact, cpw, not 'wiki'$"),
    (lambda: DetectorConfig(scan="double"), ValueError,
     r"^scan must be one of pair, single, not 'double'$"),
    (lambda: AxonDetector(dict(depth=16)), TypeError,
     r"^Configuration must be a DetectorConfig, not \{'depth': 16\}$"),
    (lambda: LeanScanner(depth=3), ValueError,
     r"Move-list depth must be an even integer in 2\.\.32768, not 3"),
    (lambda: LeanMoveList(depth=0), ValueError,
     r"Move-list depth must be an even integer in 2\.\.32768, not 0"),
    (lambda: QuerySignature(depth=3), ValueError,
     r"Move-list depth must be an even integer in 2\.\.32768, not 3"),
    (lambda: MoveMemorySignature(depth=None), TypeError,
     r"Move-list depth must be an even integer in 2\.\.32768, not None"),
    (lambda: AxonDetector(WALKED.replace(backstop=True)), ValueError,
     r"^the walked pool layout is its own backstop: backstop needs another$"),
    (lambda: AxonDetector(CORE.replace(backstop=True, rules="paper")), ValueError,
     r"^the backstop is a walked list, which needs the exact rules, not 'paper'$"),
    (lambda: AxonDetector(LEAN.replace(backstop=True)), ValueError,
     r"^the backstop needs the 'pair' scan, not 'single'$"),
    (lambda: AxonDetector(CORE.replace(backstop=1)), TypeError,
     r"^backstop must be True or False, not 1$"),
])
def test_parameter_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_detector_reports_its_configuration():
    config = DetectorConfig(depth=128, chains=8, rules="paper")
    detector = AxonDetector(config)
    Fragment.get(detector, None)   # used, so it need not warn
    assert detector.config is config
    assert (config.depth, config.chains, config.rules) == (128, 8, Rules.PAPER)
    assert (config.pools, config.scan, config.upcoming) == (Pools.KIND, Scan.PAIR, True)
    lean = AxonDetector(LEAN.replace(depth=16))
    Fragment.get(lean, None)
    assert (lean.config.pools, lean.config.scan, lean.config.upcoming) == \
        (Pools.SIDE, Scan.SINGLE, False)
    assert len(detector.query.top) == 7
    assert detector.query.result.distance.shape().width == 8


@pytest.mark.parametrize("signature", [QuerySignature, MoveMemorySignature, UpcomingSignature,
                                       PairReadSignature, SingleReadSignature])
def test_signatures_are_equal_by_kind_and_depth(signature):
    assert signature(16) == signature(16) and hash(signature(16)) == hash(signature(16))
    assert signature(16) != signature(32)
    assert repr(signature(16)) == f"{signature.__name__}(16)"
    others = {QuerySignature, MoveMemorySignature, UpcomingSignature} - {signature}
    assert all(signature(16) != other(16) for other in others)
    assert ChainBusSignature() == ChainBusSignature() != signature(16)


def test_backstop_signature_and_ports():
    # A detector with a backstop answers with one more bit, last; its
    # query signature says so, and is not the plain one.
    assert QuerySignature(16, backstop=True) == QuerySignature(16, backstop=True)
    assert QuerySignature(16, backstop=True) != QuerySignature(16)
    assert repr(QuerySignature(16, backstop=True)) == "QuerySignature(16, backstop=True)"
    # The shipped core has it; the pools alone are backstop=False.
    config = CORE.replace(depth=16)
    pools = config.replace(backstop=False)
    assert config.backstop and SHIPPED.backstop and not pools.backstop
    detector = AxonDetector(config)
    Fragment.get(detector, None)
    assert detector.signature.members["query"] == In(QuerySignature(16, backstop=True))
    layout = detector.query.result.shape()
    assert list(layout)[-1][0] == "backstop" and layout.size == \
        AxonDetector(pools).query.result.shape().size + 1
    # Its worst case adds the walked list's, and the hand-over clock.
    assert config.worst_case_clocks(15) == (pools.worst_case_clocks(15) + 1 +
                                            config.backstop_config.worst_case_clocks(15))
    assert config.key.endswith("-backstop") and config.note == ""
    assert pools.note == ", no backstop" and not pools.key.endswith("-backstop")
    # A change keeps it, but for a layout that cannot have one.
    assert SHIPPED.replace(pools="walked", scan="single", chains=32) == WALKED
    assert not SHIPPED.replace(rules="paper").backstop
    assert not SHIPPED.replace(scan="single").backstop
    assert SHIPPED.replace(pools="side").backstop and SHIPPED.replace(chains=8).backstop
    assert not SHIPPED.replace(depth=4096).backstop and SHIPPED.replace(depth=2048).backstop
    assert WALKED.note == ", a walked list a side in block RAM" and LEAN.note.endswith("clock")


def test_detector_ports_are_the_named_signatures():
    detector = AxonDetector(DetectorConfig(depth=128))
    Fragment.get(detector, None)
    assert dict(detector.signature.members) == {
        "query":    In(QuerySignature(128)),
        "memory":   In(MoveMemorySignature(128)),
        "upcoming": In(UpcomingSignature(128)),
    }
    # Seen from the detector, what the asker drives is an input.
    flows = {path: member.flow for path, member, _ in detector.query.signature.flatten(
        detector.query)}
    assert flows[("start",)] == flows[("top",)] == wiring.In
    assert flows[("done",)] == flows[("result",)] == wiring.Out


class _Asker(wiring.Component):
    """An embedder's component with the asking side of the detector's ports."""

    def __init__(self, depth):
        super().__init__({"query": Out(QuerySignature(depth)),
                          "memory": Out(MoveMemorySignature(depth))})

    def elaborate(self, platform):
        return Module()


def test_an_embedder_connects_by_signature():
    m = Module()
    m.submodules.asker = asker = _Asker(16)
    m.submodules.detector = detector = AxonDetector(DetectorConfig(depth=16))
    # A port of another depth does not fit: the address widths differ.
    m.submodules.wrong = wrong = _Asker(32)
    with pytest.raises(wiring.ConnectionError, match=r"top"):
        wiring.connect(m, wrong.query, detector.query)
    wiring.connect(m, asker.query, detector.query)
    wiring.connect(m, asker.memory, detector.memory)
    Fragment.get(m, None)


def test_configuration_resolves_the_upcoming_block_by_its_scan():
    # Unset, the upcoming block is built wherever the scan can have it.
    assert SHIPPED.upcoming and not LEAN.upcoming
    assert DetectorConfig(scan="pair").upcoming and not DetectorConfig(scan="single").upcoming
    # A change keeps it, but for a scan that cannot have it.
    assert not SHIPPED.replace(scan=Scan.SINGLE).upcoming
    assert not LEAN.replace(scan="pair").upcoming
    assert LEAN.replace(scan="pair", upcoming=True).upcoming
    assert CORE.replace(scan="pair") == CORE and SHIPPED.replace(scan="pair") == SHIPPED
    assert not SHIPPED.replace(upcoming=False).replace(depth=16).upcoming
    # Names and members are one: a configuration is a value.
    assert DetectorConfig(rules="paper", pools="side") == \
        DetectorConfig(rules=Rules.PAPER, pools=Pools.SIDE)
    assert len({SHIPPED, DetectorConfig(backstop=True), LEAN}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        SHIPPED.chains = 12


def test_configuration_derives_the_clocks_of_its_scan():
    # The pair scan takes two plies a clock, the lean one one; the worst case
    # is one word a clock after a refetch and a restart (pair) and every word
    # (lean), and a simulation gives up a few clocks after the worst case at
    # the top.
    assert [SHIPPED.latency(plies) for plies in (0, 1, 2, 9)] == \
        [plies // 2 + LATENCY_OVERHEAD for plies in (0, 1, 2, 9)]
    assert [LEAN.latency(plies) for plies in (0, 1, 9)] == \
        [plies + LEAN_LATENCY_OVERHEAD for plies in (0, 1, 9)]
    pools = SHIPPED.replace(backstop=False)
    assert pools.worst_case_clocks(7) == 8 + LATENCY_OVERHEAD + REFETCH_CLOCKS + RESTART_CLOCKS
    assert LEAN.worst_case_clocks(7) == 8 + LEAN_LATENCY_OVERHEAD
    assert SHIPPED.hung_after_clocks == SHIPPED.worst_case_clocks(255) + 9
    assert SHIPPED.latency_words.startswith("floor(P/2) + 4; ")
    assert LEAN.latency_words == "P + 2"


def test_pair_scan_clocks_depend_on_what_the_host_wrote():
    # Right after the word at the top: the first pair's decision alone when
    # it stops the scan (but at an overflow), else two clocks saved; right
    # after another word, a restart. The lean scan's clocks never change.
    top = Written.TOP
    assert [SHIPPED.latency(plies, written=top, stop=Stop.BARRIER) for plies in (0, 1, 2, 9)] == \
        [SHORT_ANSWER_CLOCKS] * 2 + [plies // 2 + LATENCY_OVERHEAD - FRESH_SAVED_CLOCKS
                                     for plies in (2, 9)]
    assert [SHIPPED.latency(plies, written=top, stop=Stop.OVERFLOW) for plies in (0, 1)] == \
        [LATENCY_OVERHEAD - FRESH_SAVED_CLOCKS] * 2
    assert [SHIPPED.latency(plies, written=Written.ELSEWHERE) for plies in (0, 9)] == \
        [plies // 2 + LATENCY_OVERHEAD + RESTART_CLOCKS for plies in (0, 9)]
    assert {LEAN.latency(9, written=written, stop=Stop.BARRIER) for written in Written} == \
        {9 + LEAN_LATENCY_OVERHEAD}
    assert Written.before(5, None) is Written.NOTHING
    assert (Written.before(5, 5), Written.before(5, 4)) == (Written.TOP, Written.ELSEWHERE)


@pytest.mark.quick
def test_the_walked_lists_names_before_0_3_still_answer():
    # For one minor version: the old names are the new objects, and the
    # spellings a user types (a layout's value, an attribute) warn.
    import importlib
    import axon.hdl as hdl
    from axon.hdl import params
    assert Pools.SERIAL is Pools.WALKED and list(Pools)[-1] is Pools.WALKED
    assert hdl.SERIAL is params.SERIAL is WALKED
    assert hdl.SERIAL_LATENCY_OVERHEAD == params.WALKED_LATENCY_OVERHEAD
    assert params.serial_word_clocks is params.walked_word_clocks
    assert params.SERIAL_COMPARE_CLOCKS == params.WALKED_COMPARE_CLOCKS
    with pytest.warns(DeprecationWarning, match="'serial' is now called 'walked'"):
        assert Pools("serial") is Pools.WALKED
    with pytest.warns(DeprecationWarning, match="'serial' is now called 'walked'"):
        assert DetectorConfig(chains=32, pools="serial", scan="single") == WALKED
    with pytest.warns(DeprecationWarning, match="DetectorConfig.walked"):
        assert WALKED.serial and not SHIPPED.walked
    for old, new, names in (("axon.hdl.seriallist", "axon.hdl.walkedlist",
                             {"SerialChainList": "WalkedChainList",
                              "SerialEntry": "WalkedEntry",
                              "SerialBusSignature": "WalkedBusSignature"}),
                            ("axon.hdl.serialscan", "axon.hdl.walkedscan",
                             {"SerialScanner": "WalkedScanner",
                              "serial_pipeline": "walked_pipeline"}),
                            ("axon.sim.model.serial", "axon.sim.model.walked",
                             {"serial_clocks": "walked_clocks"})):
        with pytest.warns(DeprecationWarning, match=f"{old} is now {new}"):
            module = importlib.reload(importlib.import_module(old))
        for old_name, new_name in names.items():
            assert getattr(module, old_name) is getattr(importlib.import_module(new), new_name)
    # A value that never was a layout is still refused.
    with pytest.raises(ValueError):
        Pools("serial list")


@pytest.mark.quick
def test_walked_configuration_holds_a_sides_pieces():
    # 16 entries a side, any kind in each: never an overflow while a side has
    # at most 16 non-pawn pieces; 17 would overflow (no legal game has them).
    assert WALKED.side_pools == ((None, 16),) and WALKED.keeps_kinds and WALKED.walked
    assert WALKED.never_overflows({6: 1, 5: 9, 4: 2, 3: 2, 2: 2})
    assert not WALKED.never_overflows({6: 1, 5: 10, 4: 2, 3: 2, 2: 2})
    assert not WALKED.upcoming and WALKED.note == ", a walked list a side in block RAM"
    # Its clocks depend on the chains walked: no closed form from the plies.
    assert not WALKED.latency_fixed and LEAN.latency_fixed
    with pytest.raises(ValueError, match="walked_clocks"):
        WALKED.latency(4)
    assert WALKED.worst_case_clocks(7) == 8 * (2 + 16 + 1) + WALKED_LATENCY_OVERHEAD
    with pytest.raises(ValueError, match=r"^the walked pool layout needs the exact rules"):
        WALKED.replace(rules="paper").check()
    with pytest.raises(ValueError, match=r"^the walked pool layout needs the 'single' scan"):
        WALKED.replace(scan="pair", upcoming=False).check()
    # The clock counter bounds the move list it can walk.
    with pytest.raises(ValueError, match=r"^--depth 4096 is too deep for a walked list"):
        WALKED.replace(depth=4096).check(where="--")
    assert WALKED.replace(depth=2048).check()


def test_configuration_names_itself():
    assert SHIPPED.note == "" and LEAN.note == ", one pool a side, one ply a clock"
    keys = {config.key for config in (SHIPPED, LEAN, SHIPPED.replace(upcoming=False),
                                      SHIPPED.replace(rules="paper"), LEAN.replace(depth=16))}
    assert len(keys) == 5
    assert SHIPPED.key == "d256-c24-exact-kind-pair-upcoming-backstop"


def test_the_golden_models_rules_pass_the_model_check_only():
    # The wiki's pseudo-code has one pool for both sides: any chain count.
    cpw = DetectorConfig(rules="cpw", chains=3)
    assert cpw.check(gateware=False) is cpw
    with pytest.raises(ValueError, match=r"^--rules must be one of paper, exact, not 'cpw'$"):
        cpw.check(where="--")


def test_the_boards_build_the_named_configurations():
    from axon.boards.platforms import BOARDS
    assert {name: spec.config for name, spec in BOARDS.items()} == {
        "icebreaker": SHIPPED, "icestick": WALKED, "hx8k": SHIPPED, "icesugar": SHIPPED,
        "icesugar-nano": WALKED, "nandland-go": WALKED, "ulx3s-12f": SHIPPED,
        "ulx3s-25f": SHIPPED, "ulx3s-45f": SHIPPED, "ulx3s-85f": SHIPPED}


def test_a_hung_query_is_given_up_just_after_the_upcoming_answer():
    from axon.hdl.params import HUNG_MARGIN_CLOCKS
    from axon.hdl.upcoming import UPCOMING_CLOCKS
    assert HUNG_MARGIN_CLOCKS == UPCOMING_CLOCKS + 1
    for config in (SHIPPED, LEAN):
        assert config.hung_after_clocks == \
            config.worst_case_clocks(config.depth - 1) + UPCOMING_CLOCKS + 1
