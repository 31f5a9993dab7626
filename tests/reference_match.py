"""A slow, plain reference for RULES.md sections 8 and 9 (tribute, returns, who leads, team
levels, winning and failing at A), written only from RULES.md, for tests.

It imports nothing from ``guandan_core``: cards are platform strings (``"S7"``, ``"HT"``,
``"SB"``, ``"HR"``; RULES sec. 1), a hand is a list of such strings (a multiset), a seat is
0..3, a level or a rank is a letter of ``23456789TJQKA``. The tests convert the engine's
count arrays to strings with ``guandan_core.cards.format_card``.

What the reference computes:

* :func:`strength`: the card order of RULES sec. 2 at a level, built from its sentence
  ("2 .. A with L taken out, then L, then small joker, then big joker");
* :func:`legal_tributes` / :func:`legal_returns`: EVERY card a payer may give / a receiver
  may give back (sec. 8), as a set of strings: where the rules let a player pick among
  equal cards, the reference lists all of them and the tests check legality;
* :func:`ref_tribute`: for the previous hand's finishing order, the hands as dealt, the
  new hand's level and the options: the kind (``none``, ``single``, ``double``,
  ``resisted``), the paying side, each payment (payer, receiver, legal cards) and the
  leader (sec. 8 and the sec. 9 options ``tribute``, ``tribute_first_last``,
  ``lead_after_tribute``); :func:`ref_returns` the returns once the tribute cards are
  known;
* :func:`ref_settle`: after a hand, the new team levels, failed hands at A, the gain and
  the team that won the game (sec. 6, 8 and the sec. 9 options ``win_at_a``,
  ``fail_at_a``);
* :class:`RefMatch`: hands in a row (which level the next hand is played at, the first
  hand of a match, a new match after a won game).

Points RULES.md leaves open are decided as listed in :data:`OPEN_POINTS` (the engine's
documented choices, guandan_core/match.py module docstring); each is named where it is
used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

RANKS = "23456789TJQKA"          # sec. 1, low to high in natural order
SUITS = "SHCD"
SMALL_JOKER = "SB"
BIG_JOKER = "HR"
ACE = "A"
TWO = "2"

OPEN_POINTS = {
    "tribute suit": "among equally high cards (suits never matter, sec. 2) any may be given; "
                    "the engine gives the first in suit order S H C D",
    "return choice": "any card the return rule allows; the engine's default is the lowest "
                     "(card order, then suit order S H C D)",
    "return hand": "the receiver returns from its hand holding the tribute it got",
    "tribute level": "highest / higher / lowest are in the card order of the hand about to "
                     "be played (its level L, sec. 2)",
    "gain": "the gain is the 3 / 2 / 1 of sec. 6 even when the cap at A cuts the rise",
    "failed hand": "a failed hand at A is a hand played at A by a team whose level is A "
                   "that does not win the game with it (a loss, or a win with the partner "
                   "too far back); both teams can fail in one hand; a hand at the other "
                   "team's level is not one; the count is kept for both teams with any "
                   "fail_at_a value (0 included) and cleared only by the drop to 2 or a "
                   "new match; the hand that wins the game counts for the other team",
    "drop": "the drop to 2 comes after the hand's rise (a winning team that drops plays "
            "the next hand at 2)",
    "new match": "after a team wins the game both teams go back to 2, failures to 0, and "
                 "the next hand is a first hand (no tribute, first leader rule)",
    "first leader card": "with an agreed card held by two seats, the first in seat order "
                         "0..3 leads",
}


# ------------------------------------------------------------------ cards (sec. 1, 2)

def is_joker(card: str) -> bool:
    return card in (SMALL_JOKER, BIG_JOKER)


def rank_of(card: str) -> str:
    """The rank letter of a suited card (jokers have none)."""
    assert not is_joker(card), card
    return card[1]


def order_at(level: str) -> list:
    """Sec. 2: "2 3 4 5 6 7 8 9 T J Q K A with L taken out, then L, then small joker, then
    big joker" (low to high)."""
    return [r for r in RANKS if r != level] + [level, SMALL_JOKER, BIG_JOKER]


def strength(card: str, level: str) -> int:
    """Position of a card in the order of sec. 2 at ``level`` (higher is stronger)."""
    label = card if is_joker(card) else rank_of(card)
    return order_at(level).index(label)


def is_wild(card: str, level: str) -> bool:
    """Sec. 3: the hearts of rank L are wild."""
    return card == "H" + level


def is_level_card(card: str, level: str) -> bool:
    return not is_joker(card) and rank_of(card) == level


def is_ten_or_lower(card: str) -> bool:
    """Rank 2 .. 10 (T); a joker has no rank."""
    return not is_joker(card) and RANKS.index(rank_of(card)) <= RANKS.index("T")


# ------------------------------------------------------------------ tribute (sec. 8)

def legal_tributes(hand, level: str) -> set:
    """Sec. 8: "the last player gives their highest card ... (never a wild; a big joker may
    be given)": every card of the hand, wilds left out, of the highest order."""
    candidates = [c for c in hand if not is_wild(c, level)]
    if not candidates:
        return set()
    top = max(strength(c, level) for c in candidates)
    return {c for c in candidates if strength(c, level) == top}


def legal_returns(hand, level: str) -> set:
    """Sec. 8: "The receiver returns one card of rank 10 or lower (not a level card); if it
    has none, its lowest card." ``hand`` is the receiver's hand holding the tribute
    (OPEN_POINTS["return hand"])."""
    low = {c for c in hand if is_ten_or_lower(c) and not is_level_card(c, level)}
    if low:
        return low
    if not hand:
        return set()
    bottom = min(strength(c, level) for c in hand)
    return {c for c in hand if strength(c, level) == bottom}


def team_of(seat: int) -> int:
    """Sec. 6: seats 0 and 2 are one team (0), 1 and 3 the other (1)."""
    return seat % 2


def partner_of(seat: int) -> int:
    return (seat + 2) % 4


def partner_place(order) -> int:
    """Where (1st .. 4th) the first player's partner finished."""
    return list(order).index(partner_of(order[0])) + 1


@dataclass
class RefOptions:
    """The match options of RULES sec. 9 (values as the engine names them)."""

    win_at_a: str = "2nd-or-3rd"         # or "2nd-only", "any"
    fail_at_a: int = 0                   # no penalty; or 3 (pagat), 2 (platform)
    tribute: bool = True
    tribute_first_last: bool = True      # False: the "anti-tribute" reading
    lead_after_tribute: str = "payer"    # or "first"
    first_leader: Optional[str] = None   # None: random; else the agreed card


@dataclass
class RefTribute:
    """What happens before a hand, per sec. 8.

    ``kind``: ``none`` (no tribute due: first hand, option off, anti-tribute option),
    ``single``, ``double`` or ``resisted``; ``loss``: ``single`` / ``double`` when the
    previous hand's finish calls for tribute (also when resisted), else None; ``payers``:
    the paying side; ``payments``: ``(payer, receiver, legal cards)``, the payment to the
    first player first; ``leader``: the seat that leads (None: a random seat).
    """

    kind: str
    loss: Optional[str] = None
    payers: tuple = ()
    payments: list = field(default_factory=list)
    leader: Optional[int] = None


def ref_first_leader(hands, opts: RefOptions) -> Optional[int]:
    """Sec. 8, 9: the first hand is led by a random seat (None here), or by the holder of an
    agreed card (OPEN_POINTS["first leader card"] when two seats hold it)."""
    if opts.first_leader is None:
        return None
    holders = [seat for seat in range(4) if opts.first_leader in hands[seat]]
    return holders[0]


def ref_tribute(prev_order, hands, level: str, opts: RefOptions) -> RefTribute:
    """Tribute before a hand at ``level`` dealt ``hands`` (four lists of card strings),
    after a hand that finished in ``prev_order`` (None: the first hand of a match)."""
    if prev_order is None:
        # "Tribute, from the second hand on"; "First hand: a random seat leads (or the
        # holder of an agreed card)"
        return RefTribute("none", leader=ref_first_leader(hands, opts))
    first = prev_order[0]
    place = partner_place(prev_order)
    last = prev_order[3]
    if not opts.tribute:
        # sec. 9 tribute off; sec. 8 "with no tribute, the first player ... leads"
        return RefTribute("none", leader=first)
    if place == 2:
        # "Double loss (winners 1st and 2nd): both losers pay"
        loss = "double"
        payers = tuple(seat for seat in range(4) if team_of(seat) != team_of(first))
    elif place == 3:
        # "Single loss (winners finished 1st and 3rd ...): the last player gives"
        loss = "single"
        payers = (last,)
    else:
        # "... or 1st and 4th ... this is the winner's own partner paying"; sec. 9: or
        # nobody (anti-tribute)
        if not opts.tribute_first_last:
            return RefTribute("none", leader=first)
        loss = "single"
        payers = (last,)
        assert last == partner_of(first)
    # "Resistance: if the paying side holds both big jokers between its payers, no
    # tribute is paid."
    big_jokers = sum(hands[p].count(BIG_JOKER) for p in payers)
    if big_jokers == 2:
        return RefTribute("resisted", loss=loss, payers=payers, leader=first)
    if loss == "single":
        payer = payers[0]
        payments = [(payer, first, legal_tributes(hands[payer], level))]
        payer_of_first = payer
    else:
        second = prev_order[1]
        a, b = payers
        top_a = _top_strength(hands[a], level)
        top_b = _top_strength(hands[b], level)
        if top_a == top_b:
            # "with equal cards, the player seated right after the first player pays the
            # first player"
            payer_of_first = (first + 1) % 4
        else:
            # "the higher card goes to the first player, the lower to the second"
            payer_of_first = a if top_a > top_b else b
        other = b if payer_of_first == a else a
        payments = [(payer_of_first, first, legal_tributes(hands[payer_of_first], level)),
                    (other, second, legal_tributes(hands[other], level))]
    # "The player who paid (after a double loss, the one who paid the first player)
    # leads"; sec. 9: or the first player of the previous hand
    leader = payer_of_first if opts.lead_after_tribute == "payer" else first
    return RefTribute(loss, loss=loss, payers=payers, payments=payments, leader=leader)


def _top_strength(hand, level: str) -> int:
    return max(strength(c, level) for c in legal_tributes(hand, level))


def ref_returns(paid, hands, level: str) -> list:
    """The returns after the tribute cards ``paid`` (``(payer, receiver, card)``, as the
    engine chose them among the legal ones) were given from ``hands`` as dealt:
    ``(receiver, payer, legal return cards)`` for each payment. Each receiver gets one
    card and returns one, to its own payer, so the returns do not depend on each other."""
    result = []
    for payer, receiver, card in paid:
        holding = list(hands[receiver]) + [card]
        result.append((receiver, payer, legal_returns(holding, level)))
    return result


# ------------------------------------------------------------------ levels (sec. 6, 8, 9)

def raise_level(level: str, by: int) -> str:
    """Sec. 8: "Levels stop at A"."""
    return RANKS[min(RANKS.index(level) + by, RANKS.index(ACE))]


def ref_settle(levels, failures, hand_level: str, order, opts: RefOptions):
    """Team levels after a hand played at ``hand_level`` that finished in ``order``.

    Returns ``(levels, failures, gain, winner)``: the two team levels (letters), the two
    counts of failed hands at A, the gain of the hand's winning team and the team that
    won the game with this hand (or None).
    """
    levels = list(levels)
    failures = list(failures)
    winners = team_of(order[0])
    place = partner_place(order)
    # sec. 6: "goes up: 3 levels if the partner finished 2nd, 2 if 3rd, 1 if last"
    gain = {2: 3, 3: 2, 4: 1}[place]

    def playing_at_own_a(team):
        # sec. 8: "a team whose own level is A, playing at its level"
        return levels[team] == ACE and hand_level == levels[team]

    # sec. 8 "wins a hand with the partner finishing 2nd or 3rd"; sec. 9 "partner 2nd
    # only", "any win"
    allowed_places = {"2nd-or-3rd": (2, 3), "2nd-only": (2,), "any": (2, 3, 4)}[opts.win_at_a]
    game_winner = winners if playing_at_own_a(winners) and place in allowed_places else None
    # OPEN_POINTS["failed hand"]
    for team in (0, 1):
        if playing_at_own_a(team) and game_winner != team:
            failures[team] += 1
    levels[winners] = raise_level(levels[winners], gain)
    # sec. 9 failing at A: "drop to 2 after 3 failed hands (pagat), after 2 (platform)";
    # OPEN_POINTS["drop"]
    if opts.fail_at_a:
        for team in (0, 1):
            if failures[team] >= opts.fail_at_a:
                levels[team] = TWO
                failures[team] = 0
    return levels, failures, gain, game_winner


@dataclass
class RefHand:
    """One hand of :class:`RefMatch`."""

    level: str
    tribute: RefTribute
    levels: list = None
    failures: list = None
    gain: int = None
    winner: Optional[int] = None


class RefMatch:
    """Hands in a row (sec. 8): both teams start at 2, the first hand at 2; each next hand
    at the level of the team that won the previous one; after a won game a new match
    (OPEN_POINTS["new match"])."""

    def __init__(self, opts: RefOptions):
        self.opts = opts
        self.levels = [TWO, TWO]
        self.failures = [0, 0]
        self.hand_level = TWO
        self.prev_order = None

    def before_hand(self, hands) -> RefHand:
        """The level and the tribute of the next hand, dealt ``hands``."""
        return RefHand(self.hand_level,
                       ref_tribute(self.prev_order, hands, self.hand_level, self.opts))

    def after_hand(self, hand: RefHand, order) -> RefHand:
        levels, failures, gain, winner = ref_settle(self.levels, self.failures,
                                                    hand.level, order, self.opts)
        hand.levels, hand.failures, hand.gain, hand.winner = levels, failures, gain, winner
        if winner is not None:
            self.levels, self.failures = [TWO, TWO], [0, 0]
            self.hand_level = TWO
            self.prev_order = None
        else:
            self.levels, self.failures = levels, failures
            # "A hand is played at the level of the team that won the previous hand"
            self.hand_level = levels[team_of(order[0])]
            self.prev_order = tuple(order)
        return hand
