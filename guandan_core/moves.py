"""Moves (a set of cards with one reading), classification, comparison, enumeration.

A move is what RULES.md section 4 calls a combination together with its declared reading:
its type, the platform's rank label, the key it is compared by (section 5), the exact
cards and what each wild card stands for.

>>> m = Move.from_platform(["Pair", "4", ["H2", "C4"]], level="2")
>>> m.type, m.rank, m.cards, m.wild_as
('Pair', '4', ('H2', 'C4'), ('4',))
>>> m.to_platform()
['Pair', '4', ['H2', 'C4']]
>>> [str(r) for r in classify("S5 S6 H7 S8 S9", level="7")]
['Straight 5: S5 S6 H7 S8 S9', 'StraightFlush 5: S5 S6 H7 S8 S9']
>>> beats(Move.from_platform(["Bomb", "3", ["S3", "H3", "C3", "D3"]], "2"), m)
True
>>> [str(m) for m in legal_moves(Hand("S3 S4 D4"), "2")]
['Single 3: S3', 'Single 4: S4', 'Single 4: D4', 'Pair 4: S4 D4']
"""

from __future__ import annotations

import functools
import struct
import threading
from typing import Iterable, Iterator

import numpy as np

from . import _kernels
from .cards import (CARD_NAMES, NUM_KINDS, RANKS, CardError, format_card, format_rank,
                    parse_level)
from .hand import Hand, hand_batch, level_batch, to_counts
from .rules import Rules
from .usertext import one_line, quoted, quoted_json

__all__ = [
    "Move", "MoveError", "LegalMoves", "MOVE_DTYPE", "TYPE_NAMES",
    "classify", "beats", "legal_moves", "moves_array", "moves_array_batch", "checked_reading",
    "is_reading",
]

# One move record, laid out exactly as the kernel's gd_move_t (18 bytes).
MOVE_DTYPE = np.dtype([
    ("type", np.uint8), ("label", np.uint8), ("ncards", np.uint8), ("nwild", np.uint8),
    ("key", np.int16), ("cards", np.uint8, (10,)), ("wild_as", np.uint8, (2,)),
])
assert MOVE_DTYPE.itemsize == _kernels.move_record_size()

PASS, SINGLE, PAIR, TRIPS, THREE_WITH_TWO, STRAIGHT, THREE_PAIR, TWO_TRIPS, \
    STRAIGHT_FLUSH, BOMB, JOKER_BOMB = range(11)
TYPE_NAMES = ("PASS", "Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair",
              "TwoTrips", "StraightFlush", "Bomb", "Bomb")
_TYPE_IDS = {name: i for i, name in enumerate(TYPE_NAMES) if i != JOKER_BOMB}
LABELS = tuple(RANKS) + ("B", "R", "JOKER", "PASS")
_WILD_ANY_SUIT = 64


class MoveError(ValueError):
    """A move that is not a combination, not in the hand, or does not follow the rules."""


def _format_wild_as(value: int) -> str:
    # a card kind (straight flush: the wild is that exact card) or a rank of any suit
    return RANKS[value - _WILD_ANY_SUIT] if value >= _WILD_ANY_SUIT else format_card(value)


# a MOVE_DTYPE record: type, label, ncards, nwild, key, the cards, the wild cards' readings
# (native byte order, as MOVE_DTYPE's key and the kernels' records)
_RECORD = struct.Struct("=BBBBh10s2s")
_WILD_AS_TEXT = {v: _format_wild_as(v) for v in list(range(52)) + list(range(64, 77))}
_WILD_AS_VALUE = {text: v for v, text in _WILD_AS_TEXT.items()}
_PASS_LABEL = LABELS.index("PASS")
_MOST_CARDS = 10        # a play has at most 10 cards (sec. 4; long sequences: sec. 9)


def _listed(values, name: str) -> tuple:
    # (tuple(None) would say only "'NoneType' object is not iterable"; a string was read
    # as its characters: wild_as="44" as two readings, "S7" refused as ('S', '7'))
    if isinstance(values, (str, bytes, bytearray)):
        raise MoveError(f"{name} must be a list of values, not the string {quoted(values)}")
    try:
        return tuple(values)
    except TypeError:
        raise MoveError(f"{name} must be a list of values, not {quoted(values)}") from None


class Move:
    """One combination with one reading; immutable, hashable, picklable.

    Equality is on (type, rank label, cards): the same cards read the same way are one
    move whatever the wild cards are said to stand for.
    """

    # _raw: the kernel record it was read from (18 bytes), which knows which of the
    # cards are the wild ones (they come last); _record: record()'s array, made once
    __slots__ = ("type_id", "label", "key", "kinds", "wild_as", "_raw", "_record")

    PASS: "Move"

    def __init__(self, type_id: int, label: int, key: int, kinds: Iterable[int],
                 wild_as: Iterable[str] = ()):
        type_id = _field("type_id", type_id, 0, JOKER_BOMB)
        label = _field("label", label, 0, len(LABELS) - 1)
        key = _field("key", key, -32768, 32767)
        kinds = tuple(sorted(_field("card kind", k, 0, NUM_KINDS - 1)
                             for k in _listed(kinds, "kinds")))
        if len(kinds) > _MOST_CARDS:
            raise MoveError(f"a move has at most {_MOST_CARDS} cards, not {len(kinds)}")
        wild_as = _listed(wild_as, "wild_as")
        # (isinstance first: a list entry is unhashable, and that is a bad value too)
        if len(wild_as) > 2 or not all(isinstance(w, str) and w in _WILD_AS_VALUE
                                       for w in wild_as):
            raise MoveError(f"wild_as holds at most two ranks (\"4\") or cards (\"S7\") "
                            f"that wild cards stand for, not {quoted(wild_as)}")
        if len(wild_as) > len(kinds):
            raise MoveError(f"{len(wild_as)} wild readings {quoted(wild_as)} for "
                            f"{len(kinds)} card(s): each stands for one of the cards")
        if type_id == PASS and (label != _PASS_LABEL or key or kinds):
            # (such a "pass" would be taken as one by is_pass, and carry cards)
            raise MoveError(f"a pass has rank label {_PASS_LABEL}, key 0 and no cards, not "
                            f"label {label}, key {key}, cards {list(kinds)}")
        for name, value in (("type_id", type_id), ("label", label), ("key", key),
                            ("kinds", kinds), ("wild_as", wild_as), ("_raw", None),
                            ("_record", None)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        # (a move changed in place would leave the sets and dicts holding it, and Move.PASS
        # is every pass of the process; a subclass's own attributes are its business)
        if name in _MOVE_FIELDS:
            raise AttributeError(f"a Move is immutable: {name} cannot be set (make a new "
                                 f"Move)")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in _MOVE_FIELDS:
            raise AttributeError(f"a Move is immutable: {name} cannot be deleted")
        object.__delattr__(self, name)

    # -- construction
    @classmethod
    def from_record(cls, rec, *, validate: bool = True) -> "Move":
        """A Move from one MOVE_DTYPE record (a row of :func:`moves_array`, or its 18 bytes).
        ``validate``: as :meth:`from_bytes`."""
        if isinstance(rec, str) or not hasattr(rec, "tobytes") and not isinstance(
                rec, (bytes, bytearray, memoryview)):
            raise TypeError(f"a move record is a MOVE_DTYPE row or its {_RECORD.size} bytes, "
                            f"not {quoted(rec)}")
        raw = rec.tobytes() if hasattr(rec, "tobytes") else bytes(rec)
        if len(raw) != _RECORD.size:
            # (several records are from_bytes' or from_array's: the rest was dropped)
            raise ValueError(f"a move record is {_RECORD.size} bytes, not {len(raw)}")
        return cls.from_bytes(raw, validate=validate)[0]

    @classmethod
    def from_array(cls, records: np.ndarray, *, validate: bool = True) -> list["Move"]:
        """Moves of a MOVE_DTYPE array, converted in bulk (much faster than per record).
        ``validate``: as :meth:`from_bytes`."""
        if not isinstance(records, np.ndarray) or records.dtype != MOVE_DTYPE:
            raise TypeError(f"records must be a MOVE_DTYPE array, not "
                            f"{getattr(records, 'dtype', type(records).__name__)}")
        return cls.from_bytes(records.tobytes(), validate=validate)

    @classmethod
    def from_bytes(cls, data: bytes, *, validate: bool = True) -> list["Move"]:
        """Moves of MOVE_DTYPE records given as their bytes, one after another (what the
        kernels and the solver return), converted in bulk. A record that is no move (a
        type, label, card count, card kind or wild reading out of range) is a
        :class:`MoveError` quoting its bytes; ``validate=False`` (keyword only) skips that
        check for records a kernel made, as the engine's own calls do (about half the
        time), and a record that is no move then gives undefined answers. ``data``: any
        contiguous buffer (bytes, a numpy array of records), measured in bytes."""
        try:
            data = memoryview(data).cast("B")
        except TypeError:
            raise TypeError(f"from_bytes takes the records' bytes (a contiguous buffer), "
                            f"not {quoted(data)}") from None
        if len(data) % _RECORD.size:
            raise ValueError(f"{len(data)} bytes are not whole {_RECORD.size}-byte move records")
        if validate:
            _check_records(data)
        new = object.__new__
        # each move filled in as a _MoveFilled, which may be written, then made a Move:
        # as fast as writing a Move's fields was (object.__setattr__ for each: x 1.45)
        filled = _MoveFilled if cls is Move else _filled_as(cls)
        moves = []
        for fields in _RECORD.iter_unpack(data):
            mtype, label, n, nwild, key, cards, wild_as = fields
            m = new(filled)
            m.type_id = mtype
            m.label = label
            m.key = key
            m.kinds = tuple(sorted(cards[:n]))
            m.wild_as = tuple(_WILD_AS_TEXT[v] for v in wild_as[:nwild]) if nwild else ()
            m._raw = fields         # (the record's fields as read: packed again by record())
            m._record = None
            m.__class__ = cls
            moves.append(m)
        return moves

    @classmethod
    def from_platform(cls, triple, level, rules: Rules | None = None) -> "Move":
        """Read a platform action ``[type, rank, cards]`` at a level.

        The cards must have that reading (RULES sec. 4), else :class:`MoveError`.
        """
        # (a list or tuple alone: a dict's three keys or an iterator's items were unpacked
        # as a move)
        if not isinstance(triple, (list, tuple)) or len(triple) != 3:
            raise MoveError(f"a move is [type, rank, cards], not {quoted_json(triple)}")
        mtype, rank, cards = triple
        # read first, so that a pass too, which needs neither, takes no bad argument
        level, rules = parse_level(level), Rules.of(rules)
        if isinstance(mtype, str) and mtype == "PASS":
            # the platform writes ["PASS", "PASS", "PASS"]; None and [] are read too
            # (types checked before comparing: a numpy array compares element by element)
            no_cards = cards is None or (isinstance(cards, str) and cards == "PASS") \
                or (isinstance(cards, (list, tuple)) and not cards)
            if not (rank is None or (isinstance(rank, str) and rank == "PASS")) or not no_cards:
                raise MoveError(f"malformed pass {quoted_json(triple)}")
            return cls.PASS
        if not isinstance(mtype, str) or mtype not in _TYPE_IDS:
            raise MoveError(f"unknown move type {quoted_json(mtype)} in {quoted_json(triple)}")
        if not isinstance(rank, str):
            raise MoveError(f"a move's rank is a string such as \"9\" or \"T\", not "
                            f"{quoted_json(rank)} in {quoted_json(triple)}")
        if not isinstance(cards, (list, tuple)) or not all(isinstance(c, str) for c in cards):
            raise MoveError(f"cards must be a list of card strings, not {quoted_json(cards)} in "
                            f"{quoted_json(triple)}")
        label = "T" if rank == "10" else rank.upper()     # as card notation reads ranks (sec. 1)
        try:
            readings = classify(cards, level, rules)
        except CardError as exc:        # (an unknown card, a card three times)
            raise MoveError(f"{exc} in {quoted_json(triple)}") from None
        for reading in readings:
            if reading.type == mtype and reading.rank == label:
                return reading
        shown = one_line(" ".join(cards), 120) if cards else "no cards"
        raise MoveError(f"{shown} is not a {mtype} of rank {quoted(rank)} at level "
                        f"{format_rank(level)}")

    def index_in(self, actions, level, rules: Rules | None = None) -> int:
        """Where this move is in a list of platform actions: the competition platform
        sends its legal moves as ``actionList`` and takes the answer as
        ``{"actIndex": i}``, in its own order, which is not :func:`legal_moves`'s. The
        actions are read at ``level`` under ``rules`` (the platform's are
        ``Rules.platform()``); a :class:`MoveError` names an action of this move's type
        and size that cannot be read, or this move when no action is it.

        >>> actions = [["PASS", "PASS", "PASS"], ["Pair", "9", ["D9", "S9"]]]
        >>> Move.from_platform(["Pair", "9", ["S9", "D9"]], "2").index_in(actions, "2")
        1
        """
        if not isinstance(actions, (list, tuple)):
            raise TypeError(f"actions must be a list of platform actions, not "
                            f"{type(actions).__name__}")
        # read up front: only actions of this move's type and size are read below, so a
        # bad level or rules were blamed on an action, or never named
        level, rules = parse_level(level), Rules.of(rules)
        mine = self.to_platform()
        misread = False
        for i, triple in enumerate(actions):
            if isinstance(triple, (list, tuple)) and len(triple) == 3 and \
                    isinstance(triple[2], (list, tuple)) and \
                    (triple[0] != mine[0] or len(triple[2]) != len(self)):
                continue        # another type or size: not this move (and not read)
            try:
                action = Move.from_platform(triple, level, rules)
            except ValueError as exc:      # (a MoveError, or a CardError for a bad card)
                raise MoveError(f"action {i}: {exc}") from None
            if action == self:
                if action.key == self.key:
                    return i
                misread = True      # (its cards, type and rank, but read at another level)
        raise MoveError(f"{mine} is not one of the {len(actions)} actions"
                        + (f" (it is not a reading of its cards at level "
                           f"{format_rank(parse_level(level))})" if misread else ""))

    @classmethod
    def parse(cls, text: str, level, rules: Rules | None = None) -> "Move":
        """Parse ``str(move)``: ``"Pair 4: H2 C4"`` or ``"PASS"``."""
        if not isinstance(text, str):
            raise TypeError(f"Move.parse reads text such as 'Pair 4: H2 C4', not {quoted(text)}")
        text = text.strip()
        if text.isascii() and text.upper() == "PASS":       # ("paß".upper() is "PASS")
            return cls.from_platform(["PASS", "PASS", "PASS"], level, rules)   # (checks them)
        head, sep, cards = text.partition(":")
        parts = head.split()
        if not sep or len(parts) != 2:
            raise MoveError(f"a move is written 'Type rank: cards', not {quoted(text)}")
        return cls.from_platform([parts[0], parts[1], cards.split()], level, rules)

    # -- views
    @property
    def type(self) -> str:
        return TYPE_NAMES[self.type_id]

    @property
    def rank(self) -> str:
        return LABELS[self.label]

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(map(CARD_NAMES.__getitem__, self.kinds))

    @property
    def is_pass(self) -> bool:
        return self.type_id == PASS

    @property
    def is_bomb(self) -> bool:
        return self.type_id >= STRAIGHT_FLUSH

    def __len__(self) -> int:
        return len(self.kinds)

    def to_platform(self) -> list:
        # (the fields read, not the properties: 0.6 of the time, for each move of a line)
        if self.type_id == PASS:
            return ["PASS", "PASS", "PASS"]
        return [TYPE_NAMES[self.type_id], LABELS[self.label],
                list(map(CARD_NAMES.__getitem__, self.kinds))]

    def record(self) -> np.ndarray:
        """This move as one kernel record (18 bytes, uint8, read-only): the record it was
        read from (a kernel's, so a move of :func:`legal_moves`, :func:`classify` or
        :meth:`from_platform` gives back the same bytes). A Move made from its fields has
        no record to give back: its record holds its wild cards' readings, but its cards
        in ascending order (which of them are wild the level would tell; the kernels
        list them last)."""
        if self._record is None:
            if self._raw is not None:
                raw = _RECORD.pack(*self._raw)
            else:
                raw = _RECORD.pack(self.type_id, self.label, len(self.kinds),
                                   len(self.wild_as), self.key, bytes(self.kinds),
                                   bytes(_WILD_AS_VALUE[w] for w in self.wild_as))
            object.__setattr__(self, "_record", np.frombuffer(raw, dtype=np.uint8))
        return self._record

    def counts(self) -> np.ndarray:
        return to_counts(self.kinds, "move")

    # -- value semantics
    def _ident(self):
        return (self.type_id, self.label, self.kinds)

    def _reading(self):
        # equality plus the strength: what ``in`` a list of legal moves asks, since a Move
        # read at another level is equal but is no legal move here (push refuses it)
        return (self.type_id, self.label, self.kinds, self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, Move) and self._ident() == other._ident()

    def __hash__(self) -> int:
        return hash(self._ident())

    def __reduce__(self):
        if type(self) is not Move:
            return self._reduce_subclass()
        if self._raw is not None:       # (so that record() survives pickling unchanged)
            return (_move_of_record, (_RECORD.pack(*self._raw),))
        return (Move, (self.type_id, self.label, self.key, self.kinds, self.wild_as))

    def _reduce_subclass(self):
        # a subclass comes back as itself, with the attributes of its own (a plain Move's
        # pickle stays as it was, so that an earlier version reads it)
        cls, extra = type(self), getattr(self, "__dict__", None) or None
        if self._raw is not None:
            return (_move_of_record, (_RECORD.pack(*self._raw), cls), extra)
        return (cls, (self.type_id, self.label, self.key, self.kinds, self.wild_as), extra)

    def __str__(self) -> str:
        if self.is_pass:
            return "PASS"
        return f"{self.type} {self.rank}: {' '.join(self.cards)}"

    def __repr__(self) -> str:
        return f"<Move {self}>"


def _field(name: str, value, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` (a Move's field), else a MoveError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not low <= value <= high:
        raise MoveError(f"a move's {name} is a whole number {low}..{high}, not {quoted(value)}")
    return int(value)


_MOVE_FIELDS = frozenset(Move.__slots__)


@functools.lru_cache(maxsize=None)
def _filled_as(cls: type) -> type:
    """A subclass of ``cls`` (Move or a subclass of it) whose fields may be written:
    Move.from_bytes fills a move as one, then makes it a ``cls`` (its class changed; the
    same layout, a ``__dict__`` if ``cls`` has one)."""
    return type(f"_Filled{cls.__name__}", (cls,), {"__slots__": (),
                                                   "__setattr__": object.__setattr__,
                                                   "__delattr__": object.__delattr__})


_MoveFilled = _filled_as(Move)      # (from_bytes' common case, without the cache's call)


def _move_of_record(raw: bytes, cls: type = Move) -> Move:
    return cls.from_bytes(raw)[0]


def _check_records(data: bytes) -> None:
    """A MoveError quoting the first MOVE_DTYPE record of ``data`` that is no move."""
    size = _RECORD.size
    bad = None
    if len(data) >= 32 * size:      # in bulk: a few numpy passes instead of a Python loop
        a = np.frombuffer(data, dtype=MOVE_DTYPE)
        n, nwild, wild_as = a["ncards"], a["nwild"], a["wild_as"]
        wrong = (a["type"] > JOKER_BOMB) | (a["label"] >= len(LABELS)) \
            | (n > _MOST_CARDS) | (nwild > np.minimum(n, 2))
        wrong |= (a["type"] == PASS) & ((a["label"] != _PASS_LABEL) | (a["key"] != 0) | (n != 0))
        wrong |= ((a["cards"] >= NUM_KINDS) & (np.arange(10) < n[:, None])).any(axis=1)
        no_reading = ((wild_as >= 52) & (wild_as < _WILD_ANY_SUIT)) \
            | (wild_as >= _WILD_ANY_SUIT + len(RANKS))
        wrong |= (no_reading & (np.arange(2) < nwild[:, None])).any(axis=1)
        if wrong.any():
            bad = int(np.argmax(wrong))
    else:
        for i, (mtype, label, n, nwild, key, cards, wild_as) in \
                enumerate(_RECORD.iter_unpack(data)):
            if mtype > JOKER_BOMB or label >= len(LABELS) or n > _MOST_CARDS \
                    or nwild > min(n, 2) or (n and max(cards[:n]) >= NUM_KINDS) \
                    or (mtype == PASS and (label != _PASS_LABEL or key or n)) \
                    or (nwild and any(v not in _WILD_AS_TEXT for v in wild_as[:nwild])):
                bad = i
                break
    if bad is not None:
        raise MoveError(f"move record {bad} is not a move: "
                        f"{bytes(data[bad * size:(bad + 1) * size]).hex(' ')}")


Move.PASS = Move(PASS, _PASS_LABEL, 0, ())


# ------------------------------------------------------------------ kernel calls

def _hand_counts(hand) -> np.ndarray:
    if isinstance(hand, Hand):
        return hand._counts
    if isinstance(hand, np.ndarray) and hand.dtype == np.uint8 and hand.shape == (NUM_KINDS,) \
            and hand.flags.c_contiguous and hand.max(initial=0) <= 2:
        return hand
    return to_counts(hand)


def _status_error(status: int, level, what) -> ValueError:
    if status == -2:
        return ValueError(f"bad level {level!r}")
    if status == -3:
        return CardError(f"impossible hand {what!r}: a card kind more than twice")
    return MoveError(f"{what} is not a combination")


_buffer_moves = 4096
_kept_moves = 2**20     # a larger buffer (a huge hand's) is not kept for the thread's life
_scratch = threading.local()


def enumerate_scratch(counts, level: int, beat_rec, flags) -> tuple:
    """The moves of one hand as kernel records in this thread's scratch buffer.

    Returns ``(count, buffer)``: records ``0..count-1`` of ``buffer`` (a bytearray grown
    when too small). The next call on the same thread overwrites it; threads never share
    it, which matters because the kernel runs without the GIL. ``counts`` is a uint8[54]
    buffer, ``level`` a rank index, ``beat_rec`` a record or None, ``flags`` from
    :meth:`Rules.flags`; all are trusted (this is the hot path of moves_array and Position).
    """
    buf = getattr(_scratch, "single", None)
    if buf is None:
        buf = _scratch.single = bytearray(_buffer_moves * MOVE_DTYPE.itemsize)
    while True:
        n = _kernels.py_enumerate(counts, level, beat_rec, flags[0], flags[1], flags[2], buf)
        if n >= 0:
            if len(buf) > _kept_moves * MOVE_DTYPE.itemsize:
                _scratch.single = None      # (the caller copies out of it, then it goes)
            return n, buf
        if n != -1:
            raise _status_error(n, level, "the move to beat" if n == -4 else "the hand")
        size = len(buf) * 4
        buf = _scratch.single = None        # freed before the larger one is made
        buf = _scratch.single = bytearray(size)


def moves_array(hand, level, beat: Move | None = None, rules: Rules | None = None) -> np.ndarray:
    """Every legal move of a hand as a MOVE_DTYPE array, with no Python object per move.

    Leading when ``beat`` is None, else only the moves that beat it (never the pass).
    """
    counts = _hand_counts(hand)
    lvl = level if type(level) is int and 0 <= level <= 12 else parse_level(level)
    flags = Rules.of(rules).flags()
    beat_rec = None
    if beat is not None:
        if not isinstance(beat, Move):
            raise MoveError(f"beat must be a Move, not {quoted(beat)}")
        if not beat.is_pass:
            beat_rec = beat.record()
    try:
        n, buf = enumerate_scratch(counts, lvl, beat_rec, flags)
    except MoveError:       # (the kernel refused the record: name the move, not "it")
        raise MoveError(f"beat {beat} is not a reading of its cards at level "
                        f"{format_rank(lvl)}") from None      # (as legal_moves says it)
    # copy out as bytes: numpy copies a structured dtype field by field, far slower
    return np.frombuffer(buf, dtype=np.uint8, count=n * MOVE_DTYPE.itemsize).copy() \
        .view(MOVE_DTYPE)


def moves_array_batch(hands, levels, rules: Rules | None = None, out: np.ndarray | None = None):
    """Lead moves of many hands at once, in one compiled loop.

    ``hands`` is a ``uint8[N, 54]`` count array, ``levels`` one level for all (a scalar) or
    N. Returns ``(moves, offsets)``: hand ``i``'s moves are ``moves[offsets[i]:offsets[i+1]]``.

    With ``out`` (a writable one-dimensional MOVE_DTYPE array the caller reuses across
    calls, as a training loop would), the moves are written there and ``moves`` is a view
    of it; when ``out`` is too small, the moves that fit are written, and a new array with
    all of them is returned instead. Without ``out`` the result is a new array. ``out``
    must not overlap ``hands``.
    """
    hands = hand_batch(hands)
    levels = level_batch(levels, hands.shape[0])
    flags = Rules.of(rules).flags()
    count = hands.shape[0]
    offsets = np.zeros(count + 1, dtype=np.int64)
    used = start = 0
    if out is not None:
        _check_out(out, hands)
        done = _kernels.py_enumerate_batch(hands, levels, *flags, out.view(np.uint8), offsets)
        if done < 0:
            raise _batch_status_error(done)
        if done == count:
            return out[:offsets[count]], offsets
        start, used = done, int(offsets[done])     # (the hands that fit are not done again)
    # A new array with room for about as many moves as a dealt hand has, doubled when a
    # hand does not fit and trimmed in place at the end: the pages never written are never
    # touched, and trimming a large array gives its tail back without a copy. When malloc
    # refuses that much room (1.4 million one-card hands asked for 24 GiB), a bounded first
    # array instead (always starting there was slower: doubling fills the new room).
    room = max(_BATCH_GUESS * (count - start), 1)
    try:
        moves = _new_records(used + room)
    except MemoryError:
        moves = _new_records(used + min(room, _BATCH_FIRST))
    if used:        # (as bytes: numpy copies a structured dtype field by field, far slower)
        moves[:used].view(np.uint8)[:] = out[:used].view(np.uint8)
    while start < count:
        part = np.zeros(count - start + 1, dtype=np.int64)
        done = _kernels.py_enumerate_batch(hands[start:], levels[start:], *flags,
                                           moves[used:].view(np.uint8), part)
        if done < 0:
            raise _batch_status_error(done)
        offsets[start + 1:start + done + 1] = part[1:done + 1] + used
        used = int(offsets[start + done])
        start += done
        if start < count:       # the next hand did not fit
            moves.resize(2 * len(moves), refcheck=False)
    moves.resize(used, refcheck=False)
    return moves, offsets


_BATCH_GUESS = 1024     # moves a hand, room enough for most dealt 27-card hands
_BATCH_FIRST = 1 << 22  # moves in the first array when the guess is refused (72 MiB)


def _new_records(count: int) -> np.ndarray:
    # (moves_array_batch's one allocation, which a test makes refuse what a system might)
    return np.empty(count, dtype=MOVE_DTYPE)


def _dtype_name(dtype) -> str:
    """A dtype as an error message names it: ``MOVE_DTYPE`` by that name (numpy spells out
    its seven fields)."""
    return "MOVE_DTYPE" if dtype == MOVE_DTYPE else str(dtype)


def _check_out(out, hands: np.ndarray) -> None:
    """A ValueError naming what is wrong with ``out``, a buffer the kernel writes raw
    records into."""
    if not isinstance(out, np.ndarray) or out.dtype != MOVE_DTYPE or out.ndim != 1:
        what = (f"a {out.ndim}-d {_dtype_name(out.dtype)} array" if isinstance(out, np.ndarray)
                else type(out).__name__)
        raise ValueError(f"out must be a one-dimensional MOVE_DTYPE array, not {what}")
    if not out.flags.c_contiguous:
        raise ValueError("out must be a contiguous MOVE_DTYPE array, not a strided view")
    if not out.flags.writeable:
        raise ValueError("out must be a writable MOVE_DTYPE array, not a read-only one")
    if out.ctypes.data % 2:     # the records' int16 key (numpy calls the dtype unaligned)
        raise ValueError("out must start at an even address (a MOVE_DTYPE array numpy "
                         "allocated, or a view of one at a whole record)")
    if np.may_share_memory(out, hands):
        # the records would overwrite hands not yet read
        raise ValueError("out overlaps hands: the moves would overwrite the hands")


def _batch_status_error(status: int) -> RuntimeError:
    # hand_batch and level_batch checked every hand and level, so the kernel refusing one
    # is a fault here, or a caller's array changed by another thread during the call (the
    # kernel reads the caller's uint8 array in place)
    return RuntimeError(f"the batch kernel refused checked input (status {status}): were "
                        f"the hands changed by another thread during the call?")


class LegalMoves:
    """The legal moves of a hand, computed on first use (python-chess style).

    Iterating yields :class:`Move` objects; ``len()``/``count()`` and ``array`` use no
    Python object per move. When following, the pass is not in the collection (it is
    always legal, and is a separate option).
    """

    __slots__ = ("_hand", "_level", "_rules", "_beat", "_array", "_set")

    def __init__(self, hand, level, beat: Move | None = None, rules: Rules | None = None):
        self._hand = hand if isinstance(hand, Hand) else Hand(hand)
        self._level = parse_level(level)
        self._rules = Rules.of(rules)
        # a Move read at another level or under other rules would be beaten by its record,
        # which says what it was there (moves_array, the raw API, trusts its caller)
        self._beat = None if beat is None else checked_reading(beat, self._level,
                                                               self._rules, "beat")
        self._array = None
        self._set = None

    # (read-only: the moves, once made, are those of these four)
    hand = property(lambda self: self._hand, doc="The hand whose moves these are.")
    level = property(lambda self: self._level, doc="The level, a rank index 0..12.")
    rules = property(lambda self: self._rules, doc="The rules the moves are read under.")
    beat = property(lambda self: self._beat, doc="The move to beat as given: None on lead (or Move.PASS, "
                                                "which gives the same moves).")

    @property
    def array(self) -> np.ndarray:
        """The moves as ``MOVE_DTYPE`` records, read-only for good (the moves iterated
        and the set ``in`` asks are made from them)."""
        if self._array is None:
            self._array = frozen_records(moves_array(self._hand, self._level, self._beat,
                                                     self._rules))
        return self._array

    def __reduce__(self):
        # (its moves made again where it is unpickled: a pickled or deep-copied array
        # comes back writable)
        return LegalMoves, (self.hand, self.level, self.beat, self.rules)

    def __eq__(self, other):
        # by what makes the moves, so that a pickled copy equals the original
        if not isinstance(other, LegalMoves):
            return NotImplemented
        return (self._hand, self._level, self._rules, self._beat) == \
            (other._hand, other._level, other._rules, other._beat)

    def __hash__(self):
        return hash((self._hand, self._level, self._rules, self._beat))

    def __len__(self) -> int:
        return len(self.array)

    def count(self) -> int:
        return len(self.array)

    def __iter__(self) -> Iterator[Move]:
        return iter(Move.from_array(self.array, validate=False))

    def __bool__(self) -> bool:
        return len(self.array) > 0

    def __contains__(self, move) -> bool:
        return isinstance(move, Move) and listed_reading(self, move)

    def __repr__(self) -> str:
        return f"<LegalMoves {len(self)} moves of {self.hand} at level {RANKS[self.level]}>"


# A list of legal moves answers ``in`` from a set of its readings, made once, up to this
# many moves; a longer one looks among its records of the move's type, rank, strength and
# size instead (a hand with 370,000 leads under long sequences: 4 s and 240 MB for the set)
READINGS_SET_AT_MOST = 4096


def frozen_records(array: np.ndarray) -> np.ndarray:
    """``MOVE_DTYPE`` records that cannot be made writable: ``array`` itself when its
    memory is a ``bytes`` already, else a copy into one. A read-only flag on an array of
    its own can be turned off again, and a record changed under the moves made from it,
    or under a hashed list, would disagree with them."""
    if not array.flags.writeable and isinstance(array.base, bytes):
        return array
    return np.frombuffer(array.tobytes(), dtype=MOVE_DTYPE)


def listed_reading(moves, move: "Move") -> bool:
    """``move in moves`` for a list of legal moves with an ``array`` of records and a
    ``_set`` of readings made on first use (LegalMoves, position.MoveList)."""
    if len(moves.array) > READINGS_SET_AT_MOST:
        return among_records(moves.array, move)
    if moves._set is None:
        moves._set = {m._reading() for m in moves}
    return move._reading() in moves._set


def among_records(records: np.ndarray, move: "Move") -> bool:
    """Whether ``records`` hold ``move``'s reading (its type, rank, cards and strength):
    its cards among the records of its type, rank, strength and size, sorted as a Move's
    (a kernel lists wild cards last), compared in bulk."""
    size = len(move.kinds)
    same = records[(records["type"] == move.type_id) & (records["label"] == move.label)
                   & (records["key"] == move.key) & (records["ncards"] == size)]
    cards = np.sort(same["cards"][:, :size], axis=1)
    return bool((cards == np.array(move.kinds, dtype=np.uint8)).all(axis=1).any())


def checked_reading(move, level, rules: Rules | None = None, what: str = "move") -> "Move":
    """``move`` when it is one of the readings of its cards at ``level`` under ``rules``
    (or the pass), else :class:`MoveError`: a Move built for another level, other rules,
    or by hand with fields that are no combination.

    >>> pair = Move.from_platform(["Pair", "4", ["H2", "C4"]], "2")   # H2 wild at level 2
    >>> checked_reading(pair, "2") is pair
    True
    >>> checked_reading(pair, "7")
    Traceback (most recent call last):
    ...
    guandan_core.moves.MoveError: move Pair 4: H2 C4 is not a reading of its cards at level 7
    >>> sevens = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")  # below 8 at level 2
    >>> checked_reading(sevens, "7")         # above A at level 7: not the same strength
    Traceback (most recent call last):
    ...
    guandan_core.moves.MoveError: move Pair 7: S7 C7 is not a reading of its cards at level 7
    """
    if not isinstance(move, Move):
        raise MoveError(f"{what} must be a Move, not {quoted(move)}")
    lvl = parse_level(level)
    rules = Rules.of(rules)
    if is_reading(move, lvl, rules):
        return move
    try:
        shown = str(move)
    except (ValueError, IndexError, KeyError):      # fields out of every table
        shown = f"Move(type_id={move.type_id}, label={move.label}, kinds={list(move.kinds)})"
    raise MoveError(f"{what} {shown} is not a reading of its cards at level {RANKS[lvl]}"
                    + ("" if rules == Rules.standard() else f" under {rules}"))


def is_reading(move: "Move", level, rules: Rules | None = None) -> bool:
    """Whether ``move`` is the pass or one of the readings of its cards at ``level``: its
    type, rank, cards and strength (``key``) as :func:`classify` gives them there.

    Moves compare equal by type, rank and cards, so the strength is checked apart: a pair
    of 7s read at level 2 ranks below 8s, at level 7 above aces.

    >>> sevens = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    >>> is_reading(sevens, "2"), is_reading(sevens, "7"), sevens in classify("S7 C7", "7")
    (True, False, True)
    """
    if not isinstance(move, Move):
        raise TypeError(f"is_reading takes a Move, not {quoted(move)}")
    level, rules = parse_level(level), Rules.of(rules)   # (a bad one named, not "no")
    if move.is_pass:
        return not move.kinds
    # (this runs for every move play() and push() check: the cards counted in bytes and the
    # readings compared as the kernel's records, no Move made of each: 0.4 of the time)
    kinds = move.kinds          # (ints, sorted: a Move's constructor or a record made them)
    counts = bytearray(NUM_KINDS)
    for k in kinds:
        if not k < NUM_KINDS or counts[k] == 2:
            return False    # a kind out of every table (a record taken unchecked), a card thrice
        counts[k] += 1
    n, records = _reading_records(counts, level, rules.flags())
    if n <= 0:
        return False                # no cards, or cards that are no combination
    wanted = (move.type_id, move.label, move.key)
    for mtype, label, ncards, _, key, cards, _ in _RECORD.iter_unpack(records):
        if (mtype, label, key) == wanted and tuple(sorted(cards[:ncards])) == kinds:
            return True
    return False


def _reading_records(counts, level: int, flags) -> tuple[int, memoryview]:
    """``(n, records)``: the kernel's records of the ``n`` readings of exactly the cards
    ``counts`` (54 counts, a buffer of bytes) at ``level``, or ``n`` the kernel's status
    (below -1) and no records."""
    cap = 64        # (room for the readings only, which are few)
    while True:
        out = np.empty(cap * _RECORD.size, dtype=np.uint8)
        n = _kernels.py_classify(counts, level, *flags, out)
        if n != -1:                 # (-1: more readings than room, so more room)
            return n, memoryview(out)[:max(n, 0) * _RECORD.size]
        cap *= 4


def legal_moves(hand, level, beat: Move | None = None, rules: Rules | None = None) -> LegalMoves:
    """Every distinct (cards, reading) move of ``hand`` (leading), or every move beating ``beat``."""
    return LegalMoves(hand, level, beat, rules)


def classify(cards, level, rules: Rules | None = None) -> list[Move]:
    """Every reading of exactly these cards (RULES sec. 4); empty if they are no combination."""
    counts = to_counts(cards, "play")
    lvl = parse_level(level)
    flags = Rules.of(rules).flags()
    if not counts.any():
        return []
    n, records = _reading_records(counts, lvl, flags)
    if n < 0:
        raise _status_error(n, level, cards)
    return Move.from_bytes(records, validate=False)


def beats(a: Move, b: Move) -> bool:
    """Whether ``a`` beats ``b`` (RULES sec. 5). A pass neither beats nor is beaten."""
    if not isinstance(a, Move) or not isinstance(b, Move):
        raise MoveError(f"beats() takes two Moves, not {quoted(a)} and {quoted(b)}")
    return bool(_kernels.py_beats(a.record(), b.record()))


def bomb_order_key(move: Move) -> int:
    """A total order of bombs (RULES sec. 5): larger beats smaller; -1 for a non-bomb."""
    if not isinstance(move, Move):
        raise TypeError(f"bomb_order_key takes a Move, not {quoted(move)}")
    return move.key if move.is_bomb else -1
