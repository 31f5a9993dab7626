"""``guandan sample``: every move of the seat to move valued over random deals of the hands
it cannot see (``solver.solve_sampled``)."""

from __future__ import annotations

import json
import time

from .cards import format_rank
from .cli import add_rules_option, ctrl_c_sets, say, whole_number_type
from .cli_solve import (EXAMPLE_POSITION, _positions_in, _read_position, _working_text,
                        add_progress_options, add_search_options, progress_interval)
from .usertext import counted, json_kind, one_line


def _known(text: str) -> dict:
    """--known's value (see :func:`solver.sampling.parse_known`)."""
    from solver.sampling import parse_known
    try:
        return parse_known(text)
    except ValueError as exc:
        raise ValueError(f"--known: {exc}") from None


def _print_sampled(pos, result, known, stopped_by: str = "a limit") -> None:
    seat = pos.to_move
    team = "0+2" if seat % 2 == 0 else "1+3"
    turn = "on lead" if pos.on_lead else f"to beat seat {pos.owner}'s {pos.table}"
    print(f"position: level {format_rank(pos.level)}, seat {seat} {turn}")
    for s in range(4):
        n = pos.cards_left[s]
        shown = pos.hand(s) if s == seat else \
            (f"{n} card{'s' if n > 1 else ''}, hidden" if n else "(out)")
        print(f"  seat {s}: {shown}")
    for s, cards in sorted(known.items()):
        print(f"  seat {s} is known to hold {' '.join(cards)}")
    if result.seed is None:
        stream = "no one seed"
    elif result.deals in ((), ((0, result.samples),)):
        stream = f"seed {result.seed}"
    else:
        spans = ", ".join(f"{a} to {b - 1}" if b - a > 1 else f"{a}" for a, b in result.deals)
        stream = f"seed {result.seed}, {'deal' if result.samples == 1 else 'deals'} {spans}"
    print(f"deals: {result.samples} ({stream}), the hidden cards shared out at random; "
          f"{result.solved} solved")
    if result.solved < result.samples:
        print(f"  ({result.samples - result.solved} not counted: {stopped_by} stopped them "
              "before every move had its value)")
    if result.moves:
        print(f"moves, values for team {team} (best: deals where the move keeps that deal's "
              "value):")
        print("     mean    best" + "".join(f"{v:>4}" for v in ("+3", "+2", "+1", "-1", "-2", "-3"))
              + "  move")
        for m in result.moves:
            same = ("   (the same with " + ", ".join(" ".join(e.cards) for e in m.equivalent)
                    + ")") if m.equivalent else ""
            best = f"{m.best}/{result.solved}"
            print(f"  {m.mean:+7.2f} {best:>7}" + "".join(f"{k:>4}" for k in m.values.values())
                  + f"  {m.move}{same}")
        print(f"best move: {result.best}")
    print(f"nodes: {result.nodes}, time: {result.seconds:.3f} s")


_SOLVING_OPTIONS = ("deals", "seed", "first", "time_limit", "node_limit", "threads",
                    "progress", "progress_every")
_DEFAULT_DEALS = 20


def cmd_sample(args) -> int:
    from solver import Stop
    from solver.sampling import MAX_DEALS, _is_view, read_position, solve_sampled

    from .rules import Rules

    if args.example == (args.position is not None):
        raise ValueError("give a POSITION file (or - for stdin) or --example, not both"
                         if args.example else "give a POSITION file (or - for stdin), or --example")
    if args.merge is not None:
        # (an option not given is None, a flag False; 0 is given)
        given = [name for name in _SOLVING_OPTIONS
                 if getattr(args, name) is not None and getattr(args, name) is not False]
        if given:
            raise ValueError(f"--merge adds up saved results and solves nothing: "
                             f"--{given[0].replace('_', '-')} is not taken with it")
        if [args.position, *args.merge].count("-") > 1:
            raise ValueError("stdin (-) can be read once: as the position or as one result")
    rules = Rules.by_name(args.rules)     # (before reading: stdin may wait for a while)
    known = _known(args.known) if args.known is not None else {}
    if args.example:
        label, obj = "example", EXAMPLE_POSITION
    else:
        found = _positions_in(_read_position(args.position), args.position)
        if len(found) != 1:
            raise ValueError(f"{args.position!r} holds {len(found)} positions: "
                             "guandan sample takes one")
        label, obj = next(iter(found))
    try:
        if not isinstance(obj, dict):      # (a JSON string is no position, nor its text)
            raise ValueError(f"a position is a JSON object, not {json_kind(obj)}")
        pos = read_position(obj, rules)
    except ValueError as exc:
        raise ValueError(f"{label!r}: {exc}") from None
    # what the deals come from: a view's tribute (exchanges, resisted) is the view's, not
    # the position's, which has only the hidden cards
    source, source_rules = (obj, rules) if _is_view(obj) else (pos, None)
    if pos.is_over:
        raise ValueError(f"{label!r}: the hand is already over: nothing to solve")
    if known:
        # checked against the position here, to be named as the option (the solver's own
        # check names its argument, known)
        from solver.sampling import _pinned, _view
        try:
            _pinned(_view(source, None, source_rules), known)
        except ValueError as exc:
            reason = str(exc).removeprefix("known: ")
            raise ValueError(f"--known: {reason}") from None
    interrupted = False
    if args.merge is not None:
        result = _merged(source, source_rules, args.merge, known or None)
    else:
        deals = _DEFAULT_DEALS if args.deals is None else args.deals
        first = args.first or 0
        if first + deals > MAX_DEALS:       # (named as the options, not solve_sampled's)
            raise ValueError(f"--first + --deals must be at most 2**63 (deal numbers are "
                             f"below it), not {first} + {deals}")
        # Ctrl-C stops the deals being solved and skips the rest: what the deals searched
        # so far give is printed (with --json, a slice that --merge takes)
        stop = Stop()
        with ctrl_c_sets(stop):
            result = solve_sampled(source, deals, seed=args.seed or 0, known=known or None,
                                   rules=source_rules,
                                   threads=args.threads, time_limit=args.time_limit,
                                   node_limit=args.node_limit, first=first, stop=stop,
                                   **_progress(label, deals, progress_interval(args)))
        interrupted = stop.is_set()
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        limited = args.time_limit is not None or args.node_limit is not None
        _print_sampled(pos, result, known, "a limit" if not interrupted else
                       "a limit or Ctrl-C" if limited else "Ctrl-C")
    if interrupted:
        say(f"guandan sample: interrupted; {result.samples} of {counted(deals, 'deal')} "
            f"searched, {result.solved} counted")
        return 130
    return 0


def _progress(label: str, deals: int, interval: float | None) -> dict:
    """``--progress``'s callbacks for solve_sampled (none without it, ``interval`` None):
    a line on stderr for each deal solved, and every ``interval`` seconds of a deal's
    search what it is still doing, headed by the position, how many of the deals are done
    and the time since the first began."""
    from solver.sampling import _counted

    if interval is None:
        return {}
    start = time.perf_counter()
    done = 0

    def line(number: int, what: str) -> None:
        say(f"{one_line(label)} ({done} of {deals}, {time.perf_counter() - start:.2f} s): "
            f"deal {number}: {what}")

    def on_deal(number: int, result) -> None:
        nonlocal done
        done += 1
        if _counted(result):
            line(number, f"value {result.value:+d}, best move: {result.best}")
        else:
            line(number, "left out (stopped before every move had its value)")

    def on_info(number: int, fields: dict) -> None:
        if fields["stage"] == "working":
            line(number, _working_text(fields, None))
    return {"on_deal": on_deal, "on_info": on_info, "info_interval": interval}


def _merged(source, rules, paths: list, known):
    """The saved results (``guandan sample --json``'s objects, a file each) of ``source``
    (a position or a view, read under ``rules``) with ``known`` cards, added up
    (``solver.merge_sampled``)."""
    from solver.sampling import merge_sampled, read_sampled

    from .jsontext import read_text

    parts = []
    for path in paths:
        text = read_text(path)      # (its errors name the file already)
        try:
            # (the text, which read_sampled parses: a JSON string parsed here was read
            # again as JSON text, "not valid JSON" for a file holding "abc")
            parts.append(read_sampled(text, source, known, rules))
        except ValueError as exc:
            raise ValueError(f"{path!r}: {exc}") from None
    return merge_sampled(parts)


def register(sub) -> None:
    p = sub.add_parser(
        "sample", help="value the moves of the seat to move over random deals of the hands "
                       "it cannot see",
        description="Every move of the seat to move, valued over random deals of the cards it "
                    "cannot see: its own hand, the table, the finishing order and every seat's "
                    "number of cards are kept, the other hands are dealt again at random from "
                    "their cards together, and each deal is solved exactly with every move "
                    "scored. The other hands of POSITION are read only as those cards: which "
                    "seat holds which does not matter, only how many each holds.")
    p.add_argument("position", nargs="?", metavar="POSITION",
                   help="position JSON file (RULES sec. 7), or the seat to move's view "
                        "(its hand, the cards played, every seat's number of cards, and "
                        "the hand's tribute if any), - for stdin")
    p.add_argument("--example", action="store_true",
                   help="the built-in 4 x 6 endgame of guandan solve --example, from seat 0")
    p.add_argument("--deals", metavar="N",
                   type=whole_number_type("a whole number of deals from 1 to 1000000", 1,
                                          1_000_000),
                   help=f"deals to solve (default {_DEFAULT_DEALS})")
    p.add_argument("--seed", metavar="S",
                   type=whole_number_type("a whole number from 0 to 2**63 - 1", 0, 2**63 - 1),
                   help="the deals' seed: the same seed gives the same deals and answer "
                        "(default 0)")
    p.add_argument("--first", metavar="F",
                   type=whole_number_type("a whole number of deals from 0 to 2**63 - 1", 0,
                                          2**63 - 1),
                   help="solve the seed's deals F to F + N - 1 (default 0): slices of one "
                        "run, solved apart, that --merge adds up to the run's answer")
    p.add_argument("--merge", metavar="RESULT", nargs="+",
                   help="solve nothing: add up the --json results saved in these files, "
                        "each of this POSITION and --known cards (their seeds the same, "
                        "their deals apart); after POSITION, since it takes every file "
                        "that follows")
    p.add_argument("--known", metavar="SEAT:CARDS",
                   help="cards a hidden seat is known to hold, dealt to it every time (a "
                        "tribute it received): \"3:SK D7\", several as \"3:SK; 1:HA\"")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_search_options(p, "deal", "a deal it stops is not counted",
                       "deals solved at once (default: every core)")
    add_progress_options(p, "write a line to stderr as each deal is solved: its number, "
                            "value and best move (or that a limit left it out), how many "
                            "deals are done and the time so far")
    add_rules_option(p)
    p.set_defaults(func=cmd_sample)
