"""Exact endgame solving: value, best move, principal line, every move scored.

The compiled :class:`solver._search.Searcher` answers null-window questions ("is the
value at least t?"); this module drives it: a binary search over the six possible values
gives the exact value, then the same probes pick the best move and follow the line of
play (``Searcher.best_move`` and ``principal_line``, without the GIL). The best move is
the first move that reaches the value in a fixed order of preference (see ``_root``; it
depends on the position alone), so results never depend on the table.
"""

from __future__ import annotations

import numbers
import os
import threading
import time
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from guandan_core.cards import is_whole
from guandan_core.jsontext import parse_json
from guandan_core.moves import MOVE_DTYPE, Move, MoveError
from guandan_core.position import OUTCOMES, IllegalMoveError, Position
from guandan_core.rules import Rules
from guandan_core.usertext import check_callback, quoted, quoted_read, seconds_above_0

from ._search import (DEFAULT_MAX_TT_BITS, FIRST_ARENA_MOVES, MAX_TT_BITS, MIN_TT_BITS,
                      Searcher, _checked_limits, default_max_tt_bits)

__all__ = ["solve", "probe", "clear_tables", "free_tables", "Stop", "SolveResult", "MoveScore",
           "Searcher", "as_position", "DEFAULT_TABLE_BITS", "DEFAULT_MAX_TABLE_BITS"]

VALUES = tuple(sorted(OUTCOMES))      # the values of RULES sec. 6, lowest first
# 2**18 entries of 16 bytes: 4 MiB to start with, which a search that outgrows it grows
# (up to DEFAULT_MAX_TABLE_BITS). Measured against 2**20 once emptying the tables no
# longer zeroed them (so that a search meets its table in memory, as a program's loop
# does): 4 x 6 x 0.90 to 0.93 in time for × 1.001 nodes, 4 x 8 (8 positions around the
# median) x 0.94 to 0.96 for x 1.025 nodes, long 4 x 8 ones (10 to 14 s) the same
DEFAULT_TABLE_BITS = 18
DEFAULT_MAX_TABLE_BITS = DEFAULT_MAX_TT_BITS

_local = threading.local()


def _searcher(table_bits: int, max_table_bits: int | None) -> Searcher:
    # one searcher per thread, reused across solves (like DDS's tables); a solve asking
    # for other table sizes replaces it, so that a thread never holds more than one
    # table's memory bound (one searcher per size setting kept them all, for good)
    table_bits, max_bits = _sizes(table_bits, max_table_bits)
    s = getattr(_local, "searcher", None)
    if s is not None and s.busy:
        # a solve called from inside another's on_info gets a searcher of its own, not
        # kept (reloading the running one would corrupt the outer search)
        return Searcher(table_bits, max_tt_bits=max_bits)
    if s is None or (s.initial_tt_bits, s.max_tt_bits) != (table_bits, max_bits):
        # both references dropped, so that the old table is freed before the new one is
        # made (``s`` alone kept it: the two tables' memory at once)
        _local.searcher = s = None
        s = _local.searcher = Searcher(table_bits, max_tt_bits=max_bits)
    elif s.heartbeat is not None:
        # an earlier solve's, left by a Ctrl-C between setting it and the block that
        # takes it away (_beating): it would call that solve's on_info
        s.set_heartbeat(None)
    return s


def _sizes(table_bits, max_table_bits) -> tuple[int, int]:
    """The checked table sizes, as (initial bits, largest bits)."""
    _check_table_sizes(table_bits, max_table_bits)
    table_bits = int(table_bits)
    return table_bits, (default_max_tt_bits(table_bits) if max_table_bits is None
                        else int(max_table_bits))


# Searchers lent to solve_many's workers, one a worker, and given back when the worker
# is done: a new table costs milliseconds to map and zero, which a program solving many
# small batches paid on every call. Between calls at most one a core is kept, each at its
# first size (see _trim_spares); free_tables() drops them.
_spares: list = []
_spares_lock = threading.Lock()
_spares_generation = 0          # free_tables() moves it on: searchers lent before are dropped


def _borrow(table_bits, max_table_bits) -> tuple[Searcher, int]:
    """A kept searcher of these sizes (the last given back first), or a new one; with the
    generation to give it back under."""
    sizes = _sizes(table_bits, max_table_bits)
    with _spares_lock:
        for i in range(len(_spares) - 1, -1, -1):
            s = _spares[i]
            if (s.initial_tt_bits, s.max_tt_bits) == sizes:
                return _spares.pop(i), _spares_generation
        generation = _spares_generation
    return Searcher(sizes[0], max_tt_bits=sizes[1]), generation


def _give_back(s: Searcher, generation: int) -> None:
    with _spares_lock:
        if generation == _spares_generation and not s.busy:
            _spares.append(s)


def _trim_spares(most: int) -> None:
    """What solve_many keeps once its positions are done: at most ``most`` searchers, the
    last given back, each at its first size (a grown table or move arena is emptied and
    shrunk)."""
    with _spares_lock:
        del _spares[:max(0, len(_spares) - most)]
        for s in _spares:
            if s.tt_bits != s.initial_tt_bits or s.arena_moves != FIRST_ARENA_MOVES:
                s.clear_table()


def _reset_after_fork() -> None:
    # a lock another thread held when the process forked would stay held in the child
    global _spares_lock
    _spares_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def free_tables() -> None:
    """Free the tables kept for later solves: this thread's, and those kept for
    :func:`solve_many`'s workers (like DDS's ``FreeMemory``). The next solve makes new
    ones. A solve running meanwhile (this called from its ``on_info``, or in another
    thread) keeps its tables until it returns, then they are freed."""
    global _spares_generation
    _local.searcher = None
    with _spares_lock:
        _spares.clear()
        _spares_generation += 1


def _in_use(s: Searcher) -> Searcher:
    """``s``, to use as ``with _in_use(s):``, which claims it for this thread while the
    block runs (``Searcher.__enter__``, compiled, so a Ctrl-C cannot land between the
    claim and the block); a Searcher already busy (one passed as ``searcher=`` to two
    solves at once) is a RuntimeError, not a corrupted search, and so is any call on it
    from another thread meanwhile (but stop())."""
    if not isinstance(s, Searcher):
        raise TypeError(f"searcher must be a solver.Searcher, not {quoted(s)}")
    return s


class Stop:
    """Stops searches from another thread: a Ctrl-C handler, a server's cancel request.

    Pass it as ``stop=`` to :func:`solve`, :func:`probe` or :func:`solve_many`. After
    :meth:`set`, every search using it ends at its next check (every 1,024 nodes; a
    search's first 1,024 or so hold the GIL that set() waits for) as if its time limit
    had run out: the answer says what was proven (``exact`` false unless
    the value was already known), and searches started later end as quickly. One Stop may
    serve many searches in many threads; it stays set (use a new one for new work).

    >>> stop = Stop()
    >>> stop.is_set(), stop.set(), stop.is_set()
    (False, None, True)
    """

    def __init__(self) -> None:
        # re-entrant: a signal handler that calls set() runs in the main thread between
        # two bytecodes, possibly while that thread holds the lock in _attach or _detach
        self._lock = threading.RLock()
        self._set = False
        self._searchers: list = []      # the searchers working for it now

    def __reduce__(self):
        # (pickle, copy and deepcopy all ask this: a copy would share the searches it
        # stops, and a pickled one reach none)
        raise TypeError("a Stop stops searches in this process: it cannot be pickled or "
                        "copied (make a new one where it is needed)")

    def set(self) -> None:
        """Stop every search that uses this Stop, now and from now on."""
        with self._lock:
            self._set = True
            for s in self._searchers:
                s.stop()

    def is_set(self) -> bool:
        return self._set

    def _attach(self, s: Searcher) -> None:
        with self._lock:
            self._searchers.append(s)
            if self._set:
                s.stop()

    def _detach(self, s: Searcher) -> None:
        with self._lock:
            if s in self._searchers:        # (not yet, if interrupted before attaching)
                self._searchers.remove(s)

    def __repr__(self) -> str:
        return f"<Stop {'set' if self._set else 'not set'}>"


def _start(s: Searcher, pos: Position, node_limit, time_limit) -> None:
    """solve()'s and probe()'s setup: the position loaded, the counters zeroed, the limits
    set (which withdraws a stop request). A search on the main thread also lets Python's
    signal handlers run (Ctrl-C raises KeyboardInterrupt within milliseconds instead of
    after the running probe); only that thread runs them."""
    _load(s, pos)
    s.reset_counters()
    s.limits(node_limit, time_limit)
    s.check_signals = threading.current_thread() is threading.main_thread()


def _checked_stop(stop) -> Stop | None:
    if stop is not None and not isinstance(stop, Stop):
        raise TypeError(f"stop must be a solver.Stop, not {quoted(stop)}")
    return stop


@contextmanager
def _working_for(stop: Stop | None, s: Searcher):
    """While the block runs, ``stop.set()`` stops ``s`` (call after ``s.limits()``, which
    withdraws a stop request)."""
    if stop is None:
        yield
        return
    try:                        # (attached inside: an interrupt right after it detaches)
        stop._attach(s)
        yield
    finally:
        stop._detach(s)


def _check_table_sizes(table_bits, max_table_bits) -> None:
    """A ValueError naming the bad size, in solve()'s own parameter names."""
    for name, bits in (("table_bits", table_bits), ("max_table_bits", max_table_bits)):
        if isinstance(bits, bool) or not (isinstance(bits, numbers.Integral) or
                                          (bits is None and name == "max_table_bits")):
            raise ValueError(f"{name} must be a whole number, not {quoted(bits)}")
    if not MIN_TT_BITS <= table_bits <= MAX_TT_BITS:
        raise ValueError(f"table_bits must be {MIN_TT_BITS}..{MAX_TT_BITS}, not {table_bits}")
    if max_table_bits is not None and not table_bits <= max_table_bits <= MAX_TT_BITS:
        raise ValueError(f"max_table_bits must be table_bits ({table_bits}) to {MAX_TT_BITS}, "
                         f"not {max_table_bits}")


def clear_tables() -> None:
    """Empty this thread's transposition tables (they are otherwise reused across solves,
    which only saves work: a position already solved is answered from the table)."""
    searcher = getattr(_local, "searcher", None)
    if searcher is not None:
        searcher.clear_table()


def as_position(position, rules=None) -> Position:
    """A :class:`Position` from a Position, a JSON dict or a JSON string (RULES sec. 7).

    JSON is read under ``rules`` (a :class:`Rules`, a preset name, or None: standard). A
    Position keeps the rules it was made with: ``rules`` other than those is a
    ValueError naming both."""
    if isinstance(position, Position):
        if rules is not None and Rules.of(rules) != position.rules:
            raise ValueError(f"rules {quoted(rules)} given with a Position made under "
                             f"{quoted(position.rules)}: a Position keeps its own rules")
        return position
    if isinstance(position, (dict, str, bytes, bytearray)):
        return Position.from_json(position, rules)     # (which reads JSON text too)
    raise TypeError(f"solve() takes a Position or its JSON, not {type(position).__name__}")


def _solvable(position, rules=None) -> Position:
    """:func:`as_position`, and a ValueError when the hand is already over (both seats of
    a team out: there is no seat to move and nothing to search). A Position given is
    copied: the search reads it more than once, and a move another thread pushed on it
    meanwhile gave a result whose seat to move was not its line's (4 microseconds)."""
    pos = as_position(position, rules)
    if pos.is_over:
        raise ValueError("the hand is already over: nothing to solve")
    return pos.copy() if pos is position else pos


@dataclass
class MoveScore:
    """The exact value of one move (for the team of the seat to move), and the moves that
    differ from it only in suits that cannot matter (same value by construction). In
    threshold mode (``threshold`` set) the value is not searched for: ``reaches`` says
    whether the move reaches the threshold. None: a limit stopped the search first.
    ``lower`` and ``upper`` are what is proven of the move's value: both the value when
    it is known, what was proven before the limit when it is not (-3 and +3: nothing),
    and in threshold mode what ``reaches`` proves."""
    move: Move
    value: int | None
    equivalent: list = field(default_factory=list)
    reaches: bool | None = None
    threshold: int | None = None
    lower: int = -3
    upper: int = 3

    def to_json(self) -> dict:
        out = {"move": self.move.to_platform(), "value": self.value}
        if self.value is None and self.threshold is None:
            out["lower"], out["upper"] = self.lower, self.upper     # what a limit left
        if self.threshold is not None:
            out["reaches"] = self.reaches
        if self.equivalent:
            out["equivalent"] = [m.to_platform() for m in self.equivalent]
        return out


@dataclass
class SolveResult:
    """What :func:`solve` found. Values are for the team of the seat to move."""
    value: int | None          # exact value, None when a limit stopped the search first
    lower: int                 # proven bounds: lower <= value <= upper
    upper: int
    best: Move | None
    pv: list                   # [(seat, Move), ...] to the end of the hand, unless pv_cut
    moves: list                # [MoveScore, ...] with all_moves
    nodes: int
    tt_hits: int
    seconds: float = field(compare=False)   # (two runs of one search are equal results)
    to_move: int
    threshold: int | None = None    # the question of threshold mode (``at_least``)
    pv_cut: bool = False       # a limit stopped the line before the end of the hand

    @property
    def exact(self) -> bool:
        return self.value is not None

    @property
    def reached(self) -> bool | None:
        """Threshold mode: whether the team to move reaches at least ``threshold``; None
        when a limit stopped the search before it knew, or without a threshold."""
        if self.threshold is None:
            return None
        if self.lower >= self.threshold:
            return True
        if self.upper < self.threshold:
            return False
        return None

    def to_json(self) -> dict:
        out = {
            "value": self.value if self.exact else None,
            "exact": self.exact,
            "lower": self.lower,
            "upper": self.upper,
            "best": self.best.to_platform() if self.best is not None else None,
            "pv": [[seat, m.to_platform()] for seat, m in self.pv],
        }
        if self.pv_cut:
            out["pv_cut"] = True
        # the order of the and README's object: the answer, then what it cost
        if self.threshold is not None:
            out["threshold"] = self.threshold
            out["reached"] = self.reached
        if self.moves:
            out["moves"] = [s.to_json() for s in self.moves]
        out["nodes"] = self.nodes
        out["tt_hits"] = self.tt_hits
        out["seconds"] = round(self.seconds, 6)
        return out


def _checked_flag(name: str, value) -> bool:
    """True or False (numpy's too), else a TypeError naming it: ``all_moves="no"`` would
    otherwise mean yes."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {quoted(value)}")
    return bool(value)


def _checked_threshold(name: str, t) -> int:
    """A value a team can reach (RULES sec. 6), else a ValueError naming it."""
    if isinstance(t, bool) or not isinstance(t, numbers.Integral) or t not in VALUES:
        raise ValueError(f"{name} must be one of {', '.join(f'{v:+d}' for v in VALUES)}, "
                         f"not {quoted(t)}")
    return int(t)


def _value_above(v: int) -> int | None:
    """The next value of sec. 6 above ``v`` (None above +3): 1 above -1."""
    return next((u for u in VALUES if u > v), None)


def _mover_bounds(lo: int, hi: int, sign: int) -> tuple:
    """Team-0 bounds (lo, hi) in the terms of the team to move (``sign`` 1 for team 0, -1
    for team 1), and back: the same turn both ways."""
    return (lo, hi) if sign > 0 else (-hi, -lo)


def _reach_bounds(reaches: bool | None, threshold: int) -> tuple:
    """(lower, upper): what an answer to "does it reach at least ``threshold``?" proves of
    a value (None: nothing)."""
    if reaches is None:
        return -3, 3
    return (threshold, 3) if reaches else (-3, _value_below(threshold))


def _value_below(v: int) -> int | None:
    """The next value of sec. 6 below ``v`` (None below -3): -1 below 1."""
    return next((u for u in reversed(VALUES) if u < v), None)


def _checked_question(at_least) -> int | None:
    """``solve``'s threshold (None: the value), checked."""
    return None if at_least is None else _checked_threshold("at_least", at_least)


def _load(searcher: Searcher, pos: Position) -> None:
    table = pos.table
    record = None if table is None else np.frombuffer(bytes(table.record()), dtype=np.uint8)
    searcher.load(pos.counts_matrix(), pos.level, list(pos.finished), pos.to_move,
                  record, -1 if table is None else pos.owner, *pos.rules.flags())


class _Driver:
    """Null-window probes on the searcher's current position, in team-0 terms."""

    def __init__(self, searcher: Searcher):
        self.s = searcher

    def exact(self, lo: int = -3, hi: int = 3, on_probe=None, first: int | None = None):
        """(lo, hi) narrowed to the value by binary search; stops early at a limit.
        ``on_probe(lo, hi)`` is called after each probe (progress reports); ``first``: the
        question to ask first ("is the value >= first?")."""
        while lo < hi:
            candidates = [v for v in VALUES if lo < v <= hi]
            # who goes out first (t = 1) is the cheapest question: ask it first
            t = 1 if 1 in candidates else candidates[(len(candidates) - 1) // 2]
            if first in candidates:
                t = first
            first = None
            r = self.s.search(t - 1, t)
            if r is None:
                break
            if r >= t:
                lo = max(lo, min(r, hi))
            else:
                hi = min(hi, max(r, lo))
            if on_probe is not None:
                on_probe(lo, hi)
        return lo, hi

    def child_value(self, record, lo: int = -3, hi: int = 3, first: int | None = None):
        """The exact team-0 value after `record`, known to lie in [lo, hi] (a move never
        beats its position's value: the search starts from that bound); ``first`` as in
        :meth:`exact`."""
        token = self.s.push(record)
        try:
            if self.s.is_over():
                return self.s.outcome(), self.s.outcome()
            return self.exact(lo, hi, first=first)
        finally:
            self.s.pop(token)


def _root(searcher: Searcher, merge: bool = True):
    """The root's moves (legal order), their merge groups (without ``merge``: each move
    its own), and their scores in the order of preference in which ``best_move`` tries
    them (the search's own move-order score without what it learned: going out first, then
    bigger plays, lower ranks, pairs kept together, the pass last; ties in legal order).
    That order depends on the position alone, so the best move does not depend on the
    table, and it is usually right the first time: each move tried before the best one
    costs a refutation."""
    data, groups, scores = searcher.root_moves(merge)
    return np.frombuffer(data, dtype=MOVE_DTYPE), groups, scores


def _first_preferred(scores) -> int:
    """The first move in the order of preference (highest score, ties in legal order)."""
    return max(range(len(scores)), key=scores.__getitem__)


def _record_bytes(records, i) -> np.ndarray:
    return np.frombuffer(records[i:i + 1].tobytes(), dtype=np.uint8)


def solve(position, all_moves: bool = False, time_limit: float | None = None,
          node_limit: int | None = None, table_bits: int = DEFAULT_TABLE_BITS,
          searcher: Searcher | None = None, pv: bool = True, on_info=None,
          max_table_bits: int | None = None, at_least: int | None = None,
          stop: Stop | None = None, fresh_tables: bool = False, rules=None,
          info_interval: float | None = None) -> SolveResult:
    """Solve a position exactly (RULES sec. 6 value for the team of the seat to move).

    ``position``: a :class:`Position` or its JSON (RULES sec. 7), JSON read under
    ``rules`` (a :class:`Rules` or a preset name such as ``"platform"``; default
    standard; a Position keeps its own, see :func:`as_position`). ``all_moves``: also the
    exact value of every legal move, the pass included, with suit-equivalent moves grouped.
    ``time_limit`` (seconds) / ``node_limit``: when one runs out, ``value`` is None and
    ``lower``/``upper`` are the bounds proven so far; ``best`` is a move that reaches
    ``lower`` when ``lower`` is above -3 (the move that proved it), else the move the search
    tries first. When one runs out after the value is known, the value stays exact,
    ``best`` is the move that proved it (not necessarily the first in the order of
    preference), the line stops where the search did (``pv_cut`` then says so) and
    unscored moves have no value.
    ``table_bits`` / ``max_table_bits``: the transposition table starts with
    ``2**table_bits`` entries of 16 bytes and grows, when a search outgrows it, up to
    ``2**max_table_bits`` (default ``max(table_bits, 24)``: 256 MiB). ``searcher``: a
    :class:`Searcher` of your own (its table instead of this thread's).
    What the tables hold: the exact answers (value, best move, line, move scores) are the
    same whatever the tables' sizes and whatever earlier solves left in them; the node
    and table-hit counts, and how far a node- or time-limited solve gets (its bounds and
    best move), are not: a table that already knows part of the tree does more within a
    budget. ``fresh_tables``: empty this thread's tables (or ``searcher``'s) first (a
    new era of their entries: well under a microsecond, unless the table had grown), so
    that those too depend only on the position and the options.
    ``at_least``: threshold mode, one question instead of the value: can the team to move
    reach at least this value (+3 ... -3, see ``VALUES``)? ``reached`` answers it,
    ``lower``/``upper`` are what the answer proves (``at_least``..+3, or -3..the value
    below it; ``value`` is exact only when that pins it, as "at least +3" does), ``best``
    is the first move in the fixed order of preference that reaches the threshold (None
    when it is out of reach), ``pv`` is filled only when the value is exact. When the
    answer pins the value (reaching +3, or not reaching -2: the value is -3), ``best`` and
    ``pv`` are the value's, as without ``at_least``. Cheaper than the value. With
    ``all_moves`` every move is asked the same question instead of scored
    (``MoveScore.reaches``; none is searched when the threshold is out of reach).
    ``stop``: a :class:`Stop`; once it is set (from another thread) the search ends as if
    its time limit had run out.
    ``on_info``: called with a dict as the search goes: ``{"stage": "bound", "lower",
    "upper", "nodes", "seconds"}`` after each null-window probe (bounds for the team to
    move), ``{"stage": "best", "move", "pv", "pv_cut", ...}`` once the result's ``best`` is
    chosen (the best move when the value is known; under a limit or in threshold mode,
    what ``best`` is there, above), and
    ``{"stage": "move", "move", "value", "equivalent", "index", "count", ...}`` per move
    scored with ``all_moves`` (and ``"reaches"`` in threshold mode; a move a limit left
    unscored has no event; ``index`` is its place, from 1, among the ``count`` moves).
    ``info_interval`` (seconds, with ``on_info``): also ``{"stage": "working", "task",
    "lower", "upper", "nodes", "seconds"}`` about that often while the search runs (a
    long probe otherwise says nothing for minutes): ``task`` is ``"value"``,
    ``"question"`` (threshold mode), ``"best"`` (the value known, or the threshold
    reached: the move that reaches it, and the line, being chosen) or ``"moves"`` (with
    ``"move"``, ``"index"`` and ``"count"`` of the move being scored); ``lower``/``upper``
    are the bounds proven so far. It comes from inside the search, in this thread, so
    the searcher is busy then: a call on it (``clear_tables()``) is a RuntimeError, and
    what ``on_info`` raises ends the solve and is raised (see
    :meth:`Searcher.set_heartbeat`).

    >>> r = solve({"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]],
    ...            "finished": [2], "to_move": 0, "table": None})
    >>> r.value, r.best.to_platform()
    (3, ['Single', 'A', ['SA']])
    >>> solve({"level": "2", "hands": [["S3"], [], ["S4"], ["SA"]],
    ...        "finished": [1], "to_move": 0, "table": None}, at_least=1).reached
    False
    """
    pos = _solvable(position, rules)
    time_limit, node_limit = _checked_limits(time_limit, node_limit)
    at_least = _checked_question(at_least)
    all_moves, pv = _checked_flag("all_moves", all_moves), _checked_flag("pv", pv)
    fresh_tables = _checked_flag("fresh_tables", fresh_tables)
    stop = _checked_stop(stop)
    check_callback("on_info", on_info)
    info_interval = _checked_interval(info_interval, on_info)
    start = time.perf_counter()
    if searcher is not None:
        # (its own tables' sizes are used, but bad sizes are still a mistake to report)
        _check_table_sizes(table_bits, max_table_bits)
        s = searcher
    else:
        s = _searcher(table_bits, max_table_bits)
    with _in_use(s):
        if fresh_tables:
            s.clear_table()
        _start(s, pos, node_limit, time_limit)
        s.forget_position()     # so that the root is searched and its proof move known
        # what the solve is doing, for the heartbeat's "working" events
        doing = {"task": "value" if at_least is None else "question", "lower": -3,
                 "upper": 3}
        with _working_for(stop, s):
            if info_interval is None:
                return _answer(s, pos, all_moves, pv, on_info, at_least, start, doing)

            def beat():
                on_info(dict(doing, stage="working", nodes=int(s.nodes),
                             seconds=time.perf_counter() - start))

            with _beating(s, info_interval, beat):
                return _answer(s, pos, all_moves, pv, on_info, at_least, start, doing)


def _checked_interval(info_interval, on_info) -> float | None:
    """solve()'s ``info_interval``: None, or seconds above 0 given with an ``on_info``."""
    if info_interval is None:
        return None
    seconds = seconds_above_0(info_interval)
    if seconds is None:
        raise ValueError(f"info_interval must be a number of seconds above 0, or None, "
                         f"not {quoted(info_interval)}")
    if on_info is None:
        raise ValueError("info_interval needs an on_info to send its events to")
    return seconds


@contextmanager
def _beating(s: Searcher, interval: float, beat):
    """While the block runs, ``s`` calls ``beat()`` every ``interval`` seconds of search;
    a heartbeat of the caller's own searcher comes back after."""
    before, every = s.heartbeat, s.heartbeat_every
    try:
        s.set_heartbeat(beat, interval)
        yield
    finally:
        if before is None:
            s.set_heartbeat(None)
        else:
            s.set_heartbeat(before, every)


def _answer(s: Searcher, pos: Position, all_moves: bool, pv: bool, on_info, at_least,
            start: float, doing: dict) -> SolveResult:
    """solve()'s work once the position is loaded and the limits are set; ``doing`` is
    kept up to date with the task and the bounds for the heartbeat (see solve())."""
    driver = _Driver(s)
    seat = pos.to_move
    maximizing = seat % 2 == 0
    sign = 1 if maximizing else -1
    def report(**fields):
        if on_info is not None:
            on_info(dict(fields, nodes=int(s.nodes), seconds=time.perf_counter() - start))

    proven = {"lower": -3, "move": -1}   # our side's best bound so far, and its move

    def after_probe(lo, hi):
        lower, upper = _mover_bounds(lo, hi, sign)
        if lower > proven["lower"]:
            # the root just proved this bound: the move that proved it (our side's bound
            # in team-0 terms: at least lo when team 0 moves, at most hi otherwise)
            proven["lower"], proven["move"] = lower, s.proof_move(lo if sign > 0 else hi)
        doing["lower"], doing["upper"] = lower, upper
        report(stage="bound", lower=lower, upper=upper)

    reached = None          # threshold mode's answer
    if at_least is None:
        lo, hi = driver.exact(on_probe=after_probe)
    else:
        reached = s.reaches(at_least * sign, maximizing)
        lo, hi = -3, 3
        if reached is not None:
            # what the answer proves and nothing more (a tighter bound the search may have
            # met on the way depends on what the table held, and results must not): at
            # least t, or at most the value below t; in team-0 terms
            lo, hi = _mover_bounds(*_reach_bounds(reached, at_least), sign)
            after_probe(lo, hi)
    exact = lo == hi
    lower, upper = _mover_bounds(lo, hi, sign)      # the answer, for the team to move
    # (the merge groups only matter when every move is scored)
    records, groups, root_scores = _root(s, merge=all_moves)
    # a Move for every root move only when every move is scored (a lead of a whole hand
    # has about a thousand); otherwise only for the moves the answer names
    move_objs = Move.from_array(records, validate=False) if all_moves else None

    def move_at(i: int) -> Move:
        if move_objs is not None:
            return move_objs[i]
        return Move.from_record(records[i], validate=False)

    best = None
    bi = None
    line = []
    line_cut = False
    # a limit hit before the value (or the threshold's best move) was known: the move that
    # proved our side's bound, else (nothing proven there) the first move in the order of
    # preference; an index (the seat to move always has a move: a pass or a single)
    def fallback() -> int:
        return proven["move"] if proven["move"] >= 0 else _first_preferred(root_scores)

    if exact:
        doing["task"] = "best"
        bi = s.best_move(lo)
        if bi is not None:
            best = move_at(bi)
            if pv:
                line, line_cut = _principal_line(s, _record_bytes(records, bi), lo)
        else:
            # a limit stopped the choice after the value was known: the move that proved
            # the value (any move reaches -3), and no line
            best = move_at(fallback())
            line_cut = pv
    elif reached is not None:
        if reached:
            doing["task"] = "best"
            bi = s.best_move(at_least * sign)
            best = move_at(bi if bi is not None else fallback())
        # (out of reach: no move reaches it, so none is best)
    else:
        best = move_at(fallback())

    if best is not None:
        report(stage="best", move=best, pv=line, pv_cut=line_cut)
    scores = []
    if all_moves:
        count = sum(1 for i in range(len(records)) if groups[i] == i)
        moves_by_group: dict[int, list] = {}
        for i, g in enumerate(groups):
            moves_by_group.setdefault(g, []).append(move_objs[i])
        for i in range(len(records)):
            if groups[i] != i:
                continue
            same = moves_by_group[i][1:]
            doing.update(task="moves", move=move_objs[i], index=len(scores) + 1, count=count)
            if at_least is not None:
                # threshold mode: the same question of each move (where the position does
                # not reach it no move does, and nothing is searched)
                if not reached or i == bi:
                    reaches = reached
                else:
                    reaches = s.child_reaches(_record_bytes(records, i), at_least * sign,
                                              maximizing)
                scores.append(MoveScore(move_objs[i], None, same, reaches, at_least,
                                        *_reach_bounds(reaches, at_least)))
                if reaches is not None:     # (None: a limit stopped it, nothing to report)
                    report(stage="move", move=move_objs[i], value=None, reaches=reaches,
                           equivalent=same, index=len(scores), count=count)
                continue
            # in team-0 terms a move of team 0 is worth at most the value, one of team 1
            # at least the value (when the value is known)
            if exact and i == bi:
                clo = chi = lo      # the best move reaches the value, and no move beats it
            else:
                first = None
                if exact:
                    # does the move tie with the best? One question settles the moves
                    # that do (measured: 4 x 6 x 0.96 nodes, 4 x 8 x 0.99)
                    bounds = (-3, lo) if maximizing else (lo, 3)
                    first = lo if maximizing else _value_above(lo)
                else:
                    bounds = (-3, 3)
                clo, chi = driver.child_value(_record_bytes(records, i), *bounds, first=first)
            # in the mover's terms, with what the root proved: no move is worth more than
            # the position, and the move that proved its lower bound reaches it (every
            # move, when no move proved it: a forced move, or players already out)
            low, high = _mover_bounds(clo, chi, sign)
            high = min(high, upper)
            if not exact and (proven["move"] < 0 or groups[proven["move"]] == i):
                low = max(low, proven["lower"])
            value = low if low == high else None
            scores.append(MoveScore(move_objs[i], value, same, lower=low, upper=high))
            if value is not None:
                report(stage="move", move=move_objs[i], value=value, equivalent=same,
                       index=len(scores), count=count)

    return SolveResult(
        value=lower if exact else None, lower=lower, upper=upper, best=best, pv=line,
        moves=scores, nodes=int(s.nodes), tt_hits=int(s.tt_hits),
        seconds=time.perf_counter() - start, to_move=seat, threshold=at_least,
        pv_cut=line_cut)


def _principal_line(s: Searcher, first_record, value: int):
    """From the root, `first_record` and then the best move of each seat to the end of the
    hand (team-0 value `value`): (the line as (seat, Move) pairs, whether a limit cut it
    short)."""
    data, seats, cut = s.principal_line(first_record, value)
    return list(zip(seats, Move.from_bytes(data, validate=False))), cut


def probe(position, threshold: int, time_limit: float | None = None,
          node_limit: int | None = None, table_bits: int = DEFAULT_TABLE_BITS,
          max_table_bits: int | None = None, stop: Stop | None = None, rules=None):
    """Threshold mode: can the team of the seat to move reach at least ``threshold``?

    Returns True/False, or None when a limit (or ``stop``) stopped the search first. The
    other arguments are :func:`solve`'s.
    """
    threshold = _checked_threshold("threshold", threshold)
    pos = _solvable(position, rules)
    time_limit, node_limit = _checked_limits(time_limit, node_limit)
    stop = _checked_stop(stop)
    s = _searcher(table_bits, max_table_bits)
    with _in_use(s):
        _start(s, pos, node_limit, time_limit)
        maximizing = pos.to_move % 2 == 0
        with _working_for(stop, s):
            return s.reaches(threshold if maximizing else -threshold, maximizing)


# every key SolveResult.to_json writes, and the label ``guandan solve --json`` puts
# before each result of several positions
_RESULT_KEYS = ("value", "exact", "lower", "upper", "best", "pv", "pv_cut", "threshold",
                "reached", "moves", "nodes", "tt_hits", "seconds", "position")
_MOVE_KEYS = ("move", "value", "lower", "upper", "reaches", "equivalent")  # (MoveScore's)


def read_result(obj, position, rules=None) -> SolveResult:
    """The :class:`SolveResult` that ``obj`` (its ``to_json()``, or an object ``guandan
    solve --json`` prints, as a dict or JSON text) records for ``position`` (as
    :func:`solve` takes it): results saved or sent by other processes, read back. It is
    checked as :class:`guandan_core.engine.EngineProcess` checks a solve reply: values
    in range, every move legal where it is played (the line played out from the
    position), and the parts agreeing (the line from the best move to an end within the
    bounds, the scored moves the legal ones, the best at the value); a ``ValueError``
    names a key missing, unknown or wrong.

    >>> position = {"level": "2", "hands": [["S5"], ["S3", "S4"], [], ["HR"]],
    ...             "finished": [2], "to_move": 0, "table": None}
    >>> result = solve(position, all_moves=True)
    >>> read_result(result.to_json(), position) == result
    True
    """
    obj = _json_object(obj, "a solve result")
    _no_other_keys(obj, _RESULT_KEYS, "a solve result")
    pos = as_position(position, rules)
    threshold = obj.get("threshold")
    if threshold is not None:
        _checked_threshold("threshold", threshold)
    try:
        return _result_from_json(obj, pos, threshold, "moves" in obj)
    except KeyError as exc:
        raise ValueError(f"a solve result needs the key {quoted(exc.args[0])}") from None
    except TypeError as exc:
        raise ValueError(f"a solve result that does not read: {exc}") from None


def _json_object(obj, what: str) -> Mapping:
    """``obj``, a dict or JSON text of one (read), else a ValueError naming it."""
    if isinstance(obj, (str, bytes, bytearray)):
        obj = parse_json(obj)
    if not isinstance(obj, Mapping):
        raise ValueError(f"{what} is a JSON object, not {quoted_read(obj)}")
    return obj


def _no_other_keys(obj: Mapping, keys: tuple, what: str) -> None:
    other = [k for k in obj if k not in keys]
    if other:
        raise ValueError(f"{what} has no key {quoted(other[0])} (its keys: "
                         f"{', '.join(keys)})")


def _result_from_json(obj: dict, pos: Position, at_least, all_moves: bool):
    """The :class:`SolveResult` that ``obj`` records for ``pos``, asked with ``at_least`` and
    ``all_moves`` (read_result's and the engine process's check): a KeyError, TypeError
    or ValueError names what is missing or wrong."""
    def value(v, what, none=False):
        if (v is None and none) or (is_whole(v, -3, 3) and v != 0):
            return v
        raise ValueError(f"{what} {quoted(v)} is not a value")

    def count(v, what):
        if not is_whole(v, 0, 2**63 - 1):      # (as read_sampled reads them)
            raise ValueError(f"{what} {quoted(v)} is not a count from 0 to 2**63 - 1")
        return v

    def a_list(v, what):
        if not isinstance(v, list):     # (a dict or text was read item by item)
            raise ValueError(f"{what} must be a list, not {quoted(v)}")
        return v

    def move(triple, at: Position, what):
        try:
            m = Move.from_platform(triple, at.level, at.rules)
        except MoveError as exc:
            raise MoveError(f"{what}: {exc}") from None
        try:        # (from_platform read it at that level and rules: is_legal less the
            at._check(m, full=False)        # check that it is a reading, half the time)
        except IllegalMoveError:
            raise ValueError(f"{what} {quoted(triple)} is not a legal move there") from None
        return m

    lower, upper = value(obj["lower"], "lower"), value(obj["upper"], "upper")
    exact = obj["value"]
    # (bounds that meet are the value: solve() gives it then, so a reply without it lies)
    if not (lower <= upper and (lower < upper if exact is None
                                else lower == value(exact, "value") == upper)
            and obj["exact"] is (exact is not None)):
        raise ValueError(f"value {quoted(exact)}, exact {quoted(obj['exact'])}, lower "
                         f"{lower} and upper {upper} do not agree")
    threshold = obj.get("threshold")
    if threshold != at_least or ("reached" in obj) is (at_least is None):
        raise ValueError(f"threshold {quoted(threshold)} is not the question asked")
    pv, at = [], pos.copy()
    for step in a_list(obj["pv"], "pv"):
        if not (isinstance(step, list) and len(step) == 2):
            raise ValueError(f"the line's steps are [seat, move] pairs, not {quoted(step)}")
        seat, triple = step
        if not is_whole(seat, 0, 3) or seat != at.to_move:
            raise ValueError(f"the line has seat {quoted(seat)} play where seat "
                             f"{at.to_move} is to move")
        m = move(triple, at, "the line's move")
        pv.append((seat, m))
        at.push(m, check=False)
    pv_cut = obj.get("pv_cut", False)
    if pv_cut is not True and ("pv_cut" in obj or (pv and not at.is_over)):
        raise ValueError("the line stops before the end of the hand without pv_cut")
    best = None if obj["best"] is None else move(obj["best"], pos, "best")
    # what the reply says of itself must agree, though only a second solve could say
    # whether it is right: the line starts with the best move and ends where the value
    # says; the question answered is the one the bounds answer (below)
    if pv and pv[0][1] != best:
        raise ValueError(f"the line starts with {pv[0][1]}, not with the best move {best}")
    if pv and not pv_cut:
        end = at.team_value(pos.to_move)
        if not lower <= end <= upper:
            raise ValueError(f"the line ends at {end:+d} for the mover's team, outside "
                             f"{lower}..{upper}")
    if ("moves" in obj) is not all_moves:
        raise ValueError("every move scored, not asked for" if not all_moves else
                         "no move scored, though every move was asked for")
    moves = []
    for entry in a_list(obj.get("moves", []), "moves"):
        if not isinstance(entry, Mapping):
            raise ValueError(f"a scored move is a JSON object, not {quoted_read(entry)}")
        _no_other_keys(entry, _MOVE_KEYS, "a scored move")
        reaches = entry.get("reaches")
        if not (reaches is True or reaches is False or reaches is None) \
                or ("reaches" in entry) is (at_least is None):
            raise ValueError(f"a move's reaches {quoted(reaches)} is not an answer")
        score = value(entry["value"], "a move's value", none=True)
        # a move's bounds: the value when it is known, given when a limit left it unknown
        if score is None and at_least is None:
            low = value(entry["lower"], "a move's lower bound")
            high = value(entry["upper"], "a move's upper bound")
            if not low < high:
                raise ValueError(f"a move's bounds {low} and {high} leave no value unknown")
        elif "lower" in entry or "upper" in entry:
            raise ValueError("a move's bounds are given only when its value is not")
        else:
            low, high = (score, score) if score is not None else _reach_bounds(reaches, at_least)
        moves.append(MoveScore(move(entry["move"], pos, "a scored move"), score,
                               [move(m, pos, "an equivalent move")
                                for m in a_list(entry.get("equivalent", []),
                                                "a move's equivalent")],
                               reaches, threshold, low, high))
    seconds = obj["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or \
            not 0 <= seconds <= 1e15:           # (as read_sampled reads it)
        raise ValueError(f"seconds must be a number from 0 to 1e15, not {quoted(seconds)}")
    result = SolveResult(value=exact, lower=lower, upper=upper, best=best, pv=pv,
                         moves=moves, nodes=count(obj["nodes"], "nodes"),
                         tt_hits=count(obj["tt_hits"], "tt_hits"), seconds=float(seconds),
                         to_move=pos.to_move, threshold=threshold, pv_cut=pv_cut is True)
    reached = result.reached
    if at_least is not None and obj["reached"] is not reached:
        raise ValueError(f"reached {quoted(obj['reached'])} where the bounds "
                         f"{lower}..{upper} answer {reached}")
    # solve() names a move to play, but for a threshold not reached (the value not
    # pinned by that): no move reaches it, so none is best
    if (best is None) is not (reached is False and exact is None):
        raise ValueError(f"best {quoted(obj['best'])} for threshold {at_least:+d}, not "
                         "reached (the value unknown): no move reaches it, so none is best"
                         if best is not None else "best None, which only a threshold not "
                         "reached (the value unknown) has")
    if all_moves:
        groups = [(score, [score.move, *score.equivalent]) for score in moves]
        listed = [m for _, group in groups for m in group]
        legal = pos.legal_moves()
        if len(listed) != len(legal) or set(listed) != set(legal):
            raise ValueError(f"the scored moves and their equivalents are {len(listed)} "
                             f"moves, not the position's {len(legal)} legal moves, each "
                             "once")
        for score, group in groups:
            is_best = best in group
            if at_least is None and score.lower > upper:   # (reaches: checked below)
                raise ValueError(f"{score.move} is scored {score.lower:+d} or more, above "
                                 f"the upper bound {upper:+d}")
            if score.reaches and not reached or score.reaches is False and reached \
                    and is_best:
                raise ValueError(f"{score.move} reaches {score.reaches} where the "
                                 f"position's answer is {reached}")
            if exact is not None and is_best and score.value not in (None, exact):
                raise ValueError(f"the best move is scored {score.value:+d}, not the "
                                 f"value {exact:+d}")
    return result
