"""Benchmark: the exact best split of the 200 27-card hands of ``data/hands_wild.json``.

    python -m pytest benchmarks/bench_analyze.py --benchmark-only

One round is one hand (each hand once, in file order), so the reported min / median /
max are per hand; the 95th percentile is added to ``extra_info`` (shown with
``--benchmark-verbose`` or saved with ``--benchmark-json``) and printed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from guandan_core import Hand
from guandan_core.analysis import analyze, best_split
from guandan_core.cards import parse_level

DATA = Path(__file__).resolve().parent / "data" / "hands_wild.json"
HANDS = [(Hand(item["hand"]), parse_level(item["level"]))
         for item in json.loads(DATA.read_text())["items"]]


def _per_hand(benchmark, func):
    hands = iter(HANDS * 2)

    def setup():
        return next(hands), {}

    benchmark.pedantic(func, setup=setup, rounds=len(HANDS), iterations=1, warmup_rounds=0)
    if benchmark.stats is None:
        return          # --benchmark-disable: run once, as a check that it runs
    data = np.array(benchmark.stats.stats.data) * 1000.0
    summary = {"median_ms": float(np.median(data)), "p95_ms": float(np.percentile(data, 95)),
               "max_ms": float(data.max()), "hands": len(data)}
    benchmark.extra_info.update(summary)
    print(f"\n{benchmark.name}: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else
                                              f"{k} {v}" for k, v in summary.items()))
    return summary


def test_best_split_hands_wild(benchmark):
    """best_split with its default 5 runner-ups (the split `guandan analyze` shows)."""
    best_split(*HANDS[0])                                       # warm the caches/imports
    _per_hand(benchmark, lambda hand, level: best_split(hand, level))


def test_best_split_only_hands_wild(benchmark):
    """best_split without runner-ups."""
    best_split(*HANDS[0], runners_up=0)
    _per_hand(benchmark, lambda hand, level: best_split(hand, level, runners_up=0))


def test_analyze_hands_wild(benchmark):
    """The whole analysis: split, runner-ups, bombs and control (no played cards)."""
    analyze(*HANDS[0])
    _per_hand(benchmark, lambda hand, level: analyze(hand, level))


def test_analyze_hands_wild_long_sequences(benchmark):
    """The whole analysis under the ``long-sequences`` rules, where the unseen cards hold
    millions of long straights (control looks for a beater of a play's own type among a
    few cards of each rank; over the whole pool it took up to seconds a play)."""
    analyze(*HANDS[0], rules="long-sequences")
    _per_hand(benchmark, lambda hand, level: analyze(hand, level, rules="long-sequences"))
