"""A differential check of the endgame search, for whoever changes ``solver/_search.pyx``.

    python tests/differential.py [--seconds S] [--positions N] [--seed S]

It draws random endgames of five kinds (from ``reference_minimax``): the small positions
of ``random_position``, the long plays of ``random_long_play_position`` under a random
rule preset, the spaced-rank hands of ``spaced_ranks_case`` (no sequence possible, so the
search drops dominated plays), the plays that a rule option makes or unmakes of
``rule_option_position`` under a random preset and, half of all draws, the small hands of
``random_piece_position`` (bombs of three naturals and two wild cards, triples and pairs
completed by wild cards, three-with-twos of several kinds). For each one it checks that:

* the default searcher and one with each technique switched off (or, for those off by
  default, on) give the same value (the others give up after a million nodes: "stopped");
* the plain minimax gives that value too, where it finishes within its budget;
* every move the search drops at the root (suit merges and dominated plays; in the
  general search and, where the position is plain, in the plain search) has a kept move
  of its kind at least as good, the children valued by a searcher that drops none;
* every tenth position, ``solve()``'s best move reaches its value.

Each disagreement is one JSON line on stdout, a summary goes to stderr, and the exit
status is 1 if there was any. The suite runs these checks on fixed seeds; this runs them
for as long as you like. Session 49: positions like ``random_piece_position``'s, 570,000
of them, showed no disagreement in the real search; in 90 seconds or less this reported a
mutant of the pruning that forgot an opponent's wild card when it completes a pair, and
one that took a pair out of a triple for the lower pair of a three-with-two.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import numpy as np

from guandan_core import Move
from guandan_core.moves import MOVE_DTYPE
from guandan_core.position import Position
from guandan_core.rules import PRESET_NAMES, Rules
from reference_minimax import (Budget, minimax, random_long_play_position,
                               random_piece_position, random_position, rule_option_position,
                               spaced_ranks_case)
from solver import Searcher, solve
from solver.search import _load

# techniques on by default, each switched off in turn; and those off by default, on
SWITCHED_OFF = ("use_tt", "use_merge", "use_bounds", "use_ordering", "use_compress",
                "use_history", "use_dominance", "use_plain")
SWITCHED_ON = ("use_etc", "use_runout")
# the kinds of position drawn, in turn: the pieces twice as often, as the likeliest to
# show a mistake in the pruning
KINDS = (0, 3, 1, 3, 2, 3, 4, 3)
VARIANT_NODE_LIMIT = 1_000_000      # a search with a technique switched off gives up here


def searcher_settings() -> dict:
    """{name: Searcher keyword arguments} of the searchers whose values must agree."""
    settings = {"default": {}}
    settings.update({f"{name}=False": {name: False} for name in SWITCHED_OFF})
    settings.update({f"{name}=True": {name: True} for name in SWITCHED_ON})
    return settings


def make_searchers(settings: dict | None = None):
    """The searchers compared, {name: Searcher} (``settings`` as for ``run``), and the
    reference that values the dropped moves' children (it drops none)."""
    settings = searcher_settings() if settings is None else settings
    searchers = {name: Searcher(12, **kw) for name, kw in settings.items()}
    return searchers, Searcher(14, use_dominance=False)


def team0_value(searcher, pos: Position, node_limit: int | None = None) -> int | None:
    """Team 0's value of ``pos`` by ``searcher`` from empty tables (the outcome of a hand
    that is over); None if it gave up at ``node_limit`` nodes."""
    if pos.is_over:
        return pos.outcome
    searcher.clear_table()
    _load(searcher, pos)
    searcher.reset_counters()
    searcher.limits(node_limit, None)
    return searcher.search(-4, 4)


def new_count() -> dict:
    """The counts of what was checked, all zero (``check`` adds to them)."""
    return {"positions": 0, "compared": 0, "minimax": 0, "dropped": 0, "dropped plain": 0,
            "best moves": 0, "stopped": 0, "disagreements": 0}


def searched_and_legal(searcher, pos: Position, plain: bool = False):
    """The moves the search tries at ``pos`` (after its merges) and all its legal moves;
    the first must be among the second. ``plain``: the moves of the plain positions'
    search, (None, None) if ``pos`` is not plain."""
    _load(searcher, pos)
    try:
        data = searcher.searched_moves(plain)
    except ValueError:
        if plain:
            return None, None
        raise
    searched = Move.from_array(np.frombuffer(data, MOVE_DTYPE))
    legal = list(pos.legal_moves())
    assert set(searched) <= set(legal), \
        f"searched moves not legal: {[str(m) for m in set(searched) - set(legal)]}"
    return searched, legal


def dominated_drops(pos: Position, searcher, reference, plain: bool = False) -> int:
    """How many moves the search drops at ``pos``, each checked to have a kept move of
    its kind at least as good for the mover's team (an AssertionError naming the move if
    not). Children are valued by ``reference``, a searcher that drops no dominated move."""
    kept, legal = searched_and_legal(searcher, pos, plain)
    if kept is None:
        return 0
    dropped = [m for m in legal if m not in kept]

    def value(move):          # for the mover's team
        v = team0_value(reference, pos.play(move))
        return v if pos.to_move % 2 == 0 else -v
    kinds = {m.type_id for m in dropped}
    kept_values = {m: value(m) for m in kept if m.type_id in kinds}
    for m in dropped:
        v = value(m)
        assert any(k.type_id == m.type_id and kept_values[k] >= v for k in kept_values), \
            f"{'plain' if plain else 'general'} search dropped {m} ({v:+d}) for " \
            f"{ {str(k): x for k, x in kept_values.items() if k.type_id == m.type_id} }"
    return len(dropped)


def draw(rng: random.Random, kind: int) -> tuple[Position | None, str]:
    """A random position of the given kind (0 to 4: see the module's docstring), None for
    a draw that is not a valid position, and the name of its rules."""
    if kind == 0:
        return random_position(rng, max_cards=6, max_total=16, with_table=0.5), "standard"
    if kind == 1:
        name = rng.choice(PRESET_NAMES)
        return random_long_play_position(rng, Rules.of(name)), name
    if kind == 2:
        obj = spaced_ranks_case(rng, lead=rng.random() < 0.5,
                                full_house_table=rng.random() < 0.3)
        return Position.from_json(obj), "standard"
    if kind == 4:
        name = rng.choice(PRESET_NAMES)
        return rule_option_position(rng, Rules.of(name)), name
    return random_piece_position(rng), "standard"


def check(pos: Position, searchers: dict, reference, budget: int, count: dict,
          best_move: bool) -> list:
    """The disagreements at ``pos``: a list of (check, detail); ``count`` counts what was
    checked."""
    found = []
    values = {}
    for name, searcher in searchers.items():
        # (a technique switched off can make a long-play position take minutes)
        values[name] = team0_value(searcher, pos,
                                   VARIANT_NODE_LIMIT if name != "default" else None)
        if values[name] is None:
            count["stopped"] += 1
            del values[name]
    count["compared"] += len(values) - 1        # (searchers compared with the default)
    if len(set(values.values())) > 1:
        found.append(("values", values))
    try:
        truth = minimax(pos, [budget], {})
        count["minimax"] += 1
        if truth != values["default"]:
            found.append(("minimax", {"minimax": truth, "default": values["default"]}))
    except Budget:
        pass
    for plain in (False, True):
        try:
            dropped = dominated_drops(pos, searchers["default"], reference, plain)
        except AssertionError as e:
            found.append(("dropped", str(e)))
        else:
            count["dropped"] += dropped
            count["dropped plain"] += dropped if plain else 0
    if best_move:
        count["best moves"] += 1
        result = solve(pos, pv=False)
        reached = team0_value(reference, pos.play(result.best))
        mover_sign = 1 if pos.to_move % 2 == 0 else -1
        if reached != mover_sign * result.value:
            found.append(("best move", {"best": str(result.best), "value": result.value,
                                        "reached (team 0)": reached}))
    return found


def run(seed: int, positions: int | None, seconds: float | None, settings: dict | None = None,
        budget: int = 20_000, out=None) -> dict:
    """Checks positions from ``seed`` until ``positions`` were checked or ``seconds``
    passed (whichever comes first; at least one must be given), printing each
    disagreement as a JSON line to ``out`` (default sys.stdout). Returns the counts,
    "disagreements" among them. ``settings``: {name: Searcher keyword arguments}, default
    searcher_settings()."""
    if positions is None and seconds is None:
        raise ValueError("give positions or seconds (or both)")
    out = sys.stdout if out is None else out        # (the one of the moment, not of import)
    searchers, reference = make_searchers(settings)
    rng = random.Random(seed)
    count = new_count()
    start = time.monotonic()
    while (positions is None or count["positions"] < positions) and \
            (seconds is None or time.monotonic() - start < seconds):
        pos, rules = draw(rng, KINDS[count["positions"] % len(KINDS)])
        if pos is None or pos.is_over:
            continue
        for name, detail in check(pos, searchers, reference, budget, count,
                                  best_move=count["positions"] % 10 == 0):
            count["disagreements"] += 1
            print(json.dumps({"check": name, "position": pos.to_json(),
                              "rules": rules, "detail": detail}), file=out, flush=True)
        count["positions"] += 1
    return count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=None,
                        help="stop after this long (default 60 unless --positions is given)")
    parser.add_argument("--positions", type=int, default=None, help="stop after this many")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=int, default=20_000,
                        help="positions the plain minimax may search (default 20000)")
    args = parser.parse_args(argv)
    seconds = 60.0 if args.seconds is None and args.positions is None else args.seconds
    count = run(args.seed, args.positions, seconds, budget=args.budget)
    print(", ".join(f"{n} {k}" for k, n in count.items()), file=sys.stderr)
    return 1 if count["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
