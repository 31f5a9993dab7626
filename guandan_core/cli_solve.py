"""``guandan solve``: the endgame solver on the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# A 4 x 6 endgame (from benchmarks/data/endgames_4x6.json, item 32) that solves in
# a few hundredths of a second.
EXAMPLE_POSITION = {
    "level": "Q",
    "hands": [["C5", "D6", "H7", "C7", "C8", "D9"], ["D4", "S6", "C8", "D8", "HJ", "DQ"],
              ["C2", "D5", "C9", "D9", "DJ", "SK"], ["H8", "CJ", "DJ", "SQ", "CQ", "SK"]],
    "finished": [], "to_move": 0, "table": None,
}


def _read_position(path: str):
    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ValueError(f"cannot read {path!r}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path!r} is not valid JSON: {exc}") from None


def _signed(v) -> str:
    return "?" if v is None else f"{v:+d}"


def cmd_solve(args) -> int:
    from solver import solve

    from .position import Position
    from .rules import Rules

    if args.example == (args.position is not None):
        raise ValueError("give a POSITION file (or - for stdin) or --example, not both")
    obj = EXAMPLE_POSITION if args.example else _read_position(args.position)
    pos = Position.from_json(obj, Rules.by_name(args.rules))
    result = solve(pos, all_moves=args.all_moves, time_limit=args.time_limit,
                   node_limit=args.node_limit)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    seat = pos.to_move
    team = "0+2" if seat % 2 == 0 else "1+3"
    if result.exact:
        print(f"value: {_signed(result.value)} for team {team} (seat {seat} to move)")
    else:
        print(f"value: between {_signed(result.lower)} and {_signed(result.upper)} for team "
              f"{team} (a limit stopped the search)")
    if result.best is not None:
        print(f"best move: {result.best}")
    if result.pv:
        print("principal line:")
        for s, move in result.pv:
            print(f"  seat {s}: {move}")
    if result.moves:
        print("move scores:")
        width = max(len(str(m.move)) for m in result.moves)
        for score in sorted(result.moves, key=lambda m: -(m.value if m.value is not None else -9)):
            same = f"   (+{len(score.equivalent)} equivalent)" if score.equivalent else ""
            print(f"  {str(score.move):<{width}}  {_signed(score.value)}{same}")
    print(f"nodes: {result.nodes}, table hits: {result.tt_hits}, "
          f"time: {result.seconds:.3f} s")
    return 0


def register(sub) -> None:
    p = sub.add_parser("solve", help="solve an endgame exactly (all hands visible)")
    p.add_argument("position", nargs="?", help="position JSON file (RULES sec. 7), - for stdin")
    p.add_argument("--example", action="store_true", help="solve a built-in 4 x 6 endgame")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--all-moves", action="store_true", help="score every legal move")
    p.add_argument("--time-limit", type=float, help="seconds; report bounds if reached")
    p.add_argument("--node-limit", type=int, help="nodes; report bounds if reached")
    p.add_argument("--rules", default="standard", help="standard (default) or platform ...")
    p.set_defaults(func=cmd_solve)
