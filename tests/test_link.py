# amaranth: UnusedElaboratable=no
"""The host link, end to end through the UART pins of the simulated board.

Every answer is checked against an independent reference: the golden model
for queries, a Python list for the move list.
"""

import glob
import os
import shutil
import random

import pytest
from hypothesis import assume, given, settings, strategies as st

import axon.sim
from axon.hdl.board import protocol
from axon.sim.backends import link_codec
from axon.boards.detectors import DEFAULT_DETECTORS
from axon.sim.backends.link import (Link, LinkError, open_transport, simulated_board,
                                    simulated_config)
from axon.sim.backends.link_codec import (FrameDecoder, encode_frame, holds_known_frame,
                                          parse_query)
from axon.boards.platforms import BOARDS
from axon.hdl.board.top import AxonBoard
from axon.hdl.version import INTERFACE_VERSION
from axon.sim.verify.linksoak import NOISE_KINDS, noise
from axon.hdl.board.protocol import Command, ErrorCode, ERROR_RESPONSE, RESPONSE_FLAG, crc8
from axon.sim.model.games import load_games
from axon.sim.model.generate import game_corpus
from axon.sim.model.encode import encode_moves
from axon.sim.model.golden import perpetual
from axon.sim.model.history import window_segments
from axon.sim.backends.board_pysim import PysimBoard
from axon.sim.backends.pysim import expected_cycles
from axon.sim.backends.session import HostWrites, Session
from axon.hdl.params import LEAN, WALKED, SHIPPED, DetectorConfig, Rules


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "host link"


DATA = os.path.join(os.path.dirname(axon.sim.__file__), "data")


# --- protocol, host side ------------------------------------------------------

@pytest.mark.quick
def test_crc8_check_value():
    # The catalogued check value of CRC-8/SMBUS.
    assert crc8(b"123456789") == 0xF4


@pytest.mark.quick
def test_frame_decoder_resynchronises():
    frame = encode_frame(Command.QUERY, b"\x01\x00\x04")
    noise = bytes([0x00, 0xa5, 0x01, 0x02, 0x33, 0x00])      # a marker with a bad CRC
    decoder = FrameDecoder()
    frames = []
    for byte in noise + frame + frame:
        frames += decoder.feed(bytes([byte]))
    assert frames == [link_codec.Frame(Command.QUERY, b"\x01\x00\x04")] * 2


@pytest.mark.quick
def test_request_checks():
    with pytest.raises(ValueError, match=r"word count must be an integer in 1..83, not 84"):
        link_codec.write_request(0, [0] * 84)
    with pytest.raises(ValueError, match=r"move word must be a 17-bit integer"):
        link_codec.write_request(0, [1 << 17])
    with pytest.raises(ValueError, match=r"unknown transport"):
        open_transport("tcp://localhost:1")
    with pytest.raises(ValueError, match=r"unknown sim:// option 'chain'"):
        open_transport("sim://?chain=3")
    with pytest.raises(ValueError, match=r"unknown board 'icebraker'"):
        open_transport("sim://icebraker")


# --- end to end: games through the UART pins -----------------------------------

@pytest.fixture(scope="module")
def link24():
    """The link to the default board (24 chains, exact rules, depth 256) in simulation."""
    return Link(open_transport("sim://"))


def _check_games(session, records, config, *, count_limit=4):
    """Every ply of ``records``, window by window: the window written, each
    ply asked; then its last ply asked once more as a search asks, right
    after the write of its word, in one transfer."""
    queries, writes = 0, HostWrites()

    def check(words, window, occupancy, answer):
        expected = perpetual(words, window.top, config=config, count_limit=count_limit,
                             occupancy=occupancy)
        assert answer.result == expected, (record.label, window)
        # The detector's own clock count, as the RTL harness predicts it.
        assert answer.cycles == expected_cycles(words, window.top, expected, config,
                                                writes.starts(window.top))

    for record in records:
        occupancies = record.occupancies()
        for segment, (base, words, plies) in enumerate(window_segments(record.words,
                                                                       config.depth)):
            session.write_moves(0, words)
            writes.loaded(words)
            if segment == 0:
                assert session.read_moves(0, len(words)) == words
            for window in plies:
                occupancy = occupancies[window.ply]
                check(words, window, occupancy, session.query(window.top, count_limit, occupancy))
                queries += 1
            window = plies[-1]
            occupancy = occupancies[window.ply]
            writes.wrote(window.top)
            check(words, window, occupancy,
                  session.write_and_query([(window.top, words[-1])], window.top, count_limit,
                                        occupancy))
    return queries


def test_identify(link24):
    identity = link24.identify()
    assert identity == link_codec.Identity(version=protocol.PROTOCOL_VERSION,
                                         interface=INTERFACE_VERSION, config=SHIPPED,
                                         count_bits=4, cycle_bits=16, max_words=83,
                                         detectors=1, rx_buffer=0)
    assert link24.config == SHIPPED


class MislabelledBoard(PysimBoard):
    """A board design that reports the shipped configuration whatever it serves."""
    def _make_dut(self):
        return AxonBoard(SHIPPED, divisor=self.divisor, timeout_bits=self.timeout_bits)


def board_configs_as_identified(boards, make=open_transport):
    """``{board name: (configuration it is built with, what IDENTIFY says)}``."""
    found = {}
    for name, spec in boards.items():
        link = Link(make(f"sim://{name}"))
        found[name] = (spec.config, link.identify().config)
    return found


@pytest.mark.quick
def test_every_shipped_board_identifies_its_configuration():
    # Boards of one configuration are one simulated design (sim:// builds the
    # configuration, whatever the board): the first board of each stands for them.
    first = {}
    for name, spec in BOARDS.items():
        first.setdefault(spec.config, name)
    found = board_configs_as_identified({name: BOARDS[name] for name in first.values()})
    assert {built for built, _ in found.values()} >= {SHIPPED, WALKED}
    for name, (built, identified) in found.items():
        assert identified == built, name
    # A board that reports another configuration than it has is caught.
    mislabelled = board_configs_as_identified(
        {"icestick": BOARDS["icestick"]},
        make=lambda url: MislabelledBoard(simulated_config(url)[0]))
    assert any(built != identified for built, identified in mislabelled.values())


def test_sim_url_takes_every_configuration_option():
    url = "sim://icebreaker?depth=64&chains=16&rules=exact&pools=spill&scan=pair&upcoming=no"
    config = DetectorConfig(depth=64, chains=16, pools="spill", upcoming=False, backstop=True)
    assert simulated_config(url + "&backstop=no")[0] == config.replace(backstop=False)
    assert simulated_config(url) == (config, 4)
    assert Link(open_transport(url)).identify().config == config
    assert simulated_config("sim://icestick?pools=side&chains=4&scan=pair&upcoming=yes"
                            "&divisor=6")[0] == LEAN.replace(scan="pair", upcoming=True)
    with pytest.raises(ValueError, match=r"^option upcoming must be yes or no, not 'maybe'$"):
        simulated_config("sim://?upcoming=maybe")
    # The detectors behind the link: the board's default, or the URL's.
    assert simulated_board("sim://icebreaker").detectors == 1
    assert simulated_board("sim://ulx3s-85f").detectors == DEFAULT_DETECTORS["ulx3s-85f"]
    assert simulated_board("sim://hx8k?detectors=2").detectors == 2
    assert simulated_board("cxxrtl://hx8k?detectors=5") == (SHIPPED, 4, 5, False, False)
    # A search unit and a perft core beside them, or none.
    assert simulated_board("sim://ulx3s-85f?unit=yes&perft=yes")[3:] == (True, True)
    assert simulated_board("sim://ulx3s-85f?unit=no&perft=1")[3:] == (False, True)
    with pytest.raises(ValueError, match=r"^option detectors must be an integer in 1..255, "
                                         r"not 0$"):
        simulated_board("sim://?detectors=0")
    with pytest.raises(ValueError, match=r"^the upcoming repetition needs the pair scan"):
        simulated_config("cxxrtl://?scan=single&upcoming=yes")


@pytest.mark.quick
def test_a_board_of_an_older_protocol_is_refused_in_one_line():
    # A board of version 4 or older refuses version 5's IDENTIFY (it has a
    # payload, the detector index) with its error frame of two bytes.
    link = Link(_Replay(link_codec.encode_frame(ERROR_RESPONSE,
                                                  bytes([ErrorCode.BAD_LENGTH, Command.IDENTIFY]))))
    with pytest.raises(link_codec.ProtocolVersionError) as caught:
        link.identify()
    assert str(caught.value) == (
        "the board speaks a link protocol older than version 7, this host's: build and program "
        "it again with this axon (axon build, axon program)")
    # Another version's answer names its version: a board built before
    # SEARCH, or a later one.
    with pytest.raises(link_codec.ProtocolVersionError, match=r"version 6, this host version 7"):
        link_codec.parse_identity(bytes([0, 6]) + bytes(16))
    with pytest.raises(link_codec.ProtocolVersionError, match=r"version 8, this host version 7"):
        link_codec.parse_identity(bytes([0, 8]) + bytes(18))
    record = protocol.IdentityRecord.const(protocol.identity_record(LEAN, 3)).as_value().value
    payload = bytes([0]) + record.to_bytes(protocol.IDENTITY_RECORD_BYTES, "little")
    identity = link_codec.parse_identity(payload)
    assert (identity.config, identity.detectors) == (LEAN, 3)


@pytest.mark.skipif(shutil.which("g++") is None,
                    reason="the board is compiled with CXXRTL and g++, not on PATH")
def test_bundled_games():
    # Every ply of the first game of every bundled file, through the UART
    # pins of the board compiled by CXXRTL (the link soak runs 10,000 more
    # queries there; the Python simulator's board takes the games below and
    # the long sweep).
    records = []
    for path in sorted(glob.glob(os.path.join(DATA, "*.pgn"))):
        records += load_games(path)[:1]
    with open_transport("cxxrtl://") as transport:
        assert _check_games(Link(transport).session(), records, SHIPPED) > 50


@pytest.mark.slow
def test_bundled_games_all(link24):
    # Every ply of every bundled game, through the UART pins (about three minutes).
    records = []
    for path in sorted(glob.glob(os.path.join(DATA, "*.pgn"))):
        records += load_games(path)
    assert _check_games(link24.session(), records, SHIPPED) > 100


def test_small_board_paper_rules():
    # Four chains overflow often; a depth of 32 makes games slide their window.
    # The board compiled with CXXRTL: in Amaranth's simulator (the rest of
    # this module) its two games take half a minute.
    with open_transport("cxxrtl://icebreaker?chains=4&rules=paper&depth=32") as transport:
        link = Link(transport)
        assert link.identify().chains == 4
        records = _random_game_records()
        assert _check_games(link.session(), records,
                            DetectorConfig(depth=32, rules="paper", chains=4), count_limit=2) > 30


def _random_game_records():
    """Two random games, 36 plies each, as the records of a PGN."""
    class Record:
        label = "random game"

    records = []
    for start, moves in game_corpus(2, seed=7):
        record = Record()
        record.words = encode_moves(start, moves)[:36]
        after, occupancies = start.copy(stack=False), []
        for move in moves[:36]:
            after.push(move)
            occupancies.append(int(after.occupied))
        record.occupancies = lambda occupancies=occupancies: occupancies
        records.append(record)
    return records


def test_reset_keeps_move_list(link24):
    words = [0x1234, 0x0abc, 0x1ffff, 0x00042]
    link24.session().write_moves(10, words)
    link24.session().query(12, 4)
    link24.session().reset()
    assert link24.session().read_moves(10, 4) == words
    # The scanner works after the reset.
    result, cycles = link24.session().query(11, 4)
    # The words below are what earlier tests on this board left there.
    full = link24.session().read_moves(0, 10) + words
    assert result == perpetual(full, 11, config=link24.config)


def test_leds(link24):
    link24.session().write_moves(0, [1 << 16])          # a barrier below the moves
    # A knight out and back, for both sides: ply 4 repeats the position at ply 0.
    moves = [(6, 21, 2), (62, 45, 10), (21, 6, 2), (45, 62, 10)]
    link24.session().write_moves(1, [f | (t << 6) | (p << 12) for f, t, p in moves])
    result, _ = link24.session().query(4, 4)
    assert result.repetition
    assert link24.transport.leds == {"repetition": True, "error": False}
    with pytest.raises(LinkError):
        link24.transact(link_codec.query_request(999, 4), Command.QUERY)
    assert link24.transport.leds == {"repetition": True, "error": True}
    link24.session().reset()
    assert link24.transport.leds == {"repetition": False, "error": False}


def test_query_with_a_root(link24):
    # Two knight shuffles; the position after address 3 is the root position.
    shuffle = [(6, 21, 2), (62, 45, 10), (21, 6, 2), (45, 62, 10)]
    link24.session().write_moves(0, [f | (t << 6) | (p << 12) for f, t, p in shuffle * 2])
    for root in (-1, 1, 3, 5, 7):
        result, _ = link24.session().query(7, 1, root_address=root)
        assert result == perpetual(link24.session().read_moves(0, 8), 7, root_address=root, count_limit=1)
    result, _ = link24.session().query(7, 1, root_address=3)
    assert (result.draw, result.count, result.plies_scanned) == (True, 2, 8)


def test_query_frames_of_the_old_size_and_bad_roots_are_refused(link24):
    # The QUERY of protocol version 2 had no root: 11 payload bytes.
    with pytest.raises(LinkError) as caught:
        link24.transact(link_codec.encode_frame(Command.QUERY, bytes([0, 0, 0, 1, *range(8)])),
                         Command.QUERY)
    assert caught.value.code == ErrorCode.BAD_LENGTH
    for root in (-2, 256, 0x7fff, -0x8000):
        with pytest.raises(LinkError) as caught:
            link24.transact(link_codec.query_request(0, 1, root_address=root), Command.QUERY)
        assert caught.value.code == ErrorCode.BAD_ARGUMENT, root
    assert link24.identity.version == protocol.PROTOCOL_VERSION == 7


def test_long_write_and_read_split_into_frames(link24):
    rng = random.Random(3)
    words = [rng.randrange(1 << 16) for _ in range(100)]   # no barriers
    link24.session().write_moves(156, words)
    assert link24.session().read_moves(156, 100) == words


# --- link fuzz -------------------------------------------------------------------

FUZZ_DEPTH = 16
FUZZ_CHAINS = 4


class FuzzBench:
    """A small board, and the host's view of its move list and of the
    writes its detector remembers."""

    def __init__(self):
        self.transport = PysimBoard(DetectorConfig(depth=FUZZ_DEPTH, chains=FUZZ_CHAINS,
                                                    rules="exact"), timeout_bits=32)
        self.link = Link(self.transport)
        self.writes = HostWrites()

    def exchange(self, data):
        """Send ``data``, stay silent past the inter-byte timeout; return the answers."""
        self.transport.write(data)
        self.transport.idle(self.transport.timeout_clocks + 8)
        answer = self.transport.read(1 << 16)
        return FrameDecoder().feed(answer)


@pytest.fixture(scope="module")
def fuzz_bench():
    return FuzzBench()


addresses = st.integers(0, FUZZ_DEPTH - 1)
move_words = st.integers(0, (1 << 17) - 1)


@st.composite
def valid_requests(draw):
    kind = draw(st.sampled_from(["identify", "write", "read", "query", "reset"]))
    if kind == "write":
        address = draw(addresses)
        words = draw(st.lists(move_words, min_size=1, max_size=FUZZ_DEPTH - address))
        return kind, (address, words), link_codec.write_request(address, words)
    if kind == "read":
        address = draw(addresses)
        count = draw(st.integers(1, FUZZ_DEPTH - address))
        return kind, (address, count), link_codec.read_request(address, count)
    if kind == "query":
        top, limit = draw(addresses), draw(st.integers(0, 15))
        return kind, (top, limit), link_codec.query_request(top, limit)
    if kind == "identify":
        return kind, (), link_codec.identify_request()
    return kind, (), link_codec.reset_request()


@st.composite
def rejected_requests(draw):
    """Frames with a correct CRC that the board must refuse with one error code."""
    kind = draw(st.sampled_from(["unknown", "length", "address", "top", "argument",
                                 "detector"]))
    if kind == "unknown":
        command = draw(st.integers(0, 255).filter(lambda c: c not in set(Command)))
        payload = draw(st.binary(max_size=8))
        return ErrorCode.UNKNOWN_COMMAND, command, encode_frame(command, payload)
    if kind == "length":
        command = draw(st.sampled_from(list(Command)))
        good = {Command.IDENTIFY: {1}, Command.RESET: {1}, Command.READ: {4},
                Command.QUERY: {protocol.QUERY_REQUEST_BYTES},
                Command.SEARCH: {protocol.SEARCH_REQUEST_BYTES},
                Command.PERFT: {protocol.PERFT_REQUEST_BYTES}}.get(command)
        if good is None:     # WRITE: LEN must be 4 + 3n with n = fourth payload byte
            payload = bytearray(draw(st.binary(min_size=0, max_size=40)))
            if len(payload) >= 4 and 1 <= payload[3] <= protocol.MAX_WORDS and \
                    len(payload) == 4 + 3 * payload[3]:
                payload.append(0)
        else:
            payload = draw(st.binary(max_size=12).filter(lambda p: len(p) not in good))
        return ErrorCode.BAD_LENGTH, command, encode_frame(command, bytes(payload))
    if kind == "address":
        command = draw(st.sampled_from([Command.READ, Command.WRITE]))
        address = draw(st.integers(0, 0xffff))
        count = draw(st.integers(max(1, FUZZ_DEPTH - address + 1), 20))
        header = bytes([0]) + address.to_bytes(2, "little") + bytes([count])
        payload = header + bytes(3 * count) if command == Command.WRITE else header
        return ErrorCode.ADDRESS_RANGE, command, encode_frame(command, payload)
    if kind == "top":
        top = draw(st.integers(FUZZ_DEPTH, 0xffff))
        return ErrorCode.TOP_RANGE, Command.QUERY, link_codec.query_request(top, 4)
    if kind == "detector":
        request = draw(valid_requests())[2]
        frame = bytearray(request)
        frame[3] = draw(st.integers(1, 255))       # the fuzz board has one detector
        frame[-1] = protocol.crc8(bytes(frame[1:-1]))
        return ErrorCode.NO_DETECTOR, frame[2], bytes(frame)
    limit = draw(st.integers(16, 255))
    return ErrorCode.BAD_ARGUMENT, Command.QUERY, link_codec.query_request(0, limit)


@st.composite
def garbage(draw):
    """Byte streams the board must answer with errors only (or not at all):
    the link soak's line noise, made from a drawn request."""
    _, _, frame = draw(valid_requests())
    kind = draw(st.sampled_from(NOISE_KINDS))
    data = noise(draw(st.randoms(use_true_random=False)), frame, kind)
    # Noise that happens to hold a well-formed request is a request.
    assume(not holds_known_frame(data))
    return kind, data


segments = st.lists(
    st.one_of(valid_requests().map(lambda r: ("valid", r)),
              rejected_requests().map(lambda r: ("rejected", r)),
              garbage().map(lambda r: ("garbage", r))),
    min_size=1, max_size=6)


def _check_valid(bench, memory, request, answers):
    kind, args, _ = request
    assert len(answers) == 1, (kind, answers)
    answer = answers[0]
    command = {"identify": Command.IDENTIFY, "write": Command.WRITE, "read": Command.READ,
               "query": Command.QUERY, "reset": Command.RESET}[kind]
    assert answer.command == command | RESPONSE_FLAG, (kind, answer)
    if kind == "write":
        address, words = args
        memory[address:address + len(words)] = words
        bench.writes.wrote(address + len(words) - 1)
        assert answer.payload == b"\0"
    elif kind == "read":
        address, count = args
        assert link_codec.parse_words(answer.payload) == memory[address:address + count]
    elif kind == "query":
        top, limit = args
        result, cycles = parse_query(answer.payload)
        # The request carries occupancy 0: an empty board, every path clear.
        expected = perpetual(memory, top, config=DetectorConfig(chains=FUZZ_CHAINS),
                             count_limit=limit, occupancy=0)
        assert result == expected
        assert cycles == expected_cycles(memory, top, expected, SHIPPED,
                                         bench.writes.starts(top))
    elif kind == "identify":
        assert link_codec.parse_identity(answer.payload) == link_codec.Identity(
            version=protocol.PROTOCOL_VERSION, interface=INTERFACE_VERSION,
            config=bench.transport.config, count_bits=4, cycle_bits=16, max_words=83,
            detectors=1, rx_buffer=0)
    else:
        bench.writes.reset()
        assert answer.payload == b"\0"


def _run_fuzz(bench, plan):
    bench.transport.resync()
    # The detector forgets the writes of the plans before.
    bench.link.session().reset()
    bench.writes.reset()
    memory = bench.link.session().read_moves(0, FUZZ_DEPTH)
    for category, item in plan:
        if category == "valid":
            _check_valid(bench, memory, item, bench.exchange(item[2]))
        elif category == "rejected":
            code, command, frame = item
            answers = bench.exchange(frame)
            assert [(a.command, link_codec.parse_error(a.payload)) for a in answers] == \
                [(ERROR_RESPONSE, (code, command))]
        else:
            kind, data = item
            answers = bench.exchange(data)
            assert all(a.command == ERROR_RESPONSE for a in answers), (kind, answers)
            if kind == "truncate":
                assert [link_codec.parse_error(a.payload)[0] for a in answers] == \
                    [ErrorCode.TRUNCATED]
    # Still answering, and no bad frame touched the move list.
    assert bench.link.session().read_moves(0, FUZZ_DEPTH) == memory


def test_truncated_frames(fuzz_bench):
    fuzz_bench.transport.resync()
    for data, command in ((b"\xa5", 0), (b"\xa5\x03", 0), (b"\xa5\x03\x04\x00", 4),
                          (link_codec.read_request(0, 2)[:-1], Command.READ)):
        answers = fuzz_bench.exchange(data)
        assert [(a.command, link_codec.parse_error(a.payload)) for a in answers] == \
            [(ERROR_RESPONSE, (ErrorCode.TRUNCATED, command))]
    # Line noise without a marker gets no answer at all.
    assert fuzz_bench.exchange(bytes(range(0x10, 0x30))) == []
    assert fuzz_bench.link.identify().depth == FUZZ_DEPTH


@settings(max_examples=4)
@given(plan=segments)
def test_link_fuzz(fuzz_bench, plan):
    _run_fuzz(fuzz_bench, plan)


@pytest.mark.slow
@settings(max_examples=300)
@given(plan=segments)
def test_link_fuzz_long(fuzz_bench, plan):
    _run_fuzz(fuzz_bench, plan)


@pytest.mark.quick
def test_link_error_raised(link24):
    with pytest.raises(LinkError, match=r"board reported TOP_RANGE for command 0x04"):
        link24.transact(link_codec.query_request(256, 4), Command.QUERY)


class _Replay:
    """A transport that answers every request with the same bytes."""
    def __init__(self, answer):
        self.answer = answer
        self.pending = b""

    def write(self, data):
        self.pending = self.answer

    def read(self, count, timeout):
        data, self.pending = self.pending[:count], self.pending[count:]
        return data


@pytest.mark.quick
def test_answer_to_another_command_is_named():
    # A well-formed frame that answers IDENTIFY, where QUERY was asked.
    link = Link(_Replay(link_codec.encode_frame(Command.IDENTIFY | RESPONSE_FLAG, bytes(8))))
    with pytest.raises(LinkError, match=r"^board answered with frame 0x81 to command 0x04, "
                                        r"which expects 0x84$") as caught:
        link.transact(link_codec.query_request(0, 1), Command.QUERY)
    assert (caught.value.code, caught.value.answer) == (None, 0x81)


@pytest.mark.quick
def test_board_and_open_board_are_deprecated_names_of_link(monkeypatch):
    # `Board` was the link, and the session of its detector 0, until `Link`
    # and its sessions; the old names stay until 0.5, with a warning.
    from axon.sim.backends.link import Board, DetectorSession, open_board, open_link
    transport = _Replay(link_codec.encode_frame(ERROR_RESPONSE, bytes([0, 0, 1])))
    with pytest.warns(DeprecationWarning, match="Board is now Link"):
        board = Board(transport)
    assert isinstance(board, Session) and isinstance(board.link, Link)
    assert board.transport is transport and board.transfers == 0
    link = Link(transport)
    assert not isinstance(link, Session)
    session = link.session()
    assert isinstance(session, DetectorSession) and session.link is link
    assert session is link.session(0)
    with pytest.warns(DeprecationWarning, match="DetectorSession.board is now"):
        assert session.board is link
    from axon.sim.backends import link as module
    monkeypatch.setattr(module, "open_transport", lambda url, **_: transport)
    with pytest.warns(DeprecationWarning, match="open_board is now open_link"):
        assert open_board("sim://").transport is transport
    assert open_link("sim://").transport is transport
