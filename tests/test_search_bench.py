# amaranth: UnusedElaboratable=no
"""The bench's search workload: its lines have a search's shape, the golden
model's draw at the search's root is python-chess's, and ``bench.json``
reports the workload apart from the game workload."""

import json

import chess
import pytest

from axon.hdl.params import SHIPPED, Written
from axon.sim.backends.pysim import split_query


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "benchmark search workload"

latency = SHIPPED.latency
from axon.sim.backends.session import Answer, GoldenSession, HostWrites, Query
from axon.sim.bench.benchmark import markdown, run_bench
from axon.sim.bench.recorded import RecordedSearch, record_searches
from axon.sim.bench.layouts import LAYOUT_CONFIGS, layout_clocks
from axon.sim.bench.readme import SEARCH_LABEL, WALKS_LABEL, readme_tables
from axon.sim.bench.search_workload import simulate_search
from axon.sim.bench.workload import rtl_query, workload_figures
from axon.sim.model.encode import encode_moves
from axon.sim.model.games import bundled_files, load_games
from axon.sim.model.generate import game_corpus
from axon.sim.model.golden import perpetual
from axon.sim.model.oracle import oracle_answers
from axon.sim.model.search_lines import search_lines

from .test_bench_search_unit import WAC_DEPTH_2, CountingUnit


@pytest.fixture(scope="module")
def games():
    bundled = [(record.board, record.moves) for path in bundled_files()
               for record in load_games(path)]
    return bundled + game_corpus(20, seed=31, plies=(20, 160))


@pytest.fixture(scope="module")
def lines(games):
    return search_lines(games, 300, seed=5)


def _undoes(line, index):
    """Does the walk's move ``index`` take the side's own last move back?"""
    at = line.history + index
    move, earlier = line.moves[at], line.moves[at - 2] if at >= 2 else None
    return bool(move) and bool(earlier) and (move.from_square, move.to_square) == \
        (earlier.to_square, earlier.from_square)


@pytest.mark.quick
def test_search_lines_are_seeded(games):
    def plan(lines):
        return [(line.board.fen(), [move.uci() for move in line.moves], line.history,
                 line.tops) for line in lines]
    first = search_lines(games, 40, seed=11)
    assert plan(first) == plan(search_lines(games, 40, seed=11))
    assert plan(first) != plan(search_lines(games, 40, seed=12))


@pytest.mark.quick
def test_search_lines_have_a_search_shape(lines):
    nulls = undos = barriers = walked = 0
    for line in lines:
        assert 4 <= len(line.walk) <= 10
        assert line.tops == list(range(line.history, len(line.moves)))
        assert line.root_address == line.history - 1
        assert len(line.words) <= 256 and line.words == encode_moves(line.board, line.moves)
        board = line.board.copy(stack=False)
        for move in line.moves:
            assert not move or board.is_legal(move)
            board.push(move)
        walked += len(line.walk)
        nulls += sum(not move for move in line.walk)
        undos += sum(_undoes(line, index) for index in range(len(line.walk)))
        barriers += sum(line.words[top] >> 16 for top in line.tops)
    # About 2 % null moves, many moves taken back, some captures and pawn moves.
    assert 0.005 * walked < nulls < 0.05 * walked
    assert undos > 0.25 * walked
    assert barriers > nulls + 0.02 * walked


@pytest.mark.quick
def test_search_lines_keep_the_last_window_that_fits(games):
    long_games = [game for game in games if len(game[1]) > 60]
    for line in search_lines(long_games, 30, seed=3, depth=40):
        assert len(line.moves) <= 40 and 4 <= len(line.walk) <= 10
        assert line.words == encode_moves(line.board, line.moves)


def test_golden_draw_is_python_chess_draw_at_the_root(lines):
    checked = draws = held_back = 0
    for number, line in enumerate(lines):
        answers = oracle_answers(line.board, line.moves, count_limit=1, root=line.history)
        for top in line.tops:
            result = perpetual(line.words, top, root_address=line.root_address, count_limit=1)
            expected = answers[top]
            assert not result.overflow
            assert (result.draw, result.repetition, result.distance) == \
                   (expected.draw, expected.repetition, expected.distance), \
                   f"line {number} top {top}"
            checked += 1
            draws += result.draw
            held_back += result.repetition and not result.draw
    # Draws inside the search, and repetitions of the game history that are not.
    assert checked > 1500 and draws > 50 and held_back > 20


class ClockedGolden(GoldenSession):
    """The golden model with the RTL's clocks: a stand-in for the RTL that
    answers every query right, after each kind of write."""

    def __init__(self):
        super().__init__()
        self.writes = HostWrites()

    def load(self, words):
        super().load(words)
        self.writes.loaded(words)

    def write(self, address, word):
        super().write(address, word)
        self.writes.wrote(address)

    def query(self, top, count_limit, occupancy=None, root_address=-1):
        result = perpetual(self._memory[:top + 1], top, root_address=root_address,
                           config=self.config,
                           count_limit=count_limit, occupancy=occupancy)
        return Answer(result, latency(result.plies_scanned, written=self.writes.starts(top),
                                      stop=result.stop))


class SlowGolden(ClockedGolden):
    """A broken variant: a clock more than the latency formula on scans that
    find a repetition."""

    def query(self, *query):
        answer = super().query(*query)
        return answer._replace(cycles=answer.cycles + answer.result.repetition)


@pytest.mark.quick
def test_simulate_search_counts_what_disagrees(lines):
    some = lines[:60]
    good = simulate_search(some, ClockedGolden(), "golden", log=lambda line: None)
    assert good["mismatches"] == good["oracle_mismatches"] == 0
    assert len(good["plies"]) == sum(len(line.tops) for line in some)
    # A line is loaded whole, then asked from its history's end up: its first
    # query follows a write of another word.
    written = [Written.ELSEWHERE if index == 0 else Written.NOTHING
               for line in some for index, _ in enumerate(line.tops)]
    assert good["cycles"] == [latency(plies, written=after)
                              for plies, after in zip(good["plies"], written)]
    bad = simulate_search(some, SlowGolden(), "golden", log=lambda line: None)
    slow = sum(perpetual(line.words, top, root_address=line.root_address, count_limit=1).repetition
               for line in some for top in line.tops)
    assert bad["mismatches"] == slow > 0 and bad["oracle_mismatches"] == 0


@pytest.mark.quick
def test_rtl_query_is_a_session_query():
    # The query every session's run_batch takes, root last.
    assert rtl_query(5, 1, 0xFFFF, root_address=3) == Query(top=5, count_limit=1,
                                                            occupancy=0xFFFF, root_address=3)
    assert split_query(rtl_query(5, 1, 0xFFFF, root_address=3)) == (5, 1, 0xFFFF, 3)
    assert split_query(rtl_query(5, 1, None)) == (5, 1, None, -1)
    assert split_query(Query(top=5, count_limit=1)) == (5, 1, None, -1)


@pytest.mark.quick
def test_workload_figures_per_device_and_peer():
    peers = {name: {"mean": mean, "median": mean, "p99": 2 * mean}
             for name, mean in (("cpw_c", 50.0), ("zobrist_c", 5.0), ("golden_python", 5e4))}
    figures = workload_figures([2, 3, 9, 30], [5, 5, 8, 19], {"core-hx8k": {"median": 100.0}},
                               peers)
    assert figures["queries"] == 4 and figures["share_below_4_plies"] == 0.5
    assert figures["clocks_per_query"] == {"mean": 9.25, "median": 6.5, "p99": 19, "max": 19}
    assert figures["ns_per_query"]["fpga:core-hx8k"]["mean"] == 92.5
    assert figures["ns_per_query"]["fpga:core-hx8k"]["median"] == 65.0
    assert figures["ratio_to_c_chain_list"] == {"core-hx8k": 1.85}
    assert figures["ns_per_query"]["cpw_c"]["ratio_to_fpga"] == {"fpga:core-hx8k": 0.54}
    assert workload_figures([1], [4], {}, None)["ratio_to_c_chain_list"] == {}


@pytest.mark.quick
def test_layout_clocks_follow_each_scan():
    # Two knights out and back twice: the query at the top finds the
    # repetition 4 plies back, the one at the bottom scans its single word.
    board = chess.Board()
    moves = [chess.Move.from_uci(uci) for uci in "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8".split()]
    words = encode_moves(board, moves)
    clocks = {name: layout_clocks([(words, (7, 1, None, -1)), (words[:1], (0, 1, None, -1))],
                                  config)
              for name, config in LAYOUT_CONFIGS.items()}
    # The pair scan right after the top's word: floor(4/2) + 2, then a
    # short answer. The lean scan: P + 2. The walked list: 2 + W a word,
    # and 1 more for a walk (W = 0, 0, 1, 1 open chains of the mover), one
    # to judge the fifth,
    # then 2 for the bottom word and one to end.
    assert clocks["kind"] == clocks["spill"] == ([4, 1], [4, 1], 0)
    assert clocks["side"] == ([6, 3], [4, 1], 0)
    assert clocks["serial"] == ([13, 3], [4, 1], 0)
    # Asked with nothing written, the pair scan takes its full overhead.
    nothing = [SHIPPED.latency(plies) for plies in clocks["kind"][1]]
    assert nothing != clocks["kind"][0]


# A small recorded search workload: WAC.018 to three plies.
SMALL_SEARCHES = (RecordedSearch(label="WAC.018", fen="R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1",
                                 pgn=None, plies=0, depth=3),)


def test_a_recorded_search_as_a_tuple_is_deprecated():
    # The older form, (label, fen, pgn, plies, depth), records the same
    # search, with a warning that names its successor.
    search = RecordedSearch(label="WAC.018", fen="R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", pgn=None,
                            plies=0, depth=1)
    with pytest.warns(DeprecationWarning, match="give a RecordedSearch"):
        old = record_searches(log=lambda line: None, searches=[
            (search.label, search.fen, search.pgn, search.plies, search.depth)])
    new = record_searches(log=lambda line: None, searches=[search])
    assert old.summary == new.summary
    assert [[query.query for query in load.queries] for load in old.loads] == \
        [[query.query for query in load.queries] for load in new.loads]


def test_bench_reports_the_search_workload_apart(tmp_path):
    # The search unit's RTL a stand-in (tests/test_bench_search_unit.py).
    bench = run_bench(str(tmp_path), games=2, skip_hardware=True, skip_software=True,
                      log=lambda line: None, rtl=(ClockedGolden(), "golden"),
                      searches=SMALL_SEARCHES, crowded_games=2,
                      unit_searches=WAC_DEPTH_2, unit_session=CountingUnit())
    with open(tmp_path / "bench.json") as file:
        written = json.load(file)
    workloads = written["workloads"]
    assert set(workloads) == {"game", "recorded_search", "search_walks"}
    for figures in workloads.values():
        for key in ("plies_scanned", "clocks_per_query"):
            assert set(figures[key]) >= {"mean", "median", "p99"}
        assert figures["queries"] > 0 and figures["mismatches"] == 0
        assert figures["ns_per_query"] == {} and figures["ratio_to_c_chain_list"] == {}
    # The search workload: every query of the recorded search.
    search = workloads["recorded_search"]
    assert [found["position"] for found in search["searches"]] == ["WAC.018"]
    assert search["queries"] == search["searches"][0]["queries"] == 469
    walks = workloads["search_walks"]
    assert walks["lines"] == 16 and walks["oracle_mismatches"] == 0
    assert 4 * walks["lines"] <= walks["queries"] <= 10 * walks["lines"]
    assert 4 <= walks["walk_plies"]["min"] <= walks["walk_plies"]["max"] <= 10
    # The game workload keeps its top-level keys.
    assert written["corpus"]["queries"] == workloads["game"]["queries"]
    assert written["clocks_per_query"] == workloads["game"]["clocks_per_query"]
    assert written["simulation"]["mismatches"] == 0 and "ns_per_query" in written
    text = markdown(bench)
    assert "| recorded_search | " in text and "Search walks: 16 lines" in text
    assert "Search workload: the queries of axon search, recorded: WAC.018 to depth 3" in text
    tables = readme_tables(written)
    assert f"| clocks per query{SEARCH_LABEL} |" in tables
    assert f"| clocks per query{WALKS_LABEL} |" in tables
    assert "Search workload: the 469 queries of `axon search` (WAC.018 to depth 3)" in tables
    # The same queries on every layout: the shipped one takes the RTL's clocks.
    layouts = search["layouts"]
    assert list(layouts) == ["kind", "spill", "side", "serial", "backstop"]
    assert layouts["kind"]["clocks_per_query"] == search["clocks_per_query"]
    # A search overflows no pool: the backstop changes no clock of it.
    assert layouts["backstop"]["clocks_per_query"] == search["clocks_per_query"]
    assert all(figures["queries"] == 469 for figures in layouts.values())
    assert layouts["serial"]["overflows"] == 0
    assert layouts["serial"]["clocks_per_query"]["mean"] > search["clocks_per_query"]["mean"]
    assert "<!-- docs/performance.md: the search workload on every layout -->" in tables
    assert "| `walked` (a walked list a side in block RAM) | 32 | 0 | " in tables


def test_readme_shows_the_search_workload_beside_the_game():
    bench = {"ns_per_query": {"cpw_c": {"mean": 60.0, "p99": 200.0,
                                        "ratio_to_fpga": {"fpga:core-hx8k": 0.4}}},
             "clocks_per_query": {"mean": 14.6, "median": 8, "p99": 66, "max": 82},
             "workloads": {"recorded_search": {
                 "queries": 17000, "mismatches": 0, "share_below_4_plies": 0.31,
                 "searches": [{"position": "WAC.018", "depth": 6}],
                 "plies_scanned": {"mean": 9.5, "median": 6, "p99": 60, "max": 90},
                 "clocks_per_query": {"mean": 8.7, "median": 7, "p99": 34, "max": 49},
                 "ratio_to_c_chain_list": {"core-hx8k": 2.5},
                 "ns_per_query": {"fpga:core-hx8k": {"mean": 96.7, "p99": 377.8},
                                  "cpw_c": {"mean": 38.7, "p99": 120.0,
                                            "ratio_to_fpga": {"fpga:core-hx8k": 0.4}}}}}}
    text = readme_tables(bench)
    assert "| clocks per query | 14.60 | 8 | 66 | 82 |" in text
    assert f"| clocks per query{SEARCH_LABEL} | 8.70 | 7 | 34 | 49 |" in text
    assert "Search workload: the 17,000 queries of `axon search` (WAC.018 to depth 6), " \
        "replayed with 0 mismatches" in text
    assert "31.0 % of its queries apply fewer than 4 words" in text
    assert "the HX8K core 2.50" in text
    assert f"| bare core, HX8K{SEARCH_LABEL} | 96.7 | 377.8 |  |" in text
    assert f"| wiki chain list in C (`-O2`){SEARCH_LABEL} | 38.7 | 120.0 | ×0.40 |" in text
    # Without a search workload, the tables are the game workload's alone.
    assert SEARCH_LABEL not in readme_tables({key: value for key, value in bench.items()
                                              if key != "workloads"})


@pytest.mark.quick
def test_design_space_starts_from_the_scans_own_latency():
    from axon.sim.bench.design_space import TIMINGS, design_space
    plies = [0, 1, 2, 3, 4, 9, 30, 120]
    table = design_space(plies)
    today = table["this scan, floor(P/2) + 4"]
    assert today["mean"] == round(sum(latency(p) for p in plies) / len(plies), 2)
    # Every other timing is at most today's on every query, the bounds below all.
    for name, clocks in TIMINGS.items():
        assert all(clocks(p) <= latency(p) for p in plies), name
