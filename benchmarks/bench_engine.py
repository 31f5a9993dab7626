"""Game engine speed: random self-play of full hands, and push/pop for search.

Run: ``python -m pytest benchmarks/bench_engine.py --benchmark-only``. ``extra_info``
gives hands per second or push/pop pairs per second (from the mean round time, and from
the fastest round).

* ``test_random_hands_playout``: deal + :meth:`Position.random_playout` (uniform random
  legal moves, the pass counted as a move when following): the engine's hot path, no
  ``Move`` object per legal move (the issue's target: 2,000 full random hands a second
  on one core).
* ``test_random_hands_match``: the same through :class:`Match` with four
  :class:`RandomPlayer` callables (an observation per turn, the chosen move made into a
  ``Move``, level and tribute bookkeeping), without event output.
* ``test_greedy_hands_match``: four :class:`GreedyPlayer` callables.
* ``test_push_pop``: push then pop every move of recorded random hands (unchecked, as a
  search does); ``test_push_pop_checked`` the same with full legality checks.
"""

import random

import pytest

from guandan_core.match import Match, deal
from guandan_core.players import GreedyPlayer, RandomPlayer
from guandan_core.position import Position

HANDS_PER_ROUND = 50


def _rate(benchmark, count, unit):
    """Rates from the mean and from the fastest round (the latter is steadier on a
    busy machine)."""
    if benchmark.stats is None:
        return          # --benchmark-disable: run once, as a check that it runs
    stats = benchmark.stats.stats
    benchmark.extra_info[unit] = round(count / stats.mean, 1)
    benchmark.extra_info[unit + "_best_round"] = round(count / stats.min, 1)


def test_random_hands_playout(benchmark):
    rng = random.Random(2024)

    def run():
        total = 0
        for _ in range(HANDS_PER_ROUND):
            pos = Position(rng.randrange(13), deal(rng), (), rng.randrange(4),
                           validate=False)
            total += pos.random_playout(rng)
        return total

    benchmark.pedantic(run, rounds=10, iterations=1, warmup_rounds=1)
    _rate(benchmark, HANDS_PER_ROUND, "hands_per_s")


@pytest.mark.parametrize("player", [RandomPlayer, GreedyPlayer], ids=["random", "greedy"])
def test_match_hands(benchmark, player):
    match = Match([player(i) for i in range(4)], seed=2024)

    def run():
        match.play(HANDS_PER_ROUND)

    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    _rate(benchmark, HANDS_PER_ROUND, "hands_per_s")


def _recorded_hands(count=20):
    rng = random.Random(7)
    games = []
    for _ in range(count):
        pos = Position(rng.randrange(13), deal(rng), (), rng.randrange(4))
        start = pos.copy()
        moves = []
        while not pos.is_over:
            ml = pos.move_list()
            m = ml[rng.randrange(len(ml))]
            moves.append(m)
            pos.push(m, check=False)
        games.append((start, moves))
    return games


@pytest.mark.parametrize("checked", [False, True], ids=["unchecked", "checked"])
def test_push_pop(benchmark, checked):
    games = _recorded_hands()
    pairs = sum(len(moves) for _, moves in games)

    def run():
        for pos, moves in games:
            push = pos.push
            for m in moves:
                push(m, checked)
            for _ in moves:
                pos.pop()

    benchmark.pedantic(run, rounds=10, iterations=1, warmup_rounds=1)
    _rate(benchmark, pairs, "push_pop_pairs_per_s")
