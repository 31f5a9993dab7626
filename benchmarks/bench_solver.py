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
from pathlib import Path

import numpy as np
import pytest

from solver import clear_tables, solve

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
            clear_tables()   # each position from a cold table: no help from the previous one
            r = solve(obj, all_moves=all_moves, time_limit=LIMIT, pv=False)
            times.append(r.seconds)
            nodes.append(r.nodes)
            exact = r.exact and all(m.value is not None for m in r.moves)
            unsolved += not exact
        stats.update(_summary(times, nodes, unsolved))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{name} {'all-moves' if all_moves else 'value'}: {stats}")
