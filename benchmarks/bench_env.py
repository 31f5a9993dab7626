"""One hand as a reinforcement-learning environment (``guandan_core.env.HandEnv``).

Run: ``python -m pytest benchmarks/bench_env.py --benchmark-only -s``. Hands played
through the environment with every seat the agent's, choosing uniformly random legal
actions from the observation arrays, against the baseline of the same number of hands
of a seeded ``Match`` with four random players, in the same process; also the
environment's steps a second.

Environment: ``GUANDAN_BENCH_HANDS`` (hands, default 200).
"""

import os
import time

import numpy as np

from guandan_core.env import HandEnv
from guandan_core.match import Match
from guandan_core.players import RandomPlayer

HANDS = int(os.environ.get("GUANDAN_BENCH_HANDS", "200"))


def _against_a_match(benchmark, label: str, through_env) -> None:
    """Time ``through_env()`` (-> seconds, steps), the best of two, against a ``Match`` of
    four random players over HANDS hands, the best of two, in the same process."""
    stats = {}

    def match():
        t0 = time.perf_counter()
        Match([RandomPlayer(s) for s in range(4)], seed=0).play(HANDS)
        return time.perf_counter() - t0

    def run():
        env_s, steps = min(through_env() for _ in range(2))
        match_s = min(match() for _ in range(2))
        stats.update(hands=HANDS, steps=steps, env_s=round(env_s, 3),
                     match_s=round(match_s, 3), ratio=round(env_s / match_s, 2),
                     steps_per_s=round(steps / env_s))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\n{label}: {stats}")


def test_env_steps(benchmark):
    def through_env():
        env, rng, steps = HandEnv(), np.random.default_rng(0), 0
        t0 = time.perf_counter()
        for seed in range(HANDS):
            obs, _ = env.reset(seed=seed)
            done = False
            while not done:
                n = len(obs["legal"]) + int(obs["can_pass"])
                obs, _, done, _, _ = env.step(int(rng.integers(n)))
                steps += 1
        return time.perf_counter() - t0, steps

    _against_a_match(benchmark, "env", through_env)


def test_vector_env_steps(benchmark):
    """``VectorHandEnv`` of 16 rows (autoreset, random actions from the stacked arrays)
    against the same number of steps of one ``HandEnv``, in the same process: the cost of
    stacking the rows' observations."""
    from guandan_core.env import VectorHandEnv
    rows = 16
    stats = {}

    def vector(steps):
        venv, rng = VectorHandEnv(rows), np.random.default_rng(0)
        obs, _ = venv.reset(seed=0)
        t0 = time.perf_counter()
        for _ in range(steps // rows):
            n = obs["legal_count"] + obs["can_pass"]
            obs, _, _, _, _ = venv.step((rng.random(rows) * n).astype(np.int64))
        return time.perf_counter() - t0

    def single(steps):
        env, rng = HandEnv(), np.random.default_rng(0)
        obs, _ = env.reset(seed=0)
        t0, seed = time.perf_counter(), 0
        for _ in range(steps):
            n = len(obs["legal"]) + int(obs["can_pass"])
            obs, _, done, _, _ = env.step(int(rng.integers(n)))
            if done:
                seed += 1
                obs, _ = env.reset(seed=seed)
        return time.perf_counter() - t0

    def run():
        steps = HANDS * 100
        vec_s = min(vector(steps) for _ in range(2))
        one_s = min(single(steps) for _ in range(2))
        stats.update(rows=rows, steps=steps, vector_s=round(vec_s, 3), single_s=round(one_s, 3),
                     ratio=round(vec_s / one_s, 2), vector_steps_per_s=round(steps / vec_s))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nvector env: {stats}")


def test_game_env_steps(benchmark):
    """``GameEnv`` (hands in a row with levels and tribute; random actions, every seat the
    agent's) against a ``Match`` of random players for the same hands, in the same
    process: what settling, tribute and the per-hand snapshot (kept to undo a failing
    opponent) add to ``HandEnv``'s cost."""
    _against_a_match(benchmark, "game env", lambda: _random_games(False)[:2])


def _random_games(card_actions: bool) -> tuple:
    """HANDS hands of ``GameEnv(card_actions=card_actions)`` with random actions, games
    reset as they end: (seconds, steps, card choices)."""
    from guandan_core.env import GameEnv

    env, rng = GameEnv(card_actions=card_actions), np.random.default_rng(0)
    steps = hands = choices = 0
    obs, info = env.reset(seed=0)
    t0 = time.perf_counter()
    while hands < HANDS:
        choices += "choice" in info
        n = len(obs["legal"]) + int(obs["can_pass"])
        obs, _, done, cut, info = env.step(int(rng.integers(n)))
        steps += 1
        hands += "hand_result" in info
        if done or cut:
            obs, info = env.reset(seed=hands)
    return time.perf_counter() - t0, steps, choices


def test_game_env_card_actions_steps(benchmark):
    """``GameEnv(card_actions=True)`` (random moves and random tribute and returned cards
    through ``step``) against ``GameEnv()`` over the same number of hands, in the same
    process, a step's time: what stopping at each card choice and beginning the hand
    again costs."""
    stats = {}

    def run():
        rounds = [(_random_games(True), _random_games(False)) for _ in range(3)]  # alternating
        cards_s, steps, choices = min(cards for cards, _ in rounds)
        plain_s, plain_steps, _ = min(plain for _, plain in rounds)
        stats.update(hands=HANDS, steps=steps, choices=choices, cards_s=round(cards_s, 3),
                     plain_s=round(plain_s, 3),
                     # a step's time (the random cards play other games, of other lengths)
                     ratio_a_step=round(cards_s / steps / (plain_s / plain_steps), 2),
                     steps_per_s=round(steps / cards_s), plain_steps=plain_steps)

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\ngame env with card actions: {stats}")
