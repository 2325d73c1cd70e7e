"""Place and route over several seeds, for the benchmark's hardware figures.

Yosys runs once per target; nextpnr then runs once per seed on the same
netlist, because the seed only changes placement. Each run's JSON report gives
Fmax and utilisation; the critical path's first and last cells say where the
clock is lost.

Targets are the supported boards (the board top: detector, UART link, LEDs)
and the bare core on a UP5K, an HX8K, an LFE5U-25F and an LFE5U-85F: the detector alone with every input
and output registered, fed and read through shift registers so that only
three pins are needed and nothing is optimised away. The bare core is also
measured with the upcoming block, with each other layout of the chain list
and with the backstop, on the UP5K and the HX8K. The search layer is
measured the same way: the perft core and the search unit (with its
detector) on the UP5K and the HX8K, and the unit on the LFE5U-85F.
"""

import json
import os
import re
import statistics
import subprocess
from dataclasses import asdict, dataclass, field

from amaranth_boards.ice40_hx8k_b_evn import ICE40HX8KBEVNPlatform
from amaranth_boards.icebreaker import ICEBreakerPlatform
from amaranth_boards.ulx3s import ULX3S_25F_Platform, ULX3S_85F_Platform

from ..hdl.params import CORE, LEAN, SHIPPED, WALKED, Pools
from .synthesis import prepare
from .build import (NAME, BuildError, fit_message, timing_log, over_capacity, find_tools,
                    utilisation)
from .families import ICE40, family_of
from .platforms import BOARDS, get_board
from ..hdl.board.bare_core import BareCore, BarePeer, BarePerft, BareSearchUnit
from ..hdl.board.top import PlatformTop
from ..hdl.board.uart import divisor_for


__all__ = ["Measurement", "measure", "config_for", "seeds_for", "all_targets", "TARGETS",
           "PEER_TARGETS", "SEARCH_TARGETS", "SEED_LIMITS"]


# Bare-core targets: name -> (the amaranth-boards platform whose device and
# UART pins the measurement borrows, the detector's configuration).
TARGETS = {
    "core-up5k": (ICEBreakerPlatform, CORE),
    "core-hx8k": (ICE40HX8KBEVNPlatform, CORE),
    # The same with the upcoming-repetition block: its cost in area and clock.
    "core-up5k-upcoming": (ICEBreakerPlatform, SHIPPED),
    "core-hx8k-upcoming": (ICE40HX8KBEVNPlatform, SHIPPED),
    # The ECP5s of the ULX3S: the smallest with room to spare, and the
    # largest FPGA with an open toolchain, where an array of cores goes.
    "core-lfe5u-25f": (ULX3S_25F_Platform, CORE),
    "core-lfe5u-85f": (ULX3S_85F_Platform, CORE),
    # The other layouts of the chain list (axon.sim.bench.layouts): the
    # pools by kind without the backstop, a spill pool a side, the lean one
    # pool a side, the 1K boards' walked list (whose targets keep their
    # names from before 0.4, `-serial`: they are bench.json's keys).
    "core-up5k-kind": (ICEBreakerPlatform, CORE.replace(backstop=False)),
    "core-hx8k-kind": (ICE40HX8KBEVNPlatform, CORE.replace(backstop=False)),
    "core-up5k-spill": (ICEBreakerPlatform, CORE.replace(pools=Pools.SPILL, backstop=False)),
    "core-hx8k-spill": (ICE40HX8KBEVNPlatform, CORE.replace(pools=Pools.SPILL, backstop=False)),
    "core-up5k-lean": (ICEBreakerPlatform, LEAN),
    "core-hx8k-lean": (ICE40HX8KBEVNPlatform, LEAN),
    "core-up5k-serial": (ICEBreakerPlatform, WALKED),
    "core-hx8k-serial": (ICE40HX8KBEVNPlatform, WALKED),
}

# The hash-key peer (:class:`~axon.hdl.zobrist_peer.ZobristPeer`) alone, the
# same way: name -> (platform, key width).
PEER_TARGETS = {
    "zobrist64-up5k": (ICEBreakerPlatform, 64),
    "zobrist64-hx8k": (ICE40HX8KBEVNPlatform, 64),
    "zobrist32-up5k": (ICEBreakerPlatform, 32),
    "zobrist32-hx8k": (ICE40HX8KBEVNPlatform, 32),
}

# The search layer in gateware, alone, the same way: name -> (platform, the
# bare top). The perft (:class:`~axon.hdl.search.Perft`: the move generator,
# make and unmake, the attack test) and the search unit
# (:class:`~axon.hdl.search.SearchUnit`: the perft walk with a score on
# every node and its embedded detector, the shipped configuration) on the
# UP5K and the HX8K, and the unit on the ULX3S's LFE5U-85F, where an array
# of units would go. A unit that does not fit a device is a result: its
# cells as nextpnr counted them (``does_not_fit``).
SEARCH_TARGETS = {
    "unit-hx8k": (ICE40HX8KBEVNPlatform, BareSearchUnit),
    "unit-lfe5u-85f": (ULX3S_85F_Platform, BareSearchUnit),
    "unit-up5k": (ICEBreakerPlatform, BareSearchUnit),
    "perft-up5k": (ICEBreakerPlatform, BarePerft),
    "perft-hx8k": (ICE40HX8KBEVNPlatform, BarePerft),
}

# The most seeds a search target is placed with, whatever ``--seeds`` asks:
# the unit does not fit the UP5K, and every seed of a design that does not
# fit fails alike, so one. The others take the run's seeds (five).
SEED_LIMITS = {"unit-up5k": 1}


@dataclass
class Measurement:
    target:       str
    device:       str
    seeds:        list
    fmax_mhz:     dict = field(default_factory=dict)   # {"min", "median", "max", "runs"}
    logic_cells:  dict = field(default_factory=dict)
    flip_flops:   int = 0
    block_rams:   dict = field(default_factory=dict)
    critical_path: dict = field(default_factory=dict)  # {"from", "to", "delay_ns"}
    # axon.boards.families: on an ECP5, logic_cells counts LUT4s (TRELLIS_COMB).
    family:       str = "ice40"

    def as_dict(self):
        return asdict(self)


def config_for(target):
    """The detector configuration a target is measured with: a board's own,
    or the bare core's of :data:`TARGETS`; ``None`` for the hash-key peer,
    which has none."""
    if target in PEER_TARGETS or target in SEARCH_TARGETS:
        return None
    if target in TARGETS:
        return TARGETS[target][1]
    return get_board(target).config


def _top_for(target, config):
    if target in PEER_TARGETS:
        platform, key_bits = PEER_TARGETS[target]
        return platform(), BarePeer(key_bits)
    if target in SEARCH_TARGETS:
        platform, top = SEARCH_TARGETS[target]
        return platform(), top()
    if target in TARGETS:
        return TARGETS[target][0](), BareCore(config)
    spec = get_board(target)
    divisor = divisor_for(spec.clk_freq, spec.baud)
    return spec.platform(), PlatformTop(spec, config, divisor=divisor)


def _fit_message_bare(short):
    cell, (used, available) = next(iter(short.items()))
    return f"does not fit: the design needs {used} {cell}, the device has {available}"


def _critical_path(report):
    paths = report.get("critical_paths") or []
    if not paths:
        return {}
    path = paths[0]["path"]
    return {
        "from": path[0].get("from", {}).get("cell", "?"),
        "to": path[-1].get("to", {}).get("cell", "?"),
        "delay_ns": round(sum(segment["delay"] for segment in path), 2),
    }


def seeds_for(target, seeds):
    """How many seeds ``target`` is placed with when ``seeds`` are asked:
    no more than its :data:`SEED_LIMITS`."""
    return min(seeds, SEED_LIMITS.get(target, seeds))


def measure(target, *, seeds=5, config=None, build_root="build/bench", log=None):
    """Synthesise ``target`` once and place and route it with seeds 1..``seeds``
    (at most its :data:`SEED_LIMITS`), with the detector of ``config``
    (default :func:`config_for` the target)."""
    seeds = seeds_for(target, seeds)
    config = config_for(target) if config is None else config
    platform, top = _top_for(target, config)
    family = family_of(platform)
    env = find_tools(family)
    build_dir = os.path.join(build_root, target)
    os.makedirs(build_dir, exist_ok=True)
    plan = prepare(platform, top, env,
                   ["--report", "report-1.json", "--seed", "1", "--timing-allow-fail"], NAME)
    plan.extract(build_dir)
    run_env = {**os.environ, "AMARANTH_USE_YOSYS": "builtin", **env}
    if log:
        log(f"{target}: synthesis and seed 1")
    process = subprocess.run(["sh", f"build_{NAME}.sh"], cwd=build_dir, capture_output=True,
                             text=True, env=run_env)
    if process.returncode != 0:
        # Say what `axon build` would say of a design that does not fit.
        short = over_capacity(timing_log(build_dir) + process.stdout + process.stderr, family)
        if short and target not in TARGETS and target not in PEER_TARGETS and \
                target not in SEARCH_TARGETS:
            spec = get_board(target)
            raise BuildError(fit_message(spec, config.chains, short))
        if short:
            error = BuildError(_fit_message_bare(short))
            # What nextpnr counted, for a result that says how far it is.
            error.short = short
            raise error
        raise subprocess.CalledProcessError(process.returncode, process.args,
                                            process.stdout, process.stderr)

    # The script's nextpnr line, re-run with other seeds (no bitstream needed).
    with open(os.path.join(build_dir, f"build_{NAME}.sh")) as file:
        nextpnr_line = next(line for line in file if line.startswith(f'"${family.nextpnr}"'))
    reports = []
    for seed in range(1, seeds + 1):
        if seed > 1:
            if log:
                log(f"{target}: seed {seed}")
            line = nextpnr_line.replace("--report report-1.json --seed 1",
                                        f"--report report-{seed}.json --seed {seed}")
            line = re.sub(rf"{family.placement} \S+", f"{family.placement} seed-{seed}."
                          f"{family.placement.lstrip('-')}", line)
            line = re.sub(r"--log \S+", f"--log seed-{seed}.tim", line)
            subprocess.run(["sh", "-c", line], cwd=build_dir, check=True, capture_output=True,
                           env=run_env)
        with open(os.path.join(build_dir, f"report-{seed}.json")) as file:
            reports.append(json.load(file))

    clock = next(iter(reports[0]["fmax"]))
    runs = [round(report["fmax"][clock]["achieved"], 2) for report in reports]
    logic_cells, flip_flops, block_rams = utilisation(reports[0], family,
                                                      os.path.join(build_dir, f"{NAME}.json"))
    median_run = sorted(zip(runs, range(len(runs))))[len(runs) // 2][1]
    return Measurement(
        target=target,
        device=f"{platform.device}-{platform.package}",
        seeds=list(range(1, seeds + 1)),
        fmax_mhz={"min": min(runs), "median": statistics.median(runs), "max": max(runs),
                  "runs": runs},
        logic_cells=logic_cells,
        # A count, and the block RAMs without their share, as the bench has
        # always written them.
        flip_flops=flip_flops["used"],
        block_rams={"used": block_rams["used"], "available": block_rams["available"]},
        critical_path=_critical_path(reports[median_run]),
        family=family.name,
    )


def all_targets():
    """The search layer's targets (:data:`SEARCH_TARGETS`), the bare cores
    on their iCE40 and ECP5 devices, then every iCE40 board. The search
    unit's, the slowest, come first, so that the cores are placed beside
    them rather than after. An ECP5 board's build (a ULX3S carries 16
    detectors) takes minutes a seed; its bare core stands for it here, and
    ``--targets ulx3s-85f`` measures the board."""
    return (list(SEARCH_TARGETS) + list(TARGETS)
            + [name for name, spec in BOARDS.items() if spec.family is ICE40])
