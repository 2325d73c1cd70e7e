# amaranth: UnusedElaboratable=no
"""The gateware path check against the golden model's geometry, every square pair."""

import random

import pytest

from amaranth.sim import Simulator

from axon.hdl.pathcheck import PATH_CHECK_LATENCY, PathCheck
from axon.sim.model.golden import reaches, squares_between


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "upcoming repetition (gateware)"

# PathCheck reads the occupancy in its stage 3, this many clocks after it
# takes the candidate: what the test below holds it to.
OCCUPANCY_READ_CLOCK = 2


def _cases(exhaustive):
    """Every (kind, from, to) when ``exhaustive``; otherwise a sample that
    still has every kind and many long lines, on sparse and dense boards."""
    rng = random.Random(12)
    if exhaustive:
        triples = [(kind, a, b) for kind in range(8) for a in range(64) for b in range(64)]
    else:
        triples = [(rng.randrange(8), rng.randrange(64), rng.randrange(64)) for _ in range(1500)]
        # Squares on one line, where the path decides.
        for _ in range(1500):
            a, step = rng.randrange(64), rng.choice((1, 7, 8, 9))
            triples.append((rng.choice((3, 4, 5)), a, (a + step * rng.randint(2, 7)) % 64))
    return [(kind, a, b, sum(1 << sq for sq in range(64) if rng.random() < density))
            for kind, a, b in triples for density in [rng.choice((0.0, 0.1, 0.3))]]


def _golden(kind, from_sq, to_sq, occupancy):
    return reaches(kind, from_sq, to_sq) and not squares_between(from_sq, to_sq) & occupancy


@pytest.mark.parametrize("exhaustive", [
    False, pytest.param(True, marks=pytest.mark.slow)])
def test_path_check_matches_golden(exhaustive):
    cases = _cases(exhaustive)
    dut = PathCheck()
    verdicts = []

    async def bench(ctx):
        # One candidate a clock, with a gap now and then. The occupancy is
        # read OCCUPANCY_READ_CLOCK clocks after the candidate is taken (the
        # detector holds it for the whole query), so each case's board is
        # driven that late.
        pending = list(cases)
        in_flight = [None] * OCCUPANCY_READ_CLOCK
        clock = 0
        while pending or len(verdicts) < len(cases):
            clock += 1
            reading = in_flight.pop(0)
            ctx.set(dut.occupancy, reading[3] if reading else 0)
            offer = bool(pending) and clock % 17 != 0
            taken = None
            if pending and offer:
                taken = pending.pop(0)
                kind, from_sq, to_sq, _ = taken
                ctx.set(dut.kind, kind)
                ctx.set(dut.from_sq, from_sq)
                ctx.set(dut.to_sq, to_sq)
            in_flight.append(taken)
            ctx.set(dut.valid, taken is not None)
            await ctx.tick()
            if ctx.get(dut.verdict_valid):
                verdicts.append(ctx.get(dut.reachable))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    expected = [_golden(*case) for case in cases]
    assert verdicts == expected
    assert sum(expected) > len(cases) // 20 and len(expected) - sum(expected) > len(cases) // 20


@pytest.mark.quick
def test_latency():
    dut = PathCheck()
    seen = []

    async def bench(ctx):
        ctx.set(dut.valid, 1)
        ctx.set(dut.kind, 2)
        ctx.set(dut.from_sq, 6)    # g1
        ctx.set(dut.to_sq, 21)     # f3
        await ctx.tick()
        ctx.set(dut.valid, 0)
        for _ in range(PATH_CHECK_LATENCY + 2):
            seen.append((ctx.get(dut.verdict_valid), ctx.get(dut.reachable)))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen.index((1, 1)) == PATH_CHECK_LATENCY - 1
    assert seen.count((1, 1)) == 1
