"""Gateware constructors reject bad parameters with messages that say what was given.

Unlike the other test files, this one does not silence UnusedElaboratable:
a refused component must not warn "created but never used" on its own (the
test run turns warnings into errors), so the header would hide a defect.
"""

import pytest
from amaranth.hdl import Fragment

from axon.hdl.chainlist import ChainList, ChainPool, UnpairedPool
from axon.hdl.detector import AxonDetector
from axon.hdl.lean import LeanMoveList, LeanScanner
from axon.hdl.movelist import MoveList
from axon.hdl.pathcheck import PathCheck
from axon.hdl.scanner import Scanner
from axon.hdl.upcoming import Upcoming
from axon.boards.top import AxonBoard


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
     r"Pool layout must be one of kind, side, not 'piece'"),
    (lambda: AxonDetector(pools="none"), ValueError,
     r"Pool layout must be one of kind, side, not 'none'"),
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
