"""Many positions searched at once, each search with a repetition test of its own.

A search asks its repetition test at every node and waits for the answer,
so one detector serves one search at a time. N searches at once need N
detectors:

* :func:`search_in_processes`: N worker processes, each with its own test
  (a golden model, a simulation of the RTL, or python-chess's keys), made
  once in the worker by a picklable ``make_test``;
* :func:`search_in_threads`: N tests in this process, one thread each: the
  N detector sessions of one board share its link (one test: no thread,
  the calling one searches).

Both take :class:`SearchJob` s and yield a :class:`JobResult` per job as its
search ends, in the order they end: the caller puts them back in its own
order. However the caller stops reading (Ctrl-C, an error, a closed
output), the workers are stopped before the generator returns.
"""

import multiprocessing
import queue
import signal
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

import chess

from .repetition import SearchTooDeep
from .alphabeta import Engine


__all__ = ["SearchJob", "JobResult", "JobFailed", "DETECTOR_ERRORS", "search_job",
           "search_in_processes", "search_in_threads"]


@dataclass(frozen=True)
class SearchJob:
    """One position to search to ``depth`` by iterative deepening."""
    index:     int      # the caller's place for it
    fen:       str
    depth:     int
    upcoming_cutoff: bool = False
    null_move:       bool = False


@dataclass
class JobResult:
    """A search's depths (:meth:`~axon.sim.engine.alphabeta.DepthResult.as_dict`
    each), or the one-line reason it failed."""
    index:  int
    depths: List[Dict[str, Any]]
    error:  Optional[str] = None


class JobFailed(RuntimeError):
    """A worker failed outside any search (its test could not be made, or
    it ended unexpectedly); ``str(error)`` says why."""


def _detector_errors():
    # The failures of a detector a search reports in one line: the link's,
    # CXXRTL's and a path deeper than the move list.
    from ..backends.cxxrtl import CxxrtlError
    from ..backends.link import LinkError, LinkTimeout
    return (SearchTooDeep, CxxrtlError, LinkError, LinkTimeout)


DETECTOR_ERRORS = _detector_errors()


def search_job(job: SearchJob, test) -> List[Dict[str, Any]]:
    """The depths of ``job`` searched with ``test``."""
    engine = Engine(chess.Board(job.fen), [], test, upcoming_cutoff=job.upcoming_cutoff,
                    null_move=job.null_move)
    return [result.as_dict() for result in engine.iterate(job.depth)]


def _close(test):
    close = getattr(getattr(test, "session", None), "close", None)
    if close is not None:
        close()


# -- processes ----------------------------------------------------------------

def _worker(make_test, tasks, results):
    """A worker process: make the test once, then search jobs until ``None``."""
    try:
        test = make_test()
    except DETECTOR_ERRORS as error:
        results.put(("failed", None, str(error)))
        return
    except BaseException:
        results.put(("failed", None, traceback.format_exc()))
        return
    results.put(("ready", None, None))
    try:
        while (job := tasks.get()) is not None:
            try:
                results.put(("done", job.index, search_job(job, test)))
            except DETECTOR_ERRORS as error:
                results.put(("error", job.index, str(error)))
    except BaseException:
        results.put(("failed", None, traceback.format_exc()))
    finally:
        _close(test)


def search_in_processes(jobs: Iterable[SearchJob], make_test: Callable[[], Any],
                        processes: int, *,
                        on_ready: Optional[Callable[[], None]] = None) -> Iterator[JobResult]:
    """Search ``jobs`` in ``processes`` worker processes, each with the test
    ``make_test()`` (picklable) gives it; yield each result as it comes.
    ``on_ready()`` is called once, when the first worker has made its test
    (a detector's start-up takes seconds: a rate is measured from there).

    The workers ignore SIGINT: a Ctrl-C at the terminal reaches the whole
    process group, and only this process decides what to keep; it ends the
    workers on its way out."""
    jobs = list(jobs)
    context = multiprocessing.get_context()
    tasks, results = context.Queue(), context.Queue()
    for job in jobs:
        tasks.put(job)
    workers = []
    # Started with SIGINT ignored, which they keep (and so does a CXXRTL
    # model a worker starts): no worker can die of a Ctrl-C with a traceback.
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for _ in range(processes):
            tasks.put(None)
            worker = context.Process(target=_worker, args=(make_test, tasks, results),
                                     daemon=True)
            worker.start()
            workers.append(worker)
    finally:
        signal.signal(signal.SIGINT, handler)
    try:
        remaining = len(jobs)
        while remaining:
            try:
                kind, index, found = results.get(timeout=0.5)
            except queue.Empty:
                dead = [worker for worker in workers if worker.exitcode not in (None, 0)]
                if dead:
                    raise JobFailed(f"a search process ended with exit status "
                                    f"{dead[0].exitcode}") from None
                if all(worker.exitcode == 0 for worker in workers):
                    raise JobFailed("the search processes ended with positions left")
                continue
            if kind == "failed":
                raise JobFailed(found.rstrip())
            if kind == "ready":
                if on_ready is not None:
                    on_ready()
                    on_ready = None
                continue
            remaining -= 1
            yield JobResult(index, found if kind == "done" else [],
                            None if kind == "done" else found)
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
        for worker in workers:
            worker.join(timeout=5)
        tasks.cancel_join_thread()
        results.cancel_join_thread()
        tasks.close()
        results.close()


# -- threads ------------------------------------------------------------------

class _Stopped(Exception):
    """Raised inside a thread's search when the caller has stopped reading."""


class _StoppableSession:
    """A detector session that raises :class:`_Stopped` at its next query
    once ``stop`` is set, so that a thread's search ends at its next node."""

    def __init__(self, session, stop):
        self._session = session
        self._stop = stop

    def __getattr__(self, name):
        return getattr(self._session, name)

    def query(self, *args, **kwargs):
        if self._stop.is_set():
            raise _Stopped
        return self._session.query(*args, **kwargs)


def search_in_threads(jobs: Iterable[SearchJob], tests: List[Any]) -> Iterator[JobResult]:
    """Search ``jobs`` with ``tests`` in this process, one thread a test
    (with one test, in the calling thread); yield each result as it comes."""
    jobs = list(jobs)
    if len(tests) == 1:
        for job in jobs:
            try:
                yield JobResult(job.index, search_job(job, tests[0]))
            except DETECTOR_ERRORS as error:
                yield JobResult(job.index, [], str(error))
        return
    stop = threading.Event()
    for test in tests:
        if hasattr(test, "session"):
            test.session = _StoppableSession(test.session, stop)
    tasks = queue.Queue()
    for job in jobs:
        tasks.put(job)
    results = queue.Queue()

    def work(test):
        try:
            while not stop.is_set():
                try:
                    job = tasks.get_nowait()
                except queue.Empty:
                    return
                try:
                    results.put(("done", job.index, search_job(job, test)))
                except DETECTOR_ERRORS as error:
                    results.put(("error", job.index, str(error)))
        except _Stopped:
            pass
        except BaseException:
            results.put(("failed", None, traceback.format_exc()))

    threads = [threading.Thread(target=work, args=(test,), daemon=True) for test in tests]
    for thread in threads:
        thread.start()
    try:
        for _ in jobs:
            while True:
                try:
                    kind, index, found = results.get(timeout=0.5)
                    break
                except queue.Empty:
                    if not any(thread.is_alive() for thread in threads) and results.empty():
                        raise JobFailed("the searches ended with positions left") from None
            if kind == "failed":
                raise JobFailed(found.rstrip())
            yield JobResult(index, found if kind == "done" else [],
                            None if kind == "done" else found)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
        for test in tests:
            if isinstance(getattr(test, "session", None), _StoppableSession):
                test.session = test.session._session
