# amaranth: UnusedElaboratable=no
"""The gateware against the golden model, cycle by cycle.

Every field of every answer must match, and ``done`` must rise exactly
``expected_cycles`` clocks after ``start``: ``floor(plies_scanned / 2) +
LATENCY_OVERHEAD`` for every legal game with the default scan, and
``plies_scanned + LEAN_LATENCY_OVERHEAD`` for every query with the lean one.
"""

import pytest
from hypothesis import given, settings, strategies as st

from axon.hdl.word import pack_word
from axon.sim.model.encode import encode_moves
from axon.sim.model.generate import game_corpus
from axon.sim.model.golden import Stop, perpetual
from axon.sim.backends.pysim import PysimSession, expected_cycles, split_query
from axon.hdl.params import DetectorConfig

from .lines import two_chains_meet_one_move
from .lines import FIGURE1, KING_TRIANGLE, KNIGHT_SWAP, ROOK_SWAP, THREE_KNIGHTS, play


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "RTL against the golden model"


DEPTH = 256
# 24 chains in pools by kind is the default; 10 (one slot a kind) and the
# lean one-pool-a-side layout with 4 (two a side) overflow often in
# generated games. The 1K boards' configuration is the lean layout with the
# one-word-a-clock scan.
CONFIGS = [(rules, chains, pools, scan) for rules in ("exact", "paper")
           for chains, pools, scan in ((24, "kind", "pair"), (10, "kind", "pair"),
                                       (4, "side", "pair"), (4, "side", "single"))]
# The serial list in block RAM (exact rules only): the 1K boards' 16 entries
# a side; and 2 a side, whose list fills up, on arbitrary words.
CONFIGS += [("exact", 32, "serial", "single")]
ARBITRARY_CONFIGS = CONFIGS + [("exact", 4, "serial", "single")]


def check_jobs(rules, chains, jobs, legal=False, pools="kind", scan="pair"):
    """Run ``(words, queries)`` jobs on the RTL and compare with the golden model.

    Every query must take exactly ``expected_cycles`` clocks; for ``legal``
    games the words alternate sides and that is ``latency(plies_scanned)``:
    two plies a clock (one with the lean scan).
    """
    config = DetectorConfig(depth=DEPTH, chains=chains, rules=rules, pools=pools, scan=scan)
    session = PysimSession(config)
    stops = set()
    memory = [0] * DEPTH
    for (words, queries), answers in zip(jobs, session.run_batch(jobs)):
        memory[:len(words)] = words
        for query, rtl in zip(queries, answers):
            top, count_limit, _, root = split_query(query)
            golden = perpetual(memory, top, root=root, config=config, count_limit=count_limit)
            assert rtl.result == golden, \
                f"top={top} root={root} limit={count_limit} words={words[:top + 1]}"
            assert rtl.cycles == expected_cycles(memory, top, golden, config)
            if legal and config.latency_fixed:
                assert rtl.cycles == config.latency(golden.plies_scanned)
            stops.add(golden.stop)
    return stops


def game_jobs(games, count_limits=(4, 1, 2, 15, 1)):
    """One job per game, querying after every ply with the limits in turn,
    and the search's root in turn: none, four and ten plies below the
    query, at it, and the end of the game (every ply game history)."""
    jobs = []
    for board, moves in games:
        words = encode_moves(board, moves)
        roots = lambda top: (-1, max(-1, top - 4), max(-1, top - 10), top, len(words) - 1)
        jobs.append((words, [(top, count_limits[top % len(count_limits)], None,
                              roots(top)[top // len(count_limits) % 5])
                             for top in range(len(words))]))
    return jobs


@pytest.mark.parametrize("rules, chains, pools, scan", CONFIGS)
def test_paper_examples(rules, chains, pools, scan):
    lines = [KNIGHT_SWAP, THREE_KNIGHTS, KING_TRIANGLE, ROOK_SWAP, FIGURE1]
    jobs = game_jobs([play(line)[:2] for line in lines])
    # The same lines at the paper's stop-at-first setting, and with no limit.
    jobs += [(words, [(top, limit, None, root) for top, _, _, root in queries
                      for limit in (1, 15)])
             for words, queries in jobs]
    check_jobs(rules, chains, jobs, legal=True, pools=pools, scan=scan)


@pytest.mark.parametrize("rules, chains, pools, scan", CONFIGS)
def test_generated_games(rules, chains, pools, scan):
    # 80 games biased toward reversible moves, half of them pawnless endgames
    # (the CXXRTL tests and the soak run thousands more; 1,000 longer ones
    # here with --runslow).
    games = game_corpus(30, seed=5, plies=(16, 72))   # 1,000 longer ones: --runslow
    stops = check_jobs(rules, chains, game_jobs(games), legal=True, pools=pools, scan=scan)
    expected = {Stop.BARRIER, Stop.BOTTOM, Stop.LIMIT}
    if chains < 24:
        expected.add(Stop.OVERFLOW)
    assert expected <= stops


@pytest.mark.slow
@pytest.mark.parametrize("rules, chains, pools, scan", CONFIGS)
def test_generated_games_long(rules, chains, pools, scan):
    check_jobs(rules, chains, game_jobs(game_corpus(1000, seed=6, plies=(20, 250))), legal=True,
               pools=pools, scan=scan)


# -- arbitrary words, nonsense included ------------------------------------------

squares = st.sampled_from([0, 1, 9, 10, 18, 63])     # few squares: chains collide
pieces = st.sampled_from([2, 2, 10, 4, 0, 15])
# Reversible words over few squares and pieces, so that chains collide.
near_words = st.builds(pack_word, squares, squares, pieces)
wild_words = st.integers(0, (1 << 17) - 1)
words_strategy = st.one_of(near_words, wild_words, st.builds(pack_word, squares, squares, pieces,
                                                             st.just(True)))

memory_images = st.one_of(
    st.lists(near_words, min_size=DEPTH, max_size=DEPTH),
    st.lists(words_strategy, min_size=DEPTH, max_size=DEPTH),
    # Every word a barrier.
    st.lists(st.integers(0, (1 << 16) - 1).map(lambda w: w | 1 << 16),
             min_size=DEPTH, max_size=DEPTH),
    # Every word moves nothing (from == to).
    st.lists(st.builds(lambda sq, piece: pack_word(sq, sq, piece), squares, pieces),
             min_size=DEPTH, max_size=DEPTH),
)
tops = st.one_of(st.sampled_from([0, DEPTH - 1]), st.integers(0, DEPTH - 1))
queries = st.lists(st.tuples(tops, st.integers(0, 15)), min_size=1, max_size=6)


@pytest.mark.parametrize("rules, chains, pools, scan", ARBITRARY_CONFIGS)
@settings(max_examples=6)
@given(jobs=st.lists(st.tuples(memory_images, queries), min_size=1, max_size=3))
def test_arbitrary_words(rules, chains, pools, scan, jobs):
    check_jobs(rules, chains, jobs, pools=pools, scan=scan)


@pytest.mark.quick
def test_lean_scan_takes_one_word_a_clock():
    # Pinned by hand, not by expected_cycles: a knight shuffle read to the
    # bottom applies 8 words, one a clock, plus the read and hand stages of
    # the absent word below address 0; the pair scan takes 8 / 2 + 4. Two
    # words of one side in a row cost the lean scan nothing extra.
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)] * 2
    same_side = [pack_word(1, 18, 2), pack_word(18, 1, 2)]
    lean = PysimSession(config=DetectorConfig(depth=16, chains=4, pools="side", scan="single"))
    pair = PysimSession(config=DetectorConfig(depth=16, chains=4, pools="side"))
    assert [answer.cycles for answer in lean.run(shuffle, [(7, 15)])] == [8 + 2]
    assert [answer.cycles for answer in pair.run(shuffle, [(7, 15)])] == [8 // 2 + 4]
    (answer,) = lean.run(same_side, [(1, 15)])
    assert answer.result.plies_scanned == 2 and answer.cycles == 2 + 2
    # ... which the pair scan's model would not give: the clock check can fail.
    golden = perpetual(same_side, 1, config=DetectorConfig(chains=4, pools="side"), count_limit=15)
    assert expected_cycles(same_side, 1, golden, pair.config) != answer.cycles


@pytest.mark.parametrize("rules", ["exact", "paper"])
def test_a_move_meeting_two_chains_stops_as_overflow(rules):
    # The pool takes each hit vector as its slot; a vector with two bits set
    # must end the scan, never pick a slot.
    words = two_chains_meet_one_move()
    stops = check_jobs(rules, 24, [(words, [(len(words) - 1, 4), (len(words) - 2, 4)])])
    assert Stop.OVERFLOW in stops


@pytest.mark.quick
def test_writes_during_a_query_are_refused():
    from axon.sim.backends.pysim import run_query, write_words
    session = PysimSession(config=DetectorConfig(depth=DEPTH, chains=24))
    dut = session.make_dut()
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)]
    seen = {}

    async def testbench(ctx):
        await write_words(ctx, dut, shuffle * 8)
        ctx.set(dut.query.top, 31)
        ctx.set(dut.query.count_limit, 15)
        ctx.set(dut.query.start, 1)
        await ctx.tick()
        ctx.set(dut.query.start, 0)
        # Try to overwrite the word the scan will read last.
        ctx.set(dut.memory.write_addr, 0)
        ctx.set(dut.memory.write_word.as_value(), pack_word(12, 28, 1, barrier=True))
        ctx.set(dut.memory.write_en, 1)
        await ctx.tick()
        seen["refused"] = ctx.get(dut.memory.write_refused)
        ctx.set(dut.memory.write_en, 0)
        while not ctx.get(dut.query.done):
            await ctx.tick()
        seen["result"] = (await run_query(ctx, dut, 31, 15)).result
        ctx.set(dut.memory.read_addr, 0)
        await ctx.tick()
        seen["word0"] = ctx.get(dut.memory.read_word.as_value())

    session.simulate(dut, testbench)
    assert seen["refused"] == 1
    assert seen["word0"] == shuffle[0]
    assert seen["result"] == perpetual(shuffle * 8, 31, count_limit=15)


def test_reset_in_the_middle_of_a_scan_keeps_the_move_list():
    # A reset (the board's RESET command drives the same domain reset) stops
    # the scan at once; the block RAM has no reset, so the stored moves stay
    # and the next query is answered as if nothing had happened.
    from amaranth.hdl import Elaboratable, Module, ResetInserter, Signal
    from axon.sim.backends.pysim import run_query, write_words
    session = PysimSession(config=DetectorConfig(depth=DEPTH, chains=24))
    dut = session.make_dut()
    soft_reset = Signal()

    class WithReset(Elaboratable):
        def elaborate(self, platform):
            m = Module()
            m.submodules.detector = ResetInserter(soft_reset)(dut)
            return m
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)] * 20
    seen = {}

    async def testbench(ctx):
        await write_words(ctx, dut, shuffle)
        for cut in (1, 2, 5, 17):
            ctx.set(dut.query.top, len(shuffle) - 1)
            ctx.set(dut.query.count_limit, 15)
            ctx.set(dut.query.start, 1)
            await ctx.tick()
            ctx.set(dut.query.start, 0)
            for _ in range(cut):
                await ctx.tick()
            assert ctx.get(dut.query.busy)
            ctx.set(soft_reset, 1)
            await ctx.tick()
            ctx.set(soft_reset, 0)
            assert not ctx.get(dut.query.busy) and not ctx.get(dut.query.done)
            seen[cut] = (await run_query(ctx, dut, len(shuffle) - 1, 15)).result

    session.simulate(WithReset(), testbench)
    expected = perpetual(shuffle, len(shuffle) - 1, count_limit=15)
    assert seen == {cut: expected for cut in (1, 2, 5, 17)}


def test_host_read_of_the_word_being_written_gets_the_new_word():
    # The detector bypasses the block RAM for this collision, so that the
    # board builds may leave it undefined in the RAM (axon.boards.build).
    from axon.sim.backends.pysim import write_words
    session = PysimSession(config=DetectorConfig(depth=DEPTH, chains=24))
    dut = session.make_dut()
    seen = []

    async def testbench(ctx):
        await write_words(ctx, dut, [pack_word(1, 18, 2), pack_word(62, 45, 10)])
        for address, word in ((1, pack_word(6, 21, 2)), (0, pack_word(12, 28, 1, True))):
            ctx.set(dut.memory.read_addr, address)
            ctx.set(dut.memory.write_addr, address)
            ctx.set(dut.memory.write_word.as_value(), word)
            ctx.set(dut.memory.write_en, 1)
            await ctx.tick()
            ctx.set(dut.memory.write_en, 0)
            seen.append(ctx.get(dut.memory.read_word.as_value()))
            # The neighbour in the other bank, and the word once more.
            ctx.set(dut.memory.read_addr, address ^ 1)
            await ctx.tick()
            seen.append(ctx.get(dut.memory.read_word.as_value()))

    session.simulate(dut, testbench)
    assert seen == [pack_word(6, 21, 2), pack_word(1, 18, 2),
                    pack_word(12, 28, 1, True), pack_word(6, 21, 2)]
