"""A hand: a multiset of cards stored as 54 counts (RULES.md section 1).

>>> h = Hand("S5 H7 h7 SB 10d")
>>> str(h), len(h)
('S5 H7 H7 DT SB', 5)
>>> int(h.counts[21])
2
>>> str(h - "H7 SB")
'S5 H7 DT'
>>> "S5 DT" in h, "S5 S5" in h
(True, False)
"""

from __future__ import annotations

import numbers
from typing import Iterable

import numpy as np

from .usertext import quoted
from .cards import (CARD_NAMES, NUM_KINDS, CardError, LevelError, format_card, is_whole,
                    parse_cards, parse_level)

__all__ = ["Hand", "to_counts", "player_hand", "MAX_HAND", "hand_batch", "level_batch"]

MAX_HAND = 27            # a Guandan hand holds at most 27 cards (RULES.md section 1)


def hand_batch(hands) -> np.ndarray:
    """Many hands as one C-contiguous ``uint8[N, 54]`` count array (the batch entry
    points' input), each count 0, 1 or 2 (RULES sec. 1); a CardError naming the first
    row and card that are not, rather than a silent wrap to uint8."""
    _no_bools(hands, "hands")
    try:
        array = np.asarray(hands)
    except ValueError as exc:       # (rows of different lengths)
        raise CardError(f"hands must be an (N, {NUM_KINDS}) array of card counts: "
                        f"{exc}") from None
    if array.ndim == 0:     # (None, text, a dict, a set: no array at all)
        raise CardError(f"hands must be an (N, {NUM_KINDS}) array of card counts, not "
                        f"{quoted(hands)}")
    if array.ndim != 2 or array.shape[1] != NUM_KINDS:
        raise CardError(f"hands must have shape (N, {NUM_KINDS}), not {array.shape}")
    _check_counts(array, "hands", lambda at: f"hand at row {at[0]}")
    return np.ascontiguousarray(array, dtype=np.uint8)


def _more_than_twice(message: str) -> CardError:
    """The CardError of cards holding a kind more than twice: no hand holds them, so
    ``in`` answers False for them where it raises for anything else."""
    error = CardError(message)
    error.more_than_twice = True
    return error


def _check_counts(array: np.ndarray, name: str, holder) -> None:
    """A CardError unless every entry of ``array`` (last axis: card kinds) is a whole count
    of 0, 1 or 2 (RULES sec. 1). ``holder(index)`` names the hand at an index of the other
    axes, so one check serves a single hand and a batch."""
    if array.dtype == np.uint8:
        bad = array > 2
    elif array.dtype.kind == "O":
        # (a list holding an int too large for int64 becomes an object array)
        bad = np.vectorize(lambda x: not is_whole(x, 0, 2), otypes=[bool])(array)
    elif array.dtype.kind not in "iuf":
        raise CardError(f"{name}: card counts must be whole numbers, not {array.dtype} values")
    else:
        if array.dtype.kind == "f":
            with np.errstate(invalid="ignore"):         # inf % 1 is NaN, found just below
                broken = ~(np.isfinite(array) & (array % 1 == 0))
            if broken.any():
                *at, kind = np.argwhere(broken)[0]
                raise CardError(f"{holder(tuple(at))} holds {format_card(int(kind))} "
                                f"{quoted(array[tuple(at) + (kind,)].item())} times "
                                "(counts are whole numbers)")
        bad = (array > 2) | (array < 0)
    if bad.any():
        *at, kind = np.argwhere(bad)[0]
        count = array[tuple(at) + (kind,)]
        count = count.item() if isinstance(count, np.generic) else count
        # (an object array's entry may be out of range or no whole number at all; a float
        # array's are whole, the others were refused above)
        whole = array.dtype.kind == "f" or isinstance(count, numbers.Integral) \
            and not isinstance(count, bool)
        if whole:
            why = "each card exists twice"
        elif isinstance(count, (float, np.floating)) and float(count).is_integer():
            why = "an object array's counts are ints"       # (a float array's may be 1.0)
        else:
            why = "counts are whole numbers"
        message = f"{holder(tuple(at))} holds {format_card(int(kind))} {count!r} times ({why})"
        raise _more_than_twice(message) if whole and count > 2 else CardError(message)


def level_batch(levels, n: int) -> np.ndarray:
    """One level per hand (or one for all ``n``) as ``int32[n]`` rank indices: ints 0..12
    or level text (``"7"``, ``"A"``) as :func:`~guandan_core.cards.parse_level` reads
    them; a LevelError naming anything else."""
    if isinstance(levels, (list, tuple)):      # items read one by one: ["7", 0] is mixed
        array = np.empty(len(levels), dtype=object)
        array[:] = levels
    else:
        array = np.asarray(levels)
    if array.ndim > 1 or (array.ndim == 1 and array.shape[0] != n):
        raise LevelError(f"levels: one level or {n} (one per hand), not an array of shape "
                         f"{array.shape}")
    if array.dtype.kind in "iu":
        if array.size and (array.min() < 0 or array.max() > 12):
            bad = array.flat[int(np.flatnonzero((array < 0) | (array > 12))[0])].item()
            raise LevelError(f"levels: {quoted(bad)} is not a level (rank index 0..12)")
        parsed = array.astype(np.int32)
    else:       # level text, or anything else for parse_level to name
        try:
            parsed = np.array([parse_level(x.item() if isinstance(x, np.generic) else x)
                               for x in array.reshape(-1)], dtype=np.int32)
        except LevelError as exc:
            raise LevelError(f"levels: {exc}") from None
        parsed = parsed.reshape(array.shape)
    return np.array(np.broadcast_to(parsed, (n,)), dtype=np.int32)     # a writable copy


def to_counts(cards, what: str = "hand") -> np.ndarray:
    """Counts array (uint8[54]) of cards given as text, card strings, kinds, a Hand or a Move.

    Raises :class:`CardError` for an unknown card or a card kind more than twice.
    """
    if isinstance(cards, Hand):
        return cards._counts.copy()
    kinds_attr = getattr(cards, "kinds", None)
    if kinds_attr is not None:  # a Move
        cards = kinds_attr
    if isinstance(cards, np.ndarray) and cards.shape == (NUM_KINDS,) \
            and not _holds_text(cards):
        try:
            _check_counts(cards, what, lambda at: what)
        except CardError as exc:    # (54 card kinds in an array were meant as cards?)
            exc.args = (f"{exc}; a numpy array of {NUM_KINDS} numbers is read as counts, "
                        f"card kinds go in a list",)
            raise
        return cards.astype(np.uint8)
    if isinstance(cards, np.ndarray) and cards.ndim > 1:
        # (its rows would be read as cards, each named "not a card" in full)
        raise CardError(f"{what}: a hand is one array, of {NUM_KINDS} counts or of card "
                        f"kinds, not an array of shape {cards.shape} (many hands at once: "
                        f"moves_array_batch, guandan_core.batch)")
    hint = ""      # how numbers were read, when their author may have meant counts
    if isinstance(cards, str):
        kinds = parse_cards(cards)
    else:
        try:
            if isinstance(cards, (bytes, bytearray, memoryview, dict)):
                raise TypeError     # bytes would be read as kind indices, a dict as its keys
            items = list(cards)
        except TypeError:
            raise TypeError(f"{what}: cards are text, card strings, card kinds, a Hand or a "
                            f"Move, not {quoted(cards)}") from None
        if items and all(isinstance(x, (int, np.integer)) for x in items):
            if any(isinstance(x, bool) for x in items):
                raise CardError(f"{what}: True/False is not a card: {quoted(items)}")
            kinds = [int(x) for x in items]
            for k in kinds:
                if not 0 <= k < NUM_KINDS:
                    raise CardError(f"not a card kind index: {quoted(k)}")
            if isinstance(cards, np.ndarray):   # (of another length than 54)
                hint = (f"; an array of shape {cards.shape} is read as card kinds, only one "
                        f"of {NUM_KINDS} entries as counts")
            elif len(kinds) == NUM_KINDS:
                hint = (f"; a list of {NUM_KINDS} numbers is read as card kinds, counts go "
                        f"in a numpy array or Hand.from_counts")
        else:
            kinds = parse_cards(items)
    counts = bytearray(NUM_KINDS)       # (counted in bytes: a numpy item costs 5 times that)
    for k in kinds:
        if counts[k] == 2:
            raise _more_than_twice(f"{what} holds {format_card(k)} more than twice "
                                   f"(each card exists twice{hint})")
        counts[k] += 1
    return np.frombuffer(counts, dtype=np.uint8).copy()


def _holds_text(array: np.ndarray) -> bool:
    # 54 card strings are cards, not counts (only numbers are counts)
    return array.dtype.kind in "US" or (
        array.dtype.kind == "O" and any(isinstance(x, str) for x in array))


_BOOLS = (bool, np.bool_)      # (numpy's True became a 1 as Python's did)


def _no_bools(counts, name: str) -> None:
    """A CardError for a True/False among counts given as (nested) lists: numpy would
    make it a 1 in an int array, where it can no longer be told apart (a row that is a
    bool array too: alone it is refused by its dtype, but among int rows it became 1s)."""
    if isinstance(counts, (list, tuple)):
        for row in counts:
            if isinstance(row, (list, tuple)):
                if any(_is_bool(x) for x in row):
                    raise CardError(f"{name}: True/False is not a card count")
            elif _is_bool(row):
                raise CardError(f"{name}: True/False is not a card count")


def _is_bool(x) -> bool:
    """A True/False: Python's, numpy's, or a numpy array of them (0-d too)."""
    return type(x) in _BOOLS or (isinstance(x, np.ndarray) and x.dtype.kind == "b")


_KINDS = np.arange(NUM_KINDS)
_NAMES = np.array(CARD_NAMES, dtype=object)
_KINDS.flags.writeable = _NAMES.flags.writeable = False


def card_names(counts: np.ndarray) -> list[str]:
    """The platform names of the cards of 54 counts (a uint8 array the caller has checked),
    in the order :func:`~guandan_core.cards.format_cards` sorts them, the kinds' order: each
    name repeated by its count, a tenth of the time of formatting each card.

    >>> card_names(Hand("HR S2 S2 D3")._counts)
    ['S2', 'S2', 'D3', 'HR']
    """
    return _NAMES.repeat(counts).tolist()


class Hand:
    """An immutable multiset of cards over a documented ``uint8[54]`` count array.

    Entry ``k`` counts card kind ``k`` (see :mod:`guandan_core.cards`): 0, 1 or 2.
    ``hand.counts`` is a read-only numpy view, no copy.
    """

    __slots__ = ("_counts",)

    def __init__(self, cards: str | Iterable = ()):
        # over immutable bytes: no array reached from a hand (a view's base included) can
        # be made writeable again, so a hand never changes under its hash
        self._counts = np.frombuffer(to_counts(cards).tobytes(), dtype=np.uint8)

    @classmethod
    def from_counts(cls, counts) -> "Hand":
        """A Hand from 54 counts (0, 1 or 2 each, in card kind order)."""
        _no_bools(counts, "counts")
        try:
            array = np.asarray(counts)
        except ValueError:      # (a ragged list: numpy's "inhomogeneous shape")
            array = None
        if array is None or array.shape != (NUM_KINDS,) or _holds_text(array):
            raise CardError(f"counts must be {NUM_KINDS} numbers (one per card kind), not "
                            f"{quoted(counts)}")
        # (checked here: to_counts' hint that such an array is read as counts, not cards,
        # is no news to a caller who gave counts; and made here, not checked again)
        _check_counts(array, "counts", lambda at: "hand")
        hand = cls.__new__(cls)
        hand._counts = np.frombuffer(array.astype(np.uint8).tobytes(), dtype=np.uint8)
        return hand

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
        return _KINDS.repeat(self._counts).tolist()

    def cards(self) -> list[str]:
        return card_names(self._counts)

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
            other = to_counts(cards, "the cards looked for")
        except CardError as exc:    # (an unknown card is an error, not "not held")
            if getattr(exc, "more_than_twice", False):
                return False
            raise
        return bool(np.all(other <= self._counts))

    def __add__(self, other) -> "Hand":
        total = self._counts.astype(np.int64) + to_counts(other, "the cards added")
        over = np.flatnonzero(total > 2)
        if over.size:       # (from_counts would add advice on numpy arrays of counts)
            kind = int(over[0])
            raise CardError(f"the hand and the cards added together hold {format_card(kind)} "
                            f"{int(total[kind])} times (each card exists twice)")
        return Hand.from_counts(total)

    def __sub__(self, other) -> "Hand":
        take = to_counts(other, "the cards taken")
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
        raise CardError(f"{what} is empty ({quoted(cards)})" if isinstance(cards, str)
                        else f"{what} is empty")
    if len(hand) > MAX_HAND:
        raise CardError(f"{what} holds {len(hand)} cards; a hand holds at most {MAX_HAND}")
    return hand
