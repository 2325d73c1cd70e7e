# amaranth: UnusedElaboratable=no
"""The golden model against the paper, the wiki and python-chess."""

import chess
import pytest

from axon.hdl.params import SHIPPED
from axon.hdl.word import pack_word
from axon.sim.model.encode import encode_moves
from axon.sim.model.generate import game_corpus, random_endgame
from axon.sim.model.golden import Result, Stop, perpetual
from axon.sim.model.oracle import oracle_answers

from .lines import two_chains_meet_one_move
from .lines import FIGURE1, KING_TRIANGLE, KNIGHT_SWAP, ROOK_SWAP, THREE_KNIGHTS, play


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "golden model against python-chess"


def last_ply(line, **options):
    _, _, words = play(line)
    return perpetual(words, len(words) - 1, config=DetectorConfig(**options))


# -- the known blind spots, one named test each ------------------------------

@pytest.mark.quick
def test_cpw_misses_the_knight_swap():
    assert not last_ply(KNIGHT_SWAP, rules="cpw").repetition


def test_cpw_fires_on_king_triangle_with_wrong_side_to_move():
    result = last_ply(KING_TRIANGLE, rules="cpw")
    assert result.repetition and result.distance == 5


@pytest.mark.quick
def test_paper_misses_three_knight_rotation():
    assert not last_ply(THREE_KNIGHTS, rules="paper").repetition


@pytest.mark.parametrize("rules", ["paper", "exact"])
def test_paper_and_exact_see_the_knight_swap(rules):
    assert last_ply(KNIGHT_SWAP, rules=rules).distance == 8


@pytest.mark.parametrize("rules", ["paper", "exact"])
def test_paper_and_exact_ignore_the_king_triangle(rules):
    assert not last_ply(KING_TRIANGLE, rules=rules).repetition


@pytest.mark.quick
def test_exact_sees_three_knight_rotation():
    assert last_ply(THREE_KNIGHTS, rules="exact").distance == 8


@pytest.mark.parametrize("rules", ["cpw", "paper", "exact"])
def test_every_rule_set_sees_figure1(rules):
    assert last_ply(FIGURE1, rules=rules).distance == 4


def test_cpw_misses_the_rook_swap():
    assert not last_ply(ROOK_SWAP, rules="cpw").repetition


@pytest.mark.parametrize("rules", ["paper", "exact"])
def test_paper_and_exact_see_the_rook_swap(rules):
    assert last_ply(ROOK_SWAP, rules=rules).distance == 8


@pytest.mark.parametrize("line", [KNIGHT_SWAP, THREE_KNIGHTS, KING_TRIANGLE, ROOK_SWAP, FIGURE1])
def test_exact_agrees_with_python_chess_on_paper_lines(line):
    board, moves, words = play(line)
    for ply, answer in enumerate(oracle_answers(board, moves), start=1):
        result = perpetual(words, ply - 1)
        assert (result.repetition, result.distance, result.count) == \
               (answer.repetition, answer.distance, answer.count), f"ply {ply}"


@pytest.mark.quick
def test_table2_in_scan_order():
    # Newest first, as the detector reads the list: the symmetry rule closes
    # both knight chains on the oldest knight move.
    _, _, words = play(KNIGHT_SWAP)
    knight_moves = words[0::2]
    steps = []
    perpetual(knight_moves + [pack_word(0, 0, 0, barrier=True)] * 0, 3,
              config=DetectorConfig(rules="paper"), steps=steps)
    assert [step.rule for step in steps] == \
        ["insert", "transition", "insert", "transition+symmetry"]
    assert [len(step.chains) for step in steps] == [1, 1, 2, 0]
    assert steps[-1].found


N = 2  # a white knight's piece code (Table 1)


def knight_steps(line, rules, chains=24, pools="kind"):
    # The four White knight moves of ``line``, newest first.
    _, _, words = play(line)
    steps = []
    perpetual(words[0::2], 3, config=DetectorConfig(rules=rules, chains=chains, pools=pools),
              steps=steps)
    return steps


def test_steps_name_the_chains_of_transition_and_symmetry():
    # axon explain words its rule column from these fields alone.
    b1d2, a3b1, d2c4, c4a3 = knight_steps(KNIGHT_SWAP, "paper")
    assert (b1d2.met, b1d2.chain, b1d2.staged) == \
           (None, (N, chess.B1, chess.D2), ((N, chess.B1, chess.D2),))
    assert (a3b1.met, a3b1.chain) == ((N, chess.B1, chess.D2), (N, chess.A3, chess.D2))
    # The staged list is the one before symmetry frees both chains.
    assert c4a3.rule == "transition+symmetry" and c4a3.chains == ()
    assert (c4a3.chain, c4a3.partner, c4a3.joined) == \
           ((N, chess.C4, chess.D2), (N, chess.D2, chess.C4), None)
    assert c4a3.staged == (c4a3.chain, c4a3.partner)


@pytest.mark.parametrize("chains, pools", [(2, "side"), (24, "kind")])
def test_steps_name_the_chains_of_a_link(chains, pools):
    # With one slot a side, the insert that links takes no slot of its own;
    # the staged list still shows it, after the chain it joins.
    a5c6, c6d4, d4b3, b3a5 = knight_steps(THREE_KNIGHTS, "exact", chains, pools)
    assert c6d4.rule == "insert+link"
    assert (c6d4.chain, c6d4.partner, c6d4.joined) == \
           ((N, chess.C6, chess.D4), (N, chess.A5, chess.C6), (N, chess.A5, chess.D4))
    assert c6d4.staged == (c6d4.partner, c6d4.chain)
    assert c6d4.chains == (c6d4.joined,)
    assert b3a5.rule == "transition+reflection" and b3a5.chains == ()
    assert (b3a5.met, b3a5.staged) == ((N, chess.A5, chess.B3), ((N, chess.B3, chess.B3),))


def test_cpw_reflection_step_leaves_the_list_alone():
    steps = []
    perpetual([pack_word(chess.C4, chess.A3, N), pack_word(chess.E4, chess.E4, N)], 1,
              config=DetectorConfig(rules="cpw"), steps=steps)
    assert steps[0].rule == "reflection"
    assert (steps[0].chain, steps[0].staged, steps[0].chains) == \
           ((N, chess.E4, chess.E4), (), ())


# -- against python-chess over many generated games ---------------------------

@pytest.fixture(scope="module")
def corpus():
    return [(board, moves, encode_moves(board, moves), oracle_answers(board, moves, count_limit=15))
            for board, moves in game_corpus(300, seed=2007)]


@pytest.mark.parametrize("count_limit", [1, 4, 15])
def test_exact_matches_python_chess_on_generated_games(corpus, count_limit):
    plies = repetitions = fivefolds = 0
    for game, (board, moves, words, answers) in enumerate(corpus):
        for ply, answer in enumerate(answers, start=1):
            result = perpetual(words, ply - 1, count_limit=count_limit)
            assert not result.overflow
            expected = (answer.repetition, answer.distance, min(answer.count, count_limit))
            assert (result.repetition, result.distance, result.count) == expected, \
                f"game {game} ply {ply}"
            plies += 1
            repetitions += answer.repetition
            fivefolds += answer.count >= 4
    # The corpus must actually exercise the interesting cases.
    assert plies > 15000 and repetitions > 500 and fivefolds > 20


@pytest.mark.parametrize("count_limit", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_draw_matches_python_chess_for_every_root(corpus, count_limit):
    # Each game is asked with a root at every tenth ply and at its end, so
    # that occurrences before, at and after the root are all met.
    checked = draws = held_back = 0
    for game, (board, moves, words, _) in enumerate(corpus[::9]):
        for root in sorted({*range(0, len(moves), 10), len(moves)}):
            answers = oracle_answers(board, moves, root=root)
            for ply, answer in enumerate(answers, start=1):
                result = perpetual(words, ply - 1, root_address=root - 1, count_limit=count_limit)
                assert result.draw == answer.draw, f"game {game} root {root} ply {ply}"
                checked += 1
                draws += answer.draw
                held_back += answer.repetition and not answer.draw
    assert checked > 6000 and draws > 100 and held_back > 100


def test_overflow_keeps_what_was_found_before_it(corpus):
    overflows = kept = 0
    for board, moves, words, answers in corpus:
        for ply, answer in enumerate(answers, start=1):
            result = perpetual(words, ply - 1, config=DetectorConfig(chains=2, pools="side"),
                               count_limit=15)
            if not result.overflow:
                assert (result.repetition, result.distance, result.count) == \
                       (answer.repetition, answer.distance, answer.count)
                continue
            overflows += 1
            assert result.stop is Stop.OVERFLOW
            assert result.count <= answer.count
            if result.repetition:
                kept += 1
                assert result.distance == answer.distance
    assert overflows > 100 and kept > 10


def test_paper_rules_match_python_chess_where_no_rotation_occurs(corpus):
    # Rotations of three or more identical pieces are rare in shuffling games;
    # the count of disagreements is the paper's blind spot, measured here.
    disagreements = sum(
        perpetual(words, ply - 1, config=DetectorConfig(rules="paper"), count_limit=15).count != answer.count
        for board, moves, words, answers in corpus
        for ply, answer in enumerate(answers, start=1))
    assert disagreements < 50


# -- scan semantics -------------------------------------------------------------

# Positions of the knight shuffle: the start S recurs after every fourth word,
# at addresses 3, 7 and 11 (and before address 0).
SHUFFLE = [pack_word(1, 18, 2), pack_word(62, 45, 10), pack_word(18, 1, 2), pack_word(45, 62, 10)] * 3


@pytest.mark.quick
def test_an_occurrence_inside_the_search_is_a_draw_at_once():
    # Root at address 3: S after it is the root position; S after 7 lies
    # inside the search, nearer than the two behind the root.
    result = perpetual(SHUFFLE, 11, root_address=3, count_limit=1)
    assert (result.draw, result.count, result.distance, result.stop) == \
           (True, 1, 4, Stop.LIMIT)


@pytest.mark.quick
@pytest.mark.parametrize("root", [7, 9, 11])
def test_an_occurrence_at_or_before_the_root_does_not_stop_a_limit_one_scan(root):
    # S after 7 is the root position or game history: the scan goes on and
    # finds S after 3, the third occurrence.
    result = perpetual(SHUFFLE, 11, root_address=root, count_limit=1)
    assert (result.draw, result.count, result.distance, result.plies_scanned, result.stop) == \
           (True, 2, 4, 8, Stop.LIMIT)


def test_a_lone_occurrence_before_the_root_is_no_draw():
    words = list(SHUFFLE)
    words[4] = pack_word(12, 28, 1, barrier=True)   # a pawn move under the last two shuffles
    result = perpetual(words, 11, root_address=7, count_limit=1)
    assert (result.repetition, result.draw, result.count, result.stop) == \
           (True, False, 1, Stop.BARRIER)
    assert perpetual(words, 11, root_address=6, count_limit=1).draw


def test_a_query_below_the_root_needs_a_third_occurrence():
    # The position after 7 is game history when the root is 9: its
    # occurrence after 3 is a second one, not yet a draw.
    result = perpetual(SHUFFLE, 7, root_address=9, count_limit=1)
    assert (result.draw, result.count, result.distance, result.stop) == \
           (True, 2, 4, Stop.LIMIT)
    words = SHUFFLE[:8]
    result = perpetual(words, 7, root_address=7, count_limit=1)
    assert (result.draw, result.count, result.stop) == (True, 2, Stop.LIMIT)
    result = perpetual(words, 3, root_address=7, count_limit=1)
    assert (result.draw, result.count, result.stop) == (False, 1, Stop.BOTTOM)


def test_the_root_changes_nothing_from_limit_two_on():
    for root in range(-1, 12):
        for count_limit in (2, 3, 4):
            plain, rooted = perpetual(SHUFFLE, 11, count_limit=count_limit), \
                            perpetual(SHUFFLE, 11, root_address=root, count_limit=count_limit)
            assert (rooted.count, rooted.distance, rooted.plies_scanned, rooted.stop) == \
                   (plain.count, plain.distance, plain.plies_scanned, plain.stop)
            assert rooted.draw

N = 2  # white knight


def knight(from_sq, to_sq):
    return pack_word(from_sq, to_sq, N)


@pytest.mark.quick
def test_stops_at_barrier_without_applying_it():
    words = [knight(1, 18), pack_word(12, 28, 1, barrier=True), knight(6, 21)]
    assert perpetual(words, 2) == Result(False, None, 0, False, 1, Stop.BARRIER)


def test_bottom_after_address_zero():
    words = [knight(1, 18), knight(62, 45)]
    assert perpetual(words, 1) == Result(False, None, 0, False, 2, Stop.BOTTOM)


@pytest.mark.quick
def test_count_limit_stops_at_nth_find():
    shuffle = [knight(1, 18), knight(62, 45), knight(18, 1), knight(45, 62)] * 3
    assert perpetual(shuffle, 11, count_limit=2) == Result(True, 4, 2, False, 8, Stop.LIMIT,
                                                           draw=True)
    assert perpetual(shuffle, 11, count_limit=0) == Result(False, None, 0, False, 0, Stop.LIMIT)
    assert perpetual(shuffle, 11, count_limit=15) == Result(True, 4, 3, False, 12, Stop.BOTTOM,
                                                            draw=True)


def test_overflow_stops_before_the_move():
    # Two slots per side: the third White chain does not fit.
    words = [knight(0, 10), knight(1, 11), knight(2, 12)]
    assert perpetual(words, 2, config=DetectorConfig(chains=4, pools="side")) == \
        Result(False, None, 0, True, 2, Stop.OVERFLOW)
    # Three knight slots a side in the shipped pools: the fourth knight chain
    # does not fit; behind them the shipped backstop answers it.
    words = [knight(0, 10), knight(1, 11), knight(2, 12), knight(3, 13)]
    pools = SHIPPED.replace(backstop=False)
    assert perpetual(words, 3, config=pools) == Result(False, None, 0, True, 3, Stop.OVERFLOW)
    assert perpetual(words, 3) == Result(False, None, 0, False, 4, Stop.BOTTOM, backstop=True)


def test_each_side_has_half_the_slots():
    black_knight = 10
    words = [knight(0, 10), pack_word(60, 50, black_knight), knight(2, 12),
             pack_word(61, 51, black_knight)]
    assert perpetual(words, 3, config=DetectorConfig(chains=4, pools="side")).stop is Stop.BOTTOM
    assert perpetual(words, 3, config=DetectorConfig(chains=2, pools="side")) == \
        Result(False, None, 0, True, 2, Stop.OVERFLOW)


def test_each_kind_has_its_own_pool():
    # 16 chains: K1 Q1 R2 B2 N2 a side. Two knights fit beside two rooks; a
    # third knight does not, whatever the other kinds leave free; a kind with
    # no pool (a pawn or null move without its barrier bit) never fits.
    rook = 4
    words = [pack_word(0, 8, rook), pack_word(7, 15, rook), knight(1, 18), knight(6, 21)]
    assert perpetual(words, 3, config=DetectorConfig(chains=16)).stop is Stop.BOTTOM
    words.insert(0, knight(2, 12))
    assert perpetual(words, 4, config=DetectorConfig(chains=16)) == Result(False, None, 0, True, 4, Stop.OVERFLOW)
    for piece in (0, 1, 7, 8, 9, 15):
        assert perpetual([pack_word(1, 2, piece)], 0,
                         config=SHIPPED.replace(backstop=False)).stop is Stop.OVERFLOW


@pytest.mark.parametrize("rules", ["paper", "exact"])
def test_nonsense_word_that_moves_nothing_is_an_overflow(rules):
    words = [knight(5, 5), knight(5, 6)]
    assert perpetual(words, 1, config=DetectorConfig(rules=rules)) == Result(False, None, 0, True, 1, Stop.OVERFLOW)


def test_cpw_closes_a_word_that_moves_nothing_at_once():
    words = [knight(5, 5), knight(5, 5)]
    # No side-to-move check either: both plies count.
    assert perpetual(words, 1, config=DetectorConfig(rules="cpw")) == \
        Result(True, 1, 2, False, 2, Stop.BOTTOM, draw=True)


@pytest.mark.quick
@pytest.mark.parametrize("kwargs, message", [
    (dict(chains=0), r"chains must be a positive integer, not 0"),
    (dict(chains=5), r"chains must be even for the exact rules \(half the slots serve "
                     r"each side\), not 5"),
    (dict(count_limit=-1), r"count limit must be a non-negative integer, not -1"),
    (dict(root_address=-2), r"root_address must be an address in -1\.\.\d+, not -2"),
    (dict(top=3), r"top of stack must be an address in 0\.\.1, not 3"),
])
def test_parameter_errors(kwargs, message):
    options = dict(top=1)
    options.update(kwargs)
    top = options.pop("top")
    fields = {name: options.pop(name) for name in ("chains",) if name in options}
    with pytest.raises(ValueError, match=message):
        perpetual([knight(1, 18), knight(18, 1)], top, config=DetectorConfig(**fields),
                  **options)


@pytest.mark.quick
def test_the_golden_model_has_every_rule_set():
    # The wiki's pseudo-code is the golden model's alone; an odd chain count
    # is fine for it (its one pool is not split between the sides).
    assert perpetual([knight(1, 18), knight(18, 1)], 1,
                     config=DetectorConfig(rules="cpw", chains=3)).repetition
    with pytest.raises(ValueError, match=r"rules must be one of paper, exact, cpw, not 'fide'"):
        DetectorConfig(rules="fide")
    with pytest.raises(TypeError, match=r"Configuration must be a DetectorConfig"):
        perpetual([knight(1, 18), knight(18, 1)], 1, config="exact")


def test_a_joined_chain_never_closes(corpus):
    # The link rule keeps every square from being both the start of one chain
    # and the end of another of the same piece, so the joined chain X→T of a
    # link always has X ≠ T. The gateware relies on it and leaves the
    # comparison out; here the golden model's own check must never fire.
    import random
    rng = random.Random(11)
    memories = [words for board, moves, words, answers in corpus[:100]]
    for _ in range(100):
        squares = rng.sample(range(64), 4)
        memories.append([pack_word(rng.choice(squares), rng.choice(squares),
                                   rng.choice([2, 10, 4]), rng.random() < 0.02)
                         for _ in range(64)])
    links = 0
    for words in memories:
        for top in range(len(words)):
            steps = []
            perpetual(words, top, config=DetectorConfig(chains=24), count_limit=15, steps=steps)
            assert not any("link+reflection" in step.rule for step in steps)
            links += sum("link" in step.rule for step in steps)
    assert links > 300


def test_exact_matches_python_chess_on_the_rtl_test_games():
    # The games tests/test_rtl.py runs on the gateware, checked against the
    # oracle too, so that RTL == golden == python-chess on the same plies.
    for game, (board, moves) in enumerate(game_corpus(200, seed=5, plies=(16, 72))):
        words = encode_moves(board, moves)
        for ply, answer in enumerate(oracle_answers(board, moves), start=1):
            result = perpetual(words, ply - 1)
            assert not result.overflow
            assert (result.repetition, result.distance, result.count) == \
                   (answer.repetition, answer.distance, answer.count), f"game {game} ply {ply}"


@pytest.mark.parametrize("rules", ["paper", "exact"])
def test_a_move_meeting_two_chains_is_an_overflow(rules):
    words = two_chains_meet_one_move()
    result = perpetual(words, len(words) - 1, config=DetectorConfig(rules=rules))
    assert result.stop is Stop.OVERFLOW and result.overflow
    assert result.plies_scanned == 4
    # With the older knight move gone the same list is followed to the bottom.
    assert perpetual(words[1:], 3, config=DetectorConfig(rules=rules)).stop is Stop.BOTTOM


@pytest.mark.parametrize("rules", ["paper", "exact"])
def test_legal_games_never_meet_two_chains_at_once(corpus, rules):
    # The gateware takes each hit vector as the chosen slot; that is only
    # sound because no legal move list ever sets two bits in one.
    from axon.hdl.word import unpack_word
    from axon.sim.model.golden import GoldenChainList
    checked = 0
    for board, moves, words, answers in corpus:
        for top in range(0, len(words), 3):
            chain_list = GoldenChainList(DetectorConfig(chains=24, rules=rules))
            for address in range(top, -1, -1):
                from_sq, to_sq, piece, barrier = unpack_word(words[address])
                if barrier:
                    break
                assert not chain_list._pool(piece).impossible(piece, from_sq, to_sq)
                assert chain_list.apply(piece, from_sq, to_sq) is not None
                checked += 1
    assert checked > 5000


# -- the pool layout and the gateware's unpaired pool ---------------------------

from hypothesis import given, settings, strategies as st

from axon.hdl.pools import STARTING_MATERIAL
from axon.sim.model.golden import GoldenChainPool, Rules
from axon.sim.model.unpaired import GoldenUnpairedPool
from axon.hdl.params import DetectorConfig


def test_default_layout_covers_the_starting_material_with_spares():
    assert dict(DetectorConfig(chains=24).side_pools) == {6: 1, 5: 2, 4: 3, 3: 3, 2: 3}
    assert dict(DetectorConfig(chains=16).side_pools) == STARTING_MATERIAL
    assert sum(slots for _, slots in DetectorConfig(chains=30).side_pools) == 15
    assert DetectorConfig(chains=4, pools="side").side_pools == ((None, 2),)


# Few squares, so that moves meet chains often; kinds and squares drawn so
# that nonsense (moves of nothing, two chains on a square) comes up too.
_moves = st.lists(st.tuples(st.sampled_from([2, 3, 4]), st.integers(0, 5), st.integers(0, 5)),
                  max_size=40)


def _projection(pool, kinds):
    """The golden pool's chains as (starts, ends) multisets, the unpaired view."""
    from collections import Counter
    chains = [slot for slot in pool.slots if slot is not None]
    key = (lambda piece, square: (piece, square)) if kinds else (lambda piece, square: square)
    return (Counter(key(piece, start) for piece, start, _ in chains),
            Counter(key(piece, end) for piece, _, end in chains))


@settings(max_examples=1000)
@given(moves=_moves, size=st.integers(0, 4), kinds=st.booleans())
def test_unpaired_pool_follows_the_golden_pool(moves, size, kinds):
    # The unpaired pool (what the gateware keeps) gives the golden model's
    # answer on every move, overflow included, for any words.
    golden, unpaired = GoldenChainPool(size, Rules.EXACT), GoldenUnpairedPool(size, kinds)
    for piece, from_sq, to_sq in moves:
        if not kinds:
            piece = 2   # a pool of one kind sees only that kind's moves
        applied = golden.apply(piece, from_sq, to_sq) is not None
        assert unpaired.apply(piece, from_sq, to_sq) == applied
        if not applied:
            break
        starts, ends = _projection(golden, kinds)
        assert (unpaired.starts, unpaired.ends) == (starts, ends)
        assert unpaired.empty() == golden.empty()
        # The invariant the argument rests on: no square both starts and ends a chain.
        assert not set(unpaired.starts) & set(unpaired.ends)


def _material(board, color):
    """A side's non-pawn pieces, ``{kind: count}`` (python-chess and Table 1
    share the piece-type numbers)."""
    return {kind: len(board.pieces(kind, color)) for kind in STARTING_MATERIAL}


def _guaranteed(board, chains, pools):
    return all(DetectorConfig(chains=chains, pools=pools).never_overflows(_material(board, color)) for color in chess.COLORS)


@pytest.fixture(scope="module")
def wandering_games():
    # Long games that rarely shuffle back, so that many pieces stay displaced
    # at once: the hardest case for the pools' capacity.
    import random
    from axon.sim.model.generate import random_game
    rng = random.Random(1101)
    games = []
    for index in range(40):
        board = chess.Board() if index % 4 else random_endgame(rng)
        board, moves = random_game(rng, 160, board, reversible_bias=0.97, shuffle_rate=0.0)
        games.append((board, moves, encode_moves(board, moves)))
    return games


def test_capacity_guarantee(corpus, wandering_games):
    # The wandering and crowded games, where the pools fill, and a sixth of
    # the corpus; every game with --runslow.
    _check_capacity_guarantee(corpus[:50], wandering_games, least_checked=8000)


@pytest.mark.slow
def test_capacity_guarantee_on_the_whole_corpus(corpus, wandering_games):
    _check_capacity_guarantee(corpus, wandering_games, least_checked=20000)


def _check_capacity_guarantee(corpus, wandering_games, *, least_checked):
    # No query overflows while each side's material is within its layout's
    # guarantee (axon.hdl.pools.never_overflows): for pools by kind from 16
    # chains up, at least the starting material (K, Q, 2R, 2B, 2N); for the
    # spill layout at 24 chains, the starting material and any four more
    # pieces; for the walked list at 32 chains, any legal position (16
    # entries a side, at most 16 pieces). A chain is one displaced piece. Checked at the top of every
    # query (the material cannot change within a scan: captures and pawn
    # moves are barriers), on crowded boards too.
    # The paper's rules keep paired chains, and the same guarantee (proven
    # for the pools in axon.sim.verify.formal: capacity, capacity-paper,
    # capacity-spill).
    from axon.sim.model.generate import crowded_corpus
    crowded = [(board, moves, encode_moves(board, moves))
               for board, moves in crowded_corpus(8, 1103)]
    games = ([(board, moves, words) for board, moves, words, _ in corpus] + wandering_games +
             crowded)
    checked, beyond = {}, {}
    for chains, rules, pools in ((16, "exact", "kind"), (24, "exact", "kind"),
                                 (16, "paper", "kind"), (24, "exact", "spill"),
                                 (16, "exact", "spill"), (32, "exact", "walked")):
        checked[chains, pools, rules] = beyond[chains, pools, rules] = 0
        for board, moves, words in games:
            board = board.copy()
            for ply, move in enumerate(moves):
                board.push(move)
                overflow = perpetual(words, ply,
                                     config=DetectorConfig(rules=rules, chains=chains, pools=pools),
                                     count_limit=15).overflow
                if _guaranteed(board, chains, pools):
                    assert not overflow, f"chains {chains}, {pools}, rules {rules}, ply {ply + 1}"
                    checked[chains, pools, rules] += 1
                else:
                    beyond[chains, pools, rules] += overflow
    assert min(checked.values()) > least_checked, checked
    # Beyond the guarantee a layout can overflow: the guarantee is as wide
    # as the pools (for the spill layout's 24 chains, see
    # tests/test_capacity.py's test_guarantee_is_tight_for_the_spill_layout).
    assert beyond[24, "kind", "exact"] > 0 and beyond[16, "spill", "exact"] > 0, beyond
    # Starting material needs a slot of each: one knight slot a side (14
    # chains) is not enough.
    short = sum(perpetual(words, ply, config=DetectorConfig(chains=14), count_limit=15).overflow
                for board, moves, words in wandering_games for ply in range(len(moves)))
    assert short > 0
