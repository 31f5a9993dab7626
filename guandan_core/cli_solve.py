"""``guandan solve``: the endgame solver on the command line."""

from __future__ import annotations

import argparse
import json
import math
import queue
import threading

from .cards import format_rank
from .cli import add_rules_option, ctrl_c_sets, say, whole_number_type
from .jsontext import parse_json, read_text
from .usertext import one_line, quoted, read_seconds

# A 4 x 6 endgame (from benchmarks/data/endgames_4x6.json, item 32) that solves in
# a few hundredths of a second.
EXAMPLE_POSITION = {
    "level": "Q",
    "hands": [["C5", "D6", "H7", "C7", "C8", "D9"], ["D4", "S6", "C8", "D8", "HJ", "DQ"],
              ["C2", "D5", "C9", "D9", "DJ", "SK"], ["H8", "CJ", "DJ", "SQ", "CQ", "SK"]],
    "finished": [], "to_move": 0, "table": None,
}


def _read_position(path: str):
    text = read_text(path)
    try:
        return parse_json(text)
    except ValueError as exc:
        raise ValueError(f"{path!r}: {exc}") from None


class _Labelled:
    """The (label, position JSON) pairs of one file, labelled as they are read (labels made
    up front for a ten-million-item array took 1.3 GB before its first item was looked
    at); ``len()`` counts them."""

    def __init__(self, source: str, items: list, whole: bool):
        self.source, self.items, self.whole = source, items, whole

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        if self.whole:
            yield self.source, self.items[0]
        else:
            for i, item in enumerate(self.items):
                yield f"{self.source}#{i}", item


def _positions_in(obj, source: str) -> _Labelled:
    """The (label, position JSON) pairs of one file: a position (RULES sec. 7), a JSON
    array of positions, or an object whose "items" are positions (the benchmark sets)."""
    if isinstance(obj, dict) and "items" in obj and "hands" not in obj:
        extra = sorted(set(obj) - {"items", "about"})
        if extra:       # a misspelt key would be dropped silently
            raise ValueError(f"{source!r}: unknown key(s) {', '.join(map(quoted, extra))} "
                             "next to \"items\" (a set of positions has \"items\" and "
                             "\"about\")")
        obj = obj["items"]
        if not isinstance(obj, list):
            raise ValueError(f"{source!r}: \"items\" is not a list of positions")
    if isinstance(obj, list):
        if not obj:
            raise ValueError(f"{source!r} holds no positions")
        return _Labelled(source, obj, False)
    return _Labelled(source, [obj], True)


def _signed(v) -> str:
    return "?" if v is None else f"{v:+d}"


def _threshold(text: str) -> int:
    """--at-least's value (argparse names the option in front of the message)."""
    from .position import parse_outcome
    try:
        return parse_outcome(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# --progress: how often a long search says what it is still doing, in seconds
PROGRESS_EVERY = 5.0


def _seconds(text: str) -> float:
    """--time-limit's value: seconds, 0 or more (inf: none), as solve() takes them."""
    value = math.inf if text == "inf" else read_seconds(text)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"seconds 0 or more, at most 18 digits before the point (1e30 is read; inf: no "
            f"limit), not {quoted(text)}")
    return value


def _print_position(pos) -> None:
    """The position solved, so that the line of play can be read against it (the level
    decides which cards are high and wild)."""
    if pos.on_lead:
        turn = "on lead"
    else:
        turn = f"to beat seat {pos.owner}'s {pos.table}"
    print(f"position: level {format_rank(pos.level)}, seat {pos.to_move} {turn}")
    for seat in range(4):
        hand = pos.hand(seat)
        print(f"  seat {seat}: {hand if len(hand) else '(out)'}")


def _print_result(pos, result, stopped_by="a limit") -> None:
    seat = pos.to_move
    team = "0+2" if seat % 2 == 0 else "1+3"
    _print_position(pos)
    if result.threshold is not None:
        answer = {True: "yes", False: "no", None: f"unknown ({stopped_by} stopped the search)"}
        print(f"at least {_signed(result.threshold)} for team {team} (seat {seat} to move)? "
              f"{answer[result.reached]}")
    if result.exact:
        print(f"value: {_signed(result.value)} for team {team} (seat {seat} to move)")
    elif result.threshold is None:
        print(f"value: between {_signed(result.lower)} and {_signed(result.upper)} for team "
              f"{team} ({stopped_by} stopped the search)")
    elif result.reached is not None:
        print(f"value: between {_signed(result.lower)} and {_signed(result.upper)} for team "
              f"{team}")
    if result.best is not None:
        print(_best_text(result.best, result.lower, result.upper, result.threshold))
    if result.pv:
        print("principal line:")
        for s, move in result.pv:
            print(f"  seat {s}: {move}")
        if result.pv_cut:
            print(f"  ({stopped_by} stopped the line here, before the end of the hand)")
    elif result.pv_cut:
        print(f"principal line: not found ({stopped_by} stopped the search first)")
    if result.moves:
        width = max(len(str(m.move)) for m in result.moves)
        if result.threshold is not None:
            print(f"moves reaching {_signed(result.threshold)}:")
            answer = {True: "yes", False: "no", None: "?"}
            ranked = sorted(result.moves, key=lambda m: {True: 0, None: 1, False: 2}[m.reaches])
        else:
            print("move scores:")
            # (a move known only within bounds after those whose value is its lower bound)
            ranked = sorted(result.moves, key=lambda m: -(m.value if m.value is not None
                                                          else m.lower - 0.5))
        unanswered = bounded = False
        for score in ranked:
            # moves that differ only in suits that cannot matter: their cards
            same = ("   (the same with " + ", ".join(" ".join(m.cards) for m in score.equivalent)
                    + ")") if score.equivalent else ""
            if result.threshold is not None:
                shown = answer[score.reaches]
            elif score.value is None and (score.lower, score.upper) != (-3, 3):
                shown = f"{score.lower:+d}..{score.upper:+d}"
                bounded = True
            else:
                shown = _signed(score.value)
            unanswered |= shown == "?"
            print(f"  {str(score.move):<{width}}  {shown}{same}")
        if unanswered:
            print(f"  (?: {stopped_by} stopped the search before that move was answered)")
        if bounded:
            print(f"  (lower..upper: what was proven of that move's value before "
                  f"{stopped_by} stopped the search)")
    print(f"nodes: {result.nodes}, table hits: {result.tt_hits}, "
          f"time: {result.seconds:.3f} s")


def _best_text(move, lower: int, upper: int, threshold) -> str:
    """The move a solve answers with, named by what is proven of it: the value is
    ``lower``..``upper`` (for the team to move); ``threshold``: threshold mode's V."""
    if lower == upper:
        return f"best move: {move}"
    if threshold is not None and lower >= threshold:
        # (a move proven to reach the threshold, not the value's best)
        return f"a move reaching {_signed(threshold)}: {move}"
    if threshold is None and lower > -3:
        return f"best move found: {move} (it reaches at least {_signed(lower)})"
    return f"best move found: {move} (nothing proven about it)"


def _progress_text(fields: dict, threshold, bounds: tuple) -> str | None:
    """What an event of a search (solve's ``on_info``) says, as ``--progress`` shows it
    (in the words of the result), None for one that says nothing (bounds of -3 and +3);
    ``bounds``: the last bounds reported."""
    stage = fields["stage"]
    if stage == "bound":
        lower, upper = fields["lower"], fields["upper"]
        if (lower, upper) == (-3, 3):
            return None
        what = (f"value {_signed(lower)}" if lower == upper else
                f"value between {_signed(lower)} and {_signed(upper)}")
    elif stage == "best":
        what = _best_text(fields["move"], *bounds, threshold)
    elif stage == "working":
        what = _working_text(fields, threshold)
    else:
        if threshold is None:
            answer = f"value {_signed(fields['value'])}"
        else:
            answer = (f"reaches {_signed(threshold)}" if fields["reaches"] else
                      f"does not reach {_signed(threshold)}")
        what = f"move {fields['index']} of {fields['count']}, {fields['move']}, {answer}"
    return what


def _working_text(fields: dict, threshold) -> str:
    """What a search's "working" event (its heartbeat) says: what it is still doing."""
    task, lower, upper = fields["task"], fields["lower"], fields["upper"]
    if task == "moves":
        return f"still scoring move {fields['index']} of {fields['count']}, {fields['move']}"
    if task == "best":
        if threshold is not None:
            return f"reaches {_signed(threshold)}; still choosing the move that does"
        return f"value {_signed(lower)}; still choosing the best move"
    doing = ("still searching for the value" if task == "value" else
             f"still searching whether it reaches {_signed(threshold)}")
    if (lower, upper) != (-3, 3):
        doing += f" (between {_signed(lower)} and {_signed(upper)} so far)"
    return doing


def _labelled(exc: Exception, labels: list, single: bool) -> Exception:
    """An error solve_many raised while solving a position (API.md: its
    ``position_index``, the error it numbers its ``__cause__``, of the same class) named by
    the position's label, as a position that does not read is, or as it came for a lone
    position; any other error as it is."""
    i, cause = getattr(exc, "position_index", None), exc.__cause__
    if i is None or type(cause) is not type(exc):
        return exc
    return cause if single else type(cause)(f"{labels[i]!r}: {cause}")


def _solve_interruptibly(positions, args, show, progress=None) -> bool:
    """solve_many on a thread of its own, so that Ctrl-C reaches this one at once (a search
    holds its thread until it ends): Ctrl-C stops the searches as a time limit would, the
    positions already started still report what they proved, the others are not solved.
    ``show(index, result, interrupted)`` runs here, in this thread (``interrupted``: Ctrl-C
    had been pressed when that result came), and so does ``progress(index, fields)`` for
    each of the searches' events when it is given. True when interrupted."""
    from solver import Stop, solve_many

    stop = Stop()
    done: queue.SimpleQueue = queue.SimpleQueue()
    failure: list = []

    def work():
        try:
            solve_many(positions, threads=args.threads, all_moves=args.all_moves,
                       time_limit=args.time_limit, node_limit=args.node_limit,
                       on_result=lambda i, r: done.put((show, (i, r, stop.is_set()))),
                       at_least=args.at_least, stop=stop, fresh_tables=args.fresh_tables,
                       on_info=None if progress is None else
                       lambda i, fields: done.put((progress, (i, fields))),
                       info_interval=None if progress is None else progress_interval(args))
        except BaseException as exc:        # raised again in this thread
            failure.append(exc)
        finally:
            done.put(None)

    # Ctrl-C sets the Stop instead of raising KeyboardInterrupt: an exception raised
    # between two bytecodes could drop a result just taken from the queue (pressing twice
    # did).
    worker = threading.Thread(target=work, name="guandan-solve", daemon=True)
    with ctrl_c_sets(stop):
        try:
            worker.start()
        except RuntimeError as exc:     # ("can't start new thread": no memory, or a limit)
            raise OSError(f"cannot start the solving thread ({exc})") from None
        finished = False
        try:
            while not finished:
                try:
                    item = done.get(timeout=0.25)
                    if item is None:
                        finished = True
                    else:
                        call, arguments = item
                        call(*arguments)
                except queue.Empty:
                    pass
                except KeyboardInterrupt:
                    stop.set()
        finally:
            if not finished:
                stop.set()      # leaving on an error (a closed pipe): end the searches too
            worker.join()
    if failure:
        raise failure[0]
    return stop.is_set()


def _interval(text: str) -> float:
    """--progress-every's value: seconds above 0."""
    value = read_seconds(text)
    if not value:       # (None or 0)
        raise argparse.ArgumentTypeError(
            f"seconds above 0, at most 18 digits before the point, not {quoted(text)}")
    return value


def cmd_solve(args) -> int:
    from .position import Position
    from .rules import Rules

    if args.example and args.positions:
        raise ValueError("give POSITION files (or - for stdin) or --example, not both")
    if not args.example and not args.positions:
        raise ValueError("give POSITION files (or - for stdin), or --example")
    if args.positions.count("-") > 1:
        raise ValueError("- (standard input) is given twice: it can be read only once")
    rules = Rules.by_name(args.rules)     # (before reading: stdin may wait for a while)
    if args.example:
        sources = [_Labelled("example", [EXAMPLE_POSITION], True)]
    else:
        sources = [_positions_in(_read_position(path), path) for path in args.positions]
    labels, positions = [], []
    for label, obj in (pair for source in sources for pair in source):
        try:
            position = Position.from_parsed_json(obj, rules)
        except ValueError as exc:
            raise ValueError(f"{label!r}: {exc}") from None
        if position.is_over:        # (a finished hand reads, as to_json writes it)
            raise ValueError(f"{label!r}: the hand is already over: nothing to solve")
        labels.append(label)
        positions.append(position)
    # (one position of one file is printed bare; a set or an array of one is labelled like
    # any set, so that a script's reading of it does not depend on its size)
    single = len(sources) == 1 and sources[0].whole
    # several positions: solved on every core (--threads), printed in input order as each
    # one's turn comes (a position done early waits for those before it)
    done: dict = {}
    printed = 0

    def show(i, result, interrupted):
        nonlocal printed
        done[i] = (result, interrupted)
        while printed in done:
            label, (ready, interrupted) = labels[printed], done.pop(printed)
            if args.json:
                out = ready.to_json()
                if not single:
                    out = {"position": label, **out}
                print(json.dumps(out), flush=not single)
            else:
                if not single:
                    # (a file name may hold a line break; characters the output cannot
                    # encode are written as escapes, as main() sets up)
                    print("== " + one_line(label))
                # (Ctrl-C can cut an exact result short too: its line, or every move's
                # scores, after the value was known)
                _print_result(positions[printed], ready,
                              "Ctrl-C" if interrupted else "a limit")
            printed += 1

    bounds = [(-3, 3)] * len(positions)       # each position's, as its events tell

    def progress(i, fields):
        text = _progress_text(fields, args.at_least, bounds[i])
        if fields["stage"] == "bound":
            bounds[i] = fields["lower"], fields["upper"]
        if text is not None:
            nodes = fields["nodes"]
            say(f"{one_line(labels[i])} ({fields['seconds']:.2f} s, {nodes:,} "
                f"node{'s' if nodes != 1 else ''}): {text}")

    try:
        interrupted = _solve_interruptibly(positions, args, show,
                                           progress if progress_interval(args) else None)
    except Exception as exc:
        raise _labelled(exc, labels, single) from None
    if interrupted:
        left = len(positions) - printed
        say("guandan solve: interrupted" +
            (f"; {left} of {len(positions)} positions not solved" if left else ""))
        return 130
    return 0


def add_search_options(p, unit: str, at_limit: str, threads_help: str) -> None:
    """--time-limit and --node-limit (each per ``unit``: what happens when one is reached,
    ``at_limit``) and --threads, as solve and sample take them."""
    p.add_argument("--time-limit", type=_seconds, metavar="S",
                   help=f"seconds per {unit}; {at_limit}")
    p.add_argument("--node-limit", metavar="N",
                   type=whole_number_type("a whole number of nodes from 0 to 2**63 - 1",
                                          0, 2**63 - 1),
                   help=f"nodes per {unit}; {at_limit}")
    p.add_argument("--threads", type=whole_number_type("a whole number of threads from 1 to "
                                                         "9999", 1, 9999),
                   help=threads_help)


def add_progress_options(p, what: str) -> None:
    """--progress (``what`` it writes, and what a long search is still doing every 5 s)
    and --progress-every S, as solve and sample take them (see progress_interval)."""
    p.add_argument("--progress", action="store_true",
                   help=f"{what}; and what a long search is still doing, every 5 s")
    p.add_argument("--progress-every", type=_interval, metavar="S",
                   help="what a long search is still doing every S seconds instead of 5 "
                        "(implies --progress)")


def progress_interval(args) -> float | None:
    """The seconds between --progress's lines on what a search is still doing, None
    without --progress (which --progress-every implies)."""
    if args.progress_every is not None:
        return args.progress_every
    return PROGRESS_EVERY if args.progress else None


def register(sub) -> None:
    p = sub.add_parser("solve", help="solve an endgame exactly (all hands visible)")
    p.add_argument("positions", nargs="*", metavar="POSITION",
                   help="position JSON file (RULES sec. 7), - for stdin; a file may also hold "
                        "a JSON array of positions or {\"items\": [...]}")
    p.add_argument("--example", action="store_true", help="solve a built-in 4 x 6 endgame")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (one line per position)")
    p.add_argument("--all-moves", action="store_true", help="score every legal move")
    p.add_argument("--at-least", type=_threshold, metavar="V",
                   help="threshold mode: can the team to move reach at least V (+3 ... -3)? "
                        "cheaper than the value; with a move that reaches it (with "
                        "--all-moves: which moves do)")
    add_search_options(p, "position", "report bounds if reached",
                       "positions solved at once (default: every core); several positions only")
    p.add_argument("--fresh-tables", action="store_true",
                   help="each position from empty tables: node counts, and what a limit "
                        "leaves, then do not depend on the positions solved before it or "
                        "on --threads (exact values never do)")
    add_progress_options(p, "write each bound proven, the move answered with and each move "
                            "scored to stderr as the search goes, with the time and nodes "
                            "so far")
    add_rules_option(p)
    p.set_defaults(func=cmd_solve)
