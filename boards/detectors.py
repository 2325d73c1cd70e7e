"""How many detectors a board's build carries behind its link by default.

The most that fit the device at its board clock, with a margin: a build
of that many must leave room and clock to spare, so that a change to the
detector or a nextpnr seed does not tip it over. ``axon build --detectors
N`` and ``sim://BOARD?detectors=N`` choose another count. The figures come
from ``axon build --board BOARD --detectors N`` (docs/protocol.md has the
table).

* ``hx8k`` (iCE40HX8K, 7680 logic cells, 32 block RAMs, 12 MHz): one
  detector and the link take 3293 logic cells at 71 MHz, two 5723 (75 %)
  at 70 MHz; three need about 8052 and do not fit (margin: at least
  15 % of the logic cells free, Fmax at least twice the board clock).
* iCE40UP5K boards (``icebreaker``, ``icesugar``): one detector uses over half of
  the 5280 logic cells.
* iCE40HX1K boards (``icestick``, ``icesugar-nano``, ``nandland-go``): one lean
  detector fills most of the 1280 logic cells.
* ``ulx3s-85f`` (LFE5U-85F, 83,640 LUT4, 208 DP16KD, 25 MHz): a bare core takes
  1,156 LUT4 and 2 DP16KD at 105.8 MHz, room by area for about 70; 16 keeps
  the LUT4s under a quarter of the device and the shared link's
  multiplexer shallow (margin: Fmax at least twice the board clock).
"""

from .platforms import get_board


__all__ = ["DEFAULT_DETECTORS", "default_detectors"]

#: Detectors of a default build, by board name; a board not listed has one.
DEFAULT_DETECTORS = {
    "hx8k":      2,
    "ulx3s-85f": 16,
}


def default_detectors(board):
    """Detectors a build for ``board`` (a name) carries by default."""
    return DEFAULT_DETECTORS.get(get_board(board).name, 1)
