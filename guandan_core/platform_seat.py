"""One seat of a game on the AI competition platform, kept from the platform's messages.

The platform (its offline server ``guandan_offline`` v1006; a WebSocket a seat at
``ws://127.0.0.1:23456/game/<name>``, seats in the order the four clients connect, seats 0
and 2 against 1 and 3) sends JSON messages of two types:

* ``notify``, sent to every seat and never answered: ``beginning`` (the seat's 27 cards and
  ``myPos``), ``play`` (``curPos`` played ``curAction``; passes included), ``tribute`` and
  ``back`` (``result``: ``[giver, receiver, card]`` for each card paid or returned),
  ``anti-tribute`` (``antiPos``: the payers who resist with both big jokers),
  ``episodeOver`` (``order``: the finishing order of the hand; ``restCards``),
  ``gameOver`` and ``gameResult``;
* ``act``, sent to the seat that must choose: ``play``, ``tribute`` or ``back``, with its
  ``handCards``, ``publicInfo`` (each seat's ``rest`` of cards), the ranks (``curRank`` is
  the hand's level), the play to beat (``greaterPos``, ``greaterAction``; ``-1`` and
  ``[null, null, null]`` on lead) and ``actionList``. It is answered with
  ``{"actIndex": i}``, the index of the chosen action in ``actionList``.

:class:`PlatformSeat` keeps, from those messages, what its seat knows of the hand: every card
played and by whom, each seat's card count, who is out, the tribute and return cards. At
each ``act`` it makes the :class:`~guandan_core.match.Observation` a
:class:`~guandan_core.match.Match` would give the same player at the same moment (the
legal moves from this engine, checked against the platform's ``actionList``), asks its
player, and answers with the index of the chosen move. So any player written for
``Match`` (``GreedyPlayer``, ``solver.players.SamplingPlayer``, a function) plays on the
platform unchanged. ``guandan bot`` connects one to a server.

The tribute card is the player's ``choose_tribute(observation, allowed_cards)`` among the
cards offered if it has one, else the payer's highest card as in a match (its first suit
in the order S H C D when the platform offers several); a returned card is the player's
``choose_return(observation, allowed_cards)`` if it has one, else its lowest allowed card.

It follows the hand's turns as RULES sec. 6 makes them (a trick that comes back to its
owner is led by that owner, or by its partner when the owner is out), so it knows at each
``act`` whose turn it is and what is to beat. A lead may still name the last trick's owner
in ``greaterPos`` when that owner is the seat itself or a partner who went out; it is read
as a lead.

Anything the seat cannot reconcile raises :class:`PlatformError`, which names it, rather
than letting a player choose from a wrong picture of the game: a message of an unknown
kind, or with a missing or malformed key among those it reads (the keys it has no use
for, such as a ``notify play``'s ``greaterPos`` or an ``act``'s ``curAction``, are left
alone); a play out of turn, a pass on lead, a play after
the hand is over, a card seen more than twice; at an ``act``, a hand, a card count, a turn
or a play to beat other than the messages before it leave, or an action list that is not
this engine's legal moves; an ``episodeOver`` before the hand is over, or whose order or
rest cards disagree with the plays; a ``beginning``, ``gameOver`` or ``gameResult`` during
a hand (before its ``episodeOver``); tribute other than RULES sec. 8 makes it, and a hand's
first lead by another seat than it names.

>>> from guandan_core.players import GreedyPlayer
>>> seat = PlatformSeat(GreedyPlayer())
>>> seat.receive({"type": "notify", "stage": "beginning", "myPos": 1, "handCards":
...     "S2 H2 C2 H4 C4 D5 S6 H6 C6 D6 H7 D8 D9 D9 ST HT CT DT SJ DJ CQ CQ CK SA HA CA CA"
...     .split()})
>>> seat.receive({"type": "notify", "stage": "play", "curPos": 0,
...     "curAction": ["Single", "3", ["S3"]], "greaterPos": 0,
...     "greaterAction": ["Single", "3", ["S3"]]})
>>> from guandan_core.moves import legal_moves
>>> table = Move.from_platform(["Single", "3", ["S3"]], "2")
>>> actions = [["PASS", "PASS", "PASS"]] + [m.to_platform() for m in
...            legal_moves(seat.hand, "2", table, Rules.platform())][::-1]
>>> answer = seat.receive({"type": "act", "stage": "play", "handCards": seat.hand.cards(),
...     "publicInfo": [{"rest": 26}, {"rest": 27}, {"rest": 27}, {"rest": 27}],
...     "selfRank": "2", "oppoRank": "2", "curRank": "2", "curPos": 0,
...     "curAction": ["Single", "3", ["S3"]], "greaterPos": 0,
...     "greaterAction": ["Single", "3", ["S3"]], "actionList": actions,
...     "indexRange": len(actions) - 1})
>>> actions[answer["actIndex"]]
['Single', '4', ['H4']]
>>> seat.observation.history
((0, <Move Single 3: S3>),)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Optional

import numpy as np

from .cards import BIG_JOKER, CardError, LevelError, format_card, format_cards, \
    format_rank, is_whole, parse_card, parse_level
from .hand import Hand, to_counts
from .jsontext import parse_json
from .match import MatchRules, Observation, allowed_returns, allowed_tributes, card_order, \
    _leader_after_tribute, _pays_first_player, tribute_card
from .moves import Move, MoveError, beats, moves_array
from .position import MoveList
from .rules import Rules
from .usertext import counted, quoted, quoted_json, quoted_read

__all__ = ["PlatformSeat", "PlatformError", "HandEnd", "ActRequest", "read_act", "read_message"]

# the last hand's finishing order before this seat has seen one (a string, compared with ==:
# a copied or pickled seat held a new object() that no longer matched)
_UNSEEN = "unseen"

STAGES = {"notify": ("beginning", "play", "tribute", "anti-tribute", "back", "episodeOver",
                     "gameOver", "gameResult"),
          "act": ("play", "tribute", "back")}
_ON_LEAD = (None, None, None)       # curAction / greaterAction when nobody owns the table


class PlatformError(ValueError):
    """A platform message that cannot be read, or that contradicts the earlier ones."""


@dataclass(frozen=True)
class HandEnd:
    """What an ``episodeOver`` message says: the finishing order, the hand's level, and
    the cards of the seats that had not gone out (``rest``: seat -> card strings)."""

    order: tuple
    level: int
    rest: dict


@dataclass(frozen=True)
class ActRequest:
    """An ``act`` message read on its own: the seat's hand and the hand's level, the two
    teams' levels (``team_levels``: the seat's team first, as ``selfRank``, ``oppoRank``);
    in ``play`` each seat's card count and the play to beat and its seat as the message
    gives them (None on lead; None in ``tribute`` and ``back``); the platform's actions as sent
    (``raw_actions``) and read (``actions``: each a :class:`Move` for ``play``, a card
    string for ``tribute`` and ``back``; read when first asked for)."""

    stage: str
    hand: Hand
    level: int
    team_levels: tuple
    cards_left: tuple
    table: Optional[Move]
    table_owner: Optional[int]
    raw_actions: list
    rules: Rules

    @cached_property
    def actions(self) -> tuple:
        where = f"act {self.stage}"
        if self.stage == "play":
            return tuple(_read_play(a, self.level, self.rules, where, f"action {i}")
                         for i, a in enumerate(self.raw_actions))
        return tuple(_special(a, self.stage, where, i) for i, a in enumerate(self.raw_actions))


def read_message(text) -> object:
    """The JSON value of a message's text; :class:`PlatformError` when it is not JSON
    (deep nesting, NaN and a key given twice are refused too)."""
    try:
        return parse_json(text)
    except ValueError as exc:
        raise PlatformError(f"a message is JSON text: {exc}: {quoted(text)}") from None


def _fail(where: str, text: str):
    raise PlatformError(f"{where}: {text}")


def _without(counts: np.ndarray, cards: np.ndarray, where: str, what: str) -> np.ndarray:
    """``counts`` less ``cards``; a PlatformError naming the cards this seat lacks."""
    left = counts - cards
    if left.min() < 0:
        missing = format_cards([k for k in range(54) if left[k] < 0])
        _fail(where, f"{what}: this seat does not hold {' '.join(missing)}")
    return left


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _key(msg: dict, key: str, where: str):
    if key not in msg:
        _fail(where, f"the message has no {key!r} (keys: {', '.join(map(quoted, msg))})")
    return msg[key]


def _seat(value, where: str, what: str, lead_ok: bool = False) -> int:
    if not is_whole(value, -1 if lead_ok else 0, 3):
        _fail(where, f"{what} is a seat 0..3{' or -1' if lead_ok else ''}, not "
                     f"{quoted_json(value)}")
    return int(value)


def _level(value, where: str, what: str) -> int:
    # the platform writes ranks as strings; an int would be ambiguous (rank or index)
    if not isinstance(value, str):
        _fail(where, f"{what} is a rank such as \"2\" or \"A\", not {quoted_json(value)}")
    try:
        return parse_level(value)
    except LevelError:
        _fail(where, f"{what} is a rank from 2 to A, not {quoted_json(value)}")


def _cards(value, where: str, what: str) -> np.ndarray:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        _fail(where, f"{what} is a list of card strings, not {quoted_json(value)}")
    try:
        return to_counts(value, what)
    except (CardError, ValueError) as exc:
        _fail(where, str(exc))


def _action_cards(triple, where: str, what: str) -> np.ndarray:
    """The cards of a platform action (none for a pass); the action's reading is checked
    once the level is known."""
    if not isinstance(triple, list) or len(triple) != 3:
        _fail(where, f"{what} is [type, rank, cards], not {quoted_json(triple)}")
    if triple[0] == "PASS":
        try:
            Move.from_platform(triple, 0)
        except MoveError as exc:
            _fail(where, f"{what}: {exc}")
        return np.zeros(54, dtype=np.uint8)
    return _cards(triple[2], where, f"{what}'s cards")


def _read_play(triple, level: int, rules: Rules, where: str, what: str) -> Move:
    try:
        return Move.from_platform(triple, level, rules)
    except (MoveError, CardError) as exc:
        _fail(where, f"{what}: {exc}")


def _special(triple, kind: str, where: str, i: int) -> str:
    """The card of a ``["tribute", "tribute", [card]]`` or ``["back", "back", [card]]``
    action."""
    if not (isinstance(triple, list) and len(triple) == 3 and triple[0] == kind
            and triple[1] == kind and isinstance(triple[2], list) and len(triple[2]) == 1
            and isinstance(triple[2][0], str)):
        _fail(where, f'action {i} is ["{kind}", "{kind}", [card]], not {quoted_json(triple)}')
    try:
        return format_card(parse_card(triple[2][0]))
    except CardError as exc:
        _fail(where, f"action {i}: {exc}")


def _check_beats(seat: int, move: Move, owner: int, table: Move, where: str) -> None:
    """A PlatformError when another seat's play does not beat the play it answered."""
    if not beats(move, table):
        _fail(where, f"seat {seat}'s {move} does not beat seat {owner}'s {table}, the play "
                     "on the table (RULES sec. 5)")


def _text_key(triple):
    """A platform action as text, its cards in a fixed order (None when it is not a
    well-formed triple of strings); two actions with the same key are the same move."""
    if triple == ["PASS", "PASS", "PASS"]:
        return ("PASS",)
    if isinstance(triple, list) and len(triple) == 3 and isinstance(triple[0], str) and \
            isinstance(triple[1], str) and isinstance(triple[2], list) and \
            all(isinstance(c, str) for c in triple[2]):
        return (triple[0], triple[1], tuple(sorted(triple[2])))
    return None


def _listing(moves, limit: int = 3) -> str:
    shown = ", ".join(str(m) for m in moves[:limit])
    return shown + (", ..." if len(moves) > limit else "")


def read_act(message: dict | str, rules=None) -> ActRequest:
    """Read an ``act`` message on its own (:class:`ActRequest`), as a dict or its JSON
    text; :class:`PlatformError` names a missing or malformed key among those it reads
    (``curPos`` and ``curAction`` are not; ``indexRange`` when present). The play to beat
    is read at the message's ``curRank`` under ``rules`` (``Rules.platform()`` unless
    given)."""
    rules = Rules.platform() if rules is None else Rules.of(rules)
    if isinstance(message, (str, bytes, bytearray)):    # (was "not an act message")
        message = read_message(message)
    if not isinstance(message, dict) or message.get("type") != "act":
        raise PlatformError(f"not an act message: {quoted_json(message)}")
    stage = message.get("stage")
    where = f"act {stage}"
    if stage not in STAGES["act"]:
        _fail("act", f"unknown stage {quoted_json(stage)} (known: {', '.join(STAGES['act'])})")
    counts = _cards(_key(message, "handCards", where), where, "handCards")
    level = _level(_key(message, "curRank", where), where, "curRank")
    mine = _level(_key(message, "selfRank", where), where, "selfRank")
    theirs = _level(_key(message, "oppoRank", where), where, "oppoRank")
    cards_left, table, owner = None, None, None
    if stage == "play":     # (a tribute or return act's table keys are not read)
        public = _key(message, "publicInfo", where)
        if not isinstance(public, list) or len(public) != 4 or \
                not all(isinstance(p, dict) and is_whole(p.get("rest"), 0, 28) for p in public):
            _fail(where, f"publicInfo is four {{\"rest\": cards left, ...}}, not "
                         f"{quoted_json(public)}")
        cards_left = tuple(int(p["rest"]) for p in public)
        owner = _seat(_key(message, "greaterPos", where), where, "greaterPos", lead_ok=True)
        greater = _key(message, "greaterAction", where)
        if owner >= 0 and greater not in (None, list(_ON_LEAD)):
            table = _read_play(greater, level, rules, where, "greaterAction")
            if table.is_pass:
                _fail(where, f"greaterAction is a pass, with greaterPos {owner}")
        elif owner >= 0:
            _fail(where, f"greaterPos is {owner} but greaterAction is {quoted_json(greater)}")
        else:
            owner = None
    raw = _key(message, "actionList", where)
    if not isinstance(raw, list) or not raw:
        _fail(where, f"actionList is a non-empty list of actions, not {quoted_json(raw)}")
    if "indexRange" in message and message["indexRange"] != len(raw) - 1:
        _fail(where, f"indexRange is {quoted_json(message['indexRange'])} for "
                     f"{len(raw)} actions")
    team_levels = (mine, theirs)
    return ActRequest(stage, Hand.from_counts(counts), level, team_levels, cards_left,
                      table, owner, raw, rules)


class PlatformSeat:
    """One seat's side of a platform game: :meth:`receive` takes each message the seat gets
    (a dict or its JSON text) and returns the answer to send (``{"actIndex": i}``) for an
    ``act`` message, None for a ``notify``.

    ``player``: a :class:`~guandan_core.match.Match` player, ``player(observation) ->
    Move`` (or a platform triple), optionally with ``choose_tribute`` and ``choose_return``
    (as a Match asks them). ``rules``: the rules
    the platform plays (``Rules.platform()``: a wild card completes heart straight
    flushes only), for the legal moves and the readings of the plays.

    After an ``act``, :attr:`observation` is what the player was shown; :attr:`hands` lists
    the :class:`HandEnd` of each finished hand; :attr:`game_results` the ``gameOver`` and
    ``gameResult`` messages' contents.
    """

    def __init__(self, player, rules=None):
        if not callable(player):
            raise TypeError(f"player must be callable (observation -> move), not {quoted(player)}")
        self.player = player
        # a MatchRules gives its tribute options too (when tribute is due: a PlatformGame
        # under rules without tribute sends none); otherwise the platform's
        if isinstance(rules, MatchRules):
            self.match_rules, self.rules = rules, rules.core
        else:
            self.match_rules = MatchRules.platform()
            self.rules = Rules.platform() if rules is None else Rules.of(rules)
        self.seat: Optional[int] = None
        self.hands: list = []
        self.game_results: list = []
        self.observation: Optional[Observation] = None
        self.level: Optional[int] = None
        self._counts: Optional[np.ndarray] = None
        self._plays: list = []          # (seat, platform triple) of this hand, in order
        self._history: list = []        # the same as (seat, Move), read once the level is known
        self._cards_left = [27] * 4
        self._finished: list = []
        self._exchanges: list = []
        self._resisted: tuple = ()      # the seats that resisted this hand's tribute
        self._played = np.zeros(54, dtype=np.int16)
        # the trick as the plays leave it (RULES sec. 6): whose turn (None before the
        # hand's first lead), the table's owner (-1 on lead), whether the hand is over
        self._to_move: Optional[int] = None
        self._owner = -1
        self._over = False
        # which play each play had to beat: its index in _plays, -1 for a lead or a pass
        # (checked once the level is known, at the hand's first act)
        self._beaten: list = []
        self._table_at = -1             # the index in _plays of the play on the table
        self._answered: Optional[Move] = None   # this seat's move, until the platform plays it
        # the game's previous hand's finishing order, which says who pays tribute to whom
        # (RULES sec. 8): None in a game's first hand (after a gameOver), _UNSEEN before
        # this seat has seen a hand end
        self._last_order = _UNSEEN
        self._exchange_stage: Optional[str] = None    # the last tribute stage of this hand
        self._offered: Optional[int] = None     # the card this seat paid or returned

    # ------------------------------------------------------------------ reading

    def receive(self, message) -> Optional[dict]:
        """Take one message; the answer for an ``act``, None for a ``notify``."""
        if isinstance(message, (str, bytes, bytearray)):
            message = read_message(message)
        if not isinstance(message, dict):
            raise PlatformError(f"a message is a JSON object, not {quoted_read(message)}")
        kind, stage = message.get("type"), message.get("stage")
        if "type" not in message:
            raise PlatformError(f"a message has a type (notify or act); this one has none: "
                                f"{quoted_json(message)}")
        if not isinstance(kind, str) or kind not in STAGES:
            raise PlatformError(f"unknown message type {quoted_json(kind)} (known: notify, "
                                "act)")
        if not isinstance(stage, str) or stage not in STAGES[kind]:
            raise PlatformError(f"unknown {kind} stage {quoted_json(stage)} (known: "
                                f"{', '.join(STAGES[kind])})")
        where = f"{kind} {stage}"
        if kind == "act":
            return self._act(message, where)
        if stage in ("beginning", "gameOver", "gameResult") and self._counts is not None:
            # (the platform ends a hand with episodeOver before anything of the next hand
            # or game: without one, the seat's picture of the game no longer holds)
            _fail(where, f"a {stage} message during hand {len(self.hands) + 1}, whose "
                         f"episodeOver has not come")
        if stage == "beginning":
            self._beginning(message, where)
            return None
        if stage not in ("gameOver", "gameResult") and self._counts is None:
            _fail(where, "a hand's messages before its beginning message")
        if stage == "play":
            self._play(message, where)
        elif stage in ("tribute", "back"):
            self._exchange(message, where)
        elif stage == "anti-tribute":
            seats = _key(message, "antiPos", where)
            if not isinstance(seats, list) or not seats or len(seats) > 2:
                _fail(where, f"antiPos is a list of one or two seats, not {quoted_json(seats)}")
            seats = [_seat(s, where, "antiPos") for s in seats]
            if len(set(seats)) != len(seats):
                _fail(where, f"antiPos {seats} names a seat twice")
            self._check_exchange_stage(stage, where)
            payers = self._payers()
            if payers is not None and not set(seats) <= set(payers):
                _fail(where, f"antiPos {seats}: after the last hand only seats "
                             f"{sorted(payers) or 'none'} pay tribute (RULES sec. 8)")
            # the resisting payers hold both big jokers between them (RULES sec. 8): what
            # this seat holds must allow that
            big = int(self._counts[BIG_JOKER])
            if big and self.seat not in seats:
                _fail(where, f"antiPos {seats} resist with both big jokers, but this seat, "
                             f"not among them, holds {'both' if big == 2 else 'one'}")
            if seats == [self.seat] and big < 2:
                _fail(where, f"antiPos {seats}: this seat alone resists with both big "
                             f"jokers, but it holds {'one' if big else 'none'}")
            self._resisted = tuple(sorted(seats))
        elif stage == "episodeOver":
            self._episode_over(message, where)
        elif stage == "gameOver":
            self._last_order = None     # the next hand starts a game: no tribute
        else:
            # the end of a session: a session after it may go on with the same match (a
            # PlatformGame's next play() call, the game unfinished and tribute due) or
            # start one, which this seat cannot tell
            self._last_order = _UNSEEN
        if stage in ("gameOver", "gameResult"):
            self.game_results.append({k: v for k, v in message.items()
                                      if k not in ("type", "stage")} | {"stage": stage})
        return None

    @property
    def hand(self) -> Hand:
        """The seat's cards now, as the messages tell them."""
        if self._counts is None:
            raise PlatformError("no hand now: the last hand is over and the next one's "
                                "beginning message has not come" if self.hands else
                                "no hand yet: the beginning message has not come")
        return Hand.from_counts(self._counts)

    @property
    def in_hand(self) -> bool:
        """Whether a hand has begun (its beginning message) and not ended (episodeOver)."""
        return self._counts is not None

    def _beginning(self, msg: dict, where: str) -> None:
        seat = _seat(_key(msg, "myPos", where), where, "myPos")
        if self.seat is not None and seat != self.seat:
            _fail(where, f"myPos is {seat}, but this seat was seat {self.seat}")
        counts = _cards(_key(msg, "handCards", where), where, "handCards")
        if counts.sum() != 27:
            _fail(where, f"handCards holds {counted(int(counts.sum()), 'card')}, not 27")
        self.seat = seat
        self._counts = counts.astype(np.int16)
        self.level = None
        self._ranks = None          # selfRank and oppoRank, as the hand's first act gives them
        self._plays, self._history, self._finished, self._exchanges = [], [], [], []
        self._played = np.zeros(54, dtype=np.int16)
        self._cards_left = [27] * 4
        self._to_move, self._owner, self._over = None, -1, False
        self._beaten, self._table_at = [], -1
        self._answered = None
        self._exchange_stage, self._offered = None, None
        self._resisted = ()

    def _play(self, msg: dict, where: str) -> None:
        seat = _seat(_key(msg, "curPos", where), where, "curPos")
        triple = _key(msg, "curAction", where)
        cards = _action_cards(triple, where, "curAction")
        n = int(cards.sum())
        what = f"seat {seat}'s {quoted_json(triple)}"
        if self._over:
            _fail(where, f"{what} after the hand is over (seats {self._finished} are out)")
        if seat in self._finished:
            _fail(where, f"{what}: seat {seat} went out already")
        if self._to_move is None and not n:
            _fail(where, f"{what}: a pass on the hand's first lead")
        if not self._plays:
            self._check_tribute_done(where, f"{what}, the hand's first play")
            self._check_leader(seat, where, f"{what}, the hand's first play")
        if self._to_move is not None and seat != self._to_move:
            _fail(where, f"{what}, but by the plays seen it is seat {self._to_move}'s turn")
        if not n and self._owner < 0:
            _fail(where, f"{what}: a pass on lead")
        if n > self._cards_left[seat]:
            _fail(where, f"{what}: {n} cards, but seat {seat} holds {self._cards_left[seat]}")
        if seat == self.seat:
            self._take(cards, where, f"its own play {quoted_json(triple)}")
        else:
            seen = self._played + cards + self._counts
            if seen.max() > 2:
                copies = format_cards([k for k in range(54) if seen[k] > 2])
                _fail(where, f"{what}: with the cards played before and this seat's own, "
                             f"that is more than the two copies of {' '.join(copies)}")
        beaten = self._table_at if n else -1
        if self.level is not None:      # (before that, read at the seat's first act)
            move = _read_play(triple, self.level, self.rules, where, what)
            if beaten >= 0:
                _check_beats(seat, move, *self._history[beaten], where)
            if seat == self.seat and self._answered is not None:
                if move != self._answered:
                    _fail(where, f"the platform played {move} for this seat, which answered "
                                 f"{self._answered}")
                self._answered = None
            self._history.append((seat, move))
        self._plays.append((seat, triple))
        self._beaten.append(beaten)
        self._played += cards
        if n:
            self._table_at = len(self._plays) - 1
            self._after_play(seat, n)
        else:
            self._after_pass(seat)

    def _after_play(self, seat: int, n: int) -> None:
        left = self._cards_left
        left[seat] -= n
        self._owner = seat
        if not left[seat]:
            self._finished.append(seat)
            if not left[seat ^ 2]:
                self._over, self._to_move = True, None
                return
        t = (seat + 1) & 3
        while not left[t]:
            t = (t + 1) & 3
        self._to_move = t

    def _after_pass(self, seat: int) -> None:
        left, t = self._cards_left, seat
        while True:
            t = (t + 1) & 3
            if t == self._owner:
                # the trick comes back to its owner, who leads; when the owner is out, its
                # partner leads (RULES sec. 6)
                self._to_move = t if left[t] else t ^ 2
                self._owner, self._table_at = -1, -1
                return
            if left[t]:
                self._to_move = t
                return

    def _take(self, cards: np.ndarray, where: str, what: str) -> None:
        self._counts = _without(self._counts, cards, where, what)

    def _payers(self) -> Optional[tuple]:
        """The seats that pay tribute in this hand by the last hand's finishing order
        (RULES sec. 8; both losers after a 1st-and-2nd finish, else the last player), ()
        in a game's first hand or where the rules make none due (no tribute, or none after
        a 1st-and-4th finish: the seat's MatchRules), None when this seat has not seen the
        last hand end."""
        order = self._last_order
        if order == _UNSEEN:
            return None
        if order is None:
            return ()
        rules = self.match_rules
        if not rules.tribute or (order[3] == order[0] ^ 2 and not rules.tribute_first_last):
            return ()           # (no tribute under these rules)
        return (order[2], order[3]) if order[1] == order[0] ^ 2 else (order[3],)

    def _check_exchange_stage(self, stage: str, where: str) -> None:
        """Refuse a tribute stage (``tribute``, ``back``, ``anti-tribute``, or an act's
        ``act tribute`` / ``act back``) out of the order a hand's tribute takes: payers
        asked, tribute paid, receivers asked, returns made, all before the first play; or
        resistance instead."""
        before = {"act tribute": (None, "act tribute"), "tribute": (None, "act tribute"),
                  "act back": ("tribute", "act back"), "back": ("tribute", "act back"),
                  "anti-tribute": (None,)}[stage]
        if self._plays:
            _fail(where, f"{_a(stage)} stage after the hand's first play")
        if self._exchange_stage not in before:
            done = self._exchange_stage
            _fail(where, f"{_a(stage)} stage " + (
                "before any tribute is paid" if done is None else f"after {done}"))
        if stage != "act back" and self._payers() == ():
            _fail(where, f"{_a(stage)} stage " + (
                "in a game's first hand, where no tribute is due (RULES sec. 8)"
                if self._last_order is None else "where the rules make no tribute due "
                "(RULES sec. 8-9)"))
        self._exchange_stage = stage

    def _check_tribute_done(self, where: str, what: str) -> None:
        """Refuse the hand's first play when the last hand's end made tribute due and the
        tribute and returns (or the resistance) have not all been seen: the seat would play
        with a wrong picture of who holds which cards (RULES sec. 8)."""
        payers = self._payers()
        if payers and self._exchange_stage not in ("back", "anti-tribute"):
            missing = ("no tribute" if self._exchange_stage in (None, "act tribute")
                       else "no return")
            _fail(where, f"{what}, but after the last hand seats {sorted(payers)} pay "
                         f"tribute and {missing} was seen (nor an anti-tribute) (RULES sec. 8)")

    def _check_leader(self, seat: int, where: str, what: str) -> None:
        """Refuse the hand's first lead by ``seat`` when the rules name another leader
        (RULES sec. 8): after tribute the seat that paid the first player (or that first
        player, by the match rules' ``lead_after_tribute``); after resistance, or where the
        rules make no tribute due, the last hand's first player; in a game's first hand
        with an agreed card, its first holder in seat order, as far as this seat's own
        cards tell. Nothing is checked where this seat cannot tell (a random first leader,
        or a seat that has not seen the last hand end)."""
        order = self._last_order
        if order == _UNSEEN:
            return
        if order is None:
            card = self.match_rules.first_leader_card
            if card is None:
                return
            held = int(self._counts[card])
            # (the leader holds the card; when two seats do, the first in seat order)
            if held == 0 and seat == self.seat or \
                    held and seat != self.seat and (held == 2 or seat > self.seat):
                copies = ("no copy", "one copy", "both copies")[held]
                _fail(where, f"{what}, but this seat holds {copies} of "
                             f"{self.match_rules.first_leader}, whose first holder in seat "
                             "order leads a game's first hand (RULES sec. 8-9)")
            return
        leader = _leader_after_tribute(order[0], self._exchanges, self.match_rules)
        if leader != order[0]:
            why = f"seat {leader} paid the tribute to the last hand's first player, seat " \
                  f"{order[0]}, and leads"
        else:
            why = ("after the resistance" if self._exchange_stage == "anti-tribute" else
                   "after the tribute" if self._exchange_stage == "back" else
                   "with no tribute due") + \
                f", the last hand's first player, seat {leader}, leads"
        if seat != leader:
            _fail(where, f"{what}, but {why} (RULES sec. 8-9)")

    def _check_double_tribute(self, level: int, where: str) -> None:
        """Refuse a double tribute whose higher card did not go to the last hand's first
        player (with equal cards: paid by the seat right after the first player), RULES
        sec. 8; checked once the hand's level, which orders the cards, is known."""
        payments = self._exchanges[:2]      # (the tribute's, before the returns)
        first = self._last_order[0]
        (g1, _, k1), = [p for p in payments if p[1] == first]
        (g2, _, k2), = [p for p in payments if p[1] != first]
        if _pays_first_player(first, {g1: k1, g2: k2}, level) == g1:
            return
        gave = f"the double tribute gave seat {g1}'s {format_card(k1)} to seat {first}, " \
               f"the last hand's first player, and seat {g2}'s {format_card(k2)} to seat " \
               f"{self._last_order[1]}"
        if card_order(k1, level) != card_order(k2, level):
            _fail(where, f"{gave}: at level {format_rank(level)} the higher card goes to the "
                         "first player (RULES sec. 8)")
        _fail(where, f"{gave}: with cards of equal rank, seat {(first + 1) & 3}, the seat "
                     f"right after seat {first}, pays seat {first} (RULES sec. 8)")

    def _exchange(self, msg: dict, where: str) -> None:
        stage = where.split()[1]
        result = _key(msg, "result", where)
        if not isinstance(result, list) or not result or len(result) > 2:
            _fail(where, f"result is a list of one or two [giver, receiver, card], not "
                         f"{quoted_json(result)}")
        self._check_exchange_stage(stage, where)
        entries = []        # (giver, receiver, card kind, the entry as sent)
        for entry in result:
            if not isinstance(entry, list) or len(entry) != 3:
                _fail(where, f"a result entry is [giver, receiver, card], not "
                             f"{quoted_json(entry)}")
            giver = _seat(entry[0], where, "a giver")
            receiver = _seat(entry[1], where, "a receiver")
            if giver == receiver:
                _fail(where, f"{quoted_json(entry)}: seat {giver} cannot give a card to itself")
            try:
                if not isinstance(entry[2], str):
                    raise CardError(f"a card is a string such as \"S3\", not "
                                    f"{quoted_json(entry[2])}")
                kind = parse_card(entry[2])
            except CardError as exc:
                _fail(where, f"{quoted_json(entry)}: {exc}")
            entries.append((giver, receiver, kind, entry))
        pairs = [(g, r) for g, r, _, _ in entries]
        givers, receivers = [g for g, _ in pairs], [r for _, r in pairs]
        if len(set(givers)) != len(givers) or len(set(receivers)) != len(receivers):
            _fail(where, f"result {quoted_json(result)} names a seat twice as giver or "
                         "receiver")
        if stage == "tribute":
            payers = self._payers()
            if payers is not None and sorted(givers) != sorted(payers):
                _fail(where, f"result {quoted_json(result)}: after the last hand seats "
                             f"{sorted(payers)} pay tribute (RULES sec. 8)")
            if payers:
                winners = sorted(self._last_order[:len(payers)])
                if sorted(receivers) != winners:
                    _fail(where, f"result {quoted_json(result)}: after the last hand seats "
                                 f"{winners} receive the tribute (RULES sec. 8)")
        else:
            paid = sorted((r, g) for g, r, _ in self._exchanges)
            if sorted(pairs) != paid:
                _fail(where, f"result {quoted_json(result)}: each receiver returns one card to "
                             f"the seat that paid it ({', '.join(f'{g} to {r}' for g, r in paid)})")
        # every entry checked before any is applied: a refused second entry leaves the
        # first one's card where it was
        counts, cards_left = self._counts, list(self._cards_left)
        for giver, receiver, kind, entry in entries:
            card = np.zeros(54, dtype=np.int16)
            card[kind] = 1
            if giver == self.seat:
                if self._offered is not None and kind != self._offered:
                    _fail(where, f"{quoted_json(entry)}: this seat offered "
                                 f"{format_card(self._offered)}")
                counts = _without(counts, card, where, f"{quoted_json(entry)}")
            elif counts[kind] >= 2:
                _fail(where, f"{quoted_json(entry)}: this seat holds both copies of {entry[2]}")
            elif receiver == self.seat:
                counts = counts + card
            cards_left[giver] -= 1
            cards_left[receiver] += 1
        self._counts, self._cards_left = counts, cards_left
        self._exchanges.extend((g, r, k) for g, r, k, _ in entries)
        self._offered = None
        if self.level is not None and self._double_tribute_paid():
            self._check_double_tribute(self.level, where)

    def _double_tribute_paid(self) -> bool:
        """Whether this hand's double tribute has been paid (the tribute notify seen)."""
        payers = self._payers()
        return payers is not None and len(payers) == 2 and \
            self._exchange_stage in ("tribute", "act back", "back")

    def _episode_over(self, msg: dict, where: str) -> None:
        if not self._over:
            _fail(where, f"the hand is not over by the plays seen (seats out: "
                         f"{self._finished or 'none'}; both seats of a team end it)")
        order = _key(msg, "order", where)
        if not isinstance(order, list) or len(order) != 4 or \
                not all(is_whole(s, 0, 3) for s in order) or len(set(order)) != 4:
            _fail(where, f"order is the four seats in finishing order, not "
                         f"{quoted_json(order)}")
        order = tuple(int(s) for s in order)
        if order[:len(self._finished)] != tuple(self._finished):
            _fail(where, f"order {list(order)} does not start with the seats seen going out "
                         f"{self._finished}")
        level = _level(_key(msg, "curRank", where), where, "curRank")
        if self.level is not None and level != self.level:
            _fail(where, f"curRank {format_rank(level)} is not the hand's level "
                         f"{format_rank(self.level)}")
        entries = _key(msg, "restCards", where)
        if not isinstance(entries, list):
            _fail(where, f"restCards is a list of [seat, cards], not {quoted_json(entries)}")
        rest, given, seen = {}, set(), self._played.copy()
        for entry in entries:
            if not isinstance(entry, list) or len(entry) != 2:
                _fail(where, f"a restCards entry is [seat, cards], not {quoted_json(entry)}")
            seat = _seat(entry[0], where, "a restCards seat")
            counts = _cards(entry[1], where, f"seat {seat}'s rest cards")
            if seat in given or int(counts.sum()) != self._cards_left[seat]:
                _fail(where, f"restCards gives seat {seat} {int(counts.sum())} cards"
                             f"{' again' if seat in given else ''}, but the plays leave it "
                             f"{self._cards_left[seat]}")
            if seat == self.seat and not np.array_equal(counts, self._counts):
                _fail(where, f"restCards gives this seat {' '.join(entry[1])}, but it holds "
                             f"{self.hand}")
            given.add(seat)
            seen += counts
            if self._cards_left[seat]:      # (an empty entry of a seat gone out says nothing)
                rest[seat] = Hand.from_counts(counts).cards()
        missing = [s for s in range(4) if self._cards_left[s] and s not in rest]
        if missing:
            _fail(where, f"restCards leaves out seats {missing}, which hold cards")
        if self.seat not in given:
            seen += self._counts
        if seen.max() > 2:
            copies = format_cards([k for k in range(54) if seen[k] > 2])
            _fail(where, f"restCards and the cards played hold more than the two copies of "
                         f"{' '.join(copies)}")
        self.hands.append(HandEnd(order, level, rest))
        self._last_order = order
        self._counts = None

    # ------------------------------------------------------------------ answering

    def _act(self, msg: dict, where: str) -> dict:
        if self._counts is None:
            _fail(where, "an act message before the hand's beginning message")
        if self.level is not None:         # (before the actions are read at that level)
            level = _level(_key(msg, "curRank", where), where, "curRank")
            if level != self.level:
                _fail(where, f"curRank {format_rank(level)} changed within the hand "
                             f"(level {format_rank(self.level)})")
        request = read_act(msg, self.rules)
        ranks = request.team_levels
        if self._ranks is None:
            if request.level not in ranks:
                _fail(where, f"curRank {format_rank(request.level)} is neither team's level "
                             f"(selfRank {format_rank(ranks[0])}, oppoRank "
                             f"{format_rank(ranks[1])}): a hand is played at the level of "
                             f"the team that won the last one (RULES sec. 8)")
            self._ranks = ranks
        elif ranks != self._ranks:
            _fail(where, f"selfRank {format_rank(ranks[0])} and oppoRank "
                         f"{format_rank(ranks[1])} changed within the hand (they were "
                         f"{format_rank(self._ranks[0])} and {format_rank(self._ranks[1])})")
        if self.level is None:
            self.level = request.level
            # (before the hand is compared: a misplaced tribute card shows there too)
            if self._double_tribute_paid():
                self._check_double_tribute(self.level, where)
            # the plays before this seat's first act, read now that the level is known
            self._history = [(s, _read_play(t, self.level, self.rules, where,
                                            f"seat {s}'s {quoted_json(t)}"))
                             for s, t in self._plays]
            for (s, m), beaten in zip(self._history, self._beaten):
                if beaten >= 0:
                    _check_beats(s, m, *self._history[beaten], where)
        held = request.hand.counts.astype(np.int16)
        if not np.array_equal(held, self._counts):
            extra = format_cards([k for k in range(54) for _ in range(max(0, held[k] -
                                                                          self._counts[k]))])
            lost = format_cards([k for k in range(54) for _ in range(max(0, self._counts[k] -
                                                                         held[k]))])
            _fail(where, f"handCards differs from the cards the messages leave this seat "
                         f"(more: {' '.join(extra) or 'none'}; fewer: {' '.join(lost) or 'none'})")
        # (checked in play only: what publicInfo says while tribute changes hands is not
        # documented)
        if request.stage == "play" and request.cards_left != tuple(self._cards_left):
            _fail(where, f"publicInfo gives {list(request.cards_left)} cards left, the plays "
                         f"seen leave {self._cards_left}")
        seat = self.seat
        team_levels = request.team_levels if seat & 1 == 0 else request.team_levels[::-1]
        if request.stage == "play":
            if not self._plays:
                self._check_tribute_done(where, "the hand's first act play")
            request = self._checked_turn(request, where)
            index = self._answer_play(request, team_levels, where)
        elif request.stage == "tribute":
            self._check_exchange_stage("act tribute", where)
            # (a seat that has not seen the last hand end cannot tell: both teams at 2
            # is no first hand where a team that failed at A drops back to 2)
            payers = self._payers()
            if payers is not None and self.seat not in payers:
                _fail(where, f"an act tribute for seat {self.seat}, but after the last hand "
                             f"seats {sorted(payers)} pay tribute (RULES sec. 8)")
            highest = {format_card(k)
                       for k in allowed_tributes(request.hand.counts, request.level)}
            for card in request.actions:
                if card not in highest:
                    _fail(where, f"{card} is offered as tribute, but it is not one of the "
                                 "seat's highest cards that are not wild")
            card = self._tribute_choice(request, team_levels, where)
            index = self._index_of_card(card, request, where)
            self._offered = parse_card(card)
        else:
            self._check_exchange_stage("act back", where)
            if not any(r == self.seat for _, r, _ in self._exchanges):
                _fail(where, f"an act back for seat {self.seat}, which received no tribute "
                             "in this hand")
            index = self._answer_back(request, team_levels, where)
            self._offered = parse_card(request.actions[index])
        return {"actIndex": index}

    def _checked_turn(self, request: ActRequest, where: str) -> ActRequest:
        """The request with the table the plays leave, once the message's turn and table
        agree with them."""
        if self._over:
            _fail(where, f"an act after the hand is over (seats {self._finished} are out)")
        if self._to_move is None:
            self._check_leader(self.seat, where, "an act for the hand's first lead")
            self._to_move = self.seat           # the hand's first lead is this seat's
        elif self._to_move != self.seat:
            _fail(where, f"an act for seat {self.seat}, but by the plays seen it is seat "
                         f"{self._to_move}'s turn")
        given = "on lead" if request.table is None else \
            f"greaterPos {request.table_owner}, greaterAction {request.table}"
        if self._owner < 0:
            # a trick that came back to its owner (or to a finished owner's partner) may
            # still name that owner's play: the seat leads all the same
            if request.table is not None and request.table_owner != self.seat and \
                    request.table_owner not in self._finished:
                _fail(where, f"the message gives {given}, but by the plays seen this seat "
                             "is on lead")
            return replace(request, table=None, table_owner=None)
        table = self._history[self._table_at][1]
        if request.table != table or request.table_owner != self._owner:
            _fail(where, f"the message gives {given}, but by the plays seen seat "
                         f"{self._owner}'s {table} is to beat")
        return request

    def _answer_play(self, request: ActRequest, team_levels: tuple, where: str) -> int:
        level, table = request.level, request.table
        array = moves_array(request.hand, level, table, self.rules)
        moves = MoveList(array, table is not None)
        # the platform's actions matched by their text first (reading each is dearer)
        index = {}
        for i, triple in enumerate(request.raw_actions):
            index.setdefault(_text_key(triple), i)
        index.pop(None, None)
        if len(index) == len(request.raw_actions) and \
                len(moves) == len(index) and \
                all(_text_key(m.to_platform()) in index for m in moves):
            return self._ask_player(moves, request, team_levels, where,
                                    lambda move: index.get(_text_key(move.to_platform())))
        ours, theirs = set(moves), set(request.actions)
        if ours != theirs or len(theirs) != len(request.actions):
            missing = sorted(ours - theirs, key=str)
            extra = sorted(theirs - ours, key=str)
            repeated = sorted((m for m, count in Counter(request.actions).items()
                               if count > 1), key=str)
            _fail(where, "the actionList is not this engine's legal moves for the hand: "
                         f"{counted(len(missing), 'move')} missing from it"
                         f"{' (' + _listing(missing) + ')' if missing else ''}, "
                         f"{_listing(extra) if extra else 'none'} extra"
                         + (f", {_listing(repeated)} listed more than once" if repeated else ""))
        actions = request.actions
        return self._ask_player(moves, request, team_levels, where,
                                lambda move: actions.index(move))

    def _ask_player(self, moves: MoveList, request: ActRequest, team_levels: tuple,
                    where: str, index_of) -> int:
        level = request.level
        obs = Observation(self.seat, level, moves, request.table, request.table_owner,
                          request.cards_left, team_levels, tuple(self._finished),
                          self.rules, request.hand.counts, self._history,
                          len(self._history), tuple(self._exchanges), self._resisted)
        self.observation = obs
        answer = self.player(obs)
        if not isinstance(answer, Move):
            try:
                answer = Move.from_platform(answer, level, self.rules)
            except (MoveError, CardError, TypeError) as exc:
                _fail(where, f"the player answered {quoted(answer)}: {exc}")
        if answer not in moves:
            _fail(where, f"the player's move {answer} is not one of the {len(moves)} "
                         "legal moves")
        self._answered = answer
        return index_of(answer)

    def _tribute_choice(self, request: ActRequest, team_levels: tuple, where: str) -> str:
        """The player's ``choose_tribute(observation, allowed_cards)`` among the cards
        offered, if it has one; else its first highest card in suit order, as a Match."""
        offered = sorted(request.actions, key=parse_card)     # (suit order, as a Match)
        return self._card_choice(
            "choose_tribute", offered, format_card(tribute_card(request.hand.counts,
                                                                request.level)),
            self._cards_left, request, team_levels, where,
            lambda card: f"the player pays {quoted(card)}, not one of the cards offered "
                         f"({' '.join(offered)})")

    def _answer_back(self, request: ActRequest, team_levels: tuple, where: str) -> int:
        allowed = [format_card(k) for k in allowed_returns(request.hand.counts, request.level)]
        if set(allowed) != set(request.actions):
            _fail(where, f"the cards offered to return ({' '.join(request.actions)}) are not "
                         f"the cards a receiver may return ({' '.join(allowed)})")
        # (the card counts as the tribute left them, as a match shows every receiver)
        card = self._card_choice(
            "choose_return", allowed, allowed[0], self._cards_left, request, team_levels,
            where,
            lambda card: f"the player returns {quoted(card)}, not one of the cards it may "
                         f"return ({' '.join(allowed)})", tuple(self._exchanges))
        return self._index_of_card(card, request, where)

    def _card_choice(self, method_name: str, allowed: list, default: str, cards_left,
                     request: ActRequest, team_levels: tuple, where: str, refusal,
                     exchanges: tuple = ()) -> str:
        """The card the player's ``method_name(observation, allowed_cards)`` picks, as a
        Match asks it (an observation with no legal moves and the ``exchanges`` seen so
        far, kept as :attr:`observation`), or ``default`` when the player has no such
        method; ``refusal(card)`` words the error for a card not in ``allowed``."""
        obs = Observation(self.seat, request.level, (), None, None, tuple(cards_left),
                          team_levels, (), self.rules, request.hand.counts, [], 0,
                          exchanges)
        self.observation = obs
        method = getattr(self.player, method_name, None)
        if not callable(method):
            return default
        card = method(obs, list(allowed))
        if card not in allowed:
            _fail(where, refusal(card))
        return card

    @staticmethod
    def _index_of_card(card: str, request: ActRequest, where: str) -> int:
        if card not in request.actions:
            _fail(where, f"{card} is not among the cards offered ({' '.join(request.actions)})")
        return request.actions.index(card)
