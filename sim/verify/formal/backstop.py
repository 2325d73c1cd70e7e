"""The backstop takes every overflow of the pools: with it, an answer says
overflow only when its walked list overflowed (which ``capacity-walked``
proves a side never does while it has no more pieces than entries)."""

from amaranth.hdl import *

from ....hdl.detector import AxonDetector
from .harness import backstop_invariants, free_host_inputs, Harness


def backstop_takes_overflows(broken, config):
    """``config``: a detector with a backstop. ``broken``: the same
    detector without it, whose pools' overflows reach the host."""
    def body(m):
        dut = AxonDetector(config.replace(backstop=False) if broken else config)
        m.submodules.dut = dut
        free_host_inputs(m, dut)
        if not broken:
            backstop_invariants(m, dut)
        result = dut.query.result
        # An answer with an overflow is the backstop's, never the pools'.
        overflowed_alone = dut.query.done & result.overflow
        if not broken:
            overflowed_alone &= ~result.backstop
        m.d.comb += Assert(~overflowed_alone)
    return Harness(body)
