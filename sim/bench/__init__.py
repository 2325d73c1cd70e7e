"""``axon bench``: the figures of the detector, its peers and its workloads."""
