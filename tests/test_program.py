"""``axon program``: the exact command line per board and programmer, the
bitstream's device checked against the board, and the message when no board
answers."""

import os
import shutil
import stat
import subprocess
import sys

import pytest

from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.lib import io

from axon.boards.build import _run, find_tools
from axon.boards.platforms import BOARDS, get_board
from axon.boards.families import ECP5
from axon.boards.program import (BitstreamError, ProgrammerError, bitstream_device,
                                 check_bitstream, ecp5_bitstream_device, failure_reason,
                                 programmer_command)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "flashing a board"


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


AXON = os.path.join(os.path.dirname(sys.executable), "axon")


def bitstream(width):
    """The opening of an icepack bitstream for a device ``width`` columns wide,
    as icepack writes it (comment, preamble, then the bank commands)."""
    header = bytes.fromhex("ff0000ff" "7eaa997e" "5100" "0105" "920020")
    return header + bytes([0x62]) + (width - 1).to_bytes(2, "big") + bytes.fromhex("720150" "820000") \
        + bytes(2000)


def ecppack_bitstream(idcode):
    """The opening of an ecppack bitstream (``--compress``) for the device of
    JTAG ``idcode``, as ecppack writes it for an LFE5U-85F (comment, preamble,
    RESET_CRC, VERIFY_ID with the IDCODE, then the configuration)."""
    header = bytes.fromhex("ff00" "506172743a204c464535552d3835462d36434142474133383100"
                           "ffffffbdb3" "ffffffff" "3b000000" "e2000000")
    return header + idcode.to_bytes(4, "big") + bytes.fromhex("2200000040000000") + bytes(2000)


WIDTHS = {"icebreaker": 692, "icesugar": 692, "hx8k": 872, "icestick": 332,
          "nandland-go": 332, "icesugar-nano": 332}
# The ECP5 boards, by the IDCODE of their device.
IDCODES = {"ulx3s-12f": 0x21111043, "ulx3s-25f": 0x41111043, "ulx3s-45f": 0x41112043,
           "ulx3s-85f": 0x41113043}


def made_for(board):
    """A bitstream's opening, as its packer writes it for ``board``'s device."""
    return bitstream(WIDTHS[board]) if board in WIDTHS else ecppack_bitstream(IDCODES[board])


def test_every_board_has_a_width_or_an_idcode():
    assert set(WIDTHS) | set(IDCODES) == set(BOARDS)
    assert {name for name, spec in BOARDS.items() if spec.family is ECP5} == set(IDCODES)


@pytest.mark.parametrize("board", sorted(IDCODES))
def test_ecp5_bitstream_device(board):
    assert ecp5_bitstream_device(made_for(board)) == get_board(board).platform.device
    assert bitstream_device(made_for(board)) is None
    assert ecp5_bitstream_device(ecppack_bitstream(0x12345678)) == \
        "an unknown ECP5 (IDCODE 0x12345678)"


@pytest.mark.parametrize("width, device", [(332, "1K"), (692, "UP5K"), (872, "8K")])
def test_bitstream_device(width, device):
    found_width, name = bitstream_device(bitstream(width))
    assert found_width == width and device in name


@pytest.mark.parametrize("data", [b"", b"hello", bytes(4096), bytes.fromhex("7eaa997e"),
                                  bytes.fromhex("7eaa997e62")])
def test_not_a_bitstream(data):
    assert bitstream_device(data) is None
    assert ecp5_bitstream_device(data) is None
    # Cut short before the IDCODE, an ECP5 bitstream is none either.
    assert ecp5_bitstream_device(ecppack_bitstream(0x41113043)[:40]) is None


class _Blinky(Elaboratable):
    """The least design that makes a bitstream: an LED that blinks."""
    def elaborate(self, platform):
        m = Module()
        counter = Signal(8)
        m.d.sync += counter.eq(counter + 1)
        m.submodules.led = led = io.Buffer("o", platform.request("led", 0, dir="-"))
        m.d.comb += led.o.eq(counter[-1])
        return m


@pytest.mark.parametrize("board", ["icebreaker", "icestick",
                                   # The ECP5 tools load a large chip database: slow.
                                   pytest.param("ulx3s-12f", marks=pytest.mark.slow)])
def test_a_real_bitstream(tmp_path, board):
    # Made here by icepack or ecppack, through the build's own steps and tools
    # (a design of a few cells: seconds), so that the test needs no earlier build.
    spec = get_board(board)
    process = _run(spec.platform(), _Blinky(), str(tmp_path), find_tools(spec.family), [])
    assert process.returncode == 0, process.stderr
    path = tmp_path / f"axon.{spec.family.bitstream}"
    data = path.read_bytes()[:4096]
    if board in WIDTHS:
        assert bitstream_device(data)[0] == WIDTHS[board]
    else:
        # From the preamble to the IDCODE, as the stand-in bitstreams here have it.
        made, preamble = made_for(board), bytes.fromhex("ffffbdb3")
        opening = made[made.index(preamble):made.index(preamble) + 20]
        assert data[data.index(preamble):data.index(preamble) + 20] == opening
        assert ecp5_bitstream_device(data) == spec.platform.device
    check_bitstream(spec, str(path))


# One iCE40 of each width and two ECP5s: the checks are the same for the others.
BUILT_FOR = ["icestick", "icebreaker", "hx8k", "ulx3s-12f", "ulx3s-85f"]


@pytest.mark.parametrize("board", sorted(BOARDS))
@pytest.mark.parametrize("built_for", BUILT_FOR)
def test_bitstream_must_fit_the_board(tmp_path, board, built_for):
    path = tmp_path / "axon.bin"
    path.write_bytes(made_for(built_for))
    if made_for(board) == made_for(built_for):      # the same width or IDCODE
        check_bitstream(get_board(board), str(path))
    else:
        with pytest.raises(BitstreamError, match=rf"build one with axon build --board {board}"):
            check_bitstream(get_board(board), str(path))


# -- command lines, with stand-in tools on PATH --------------------------------

LOADER_0_10_BOARDS = "Board Name               cable_name\nice40_generic            ft2232\n" \
                     "icebreaker-bitsy         dfu\nulx3s                    ft231X\n"
LOADER_NEWER_BOARDS = LOADER_0_10_BOARDS + "icesugar                 cmsisdap\n" \
                                           "icesugar_nano            cmsisdap\n"


def install_tools(directory, *, iceprog=False, loader_boards=None, fail_with=None):
    """Stand-ins for the programmers: they print ``fail_with`` and fail, or succeed."""
    directory.mkdir(exist_ok=True)
    def script(name, body):
        path = directory / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    run = "exit 0\n"
    if fail_with:
        (directory / "complaint").write_text(fail_with + "\n")
        # Shell built-ins only: PATH holds nothing but these stand-ins.
        run = (f"while IFS= read -r line; do printf '%s\\n' \"$line\" >&2; done "
               f"< '{directory / 'complaint'}'; exit 2\n")
    if iceprog:
        script("iceprog", run)
    if loader_boards is not None:
        listing = loader_boards.replace("\n", "\\n")
        script("openFPGALoader", f'if [ "$1" = --list-boards ]; then printf "{listing}"; '
                                 f'exit 0; fi\n' + run)
    return str(directory)


@pytest.fixture
def tools(tmp_path, monkeypatch):
    def install(**options):
        path = install_tools(tmp_path / "bin", **options)
        monkeypatch.setenv("PATH", path)
        monkeypatch.delenv("ICEPROG", raising=False)
        return path
    return install


ICEPROG_LINES = {"icebreaker": [], "icestick": [], "nandland-go": [], "hx8k": ["-S"]}


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_iceprog_command_lines(tools, board):
    path = tools(iceprog=True)
    spec = get_board(board)
    if board in ICEPROG_LINES:
        assert programmer_command(spec, "a.bin") == \
               [os.path.join(path, "iceprog"), *ICEPROG_LINES[board], "a.bin"]
    else:
        with pytest.raises(ProgrammerError, match="iceprog cannot program it"):
            programmer_command(spec, "a.bin")


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_openfpgaloader_0_10_command_lines(tools, board):
    path = tools(loader_boards=LOADER_0_10_BOARDS)
    spec = get_board(board)
    if board.startswith("icesugar"):
        with pytest.raises(ProgrammerError, match="this openFPGALoader knows none of the boards"):
            programmer_command(spec, "a.bin")
    elif board.startswith("ulx3s"):
        # Every size: openFPGALoader reads the device from the bitstream.
        assert programmer_command(spec, "a.bit") == \
               [os.path.join(path, "openFPGALoader"), "-b", "ulx3s", "a.bit"]
    else:
        assert programmer_command(spec, "a.bin") == \
               [os.path.join(path, "openFPGALoader"), "-b", "ice40_generic", "a.bin"]


@pytest.mark.parametrize("board, name", [("icesugar", "icesugar"),
                                         ("icesugar-nano", "icesugar_nano")])
def test_a_newer_openfpgaloader_programs_the_icesugars(tools, board, name):
    path = tools(loader_boards=LOADER_NEWER_BOARDS)
    assert programmer_command(get_board(board), "a.bin") == \
           [os.path.join(path, "openFPGALoader"), "-b", name, "a.bin"]


def test_no_programmer_says_what_to_install(tools):
    tools()
    with pytest.raises(ProgrammerError, match="apt install fpga-icestorm.*apt install openfpgaloader"):
        programmer_command(get_board("icebreaker"), "a.bin")


def test_no_programmer_for_an_ecp5_names_openfpgaloader(tools):
    tools(iceprog=True)
    with pytest.raises(ProgrammerError, match=r"^no programmer for ulx3s-85f on PATH: install "
                                              r"openFPGALoader \(Debian: apt install "
                                              r"openfpgaloader; iceprog cannot program it"):
        programmer_command(get_board("ulx3s-85f"), "a.bit")


def test_program_an_ecp5_board_through_the_script(tmp_path):
    # What `axon program --board ulx3s-85f` runs, with no board attached: the
    # default bitstream is the build's .bit, flashed by openFPGALoader as ulx3s.
    path = install_tools(tmp_path / "bin", loader_boards=LOADER_0_10_BOARDS)
    (tmp_path / "build" / "ulx3s-85f").mkdir(parents=True)
    (tmp_path / "build" / "ulx3s-85f" / "axon.bit").write_bytes(made_for("ulx3s-85f"))
    process = subprocess.run([AXON, "program", "--board", "ulx3s-85f"], capture_output=True,
                             text=True, cwd=tmp_path, env={**os.environ, "PATH": path})
    assert process.returncode == 0, process.stderr
    assert process.stdout.splitlines()[0] == (
        f"programming ulx3s-85f: {path}/openFPGALoader -b ulx3s build/ulx3s-85f/axon.bit")


# -- no board on the cable --------------------------------------------------------

@pytest.mark.parametrize("output", [
    "init..\nCan't find iCE FTDI USB device (vendor_id 0x0403, device_id 0x6010 or 0x6014).\n"
    "ABORT.",
    "unable to open ftdi device: -3 (device not found)\nError: Failed to claim cable",
])
def test_failure_reason_says_no_board(output):
    assert failure_reason(output).startswith("no board found on the cable (")


def test_failure_reason_otherwise_the_last_line():
    assert failure_reason("erasing\nverify failed at 0x100\n") == "verify failed at 0x100"


def _program(tmp_path, board, width, env):
    path = tmp_path / "axon.bin"
    path.write_bytes(bitstream(width))
    return subprocess.run([AXON, "program", "--board", board, str(path)], capture_output=True,
                          text=True, env=env)


def test_program_refuses_a_bitstream_for_another_device(tmp_path):
    process = _program(tmp_path, "hx8k", 692, os.environ)
    assert process.returncode == 2
    assert process.stderr.splitlines() == [
        f"axon program: error: {tmp_path / 'axon.bin'} is a bitstream for iCE40 UP5K, but the "
        f"hx8k board has an iCE40HX8K: build one with axon build --board hx8k"]


def test_program_with_no_board_attached(tmp_path):
    path = install_tools(tmp_path / "bin", iceprog=True,
                         fail_with="Can't find iCE FTDI USB device (vendor_id 0x0403).")
    process = _program(tmp_path, "icebreaker", 692, {**os.environ, "PATH": path})
    assert process.returncode == 1
    assert process.stderr.splitlines() == [
        "axon program: error: iceprog failed (exit 2): no board found on the cable (Can't find "
        "iCE FTDI USB device (vendor_id 0x0403).)"]


@pytest.mark.parametrize("tool", ["iceprog", "openFPGALoader"])
def test_the_real_programmer_finds_no_board_here(tmp_path, tool):
    # The build machines have no board attached: the real tools must say so.
    real = shutil.which(tool)
    if real is None:
        pytest.skip(f"{tool} is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(real, bin_dir / tool)
    process = _program(tmp_path, "icebreaker", 692, {**os.environ, "PATH": str(bin_dir)})
    assert process.returncode == 1
    assert process.stderr.startswith(f"axon program: error: {tool} failed")
    assert "no board found on the cable" in process.stderr
    assert len(process.stderr.splitlines()) == 1
