// Testbench for the CXXRTL model of AxonDetector; see axon/sim/cxxrtl.py.
//
// axon.sim.backends.cxxrtl writes a prelude before this file that includes the
// generated design and defines
//
//   AXON_DESIGN          the design class (cxxrtl_design::p_<name>)
//   AXON_DEPTH           move-list depth
//   AXON_TIMEOUT_CLOCKS  clocks after the start clock before a query is
//                        given up as hung
//   AXON_PORT_<NAME>     the CXXRTL member of each detector port, by its path
//                        (query__start: AXON_PORT_QUERY_START)
//
// It drives the ports exactly as write_words and run_query in
// axon/sim/backends/pysim.py do, so that the two simulators see the same clock edges.
//
// stdin: a stream of uint32 (host byte order) commands until end of file,
// each carried out as soon as it has been read,
//   1 N w0 .. w(N-1)   store N move words at addresses 0..N-1, one a clock
//   2 TOP LIMIT        run one query
//   3 TOP LIMIT OCC_LO OCC_HI
//                      run one query with this occupancy and wait for
//                      `upcoming.done` too
//   4 ADDR N w0 .. w(N-1)
//                      store N move words at addresses ADDR.., one a clock
//                      (a search writes one word a node)
//   5                  flush stdout: the answers so far reach the reader now
// stdout: six uint32 per query, in order,
//   STATUS RESULT_LO RESULT_HI CYCLES UPCOMING UPCOMING_CLOCKS
// STATUS 0: done rose, RESULT is the raw `result` port (ResultLayout bits)
// and CYCLES the `cycles` port; for command 3, UPCOMING is the raw `upcoming`
// port (UpcomingLayout bits) once `upcoming.done` rose, UPCOMING_CLOCKS the
// clocks from `done` to `upcoming.done` (both 0 for command 2; a missing
// `upcoming.done` gives AXON_TIMEOUT_CLOCKS). STATUS 1: `done` did not rise within
// AXON_TIMEOUT_CLOCKS; the design is then reset (the move list keeps its
// contents) and the next command runs as usual.
// Bad input ends the run with exit status 2 and a message on stderr.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

enum : uint32_t { OP_WRITE = 1, OP_QUERY = 2, OP_QUERY_UPCOMING = 3, OP_WRITE_AT = 4,
                  OP_FLUSH = 5 };
enum : uint32_t { STATUS_DONE = 0, STATUS_TIMEOUT = 1 };

AXON_DESIGN dut;

[[noreturn]] void fail(const char *message, uint64_t detail) {
	std::fprintf(stderr, "axon cxxrtl harness: %s (%llu)\n", message,
	             static_cast<unsigned long long>(detail));
	std::exit(2);
}

// One rising edge of the sync clock. Inputs set before the call are sampled
// by that edge, like ctx.set() followed by ctx.tick() in a testbench.
//
// The falling edge comes after the rising one, not before: CXXRTL computes
// an output such as `done` (a copy of a register) during eval(), before the
// edge commits the register, so the outputs seen right after the rising
// step are the old ones. The falling step evaluates them again, and then
// they are what ctx.get() returns after ctx.tick().
void tick() {
	dut.AXON_PORT_CLK.set<bool>(true);
	dut.step();
	dut.AXON_PORT_CLK.set<bool>(false);
	dut.step();
}

void write_words(uint32_t base, const uint32_t *words, uint32_t count) {
	for (uint32_t offset = 0; offset < count; offset++) {
		dut.AXON_PORT_MEMORY_WRITE_ADDR.set<uint32_t>(base + offset);
		dut.AXON_PORT_MEMORY_WRITE_WORD.set<uint32_t>(words[offset]);
		dut.AXON_PORT_MEMORY_WRITE_EN.set<bool>(true);
		tick();
	}
	dut.AXON_PORT_MEMORY_WRITE_EN.set<bool>(false);
}

void run_query(uint32_t top, int32_t root, uint32_t count_limit, bool upcoming,
               uint64_t occupancy, uint32_t answer[6]) {
	answer[4] = answer[5] = 0;
	dut.AXON_PORT_UPCOMING_OCCUPANCY.set<uint64_t>(occupancy);
	dut.AXON_PORT_QUERY_TOP.set<uint32_t>(top);
	// The root port is signed (-1: no game history); two's complement in its width.
	dut.AXON_PORT_QUERY_ROOT_ADDRESS.set<uint32_t>(static_cast<uint32_t>(root) & AXON_ROOT_MASK);
	dut.AXON_PORT_QUERY_COUNT_LIMIT.set<uint32_t>(count_limit);
	dut.AXON_PORT_QUERY_START.set<bool>(true);
	tick();
	dut.AXON_PORT_QUERY_START.set<bool>(false);
	// Settle the outputs for the new inputs without a clock edge, as ctx.get()
	// would, in case `done` ever depends on `start` combinationally.
	dut.step();
	uint32_t waited = 0;
	while (!dut.AXON_PORT_QUERY_DONE.get<bool>()) {
		if (waited >= AXON_TIMEOUT_CLOCKS) {
			answer[0] = STATUS_TIMEOUT;
			answer[1] = answer[2] = 0;
			answer[3] = waited;
			// A hung scan would ignore every later start: reset the domain.
			dut.AXON_PORT_RST.set<bool>(true);
			tick();
			dut.AXON_PORT_RST.set<bool>(false);
			return;
		}
		tick();
		waited++;
	}
	uint64_t result = dut.AXON_PORT_QUERY_RESULT.get<uint64_t>();
	answer[0] = STATUS_DONE;
	answer[1] = static_cast<uint32_t>(result);
	answer[2] = static_cast<uint32_t>(result >> 32);
	answer[3] = dut.AXON_PORT_QUERY_CYCLES.get<uint32_t>();
	if (!upcoming)
		return;
	uint32_t extra = 0;
	while (!dut.AXON_PORT_UPCOMING_DONE.get<bool>() && extra < AXON_TIMEOUT_CLOCKS) {
		tick();
		extra++;
	}
	answer[4] = dut.AXON_PORT_UPCOMING_ANSWER.get<uint32_t>();
	answer[5] = extra;
}

// The next word of stdin; `false` at its end.
bool read_word(uint32_t &word) {
	if (std::fread(&word, sizeof(uint32_t), 1, stdin) == 1)
		return true;
	if (std::ferror(stdin))
		fail("cannot read stdin", 0);
	return false;
}

void put_words(const uint32_t *words, size_t count) {
	if (std::fwrite(words, sizeof(uint32_t), count, stdout) != count)
		fail("cannot write stdout", count);
}

} // namespace

int main() {
	static_assert(sizeof(uint32_t) == 4, "uint32_t");
	// Settle the outputs for the reset state before the first edge.
	dut.step();
	uint64_t at = 0;
	auto next = [&]() -> uint32_t {
		uint32_t word;
		if (!read_word(word))
			fail("command cut short at word", at);
		at++;
		return word;
	};
	std::vector<uint32_t> words;
	uint32_t op;
	while (read_word(op)) {
		at++;
		if (op == OP_WRITE || op == OP_WRITE_AT) {
			uint32_t base = op == OP_WRITE_AT ? next() : 0;
			uint32_t count = next();
			if (base > AXON_DEPTH || count > AXON_DEPTH - base)
				fail("more words than the move list holds", count);
			words.resize(count);
			for (uint32_t index = 0; index < count; index++) {
				words[index] = next();
				if (words[index] >> 17)
					fail("move word wider than 17 bits", words[index]);
			}
			write_words(base, words.data(), count);
		} else if (op == OP_QUERY || op == OP_QUERY_UPCOMING) {
			// The root comes as root + 1, so that -1 is a plain 0.
			uint32_t top = next(), root_plus_one = next(), count_limit = next();
			uint64_t occupancy = 0;
			if (op == OP_QUERY_UPCOMING) {
				occupancy = next();
				occupancy |= static_cast<uint64_t>(next()) << 32;
			}
			if (top >= AXON_DEPTH)
				fail("top of stack outside the move list", top);
			if (root_plus_one > AXON_DEPTH)
				fail("root outside the move list", root_plus_one);
			if (count_limit > AXON_COUNT_LIMIT_MAX)
				fail("count limit wider than the count_limit port", count_limit);
			uint32_t answer[6];
			run_query(top, static_cast<int32_t>(root_plus_one) - 1, count_limit,
			          op == OP_QUERY_UPCOMING, occupancy, answer);
			put_words(answer, 6);
		} else if (op == OP_FLUSH) {
			if (std::fflush(stdout) != 0)
				fail("cannot write stdout", 0);
		} else {
			fail("unknown command", op);
		}
	}
	if (std::fflush(stdout) != 0)
		fail("cannot write stdout", 0);
	return 0;
}
