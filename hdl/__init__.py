"""Gateware of the Axon repetition detector."""
