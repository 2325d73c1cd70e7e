"""The answer of a query: the layouts of the detector's answer ports and of
the host link's query record, and one way to read any of them back."""

from amaranth.lib import data

from .params import Stop


__all__ = ["ResultLayout", "UpcomingLayout", "UpcomingRecord", "QueryResult", "fields_of"]


class ResultLayout(data.StructLayout):
    """The ``result`` port: the repetition answer, the same fields as
    ``axon.sim.model.golden.Result``. ``distance`` is 0 when no equal position
    was found."""
    def __init__(self, depth):
        super().__init__({
            "repetition":    1,
            "draw":          1,
            "overflow":      1,
            "stop":          Stop,
            "count":         4,
            "distance":      range(depth + 1),
            "plies_scanned": range(depth + 1),
        })


class UpcomingLayout(data.StructLayout):
    """The ``upcoming`` port: the golden model's ``upcoming``,
    ``upcoming_move``, ``upcoming_distance`` and ``upcoming_draw``.
    ``from_sq``, ``to_sq``, ``distance`` and ``draw`` are 0 when ``found``
    is not set."""
    def __init__(self, depth):
        super().__init__({
            "found":    1,
            "draw":     1,
            "from_sq":  6,
            "to_sq":    6,
            "distance": range(depth + 1),
        })


class UpcomingRecord(data.Struct):
    """:class:`UpcomingLayout` in whole bytes, as the host link sends it."""
    found:    1
    draw:     1
    reserved: 6
    from_sq:  8
    to_sq:    8
    distance: 16


class QueryResult(data.Struct):
    """A query's whole answer in the fixed widths of the host link: the
    QUERY answer's 13 bytes, little-endian (``docs/protocol.md``). The link
    packs it from the detector's ports; the host reads it with
    :func:`fields_of`, as the simulators read the ports themselves."""
    repetition:     1
    overflow:       1
    stop:           Stop
    draw:           1
    reserved:       3
    count:          8
    distance:       16
    plies_scanned:  16
    cycles:         16
    upcoming:       UpcomingRecord


def fields_of(layout, bits):
    """``{name: int}`` (nested for a nested layout) of the integer ``bits``
    laid out as ``layout``, which is any :mod:`amaranth.lib.data` layout or
    struct class."""
    fields = {}
    for name, field in data.Layout.cast(layout):
        value = bits >> field.offset & ((1 << field.width) - 1)
        try:
            inner = data.Layout.cast(field.shape)
        except TypeError:
            fields[name] = value
        else:
            fields[name] = fields_of(inner, value)
    return fields
