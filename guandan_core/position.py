"""A position inside one hand of Guandan, and the turn rules (RULES.md sections 6 and 7).

A :class:`Position` is exactly the state of RULES sec. 7: the level, the four hands, the
finishing order so far, the seat to move and the last play on the table with its owner.
There is no pass counter: a round ends exactly when the turn would reach or skip over the
owner of the last play (sec. 7), which the walk in :meth:`Position.push` implements.

>>> p = Position.from_json({"level": "7", "hands": [["S3"], ["S4"], ["S5"], ["S6"]],
...                         "finished": [], "to_move": 0, "table": None})
>>> [m.to_platform() for m in p.legal_moves()]
[['Single', '3', ['S3']]]
>>> q = p.play(p.legal_moves()[0])
>>> q.is_over, q.finished, q.to_move
(False, (0,), 1)

Turn rules (sec. 6):

* the seat on lead plays any move and may not pass;
* a following seat plays a move that beats the table play, or passes;
* after a pass the turn goes to the next seat that still holds cards, unless the walk
  reaches or passes over the owner of the table play first: then the round ends and the
  owner leads, or, if the owner is out, the owner's partner leads ("takes the wind");
* a seat that plays its last card is out and is appended to the finishing order;
* the hand ends as soon as both seats of one team are out.

When the hand ends the seats still holding cards are appended to the finishing order in
turn order, starting from the seat after the one that went out last
(:meth:`Position.finishing_order`). Only a 1st-2nd finish leaves two seats to append, and
both are losers, so this convention never changes the outcome or the tribute.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Sequence

import numpy as np

from .cards import (NUM_KINDS, CardError, LevelError, format_card, format_rank, is_whole,
                    parse_card, parse_level)
from .hand import MAX_HAND, Hand, card_names
from .jsontext import parse_json
from .usertext import counted, json_kind, quoted, quoted_json
from .moves import (MOVE_DTYPE, Move, MoveError, beats, checked_reading, frozen_records,
                    is_reading, listed_reading)
from .moves import enumerate_scratch as _enumerate   # per-thread scratch buffer
from .rules import Rules

__all__ = ["Position", "PositionError", "IllegalMoveError", "GameOverError", "MoveList",
           "finishing_outcome", "check_finishing_order", "parse_outcome", "OUTCOMES"]

_GAINS = {1: 3, 2: 2, 3: 1}
_JSON_KEYS = ("level", "hands", "finished", "to_move", "table")


class PositionError(ValueError):
    """A position that cannot exist (RULES.md sec. 7): the message says what is wrong."""


class IllegalMoveError(ValueError):
    """A move that the seat to move may not make here; the message names the move."""


class GameOverError(IllegalMoveError):
    """A move asked for after the hand is over."""


def _is_sequence(value) -> bool:
    # what the constructor takes for hands and finished: the seats need an order, which a
    # set, a dict's keys or a 0-d array does not give
    return isinstance(value, (list, tuple, np.ndarray)) and getattr(value, "ndim", 1) != 0


def _describe(move) -> str:
    try:
        return json.dumps(move.to_platform())
    except Exception:  # not a Move: say what it is
        return repr(move)


def finishing_outcome(order) -> int:
    """Outcome of a hand for the team of seats 0 and 2, from a finishing order (sec. 6).

    The first player's team wins 3 levels if the partner finished 2nd, 2 if 3rd, 1 if
    last; the sign is + when the first player is seat 0 or 2.

    >>> finishing_outcome([0, 2, 1, 3]), finishing_outcome([3, 0, 2, 1])
    (3, -1)
    """
    return _order_outcome(check_finishing_order(order))


def _order_outcome(order: list) -> int:
    first = order[0]
    gain = _GAINS[order.index(first ^ 2)]
    return gain if first % 2 == 0 else -gain


def check_finishing_order(order) -> list:
    """A finished hand's finishing order as a list: the seats 0..3, each once, first out
    first; a ValueError naming anything else.

    >>> check_finishing_order((2, 0, 1, 3))
    [2, 0, 1, 3]
    >>> check_finishing_order([0, 0, 1, 3])
    Traceback (most recent call last):
    ...
    ValueError: a finishing order lists the seats 0..3 once each, not [0, 0, 1, 3]
    """
    if _is_sequence(order):     # (a set has no order: {3, 1, 0, 2} read as 0, 1, 2, 3)
        seats = list(order)
        if len(seats) == 4 and all(is_whole(s, 0, 3) for s in seats) \
                and sorted(seats) == [0, 1, 2, 3]:
            return [int(s) for s in seats]
    raise ValueError(f"a finishing order lists the seats 0..3 once each, not {quoted(order)}")


OUTCOMES = (3, 2, 1, -1, -2, -3)    # a hand's values for a team, best first (sec. 6)


def parse_outcome(text: str) -> int:
    """One of the values of sec. 6 from its text: ``+3`` ... ``-3`` (a positive value's
    sign may be left out); a ValueError naming anything else.

    >>> parse_outcome("+2"), parse_outcome("1"), parse_outcome("-3")
    (2, 1, -3)
    """
    if not isinstance(text, str) or re.fullmatch(r"[+-]?[123]", text) is None:
        raise ValueError(f"a hand's value is one of {' '.join(f'{v:+d}' for v in OUTCOMES)}, "
                         f"not {quoted(text)}")
    return int(text)


# ---------------------------------------------------------------------- kernel access
# The hot path calls the compiled enumerator directly with a reused output buffer and the
# hands kept as bytearrays, so a random playout creates no Move object per legal move.
_RECORD = MOVE_DTYPE.itemsize                      # 18 bytes per move record
_TYPE_OFFSET = MOVE_DTYPE.fields["type"][1]
_LABEL_OFFSET = MOVE_DTYPE.fields["label"][1]
_NCARDS_OFFSET = MOVE_DTYPE.fields["ncards"][1]
_CARDS_OFFSET = MOVE_DTYPE.fields["cards"][1]      # uint8 cards[10]


class MoveList(Sequence):
    """The legal moves of one turn as a read-only sequence, made into :class:`Move` objects
    only when asked for: when following, index 0 is ``Move.PASS``; ``array`` holds the
    other moves as ``MOVE_DTYPE`` records (row ``i`` is item ``i + has_pass``), read-only
    for good (a record changed under the moves already made would disagree with them).
    ``in``, ``index(move)`` and ``count(move)`` compare readings: a move read at another
    level is none of these moves."""

    __slots__ = ("_array", "_has_pass", "_cache", "_set")

    def __init__(self, array: np.ndarray, has_pass: bool):
        if not isinstance(array, np.ndarray) or array.dtype != MOVE_DTYPE or array.ndim != 1:
            raise TypeError(f"a MoveList is made of a one-dimensional MOVE_DTYPE array, not "
                            f"{quoted(array)}")
        self._array = frozen_records(array)
        self._has_pass = bool(has_pass)
        self._cache = {}
        self._set = None

    @property
    def array(self) -> np.ndarray:
        return self._array

    @property
    def has_pass(self) -> bool:
        return self._has_pass

    def __len__(self) -> int:
        return len(self.array) + self.has_pass

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = self._position_of(index)
        move = self._cache.get(index)
        if move is None:
            if self.has_pass and index == 0:
                move = Move.PASS
            else:
                move = Move.from_record(self.array[index - self.has_pass], validate=False)
            self._cache[index] = move
        return move

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __reduce__(self):
        # (rebuilt by __init__, whose view is read-only again: a pickled array comes back
        # writable; and __slots__ alone pickled under protocols 2 and later only)
        return MoveList, (self.array, self.has_pass)

    def __eq__(self, other):
        # by value, so that an Observation equals its pickled copy
        if not isinstance(other, MoveList):
            return NotImplemented
        return self.has_pass == other.has_pass and \
            self.array.tobytes() == other.array.tobytes()

    def __hash__(self):
        return hash((self.has_pass, self.array.tobytes()))

    def issued(self, move) -> int:
        """The index of ``move`` if it is one of the objects this list handed out, else -1
        (a fast identity check)."""
        for i, m in self._cache.items():
            if m is move:
                return i
        return -1

    def _position_of(self, index) -> int:
        """``index`` as a position 0..len-1, counted from the end when negative (as a
        list's), else an IndexError; a TypeError for what is no whole number."""
        try:
            index = operator.index(index)       # (a whole number: 1.0 is refused, as by list)
        except TypeError:
            raise TypeError(f"move indices are whole numbers or slices, not "
                            f"{quoted(index)}") from None
        size = len(self.array) + self.has_pass
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("move index out of range")
        return index

    def record(self, index: int) -> bytes:
        """The kernel record (18 bytes) of item ``index``, counted as ``self[index]`` is
        (the pass's own record for the pass; it gave no bytes for the pass and for -1,
        and item -2's for -2)."""
        i = self._position_of(index) - self.has_pass
        if i < 0:
            return Move.PASS.record().tobytes()
        return self.array[i:i + 1].view(np.uint8).tobytes()

    def __contains__(self, move) -> bool:
        if not isinstance(move, Move):
            return False
        if move.is_pass:
            return self.has_pass
        return listed_reading(self, move)

    def index(self, move, start: int = 0, stop: int | None = None) -> int:
        """The index of ``move`` (its reading: the same cards, type, rank and strength), as
        a list's ``index``; a ValueError naming it when it is not there."""
        if move in self:
            reading = move._reading()
            size = len(self)
            for i in range(*slice(start, stop).indices(size)):
                if self[i]._reading() == reading:
                    return i
        raise ValueError(f"{_describe(move)} is not in the list")

    def count(self, move) -> int:
        """How many times ``move`` (its reading) is in the list: 0 or 1, as legal moves
        are all different."""
        return int(move in self)

    def __repr__(self) -> str:
        return f"<MoveList {len(self)} moves{' (pass first)' if self.has_pass else ''}>"


def _seat_index(seat, what: str) -> int:
    if not is_whole(seat, 0, 3):
        raise ValueError(f"{what}: {quoted(seat)} is not a seat 0..3")
    return int(seat)


class Position:
    """The state of one hand (RULES.md sec. 7) with the turn rules of sec. 6.

    Build one with :meth:`from_json` or the constructor (``hands`` as anything
    :class:`Hand` accepts; ``table`` a :class:`Move` or a platform triple). Positions
    compare and hash by :meth:`key`. :meth:`play` returns a new position; :meth:`push` /
    :meth:`pop` change this one in place (for search).

    ``validate=False`` skips the checks of RULES sec. 7 (the table play's reading, the
    cards, the seats) for code that builds positions valid by construction, as a match
    does when it deals; a position that breaks those rules then gives undefined answers
    (the solver may fail an internal check or return a value for an impossible game).
    """

    __slots__ = ("_level", "_rules", "_flags", "_counts", "_views", "_ncards",
                 "_finished", "_to_move", "_tmove", "_trec", "_owner", "_over", "_stack")

    def __init__(self, level, hands, finished=(), to_move=0, table=None, owner=None,
                 rules: Rules | None = None, *, validate: bool = True):
        try:
            self._level = parse_level(level)
        except LevelError as exc:
            raise PositionError(str(exc)) from None
        self._set_rules(rules)
        if not _is_sequence(hands):
            raise PositionError(f"hands: a list of 4 hands, not {quoted(hands)}")
        if len(hands) != 4:
            raise PositionError(f"a position has 4 hands, not {len(hands)}")
        counts = []
        for seat, hand in enumerate(hands):
            if isinstance(hand, np.ndarray) and hand.dtype == np.uint8 \
                    and hand.shape == (NUM_KINDS,):
                raw = bytearray(hand.tobytes())
                if not raw.translate(None, b"\0\1\2"):       # (every count 0, 1 or 2)
                    counts.append(raw)
                    continue
            try:
                if not isinstance(hand, Hand):
                    hand = Hand(hand)
            except (CardError, TypeError) as exc:
                raise PositionError(f"hand of seat {seat}: {exc}") from None
            counts.append(bytearray(hand.counts.tobytes()))
        self._set_counts(counts)
        if not _is_sequence(finished):
            raise PositionError(f"finished: a list of seats in the order they went out, "
                                f"not {quoted(finished)}")
        for s in finished:
            if not is_whole(s, 0, 3):
                raise PositionError(f"finished: {quoted(s)} is not a seat 0..3")
        self._finished = [int(s) for s in finished]
        self._to_move = to_move
        self._tmove = None
        self._trec = None
        if table is None and owner is not None:
            # (an owner of -1, the mark of no table play, passed as None did)
            raise PositionError(f"a table owner ({quoted(owner)}) is given but no table play")
        # None with a table play stays None, for _validate to name what was given
        self._owner = -1 if table is None else owner
        self._stack = []
        self._over = False
        if table is not None:
            if isinstance(table, Move):
                try:
                    move = checked_reading(table, self._level, self._rules, "table play") \
                        if validate else table
                except MoveError as exc:
                    raise PositionError(str(exc)) from None
            else:
                move = self._parse_play(table, "table play")
            if move.is_pass:
                raise PositionError("the table play cannot be a pass "
                                    "(use table null when the seat to move is on lead)")
            self._tmove = move
            self._trec = bytes(move.record())
        if validate:
            self._validate()
        self._over = self._team_out()

    def _set_rules(self, rules):
        self._rules = Rules.of(rules)
        self._flags = self._rules.flags()

    def _set_counts(self, counts):
        self._counts = counts
        self._views = [np.frombuffer(c, dtype=np.uint8) for c in counts]
        self._ncards = [sum(c) for c in counts]

    # ------------------------------------------------------------------ validation
    def _team_out(self) -> bool:
        n = self._ncards
        return (n[0] == 0 and n[2] == 0) or (n[1] == 0 and n[3] == 0)

    def _validate(self) -> None:
        finished = self._finished      # (seats 0..3, checked as they were given)
        if len(set(finished)) != len(finished):
            raise PositionError(f"finished: a seat appears twice in {finished}")
        for seat in range(4):
            if self._ncards[seat] > MAX_HAND:
                raise PositionError(f"seat {seat} holds {self._ncards[seat]} cards "
                                    f"(a hand has at most {MAX_HAND})")
            if seat in finished and self._ncards[seat]:
                raise PositionError(f"seat {seat} is in finished but still holds "
                                    f"{counted(self._ncards[seat], 'card')}")
            if seat not in finished and not self._ncards[seat]:
                raise PositionError(f"seat {seat} holds no cards but is not in finished")
        hand_over = any(team in finished and team + 2 in finished for team in (0, 1))
        if hand_over and any(t in finished[:-1] and t + 2 in finished[:-1] for t in (0, 1)):
            raise PositionError(f"finished: {finished} goes on after a team was out (the "
                                "hand ends when both seats of a team are out)")
        if hand_over and self._to_move is not None:
            team = 0 if 0 in finished and 2 in finished else 1
            raise PositionError(
                f"the hand is already over: seats {team} and {team + 2} are both out "
                "(to_move is null in a finished hand)")
        if not hand_over and self._to_move is None:
            raise PositionError("to_move: null is only for a finished hand (both seats of "
                                "a team out); here a seat is to move")
        views = self._views
        total = views[0] + views[1] + views[2] + views[3]       # (uint8: each at most 2)
        table = self._tmove
        if table is not None:
            for k in table.kinds:
                total[k] += 1
        over = np.flatnonzero(total > 2)
        if over.size:
            k = int(over[0])
            where = "across the four hands and the table" if table is not None \
                else "across the four hands"
            raise PositionError(f"card {format_card(k)} appears {total[k]} times {where} "
                                "(each card exists twice)")
        to_move = self._to_move
        if hand_over:
            # a finished hand, as to_json writes one: the table holds the play that
            # ended it (made by the seat that went out last), or nothing
            # (an owner without a table play is refused on the way in)
            owner = self._owner
            if table is not None:
                if not is_whole(owner, 0, 3) or owner != finished[-1]:
                    raise PositionError(f"table owner: {quoted(owner)} is not the seat that "
                                        f"went out last ({finished[-1]}), whose play ended "
                                        f"the hand")
                self._owner = int(owner)
            return
        if not is_whole(to_move, 0, 3):
            raise PositionError(f"to_move: {quoted(to_move)} is not a seat 0..3")
        self._to_move = to_move = int(to_move)
        if self._ncards[to_move] == 0:
            raise PositionError(f"the seat to move, {to_move}, holds no cards (it is out)")
        owner = self._owner
        if table is None:
            return
        if not is_whole(owner, 0, 3):
            raise PositionError(f"table owner: {quoted(owner)} is not a seat 0..3 (a table play "
                                "needs the seat that played it)")
        self._owner = owner = int(owner)
        if owner == to_move:
            raise PositionError(
                f"seat {to_move} owns the table play and is to move: the round is over, "
                "so the table must be null")
        if self._ncards[owner] == 0 and finished[-1] != owner:
            raise PositionError(
                f"table owner {owner} is out but did not go out last (finished: "
                f"{finished}); the play that put it out must be the last one")

    def _parse_play(self, triple, what):
        if not isinstance(triple, (list, tuple)) or len(triple) != 3:
            raise PositionError(f"{what}: expected [type, rank, cards], got "
                                f"{quoted_json(triple)}")
        try:
            return Move.from_platform(list(triple), format_rank(self._level), self._rules)
        except (ValueError, TypeError) as exc:
            raise PositionError(f"{what} {quoted_json(triple)} is not a legal combination "
                                f"at level {format_rank(self._level)}: {exc}") from None

    # ------------------------------------------------------------------ JSON
    @classmethod
    def from_json(cls, obj, rules: Rules | None = None) -> "Position":
        """Read a position in the JSON of RULES.md sec. 7 (a dict or a JSON string).

        Raises :class:`PositionError` saying what is wrong.
        """
        if isinstance(obj, (str, bytes, bytearray)):
            try:
                obj = parse_json(obj)
            except ValueError as exc:
                raise PositionError(str(exc)) from None
        return cls.from_parsed_json(obj, rules)

    @classmethod
    def from_parsed_json(cls, obj, rules: Rules | None = None) -> "Position":
        """:meth:`from_json` for a value already read from JSON text: a string here is a
        JSON string, not a position, and is refused like any other value but an object.
        """
        if not isinstance(obj, dict):
            raise PositionError(f"a position is a JSON object, not {json_kind(obj)}")
        missing = [k for k in _JSON_KEYS if k not in obj]
        if missing:
            raise PositionError(f"missing key(s): {', '.join(missing)}")
        extra = sorted(set(obj) - set(_JSON_KEYS), key=repr)   # (a dict may mix key types)
        if extra:
            raise PositionError(f"unknown key(s): {', '.join(map(quoted, extra))} "
                                f"(expected {', '.join(_JSON_KEYS)})")
        hands = obj["hands"]
        if not isinstance(hands, list) or len(hands) != 4:
            raise PositionError(f"hands: expected a list of 4 lists of cards, got "
                                f"{quoted_json(hands)}")
        counts = []         # each hand's cards read once, here, as the constructor's counts
        for seat, h in enumerate(hands):
            if not isinstance(h, list):
                raise PositionError(f"hands[{seat}]: expected a list of cards, got {quoted_json(h)}")
            row = bytearray(NUM_KINDS)
            thrice = False
            for card in h:
                if not isinstance(card, str):       # (in JSON's words: null, not None)
                    raise PositionError(f"hands[{seat}]: not a card: {quoted_json(card)}")
                try:
                    kind = parse_card(card)
                except CardError as exc:
                    raise PositionError(f"hands[{seat}]: {exc}") from None
                if row[kind] == 2:
                    thrice = True
                else:
                    row[kind] += 1
            # (a card more than twice: the cards, for the constructor to name the problem)
            counts.append(h if thrice else np.frombuffer(row, dtype=np.uint8))
        finished = obj["finished"]
        if not isinstance(finished, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in finished):
            raise PositionError(f"finished: expected a list of seats, got {quoted_json(finished)}")
        level = obj["level"]
        if not isinstance(level, str):
            raise PositionError(f'level: expected a rank string such as "7", got '
                                f'{quoted_json(level)}')
        table = obj["table"]
        owner = None
        play = None
        if table is not None:
            if not isinstance(table, dict) or set(table) != {"owner", "play"}:
                raise PositionError('table: expected null or {"owner": seat, "play": '
                                    f'[type, rank, cards]}}, got {quoted_json(table)}')
            owner = table["owner"]
            play = table["play"]
            if owner is None:
                raise PositionError("table owner: null is not a seat 0..3")
            if not is_whole(owner, 0, 3):       # (the constructor would name it as Python)
                raise PositionError(f"table owner: {quoted_json(owner)} is not a seat 0..3 (a "
                                    "table play needs the seat that played it)")
        to_move = obj["to_move"]
        if to_move is not None and not is_whole(to_move, 0, 3):
            raise PositionError(f"to_move: {quoted_json(to_move)} is not a seat 0..3")
        return cls(level, counts, finished, to_move, play, owner, rules)

    def to_json(self) -> dict:
        """The position as the JSON object of RULES.md sec. 7."""
        table = None
        if self._trec is not None:
            table = {"owner": self._owner, "play": self.table.to_platform()}
        return {"level": format_rank(self._level),
                "hands": [card_names(view) for view in self._views],
                "finished": list(self._finished),
                "to_move": self.to_move,
                "table": table}

    def to_json_str(self) -> str:
        return json.dumps(self.to_json())

    # ------------------------------------------------------------------ accessors
    def _hand(self, seat) -> Hand:
        return Hand.from_counts(self._views[seat].copy())

    @property
    def level(self) -> int:
        """The level as a rank index 0..12."""
        return self._level

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def hands(self) -> tuple:
        """The four hands (a snapshot: :class:`Hand` objects are immutable)."""
        return tuple(self._hand(s) for s in range(4))

    def hand(self, seat: int) -> Hand:
        """The cards of a seat 0..3 (a ValueError names any other: -1 would be seat 3)."""
        return self._hand(_seat_index(seat, "hand"))

    def counts(self, seat: int) -> np.ndarray:
        """A copy of the uint8[54] card counts of a seat 0..3."""
        return self._views[_seat_index(seat, "counts")].copy()

    def counts_matrix(self) -> np.ndarray:
        """A copy of every seat's card counts: uint8[4, 54], row ``seat``.

        >>> pos = Position("2", [["SA"], ["S3"], [], ["S4"]], finished=[2])
        >>> pos.counts_matrix().sum(axis=1).tolist()
        [1, 1, 0, 1]
        """
        return np.frombuffer(bytearray().join(self._counts), dtype=np.uint8).reshape(4, NUM_KINDS)

    @property
    def cards_left(self) -> tuple:
        """Number of cards each seat holds."""
        return tuple(self._ncards)

    @property
    def finished(self) -> tuple:
        """Seats that are out, in the order they went out."""
        return tuple(self._finished)

    @property
    def to_move(self):
        """The seat to move, or None once the hand is over."""
        return None if self._over else self._to_move

    @property
    def table(self):
        """The last play on the table (a :class:`Move`), None when the seat to move leads."""
        if self._tmove is None and self._trec is not None:
            self._tmove = Move.from_record(np.frombuffer(self._trec, dtype=MOVE_DTYPE)[0],
                                            validate=False)
        return self._tmove

    @property
    def owner(self):
        """The seat that made the table play, None when there is none."""
        return None if self._owner < 0 else self._owner

    @property
    def on_lead(self) -> bool:
        return self._trec is None

    @property
    def is_over(self) -> bool:
        """True once both seats of one team are out (sec. 6)."""
        return self._over

    def finishing_order(self) -> tuple:
        """The full finishing order of a finished hand.

        The seats still holding cards are appended in turn order starting from the seat
        after the last one that went out (see the module docstring).
        """
        if not self._over:
            raise ValueError("the hand is not over: no finishing order yet")
        order = list(self._finished)
        seat = order[-1]
        for _ in range(3):
            seat = (seat + 1) & 3
            if seat not in order:
                order.append(seat)
        return tuple(order)

    @property
    def outcome(self) -> int:
        """+3/+2/+1/-1/-2/-3 for the team of seats 0 and 2 (sec. 6); hand must be over."""
        if not self._over:
            raise ValueError("the hand is not over: no outcome yet")
        return _order_outcome(list(self.finishing_order()))

    def team_value(self, seat: int) -> int:
        """The outcome from the point of view of the team of ``seat`` (hand must be over)."""
        seat = _seat_index(seat, "team_value")
        value = self.outcome
        return value if seat % 2 == 0 else -value

    # ------------------------------------------------------------------ identity
    def key(self) -> tuple:
        """A hashable value that identifies the whole state (and the rule options)."""
        c = self._counts
        rec = self._trec
        table = None if rec is None else \
            (rec[_TYPE_OFFSET], rec[_LABEL_OFFSET],
             tuple(sorted(rec[_CARDS_OFFSET:_CARDS_OFFSET + rec[_NCARDS_OFFSET]])))
        return (self._level, bytes(c[0]) + bytes(c[1]) + bytes(c[2]) + bytes(c[3]),
                tuple(self._finished), self.to_move, table, self._owner, self._flags)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __reduce__(self):
        # the position as it stands, like copy(): the undo stack of push() stays behind
        table = None if self._trec is None else self.table.to_platform()
        return (_restore, (self._level, [bytes(c) for c in self._counts],
                           tuple(self._finished), self._to_move, table, self._owner,
                           self._over, self._rules))

    def copy(self) -> "Position":
        """An independent copy (with an empty undo stack)."""
        new = Position.__new__(Position)
        new._level = self._level
        new._rules = self._rules
        new._flags = self._flags
        new._set_counts([bytearray(c) for c in self._counts])
        new._finished = list(self._finished)
        new._to_move = self._to_move
        new._tmove = self._tmove
        new._trec = self._trec
        new._owner = self._owner
        new._over = self._over
        new._stack = []
        return new

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def __repr__(self) -> str:
        # Python that makes this position again (a JSON text: JSON's null is no Python)
        rules = "" if self._rules == Rules() else f", rules={self._rules!r}"
        return f"Position.from_json({json.dumps(self.to_json())!r}{rules})"

    # ------------------------------------------------------------------ moves
    def legal_moves(self) -> list:
        """The moves of the seat to move: when following, ``Move.PASS`` first, then every
        move that beats the table play; on lead every move (no pass). Empty when over."""
        if self._over:
            return []
        n, buf = _enumerate(self._views[self._to_move], self._level, self._trec, self._flags)
        moves = [] if self._trec is None else [Move.PASS]
        moves.extend(Move.from_array(np.frombuffer(buf, dtype=MOVE_DTYPE, count=n),
                                    validate=False))
        return moves

    def moves_array(self) -> np.ndarray:
        """The non-pass legal moves of the seat to move as a numpy array of ``MOVE_DTYPE``
        records (a fresh copy); when following, passing is legal in addition."""
        if self._over:
            return np.empty(0, dtype=MOVE_DTYPE)
        n, buf = _enumerate(self._views[self._to_move], self._level, self._trec, self._flags)
        # copy as raw bytes: a structured-dtype copy is ~30 times slower
        return np.frombuffer(buf, dtype=np.uint8, count=n * _RECORD).copy() \
            .view(MOVE_DTYPE)

    def move_list(self) -> MoveList:
        """The legal moves as a lazy :class:`MoveList` (same order as :meth:`legal_moves`)."""
        if self._over:
            return MoveList(np.empty(0, dtype=MOVE_DTYPE), False)
        n, buf = _enumerate(self._views[self._to_move], self._level, self._trec, self._flags)
        # (the records copied once, into the bytes that keep them read-only)
        return MoveList(np.frombuffer(bytes(buf[:n * _RECORD]), dtype=MOVE_DTYPE),
                        self._trec is not None)

    def count_moves(self) -> int:
        """Number of legal moves of the seat to move, the pass included when following."""
        if self._over:
            return 0
        n, _ = _enumerate(self._views[self._to_move], self._level, self._trec, self._flags)
        return n if self._trec is None else n + 1

    def is_legal(self, move) -> bool:
        try:
            self._check(move, full=True)
        except IllegalMoveError:
            return False
        return True

    def parse_move(self, move) -> Move:
        """The legal move of the seat to move that ``move`` names, read at this position's
        level and rules: a platform action ``[type, rank, cards]`` (as the competition
        platform sends and takes them), text as ``str(move)`` writes it (``"Pair 4: H2
        C4"``, ``"PASS"``), or a :class:`Move`. A :class:`MoveError` when it cannot be
        read, :class:`IllegalMoveError` when it is not legal here; both name it.

        >>> p = Position.from_json({"level": "2", "hands": [["S3", "H3"], ["S4"], [], []],
        ...                         "finished": [2, 3], "to_move": 0, "table": None})
        >>> p.parse_move(["Single", "4", ["S4"]])
        Traceback (most recent call last):
        ...
        guandan_core.position.IllegalMoveError: seat 0 cannot play ["Single", "4", ["S4"]]: it does not hold S4
        >>> p.push(p.parse_move(["Pair", "3", ["H3", "S3"]]))
        >>> p.is_over, p.finished
        (True, (2, 3, 0))
        """
        if isinstance(move, str):
            move = Move.parse(move, self._level, self._rules)
        elif not isinstance(move, Move):
            move = Move.from_platform(move, self._level, self._rules)
        self._check(move, full=True)
        return move

    def check(self, move) -> None:
        """Raise :class:`IllegalMoveError` (naming the move) unless ``move`` is legal."""
        self._check(move, full=True)

    def _check(self, move, full: bool) -> None:
        if self._over:
            raise GameOverError(f"the hand is over: cannot play {_describe(move)}")
        if not isinstance(move, Move):
            raise IllegalMoveError(f"not a Move: {quoted(move)}")
        seat = self._to_move
        if move.is_pass:
            if move != Move.PASS:
                # (only a record read with validate=False can make one)
                raise IllegalMoveError(f"a move of type PASS with rank label {move.label} and "
                                       f"cards {list(move.kinds)} is no pass")
            if self._trec is None:
                raise IllegalMoveError(f"seat {seat} is on lead and may not pass")
            return
        counts = self._counts[seat]
        need = {}
        for k in move.kinds:
            need[k] = need.get(k, 0) + 1
        for k, n in need.items():
            if counts[k] < n:
                raise IllegalMoveError(f"seat {seat} cannot play {_describe(move)}: it does "
                                       f"not hold {format_card(k)}"
                                       + ("" if counts[k] == 0 else " twice" if n == 2
                                          else f" {n} times"))
        if full and not is_reading(move, self._level, self._rules):
            raise IllegalMoveError(f"{_describe(move)} is not a reading of its cards at "
                                   f"level {format_rank(self._level)}")
        if self._trec is not None and not beats(move, self.table):
            raise IllegalMoveError(f"{_describe(move)} by seat {seat} does not beat the "
                                   f"table play {_describe(self.table)}")

    def play(self, move) -> "Position":
        """A new position after the seat to move makes ``move`` (checked fully)."""
        self._check(move, full=True)
        new = self.copy()
        new._push_move(move)
        new._stack.clear()
        return new

    def push(self, move, check: bool = True) -> None:
        """Make ``move`` in place; :meth:`pop` undoes it.

        With ``check`` (default) an illegal move raises :class:`IllegalMoveError` and
        leaves the position unchanged; ``check=False`` trusts the caller (search code
        pushing moves taken from :meth:`legal_moves`).
        """
        if check:
            self._check(move, full=True)
        self._push_move(move)

    def _push_move(self, move) -> None:
        if move.is_pass:
            self._push_pass()
        else:
            self._push_play(move.kinds, bytes(move.record()), move)

    def _push_pass(self) -> None:
        seat = self._to_move
        owner = self._owner
        ncards = self._ncards
        stack = self._stack
        if len(stack) >= 3 and stack[-1][1] is None and stack[-2][1] is None \
                and stack[-3][1] is None:
            # (a round ends after three passes at most, and a lead is no pass: a fourth
            # is a fault of the turn order above, which would otherwise loop for ever)
            raise RuntimeError(f"a fourth pass in a row, by seat {seat}: the turn order "
                               f"is broken")
        stack.append((seat, None, self._trec, self._tmove, owner))
        t = seat
        while True:
            t = (t + 1) & 3
            if t == owner:
                # the turn reaches (or, when the owner is out, skips over) the owner:
                # the round ends; the owner leads, or its partner takes the wind
                self._to_move = owner if ncards[owner] else owner ^ 2
                self._trec = None
                self._tmove = None
                self._owner = -1
                return
            if ncards[t]:
                self._to_move = t
                return

    def _push_play(self, kinds, rec, move) -> None:
        seat = self._to_move
        ncards = self._ncards
        counts = self._counts[seat]
        for k in kinds:
            counts[k] -= 1
        n = ncards[seat] - len(kinds)
        ncards[seat] = n
        self._stack.append((seat, kinds, self._trec, self._tmove, self._owner))
        self._trec = rec
        self._tmove = move
        self._owner = seat
        if n == 0:
            self._finished.append(seat)
            if ncards[seat ^ 2] == 0:
                self._over = True
                return
        t = (seat + 1) & 3
        while not ncards[t]:
            t = (t + 1) & 3
        self._to_move = t

    def _push_listed(self, moves: MoveList, index: int) -> None:
        """Push item ``index`` of a :meth:`move_list` of this very position (no check)."""
        move = moves[index]
        if move.is_pass:
            self._push_pass()
        else:
            self._push_play(move.kinds, moves.record(index), move)

    def _push_index(self, buf, i: int) -> None:
        """Push record ``i`` of an enumeration's buffer (hot path)."""
        start = i * _RECORD
        rec = bytes(buf[start:start + _RECORD])
        self._push_play(rec[_CARDS_OFFSET:_CARDS_OFFSET + rec[_NCARDS_OFFSET]], rec, None)

    def pop(self):
        """Undo the last :meth:`push`; returns the move undone (IndexError when no move
        is left to undo, like ``list.pop``)."""
        if not self._stack:
            raise IndexError("pop: no pushed move to undo")
        seat, kinds, trec, tmove, owner = self._stack.pop()
        self._to_move = seat
        if kinds is None:
            self._trec = trec
            self._tmove = tmove
            self._owner = owner
            return Move.PASS
        move = self.table
        self._trec = trec
        self._tmove = tmove
        self._owner = owner
        counts = self._counts[seat]
        for k in kinds:
            counts[k] += 1
        if self._ncards[seat] == 0:
            self._finished.pop()
            self._over = False
        self._ncards[seat] += len(kinds)
        return move

    @property
    def depth(self) -> int:
        """Number of pushed moves that :meth:`pop` can undo."""
        return len(self._stack)

    # ------------------------------------------------------------------ playouts
    def random_playout(self, rng) -> int:
        """Play the hand to its end in place with uniformly random legal moves (the pass
        counting as one move when following, as :class:`RandomPlayer` does); returns the
        outcome. ``rng`` is a :class:`random.Random`. The moves are on the undo stack. A
        ``random()`` that gives anything but a number in [0, 1) is a ValueError naming it,
        the moves played before it left on the stack (one of 1.0 or more would pick a move
        past the last, and looped for ever at 7)."""
        if not callable(getattr(rng, "random", None)):
            raise TypeError(f"rng must be a random.Random (or have its random()), not "
                            f"{quoted(rng)}")
        views = self._views
        flags = self._flags
        level = self._level
        rand = rng.random          # int(rand() * n) is uniform on 0..n-1 up to n / 2**53
        while not self._over:
            trec = self._trec
            n, buf = _enumerate(views[self._to_move], level, trec, flags)
            r = rand()
            try:
                unit = 0.0 <= r < 1.0       # (False for NaN)
            except TypeError:
                unit = False
            if not unit:
                raise ValueError(f"rng.random() must give a number in [0, 1), not {quoted(r)}")
            if trec is None:
                self._push_index(buf, int(r * n))
            else:
                i = int(r * (n + 1))
                if i == 0:
                    self._push_pass()
                else:
                    self._push_index(buf, i - 1)
        return self.outcome


def _restore(level, counts, finished, to_move, table, owner, over, rules):
    pos = Position.__new__(Position)
    pos._level = level
    pos._set_rules(rules)
    pos._set_counts([bytearray(c) for c in counts])
    pos._finished = list(finished)
    pos._to_move = to_move
    pos._tmove = None if table is None else Move.from_platform(table, level, rules)
    pos._trec = None if table is None else bytes(pos._tmove.record())
    pos._owner = owner
    pos._over = over
    pos._stack = []
    return pos
