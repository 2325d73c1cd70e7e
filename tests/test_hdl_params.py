"""Gateware constructors reject bad parameters with messages that say what was given.

Unlike the other test files, this one does not silence UnusedElaboratable:
a refused component must not warn "created but never used" on its own (the
test run turns warnings into errors), so the header would hide a defect.
"""

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
from axon.boards.top import AxonBoard


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


@pytest.mark.parametrize("make, error, message", [
    (lambda: ChainList(chains=0), TypeError,
     r"Chain count must be an even integer of at least 2, not 0"),
    (lambda: ChainList(chains=7), TypeError,
     r"Chain count must be an even integer of at least 2, not 7"),
    (lambda: ChainList(rules="cpw"), ValueError,
     r"Chain rules must be one of paper, exact, not 'cpw'"),
    (lambda: ChainPool(slots=0), TypeError, r"Pool size must be a positive integer, not 0"),
    (lambda: UnpairedPool(slots=0), TypeError, r"Pool size must be a positive integer, not 0"),
    (lambda: ChainList(pools="piece"), ValueError,
     r"Pool layout must be one of kind, spill, side, not 'piece'"),
    (lambda: ChainList(rules="paper", pools="spill"), ValueError,
     r"The spill pool layout needs the exact rules, not 'paper'"),
    (lambda: AxonDetector(pools="none"), ValueError,
     r"Pool layout must be one of kind, spill, side, not 'none'"),
    (lambda: MoveList(depth=255), TypeError,
     r"Move-list depth must be an even integer of at least 2, not 255"),
    (lambda: Scanner(depth="256"), TypeError,
     r"Move-list depth must be an even integer of at least 2, not '256'"),
    (lambda: AxonDetector(chains=2.5), TypeError,
     r"Chain count must be an even integer of at least 2, not 2\.5"),
    (lambda: AxonDetector(depth=100.0), TypeError,
     r"Move-list depth must be an even integer of at least 2, not 100\.0"),
    (lambda: AxonDetector(rules="wiki"), ValueError,
     r"Detector rules must be one of paper, exact, not 'wiki'"),
    (lambda: AxonDetector(scan="double"), ValueError,
     r"Scan must be one of pair, single, not 'double'"),
    (lambda: LeanScanner(depth=3), TypeError,
     r"Move-list depth must be an even integer of at least 2, not 3"),
    (lambda: LeanMoveList(depth=0), TypeError,
     r"Move-list depth must be an even integer of at least 2, not 0"),
    (lambda: QuerySignature(depth=3), TypeError,
     r"Move-list depth must be an even integer of at least 2, not 3"),
    (lambda: MoveMemorySignature(depth=None), TypeError,
     r"Move-list depth must be an even integer of at least 2, not None"),
])
def test_parameter_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_detector_reports_its_configuration():
    detector = AxonDetector(depth=128, chains=8, rules="paper")
    Fragment.get(detector, None)   # used, so it need not warn
    assert (detector.depth, detector.chains, detector.rules) == (128, 8, "paper")
    assert (detector.pools, detector.scan) == ("kind", "pair")
    lean = AxonDetector(depth=16, chains=4, pools="side", scan="single")
    Fragment.get(lean, None)
    assert (lean.pools, lean.scan) == ("side", "single")
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


def test_detector_ports_are_the_named_signatures():
    detector = AxonDetector(depth=128)
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
    m.submodules.detector = detector = AxonDetector(depth=16)
    # A port of another depth does not fit: the address widths differ.
    m.submodules.wrong = wrong = _Asker(32)
    with pytest.raises(wiring.ConnectionError, match=r"top"):
        wiring.connect(m, wrong.query, detector.query)
    wiring.connect(m, asker.query, detector.query)
    wiring.connect(m, asker.memory, detector.memory)
    Fragment.get(m, None)
