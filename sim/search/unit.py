"""What the search unit's backends take and give: a search job (the root
position, the game history's move words, the depth) and its result, the
same for Amaranth's simulator and CXXRTL."""

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from ...hdl.search.rules import INFINITY, MATE, MAX_DEPTH
from ...hdl.word import square_name
from .movegen import Position


__all__ = ["UnitJob", "UnitNode", "UnitResult", "check_unit_depth", "move_name", "signed",
           "node_of", "encode_job", "INFINITY", "MATE"]

# The promotion pieces' letters, by the Move layout's promo field.
_PROMOTION_LETTERS = {2: "n", 3: "b", 4: "r", 5: "q"}


def move_name(from_sq: int, to_sq: int, promo: int) -> str:
    """The UCI name of a move of the Move layout."""
    return square_name(from_sq) + square_name(to_sq) + _PROMOTION_LETTERS.get(promo, "")


def check_unit_depth(depth: int) -> int:
    """``depth`` if the unit searches it (1 .. MAX_DEPTH plies)."""
    if not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"the search unit searches 1 to {MAX_DEPTH} plies, not {depth!r}")
    return depth


@dataclass(frozen=True)
class UnitJob:
    """One search: the root ``position``, the game history's move words the
    move list holds (the last is the root address's), and the depth."""
    position: Position
    words: Tuple[int, ...]
    depth: int

    @property
    def root_address(self) -> int:
        return len(self.words) - 1


@dataclass(frozen=True)
class UnitNode:
    """A node as the unit returns from it (:class:`axon.hdl.search.layout.NodeEvent`):
    ``move`` is ``None`` at the root, ``draw`` is ``None`` where the
    detector was not asked."""
    ply: int
    move: Optional[str]
    alpha: int
    beta: int
    draw: Optional[bool]
    score: int


@dataclass
class UnitResult:
    """A search's result: the root's score (the unit's, :data:`MATE` =
    32,000) and best move (UCI, ``None`` without one), the counters, and
    the nodes if they were recorded."""
    score: int
    move: Optional[str]
    nodes: int
    terminal: int
    repetitions: int
    queries: int
    clocks: int
    wait_clocks: int
    trace: List[UnitNode] = field(default_factory=list)


def signed(value: int, bits: int = 16) -> int:
    """A two's complement field's value."""
    return value - (1 << bits) if value >> (bits - 1) else value


def node_of(ply: int, from_sq: int, to_sq: int, promo: int, alpha: int, beta: int,
            queried: int, draw: int, score: int) -> UnitNode:
    """A :class:`UnitNode` from the event's fields as the ports give them."""
    return UnitNode(ply, move_name(from_sq, to_sq, promo) if ply else None, signed(alpha),
                    signed(beta), bool(draw) if queried else None, signed(score))


def encode_job(job: UnitJob) -> Sequence[int]:
    """The job's numbers in the order the CXXRTL harness reads them."""
    pos = job.position
    ep = pos.ep_square
    return [job.depth, pos.side, pos.castling, int(ep is not None), ep or 0, *pos.board,
            len(job.words), *job.words]
