// The part of the search layer's CXXRTL testbenches that perft's and the
// search unit's share (perft_cxxrtl_harness.cc, search_cxxrtl_harness.cc
// follow it in one translation unit): the clock, the error exit, and the
// loading of a position through the load port.
//
// Besides the prelude's definitions (see axon.sim.backends.cxxrtl), the
// testbench that follows names itself for its error lines:
//
//   AXON_HARNESS_NAME    "axon perft harness", ...

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

AXON_DESIGN dut;

void tick() {
	dut.AXON_PORT_CLK.set<bool>(true);
	dut.step();
	dut.AXON_PORT_CLK.set<bool>(false);
	dut.step();
}

[[noreturn]] void fail(const char *message) {
	std::fprintf(stderr, "%s: %s\n", AXON_HARNESS_NAME, message);
	std::exit(2);
}

// The 64 Table 1 piece codes from stdin, a1 first, through the load port.
void load_squares() {
	for (unsigned square = 0; square < 64; square++) {
		unsigned piece;
		if (std::scanf("%u", &piece) != 1)
			fail("a line has fewer than 64 squares");
		dut.AXON_PORT_LOAD_EN.set<bool>(true);
		dut.AXON_PORT_LOAD_SQUARE.set<uint32_t>(square);
		dut.AXON_PORT_LOAD_PIECE.set<uint32_t>(piece);
		tick();
	}
	dut.AXON_PORT_LOAD_EN.set<bool>(false);
}

// The position's state besides its squares, sampled at start.
void set_position(unsigned side, unsigned castling, unsigned ep_valid, unsigned ep_sq) {
	dut.AXON_PORT_SIDE.set<bool>(side != 0);
	dut.AXON_PORT_CASTLING.set<uint32_t>(castling);
	dut.AXON_PORT_EP_VALID.set<bool>(ep_valid != 0);
	dut.AXON_PORT_EP_SQ.set<uint32_t>(ep_sq);
}

}  // namespace
