"""The bench's search workload: the queries a chess search asks.

The game workload asks after every ply of whole games. A search asks at every
node of its lines, which start from a position of a game (the root) and are
mostly quiet moves taken back and forth, cut by captures, pawn moves and
null moves: :func:`axon.sim.model.search_lines.search_lines` makes them from
the game workload's own games. Every query is checked three ways:

* the RTL's whole answer (``draw`` included) against the golden model's at
  the line's root, and its clocks against the latency formula
  (:func:`~axon.sim.bench.workload.rtl_clocks`: a line is loaded whole and
  then asked ply by ply, so its first query follows the load);
* the golden model's ``draw``, ``repetition`` and ``distance`` at the
  search's root against python-chess (:func:`axon.sim.model.oracle.oracle_answers`).
"""

import time

from ..backends.session import written_before
from ..model.golden import Stop, perpetual
from ..model.oracle import oracle_answers
from ..model.search_lines import WALK_PLIES, search_lines
from .peers import make_peer_games, run_peers
from .workload import CONFIG, COUNT_LIMIT, rtl_clocks, rtl_query


__all__ = ["LINES_PER_GAME", "SEARCH_SEED_OFFSET", "build_search_lines", "simulate_search",
           "search_software", "search_corpus_figures"]

# Search lines per generated game of the game workload (``--games``), so
# that a small bench stays small.
LINES_PER_GAME = 8
# The lines' seed is the bench's plus this, apart from the games' own draws.
SEARCH_SEED_OFFSET = 1


def build_search_lines(corpus, games, seed):
    """The search lines from the game workload's ``[(board, moves, words)]``."""
    return search_lines([(board, moves) for board, moves, _ in corpus],
                        LINES_PER_GAME * games, seed + SEARCH_SEED_OFFSET, depth=CONFIG.depth)


def _occupancies(line):
    board, occupancies = line.board.copy(stack=False), []
    for move in line.moves:
        board.push(move)
        occupancies.append(int(board.occupied))
    return occupancies


def simulate_search(lines, session, backend, log=print):
    """Answer every query of ``lines`` on the RTL ``session``; check them."""
    jobs, occupancies = [], []
    for line in lines:
        occupancy = _occupancies(line)
        occupancies.append(occupancy)
        jobs.append((line.words, [rtl_query(top, COUNT_LIMIT, occupancy[top], line.root_address)
                                  for top in line.tops]))
    started = time.monotonic()
    answers = session.run_batch(jobs)
    seconds = time.monotonic() - started
    plies, cycles = [], []
    counts = dict(mismatches=0, oracle_mismatches=0, draws=0, repetitions=0, overflows=0,
                  barrier_stops=0)
    for line, occupancy, timed, line_written in zip(lines, occupancies, answers,
                                                    written_before(jobs)):
        oracle = oracle_answers(line.board, line.moves, count_limit=COUNT_LIMIT,
                                root=line.history)
        for top, rtl, written in zip(line.tops, timed, line_written):
            golden = perpetual(line.words, top, root_address=line.root_address, config=CONFIG,
                               count_limit=COUNT_LIMIT, occupancy=occupancy[top])
            counts["mismatches"] += (rtl.result != golden or
                                     rtl.cycles != rtl_clocks(line.words, top, golden, written))
            expected = oracle[top]
            # An overflow may leave a repetition unfound (python-chess knows
            # no chain list): it counts as a mismatch, and overflows are reported.
            counts["oracle_mismatches"] += (golden.draw, golden.repetition, golden.distance) != \
                (expected.draw, expected.repetition, expected.distance)
            counts["draws"] += golden.draw
            counts["repetitions"] += golden.repetition
            counts["overflows"] += golden.overflow
            counts["barrier_stops"] += golden.stop is Stop.BARRIER
            plies.append(golden.plies_scanned)
            cycles.append(rtl.cycles)
    log(f"search workload: {len(plies)} queries from {len(lines)} lines on {backend} in "
        f"{seconds:.1f} s, {counts['mismatches']} RTL mismatches, "
        f"{counts['oracle_mismatches']} against python-chess, {counts['draws']} draws")
    return {"plies": plies, "cycles": cycles, **counts}


def search_software(lines, log=print):
    """The software peers on the search lines' queries. The peers answer
    ``repetition`` at count limit 1 without a root, as they do for the
    game workload: the timing is of the same kind of scan."""
    games = make_peer_games([(line.board, line.moves) for line in lines])
    queries = [(index, top) for index, line in enumerate(lines) for top in line.tops]
    started = time.monotonic()
    peers = run_peers(games, queries, count_limit=COUNT_LIMIT)
    log(f"software peers on the search workload timed in {time.monotonic() - started:.1f} s")
    return peers


def search_corpus_figures(lines, sim, seed):
    """What ``workloads.search_walks`` says of its lines and checks, besides the
    figures every workload has."""
    walks = [len(line.walk) for line in lines]
    walk_moves = [move for line in lines for move in line.walk]
    return {"lines": len(lines), "seed": seed + SEARCH_SEED_OFFSET,
            "walk_plies": {"min": min(walks), "max": max(walks), "bounds": list(WALK_PLIES)},
            "null_moves": sum(not move for move in walk_moves),
            "root": "the last word of the game history",
            "mismatches": sim["mismatches"], "oracle_mismatches": sim["oracle_mismatches"],
            "draws": sim["draws"], "repetitions": sim["repetitions"],
            "overflows": sim["overflows"], "barrier_stops": sim["barrier_stops"]}
