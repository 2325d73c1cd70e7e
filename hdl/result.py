"""The answer of a query: the layouts of the detector's answer ports and of
the host link's query record. Software reads any of them back with the
layout's own ``from_bits``, which gives a :class:`amaranth.lib.data.Const`
with a field per name."""

from amaranth.lib import data

from .params import COUNT_LIMIT_BITS, Stop


__all__ = ["ResultLayout", "UpcomingLayout", "UpcomingRecord", "QueryResult"]


class ResultLayout(data.StructLayout):
    """The ``result`` port: the repetition answer, the same fields as
    ``axon.sim.model.golden.Result``. ``distance`` is 0 when no equal position
    was found. A detector with a ``backstop`` (``DetectorConfig.backstop``)
    has one more bit, last: the backstop gave the answer."""
    def __init__(self, depth, *, backstop=False):
        super().__init__({
            "repetition":    1,
            "draw":          1,
            "overflow":      1,
            "stop":          Stop,
            "count":         COUNT_LIMIT_BITS,   # counts up to the limit
            "distance":      range(depth + 1),
            "plies_scanned": range(depth + 1),
            **({"backstop": 1} if backstop else {}),
        })


class UpcomingLayout(data.StructLayout):
    """The ``upcoming`` port: the golden model's ``upcoming``,
    ``upcoming_move``, ``upcoming_distance``, ``upcoming_draw`` and
    ``upcoming_exact``. ``from_sq``, ``to_sq``, ``distance`` and ``draw``
    are 0 when ``found`` is not set. ``exact``: the answer is complete (a
    move was found, or the scan ended at a barrier or the bottom); without
    it, no move found means only "none within ``plies_scanned``"."""
    def __init__(self, depth):
        super().__init__({
            "found":    1,
            "draw":     1,
            "from_sq":  6,
            "to_sq":    6,
            "distance": range(depth + 1),
            # Last, so that the fields before it keep their offsets.
            "exact":    1,
        })


class UpcomingRecord(data.Struct):
    """:class:`UpcomingLayout` in whole bytes, as the host link sends it."""
    found:    1
    draw:     1
    exact:    1
    reserved: 5
    from_sq:  8
    to_sq:    8
    distance: 16


class QueryResult(data.Struct):
    """A query's whole answer in the fixed widths of the host link: the
    QUERY answer's 13 bytes, little-endian (``docs/protocol.md``). The link
    packs it from the detector's ports; the host reads it with
    ``QueryResult.from_bits``, as the simulators read the ports themselves."""
    repetition:     1
    overflow:       1
    stop:           Stop
    draw:           1
    backstop:       1
    reserved:       2
    count:          8
    distance:       16
    plies_scanned:  16
    cycles:         16
    upcoming:       UpcomingRecord
