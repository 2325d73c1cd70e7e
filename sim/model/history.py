"""Which part of a long game the move list holds: the sliding window.

The detector's move list has ``depth`` entries (256 by default), and a game
can be longer. Both backends of ``axon scan`` and ``axon verify`` (the golden
model and the RTL simulation) and ``axon explain`` use this one rule, so that
they query identical windows and must agree exactly:

    The move list holds ``words[base:n]``, where ``n`` is the number of plies
    played so far. ``base`` starts at 0 and moves only when a ply would not
    fit (``n - base > depth``). It then moves to the most recent barrier word
    (an irreversible move, possibly the new ply itself), which is kept as the
    new address 0 so that scans still stop there with ``barrier``; or, if even
    that window is longer than ``depth`` (or the window has no barrier), to
    ``n - depth``. The query for ply ``n`` runs on the window with
    ``top = n - 1 - base``. A scan that stops at ``bottom`` while ``base > 0``
    and ``words[base]`` is not a barrier is *window-limited*: like an
    overflow, its answer may miss a repetition older than the window.

Moving ``base`` to a barrier loses nothing: no position before an
irreversible move can recur after it, so the scan would have stopped there
anyway. Only a run of more than ``depth`` reversible plies makes an answer
window-limited, and such a game has long passed the fifty-move rule.
"""

from dataclasses import dataclass

from ...hdl.word import unpack_word
from .golden import Stop


__all__ = ["Window", "windows", "window_segments", "iter_window_segments", "is_window_limited",
           "root_address"]


@dataclass(frozen=True)
class Window:
    """The move-list contents for the query after one ply.

    Members
    -------
    ply : int
        0-based index of the ply's word in the game (``n - 1``).
    base : int
        Index in the game of the word stored at move-list address 0.
    top : int
        Address of the ply's word, ``ply - base``.
    """
    ply:  int
    base: int
    top:  int


def _is_barrier(word):
    return unpack_word(word)[3]


def windows(words, depth):
    """One :class:`Window` per ply of ``words``, by the module's rule."""
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"move-list depth must be a positive integer, not {depth!r}")
    base = 0
    last_barrier = None      # index of the most recent barrier word so far
    result = []
    for index, word in enumerate(words):
        if _is_barrier(word):
            last_barrier = index
        played = index + 1
        if played - base > depth:
            if last_barrier is not None and played - last_barrier <= depth:
                base = last_barrier
            else:
                base = played - depth
        result.append(Window(ply=index, base=base, top=index - base))
    return result


def window_segments(words, depth):
    """Group the plies into runs that share one ``base``.

    Returns a list of ``(base, window_words, plies)``: the words to load at
    address 0 (``words[base:last + 1]``) and the :class:`Window` of each ply
    of the run. The RTL backend loads each run once and queries it ply by ply.
    """
    return list(iter_window_segments(words, depth))


def iter_window_segments(words, depth):
    """:func:`window_segments` one run at a time: a long game slides its window
    a ply at a time, and a list of every run's words would hold ``depth``
    words a ply."""
    base, plies = None, []
    for window in windows(words, depth):
        if plies and window.base != base:
            yield base, words[base:plies[-1].ply + 1], plies
            plies = []
        base = window.base
        plies.append(window)
    if plies:
        yield base, words[base:plies[-1].ply + 1], plies


def is_window_limited(result, words, base):
    """True if ``result`` (a query on the window at ``base``) may have missed
    an older repetition because the window cut the game short."""
    return result.stop is Stop.BOTTOM and base > 0 and not _is_barrier(words[base])


def root_address(window, history):
    """The query's root in the move list of ``window``: the address of the
    last word of the game's first ``history`` plies (its game history), as
    one of -1 (the search starts at or below the window's address 0) to
    ``window.top`` (the position is game history: a higher root means the
    same)."""
    return max(-1, min(history - 1 - window.base, window.top))
