"""Brute-force best split of a small hand: the obviously correct version of
``guandan_core.analysis.best_split``, for tests only.

The fewest plays of a hand H is 0 when H is empty, else 1 + the minimum, over EVERY legal
combination m of H (the core's leading move list: every (cards, reading) pair), of the
fewest plays of H - m. Nothing is pruned; the only saving is memoization on the
remaining multiset of cards. The legality of a combination is the core's (``moves_array``);
nothing else of the analysis module is used.

The tie-break value is computed the same way, taking at each step the best of
``[m] + best(H - m)`` under the order of :func:`score` (plays, then more bombs, then bigger
bombs, then fewer singles, then a higher lowest single). That is the best split overall
because the order is monotone: adding the same play to two splits never reverses their
order (inserting one number in two equally long descending lists keeps their
lexicographic order; a count that grows by the same amount keeps its order; the minimum
with the same number keeps a non-strict order).

Hands of up to about 12 cards take well under a second. Moves of more than 10 cards
(long sequences) do not exist for the core, whose move record holds 10 cards.
"""

from __future__ import annotations

import numpy as np

from guandan_core import Hand, legal_moves, moves_array
from guandan_core.cards import NUM_KINDS, parse_level

BOMB_TYPE_MIN = 8     # straight flush, bomb, joker bomb
# a core move record holds 10 cards; the core makes no longer sequences (long-sequences
# rules), and both the analysis and this reference keep that limit as a guard
MAX_RECORD_CARDS = 10
SINGLE_TYPE = 1


def score(parts) -> tuple:
    """Order of splits, smaller is better. ``parts`` are (type id, key, kinds) triples."""
    powers = sorted((key for t, key, _ in parts if t >= BOMB_TYPE_MIN), reverse=True)
    singles = [key for t, key, _ in parts if t == SINGLE_TYPE]
    lowest = min(singles) if singles else 10 ** 6
    return (len(parts), -len(powers), tuple(-p for p in powers), len(singles), -lowest)


def reference_best(hand, level, rules=None):
    """(fewest plays, best score, best split as a list of (type id, key, kinds))."""
    counts = (hand if isinstance(hand, Hand) else Hand(hand)).counts.astype(np.uint8)
    lvl = parse_level(level)
    memo: dict = {}

    def best(counts: np.ndarray):
        """(score, split) of the best split of the cards ``counts`` (uint8[54])."""
        ident = counts.tobytes()
        hit = memo.get(ident)
        if hit is not None:
            return hit
        if not counts.any():
            result = (score([]), [])
        else:
            moves = moves_array(counts, lvl, rules=rules)     # every legal move
            moves = moves[moves["ncards"] <= MAX_RECORD_CARDS]
            n = len(moves)
            real = np.arange(10)[None, :] < moves["ncards"][:, None]
            used = np.zeros((n, NUM_KINDS), dtype=np.int64)
            np.add.at(used, (np.nonzero(real)[0], moves["cards"].astype(np.int64)[real]), 1)
            rests = counts.astype(np.int64)[None, :] - used
            assert (rests >= 0).all(), "a move uses cards the hand does not hold"
            rests = rests.astype(np.uint8)
            rest_ids = rests.tobytes()
            types, keys = moves["type"].tolist(), moves["key"].tolist()
            cards, ncards = moves["cards"].tolist(), moves["ncards"].tolist()
            result = None
            for i in range(n):
                sub = memo.get(rest_ids[i * NUM_KINDS:(i + 1) * NUM_KINDS])
                if sub is None:
                    sub = best(rests[i])
                sub_score, sub_split = sub
                if result is not None and sub_score[0] + 1 > result[0][0]:
                    continue        # more plays: cannot be better (saves building it)
                part = (types[i], keys[i], tuple(sorted(cards[i][:ncards[i]])))
                split = [part] + sub_split
                candidate = (score(split), split)
                if result is None or candidate[0] < result[0]:
                    result = candidate
        memo[ident] = result
        return result

    sc, split = best(counts)
    return sc[0], sc, split


def reference_min_plays(hand, level, rules=None) -> int:
    return reference_best(hand, level, rules)[0]


assert NUM_KINDS == 54


def reference_best_lowest_first(hand, level, rules=None):
    """The same result for larger hands, with one safe restriction: at each step only the
    moves that contain the lowest remaining card (by kind index) are tried. Every split
    has exactly one part holding that card, so every split is still reached.

    Unlike the analysis module it works on the real cards (suits included), not on counts
    per rank. Returns (fewest plays, best score).
    """
    counts = (hand if isinstance(hand, Hand) else Hand(hand)).counts.astype(np.uint8)
    lvl = parse_level(level)
    moves = moves_array(counts, lvl, rules=rules)     # every move of the whole hand
    moves = moves[moves["ncards"] <= MAX_RECORD_CARDS]
    n = len(moves)
    real = np.arange(10)[None, :] < moves["ncards"][:, None]
    used = np.zeros((n, NUM_KINDS), dtype=np.int64)
    np.add.at(used, (np.nonzero(real)[0], moves["cards"].astype(np.int64)[real]), 1)
    lowest = np.argmax(used > 0, axis=1)
    by_lowest = {int(k): np.flatnonzero(lowest == k) for k in np.unique(lowest)}
    types, keys = moves["type"].tolist(), moves["key"].tolist()
    memo: dict = {}

    def best(counts: np.ndarray):
        ident = counts.tobytes()
        hit = memo.get(ident)
        if hit is not None:
            return hit
        if not counts.any():
            result = (score([]), [])
        else:
            low = int(np.argmax(counts > 0))
            idx = by_lowest.get(low, np.zeros(0, dtype=np.int64))
            fits = idx[(used[idx] <= counts).all(axis=1)]   # moves of the remaining cards
            result = None
            for i in fits.tolist():
                sub_score, sub_split = best((counts - used[i]).astype(np.uint8))
                if result is not None and sub_score[0] + 1 > result[0][0]:
                    continue
                split = [(types[i], keys[i], ())] + sub_split
                candidate = (score(split), split)
                if result is None or candidate[0] < result[0]:
                    result = candidate
        memo[ident] = result
        return result

    sc, _ = best(counts)
    return sc[0], sc


def part_key(move, wild: int) -> tuple:
    """A part of a split up to the suits of its natural cards: (type, key, ranks of its
    natural cards (a joker its own), number of wild cards ``wild``)."""
    # (SB and HR are both rank 13 by k >> 2: a pair of either in a full house differed)
    naturals = tuple(sorted(k if k >= 52 else k >> 2 for k in move.kinds if k != wild))
    return (move.type_id, move.key, naturals, move.kinds.count(wild))


def reference_smallest_splits(hand, level, rules=None) -> dict:
    """Every split of ``hand`` into the fewest legal combinations, by brute force over the
    core's moves (a part holding the lowest remaining card kind, then the rest), up to the
    suits of natural cards: ``{key: parts}``, one split (a list of :class:`Move`) for each
    key, which is the sorted tuple of its parts' :func:`part_key`. For hands of up to
    about 10 cards."""
    hand = Hand(hand) if not isinstance(hand, Hand) else hand
    level = parse_level(level)
    wild = level * 4 + 1
    memo: dict = {}

    def splits(cards: Hand) -> dict:
        """{sorted part keys: parts} of the splits of ``cards`` with the fewest parts."""
        ident = cards.counts.tobytes()
        if ident in memo:
            return memo[ident]
        if len(cards) == 0:
            return {(): []}
        low = min(cards.counts.nonzero()[0])
        found: dict = {}
        fewest = None
        for move in legal_moves(cards, level, rules=rules):
            if low not in move.kinds:
                continue
            for rest_key, rest in splits(cards - move).items():
                size = len(rest) + 1
                if fewest is not None and size > fewest:
                    continue
                if fewest is None or size < fewest:
                    fewest, found = size, {}
                found.setdefault(tuple(sorted(rest_key + (part_key(move, wild),))), [move] + rest)
        memo[ident] = found
        return found

    return splits(hand)
