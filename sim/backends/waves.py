"""Waveforms of the detector: which signals to trace and a GTKWave save file.

:class:`~axon.sim.backends.pysim.PysimSession` with ``vcd=...`` writes the VCD through
Amaranth's simulator (which dumps every signal of the design) and then calls
:func:`write_gtkw`, which lays the interesting ones out in groups:

the members of the detector's observation view
(:attr:`axon.hdl.detector.AxonDetector.observe`, see :mod:`axon.hdl.observe`),
in its order:

* **Query**: the host's port, ``start``, ``top``, ``root_address``, ``count_limit``,
  ``busy``, ``done``, the result fields and ``cycles``;
* **Scanner**: every register of the scanner's pipeline, stage by stage, and
  its reads of the move list;
* **Chain list**: each side's pools (``white.pool_2``, ...): the move a pool
  is given, its valid bits, squares and kinds, its hit vectors compared a
  clock ahead and its open-chain count;
* **Upcoming** and **Upcoming check** (with the upcoming block): the port's
  occupancy, answer and ``done``; the word the block follows, its candidate
  and the path check's verdict;
* **Memory**: the host's move-list port.

Nothing here names a signal of the gateware. Amaranth's simulator names a
signal in the VCD by its place in the hierarchy (``bench.top.scanner``) and
its own name (``fetch_addr``; a field of a layout ``\\hand.valid``), and
resolves clashes with ``$n`` suffixes whose numbers depend on elaboration
order; the view's groups follow the hierarchy and its signals carry their
names, so :func:`write_gtkw` finds each one in the VCD header, references only
signals that are there, and reports the others. A view's
:class:`~axon.hdl.observe.Meaning` picks GTKWave's translate filter (a
square reads ``c4``, a piece ``N``) or the binary format (a flag a slot).

Waveforms are written only when asked for. Tests call :func:`wave_file_for_test`,
which returns a per-test VCD path when the environment variable
``AXON_WAVES`` names a directory, and ``None`` otherwise::

    AXON_WAVES=waves pytest tests/test_waves.py
    gtkwave waves/tests_test_waves.py_test_session_with_waves_fixture.gtkw
"""

import math
import os
import re

from amaranth.hdl import Shape, Value
from vcd.gtkw import GTKWSave

from ...hdl.observe import Meaning, fields
from ...hdl.word import PIECE_LETTERS


__all__ = ["trace_signals", "vcd_signals", "gtkw_layout", "chess_first", "write_gtkw",
           "wave_file_for_test", "vcd_end_time", "zoom_to_fit", "WAVES_ENV"]

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
    at = 0
    while at < len(tokens):
        token = tokens[at]
        if token == "$scope":
            scope.append(tokens[at + 2])
            at += 3
        elif token == "$upscope":
            scope.pop()
            at += 1
        elif token == "$var":
            var_type, size, _, name = tokens[at + 1:at + 5]
            size = int(size)
            suffix = f"[{size - 1}:0]" if size > 1 else ""
            signals[".".join([*scope, name]) + suffix] = (tuple(scope), name, size, var_type)
            at += 5
        else:
            at += 1
    return signals


# Where the simulator puts the design in the VCD's scopes.
_DESIGN_SCOPE = ("bench", "top")


def _title(name):
    return name.replace("_", " ").capitalize()


def _vcd_name(signal_name, field):
    """The VCD variable Amaranth's simulator writes for a field of a signal:
    ``name``, or ``\\name.a[2]`` for the field ``("a", 2)``."""
    if not field:
        return signal_name
    return "\\" + signal_name + "".join(f"[{item}]" if isinstance(item, int) else f".{item}"
                                         for item in field)


def _find(names, signal_name, field):
    """The one VCD variable of ``names`` (a scope's ``{name: gtkw_name}``)
    that is this field of a signal named ``signal_name``, allowing the
    ``$n`` that resolves a clash of names in one scope; ``None`` if there is
    none or more than one."""
    wanted = _vcd_name(signal_name, field)
    if wanted in names:
        return names[wanted]
    prefix = ("\\" if field else "") + signal_name
    tail = wanted[len(prefix):]
    clash = re.compile(re.escape(prefix) + r"\$\d+" + re.escape(tail) + "$")
    found = [gtkw_name for name, gtkw_name in names.items() if clash.match(name)]
    return found[0] if len(found) == 1 else None


def gtkw_layout(available, dut, signed=None):
    """Choose the traces from the VCD's signals ``available``.

    The groups are the members of the detector's observation view
    (:attr:`axon.hdl.detector.AxonDetector.observe`), in its order: a port
    or a part is a group, a part's part a subgroup (``white.pool_2``), and
    every signal in the view is shown, a layout field by field. Each signal
    is found in the VCD by its scope (the view's path of parts, under the
    simulated design's ``bench.top``) and its own name.

    Returns ``(groups, missing)``: ``groups`` is ``[(name, closed, entries)]``
    where an entry is a trace ``(gtkw_name, meaning)`` (a
    :class:`~axon.hdl.observe.Meaning` or ``None``) or a subgroup
    ``(name, entries)``; ``missing`` names what the view shows but the VCD
    does not have. ``signed``, a set if given, receives the names of the
    traces whose shape is signed (``query.root_address``: -1 is no game history), to
    be shown as signed numbers.
    """
    by_scope = {}
    for gtkw_name, (scope, name, _, _) in available.items():
        by_scope.setdefault(scope, {})[name] = gtkw_name
    # {group: {subgroup or "": entries}}, in the view's order.
    layout, missing = {}, []
    for scope, path, value, meanings in dut.observe.signals():
        group = layout.setdefault(scope[0] if scope else path[0], {})
        entries = group.setdefault(".".join(scope[1:]), [])
        names = by_scope.get((*_DESIGN_SCOPE, *scope), {})
        signal_name = Value.cast(value).name
        for field, shape in fields(value):
            gtkw_name = _find(names, signal_name, field)
            if gtkw_name is None:
                missing.append(".".join((*_DESIGN_SCOPE, *scope, _vcd_name(signal_name, field))))
            else:
                entries.append((gtkw_name, meanings.get(field)))
                if signed is not None and _is_signed(shape):
                    signed.add(gtkw_name)
    groups = [(_title(name), False,
               [entry for subgroup, entries in group.items()
                for entry in ([(subgroup, entries)] if subgroup else entries)])
              for name, group in layout.items()]
    return groups, missing


def _is_signed(shape):
    try:
        return Shape.cast(shape).signed
    except TypeError:
        return False


def _alias(gtkw_name):
    """How a trace is shown: its name inside its scope, without the
    backslash that escapes a field's name in the VCD, and with spaces for
    dots, which GTKWave would take for a scope and cut off
    (``\\ahead.white_move.to_sq`` reads ``ahead white_move to_sq``)."""
    scope_end = gtkw_name.find(".\\")
    local = gtkw_name[scope_end + 2:] if scope_end >= 0 else gtkw_name.rsplit(".", 1)[-1]
    return local.replace("\\", "").replace(".", " ")


# What a chess player reads first: squares as c4, pieces as N.
CHESS_MEANINGS = (Meaning.SQUARE, Meaning.PIECE, Meaning.KIND)


def chess_first(groups):
    """``groups`` (of :func:`gtkw_layout`) with the first group, the query
    port, opening on what a chess player reads: its result's fields, then a
    copy of the first move the layout shows in chess terms (the square and
    piece traces of the first stage that has them, in the groups after it),
    then the rest of the port."""
    if not groups:
        return groups
    (name, closed, entries), *others = groups
    traces = [entry for entry in entries if not isinstance(entry[1], list)]
    answer = [entry for entry in traces if "result." in entry[0]]
    move = []
    for _, _, group_entries in others:
        flat = [sub for entry in group_entries
                for sub in (entry[1] if isinstance(entry[1], list) else [entry])]
        chess = [entry for entry in flat if entry[1] in CHESS_MEANINGS]
        if chess:
            # The first stage that shows a move (``scanner.\\ahead.``): its
            # squares and pieces, of both sides.
            first = chess[0][0]
            stage = first[:first.index(".", first.rfind("\\")) + 1] if "\\" in first \
                else first.rsplit(".", 1)[0] + "."
            move = [entry for entry in chess if entry[0].startswith(stage)]
            break
    rest = [entry for entry in entries if entry not in answer]
    return [(name, closed, answer + move + rest), *others]


def write_gtkw(vcd_path, gtkw_path, dut, zoom=None):
    """Write a GTKWave save file for the VCD at ``vcd_path`` (already closed).

    The save file opens on the whole run: ``zoom`` (GTKWave's zoom factor)
    defaults to :func:`zoom_to_fit` of the VCD's last timestamp; another
    value makes a save file that the check of GTKWave's view must reject.
    Every path in it (the VCD, the translate filters beside it) is relative
    to the save file's folder, so that the folder can be moved or shared;
    GTKWave finds them from there. The query group opens on the answer and
    the move in chess terms (:func:`chess_first`), and each trace is shown by
    its name in its scope, unescaped.

    Returns the list of wanted signals the VCD does not have (they are left
    out of the save file and named in a comment in it), so a test can insist
    that the list is empty.
    """
    signed = set()
    groups, missing = gtkw_layout(vcd_signals(vcd_path), dut, signed)
    groups = chess_first(groups)
    if zoom is None:
        zoom = zoom_to_fit(vcd_end_time(vcd_path))
    folder = os.path.dirname(os.path.abspath(gtkw_path))

    def relative(path):
        return os.path.relpath(os.path.abspath(path), folder)

    with open(gtkw_path, "w") as file:
        save = GTKWSave(file)

        filters = {meaning: relative(path) for meaning, path in
                   write_filters(os.path.splitext(gtkw_path)[0]).items()}

        def trace(entry):
            name, meaning = entry
            if meaning is Meaning.FLAGS:
                # One bit per slot, shown as a binary number: GTKWave 3.3
                # rejects the group that an expanded vector's bits close.
                save.trace(name, alias=_alias(name), datafmt="bin")
            else:
                # A signed number (the root, -1 for none) in signed decimal.
                save.trace(name, alias=_alias(name),
                           datafmt="signed" if name in signed else "dec",
                           translate_filter_file=filters.get(meaning))

        save.comment("Generated by axon.sim.backends.waves for the Axon repetition detector")
        save.dumpfile(relative(vcd_path), abspath=False)
        save.savefile(os.path.basename(gtkw_path), abspath=False)
        # Open on the whole run, in a window that fits a 1600 x 900 screen,
        # with every pane's width given so that the wave pane's is known.
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
                    if isinstance(entry[1], list):
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
# GTKWave's window comes out 10 pixels wider and 56 taller than it asks for
# (menu and tool bars), so 1560 x 800 leaves a 1600 x 900 screen room for a
# title bar.
WINDOW_SIZE = (1560, 800)
# The largest window GTKWave draws for WINDOW_SIZE (a test measures it) and
# the screen it must fit.
WINDOW_DRAWN = (WINDOW_SIZE[0] + 10, WINDOW_SIZE[1] + 56)
SCREEN = (1600, 900)
SST_WIDTH = 240
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


# GTKWave's translate filters, by what a value means: squares as c4, pieces
# as N or n (Table 1 codes), piece types as N.
_FILTERS = {
    Meaning.SQUARE: _square_names(),
    Meaning.PIECE: {code: letter for code, letter in PIECE_LETTERS.items()},
    Meaning.KIND: {code: letter for code, letter in PIECE_LETTERS.items() if code < 8},
}


def write_filters(stem):
    """Write the translate filter files beside a save file (``STEM.squares.txt``
    and so on); return ``{meaning: path}``. Values are in decimal, as
    the save file shows them."""
    paths = {}
    for meaning, names in _FILTERS.items():
        path = os.path.abspath(f"{stem}.{meaning.value}.txt")
        with open(path, "w") as file:
            for value, text in sorted(names.items()):
                file.write(f"{value} {text}\n")
        paths[meaning] = path
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
