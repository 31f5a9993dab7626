"""Cards, ranks, suits and levels (RULES.md section 1 and 2).

Every card kind has a fixed index, the layout shared by the Python layer, the Cython
kernels and the numba batch layer:

* suited cards: ``kind = rank * 4 + suit`` with ranks ``2 3 4 5 6 7 8 9 T J Q K A``
  numbered 0 to 12 and suits ``S H C D`` numbered 0 to 3 (so ``S2`` is 0, ``H2`` is 1,
  ``DA`` is 51);
* ``SB`` (small joker) is 52 and ``HR`` (big joker) is 53.

Sorting by kind gives the platform's own card order: by rank, then ``S H C D``, jokers last.

>>> parse_card("H7"), parse_card("10s"), parse_card("7♥"), parse_card("BJ")
(21, 32, 21, 52)
>>> format_card(21), format_card(53)
('H7', 'HR')
>>> parse_level("10")
8
"""

from __future__ import annotations

import numbers
from typing import Iterable

from .usertext import quoted

__all__ = [
    "RANKS", "SUITS", "NUM_KINDS", "SMALL_JOKER", "BIG_JOKER",
    "CardError", "LevelError",
    "parse_card", "format_card", "parse_cards", "format_cards",
    "parse_level", "format_rank", "wild_kind", "card_rank", "card_suit", "is_whole",
]

RANKS = "23456789TJQKA"
SUITS = "SHCD"
NUM_KINDS = 54
SMALL_JOKER = 52
BIG_JOKER = 53

_SUIT_ALIASES = {"S": 0, "H": 1, "C": 2, "D": 3, "♠": 0, "♥": 1, "♣": 2, "♦": 3,
                 "♤": 0, "♡": 1, "♧": 2, "♢": 3}
_JOKER_ALIASES = {"SB": SMALL_JOKER, "BJ": SMALL_JOKER, "HR": BIG_JOKER, "RJ": BIG_JOKER}
# Lowercase means ASCII lowercase: str.upper() would also read the long s "ſ" as "S".
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class CardError(ValueError):
    """A card, a hand or a play that cannot be read or is not possible."""


class LevelError(ValueError):
    """A level that is not a rank from 2 to A."""


def _parse_rank(text: str) -> int:
    if text == "10":
        return 8
    if len(text) == 1:
        index = RANKS.find(text.translate(_ASCII_UPPER))
        if index >= 0:
            return index
    return -1


def parse_card(text: str) -> int:
    """Return the kind index of one card, in any notation of RULES.md section 1.

    Raises :class:`CardError` naming the text for anything that is not a card, blanks
    around it included (a card in a JSON list is the card alone; :func:`parse_cards`
    splits text at the blanks).
    """
    if not isinstance(text, str):
        raise CardError(f"not a card: {quoted(text)}")
    kind = _PLATFORM_KINDS.get(text)
    if kind is not None:        # the platform's own spelling, by far the most common
        return kind
    upper = text.translate(_ASCII_UPPER)
    if upper in _JOKER_ALIASES:
        return _JOKER_ALIASES[upper]
    if len(text) >= 2:
        # suit first (platform: "H7", "S10") or rank first ("7♥", "10s")
        for suit_text, rank_text in ((text[0], text[1:]), (text[-1], text[:-1])):
            suit = _SUIT_ALIASES.get(suit_text.translate(_ASCII_UPPER))
            if suit is None:
                continue
            rank = _parse_rank(rank_text)
            if rank >= 0:
                return rank * 4 + suit
    raise CardError(f"unknown card {quoted(text)}")


def format_card(kind: int) -> str:
    """Platform notation of a card kind: ``H7``, ``ST``, ``SB``, ``HR``."""
    if type(kind) is not int:       # (True was H2 and 52.0 SB)
        if not is_whole(kind, 0, NUM_KINDS - 1):
            raise CardError(f"not a card kind index: {quoted(kind)}")
        kind = int(kind)
    if kind == SMALL_JOKER:
        return "SB"
    if kind == BIG_JOKER:
        return "HR"
    if not 0 <= kind < 52:
        raise CardError(f"not a card kind index: {quoted(kind)}")
    return SUITS[kind & 3] + RANKS[kind >> 2]


# the platform notation of every card (format_card's), read by one lookup, and written by
# one (a Move's cards: 370,000 moves were 4.9 s of format_card calls)
_PLATFORM_KINDS = {format_card(kind): kind for kind in range(54)}
CARD_NAMES = tuple(format_card(kind) for kind in range(54))


def parse_cards(cards: str | Iterable[str]) -> list[int]:
    """Parse a space/comma separated string or an iterable of card strings to kinds.

    >>> parse_cards("S5 h7,10d")
    [12, 21, 35]
    >>> parse_cards("S5,,H7")
    Traceback (most recent call last):
    ...
    guandan_core.cards.CardError: an empty card between commas in 'S5,,H7'
    """
    if isinstance(cards, str):
        pieces = cards.split(",")
        if len(pieces) > 1 and not all(piece.strip() for piece in pieces):
            # ("S3,,S4" may be a card left out; skipping the gap would hide it)
            raise CardError(f"an empty card between commas in {quoted(cards)}")
        tokens = cards.replace(",", " ").split()
    elif isinstance(cards, (bytes, bytearray, dict)) or not _iterable(cards):
        # bytes would be read as numbers, a dict as its keys
        raise TypeError(f"cards are text or card strings, not {quoted(cards)}")
    else:
        tokens = list(cards)
    return [parse_card(token) for token in tokens]


def format_cards(kinds: Iterable[int]) -> list[str]:
    """Platform notation of card kinds, sorted in the platform's card order."""
    if isinstance(kinds, (str, bytes, bytearray, dict)) or not _iterable(kinds):
        # (text would be formatted letter by letter, and its first letter blamed)
        raise TypeError(f"card kinds are an iterable of ints, not {quoted(kinds)}")
    # (each formatted before sorting: a None or a string among them was "'<' not
    # supported between instances", naming neither)
    named = [(format_card(kind), kind) for kind in kinds]
    return [name for name, _ in sorted(named, key=lambda pair: pair[1])]


def _iterable(values) -> bool:
    # (a 0-d numpy array has __iter__, and iterating it raises)
    return hasattr(values, "__iter__") and getattr(values, "ndim", 1) != 0


def is_whole(value, low: int, high: int | None = None) -> bool:
    """Whether ``value`` is a whole number (a Python or numpy int, not True/False) from
    ``low`` to ``high`` (no upper bound when None): the check of every seat, count and
    index the engine is given (``int()`` would read 2.7 and ``"2"`` as 2).

    >>> is_whole(3, 0, 3), is_whole(True, 0, 3), is_whole(2.0, 0, 3), is_whole(9, 0)
    (True, False, False, True)
    """
    if type(value) is not int and (isinstance(value, bool)
                                   or not isinstance(value, numbers.Integral)):
        return False            # (a plain int skips the slower abstract-class test)
    return low <= value and (high is None or value <= high)


def parse_level(level: str | int) -> int:
    """Return a level as a rank index 0..12 (``"2"`` is 0, ``"A"`` is 12).

    An ``int`` is taken as the rank index itself.

    >>> parse_level("A"), parse_level("t"), parse_level(3)
    (12, 8, 3)
    """
    if isinstance(level, bool):
        raise LevelError(f"level must be a rank from 2 to A, not {quoted(level)}")
    if isinstance(level, int) or isinstance(level, numbers.Integral):   # numpy ints too
        if 0 <= level <= 12:
            return int(level)
        raise LevelError(f"level index must be 0..12, not {quoted(level)}")
    if isinstance(level, str):
        rank = _parse_rank(level)
        if rank >= 0:
            return rank
    raise LevelError(f"level must be a rank from 2 to A, not {quoted(level)}")


def format_rank(rank: int) -> str:
    """Rank letter of a rank index: 0 is ``"2"``, 8 is ``"T"``, 12 is ``"A"``."""
    if not is_whole(rank, 0, 12):       # (-1 read the last rank, True the second)
        raise LevelError(f"a rank index is a whole number 0..12, not {quoted(rank)}")
    return RANKS[rank]


def wild_kind(level: int) -> int:
    """Kind index of the wild card at a level: the heart of the level rank."""
    if not is_whole(level, 0, 12):      # (13 gave the big joker)
        raise LevelError(f"level index must be 0..12, not {quoted(level)}")
    return level * 4 + 1


def card_rank(kind: int) -> int:
    """Rank index of a suited card (13 for the small joker, 14 for the big joker)."""
    if not is_whole(kind, 0, NUM_KINDS - 1):
        raise CardError(f"not a card kind index: {quoted(kind)}")
    kind = int(kind)            # (numpy's integer in, a Python int out, as annotated)
    return kind >> 2 if kind < 52 else kind - 39


def card_suit(kind: int) -> int:
    """Suit index of a suited card, -1 for a joker."""
    if not is_whole(kind, 0, NUM_KINDS - 1):
        raise CardError(f"not a card kind index: {quoted(kind)}")
    return int(kind) & 3 if kind < 52 else -1
