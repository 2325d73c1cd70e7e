"""The layouts of the search layer: a move, a generated candidate, the
generator's resumable state and an entry of the undo stack."""

from amaranth.hdl import signed
from amaranth.lib import data

from .rules import SCORE_BITS


__all__ = ["Move", "Candidate", "GenState", "StackEntry", "GEN_EP", "GEN_SCAN", "GEN_KIND",
           "GEN_PIECE", "GEN_DONE", "Score", "SearchEntry", "NodeEvent"]


class Move(data.Struct):
    """A full move: from- and to-square (0 = a1 ... 63 = h8) and the piece
    type a pawn promotes to (0: none, else 2 knight ... 5 queen)."""
    from_sq: 6      # type: ignore[valid-type]
    to_sq:   6      # type: ignore[valid-type]
    promo:   3      # type: ignore[valid-type]


class Candidate(data.Struct):
    """A pseudo-legal move as the generator gives it, with what making and
    unmaking it need."""
    move:       Move
    piece:      4   # type: ignore[valid-type]  # the mover's Table 1 code
    captured:   4   # type: ignore[valid-type]  # the code on the to-square (0 for en passant)
    en_passant: 1   # type: ignore[valid-type]
    castle:     1   # type: ignore[valid-type]
    double:     1   # type: ignore[valid-type]  # a pawn's two-square step


# The generator's stages: en passant captures, the walk to the next own
# piece, the read of its type (a clock of its own, so that the priority
# encoder and the board's 64-way read are not one path), that piece's steps,
# and exhausted.
GEN_EP, GEN_SCAN, GEN_KIND, GEN_PIECE, GEN_DONE = range(5)


class GenState(data.Struct):
    """Everything the move generator needs to resume a node's moves where it
    left them; the undo stack keeps one per ply."""
    stage:     3    # type: ignore[valid-type]
    from_sq:   6    # type: ignore[valid-type]
    kind:      3    # type: ignore[valid-type]  # the type of the piece on from_sq
    step:      4    # type: ignore[valid-type]  # index into the piece's steps
    to_sq:     6    # type: ignore[valid-type]  # a slider's last square on its ray
    promo:     2    # type: ignore[valid-type]  # index into PROMOTIONS
    holding:   1    # type: ignore[valid-type]  # ``candidate`` is waiting to be taken
    candidate: Candidate


class StackEntry(data.Struct):
    """One ply of the undo stack: the node's generator, the rights and en
    passant square before its current move, and whether the node has a legal
    en passant capture (which makes all its moves barriers)."""
    gen:            GenState
    old_castling:   4   # type: ignore[valid-type]
    old_ep_valid:   1   # type: ignore[valid-type]
    old_ep_sq:      6   # type: ignore[valid-type]
    node_ep_legal:  1   # type: ignore[valid-type]


#: A search score: centipawns from the side to move's view, or a mate.
Score = signed(SCORE_BITS)


class SearchEntry(data.Struct):
    """One ply of the search unit's stack: the walk's entry, and the node's
    window and best score while a child is searched; ``moved``: the node
    has a legal move."""
    node:  StackEntry
    alpha: Score
    beta:  Score
    best:  Score
    moved: 1        # type: ignore[valid-type]


class NodeEvent(data.Struct):
    """A node of the search unit as it returns: its ply, the move that led
    to it (0 for the root), the window it was searched with, whether the
    detector was asked (all but the root) and said draw, and the score it
    returned (from its side to move's view)."""
    ply:     4      # type: ignore[valid-type]
    move:    Move
    alpha:   Score
    beta:    Score
    queried: 1      # type: ignore[valid-type]
    draw:    1      # type: ignore[valid-type]
    score:   Score
