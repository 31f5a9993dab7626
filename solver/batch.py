"""Many positions solved on several cores at once (the bridge solver's "solve all boards").

The search runs without the GIL (once past its first 1,024 nodes or so: shorter ones keep
it, which spares two hand-overs of the GIL) and every worker has a searcher and table of
its own, so threads scale across cores; only the few Python steps between null-window
probes take the GIL. The worker threads and their tables are kept for the next call (at
most one table a core, at its first size; ``free_tables()`` frees them), since making them
anew cost more than solving a few small positions. Exact answers do not depend on the tables, hence not on
the thread count or on which thread solved what: ``solve_many(ps, threads=k)`` answers
exactly as ``[solve(p) for p in ps]`` does. Node counts and limited answers depend on
what a thread's tables hold from its earlier positions; with ``fresh_tables=True`` every
position starts from empty tables and those are reproducible too, whatever the threads.
"""

from __future__ import annotations

import atexit
import itertools
import numbers
import os
import queue
import threading
import traceback
import warnings
import weakref
from collections.abc import Iterable, Mapping, Sequence

from guandan_core.position import Position
from guandan_core.rules import Rules
from guandan_core.usertext import check_callback, quoted

from .search import (DEFAULT_TABLE_BITS, SolveResult, Stop, _borrow, _check_table_sizes,
                     _checked_flag, _checked_interval, _checked_limits, _checked_question,
                     _checked_stop, _give_back, _solvable, _trim_spares, solve)

__all__ = ["solve_many", "available_cores"]


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # not on Linux
        return max(1, os.cpu_count() or 1)


def _numbered(i: int, exc: Exception) -> Exception:
    """``exc`` again, of its own class where that class takes a message alone (so that a
    PositionError stays one), with the position's index in front of its message and as
    its ``position_index`` (a caller that names positions otherwise, by file, reads it
    there instead of parsing the message)."""
    message = f"position {i}: {exc}"
    try:
        numbered = type(exc)(message)
    except Exception:       # (a class with other arguments, such as JSONDecodeError)
        numbered = None
    if not isinstance(numbered, type(exc)) or str(numbered) != message:
        numbered = (TypeError if isinstance(exc, TypeError) else ValueError)(message)
    numbered.position_index = i
    return numbered


def _solve_numbered(i: int, position, on_info=None, **options):
    """``solve(position, **options)``, its events given to ``on_info(i, fields)``; an error
    it raises (an allocation that fails) comes out with the position's index in front of
    its message, as a bad position's does, where its class can be remade so; otherwise,
    and an error of ``on_info``'s own, as it was raised."""
    raised = []

    def relay(fields):
        try:
            on_info(i, fields)
        except BaseException as exc:
            raised.append(exc)
            raise

    try:
        return solve(position, on_info=None if on_info is None else relay, **options)
    except Exception as exc:
        if raised and exc is raised[0]:
            raise               # the caller's own error, not the solve's
        numbered = _numbered(i, exc)
        if type(numbered) is not type(exc):
            raise
        raise numbered from exc


def solve_many(positions, threads: int | None = None, all_moves: bool = False,
               time_limit: float | None = None, node_limit: int | None = None,
               table_bits: int = DEFAULT_TABLE_BITS, pv: bool = True,
               on_result=None, max_table_bits: int | None = None,
               at_least: int | None = None,
               stop: Stop | None = None,
               fresh_tables: bool = False, rules=None,
               on_info=None, info_interval: float | None = None) -> list[SolveResult | None]:
    """Solve every position of ``positions`` (Positions or their JSON), ``threads`` at a time
    (default: every available core); the results in the order of the positions.

    ``all_moves``, ``time_limit``, ``node_limit`` (both per position), ``table_bits``,
    ``max_table_bits`` (each worker has tables of its own, kept for the next call's
    workers), ``pv``, ``at_least`` (the
    same question of every position), ``fresh_tables`` and ``rules`` (what JSON
    positions are read under) are :func:`solve`'s. Exact
    answers are the same whatever the threads; node counts and what a limited solve
    proves depend on which positions a thread's tables saw before, unless
    ``fresh_tables`` (each position from empty tables: the same as
    ``[solve(p, fresh_tables=True) for p in positions]``, whatever the threads).
    Every position is read before any is solved, so a bad one raises at once, naming its
    index. ``on_result(index, result)`` is called in the calling thread as each position
    is done (in the order they finish). ``on_info(index, fields)`` is called in the
    calling thread too, with each event of :func:`solve`'s ``on_info`` as it comes (a
    position's events before its result; those of positions solved at once interleave),
    with solve's "working" events every ``info_interval`` seconds of a search if given.
    ``stop``: a :class:`Stop`; once it is set, the positions being solved end as if their
    time limit had run out (their results say what was proven) and the positions not yet
    started are not solved: their places in the list hold None and ``on_result`` is not
    called for them.

    >>> rs = solve_many([{"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]],
    ...                   "finished": [2], "to_move": 0, "table": None}] * 3, threads=2)
    >>> [r.value for r in rs]
    [3, 3, 3]
    """
    if threads is None:
        threads = available_cores()
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads must be a whole number of at least 1, not {quoted(threads)}")
    threads = int(threads)
    if not isinstance(positions, Iterable):
        raise TypeError(f"positions must be a list of positions (Positions or their JSON), "
                        f"not {quoted(positions)}")
    if isinstance(positions, (str, bytes, bytearray, Mapping, Position)):
        # iterating one would read its characters or keys as positions
        raise TypeError(f"positions must be a list of positions (Positions or their JSON), "
                        f"not one {type(positions).__name__}")
    if not isinstance(positions, Sequence):
        # a set has no order for the results to follow (and equal positions in it are one)
        raise TypeError(f"positions must be a list of positions (Positions or their JSON), "
                        f"not a {type(positions).__name__}")
    _checked_limits(time_limit, node_limit)     # a bad limit raises before any solve
    _checked_question(at_least)
    _checked_flag("all_moves", all_moves)
    _checked_flag("pv", pv)
    _checked_flag("fresh_tables", fresh_tables)
    _checked_stop(stop)
    check_callback("on_result", on_result)
    check_callback("on_info", on_info)
    info_interval = _checked_interval(info_interval, on_info)
    _check_table_sizes(table_bits, max_table_bits)
    Rules.of(rules)             # a bad one raises before any position is read (None: standard)
    parsed = []
    for i, obj in enumerate(positions):
        try:
            pos = _solvable(obj, rules)
        except (TypeError, ValueError) as exc:
            raise _numbered(i, exc) from None
        # a copy: what is solved is the position as it was read, even if the caller (an
        # on_result callback, another thread) changes its Position meanwhile
        parsed.append(pos.copy() if pos is obj else pos)

    options = dict(all_moves=all_moves, time_limit=time_limit, node_limit=node_limit, pv=pv,
                   at_least=at_least, fresh_tables=fresh_tables, info_interval=info_interval)
    results: list = [None] * len(parsed)
    if threads == 1 or len(parsed) <= 1:
        # the searches run in this thread, with its tables (as solve's do): a Ctrl-C
        # reaches them as it reaches solve's
        for i, pos in enumerate(parsed):
            if stop is not None and stop.is_set():
                break           # the positions not started are not solved
            results[i] = _solve_numbered(i, pos, on_info, table_bits=table_bits,
                                         max_table_bits=max_table_bits, stop=stop, **options)
            if on_result is not None:
                on_result(i, results[i])
        return results

    # the workers' searches answer to a Stop of solve_many's own, which the caller's sets:
    # leaving early (Ctrl-C, an on_result or on_info that raises) ends them at once
    # instead of waiting for them to finish (with no limit, for minutes)
    own = Stop()
    taken = itertools.count()       # the next position to solve (next() is atomic)
    finished: queue.SimpleQueue = queue.SimpleQueue()
    # a worker sends its events to this thread, which hands them to on_info
    send_info = None if on_info is None else (lambda i, fields: finished.put(("info", i, fields)))

    busy = threading.Condition()
    searching = 0                   # workers between their start and their end

    def worker() -> None:
        # one of `threads` workers, each taking the next position until none is left,
        # with a searcher lent for the whole run (the tables its earlier positions, or an
        # earlier call's, left), given back at the end; it sends the caller ("info", index,
        # fields) for each event of a search when on_info is given, ("result", index,
        # result) for each position and ("error", exception) if it fails, and its
        # thread sends None once it has ended. The worker counts itself in `searching`, not
        # the caller, whose counts a Ctrl-C may cut short.
        nonlocal searching
        with busy:
            searching += 1
        try:
            if own.is_set():
                return          # the call is being left: nothing to do
            s, generation = _borrow(table_bits, max_table_bits)
            try:
                while not own.is_set():
                    i = next(taken)
                    if i >= len(parsed):
                        break
                    finished.put(("result", i, _solve_numbered(i, parsed[i], send_info,
                                                               searcher=s, stop=own,
                                                               **options)))
            finally:
                _give_back(s, generation)
        except BaseException as exc:        # (reported to the caller, which raises it)
            finished.put(("error", exc))
        finally:
            with busy:
                searching -= 1
                busy.notify_all()

    link = _SetsStop(own)
    if stop is not None:
        stop._attach(link)
    given = [0]                     # jobs given to threads (each sends None at its end)
    ended = 0
    _running.add(own)
    try:
        try:
            _run_in_threads(worker, finished, min(threads, len(parsed)), given)
            while ended < given[0]:
                item = finished.get()
                if item is None:
                    ended += 1
                elif item[0] == "error":
                    raise item[1]
                elif item[0] == "info":
                    on_info(item[1], item[2])
                else:
                    _, i, results[i] = item
                    if on_result is not None:
                        on_result(i, results[i])
        except BaseException:
            # the positions running end now, the others never start; on return none is
            # still searching (a worker that starts later does not search). A second
            # Ctrl-C meanwhile must not cut this short: stopping takes milliseconds.
            while True:
                try:
                    own.set()
                    with busy:
                        while searching:
                            busy.wait()
                    break
                except KeyboardInterrupt:
                    continue
            raise
    finally:
        _running.discard(own)
        if stop is not None:
            stop._detach(link)
        _trim_spares(available_cores())
    return results


# Worker threads kept across calls (DDS keeps its threads too): a new thread waits for
# the GIL to start, up to the 5 ms switch interval while another worker runs Python
# code, which made a call of four small positions on two threads take 9 to 12 ms
# instead of 2.4 to 2.7 ms. The kept threads all wait on one queue of jobs. A call reserves idle threads and
# starts new ones for the rest, then gives its jobs, so that there is always a thread
# for every job (calls at once never wait for each other's threads); a thread done with
# its job stays while fewer than available_cores() are idle. A Ctrl-C between the
# reservation and the jobs leaves the count below the truth (a thread waits with nothing
# reserved for it, and takes a later job), never above it, so no job is left without a
# thread. The threads are daemon threads: the process exits without waiting for them,
# and the searches still running then are stopped first. A forked child (a process
# pool) has none of its parent's threads: it starts with none idle, and with a fresh
# queue and locks (another thread may have held one at the fork).
_jobs: queue.SimpleQueue = queue.SimpleQueue()      # (job, where to send its end)
_idle = [0]             # threads waiting for a job, less the jobs waiting for a thread
_idle_lock = threading.Lock()
_running: "weakref.WeakSet[Stop]" = weakref.WeakSet()     # the Stops of calls running


def _run_in_threads(job, finished: queue.SimpleQueue, count: int, given: list) -> None:
    """Run ``job()`` in ``count`` threads, kept idle ones first, each sending None to
    ``finished`` once done; ``given[0]`` counts the jobs given so far (a Ctrl-C may land
    in between). When the system refuses a thread, the jobs go to the threads there are
    (the workers share the positions out, so fewer only take longer), with a warning."""
    with _idle_lock:
        reused = min(count, _idle[0])
        _idle[0] -= reused
    started = 0
    try:
        for _ in range(count - reused):
            threading.Thread(target=_serve, name="solve_many", daemon=True).start()
            started += 1
    except RuntimeError as exc:     # ("can't start new thread": a limit of the system's)
        # (the threads started wait for a job each: given one, none is left waiting
        # uncounted, which kept their memory and made later calls fail too)
        if reused + started == 0:
            raise RuntimeError(f"solve_many could not start a worker thread ({exc})") \
                from None
        warnings.warn(f"solve_many: the system refused a thread after {reused + started} of "
                      f"the {count} asked for ({exc}); the positions are shared among "
                      f"those", RuntimeWarning, stacklevel=3)
        count = reused + started
    for _ in range(count):
        _jobs.put((job, finished))
        given[0] += 1


def _serve() -> None:
    while True:
        job, finished = _jobs.get()
        try:
            job()               # (a job reports its own errors to its caller)
        except BaseException:   # (a bug in the job itself: shown, and the count kept right)
            traceback.print_exc()
        del job                 # (an idle thread must not keep the call's positions)
        # idle again before saying so: the caller's next call then finds this thread
        # instead of starting another
        with _idle_lock:
            stay = _idle[0] < available_cores()
            if stay:
                _idle[0] += 1
        finished.put(None)
        del finished
        if not stay:
            return


def _stop_running() -> None:
    for own in list(_running):
        own.set()


def _forget_workers() -> None:
    # (and the parent's running calls: their Stops' locks may be held by its threads)
    global _jobs, _idle_lock, _running
    _jobs = queue.SimpleQueue()
    _idle[0] = 0
    _idle_lock = threading.Lock()
    _running = weakref.WeakSet()


atexit.register(_stop_running)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


class _SetsStop:
    """Attached to a caller's :class:`Stop` like a searcher: its ``set()`` sets ``stop``."""

    def __init__(self, stop: Stop) -> None:
        self._stop = stop

    def stop(self) -> None:
        self._stop.set()
