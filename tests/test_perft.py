"""Perft: whole game trees of small positions, walked three ways, must be one tree.

Chess engines count the positions their move generator and make/unmake reach from fixed
positions ("perft") and compare the counts with an independent program. Here the three
walkers are:

* a reference written in this file from RULES sec. 6 alone (turn order, rounds, the
  partner taking the wind, going out, the end of the hand, the outcome) over the
  brute-force moves of ``tests/reference.py``;
* the engine's :class:`Position` (``legal_moves``, ``push``, ``pop``);
* the solver's own compiled state (``Searcher.root_moves(merge=False)``, ``push``,
  ``pop``), which the search plays on and which no other test walks move by move.

At every node of every tree the three must hold the same hands, offer the same moves (as
platform triples, suits and wild readings included), give the turn to the same seat with
the same play on the table, and end the hand at the same leaves with the same outcome.
The solver is checked against the plain minimax elsewhere, but that minimax plays on the
engine's Position, and equal values do not prove equal trees: a move offered by one side
only, or a turn given to the wrong seat, can leave every value unchanged.

What this checks of the solver is its state and its flow of play: the moves it offers
here come from the same kernel as the engine's (``gd_enumerate``, itself checked against
the reference's moves in test_crosscheck.py). The moves its search tries instead (merged
by suit, without dominated plays, the plain positions' own generator) are checked by the
tests of test_solver.py that pin them to the kernel's and to the minimax.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

from guandan_core import Move
from guandan_core.cards import parse_card
from guandan_core.hand import to_counts
from guandan_core.moves import MOVE_DTYPE
from guandan_core.position import Position, PositionError
from guandan_core.rules import Rules

from reference import opts_of_rules, ref_legal_moves
from reference_minimax import random_long_play_position, random_position

PASS = ("PASS", "PASS", ())


# ------------------------------------------------------------ the reference (RULES sec. 6)

@dataclass(frozen=True)
class RefState:
    level: int
    hands: tuple        # four sorted tuples of card names
    finished: tuple     # seats in the order they went out
    to_move: int        # -1 once the hand is over
    table: tuple | None     # the last play (a triple), None on lead
    owner: int          # who made it, -1 on lead


def _over(finished) -> bool:
    # sec. 6: the hand ends as soon as both players of one team are out
    return any(team in finished and team + 2 in finished for team in (0, 1))


def ref_moves(st: RefState, opts: dict) -> set:
    """The moves of the seat to move: any play on lead, else a play that beats the table
    or the pass (sec. 6)."""
    hand = [parse_card(c) for c in st.hands[st.to_move]]
    if st.table is None:
        return ref_legal_moves(hand, st.level, **opts)
    return ref_legal_moves(hand, st.level, beat=st.table, **opts) | {PASS}


def ref_play(st: RefState, move: tuple) -> tuple[RefState, bool]:
    """The state after ``move``; and whether this move ended a round with its owner out
    (the owner's partner then leads: "takes the wind")."""
    seat = st.to_move
    hands = list(st.hands)
    finished = list(st.finished)
    table, owner = st.table, st.owner
    if move != PASS:
        left = Counter(hands[seat])
        left.subtract(move[2])
        assert min(left.values()) >= 0, (st, move)
        hands[seat] = tuple(sorted(left.elements()))
        table, owner = move, seat
        if not hands[seat]:
            finished.append(seat)       # out; places are recorded in order
    if _over(finished):
        return RefState(st.level, tuple(hands), tuple(finished), -1, None, -1), False
    t = seat
    while True:
        t = (t + 1) % 4
        if t == owner:
            # everyone else passed: the round ends and the owner leads, or the owner's
            # partner when the owner is out
            leader = owner if hands[owner] else (owner + 2) % 4
            return (RefState(st.level, tuple(hands), tuple(finished), leader, None, -1),
                    not hands[owner])
        if hands[t]:                    # players who are out are skipped
            return RefState(st.level, tuple(hands), tuple(finished), t, table, owner), False


def ref_outcome(finished) -> int:
    """Sec. 6: the team of the first out wins 3, 2 or 1 as its partner finished 2nd, 3rd
    or last; from team 0's side."""
    first = finished[0]
    partner = (first + 2) % 4
    place = finished.index(partner) + 1 if partner in finished else 4
    points = {2: 3, 3: 2, 4: 1}[place]
    return points if first % 2 == 0 else -points


def ref_state(pos: Position) -> RefState:
    obj = pos.to_json()
    table = obj["table"]
    return RefState(pos.level, tuple(tuple(sorted(h)) for h in obj["hands"]),
                    tuple(obj["finished"]), obj["to_move"],
                    None if table is None else (table["play"][0], table["play"][1],
                                                tuple(table["play"][2])),
                    -1 if table is None else table["owner"])


# ------------------------------------------------------------ the walk

@functools.lru_cache(maxsize=None)
def _counts(cards: tuple) -> np.ndarray:
    return to_counts(cards)


def _triple(move) -> tuple:
    return (move.type, move.rank, tuple(move.cards))


class Tally:
    def __init__(self):
        self.nodes = self.leaves = self.wind = 0
        self.outcomes = Counter()   # hands ended, by outcome
        self.types = Counter()      # moves offered, by type

    def add(self, other: "Tally") -> None:
        self.nodes += other.nodes
        self.leaves += other.leaves
        self.wind += other.wind
        self.outcomes.update(other.outcomes)
        self.types.update(other.types)


def walk(st: RefState, pos: Position, searcher, opts: dict, tally: Tally, budget: int,
         depth: int = 1000):
    """Walk the tree below ``st``, ``depth`` moves deep, with the engine and the searcher
    in step."""
    tally.nodes += 1
    if tally.nodes > budget:
        raise _TooBig()
    table = pos.table
    assert pos.to_move == searcher.to_move() == st.to_move, st
    assert (None if table is None else (_triple(table), pos.owner)) == \
        (None if st.table is None else (st.table, st.owner)), st
    assert searcher.owner() == st.owner, st
    hands = searcher.hands()
    for seat in range(4):
        assert np.array_equal(pos.counts(seat), _counts(st.hands[seat])), (st, seat)
        assert np.array_equal(hands[seat], _counts(st.hands[seat])), (st, seat)
    want = ref_moves(st, opts)
    engine = {}
    for move in pos.legal_moves():
        assert _triple(move) not in engine, (st, str(move))   # no move twice
        engine[_triple(move)] = move
    data, _, _ = searcher.root_moves(False)
    records = np.frombuffer(data, dtype=MOVE_DTYPE)
    compiled = {}
    for i, move in enumerate(Move.from_array(records)):
        assert _triple(move) not in compiled, (st, str(move))
        compiled[_triple(move)] = np.frombuffer(records[i:i + 1].tobytes(), dtype=np.uint8)
    assert set(engine) == want, (st, sorted(set(engine) ^ want))
    assert set(compiled) == want, (st, sorted(set(compiled) ^ want))
    tally.types.update(move[0] for move in want)
    if depth == 0:
        tally.leaves += 1
        return
    for move in sorted(want):
        child, wind = ref_play(st, move)
        tally.wind += wind
        pos.push(engine[move], check=False)
        token = searcher.push(compiled[move])
        try:
            if child.to_move < 0:
                assert pos.is_over and searcher.is_over(), (st, move)
                value = ref_outcome(child.finished)
                assert pos.outcome == searcher.outcome() == value, (st, move)
                assert list(pos.finished) == searcher.finished() == list(child.finished)
                tally.leaves += 1
                tally.outcomes[value] += 1
            else:
                assert not pos.is_over and not searcher.is_over(), (st, move)
                walk(child, pos, searcher, opts, tally, budget, depth - 1)
        finally:
            searcher.pop(token)
            pos.pop()


class _TooBig(Exception):
    pass


def _trees(seed: int, count: int, rules_name: str, budget: int = 3000, **draw):
    """Walk ``count`` random positions' whole trees (those of at most ``budget`` nodes)
    under a rule preset; the tally over all of them."""
    from solver._search import Searcher
    from solver.search import _load
    rules = Rules.by_name(rules_name)
    opts = opts_of_rules(rules)
    rng = random.Random(seed)
    searcher = Searcher(12)
    tally = Tally()
    walked = tables = out = 0
    while walked < count:
        pos = random_position(rng, **draw)
        if pos is None:
            continue
        try:
            pos = Position.from_json(pos.to_json(), rules)
        except PositionError:
            continue        # (a table play this preset does not have)
        trial = Tally()
        _load(searcher, pos)
        try:
            walk(ref_state(pos), pos, searcher, opts, trial, budget)
        except _TooBig:
            continue            # (the walk took back every move it made on the way out)
        walked += 1
        tables += pos.table is not None
        out += bool(pos.finished)
        tally.add(trial)
    return tally, tables, out


PRESETS = ["standard", "platform", "no-sf-bomb", "long-sequences"]


@pytest.mark.parametrize("rules_name", PRESETS)
def test_three_walkers_build_the_same_trees(rules_name):
    """RULES sec. 3 to 6: 40 whole trees of 2 to 4 players holding up to 3 cards each
    (wild cards and jokers favoured, tables and players out included)."""
    tally, tables, out = _trees(7000 + PRESETS.index(rules_name), 40, rules_name,
                                max_cards=3, max_total=9)
    assert tables >= 5 and out >= 10
    assert tally.leaves >= 1000 and tally.wind >= 100
    assert len(tally.outcomes) == 6     # every outcome of sec. 6 reached


def test_three_walkers_build_the_same_trees_with_four_players_and_more_cards():
    """Four players in play, up to 4 cards each: longer rounds, more passes, and more
    of the partner taking the wind (RULES sec. 6)."""
    tally, tables, out = _trees(7100, 15, "standard", budget=20_000, max_cards=4,
                                active=4, max_total=13)
    assert out == 0 and tables >= 2
    assert tally.leaves >= 3000 and tally.wind >= 500


@pytest.mark.parametrize("rules_name", PRESETS)
def test_three_walkers_agree_three_moves_deep_with_long_plays(rules_name):
    """RULES sec. 4, 5 and 9: positions holding tubes, plates, straights, straight
    flushes, full houses and bombs (tests/reference_minimax.py), walked three moves deep
    (their whole trees are too large for the reference's moves)."""
    from solver._search import Searcher
    from solver.search import _load
    rules = Rules.by_name(rules_name)
    opts = opts_of_rules(rules)
    rng = random.Random(7200 + PRESETS.index(rules_name))
    searcher = Searcher(12)
    tally = Tally()
    walked = 0
    while walked < 15:
        pos = random_long_play_position(rng, rules)
        if pos is None:
            continue
        _load(searcher, pos)
        walk(ref_state(pos), pos, searcher, opts, tally, budget=10 ** 9, depth=3)
        walked += 1
    assert tally.leaves >= 500
    assert {"Straight", "Bomb", "ThreePair", "TwoTrips", "ThreeWithTwo"} <= set(tally.types)
    # without sec. 9's straight flush bomb the same cards are read as a straight
    assert ("StraightFlush" in tally.types) == (rules_name != "no-sf-bomb")
