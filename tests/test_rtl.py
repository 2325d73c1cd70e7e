# amaranth: UnusedElaboratable=no
"""The gateware against the golden model, cycle by cycle.

Every field of every answer must match, and ``done`` must rise exactly
``expected_cycles`` clocks after ``start``: ``floor(plies_scanned / 2) +
LATENCY_OVERHEAD`` for every legal game with the default scan, and
``plies_scanned + LEAN_LATENCY_OVERHEAD`` for every query with the lean one.
The pair scan's clocks depend on what the host wrote since the last query
(:class:`~axon.hdl.params.Written`): the tests ask after each kind of write.
"""

import random

import pytest
from hypothesis import given, settings, strategies as st

from axon.hdl.word import pack_word
from axon.sim.model.encode import encode_moves
from axon.sim.bench.capacity import CROWDED_SEED
from axon.sim.model.generate import crowded_corpus, game_corpus
from axon.sim.model.golden import Stop, perpetual
from axon.sim.backends.pysim import PysimSession, expected_cycles, split_query
from axon.sim.backends.session import HostWrites, written_before
from axon.hdl.params import SHORT_ANSWER_CLOCKS, DetectorConfig, Written

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
# The walked list in block RAM (exact rules only): the 1K boards' 16 entries
# a side; and 2 a side, whose list fills up, on arbitrary words.
CONFIGS += [("exact", 32, "walked", "single")]
ARBITRARY_CONFIGS = CONFIGS + [("exact", 4, "walked", "single")]


def check_jobs(rules, chains, jobs, legal=False, pools="kind", scan="pair", every_start=True,
               backstop=False):
    """Run ``(words, queries)`` jobs on the RTL and compare with the golden model.

    Every query must take exactly ``expected_cycles`` clocks; for ``legal``
    games the words alternate sides and that is ``latency(plies_scanned)``:
    two plies a clock (one with the lean scan), changed by what the host
    wrote before the query. Unless not ``every_start``, the jobs must ask
    after each kind of write.
    """
    config = DetectorConfig(depth=DEPTH, chains=chains, rules=rules, pools=pools, scan=scan,
                            **({"backstop": True, "upcoming": False} if backstop else {}))
    session = PysimSession(config)
    stops, starts = set(), set()
    memory = [0] * DEPTH
    for (words, queries), answers, job_written in zip(jobs, session.run_batch(jobs),
                                                      written_before(jobs)):
        memory[:len(words)] = words
        for query, rtl, written in zip(queries, answers, job_written):
            top, count_limit, _, root = split_query(query)
            golden = perpetual(memory, top, root_address=root, config=config, count_limit=count_limit)
            assert rtl.result == golden, \
                f"top={top} root={root} limit={count_limit} words={words[:top + 1]}"
            assert rtl.cycles == expected_cycles(memory, top, golden, config, written)
            if legal and config.latency_fixed:
                assert rtl.cycles == config.latency(golden.plies_scanned, written=written,
                                                    stop=golden.stop)
            stops.add(golden.stop)
            starts.add(written)
    if every_start:
        assert starts == set(Written)
    return stops


def game_jobs(games, count_limits=(4, 1, 2, 15, 1)):
    """One job per game, querying after every ply with the limits in turn,
    and the search's root in turn: none, four and ten plies below the
    query, at it, and the end of the game (every ply game history). Every
    other game asks its last ply first, right after the load wrote its
    word; the others ask the first ply first, after the load wrote another."""
    jobs = []
    for board, moves in games:
        words = encode_moves(board, moves)
        last = len(words) - 1
        tops = (last, *range(last)) if len(jobs) % 2 == 0 else range(len(words))
        roots = lambda top: (-1, max(-1, top - 4), max(-1, top - 10), top, len(words) - 1)
        jobs.append((words, [(top, count_limits[top % len(count_limits)], None,
                              roots(top)[top // len(count_limits) % 5])
                             for top in tops]))
    return jobs


def test_backstop_answers_what_the_pools_overflow():
    # Crowded boards (promoted pieces, reversible moves), where the pools by
    # kind overflow on a third of the queries: behind them the backstop's
    # walked list answers exactly, each query at the pools' clocks to their
    # overflow and then the list's (expected_cycles), after every kind of write.
    jobs = game_jobs([(board, moves[:48])
                      for board, moves in crowded_corpus(6, CROWDED_SEED + 1)])
    stops = check_jobs("exact", 24, jobs, legal=True, backstop=True)
    assert Stop.OVERFLOW not in stops
    config = DetectorConfig(depth=DEPTH, backstop=True, upcoming=False)
    backstopped = [perpetual(words, top, root_address=root, config=config, count_limit=limit)
                   for words, queries in jobs for top, limit, _, root in queries]
    assert sum(result.backstop for result in backstopped) >= 20
    # Broken: the gateware without the backstop fails the same check.
    pools_alone = PysimSession(config.replace(backstop=False)).run_batch(jobs)
    unlike = [rtl.result for answers in pools_alone for rtl in answers]
    assert sum(rtl != golden for rtl, golden in zip(unlike, backstopped)) == \
        sum(result.backstop for result in backstopped)


@pytest.mark.parametrize("rules, chains, pools, scan", CONFIGS)
def test_paper_examples(rules, chains, pools, scan):
    lines = [KNIGHT_SWAP, THREE_KNIGHTS, KING_TRIANGLE, ROOK_SWAP, FIGURE1]
    jobs = game_jobs([play(line)[:2] for line in lines])
    # The same lines at the paper's stop-at-first setting, and with no limit.
    jobs += [(words, [(top, limit, None, root) for top, _, _, root in queries
                      for limit in (1, 15)])
             for words, queries in jobs]
    check_jobs(rules, chains, jobs, legal=True, pools=pools, scan=scan)


# The CXXRTL tests run 150 such games on these layouts against the golden
# model and 8 against this simulator: here they wait for --runslow.
_CXXRTL_COVERS = {("exact", 24, "kind", "pair"), ("exact", 4, "side", "single"),
                  ("exact", 32, "walked", "single")}
GENERATED_CONFIGS = [pytest.param(*config, marks=pytest.mark.slow) if config in _CXXRTL_COVERS
                     else config for config in CONFIGS]


@pytest.mark.parametrize("rules, chains, pools, scan", GENERATED_CONFIGS)
def test_generated_games(rules, chains, pools, scan):
    # 12 games biased toward reversible moves, half of them pawnless endgames
    # (the CXXRTL tests and the soak run thousands more; 1,000 longer ones
    # here with --runslow).
    games = game_corpus(12, seed=5, plies=(16, 72))
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
# Each image, then a first query (its limit, and a top below the last word),
# then the others.
image_jobs = st.lists(st.tuples(memory_images, st.integers(0, 15), st.integers(0, DEPTH - 2),
                                queries), min_size=2, max_size=3)


@pytest.mark.parametrize("rules, chains, pools, scan", ARBITRARY_CONFIGS)
@settings(max_examples=4)
@given(drawn=image_jobs)
def test_arbitrary_words(rules, chains, pools, scan, drawn):
    # The first image's first query is at the word its load wrote last, the
    # next image's below it.
    jobs = [(words, [(DEPTH - 1 if index % 2 == 0 else below, limit)] + asked)
            for index, (words, limit, below, asked) in enumerate(drawn)]
    check_jobs(rules, chains, jobs, pools=pools, scan=scan)


@pytest.mark.quick
def test_lean_scan_takes_one_word_a_clock():
    # Pinned by hand, not by expected_cycles: a knight shuffle read to the
    # bottom applies 8 words, one a clock, plus the read and hand stages of
    # the absent word below address 0, whatever the host wrote before; the
    # pair scan takes 8 / 2 + 4, two clocks fewer right after the load wrote
    # the top's word, one more right after it wrote another (7 words from
    # address 6). Two words of one side in a row cost the lean scan nothing
    # extra.
    shuffle = [pack_word(1, 18, 2), pack_word(62, 45, 10),
               pack_word(18, 1, 2), pack_word(45, 62, 10)] * 2
    same_side = [pack_word(1, 18, 2), pack_word(18, 1, 2)]
    lean = PysimSession(config=DetectorConfig(depth=16, chains=4, pools="side", scan="single"))
    pair = PysimSession(config=DetectorConfig(depth=16, chains=4, pools="side"))
    assert [answer.cycles for answer in lean.run(shuffle, [(7, 15)] * 2)] == [8 + 2] * 2
    assert [answer.cycles for answer in lean.run(shuffle, [(6, 15)])] == [7 + 2]
    assert [answer.cycles for answer in pair.run(shuffle, [(7, 15)] * 2)] == \
        [8 // 2 + 2, 8 // 2 + 4]
    assert [answer.cycles for answer in pair.run(shuffle, [(6, 15)] * 2)] == \
        [7 // 2 + 5, 7 // 2 + 4]
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
    stops = check_jobs(rules, 24, [(words, [(len(words) - 1, 4), (len(words) - 2, 4)]),
                                   (words, [(len(words) - 2, 4)])])
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


# -- what the host wrote before a query ---------------------------------------------

# The pair scan's layouts, at a depth that keeps a query after every write quick.
PAIR_CONFIGS = [DetectorConfig(depth=64, chains=24),
                DetectorConfig(depth=64, chains=24, rules="paper"),
                DetectorConfig(depth=64, chains=10),
                DetectorConfig(depth=64, chains=4, pools="side"),
                DetectorConfig(depth=64, chains=24, pools="spill")]


def _word_by_word(config, rng):
    """``(words, occupancies)`` to write and ask word by word: a few legal
    games, with their positions' occupancies, and arbitrary words over few
    squares and pieces (barriers and words that move nothing among them),
    with no occupancy."""
    cases = []
    for board, moves in game_corpus(3, seed=rng.randrange(1 << 30), plies=(20, config.depth)):
        after, occupancies = board.copy(stack=False), []
        for move in moves:
            after.push(move)
            occupancies.append(int(after.occupied))
        cases.append((encode_moves(board, moves)[:config.depth], occupancies))
    for _ in range(3):
        words = [pack_word(rng.choice((1, 2, 3, 9, 10)), rng.choice((1, 2, 3, 9, 10)),
                           rng.randrange(16), rng.random() < 0.15)
                 for _ in range(rng.randrange(8, config.depth + 1))]
        cases.append((words, [None] * len(words)))
    return cases


@pytest.mark.parametrize("config", PAIR_CONFIGS, ids=lambda config: config.key)
def test_queries_after_each_kind_of_write(config):
    # As a search asks: the word at each top written, then the query there,
    # which starts from the words just written. Then, with no write between,
    # the query again; after a write below the top; and below the top after
    # the write of the top. Every answer and clock count is the golden
    # model's, and `HostWrites` follows the detector.
    rng = random.Random(config.key)
    memory, writes, asked = [0] * config.depth, HostWrites(), set()
    with PysimSession(config) as session:

        def write(address, word):
            session.write(address, word)
            memory[address] = word
            writes.wrote(address)

        def ask(top, written, occupancy=None):
            count_limit = rng.choice((0, 1, 1, 2, 4, 15))
            root = rng.choice((-1, max(-1, top - rng.randint(1, 8)), top))
            answer = session.query(top, count_limit, occupancy, root)
            golden = perpetual(memory, top, root_address=root, config=config, count_limit=count_limit,
                               occupancy=occupancy)
            where = f"top={top} limit={count_limit} root={root} after {written}"
            assert writes.starts(top) is written, where
            assert answer.result == golden, where
            assert answer.cycles == expected_cycles(memory, top, golden, config, written), where
            asked.add((written, answer.cycles == SHORT_ANSWER_CLOCKS))

        for words, occupancies in _word_by_word(config, rng):
            for top, (word, occupancy) in enumerate(zip(words, occupancies)):
                write(top, word)
                ask(top, Written.TOP, occupancy)
                ask(top, Written.NOTHING, occupancy)
                if top and rng.random() < 0.3:
                    write(top - 1, words[top - 1])
                    ask(top, Written.ELSEWHERE, occupancy)
                if top and rng.random() < 0.3:
                    write(top, word)
                    ask(top - 1, Written.ELSEWHERE)
    # Short answers and longer ones from the words just written, and the others.
    assert asked == {(Written.TOP, True), (Written.TOP, False), (Written.NOTHING, False),
                     (Written.ELSEWHERE, False)}
