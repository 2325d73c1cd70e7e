"""cocotb tests of the exported axon_detector: replay expect.jsonl on its ports.

Each test replays one group of the expectations (README.md lists them), the
test ``user`` every line of a group not among the others, so that a line
added to the file runs whatever its group. The file is read when the tests
run. For
each line, the driver stores the line's move words through the memory port,
asks its query, and checks every field of ``query__result`` and
``upcoming__answer``, ``query__cycles``, and the clocks it counted itself from
the clock that samples ``query__start`` to ``query__done``. A line with a
``refuse`` tries a write during the query: ``memory__write_refused`` must say
so, and the word must read back unchanged. The fields' positions come from
``axon_detector_params.vh``; nothing here needs the ``axon`` package.

Every input is driven, and every output read, on the falling edge of
``clk``: the detector samples on the rising edge.
"""

import json
import re
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge


HERE = Path(__file__).resolve().parent
EXPECT = HERE / "expect.jsonl"
PARAMS = HERE.parent / "rtl" / "axon_detector_params.vh"
# Clocks a query may run beyond its expected count before the driver gives
# up on it: a detector that never answers fails its line, not the run.
GRACE_CLOCKS = 64
# Wrong answers a test lists before it stops reading its lines.
SHOWN = 10
# The groups that `axon export --ip` writes; the test `user` replays the rest.
BUILT_IN = ("figures", "games", "search", "refused")


def read_params(path=PARAMS):
    """The header's ``localparam`` values by name, prefix dropped."""
    found = re.findall(r"^localparam AXON_DETECTOR_(\w+) = (-?\d+);", path.read_text(), flags=re.M)
    return {name: int(value) for name, value in found}


def fields(params, vector):
    """``{field: (lsb, width)}`` of ``vector`` (``RESULT`` or ``UPCOMING``)."""
    found = {}
    for name, value in params.items():
        match = re.fullmatch(rf"{vector}_(\w+)_LSB", name)
        if match:
            field = match.group(1)
            found[field.lower()] = (value, params[f"{vector}_{field}_WIDTH"])
    return found


def read_expectations(path=EXPECT):
    """``(header, [(line number, line)])`` of the expectations file."""
    with open(path) as file:
        lines = [(number, json.loads(text)) for number, text in enumerate(file, 1) if text.strip()]
    return lines[0][1], lines[1:]


def in_group(line, group):
    """Whether the test ``group`` replays ``line``."""
    if group == "user":
        return line.get("group") not in BUILT_IN
    return line.get("group") == group


def group_lines(group, path=EXPECT):
    return [(number, line) for number, line in read_expectations(path)[1]
            if in_group(line, group)]


class Driver:
    """The host side of the detector's ports, for cocotb."""

    def __init__(self, dut, header, params):
        self.dut = dut
        self.upcoming_done_after = header["upcoming_done_after"]
        self.result_fields = fields(params, "RESULT")
        self.upcoming_fields = fields(params, "UPCOMING")

    async def reset(self):
        dut = self.dut
        # In simulator steps: the exported file sets no timescale, so the
        # precision is whatever the simulator's default is. The clock is
        # toggled by the simulator's interface, not by Python each edge: a
        # third of the run's time.
        Clock(dut.clk, 10, unit="step", impl="gpi").start()
        dut.rst.value = 1
        for port in ("query__start", "query__top", "query__root_address", "query__count_limit",
                     "memory__write_addr", "memory__write_word", "memory__write_en",
                     "memory__read_addr", "upcoming__occupancy"):
            getattr(dut, port).value = 0
        for _ in range(2):
            await FallingEdge(dut.clk)
        dut.rst.value = 0
        await FallingEdge(dut.clk)

    async def write(self, address, word):
        dut = self.dut
        dut.memory__write_addr.value = address
        dut.memory__write_word.value = word
        dut.memory__write_en.value = 1
        await FallingEdge(dut.clk)
        dut.memory__write_en.value = 0

    async def read(self, address):
        dut = self.dut
        dut.memory__read_addr.value = address
        await FallingEdge(dut.clk)
        await FallingEdge(dut.clk)
        return dut.memory__read_word.value.to_unsigned()

    async def _present_write(self, refuse):
        """Drive the refused write and say whether ``write_refused`` rose."""
        dut = self.dut
        dut.memory__write_addr.value = refuse["address"]
        dut.memory__write_word.value = refuse["word"]
        dut.memory__write_en.value = 1
        await ReadOnly()
        return dut.memory__write_refused.value == 1

    async def query(self, query, expected_clocks, refuse=None):
        """Ask ``query``; return ``(result, upcoming, cycles port, clocks
        counted, upcoming clocks counted, refused)``, or a string saying
        what went wrong."""
        dut = self.dut
        dut.query__top.value = query["top"]
        # The root is signed: -1 is every bit set.
        width = len(dut.query__root_address)
        dut.query__root_address.value = query["root_address"] & ((1 << width) - 1)
        dut.query__count_limit.value = query["count_limit"]
        dut.upcoming__occupancy.value = query["occupancy"]
        dut.query__start.value = 1
        refused = None
        if refuse is not None and refuse["clock"] == 0:
            refused = await self._present_write(refuse)
        await RisingEdge(dut.clk)          # the clock that samples start
        await FallingEdge(dut.clk)
        dut.query__start.value = 0
        dut.memory__write_en.value = 0
        # The clocks after the one that samples start: on the falling edge
        # after clock n, n of them have passed.
        clocks = 0
        while dut.query__done.value != 1:
            if refuse is not None and refuse["clock"] == clocks + 1:
                refused = await self._present_write(refuse)
            await FallingEdge(dut.clk)
            dut.memory__write_en.value = 0
            clocks += 1
            if clocks > expected_clocks + GRACE_CLOCKS:
                return f"query__done did not rise in {clocks} clocks"
        dut.memory__write_en.value = 0
        cycles = dut.query__cycles.value.to_unsigned()
        result = dut.query__result.value.to_unsigned()
        later = 0
        while dut.upcoming__done.value != 1:
            await FallingEdge(dut.clk)
            later += 1
            if later > self.upcoming_done_after + GRACE_CLOCKS:
                return f"upcoming__done did not rise in {later} clocks after query__done"
        upcoming = dut.upcoming__answer.value.to_unsigned()
        return result, upcoming, cycles, clocks, later, refused

    async def replay(self, number, line):
        """Replay one line; return what was wrong, one message a difference."""
        for address, word in line["writes"]:
            await self.write(address, word)
        expect = line["expect"]
        answer = await self.query(line["query"], expect["cycles"], line.get("refuse"))
        where = f"expect.jsonl line {number} ({line['case']})"
        if isinstance(answer, str):
            return [f"{where}: {answer}"]
        result, upcoming, cycles, clocks, later, refused = answer
        wrong = []
        for vector, value, layout in (("result", result, self.result_fields),
                                      ("upcoming", upcoming, self.upcoming_fields)):
            if set(expect[vector]) != set(layout):
                wrong.append(f"{where}: expect.{vector} names {sorted(expect[vector])}, the "
                             f"header's fields are {sorted(layout)}")
                continue
            for name, (lsb, width) in layout.items():
                got = (value >> lsb) & ((1 << width) - 1)
                if got != expect[vector][name]:
                    wrong.append(f"{where}: {vector}.{name} is {got}, expected "
                                 f"{expect[vector][name]}")
        if cycles != expect["cycles"]:
            wrong.append(f"{where}: query__cycles is {cycles}, expected {expect['cycles']}")
        if clocks != expect["cycles"]:
            wrong.append(f"{where}: query__done rose {clocks} clocks after start, expected "
                         f"{expect['cycles']}")
        if later != self.upcoming_done_after:
            wrong.append(f"{where}: upcoming__done rose {later} clocks after query__done, "
                         f"expected {self.upcoming_done_after}")
        refuse = line.get("refuse")
        if refuse is not None:
            if not refused:
                wrong.append(f"{where}: memory__write_refused stayed 0 for a write on clock "
                             f"{refuse['clock']} of the query")
            stored = await self.read(refuse["address"])
            if stored != refuse["stored"]:
                wrong.append(f"{where}: address {refuse['address']} reads {stored} after the "
                             f"refused write, expected {refuse['stored']}")
        return wrong


async def replay_group(dut, group):
    header, _ = read_expectations()
    params = read_params()
    version = tuple(params[f"VERSION_{part}"] for part in ("MAJOR", "MINOR", "PATCH"))
    written_for = tuple(int(part) for part in header["version"].split(".")[:3])
    assert version == written_for, (
        f"the header is of interface {'.'.join(map(str, version))}, the expectations of "
        f"{header['version']}: export them together")
    lines = group_lines(group)
    driver = Driver(dut, header, params)
    await driver.reset()
    wrong = []
    for number, line in lines:
        wrong += await driver.replay(number, line)
        if len(wrong) >= SHOWN:
            break
    dut._log.info(f"{group}: {len(lines)} queries replayed")
    assert not wrong, f"{len(wrong)} wrong answer(s):\n" + "\n".join(wrong[:SHOWN])


def _without(group):
    return not group_lines(group)


@cocotb.test()
async def figures(dut):
    """The paper's figures."""
    await replay_group(dut, "figures")


@cocotb.test()
async def games(dut):
    """The bundled games."""
    await replay_group(dut, "games")


@cocotb.test()
async def search(dut):
    """A recorded search, with a root and the upcoming repetition."""
    await replay_group(dut, "search")


@cocotb.test()
async def refused(dut):
    """Writes during a query are refused."""
    await replay_group(dut, "refused")


@cocotb.test(skip=_without("user"))
async def user(dut):
    """The games given to ``axon export --expect``, and every line of a
    group of its own."""
    await replay_group(dut, "user")
