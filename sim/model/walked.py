"""The walked chain list's clocks: how long each query walks.

The walked list (:mod:`axon.hdl.walkedlist`) answers exactly what one pool a
side of as many entries answers, so the golden model's chain list gives its
answers unchanged; what is its own is the time. Its scan
(:mod:`axon.hdl.walkedscan`) takes two clocks for each word it applies, one
more for each open chain of the word's side, which the list walks before it
updates, and one to count the walk's last comparison
(:func:`~axon.hdl.params.walked_word_clocks`); the word that stops the scan takes one clock, or, when it
overflows, its own walk and update. :func:`walked_clocks` counts them the
same way from the golden model's chains, so that every backend can hold the
gateware to its exact clock count.
"""

from ...hdl.params import WALKED_LATENCY_OVERHEAD, DetectorConfig, Stop, walked_word_clocks
from ...hdl.word import unpack_word
from .golden import GoldenChainList


__all__ = ["walked_clocks", "walked_chains"]


def walked_chains(words, top, result, config):
    """The open chains of its side that the list walks for each word the
    query applies, and for the overflowing word last if it overflows: a list
    of counts, from the golden model's chains."""
    DetectorConfig.checked(config, gateware=False)
    chain_list = GoldenChainList(config)
    walks = []
    applied = result.plies_scanned + (result.stop is Stop.OVERFLOW)
    for address in range(top, top - applied, -1):
        from_sq, to_sq, piece, _ = unpack_word(words[address])
        pool = chain_list.by_piece.get(piece, chain_list.no_pool)
        walks.append(len(pool.snapshot()))
        chain_list.apply(piece, from_sq, to_sq)
    return walks


def walked_clocks(words, top, result, config):
    """Clocks from the clock that samples ``start`` to ``done`` of a query
    on a walked chain list of ``config``, whose golden answer is ``result``:
    :func:`~axon.hdl.params.walked_word_clocks` for each word applied (of
    ``W``, the open chains of its side that the list walks: ``2 + W``, and
    one more if ``W`` is not 0), then one for the judging clock of the word
    that stops the scan, or the same for a word that overflows."""
    walks = walked_chains(words, top, result, config)
    clocks = sum(walked_word_clocks(walk) for walk in walks)
    if result.stop is not Stop.OVERFLOW:
        clocks += WALKED_LATENCY_OVERHEAD
    return clocks
