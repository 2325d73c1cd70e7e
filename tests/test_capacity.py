# amaranth: UnusedElaboratable=no
"""The spill pool layout's capacity: crowded boards, the guarantee, and the
gateware against the golden model where the pools fill up.

A crowded board (pawnless, promoted pieces, reversible moves) is where pools
by kind overflow: a side with four queens needs four queen slots. The spill
layout must overflow on no more plies there than one pool a side of the
same size, the layout with the most capacity.
"""

from dataclasses import replace

import chess
import pytest

from axon.hdl.chainlist import ChainList
from axon.hdl.pools import POOL_KINDS
from axon.sim.model.encode import encode_moves
from axon.sim.model.generate import crowded_corpus, game_corpus
from axon.sim.model.golden import perpetual
from axon.hdl.params import SHIPPED, DetectorConfig, Pools

from hypothesis import given, settings, strategies as st

from .test_rtl import check_jobs, game_jobs, memory_images, queries


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "pool layouts and capacity"


CHAINS = SHIPPED.chains
# The bench's crowded workload is another seed of the same generator.
CROWDED_GAMES, CROWDED_SEED = 24, 2211


def overflowing_plies(games, pools, chains=CHAINS, count_limit=4):
    """How many queries (one after every ply) end in an overflow (answers
    do not depend on the scan, so the walked list's is left as it is)."""
    return sum(perpetual(words, top, config=DetectorConfig(chains=chains, pools=pools),
                         count_limit=count_limit).overflow
               for _, _, words in games for top in range(len(words)))


@pytest.fixture(scope="module")
def crowded():
    return [(board, moves, encode_moves(board, moves))
            for board, moves in crowded_corpus(CROWDED_GAMES, CROWDED_SEED)]


@pytest.mark.quick
def test_crowded_boards_are_crowded(crowded):
    # Pawnless, and every game has a side with more pieces of a kind than
    # its starting material: promoted pieces.
    assert len(crowded) >= 20
    for board, _, _ in crowded:
        assert not board.pieces(chess.PAWN, chess.WHITE) | board.pieces(chess.PAWN, chess.BLACK)
        assert any(len(board.pieces(chess.QUEEN, color)) > 1 or
                   any(len(board.pieces(kind, color)) > 2
                       for kind in (chess.ROOK, chess.BISHOP, chess.KNIGHT))
                   for color in chess.COLORS)


def test_crowded_board_overflows_by_layout(crowded):
    # The crowded boards tell the layouts apart: pools by kind overflow
    # often, the spill layout an order of magnitude less, one pool a side
    # (the most capacity for the slots) least. The shipped layout is the
    # pools by kind: the spill pool costs clock (docs/capacity.md).
    overflows = {pools: overflowing_plies(crowded, pools) for pools in Pools}
    assert SHIPPED.pools is Pools.KIND
    # The walked list at the same 24 chains answers as one pool a side.
    assert overflows[Pools.WALKED] == overflows[Pools.SIDE]
    assert overflows[Pools.SIDE] <= overflows[Pools.SPILL] <= overflows[Pools.KIND] // 10, \
        overflows
    assert overflows[Pools.KIND] > 100, overflows


@pytest.mark.quick
def test_spill_layout_needs_the_exact_rules():
    with pytest.raises(ValueError, match="spill pool layout needs the exact rules, not 'paper'"):
        ChainList(DetectorConfig(rules="paper", pools="spill"))
    with pytest.raises(ValueError, match="spill pool layout needs the exact rules"):
        perpetual([0, 0], 1, config=DetectorConfig(rules="paper", pools="spill"))


@pytest.mark.quick
def test_spill_layout_sizes():
    # Every slot of a side is in a kind's pool or the spill pool.
    for chains in range(2, 40, 2):
        total = sum(slots for _, slots in DetectorConfig(chains=chains, pools="spill").side_pools)
        assert total + DetectorConfig(chains=chains, pools="spill").spill_slots == chains // 2
        assert DetectorConfig(chains=chains, pools="spill").spill_slots >= 1
        assert {kind for kind, _ in DetectorConfig(chains=chains, pools="spill").side_pools} <= set(POOL_KINDS)


@pytest.mark.parametrize("chains", [CHAINS, 16])
def test_spill_gateware_follows_the_golden_model_on_crowded_boards(chains):
    # Where the pools fill: starts and ends of one kind in both pools,
    # overflow at 16 chains. Every answer and its clock count must agree.
    from axon.sim.model.golden import Stop
    games = crowded_corpus(3, 7 + chains) + game_corpus(1, chains)
    stops = check_jobs("exact", chains, game_jobs(games), legal=True, pools="spill")
    if chains == 16:
        assert Stop.OVERFLOW in stops


@pytest.mark.quick
@pytest.mark.parametrize("chains", [CHAINS, 16, 4])
@settings(max_examples=6)
@given(jobs=st.lists(st.tuples(memory_images, queries), min_size=1, max_size=3))
def test_spill_gateware_follows_the_golden_model_on_arbitrary_words(chains, jobs):
    # Nonsense included: impossible lists, kinds without a pool, a kind
    # with no pool of its own but the spill pool (4 chains).
    check_jobs("exact", chains, jobs, pools="spill", every_start=False)


def test_guarantee_is_tight_for_the_spill_layout():
    # One piece more than the guarantee allows does not fit it.
    layout = dict(DetectorConfig(chains=CHAINS, pools="spill").side_pools)
    spill = DetectorConfig(chains=CHAINS, pools="spill").spill_slots
    material = dict(layout)
    material[5] += spill
    assert DetectorConfig(chains=CHAINS, pools="spill").never_overflows(material)
    material[2] += 1
    assert not DetectorConfig(chains=CHAINS, pools="spill").never_overflows(material)


def test_walked_list_never_overflows_on_crowded_boards(crowded):
    # 16 entries a side hold every piece a side can have: no crowded board
    # overflows it, in the golden model or in the gateware (a few games in
    # Amaranth's simulator, answer and clock count; CXXRTL runs more).
    walked = DetectorConfig(chains=32, pools="walked", scan="single")
    assert overflowing_plies(crowded, "walked", chains=32) == 0
    assert walked.never_overflows({kind: 16 // len(POOL_KINDS) for kind in POOL_KINDS})
    jobs = [(words, [(top, 15) for top in range(len(words))]) for _, _, words in crowded[:3]]
    check_jobs("exact", 32, jobs, pools="walked", scan="single", every_start=False)


def test_bench_reports_overflows_per_layout_and_workload():
    # What `axon bench` writes under `capacity` in bench.json: each layout's
    # overflowing queries on its corpus and on crowded boards.
    from axon.sim.bench.capacity import LAYOUTS, bench_key, capacity_figures
    corpus = [(board, moves, encode_moves(board, moves)) for board, moves in game_corpus(4, 5)]
    lines = []
    figures = capacity_figures(corpus, config=SHIPPED, count_limit=1,
                               crowded_games=20, log=lines.append)
    assert figures["crowded"]["games"] == 20 and len(lines) == 2
    # The 1K boards' walked list at its own 32 chains: no overflow.
    assert figures["serial"]["chains"] == 32
    assert figures["serial"]["crowded"]["overflows"] == {"serial": 0}
    assert figures["bench_corpus"]["queries"] == sum(len(words) for _, _, words in corpus)
    for workload in ("bench_corpus", "crowded"):
        assert set(figures[workload]["overflows"]) == \
            {bench_key(layout) for layout in LAYOUTS} | {"shipped"}
    crowded = figures["crowded"]["overflows"]
    assert crowded["side"] <= crowded["spill"] < crowded["kind"], crowded
    # The shipped configuration, the pools by kind with the backstop: no
    # overflow; the backstop answered what they overflowed, each in the
    # pools' clocks and then the list's.
    backstop = figures["crowded"]["backstop"]
    assert crowded["shipped"] == backstop["overflows"] == 0
    assert backstop["answered"] == crowded["kind"]
    assert backstop["queries"] == figures["crowded"]["queries"]
    assert backstop["clocks_answered"]["mean"] > backstop["clocks_per_query"]["mean"]
    assert figures["bench_corpus"]["backstop"]["answered"] == \
        figures["bench_corpus"]["overflows"]["kind"]


def test_backstop_answers_what_the_pools_overflow(crowded):
    # Behind the pools by kind, the backstop's walked list answers every
    # query they overflow, as the walked list alone answers it, marked; the
    # others are the pools' own answers.
    config = SHIPPED.replace(upcoming=False)
    pools, walked = config.replace(backstop=False), config.backstop_config
    answered = 0
    for _, _, words in crowded:
        for top in range(len(words)):
            found = perpetual(words, top, config=config, count_limit=1)
            alone = perpetual(words, top, config=pools, count_limit=1)
            assert not found.overflow
            if alone.overflow:
                answered += 1
                assert found == replace(perpetual(words, top, config=walked, count_limit=1),
                                        backstop=True)
            else:
                assert found == alone
    assert answered > len(crowded)
    # The guarantee is the walked list's: a side's 16 pieces, of any kinds.
    many_queens = {6: 1, 5: 9, 4: 2, 3: 2, 2: 2}
    assert config.never_overflows(many_queens) and not pools.never_overflows(many_queens)
    assert not config.never_overflows({6: 1, 5: 10, 4: 2, 3: 2, 2: 2})


@pytest.mark.quick
def test_bench_gives_the_walked_lists_clocks_beside_the_link():
    # What `axon bench` writes under `serial`: overflows and clocks per query
    # of the game and search workloads on the 1K boards' walked list (the
    # golden model's clocks, which the RTL tests hold the gateware to), and
    # each 1K board's time for them beside its link's time for a query.
    from axon.sim.bench.walked import query_link_bytes, walked_figures
    from axon.sim.model.search_lines import search_lines
    from axon.sim.model.walked import walked_clocks
    from axon.hdl.params import WALKED
    games = game_corpus(3, 5)
    corpus = [(board, moves, encode_moves(board, moves)) for board, moves in games]
    lines = search_lines(games, 4, 7, depth=WALKED.depth)
    said = []
    figures = walked_figures(corpus, lines, count_limit=1, log=said.append)
    game = figures["workloads"]["game"]
    assert game["queries"] == sum(len(words) for _, _, words in corpus) and len(said) == 2
    clocks = [walked_clocks(words, top, perpetual(words, top, config=WALKED, count_limit=1),
                            WALKED) for _, _, words in corpus for top in range(len(words))]
    assert game["clocks_max"] == max(clocks) and game["overflows"] == 0
    assert figures["workloads"]["search_walks"]["queries"] == sum(len(line.tops) for line in lines)
    assert set(figures["boards"]) == {"icestick", "icesugar-nano", "nandland-go"}
    # 36 bytes of 10 bits at 1 Mbaud (each frame names its detector).
    assert query_link_bytes() == 36 and figures["boards"]["icestick"]["link_us"] == 360.0
    assert figures["boards"]["icestick"]["game_max_us"] == round(max(clocks) / 12, 1)
