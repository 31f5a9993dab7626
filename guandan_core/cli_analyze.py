"""``guandan analyze``: the best split of a hand, its bombs and which plays are control.

    guandan analyze HAND --level L [--played CARDS] [--rules NAME] [--runners-up N] [--json]

Tables in a terminal use ANSI colours only when standard output is a terminal, the
``NO_COLOR`` environment variable is not set or empty (https://no-color.org) and ``TERM``
is not ``dumb``; piped output is plain text. ``--json`` prints one JSON object (see
:func:`guandan_core.analysis.analyze`).
Bad input raises ``ValueError``, which ``guandan``'s ``main()`` prints as one line.
"""

from __future__ import annotations

import json
import os
import sys

from .analysis import analyze
from .cards import parse_level
from .cli import add_rules_option, option_cards, whole_number_type
from .hand import Hand, player_hand, to_counts
from .rules import Rules
from .usertext import counted

__all__ = ["register", "cmd_analyze", "render", "use_colour"]

_RESET = "\x1b[0m"
_STYLES = {
    "red": "31", "green": "32", "yellow": "33", "magenta": "35", "cyan": "36",
    "bold": "1", "dim": "2", "joker": "1;35", "bigjoker": "1;31", "wild": "1;33;4",
}


def use_colour(stream=None) -> bool:
    """ANSI colours only for a terminal, and never when NO_COLOR is set (non-empty) or
    TERM is ``dumb`` (a terminal that shows escapes as text, such as Emacs' shell)."""
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR", "") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):
        return False


class _Painter:
    def __init__(self, colour: bool, level_rank: str):
        self.colour = colour
        self.wild = "H" + level_rank

    def __call__(self, text: str, style: str) -> str:
        if not self.colour or not text:
            return text
        return f"\x1b[{_STYLES[style]}m{text}{_RESET}"

    def card(self, card: str) -> str:
        if card == self.wild:
            return self(card, "wild")
        if card == "SB":
            return self(card, "joker")
        if card == "HR":
            return self(card, "bigjoker")
        if card[0] in "HD":
            return self(card, "red")
        return card

    def cards(self, cards) -> str:
        return " ".join(self.card(c) for c in cards)


class _Table:
    """Left-aligned columns; widths from the plain text, colour added afterwards."""

    def __init__(self, headers):
        self.headers = list(headers)
        self.rows = []

    def add(self, *cells):
        # a cell is plain text or (plain text, coloured text)
        self.rows.append([c if isinstance(c, tuple) else (str(c), str(c)) for c in cells])

    def render(self, paint: _Painter, indent: str = "  ") -> list:
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            for i, (plain, _) in enumerate(row):
                widths[i] = max(widths[i], len(plain))
        lines = []
        head = "  ".join(h.ljust(w) for h, w in zip(self.headers, widths)).rstrip()
        lines.append(indent + paint(head, "dim"))
        for row in self.rows:
            parts = []
            for i, (plain, shown) in enumerate(row):
                pad = "" if i == len(row) - 1 else " " * (widths[i] - len(plain))
                parts.append(shown + pad)
            lines.append(indent + "  ".join(parts).rstrip())
        return lines


def _play_cells(play, paint: _Painter, bomb_style: bool = True):
    """(plain, coloured) of 'Type rank: cards'."""
    mtype, rank, cards = play
    head = f"{mtype} {rank}:"
    plain = f"{head} {' '.join(cards)}"
    is_bomb = mtype in ("Bomb", "StraightFlush")
    shown_head = paint(head, "magenta") if (is_bomb and bomb_style) else head
    return plain, f"{shown_head} {paint.cards(cards)}"


def _ranges(indices) -> str:
    """1-based, compressed: [0, 1, 2, 5] -> '1-3, 6'."""
    out = []
    nums = sorted(i + 1 for i in indices)
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(out)


def _key(play) -> tuple:
    return (play[0], play[1], tuple(play[2]))


def _unmatched(parts: list, others: list) -> list:
    """The ``parts`` that ``others`` do not hold, as a multiset difference: a part held
    twice, of which the others hold one copy, is listed once."""
    left = [_key(p) for p in others]
    out = []
    for p in parts:
        if _key(p) in left:
            left.remove(_key(p))
        else:
            out.append(p)
    return out


def render(result: dict, colour: bool = False) -> str:
    """The readable report of an :func:`~guandan_core.analysis.analyze` result."""
    paint = _Painter(colour, result["level"])
    lines = []
    hand = result["hand"]
    lines.append(f"{paint('Hand', 'bold')} ({counted(len(hand), 'card')}, "
                 f"level {result['level']}): {paint.cards(hand)}")
    if result["played"]:
        lines.append(f"Played ({counted(len(result['played']), 'card')}): "
                     f"{paint.cards(result['played'])}")

    # best split
    plays = counted(result["plays"], "play")
    lines.append("")
    lines.append(paint(f"Best split: {plays}", "bold")
                 + f"  ({counted(result['split_bombs'], 'bomb')}, "
                 f"{counted(result['split_singles'], 'single')})")
    table = _Table(["#", "type", "rank", "cards"])
    for i, (mtype, rank, cards) in enumerate(result["split"], 1):
        bomb = mtype in ("Bomb", "StraightFlush")
        table.add(str(i), (mtype, paint(mtype, "magenta") if bomb else mtype), rank,
                  (" ".join(cards), paint.cards(cards)))
    lines += table.render(paint)

    # runners-up, as their differences from the best split
    if result["runner_up"]:
        lines.append("")
        lines.append(paint(f"Runner-up splits ({plays} too)", "bold")
                     + ": the parts that differ from the best split")
        for n, split in enumerate(result["runner_up"], 1):
            added = _unmatched(split, result["split"])
            removed = _unmatched(result["split"], split)
            plus = ",  ".join(_play_cells(p, paint)[1] for p in added)
            minus = ",  ".join(_play_cells(p, paint)[1] for p in removed)
            lines.append(f"  {n}. {paint('+', 'green')} {plus}")
            lines.append(f"     {paint('-', 'red')} {minus}")

    # bombs
    lines.append("")
    bombs = result["bombs"]
    if not bombs:
        lines.append(paint("Bombs: none", "bold"))
    else:
        lines.append(paint(f"Bombs ({len(bombs)}, biggest first)", "bold")
                     + "; * = played as such in the best split")
        table = _Table(["#", "type", "rank", "size", "cards", "shares cards with", ""])
        for i, (mtype, rank, cards) in enumerate(bombs):
            shares = _ranges(result["bomb_shares"][i]) or "-"
            mark = "*" if result["bomb_in_split"][i] else ""
            table.add(str(i + 1), (mtype, paint(mtype, "magenta")), rank, str(len(cards)),
                      (" ".join(cards), paint.cards(cards)), shares, (mark, paint(mark, "green")))
        lines += table.render(paint)

    # control
    lines.append("")
    lines.append(paint("Control", "bold")
                 + f" (can the {result['unseen']} unseen cards beat each play?)")
    table = _Table(["play", "beatable", "smallest beating play"])
    for entry in result["control"]:
        play = _play_cells(entry["play"], paint)
        if not entry["beatable"]:
            verdict = ("no: control", paint("no: control", "green"))
            by = "-"
        else:
            text = "only by a bomb" if entry["only_bombs"] else "yes"
            verdict = (text, paint(text, "yellow" if entry["only_bombs"] else "red"))
            by = _play_cells(entry["by"], paint)
        table.add(play, verdict, by)
    lines += table.render(paint)
    return "\n".join(lines) + "\n"


def cmd_analyze(args) -> int:
    level = parse_level(args.level)
    rules = Rules.by_name(args.rules)
    hand = player_hand(args.hand)
    played = (Hand(option_cards("--played", lambda text: to_counts(text, "it"), args.played))
              if args.played is not None else None)
    result = analyze(hand, level, played, rules, args.runners_up)
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(result, use_colour(sys.stdout)))
    return 0


def register(subparsers) -> None:
    """Add the ``analyze`` sub-command to the ``guandan`` parser's sub-parsers."""
    p = subparsers.add_parser(
        "analyze", help="best split of a hand, its bombs, and which plays are control",
        description="The split of HAND into the fewest plays (exact, wild cards included; "
                    "ties: more and bigger bombs, then fewer and higher singles), the "
                    "runner-up splits of the same size, every bomb of the hand, and for "
                    "each play of the split whether the unseen cards can beat it.")
    p.add_argument("hand", help='cards, e.g. "S5 H7 SB"')
    p.add_argument("--level", required=True, help="level rank, 2..A")
    p.add_argument("--played", metavar="CARDS",
                   help="cards already seen (played by anyone): not in the unseen pool")
    # (as many digits as the engine protocol's runners_up= takes)
    p.add_argument("--runners-up", type=whole_number_type("a whole number of runner-up "
                                                          "splits from 0 to 10**18 - 1", 0,
                                                          10 ** 18 - 1),
                   default=5, metavar="N",
                   help="how many runner-up splits to show (default 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_rules_option(p)
    p.set_defaults(func=cmd_analyze)
