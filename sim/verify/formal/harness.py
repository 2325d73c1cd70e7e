"""Shared harness parts and the configurations the proofs use."""

from amaranth.asserts import AnySeq
from amaranth.hdl import *
from amaranth.lib import wiring

from ....hdl.params import LEAN, SHIPPED


# The configuration every detector-level proof uses.
PROOF_DEPTH  = 8
PROOF_CHAINS = 4
# The shipped detector's pools and scan, without the backstop (whose own
# proofs take it, BACKSTOP_SMALL).
PROOF_CONFIG = SHIPPED.replace(depth=PROOF_DEPTH, chains=PROOF_CHAINS, backstop=False)
# The same for the 1K boards' lean scan and pools.
PROOF_LEAN_CONFIG = LEAN.replace(depth=PROOF_DEPTH, chains=PROOF_CHAINS)


def popcount(value):
    return sum(value[index] for index in range(len(value)))


def free(m, signal):
    """Drive `signal` from a fresh free input: any value on every clock."""
    m.d.comb += signal.eq(AnySeq(len(Value.cast(signal))))


def free_host_inputs(m, detector):
    """Drive every input of the detector's query and move-memory ports freely."""
    for port in (detector.query, detector.memory):
        for _, member, value in port.signature.flatten(port):
            if member.flow == wiring.In:
                free(m, value)


class Harness(Elaboratable):
    """A harness body given as a function of the module it fills."""
    def __init__(self, body):
        self._body = body
        self.domain = ClockDomain("sync", reset_less=True)

    def elaborate(self, platform):
        m = Module()
        # From power-up, with no reset input: a free reset would also clear
        # the harness's shadow registers, which the design's block RAM
        # cannot follow. Resets in the middle of a query are simulated in
        # tests/test_rtl.py and tests/test_link.py.
        m.domains.sync = self.domain
        self._body(m)
        return m


# The shipped pool sizes: the shipped 24 chains give a side K1 Q2 R3 B3 N3
# (axon.hdl.pools), and the lean layout's 4 chains give each side one pool of
# 2 entries. Every pool property is proven at each size from 1 to the
# largest by the same script (tests/test_formal.py); `axon prove` runs the
# largest.
DEFAULT_CHAINS = SHIPPED.chains
LEAN_CHAINS = LEAN.chains
DEFAULT_POOL_SLOTS = max(count for _, count in SHIPPED.side_pools)
POOL_SIZES = tuple(range(1, DEFAULT_POOL_SLOTS + 1))
(_, LEAN_POOL_SLOTS), = LEAN.side_pools


def backstop_invariants(m, detector):
    """What holds of a detector with a backstop between the pools' scan, its
    wait and the walked scan, asserted so that k-induction starts only from
    states the design can reach: the pools' scan waits exactly while the
    backstop has the query, which it has only once the pools overflowed."""
    kept = detector.observe.backstop
    waiting = detector.observe.scanner.waiting
    pools = kept.pools
    walked = kept.scanner
    walked_busy = walked.judging | walked.applying
    hand_over = kept.asking_pools & pools.done & pools.result.overflow
    scanning = pools.busy & ~waiting
    m.d.comb += [
        # The pools' scan reads the move list while it scans, never while it
        # waits (it reads on the starting clock too, which a wait refuses).
        Assert(~(waiting & detector.observe.scanner.reads.reading)),
        # The pools scan only when asked, and are asked until they answer.
        Assert(~scanning | kept.asking_pools),
        Assert(~kept.asking_pools | scanning | pools.done),
        Assert(~(kept.asking_pools & kept.backstopped)),
        # Waiting: on the clock the pools hand over, then while the walked
        # scan runs.
        Assert(waiting == (hand_over | (kept.backstopped & walked_busy))),
        Assert(~walked_busy | (kept.backstopped & ~kept.walked.done)),
        Assert(~kept.backstopped | pools.done),
    ]
