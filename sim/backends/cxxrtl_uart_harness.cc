// Testbench for the CXXRTL model of AxonBoard, driven at its UART pins; see
// axon/sim/backends/board_cxxrtl.py.
//
// axon.sim.backends.cxxrtl writes a prelude before this file that includes the
// generated design and defines
//
//   AXON_DESIGN          the design class (cxxrtl_design::p_<name>)
//   AXON_DIVISOR         clocks per UART bit
//   AXON_QUIET_CLOCKS    clocks of silence that end a segment
//   AXON_SEGMENT_LIMIT   clocks after which a segment is given up
//   AXON_PORT_<NAME>     the CXXRTL member of each port used here
//
// stdin: segments of uint32 (host byte order) until end of file,
//   N b0 .. b(N-1)      send these N bytes on uart_rx (8N1, LSB first), then
//                       keep the line idle until uart_tx has been idle, with
//                       no byte in flight and no search or perft running
//                       (busy low), for AXON_QUIET_CLOCKS clocks
//   RESET_FLAG|N R b0 .. b(N-1)
//                       the same, and hold the design's reset (rst, the
//                       sync domain's) high for the segment's clock R,
//                       counted from its first clock: a fault injected
//                       wherever R falls (mid-byte, mid-scan, mid-answer)
// stdout: per segment, STATUS M r0 .. r(M-1): the M bytes the board sent on
//   uart_tx during the segment, sampled mid-bit as a UART would. STATUS 0:
//   the board fell silent; 1: it was still sending after AXON_SEGMENT_LIMIT
//   clocks, not counting those of a search or perft (a hang, as far as the
//   host can tell). Each segment's answer is
//   flushed before the next segment is read, so that a host may send one
//   segment at a time and wait for its answer.
// Bad input ends the run with exit status 2 and a message on stderr.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

AXON_DESIGN dut;

const uint32_t RESET_FLAG = 1u << 31;

// Clocks since the segment began, and the one on which rst is high (none:
// UINT64_MAX).
uint64_t segment_clock = 0;
uint64_t reset_clock = UINT64_MAX;

[[noreturn]] void fail(const char *message, uint64_t detail) {
	std::fprintf(stderr, "axon uart harness: %s (%llu)\n", message,
	             static_cast<unsigned long long>(detail));
	std::exit(2);
}

// The line model of the host's UART receiver: it sees a start bit on the
// first clock uart_tx is low, then samples each bit in its middle.
struct Receiver {
	bool busy = false;
	uint32_t timer = 0;      // clocks to the next sample
	uint32_t bit = 0;        // data bits sampled so far; 8: the stop bit is next
	uint32_t byte = 0;
	std::vector<uint32_t> bytes;

	void sample(bool line) {
		if (!busy) {
			if (!line) {
				busy = true;
				bit = 0;
				byte = 0;
				timer = AXON_DIVISOR / 2 + AXON_DIVISOR;
			}
			return;
		}
		if (--timer != 0)
			return;
		if (bit < 8) {
			byte |= uint32_t(line) << bit;
			bit++;
			timer = AXON_DIVISOR;
		} else {
			// A byte without its stop bit is a framing error: dropped, as a
			// UART would.
			if (line)
				bytes.push_back(byte);
			busy = false;
		}
	}
};

Receiver host_rx;

// One clock: the rising edge, then the falling one (see the detector
// harness, cxxrtl_harness.cc, for why in this order), then the host's
// receiver samples the line.
void tick() {
	dut.AXON_PORT_RST.set<bool>(segment_clock++ == reset_clock);
	dut.AXON_PORT_CLK.set<bool>(true);
	dut.step();
	dut.AXON_PORT_CLK.set<bool>(false);
	dut.step();
	host_rx.sample(dut.AXON_PORT_UART_TX.get<bool>());
}

void send_byte(uint32_t byte) {
	uint32_t frame = (byte << 1) | (1u << 9);     // start bit 0, data, stop bit 1
	for (int index = 0; index < 10; index++) {
		dut.AXON_PORT_UART_RX.set<bool>((frame >> index) & 1);
		for (uint32_t clock = 0; clock < AXON_DIVISOR; clock++)
			tick();
	}
	dut.AXON_PORT_UART_RX.set<bool>(true);
}

bool read_word(uint32_t &word) {
	return std::fread(&word, sizeof word, 1, stdin) == 1;
}

} // namespace

int main() {
	dut.AXON_PORT_RST.set<bool>(false);
	dut.AXON_PORT_UART_RX.set<bool>(true);
	dut.step();
	for (int clock = 0; clock < 4 * AXON_DIVISOR; clock++)
		tick();

	uint32_t count;
	while (read_word(count)) {
		segment_clock = 0;
		reset_clock = UINT64_MAX;
		if (count & RESET_FLAG) {
			uint32_t clock;
			if (!read_word(clock))
				fail("segment ends before its reset clock", count);
			reset_clock = clock;
			count &= ~RESET_FLAG;
		}
		if (count > 1u << 20)
			fail("segment too long", count);
		for (uint32_t index = 0; index < count; index++) {
			uint32_t byte;
			if (!read_word(byte))
				fail("segment ends early at byte", index);
			if (byte > 0xff)
				fail("not a byte", byte);
			send_byte(byte);
		}
		uint32_t status = 0;
		uint64_t quiet = 0, clocks = 0;
		while (quiet < AXON_QUIET_CLOCKS) {
			tick();
			bool searching = dut.AXON_PORT_BUSY.get<bool>();
			quiet = host_rx.busy || searching ? 0 : quiet + 1;
			if (!searching && ++clocks > AXON_SEGMENT_LIMIT) {
				status = 1;
				break;
			}
		}
		uint32_t header[2] = {status, uint32_t(host_rx.bytes.size())};
		std::fwrite(header, sizeof header[0], 2, stdout);
		std::fwrite(host_rx.bytes.data(), sizeof(uint32_t), host_rx.bytes.size(), stdout);
		std::fflush(stdout);
		host_rx.bytes.clear();
	}
	return 0;
}
