"""Move generation speed on the fixed 27-card hand sets (200 hands each).

Run: ``python -m pytest benchmarks/bench_core.py --benchmark-only``. Each benchmark
processes the whole set once per round; ``extra_info`` gives the per-hand figures.
"""

import numpy as np
import pytest

from guandan_core import (MOVE_DTYPE, Hand, Move, classify, legal_moves, moves_array,
                          moves_array_batch)
from guandan_core.hand import to_counts


def _per_hand(benchmark, count):
    if benchmark.stats is None:
        return          # --benchmark-disable: run once, as a check that it runs
    stats = benchmark.stats.stats
    benchmark.extra_info["us_per_hand_mean"] = round(stats.mean / count * 1e6, 2)
    benchmark.extra_info["us_per_hand_min"] = round(stats.min / count * 1e6, 2)


def test_lead_batch_path(benchmark, hand_set):
    """All lead moves through the batch entry point, into a reused buffer."""
    name, hands, levels = hand_set
    out = np.empty(1 << 19, dtype=MOVE_DTYPE)
    moves, offsets = benchmark(moves_array_batch, hands, levels, None, out)
    benchmark.extra_info["moves_per_hand"] = round(len(moves) / len(hands), 1)
    _per_hand(benchmark, len(hands))


def test_lead_batch_path_allocating(benchmark, hand_set):
    name, hands, levels = hand_set
    moves, offsets = benchmark(moves_array_batch, hands, levels)
    _per_hand(benchmark, len(hands))


def test_lead_array_per_hand(benchmark, hand_set):
    """One moves_array call per hand (the Python call overhead included)."""
    name, hands, levels = hand_set
    pairs = [(hands[i], int(levels[i])) for i in range(len(hands))]

    def run():
        return sum(len(moves_array(h, lvl)) for h, lvl in pairs)

    benchmark(run)
    _per_hand(benchmark, len(hands))


def test_lead_python_objects(benchmark, hand_set):
    """Every lead move as a Move object."""
    name, hands, levels = hand_set
    pairs = [(Hand.from_counts(hands[i]), int(levels[i])) for i in range(len(hands))]

    def run():
        return sum(len(list(legal_moves(h, lvl))) for h, lvl in pairs)

    benchmark.pedantic(run, rounds=3, iterations=1)
    _per_hand(benchmark, len(hands))


@pytest.mark.parametrize("beat", [["Single", "7", ["S7"]], ["Pair", "7", ["S7", "C7"]],
                                  ["Straight", "5", ["S5", "C6", "D7", "S8", "C9"]]],
                         ids=["single", "pair", "straight"])
def test_follow(benchmark, hand_set, beat):
    """Moves that beat a single, a pair, a straight (at level 2 rules for the beat)."""
    name, hands, levels = hand_set
    pairs = []
    for i in range(len(hands)):
        lvl = int(levels[i])
        pairs.append((hands[i], lvl, Move.from_platform(beat, lvl)))

    def run():
        return sum(len(moves_array(h, lvl, b)) for h, lvl, b in pairs)

    benchmark(run)
    _per_hand(benchmark, len(hands))


def test_classify(benchmark, hand_set):
    """classify() on every lead move's cards of the first 10 hands (a mix of all types)."""
    name, hands, levels = hand_set
    plays = []
    for i in range(10):
        lvl = int(levels[i])
        for rec in moves_array(hands[i], lvl)[::7]:
            plays.append((to_counts(list(rec["cards"][:rec["ncards"]])), lvl))

    def run():
        return sum(len(classify(c, lvl)) for c, lvl in plays)

    benchmark(run)
    if benchmark.stats is not None:     # (None under --benchmark-disable)
        benchmark.extra_info["us_per_classify"] = round(
            benchmark.stats.stats.mean / len(plays) * 1e6, 2)
