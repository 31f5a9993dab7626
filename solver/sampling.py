"""Imperfect information: deal the hidden hands at random, solve each deal, count.

A seat sees its own hand, the table and how many cards every other seat holds, but not
which: the cards it does not see are one pool, shared out among the other seats. This
module deals that pool at random (the seat's own hand, the table, the finishing order and
every seat's number of cards kept), solves each deal exactly with every move scored, and
counts, for every move of the seat to move, the values it reached over the deals: the
usual "perfect-information Monte Carlo" analysis of card-game programs. The deals depend
only on what the seat sees and on the seed, so a seed gives the same deals, and the solver
being exact, the same answer, whatever the threads.

>>> from solver.sampling import sample_deals, solve_sampled
>>> position = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"],
...             ["C6", "CQ"], ["S4", "SK", "D6"]], "finished": [],
...             "to_move": 0, "table": None}
>>> deals = sample_deals(position, 3, seed=7)
>>> [d.hand(0).cards() for d in deals] == [["S5", "H5", "SJ"]] * 3
True
>>> result = solve_sampled(position, 20, seed=7, threads=1)
>>> result.solved, str(result.best)
(20, 'Pair 5: S5 H5')
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from guandan_core.cards import BIG_JOKER, NUM_KINDS, CardError, format_card, format_cards, \
    format_rank, is_whole, parse_card
from guandan_core.analysis import DECK, unseen_pool
from guandan_core.hand import Hand, to_counts
from guandan_core.match import Observation, card_order, _is_low_card
from guandan_core.moves import Move
from guandan_core.jsontext import parse_json
from guandan_core.position import _JSON_KEYS as _POSITION_KEYS  # (RULES sec. 7)
from guandan_core.position import OUTCOMES, Position, PositionError
from guandan_core.rules import Rules
from guandan_core.usertext import check_callback, counted, json_kind, quoted

from .batch import solve_many
from .search import (DEFAULT_TABLE_BITS, SolveResult, Stop, _checked_interval, _checked_limits,
                     _checked_stop, _json_object, _no_other_keys, _sizes, _solvable,
                     as_position)

__all__ = ["sample_deals", "solve_sampled", "merge_sampled", "read_sampled", "SampledResult",
           "SampledMove", "hidden_pool", "parse_known", "position_from_view", "read_position",
           "view_of_observation"]

_CHUNK = 1024       # deals made and solved at a time by solve_sampled
_STOP_EVERY = 64    # deals made between two readings of a stop
MAX_DEALS = 2**63   # deal numbers are below it
# the way deals are made from a seed; in every result's view, so that results of another
# way (another stream for the same seed) are not merged: 2 is one generator a deal
_DEALING = 2


@dataclass(frozen=True)
class _View:
    """What one seat sees: everything of a position but who holds which hidden card."""
    level: int
    rules: object
    seat: int
    own: np.ndarray            # the seat's hand (uint8[54])
    hidden: tuple              # ((seat, number of cards), ...) of the other seats holding cards
    pool: np.ndarray           # the hidden cards (int64[54]), held between those seats
    finished: tuple
    to_move: int | None
    table: Move | None
    owner: int | None
    public: tuple = ()         # ((seat, counts int64[54]), ...): cards a seat surely holds
    # ((seat, kinds, why), ...): card kinds a hidden seat cannot hold among the cards
    # dealt to it (what the tribute, returns and resistance rule out, RULES sec. 8)
    barred: tuple = ()


def _view_of_position(position: Position, seat: int) -> _View:
    hidden = tuple((s, n) for s, n in enumerate(position.cards_left) if s != seat and n > 0)
    pool = sum((position.counts(s).astype(np.int64) for s, _ in hidden),
               np.zeros(NUM_KINDS, dtype=np.int64))
    return _View(position.level, position.rules, seat, position.counts(seat), hidden, pool,
                 position.finished, position.to_move, position.table, position.owner)


def _view_of_observation(obs: Observation) -> _View:
    # (an Observation built by hand, dataclasses.replace: its seat indexes cards_left
    # and its exchanges' kinds index counts, where -1 read HR and 9 was no seat at all)
    if not is_whole(obs.seat, 0, 3):
        raise ValueError(f"observation: seat must be a seat 0..3, not {quoted(obs.seat)}")
    if not isinstance(obs.rules, Rules):
        raise TypeError(f"observation: rules must be a Rules, not {quoted(obs.rules)}")
    if not isinstance(obs.exchanges, (tuple, list)):
        raise TypeError(f"observation: exchanges must be a tuple of (giver, receiver, card "
                        f"kind), not {quoted(obs.exchanges)}")
    for i, entry in enumerate(obs.exchanges):
        if not (isinstance(entry, (tuple, list)) and len(entry) == 3
                and is_whole(entry[0], 0, 3) and is_whole(entry[1], 0, 3)
                and entry[0] != entry[1] and is_whole(entry[2], 0, NUM_KINDS - 1)):
            raise ValueError(f"observation: exchanges[{i}] must be (giver, receiver, card "
                             f"kind), two different seats 0..3 and a kind 0..53, not "
                             f"{quoted(entry)}")
    resisted = obs.resisted
    if not (isinstance(resisted, (tuple, list)) and len(resisted) <= 2
            and all(is_whole(s, 0, 3) for s in resisted) and len(set(resisted)) == len(resisted)):
        raise ValueError(f"observation: resisted must be the seats that resisted the tribute "
                         f"(at most two different seats 0..3), not {quoted(resisted)}")
    left = obs.cards_left
    if not (isinstance(left, (tuple, list)) and len(left) == 4
            and all(is_whole(n, 0, 28) for n in left)):      # (28: a tribute received)
        raise ValueError(f"observation: cards_left must be the 4 seats' numbers of cards "
                         f"(0..28 each), not {quoted(left)}")
    if not hasattr(obs.legal_moves, "__len__"):
        raise TypeError(f"observation: legal_moves must be the seat's legal moves, not "
                        f"{quoted(obs.legal_moves)}")
    if len(obs.legal_moves) == 0:
        # (what a match shows a seat choosing the card to return after a tribute: it holds
        # the tribute too, and nobody is to move)
        raise ValueError(f"an Observation of a seat to move is needed, not seat {obs.seat}'s "
                         "with no legal moves (a tribute return's)")
    # unseen: the two decks but the seat's hand and every card played so far this hand
    # (a tribute moved cards between hands, not out of them)
    played = sum((move.counts() for _, move in obs.history if not move.is_pass),
                 np.zeros(NUM_KINDS, dtype=np.uint8))
    try:
        pool = unseen_pool(obs.counts, played).astype(np.int64)
    except CardError as exc:
        raise ValueError(f"observation: {exc}") from None
    hidden = tuple((s, int(n)) for s, n in enumerate(obs.cards_left) if s != obs.seat and n > 0)
    if sum(n for _, n in hidden) != int(pool.sum()):
        raise ValueError(f"observation: the other seats hold {sum(n for _, n in hidden)} cards "
                         f"(cards_left {obs.cards_left}) but {int(pool.sum())} are unseen: an "
                         "observation of a whole hand (108 cards dealt) is needed")
    plays = ((seat, move.counts()) for seat, move in obs.history if not move.is_pass)
    public, barred = _tribute_knowledge(obs.seat, obs.level, obs.cards_left, hidden, pool,
                                        obs.exchanges, plays, resisted, ValueError,
                                        "observation: ")
    return _View(obs.level, obs.rules, obs.seat, obs.counts, hidden, pool, obs.finished,
                 obs.seat, obs.table, obs.table_owner, public, barred)


def _tribute_knowledge(seat, level, cards_left, hidden, pool, exchanges, plays, resisted,
                       error, prefix) -> tuple:
    """What this hand's tribute, returns and resistance tell ``seat`` of the hidden hands
    (RULES sec. 8), as the ``public`` and ``barred`` of its :class:`_View`; ``error`` (with
    ``prefix``) when they pin more than the hidden seats hold. ``plays``: ``(seat, counts)``
    of every play made this hand."""
    sizes = dict(hidden)
    public = _surely_held(exchanges, plays, sizes)
    # (exchanges made up by hand may pin more than they can: say so before the deals do)
    for s, counts in public:
        if counts.sum() > cards_left[s]:
            cards = " ".join(format_cards(np.repeat(np.arange(NUM_KINDS), counts)))
            raise error(f"{prefix}seat {s} holds {cards_left[s]} cards, fewer "
                        f"than the {counts.sum()} it surely holds from the tribute and "
                        f"returns ({cards})")
    over = np.flatnonzero(sum((c for _, c in public), np.zeros(NUM_KINDS, np.int64)) > pool)
    if len(over):
        raise error(f"{prefix}by the tribute and returns, seats surely hold "
                    f"{' '.join(format_cards(over))} more times than it is hidden from "
                    f"seat {seat}")
    return public, _ruled_out(exchanges, level, sizes, tuple(int(s) for s in resisted))


def _ruled_out(exchanges, level: int, sizes: dict, resisted: tuple = ()) -> tuple:
    """The card kinds each hidden seat cannot hold by the tribute and returns it made,
    or by the resistance of others (RULES sec. 8), as ``((seat, (kinds...), why), ...)``.

    A payer gave its highest card that is not wild, and a paying side holding both big
    jokers would have resisted instead: after paying it holds no card above the one it
    paid but wild cards, and no big joker (a payer holding one pays it). A receiver returns
    a card of rank 10 or lower that is no level card if it holds one, else its lowest: one
    that returned another card holds none of those and nothing lower. What it received
    back or in tribute is public and pinned (:func:`_surely_held`), so this bars only the
    cards dealt to it. Payers that resisted held both big jokers between them: what is
    left of those is theirs, no other seat's."""
    barred, made = {}, set()
    if resisted:
        why = f"seat{'s' * (len(resisted) > 1)} {' and '.join(map(str, resisted))} " \
              "resisted the tribute with both big jokers"
        for seat in sizes:
            if seat not in resisted:
                barred[seat] = ({BIG_JOKER}, [why])
    wild = level * 4 + 1
    for giver, receiver, kind in exchanges:
        giver, receiver, kind = int(giver), int(receiver), int(kind)
        is_return = (receiver, giver) in made
        made.add((giver, receiver))
        if giver not in sizes:
            continue
        order = card_order(kind, level)
        if not is_return:
            kinds = {k for k in range(NUM_KINDS) if k != wild and card_order(k, level) > order}
            kinds.add(BIG_JOKER)
            why = f"it paid {format_card(kind)} as tribute, its highest card but wild cards"
        elif _is_low_card(kind, level):
            continue
        else:
            kinds = {k for k in range(NUM_KINDS) if _is_low_card(k, level)
                     or card_order(k, level) < order}
            why = (f"it returned {format_card(kind)}, so it held no card of rank 10 or lower "
                   "but level cards, and nothing lower")
        seat_kinds, whys = barred.setdefault(giver, (set(), []))
        seat_kinds |= kinds
        whys.append(why)
    return tuple((seat, tuple(sorted(kinds)), "; ".join(whys))
                 for seat, (kinds, whys) in sorted(barred.items()))


def _surely_held(exchanges, plays, sizes: dict) -> tuple:
    """The cards each hidden seat surely holds from the public tribute and returns: of a
    card kind, what it received less what it gave and what it has played of that kind (its
    own copies of the kind may have gone first, so this much at least is still there).
    The exchanges count in the order they were made: a card given before one of the kind
    came back (a tribute of a 10 returned, sec. 8) takes none from the card received."""
    held = {}
    for giver, receiver, kind in exchanges:
        for seat, step in ((receiver, 1), (giver, -1)):
            if seat in sizes:
                counts = held.setdefault(seat, np.zeros(NUM_KINDS, dtype=np.int64))
                counts[kind] = max(counts[kind] + step, 0)
    for seat, counts in plays:
        if seat in held:
            held[seat] -= counts
    return tuple((seat, np.maximum(counts, 0)) for seat, counts in sorted(held.items())
                 if counts.max() > 0)


_VIEW_KEYS = ("level", "seat", "hand", "cards_left", "finished", "table")
_VIEW_HIDDEN = ("played", "played_by", "unseen")    # (one of them says what is hidden)
_VIEW_TRIBUTE = ("exchanges", "resisted")           # (optional: this hand's tribute)


def position_from_view(obj, rules=None) -> Position:
    """A position from what one seat sees, as JSON: ``level``, ``seat`` (the seat to move,
    whose view it is), ``hand`` (its cards), ``cards_left`` (the four seats' numbers of
    cards), ``finished``, ``table`` (null or ``{"owner": seat, "play": [type, rank,
    cards]}``, as in RULES sec. 7), and one of ``played`` (every card played this hand,
    the table play's included: the hidden cards are then the two decks but the hand and
    those), ``played_by`` (the same cards as four lists, the cards each seat played) or
    ``unseen`` (the hidden cards themselves, for a position not from a whole deal). The
    hidden cards are shared out among the other seats in seat order, each its number of
    them: any sharing does, since deals and answers read only the pool. A view of a whole
    deal may also hold this hand's tribute (RULES sec. 8), which the deals then keep:
    ``exchanges`` (``[giver, receiver, card]`` for each tribute and return, in the order
    they were made; with ``played_by``, which says whether a card received was played
    since) and ``resisted`` (the seats that resisted the tribute); the Position returned
    cannot hold them, so give the view itself to :func:`sample_deals` and
    :func:`solve_sampled` for them to count. A :class:`PositionError` names what is
    wrong.

    >>> p = position_from_view({"level": "2", "seat": 0, "hand": ["S5", "S9"],
    ...                         "unseen": ["S3", "HA", "S4"], "cards_left": [2, 1, 0, 2],
    ...                         "finished": [2], "table": None})
    >>> p.hand(0).cards(), p.cards_left, p.to_move
    (['S5', 'S9'], (2, 1, 0, 2), 0)
    """
    return _read_view(obj, rules)[0]


def view_of_observation(obs: Observation) -> dict:
    """A match's :class:`~guandan_core.match.Observation` as the seat's view, JSON that
    :func:`position_from_view` and ``guandan sample`` read (with ``played_by``, and the
    hand's tribute as ``exchanges`` and ``resisted`` when there was one): deals of it are
    the Observation's, card for card. Its rules are not in it (``guandan sample --rules``).

    >>> from guandan_core.match import Match
    >>> from guandan_core.players import RandomPlayer
    >>> seen, player = [], RandomPlayer(1)
    >>> Match([lambda obs: seen.append(obs) or player(obs)] * 4, seed=5).play(1) and None
    >>> view = view_of_observation(seen[30])
    >>> sorted(view), view["cards_left"]
    (['cards_left', 'finished', 'hand', 'level', 'played_by', 'seat', 'table'], [16, 17, 12, 17])
    >>> sample_deals(view, 2, seed=1) == sample_deals(seen[30], 2, seed=1)
    True
    """
    _view_of_observation(obs)       # (checked as deals of it would check it)
    played = [[] for _ in range(4)]
    for seat, move in obs.history:
        played[seat] += move.cards
    view = {"level": format_rank(obs.level), "seat": obs.seat, "hand": obs.hand.cards(),
            "cards_left": list(obs.cards_left), "finished": list(obs.finished),
            "table": None if obs.table is None else
            {"owner": obs.table_owner, "play": obs.table.to_platform()},
            "played_by": played}
    if obs.exchanges:
        view["exchanges"] = [[g, r, format_card(k)] for g, r, k in obs.exchanges]
    if obs.resisted:
        view["resisted"] = list(obs.resisted)
    return view


def _read_view(obj, rules=None) -> tuple:
    """:func:`position_from_view`'s position, with what the view's tribute tells of the
    hidden hands as the ``(public, barred)`` of its :class:`_View`, or None for a view
    without one."""
    if isinstance(obj, (str, bytes, bytearray)):
        obj = _parsed(obj, "a seat's view")
    if not isinstance(obj, dict):
        raise PositionError(f"a seat's view is a JSON object, not {json_kind(obj)}")
    missing = [k for k in _VIEW_KEYS if k not in obj]
    extra = sorted(set(obj) - set(_VIEW_KEYS) - set(_VIEW_HIDDEN) - set(_VIEW_TRIBUTE),
                   key=repr)
    if missing or extra:
        # both at once: a misspelt key is one of each
        problems = ([f"missing key(s): {', '.join(missing)}"] if missing else []) + \
            ([f"unknown key(s): {', '.join(map(quoted, extra))}"] if extra else [])
        raise PositionError(f"a seat's view: {'; '.join(problems)} (expected "
                            f"{', '.join(_VIEW_KEYS)}, and played, played_by or unseen; "
                            "exchanges and resisted may be given)")
    given = [k for k in _VIEW_HIDDEN if k in obj]
    if len(given) != 1:
        raise PositionError("a seat's view has one of played (the cards played this hand), "
                            "played_by (the cards each seat played) or unseen (the hidden "
                            "cards), not " + (" and ".join(given) if given else "none"))
    hidden_key, = given
    if hidden_key == "unseen" and set(_VIEW_TRIBUTE) & set(obj):
        raise PositionError("a seat's view with unseen cards is not of a whole deal: its "
                            "tribute (exchanges, resisted) needs played or played_by")
    if "exchanges" in obj and hidden_key != "played_by":
        raise PositionError("a seat's view with exchanges needs played_by (the cards each "
                            "seat played), not played: a card received in tribute is still "
                            "held unless its seat played it")
    seat = obj["seat"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise PositionError(f"seat: expected the seat to move, 0..3, not {quoted(seat)}")
    left = obj["cards_left"]
    if not isinstance(left, list) or len(left) != 4 or not all(
            isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 27 for n in left):
        raise PositionError(f"cards_left: expected the 4 seats' numbers of cards (0..27 each), "
                            f"not {quoted(left)}")
    by_seat = obj["played_by"] if hidden_key == "played_by" else None
    if hidden_key == "played_by" and not (isinstance(by_seat, list) and len(by_seat) == 4):
        raise PositionError(f"played_by: expected 4 lists, the cards each seat played this "
                            f"hand, not {quoted(by_seat)}")
    lists = [(key, obj[key]) for key in ("hand", "played", "unseen") if key in obj] + \
        [(f"played_by[{s}]", cards) for s, cards in enumerate(by_seat or ())]
    counts = {}
    for key, cards in lists:
        if not isinstance(cards, list):
            raise PositionError(f"{key}: expected a list of cards, not {quoted(cards)}")
        for card in cards:
            if not isinstance(card, str):       # (as a position's hands: no kind numbers)
                raise PositionError(f"{key}: not a card: {quoted(card)}")
        try:
            counts[key] = _named_counts(cards, key).astype(np.int64)
        except (CardError, TypeError) as exc:
            raise PositionError(str(exc)) from None
    plays = [(s, counts[f"played_by[{s}]"]) for s in range(4)] if by_seat else []
    if plays:
        counts["played"] = sum((c for _, c in plays), np.zeros(NUM_KINDS, dtype=np.int64))
    exchanges = _view_exchanges(obj.get("exchanges", []))
    resisted = obj.get("resisted", [])
    if not (isinstance(resisted, list) and len(resisted) <= 2 and all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 3 for s in resisted)
            and len(set(resisted)) == len(resisted)):
        raise PositionError(f"resisted: expected the seats that resisted the tribute (at most "
                            f"two different seats 0..3), not {quoted(resisted)}")
    hand = counts["hand"]
    if hand.sum() != left[seat]:
        raise PositionError(f"cards_left: seat {seat} holds "
                            f"{counted(int(hand.sum()), 'card')} (hand), "
                            f"not {left[seat]}")
    if "played" in counts:
        pool = DECK - hand - counts["played"]
        what = "the hand and the played cards"
    else:
        pool = counts["unseen"]
        what = "the hand and the unseen cards"
    if pool.min() < 0 or (hand + pool).max() > 2:
        bad = np.flatnonzero((pool < 0) | (hand + pool > 2))
        raise PositionError(f"{what} hold together more than two copies of "
                            f"{' '.join(format_cards(bad))}")
    others = [s for s in range(4) if s != seat]
    if sum(left[s] for s in others) != pool.sum():
        hint = f" ({hidden_key} holds every card played this hand, the table play's too)" \
            if hidden_key != "unseen" else ""
        raise PositionError(f"the other seats hold {sum(left[s] for s in others)} cards "
                            f"(cards_left {left}) but {int(pool.sum())} are hidden{hint}")
    cards = format_cards(np.repeat(np.arange(NUM_KINDS), pool))
    hands, start = [None] * 4, 0
    hands[seat] = format_cards(np.repeat(np.arange(NUM_KINDS), hand))
    for s in others:
        hands[s] = cards[start:start + left[s]]
        start += left[s]
    position = Position.from_parsed_json({"level": obj["level"], "hands": hands,
                                          "finished": obj["finished"], "to_move": seat,
                                          "table": obj["table"]}, rules)
    if not (exchanges or resisted):
        return position, None
    hidden = tuple((s, left[s]) for s in others if left[s] > 0)
    return position, _tribute_knowledge(seat, position.level, left, hidden, pool, exchanges,
                                        plays, sorted(resisted), PositionError,
                                        "a seat's view: ")


def _view_exchanges(entries) -> tuple:
    """A view's ``exchanges`` as ``(giver, receiver, card kind)``; a PositionError names a
    bad one."""
    if not isinstance(entries, list):
        raise PositionError(f"exchanges: expected a list of [giver, receiver, card], not "
                            f"{quoted(entries)}")
    out = []
    for i, entry in enumerate(entries):
        seats_ok = isinstance(entry, list) and len(entry) == 3 and all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 3
            for s in entry[:2]) and entry[0] != entry[1] and isinstance(entry[2], str)
        if not seats_ok:
            raise PositionError(f"exchanges[{i}]: expected [giver, receiver, card], two "
                                f"different seats 0..3 and a card, not {quoted(entry)}")
        try:
            kind = parse_card(entry[2])
        except CardError as exc:
            raise PositionError(f"exchanges[{i}]: {exc}") from None
        out.append((entry[0], entry[1], kind))
    return tuple(out)


def read_position(obj, rules=None) -> Position:
    """A Position from a Position, its JSON (RULES sec. 7) or a seat's view as JSON
    (:func:`position_from_view`: an object with ``hand`` and no ``hands``); JSON text
    is read too. A Position keeps its rules (see :func:`solver.as_position`)."""
    if isinstance(obj, (str, bytes, bytearray)):
        obj = _parsed(obj)
    if _is_view(obj):
        return position_from_view(obj, rules)
    return as_position(obj, rules)


def _parsed(text, what: str = "a position") -> dict:
    """JSON text of a position or a view, read; a PositionError for anything else (the
    text of a JSON string is no position)."""
    try:
        obj = parse_json(text)
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    if not isinstance(obj, dict):
        raise PositionError(f"{what} is a JSON object, not {json_kind(obj)}")
    return obj


def _is_view(obj) -> bool:
    """A dict with a key only a view has and no key only a position has (a view missing
    its hand, or with a misspelt key, is then named as a view), or with keys of both
    kinds and every key of a view but not every key of a position (a view with a stray
    ``to_move`` is named as a view with an unknown key, not as a position without hands)."""
    if not isinstance(obj, dict) or \
            not {"hand", "seat", "cards_left", *_VIEW_HIDDEN, *_VIEW_TRIBUTE} & set(obj):
        return False
    return not {"hands", "to_move"} & set(obj) or \
        (set(_VIEW_KEYS) <= set(obj) and not set(_POSITION_KEYS) <= set(obj))


def _view(position, seat, rules) -> _View:
    if seat is not None and not is_whole(seat, 0, 3):
        raise ValueError(f"seat must be a seat 0..3, not {quoted(seat)}")
    if isinstance(position, Observation):
        if rules is not None:
            raise ValueError("rules given with an Observation, which keeps its own")
        if seat is not None and seat != position.seat:
            raise ValueError(f"seat {quoted(seat)} given with an Observation of seat "
                             f"{position.seat}")
        return _view_of_observation(position)
    if not isinstance(position, (Position, dict, str, bytes, bytearray)):
        raise TypeError(f"a position is a Position, its JSON, a seat's view or a match's "
                        f"Observation, not {quoted(position)}")
    if isinstance(position, (str, bytes, bytearray)):
        position = _parsed(position)
    if not _is_view(position):
        pos = _solvable(as_position(position, rules))
        return _view_of_position(pos, pos.to_move if seat is None else int(seat))
    pos, tribute = _read_view(position, rules)
    pos = _solvable(pos)
    if seat is not None and seat != pos.to_move:
        # a view knows one hand: the others it shares out are made up
        raise ValueError(f"seat {quoted(seat)} given with the view of seat {pos.to_move}: a view "
                         "is that seat's alone")
    view = _view_of_position(pos, pos.to_move)
    if tribute is None:
        return view
    public, barred = tribute
    return replace(view, public=public, barred=barred)


def hidden_pool(position, seat=None, rules=None) -> np.ndarray:
    """The cards ``seat`` (default: the seat to move) does not see, as counts
    (``uint8[54]``): every other seat's hand together. ``position``: a Position, its JSON
    or an :class:`~guandan_core.match.Observation` (then the two decks but the seat's
    hand and the cards played this hand).

    >>> from guandan_core import Hand
    >>> p = {"level": "2", "hands": [["S5"], ["S3"], [], ["HR"]], "finished": [2],
    ...      "to_move": 0, "table": None}
    >>> Hand.from_counts(hidden_pool(p)).cards()
    ['S3', 'HR']
    """
    return _view(position, seat, rules).pool.astype(np.uint8)


def _rng(seed) -> random.Random:
    # random.Random, as a Match deals with: its stream is the same from one Python
    # version to the next, so a seed names the same deals wherever it runs
    if isinstance(seed, random.Random):
        return seed
    if seed is not None and not is_whole(seed, 0, 2**63 - 1):
        raise ValueError(f"seed must be a whole number from 0 to 2**63 - 1, None or a "
                         f"random.Random, not {quoted(seed)}")
    return random.Random(None if seed is None else int(seed))


def _pinned(view: _View, known) -> dict:
    """``known`` (seat -> cards that seat is known to hold) checked against the view, with
    the cards the view itself knows a seat holds (an Observation's tribute and returns):
    of each kind, the larger of the two counts."""
    out = {seat: counts.copy() for seat, counts in view.public}
    if known is None:
        return out
    if not isinstance(known, Mapping):
        raise TypeError(f"known must map seats to the cards they are known to hold, "
                        f"not {quoted(known)}")
    sizes = dict(view.hidden)
    for s, cards in known.items():
        if not is_whole(s, 0, 3):
            # (the text "1" named as text: "'1' is not a whole number" read as a contradiction)
            raise ValueError(f"known: {quoted(s)} is not a seat (seats are the whole numbers "
                             f"0 to 3{', not text' if isinstance(s, str) else ''})")
        if int(s) not in sizes:
            raise ValueError(f"known: {quoted(s)} is not a seat whose hand is hidden from "
                             f"seat {view.seat} (those are {sorted(sizes)})")
        counts = _named_counts(cards, f"known cards of seat {s}").astype(np.int64)
        counts = np.maximum(counts, out.get(int(s), 0))
        if counts.sum() > sizes[int(s)]:
            extra = "" if int(s) not in dict(view.public) else \
                " (with the cards it surely holds from the tribute and returns)"
            raise ValueError(f"known: seat {s} holds {sizes[int(s)]} cards, not the "
                             f"{counts.sum()} given{extra}")
        out[int(s)] = counts
    total = sum(out.values(), np.zeros(NUM_KINDS, dtype=np.int64))
    over = np.flatnonzero(total > view.pool)
    if len(over):
        extra = " with the cards seats surely hold from the tribute and returns" \
            if view.public else ""
        raise ValueError(f"known: {' '.join(format_cards(over))} is not among the cards "
                         f"hidden from seat {view.seat} (or not that many times{extra})")
    return out


def parse_known(text: str) -> dict:
    """Known cards written as text, ``SEAT:CARDS`` parts separated by ``;`` (as
    ``guandan sample --known`` and the engine's ``sample known=`` take them), as the
    ``known`` of :func:`sample_deals`; a ValueError naming a bad part.

    >>> parse_known("3: SK D7; 1:HA")
    {3: ['D7', 'SK'], 1: ['HA']}
    """
    if not isinstance(text, str):
        raise TypeError(f"known cards as text are a str, not {quoted(text)}")
    out = {}
    for part in text.split(";"):
        seat, colon, cards = part.partition(":")
        seat = seat.strip()
        if not colon or seat not in ("0", "1", "2", "3"):
            raise ValueError(f"{quoted(part.strip())} is not SEAT:CARDS (a seat 0..3, a colon, "
                             "the cards; parts separated by ';')")
        if int(seat) in out:
            raise ValueError(f"seat {seat} is given twice")
        if not cards.strip():
            raise ValueError(f"{quoted(part.strip())} names no cards")
        try:
            out[int(seat)] = Hand(cards).cards()
        except ValueError as exc:       # (a CardError: an unknown card, a third copy)
            raise ValueError(f"seat {seat}: {exc}") from None
    return out


def sample_deals(position, n: int, seed=None, seat=None, known=None,
                 rules=None, first: int = 0) -> list[Position]:
    """``n`` positions that ``seat`` (default: the seat to move) cannot tell from
    ``position``: its own hand, the table, the finishing order and every seat's number of
    cards kept, the other hands dealt at random from the cards it does not see.

    ``position``: a Position or its JSON (the other hands are read only as the pool
    of hidden cards: which of them holds what is ignored), a seat's view as JSON (see
    :func:`position_from_view`), or an
    :class:`~guandan_core.match.Observation` of a match (then the seat is its seat and the
    hidden cards are those not in its hand and not played this hand). ``seed``: a whole
    number (the same deals every time, on any machine: deal number i is shuffled by a
    generator seeded with the seed and i alone), None (fresh ones) or a
    ``random.Random`` (the deals are its next shuffles).
    ``known``: ``{seat: cards}``, cards a seat is known to hold (a tribute it received,
    say), dealt to it in every deal. Each is one particular card: when the other copy of
    it is hidden too, that copy is dealt at random like any other card. The rest is as if
    the hidden cards were shuffled and dealt: every order of them (the two copies of a
    card told apart) equally likely. From an Observation, the tribute and return cards
    (public) are pinned too: a seat that received a card and has not given away or played
    that many of its kind since surely holds it, and what the tribute and returns rule out
    is dealt to no seat that made them (RULES sec. 8: a payer holds no card above the one
    it paid but wild cards, nor a big joker; a receiver that returned a card above 10 or
    a level card held none of 10 or lower but level cards, nor any below it; after a
    resistance the hidden big jokers are the resisters'), every deal that fits equally
    likely. Nothing is inferred from the play (that a seat passed):
    what else is known goes in ``known``.
    ``first``: the deals ``first`` to ``first + n - 1`` of the seed's stream (``first +
    n`` at most 2**63), so that slices made apart (in other processes, on other machines)
    are together the deals of one call. With a whole-number seed reaching deal ``first``
    costs nothing; with a ``random.Random`` the shuffles before it are drawn and dropped.
    """
    view = _view(position, seat, rules)
    first, n = _checked_slice(first, n)
    dealer = _Dealer(view, seed, known)
    dealer.skip(first)
    return dealer.deal(n)


def _checked_count(n, name: str = "n") -> int:
    if not is_whole(n, 0):
        raise ValueError(f"{name} must be a whole number of deals >= 0, not {quoted(n)}")
    return int(n)


def _checked_slice(first, n) -> tuple:
    """``first`` and ``n`` checked: the deals' numbers are below 2**63 (MAX_DEALS)."""
    n = _checked_count(n)
    first = _checked_count(first, "first")
    if first + n > MAX_DEALS:
        raise ValueError(f"first + n must be at most 2**63 (deal numbers are below it), not "
                         f"{first} + {n}")
    return first, n


class _Dealer:
    """The deals of a view, one after another: ``deal(k)`` makes the next ``k``, ``skip(k)``
    passes over them.

    With a whole-number seed, deal number ``i`` is shuffled by a generator seeded with the
    seed and ``i`` alone, so skipping costs nothing and any slice of the deals can be made
    anywhere; with a ``random.Random`` they are its next shuffles (skipping draws them),
    with None fresh ones.
    """

    def __init__(self, view: _View, seed, known):
        self.view = view
        self.pinned = _pinned(view, known)
        free = view.pool - sum(self.pinned.values(), np.zeros(NUM_KINDS, dtype=np.int64))
        # the free cards in a fixed order (kinds ascending), so that the deals depend only
        # on what the seat sees and the seed, not on how the given position shared them
        self.cards = np.repeat(np.arange(NUM_KINDS), free).tolist()
        # (seat, how many free cards it takes), in the view's order of the hidden seats
        self.takes = [(s, size - (int(self.pinned[s].sum()) if s in self.pinned else 0))
                      for s, size in view.hidden]
        self.split = _BarredSplit(view, self.pinned, self.cards,
                                  tuple(take for _, take in self.takes)) \
            if view.barred else None
        self.rng = _rng(seed)
        self.base = None if seed is None or isinstance(seed, random.Random) else \
            int(seed) << 64
        self.fresh = seed is None   # (fresh deals: none to skip)
        self.number = 0             # the next deal's number

    def skip(self, k: int, stop: Stop | None = None) -> None:
        if self.base is not None or self.fresh:
            self.number += k
            return
        for done in range(0, k, _CHUNK):    # (a stop is read between chunks)
            if stop is not None and stop.is_set():
                return
            for _ in range(min(_CHUNK, k - done)):
                self._next_dealt()

    def _next_dealt(self) -> dict:
        """The next deal's free cards, seat -> its card kinds (a numbered deal's generator
        seeded with the seed and the deal's number): the shuffle shared out in the order
        of the hidden seats, or, with cards ruled out of seats, the split's deal."""
        if self.base is not None:
            self.rng.seed(self.base | self.number)
        self.number += 1
        if self.split is not None:
            return self.split.deal(self.rng)
        shuffled = self.cards[:]
        self.rng.shuffle(shuffled)
        dealt, start = {}, 0
        for s, take in self.takes:
            dealt[s] = shuffled[start:start + take]
            start += take
        return dealt

    def deal(self, k: int, stop: Stop | None = None) -> list[Position]:
        """The next ``k`` deals as positions. Once ``stop`` is set (read every
        _STOP_EVERY deals) the rest are drawn but not made, and the positions made so far
        returned: a generator shared with the caller moves on by ``k`` deals all the same
        (making 1,024 positions takes 0.1 to 0.2 s, which a time bound overran)."""
        view, out = self.view, []
        for i in range(k):
            if stop is not None and i % _STOP_EVERY == 0 and stop.is_set():
                if self.base is not None or self.fresh:
                    self.number += k - i        # (numbered or fresh deals: nothing shared)
                else:
                    for _ in range(k - i):
                        self._next_dealt()
                break
            hands = [np.zeros(NUM_KINDS, dtype=np.uint8) for _ in range(4)]
            hands[view.seat] = view.own.astype(np.uint8)
            dealt = self._next_dealt()
            for s, _ in view.hidden:
                counts = np.bincount(np.asarray(dealt[s], dtype=np.int64),
                                     minlength=NUM_KINDS)
                fixed = self.pinned.get(s)
                if fixed is not None:
                    counts = counts + fixed
                hands[s] = counts.astype(np.uint8)
            out.append(Position(view.level, hands, view.finished, view.to_move, view.table,
                                view.owner, view.rules))
        return out


class _BarredSplit:
    """Deals of the free cards where some hidden seats cannot hold some kinds (a view's
    ``barred``), every deal that fits equally likely, the two copies of a card told apart,
    as the plain shuffle deals when nothing is barred.

    The free cards fall into classes by the seats that may hold them. A deal is how many
    cards of each class go to each seat, then which: the number of deals for the counts
    of the classes from the j-th on, given what each seat still takes, is counted once
    (exact integers), and each deal picks its counts class by class in proportion to the
    deals they leave, then shuffles each class and shares it out by them.
    """

    def __init__(self, view: _View, pinned: dict, cards: list, quotas: tuple):
        self.seats = [s for s, _ in view.hidden]
        barred = {s: set(kinds) for s, kinds, _ in view.barred}
        public = dict(view.public)
        for s, kinds, why in view.barred:   # (known cards the tribute rules out)
            if s not in pinned:
                continue
            extra = pinned[s] - public.get(s, 0)
            wrong = [k for k in kinds if extra[k] > 0]
            if wrong:
                raise ValueError(f"known: seat {s} cannot hold {' '.join(format_cards(wrong))}: "
                                 f"{why} (RULES sec. 8)")
        groups = {}
        for kind in cards:
            allowed = tuple(i for i, s in enumerate(self.seats) if kind not in barred.get(s, ()))
            if not allowed:
                whys = "; ".join(f"seat {s}: {why}" for s, _, why in view.barred)
                raise ValueError(f"no hidden seat may hold {format_card(kind)} by what the "
                                 f"tribute showed ({whys})")
            groups.setdefault(allowed, []).append(kind)
        # (the class every seat may hold last: what is left of the quotas is its split)
        everyone = tuple(range(len(self.seats)))
        self.classes = sorted(groups.items(), key=lambda item: (item[0] == everyone, item[0]))
        self.quotas = quotas
        self._ways, self._choices = {}, {}
        if self._count(0, quotas) == 0:
            whys = "; ".join(f"seat {s}: {why}" for s, _, why in view.barred)
            raise ValueError(f"no deal of the hidden cards fits what the tribute showed "
                             f"({whys})")

    def _count(self, j: int, quotas: tuple) -> int:
        """The deals of the classes from the j-th on into ``quotas``."""
        if j == len(self.classes):
            return 1 if not any(quotas) else 0
        key = (j, quotas)
        if key not in self._ways:
            total, choices = 0, []
            for split in self._splits(j, quotas):
                left = tuple(q - x for q, x in zip(quotas, split))
                ways = _multinomial(split) * self._count(j + 1, left)
                if ways:
                    total += ways
                    choices.append((total, split, left))
            self._ways[key], self._choices[key] = total, choices
        return self._ways[key]

    def _splits(self, j: int, quotas: tuple):
        """Every way to share the j-th class's cards among the seats that may hold them,
        within ``quotas``."""
        allowed, cards = self.classes[j]
        n = len(cards)
        if j == len(self.classes) - 1:      # (the last class takes what is left)
            if sum(quotas) == n and all(q == 0 or i in allowed for i, q in enumerate(quotas)):
                yield quotas
            return

        def shares(i, left):
            if i == len(allowed) - 1:
                if left <= quotas[allowed[i]]:
                    yield (left,)
                return
            for x in range(min(left, quotas[allowed[i]]), -1, -1):
                for rest in shares(i + 1, left - x):
                    yield (x,) + rest

        for share in shares(0, n):
            split = [0] * len(quotas)
            for seat, x in zip(allowed, share):
                split[seat] = x
            yield tuple(split)

    def deal(self, rng: random.Random) -> dict:
        """One deal: seat -> the free card kinds dealt to it."""
        out = {s: [] for s in self.seats}
        quotas = self.quotas
        for j, (_, cards) in enumerate(self.classes):
            self._count(j, quotas)
            choices = self._choices[(j, quotas)]
            pick = rng.randrange(choices[-1][0])
            _, split, quotas = choices[bisect.bisect_right(choices, pick,
                                                           key=lambda c: c[0])]
            shuffled = cards[:]
            rng.shuffle(shuffled)
            start = 0
            for i, x in enumerate(split):
                out[self.seats[i]] += shuffled[start:start + x]
                start += x
        return out


def _multinomial(parts) -> int:
    """The ways to share sum(parts) told-apart cards out in groups of those sizes."""
    ways, total = 1, 0
    for x in parts:
        total += x
        ways *= math.comb(total, x)
    return ways


@dataclass
class SampledMove:
    """One move (with the moves equivalent to it) over the deals: how often it reached
    each value, for the team of the seat to move."""
    move: Move
    values: dict                   # {value: deals}, every value of OUTCOMES
    best: int                      # deals where this move reaches that deal's value
    equivalent: list = field(default_factory=list)
    legal_index: int = 0           # the move's place in legal_moves() (ties sort by it)

    @property
    def mean(self) -> float | None:
        deals = sum(self.values.values())
        return sum(v * k for v, k in self.values.items()) / deals if deals else None

    def to_json(self) -> dict:
        out = {"move": self.move.to_platform(), "mean": self.mean, "best": self.best,
               "values": {f"{v:+d}": k for v, k in self.values.items()}}
        if self.equivalent:
            out["equivalent"] = [m.to_platform() for m in self.equivalent]
        return out


@dataclass
class SampledResult:
    """What :func:`solve_sampled` found: ``moves`` best first (highest mean value, then
    the most deals where the move is best, then the order of ``legal_moves()``).
    ``seed``: the whole-number seed of the deals (None: a fresh or ``random.Random``
    seed, a stream no one can name again); ``deals``: the deals searched, as ``(start,
    end)`` ranges of that stream's deal numbers (``end`` not included; empty without a
    seed); ``view``: a digest of what the seat to move saw and the ``known`` cards (the
    deals' source), so that results of other positions are not merged; ``node_limit``:
    the node limit each deal was solved under (None: none), which decides what is
    counted, so that results of other limits are not merged either; ``tables``: the
    tables' sizes each deal was solved with, ``(table_bits, max_table_bits)`` with the
    largest resolved, which decide the node counts and, under a node limit, what is
    counted too."""
    moves: list                    # [SampledMove, ...]
    samples: int                   # deals searched: n, unless stop ended the call first
    solved: int                    # deals solved exactly, the ones counted
    nodes: int
    seconds: float = field(compare=False)
    seed: int | None = None
    deals: tuple = ()              # ((start, end), ...), sorted, apart
    view: str | None = None
    node_limit: int | None = None
    tables: tuple | None = None    # (table_bits, max_table_bits)

    @property
    def best(self) -> Move | None:
        return self.moves[0].move if self.moves and self.solved else None

    @property
    def first(self) -> int:
        """The first deal searched (0 with none)."""
        return self.deals[0][0] if self.deals else 0

    def to_json(self) -> dict:
        return {"seed": self.seed, "deals": [list(span) for span in self.deals],
                "view": self.view, "node_limit": self.node_limit,
                "tables": None if self.tables is None else list(self.tables),
                "best": None if self.best is None else self.best.to_platform(),
                "samples": self.samples, "solved": self.solved,
                "moves": [m.to_json() for m in self.moves], "nodes": self.nodes,
                "seconds": self.seconds}


def _joined(spans) -> tuple:
    """Sorted ``(start, end)`` deal ranges with neighbours joined (``end`` excluded)."""
    out: list = []
    for a, b in sorted(spans):
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def _view_key(view: _View, known) -> str:
    """A digest of everything the deals of ``view`` and ``known`` come from: the same
    digest, the same deals for a seed."""
    pinned = _pinned(view, known)
    # (the table play's reading too: five cards with a wild card may be a straight or a
    # straight flush, two positions whose moves and values differ)
    table = None if view.table is None else \
        (view.table.type_id, view.table.label, sorted(int(k) for k in view.table.kinds))
    parts = (_DEALING, view.level, view.rules.flags(), view.seat, view.own.astype(int).tolist(),
             [tuple(map(int, h)) for h in view.hidden], view.pool.astype(int).tolist(),
             [int(x) for x in view.finished], view.to_move, table, view.owner,
             # (a seat known to hold no card is dealt as one nothing is known of)
             sorted((int(s), c.astype(int).tolist()) for s, c in pinned.items() if c.any()))
    if view.barred:     # (what the tribute rules out: another stream of deals)
        parts += tuple((s, kinds) for s, kinds, _ in view.barred),
    return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()


def solve_sampled(position, n: int, seed=None, known=None, threads: int | None = None,
                  time_limit: float | None = None, node_limit: int | None = None,
                  table_bits: int = DEFAULT_TABLE_BITS, max_table_bits: int | None = None,
                  stop: Stop | None = None, rules=None, first: int = 0,
                  on_deal=None, on_info=None,
                  info_interval: float | None = None) -> SampledResult:
    """Every move of the seat to move, valued over ``n`` random deals of the hands it
    cannot see (:func:`sample_deals`, with ``seed`` and ``known``), each deal solved
    exactly with every move scored (:func:`solver.solve_many`, ``threads`` at a time).

    ``time_limit`` / ``node_limit`` apply to each deal; a deal they stop before every
    move has its value is left out of the counts (``solved`` says how many were counted).
    No principal line is made (``pv=False``): the limit goes to the moves' values alone.
    Each deal is solved from empty tables, so the answer, ``nodes`` and what a node limit
    leaves depend only on the view, ``n``, ``seed``, ``known`` and ``first``, not on the
    threads or on earlier solves (a time limit stops where the clock says); the table
    sizes decide the node counts and, under a node limit, what it leaves (they are
    recorded in ``tables``).

    ``first``: solve the deals ``first`` to ``first + n - 1`` of the seed's stream (as
    :func:`sample_deals`), so that with a whole-number seed, calls over the slices of a
    range, run anywhere, give results that :func:`merge_sampled` adds up to exactly the
    result of one call over the whole range.

    ``on_deal(number, result)``: called in the calling thread as each deal is solved (in
    the order they finish), with the deal's number (``first`` to ``first + n - 1``: its
    place in the seed's stream) and its :class:`SolveResult` (a deal a limit or ``stop``
    cut short before every move had its value is given too, and left out of the counts).
    An error it raises ends the call as it was raised.
    ``on_info(number, fields)`` and ``info_interval``: each event of a deal's solve, as
    :func:`solver.solve_many` gives them, in the calling thread, with the deal's number
    (``info_interval`` adds the "working" events of a long search; see
    :func:`solver.solve`); an error ``on_info`` raises ends the call as it was raised.
    """
    start = time.perf_counter()
    check_callback("on_deal", on_deal)
    check_callback("on_info", on_info)
    _checked_interval(info_interval, on_info)
    view = _view(position, None, rules)        # (the seat to move's, an Observation's)
    first, n = _checked_slice(first, n)
    time_limit, node_limit = _checked_limits(time_limit, node_limit)
    tables = _sizes(table_bits, max_table_bits)
    _checked_stop(stop)         # (read before each chunk)
    dealer = _Dealer(view, seed, known)
    dealer.skip(first, stop)
    moves = []          # a SampledMove a group, in legal_moves() order (the same every deal)
    searched = solved = nodes = 0
    numbers = []        # the numbers of the deals searched
    # a chunk at a time: a million deals need not be held at once (with none, one empty
    # chunk: solve_many still checks the options)
    for offset in range(0, max(n, 1), _CHUNK):
        # (the first chunk is drawn even when a stop is set: a player's generator, the
        # seed, then moves on by the same deals whether or not its time bound was met)
        if offset and stop is not None and stop.is_set():
            break
        deals = dealer.deal(min(_CHUNK, n - offset), stop)
        # each deal from empty tables: what a node limit leaves, and the node counts, then
        # depend only on the deal, not on the deals or solves a thread saw before
        results = solve_many(deals, threads=threads, all_moves=True, time_limit=time_limit,
                             node_limit=node_limit, table_bits=table_bits,
                             max_table_bits=max_table_bits, pv=False, stop=stop,
                             fresh_tables=True,
                             on_result=None if on_deal is None else
                             lambda j, result, base=first + offset: on_deal(base + j, result),
                             on_info=None if on_info is None else
                             lambda j, fields, base=first + offset: on_info(base + j, fields),
                             info_interval=info_interval)
        for j, (d, result) in enumerate(zip(deals, results)):
            if result is None:
                continue            # (stop was set before this deal started)
            searched += 1
            numbers.append(first + offset + j)
            nodes += result.nodes
            if not _counted(result):
                continue
            if not moves:
                order = {m: i for i, m in enumerate(d.legal_moves())}
                moves = [SampledMove(s.move, dict.fromkeys(sorted(OUTCOMES, reverse=True), 0),
                                     0, list(s.equivalent), order[s.move])
                         for s in sorted(result.moves, key=lambda s: order[s.move])]
            value_of = {}
            for s in result.moves:
                for m in (s.move, *s.equivalent):
                    value_of[m] = s.value
            for m in moves:
                v = value_of[m.move]
                m.values[v] += 1
                m.best += v == result.value
            solved += 1
    moves.sort(key=_best_first)
    named = int(seed) if seed is not None and not isinstance(seed, random.Random) else None
    return SampledResult(moves, searched, solved, nodes, time.perf_counter() - start,
                         named, _joined((k, k + 1) for k in numbers)
                         if named is not None else (),
                         _view_key(view, known), node_limit, tables)


def _counted(result: SolveResult) -> bool:
    """Whether a deal's solve counts: a limit did not stop it before every move had its
    value."""
    return result.exact and all(s.value is not None for s in result.moves)


def _best_first(m: SampledMove) -> tuple:
    return -m.mean, -m.best, m.legal_index


def read_sampled(obj, position, known=None, rules=None) -> SampledResult:
    """The :class:`SampledResult` that ``obj`` (its ``to_json()``, the object ``guandan
    sample --json`` prints, as a dict or JSON text) records for ``position`` and
    ``known`` (as :func:`solve_sampled` takes them): to merge results written by other
    processes. A ``ValueError`` names a missing or bad key, a result of another position,
    other known cards or other rules (its ``view``), a move that is not legal there or is
    listed twice, a legal move missing, or counts that do not add up.

    >>> position = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"],
    ...             ["C6", "CQ"], ["S4", "SK", "D6"]], "finished": [],
    ...             "to_move": 0, "table": None}
    >>> result = solve_sampled(position, 5, seed=7, threads=1)
    >>> read_sampled(result.to_json(), position) == result
    True
    """
    obj = _json_object(obj, "a sampled result")
    view = _view(position, None, rules)
    # (the seat to move's legal moves depend on its hand and the table alone: any deal
    # of the view has them)
    pos = _Dealer(view, 0, known).deal(1)[0]
    legal = pos.legal_moves()
    index = {m: i for i, m in enumerate(legal)}

    def count(value, what: str, high=2**63 - 1) -> int:
        if not is_whole(value, 0, high):
            raise ValueError(f"{what} must be a whole number from 0 to {high}, not "
                             f"{quoted(value)}")
        return int(value)

    def legal_move(triple, what: str) -> Move:
        try:
            return pos.parse_move(triple)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None

    # (node_limit and tables too: a result saved before they were recorded cannot say
    # what it counted)
    # (seed, deals and seconds too: without them a result was read as seedless, as deals
    # that were not searched, or as taking no time, which to_json never writes)
    for key in ("view", "node_limit", "tables", "samples", "solved", "nodes", "moves", "seed",
                "deals", "seconds"):
        if key not in obj:
            raise ValueError(f"a sampled result needs the key {quoted(key)}")
    _no_other_keys(obj, _RESULT_KEYS, "a sampled result")
    expected = _view_key(view, known)
    if obj["view"] != expected:
        raise ValueError(f"the result is of another position, other known cards or other "
                         f"rules: its view is {quoted(obj['view'])}, this one's "
                         f"{quoted(expected)}")
    samples = count(obj["samples"], "samples")
    solved = count(obj["solved"], "solved", samples)
    nodes = count(obj["nodes"], "nodes")
    seed = obj["seed"]
    if seed is not None:
        seed = count(seed, "seed")
    node_limit = obj["node_limit"]
    if node_limit is not None:
        node_limit = count(node_limit, "node_limit")
    tables = obj["tables"]
    if not isinstance(tables, list) or len(tables) != 2 or tables[1] is None:
        raise ValueError(f"tables must be [table_bits, max_table_bits], two whole numbers, "
                         f"not {quoted(tables)}")
    try:
        tables = _sizes(*tables)
    except ValueError as exc:
        raise ValueError(f"tables: {exc}") from None
    deals = obj["deals"]
    if not isinstance(deals, list) or not all(
            isinstance(d, list) and len(d) == 2 and is_whole(d[0], 0, MAX_DEALS) and
            is_whole(d[1], 0, MAX_DEALS) and d[0] < d[1] for d in deals):
        raise ValueError(f"deals must be a list of [start, end] deal ranges (start < end "
                         f"<= 2**63), not {quoted(deals)}")
    spans = tuple((int(a), int(b)) for a, b in deals)
    apart = list(spans) == sorted(spans) and all(b < c for (_, b), (c, _) in
                                                  zip(spans, spans[1:]))
    if (seed is None and spans) or (seed is not None and (
            not apart or sum(b - a for a, b in spans) != samples)):
        raise ValueError(f"deals {quoted(deals)} are not the {samples} deals searched, in "
                         f"sorted ranges apart (none without a seed)")
    seconds = obj["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
            not 0 <= seconds <= 1e15:
        raise ValueError(f"seconds must be a number from 0 to 1e15, not {quoted(seconds)}")
    if not isinstance(obj["moves"], list):
        raise ValueError(f"moves must be a list, not {quoted(obj['moves'])}")
    if obj["moves"] and not solved:
        raise ValueError("moves are listed but no deal was solved")
    outcomes = sorted(OUTCOMES, reverse=True)
    moves, seen = [], set()
    for i, entry in enumerate(obj["moves"]):
        what = f"moves[{i}]"
        if not isinstance(entry, Mapping) or not {"move", "values", "best"} <= set(entry):
            raise ValueError(f"{what} must be an object with move, values and best, not "
                             f"{quoted(entry)}")
        _no_other_keys(entry, _MOVE_KEYS, what)
        move = legal_move(entry["move"], f"{what}.move")
        equivalent = entry.get("equivalent", [])
        if not isinstance(equivalent, list):
            raise ValueError(f"{what}.equivalent must be a list of moves, not "
                             f"{quoted(equivalent)}")
        same = [legal_move(t, f"{what}.equivalent") for t in equivalent]
        values = entry["values"]
        if not isinstance(values, Mapping) or \
                sorted(values) != sorted(f"{v:+d}" for v in outcomes):
            raise ValueError(f"{what}.values must give a count for each of "
                             f"{', '.join(f'{v:+d}' for v in outcomes)}, not {quoted(values)}")
        counts = {v: count(values[f"{v:+d}"], f"{what}.values[{v:+d}]") for v in outcomes}
        if sum(counts.values()) != solved:
            raise ValueError(f"{what}.values add up to {sum(counts.values())}, not the "
                             f"{solved} deals solved")
        best = count(entry["best"], f"{what}.best", solved)
        for m in (move, *same):
            if m in seen:
                raise ValueError(f"{what}: {m} is listed twice")
            seen.add(m)
        moves.append(SampledMove(move, counts, best, same, index[move]))
        # what the counts make of the mean, as to_json wrote it (the same float)
        if "mean" in entry and entry["mean"] != moves[-1].mean:
            raise ValueError(f"{what}.mean is {quoted(entry['mean'])}, but its values make "
                             f"{moves[-1].mean}")
    if solved and len(seen) != len(legal):
        missing = next(m for m in legal if m not in seen)
        raise ValueError(f"moves: {missing}, a legal move, is missing")
    # (in every deal counted some move keeps its value: the best counts cover them all)
    if sum(m.best for m in moves) < solved:
        raise ValueError(f"the moves' best counts add up to {sum(m.best for m in moves)}, "
                         f"fewer than the {solved} deals solved (in each some move is "
                         f"best)")
    moves.sort(key=_best_first)
    if "best" in obj:
        best = moves[0].move.to_platform() if solved and moves else None
        if obj["best"] != best:
            raise ValueError(f"best is {quoted(obj['best'])}, but the moves' counts make "
                             f"{quoted(best)}")
    return SampledResult(moves, samples, solved, nodes, float(seconds), seed, spans,
                         expected, node_limit, tables)


_RESULT_KEYS = ("seed", "deals", "view", "node_limit", "tables", "best", "samples", "solved",
                "moves", "nodes", "seconds")
_MOVE_KEYS = ("move", "mean", "best", "values", "equivalent")


def _named_counts(cards, what: str) -> np.ndarray:
    """:func:`to_counts`, its errors naming ``what`` the cards are (an unknown card was
    named alone: "unknown card 'Q4'", from a view's unseen cards or a seat's known ones)."""
    try:
        return to_counts(cards, what)
    except CardError as exc:
        if str(exc).startswith(what):
            raise
        raise CardError(f"{what}: {exc}") from None


def _shared(results: list, field: str, differ: str):
    """The value of ``field`` that every result has; a ValueError ``differ`` (its ``{}``
    the values, sorted as text, None written "none" for Python's and JSON's readers
    alike) when they differ."""
    values = {getattr(r, field) for r in results}
    if len(values) > 1:
        raise ValueError(differ.format(", ".join(sorted("none" if v is None else str(v)
                                                        for v in values))))
    return values.pop()


def merge_sampled(results) -> SampledResult:
    """One :class:`SampledResult` from results of the same position over different deals
    (slices of one seed's stream, :func:`solve_sampled`'s ``first``, solved in other
    processes or on other machines): every count added up, the moves ordered again.
    ``seconds`` is the sum of theirs (the work done, not the time it took). Results
    that counted no deal add only their ``samples`` and ``nodes``; the others must have
    the same moves, grouped alike (else a ``ValueError`` names the move that differs).
    They must be of one ``view`` (the same position and known cards), and the results
    of whole-number seeds must share one and search no deal twice (else a
    ``ValueError`` says which), under one node limit (it decides which deals count)
    and with one table size (it decides the node counts, and under a limit what counts);
    the merged ``deals`` are theirs together. A result of a
    fresh or ``random.Random`` seed has no stream to check: with one among them, the
    merged seed is None (and ``deals`` empty), the others still checked.

    >>> position = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"],
    ...             ["C6", "CQ"], ["S4", "SK", "D6"]], "finished": [],
    ...             "to_move": 0, "table": None}
    >>> whole = solve_sampled(position, 20, seed=7, threads=1)
    >>> parts = [solve_sampled(position, 8, seed=7, threads=1),
    ...          solve_sampled(position, 12, seed=7, threads=1, first=8)]
    >>> merge_sampled(parts) == whole
    True
    """
    if isinstance(results, SampledResult):
        raise TypeError("merge_sampled takes a list of SampledResults, not one")
    try:
        results = list(results)
    except TypeError:
        raise TypeError(f"merge_sampled takes a list of SampledResults, not "
                        f"{quoted(results)}") from None
    if not results:
        raise ValueError("merge_sampled needs at least one SampledResult")
    for r in results:
        if not isinstance(r, SampledResult):
            raise TypeError(f"merge_sampled takes SampledResults, not {quoted(r)}")
    view = _shared(results, "view", "the results are of different positions or known "
                                    "cards (views {})")
    node_limit = _shared(results, "node_limit", "the results were solved under different "
                                                "node limits: {} (none: no limit)")
    tables = _shared(results, "tables", "the results were solved with different table "
                                        "sizes: {} (table_bits, max_table_bits)")
    named = [r for r in results if r.seed is not None]
    seeds = {r.seed for r in named}
    if len(seeds) > 1:
        raise ValueError(f"the results are of different seeds: "
                         f"{', '.join(str(x) for x in sorted(seeds))}")
    spans = sorted(span for r in named for span in r.deals)
    for (a, b), (c, d) in zip(spans, spans[1:]):
        if c < b:
            raise ValueError(f"the results search some deals twice: deals {a} to {b - 1} "
                             f"and {c} to {d - 1} of seed {named[0].seed}")
    seed = named[0].seed if named and len(named) == len(results) else None
    deals = _joined(spans) if seed is not None else ()
    moves: list = []
    by_move: dict = {}
    for r in results:
        if not r.solved:
            continue
        if not moves:
            moves = [SampledMove(m.move, dict(m.values), m.best, list(m.equivalent),
                                 m.legal_index)
                     for m in sorted(r.moves, key=lambda m: m.legal_index)]
            by_move = {m.move: m for m in moves}
            continue
        theirs = {m.move: m for m in r.moves}
        for m in r.moves:
            ours = by_move.get(m.move)
            if ours is None or ours.legal_index != m.legal_index or \
                    set(ours.equivalent) != set(m.equivalent):
                raise ValueError(f"the results list or group their moves differently: "
                                 f"move {quoted(str(m.move))} differs")
        for m in moves:
            if m.move not in theirs:
                raise ValueError(f"the results list or group their moves differently: "
                                 f"move {quoted(str(m.move))} differs")
            for v, k in theirs[m.move].values.items():
                m.values[v] = m.values.get(v, 0) + k
            m.best += theirs[m.move].best
    moves.sort(key=_best_first)
    return SampledResult(moves, sum(r.samples for r in results),
                         sum(r.solved for r in results), sum(r.nodes for r in results),
                         sum(r.seconds for r in results), seed, deals, view, node_limit,
                         tables)
