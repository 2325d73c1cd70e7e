"""The hardware peer's Python model, and its run in Amaranth's simulator.

:class:`~axon.hdl.zobrist_peer.ZobristPeer` is a hash-key repetition
detector in gateware, built only to be measured beside ours (see its
module). Here are the two things the benchmark and the tests need of it:

* :func:`chain_keys` and :func:`peer_answer`, a plain model of what it stores
  and answers, clock count included: the key scan of an engine, written out;
* :class:`PeerSimulation`, the gateware itself in Amaranth's simulator,
  loaded and asked through its ports.

Its answers equal the golden model's wherever no two different positions
share a key, and the golden model has a chain list that cannot overflow.
"""

import time
import warnings
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

from amaranth.sim import Simulator

from ...hdl.params import Stop
from ...hdl.zobrist_peer import (ZOBRIST_WRITE_CLOCKS, ZobristPeer, peer_entry_layout,
                                 zobrist_table)
from ...hdl.word import unpack_word
from ..backends.session import Query
from ..model.encode import encode_moves
from ..model.generate import crowded_corpus
from ..model.golden import Result, decides_draw, inside_search, perpetual
from .capacity import CROWDED_GAMES, CROWDED_SEED
from .workload import distribution


__all__ = ["Entry", "chain_keys", "peer_answer", "peer_clocks", "PeerCase", "PeerSimulation",
           "PeerTimeout", "BENCH_KEY_BITS", "hardware_peer_figures"]


@dataclass(frozen=True)
class Entry:
    """What the peer stores beside the word at an address: the key of the
    position after it, relative to the last barrier (or the start), and
    that barrier's address, its *floor* (-1: none, the start). The gateware
    stores the floor as the address less it, and whether it is -1."""
    key:   int
    floor: int


def chain_keys(words: Sequence[int], key_bits: int = 64) -> List[Entry]:
    """The entry of every address of ``words``, chained from address 0 up
    as the peer chains them when the words are written in that order."""
    table = zobrist_table(key_bits)
    entries, key, floor = [], 0, -1
    for address, word in enumerate(words):
        from_sq, to_sq, piece, barrier = unpack_word(word)
        if barrier:
            key, floor = 0, address
        else:
            key ^= table[piece << 6 | from_sq] ^ table[piece << 6 | to_sq]
        entries.append(Entry(key, floor))
    return entries


def peer_answer(entries: Sequence[Entry], top: int, *, root_address: int = -1,
                count_limit: int = 4) -> Tuple[Result, int]:
    """The peer's ``(answer, clocks)`` for the query at ``top``: compare the
    key at ``top`` with the keys 2, 4, ... plies back, down to the floor:
    the clock that reads ``top``'s entry, then a clock a candidate, and one
    more when there is any (the pipeline's comparison stage). The answer's
    fields mean what the golden model's mean; ``stop`` is never
    ``OVERFLOW``."""
    key_top, floor = entries[top].key, entries[top].floor
    count, distance, clocks = 0, None, 1
    if count_limit == 0:
        return _answer(count, distance, 0, Stop.LIMIT, False), clocks
    candidate = top - 2
    if candidate >= floor:
        clocks += 1
    while candidate >= floor:
        clocks += 1
        plies = top - candidate
        # The position before address 0 is the chain's start, key 0.
        key = 0 if candidate < 0 else entries[candidate].key
        if key == key_top:
            count += 1
            if distance is None:
                distance = plies
        draw = decides_draw(count, distance is not None and
                            inside_search(distance, top, root_address))
        if count and count >= count_limit and draw:
            return _answer(count, distance, plies, Stop.LIMIT, draw), clocks
        candidate -= 2
    draw = decides_draw(count, distance is not None and
                            inside_search(distance, top, root_address))
    stop = Stop.BOTTOM if floor < 0 else Stop.BARRIER
    return _answer(count, distance, top - floor, stop, draw), clocks


def peer_clocks(entries: Sequence[Entry], top: int, *, root_address: int = -1,
                count_limit: int = 4) -> int:
    """The clocks of :func:`peer_answer`'s query alone."""
    return peer_answer(entries, top, root_address=root_address, count_limit=count_limit)[1]


def _answer(count, distance, plies, stop, draw):
    return Result(repetition=count > 0, distance=distance, count=count, overflow=False,
                  plies_scanned=plies, stop=stop, draw=draw)


@dataclass(frozen=True)
class PeerCase:
    """One query put to the peer: the move list ``words`` and the
    :class:`~axon.sim.backends.session.Query` about them (the peer has no
    upcoming block: its ``occupancy`` is ``None``)."""
    words: Sequence[int]
    query: Query

    def __post_init__(self) -> None:
        if self.query.occupancy is not None:
            raise ValueError("the hash-key peer has no upcoming block: a query of it has "
                             "no occupancy")


def _peer_case(case: Union[PeerCase, tuple]) -> PeerCase:
    if isinstance(case, PeerCase):
        return case
    warnings.warn("a peer case as a tuple (words, top, root, count_limit) is deprecated: give "
                  "a PeerCase(words=..., query=Query(top=..., count_limit=..., root_address=...))",
                  DeprecationWarning, stacklevel=3)
    words, top, root, count_limit = case
    return PeerCase(words=words, query=Query(top=top, count_limit=count_limit, root_address=root))


class PeerTimeout(RuntimeError):
    """The peer did not answer in the clocks its model allows."""


class PeerSimulation:
    """The peer's gateware in Amaranth's simulator: :meth:`run` writes each
    case's words (only those that differ from what is stored) and asks its
    query; every answer comes with the clocks the gateware counted.

    Parameters
    ----------
    depth : int
        The move list's depth.
    key_bits : int
        The width of a key.
    """

    def __init__(self, depth: int = 256, *, key_bits: int = 64):
        self.depth, self.key_bits = depth, key_bits

    def run(self, cases: Sequence[PeerCase]) -> List[Tuple[Result, int]]:
        """Answer every :class:`PeerCase` in order."""
        cases = list(map(_peer_case, cases))
        dut = ZobristPeer(self.depth, key_bits=self.key_bits)
        answers = []
        # The model's worst case, with room to spare: a scan reads at most
        # every other word, one a clock.
        hung_after = self.depth + 8

        async def bench(ctx):
            stored = [None] * self.depth
            for case in cases:
                words, query = case.words, case.query
                # Keys chain upwards: rewrite from the lowest word that changed.
                changed = next((address for address, word in enumerate(words)
                                if stored[address] != word), None)
                if changed is not None:
                    for address in range(changed, len(words)):
                        ctx.set(dut.memory.write_addr, address)
                        ctx.set(dut.memory.write_word.as_value(), words[address])
                        ctx.set(dut.memory.write_en, 1)
                        await ctx.tick()
                        ctx.set(dut.memory.write_en, 0)
                        for _ in range(ZOBRIST_WRITE_CLOCKS - 1):
                            await ctx.tick()
                        stored[address] = words[address]
                ctx.set(dut.query.top, query.top)
                ctx.set(dut.query.root_address, query.root_address)
                ctx.set(dut.query.count_limit, query.count_limit)
                ctx.set(dut.query.start, 1)
                await ctx.tick()
                ctx.set(dut.query.start, 0)
                waited = 0
                while not ctx.get(dut.query.done):
                    if waited > hung_after:
                        raise PeerTimeout(f"query top={query.top} did not finish in {waited} "
                                          f"clocks")
                    await ctx.tick()
                    waited += 1
                answers.append((Result.from_fields(ctx.get(dut.query.result)),
                                ctx.get(dut.query.cycles)))

        sim = Simulator(dut)
        sim.add_clock(1e-6)
        sim.add_testbench(bench)
        sim.run()
        return answers


#: The key widths the benchmark measures: an engine's, and half of it.
BENCH_KEY_BITS = (64, 32)


def _workload_cases(corpus, loads, count_limit, crowded_games):
    """The queries of the game workload (every ply of ``corpus``, from the
    start of the move list), of the recorded search workload (``loads``, the
    :class:`~axon.sim.bench.recorded.RecordedLoad` s that
    :func:`~axon.sim.bench.recorded.record_searches` gives) and of the
    crowded boards, where the chain list's pools overflow
    (:mod:`axon.sim.bench.capacity`), as :meth:`PeerSimulation.run` takes
    them."""
    # One list per game or load, shared by its queries.
    game = [PeerCase(words=words, query=Query(top=top, count_limit=count_limit))
            for words in (list(words) for _, _, words in corpus) for top in range(len(words))]
    # The peer has no upcoming block: the recorded occupancy stays behind.
    recorded_search = [PeerCase(words=words, query=recorded.query._replace(occupancy=None))
                       for load in loads for words in (list(load.words),)
                       for recorded in load.queries]
    crowded = [PeerCase(words=words, query=Query(top=top, count_limit=count_limit))
               for words in (encode_moves(board, moves)
                             for board, moves in crowded_corpus(crowded_games, CROWDED_SEED))
               for top in range(len(words))]
    return {"game": game, "recorded_search": recorded_search, "crowded": crowded}


def hardware_peer_figures(corpus, loads, hardware, *, count_limit, reference,
                          crowded_games=CROWDED_GAMES, log=print):
    """``bench.json``'s ``hardware_peers``: for each key width of
    :data:`BENCH_KEY_BITS`, the peer's clocks per query on the game and the
    recorded search workloads and on the crowded boards, from its gateware
    in Amaranth's simulator,
    each answer checked against its model (which must agree on every field
    and clock) and against the golden model with the ``reference``
    configuration, a chain list that never overflows (where they differ,
    two positions shared a key: a collision); and its place-and-route
    figures from ``hardware`` (the :data:`~axon.boards.measure.PEER_TARGETS`
    measured). ``crowded_games`` is how many crowded games to ask (the
    capacity figures' own number by default)."""
    cases = _workload_cases(corpus, loads, count_limit, crowded_games)
    # The golden answers once, for every key width.
    golden = {workload: [perpetual(case.words, case.query.top, root_address=case.query.root_address,
                                   config=reference, count_limit=case.query.count_limit)
                         for case in queries]
              for workload, queries in cases.items()}
    figures = {}
    for key_bits in BENCH_KEY_BITS:
        name = f"zobrist{key_bits}"
        entry = {"key_bits": key_bits, "write_clocks": ZOBRIST_WRITE_CLOCKS,
                 "memory_per_ply_bits": peer_entry_layout(PeerSimulation().depth, key_bits).size,
                 "workloads": {}}
        for workload, queries in cases.items():
            started = time.monotonic()
            answers = PeerSimulation(key_bits=key_bits).run(queries)
            model_mismatches = collisions = 0
            keyed = {}
            for case, (result, clocks), expected in zip(queries, answers, golden[workload]):
                # The model's keys of each move list once (the game workload
                # asks every ply of a game's list).
                entries = keyed.get(id(case.words))
                if entries is None:
                    entries = keyed[id(case.words)] = chain_keys(case.words, key_bits)
                model = peer_answer(entries, case.query.top, root_address=case.query.root_address,
                                    count_limit=case.query.count_limit)
                model_mismatches += model != (result, clocks)
                collisions += result != expected
            entry["workloads"][workload] = {
                "queries": len(queries),
                "clocks_per_query": distribution([clocks for _, clocks in answers]),
                "mismatches_with_model": model_mismatches,
                "answers_unlike_golden": collisions,
            }
            log(f"hardware peer {name}, {workload} workload: {len(queries)} queries in "
                f"{time.monotonic() - started:.1f} s, {model_mismatches} mismatches with its "
                f"model, {collisions} answers unlike the golden model's (key collisions)")
        entry["hardware"] = {target: measured for target, measured in hardware.items()
                             if target.startswith(name + "-")}
        figures[name] = entry
    return figures
