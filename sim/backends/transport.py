"""The byte pipe to a board: one interface for a real board and the simulated ones.

The host's link client (:class:`axon.sim.backends.link.Link`) speaks the link
protocol over a :class:`Transport` and knows nothing of what is behind it: a
board on a serial port (:class:`axon.sim.backends.link.SerialTransport`), or the
board design simulated at its UART pins, in Amaranth's simulator
(:class:`axon.sim.backends.board_pysim.PysimBoard`) or compiled with CXXRTL
(:class:`axon.sim.backends.board_cxxrtl.CxxrtlBoard`).
"""


__all__ = ["Transport"]


class Transport:
    """A byte pipe to a board."""

    def write(self, data):
        raise NotImplementedError

    def read(self, count, timeout):
        """Up to ``count`` bytes; fewer if ``timeout`` seconds pass without them."""
        raise NotImplementedError

    def resync(self):
        """Stay silent for longer than the board's inter-byte timeout and drop
        anything received, so that the board's parser hunts for a frame again."""
        raise NotImplementedError

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
