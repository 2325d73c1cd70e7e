"""``--backend``: the detector sessions a command can answer with."""

from ..backends.cxxrtl import CxxrtlSession
from ..backends.pysim import PysimSession
from ..backends.session import GoldenSession


__all__ = ["BACKENDS", "BACKEND_ALIASES", "backend_name", "make_session"]

# ``--backend``: the session class of each, and what it takes beyond the
# configuration.
BACKENDS = {
    "golden": GoldenSession,
    "pysim":  PysimSession,
    "cxxrtl": CxxrtlSession,
}

# Other names ``--backend`` takes: ``sim`` was the pysim backend's first name.
BACKEND_ALIASES = {"sim": "pysim"}


def backend_name(name):
    """``--backend``'s value (an argparse ``type``): ``sim`` is ``pysim``."""
    return BACKEND_ALIASES.get(name, name)


def make_session(options, progress=None):
    """The session of ``options.backend`` for ``options.config``: a waveform
    (``options.vcd``) for the pysim backend, ``progress.say`` told of a
    CXXRTL compile."""
    extra = {}
    if options.backend == "pysim":
        extra["vcd"] = getattr(options, "vcd", None)
    if options.backend == "cxxrtl" and progress:
        extra["log"] = progress.say
    return BACKENDS[options.backend](options.config, **extra)
