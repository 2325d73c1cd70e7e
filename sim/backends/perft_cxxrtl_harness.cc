// Testbench for the CXXRTL model of axon.hdl.search.Perft; see
// axon/sim/backends/perft_cxxrtl.py.
//
// axon.sim.backends.cxxrtl writes a prelude before this file that includes the
// generated design and defines
//
//   AXON_DESIGN          the design class (cxxrtl_design::p_<name>)
//   AXON_CLOCK_LIMIT     clocks after which a run is given up
//   AXON_PORT_<NAME>     the CXXRTL member of each port used here
//
// stdin: one job a line until end of file:
//   depth side castling ep_valid ep_sq p0 .. p63
// (the 64 Table 1 piece codes, a1 first). Each is loaded through the load
// port, started, and clocked until busy falls.
// stdout, per job: a line `root MOVE NODES` for each root move as the
// gateware finishes it (MOVE: the Move layout's bits), then
// `done NODES CLOCKS`, flushed before the next job is read.
// A run past AXON_CLOCK_LIMIT, or bad input, ends with exit status 2.

// position_harness.cc comes first: dut, tick(), fail(), load_squares() and
// set_position().

int main() {
	dut.step();
	unsigned depth, side, castling, ep_valid, ep_sq;
	while (std::scanf("%u %u %u %u %u", &depth, &side, &castling, &ep_valid, &ep_sq) == 5) {
		load_squares();
		set_position(side, castling, ep_valid, ep_sq);
		dut.AXON_PORT_DEPTH.set<uint32_t>(depth);
		dut.AXON_PORT_START.set<bool>(true);
		tick();
		dut.AXON_PORT_START.set<bool>(false);
		uint64_t clocks = 0;
		for (;;) {
			tick();
			clocks++;
			if (dut.AXON_PORT_ROOT_VALID.get<bool>())
				std::printf("root %u %llu\n", dut.AXON_PORT_ROOT_MOVE.get<uint32_t>(),
				            static_cast<unsigned long long>(dut.AXON_PORT_ROOT_NODES.get<uint64_t>()));
			if (!dut.AXON_PORT_BUSY.get<bool>())
				break;
			if (clocks >= AXON_CLOCK_LIMIT)
				fail("the run went past the clock limit");
		}
		std::printf("done %llu %llu\n",
		            static_cast<unsigned long long>(dut.AXON_PORT_NODES.get<uint64_t>()),
		            static_cast<unsigned long long>(clocks));
		std::fflush(stdout);
	}
	return 0;
}
