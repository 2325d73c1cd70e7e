"""The build caches' file names and writes, shared by the compiled backends.

CXXRTL, the Verilog export's read-back and the netlist each keep what they
generate (C++, netlists, binaries) in a cache directory, named by a key of
everything it was made from (:func:`digest`), and written whole or not at
all (:func:`write_atomically`), so that runs in parallel share it safely.
"""

import hashlib
import os
import tempfile
from pathlib import Path


__all__ = ["digest", "write_atomically"]


def digest(*parts):
    """A short key of ``parts`` (each text or bytes) for a cached file's name:
    any change to any part, or to where one ends and the next begins, gives
    another key."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        # Length-prefixed, so that moving text from one part to the next
        # changes the key.
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()[:24]


def write_atomically(path, data):
    """Write ``data`` (text or bytes) to ``path`` through a temporary file
    beside it, so that a reader, or a second process building the same
    file, never sees half of it."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data.encode() if isinstance(data, str) else data)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
