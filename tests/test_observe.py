# amaranth: UnusedElaboratable=no
"""The observation view: what the proofs and waveforms see of the gateware."""

import pytest
from amaranth.hdl import Const, Signal, Value
from amaranth.lib import data
from amaranth.sim import Simulator

from axon.hdl.board.link import FrameReceiver
from axon.hdl.detector import AxonDetector
from axon.hdl.observe import MOVE_WORD_MEANINGS, Meaning, Observation, fields, registers
from axon.hdl.params import LEAN, DetectorConfig
from axon.hdl.word import MoveWord
from axon.sim.backends.pysim import run_query, write_words

from .lines import KNIGHT_SWAP, play


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "observation view of the gateware"


@pytest.mark.quick
def test_registers_are_named_once():
    made = registers({"fetch_addr": range(-4, 8), "word": MoveWord, "flag": 1},
                     reset_less={"word"}, init={"flag": 1})
    assert [Value.cast(signal).name for signal in made.values()] == ["fetch_addr", "word", "flag"]
    assert Value.cast(made["word"]).reset_less and not made["fetch_addr"].reset_less
    assert made["flag"].init == 1
    with pytest.raises(NameError, match="No register named root"):
        registers({"fetch_addr": 4}, reset_less={"root"})


@pytest.mark.quick
def test_observation_is_read_only_and_names_its_members():
    view = Observation({"valid": Signal(4, name="valid"), "word": Signal(MoveWord, name="word")},
                       meanings={"word": MOVE_WORD_MEANINGS, "valid": Meaning.FLAGS})
    assert list(view) == ["valid", "word"] and view["valid"] is view.valid
    with pytest.raises(AttributeError, match="read-only"):
        view.valid = Signal()
    with pytest.raises(AttributeError, match="'root'; the view has valid, word"):
        view.root
    [(_, _, _, flags), (_, _, _, moves)] = view.signals()
    assert flags == {(): Meaning.FLAGS}
    assert moves == {("piece",): Meaning.PIECE, ("from_sq",): Meaning.SQUARE,
                     ("to_sq",): Meaning.SQUARE}


@pytest.mark.quick
def test_observation_refuses_what_is_not_a_signal():
    with pytest.raises(TypeError, match="Observed member sum must be a signal"):
        Observation({"sum": Signal(4) + 1})
    with pytest.raises(TypeError, match=r"Observed member file\.1 must be a signal"):
        Observation({"file": (Signal(4), Const(0, 4))})
    with pytest.raises(NameError, match="Meaning given for no member: squares"):
        Observation({"valid": Signal(4)}, meanings={"squares": Meaning.SQUARE})


@pytest.mark.quick
def test_fields_walk_layouts():
    pair = Signal(data.StructLayout({"valid": 1, "move": MoveWord}))
    assert [path for path, _ in fields(pair)] == \
        [("valid",), ("move", "from_sq"), ("move", "to_sq"), ("move", "piece"),
         ("move", "barrier")]
    assert fields(Signal(data.ArrayLayout(6, 2)))[1][0] == (1,)
    assert fields(Signal(3)) == [((), Signal(3).shape())]


@pytest.mark.quick
@pytest.mark.parametrize("config", [DetectorConfig(depth=16, chains=10),
                                    LEAN.replace(depth=16)], ids=["pair", "lean"])
def test_detector_view_is_its_parts_registers(config):
    # The view holds the registers the parts drive, not copies: they move
    # while the simulated detector scans, and the pools fill.
    dut = AxonDetector(config)
    scanner = dut.observe.scanner
    pools = [pool for side in dut.observe.chain_list.values() for pool in side.values()]
    seen = {"read_valid": 0, "fetch_addrs": set(), "open_chains": 0}
    start, moves, words = play(KNIGHT_SWAP)

    async def testbench(ctx):
        await write_words(ctx, dut, words)
        ctx.set(dut.query.top, 5)
        ctx.set(dut.query.count_limit, 1)
        ctx.set(dut.query.start, 1)
        await ctx.tick()
        ctx.set(dut.query.start, 0)
        while not ctx.get(dut.query.done):
            seen["read_valid"] |= ctx.get(scanner.read_valid)
            seen["fetch_addrs"].add(ctx.get(scanner.fetch_addr))
            seen["open_chains"] = max(seen["open_chains"],
                                      sum(ctx.get(pool.open_chains) for pool in pools))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert seen["read_valid"] and len(seen["fetch_addrs"]) > 1
    assert seen["open_chains"] > 0


@pytest.mark.quick
def test_views_are_no_ports():
    dut = AxonDetector(DetectorConfig(depth=16, chains=10, upcoming=True))
    assert set(dut.signature.members) == {"query", "memory", "upcoming"}
    assert set(dut.observe) == {"query", "scanner", "chain_list", "upcoming", "upcoming_check",
                                "memory"}
    receiver = FrameReceiver(timeout=4)
    assert set(receiver.observe) == {"stage", "crc", "received", "silence"}
    assert not set(receiver.observe) & set(receiver.signature.members)
