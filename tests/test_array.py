"""N detectors behind one link, through the board's UART pins.

The board design with three detectors, compiled with CXXRTL, opened as a
user does (``cxxrtl://?detectors=3``): one session per detector, each used
by its own thread, so that the queries of all three interleave and share
link transfers. Every answer equals the golden model's for that detector's
own move list; a frame for a detector that does not exist draws its error
frame and changes no detector. The executor's own checks, request by
request and pipelined, are in ``test_link_parts.py``.
"""

import glob
import os
import shutil
import threading
import time

import chess
import chess.pgn
import pytest

import axon.sim
from axon.hdl.board.protocol import (IDENTITY_RECORD_BYTES, Command, ErrorCode, IdentityRecord,
                                     identity_record)
from axon.hdl.params import SHIPPED
from axon.sim.backends import link_codec
from axon.sim.backends.link import Link, LinkError, open_link
from axon.sim.backends.session import GoldenSession, Session, answers
from axon.sim.backends.link_codec import FrameDecoder, parse_error, parse_query
from axon.sim.model.encode import encode_moves
from axon.sim.model.games import load_games, read_games
from axon.sim.model.generate import game_corpus


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "detector array behind one link"

DATA = os.path.join(os.path.dirname(axon.sim.__file__), "data")
DETECTORS = 3
URL = f"cxxrtl://?detectors={DETECTORS}&depth=64&chains=8"

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the board is compiled with CXXRTL and g++, not on PATH")


@pytest.fixture(scope="module")
def link():
    link = open_link(URL)
    yield link
    link.close()


def bundled_records(per_file=1):
    records = []
    for path in sorted(glob.glob(os.path.join(DATA, "*.pgn"))):
        records += load_games(path)[:per_file]
    return records


def generated_records(count, seed):
    """Generated games (openings and endgames, many repetitions) as records."""
    texts = []
    for start, moves in game_corpus(count, seed=seed):
        board = start.copy(stack=False)
        for move in moves:
            board.push(move)
        texts.append(str(chess.pgn.Game.from_board(board)))
    return read_games("\n\n".join(texts)).games


def _per_detector(sessions, records):
    """Each session answers every ``DETECTORS``-th game, all sessions at
    once, one thread each: ``{index: [(label, ply, result), ...]}``."""
    found, failures = {}, []

    def run(index, session):
        try:
            mine = records[index::len(sessions)]
            found[index] = [(game_index, ply.ply, ply.result)
                            for game_index, plies in enumerate(answers(mine, session,
                                                                       count_limit=4))
                            for ply in plies]
        except BaseException as error:      # the test thread reports it
            failures.append(error)

    threads = [threading.Thread(target=run, args=(index, session))
               for index, session in enumerate(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return found


def _golden(link, records):
    return _per_detector([GoldenSession(link.config) for _ in range(link.detectors)],
                         records)


class _CrossedLink(Link):
    """Broken: answers go to the request sent before (or after) them in the
    same transfer, as a host that routed by arrival, not by index, would."""
    def _transfer(self, batch):
        super()._transfer(batch)
        if len(batch) > 1:
            done = [(request.payload, request.error) for request in batch]
            for request, (payload, error) in zip(batch, done[1:] + done[:1]):
                request.payload, request.error = payload, error


class _FakeArray:
    """A transport that answers READ frames as a board of ``detectors``
    would whose detector *i* holds ``1000 * i + address`` at each address;
    it counts the requests each write carried."""
    def __init__(self, detectors):
        self.detectors = detectors
        self.pending = bytearray()
        self.batches = []

    def write(self, data):
        frames = FrameDecoder().feed(data)
        self.batches.append(len(frames))
        for frame in frames:
            if frame.command == Command.IDENTIFY:
                record = IdentityRecord.const(identity_record(SHIPPED, self.detectors, 512))
                self.pending += link_codec.encode_frame(
                    Command.IDENTIFY | 0x80, bytes([0]) + record.as_value().value.to_bytes(
                        IDENTITY_RECORD_BYTES, "little"))
                continue
            index, address = frame.payload[0], int.from_bytes(frame.payload[1:3], "little")
            words = b"".join((1000 * index + address + at).to_bytes(3, "little")
                             for at in range(frame.payload[3]))
            self.pending += link_codec.encode_frame(Command.READ | 0x80, bytes([index]) + words)

    def read(self, count, timeout):
        time.sleep(0.001)       # a link's latency, in which other requests get ready
        data = bytes(self.pending[:count])
        del self.pending[:count]
        return data


def _read_from_threads(link, reads=40):
    """Each detector's session reads every address in its own thread:
    ``{index: [word, ...]}``."""
    found = {}
    sessions = link.sessions()

    def run(session):
        found[session.index] = [session.read_moves(address, 1)[0] for address in range(reads)]

    threads = [threading.Thread(target=run, args=(session,)) for session in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return found


@pytest.mark.quick
def test_sessions_share_transfers_and_get_their_own_answers():
    transport = _FakeArray(DETECTORS)
    link = Link(transport)
    assert link.detectors == DETECTORS
    found = _read_from_threads(link)
    assert found == {index: [1000 * index + address for address in range(40)]
                     for index in range(DETECTORS)}
    # Answers were routed, not only asked one at a time.
    assert max(transport.batches) > 1 and link.transfers == len(transport.batches)
    # Broken: routed by arrival, shifted by one.
    crossed = _CrossedLink(_FakeArray(DETECTORS))
    assert _read_from_threads(crossed) != found


@needs_gxx
def test_identify_reports_the_detectors(link):
    assert link.detectors == DETECTORS
    assert [session.index for session in link.sessions()] == list(range(DETECTORS))
    assert link.identity.rx_buffer == 512


def _check_against_golden(link, records):
    before = link.transfers
    assert _per_detector(link.sessions(), records) == _golden(link, records)
    # Queries of several detectors went in one transfer.
    plies = sum(max(1, len(record.moves)) for record in records)
    assert link.transfers - before < plies


@needs_gxx
def test_array_equals_golden_per_detector(link):
    _check_against_golden(link, bundled_records() + generated_records(3, seed=4))


@needs_gxx
@pytest.mark.slow
def test_array_equals_golden_per_detector_long(link):
    _check_against_golden(link, bundled_records(4) + generated_records(30, seed=5))


@needs_gxx
def test_broken_routing_is_caught(link):
    crossed = _CrossedLink(link.transport)
    records = bundled_records()[:DETECTORS]
    with pytest.raises((AssertionError, LinkError, ValueError)):
        assert _per_detector(crossed.sessions(), records) == _golden(link, records)


@needs_gxx
def test_missing_detector_gets_its_error_and_changes_nothing(link):
    words = [encode_moves(start, moves)[:64] for start, moves in game_corpus(DETECTORS, seed=9)]
    for session, mine in zip(link.sessions(), words):
        session.load(mine)
    golden = [GoldenSession(link.config) for _ in range(DETECTORS)]
    for session, mine in zip(golden, words):
        session.load(mine)
    # One transfer: a query for each detector, with frames for detectors
    # that do not exist (3 and 255) between them: a write, a reset, a query.
    frames, expected = [], []
    for index in range(DETECTORS):
        top = len(words[index]) - 1
        frames.append(link_codec.query_request(top, 4, detector=index))
        expected.append(("query", index, golden[index].query(top, 4).result))
        missing = DETECTORS if index % 2 else 0xff
        for frame, command in ((link_codec.write_request(0, [0x1234], detector=missing),
                                Command.WRITE),
                               (link_codec.reset_request(missing), Command.RESET),
                               (link_codec.query_request(0, 4, detector=missing),
                                Command.QUERY)):
            frames.append(frame)
            expected.append(("error", missing, (ErrorCode.NO_DETECTOR, command)))
    link.transport.write(b"".join(frames))
    decoder, found = FrameDecoder(), []
    while len(found) < len(frames):
        data = link.transport.read(decoder.needed(), 1.0)
        assert data, f"answers missing after {len(found)}"
        found += decoder.feed(data)
    got = [("error", frame.detector, parse_error(frame.payload)) if frame.command == 0xff else
           ("query", frame.detector, parse_query(frame.payload, upcoming=False)[0])
           for frame in found]
    assert got == expected
    # No detector changed: each move list as loaded, each answer as before.
    for index, session in enumerate(link.sessions()):
        top = len(words[index]) - 1
        assert session.read_moves(0, len(words[index])) == words[index]
        assert session.query(top, 4).result == golden[index].query(top, 4).result


@needs_gxx
def test_a_nodes_write_and_query_share_one_transfer(link):
    # A search's node: its move's word, then its question; on a board with
    # a request buffer, one round trip.
    start, moves = game_corpus(1, seed=11)[0]
    words = encode_moves(start, moves)[:64]
    session, golden = link.sessions()[1], GoldenSession(link.config)
    session.load(words[:1])
    golden.load(words[:1])
    for top in range(1, len(words)):
        before = link.transfers
        found = session.write_and_query([(top, words[top])], top, 4, root_address=0)
        assert link.transfers - before == 1
        assert found.result == golden.write_and_query([(top, words[top])], top, 4,
                                                      root_address=0).result
    assert session.read_moves(0, len(words)) == words
    # Broken: the base class's write, then query, takes two.
    before = link.transfers
    Session.write_and_query(session, [(0, words[0])], 0, 4)
    assert link.transfers - before == 2


@needs_gxx
@pytest.mark.slow
def test_sixteen_detectors_equal_golden_per_detector():
    # The ULX3S-85F's link, whose model compiles its 16 detectors as one
    # C++ class: each still answers its own games like the golden model.
    link = open_link("cxxrtl://ulx3s-85f")
    try:
        assert link.detectors == 16
        _check_against_golden(link, bundled_records(2) + generated_records(16, seed=6))
    finally:
        link.close()
