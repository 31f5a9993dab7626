"""Simple players for :class:`guandan_core.match.Match` and ``guandan play``.

A player is any callable ``player(observation) -> Move``; see
:class:`guandan_core.match.Observation`.

* :class:`RandomPlayer`: a uniformly random legal move; when following, the pass is one
  of the choices (so it is chosen with probability 1 / (number of beating moves + 1)).
  After tribute it returns a uniformly random allowed card (``choose_return``, drawn from
  the same seeded generator).
* :class:`GreedyPlayer`: the "smallest" legal play, defined as follows.

  - On lead: among the singles and pairs, the one with the lowest key (card order of
    RULES sec. 2); equal keys prefer fewer wild cards, then the pair (it sheds two cards),
    then the first in enumeration order. A hand always holds a single, so it never passes
    on lead and never leads a bomb.
  - Following: among the moves that beat the table and are not bombs, the one with the
    lowest key (then fewer wild cards, then enumeration order); if there is none it
    passes. It never bombs.
  - It has no ``choose_return``: after tribute the match returns its lowest allowed card.

>>> make_player("random", 1)
RandomPlayer(seed=1)
"""

from __future__ import annotations

import random

import numpy as np

from .match import _checked_seed
from .moves import Move
from .usertext import quoted

__all__ = ["RandomPlayer", "GreedyPlayer", "make_player", "PLAYERS"]

_SINGLE, _PAIR, _STRAIGHT_FLUSH = 1, 2, 8   # type ids of the move records (MOVE_DTYPE)


class RandomPlayer:
    """Chooses uniformly among the legal moves (pass included when following).

    ``seed``: an int 0 or more, text or None, as :class:`Match` takes it."""

    def __init__(self, seed=None):
        self.seed = _checked_seed(seed)
        self.rng = random.Random(self.seed)

    def __call__(self, obs) -> Move:
        moves = obs.legal_moves
        return moves[self.rng.randrange(len(moves))]

    def choose_return(self, obs, allowed_cards) -> str:
        """The card to return after receiving tribute (RULES sec. 8): a random one of
        ``allowed_cards``."""
        return allowed_cards[self.rng.randrange(len(allowed_cards))]

    def reseed(self, seed) -> None:
        """Choose from now on as ``RandomPlayer(seed)`` would (environments call it at
        ``reset``)."""
        self.seed = _checked_seed(seed)
        self.rng = random.Random(self.seed)

    def __repr__(self) -> str:
        return f"RandomPlayer(seed={self.seed!r})"


def _wilds(move: Move, level: int) -> int:
    wild = level * 4 + 1
    return sum(1 for k in move.kinds if k == wild)


class GreedyPlayer:
    """Plays the smallest legal move (see the module docstring); deterministic."""

    def __init__(self, seed=None):
        # unused: accepted (and checked) so every player is built the same way
        self.seed = _checked_seed(seed)

    def __call__(self, obs) -> Move:
        moves = obs.legal_moves
        array = getattr(moves, "array", None)
        if array is not None:
            return self._from_array(moves, array, obs.table is None)
        return self._from_moves(list(moves), obs.table is None, obs.level)

    @staticmethod
    def _from_array(moves, array, on_lead: bool) -> Move:
        offset = int(getattr(moves, "has_pass", not on_lead))
        if len(array) == 0:
            return moves[0]  # following with nothing that beats: the pass
        types = array["type"]
        mask = (types <= _PAIR) if on_lead else (types < _STRAIGHT_FLUSH)
        if not mask.any():
            if not on_lead:
                return moves[0]  # only bombs beat the table: pass
            mask = types < _STRAIGHT_FLUSH
            if not mask.any():
                mask = np.ones(len(array), dtype=bool)
        # one score ordering by key, then fewer wilds, then more cards; argmin keeps the
        # first (enumeration order) of equal scores
        score = (array["key"].astype(np.int32) * 64 + array["nwild"].astype(np.int32) * 16
                 - array["ncards"].astype(np.int32))
        score[~mask] = np.iinfo(np.int32).max
        return moves[int(score.argmin()) + offset]

    @staticmethod
    def _from_moves(moves, on_lead: bool, level: int) -> Move:
        plays = [(i, m) for i, m in enumerate(moves) if not m.is_pass]
        if on_lead:
            pool = [(i, m) for i, m in plays if m.type in ("Single", "Pair")] \
                or [(i, m) for i, m in plays if not m.is_bomb] or plays
        else:
            pool = [(i, m) for i, m in plays if not m.is_bomb]
            if not pool:
                return Move.PASS
        return min(pool, key=lambda im: (im[1].key, _wilds(im[1], level), -len(im[1]),
                                         im[0]))[1]

    def __repr__(self) -> str:
        return "GreedyPlayer()"


def _sampling_player(seed=None):
    """:class:`solver.players.SamplingPlayer` with its defaults (the solver is built on
    this package, so it is imported only when asked for)."""
    from solver.players import SamplingPlayer
    return SamplingPlayer(seed)


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer, "sampling": _sampling_player}


def make_player(name: str, seed=None):
    """A player by name (``random``, ``greedy``, ``sampling``: greedy until at most 24
    cards are in play, then the endgame solver over random deals of the hidden hands,
    :class:`solver.players.SamplingPlayer`); ``seed`` seeds a random or sampling player."""
    if not isinstance(name, str):
        raise TypeError(f"a player's name is a string (known: {', '.join(sorted(PLAYERS))}), "
                        f"not {quoted(name)}")
    try:
        cls = PLAYERS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown player {quoted(name)} (known: {', '.join(sorted(PLAYERS))})") \
            from None
    return cls(seed)
