"""The search layer's Python model: the move generator and perft, move for
move as the gateware of :mod:`axon.hdl.search` gives them."""
