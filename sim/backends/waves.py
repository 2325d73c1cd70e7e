"""Waveforms of the detector: which signals to trace and a GTKWave save file.

:class:`~axon.sim.backends.pysim.RtlSession` with ``vcd=...`` writes the VCD through
Amaranth's simulator (which dumps every signal of the design) and then calls
:func:`write_gtkw`, which lays the interesting ones out in groups:

* **Query**: the host's view, ``start``, ``top``, ``count_limit``, ``busy``,
  ``done``, the result fields and ``cycles``;
* **Scanner**: the FSM state, the scan address, the word in hand, the plies
  and equal positions counted so far, the stop decision;
* **Chain list**: every slot's valid bit, piece type, from- and to-square, and the hit
  vectors compared a clock ahead;
* **Upcoming**: the occupancy, the upcoming answer and ``upcoming.done``, the
  word the upcoming block follows, its candidate and the path check's verdict.

Amaranth names a signal by its place in the hierarchy (``bench.top.scanner``)
and resolves clashes with ``$n`` suffixes whose numbers depend on elaboration
order, so :func:`write_gtkw` does not guess: it reads the names back from the
VCD header and only references signals that are there.

Waveforms are written only when asked for. Tests call :func:`wave_file_for_test`,
which returns a per-test VCD path when the environment variable
``AXON_WAVES`` names a directory, and ``None`` otherwise::

    AXON_WAVES=waves pytest tests/test_waves.py
    gtkwave waves/tests_test_waves.py_test_session_with_waves_fixture.gtkw
"""

import math
import os
import re

from vcd.gtkw import GTKWSave

from ...hdl.word import PIECE_LETTERS


__all__ = ["trace_signals", "vcd_signals", "gtkw_layout", "write_gtkw", "wave_file_for_test",
           "vcd_end_time", "zoom_to_fit", "WAVES_ENV"]

WAVES_ENV = "AXON_WAVES"


def trace_signals(dut):
    """The detector ports worth tracing, for ``Simulator.write_vcd(traces=...)``.

    Amaranth writes every signal of the design into the VCD anyway; these are
    the ones a testbench drives or reads.
    """
    ports = (dut.query, dut.memory, dut.upcoming)
    return [value for port in ports for _, _, value in port.signature.flatten(port)
            if value is not dut.memory.read_addr and value is not dut.memory.read_word]


def vcd_signals(vcd_path):
    """Read a VCD header; return ``{gtkw_name: (scope, name, size, var_type)}``.

    ``gtkw_name`` is how a GTKWave save file refers to the variable: the
    scopes and the name joined by dots, with ``[msb:0]`` after a vector, the
    form Amaranth's own GTKW writer uses.
    """
    signals = {}
    scope = []
    with open(vcd_path) as file:
        tokens = []
        for line in file:
            tokens.extend(line.split())
            if "$enddefinitions" in tokens:
                break
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if token == "$scope":
            scope.append(tokens[position + 2])
            position += 3
        elif token == "$upscope":
            scope.pop()
            position += 1
        elif token == "$var":
            var_type, size, _, name = tokens[position + 1:position + 5]
            size = int(size)
            suffix = f"[{size - 1}:0]" if size > 1 else ""
            signals[".".join([*scope, name]) + suffix] = (tuple(scope), name, size, var_type)
            position += 5
        else:
            position += 1
    return signals


_QUERY = ["query__start", "query__top", "query__root", "query__count_limit", "query__busy",
          "query__done", r"\query__result.repetition", r"\query__result.draw",
          r"\query__result.distance", r"\query__result.count",
          r"\query__result.overflow", r"\query__result.stop", r"\query__result.plies_scanned",
          "query__cycles"]

_HOST = ["memory__write_en", "memory__write_addr", "memory__write_word", "memory__write_refused"]

# The upcoming repetition: the answer at the top, then the candidate the
# upcoming block picks and the path check's verdict on it.
_UPCOMING = ["upcoming__occupancy", r"\upcoming__answer.found", r"\upcoming__answer.from_sq",
             r"\upcoming__answer.to_sq", r"\upcoming__answer.distance",
             r"\upcoming__answer.draw", "upcoming__done"]
_UPCOMING_INSIDE = ["mover_black", r"\word.taken", r"\word.by_mover", r"\word.depth",
                    "candidate_valid", "candidate_kind", r"\candidate_tag.from_sq",
                    r"\candidate_tag.to_sq", r"\candidate_tag.distance", "in_flight"]
_PATH_CHECK = ["verdict_valid", "reachable"]

# The scanner's internals change with its pipeline, so its group is built from
# what the VCD has: each entry is a *role* and the names that play it, in the
# order they are shown. Every role must be found at least once.
_WORD_FIELDS = ("piece", "from_sq", "to_sq", "barrier")
_SCANNER_ROLES = [
    ("state", ["fsm_state"]),
    ("scan address", ["fetch_addr", "scan_addr", "hand_addr", "word_present", "hand_valid"]),
    ("word in hand", [f"\\{word}.{field}"
                      for word in ("hand.white_move", "hand.black_move", "hand_white_move",
                                   "hand_black_move", "read_word")
                      for field in _WORD_FIELDS]
                     + ["take_newer", "take_older", "chain_apply"]),
    ("plies", [r"\result.plies_scanned"]),
    ("count", ["equal_position", r"\result.count", "count_limit"]),
    ("stop", ["stop", "stop_reason"]),
]

# A slot of a paired pool (`chain3_from`) or an entry of an unpaired one
# (`start3_sq`); an unpaired pool holds as many chains as start entries.
_SLOT_FIELD = re.compile(r"(?:chain(\d+)_(?:kind|from|to)|start(\d+)_(?:kind|sq))$")


def _slot_index(match):
    return int(match.group(1) if match.group(1) is not None else match.group(2))


def _scope_key(scope):
    # White's pool before Black's, as the golden model lists the chains.
    return (0 if "white" in scope[-1] else 1 if "black" in scope[-1] else 2, scope)


def gtkw_layout(available, dut):
    """Choose the traces from the VCD's signals ``available``.

    Returns ``(groups, missing)``: ``groups`` is ``[(name, closed, entries)]``
    where an entry is a GTKW name, or ``("bits", name, width)`` for a vector
    to show bit by bit; ``missing`` names what the layout wanted but the VCD
    does not have.
    """
    by_scope = {}
    for gtkw_name, (scope, name, size, _) in available.items():
        by_scope.setdefault(scope, {})[name] = (gtkw_name, size)
    top = ("bench", "top")
    missing = []

    def pick(scope, names, required=True):
        found = [by_scope.get(scope, {})[name][0] for name in names
                 if name in by_scope.get(scope, {})]
        if required:
            missing.extend(".".join([*scope, name]) for name in names
                           if name not in by_scope.get(scope, {}))
        return found

    query = pick(top, _QUERY)
    scanner_scope = (*top, "scanner")
    scanner = []
    for role, names in _SCANNER_ROLES:
        found = pick(scanner_scope, names, required=False)
        if not found:
            missing.append(f"{'.'.join(scanner_scope)}: no signal for the {role}")
        scanner += found

    chain_list = []
    slots = 0
    pool_scopes = sorted((scope for scope in by_scope
                          if scope[:3] == (*top, "chain_list")
                          and any(_SLOT_FIELD.match(name) for name in by_scope[scope])),
                         key=_scope_key)
    for scope in pool_scopes:
        names = by_scope[scope]
        indices = sorted({_slot_index(match) for match in map(_SLOT_FIELD.match, names)
                          if match})
        slots += len(indices)
        entries = []
        paired = any(name.startswith("chain") for name in names if _SLOT_FIELD.match(name))
        for valid in (["chain_valid"] if paired else ["start_valid", "end_valid"]):
            if valid in names:
                entries.append(("bits", *names[valid]))
            else:
                missing.append(".".join([*scope, valid]))
        for index in indices:
            if paired:
                entries += pick(scope, [f"chain{index}_kind", f"chain{index}_from",
                                        f"chain{index}_to"])
            else:
                entries += pick(scope, [f"start{index}_sq", f"end{index}_sq"])
                entries += pick(scope, [f"start{index}_kind", f"end{index}_kind"],
                                required=False)
        entries += pick(scope, ["from_hits", "to_hits", "start_hits", "end_hits",
                                "open_chains", "empty", "overflow"], required=False)
        chain_list.append((scope[-1], entries))
    if slots != dut.config.chains:
        missing.append(f"chain list: {slots} slots in the VCD, the detector has {dut.config.chains}")

    groups = [("Query", False, query), ("Scanner", False, scanner)]
    groups.append(("Chain list", False, chain_list))
    if dut.config.upcoming:
        upcoming_scope = (*top, "upcoming_check")
        groups.append(("Upcoming", False,
                       pick(top, _UPCOMING) + pick(upcoming_scope, _UPCOMING_INSIDE) +
                       pick((*upcoming_scope, "path_check"), _PATH_CHECK)))
    groups.append(("Host write port", True, pick(top, _HOST)))
    return groups, missing


def write_gtkw(vcd_path, gtkw_path, dut, zoom=None):
    """Write a GTKWave save file for the VCD at ``vcd_path`` (already closed).

    The save file opens on the whole run: ``zoom`` (GTKWave's zoom factor)
    defaults to :func:`zoom_to_fit` of the VCD's last timestamp; another
    value makes a save file that the check of GTKWave's view must reject.

    Returns the list of wanted signals the VCD does not have (they are left
    out of the save file and named in a comment in it), so a test can insist
    that the list is empty.
    """
    groups, missing = gtkw_layout(vcd_signals(vcd_path), dut)
    if zoom is None:
        zoom = zoom_to_fit(vcd_end_time(vcd_path))

    with open(gtkw_path, "w") as file:
        save = GTKWSave(file)

        filters = write_filters(os.path.splitext(gtkw_path)[0])

        def trace(entry):
            if isinstance(entry, tuple) and entry[0] == "bits":
                # One bit per slot, shown as a binary number: GTKWave 3.3
                # rejects the group that an expanded vector's bits close.
                save.trace(entry[1], datafmt="bin")
            else:
                save.trace(entry, datafmt="dec",
                           translate_filter_file=filters.get(_value_kind(entry)))

        save.comment("Generated by axon.sim.backends.waves for the Axon repetition detector")
        save.dumpfile(os.path.abspath(vcd_path))
        save.savefile(os.path.abspath(gtkw_path))
        # Open on the whole run, in a window wide enough to read it, with
        # every pane's width given so that the wave pane's is known.
        save.timestart(0)
        save.size(*WINDOW_SIZE)
        save.pos(0, 0)
        save.zoom_markers(zoom)
        save.treeopen("bench")
        save.treeopen("bench.top")
        file.write(f"[sst_width] {SST_WIDTH}\n")
        save.signals_width(SIGNALS_WIDTH)
        save.sst_expanded(True)
        for group, closed, entries in groups:
            with save.group(group, closed=closed):
                for entry in entries:
                    if isinstance(entry, tuple) and entry[0] != "bits":
                        subgroup, subentries = entry
                        with save.group(subgroup):
                            for subentry in subentries:
                                trace(subentry)
                    else:
                        trace(entry)
        if missing:
            save.comment("not in the VCD: " + "; ".join(missing))
    return missing


# The window the save file asks for and how GTKWave 3.3 (GTK 3) divides its
# width: the signal search tree, the signal names, then the wave pane, which
# gets the rest less 24 pixels of pane handles, frame and scroll bar.
WINDOW_SIZE = (1600, 900)
SST_WIDTH = 300
SIGNALS_WIDTH = 300
WAVE_PANE_PIXELS = WINDOW_SIZE[0] - SST_WIDTH - SIGNALS_WIDTH - 24
# The run fills nine tenths of the pane: a theme with wider frames, or a tree
# whose names need more than SST_WIDTH, still shows the whole run.
RUN_PIXELS = int(WAVE_PANE_PIXELS * 0.9)
# GTKWave's zoom factor z means 2 ** -z time units per *frame* of 200 pixels
# (``pixelsperframe`` in its ``calczoom``), not per pixel.
GTKWAVE_FRAME_PIXELS = 200


def vcd_end_time(vcd_path):
    """The last timestamp of a VCD, in its own time units (0 if it has none)."""
    with open(vcd_path, "rb") as file:
        file.seek(0, os.SEEK_END)
        file.seek(max(0, file.tell() - 65536))
        tail = file.read().decode("ascii", "replace")
    stamps = re.findall(r"^#(\d+)", tail, flags=re.M)
    return int(stamps[-1]) if stamps else 0


def zoom_to_fit(end_time, pixels=RUN_PIXELS):
    """GTKWave's zoom factor that spreads a run of ``end_time`` time units
    over ``pixels`` pixels of the wave pane."""
    if end_time <= 0:
        return 0.0
    return -math.log2(end_time * GTKWAVE_FRAME_PIXELS / pixels)


def _square_names():
    return {square: "abcdefgh"[square % 8] + str(square // 8 + 1) for square in range(64)}


# What a value of each kind of signal means, for GTKWave's translate filters:
# squares as c4, pieces as N or n (Table 1 codes), piece types as N.
_FILTERS = {
    "squares": _square_names(),
    "pieces": {code: letter for code, letter in PIECE_LETTERS.items()},
    "kinds": {code: letter for code, letter in PIECE_LETTERS.items() if code < 8},
}


def _value_kind(name):
    """Which translate filter a trace takes, from its name, or ``None``."""
    leaf = name.rsplit(".", 1)[-1].split("[")[0]
    if leaf in ("from_sq", "to_sq") or re.fullmatch(r"(chain\d+_(from|to)|(start|end)\d+_sq)",
                                                    leaf):
        return "squares"
    if leaf == "piece":
        return "pieces"
    if re.fullmatch(r"(chain|start|end)\d+_kind", leaf):
        return "kinds"
    return None


def write_filters(stem):
    """Write the translate filter files beside a save file (``STEM.squares.txt``
    and so on); return ``{kind: absolute path}``. Values are in decimal, as the
    save file shows them."""
    paths = {}
    for kind, names in _FILTERS.items():
        path = os.path.abspath(f"{stem}.{kind}.txt")
        with open(path, "w") as file:
            for value, text in sorted(names.items()):
                file.write(f"{value} {text}\n")
        paths[kind] = path
    return paths


def wave_file_for_test(test_name, environ=None):
    """A VCD path for one test under ``$AXON_WAVES``, or ``None`` if unset.

    ``test_name`` is typically pytest's ``request.node.nodeid``; characters
    that do not belong in a file name become ``_``.
    """
    environ = os.environ if environ is None else environ
    directory = environ.get(WAVES_ENV)
    if not directory:
        return None
    os.makedirs(directory, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name).strip("_")
    return os.path.join(directory, stem + ".vcd")
