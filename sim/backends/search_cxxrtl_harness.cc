// Testbench for the CXXRTL model of axon.hdl.search.SearchUnit; see
// axon/sim/backends/search_cxxrtl.py.
//
// axon.sim.backends.cxxrtl writes a prelude before this file that includes the
// generated design and defines
//
//   AXON_DESIGN          the design class (cxxrtl_design::p_<name>)
//   AXON_CLOCK_LIMIT     clocks after which a search is given up
//   AXON_DEPTH           the move list's depth
//   AXON_ROOT_MASK       the bits of the root_address port
//   AXON_PORT_<NAME>     the CXXRTL member of each port used here
//
// stdin: one search a line until end of file:
//   trace depth side castling ep_valid ep_sq p0 .. p63 N w0 .. w(N-1)
// (the 64 Table 1 piece codes, a1 first; the N game-history move words,
// the last at the root address N - 1). Each is loaded through the load and
// history ports, started, and clocked until busy falls.
// stdout, per search, flushed before the next is read: with trace 1, a line
//   node LOW HIGH
// for each clock that node_valid is high (the NodeEvent's bits 0-63 and the
// bits above, which the host splits by the layout), then
//   done SCORE BEST_VALID BEST_MOVE NODES TERMINAL REPETITIONS QUERIES CLOCKS WAIT_CLOCKS
// (SCORE: the 16 bits of the score; BEST_MOVE: the Move layout's bits).
// A search past AXON_CLOCK_LIMIT, or bad input, ends with exit status 2.

// position_harness.cc comes first: dut, tick(), fail(), load_squares() and
// set_position().

namespace {

unsigned long long counter(uint64_t value) {
	return static_cast<unsigned long long>(value);
}

// A port's present value, whether CXXRTL made it a wire (a register) or a
// value.
template<size_t Bits>
const cxxrtl::value<Bits> &present(const cxxrtl::value<Bits> &port) { return port; }
template<size_t Bits>
const cxxrtl::value<Bits> &present(const cxxrtl::wire<Bits> &port) { return port.curr; }

// The node event's value, wider than 64 bits: its 32-bit chunks, low first.
void print_node() {
	const auto &node = present(dut.AXON_PORT_NODE);
	uint64_t low = 0, high = 0;
	for (size_t chunk = 0; chunk < node.chunks; chunk++) {
		uint64_t bits = node.data[chunk];
		if (chunk < 2)
			low |= bits << (32 * chunk);
		else
			high |= bits << (32 * (chunk - 2));
	}
	std::printf("node %llu %llu\n", counter(low), counter(high));
}

}  // namespace

int main() {
	dut.step();
	unsigned trace, depth, side, castling, ep_valid, ep_sq;
	while (std::scanf("%u %u %u %u %u %u", &trace, &depth, &side, &castling, &ep_valid,
	                  &ep_sq) == 6) {
		load_squares();
		unsigned words;
		if (std::scanf("%u", &words) != 1 || words > AXON_DEPTH)
			fail("a search's line has no word count, or more words than the move list holds");
		for (unsigned address = 0; address < words; address++) {
			unsigned word;
			if (std::scanf("%u", &word) != 1)
				fail("a search's line has fewer words than it says");
			dut.AXON_PORT_HISTORY_EN.set<bool>(true);
			dut.AXON_PORT_HISTORY_ADDR.set<uint32_t>(address);
			dut.AXON_PORT_HISTORY_WORD.set<uint32_t>(word);
			tick();
		}
		dut.AXON_PORT_HISTORY_EN.set<bool>(false);
		set_position(side, castling, ep_valid, ep_sq);
		dut.AXON_PORT_ROOT_ADDRESS.set<uint32_t>((words - 1u) & AXON_ROOT_MASK);
		dut.AXON_PORT_DEPTH.set<uint32_t>(depth);
		dut.AXON_PORT_START.set<bool>(true);
		tick();
		dut.AXON_PORT_START.set<bool>(false);
		uint64_t clocks = 0;
		do {
			tick();
			if (++clocks >= AXON_CLOCK_LIMIT)
				fail("the search went past the clock limit");
			if (trace && dut.AXON_PORT_NODE_VALID.get<bool>())
				print_node();
		} while (dut.AXON_PORT_BUSY.get<bool>());
		std::printf("done %u %u %u %llu %llu %llu %llu %llu %llu\n",
		            dut.AXON_PORT_SCORE.get<uint32_t>(), dut.AXON_PORT_BEST_VALID.get<bool>() ? 1u : 0u,
		            dut.AXON_PORT_BEST_MOVE.get<uint32_t>(),
		            counter(dut.AXON_PORT_NODES.get<uint64_t>()),
		            counter(dut.AXON_PORT_TERMINAL.get<uint64_t>()),
		            counter(dut.AXON_PORT_REPETITIONS.get<uint64_t>()),
		            counter(dut.AXON_PORT_QUERIES.get<uint64_t>()),
		            counter(dut.AXON_PORT_CLOCKS.get<uint64_t>()),
		            counter(dut.AXON_PORT_WAIT_CLOCKS.get<uint64_t>()));
		std::fflush(stdout);
	}
	return 0;
}
