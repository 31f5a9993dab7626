"""Numba kernels over whole batches of hands (``uint8[N, 54]`` count arrays).

These serve training loops and batch analysis: dealing many games at once, per-hand
features, and applying a batch of moves (records of :data:`MOVE_DTYPE`) to a batch of hands.
They are compiled on first use (and cached on disk when the package folder is writable).

>>> import numpy as np
>>> from guandan_core import Hand
>>> hands = np.stack([Hand("S2 H2 C2 D2 SB").counts, Hand("HR HR D9").counts])
>>> rank_counts(hands)[:, [0, 7, 13, 14]].tolist()
[[4, 0, 1, 0], [0, 1, 0, 2]]
>>> deal(seed=7, games=2).shape
(2, 4, 54)
"""

from __future__ import annotations

import numba
import numpy as np

from .cards import NUM_KINDS
from .moves import MOVE_DTYPE

__all__ = ["deal", "rank_counts", "wild_counts", "bomb_features", "apply_moves", "contains_moves"]

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _deal_kernel(seed, games):
    np.random.seed(seed)
    deck = np.empty(108, np.uint8)
    for k in range(54):
        deck[2 * k] = k
        deck[2 * k + 1] = k
    out = np.zeros((games, 4, NUM_KINDS), np.uint8)
    for g in range(games):
        np.random.shuffle(deck)
        for i in range(108):
            out[g, i // 27, deck[i]] += 1
    return out


def deal(seed: int, games: int = 1) -> np.ndarray:
    """Deal ``games`` random games: ``uint8[games, 4, 54]``, 27 cards a seat, same for a seed."""
    if games < 0:
        raise ValueError(f"games must be >= 0, not {games!r}")
    return _deal_kernel(np.int64(seed), np.int64(games))


@_jit
def _rank_counts_kernel(hands):
    n = hands.shape[0]
    out = np.zeros((n, 15), np.int64)
    for i in range(n):
        for k in range(52):
            out[i, k >> 2] += hands[i, k]
        out[i, 13] = hands[i, 52]
        out[i, 14] = hands[i, 53]
    return out


def _check_hands(hands) -> np.ndarray:
    hands = np.ascontiguousarray(hands, dtype=np.uint8)
    if hands.ndim != 2 or hands.shape[1] != NUM_KINDS:
        raise ValueError(f"hands must have shape (N, 54), not {hands.shape}")
    return hands


def _check_levels(levels, n: int) -> np.ndarray:
    levels = np.broadcast_to(np.asarray(levels, dtype=np.int64), (n,))
    if n and (levels.min() < 0 or levels.max() > 12):
        raise ValueError(f"levels must be rank indices 0..12, got {levels.min()}..{levels.max()}")
    return np.ascontiguousarray(levels)


def rank_counts(hands) -> np.ndarray:
    """Cards per rank for each hand: ``int64[N, 15]`` (ranks 2..A, then SB, HR)."""
    return _rank_counts_kernel(_check_hands(hands))


def wild_counts(hands, levels) -> np.ndarray:
    """Wild cards (hearts of the level rank) in each hand: ``int64[N]``."""
    hands = _check_hands(hands)
    levels = _check_levels(levels, hands.shape[0])
    return hands[np.arange(hands.shape[0]), levels * 4 + 1].astype(np.int64)


@_jit
def _bomb_features_kernel(hands, levels):
    # per hand: number of ranks that can make a bomb (wilds pooled, counted per rank),
    # the largest same-rank bomb size, and whether the joker bomb is held
    n = hands.shape[0]
    out = np.zeros((n, 3), np.int64)
    for i in range(n):
        wild = levels[i] * 4 + 1
        w = hands[i, wild]
        biggest = 0
        ranks = 0
        for r in range(13):
            nat = 0
            for s in range(4):
                k = r * 4 + s
                if k != wild:
                    nat += hands[i, k]
            if nat >= 2 and nat + w >= 4:
                ranks += 1
                size = min(nat + w, 10)
                if size > biggest:
                    biggest = size
        out[i, 0] = ranks
        out[i, 1] = biggest
        out[i, 2] = 1 if hands[i, 52] == 2 and hands[i, 53] == 2 else 0
    return out


def bomb_features(hands, levels) -> np.ndarray:
    """``int64[N, 3]``: ranks able to form a bomb (with the wilds), largest same-rank bomb
    size (0 if none), 1 if the hand holds the joker bomb."""
    hands = _check_hands(hands)
    return _bomb_features_kernel(hands, _check_levels(levels, hands.shape[0]))


@_jit
def _apply_kernel(hands, ncards, cards, out):
    n = hands.shape[0]
    ok = np.ones(n, np.bool_)
    for i in range(n):
        for k in range(54):
            out[i, k] = hands[i, k]
        for j in range(ncards[i]):
            c = cards[i, j]
            if out[i, c] == 0:
                ok[i] = False
            else:
                out[i, c] -= 1
        if not ok[i]:
            for k in range(54):
                out[i, k] = hands[i, k]
    return ok


def _move_fields(moves, n: int):
    moves = np.asarray(moves)
    if moves.dtype != MOVE_DTYPE or moves.shape != (n,):
        raise ValueError(f"moves must be a MOVE_DTYPE array of {n} records, "
                         f"not {moves.dtype} {moves.shape}")
    return (np.ascontiguousarray(moves["ncards"]).astype(np.int64),
            np.ascontiguousarray(moves["cards"]).astype(np.int64))


def contains_moves(hands, moves) -> np.ndarray:
    """``bool[N]``: whether hand ``i`` holds the cards of move ``i``."""
    hands = _check_hands(hands)
    ncards, cards = _move_fields(moves, hands.shape[0])
    scratch = np.empty_like(hands)
    return _apply_kernel(hands, ncards, cards, scratch)


def apply_moves(hands, moves) -> np.ndarray:
    """Remove move ``i``'s cards from hand ``i``; a new ``uint8[N, 54]`` array.

    Raises ``ValueError`` naming the first row whose hand does not hold its move.
    """
    hands = _check_hands(hands)
    ncards, cards = _move_fields(moves, hands.shape[0])
    out = np.empty_like(hands)
    ok = _apply_kernel(hands, ncards, cards, out)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"move of row {row} is not in its hand")
    return out
