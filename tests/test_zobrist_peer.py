# amaranth: UnusedElaboratable=no
"""The benchmark's hardware peer: a Zobrist-key repetition detector in gateware.

Its model against the golden model (equal wherever keys do not collide,
and narrow keys must collide), its gateware against its model on every
field and clock (games, recorded searches, arbitrary words; a gateware of
another key width must fail the comparison), its clocks pinned by hand,
and its parameter checks.
"""

import random

import pytest
from amaranth.back import rtlil

from axon.hdl.params import WALKED, Stop
from axon.hdl.word import pack_word
from axon.hdl.zobrist_peer import KEY_BITS_MAX, KEY_BITS_MIN, ZobristPeer, zobrist_table
from axon.sim.backends.session import Query
from axon.sim.bench.recorded import RecordedSearch, record_searches
from axon.sim.bench.zobrist_peer import (PeerCase, PeerSimulation, chain_keys,
                                         hardware_peer_figures, peer_answer)
from axon.sim.model.encode import encode_moves
from axon.sim.model.games import bundled_files, load_games
from axon.sim.model.generate import game_corpus
from axon.sim.model.golden import perpetual


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "hash-key hardware peer"


def _corpus():
    """The bundled games and 12 generated ones: move lists of legal games."""
    lists = [list(game.words) for path in bundled_files() for game in load_games(path)]
    lists += [encode_moves(board, moves) for board, moves in game_corpus(12, 11, plies=(20, 90))]
    return [words for words in lists if 0 < len(words) <= 256]


CORPUS = _corpus()
# Count limits 0, 1 and 4, with and without a root in the middle.
SETTINGS = ((-1, 1), (-1, 4), ("half", 1), ("near", 2), (-1, 0))


def _cases(corpus, stride=1):
    for words in corpus:
        for top in range(0, len(words), stride):
            for root, limit in SETTINGS:
                root = {"half": top // 2, "near": max(top - 3, -1)}.get(root, root)
                yield PeerCase(words=words, query=Query(top=top, count_limit=limit, root_address=root))


def _model(case, key_bits=64):
    """The model's answer to ``case``, clocks included."""
    return peer_answer(chain_keys(case.words, key_bits), case.query.top, root_address=case.query.root_address,
                       count_limit=case.query.count_limit)


def _differences(key_bits, corpus=CORPUS, stride=1):
    """Answers of the model at ``key_bits`` unlike the golden model's
    (with a chain list that never overflows), and how many queries."""
    unlike, queries = [], 0
    entries = {}
    for case in _cases(corpus, stride):
        words, query = case.words, case.query
        keyed = entries.setdefault(id(words), chain_keys(words, key_bits))
        peer, _ = peer_answer(keyed, query.top, root_address=query.root_address, count_limit=query.count_limit)
        golden = perpetual(words, query.top, root_address=query.root_address, config=WALKED,
                           count_limit=query.count_limit)
        queries += 1
        if peer != golden:
            unlike.append((peer, golden))
    return unlike, queries


def test_the_model_equals_the_golden_model_with_64_bit_keys():
    unlike, queries = _differences(64, stride=2)
    assert queries > 2_500
    assert unlike == []


def test_narrow_keys_collide_and_the_comparison_sees_it():
    # The broken variant: 8-bit keys share keys between different
    # positions. Each collision is a false repetition: more equal positions
    # than there are, never fewer.
    unlike, _ = _differences(8, stride=3)
    assert unlike
    for peer, golden in unlike:
        assert peer.count > golden.count


@pytest.mark.quick
def test_the_table_is_fixed_and_a_narrow_one_is_the_low_bits():
    wide, narrow = zobrist_table(64), zobrist_table(32)
    assert wide == zobrist_table(64)
    assert narrow == [key & 0xFFFF_FFFF for key in wide]
    # Codes 0, 7, 8 and 15 name no piece; every piece's keys are distinct.
    for code in (0, 7, 8, 15):
        assert wide[code << 6:(code + 1) << 6] == [0] * 64
    pieces = [key for row, key in enumerate(wide) if (row >> 6) not in (0, 7, 8, 15)]
    assert len(set(pieces)) == len(pieces) == 12 * 64


@pytest.mark.parametrize("key_bits", [KEY_BITS_MIN - 1, KEY_BITS_MAX + 1, 32.0, True, "64"])
def test_a_key_width_out_of_range_is_refused(key_bits):
    with pytest.raises(ValueError, match=rf"^Key width must be an integer in "
                                         rf"{KEY_BITS_MIN}\.\.{KEY_BITS_MAX}, not "):
        ZobristPeer(key_bits=key_bits)
    with pytest.raises(ValueError, match="^Key width must be"):
        zobrist_table(key_bits)


def test_an_odd_depth_is_refused():
    with pytest.raises(ValueError, match="^Move-list depth must be an even integer"):
        ZobristPeer(7)


# White's knight out and back, Black's the same: a repetition every four plies.
SHUFFLE = [pack_word(1, 18, 2), pack_word(62, 45, 10),
           pack_word(18, 1, 2), pack_word(45, 62, 10)] * 3


@pytest.mark.quick
@pytest.mark.parametrize("words, top, count_limit, clocks, plies, stop, count", [
    # The entry at top, then a clock a candidate and one for the comparison.
    (SHUFFLE, 3, 1, 1 + 1 + 2, 4, Stop.BOTTOM, 1),
    (SHUFFLE, 7, 1, 1 + 1 + 2, 4, Stop.LIMIT, 1),
    (SHUFFLE, 11, 4, 1 + 1 + 6, 12, Stop.BOTTOM, 3),
    # A barrier at top: nothing to compare, answered from the top's entry.
    ([pack_word(12, 28, 1, barrier=True)], 0, 1, 1, 0, Stop.BARRIER, 0),
    (SHUFFLE, 5, 0, 1, 0, Stop.LIMIT, 0),
])
def test_clocks_pinned_by_hand(words, top, count_limit, clocks, plies, stop, count):
    modelled = peer_answer(chain_keys(words), top, count_limit=count_limit)
    case = PeerCase(words=words, query=Query(top=top, count_limit=count_limit))
    (answer, counted), = PeerSimulation(16).run([case])
    assert (answer, counted) == modelled
    assert (counted, answer.plies_scanned, answer.stop, answer.count) == \
        (clocks, plies, stop, count)


def _gateware_cases(seed=5):
    """Every ply of a few bundled and generated games (sparser on the long
    ones), then arbitrary words: nonsense moves, barriers anywhere, any top,
    root and count limit."""
    rng = random.Random(seed)
    cases = list(_cases(CORPUS[:12], stride=2)) + list(_cases(CORPUS[12:], stride=11))
    for _ in range(12):
        words = [rng.randrange(1 << 17) if rng.random() < 0.5 else
                 pack_word(rng.randrange(64), rng.randrange(64), rng.choice((2, 4, 10, 12)),
                           barrier=rng.random() < 0.05)
                 for _ in range(rng.randrange(1, 64))]
        for _ in range(15):
            top = rng.randrange(len(words))
            root, limit = rng.randrange(-1, top + 1), rng.randrange(16)
            cases.append(PeerCase(words=words,
                                  query=Query(top=top, count_limit=limit, root_address=root)))
    return cases


@pytest.mark.parametrize("key_bits", [64, 8])
def test_the_gateware_equals_its_model(key_bits):
    cases = _gateware_cases()
    answers = PeerSimulation(256, key_bits=key_bits).run(cases)
    mismatches = [(case.query, answer, model)
                  for case, answer in zip(cases, answers)
                  for model in [_model(case, key_bits)]
                  if answer != model]
    assert mismatches == []


def test_a_gateware_of_another_key_width_fails_the_comparison():
    # The broken variant: the 8-bit gateware's collisions are answers the
    # 64-bit model does not give.
    cases = [case for case in _gateware_cases() if case.words in CORPUS]
    answers = PeerSimulation(256, key_bits=8).run(cases)
    assert any(answer != _model(case) for case, answer in zip(cases, answers))


@pytest.mark.quick
def test_a_case_with_an_occupancy_is_refused():
    # The peer has no upcoming block: a query that asks for one is refused.
    with pytest.raises(ValueError, match="^the hash-key peer has no upcoming block"):
        PeerCase(words=SHUFFLE, query=Query(top=3, count_limit=1, occupancy=0))


def test_the_bench_figures_on_a_recorded_search():
    loads, _ = record_searches(log=lambda line: None,
                                searches=(RecordedSearch(label="WAC.018",
                                                         fen="R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1",
                                                         pgn=None, plies=0, depth=3),))
    corpus = [(None, None, words) for words in CORPUS[:3]]
    figures = hardware_peer_figures(corpus, loads, {}, count_limit=1, reference=WALKED,
                                    crowded_games=2, log=lambda line: None)
    assert set(figures) == {"zobrist64", "zobrist32"}
    for peer in figures.values():
        for workload in ("game", "recorded_search", "crowded"):
            found = peer["workloads"][workload]
            assert found["queries"] > 0
            assert found["mismatches_with_model"] == 0
            assert found["answers_unlike_golden"] == 0
            assert found["clocks_per_query"]["mean"] >= 1


@pytest.mark.quick
def test_the_peer_converts_to_rtlil():
    text = rtlil.convert(ZobristPeer(256, key_bits=64))
    assert "query__result" in text and "memory__write_ready" in text


def test_a_case_as_a_tuple_is_deprecated():
    # The older form, (words, top, root, count_limit), asks the same query,
    # with a warning that names its successor.
    with pytest.warns(DeprecationWarning, match="give a PeerCase"):
        old = PeerSimulation(16).run([(SHUFFLE, 11, 5, 4)])
    new = PeerSimulation(16).run([PeerCase(words=SHUFFLE,
                                           query=Query(top=11, count_limit=4, root_address=5))])
    assert old == new
