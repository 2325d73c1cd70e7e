"""Board tops and the host link of the Axon detector."""
