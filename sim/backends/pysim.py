"""Run the gateware in Amaranth's simulator and answer queries like the golden model.

``PysimSession(...).run(words, queries)`` loads the move list through the host
write port, runs every query and returns one
:class:`~axon.sim.backends.session.Answer` each, so a
test reads ``assert rtl.result == golden``.
"""

import os
import queue
import threading
from dataclasses import replace
from typing import Any, Callable, Iterable, List, Optional, Sequence

from amaranth.sim import Simulator

from ...hdl.detector import AxonDetector
from ...hdl.params import (BACKSTOP_HANDOFF_CLOCKS, COUNT_LIMIT_MAX, FRESH_SAVED_CLOCKS,
                            LATENCY_OVERHEAD, REFETCH_CLOCKS, RESTART_CLOCKS, SHIPPED,
                            SHORT_ANSWER_CLOCKS, DetectorConfig, Stop, Written)
from ...hdl.upcoming import UPCOMING_CLOCKS
from ...hdl.word import piece_colour, unpack_word
from ..model.golden import Result, perpetual
from ..model.walked import walked_clocks
from .session import (SIMULATION_BATCH_PLIES, Answer, Job, OnAnswer, Query, Session,
                      deprecated_root)
from .waves import trace_signals, write_gtkw


__all__ = ["PysimSession", "expected_cycles", "split_query"]


def expected_cycles(words, top, result, config, written=Written.NOTHING):
    """Clocks for any move list, given the golden model's ``result``, on a
    detector of ``config``.

    The lean scan takes one word a clock whatever the words are
    (:meth:`~axon.hdl.params.DetectorConfig.latency`); the walked list
    walks its open chains too (:func:`axon.sim.model.walked.walked_clocks`). The pair
    scan's clocks are counted by walking the pairs the way it does: a pair
    whose two words are of one side (nonsense, never a legal game) costs a
    refetch, after which the query goes on one word a clock. What the host
    ``written`` since the last query (:class:`~axon.hdl.params.Written`)
    changes them as :meth:`~axon.hdl.params.DetectorConfig.latency` says.
    An answer of the backstop takes the pools' scan to its overflow, the
    hand-over clock, then the backstop's walked list from the top.
    """
    if config.backstop and result.backstop:
        pools = config.replace(backstop=False)
        # The pools' scan overflowed before the query's limit could stop
        # it, so with the largest limit and no root it takes the same words.
        overflowed = perpetual(words, top, config=pools, count_limit=COUNT_LIMIT_MAX)
        return (expected_cycles(words, top, overflowed, pools, written) +
                BACKSTOP_HANDOFF_CLOCKS +
                walked_clocks(words, top, replace(result, backstop=False),
                              config.backstop_config))
    if config.walked:
        return walked_clocks(words, top, result, config)
    if not config.pair_scan:
        return config.latency(result.plies_scanned)
    def side(address):
        return piece_colour(unpack_word(words[address])[2])

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
    clocks = examined + LATENCY_OVERHEAD - 1 + REFETCH_CLOCKS * refetches
    if written is Written.ELSEWHERE:
        return clocks + RESTART_CLOCKS
    if written is Written.NOTHING:
        return clocks
    # The first decision is the first pair's.
    if examined == 1 and result.stop is not Stop.OVERFLOW:
        return SHORT_ANSWER_CLOCKS
    return clocks - FRESH_SAVED_CLOCKS


class DetectorTimeout(RuntimeError):
    pass


def _read_result(ctx, port, upcoming_port=None):
    # A port of a data layout reads back as a data.Const of it.
    upcoming = None if upcoming_port is None else ctx.get(upcoming_port)
    return Result.from_fields(ctx.get(port), upcoming)


def split_query(query):
    """``(top, count_limit, occupancy, root_address)`` of a query given as ``(top,
    count_limit)``, with the occupancy too, or with the occupancy and the
    root's address. Occupancy ``None`` asks no upcoming repetition, as the golden model
    without ``occupancy``; the root's address is -1 when not given, as in the golden
    model."""
    defaults = (None, -1)
    return (*query, *defaults[len(query) - 2:])


async def write_words(ctx, dut, words, base=0):
    """Store ``words`` at ``base``.. through the host write port, one a clock."""
    for offset, word in enumerate(words):
        ctx.set(dut.memory.write_addr, base + offset)
        ctx.set(dut.memory.write_word.as_value(), word)
        ctx.set(dut.memory.write_en, 1)
        await ctx.tick()
    ctx.set(dut.memory.write_en, 0)


async def run_query(ctx, dut, top, count_limit, occupancy=None, root_address=-1):
    """Start one query, wait for ``done``; return an :class:`~axon.sim.backends.session.Answer`.

    With an ``occupancy``, also wait for ``upcoming.done`` (exactly
    ``UPCOMING_CLOCKS`` after ``done``, which is checked) and read the
    upcoming repetition."""
    ctx.set(dut.query.top, top)
    ctx.set(dut.query.root_address, root_address)
    ctx.set(dut.query.count_limit, count_limit)
    ctx.set(dut.upcoming.occupancy, occupancy or 0)
    ctx.set(dut.query.start, 1)
    await ctx.tick()
    ctx.set(dut.query.start, 0)
    waited = 0
    # `done` rises on the clock edge that ends the scan.
    while not ctx.get(dut.query.done):
        if waited >= dut.config.hung_after_clocks:
            raise DetectorTimeout(f"query top={top} did not finish in {waited} clocks")
        await ctx.tick()
        waited += 1
    cycles = ctx.get(dut.query.cycles)
    if occupancy is None:
        return Answer(_read_result(ctx, dut.query.result), cycles)
    extra = 0
    while not ctx.get(dut.upcoming.done):
        if extra > UPCOMING_CLOCKS:
            raise DetectorTimeout(f"query top={top}: upcoming.done did not follow done "
                                  f"in {UPCOMING_CLOCKS} clocks")
        await ctx.tick()
        extra += 1
    if dut.config.upcoming and extra != UPCOMING_CLOCKS:
        raise DetectorTimeout(f"query top={top}: upcoming.done came {extra} clocks after "
                              f"done, not {UPCOMING_CLOCKS}")
    return Answer(_read_result(ctx, dut.query.result,
                                    dut.upcoming.answer if dut.config.upcoming else None), cycles)


class _LiveSimulation:
    """A simulation in a thread of its own whose testbench waits for each
    step (:func:`write_words` or :func:`run_query` and its arguments) from
    the caller's thread and hands back what it returns."""

    def __init__(self, session):
        self.requests, self.replies = queue.Queue(), queue.Queue()
        dut = session.make_dut()

        async def testbench(ctx):
            while (request := self.requests.get()) is not None:
                step, args = request
                try:
                    self.replies.put((True, await step(ctx, dut, *args)))
                except Exception as error:
                    self.replies.put((False, error))

        self.thread = threading.Thread(target=session.simulate, args=(dut, testbench),
                                       daemon=True)
        self.thread.start()

    def call(self, step, *args):
        self.requests.put((step, args))
        ok, reply = self.replies.get()
        if not ok:
            raise reply
        return reply


class PysimSession(Session):
    """A detector instance in the Python simulator.

    Parameters
    ----------
    config : DetectorConfig
        The detector to simulate (:class:`~axon.hdl.detector.AxonDetector`).
    vcd : str or None
        Write a waveform there (and a GTKWave save file beside it).

    ``load``, ``write`` and ``query`` talk to one simulation that stays up
    between calls (started at the first, ended by :meth:`close`), so a
    search pays a word's write and a query a node; ``run`` and
    ``run_batch`` run a simulation of their own.
    """

    def __init__(self, config: DetectorConfig = SHIPPED, *, vcd: Optional[str] = None) -> None:
        self.config = DetectorConfig.checked(config)
        self.vcd = vcd
        # One waveform holds the whole run.
        self.batch_plies = 0 if vcd else SIMULATION_BATCH_PLIES
        self._live = None

    def load(self, words: Sequence[int]) -> None:
        words = list(words)
        self._check_fits(words)
        self._call(write_words, words)

    def write(self, address: int, word: int) -> None:
        self._check_address(address)
        self._call(write_words, [word], address)

    def query(self, top: int, count_limit: int, occupancy: Optional[int] = None,
              root_address: int = -1, **deprecated: int) -> Answer:
        root_address = deprecated_root(root_address, deprecated, "query")
        return self._call(run_query, top, count_limit, occupancy, root_address)

    def close(self) -> None:
        """End the simulation of ``load``, ``write`` and ``query``, if any."""
        live, self._live = self._live, None
        if live is not None:
            live.requests.put(None)
            live.thread.join()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def _call(self, step, *args):
        if self._live is None:
            self._live = _LiveSimulation(self)
        return self._live.call(step, *args)

    def make_dut(self) -> AxonDetector:
        return AxonDetector(self.config)

    def expected_cycles(self, words: Sequence[int], top: int, result: Result, *,
                        written: Written = Written.NOTHING) -> int:
        """:func:`expected_cycles` for this session's configuration;
        ``written`` is what the host wrote since the last query
        (:class:`~axon.sim.backends.session.HostWrites` follows it)."""
        return expected_cycles(words, top, result, self.config, written)

    def run(self, words: Sequence[int], queries: Sequence[Query]) -> List[Answer]:
        """Load ``words`` at address 0, then answer ``queries``, each ``(top,
        count_limit)``, ``(top, count_limit, occupancy)`` or ``(top,
        count_limit, occupancy, root_address)`` (see :func:`split_query`);
        return a list of :class:`~axon.sim.backends.session.Answer`.
        """
        return self.run_batch([(words, queries)])[0]

    def run_batch(self, jobs: Iterable[Job], *,
                  on_answer: Optional[OnAnswer] = None) -> List[List[Answer]]:
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
                for index, query in enumerate(queries):
                    answer = await run_query(ctx, dut, *split_query(query))
                    answers[-1].append(answer)
                    if on_answer is not None:
                        on_answer(job, index, answer)

        self.simulate(dut, testbench)
        return answers

    def simulate(self, dut: Any, testbench: Callable[..., Any]) -> None:
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
