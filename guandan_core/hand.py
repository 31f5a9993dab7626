"""A hand: a multiset of cards stored as 54 counts (RULES.md section 1).

>>> h = Hand("S5 H7 h7 SB 10d")
>>> str(h), len(h)
('S5 H7 H7 DT SB', 5)
>>> h.counts[21]
np.uint8(2)
>>> str(h - "H7 SB")
'S5 H7 DT'
>>> "S5 DT" in h, "S5 S5" in h
(True, False)
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .cards import (NUM_KINDS, CardError, format_card, format_cards, parse_cards)

__all__ = ["Hand", "to_counts", "player_hand", "MAX_HAND"]

MAX_HAND = 27            # a Guandan hand holds at most 27 cards (RULES.md section 1)


def to_counts(cards, what: str = "hand") -> np.ndarray:
    """Counts array (uint8[54]) of cards given as text, card strings, kinds, a Hand or a Move.

    Raises :class:`CardError` for an unknown card or a card kind more than twice.
    """
    if isinstance(cards, Hand):
        return cards._counts.copy()
    kinds_attr = getattr(cards, "kinds", None)
    if kinds_attr is not None:  # a Move
        cards = kinds_attr
    if isinstance(cards, np.ndarray) and cards.shape == (NUM_KINDS,):
        if cards.dtype.kind not in "iuf" or (cards.dtype.kind == "f"
                                             and not np.all(np.isfinite(cards) & (cards % 1 == 0))):
            raise CardError(f"{what}: card counts must be whole numbers, not {cards!r}")
        counts = cards.astype(np.int64)
        if counts.min() < 0 or counts.max() > 2:
            bad = int(np.flatnonzero((counts < 0) | (counts > 2))[0])
            raise CardError(f"{what} holds {format_card(bad)} {int(counts[bad])} times "
                            "(each card exists twice)")
        return counts.astype(np.uint8)
    if isinstance(cards, str):
        kinds = parse_cards(cards)
    else:
        try:
            if isinstance(cards, (bytes, bytearray, dict)):
                raise TypeError     # bytes would be read as kind indices, a dict as its keys
            items = list(cards)
        except TypeError:
            raise TypeError(f"{what}: cards are text, card strings, card kinds, a Hand or a "
                            f"Move, not {cards!r}") from None
        if items and all(isinstance(x, (int, np.integer)) for x in items):
            if any(isinstance(x, bool) for x in items):
                raise CardError(f"{what}: True/False is not a card: {items!r}")
            kinds = [int(x) for x in items]
            for k in kinds:
                if not 0 <= k < NUM_KINDS:
                    raise CardError(f"not a card kind index: {k!r}")
        else:
            kinds = parse_cards(items)
    counts = np.zeros(NUM_KINDS, dtype=np.uint8)
    for k in kinds:
        if counts[k] == 2:
            raise CardError(f"{what} holds {format_card(k)} more than twice "
                            "(each card exists twice)")
        counts[k] += 1
    return counts


class Hand:
    """An immutable multiset of cards over a documented ``uint8[54]`` count array.

    Entry ``k`` counts card kind ``k`` (see :mod:`guandan_core.cards`): 0, 1 or 2.
    ``hand.counts`` is a read-only numpy view, no copy.
    """

    __slots__ = ("_counts",)

    def __init__(self, cards: str | Iterable = ()):
        counts = to_counts(cards)
        counts.flags.writeable = False
        self._counts = counts

    @classmethod
    def from_counts(cls, counts) -> "Hand":
        """A Hand from 54 counts (0, 1 or 2 each, in card kind order)."""
        array = np.asarray(counts)
        if array.shape != (NUM_KINDS,):
            raise CardError(f"counts must be {NUM_KINDS} numbers (one per card kind), not "
                            f"{counts!r}")
        return cls(array)

    @property
    def counts(self) -> np.ndarray:
        return self._counts

    @property
    def rank_counts(self) -> np.ndarray:
        """Cards per rank: entries 0..12 for ranks 2..A, 13 small jokers, 14 big jokers."""
        out = np.empty(15, dtype=np.int64)
        out[:13] = self._counts[:52].reshape(13, 4).sum(axis=1)
        out[13] = self._counts[52]
        out[14] = self._counts[53]
        return out

    @property
    def suit_masks(self) -> tuple[int, int, int, int]:
        """Per suit S H C D, a 13-bit mask with bit r set when the suit holds rank r."""
        present = self._counts[:52].reshape(13, 4) > 0
        weights = 1 << np.arange(13, dtype=np.int64)
        return tuple(int(x) for x in (present * weights[:, None]).sum(axis=0))

    def kinds(self) -> list[int]:
        return [int(k) for k in np.repeat(np.arange(NUM_KINDS), self._counts)]

    def cards(self) -> list[str]:
        return format_cards(self.kinds())

    def __len__(self) -> int:
        return int(self._counts.sum())

    def __iter__(self):
        return iter(self.cards())

    def __str__(self) -> str:
        return " ".join(self.cards())

    def __repr__(self) -> str:
        return f"Hand({str(self)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Hand) and bool(np.array_equal(self._counts, other._counts))

    def __hash__(self) -> int:
        return hash(self._counts.tobytes())

    def __reduce__(self):
        return (Hand.from_counts, (self._counts.copy(),))

    def __contains__(self, cards) -> bool:
        try:
            other = to_counts(cards, "play")
        except CardError:
            return False
        return bool(np.all(other <= self._counts))

    def __add__(self, other) -> "Hand":
        total = self._counts.astype(np.int64) + to_counts(other, "play")
        return Hand.from_counts(total)

    def __sub__(self, other) -> "Hand":
        take = to_counts(other, "play")
        if not np.all(take <= self._counts):
            missing = [format_card(int(k)) for k in np.flatnonzero(take > self._counts)]
            raise CardError(f"cards not in the hand: {' '.join(missing)} (hand: {self})")
        return Hand.from_counts(self._counts - take)


def player_hand(cards, what: str = "the hand") -> "Hand":
    """The hand of one player, read like :class:`Hand`: 1 to 27 cards, or ValueError.

    >>> len(player_hand("S3 S3 HR"))
    3
    >>> player_hand(" ")
    Traceback (most recent call last):
    ...
    guandan_core.cards.CardError: the hand is empty (' ')
    """
    hand = Hand(cards)
    if len(hand) == 0:
        raise CardError(f"{what} is empty ({cards!r})" if isinstance(cards, str)
                        else f"{what} is empty")
    if len(hand) > MAX_HAND:
        raise CardError(f"{what} holds {len(hand)} cards; a hand holds at most {MAX_HAND}")
    return hand
