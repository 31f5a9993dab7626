"""Hidden hands dealt at random and moves valued over the deals (``solver.sampling``).

Run: ``python -m pytest benchmarks/bench_sampling.py --benchmark-only -s``. Both measure
against a baseline run in the same process: dealing against reading the position's JSON,
and a sampled deal's solve (every move scored) against the real position's.

Environment: ``GUANDAN_BENCH_POSITIONS`` (the first N 4 x 6 positions, at most 20 here;
default 100), ``GUANDAN_BENCH_DEALS`` (deals a position, default 10).
"""

import json
import os
import time
from pathlib import Path

import numpy as np

from guandan_core.position import Position
from solver import free_tables, solve_many
from solver.sampling import sample_deals, solve_sampled

DATA = Path(__file__).parent / "data"
COUNT = min(20, int(os.environ.get("GUANDAN_BENCH_POSITIONS", "100")))
DEALS = int(os.environ.get("GUANDAN_BENCH_DEALS", "10"))


def _positions():
    items = json.loads((DATA / "endgames_4x6.json").read_text())["items"][:COUNT]
    return [Position.from_json(obj) for obj in items]


def test_dealing(benchmark):
    """Microseconds a deal (its Position made and checked), against reading the same
    position from its JSON, each the best of three rounds over the positions."""
    positions = _positions()
    texts = [p.to_json_str() for p in positions]
    per = 200
    stats = {}

    def best_us(fn, calls):
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        return best / calls * 1e6

    def run():
        deal = best_us(lambda: [sample_deals(p, per, seed=1) for p in positions],
                       per * len(positions))
        read = best_us(lambda: [Position.from_json(t) for t in texts * per],
                       per * len(positions))
        stats.update(deal_us=round(deal, 1), read_json_us=round(read, 1),
                     ratio=round(deal / read, 2))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\ndealing: {stats}")


def test_solve_sampled_4x6(benchmark):
    """Each 4 x 6 position from seat 0's view, DEALS deals solved with every move scored
    (on every core), against solving the real positions the same way in the same
    process: milliseconds a deal, and how a deal compares with the real position."""
    positions = _positions()
    stats = {}

    def run():
        free_tables()
        t0 = time.perf_counter()
        results = [solve_sampled(p, DEALS, seed=i) for i, p in enumerate(positions)]
        t1 = time.perf_counter()
        real = solve_many(positions, all_moves=True, pv=False)
        t2 = time.perf_counter()
        deals = sum(r.solved for r in results)
        agree = sum(r.best is not None and any(m.value == x.value and r.best in (m.move, *m.equivalent)
                                               for m in x.moves)
                    for r, x in zip(results, real))
        stats.update(positions=len(positions), deals=deals,
                     ms_a_deal=round((t1 - t0) / max(deals, 1) * 1000, 2),
                     ms_a_real_position=round((t2 - t1) / len(positions) * 1000, 2),
                     ratio=round(((t1 - t0) / max(deals, 1)) / ((t2 - t1) / len(positions)), 2),
                     nodes_median_a_deal=int(np.median([r.nodes / max(r.solved, 1)
                                                        for r in results])),
                     sampled_best_is_best_in_the_real_deal=f"{agree}/{len(positions)}")

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nsolve_sampled 4x6: {stats}")


def test_sampling_player_against_greedy(benchmark):
    """``SamplingPlayer`` against ``GreedyPlayer``: the first hand of 10 x COUNT seeded
    matches (200 by default), each played three times, four greedy players, then sampling
    players in seats 0 and 2, then in seats 1 and 3; the points a hand the sampling team
    gains over the greedy team in the same seats on the same deal (team 0's outcome is
    +3 ... -3), and the time a hand of each."""
    from guandan_core.match import Match
    from guandan_core.players import GreedyPlayer
    from solver.players import SamplingPlayer
    hands = 10 * COUNT
    stats = {}

    def outcome(seats, seed):
        players = [SamplingPlayer(f"{seed}/{s}") if s in seats else GreedyPlayer()
                   for s in range(4)]
        return Match(players, seed=seed).play_hand().outcome

    def run():
        t0 = time.perf_counter()
        greedy = [outcome((), i) for i in range(hands)]
        t1 = time.perf_counter()
        team0 = [outcome((0, 2), i) for i in range(hands)]
        team1 = [outcome((1, 3), i) for i in range(hands)]
        t2 = time.perf_counter()
        gain0 = np.array(team0) - np.array(greedy)
        gain1 = np.array(greedy) - np.array(team1)
        # one gain a deal, the mean of its two seatings (they share the greedy game, so
        # they are not independent of each other)
        gains = (gain0 + gain1) / 2
        stats.update(hands=hands, gain_as_team0=round(float(gain0.mean()), 3),
                     gain_as_team1=round(float(gain1.mean()), 3),
                     gain=round(float(gains.mean()), 3),
                     gain_standard_error=round(float(gains.std(ddof=1) / np.sqrt(len(gains))), 3),
                     ms_a_greedy_hand=round((t1 - t0) / hands * 1000, 2),
                     ms_a_sampling_hand=round((t2 - t1) / (2 * hands) * 1000, 1))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nSamplingPlayer against greedy: {stats}")


def test_slices_in_a_process_pool(benchmark):
    """The deals of ``test_solve_sampled_4x6`` cut into one slice a core, solved in a
    spawned process pool and merged (``first=``, ``merge_sampled``: what a cluster does),
    against one ``solve_sampled`` call a position on every core in this process. The pool
    is started before the clock (a cluster's workers are up already). Same answers."""
    import concurrent.futures
    import multiprocessing
    from solver import available_cores, merge_sampled
    positions = _positions()
    workers = available_cores()
    cut = [(i * DEALS // workers, (i + 1) * DEALS // workers) for i in range(workers)]
    stats = {}

    def run():
        with concurrent.futures.ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(abs, range(workers)))         # (the workers started)
            t0 = time.perf_counter()
            futures = [[pool.submit(solve_sampled, p, b - a, seed=i, threads=1, first=a)
                        for a, b in cut] for i, p in enumerate(positions)]
            merged = [merge_sampled(f.result() for f in fs) for fs in futures]
            t1 = time.perf_counter()
        free_tables()
        here = [solve_sampled(p, DEALS, seed=i) for i, p in enumerate(positions)]
        t2 = time.perf_counter()
        assert merged == here
        stats.update(positions=len(positions), deals=DEALS, workers=workers,
                     pool_s=round(t1 - t0, 3), threads_s=round(t2 - t1, 3),
                     ratio=round((t1 - t0) / (t2 - t1), 2))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nslices in a process pool: {stats}")
