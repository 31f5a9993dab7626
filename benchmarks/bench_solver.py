"""Endgame solver speed on the fixed endgame sets (100 positions each).

Run: ``python -m pytest benchmarks/bench_solver.py --benchmark-only -s``. Each benchmark
solves the whole set once and reports, in ``extra_info`` and on stdout, the median, 95th
percentile and maximum time and nodes per position. A position that hits the per-position
time limit counts with its time at the limit and is reported as unsolved (its exact value
was not found; the solver then returns proven bounds).

Environment: ``GUANDAN_BENCH_POSITIONS`` (default 100), ``GUANDAN_BENCH_TIME_LIMIT``
(seconds per position, default 10).
"""

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from solver import free_tables, solve

DATA = Path(__file__).parent / "data"
COUNT = int(os.environ.get("GUANDAN_BENCH_POSITIONS", "100"))
LIMIT = float(os.environ.get("GUANDAN_BENCH_TIME_LIMIT", "10"))


def _positions(name):
    return json.loads((DATA / f"{name}.json").read_text())["items"][:COUNT]


def _summary(times, nodes, unsolved):
    t = np.array(times) * 1000
    n = np.array(nodes)
    return {
        "positions": len(times), "unsolved": unsolved,
        "ms_median": round(float(np.median(t)), 2), "ms_p95": round(float(np.percentile(t, 95)), 2),
        "ms_max": round(float(t.max()), 2),
        "nodes_median": int(np.median(n)), "nodes_p95": int(np.percentile(n, 95)),
        "nodes_max": int(n.max()),
    }


@pytest.mark.parametrize("all_moves", [False, True], ids=["value", "all-moves"])
@pytest.mark.parametrize("name", ["endgames_4x6", "endgames_4x8", "endgames_2x10"])
def test_solve_set(benchmark, name, all_moves):
    positions = _positions(name)
    stats = {}

    def run():
        times, nodes, unsolved = [], [], 0
        for obj in positions:
            # each position from empty tables, no help from the previous one; the time
            # includes emptying them (a new era of the entries, well under a microsecond)
            r = solve(obj, all_moves=all_moves, time_limit=LIMIT, pv=False, fresh_tables=True)
            times.append(r.seconds)
            nodes.append(r.nodes)
            exact = r.exact and all(m.value is not None for m in r.moves)
            unsolved += not exact
        stats.update(_summary(times, nodes, unsolved))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{name} {'all-moves' if all_moves else 'value'}: {stats}")


@pytest.mark.parametrize("all_moves", [False, True], ids=["answer", "all-moves"])
@pytest.mark.parametrize("name", ["endgames_4x6", "endgames_4x8", "endgames_2x10"])
def test_threshold_set(benchmark, name, all_moves):
    """Threshold mode, ``at_least=+1``: does the team to move win the hand (go out
    first)? One question, with a move that reaches it when it does; with every move:
    which moves do."""
    positions = _positions(name)
    stats = {}

    def run():
        times, nodes, unsolved = [], [], 0
        for obj in positions:
            r = solve(obj, at_least=1, all_moves=all_moves, time_limit=LIMIT, pv=False,
                      fresh_tables=True)
            times.append(r.seconds)
            nodes.append(r.nodes)
            unsolved += r.reached is None or any(m.reaches is None for m in r.moves)
        stats.update(_summary(times, nodes, unsolved))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{name} at_least=+1{' all-moves' if all_moves else ''}: {stats}")


@pytest.mark.parametrize("name", ["endgames_4x6", "endgames_2x10"])
def test_solve_many_threads(benchmark, name):
    """Batch solving: the set solved by ``solve_many`` on one thread, then on every
    available core, in the same process; reports the speed-up (one thread's time over
    the threads' time). Every move is scored so that 2 x 10 positions take long enough
    to be worth a thread."""
    from solver import available_cores, solve_many
    positions = _positions(name)
    cores = available_cores()
    stats = {}

    def run():
        free_tables()       # both runs start from new, empty tables
        t0 = time.perf_counter()
        one = solve_many(positions, threads=1, all_moves=True, pv=False, time_limit=LIMIT)
        t1 = time.perf_counter()
        many = solve_many(positions, threads=cores, all_moves=True, pv=False, time_limit=LIMIT)
        t2 = time.perf_counter()
        assert [r.value for r in one] == [r.value for r in many]
        stats.update(positions=len(positions), threads=cores, one_thread_s=round(t1 - t0, 3),
                     threads_s=round(t2 - t1, 3), speedup=round((t1 - t0) / (t2 - t1), 2))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{name} solve_many: {stats}")


def test_solve_many_small_batches(benchmark):
    """A training loop's pattern: many calls of ``solve_many`` on a few small positions
    (four 2 x 10 positions, value only, 50 calls) on every core, against solving the same
    four one after another in this thread, in the same process. Reports the time a call
    of each; what a call costs beyond its searches (threads, tables) shows in the ratio."""
    from solver import available_cores, solve_many
    positions = _positions("endgames_2x10")[:4]
    cores = available_cores()
    calls = 50
    stats = {}

    def run():
        free_tables()
        solve_many(positions, threads=cores)        # (the first call makes the tables)
        [solve(p) for p in positions]
        t0 = time.perf_counter()
        for _ in range(calls):
            solve_many(positions, threads=cores)
        t1 = time.perf_counter()
        for _ in range(calls):
            [solve(p) for p in positions]
        t2 = time.perf_counter()
        stats.update(threads=cores, solve_many_ms=round((t1 - t0) / calls * 1000, 3),
                     one_by_one_ms=round((t2 - t1) / calls * 1000, 3),
                     ratio=round((t1 - t0) / (t2 - t1), 2))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nsolve_many small batches: {stats}")


def test_solve_call_cost(benchmark):
    """What a call of ``solve`` costs beyond its search, as an embedding program pays it
    for every small position: the README's three-card example (two nodes), value, best
    move and line, given as a Position and as its JSON, with reading the JSON alone for
    comparison (same process, each the best of five rounds of 2,000 calls)."""
    from guandan_core.position import Position
    obj = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
           "to_move": 0, "table": None}
    pos = Position.from_json(obj)
    calls = 2000
    stats = {}

    def per_call_us(fn):
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            best = min(best, time.perf_counter() - t0)
        return round(best / calls * 1e6, 1)

    def run():
        solve(pos)          # (this thread's tables made before timing)
        stats.update(solve_position_us=per_call_us(lambda: solve(pos)),
                     solve_json_us=per_call_us(lambda: solve(obj)),
                     read_json_us=per_call_us(lambda: Position.from_json(obj)))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nsolve call cost: {stats}")
