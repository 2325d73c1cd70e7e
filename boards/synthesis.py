"""The iCE40 synthesis script: one definition for the bitstream and the netlist.

The board build (:mod:`axon.boards.build`), the bare core's measurement
(:mod:`axon.boards.measure`) and the netlist backend
(:mod:`axon.sim.backends.netlist`) all synthesise with Amaranth's iCE40 Yosys
script and the overrides passed here (:func:`prepare`), so that the netlist
the soak simulates is the one the bitstream is made of.
"""

from amaranth.hdl import Module
from amaranth_boards.icebreaker import ICEBreakerPlatform

from . import toolchain


__all__ = ["SYNTH_SCRIPT_AFTER_READ", "prepare", "synthesis_script"]

# The move list's block RAM reads and host writes never meet on one clock
# where it matters: the scan's reads happen only while writes are refused,
# and the detector itself gives a host read of the word being written the
# new word (AxonDetector's bypass). Amaranth cannot say so, and without it
# Yosys wraps every read port in read-first emulation: an address comparison
# on the path from `top` to the block RAM, and a multiplexer after it.
SYNTH_SCRIPT_AFTER_READ = "setparam -set COLLISION_X_MASK 1 t:$memrd_v2"


def prepare(platform, top, env, nextpnr_opts, name):
    """``platform.prepare(top, ...)`` with the tools of ``env``
    (:func:`~axon.boards.toolchain.find_tools`) and the project's
    overrides: the one place that passes them to Amaranth."""
    with toolchain.environment({"AMARANTH_USE_YOSYS": "builtin", **env}):
        return platform.prepare(top, name=name, nextpnr_opts=nextpnr_opts,
                                script_after_read=SYNTH_SCRIPT_AFTER_READ)


def synthesis_script(name, platform=ICEBreakerPlatform):
    """The board build's Yosys script (``read_rtlil``, ``synth_ice40`` with the
    build's options, ``write_json``) for a design called ``name``.

    It reads ``{name}.il`` and writes ``{name}.json``. The script is rendered by
    an iCE40 board's Amaranth platform, as for a bitstream, around an empty
    design: it depends neither on the design nor on the board (every iCE40
    board of the project renders the same; a test checks it). Raises
    :class:`~axon.boards.toolchain.ToolMissing` without the tools.
    """
    tools = toolchain.find_tools()     # first: a design made and never used would warn
    return prepare(platform(), Module(), tools, [], name=name).files[f"{name}.ys"]
