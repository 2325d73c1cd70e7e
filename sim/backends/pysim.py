"""Run the gateware in Amaranth's simulator and answer queries like the golden model.

``RtlSession(...).run(words, queries)`` loads the move list through the host
write port, runs every query and returns one
:class:`~axon.sim.backends.session.Answer` each, so a
test reads ``assert rtl.result == golden``.
"""

import os

from amaranth.sim import Simulator

from ...hdl.detector import AxonDetector
from ...hdl.lean import LEAN_LATENCY_OVERHEAD
from ...hdl.scanner import LATENCY_OVERHEAD, REFETCH_CLOCKS
from ...hdl.word import unpack_word
from ...hdl.params import Stop
from ..model.golden import Result
from .session import Answer, Session
from .waves import trace_signals, write_gtkw


__all__ = ["RtlSession", "latency", "expected_cycles", "TIMEOUT_SLACK"]

# A query never needs more than depth + LATENCY_OVERHEAD + REFETCH_CLOCKS
# clocks (one word a clock after a refetch, at worst); waiting a
# little longer than that turns a hung design into a test failure, not a hang.
TIMEOUT_SLACK = 8


def latency(plies_scanned, scan="pair"):
    """Clocks from the clock that samples ``start`` to ``done``, for a move list
    whose words alternate sides (every legal game): two plies a clock, or one
    with the lean ``scan="single"`` (:mod:`axon.hdl.lean`)."""
    if scan == "single":
        return plies_scanned + LEAN_LATENCY_OVERHEAD
    return plies_scanned // 2 + LATENCY_OVERHEAD


def expected_cycles(words, top, result, scan="pair"):
    """Clocks for any move list, given the golden model's ``result``.

    The lean scan takes one word a clock whatever the words are. The pair
    scan's clocks are counted by walking the pairs the way it does: a pair
    whose two words are of one side (nonsense, never a legal game) costs a
    refetch, after which the query goes on one word a clock.
    """
    if scan == "single":
        return latency(result.plies_scanned, scan)
    def side(address):
        return unpack_word(words[address])[2] >> 3

    address, applied, examined, refetches, single_step = top, 0, 0, 0, False
    while True:
        examined += 1
        if applied == result.plies_scanned:
            break
        applied += 1
        if single_step:
            address -= 1
            continue
        older = address - 1
        if older >= 0 and not unpack_word(words[older])[3] and side(older) == side(address):
            refetches += 1
            single_step = True
            address -= 1
            continue
        if applied == result.plies_scanned:
            break
        applied += 1
        address -= 2
    return examined + LATENCY_OVERHEAD - 1 + REFETCH_CLOCKS * refetches


class DetectorTimeout(RuntimeError):
    pass


def _read_result(ctx, port):
    fields = ctx.get(port)
    repetition = bool(fields.repetition)
    return Result(
        repetition=repetition,
        distance=int(fields.distance) if repetition else None,
        count=int(fields.count),
        overflow=bool(fields.overflow),
        plies_scanned=int(fields.plies_scanned),
        stop=Stop(fields.stop.value),
    )


async def write_words(ctx, dut, words, base=0):
    """Store ``words`` at ``base``.. through the host write port, one a clock."""
    for offset, word in enumerate(words):
        ctx.set(dut.write_addr, base + offset)
        ctx.set(dut.write_word.as_value(), word)
        ctx.set(dut.write_en, 1)
        await ctx.tick()
    ctx.set(dut.write_en, 0)


async def run_query(ctx, dut, top, count_limit):
    """Start one query, wait for ``done``; return an :class:`~axon.sim.backends.session.Answer`."""
    ctx.set(dut.top, top)
    ctx.set(dut.count_limit, count_limit)
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.start, 0)
    waited = 0
    # `done` rises on the clock edge that ends the scan.
    while not ctx.get(dut.done):
        if waited > dut.depth + LATENCY_OVERHEAD + REFETCH_CLOCKS + TIMEOUT_SLACK:
            raise DetectorTimeout(f"query top={top} did not finish in {waited} clocks")
        await ctx.tick()
        waited += 1
    return Answer(_read_result(ctx, dut.result), ctx.get(dut.cycles))


class RtlSession(Session):
    """A detector instance in the Python simulator.

    Parameters
    ----------
    depth, chains, rules, pools, scan :
        As for :class:`~axon.hdl.detector.AxonDetector`.
    vcd : str or None
        Write a waveform there (and a GTKWave save file beside it).
    """

    def __init__(self, *, depth=256, chains=24, rules="exact", pools="kind", scan="pair",
                 vcd=None):
        self.depth = depth
        self.chains = chains
        self.rules = rules
        self.pools = pools
        self.scan = scan
        self.vcd = vcd

    def make_dut(self):
        return AxonDetector(depth=self.depth, chains=self.chains, rules=self.rules,
                            pools=self.pools, scan=self.scan)

    def expected_cycles(self, words, top, result):
        """:func:`expected_cycles` for this session's scan."""
        return expected_cycles(words, top, result, self.scan)

    def run(self, words, queries):
        """Load ``words`` at address 0, then answer ``queries`` (``(top, count_limit)``
        pairs); return a list of :class:`~axon.sim.backends.session.Answer`."""
        return self.run_batch([(words, queries)])[0]

    def run_batch(self, jobs, *, on_answer=None):
        """Run several ``(words, queries)`` jobs in one simulation
        (:class:`~axon.sim.backends.session.Session`)."""
        for words, _ in jobs:
            self._check_fits(words)
        dut = self.make_dut()
        answers = []

        async def testbench(ctx):
            for job, (words, queries) in enumerate(jobs):
                await write_words(ctx, dut, words)
                answers.append([])
                for index, (top, count_limit) in enumerate(queries):
                    answer = await run_query(ctx, dut, top, count_limit)
                    answers[-1].append(answer)
                    if on_answer is not None:
                        on_answer(job, index, answer)

        self.simulate(dut, testbench)
        return answers

    def simulate(self, dut, testbench):
        sim = Simulator(dut)
        sim.add_clock(1e-7)
        sim.add_testbench(testbench)
        if self.vcd:
            gtkw = os.path.splitext(self.vcd)[0] + ".gtkw"
            with sim.write_vcd(self.vcd, gtkw_file=None, traces=trace_signals(dut)):
                sim.run()
            write_gtkw(self.vcd, gtkw, dut)
        else:
            sim.run()
