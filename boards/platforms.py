"""The iCE40 and ECP5 boards the detector is built for, and what each one can hold.

Pins, clocks and LEDs come from the amaranth-boards platform classes; this
table adds only what they do not say: which LEDs to use, the UART baud rate
the board's USB bridge handles, the detector configuration that fits the
device, and how to program it.

iCE40 boards in amaranth-boards that are *not* listed, and why:

* BlackIce, BlackIce II (HX4K): a 100 MHz oscillator and no PLL in the
  design; the detector's chain list does not close timing at 100 MHz on HX
  parts, and a PLL-derived clock is not worth it for a board this rare.
* iCEBreaker Bitsy, UPduino v1/v2/v3, iCE40UP5K-B-EVN, Fomu, TinyFPGA BX,
  iCE40HX1K-Blink-EVN: no ``uart`` resource (USB only, or nothing).

Of the ECP5 boards, the ULX3S is listed in the four sizes amaranth-boards
has; the others (ECPIX-5, Versa ECP5, OrangeCrab, ...) are neither built nor
tested here.
"""

from dataclasses import dataclass
from typing import Optional

from amaranth_boards.icebreaker import ICEBreakerPlatform
from amaranth_boards.icestick import ICEStickPlatform
from amaranth_boards.ice40_hx8k_b_evn import ICE40HX8KBEVNPlatform
from amaranth_boards.icesugar import ICESugarPlatform
from amaranth_boards.icesugar_nano import ICESugarNanoPlatform
from amaranth_boards.nandland_go import NandlandGoPlatform
from amaranth_boards.ulx3s import (ULX3S_12F_Platform, ULX3S_25F_Platform, ULX3S_45F_Platform,
                                   ULX3S_85F_Platform)

from .families import family_of

from ..hdl.params import SHIPPED, WALKED, DetectorConfig


__all__ = ["BoardSpec", "BOARDS", "DEFAULT_BOARD", "get_board"]


@dataclass(frozen=True)
class BoardSpec:
    """One supported board.

    ``led_repetition``/``led_error`` are ``(resource name, number)`` or
    ``None``. ``config`` is the detector configuration built for the device
    (:class:`~axon.hdl.params.DetectorConfig`: the shipped one, or the 1K
    boards' :data:`~axon.hdl.params.WALKED`). ``logic_cells`` is the device's
    count of nextpnr's logic cell (ICESTORM_LC on an iCE40, the LUT4s of
    TRELLIS_COMB on an ECP5), for fit advice before nextpnr runs.
    """
    name:            str
    platform:        type
    description:     str
    baud:            int
    config:          DetectorConfig
    logic_cells:     int
    led_repetition:  Optional[tuple]
    led_error:       Optional[tuple]
    iceprog_args:    Optional[tuple] = ()        # None: iceprog cannot program it
    # openFPGALoader's names for the board, most specific first; the first one
    # the installed version lists is used (see axon.boards.program).
    openfpgaloader_boards: tuple = ()
    note:            str = ""

    @property
    def clk_freq(self):
        platform = self.platform
        return platform().lookup(platform.default_clk).clock.frequency

    @property
    def family(self):
        """The :class:`~axon.boards.families.Family` of the board's FPGA."""
        return family_of(self.platform)

    @property
    def device(self):
        return f"{self.platform.device}-{self.platform.package}"


# The 1K boards (1280 logic cells) take the walked chain list in block RAM
# behind the one-word scan (WALKED, see axon.hdl.params), the others the
# shipped one.
BOARDS = {spec.name: spec for spec in [
    BoardSpec(
        name="icebreaker", platform=ICEBreakerPlatform,
        description="1BitSquared iCEBreaker (iCE40UP5K, FT2232H USB UART)",
        baud=1_000_000, config=SHIPPED, logic_cells=5280,
        led_repetition=("led_g", 0), led_error=("led_r", 0),
        openfpgaloader_boards=("ice40_generic",)),
    BoardSpec(
        name="icestick", platform=ICEStickPlatform,
        description="Lattice iCEstick (iCE40HX1K, FT2232H USB UART)",
        baud=1_000_000, config=WALKED, logic_cells=1280,
        # D5 is the green LED in the middle; D1 is red.
        led_repetition=("led", 4), led_error=("led", 0),
        openfpgaloader_boards=("ice40_generic",)),
    BoardSpec(
        name="hx8k", platform=ICE40HX8KBEVNPlatform,
        description="Lattice iCE40-HX8K breakout board (FT2232H USB UART)",
        baud=1_000_000, config=SHIPPED, logic_cells=7680,
        led_repetition=("led", 0), led_error=("led", 1),
        # SRAM configuration, as amaranth-boards does it (jumpers J6/J7 set for it).
        iceprog_args=("-S",), openfpgaloader_boards=("ice40_generic",)),
    BoardSpec(
        name="icesugar", platform=ICESugarPlatform,
        description="MuseLab iCESugar (iCE40UP5K, iCELink USB UART)",
        # The iCELink CDC bridge is specified up to 115200 baud.
        baud=115_200, config=SHIPPED, logic_cells=5280,
        led_repetition=("led_g", 0), led_error=("led_r", 0),
        iceprog_args=None, openfpgaloader_boards=("icesugar",),
        note="iceprog cannot program it: use openFPGALoader or icesprog"),
    BoardSpec(
        name="icesugar-nano", platform=ICESugarNanoPlatform,
        description="MuseLab iCESugar-nano (iCE40LP1K, iCELink USB UART)",
        baud=115_200, config=WALKED, logic_cells=1280,
        # One LED only: it shows repetitions.
        led_repetition=("led", 0), led_error=None,
        iceprog_args=None, openfpgaloader_boards=("icesugar_nano",),
        note="iceprog cannot program it: use openFPGALoader or icesprog"),
    BoardSpec(
        name="nandland-go", platform=NandlandGoPlatform,
        description="Nandland Go Board (iCE40HX1K, 25 MHz, FT2232H USB UART)",
        baud=1_000_000, config=WALKED, logic_cells=1280,
        led_repetition=("led", 0), led_error=("led", 3),
        openfpgaloader_boards=("ice40_generic",)),
    *(BoardSpec(
        name=f"ulx3s-{size}", platform=platform,
        description=f"Radiona ULX3S (LFE5U-{size.upper()}, FT231X USB UART)",
        # The FT231X is specified up to 3 Mbaud; 1 Mbaud is 25 clocks a bit
        # at the board's 25 MHz, the iCE40 boards' rate.
        baud=1_000_000, config=SHIPPED, logic_cells=lut4s,
        led_repetition=("led", 0), led_error=("led", 7),
        iceprog_args=None, openfpgaloader_boards=("ulx3s",),
        note="iceprog cannot program it (an ECP5): use openFPGALoader")
      # LUT4s as nextpnr counts them: the 12F is the 25F's die, and nextpnr
      # places on all of it.
      for size, platform, lut4s in (("12f", ULX3S_12F_Platform, 24288),
                                    ("25f", ULX3S_25F_Platform, 24288),
                                    ("45f", ULX3S_45F_Platform, 43848),
                                    ("85f", ULX3S_85F_Platform, 83640))),
]}

DEFAULT_BOARD = "icebreaker"


def get_board(name):
    try:
        return BOARDS[name]
    except KeyError:
        raise ValueError(f"unknown board {name!r}; supported: {', '.join(BOARDS)}") from None
