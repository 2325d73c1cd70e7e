"""Golden model, move encoder and simulation helpers of the Axon detector."""
