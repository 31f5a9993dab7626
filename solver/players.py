"""A player for :class:`guandan_core.match.Match` that searches once the hand is short.

:class:`SamplingPlayer` plays as :class:`~guandan_core.players.GreedyPlayer` while many
cards are in play, and once at most ``max_cards`` are left between the four players it
plays the move with the best mean value over ``deals`` random deals of the hands it cannot
see, each solved exactly (:func:`solver.sampling.solve_sampled`): the endgame solver used
with the information a player really has.

>>> from guandan_core.match import Match
>>> from guandan_core.players import GreedyPlayer
>>> match = Match([SamplingPlayer(1), GreedyPlayer(), SamplingPlayer(2), GreedyPlayer()],
...               seed=4)
>>> match.play_hand().outcome in (3, 2, 1, -1, -2, -3)
True

Against greedy players (``benchmarks/bench_sampling.py``, the first hands of 200 seeded
matches, each played three times: four greedy players, then sampling players in seats 0
and 2, then in seats 1 and 3), the sampling team gains about two thirds of a point a hand
at the default ``max_cards`` (24).
"""

from __future__ import annotations

import random
import threading

from guandan_core.cards import is_whole
from guandan_core.match import _checked_seed
from guandan_core.moves import Move
from guandan_core.players import GreedyPlayer
from guandan_core.usertext import is_seconds, quoted

from .sampling import solve_sampled
from .search import Stop

__all__ = ["SamplingPlayer"]


class SamplingPlayer:
    """Greedy until at most ``max_cards`` cards are in play, then the best mean value over
    ``deals`` random deals of the hidden hands, each solved with at most ``node_limit``
    nodes (a deal the limit stops is not counted; with none counted, the greedy move).
    ``seed`` seeds the deals (an int 0 or more, text or None, as :class:`Match` takes it):
    the same seed and the same game give the same moves. ``move_time``: seconds a move's
    search may take in all (None: no bound); the deals not solved by then are not
    counted, so a move that meets the bound depends on the machine's speed (``guandan
    bot`` bounds its moves so, for the platform's answer time)."""

    def __init__(self, seed=None, deals: int = 8, max_cards: int = 24,
                 node_limit: int = 2_000_000, threads: int = 1,
                 move_time: float | None = None):
        # (a node limit of 0 would stop every deal unsolved: a greedy player in disguise)
        for name, value, low, high in (("deals", deals, 1, 1_000_000),
                                       ("max_cards", max_cards, 0, 108),
                                       ("node_limit", node_limit, 1, 2**63 - 1),
                                       ("threads", threads, 1, 9999)):
            if not is_whole(value, low, high):
                raise ValueError(f"{name} must be a whole number from {low} to {high}, "
                                 f"not {quoted(value)}")
        if move_time is not None and not is_seconds(move_time, 1e6):
            raise ValueError(f"move_time must be seconds above 0 and at most 1e6, or None, "
                             f"not {quoted(move_time)}")
        self.move_time = None if move_time is None else float(move_time)
        self.seed = _checked_seed(seed)
        self.rng = random.Random(self.seed)
        self.deals, self.max_cards = int(deals), int(max_cards)
        self.node_limit, self.threads = int(node_limit), int(threads)
        self.greedy = GreedyPlayer()
        self.searched = 0           # moves chosen by search (the others were greedy's)

    def reseed(self, seed) -> None:
        """Deal from now on as ``SamplingPlayer(seed, ...)`` would (environments call it at
        ``reset``)."""
        self.seed = _checked_seed(seed)
        self.rng = random.Random(self.seed)

    def __call__(self, obs) -> Move:
        if sum(obs.cards_left) > self.max_cards or len(obs.legal_moves) == 1:
            return self.greedy(obs)
        stop = timer = None
        if self.move_time is not None:
            stop = Stop()
            timer = threading.Timer(self.move_time, stop.set)
            timer.daemon = True
            timer.start()
        try:
            result = solve_sampled(obs, self.deals, seed=self.rng, threads=self.threads,
                                   node_limit=self.node_limit, stop=stop)
        finally:
            if timer is not None:
                timer.cancel()
        if result.best is None:
            return self.greedy(obs)
        self.searched += 1
        return result.best

    def __repr__(self) -> str:
        return (f"SamplingPlayer(seed={self.seed!r}, deals={self.deals}, "
                f"max_cards={self.max_cards}, node_limit={self.node_limit}"
                f"{'' if self.threads == 1 else f', threads={self.threads}'}"
                f"{'' if self.move_time is None else f', move_time={self.move_time}'})")
