"""The repetition test inside a search: at every node, is this position a draw?

A search asks its repetition test three things, as it walks the tree:

* :meth:`push` the move it is about to play from ``board`` (going down);
* :meth:`pop` when it takes the move back (coming up);
* :meth:`is_draw`: is the position after the last push a draw by
  repetition for a search from the root (a third occurrence anywhere, or a
  second one strictly after the root position: the chessprogramming wiki's
  "Assigning Draw Score", Stockfish's ``is_draw(ply)``); and, for
  ``--upcoming-cutoff``, :meth:`upcoming_draw`: can the side to move reach such a
  draw with one move (Stockfish's ``upcoming_repetition``)?

They are the methods of :class:`RepetitionTest`, with the ``queries`` it
has asked so far. Three tests implement it: :class:`NoTest` (never a draw),
:class:`ChessTest` (python-chess's transposition keys, no chain list) and
:class:`DetectorTest` (any detector session: the move list holds the game
history and the path, one word written per push, one query per node). A
null move is a barrier for all of them: no position before it is compared
with one after it.
"""

import warnings
from typing import (TYPE_CHECKING, Callable, Hashable, List, Optional, Protocol, Sequence,
                    Tuple)

import chess

from ...hdl.search.rules import DRAW_COUNT_LIMIT
from ...hdl.word import is_barrier
from ..model.encode import encode_move
from ..model.golden import Result

if TYPE_CHECKING:       # for the annotations only: a test takes any session
    from ..backends.session import Session


__all__ = ["MAX_PLY", "RepetitionTest", "NoTest", "ChessTest", "DetectorTest", "OnQuery",
           "SearchTooDeep", "history_room", "history_window", "QUERY_COUNT_LIMIT",
           "UPCOMING_CHECK_LIMIT"]

# Plies of search path (main search and quiescence) the move list keeps room
# for above the game history.
MAX_PLY = 64
# A node's query stops at the first earlier occurrence after the root, or
# goes on for a second one (limit 1 leaves a lone occurrence at or before
# the root undecided, see axon.sim.model.golden.perpetual): the least scan
# that decides ``draw``; the search unit asks with it too.
QUERY_COUNT_LIMIT = DRAW_COUNT_LIMIT
# The host's look-up for an upcoming repetition of a position at or before
# the root: two earlier occurrences make the move's position a third one.
UPCOMING_CHECK_LIMIT = 2


class SearchTooDeep(RuntimeError):
    """The path outgrew the room the move list keeps for it."""


class RepetitionTest(Protocol):
    """What a search (:class:`~axon.sim.engine.alphabeta.Engine`) asks of its
    repetition test; see the module documentation."""

    # Questions asked so far: a search's count is the difference.
    queries: int

    def start(self, board: chess.Board, history: Sequence[chess.Move]) -> None:
        """A search from the position after ``history`` played from ``board``."""

    def push(self, board: chess.Board, move: chess.Move) -> None:
        """The search plays ``move`` from ``board`` (not yet pushed on it)."""

    def pop(self) -> None:
        """The search takes the last pushed move back."""

    def is_draw(self, board: chess.Board) -> bool:
        """Is ``board``, the position after the last push, a draw by repetition?"""

    def upcoming_draw(self, board: chess.Board) -> bool:
        """Can the side to move at ``board`` reach a draw by repetition with one move?"""


def _key(board: chess.Board) -> Hashable:
    # python-chess's own repetition key (Board.is_repetition compares it):
    # placement, side to move, castling rights and a legal en-passant square.
    return board._transposition_key()


class NoTest(RepetitionTest):
    """``--repetition off``: no position is ever a draw by repetition."""

    name = "off"
    queries = 0

    def start(self, board: chess.Board, history: Sequence[chess.Move]) -> None:
        pass

    def push(self, board: chess.Board, move: chess.Move) -> None:
        pass

    def pop(self) -> None:
        pass

    def is_draw(self, board: chess.Board) -> bool:
        return False

    def upcoming_draw(self, board: chess.Board) -> bool:
        return False


class ChessTest(RepetitionTest):
    """``--repetition python-chess``: the draw rule applied to python-chess's
    transposition keys of every position since the last null move, with no
    barrier shortcut and nothing of the detector."""

    name = "python-chess"

    def __init__(self) -> None:
        self.queries = 0

    def start(self, board: chess.Board, history: Sequence[chess.Move]) -> None:
        board = board.copy(stack=False)
        self._keys = [_key(board)]
        self._since = [0]          # index of the first position each null move leaves comparable
        for move in history:
            self.push(board, move)
            board.push(move)
        self._root = len(self._keys) - 1

    def push(self, board: chess.Board, move: chess.Move) -> None:
        if not move:
            self._since.append(len(self._keys))
        board.push(move)
        self._keys.append(_key(board))
        board.pop()

    def pop(self) -> None:
        self._keys.pop()
        if self._since[-1] == len(self._keys):
            self._since.pop()

    def _earlier(self, key: Hashable, before: int) -> List[int]:
        return [index for index in range(self._since[-1], before) if self._keys[index] == key]

    def _decides(self, earlier: List[int]) -> bool:
        return len(earlier) >= 2 or (bool(earlier) and earlier[-1] > self._root)

    def is_draw(self, board: chess.Board) -> bool:
        self.queries += 1
        now = len(self._keys) - 1
        return self._decides(self._earlier(self._keys[now], now))

    def upcoming_draw(self, board: chess.Board) -> bool:
        """The most recent earlier position a legal move gives back: a draw if
        it lies after the root, or if it has occurred twice already."""
        now = len(self._keys)
        latest: Optional[List[int]] = None
        for move in board.legal_moves:
            if board.is_capture(move) or board.piece_type_at(move.from_square) == chess.PAWN:
                continue        # an irreversible move reaches no earlier position
            board.push(move)
            earlier = self._earlier(_key(board), now)
            board.pop()
            if earlier and (latest is None or earlier[-1] > latest[-1]):
                latest = earlier
        return latest is not None and self._decides(latest)


def history_room(depth: int) -> int:
    """Words of game history a move list of ``depth`` keeps below the
    :data:`MAX_PLY` plies of path; ``ValueError`` if none."""
    room = depth - MAX_PLY
    if room < 1:
        raise ValueError(f"a move list of depth {depth} leaves no room for game history "
                         f"below a search path of {MAX_PLY} plies")
    return room


def history_window(words: Sequence[int], depth: int) -> int:
    """The index of the first game-history word the move list keeps: the
    last barrier (no query reaches past it), or as far back as leaves
    :data:`MAX_PLY` words of room for the path."""
    first = max(0, len(words) - history_room(depth))
    barriers = [index for index, word in enumerate(words) if is_barrier(word)]
    if barriers and barriers[-1] >= first:
        first = barriers[-1]
    return first


# DetectorTest's ``on_query(test, top, count_limit, occupancy, result)``.
OnQuery = Callable[["DetectorTest", int, int, Optional[int], Result], None]


class DetectorTest(RepetitionTest):
    """``--repetition detector``: a detector session holds the game history
    and the path; a push writes the move's word at its address (a pop writes
    nothing: the next push overwrites it), and every node is one query with
    ``top`` the node's address and ``root_address`` the last game-history word. The
    words pushed since the last query go with the next
    (``write_and_query``): on a link, one round trip a node.

    Parameters
    ----------
    session : Session
        Any detector session.
    ask_upcoming : bool
        Ask for the upcoming repetition too (each query carries the position's
        occupancy), as the search's upcoming-repetition cutoff needs
        (``upcoming``, its old name, stays until 0.5 with a warning).
    on_query : callable or None
        ``on_query(test, top, count_limit, occupancy, result)`` after every
        query: the trace and the bench's recorded workload. ``occupancy`` is
        the node's (given to the session with ``ask_upcoming`` only), ``None``
        for the host's look-up of an upcoming repetition.
    """

    name = "detector"

    def __init__(self, session: "Session", *, ask_upcoming: bool = False,
                 on_query: Optional[OnQuery] = None, **deprecated: bool) -> None:
        unknown = set(deprecated) - {"upcoming"}
        if unknown:
            raise TypeError(f"DetectorTest() got an unexpected keyword argument "
                            f"{sorted(unknown)[0]!r}")
        if "upcoming" in deprecated:
            warnings.warn("DetectorTest(upcoming=...) is now DetectorTest(ask_upcoming=...); "
                          "upcoming= stays until 0.5", DeprecationWarning, stacklevel=2)
            ask_upcoming = ask_upcoming or bool(deprecated["upcoming"])
        config = getattr(session, "config", None)     # a real board's is not known
        if ask_upcoming and config is not None and not config.upcoming:
            raise ValueError("this detector has no upcoming-repetition block; "
                             "--upcoming-cutoff needs one")
        # Refused here, before any search starts, not at each search's start.
        history_room(session.depth)
        self.session = session
        self.ask_upcoming = ask_upcoming
        self.on_query = on_query
        self.queries = 0

    def start(self, board: chess.Board, history: Sequence[chess.Move]) -> None:
        words, walk = [], board.copy(stack=False)
        for move in history:
            words.append(encode_move(walk, move))
            walk.push(move)
        first = history_window(words, self.session.depth)
        # The trace's line: from the start position, game history included.
        self.start_fen = board.fen()
        self.history_plies = len(history)
        self.line = [move.uci() for move in history]
        self.words = words[first:]
        self.root_address = len(self.words) - 1
        self.top = self.root_address
        # What the move list holds, as the host wrote it.
        self.written = self.words + [0] * (self.session.depth - len(self.words))
        self.session.load(self.words)
        # Words pushed since the last query, sent with the next one: on a
        # link, a node's move and its question share a round trip.
        self.unsent: List[Tuple[int, int]] = []

    def push(self, board: chess.Board, move: chess.Move) -> None:
        self.top += 1
        if self.top >= self.session.depth:
            raise SearchTooDeep(f"the search path outgrew the move list's {self.session.depth} "
                                f"entries")
        word = encode_move(board, move)
        self.unsent.append((self.top, word))
        self.written[self.top] = word
        self.line.append(move.uci())

    def pop(self) -> None:
        self.top -= 1
        self.line.pop()

    def _ask(self, top: int, count_limit: int, occupancy: Optional[int]) -> Result:
        writes, self.unsent = self.unsent, []
        result = self.session.write_and_query(writes, top, count_limit,
                                              occupancy if self.ask_upcoming else None,
                                              self.root_address).result
        self.queries += 1
        if self.on_query is not None:
            self.on_query(self, top, count_limit, occupancy, result)
        return result

    def is_draw(self, board: chess.Board) -> bool:
        self._last = self._ask(self.top, QUERY_COUNT_LIMIT, int(board.occupied))
        return self._last.draw

    def upcoming_draw(self, board: chess.Board) -> bool:
        """The detector's upcoming repetition of this node's query: a draw
        when the position the move gives back lies after the root
        (``upcoming_draw``). One at or before the root is a draw only as a
        third occurrence, which the detector's answer cannot tell: the host
        writes the move's word above the node and asks once more, at count
        limit 2."""
        result = self._last
        if not result.upcoming or result.upcoming_move is None:
            return False
        if result.upcoming_draw:
            return True
        if self.top + 1 >= self.session.depth:
            raise SearchTooDeep(f"the search path outgrew the move list's "
                                f"{self.session.depth} entries")
        move = chess.Move(*result.upcoming_move)
        word = encode_move(board, move)
        self.unsent.append((self.top + 1, word))
        self.written[self.top + 1] = word
        self.line.append(move.uci())
        try:
            return self._ask(self.top + 1, UPCOMING_CHECK_LIMIT, None).draw
        finally:
            self.line.pop()
