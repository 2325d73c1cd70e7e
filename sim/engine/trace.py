"""``axon search --trace``: one JSON row per detector query, and its check.

The first row says what was searched, once: ``fen``, the start position
(before the game history); ``history``, the game's moves from there
(space-separated UCI moves); ``root``, their number of plies (as ``--root``
and ``[Root "N"]`` count). Each row after it is one query, in terms anyone
can check with python-chess alone:

* ``path``: the search path from the root to the node, space-separated UCI
  moves, ``0000`` for a null move;
* ``count_limit``: the query's count limit;
* ``repetition``, ``draw``, ``count``, ``distance``: the answer, with the keys
  of ``axon scan --jsonl``.

:func:`read_trace` gives each query's row whole again, with the start
position and the whole line (``fen``, ``moves``, ``root``). A name ending in
``.gz`` is written gzip-compressed.
"""

import gzip
import json

import chess

from ..model.oracle import oracle_answers


__all__ = ["SEARCH_KEYS", "QUERY_KEYS", "TRACE_KEYS", "TraceWriter", "read_trace",
           "check_trace"]

# The first row's keys, a query row's, and a row as read_trace gives it.
SEARCH_KEYS = ("fen", "history", "root")
QUERY_KEYS = ("path", "count_limit", "repetition", "draw", "count", "distance")
TRACE_KEYS = ("fen", "moves", "root", "count_limit", "repetition", "draw", "count", "distance")


def _open(path, mode):
    if str(path).endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8")
    return open(path, mode, encoding="utf-8")


class TraceWriter:
    """Writes a row per query; its :meth:`record` is a
    :class:`~axon.sim.engine.repetition.DetectorTest` ``on_query``."""

    def __init__(self, path):
        self.path = path
        self.rows = 0
        self._started = False
        self._file = _open(path, "w")

    def begin(self):
        """A new search starts: its first query writes the start row again
        (one engine may search many positions, as ``axon uci`` does)."""
        self._started = False

    def record(self, test, top, count_limit, occupancy, result):
        history = test.history_plies
        if not self._started:
            # The search's start, once: every query shares it.
            self._file.write(json.dumps({"fen": test.start_fen,
                                         "history": " ".join(test.line[:history]),
                                         "root": history}) + "\n")
            self._started = True
        row = {"path": " ".join(test.line[history:history + top - test.root_address]),
               "count_limit": count_limit, "repetition": result.repetition,
               "draw": result.draw, "count": result.count, "distance": result.distance}
        self._file.write(json.dumps(row) + "\n")
        self.rows += 1

    def close(self):
        self._file.close()


def read_trace(path):
    """The query rows of a trace file, each whole (:data:`TRACE_KEYS`): the
    search's start position, its whole line (game history, then the path)
    and its root, with the query's count limit and answer."""
    rows, search = [], None
    with _open(path, "r") as file:
        for line in file:
            if not line.strip():
                continue
            record = json.loads(line)
            if "fen" in record:
                search = record
                continue
            moves = " ".join(part for part in (search["history"], record["path"]) if part)
            rows.append({"fen": search["fen"], "moves": moves, "root": search["root"],
                         **{key: record[key] for key in QUERY_KEYS if key != "path"}})
    return rows


def check_trace(rows):
    """Recompute every row with python-chess alone (position keys, no chain
    list); return the rows that differ, each with python-chess's answer
    under ``expected``."""
    differences = []
    for row in rows:
        board = chess.Board(row["fen"])
        moves = [chess.Move.from_uci(uci) for uci in row["moves"].split()]
        answer = oracle_answers(board, moves, count_limit=row["count_limit"],
                                root=row["root"])[-1]
        expected = {"repetition": answer.repetition, "draw": answer.draw,
                    "count": answer.count, "distance": answer.distance}
        if any(row[key] != value for key, value in expected.items()):
            differences.append({**row, "expected": expected})
    return differences
