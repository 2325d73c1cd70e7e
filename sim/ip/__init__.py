"""The detector as an IP package for a Verilog shop (``axon export --ip``):
the Verilog and its header, a FuseSoC core, a Verilog testbench and cocotb
tests, with the golden model's answers as their expectations
(:mod:`~axon.sim.ip.expect`, :mod:`~axon.sim.ip.package`)."""
