"""How many detectors a board's build carries behind its link by default.

The most that fit the device at its board clock, with a margin: a build
of that many must leave room and clock to spare, so that a change to the
detector or a nextpnr seed does not tip it over. ``axon build --detectors
N`` and ``sim://BOARD?detectors=N`` choose another count. The figures come
from ``axon build --board BOARD --detectors N`` (docs/protocol.md has the
table).

* ``hx8k`` (iCE40HX8K, 7680 logic cells, 32 block RAMs, 12 MHz): with the
  backstop, one detector and the link take 3908 logic cells (50.9 %) at
  73.99 MHz, two 6962 (90.7 %) at
  59.93 MHz: they fit, but without the margin (at least 15 % of the logic
  cells free, Fmax about twice the board clock or more), so the default is
  one (without the backstop two took 5723, 75 %).
* iCE40UP5K boards (``icebreaker``, ``icesugar``): one detector uses over half of
  the 5280 logic cells.
* iCE40HX1K boards (``icestick``, ``icesugar-nano``, ``nandland-go``): one lean
  detector fills most of the 1280 logic cells.
* ``ulx3s-85f`` (LFE5U-85F, 83,640 LUT4, 208 DP16KD, 25 MHz): with the
  backstop, one detector and the link take 3,307 LUT4s at 69.2 MHz and
  sixteen 38,927 (47 %) at 59.9 MHz (before it: eight 14,548 at 49.6 MHz,
  32 55,543 at 39.8 MHz). The default stops at 16, half the
  device free (margin: Fmax about twice the board clock, which 32 missed,
  and a build of 28 minutes on a 2-core machine, against 48 for 32).
"""

from .platforms import get_board


__all__ = ["DEFAULT_DETECTORS", "default_detectors"]

#: Detectors of a default build, by board name; a board not listed has one.
DEFAULT_DETECTORS = {
    "ulx3s-85f": 16,
}


def default_detectors(board):
    """Detectors a build for ``board`` (a name) carries by default."""
    return DEFAULT_DETECTORS.get(get_board(board).name, 1)
