"""``guandan play`` and ``guandan replay``: self-play matches and checking game logs.

``guandan play --players greedy,random,greedy,random --hands N --seed S
[--rules NAME] [--first-leader random|CARD] [--json] [--summary]`` plays N
hands of a match (a won match is followed by a new one). ``--first-leader CARD`` (a card
such as ``H2``) makes the seat holding that card lead the first hand of every match (the
first in seat order 0..3 when two seats hold it; RULES.md sec. 8, 9); the default is a
random seat. By default it prints a readable log; ``--json`` prints one JSON
object per line per event::

    {"event": "rules", "win_at_a": "2nd-or-3rd", "fail_at_a": 0, "tribute": true,
     "tribute_first_last": true, "lead_after_tribute": "payer", "first_leader": "random",
     "core": {"sf_is_bomb": true, "sf_wild_any_suit": true, "long_sequences": false}}
    {"event": "deal", "hand": 1, "level": "2", "hands": [[27 cards] x 4]}   (before tribute)
    {"event": "resist", "seats": [1, 3]}
    {"event": "tribute", "from": 3, "to": 0, "card": "HR"}
    {"event": "return", "from": 0, "to": 3, "card": "S3"}
    {"event": "play", "seat": 0, "action": ["Single", "3", ["S3"]]}   (pass: ["PASS", "PASS", "PASS"])
    {"event": "end", "order": [0, 2, 1, 3], "levels": ["5", "2"], "winner": null}

The first line names every rule option the log was played under (``MatchRules.to_json``).
Hands are numbered from 1 over the whole run. ``winner`` is the team (0 for seats 0 and 2,
1 for seats 1 and 3) that won the match with this hand, else null.

``guandan replay FILE [--rules NAME] [--complete]`` (``-`` for stdin) checks such a log
event by event, under the rules its first line names (a log without that line: under
``--rules``, by default standard; a log whose rules differ from a ``--rules`` given is
refused): exit 0 and "valid ..." when every event follows the rules, exit 1 and one
line "event N (line L): reason" at the first event that breaks one. A log holding only
deal and play events is checked hand by hand (the deal is a full deck, every play is the
seat to move's legal move); when it also holds tribute, return, resist or end events the
match rules are checked too: the level of each hand, tribute, resistance and returns, the
leader after tribute, the finishing order, the team levels and the match winner (such a
log must start with the first hand of a match, hand 1, as ``guandan play`` writes it; a
log of deals and plays alone may start at a later hand, and its hand 1 is checked for the
leader an agreed first-leader card makes). A log cut short (its last hand
unfinished, or without its end event) is valid as far as it goes, the summary naming the
hand; with ``--complete`` it is invalid, exit 1, at its last event.
Unreadable input (a missing file, a line that is not a JSON object, an event without its
fields or with a field it does not have, a field of the wrong JSON shape: a card that is
no string, an action that is not a ``[type, rank, cards]`` triple of strings) prints one
line on stderr and exits 2; what such fields say (an unknown card, an illegal move) is
the rules' business, exit 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

import numpy as np

from .cards import (CardError, LevelError, format_card, format_rank, is_whole, parse_card,
                    parse_cards, parse_level)
from .cli import say, whole_number_type
from .jsontext import parse_json, read_text
from .usertext import counted, one_line, quoted, quoted_json
from .match import (Match, MatchRules, is_valid_return, is_valid_tribute,
                    _leader_after_tribute, plan_tribute, settle_hand)
from .moves import Move, MoveError
from .players import PLAYERS, make_player
from .position import IllegalMoveError, Position, PositionError
from .rules import PRESET_NAMES, RulesError

__all__ = ["add_play_parser", "add_replay_parser", "register", "cmd_play", "cmd_replay",
           "check_log", "ReplayError", "LogFormatError"]

_RULE_CHOICES = PRESET_NAMES
_PROGRESS_MIN_HANDS = 20
_TEAM = ("team 0+2", "team 1+3")
_PLACES = ("1st", "2nd", "3rd", "4th")


class LogFormatError(ValueError):
    """A log that cannot be read (not a rule violation)."""


class ReplayError(ValueError):
    """An event of a log that breaks a rule."""

    def __init__(self, number: int, line: int, reason: str):
        super().__init__(f"event {number} (line {line}): {reason}")
        self.number = number
        self.line = line
        self.reason = reason

    def __reduce__(self):
        # pickle rebuilds an exception from its args, here the message alone: a worker
        # process raising one broke the pool that was to carry it back; then every
        # attribute put back, notes added since included
        return (type(self), (self.number, self.line, self.reason),
                {**self.__dict__, "args": self.args})


# ---------------------------------------------------------------------- play

def add_play_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "play", help="play hands of a match with built-in players",
        description="Play N hands of a match (RULES.md sec. 6-9) with built-in players.")
    p.add_argument("--players", default="random,random,random,random",
                   help="four player names for seats 0..3, comma separated "
                        f"({', '.join(sorted(PLAYERS))}); default random x4")
    p.add_argument("--hands", type=whole_number_type("a number of hands from 1 to 999999999", 1,
                                                      999_999_999), default=1,
                   help="number of hands (default 1); a match that is won is followed by a "
                        "new one (both teams back to 2) until N hands are played; from "
                        f"{_PROGRESS_MIN_HANDS} hands a bar on stderr counts them, when stderr "
                        "is a terminal and the log goes elsewhere")
    # (random.Random(-1) deals what 1 deals: negative seeds are refused)
    p.add_argument("--seed", type=whole_number_type("a whole number from 0 to 10**30 - 1", 0,
                                                     10**30 - 1), default=None,
                   help="seed for dealing and the random and sampling players, 0 or more "
                        "(default: unseeded)")
    p.add_argument("--rules", choices=_RULE_CHOICES, default="standard",
                   help="rule set (default standard); platform also brings the platform's "
                        "match options (RULES sec. 9)")
    p.add_argument("--first-leader", default="random", metavar="random|CARD",
                   type=_first_leader,
                   help="who leads the first hand of a match: random (default) or the "
                        "holder of a card such as H2, the first in seat order 0..3 when two "
                        "seats hold it (RULES.md sec. 8, 9)")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="one JSON object per event per line")
    output.add_argument("--summary", action="store_true",
                        help="readable log with one line per hand instead of every play")
    p.set_defaults(func=cmd_play)
    return p


def _first_leader(text: str) -> str:
    # MatchRules' own check, reported as a usage error of the flag; "random" in any case,
    # as the cards are
    if text.lower() == "random":
        return "random"
    try:
        MatchRules(first_leader=text)
    except RulesError:
        raise argparse.ArgumentTypeError(
            f"random or a card such as H2, not {quoted(text)}") from None
    return text


def _build_players(spec: str, seed):
    names = [n.strip() for n in spec.split(",")]
    if len(names) != 4 or not all(names):
        raise ValueError(f"--players needs 4 comma-separated names, got {quoted(spec)}")
    return [make_player(name, None if seed is None else f"{seed}/{seat}")
            for seat, name in enumerate(names)]


class _TextLog:
    """Formats events as a readable log."""

    def __init__(self, out, summary: bool):
        self.out = out
        self.summary = summary
        self.left = [0, 0, 0, 0]
        self.out_count = 0
        self.level = "2"
        self.hand = 0
        self.leader_shown = False

    def __call__(self, ev: dict) -> None:
        kind = ev["event"]
        w = self.out.write
        if kind == "deal":
            self.hand = ev["hand"]
            self.level = ev["level"]
            self.left = [len(h) for h in ev["hands"]]
            self.out_count = 0
            self.leader_shown = False
            if not self.summary:
                w(f"== hand {ev['hand']}, level {ev['level']} ==\n")
                for seat, cards in enumerate(ev["hands"]):
                    w(f"  seat {seat}: {' '.join(cards)}\n")
        elif self.summary and kind != "end":
            return
        elif kind == "resist":
            w(f"  resist: {_seats_hold(ev['seats'])} both big jokers, no tribute\n")
        elif kind == "tribute":
            w(f"  tribute: seat {ev['from']} gives {ev['card']} to seat {ev['to']}\n")
        elif kind == "return":
            w(f"  return: seat {ev['from']} gives {ev['card']} back to seat {ev['to']}\n")
        elif kind == "play":
            seat = ev["seat"]
            if not self.leader_shown:
                w(f"  seat {seat} leads\n")
                self.leader_shown = True
            mtype, rank, cards = ev["action"]
            if mtype == "PASS":
                w(f"  seat {seat}: pass\n")
                return
            self.left[seat] -= len(cards)
            note = ""
            if self.left[seat] == 0:
                note = f"   -> seat {seat} is out ({_PLACES[self.out_count]})"
                self.out_count += 1
            w(f"  seat {seat}: {mtype} {rank}: {' '.join(cards)}{note}\n")
        elif kind == "end":
            order = ev["order"]
            first = order[0]
            place = order.index(first ^ 2)
            gain = (3, 2, 1)[place - 1]
            levels = ev["levels"]
            prefix = f"hand {self.hand} (level {self.level}): " if self.summary else "  end: "
            w(f"{prefix}order {' '.join(map(str, order))}, {_TEAM[first & 1]} wins +{gain}; "
              f"levels {_TEAM[0]} {levels[0]}, {_TEAM[1]} {levels[1]}\n")
            if ev["winner"] is not None:
                w(f"*** {_TEAM[ev['winner']]} wins the match ***\n")


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} hands")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_play(args) -> int:
    try:
        players = _build_players(args.players, args.seed)
        rules = MatchRules.by_name(args.rules)
        first_leader = getattr(args, "first_leader", "random")
        if first_leader != "random":
            rules = rules.replace(first_leader=first_leader)
    except ValueError as exc:
        say(f"guandan play: error: {one_line(exc)}")
        return 2
    out = sys.stdout
    if args.json:
        dumps = json.dumps

        def on_event(ev):
            out.write(dumps(ev))
            out.write("\n")
    else:
        on_event = _TextLog(out, args.summary)
    match = Match(players, rules, seed=args.seed, on_event=on_event)
    show_progress = args.hands >= _PROGRESS_MIN_HANDS and _shows_progress()
    drawn = 0
    try:
        for i in range(args.hands):
            match.play_hand()
            if show_progress:
                _progress(i + 1, args.hands)
                drawn = i + 1
        out.flush()
    except BrokenPipeError:
        return 0
    finally:
        if 0 < drawn < args.hands:
            say("")     # the bar's line ended, before Ctrl-C's message
    return 0


def _shows_progress() -> bool:
    """Whether a long run counts its hands on stderr: only on a terminal, and only while
    the log goes elsewhere (with both on one terminal the bar's line, which stays open for
    the next count, took the next hand's line onto its end)."""
    try:
        return sys.stderr.isatty() and not sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


# ---------------------------------------------------------------------- replay

def add_replay_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "replay", help="check a JSON-lines game log (from guandan play --json)",
        description="Check a JSON-lines game log event by event against the rules.")
    p.add_argument("file", help="the log file, or - for standard input")
    p.add_argument("--rules", choices=_RULE_CHOICES, default=None,
                   help="rules the log was played under, for a log that does not name "
                        "them in its first line (default standard)")
    p.add_argument("--complete", action="store_true",
                   help="a log cut short (its last hand unfinished, or without its end "
                        "event where the log names its rules or holds match events) is "
                        "invalid, exit 1; by default it is valid as far as it goes, and "
                        "the summary says which hand is unfinished")
    p.set_defaults(func=cmd_replay)
    return p


def register(subparsers) -> None:
    """Add both sub-commands (for ``guandan_core.cli``)."""
    add_play_parser(subparsers)
    add_replay_parser(subparsers)


_FIELDS = {
    "deal": {"hand": int, "level": str, "hands": list},
    "tribute": {"from": int, "to": int, "card": str},
    "return": {"from": int, "to": int, "card": str},
    "resist": {"seats": list},
    "play": {"seat": int, "action": list},
    "end": {"order": list, "levels": list, "winner": (int, type(None))},
    "rules": {},        # read whole by MatchRules.from_json
}
# the type of every item of the list fields that are lists of plain values
_ITEMS = {("resist", "seats"): int, ("end", "order"): int, ("end", "levels"): str}
_MATCH_EVENTS = {"tribute", "return", "resist", "end"}


def _is_action(value) -> bool:
    # a platform triple [type, rank, cards]; a pass may write its rank and cards as
    # "PASS" or null (whether the triple is a move at all is the replay's check)
    if len(value) != 3:
        return False
    mtype, rank, cards = value
    return isinstance(mtype, str) and (rank is None or isinstance(rank, str)) and (
        cards is None or isinstance(cards, str)
        or (isinstance(cards, list) and all(isinstance(c, str) for c in cards)))


# fields whose items have a shape of their own: a list of card lists, a platform triple
_SHAPES = {("deal", "hands"): ("lists of card strings", lambda hands: all(
               isinstance(h, list) and all(isinstance(c, str) for c in h) for h in hands)),
           ("play", "action"): ("a [type, rank, cards] triple of strings", _is_action)}


def _read_events(lines):
    """Parse JSON lines into (event number, line number, dict), one at a time (a log is
    read twice, not held as events: they take twenty times its text);
    LogFormatError if bad."""
    number = 0
    for line_no, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        number += 1
        where = f"event {number} (line {line_no})"
        try:
            ev = parse_json(text)
        except ValueError as exc:
            raise LogFormatError(f"{where}: {exc}") from None
        if not isinstance(ev, dict) or "event" not in ev:
            raise LogFormatError(f"{where}: not an event object with an \"event\" field")
        fields = _FIELDS.get(ev["event"]) if isinstance(ev["event"], str) else None
        if fields is None:
            raise LogFormatError(f"{where}: unknown event {quoted_json(ev['event'])}")
        if ev["event"] == "rules" and number != 1:
            raise LogFormatError(f"{where}: a rules event comes first in a log, or not at "
                                 "all")
        if ev["event"] != "rules":      # (check_log reads it: MatchRules.from_json refuses
                                        # its own unknown keys)
            unknown = sorted(set(ev) - set(fields) - {"event"}, key=str)
            if unknown:
                raise LogFormatError(f"{where}: {ev['event']} event with unknown field "
                                     f"{quoted(unknown[0])} (its fields: "
                                     f"{', '.join(['event', *fields])})")
        for name, typ in fields.items():
            if name not in ev:
                raise LogFormatError(f"{where}: {ev['event']} event without {quoted(name)}")
            value = ev[name]
            if isinstance(value, bool) or not isinstance(value, typ):
                raise LogFormatError(f"{where}: {ev['event']} field {quoted(name)} has a wrong "
                                     f"type: {quoted_json(value)}")
            item = _ITEMS.get((ev["event"], name))
            if item is not None and any(isinstance(x, bool) or not isinstance(x, item)
                                        for x in value):
                raise LogFormatError(f"{where}: {ev['event']} field {quoted(name)} holds a "
                                     f"value of a wrong type: {quoted_json(value)}")
            shape = _SHAPES.get((ev["event"], name))
            if shape is not None and not shape[1](value):
                raise LogFormatError(f"{where}: {ev['event']} field {quoted(name)} is not "
                                     f"{shape[0]}: {quoted_json(value)}")
        yield number, line_no, ev


class _LogLines:
    """The lines of a log's text, split at line feeds, CR LF pairs and lone CRs alone
    (``str.splitlines`` also splits at U+2028 and others, which JSON strings may hold),
    made as they are read."""
    CHUNK = 1 << 20     # characters split at a time: split at C speed, never a list of
                        # every line (eight bytes a byte for a file of blank lines)

    def __init__(self, text: str):
        self.text = text

    def __iter__(self):
        text, start, size = self.text, 0, len(self.text)
        while start < size:
            end = text.find("\n", min(start + self.CHUNK, size))     # (cut at a line feed)
            if end < 0:
                end = size
            piece = text[start:end]
            if end < size and piece.endswith("\r"):
                piece = piece[:-1]      # (a CR LF cut at its LF: one line break)
            lines = _LINE_BREAK.split(piece)
            if end == size and piece[-1] in "\r\n":
                lines.pop()             # (after the last line break: no line)
            yield from lines
            start = end + 1


_LINE_BREAK = re.compile(r"\r\n?|\n")


def _seats_hold(seats) -> str:
    """"seat 3 holds" or "seats 1 and 3 hold": who resists tribute."""
    if len(seats) == 1:
        return f"seat {seats[0]} holds"
    return f"seats {' and '.join(map(str, seats))} hold"


def _seat(value, what):
    if not is_whole(value, 0, 3):
        raise ValueError(f"{what} {quoted_json(value)} is not a seat 0..3")
    return value


class _Checker:
    def __init__(self, rules: MatchRules, full: bool):
        self.rules = rules
        self.full = full
        self.levels = [0, 0]
        self.failures = [0, 0]
        self.hand_level = 0
        self.prev_order = None
        self.winner = None
        self.hand_number = None
        self.hands_seen = 0
        self.reset_hand()

    def reset_hand(self):
        self.counts = None       # four int arrays while tribute is paid, before play
        self.level = None
        self.pos = None
        self.plan = None
        self.paid = []           # (payer, receiver, kind)
        self.returned = []       # (receiver, payer)
        self.resisted = False
        self.ended = False

    # -- event handlers raise ValueError with the reason
    def deal(self, ev):
        if self.counts is not None or self.pos is not None:
            if self.pos is None or not self.pos.is_over:
                raise ValueError(f"deal of hand {ev['hand']} before hand "
                                 f"{self.hand_number} is over")
            if self.full and not self.ended:
                raise ValueError(f"deal of hand {ev['hand']} but hand {self.hand_number} "
                                 "has no end event")
        if self.hand_number is not None and ev["hand"] != self.hand_number + 1:
            raise ValueError(f"hand number {ev['hand']} does not follow "
                             f"{self.hand_number}")
        if self.hand_number is None and ev["hand"] != 1 and (self.full or ev["hand"] < 1):
            # (the match rules are checked from a match's first hand, hand 1; a log of
            # plays alone may start later, as a part of a longer log)
            starts = " and this log starts a match" if self.full else ""
            raise ValueError(f"the log's first deal is of hand {ev['hand']}, but hands are "
                             f"numbered from 1{starts}")
        self.reset_hand()
        self.hand_number = ev["hand"]
        self.hands_seen += 1
        try:
            level = parse_level(ev["level"])
        except LevelError as exc:
            raise ValueError(str(exc)) from None
        if self.full:
            if self.winner is not None:
                self.levels, self.failures = [0, 0], [0, 0]
                self.hand_level, self.prev_order, self.winner = 0, None, None
            if level != self.hand_level:
                raise ValueError(f"hand {ev['hand']} is dealt at level "
                                 f"{format_rank(level)} but must be played at "
                                 f"{format_rank(self.hand_level)}")
        hands = ev["hands"]
        if len(hands) != 4:
            raise ValueError(f"a deal has 4 hands, not {len(hands)}")
        counts = []
        for seat, cards in enumerate(hands):
            if not isinstance(cards, list) or len(cards) != 27:
                dealt = len(cards) if isinstance(cards, list) else cards
                raise ValueError(f"seat {seat} is dealt {quoted_json(dealt)} cards, not 27")
            c = np.zeros(54, dtype=np.int64)
            try:
                for k in parse_cards(cards):
                    c[k] += 1
            except CardError as exc:
                raise ValueError(f"seat {seat}: {exc}") from None
            counts.append(c)
        total = sum(counts)
        if not np.all(total == 2):
            k = int(np.flatnonzero(total != 2)[0])
            raise ValueError(f"the deal is not two full decks: {format_card(k)} is dealt "
                             f"{int(total[k])} times")
        self.counts = counts
        self.level = level
        if self.full and self.prev_order is not None:
            self.plan = plan_tribute(self.prev_order, counts, level, self.rules)

    def _need_deal(self, what):
        if self.counts is None and self.pos is None:
            raise ValueError(f"{what} before any deal")

    def _before_play(self, what):
        self._need_deal(what)
        if self.pos is not None:
            raise ValueError(f"{what} after play has started")

    def resist(self, ev):
        self._before_play("resist")
        plan = self.plan
        if plan is None or plan.resisted is None:
            raise ValueError("resist event but no resistance is possible here "
                             "(the paying side does not hold both big jokers)"
                             if plan is not None and plan.kind != "none"
                             else "resist event but no tribute is due")
        if self.resisted:
            raise ValueError(f"a second resist event for hand {self.hand_number}")
        if sorted(ev["seats"]) != sorted(plan.resisted):
            raise ValueError(f"resisting seats {json.dumps(ev['seats'])} are not the payers "
                             f"{json.dumps(plan.resisted)}")
        self.resisted = True

    def tribute(self, ev):
        self._before_play("tribute")
        payer, receiver = _seat(ev["from"], "tribute from"), _seat(ev["to"], "tribute to")
        card = parse_card(ev["card"])
        plan = self.plan
        if plan is None or plan.kind == "none":
            raise ValueError("tribute but no tribute is due before this hand")
        if plan.resisted is not None:
            raise ValueError(f"tribute but {_seats_hold(plan.resisted)} both big jokers "
                             "(resistance: no tribute)")
        if self.returned:
            raise ValueError("tribute after a card was returned")
        expected = [(p, r) for p, r, _ in plan.payments if (p, r) not in
                    [(q, s) for q, s, _ in self.paid]]
        if not expected:
            raise ValueError(f"seat {payer} pays seat {receiver}, but every tribute due "
                             f"before hand {self.hand_number} is paid")
        if (payer, receiver) not in expected:
            raise ValueError(f"seat {payer} pays seat {receiver}, but the tribute due is "
                             + ", ".join(f"seat {p} to seat {r}" for p, r in expected))
        if not self.counts[payer][card]:
            raise ValueError(f"seat {payer} pays {ev['card']} which it does not hold")
        dealt = self.counts[payer]
        if not is_valid_tribute(dealt, card, self.level):
            raise ValueError(f"seat {payer} pays {ev['card']}, not its highest card "
                             "(wild cards excluded)")
        self.counts[payer][card] -= 1
        self.counts[receiver][card] += 1
        self.paid.append((payer, receiver, card))

    def return_(self, ev):
        self._before_play("return")
        receiver, payer = _seat(ev["from"], "return from"), _seat(ev["to"], "return to")
        card = parse_card(ev["card"])
        if (payer, receiver) not in [(p, r) for p, r, _ in self.paid]:
            raise ValueError(f"seat {receiver} returns a card to seat {payer}, which paid it "
                             "no tribute")
        if (receiver, payer) in self.returned:
            raise ValueError(f"seat {receiver} returns a second card to seat {payer}")
        if self.plan is not None and len(self.paid) < len(self.plan.payments):
            raise ValueError("return before every tribute is paid")
        if not self.counts[receiver][card]:
            raise ValueError(f"seat {receiver} returns {ev['card']} which it does not hold")
        if not is_valid_return(self.counts[receiver], card, self.level):
            raise ValueError(f"seat {receiver} returns {ev['card']}: the return must be a "
                             "card of rank 10 or lower that is not a level card (if the "
                             "receiver has one), else its lowest card")
        self.counts[receiver][card] -= 1
        self.counts[payer][card] += 1
        self.returned.append((receiver, payer))

    def _start_play(self, seat):
        plan = self.plan
        if plan is not None and plan.kind != "none":
            if plan.resisted is not None and not self.resisted:
                raise ValueError(f"play starts without the resist event of seats "
                                 f"{plan.resisted}")
            if plan.resisted is None:
                if len(self.paid) < len(plan.payments):
                    p, r, _ = plan.payments[len(self.paid)]
                    raise ValueError(f"play starts but seat {p} has not paid tribute to "
                                     f"seat {r}")
                if len(self.returned) < len(self.paid):
                    raise ValueError("play starts before every return card is given")
        leader = None
        if plan is not None:
            # (nothing paid after a resistance or with no tribute due)
            leader = _leader_after_tribute(self.prev_order[0], self.paid, self.rules)
        elif self.full or self.hand_number == 1:
            # a match's first hand (hand 1 is one in any log): the agreed card's holder (a
            # random leader is any seat)
            leader = self.rules.agreed_first_leader(self.counts)
        if leader is not None:
            if seat != leader:
                raise ValueError(f"seat {seat} leads hand {self.hand_number}, but seat "
                                 f"{leader} must lead")
        self.pos = Position(self.level, [c.astype(np.uint8) for c in self.counts], (),
                            seat, rules=self.rules.core, validate=False)
        self.counts = None

    def play(self, ev):
        seat = _seat(ev["seat"], "seat")
        self._need_deal("play")
        if self.pos is None:
            self._start_play(seat)
        pos = self.pos
        if pos.is_over:
            raise ValueError(f"seat {seat} plays after hand {self.hand_number} is over")
        action = ev["action"]
        try:
            move = Move.from_platform(action, format_rank(pos.level), pos.rules)
        except (MoveError, ValueError, TypeError) as exc:
            # (the action named once: Move.from_platform's message may end with it too)
            shown = quoted_json(action)
            raise ValueError(f"seat {seat} plays {shown}: "
                             f"{str(exc).removesuffix(f' in {shown}')}") from None
        if seat != pos.to_move:
            raise ValueError(f"seat {seat} plays {quoted_json(action)} but it is seat "
                             f"{pos.to_move}'s turn")
        try:
            pos.push(move)
        except IllegalMoveError as exc:
            raise ValueError(str(exc)) from None

    def end(self, ev):
        self._need_deal("end event")
        pos = self.pos
        if pos is None or not pos.is_over:
            raise ValueError(f"end event but hand {self.hand_number} is not over")
        if self.ended:
            raise ValueError(f"a second end event for hand {self.hand_number}")
        order = ev["order"]
        mine = list(pos.finishing_order())
        done = list(pos.finished)
        if sorted(order) != [0, 1, 2, 3]:
            raise ValueError(f"finishing order {json.dumps(order)} is not the four seats "
                             f"0 to 3, each once")
        if order[:len(done)] != done:
            raise ValueError(f"finishing order {json.dumps(order)} does not match the play: "
                             f"the seats went out in the order {json.dumps(done)}")
        if order != mine:
            # (the seats still holding cards follow in turn order from the seat after the
            # last one out, as Position.finishing_order lists them and the log writes them)
            raise ValueError(f"finishing order {json.dumps(order)} does not list the seats "
                             f"still holding cards in turn order after seat {done[-1]}, the "
                             f"last out: {json.dumps(mine)}")
        self.ended = True
        if not self.full:
            return
        levels, failures, _gain, winner = settle_hand(self.levels, self.failures,
                                                      self.level, mine, self.rules)
        expected = [format_rank(x) for x in levels]
        if ev["levels"] != expected:
            raise ValueError(f"team levels after the hand are {json.dumps(expected)}, "
                             f"not {json.dumps(ev['levels'])}")
        if ev["winner"] != winner:
            # (written as the log writes them: null, not None)
            raise ValueError(f"match winner after the hand is {json.dumps(winner)}, not "
                             f"{json.dumps(ev['winner'])}")
        self.levels, self.failures, self.winner = levels, failures, winner
        self.prev_order = mine
        self.hand_level = levels[mine[0] & 1]


def check_log(lines, rules: MatchRules | None = None, complete: bool = False) -> str:
    """Check a JSON-lines log; returns a summary, raises :class:`ReplayError` at the first
    event that breaks a rule, :class:`LogFormatError` for unreadable input (every line is
    read before the first rule is checked: a log that does not read says so first).
    ``lines``: any iterable of lines (read twice when it can be). A log cut short (no hand
    dealt, the last hand unfinished or, in a log of a match or one that names its rules
    as ``guandan play``'s do, the last hand without its end event) is valid as far as it
    goes, the summary saying what is missing; with ``complete`` it is a
    :class:`ReplayError` at its last event."""
    if not isinstance(complete, (bool, np.bool_)):
        raise TypeError(f"complete must be True or False, not {quoted(complete)}")
    if iter(lines) is lines:
        lines = list(lines)         # (a one-way iterator, read twice)
    logged, count_events, full = None, 0, False
    for number, line_no, ev in _read_events(lines):
        if ev["event"] == "rules":      # (the first event: _read_events sees to it)
            try:
                logged = MatchRules.from_json(ev)
            except RulesError as exc:
                raise LogFormatError(f"event 1 (line {line_no}): {exc}") from None
        count_events = number
        full = full or ev["event"] in _MATCH_EVENTS
    if not count_events:
        raise LogFormatError("the log holds no events")
    if logged is not None:
        if rules is not None and MatchRules.of(rules) != logged:
            raise LogFormatError(f"the log was played under {_rules_name(logged)}, not the "
                                 f"rules asked for ({_rules_name(MatchRules.of(rules))})")
        rules = logged
    checker = _Checker(MatchRules.of(rules), full)
    handlers = {"deal": checker.deal, "tribute": checker.tribute,
                "return": checker.return_, "resist": checker.resist,
                "play": checker.play, "end": checker.end, "rules": lambda ev: None}
    plays = 0
    for number, line, ev in _read_events(lines):
        try:
            handlers[ev["event"]](ev)
        except (ValueError, PositionError) as exc:
            raise ReplayError(number, line, str(exc)) from None
        plays += ev["event"] == "play"
    note = ""
    if checker.hand_number is None:
        note = "no hand is dealt"
    elif checker.pos is None or not checker.pos.is_over:
        note = f"hand {checker.hand_number} is unfinished"
    elif not checker.ended and (full or logged is not None):
        # (a log naming its rules is guandan play's, which ends each hand with its end
        # event: a one-hand log cut before it has no other match event to tell it by)
        note = f"hand {checker.hand_number} has no end event"
    if note and complete:
        raise ReplayError(number, line, f"the log ends here, but {note} (--complete)")
    note = note and f"; {note}"
    what = "plays and match rules" if full else "plays"
    return (f"valid: {counted(count_events, 'event')}, {counted(checker.hands_seen, 'hand')}, "
            f"{counted(plays, 'play')} checked ({what}){note}")


def _rules_name(rules: MatchRules) -> str:
    for name in _RULE_CHOICES:
        if MatchRules.by_name(name) == rules:
            return f"the {name} rules"
    return f"the rules {json.dumps(rules.to_json())}"


def cmd_replay(args) -> int:
    try:
        rules = None if args.rules is None else MatchRules.by_name(args.rules)
        summary = check_log(_LogLines(read_text(args.file)), rules, args.complete)
    except ReplayError as exc:
        print(f"invalid: {one_line(exc)}")
        return 1
    except (OSError, ValueError, RulesError) as exc:
        say(f"guandan replay: error: {one_line(exc)}")
        return 2
    print(summary)
    return 0
