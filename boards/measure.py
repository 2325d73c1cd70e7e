"""Place and route over several seeds, for the benchmark's hardware figures.

Yosys runs once per target; nextpnr then runs once per seed on the same
netlist, because the seed only changes placement. Each run's JSON report gives
Fmax and utilisation; the critical path's first and last cells say where the
clock is lost.

Targets are the supported boards (the board top: detector, UART link, LEDs)
and the bare core on a UP5K and an HX8K: the detector alone with every input
and output registered, fed and read through shift registers so that only
three pins are needed and nothing is optimised away.
"""

import json
import os
import re
import statistics
import subprocess
from dataclasses import asdict, dataclass, field

from amaranth_boards.ice40_hx8k_b_evn import ICE40HX8KBEVNPlatform
from amaranth_boards.icebreaker import ICEBreakerPlatform

from ..hdl.params import SHIPPED
from .synthesis import prepare
from .build import (NAME, BuildError, _count_flip_flops, _fit_message, _log, _over_capacity,
                    find_tools)
from .platforms import BOARDS, get_board
from ..hdl.board.bare_core import BareCore
from ..hdl.board.top import PlatformTop
from ..hdl.board.uart import divisor_for


__all__ = ["Measurement", "measure", "config_for", "TARGETS"]


# Bare-core targets: name -> the amaranth-boards platform whose device and
# UART pins the measurement borrows.
TARGETS = {
    "core-up5k": ICEBreakerPlatform,
    "core-hx8k": ICE40HX8KBEVNPlatform,
    # The same with the upcoming-repetition block: its cost in area and clock.
    "core-up5k-upcoming": ICEBreakerPlatform,
    "core-hx8k-upcoming": ICE40HX8KBEVNPlatform,
}


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

    def as_dict(self):
        return asdict(self)


def config_for(target):
    """The detector configuration a target is measured with: a board's own,
    or the shipped one for the bare core (with the upcoming repetition for a
    ``core-*-upcoming`` target only)."""
    if target in TARGETS:
        return SHIPPED.replace(upcoming=target.endswith("-upcoming"))
    return get_board(target).config


def _top_for(target, config):
    if target in TARGETS:
        return TARGETS[target](), BareCore(config)
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


def measure(target, *, seeds=5, config=None, build_root="build/bench", log=None):
    """Synthesise ``target`` once and place and route it with seeds 1..``seeds``,
    with the detector of ``config`` (default :func:`config_for` the target)."""
    env = find_tools()
    config = config_for(target) if config is None else config
    platform, top = _top_for(target, config)
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
        short = _over_capacity(_log(build_dir) + process.stdout + process.stderr)
        if short and target not in TARGETS:
            spec = get_board(target)
            raise BuildError(_fit_message(spec, config.chains, short))
        if short:
            raise BuildError(_fit_message_bare(short))
        raise subprocess.CalledProcessError(process.returncode, process.args,
                                            process.stdout, process.stderr)

    # The script's nextpnr line, re-run with other seeds (no icepack needed).
    with open(os.path.join(build_dir, f"build_{NAME}.sh")) as file:
        nextpnr_line = next(line for line in file if line.startswith('"$NEXTPNR_ICE40"'))
    reports = []
    for seed in range(1, seeds + 1):
        if seed > 1:
            if log:
                log(f"{target}: seed {seed}")
            line = nextpnr_line.replace("--report report-1.json --seed 1",
                                        f"--report report-{seed}.json --seed {seed}")
            line = re.sub(r"--asc \S+", f"--asc seed-{seed}.asc", line)
            line = re.sub(r"--log \S+", f"--log seed-{seed}.tim", line)
            subprocess.run(["sh", "-c", line], cwd=build_dir, check=True, capture_output=True,
                           env=run_env)
        with open(os.path.join(build_dir, f"report-{seed}.json")) as file:
            reports.append(json.load(file))

    clock = next(iter(reports[0]["fmax"]))
    runs = [round(report["fmax"][clock]["achieved"], 2) for report in reports]
    usage = reports[0]["utilization"]
    median_run = sorted(zip(runs, range(len(runs))))[len(runs) // 2][1]
    return Measurement(
        target=target,
        device=f"{platform.device}-{platform.package}",
        seeds=list(range(1, seeds + 1)),
        fmax_mhz={"min": min(runs), "median": statistics.median(runs), "max": max(runs),
                  "runs": runs},
        logic_cells={"used": usage["ICESTORM_LC"]["used"],
                     "available": usage["ICESTORM_LC"]["available"],
                     "percent": round(100 * usage["ICESTORM_LC"]["used"] /
                                      usage["ICESTORM_LC"]["available"], 1)},
        flip_flops=_count_flip_flops(os.path.join(build_dir, f"{NAME}.json")),
        block_rams={"used": usage["ICESTORM_RAM"]["used"],
                    "available": usage["ICESTORM_RAM"]["available"]},
        critical_path=_critical_path(reports[median_run]),
    )


def all_targets():
    """The bare core on both device families, then every supported board."""
    return list(TARGETS) + list(BOARDS)
