"""An array of detectors behind one set of detector ports.

The host link (:class:`~axon.hdl.board.link.HostLink`) serves one detector
at a time: it executes each frame in turn, and every frame names its
detector. :class:`DetectorArray` gives it the ports of one detector and a
``select`` input: the selected detector's outputs are on the ports, its
``start``, ``write_en`` and ``soft_reset`` reach it alone, and the other
inputs (addresses, words, the query's arguments) reach every detector, which
ignores them until it is started or written. Each detector keeps its own move
list, scanner and last answer, so a frame for one never changes another.
"""

from amaranth.hdl import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from ..detector import AxonDetector
from ..params import SHIPPED, DetectorConfig
from .protocol import MAX_DETECTORS


__all__ = ["DetectorArray"]

# The inputs that act: only the selected detector sees them raised.
_STROBES = {("query", "start"), ("memory", "write_en")}


def _member(obj, path):
    for name in path:
        obj = getattr(obj, name)
    return obj


class DetectorArray(wiring.Component):
    """``count`` detectors of ``config`` behind the ports of one.

    Parameters
    ----------
    config : DetectorConfig
        Each detector's, as for :class:`~axon.hdl.detector.AxonDetector`.
    count : int
        Detectors, 1..255 (IDENTIFY reports the count in one byte).

    Members
    -------
    query, memory, upcoming :
        As :class:`~axon.hdl.detector.AxonDetector`'s, of the selected detector.
    select : Signal(8), in
        The detector the ports are for; one at or above ``count`` is the
        last detector's outputs and no detector's inputs (the link refuses
        such a frame before it acts).
    soft_reset : Signal(1), in
        Reset the selected detector's scanner and chain list; its move list
        (block RAM) and its result registers keep their contents.

    Attributes
    ----------
    detectors : list of AxonDetector
    """

    def __init__(self, config=SHIPPED, count=1):
        if not isinstance(count, int) or not 1 <= count <= MAX_DETECTORS:
            raise ValueError(f"Detector count must be an integer in 1..{MAX_DETECTORS}, "
                             f"not {count!r}")
        config = DetectorConfig.checked(config)
        self.detectors = [AxonDetector(config) for _ in range(count)]
        members = dict(self.detectors[0].signature.members)
        super().__init__({
            **members,
            "select":     In(8),
            "soft_reset": In(1),
        })

    config = property(lambda self: self.detectors[0].config)
    count  = property(lambda self: len(self.detectors))

    def _strobe(self, path):
        """Whether the input at ``path`` acts, and so reaches the selected
        detector alone: a method so that a broken variant, a subclass, can
        break it."""
        return path in _STROBES

    def elaborate(self, platform):
        m = Module()
        ports = self.detectors[0].signature
        for index, detector in enumerate(self.detectors):
            # One detector is always the selected one: the link refuses a
            # frame for another before it acts, so no gate is needed.
            selected = self.select == index if self.count > 1 else C(1)
            # RESET clears the scanner and chain list; the result registers
            # are reset-less (the next query replaces them) and block RAM has
            # no reset, so the last answer and the move list survive it.
            # The reset is a signal of the array's, so that every detector
            # sees it as an input of the same name: the detectors' RTLIL
            # modules are then identical, and a simulator compiles one for
            # all of them (an expression here would be copied, with this
            # detector's index, into each of the detector's modules).
            soft_reset = Signal(name="selected_soft_reset")
            m.d.comb += soft_reset.eq(self.soft_reset & selected)
            m.submodules[f"detector_{index}"] = ResetInserter({"sync": soft_reset})(detector)
            for path, member, value in ports.flatten(detector):
                if member.flow == wiring.In:
                    mine = _member(self, path)
                    m.d.comb += value.eq(mine & selected if self._strobe(path) else mine)
        # One case per detector: a balanced multiplexer, not a chain of N.
        # The last takes every other index too, which the link refuses
        # before it reads an output: no multiplexer at all for one detector.
        with m.Switch(self.select):
            for index, detector in enumerate(self.detectors):
                with (m.Case(index) if index < self.count - 1 else m.Default()):
                    for path, member, value in ports.flatten(detector):
                        if member.flow == wiring.Out:
                            m.d.comb += _member(self, path).eq(value)
        return m
