"""A match of Guandan: hands in a row, team levels, tribute (RULES.md sections 8 and 9).

>>> from guandan_core.players import GreedyPlayer
>>> m = Match([GreedyPlayer() for _ in range(4)], MatchRules.standard(), seed=1)
>>> r = m.play_hand()
>>> r.number, r.level, len(r.order)
(1, '2', 4)

Choices this module makes where RULES.md leaves a player's choice open (all
deterministic, so a seed fixes a whole match):

* Tribute card: the payer's highest card in the card order of the new hand's level
  (sec. 2), never a wild card; among cards of that rank the first in the platform's suit
  order ``S H C D``, unless the payer's player has a method ``choose_tribute(observation,
  allowed_cards)``, which picks one of them (``allowed_cards``: the platform strings of
  the payer's highest cards that are not wild, in suit order; the observation is the
  payer's, with no legal moves); an answer that is not one of them raises
  :class:`IllegalMoveError`.
* Returned card: a player object with a method ``choose_return(observation,
  allowed_cards)`` picks it (``allowed_cards``: the platform strings of the distinct cards
  it may return, lowest first; the observation is the receiver's, holding the tribute,
  with no legal moves); an answer that is not one of them raises
  :class:`IllegalMoveError`. A player without that method (a plain function,
  :class:`~guandan_core.players.GreedyPlayer`) returns its lowest allowed card: the lowest
  (card order, then suit order) of rank 10 or lower that is not a level card; with none,
  its lowest card.
* First hand of a match (sec. 8, 9 option ``first_leader``): with ``"random"`` a seat
  drawn from the seeded generator leads; with a card, the seat holding that card leads,
  and when two seats hold its two copies, the first of them in seat order 0..3.
* Winning the game and failing at A (sec. 8, 9): a team "plays at its own level" when
  the hand is played at A and the team's level is A. Such a team wins the game when it
  wins the hand with the partner finishing as the ``win_at_a`` option allows; any other
  result (a loss, or a win with the partner too far back) is a failed hand at A. With
  ``fail_at_a = n`` (n is 2 or 3) the team drops back to 2 after n failed hands at A. Failed
  hands add up until that drop or a new match, for both teams, the hand that ends a
  match included: the losing team's level in that hand's result may show its drop to 2.
* The next hand is played at the level of the hand's winners after their gain, the cap
  at A and any drop (a winning team that drops plays the next hand at 2).
* After a team wins the game the next hand starts a new match: both teams back to 2,
  no tribute, and a first leader chosen as for the first hand (``first_leader``).
"""

from __future__ import annotations

import random
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, fields, replace
from typing import Callable, Optional

import numpy as np

from .cards import (BIG_JOKER, NUM_KINDS, CardError, format_card, format_cards, format_rank,
                    is_whole, parse_card, parse_level)
from .hand import Hand, _check_counts, _no_bools, to_counts
from .jsontext import parse_json
from .moves import Move, MoveError
from .position import (IllegalMoveError, MoveList, Position, _is_sequence,
                       check_finishing_order, finishing_outcome)
from .rules import PRESET_NAMES, Rules, RulesError
from .usertext import check_callback, quoted, quoted_read

__all__ = ["MatchRules", "Match", "Observation", "HandResult", "TributePlan",
           "IllegalMoveError", "card_order", "tribute_card", "return_card",
           "plan_tribute", "apply_tribute", "is_valid_tribute", "is_valid_return",
           "allowed_returns", "allowed_tributes",
           "settle_hand", "deal", "ACE"]

ACE = 12
WIN_AT_A = ("2nd-or-3rd", "2nd-only", "any")
LEAD_AFTER_TRIBUTE = ("payer", "first")


@dataclass(frozen=True)
class MatchRules:
    """The match options of RULES.md sec. 9, with the combination options in ``core``.

    * ``win_at_a``: ``"2nd-or-3rd"`` (standard), ``"2nd-only"`` (platform) or ``"any"``;
    * ``fail_at_a``: 0 (no penalty), or 2 or 3: drop to 2 after that many failed hands at A;
    * ``tribute``: tribute is paid from the second hand of a match on;
    * ``tribute_first_last``: after a 1st-and-4th finish the winner's partner pays;
    * ``lead_after_tribute``: ``"payer"`` or ``"first"`` (first player of the last hand);
    * ``first_leader``: who leads the first hand of a match: ``"random"`` (standard) or an
      agreed card (any card notation, stored in platform notation such as ``"H2"``): its
      holder leads, the first in seat order 0..3 when two seats hold its two copies.
    """

    core: Rules = field(default_factory=Rules.standard)
    win_at_a: str = "2nd-or-3rd"
    fail_at_a: int = 0
    tribute: bool = True
    tribute_first_last: bool = True
    lead_after_tribute: str = "payer"
    first_leader: str = "random"

    def __post_init__(self):
        if not isinstance(self.core, Rules):
            raise RulesError(f"core must be a Rules, not {quoted(self.core)}")
        # (text first: a numpy array compared element by element, and its truth was the error)
        if not isinstance(self.win_at_a, str) or self.win_at_a not in WIN_AT_A:
            raise RulesError(f"win_at_a must be one of {', '.join(WIN_AT_A)}, "
                             f"not {quoted(self.win_at_a)}")
        if not is_whole(self.fail_at_a, 0, 3) or self.fail_at_a == 1:
            # (2.0 was taken and written to logs as 2.0, numpy's 2 could not be written)
            raise RulesError(f"fail_at_a must be 0, 2 or 3, not {quoted(self.fail_at_a)}")
        object.__setattr__(self, "fail_at_a", int(self.fail_at_a))
        for name in ("tribute", "tribute_first_last"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be True or False, not {quoted(getattr(self, name))}")
        if not isinstance(self.lead_after_tribute, str) or \
                self.lead_after_tribute not in LEAD_AFTER_TRIBUTE:
            raise RulesError(f"lead_after_tribute must be payer or first, "
                             f"not {quoted(self.lead_after_tribute)}")
        if not isinstance(self.first_leader, str) or self.first_leader != "random":
            try:
                kind = parse_card(self.first_leader)
            except CardError:
                raise RulesError(f"first_leader must be random or a card such as H2, "
                                 f"not {quoted(self.first_leader)}") from None
            object.__setattr__(self, "first_leader", format_card(kind))

    @property
    def first_leader_card(self) -> Optional[int]:
        """The card kind whose holder leads a first hand, or None for a random seat."""
        return None if self.first_leader == "random" else parse_card(self.first_leader)

    def agreed_first_leader(self, hands) -> Optional[int]:
        """The seat that leads a first hand dealt ``hands`` (four count arrays): the first
        in seat order holding the agreed card; None when the first leader is random."""
        card = self.first_leader_card
        if card is None:
            return None
        hands = _checked_hands(hands)
        for seat in range(4):
            if hands[seat][card]:
                return seat
        raise ValueError(f"no seat holds {self.first_leader}, whose holder leads a first "
                         f"hand")

    @classmethod
    def standard(cls) -> "MatchRules":
        """Tournament rules (RULES.md sec. 9, column ``standard``)."""
        return cls()

    @classmethod
    def platform(cls) -> "MatchRules":
        """The AI competition platform: win at A with the partner 2nd only, drop to 2
        after 2 failed hands at A, wild straight flushes in hearts only."""
        return cls(core=Rules.platform(), win_at_a="2nd-only", fail_at_a=2)

    @classmethod
    def by_name(cls, name: str) -> "MatchRules":
        """A preset by the name of a combination preset (:data:`~guandan_core.rules.PRESET_NAMES`):
        ``platform`` is :meth:`platform`, match options included; the others are the
        standard match options over that combination preset.

        >>> MatchRules.by_name("long-sequences").core == Rules.by_name("long-sequences")
        True
        """
        if isinstance(name, str) and name == "platform":
            return cls.platform()
        try:
            return cls(core=Rules.by_name(name))
        except RulesError:
            raise RulesError(f"unknown match rules {quoted(name)} "
                             f"(known: {', '.join(PRESET_NAMES)})") from None

    @classmethod
    def of(cls, rules) -> "MatchRules":
        """What every match ``rules=`` argument takes: None (standard), a MatchRules or a
        preset name. A combination :class:`Rules` alone is refused, since it does not say
        which match options go with it.

        >>> MatchRules.of("platform") == MatchRules.platform()
        True
        >>> MatchRules.of(Rules.platform())
        Traceback (most recent call last):
        ...
        TypeError: match rules must be a MatchRules, a preset name (standard, platform, no-sf-bomb, long-sequences) or None, not Rules(sf_is_bomb=True, sf_wild_any_suit=False, long_sequences=False) (for other combination rules: MatchRules(core=...))
        """
        if rules is None:
            return cls.standard()
        if isinstance(rules, cls):
            return rules
        if isinstance(rules, str):
            return cls.by_name(rules)
        hint = " (for other combination rules: MatchRules(core=...))" \
            if isinstance(rules, Rules) else ""
        raise TypeError(f"match rules must be a MatchRules, a preset name "
                        f"({', '.join(PRESET_NAMES)}) or None, not {quoted(rules)}{hint}")

    def to_json(self) -> dict:
        """Every option as a JSON object (the ``rules`` event of a game log); read back
        with :meth:`from_json`.

        >>> MatchRules.from_json(MatchRules.platform().to_json()) == MatchRules.platform()
        True
        """
        obj = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "core"}
        obj["core"] = {f.name: getattr(self.core, f.name) for f in fields(self.core)}
        return obj

    @classmethod
    def from_json(cls, obj) -> "MatchRules":
        """The options written by :meth:`to_json`, as a dict or JSON text (as
        :meth:`Position.from_json` takes them); a :class:`RulesError` naming an option that
        is missing, unknown or of the wrong value. Extra keys ``event`` (a log's) are
        ignored."""
        if isinstance(obj, (str, bytes, bytearray)):
            try:
                obj = parse_json(obj)
            except ValueError as exc:
                raise RulesError(f"match rules: {exc}") from None
        if not isinstance(obj, dict):
            raise RulesError(f"match rules must be a JSON object, not {quoted_read(obj)}")
        names = {f.name for f in fields(cls)}
        given = set(obj) - {"event"}
        if given != names:
            # unknown keys quoted ("tribute " is not "tribute"), sorted whatever their type
            missing, unknown = sorted(names - given), sorted(map(quoted, given - names))
            raise RulesError("match rules: " + "; ".join(
                part for part in (f"missing {', '.join(missing)}" if missing else "",
                                  f"unknown {', '.join(unknown)}" if unknown else "")
                if part))
        core = obj["core"]
        core_names = {f.name for f in fields(Rules)}
        if not isinstance(core, dict) or set(core) != core_names:
            raise RulesError(f"match rules: core must hold {', '.join(sorted(core_names))}, "
                             f"not {quoted(core)}")
        for name, value in core.items():
            if not isinstance(value, bool):
                raise RulesError(f"match rules: core {name} must be true or false, "
                                 f"not {quoted(value)}")
        return cls(core=Rules(**core), **{n: obj[n] for n in names - {"core"}})

    def replace(self, **changes) -> "MatchRules":
        return replace(self, **changes)


# ---------------------------------------------------------------------- cards

def card_order(kind: int, level: int) -> int:
    """Position of a card in the order of RULES sec. 2 at ``level`` (higher is stronger):
    ranks without the level 0..11, the level rank 12, small joker 13, big joker 14."""
    if kind >= 52:
        return kind - 39
    rank = kind >> 2
    if rank == level:
        return 12
    return rank if rank < level else rank - 1


def _kinds(counts) -> list:
    return [k for k in range(54) for _ in range(int(counts[k]))]


def _checked_counts(counts, what: str) -> np.ndarray:
    """A hand given to this module as 54 card counts (0, 1 or 2 each), as uint8; a
    CardError naming anything else."""
    if isinstance(counts, Hand):
        return counts.counts
    _no_bools(counts, what)        # (numpy would make a True a count of 1)
    try:
        array = np.asarray(counts)
    except ValueError:                   # a ragged list
        array = None
    if array is None or array.shape != (NUM_KINDS,):
        raise CardError(f"{what}: expected {NUM_KINDS} card counts (one per card kind), "
                        f"not {quoted(counts)}")
    _check_counts(array, what, lambda at: what)     # (to_counts' hint is for cards)
    return to_counts(array, what)


def _checked_hands(hands) -> list:
    """Four hands as int64 count arrays, checked: 54 counts each and no card more than
    twice among them (sec. 1)."""
    # (a list, a tuple or an array: a set has no seat order)
    if not _is_sequence(hands) or len(hands) != 4:
        raise ValueError(f"expected the four hands (54 card counts each), not {quoted(hands)}")
    counts = [_checked_counts(h, f"hand of seat {seat}").astype(np.int64)
              for seat, h in enumerate(hands)]
    total = sum(counts)
    if total.max() > 2:
        bad = int(np.argmax(total))
        raise CardError(f"card {format_card(bad)} appears {int(total[bad])} times across the "
                        "four hands (each card exists twice)")
    return counts


def _checked_kind(kind, what: str = "card") -> int:
    """A card kind 0..53 (a card string such as ``HR`` is read too)."""
    if isinstance(kind, str):
        return parse_card(kind)
    if not is_whole(kind, 0, NUM_KINDS - 1):
        raise CardError(f"{what}: {quoted(kind)} is not a card kind 0..53 or a card")
    return int(kind)


def _checked_seat(seat, what: str) -> int:
    if not is_whole(seat, 0, 3):
        raise ValueError(f"{what}: {quoted(seat)} is not a seat 0..3")
    return int(seat)


def tribute_card(counts, level) -> int:
    """The card a payer gives: its highest non-wild card (sec. 8); ties by suit S H C D.

    >>> format_card(tribute_card(Hand("S3 H7 S7 SA").counts, "7"))   # H7 is wild
    'S7'
    """
    return _tribute_card(_checked_counts(counts, "payer's hand"), parse_level(level))


def _tribute_card(counts, level: int) -> int:
    wild = level * 4 + 1
    best = None
    for k in range(54):
        if counts[k] and k != wild:
            if best is None or card_order(k, level) > card_order(best, level):
                best = k
    if best is None:
        raise ValueError("the payer holds no card that can be given as tribute "
                         f"({' '.join(format_cards(_kinds(counts))) or 'no cards'})")
    return best


def return_card(counts, level) -> int:
    """The card a receiver returns: its lowest card of rank 10 or lower that is not a level
    card; if it has none, its lowest card (sec. 8)."""
    return _return_card(_checked_counts(counts, "receiver's hand"), parse_level(level))


def _is_low_card(kind: int, level: int) -> bool:
    """Whether ``kind`` is a card of rank 10 or lower that is no level card: what a
    receiver returns if it holds one (sec. 8)."""
    return kind < 52 and (kind >> 2) <= 8 and (kind >> 2) != level


def _return_card(counts, level: int) -> int:
    best = None
    for k in range(52):
        if counts[k] and _is_low_card(k, level):
            if best is None or card_order(k, level) < card_order(best, level):
                best = k
    if best is not None:
        return best
    for k in range(54):
        if counts[k] and (best is None or card_order(k, level) < card_order(best, level)):
            best = k
    if best is None:
        raise ValueError("the receiver holds no card to return")
    return best


def allowed_returns(counts, level) -> list:
    """The distinct card kinds a receiver holding ``counts`` may return (sec. 8), lowest
    first (card order, then suit order); the first is :func:`return_card`."""
    return _allowed_returns(_checked_counts(counts, "receiver's hand"), parse_level(level))


def _allowed_returns(counts, level: int) -> list:
    return sorted(_return_kinds(counts, level), key=lambda k: (card_order(k, level), k))


def _return_kinds(counts, level: int) -> list:
    """The kinds held that may be returned (sec. 8): cards of rank 10 or lower that are no
    level card, else the lowest cards held; none for an empty hand. (The rule in one place,
    for the list and for one kind: asked kind by kind, the list cost 87 us a tribute,
    about 5% of a random player's hand.)"""
    held = [k for k, n in enumerate(counts.tolist()) if n]
    kinds = [k for k in held if _is_low_card(k, level)]
    if kinds or not held:
        return kinds
    lowest = min(card_order(k, level) for k in held)
    return [k for k in held if card_order(k, level) == lowest]


def is_valid_return(counts, kind, level) -> bool:
    """Whether ``kind`` (a card kind or a card string) may be returned by a receiver
    holding ``counts`` (sec. 8)."""
    return _is_valid_return(_checked_counts(counts, "receiver's hand"),
                            _checked_kind(kind, "returned card"), parse_level(level))


def _is_valid_return(counts, kind: int, level: int) -> bool:
    return kind in _return_kinds(counts, level)


def is_valid_tribute(counts, kind, level) -> bool:
    """Whether ``kind`` (a card kind or a card string) may be paid as tribute by a payer
    holding ``counts``: one of its highest non-wild cards (any suit)."""
    counts = _checked_counts(counts, "payer's hand")
    kind = _checked_kind(kind, "tribute card")
    level = parse_level(level)
    if not counts[kind] or kind == level * 4 + 1:
        return False
    return card_order(kind, level) == card_order(_tribute_card(counts, level), level)


# ---------------------------------------------------------------------- tribute

@dataclass
class TributePlan:
    """What happens before a hand (sec. 8).

    ``kind``: ``"none"`` (first hand of a match, or tribute off by option), ``"single"``,
    ``"double"``; ``payments``: ``(payer, receiver, card kind)`` in order (after a double
    loss the first player's first); ``resisted``: the payers when resistance cancels the
    tribute; ``returns``: ``(receiver, payer, card kind)``; ``leader``: the seat that leads.
    """

    kind: str
    payments: list = field(default_factory=list)
    returns: list = field(default_factory=list)
    resisted: Optional[list] = None
    leader: int = 0


def allowed_tributes(counts, level) -> list:
    """The distinct card kinds a payer holding ``counts`` may give (sec. 8): its highest
    cards that are not wild, in suit order S H C D; the first is :func:`tribute_card`.

    >>> format_cards(allowed_tributes(Hand("S3 D9 H9 C7").counts, "2"))
    ['H9', 'D9']
    """
    counts = _checked_counts(counts, "payer's hand")
    level = parse_level(level)
    top = card_order(_tribute_card(counts, level), level)
    wild = level * 4 + 1
    return [k for k in range(54)
            if counts[k] and k != wild and card_order(k, level) == top]


def _kind_named(card) -> str:
    """A chooser's answer for a message: a card kind with its card's name (the kinds are
    numbers, which say little to a reader), anything else as it is."""
    if is_whole(card, 0, NUM_KINDS - 1):
        return f"{int(card)} ({format_card(int(card))})"
    return quoted(card)


def _kinds_named(kinds) -> str:
    return f"{list(kinds)} ({' '.join(format_card(k) for k in kinds)})"


def _is_allowed_kind(card, allowed) -> bool:
    """Whether ``card`` is a card kind (a whole number, numpy's too) among ``allowed``:
    ``card in allowed`` alone took 12.0, a complex 12 or a one-element array as kind 12."""
    return is_whole(card, 0, NUM_KINDS - 1) and int(card) in allowed


def plan_tribute(prev_order, hands, level: int, rules: MatchRules,
                 choose_return=None, choose_tribute=None) -> TributePlan:
    """Tribute, returns and the leader of a hand after a hand with finishing order
    ``prev_order``; ``hands`` are the four count arrays as dealt (sec. 8).

    ``choose_return(receiver, payer, hands, allowed)``, if given, picks each returned card
    kind (``hands``: copies of the four hands after the tribute, the receiver holding it,
    the other receiver's return not made, as on the platform; ``allowed``: the kinds of
    :func:`allowed_returns` for the receiver); by default the lowest allowed card
    (:func:`return_card`). ``choose_tribute(payer, hands, allowed)``, if given, picks each
    tribute card kind the same way (``allowed``: :func:`allowed_tributes`, asked in the
    order of the payers' finishing places); by default the first (:func:`tribute_card`).

    Applies nothing; :func:`apply_tribute` moves the cards.
    """
    for name, chooser in (("choose_return", choose_return),
                          ("choose_tribute", choose_tribute)):
        if chooser is not None and not callable(chooser):
            raise TypeError(f"{name} must be callable or None, not {quoted(chooser)}")
    if choose_return is not None:
        public_return = choose_return

        def choose_return(receiver, payer, hands, allowed, payments):
            return public_return(receiver, payer, hands, allowed)
    return _plan_tribute(prev_order, hands, level, rules, choose_return, choose_tribute)


def _plan_tribute(prev_order, hands, level, rules, choose_return, choose_tribute):
    """:func:`plan_tribute`, whose ``choose_return`` is also given the tribute payments
    (``(payer, receiver, card kind)``, public once paid: a Match shows them to the
    receivers choosing their returns)."""
    prev_order = check_finishing_order(prev_order)
    counts = _checked_hands(hands)
    level = parse_level(level)
    rules = MatchRules.of(rules)
    first = prev_order[0]
    partner_place = prev_order.index(first ^ 2)
    if not rules.tribute or (partner_place == 3 and not rules.tribute_first_last):
        return TributePlan("none", leader=first)
    if partner_place == 1:
        payers = [prev_order[2], prev_order[3]]
    else:
        payers = [prev_order[3]]
    if sum(int(counts[p][BIG_JOKER]) for p in payers) >= 2:
        return TributePlan("single" if len(payers) == 1 else "double", resisted=payers,
                           leader=first)
    cards = {}
    for payer in payers:
        try:
            cards[payer] = _tribute_card(counts[payer], level)
        except ValueError as exc:
            raise ValueError(f"seat {payer}: {exc}") from None
        if choose_tribute is not None:
            allowed = allowed_tributes(counts[payer], level)
            card = choose_tribute(payer, [c.copy() for c in counts], allowed)
            if not _is_allowed_kind(card, allowed):
                raise IllegalMoveError(
                    f"choose_tribute gave {_kind_named(card)} for seat {payer}'s tribute, not "
                    f"one of the card kinds it may give {_kinds_named(allowed)} (its highest "
                    "cards that are not wild, RULES sec. 8)")
            cards[payer] = int(card)
    if len(payers) == 1:
        payer = payers[0]
        plan = TributePlan("single", payments=[(payer, first, cards[payer])])
    else:
        second = prev_order[1]
        a, b = payers
        high = _pays_first_player(first, cards, level)
        low = b if high == a else a
        plan = TributePlan("double", payments=[(high, first, cards[high]),
                                               (low, second, cards[low])])
    # the receivers choose their returns once they hold the tribute, each shown the hands
    # as the tribute left them (on the platform they are asked together; a receiver's own
    # hand is the same either way: returns go to payers)
    after = [c.copy() for c in counts]
    for payer, receiver, card in plan.payments:
        after[payer][card] -= 1
        after[receiver][card] += 1
    for payer, receiver, _ in plan.payments:
        allowed = _allowed_returns(after[receiver], level)
        if choose_return is None:
            card = allowed[0]
        else:
            card = choose_return(receiver, payer, [c.copy() for c in after], allowed,
                                 _exchange_triples(plan.payments))
            if not _is_allowed_kind(card, allowed):
                raise IllegalMoveError(
                    f"choose_return gave {_kind_named(card)} for seat {receiver}'s return to "
                    f"seat {payer}, not one of the card kinds it may return "
                    f"{_kinds_named(allowed)} (RULES sec. 8)")
            card = int(card)
        plan.returns.append((receiver, payer, card))
    plan.leader = _leader_after_tribute(first, plan.payments, rules)
    return plan


def _pays_first_player(first: int, cards: dict, level: int) -> int:
    """Of a double tribute's two payers (``cards``: payer -> the card kind it pays), the
    one that pays the last hand's first player ``first`` (sec. 8): the higher card's; with
    equal cards the player seated right after ``first`` (a payer: both are its opponents)."""
    (a, card_a), (b, card_b) = cards.items()
    order_a, order_b = card_order(card_a, level), card_order(card_b, level)
    if order_a == order_b:
        return (first + 1) & 3
    return a if order_a > order_b else b


def _leader_after_tribute(first: int, exchanges, rules: MatchRules) -> int:
    """The seat that leads a hand whose tribute and returns were ``exchanges`` (``(giver,
    receiver, card kind)``), ``first`` being the last hand's first player (sec. 8, 9
    ``lead_after_tribute``): the seat that paid ``first``, or ``first`` under ``"first"``;
    ``first`` too when nothing was paid (resistance, or no tribute due)."""
    if rules.lead_after_tribute == "payer":
        for giver, receiver, _ in exchanges:
            if receiver == first:       # (returns go to payers, never to the first player)
                return giver
    return first


def _exchange_triples(entries) -> tuple:
    """Tribute payments or returns as a tuple of ``(giver, receiver, card kind)`` ints."""
    return tuple((int(g), int(r), int(k)) for g, r, k in entries)


def apply_tribute(plan: TributePlan, hands) -> list:
    """The four hands (uint8 count arrays) after the tribute and returns of ``plan``; a
    ValueError when a card moved is not in the giver's hand at that moment."""
    if not isinstance(plan, TributePlan):
        raise TypeError(f"plan must be a TributePlan, not {quoted(plan)}")
    after = _checked_hands(hands)
    for name in ("payments", "returns"):
        if not _is_sequence(getattr(plan, name)):
            raise TypeError(f"plan.{name} is a list of (giver, receiver, card kind), not "
                            f"{quoted(getattr(plan, name))}")
    moves = [(entry, "tribute") for entry in plan.payments] + \
        [(entry, "return") for entry in plan.returns]
    for entry, what in moves:
        # (a sequence: a mapping of three keys passed the length check, then entry[0]
        # was a KeyError)
        if not isinstance(entry, (tuple, list, np.ndarray)) or len(entry) != 3:
            raise ValueError(f"a {what} is (giver, receiver, card kind), not {quoted(entry)}")
        giver = _checked_seat(entry[0], f"{what} {entry!r}: giver")
        taker = _checked_seat(entry[1], f"{what} {entry!r}: receiver")
        card = _checked_kind(entry[2], f"{what} {entry!r}")
        if giver == taker:
            raise ValueError(f"{what} {quoted(entry)}: seat {giver} cannot give to itself")
        if not after[giver][card]:
            raise ValueError(f"{what} {quoted(entry)}: seat {giver} does not hold "
                             f"{format_card(card)}")
        after[giver][card] -= 1
        after[taker][card] += 1
    return [a.astype(np.uint8) for a in after]


# ---------------------------------------------------------------------- levels

def settle_hand(levels, failures, hand_level: int, order, rules: MatchRules):
    """Team levels after a hand (sec. 8, 9).

    Returns ``(levels, failures, gain, winner)``: the new levels and counts of failed hands
    at A per team, the levels the hand earned its winning team (3, 2 or 1 by the partner's
    place, whether or not the level, which stops at A, rose that far), and the team that won
    the game with this hand (or None).
    """
    levels = _checked_pair(levels, "levels", parse_level)
    failures = _checked_pair(failures, "failures", _failure_count)
    hand_level = parse_level(hand_level)
    if hand_level not in levels:
        raise ValueError(f"hand_level {format_rank(hand_level)} is neither team's level "
                         f"({format_rank(levels[0])}, {format_rank(levels[1])}): a hand is "
                         "played at the level of the team that won the last one (sec. 8)")
    order = check_finishing_order(order)
    rules = MatchRules.of(rules)
    for t in (0, 1):
        # (a state no match reaches: a count at fail_at_a is cleared as it is reached, and
        # only a team at A fails; such a count dropped a team to 2 in a hand at 5)
        if failures[t] and levels[t] != ACE:
            raise ValueError(f"failures {quoted(failures)}: team {t} is at level "
                             f"{format_rank(levels[t])}, not A, so it has no failed hands "
                             "at A")
        if rules.fail_at_a and failures[t] >= rules.fail_at_a:
            raise ValueError(f"failures {quoted(failures)}: team {t} has failed "
                             f"{failures[t]} hands at A, which fail_at_a={rules.fail_at_a} "
                             "would have dropped to 2 already")
    team = order[0] & 1
    place = order.index(order[0] ^ 2)
    gain = {1: 3, 2: 2, 3: 1}[place]
    winner = None
    if hand_level == ACE and levels[team] == ACE:
        if rules.win_at_a == "any" or place == 1 or (
                rules.win_at_a == "2nd-or-3rd" and place == 2):
            winner = team
    for t in (0, 1):
        if hand_level == ACE and levels[t] == ACE and winner != t:
            failures[t] += 1
    levels[team] = min(ACE, levels[team] + gain)
    for t in (0, 1):
        if rules.fail_at_a and failures[t] >= rules.fail_at_a:
            levels[t] = 0
            failures[t] = 0
    return levels, failures, gain, winner


def _checked_pair(values, what: str, check) -> list:
    """One value per team, each passed through ``check`` (which raises naming it)."""
    # (a set has no team order: {12, 0} was read as levels [0, 12], the teams swapped)
    if not _is_sequence(values) or len(values) != 2:
        raise ValueError(f"{what}: one value per team (two), not {quoted(values)}")
    try:
        return [check(v) for v in values]
    except ValueError as exc:
        raise type(exc)(f"{what} {quoted(values)}: {exc}") from None


def _failure_count(n) -> int:
    if not is_whole(n, 0):
        raise ValueError(f"a count of failed hands is a whole number 0 or more, not {quoted(n)}")
    return int(n)


def _checked_seed(seed, what: str = "seed"):
    """A seed for ``random.Random``, as a match takes it: an int 0 or more (numpy ints
    too, which ``random.Random`` refuses), text or None; else a ValueError naming it. A
    str or int of a subclass (numpy's str, an IntEnum) comes back as a plain one: what
    is made of its repr (an environment's opponents' seeds) must not depend on its type
    (numpy 2 writes np.str_('a') where numpy 1 wrote 'a')."""
    if isinstance(seed, np.integer):
        seed = int(seed)
    if not (seed is None or isinstance(seed, str) or is_whole(seed, 0)):
        # random.Random takes an int's absolute value: -1 would deal what 1 deals;
        # it would also take 1.5 or bytes
        raise ValueError(f"{what} must be an int 0 or more, text or None, not {quoted(seed)}")
    if isinstance(seed, str):
        return str.__str__(seed)
    return None if seed is None else int(seed)


def deal(rng: random.Random) -> list:
    """Shuffle the 108 cards with ``rng`` and deal 27 to each seat: four uint8[54] count
    arrays. The same generator state always gives the same deal."""
    if not isinstance(rng, random.Random):      # (numpy's generators have no randbytes)
        raise TypeError(f"rng must be a random.Random, not {quoted(rng)}")
    # a uniform random permutation: sort the 108 cards by 64-bit random keys drawn from
    # ``rng`` (faster than random.shuffle, and as deterministic for a seed)
    keys = np.frombuffer(rng.randbytes(108 * 8), dtype=np.uint64)
    rows = _DECK[np.argsort(keys, kind="stable")].reshape(4, 27)
    return [np.bincount(row, minlength=54).astype(np.uint8) for row in rows]


_DECK = np.repeat(np.arange(54, dtype=np.intp), 2)


# ---------------------------------------------------------------------- players

@dataclass(frozen=True, eq=False)
class Observation:
    """What the seat to move may see (passed to a player callable).

    ``legal_moves`` is a sequence of :class:`Move` (a :class:`MoveList`: ``Move.PASS``
    first when following, and an ``array`` of records); ``table`` / ``table_owner`` the
    play to beat and its seat (None on lead); ``history`` the public list of
    ``(seat, move)`` of this hand so far, passes included; ``cards_left`` the cards each
    seat holds; ``team_levels`` the two teams' levels as rank indices; ``finished`` the
    seats out so far; ``exchanges`` the cards that changed hands before the hand, in
    tribute and return, all of them public: ``(giver, receiver, card kind)`` in the order
    they were given (empty without tribute; to a seat choosing a tribute card, empty; to
    a seat choosing its returned card, the tribute paid, which the receivers are shown
    before they return); ``resisted`` the seats that resisted this hand's tribute with
    both big jokers between them, in seat order (public too; empty without resistance).
    ``hand`` (the seat's own :class:`Hand`) and ``history`` are built each time they are
    read (from the counts and the exchanges and plays kept).
    Observations compare and hash by all of it, the hand and the history included.
    """

    seat: int
    level: int
    legal_moves: MoveList
    table: Optional[Move]
    table_owner: Optional[int]
    cards_left: tuple
    team_levels: tuple
    finished: tuple
    rules: Rules
    counts: np.ndarray = field(repr=False)
    _history: list = field(repr=False)
    _history_len: int = field(repr=False)
    exchanges: tuple = ()
    resisted: tuple = ()

    @property
    def hand(self) -> Hand:
        return Hand.from_counts(self.counts)

    def _compared(self) -> tuple:
        # every field, the hand and the history included: two observations that differ
        # only there are two information states (the dataclass's own == left them out)
        return (self.seat, self.level, self.legal_moves, self.table, self.table_owner,
                self.cards_left, self.team_levels, self.finished, self.rules,
                self.counts.astype(np.uint8, copy=False).tobytes(), self.history,
                self.exchanges, self.resisted)

    def __eq__(self, other):
        if not isinstance(other, Observation):
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    @property
    def history(self) -> tuple:
        return tuple(self._history[:self._history_len])

    @property
    def on_lead(self) -> bool:
        return self.table is None


@dataclass
class HandResult:
    """The record of one hand of a :class:`Match`."""

    number: int
    match: int
    level: str
    leader: int
    tribute: TributePlan
    order: tuple
    outcome: int
    gain: int
    levels: tuple
    winner: Optional[int]
    moves: int


@dataclass
class _HandStart:
    """A hand dealt, its tribute paid, ready to play (Match._begin_hand)."""
    number: int
    level: int
    plan: TributePlan
    position: Position
    history: list
    team_levels: tuple
    exchanges: tuple
    resisted: tuple = ()        # (the seats that resisted, in seat order)


class Match:
    """Hands of Guandan in a row with levels and tribute (RULES.md sec. 8).

    ``players``: four callables ``player(observation) -> Move`` (a platform triple
    ``[type, rank, cards]`` is accepted too). ``rules``: a :class:`MatchRules` or a preset
    name. ``seed``: dealing and first leaders come from ``random.Random(seed)`` (an int 0 or
    more, or text; a negative int is refused, since it would deal what its absolute value
    deals).
    ``on_event``: called with each event dict (the ``--json`` log format).
    """

    def __init__(self, players, rules: MatchRules | str | None = None, seed=None,
                 on_event: Callable[[dict], None] | None = None):
        try:
            if isinstance(players, AbstractSet):
                raise TypeError     # (no seat order: they were seated as the set iterates)
            players = list(players)
        except TypeError:       # (not iterable, or a 0-d array)
            raise TypeError(f"a match needs a list of 4 players, not {quoted(players)}") \
                from None
        if len(players) != 4:
            raise ValueError(f"a match needs 4 players, not {len(players)}")
        for i, p in enumerate(players):
            if not callable(p):
                raise TypeError(f"player {i} is not callable: {quoted(p)}")
        self.players = players
        self.rules = MatchRules.of(rules)
        seed = _checked_seed(seed)
        check_callback("on_event", on_event)
        self.rng = random.Random(seed)
        self.on_event = on_event
        self.levels = [0, 0]
        self.failures = [0, 0]
        self.hand_level = 0
        self.prev_order = None
        self.winner = None
        self.match_number = 1
        self.hands_played = 0
        self.position = None
        self.history = []

    def _emit(self, event: dict) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _new_match(self) -> None:
        self.levels = [0, 0]
        self.failures = [0, 0]
        self.hand_level = 0
        self.prev_order = None
        self.winner = None
        self.match_number += 1

    def play(self, hands: int) -> list:
        """Play ``hands`` hands (a won match is followed by a new one); their results."""
        if not is_whole(hands, 0):
            raise ValueError(f"hands: a number of hands 0 or more, not {quoted(hands)}")
        return [self.play_hand() for _ in range(hands)]

    def play_hand(self) -> HandResult:
        """Deal, pay tribute and play one hand; returns its :class:`HandResult`.

        A player that fails (raises, or answers with a move or card it may not play)
        leaves the match as it was before the call: the next call deals the same hand
        again (it went on to the next hand, the failed one neither settled nor counted)."""
        snapshot = self._snapshot()
        try:
            return self._play_hand()
        except BaseException:
            self._restore(snapshot)
            raise

    def _play_hand(self) -> HandResult:
        hand = self._begin_hand()
        pos, history = hand.position, hand.history
        level, team_levels, exchanges = hand.level, hand.team_levels, hand.exchanges
        resisted = hand.resisted
        emit = self.on_event
        players = self.players
        core = self.rules.core
        while not pos.is_over:
            seat = pos._to_move
            moves = pos.move_list()
            obs = Observation(seat, level, moves, pos.table, pos.owner, pos.cards_left,
                              team_levels, pos.finished, core, pos.counts(seat), history,
                              len(history), exchanges, resisted)
            answer = players[seat](obs)
            index = moves.issued(answer) if isinstance(answer, Move) else -1
            if index >= 0:
                move = answer
                pos._push_listed(moves, index)
            else:
                move = self._checked(answer, pos, seat)
                pos.push(move, check=False)
            history.append((seat, move))
            if emit is not None:
                emit({"event": "play", "seat": seat, "action": move.to_platform()})
        return self._end_hand(hand)

    def _snapshot(self) -> tuple:
        """The match's state between hands, for :meth:`_restore` (the players excluded:
        what they remember is theirs). Cheap: a hand is begun and settled by rebinding
        attributes, never by changing their objects, except the generator's state."""
        state = dict(self.__dict__)
        state["levels"], state["failures"] = list(self.levels), list(self.failures)
        return state, self.rng.getstate()

    def _restore(self, snapshot: tuple) -> None:
        state, rng_state = snapshot
        self.__dict__.clear()
        self.__dict__.update(state)
        self.levels, self.failures = list(state["levels"]), list(state["failures"])
        self.rng.setstate(rng_state)

    def _begin_hand(self) -> "_HandStart":
        """Deal the next hand and pay its tribute (a won match is followed by a new one):
        the hand ready to play, ``self.position`` and ``self.history`` its own."""
        if self.winner is not None:
            self._new_match()
        if self.hands_played == 0:
            # the log says which rules it was played under, for replay
            self._emit({"event": "rules", **self.rules.to_json()})
        self.hands_played += 1
        number = self.hands_played
        level = self.hand_level
        hands = deal(self.rng)
        # (before the tribute is chosen: a platform game begins the hand at this event;
        # made only for a listener, since naming 108 cards is 5% of a random player's hand)
        if self.on_event is not None:
            self._emit({"event": "deal", "hand": number, "level": format_rank(level),
                        "hands": [format_cards(_kinds(h)) for h in hands]})
        if self.prev_order is None:
            leader = self.rules.agreed_first_leader(hands)
            if leader is None:
                leader = self.rng.randrange(4)
            plan = TributePlan("none", leader=leader)
        else:
            plan = _plan_tribute(self.prev_order, hands, level, self.rules,
                                 self._return_chooser(level), self._tribute_chooser(level))
            if plan.resisted is not None:
                self._emit({"event": "resist", "seats": list(plan.resisted)})
            for payer, receiver, card in plan.payments:
                self._emit({"event": "tribute", "from": payer, "to": receiver,
                            "card": format_card(card)})
            for receiver, payer, card in plan.returns:
                self._emit({"event": "return", "from": receiver, "to": payer,
                            "card": format_card(card)})
            hands = apply_tribute(plan, hands)
        pos = Position(level, hands, (), plan.leader, rules=self.rules.core, validate=False)
        self.position = pos
        self.history = []
        # (public: the tribute and return events say who gave which card to whom)
        exchanges = _exchange_triples(plan.payments) + _exchange_triples(plan.returns)
        return _HandStart(number, level, plan, pos, self.history, tuple(self.levels),
                          exchanges, tuple(sorted(plan.resisted or ())))

    def _end_hand(self, hand: "_HandStart") -> HandResult:
        """Settle a hand that is over (levels, failures, the winner); its record."""
        order = hand.position.finishing_order()
        levels, failures, gain, winner = settle_hand(self.levels, self.failures, hand.level,
                                                     order, self.rules)
        self.levels, self.failures = levels, failures
        self.prev_order = order
        self.hand_level = levels[order[0] & 1]
        self.winner = winner
        self._emit({"event": "end", "order": list(order),
                    "levels": [format_rank(x) for x in levels], "winner": winner})
        return HandResult(hand.number, self.match_number, format_rank(hand.level),
                          hand.plan.leader, hand.plan, order, finishing_outcome(order), gain,
                          tuple(levels), winner, len(hand.history))

    def _return_chooser(self, level: int):
        """The ``choose_return`` callback of :func:`plan_tribute` for this hand, or None
        when no receiver can choose (no player has a ``choose_return`` method)."""
        if not any(callable(getattr(p, "choose_return", None)) for p in self.players):
            return None

        def choose(receiver, payer, now, allowed, payments):
            return self._players_card(
                "choose_return", receiver, level, now, allowed,
                lambda answer, names: f"seat {receiver} returns {answer!r} to seat {payer}, "
                f"not one of the cards it may return ({names}): a card of rank 10 or "
                "lower that is not a level card, else its lowest card (RULES sec. 8)",
                exchanges=payments)

        return choose

    def _tribute_chooser(self, level: int):
        """The ``choose_tribute`` callback of :func:`plan_tribute` for this hand, or None
        when no payer can choose (no player has a ``choose_tribute`` method)."""
        if not any(callable(getattr(p, "choose_tribute", None)) for p in self.players):
            return None

        def choose(payer, hands, allowed):
            return self._players_card(
                "choose_tribute", payer, level, hands, allowed,
                lambda answer, names: f"seat {payer} pays {answer!r} as tribute, not one of "
                f"its highest cards that are not wild ({names}) (RULES sec. 8)")

        return choose

    def _players_card(self, method_name: str, seat: int, level: int, hands, allowed,
                      refusal, exchanges: tuple = ()) -> int:
        """The card kind ``seat``'s player picks with its ``method_name(observation,
        allowed_cards)`` (the first allowed when it has none); ``refusal(answer, names)``
        words the IllegalMoveError for an answer that is not allowed; ``exchanges`` the
        cards given so far that the seat has seen (the tribute, when it returns)."""
        method = getattr(self.players[seat], method_name, None)
        if not callable(method):
            return allowed[0]
        obs = self._card_observation(seat, level, hands, exchanges)
        names = [format_card(k) for k in allowed]
        answer = method(obs, list(names))
        try:
            kind = parse_card(answer)
        except (CardError, TypeError):
            kind = None
        if kind not in allowed:
            raise IllegalMoveError(refusal(answer, " ".join(names)))
        return kind

    def _card_observation(self, seat: int, level: int, hands,
                          exchanges: tuple = ()) -> Observation:
        """What a player choosing a tribute or returned card is shown: its hand and every
        seat's card count at that moment, the levels, ``exchanges``; no moves."""
        return Observation(seat, level, (), None, None, tuple(int(h.sum()) for h in hands),
                           tuple(self.levels), (), self.rules.core,
                           hands[seat].astype(np.uint8), [], 0, exchanges)

    def _checked(self, answer, pos: Position, seat: int) -> Move:
        if isinstance(answer, Move):
            pass
        elif isinstance(answer, (list, tuple)):
            try:
                answer = Move.from_platform(list(answer), format_rank(pos.level), pos.rules)
            except (MoveError, ValueError) as exc:
                raise IllegalMoveError(f"seat {seat} answered {quoted(answer)}: {exc}") from None
        else:
            raise IllegalMoveError(f"seat {seat} answered {quoted(answer)}, not a Move")
        try:
            pos.check(answer)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"seat {seat} made an illegal move: {exc}") from None
        return answer
