"""Property tests of the game engine over 2,200 seeded random hands (RULES.md sec. 6, 7).

Every hand is dealt from a seed at a random level under the standard or platform rules
and played with uniformly random legal moves. For every turn the test checks, without
trusting the engine's own bookkeeping:

* the move is legal: a pass only when following; the cards are in the seat's hand, the
  reading is one of ``classify`` of those cards, and it beats the table play (sec. 5, 6);
* the seat to move and the table follow a separate model of the turn rules that counts
  passes (sec. 6: the round ends after every other seat still in play passed; the
  partner of an out owner takes the wind) instead of walking past the owner (sec. 7);
* push/pop of another legal move restores the exact position (``key``).

At the end of each hand: it ended, the finishing order is consistent, the outcome
follows from it (sec. 6), cards are conserved, and popping every move gives back the
start position.
"""

import random

import numpy as np
import pytest

from guandan_core import Rules, beats, classify
from guandan_core.match import Match, deal
from guandan_core.players import RandomPlayer
from guandan_core.position import Position, finishing_outcome

CHUNKS = 4
HANDS_PER_CHUNK = 550          # 2,200 hands in all
RULESETS = (Rules.standard(), Rules.platform())


class TurnModel:
    """Sec. 6 with a pass counter: a separate formulation of the turn rules."""

    def __init__(self, leader, ncards):
        self.to_move = leader
        self.ncards = list(ncards)
        self.owner = None
        self.passes = 0
        self.needed = 0
        self.finished = []
        self.over = False

    def active(self, seat):
        return self.ncards[seat] > 0

    def next_active(self, seat):
        for step in range(1, 4):
            t = (seat + step) % 4
            if self.active(t):
                return t
        raise AssertionError("no active seat")

    def play(self, seat, ncards_played):
        if ncards_played == 0:
            assert self.owner is not None, "a pass on lead"
            self.passes += 1
            if self.passes == self.needed:
                self.to_move = self.owner if self.active(self.owner) else (self.owner + 2) % 4
                self.owner = None
            else:
                self.to_move = self.next_active(seat)
            return
        self.ncards[seat] -= ncards_played
        if self.ncards[seat] == 0:
            self.finished.append(seat)
            if not self.active((seat + 2) % 4):
                self.over = True
                return
        self.owner = seat
        self.passes = 0
        # everyone still holding cards, except the owner, must pass to end the round
        self.needed = sum(1 for t in range(4) if t != seat and self.active(t))
        self.to_move = self.next_active(seat)


def _play_hand(seed):
    rng = random.Random(seed)
    rules = RULESETS[seed % 2]
    level = rng.randrange(13)
    dealt = deal(rng)
    leader = rng.randrange(4)
    pos = Position(level, dealt, (), leader, rules=rules)
    start_key = pos.key()
    model = TurnModel(leader, [27] * 4)
    played = np.zeros(54, dtype=np.int64)
    turns = 0
    while not pos.is_over:
        turns += 1
        assert turns < 2000, f"seed {seed}: the hand does not end"
        seat = pos.to_move
        assert seat == model.to_move, f"seed {seed}: seat to move"
        assert (pos.owner is None) == (model.owner is None) and pos.owner == model.owner
        table = pos.table
        moves = pos.move_list()
        move = moves[rng.randrange(len(moves))]
        if move.is_pass:
            assert table is not None, f"seed {seed}: pass on lead"
        else:
            counts = pos.counts(seat)
            for k in set(move.kinds):
                assert counts[k] >= move.kinds.count(k), f"seed {seed}: card not held"
            assert move in classify(list(move.cards), level, rules), \
                f"seed {seed}: {move} is not a reading of its cards"
            if table is not None:
                assert beats(move, table), f"seed {seed}: {move} does not beat {table}"
            played += np.bincount(move.kinds, minlength=54)
        # push/pop of another legal move restores the exact state
        if turns % 3 == 0:
            other = moves[rng.randrange(len(moves))]
            before = pos.key()
            pos.push(other, check=False)
            pos.pop()
            assert pos.key() == before, f"seed {seed}: push/pop changed the position"
        pos.push(move, check=False)
        model.play(seat, len(move.kinds))
    assert model.over and list(pos.finished) == model.finished
    order = pos.finishing_order()
    assert sorted(order) == [0, 1, 2, 3] and order[:len(model.finished)] == tuple(
        model.finished)
    first = order[0]
    place = order.index(first ^ 2)
    outcome = pos.outcome
    assert outcome == finishing_outcome(order)
    assert abs(outcome) == {1: 3, 2: 2, 3: 1}[place]
    assert (outcome > 0) == (first % 2 == 0)
    assert pos.team_value(1) == -outcome
    remaining = sum(pos.counts(s).astype(np.int64) for s in range(4))
    assert (remaining + played == 2).all(), f"seed {seed}: cards not conserved"
    depth = pos.depth
    while pos.depth:
        pos.pop()
    assert pos.key() == start_key, f"seed {seed}: popping everything"
    return turns, depth


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_hands_follow_the_rules(chunk):
    """RULES 5, 6, 7: 550 random hands per chunk (2,200 in all)."""
    total = 0
    for i in range(HANDS_PER_CHUNK):
        turns, _ = _play_hand(chunk * 100_003 + i)
        total += turns
    assert total > HANDS_PER_CHUNK * 20


def test_random_playout_matches_reference_model():
    """RULES 6: the fast in-place playout ends every hand and keeps the undo stack; its
    moves, replayed through a checked push, follow the turns of TurnModel (who moves,
    who owns the table, who finished) move by move. (The model was never used here.)"""
    rng = random.Random(99)
    for _ in range(200):
        dealt = deal(rng)
        leader = rng.randrange(4)
        pos = Position(rng.randrange(13), dealt, (), leader)
        start = pos.key()
        outcome = pos.random_playout(rng)
        assert pos.is_over and outcome == pos.outcome and outcome in (3, 2, 1, -1, -2, -3)
        moves = []
        while pos.depth:
            moves.append(pos.pop())
        assert pos.key() == start
        model = TurnModel(leader, [27] * 4)
        for m in reversed(moves):
            seat = pos.to_move
            assert seat == model.to_move and pos.owner == model.owner
            pos.push(m)          # checked: every move was legal
            model.play(seat, len(m.kinds))
        assert pos.is_over and pos.outcome == outcome
        assert model.over and list(pos.finished) == model.finished


def test_json_round_trip_mid_hand():
    """RULES 7: positions taken in the middle of random hands round-trip through JSON."""
    rng = random.Random(5)
    for _ in range(100):
        pos = Position(rng.randrange(13), deal(rng), (), rng.randrange(4),
                       rules=RULESETS[rng.randrange(2)])
        stop = rng.randrange(120)
        while not pos.is_over and pos.depth < stop:
            moves = pos.move_list()
            pos.push(moves[rng.randrange(len(moves))], check=False)
        if pos.is_over:
            continue
        back = Position.from_json(pos.to_json(), pos.rules)
        assert back == pos and back.to_json() == pos.to_json()
        assert back.legal_moves() == pos.legal_moves()


def test_match_hands_are_consistent():
    """RULES 6, 8: over many match hands, levels follow the finishing orders, by a model
    written here from RULES alone (standard rules: gains +3 / +2 / +1 by the partner's
    place, capped at A; the next hand at the winners' level; a team at A playing at A
    that wins with its partner 2nd or 3rd wins the game, and a new match starts at 2).
    It compared the engine's fields with each other before, never levels with a model."""
    events = []
    match = Match([RandomPlayer(i) for i in range(4)], seed=11, on_event=events.append)
    results = match.play(150)
    ace = 12
    levels, hand_level, games = [0, 0], 0, 0
    for r in results:
        assert r.level == "23456789TJQKA"[hand_level], r
        first = r.order[0]
        team, partner_place = first % 2, r.order.index(first ^ 2)      # 1, 2 or 3
        gain = 4 - partner_place
        assert r.outcome == finishing_outcome(r.order) == (gain if team == 0 else -gain)
        assert r.gain == gain
        if levels[team] == ace and hand_level == ace and partner_place <= 2:
            assert r.winner == team and r.levels == tuple(levels), r
            levels, hand_level, games = [0, 0], 0, games + 1
            continue
        levels[team] = min(ace, levels[team] + gain)
        hand_level = levels[team]
        assert r.winner is None and r.levels == tuple(levels), r
    assert games >= 1                       # a won game and a new match were met
    assert sum(1 for e in events if e["event"] == "end") == 150
