"""The real GTKWave, run headless under Xvfb: what its window shows, and a picture of it.

GTKWave runs a Tcl script given with ``-S`` once it has built and laid out
its window, and one given with ``-R`` from a timer of its main loop, after
the window has been drawn. The two scripts here read GTKWave's own numbers
at both moments (the first and last time in the wave pane, the dump's first
and last time, the zoom and the time a pixel spans) and the second quits.
:func:`grab` has GTKWave write its window to a PNG (File → Grab To File).

Make the picture in ``docs/waves.md``::

    axon scan sim/data/paper_figure5.pgn --vcd /tmp/waves/figure5.vcd -q
    python -m axon.sim.backends.gtkwave /tmp/waves/figure5.gtkw --screenshot docs/waves.png
"""

import argparse
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


__all__ = ["XVFB_SCREEN", "WaveWindow", "RunTooBig", "headless_gtkwave", "window_times", "grab",
           "main"]

# The screen the save file's window must fit (axon.sim.backends.waves.SCREEN).
XVFB_SCREEN = "-screen 0 1600x900x24"
# How often GTKWave's main loop runs the -R script, in ms (it skips the first tick).
_REPEAT_MS = 250
_TIMEOUT_S = 60

_READ = ("[gtkwave::getWindowStartTime] [gtkwave::getWindowEndTime] "
         "[gtkwave::getMinTime] [gtkwave::getMaxTime] [gtkwave::getZoomFactor] "
         "[gtkwave::getUnitTimePixels]")
_LINE = re.compile(r"^(BUILT|SHOWN) (\d+) (\d+) (\d+) (\d+) (\S+) (\S+)$", flags=re.M)


@dataclasses.dataclass(frozen=True)
class WaveWindow:
    """What GTKWave's wave pane shows, in the dump's time units."""
    start: int          # the time at the pane's left edge
    end: int            # the time at its right edge
    first: int          # the dump's first timestamp
    last: int           # the dump's last timestamp
    zoom: float         # GTKWave's zoom factor
    unit_per_pixel: float

    @property
    def pane_pixels(self):
        return round((self.end - self.start) / self.unit_per_pixel)

    def shows_whole_run(self):
        """The whole dump is in the pane, and fills at least half of it."""
        return (self.start <= self.first and self.end >= self.last
                and self.end - self.start <= 2 * (self.last - self.first))

    def __str__(self):
        return (f"{self.start} to {self.end} of {self.first} to {self.last} "
                f"(zoom {self.zoom:g}, {self.pane_pixels} px)")


def headless_gtkwave():
    """The command that starts GTKWave under a new Xvfb server, or ``None``
    when ``gtkwave`` or ``xvfb-run`` is not installed."""
    gtkwave, xvfb_run = shutil.which("gtkwave"), shutil.which("xvfb-run")
    if not gtkwave or not xvfb_run:
        return None
    return [xvfb_run, "-a", "-s", XVFB_SCREEN, gtkwave]


def _tcl_word(text):
    return re.sub(r"([\\\[\]{}$\";\s])", r"\\\1", text)


class RunTooBig(RuntimeError):
    """GTKWave did not get through the dump in the time given."""


def _dump_of(gtkw):
    """The dump a save file names, as GTKWave finds it (beside the save file
    when the path is relative), or ``None``."""
    with open(gtkw) as file:
        for line in file:
            if line.startswith("[dumpfile]"):
                path = line.split(None, 1)[1].strip().strip('"')
                return os.path.join(os.path.dirname(os.path.abspath(gtkw)), path)
    return None


def _run(gtkw, shown_tcl, timeout, wait_for_layout=True):
    """Open ``gtkw`` in GTKWave with the two scripts; return its stdout.

    ``shown_tcl`` runs from the main loop once the window is drawn and, with
    ``wait_for_layout``, once the layout script has run; GTKWave quits after
    it, whether it succeeded or not. ``wait_for_layout=False`` quits at the
    main loop's first tick, which on a large dump comes before the layout
    script: a check that must then fail."""
    command = headless_gtkwave()
    if command is None:
        raise RuntimeError("needs gtkwave and xvfb-run (Debian: apt install gtkwave xvfb)")
    if not os.path.isfile(gtkw):
        raise RuntimeError(f"{gtkw}: no such save file")
    with tempfile.TemporaryDirectory(prefix="axon-gtkwave-") as folder:
        built = os.path.join(folder, "built.tcl")
        shown = os.path.join(folder, "shown.tcl")
        with open(built, "w") as file:
            file.write(f'set ::axon_built 1\nputs "BUILT {_READ}"\nflush stdout\n')
        # On a large dump the main loop's timer runs the -R script before
        # GTKWave gets to the -S one: wait for it (both share one Tcl
        # interpreter), for at most as many ticks as the timeout allows.
        ticks = int(timeout * 1000 / _REPEAT_MS * 0.8)
        with open(shown, "w") as file:
            file.write("if {![info exists ::axon_ticks]} {set ::axon_ticks 0}\n"
                       "incr ::axon_ticks\n"
                       f"if {{[info exists ::axon_built] || $::axon_ticks > {ticks}"
                       f" || {int(not wait_for_layout)}}} {{\n"
                       f"  if {{[catch {{{shown_tcl}}} message]}} {{puts \"FAILED $message\"}}\n"
                       "  flush stdout\n  gtkwave::/File/Quit\n}\n")
        for attempt in range(3):
            # A session of its own, so that a timeout ends Xvfb and GTKWave
            # with xvfb-run.
            process = subprocess.Popen(
                [*command, "-S", built, "-R", shown, "-P", str(_REPEAT_MS), gtkw],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder,
                start_new_session=True)
            try:
                stdout, stderr = process.communicate(timeout=timeout)
                process = subprocess.CompletedProcess(process.args, process.returncode,
                                                      stdout, stderr)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                dump = _dump_of(gtkw)
                size = (f" ({os.path.getsize(dump) / 1e6:.0f} MB)"
                        if dump and os.path.isfile(dump) else "")
                raise RunTooBig(
                    f"{gtkw}: GTKWave did not open its dump{size} within {timeout} s: the run "
                    f"is too big to check here; give it more time (--timeout), or write the "
                    f"waveform of fewer games (axon scan FEW.pgn --vcd FILE.vcd)") from None
            # xvfb-run -a can pick the display number another run just took,
            # and on a loaded machine the server may not be up in time: both
            # end before GTKWave ran its scripts, and a second try settles it.
            if "BUILT" in process.stdout or not any(
                    sign in process.stderr for sign in ("Xvfb failed to start",
                                                        "cannot open display")):
                break
            time.sleep(1 + attempt)
    failed = re.search(r"^FAILED (.*)$", process.stdout, flags=re.M)
    errors = [line for line in process.stderr.splitlines() if "ERROR" in line]
    if failed or errors or process.returncode:
        reason = failed.group(1) if failed else errors[0] if errors else \
            (process.stderr.strip().splitlines() or [f"exit status {process.returncode}"])[-1]
        raise RuntimeError(f"{gtkw}: GTKWave: {reason}")
    return process.stdout


def window_times(gtkw, timeout=_TIMEOUT_S, wait_for_layout=True):
    """Open ``gtkw`` in GTKWave; return ``(built, shown)``, the
    :class:`WaveWindow` read once the window is laid out (``-S``) and once
    the main loop has drawn it (``-R``). ``wait_for_layout``: see
    :func:`_run`."""
    output = _run(gtkw, f'puts "SHOWN {_READ}"', timeout, wait_for_layout)
    readings = {match.group(1): WaveWindow(*map(int, match.groups()[1:5]),
                                           *map(float, match.groups()[5:]))
                for match in _LINE.finditer(output)}
    if set(readings) != {"BUILT", "SHOWN"}:
        raise RuntimeError(f"{gtkw}: GTKWave's scripts printed no window times: {output!r}")
    return readings["BUILT"], readings["SHOWN"]


def grab(gtkw, png, timeout=_TIMEOUT_S):
    """Open ``gtkw`` in GTKWave and have it write its window to ``png``."""
    png = os.path.abspath(png)
    os.makedirs(os.path.dirname(png), exist_ok=True)
    if os.path.exists(png):
        os.remove(png)
    _run(gtkw, f"gtkwave::/File/Grab_To_File {_tcl_word(png)}", timeout)
    if not os.path.isfile(png):
        raise RuntimeError(f"{png}: GTKWave wrote no picture")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m axon.sim.backends.gtkwave",
        description="Open a GTKWave save file in the real GTKWave under Xvfb; print what "
                    "its wave pane shows, and optionally write a picture of its window.")
    parser.add_argument("gtkw", help="the save file, e.g. FILE.gtkw from axon scan --vcd FILE.vcd")
    parser.add_argument("--screenshot", metavar="PNG", help="write GTKWave's window to PNG")
    parser.add_argument("--timeout", type=float, default=_TIMEOUT_S, metavar="SECONDS",
                        help=f"give GTKWave this long to open the dump (default {_TIMEOUT_S})")
    args = parser.parse_args(argv)
    try:
        built, shown = window_times(args.gtkw, timeout=args.timeout)
        print(f"laid out: {built}")
        print(f"shown:    {shown}")
        print("the whole run is shown" if shown.shows_whole_run() else
              "the whole run is NOT shown")
        if args.screenshot:
            grab(args.gtkw, args.screenshot, timeout=args.timeout)
            print(f"wrote {args.screenshot}")
    except RunTooBig as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 1
    except RuntimeError as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0 if shown.shows_whole_run() else 1


if __name__ == "__main__":
    sys.exit(main())
