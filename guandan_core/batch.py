"""Numba kernels over whole batches of hands (``uint8[N, 54]`` count arrays).

These serve training loops and batch analysis: dealing many games at once, per-hand
features, and applying a batch of moves (records of :data:`MOVE_DTYPE`) to a batch of hands.
They are compiled on first use and cached on disk (numba's cache: next to the package
when its folder is writable, else in the user's cache directory).

>>> import numpy as np
>>> from guandan_core import Hand
>>> hands = np.stack([Hand("S2 H2 C2 D2 SB").counts, Hand("HR HR D9").counts])
>>> rank_counts(hands)[:, [0, 7, 13, 14]].tolist()
[[4, 0, 1, 0], [0, 1, 0, 2]]
>>> deal(seed=7, games=2).shape
(2, 4, 54)
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError as exc:      # an optional dependency: only this module needs it
    raise ImportError("guandan_core.batch needs numba: pip install '.[batch]' in the "
                      f"checkout, or pip install numba ({exc})") from exc

from .cards import NUM_KINDS, format_cards, is_whole
from .hand import hand_batch, level_batch
from .moves import MOVE_DTYPE, MoveError, _dtype_name
from .usertext import quoted

MAX_MOVE_CARDS = 10       # a move's cards field (the largest bomb)

__all__ = ["deal", "rank_counts", "wild_counts", "bomb_features", "apply_moves", "contains_moves",
           "MAX_SEED", "MAX_GAMES"]

_jit = numba.njit(cache=True, nogil=True)


# The deal's own generator (splitmix64: Steele, Lea and Flood's constants) rather than
# numba's np.random, whose seeding would reset the caller's own numba random stream in
# this thread, and which takes 32-bit seeds only.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@_jit
def _next_random(state):
    """The next 64 random bits of the generator whose state is ``state[0]``."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@_jit
def _random_below(state, n):
    """A random whole number 0..n-1, each equally likely: draws below 2**64 mod n are
    drawn again (they would make the low residues likelier)."""
    low = (np.uint64(0) - n) % n
    r = _next_random(state)
    while r < low:
        r = _next_random(state)
    return r % n


@_jit
def _deal_kernel(seed, out):
    state = np.empty(1, np.uint64)
    state[0] = seed
    deck = np.empty(108, np.uint8)
    for k in range(54):
        deck[2 * k] = k
        deck[2 * k + 1] = k
    for g in range(out.shape[0]):
        for i in range(107, 0, -1):         # (Fisher and Yates' shuffle)
            j = _random_below(state, np.uint64(i + 1))
            deck[i], deck[j] = deck[j], deck[i]
        for i in range(108):
            out[g, i // 27, deck[i]] += 1


MAX_SEED = 2**64 - 1      # the generator's whole state
MAX_GAMES = 2**32 - 1     # (far beyond memory: 216 bytes a game) a bound int64 holds


def _whole(value, what: str, low: int, high: int | None = None) -> int:
    """A whole number (a Python or numpy int, not True/False) in low..high, else a
    ValueError naming it."""
    if not is_whole(value, low, high):
        bound = f"{low}..{high}" if high is not None else f"{low} or more"
        raise ValueError(f"{what} must be a whole number {bound}, not {quoted(value)}")
    return int(value)


def deal(seed: int, games: int = 1) -> np.ndarray:
    """Deal ``games`` random games: ``uint8[games, 4, 54]``, 27 cards a seat, same for a
    seed (0 to 2**64 - 1); ``games`` 0 to 2**32 - 1 (a ``MemoryError`` naming them when
    their array cannot be had). Uses no other random generator (numba's or numpy's)."""
    seed = _whole(seed, "seed", 0, MAX_SEED)
    games = _whole(games, "games", 0, MAX_GAMES)
    try:
        out = np.zeros((games, 4, NUM_KINDS), np.uint8)
    except MemoryError:
        raise MemoryError(f"deal: {games:,} games need {games * 4 * NUM_KINDS:,} bytes, "
                          f"more than this process can have") from None
    _deal_kernel(np.uint64(seed), out)
    return out


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


def rank_counts(hands) -> np.ndarray:
    """Cards per rank for each hand: ``int64[N, 15]`` (ranks 2..A, then SB, HR)."""
    return _rank_counts_kernel(hand_batch(hands))


def wild_counts(hands, levels) -> np.ndarray:
    """Wild cards (hearts of the level rank) in each hand: ``int64[N]``."""
    hands = hand_batch(hands)
    levels = level_batch(levels, hands.shape[0])
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
    hands = hand_batch(hands)
    return _bomb_features_kernel(hands, level_batch(levels, hands.shape[0]))


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
    """The card counts and cards of ``n`` move records, checked: the kernel trusts them as
    indices (at most 10 cards a move, kinds 0..53)."""
    if not isinstance(moves, np.ndarray):
        # (a list of records is no MOVE_DTYPE array: numpy would guess another shape)
        raise ValueError(f"moves must be a MOVE_DTYPE array of {n} records, not a "
                         f"{type(moves).__name__}")
    if moves.dtype != MOVE_DTYPE or moves.shape != (n,):
        raise ValueError(f"moves must be a MOVE_DTYPE array of {n} records, "
                         f"not {_dtype_name(moves.dtype)} {moves.shape}")
    # copies of the fields, checked in one compiled pass (copies as int64 and numpy's masks
    # over them took half of apply_moves' time): copies, since the kernels trust what was
    # checked, and the caller's array may change under a kernel that holds no GIL
    ncards, cards = np.array(moves["ncards"]), np.array(moves["cards"])
    row = _first_bad_move(ncards, cards)
    if row >= 0:
        if ncards[row] > MAX_MOVE_CARDS:
            raise MoveError(f"move of row {row} has {ncards[row]} cards (at most "
                            f"{MAX_MOVE_CARDS})")
        slot = next(j for j in range(ncards[row]) if cards[row, j] >= NUM_KINDS)
        raise MoveError(f"move of row {row} holds card kind {cards[row, slot]} "
                        f"(kinds are 0..{NUM_KINDS - 1})")
    return ncards, cards


@_jit
def _first_bad_move(ncards, cards):
    # the first row with more cards than a move has or a card kind out of range, else -1
    for i in range(ncards.shape[0]):
        if ncards[i] > MAX_MOVE_CARDS:
            return i
        for j in range(ncards[i]):
            if cards[i, j] >= NUM_KINDS:
                return i
    return -1


def contains_moves(hands, moves) -> np.ndarray:
    """``bool[N]``: whether hand ``i`` holds the cards of move ``i``."""
    hands = hand_batch(hands)
    ncards, cards = _move_fields(moves, hands.shape[0])
    scratch = np.empty_like(hands)
    return _apply_kernel(hands, ncards, cards, scratch)


def apply_moves(hands, moves) -> np.ndarray:
    """Remove move ``i``'s cards from hand ``i``; a new ``uint8[N, 54]`` array.

    Raises ``ValueError`` naming the first row whose hand does not hold its move.
    """
    hands = hand_batch(hands)
    ncards, cards = _move_fields(moves, hands.shape[0])
    out = np.empty_like(hands)
    ok = _apply_kernel(hands, ncards, cards, out)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        cards_text = " ".join(format_cards(cards[row, :ncards[row]].tolist()))
        raise MoveError(f"move of row {row} ({cards_text}) is not in its hand")
    return out
