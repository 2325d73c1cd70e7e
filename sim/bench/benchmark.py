"""``axon bench``: what one repetition query costs, in hardware and in software.

The query corpus is every ply of the bundled games plus generated games
(pawnless endgames and games biased toward reversible moves) from a fixed
seed, each asked at the paper's stop-at-first setting (``count_limit=1``), as
a search would ask it. For each query:

* the RTL simulation gives the clock count, which must be
  ``floor(plies_scanned / 2) + 4`` (two plies a clock), and every answer must
  equal the golden model's;
* nextpnr over several seeds gives Fmax per device, so clocks become ns;
* the software peers (the wiki's chain list in C, a Stockfish-style Zobrist
  scan in C, the golden model in Python) time the same queries here.

Beside this game workload runs the search workload
(:mod:`axon.sim.bench.recorded`): every query ``axon search`` asks in
searches of WAC.018 and of two positions of the paper's appendix game,
replayed through the RTL and the peers; and, as a second row, seeded random
walks of 4 to 10 plies from positions of the same games
(:mod:`axon.sim.bench.search_workload`), each answer also checked against
python-chess's draw. ``bench.json`` reports each workload apart under
``workloads`` (``game``, ``recorded_search`` and ``search_walks``), and
under ``search_host`` what the detector costs a host search: nodes per
second with each repetition test, and the link's bytes per node. Under
``search_unit`` (:mod:`axon.sim.bench.search_unit`) is the search unit in
gateware: its clocks a node and its wait for the detector on fixed
searches, nodes per second at its targets' median Fmax, and the area of the
unit and of the perft core.

Outputs ``DIR/bench.json``, ``DIR/bench.md`` and, with matplotlib installed,
``DIR/clocks.png`` and ``DIR/ns_per_query.png``.
"""

import datetime
import json
import math
import multiprocessing
import os
import platform as host_platform
import signal
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Optional

from ...boards.build import BuildError
from ...boards.measure import PEER_TARGETS, all_targets, config_for, measure, seeds_for
from ...hdl.params import WALKED, Pools
from ...hdl.pathcheck import PATH_CHECK_LATENCY
from ...hdl.upcoming import UPCOMING_CLOCKS
from ...hdl.version import VERSION
from ...hdl.word import WORD_BITS
from ..backends.cxxrtl import CxxrtlSession
from ..backends.pysim import PysimSession
from ..backends.session import written_before
from ..model.encode import encode_moves
from ..model.games import bundled_files, load_games
from ..model.generate import game_corpus
from ..model.golden import perpetual
from .capacity import CROWDED_GAMES, bench_key, capacity_figures
from .fingerprint import gateware_fingerprint
from .layouts import layout_figures, same_layout
from .peers import make_peer_games, run_peers
from .recorded import (RECORDED_SEARCHES, host_rates, record_searches, recorded_figures,
                       recorded_software, simulate_recorded)
from .walked import walked_figures
from .search_unit import UNIT_SEARCHES, search_unit_figures
from .zobrist_peer import hardware_peer_figures
from .search_workload import (build_search_lines, search_corpus_figures, search_software,
                     simulate_search)
from .workload import (CONFIG, COUNT_LIMIT, distribution as _distribution, rtl_clocks,
                       rtl_query, workload_figures, workload_markdown)


__all__ = ["run_bench", "run_hardware", "BenchRun", "markdown", "hardware_markdown",
           "bench_header", "REGENERATE"]


def build_corpus(games, seed):
    """``[(start_board, moves, words)]``: the bundled games, then generated ones."""
    corpus = []
    for path in bundled_files():
        for record in load_games(path):
            corpus.append((record.board, record.moves, record.words))
    for board, moves in game_corpus(games, seed, plies=(20, 160)):
        corpus.append((board, moves, encode_moves(board, moves)))
    return [game for game in corpus if 0 < len(game[2]) <= CONFIG.depth]


def _rtl_session(log=None):
    """CXXRTL when it is available (500 times faster), else Amaranth's simulator."""
    try:
        return CxxrtlSession(CONFIG, log=log), "cxxrtl"
    except Exception:  # pragma: no cover - depends on the machine's compiler
        return PysimSession(CONFIG), "amaranth"


def simulate(corpus, log=print, rtl=None):
    """Answer every query on the RTL; check each against the golden model.
    ``rtl`` is ``(session, backend name)``, by default :func:`_rtl_session`'s."""
    session, backend = rtl or _rtl_session(log)
    jobs = []
    for board, moves, words in corpus:
        # Each query gives the position's occupancy: the upcoming repetition
        # is answered (and checked) too.
        after, occupancies = board.copy(stack=False), []
        for move in moves:
            after.push(move)
            occupancies.append(int(after.occupied))
        # A game is loaded, then asked from its newest ply down, as a host
        # analysing it asks of the position on the board first: right after
        # the load wrote its word (Written.TOP), the others after nothing.
        jobs.append((words, [rtl_query(top, COUNT_LIMIT, occupancies[top])
                             for top in reversed(range(len(words)))]))
    started = time.monotonic()
    answers = session.run_batch(jobs)
    seconds = time.monotonic() - started
    plies, cycles, mismatches, upcoming = [], [], 0, 0
    # Overflows of the shipped configuration (none: its backstop answers
    # them), of its pools by kind alone (the queries its backstop answers),
    # and of the one-pool-a-side layout of the same size (the layout before
    # the pools by kind), for comparison.
    one_pool_a_side = CONFIG.replace(pools=Pools.SIDE, backstop=False)
    overflows = {"shipped": 0, CONFIG.pools.value: 0, Pools.SIDE.value: 0}
    for (words, queries), timed, job_written in zip(jobs, answers, written_before(jobs)):
        for (top, _, occupancy, root_address), rtl, written in zip(queries, timed, job_written):
            golden = perpetual(words, top, root_address=root_address, config=CONFIG,
                               count_limit=COUNT_LIMIT, occupancy=occupancy)
            upcoming += golden.upcoming
            if rtl.result != golden or rtl.cycles != rtl_clocks(words, top, golden, written):
                mismatches += 1
            plies.append(golden.plies_scanned)
            cycles.append(rtl.cycles)
            overflows["shipped"] += golden.overflow
            overflows[CONFIG.pools.value] += golden.overflow or golden.backstop
            overflows[Pools.SIDE.value] += perpetual(words, top, config=one_pool_a_side,
                                                     count_limit=COUNT_LIMIT).overflow
    log(f"simulated {len(plies)} queries on {backend} in {seconds:.1f} s, "
        f"{mismatches} mismatches, overflows {overflows}, {upcoming} with an upcoming "
        f"repetition")
    return {"backend": backend, "plies": plies, "cycles": cycles, "mismatches": mismatches,
            "overflows": overflows, "upcoming": upcoming}


def sustained_plies_per_clock(plies, cycles):
    """Slope of plies over clocks on the long scans (at least 32 plies)."""
    points = [(c, p) for p, c in zip(plies, cycles) if p >= 32]
    if len(points) < 2:
        return None
    mean_c = statistics.fmean(c for c, _ in points)
    mean_p = statistics.fmean(p for _, p in points)
    spread = sum((c - mean_c) ** 2 for c, _ in points)
    if not spread:
        return None
    return round(sum((c - mean_c) * (p - mean_p) for c, p in points) / spread, 3)


def _measure_one(target, seeds):
    try:
        return measure(target, seeds=seeds).as_dict()
    except BuildError as error:     # does not fit: the same words as `axon build`
        short = getattr(error, "short", None)
        if not short:
            return {"error": str(error)}
        # A bare target that does not fit is a result: what nextpnr counted.
        cell, (used, available) = next(iter(short.items()))
        return {"error": str(error),
                "does_not_fit": {"cell": cell, "used": used, "available": available,
                                 "percent": round(100 * used / available, 1)}}
    except Exception as error:      # a board that does not build is reported, not fatal
        return {"error": f"{type(error).__name__}: {error}"}


def _ignore_interrupt():
    # Ctrl-C is the parent's to handle: it keeps the finished targets and
    # stops the pool. A worker would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def hardware(seeds, log=print, targets=None, jobs=None, results=None):
    """nextpnr figures per target, two targets at a time on a two-core machine.

    Each finished target goes into ``results`` (a dict, returned), so that a
    caller interrupted by Ctrl-C still has the targets measured so far.
    """
    targets = list(targets or all_targets())
    jobs = jobs or max(1, min(len(targets), os.cpu_count() or 1))
    results = {} if results is None else results
    capped = [f"{target} {seeds_for(target, seeds)}" for target in targets
              if seeds_for(target, seeds) < seeds]
    log(f"place and route: {len(targets)} targets, {seeds} seed{'s' if seeds != 1 else ''} "
        f"each" + (f" (fewer: {', '.join(capped)})" if capped else "") +
        f", {jobs} at a time: {', '.join(targets)}")
    # Leaving the block terminates the workers, Ctrl-C or not.
    with multiprocessing.Pool(jobs, initializer=_ignore_interrupt) as pool:
        pending = {target: pool.apply_async(_measure_one, (target, seeds)) for target in targets}
        for done, (target, future) in enumerate(pending.items(), start=1):
            results[target] = figures = future.get()
            if "error" in figures:
                log(f"[{done}/{len(targets)}] {target}: {figures['error']}")
            else:
                cells = "LUT4s" if figures.get("family") == "ecp5" else "LCs"
                log(f"[{done}/{len(targets)}] {target}: Fmax median "
                    f"{figures['fmax_mhz']['median']} MHz, {figures['logic_cells']['used']} "
                    f"{cells}")
    return results


def software(corpus, log=print):
    games = make_peer_games([(board, moves) for board, moves, _ in corpus])
    queries = [(index, top) for index, (_, _, words) in enumerate(corpus)
               for top in range(len(words))]
    started = time.monotonic()
    peers = run_peers(games, queries, count_limit=COUNT_LIMIT)
    log(f"software peers timed in {time.monotonic() - started:.1f} s")
    return peers


def hardware_markdown(hardware):
    """The place-and-route table's lines, of ``hardware`` (target -> figures).
    Logic cells are an iCE40's ICESTORM_LC, an ECP5's LUT4s."""
    lines = ["| target | device | Fmax min / median / max (MHz) | LCs / LUT4s | FFs | BRAMs | "
             "critical path |", "|---|---|---|---|---|---|---|"]
    for target, figures in hardware.items():
        if "error" in figures:
            lines.append(f"| {target} | | {figures['error']} | | | | |")
            continue
        fmax = figures["fmax_mhz"]
        cells = figures["logic_cells"]
        lines.append(
            f"| {target} | {figures['device']} | {fmax['min']} / {fmax['median']} / "
            f"{fmax['max']} | {cells['used']} ({cells['percent']} %) | {figures['flip_flops']} "
            f"| {figures['block_rams']['used']} | {figures['critical_path'].get('from', '')} → "
            f"{figures['critical_path'].get('to', '')} |")
    return lines


def markdown(bench):
    lines = ["# Axon detector benchmark", "",
             f"{bench['machine']['date']} on {bench['machine']['cpu']} "
             f"({bench['machine']['python']}).", "",
             f"Corpus: {bench['corpus']['queries']} queries from {bench['corpus']['games']} games "
             f"(seed {bench['corpus']['seed']}), count limit {COUNT_LIMIT}, "
             f"{CONFIG.chains} chains, {CONFIG.rules.value} rules.", "",
             "| | mean | median | p99 | max |", "|---|---|---|---|---|"]
    for name in ("plies_scanned", "clocks_per_query"):
        figures = bench[name]
        lines.append(f"| {name.replace('_', ' ')} | {figures['mean']} | {figures['median']} | "
                     f"{figures['p99']} | {figures['max']} |")
    lines += ["", f"Sustained plies per clock: {bench['plies_per_clock']}; latency "
              f"`{bench['simulation']['latency_formula']}` clocks. Overflows: "
              f"{bench['overflows']['shipped']} shipped, "
              f"{bench['overflows']['pools_by_kind']} with the pools by kind alone, "
              f"{bench['overflows']['one_pool_a_side']} with one pool a side.", ""]
    if "upcoming" in bench:
        upcoming = bench["upcoming"]
        lines += [f"Upcoming repetition: {upcoming['queries']} queries "
                  f"({100 * upcoming['share']:.1f} %) have one; its answer comes "
                  f"{upcoming['clocks_after_done']} clocks after `done` (the path check "
                  f"{upcoming['path_check_clocks']} of them), `done` itself does not move.", ""]
    lines += hardware_markdown(bench["hardware"])
    lines += ["", "| implementation | ns/query mean | ns/query p99 | queries/s | ratio to it | "
              "ratio to the C chain list |", "|---|---|---|---|---|---|"]
    for name, figures in bench["ns_per_query"].items():
        lines.append(f"| {name} | {figures['mean']} | {figures['p99']} | "
                     f"{figures.get('queries_per_second', '')} | "
                     f"{figures.get('ratio_note', '')} | "
                     f"{figures.get('ratio_to_c_chain_list', '')} |")
    lines += workload_markdown(bench)
    memory = bench["memory_per_ply_bits"]
    lines += ["", f"Memory per history ply: {memory['axon_word']} bits (move word) vs "
              f"{memory['zobrist_key']} (Zobrist key) and {memory['board_256']} "
              f"(a 256-bit board).", ""]
    return "\n".join(lines)


def _pictures(bench, cycles, out_dir, log):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib not installed (pip install axon-repetition[bench]): no pictures")
        return
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.hist(cycles, bins=range(0, max(cycles) + 2), color="#336699")
    axes.set_xlabel("clocks per query")
    axes.set_ylabel("queries")
    axes.set_yscale("log")
    axes.set_title("Axon detector: clocks per query")
    figure.tight_layout()
    figure.savefig(os.path.join(out_dir, "clocks.png"), dpi=120)
    plt.close(figure)

    names = list(bench["ns_per_query"])
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.barh(names, [bench["ns_per_query"][name]["mean"] for name in names], color="#993333")
    axes.set_xscale("log")
    axes.set_xlabel("ns per query (mean, log scale)")
    axes.set_title("FPGA versus software, same queries")
    figure.tight_layout()
    figure.savefig(os.path.join(out_dir, "ns_per_query.png"), dpi=120)
    plt.close(figure)


#: The one command that regenerates the kept run, ``docs/bench.json``.
REGENERATE = "axon bench --out bench && cp bench/bench.json docs/bench.json"


def bench_header():
    """What a ``bench.json`` says before its figures: the machine, the
    gateware measured (:func:`~axon.sim.bench.fingerprint.gateware_fingerprint`)
    and whether the run is partial."""
    return {
        "machine": {
            "date": datetime.date.today().isoformat(),
            "cpu": host_platform.processor() or host_platform.machine(),
            "cores": os.cpu_count(),
            "python": sys.version.split()[0],
        },
        # The figures are of this gateware; a test compares it with today's.
        "gateware": {"fingerprint": gateware_fingerprint(), "version": VERSION},
        # Ctrl-C writes what was measured, marked partial, before stopping.
        "partial": False,
    }


def run_bench(out_dir="bench", *, seeds=5, games=300, seed=2024, hardware_targets=None,
              skip_hardware=False, skip_software=False, log=print, rtl=None,
              searches=RECORDED_SEARCHES, crowded_games=CROWDED_GAMES,
              unit_searches=UNIT_SEARCHES, unit_session=None):
    """Run the benchmark into ``out_dir``; return what ``bench.json`` holds.

    ``rtl`` is ``(session, backend name)`` to answer the queries with, by
    default CXXRTL (else Amaranth's simulator) at the bench's parameters;
    ``searches`` the searches whose queries are the search workload
    (:data:`~axon.sim.bench.recorded.RECORDED_SEARCHES`), and ``crowded_games``
    the crowded boards' games (:mod:`~axon.sim.bench.capacity`);
    ``unit_searches`` the searches the search unit runs
    (:data:`~axon.sim.bench.search_unit.UNIT_SEARCHES`) and ``unit_session``
    the unit's RTL to run them on, by default its CXXRTL model."""
    started = time.monotonic()
    os.makedirs(out_dir, exist_ok=True)
    run = BenchRun(seeds=seeds, games=games, seed=seed, hardware_targets=hardware_targets,
                   skip_hardware=skip_hardware, skip_software=skip_software, log=log, rtl=rtl,
                   searches=searches, crowded_games=crowded_games,
                   unit_searches=unit_searches, unit_session=unit_session)
    bench = run.figures
    try:
        run.measure()
    except KeyboardInterrupt:
        bench.update(partial=True, interrupted_in=run.phase,
                     seconds=round(time.monotonic() - started, 1))
        _write_json(bench, out_dir)
        log(f"interrupted during {run.phase}: wrote what was finished to "
            f"{os.path.join(out_dir, 'bench.json')}, marked partial")
        raise
    bench["seconds"] = round(time.monotonic() - started, 1)
    _write_json(bench, out_dir)
    with open(os.path.join(out_dir, "bench.md"), "w") as file:
        file.write(markdown(bench))
    _pictures(bench, run.cycles, out_dir, log)
    log(f"wrote {os.path.join(out_dir, 'bench.json')} and bench.md in {bench['seconds']} s")
    return bench


def run_hardware(out_dir="bench", *, seeds=5, targets=None, log=print):
    """The place-and-route phase alone, of ``targets`` (default every one):
    writes ``out_dir/hardware.json`` (target -> figures, as in
    ``bench.json``'s ``hardware``) and returns it. ``bench.json`` is left
    alone: its figures come from one whole run."""
    os.makedirs(out_dir, exist_ok=True)
    results = {}
    try:
        hardware(seeds, log, targets, results=results)
    finally:
        # Ctrl-C keeps the targets that finished.
        with open(os.path.join(out_dir, "hardware.json"), "w") as file:
            json.dump(results, file, indent=2)
            file.write("\n")
    return results


def _write_json(bench, out_dir):
    with open(os.path.join(out_dir, "bench.json"), "w") as file:
        json.dump(bench, file, indent=2)
        file.write("\n")


@dataclass
class BenchRun:
    """One run of the benchmark: :meth:`measure` fills :attr:`figures` (what
    ``bench.json`` holds, from :func:`bench_header` on) phase by phase and
    names the one running in :attr:`phase`, so that a run stopped by Ctrl-C
    still has what was finished. :attr:`cycles` are the game workload's
    clocks, for the picture. The parameters are :func:`run_bench`'s."""
    seeds:            int = 5
    games:            int = 300
    seed:             int = 2024
    hardware_targets: Optional[list] = None
    skip_hardware:    bool = False
    skip_software:    bool = False
    log:              Callable = print
    rtl:              Optional[tuple] = None
    searches:         tuple = RECORDED_SEARCHES
    crowded_games:    int = CROWDED_GAMES
    unit_searches:    tuple = UNIT_SEARCHES
    unit_session:     Optional[object] = None
    figures:          dict = field(default_factory=bench_header)
    phase:            str = "simulation"
    cycles:           list = field(default_factory=list)

    def measure(self):
        bench, log = self.figures, self.log
        corpus = build_corpus(self.games, self.seed)
        rtl = self.rtl or _rtl_session(log)
        game = simulate(corpus, log, rtl)
        self.cycles = game["cycles"]
        lines = build_search_lines(corpus, self.games, self.seed)
        walks = simulate_search(lines, *rtl, log=log)
        recording = record_searches(log, self.searches)
        workloads = Workloads(game=game, lines=lines, walks=walks, seed=self.seed,
                              searches=recording.summary,
                              recorded=simulate_recorded(recording.loads, *rtl, log=log))
        bench.update(_game_figures(corpus, game, self.games, self.seed))
        # The clocks of every workload, written already if a later phase is interrupted.
        bench["workloads"] = workloads.figures({})

        bench["capacity"] = capacity_figures(corpus, config=CONFIG, count_limit=COUNT_LIMIT,
                                             crowded_games=self.crowded_games, log=log)
        # The 1K boards' walked list: its clocks per query beside the link's time.
        bench[bench_key(Pools.WALKED)] = walked_figures(corpus, lines, count_limit=COUNT_LIMIT, log=log)

        self.phase = "place and route"
        bench["hardware"] = {}
        if not self.skip_hardware:
            hardware(self.seeds, log, self.hardware_targets, results=bench["hardware"])
        bench["fmax_mhz"] = {target: {key: figures["fmax_mhz"][key]
                                      for key in ("min", "median", "max")}
                             for target, figures in bench["hardware"].items()
                             if "fmax_mhz" in figures}
        bench["utilization"] = {target: {"logic_cells": figures["logic_cells"],
                                         "flip_flops": figures["flip_flops"],
                                         "block_rams": figures["block_rams"]}
                                for target, figures in bench["hardware"].items()
                                if "logic_cells" in figures}

        # The hash-key detector in gateware, measured beside ours on the same
        # queries; the golden model it is checked against has a chain list that
        # never overflows, the 1K boards' walked list.
        self.phase = "the hardware peer"
        peer_hardware = {} if self.skip_hardware else hardware(self.seeds, log,
                                                               list(PEER_TARGETS))
        bench["hardware_peers"] = hardware_peer_figures(corpus, recording.loads, peer_hardware,
                                                        count_limit=COUNT_LIMIT,
                                                        reference=WALKED,
                                                        crowded_games=self.crowded_games,
                                                        log=log)

        # The search unit: its clocks a node on fixed searches, in nodes a
        # second at its targets' median Fmax, and the search layer's area.
        self.phase = "the search unit"
        bench["search_unit"] = search_unit_figures(bench["hardware"],
                                                   searches=self.unit_searches,
                                                   session=self.unit_session,
                                                   python=not self.skip_software, log=log)

        peers = Peers()
        if not self.skip_software:
            self.phase = "the software peers"
            peers = Peers(game=software(corpus, log), walks=search_software(lines, log),
                          recorded=recorded_software(recording.loads, log))
            bench["software"] = _without_answers(peers.game)
            self.phase = "the search rates"
            bench["search_host"] = host_rates(log)
        # The workloads' clocks are the shipped layout's: a target built with
        # another takes other clocks, which `layouts` and `serial` report.
        pair_fmax = {target: fmax for target, fmax in bench["fmax_mhz"].items()
                     if same_layout(config_for(target), CONFIG)}
        bench["workloads"] = workloads.figures(pair_fmax, peers)
        # The search workload on every layout, each at its own targets' Fmax.
        self.phase = "the layouts"
        bench["workloads"]["recorded_search"]["layouts"] = layout_figures(
            recording.loads, bench["fmax_mhz"], (peers.recorded or {}).get("cpw_c"), log=log)
        # The game workload's figures keep their top-level keys.
        bench["ns_per_query"] = bench["workloads"]["game"]["ns_per_query"]
        if bench["workloads"]["game"]["ratio_to_c_chain_list"]:
            bench["ratio_to_c_chain_list"] = bench["workloads"]["game"]["ratio_to_c_chain_list"]


def _game_figures(corpus, game, games, seed):
    """``bench.json``'s top-level figures of the game workload: :func:`simulate`'s
    ``game`` on ``corpus``, made of ``games`` generated games from ``seed``."""
    plies, cycles = game["plies"], game["cycles"]
    return {
        "corpus": {"seed": seed, "games": len(corpus), "generated_games": games,
                   "bundled_files": [os.path.basename(path) for path in bundled_files()],
                   "queries": len(plies), "count_limit": COUNT_LIMIT, "chains": CONFIG.chains,
                   "rules": CONFIG.rules.value, "depth": CONFIG.depth},
        "simulation": {"backend": game["backend"], "mismatches": game["mismatches"],
                       "latency_formula": CONFIG.latency_words,
                       "formula_holds": game["mismatches"] == 0},
        "plies_scanned": _distribution(plies),
        "clocks_per_query": _distribution(cycles),
        "plies_per_clock": sustained_plies_per_clock(plies, cycles),
        "overflows": {"shipped": game["overflows"]["shipped"],
                      "pools_by_kind": game["overflows"]["kind"],
                      "one_pool_a_side": game["overflows"]["side"]},
        "latency_overhead_clocks": max(c - math.ceil(p / 2) for p, c in zip(plies, cycles)),
        # The upcoming repetition: how many queries found one, and the clocks
        # its answer comes after `done` (the repetition's latency is unchanged).
        "upcoming": {"queries": game["upcoming"],
                     "share": round(game["upcoming"] / len(plies), 4) if plies else 0.0,
                     "clocks_after_done": UPCOMING_CLOCKS,
                     "path_check_clocks": PATH_CHECK_LATENCY},
        "memory_per_ply_bits": {"axon_word": WORD_BITS, "zobrist_key": 64, "board_256": 256,
                                "paper_matrix": 512},
    }


def _without_answers(peers):
    return {key: value for key, value in peers.items() if not key.endswith("answers")}


class Peers(NamedTuple):
    """The software peers' timings of each workload (``None``: not timed)."""
    game:     Optional[dict] = None
    walks:    Optional[dict] = None
    recorded: Optional[dict] = None


@dataclass
class Workloads:
    """Each workload's queries answered on the RTL: ``game`` (:func:`simulate`),
    the seeded ``walks`` along ``lines`` (:func:`~axon.sim.bench.search_workload.simulate_search`)
    and the ``recorded`` search queries
    (:func:`~axon.sim.bench.recorded.simulate_recorded`) of ``searches``."""
    game:     dict
    lines:    list
    walks:    dict
    seed:     int
    searches: list
    recorded: dict

    def figures(self, fmax_mhz, peers=Peers()):
        """``bench.json``'s ``workloads``: each workload on its own, the same
        figures from its own queries, at the targets' ``fmax_mhz``."""
        found = {
            "game": {"corpus": "every ply of the corpus's games, each from its newest ply down",
                     "mismatches": self.game["mismatches"],
                     **workload_figures(self.game["plies"], self.game["cycles"], fmax_mhz,
                                        peers.game)},
            "recorded_search": {**recorded_figures(self.searches, self.recorded),
                                **workload_figures(self.recorded["plies"],
                                                   self.recorded["cycles"], fmax_mhz,
                                                   peers.recorded)},
            "search_walks": {**search_corpus_figures(self.lines, self.walks, self.seed),
                             **workload_figures(self.walks["plies"], self.walks["cycles"],
                                                fmax_mhz, peers.walks)},
        }
        for name, timed in (("recorded_search", peers.recorded), ("search_walks", peers.walks)):
            if timed:
                found[name]["software"] = _without_answers(timed)
        return found
