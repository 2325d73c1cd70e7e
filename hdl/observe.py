"""What the gateware shows of its insides: one read-only view a component.

The formal proofs state invariants over a component's registers, and the
waveforms show them; neither should shape the component's ports. So a
component whose insides are worth seeing offers them once, as its
``observe`` attribute: an :class:`Observation` made in ``__init__`` from the
very signals its ``elaborate`` drives (its registers, made once and named
once), never copies of them and never ports of the exported design. A
component made of parts composes their views into its own, so that
:class:`~axon.hdl.detector.AxonDetector` offers the whole design's:
``detector.observe.scanner.fetch_addr``,
``detector.observe.chain_list.white.pool_2.start_valid``.

The view is ordered and typed:

* a member is a ``Signal`` (whose shape may be a :mod:`amaranth.lib.data`
  layout), a tuple of them (a register file, one signal an entry), an
  interface object whose members are signals (a port of the component, shown
  with it), or an :class:`Observation` of a part;
* a group that is a part's view is that part's place in the design: it is
  named like the submodule the component adds, so the view's path of a
  signal is its path in the hierarchy (what a waveform viewer's scopes show);
* a member may carry a :class:`Meaning`, so that a viewer can show a square
  as ``c4`` and a piece as ``N`` without guessing from names.

Nothing reads the view in the gateware: a signal in it is either used by its
component anyway or dropped by synthesis.
"""

import enum
from collections.abc import Mapping

from amaranth.hdl import Signal, Value, ValueCastable
from amaranth.lib import data, wiring


__all__ = ["Meaning", "Observation", "MOVE_WORD_MEANINGS", "registers", "fields"]


class Meaning(enum.Enum):
    """What the value of an observed signal stands for."""
    #: A square, 0 (a1) to 63 (h8).
    SQUARE = "squares"
    #: A piece of Table 1, with its colour bit (2 knight, 10 black knight, ...).
    PIECE = "pieces"
    #: A piece type of Table 1, without colour.
    KIND = "kinds"
    #: One flag a slot or entry (bit *i* for slot *i*): read in binary.
    FLAGS = "flags"


#: The meanings of :class:`~axon.hdl.word.MoveWord`'s fields, for a member
#: whose shape holds move words.
MOVE_WORD_MEANINGS = {"piece": Meaning.PIECE, "from_sq": Meaning.SQUARE, "to_sq": Meaning.SQUARE}


def registers(shapes, *, reset_less=(), init=None):
    """``{name: Signal(shape, name=name)}`` for ``shapes`` (``{name: shape}``):
    a component's registers, made once and named once.

    ``reset_less`` names the registers that take no reset, ``init`` gives
    the initial values that are not 0."""
    init = init or {}
    unknown = (set(reset_less) | set(init)) - set(shapes)
    if unknown:
        raise NameError(f"No register named {', '.join(sorted(unknown))}")
    return {name: Signal(shape, name=name, reset_less=name in reset_less,
                         **({"init": init[name]} if name in init else {}))
            for name, shape in shapes.items()}


def _is_interface(member):
    return isinstance(getattr(member, "signature", None), wiring.Signature)


def _entries(name, member):
    """``[(path, value)]`` of a member that is not a group: its signals."""
    if _is_interface(member):
        return [((name, *path), value) for path, _, value in member.signature.flatten(member)]
    if isinstance(member, tuple):
        return [((name, index), value) for index, value in enumerate(member)]
    return [((name,), member)]


def _is_signal(value):
    return isinstance(value, (Value, ValueCastable)) and isinstance(Value.cast(value), Signal)


class Observation(Mapping):
    """An ordered, read-only set of named signals and groups.

    Parameters
    ----------
    members : dict
        ``{name: member}`` in the order a viewer shows them (see the module
        docstring for what a member may be); a name is read as an attribute,
        ``view.fetch_addr``, or as a key.
    meanings : dict
        ``{name: Meaning}`` for members whose every value has that meaning,
        or ``{name: {field: Meaning}}`` for members with a
        :mod:`~amaranth.lib.data` layout, by the name of a field at any depth
        (see :data:`MOVE_WORD_MEANINGS`).
    """

    def __init__(self, members, *, meanings=None):
        members = dict(members)
        for name, member in members.items():
            if isinstance(member, Observation):
                continue
            for path, value in _entries(name, member):
                if not _is_signal(value):
                    raise TypeError(f"Observed member {'.'.join(map(str, path))} must be a "
                                    f"signal (or a data view of one), not {value!r}")
        meanings = dict(meanings or {})
        unknown = set(meanings) - set(members)
        if unknown:
            raise NameError(f"Meaning given for no member: {', '.join(sorted(unknown))}")
        object.__setattr__(self, "_members", members)
        object.__setattr__(self, "_meanings", meanings)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._members[name]
        except KeyError:
            raise AttributeError(f"Nothing observed is named {name!r}; the view has "
                                 f"{', '.join(self._members)}") from None

    def __setattr__(self, name, value):
        raise AttributeError("An observation is read-only")

    def __getitem__(self, name):
        return self._members[name]

    def __iter__(self):
        return iter(self._members)

    def __len__(self):
        return len(self._members)

    def __repr__(self):
        return f"Observation({', '.join(self._members)})"

    def _meaning(self, name, field):
        meaning = self._meanings.get(name)
        if isinstance(meaning, dict):
            return meaning.get(field[-1]) if field else None
        return meaning

    def signals(self):
        """Every observed signal, depth first in the view's order: tuples
        ``(scope, path, value, meanings)``, ``value`` a ``Signal`` or a
        :mod:`~amaranth.lib.data` view of one.

        ``scope`` is the path of parts' groups (the hierarchy below the
        component), ``path`` the names from there to the signal (an interface
        member's path, or a register file's entry index), and ``meanings``
        ``{field path: Meaning}`` for those of the signal's fields that have
        one, ``()`` naming the signal as a whole (see :func:`fields`)."""
        for name, member in self._members.items():
            if isinstance(member, Observation):
                for scope, path, value, meanings in member.signals():
                    yield (name, *scope), path, value, meanings
                continue
            for path, value in _entries(name, member):
                meanings = {field: self._meaning(name, field) for field, _ in fields(value)}
                yield (), path, value, {field: meaning for field, meaning in meanings.items()
                                        if meaning is not None}


def fields(value):
    """``[(field path, shape)]`` of the leaves of a signal's
    :mod:`~amaranth.lib.data` layout (``[((), shape)]`` for a signal without
    one): what a waveform shows of it, ``signal.a.b`` for the path
    ``("a", "b")`` and ``signal[2]`` for ``(2,)``."""
    leaves = []

    def walk(path, shape):
        layout = _layout(shape)
        if layout is None:
            leaves.append((path, shape))
        else:
            for name, field in layout:
                walk((*path, name), field.shape)
    walk((), value.shape())
    return leaves


def _layout(shape):
    try:
        return data.Layout.cast(shape)
    except TypeError:
        return None
