"""The clock-level timing of a query, drawn as an ASCII diagram for the IP
package's README.

The diagram is one example, drawn from the same numbers the testbenches
check: the host writes the last two words of a move list, asks a query at
the newest on the next clock, and reads the answer when ``query__done``
rises, :func:`~axon.sim.backends.pysim.expected_cycles` clocks after the
clock that samples ``query__start``, and the upcoming answer
``UPCOMING_CLOCKS`` after that. ``tests/test_ip.py`` draws the same rows
from a simulation of the detector and compares them.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from ...hdl.params import DetectorConfig, Written
from ...hdl.upcoming import UPCOMING_CLOCKS
from ...hdl.word import pack_word
from ..backends.pysim import expected_cycles
from ..model.golden import perpetual


__all__ = ["EXAMPLE_WORDS", "EXAMPLE_COUNT_LIMIT", "QueryTiming", "query_timing", "draw"]

# Two knight shuffles from the start position (Ng1-f3 Ng8-f6 Nf3-g1 Nf6-g8,
# twice): the query at the newest word applies all eight.
_SHUFFLE = [pack_word(6, 21, 2), pack_word(62, 45, 10), pack_word(21, 6, 2), pack_word(45, 62, 10)]
EXAMPLE_WORDS = _SHUFFLE * 2
EXAMPLE_COUNT_LIMIT = 4
# Clock periods drawn before the start (the last two writes) and after the
# upcoming answer.
_WRITES = 2
_AFTER = 3
# Characters a clock period takes in the diagram.
_PERIOD = 3


@dataclass(frozen=True)
class QueryTiming:
    """The example's clocks: ``start`` is the period in which ``query__start``
    is high (the rising edge that ends it samples it), ``clocks`` the
    query's count from that edge to ``query__done`` (``query__cycles``),
    ``upcoming_after`` the clocks from ``query__done`` to ``upcoming__done``."""
    start: int
    clocks: int
    upcoming_after: int

    @property
    def periods(self) -> int:
        return self.start + 1 + self.clocks + self.upcoming_after + _AFTER

    def rows(self) -> Dict[str, List[int]]:
        """Each one-bit port's value in each clock period: the rows the
        diagram draws and a simulation records."""
        start, clocks, later = self.start, self.clocks, self.upcoming_after
        periods = range(self.periods)
        return {
            "memory__write_en": [int(period < _WRITES) for period in periods],
            "query__start":     [int(period == start) for period in periods],
            "query__busy":      [int(start < period <= start + clocks) for period in periods],
            "query__done":      [int(not start < period <= start + clocks) for period in periods],
            "upcoming__done":   [int(not start < period <= start + clocks + later)
                                 for period in periods],
        }


def query_timing(config: DetectorConfig) -> QueryTiming:
    """The example's timing on a detector of ``config``."""
    top = len(EXAMPLE_WORDS) - 1
    result = perpetual(EXAMPLE_WORDS, top, config=config, count_limit=EXAMPLE_COUNT_LIMIT)
    clocks = expected_cycles(EXAMPLE_WORDS, top, result, config, Written.TOP)
    return QueryTiming(start=_WRITES, clocks=clocks,
                       upcoming_after=UPCOMING_CLOCKS if config.upcoming else 0)


def _wave(values: Sequence[int]) -> str:
    drawn = []
    for period, value in enumerate(values):
        fill = "-" if value else "_"
        changed = period > 0 and value != values[period - 1]
        drawn.append(("/" if value else "\\") if changed else fill)
        drawn.append(fill * (_PERIOD - 1))
    return "".join(drawn)


def _bus(labels: Sequence[Optional[str]]) -> str:
    """A multi-bit value: ``X`` where it changes, its label, ``=`` while it
    holds; ``x`` where it means nothing."""
    drawn = ""
    period = 0
    while period < len(labels):
        end = period
        while end < len(labels) and labels[end] == labels[period]:
            end += 1
        width = (end - period) * _PERIOD
        label = labels[period]
        head = "=" if period == 0 else "X"
        if label is None:
            body = "x" * (width - 1)
        else:
            body = (f" {label} " if len(label) + 2 < width else label).ljust(width - 1, "=")
        drawn += (head + body)[:width]
        period = end
    return drawn


def draw(timing: QueryTiming, top: int) -> str:
    """The diagram of ``timing``, for a query at ``top`` after writes to
    ``top - 1`` and ``top``."""
    rows = timing.rows()
    periods = timing.periods
    start, done = timing.start, timing.start + timing.clocks
    upcoming_done = done + timing.upcoming_after

    def answer(until):
        return ["last" if period <= start else None if period <= until else "answer"
                for period in range(periods)]

    lines = {
        "clk": "/-\\" * periods,
        "memory__write_en": _wave(rows["memory__write_en"]),
        "memory__write_addr": _bus([str(top - _WRITES + 1 + period) if period < _WRITES
                                    else None for period in range(periods)]),
        "query__start": _wave(rows["query__start"]),
        "query__busy": _wave(rows["query__busy"]),
        "query__done": _wave(rows["query__done"]),
        "query__result": _bus(answer(done)),
        "upcoming__done": _wave(rows["upcoming__done"]),
        "upcoming__answer": _bus(answer(upcoming_done)),
    }
    width = max(map(len, lines)) + 2
    marks = [" "] * (periods * _PERIOD)
    # The rising edges that matter: the one that samples start (edge 0), the
    # one after which done is high, and the one after which upcoming__done is.
    # Without the upcoming block the last two are one edge: C.
    for edge, mark in ((upcoming_done, "U"), (done, "C"), (start, "0")):
        marks[(edge + 1) * _PERIOD] = mark
    text = [f"{name.ljust(width)}{wave}".rstrip() for name, wave in lines.items()]
    text.append(f"{'rising edge'.ljust(width)}{''.join(marks)}".rstrip())
    return "\n".join(text)
