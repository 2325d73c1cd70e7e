# amaranth: UnusedElaboratable=no
"""The walked chain list in block RAM: its clocks pinned by hand, its parameters.

The wide comparisons with the golden model (every field and clock, games,
crowded boards and arbitrary words) are in ``tests/test_rtl.py``,
``tests/test_cxxrtl.py`` and ``tests/test_capacity.py``; these pin what the
clock model says on lines small enough to count by hand, so that the model
and the gateware cannot drift together.
"""

import pytest

from axon.hdl.params import WALKED, WALKED_LATENCY_OVERHEAD, DetectorConfig, Stop
from axon.hdl.walkedlist import WalkedChainList
from axon.hdl.walkedscan import WalkedScanner
from axon.hdl.word import pack_word
from axon.sim.backends.pysim import PysimSession
from axon.sim.model.golden import perpetual
from axon.sim.model.walked import walked_clocks, walked_chains


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "walked chain list in block RAM"


SMALL = WALKED.replace(depth=16)
# White's knight out and back, Black's the same, twice: a repetition every
# four plies.
SHUFFLE = [pack_word(1, 18, 2), pack_word(62, 45, 10),
           pack_word(18, 1, 2), pack_word(45, 62, 10)] * 2


@pytest.mark.quick
def test_clocks_pinned_by_hand():
    # From the top, each group of four words walks 0, 0, 1 and 1 open chains
    # of the mover's side (the knight's return meets its own chain): 2 + 2 +
    # 4 + 4 clocks (a walk of 1, and its comparison counted); then the
    # judging clock of the absent word below 0.
    golden = perpetual(SHUFFLE, 7, config=SMALL, count_limit=15)
    assert golden.stop is Stop.BOTTOM and golden.plies_scanned == 8
    assert walked_chains(SHUFFLE, 7, golden, SMALL) == [0, 0, 1, 1] * 2
    assert walked_clocks(SHUFFLE, 7, golden, SMALL) == 2 * (2 + 2 + 4 + 4) + WALKED_LATENCY_OVERHEAD
    (answer,) = PysimSession(SMALL).run(SHUFFLE, [(7, 15)])
    assert answer.result == golden and answer.cycles == 25


def test_overflow_costs_its_walk():
    # Two white knights' moves with one entry a side (2 chains): the second
    # word inserts a chain into a full list and overflows after walking the
    # first one, 2 + 1 clocks and one to count its comparison, with nothing
    # after it.
    small = SMALL.replace(chains=2)
    words = [pack_word(1, 18, 2), pack_word(6, 21, 2)]
    golden = perpetual(words, 1, config=small, count_limit=15)
    assert golden.stop is Stop.OVERFLOW and golden.plies_scanned == 1
    assert walked_clocks(words, 1, golden, small) == 2 + (2 + 1 + 1)
    (answer,) = PysimSession(small).run(words, [(1, 15)])
    assert answer.result == golden and answer.cycles == 6


@pytest.mark.quick
def test_parameters_are_refused_plainly():
    with pytest.raises(ValueError, match=r"^a walked chain list needs the 'walked' pool layout"):
        WalkedChainList(DetectorConfig(depth=16))
    with pytest.raises(TypeError, match=r"^A side's entries must be a positive integer, not 0$"):
        WalkedChainList(SMALL, entries=0)
    with pytest.raises(ValueError, match=r"Move-list depth must be an even integer"):
        WalkedScanner(7)
    assert WalkedChainList(SMALL).entries == 16
    assert WalkedChainList(SMALL, entries=15).entries == 15
