"""The interface facts of the detector that hardware and software must agree on.

One source for the widths and limits of the query port, the rule sets and the
checks of a configuration. The gateware, the golden model, the command line,
the host link and the CXXRTL harness generator all take them from here.
"""

import inspect

from amaranth.lib import enum


__all__ = ["COUNT_LIMIT_BITS", "COUNT_LIMIT_MAX", "CYCLE_BITS", "DEPTH_MAX", "RULES",
           "Stop", "CheckedComponent", "check_depth", "check_chains", "check_rules", "check_count_limit"]

# ``count_limit`` is a 4-bit port: a query looks for at most 15 equal positions
# (4 is enough for the fivefold rule).
COUNT_LIMIT_BITS = 4
COUNT_LIMIT_MAX = (1 << COUNT_LIMIT_BITS) - 1

# The detector counts the clocks of a query in this many bits. A scan takes
# about one clock a pair of plies, so this bounds the move list.
CYCLE_BITS = 16
DEPTH_MAX = 1 << (CYCLE_BITS - 1)

# The rule sets the gateware implements (see :mod:`axon.sim.model.golden`; the
# golden model also has the wiki's ``cpw`` pseudo-code, for comparison).
RULES = ("paper", "exact")


class Stop(enum.Enum, shape=2):
    """Why a scan ended: the ``stop`` field of the answer, and the golden model's."""
    BARRIER  = 0  # read a word with the barrier bit: an irreversible move
    BOTTOM   = 1  # applied the word at address 0
    LIMIT    = 2  # found ``count_limit`` equal positions
    OVERFLOW = 3  # a move needed a new chain and its pool had no free slot, or
                  # the list is impossible: a move met two chains of its piece
                  # at once, or moved nothing


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_depth(depth):
    """Refuse a move-list depth that is not an even integer in 2..DEPTH_MAX.

    Even: the move list is two banks, and a scan reads a pair of plies a clock.
    """
    if not _is_int(depth) or depth < 2 or depth % 2:
        raise TypeError(f"Move-list depth must be an even integer of at least 2, not {depth!r}")
    if depth > DEPTH_MAX:
        raise ValueError(f"Move-list depth must be at most {DEPTH_MAX} (the {CYCLE_BITS}-bit "
                         f"clock counter), not {depth}")


def check_chains(chains):
    """Refuse a chain count that is not an even integer of at least 2: half serve each side."""
    if not _is_int(chains) or chains < 2 or chains % 2:
        raise TypeError(f"Chain count must be an even integer of at least 2, not {chains!r}")


def check_rules(rules, *, noun="Rules", known=RULES):
    """Refuse rules other than ``known`` (by default the gateware's)."""
    if rules not in known:
        raise ValueError(f"{noun} must be one of {', '.join(known)}, not {rules!r}")


def check_count_limit(count_limit):
    """Refuse a count limit that the 4-bit port cannot carry."""
    if not _is_int(count_limit) or not 0 <= count_limit <= COUNT_LIMIT_MAX:
        raise ValueError(f"count_limit must be in 0..{COUNT_LIMIT_MAX}, not {count_limit!r}")


class CheckedComponent:
    """Mix-in (before ``wiring.Component`` or ``Elaboratable``) for a component
    whose constructor can refuse its parameters.

    Amaranth warns "created but never used" about an elaboratable that is made
    and never elaborated. A component whose parameters are refused can never be
    used, so it must not be made at all: ``check_parameters``, a static method
    that takes the constructor's parameters by name (defaults filled in; it may
    name only those it checks), runs in ``__new__``, before the object exists,
    and raises the error for the user.
    """

    @staticmethod
    def check_parameters():
        pass

    def __new__(cls, *args, src_loc_at=0, **kwargs):
        arguments = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        arguments.apply_defaults()
        wanted = inspect.signature(cls.check_parameters).parameters
        cls.check_parameters(**{name: value for name, value in arguments.arguments.items()
                                if name in wanted})
        # One frame more between the caller and Amaranth's record of where
        # the component was made.
        return super().__new__(cls, *args, src_loc_at=src_loc_at + 1, **kwargs)
