"""The bench's capacity figures: how often each pool layout overflows.

Two workloads, every ply of every game queried at the bench's count limit,
answered by the golden model (which overflows on exactly the moves the
gateware does, see ``tests/test_rtl.py``):

* ``bench_corpus``: the bench's own query corpus (bundled games and generated
  games from the opening and from pawnless endgames);
* ``crowded``: generated crowded boards (:func:`axon.sim.model.generate.crowded_corpus`:
  pawnless, promoted pieces, reversible moves), where pools by kind run out.

Each gives the overflowing queries per layout at the same chain count, and
the share of the queries they are; and the pools by kind with the backstop
behind them: no overflow, the queries the backstop answered and their clocks.
"""

from ...hdl.params import WALKED, Pools, Scan
from ..backends.pysim import expected_cycles
from ..backends.session import written_before
from ..model.encode import encode_moves
from ..model.generate import crowded_corpus
from ..model.golden import perpetual
from .workload import distribution


__all__ = ["LAYOUTS", "CROWDED_GAMES", "CROWDED_SEED", "bench_key", "layout_name",
           "layout_overflows", "capacity_figures", "backstop_figures"]

# The layouts compared.
LAYOUTS = tuple(Pools)
# The crowded workload: a seed other than the test's.
CROWDED_GAMES, CROWDED_SEED = 40, 7
# bench.json keeps the walked list's figures under its name before 0.4, so
# that a kept bench.json and a new one have the same keys.
_WALKED_BENCH_KEY = "serial"


def bench_key(layout):
    """The key of a pool layout (:class:`~axon.hdl.params.Pools`) in
    ``bench.json``: its value, but ``serial`` for the walked list."""
    return _WALKED_BENCH_KEY if layout is Pools.WALKED else layout.value


def layout_name(key):
    """The layout's name (``--pools``) for a key of ``bench.json``'s layouts."""
    return Pools.WALKED.value if key == _WALKED_BENCH_KEY else key


def layout_overflows(games, *, config, count_limit, layouts=LAYOUTS):
    """``{"queries": n, "overflows": {layout: count}, "share": {layout: fraction}}``
    over ``games``, ``[(board, moves, words)]``, queried after every ply with
    ``config`` in each pool layout (by its name)."""
    queries = sum(len(words) for _, _, words in games)
    overflows = {bench_key(layout): sum(perpetual(words, top, config=_in_layout(config, layout),
                                             count_limit=count_limit).overflow
                                   for _, _, words in games for top in range(len(words)))
                 for layout in layouts}
    return {"games": len(games), "queries": queries, "overflows": overflows,
            "share": {layout: round(count / queries, 5) if queries else 0.0
                      for layout, count in overflows.items()}}


def _in_layout(config, layout):
    """``config`` with the pool layout ``layout``, and the walked list's own
    scan for it (the answers do not depend on the scan)."""
    if layout is Pools.WALKED:
        return config.replace(pools=layout, scan=Scan.SINGLE)
    return config.replace(pools=layout)


def capacity_figures(corpus, *, config, count_limit, crowded_games=CROWDED_GAMES,
                     log=print):
    """The ``capacity`` entry of ``bench.json``."""
    crowded = [(board, moves, encode_moves(board, moves))
               for board, moves in crowded_corpus(crowded_games, CROWDED_SEED)]
    # Each pool layout alone, without the shipped configuration's backstop.
    pools = config.replace(backstop=False)
    figures = {
        "chains": config.chains,
        "bench_corpus": layout_overflows(corpus, config=pools, count_limit=count_limit),
        "crowded": {"seed": CROWDED_SEED,
                    **layout_overflows(crowded, config=pools, count_limit=count_limit)},
        # The 1K boards' walked list at its own 32 chains (16 a side).
        bench_key(Pools.WALKED): {"chains": WALKED.chains, **{
            workload: layout_overflows(games, config=WALKED, count_limit=count_limit,
                                       layouts=(Pools.WALKED,))
            for workload, games in (("bench_corpus", corpus), ("crowded", crowded))}},
    }
    # The shipped configuration, the pools by kind with the backstop behind
    # them: its overflows (none), and beside them the clocks it took.
    shipped = config.replace(backstop=True, upcoming=False)
    for workload, games in (("bench_corpus", corpus), ("crowded", crowded)):
        figures[workload]["backstop"] = backstop_figures(games, config=shipped,
                                                         count_limit=count_limit)
        figures[workload]["overflows"]["shipped"] = figures[workload]["backstop"]["overflows"]
    for workload in ("bench_corpus", "crowded"):
        log(f"overflows on the {workload.replace('_', ' ')} at {config.chains} chains: "
            f"{figures[workload]['overflows']} of {figures[workload]['queries']} queries; "
            f"the walked list at {WALKED.chains}: "
            f"{figures['serial'][workload]['overflows'][bench_key(Pools.WALKED)]}; with the "
            f"backstop: {figures[workload]['backstop']['overflows']}, the backstop answered "
            f"{figures[workload]['backstop']['answered']}")
    return figures


def backstop_figures(games, *, config, count_limit):
    """The pools with the backstop behind them (``config``) on ``games``,
    ``[(board, moves, words)]``, queried after every ply as the game
    workload is, each game loaded first and asked from its newest ply down:
    the overflows (none on a legal game), the queries the backstop answered,
    and the clocks of every query and of those
    (:func:`~axon.sim.backends.pysim.expected_cycles`)."""
    jobs = [(words, [(top,) for top in reversed(range(len(words)))]) for _, _, words in games]
    clocks, answered, overflows = [], [], 0
    for (words, queries), written in zip(jobs, written_before(jobs)):
        for (top,), starts in zip(queries, written):
            result = perpetual(words, top, config=config, count_limit=count_limit)
            overflows += result.overflow
            cycles = expected_cycles(words, top, result, config, starts)
            clocks.append(cycles)
            if result.backstop:
                answered.append(cycles)
    return {"config": config.key, "queries": len(clocks), "overflows": overflows,
            "answered": len(answered), "clocks_per_query": distribution(clocks),
            "clocks_answered": distribution(answered) if answered else {}}
