"""Flashing a board: which programmer, which command line, and whether the
bitstream is for the board's device at all.

Two programmers are supported, both from Debian: ``iceprog`` (fpga-icestorm)
and ``openFPGALoader``. The command lines are the ones the versions Debian
ships understand; openFPGALoader 0.10 knows the FTDI boards only as
``ice40_generic`` (the iCEBreaker, iCEstick, HX8K breakout and Go Board all
wire their FT2232H like Lattice's own programmer) and has no iCESugar
support, so for those boards the board list of the installed version decides.
The ULX3S (an ECP5, which iceprog cannot program) is ``ulx3s`` to it, on the
board's FT231X.
"""

import os
import shutil
import subprocess

from .families import ECP5


__all__ = ["BitstreamError", "ProgrammerError", "bitstream_device", "ecp5_bitstream_device",
           "check_bitstream",
           "programmer_command", "failure_reason"]

# Columns of configuration memory per device (icepack's CRAM bank width), as
# the bitstream's "bank width" command gives them.
_DEVICE_WIDTHS = {332: "iCE40 1K (HX1K/LP1K)", 692: "iCE40 UP5K", 872: "iCE40 8K (HX8K/LP8K)"}
_PREAMBLE = bytes.fromhex("7eaa997e")
_BANK_WIDTH = 0x6   # command: the payload is the bank width minus one

# An ECP5 bitstream (ecppack) names its device by the JTAG IDCODE that its
# VERIFY_ID command checks before configuration. The 12F has its own IDCODE,
# though it is the 25F's die.
_ECP5_PREAMBLE = bytes.fromhex("ffffbdb3")
_ECP5_VERIFY_ID = 0xe2
_ECP5_IDCODES = {0x21111043: "LFE5U-12F", 0x41111043: "LFE5U-25F", 0x41112043: "LFE5U-45F",
                 0x41113043: "LFE5U-85F"}

# What each programmer prints when nothing answers on the USB side.
_NO_BOARD = ("Can't find iCE FTDI USB device", "unable to open ftdi device",
             "Failed to claim cable", "No cable found", "cable not found")


class BitstreamError(Exception):
    """The file is not a bitstream for the board's device."""


class ProgrammerError(Exception):
    """No programmer on PATH can program the board."""


def _expected_width(spec):
    device = spec.platform.device.upper()
    if device.endswith("1K"):
        return 332
    if device.endswith("UP5K"):
        return 692
    if device.endswith("8K"):
        return 872
    return None


def ecp5_bitstream_device(data):
    """The device name (``"LFE5U-85F"``) of an ECP5 bitstream, or ``None`` if
    ``data`` is not one. The device is read from the VERIFY_ID command that
    follows the preamble."""
    start = data.find(_ECP5_PREAMBLE)
    if start < 0:
        return None
    # ecppack writes a dummy byte run and a RESET_CRC (0x3b, three operand
    # bytes) before VERIFY_ID (0xe2, three operand bytes, the IDCODE).
    index = start + len(_ECP5_PREAMBLE)
    while index < len(data) and data[index] == 0xff:
        index += 1
    for _ in range(4):
        if index + 8 > len(data):
            return None
        if data[index] == _ECP5_VERIFY_ID:
            idcode = int.from_bytes(data[index + 4:index + 8], "big")
            return _ECP5_IDCODES.get(idcode, f"an unknown ECP5 (IDCODE 0x{idcode:08x})")
        index += 4
    return None


def bitstream_device(data):
    """``(width, device name)`` of an iCE40 bitstream, or ``None`` if ``data``
    is not one. The device is read from the bank-width command that follows
    the preamble."""
    start = data.find(_PREAMBLE)
    if start < 0:
        return None
    index = start + len(_PREAMBLE)
    # A few configuration commands before the first bank: an opcode byte (the
    # command in the high nibble, the payload length in the low one), then
    # the payload, most significant byte first.
    for _ in range(16):
        if index >= len(data):
            return None
        command, length = data[index] >> 4, data[index] & 0xf
        payload = data[index + 1:index + 1 + length]
        if len(payload) < length:
            return None
        if command == _BANK_WIDTH and length == 2:
            width = int.from_bytes(payload, "big") + 1
            return width, _DEVICE_WIDTHS.get(width, f"an unknown iCE40 ({width} columns)")
        index += 1 + length
    return None


def check_bitstream(spec, path):
    """Raise :class:`BitstreamError` unless ``path`` is a bitstream for ``spec``'s device."""
    with open(path, "rb") as file:
        data = file.read(4096)
    if spec.family is ECP5:
        found = ecp5_bitstream_device(data)
        device = found or _ice40_name(data)
        if found is None and device is None:
            raise BitstreamError(f"{path} is not an ECP5 bitstream (no preamble and IDCODE "
                                 f"in its first bytes)")
        if device != spec.platform.device:
            raise BitstreamError(f"{path} is a bitstream for {device}, but the {spec.name} "
                                 f"board has an {spec.platform.device}: build one with axon "
                                 f"build --board {spec.name}")
        return
    found = bitstream_device(data)
    if found is None:
        device = ecp5_bitstream_device(data)
        if device is not None:
            raise BitstreamError(f"{path} is a bitstream for {device}, but the {spec.name} "
                                 f"board has an {spec.platform.device}: build one with axon "
                                 f"build --board {spec.name}")
        raise BitstreamError(f"{path} is not an iCE40 bitstream (no preamble and bank width "
                             f"in its first bytes)")
    width, device = found
    if width != _expected_width(spec):
        raise BitstreamError(f"{path} is a bitstream for {device}, but the {spec.name} board "
                             f"has an {spec.platform.device}: build one with axon build "
                             f"--board {spec.name}")


def _ice40_name(data):
    found = bitstream_device(data)
    return None if found is None else found[1]


def _loader_boards(loader):
    try:
        listed = subprocess.run([loader, "--list-boards"], capture_output=True, text=True,
                                timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {line.split()[0] for line in listed.splitlines() if line.strip()}


def programmer_command(spec, bitstream):
    """The programming command line for ``spec``, or raise :class:`ProgrammerError`.

    iceprog is preferred where it can program the board (``spec.iceprog_args``
    not ``None``); otherwise openFPGALoader with the first of the board's
    names that the installed version lists.
    """
    iceprog = shutil.which(os.environ.get("ICEPROG", "iceprog"))
    loader = shutil.which("openFPGALoader")
    if iceprog and spec.iceprog_args is not None:
        return [iceprog, *spec.iceprog_args, bitstream]
    if loader and spec.openfpgaloader_boards:
        known = _loader_boards(loader)
        for board in spec.openfpgaloader_boards:
            if board in known:
                return [loader, "-b", board, bitstream]
        raise ProgrammerError(
            f"this openFPGALoader knows none of the boards {', '.join(spec.openfpgaloader_boards)}"
            f" ({spec.name} support came with later versions)"
            + (f"; {spec.note}" if spec.note else ""))
    if spec.iceprog_args is None:
        raise ProgrammerError(f"no programmer for {spec.name} on PATH: install openFPGALoader "
                              f"(Debian: apt install openfpgaloader; {spec.note})")
    raise ProgrammerError(
        f"no programmer for {spec.name} on PATH: install iceprog (Debian: apt install "
        f"fpga-icestorm) or openFPGALoader (Debian: apt install openfpgaloader)")


def failure_reason(output):
    """One line for a programmer's failure: "no board found on the cable" when
    nothing answered, else the last line it printed."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if any(marker.lower() in line.lower() for marker in _NO_BOARD):
            return f"no board found on the cable ({line})"
    return lines[-1] if lines else "no output"
