"""``axon search``'s engine: a small alpha-beta search that asks a
repetition test (python-chess, or any detector session) at every node."""
