"""``axon search --trace``: one JSON row per detector query, and its check.

Each row says where the query was asked and what the detector answered, in
terms anyone can check with python-chess alone:

* ``fen``: the start position (before the game history);
* ``moves``: the line from there, space-separated UCI moves, ``0000`` for a
  null move: the game history, then the search path to the node;
* ``root``: plies of game history (as ``--root`` and ``[Root "N"]`` count);
* ``count_limit``: the query's count limit;
* ``repetition``, ``draw``, ``count``, ``distance``: the answer, with the keys
  of ``axon scan --jsonl``.

A name ending in ``.gz`` is written gzip-compressed.
"""

import gzip
import json

import chess

from ..model.oracle import oracle_answers


__all__ = ["TRACE_KEYS", "TraceWriter", "read_trace", "check_trace"]

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
        self._file = _open(path, "w")

    def record(self, test, top, count_limit, occupancy, result):
        row = {"fen": test.start_fen,
               "moves": " ".join(test.line[:test.history_plies + top - test.root]),
               "root": test.history_plies, "count_limit": count_limit,
               "repetition": result.repetition, "draw": result.draw,
               "count": result.count, "distance": result.distance}
        self._file.write(json.dumps(row) + "\n")
        self.rows += 1

    def close(self):
        self._file.close()


def read_trace(path):
    """The rows of a trace file, as dicts."""
    with _open(path, "r") as file:
        return [json.loads(line) for line in file if line.strip()]


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
