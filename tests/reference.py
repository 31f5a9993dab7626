"""A slow, plain reference for RULES.md sections 2 to 5, written only from RULES.md.

It does not import the fast enumerator: only ``guandan_core.cards`` for the card
encoding (kind = rank * 4 + suit, SB = 52, HR = 53) and the platform notation.

A reading is a platform triple ``(type, rank_label, sorted_cards)``:

* ``type`` is one of ``Single Pair Trips ThreeWithTwo Straight ThreePair TwoTrips
  StraightFlush Bomb`` (RULES sec. 4, 7);
* ``rank_label`` is the rank letter that names the combination: the rank for singles,
  pairs, triples and rank bombs, the triple's rank for a full house, the LOWEST rank of a
  sequence with ``A`` for an ace-low one, ``B``/``R`` for joker singles and pairs,
  ``JOKER`` for the joker bomb;
* ``sorted_cards`` is the tuple of the real cards (wilds written as themselves, e.g.
  ``H7``) sorted by kind index, as ``guandan_core.cards.format_cards`` writes them.

Two classifiers are provided:

* :func:`ref_classify` is the obvious one: every assignment of each wild to each of the
  52 non-joker card kinds, then a plain classifier of the resulting concrete cards.
* :func:`_classify_quick` (used by :func:`ref_legal_moves` for speed) tries each wild as
  each of the 13 ranks in a "neutral" suit that never completes a flush, plus, when the
  natural cards are five-card-flush candidates, each wild as each card of that suit.
  Suits matter only for straight flushes (RULES sec. 2, 4), so both give the same
  readings; the self-check tests compare them on many random card sets.

:func:`ref_legal_moves` walks the distinct sub-multisets of a hand (count vectors) with a
prune :func:`_may_grow_into_play` that is closed under taking subsets and true for every
play (also checked by the self-check tests against a walk without the prune).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations_with_replacement, product

try:
    import guandan_core.cards as _cards
except ImportError:  # the package's compiled core is not built: load cards.py on its own
    import importlib.util as _ilu
    import os as _os
    _spec = _ilu.spec_from_file_location(
        "_reference_cards",
        _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "guandan_core",
                      "cards.py"))
    _cards = _ilu.module_from_spec(_spec)
    _spec.loader.exec_module(_cards)

RANKS, format_cards = _cards.RANKS, _cards.format_cards

SB = 52
HR = 53
HEARTS = 1
NEUTRAL = 4  # a suit that is "some suit other than the flush suit" (never makes a flush)

TYPES = ("Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair",
         "TwoTrips", "StraightFlush", "Bomb")
SEQUENCE_TYPES = ("Straight", "ThreePair", "TwoTrips", "StraightFlush")


def _opts(sf_is_bomb=True, sf_wild_any_suit=True, long_sequences=False):
    return (bool(sf_is_bomb), bool(sf_wild_any_suit), bool(long_sequences))


def opts_of_rules(rules) -> dict:
    """The three combination options of a ``guandan_core.Rules`` object as a dict."""
    return {"sf_is_bomb": bool(rules.sf_is_bomb),
            "sf_wild_any_suit": bool(rules.sf_wild_any_suit),
            "long_sequences": bool(rules.long_sequences)}


# ---------------------------------------------------------------------------------------
# Plain classifier of concrete cards (every wild already replaced by what it stands for)
# ---------------------------------------------------------------------------------------

def _joker_label(rank: int) -> str:
    return "B" if rank == 13 else "R"


def _run_label(ranks: list[int]):
    """If the distinct ranks (0..12) form a run of consecutive ranks in sequence order,
    with A counted high (after K) or low (before 2), return the label of the lowest
    rank ("A" for an ace-low run), else None. Sequences never wrap (RULES sec. 2)."""
    ranks = sorted(ranks)
    if len(set(ranks)) != len(ranks):
        return None
    # A high: natural rank order 2..A
    if all(ranks[i + 1] == ranks[i] + 1 for i in range(len(ranks) - 1)):
        return RANKS[ranks[0]]
    # A low: A sits before 2
    if 12 in ranks:
        low = sorted(-1 if r == 12 else r for r in ranks)
        if all(low[i + 1] == low[i] + 1 for i in range(len(low) - 1)):
            return "A"
    return None


def _concrete_readings(cards: tuple, level: int, uses_wild: bool, opts: tuple) -> frozenset:
    """Readings (type, label) of concrete cards.

    ``cards`` is a tuple of ``(rank, suit)``: rank 0..12 with suit 0..3 (or NEUTRAL),
    small joker ``(13, -1)``, big joker ``(14, -1)``.
    ``uses_wild``: at least one of these cards is a wild standing for something
    (matters for the hearts-only straight flush option).

    Suits only matter through "are all the cards of one suit" (straight flushes), so the
    work is done (and cached) on the sorted ranks and that common suit.
    """
    suits = {s for _, s in cards}
    common_suit = suits.pop() if len(suits) == 1 else None
    if common_suit not in (0, 1, 2, 3):
        common_suit = None
    ranks = tuple(sorted(r for r, _ in cards))
    return _readings_of_shape(ranks, common_suit, level, uses_wild, opts)


@lru_cache(maxsize=None)
def _readings_of_shape(all_ranks: tuple, common_suit, level: int, uses_wild: bool,
                       opts: tuple) -> frozenset:
    """Readings of concrete cards given as their sorted ranks (13 = SB, 14 = HR) and the
    one suit they all share (None if they do not share one real suit)."""
    sf_is_bomb, sf_wild_any_suit, long_sequences = opts
    n = len(all_ranks)
    out = set()
    jokers = [r for r in all_ranks if r >= 13]
    ranks = [r for r in all_ranks if r < 13]
    count = Counter(ranks)

    # Single
    if n == 1:
        r = all_ranks[0]
        out.add(("Single", _joker_label(r) if r >= 13 else RANKS[r]))
    # Pair: two of one rank; jokers pair only as SB SB or HR HR
    if n == 2 and all_ranks[0] == all_ranks[1]:
        r = all_ranks[0]
        out.add(("Pair", _joker_label(r) if r >= 13 else RANKS[r]))
    # Trips: three of one rank, never jokers
    if n == 3 and not jokers and len(count) == 1:
        out.add(("Trips", RANKS[ranks[0]]))
    # Joker bomb: exactly SB SB HR HR
    if n == 4 and sorted(jokers) == [13, 13, 14, 14]:
        out.add(("Bomb", "JOKER"))
    # Rank bomb: 4..10 cards of one rank, no jokers
    if 4 <= n <= 10 and not jokers and len(count) == 1:
        out.add(("Bomb", RANKS[ranks[0]]))
    # Full house: a triple plus a pair of a different rank; the pair may be a joker pair
    if n == 5:
        triples = [r for r, c in count.items() if c == 3]
        if len(triples) == 1:
            rest = [r for r in all_ranks if r != triples[0]]
            if len(rest) == 2 and rest[0] == rest[1]:
                out.add(("ThreeWithTwo", RANKS[triples[0]]))
    # Sequences: no jokers
    if not jokers and n >= 4:
        distinct = sorted(count)
        label = _run_label(distinct)
        if label is not None:
            k = len(distinct)
            # straight (one card per rank) and straight flush
            if all(c == 1 for c in count.values()):
                flush_ok = (common_suit is not None and n == 5 and sf_is_bomb
                            and (not uses_wild or sf_wild_any_suit or common_suit == HEARTS))
                if flush_ok:
                    out.add(("StraightFlush", label))
                else:
                    if not long_sequences:
                        if n == 5:
                            out.add(("Straight", label))
                    else:
                        if n >= 5 and level not in distinct:
                            out.add(("Straight", label))
            # tube: consecutive pairs
            if all(c == 2 for c in count.values()):
                if (not long_sequences and k == 3) or (long_sequences and k >= 2):
                    out.add(("ThreePair", label))
            # plate: consecutive triples
            if all(c == 3 for c in count.values()):
                if (not long_sequences and k == 2) or (long_sequences and k >= 2):
                    out.add(("TwoTrips", label))
    return frozenset(out)


def _concrete_of_kind(kind: int):
    if kind == SB:
        return (13, -1)
    if kind == HR:
        return (14, -1)
    return (kind >> 2, kind & 3)


def _triples(readings, kinds) -> set:
    cards = tuple(format_cards(kinds))
    return {(t, label, cards) for t, label in readings}


# ---------------------------------------------------------------------------------------
# The obvious classifier: every wild as every one of the 52 non-joker card kinds
# ---------------------------------------------------------------------------------------

def ref_classify(kinds, level: int, sf_is_bomb=True, sf_wild_any_suit=True,
                 long_sequences=False) -> set:
    """Every reading of exactly these cards (RULES sec. 3, 4) as platform triples."""
    kinds = list(kinds)
    if not kinds:
        return set()
    opts = _opts(sf_is_bomb, sf_wild_any_suit, long_sequences)
    wild = level * 4 + 1
    wilds = [k for k in kinds if k == wild]
    others = [k for k in kinds if k != wild]
    readings = set()
    if not others:
        # only wild cards: read at face value (RULES sec. 3)
        face = tuple(sorted(_concrete_of_kind(k) for k in kinds))
        readings |= _concrete_readings(face, level, False, opts)
    else:
        base = [_concrete_of_kind(k) for k in others]
        for assignment in product(range(52), repeat=len(wilds)):
            concrete = tuple(sorted(base + [_concrete_of_kind(a) for a in assignment]))
            readings |= _concrete_readings(concrete, level, bool(wilds), opts)
    return _triples(readings, kinds)


# ---------------------------------------------------------------------------------------
# The same readings, faster: wild ranks with a neutral suit, plus flush suits when needed
# ---------------------------------------------------------------------------------------

@lru_cache(maxsize=200000)
def _classify_quick_readings(kinds: tuple, level: int, opts: tuple) -> frozenset:
    wild = level * 4 + 1
    nwild = kinds.count(wild)
    others = [k for k in kinds if k != wild]
    if not others:
        face = tuple(sorted(_concrete_of_kind(k) for k in kinds))
        return _concrete_readings(face, level, False, opts)
    base = [_concrete_of_kind(k) for k in others]
    if nwild == 0:
        return _concrete_readings(tuple(sorted(base)), level, False, opts)
    readings = set()
    # the wilds are interchangeable: each multiset of ranks once
    for ranks in combinations_with_replacement(range(13), nwild):
        concrete = tuple(sorted(base + [(r, NEUTRAL) for r in ranks]))
        readings |= _concrete_readings(concrete, level, True, opts)
    # flush candidates: 5 cards whose natural cards are all of one suit, no joker
    suits = {s for _, s in base}
    if len(kinds) == 5 and len(suits) == 1 and -1 not in suits:
        suit = next(iter(suits))
        for ranks in combinations_with_replacement(range(13), nwild):
            concrete = tuple(sorted(base + [(r, suit) for r in ranks]))
            readings |= _concrete_readings(concrete, level, True, opts)
    return frozenset(readings)


def _classify_quick(kinds, level, sf_is_bomb=True, sf_wild_any_suit=True,
                    long_sequences=False) -> set:
    kinds = tuple(sorted(kinds))
    if not kinds:
        return set()
    opts = _opts(sf_is_bomb, sf_wild_any_suit, long_sequences)
    return _triples(_classify_quick_readings(kinds, level, opts), kinds)


# ---------------------------------------------------------------------------------------
# Comparison (RULES sec. 2 and 5)
# ---------------------------------------------------------------------------------------

def card_order(label: str, level: int) -> int:
    """Card order of sec. 2: 2..A without L, then L, then SB, then HR."""
    if label == "B":
        return 14
    if label == "R":
        return 15
    r = RANKS.index(label)
    return 13 if r == level else r


def sequence_position(label: str) -> int:
    """Position of a sequence's lowest rank: A-low is 0, 2 is 1, ..., A (high) is 13."""
    return 0 if label == "A" else RANKS.index(label) + 1


_BOMB_SIZE_TIER = {4: 0, 5: 1, 6: 3, 7: 4, 8: 5, 9: 6, 10: 7}
_SF_TIER = 2
_JOKER_TIER = 8


def is_bomb(triple) -> bool:
    return triple[0] in ("Bomb", "StraightFlush")


def ref_key(triple, level: int):
    """Key of a reading: bombs get ``("bomb", tier, order)`` and compare across sizes;
    other types get ``(type, ncards, order)`` and compare only within type and length."""
    t, label, cards = triple[0], triple[1], tuple(triple[2])
    n = len(cards)
    if t == "Bomb" and label == "JOKER":
        return ("bomb", _JOKER_TIER, 0)
    if t == "Bomb":
        return ("bomb", _BOMB_SIZE_TIER[n], card_order(label, level))
    if t == "StraightFlush":
        return ("bomb", _SF_TIER, sequence_position(label))
    if t in SEQUENCE_TYPES:
        return (t, n, sequence_position(label))
    return (t, n, card_order(label, level))


def ref_beats(a, b, level: int) -> bool:
    """Does reading ``a`` beat reading ``b`` (RULES sec. 5)?"""
    if a is None or b is None or a[0] == "PASS" or b[0] == "PASS":
        return False
    ka, kb = ref_key(a, level), ref_key(b, level)
    if is_bomb(a) and not is_bomb(b):
        return True
    if is_bomb(b) and not is_bomb(a):
        return False
    if is_bomb(a):
        return ka[1:] > kb[1:]
    # non-bombs: same type, same number of cards, strictly higher key
    return ka[0] == kb[0] and ka[1] == kb[1] and ka[2] > kb[2]


# ---------------------------------------------------------------------------------------
# Legal moves
# ---------------------------------------------------------------------------------------

def _fits_window(ranks, width: int) -> bool:
    """Do the distinct ranks fit in ``width`` consecutive sequence positions (A high or
    low)?"""
    high = [r + 1 for r in ranks]
    low = [0 if r == 12 else r + 1 for r in ranks]
    return (max(high) - min(high) < width) or (max(low) - min(low) < width)


def _may_grow_into_play(kinds: list, level: int, long_sequences: bool) -> bool:
    """A test that is true for every play and every sub-multiset of a play, and stays
    false for every super-multiset of a set where it is false (so it can prune a walk
    over sub-multisets). Derived from the table of sec. 4: with the wild cards left out,
    a play with jokers has at most one natural rank; a play with two natural ranks is a
    full house, a plate, a tube or a straight (at most 6 cards, at most 3 of a rank); a
    play with three or more natural ranks is a sequence."""
    n = len(kinds)
    if n > 10:
        return False
    wild = level * 4 + 1
    jokers = [k for k in kinds if k >= 52]
    count = Counter(k >> 2 for k in kinds if k < 52 and k != wild)
    nranks = len(count)
    if jokers:
        if nranks >= 2:
            return False
        if nranks == 1:
            # only a full house mixes jokers and a rank: the jokers are its pair
            if len(set(jokers)) > 1 or len(jokers) > 2 or max(count.values()) > 3:
                return False
    if long_sequences:
        if nranks >= 2 and max(count.values()) > 3:
            return False
        return True
    if nranks == 2:
        if n > 6 or max(count.values()) > 3:
            return False
    if nranks >= 3:
        if n > 6 or max(count.values()) > 2 or not _fits_window(list(count), 5):
            return False
    return True


def _sub_multisets(counts: dict, level: int, long_sequences: bool, prune: bool):
    """Every distinct non-empty sub-multiset (as a sorted list of kinds) of at most 10
    cards; with ``prune``, only those passing :func:`_may_grow_into_play`."""
    items = sorted(counts.items())
    chosen: list[int] = []

    def walk(i):
        if i == len(items):
            if chosen:
                yield list(chosen)
            return
        kind, have = items[i]
        yield from walk(i + 1)  # none of this kind
        added = 0
        for _ in range(have):
            chosen.append(kind)
            added += 1
            if len(chosen) > 10 or (prune and not _may_grow_into_play(chosen, level,
                                                                     long_sequences)):
                break  # and more copies of this kind cannot help either
            yield from walk(i + 1)
        del chosen[len(chosen) - added:]

    yield from walk(0)


def ref_legal_moves(kinds_multiset, level: int, beat=None, prune=True, obvious=False,
                    **opts) -> set:
    """Every distinct (cards, reading) a hand can play (RULES sec. 4), as triples; with
    ``beat`` (a triple) only those that beat it (sec. 5).

    ``prune=False`` walks every sub-multiset of at most 10 cards; ``obvious=True``
    classifies each with :func:`ref_classify` instead of the quick classifier."""
    counts = Counter(kinds_multiset)
    o = _opts(**opts)
    result = set()
    classify_fn = ref_classify if obvious else _classify_quick
    for sub in _sub_multisets(counts, level, o[2], prune):
        result |= classify_fn(sub, level, *o)
    if beat is not None:
        beat = (beat[0], beat[1], tuple(beat[2]))
        result = {m for m in result if ref_beats(m, beat, level)}
    return result
