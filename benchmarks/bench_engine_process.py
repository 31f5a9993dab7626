"""The solver run by a `guandan engine` process (``guandan_core.engine.EngineProcess``)
against the same solves in this process: what the process boundary costs.

Run: ``python -m pytest benchmarks/bench_engine_process.py --benchmark-only -s``. Each
round alternates the two ways over the same positions, each position from empty tables
on both sides (``clear_table`` / ``fresh_tables=True``), and prints the ratio of the
process's time to this process's; also the time of one command's round trip (``name``)
and of starting and closing an engine.

Environment: ``GUANDAN_BENCH_POSITIONS`` (how many of the set, default 100).
"""

import json
import os
import time
from pathlib import Path

from guandan_core.engine import EngineProcess
from solver import solve

DATA = Path(__file__).parent / "data"
COUNT = int(os.environ.get("GUANDAN_BENCH_POSITIONS", "100"))


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def test_solve_through_a_process(benchmark):
    items = json.loads((DATA / "endgames_2x10.json").read_text())["items"][:COUNT]
    with EngineProcess() as engine:
        def through_process():
            for item in items:
                engine.set_position(item)
                engine.clear_table()
                engine.solve()

        def in_process():
            for item in items:
                solve(item, fresh_tables=True)

        rounds = [(_timed(through_process), _timed(in_process)) for _ in range(3)]
        round_trip = min(_timed(engine.name) for _ in range(200))
        benchmark.pedantic(through_process, rounds=1, iterations=1)
    start = min(_timed(lambda: EngineProcess().close()) for _ in range(3))
    print(f"\n2 x 10, {len(items)} positions, value: through a process "
          + ", ".join(f"{a * 1e3:.0f} ms (x {a / b:.2f} in-process {b * 1e3:.0f} ms)"
                      for a, b in rounds)
          + f"; one command's round trip {round_trip * 1e6:.0f} us; an engine started "
          f"and closed {start * 1e3:.0f} ms")
