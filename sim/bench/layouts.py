"""The search workload on every layout of the chain list.

Each pool layout of :class:`~axon.hdl.params.Pools` is measured as the
configuration that builds it (:data:`LAYOUT_CONFIGS`): the pools by kind
alone, the same with a spill pool a side, the lean one pool a side
scanned a word a clock, and the 1K boards' walked list. The recorded search
queries (:mod:`axon.sim.bench.recorded`) are answered by the golden model
on each, and each query's clocks come from the configuration as the search
asks it, right after the host wrote the word at its top
(:attr:`~axon.hdl.params.Written.TOP`):
:func:`~axon.sim.backends.pysim.expected_cycles`, to which the tests hold
every backend. The pools by kind are measured with the backstop behind
them too: the shipped core. The ns per query is the clocks at the median Fmax of each
bench target built with the layout, beside the C chain list of the same run.
"""

from ...boards.measure import TARGETS, config_for
from ...hdl.params import CORE, LEAN, WALKED, Pools, Written
from ..backends.pysim import expected_cycles
from ..model.golden import perpetual
from .capacity import bench_key
from .workload import distribution, ns_per_query


__all__ = ["LAYOUT_CONFIGS", "same_layout", "layout_clocks", "layout_figures"]

# Each pool layout, as the configuration it is built with.
LAYOUT_CONFIGS = {
    bench_key(Pools.KIND):   CORE.replace(backstop=False),
    bench_key(Pools.SPILL):  CORE.replace(pools=Pools.SPILL, backstop=False),
    bench_key(Pools.SIDE):   LEAN,
    bench_key(Pools.WALKED): WALKED,
    # The pools by kind with the walked list behind them: the shipped core.
    "backstop":              CORE,
}


def same_layout(config, other):
    """Whether two configurations build the same chain list and scan (the
    upcoming block adds area, not clocks); ``config`` ``None`` is a target
    with no chain list (the hash-key peer)."""
    return config is not None and config.replace(upcoming=False) == other.replace(upcoming=False)


def layout_clocks(queries, config):
    """``(clocks, plies, overflows)`` of ``queries`` (``[(words, (top,
    count_limit, occupancy, root_address))]``, each asked right after the host wrote
    the word at its top) on ``config``."""
    clocks, plies, overflows = [], [], 0
    for words, (top, count_limit, _, root_address) in queries:
        result = perpetual(words, top, root_address=root_address, config=config,
                           count_limit=count_limit)
        overflows += result.overflow
        plies.append(result.plies_scanned)
        clocks.append(expected_cycles(words, top, result, config, Written.TOP))
    return clocks, plies, overflows


def layout_figures(loads, fmax_mhz, peer=None, log=print):
    """``workloads.recorded_search.layouts`` of ``bench.json``: for each of
    :data:`LAYOUT_CONFIGS`, the recorded queries of ``loads``
    (:class:`~axon.sim.bench.recorded.RecordedLoad` s) answered on it, their
    overflows and clocks, and the ns per query on each target of
    ``fmax_mhz`` (``{target: {"median": MHz}}``) built with it, with the
    ratio to the C chain list's time ``peer`` (``run_peers`` figures of the
    same queries; ``None`` when not timed)."""
    queries = [(load.words[:recorded.query.top + 1], recorded.query)
               for load in loads for recorded in load.queries]
    peers = {"cpw_c": peer} if peer else None
    figures = {}
    for name, config in LAYOUT_CONFIGS.items():
        clocks, plies, overflows = layout_clocks(queries, config)
        built = {target: fmax for target, fmax in fmax_mhz.items()
                 if same_layout(config_for(target), config)}
        ns, ratio = ns_per_query(distribution(clocks), built, peers)
        ns.pop("cpw_c", None)
        figures[name] = {"chains": config.chains, "scan": config.scan.value,
                         "config": config.key, "words": config.note.lstrip(", ") or "the shipped core",
                         "bare_cores": [target for target, (_, built) in TARGETS.items()
                                        if built == config],
                         "queries": len(clocks), "overflows": overflows,
                         "plies_scanned": distribution(plies),
                         "clocks_per_query": distribution(clocks),
                         "ns_per_query": ns, "ratio_to_c_chain_list": ratio}
        log(f"search workload on the {name} layout: {overflows} overflows, clocks mean "
            f"{figures[name]['clocks_per_query']['mean']}")
    return figures
