"""One hand of Guandan as a reinforcement-learning environment (the gymnasium calling
convention, without depending on gymnasium).

:class:`HandEnv` deals a hand from a seed (as the first hand of a seeded
:class:`~guandan_core.match.Match` is dealt), lets the agent choose the moves of its seats
and plays the other seats with ordinary :class:`~guandan_core.match.Match` players
(greedy by default). ``reset(seed)`` returns ``(observation, info)``; ``step(action)``
plays the agent's move, then the other seats' until an agent seat is to move again or the
hand is over, and returns ``(observation, reward, terminated, truncated, info)``. An
action is an index into the legal moves of the seat to move, in this engine's order (the
pass first when following): ``observation["legal"]`` holds them as ``MOVE_DTYPE`` records
(:mod:`guandan_core.moves`), after the pass when ``observation["can_pass"]``.

The observation is what the seat to move may see, as fixed-size numpy arrays: ``seat``,
``level``, ``hand`` (uint8[54] card counts), ``played`` (uint8[4, 54]: the cards each
seat has played this hand), ``cards_left`` (uint8[4]), ``place`` (uint8[4]: 1 to 4 for
the seats out, in the order they went out; 0 for the others), ``table`` (uint8[54]: the
cards of the play to beat; zeros on lead), ``table_owner`` (-1 on lead), ``can_pass`` and
``legal``. ``info["observation"]`` is the :class:`~guandan_core.match.Observation` a
``Match`` would give a player at that moment, so a ``Match`` player can choose the
action too (``env.action_of(move)``).

The reward is 0 until the hand is over; the step that ends it gives the outcome (RULES
sec. 6: +3 to -3) for the team of the seat whose move the step made (the agent's team
when its seats are partners), with ``info["outcome"]`` the outcome for seats 0 and 2 and
``info["order"]`` the finishing order; its observation is that seat's at the end (the
final cards and places, no legal moves). An opponent whose player raises, or answers a
move that is not legal, leaves the environment as it was before the step (the error is
raised; a ``ValueError`` names the seat and the answer). An environment pickles and
copies (``copy.copy`` too) with its state, players included, so a search can branch from
it. One opponent player given alone plays every seat that is not the agent's: give a
list of four for players that keep state per seat.

>>> env = HandEnv(agent_seats=(0, 2))
>>> obs, info = env.reset(seed=7)
>>> int(obs["seat"]) in (0, 2), int(obs["hand"].sum())
(True, 27)
>>> len(obs["legal"]) + bool(obs["can_pass"]) == len(info["observation"].legal_moves)
True
>>> from guandan_core.players import GreedyPlayer
>>> greedy, done = GreedyPlayer(), False
>>> while not done:
...     obs, reward, done, _, info = env.step(env.action_of(greedy(info["observation"])))
>>> reward == info["outcome"]            # the agent plays seats 0 and 2
True
"""

from __future__ import annotations

import copy
import random
from typing import Optional

import numpy as np

from .cards import is_whole, parse_level
from .match import Observation, deal
from .moves import MOVE_DTYPE, Move
from .players import GreedyPlayer
from .position import Position
from .rules import Rules

__all__ = ["HandEnv"]


class HandEnv:
    """One hand: the agent plays ``agent_seats`` (a tuple of seats, default all four),
    ``opponents`` the others (a player callable, or a list of four with None at the
    agent's seats; default :class:`~guandan_core.players.GreedyPlayer`), at ``level``
    (a rank such as ``"2"`` or ``"A"``; an int is the rank's index, 0 for 2) under
    ``rules`` (a :class:`~guandan_core.rules.Rules` or preset name; default standard)."""

    def __init__(self, agent_seats=(0, 1, 2, 3), opponents=None, level="2", rules=None):
        try:
            seats = tuple(agent_seats)
        except TypeError:
            seats = ()
        if isinstance(agent_seats, (str, bytes)) or not seats or \
                len(set(seats)) != len(seats) or not all(is_whole(s, 0, 3) for s in seats):
            raise ValueError(f"agent_seats: distinct seats 0..3, at least one, not "
                             f"{agent_seats!r}")
        self.agent_seats = tuple(sorted(int(s) for s in seats))
        if opponents is None or callable(opponents):
            player = opponents if opponents is not None else GreedyPlayer()
            players = [None if s in self.agent_seats else player for s in range(4)]
        else:
            players = list(opponents)
            if len(players) != 4:
                raise ValueError(f"opponents: a player, or a list of 4 with None at the "
                                 f"agent's seats, not {len(players)} items")
        for s in range(4):
            if s not in self.agent_seats and not callable(players[s]):
                raise TypeError(f"seat {s} is not the agent's and has no player: "
                                f"{players[s]!r}")
        self.players = players
        self.level = parse_level(level)
        self.rules = Rules.of(rules)
        self.position: Optional[Position] = None
        self.history: list = []
        self._played = np.zeros((4, 54), dtype=np.uint8)
        self._observation: Optional[Observation] = None

    # ------------------------------------------------------------------ the calls

    def reset(self, seed=None, options=None) -> tuple:
        """Deal a new hand: the cards and the first leader from ``random.Random(seed)``,
        as the first hand of ``Match(..., seed=seed)`` with a random first leader;
        (observation, info). ``options`` is accepted and ignored (gymnasium passes it)."""
        if not (seed is None or isinstance(seed, str) or is_whole(seed, 0)):
            raise ValueError(f"seed must be an int 0 or more, text or None, not {seed!r}")
        if isinstance(seed, np.integer):
            seed = int(seed)            # (random.Random refuses numpy ints)
        rng = random.Random(seed)
        hands = deal(rng)
        leader = rng.randrange(4)
        self.position = None            # (until the opponents' first moves are made)
        position = Position(self.level, hands, (), leader, rules=self.rules, validate=False)
        self.history = []
        self._played = np.zeros((4, 54), dtype=np.uint8)
        self._others_play(position)
        self.position = position
        return self._observe(), self._info()

    def step(self, action) -> tuple:
        """Play legal move number ``action`` for the seat to move, then the other seats'
        moves until an agent seat is to move or the hand is over; (observation, reward,
        terminated, truncated, info); ``action`` a whole number (numpy ints too)."""
        if self.position is None:
            raise RuntimeError("step before reset: call reset(seed) first")
        if self.position.is_over:
            raise RuntimeError("the hand is over: call reset(seed) for a new one")
        moves = self._observation.legal_moves
        if not is_whole(action, 0, len(moves) - 1):
            raise ValueError(f"action {action!r} is not a legal move's index 0.."
                             f"{len(moves) - 1} (seat {self.position.to_move}, "
                             f"{len(moves)} legal moves)")
        pos = self.position
        seat, depth = pos.to_move, pos.depth
        self._push(pos, seat, moves, int(action))
        try:
            self._others_play(pos)
        except BaseException:
            while pos.depth > depth:        # back to the agent's turn: step may be retried
                self._pop(pos)
            raise
        if pos.is_over:
            outcome = pos.outcome
            reward = outcome if seat % 2 == 0 else -outcome
            return self._observe_end(seat), reward, True, False, self._info()
        return self._observe(), 0, False, False, self._info()

    def __copy__(self) -> "HandEnv":
        # (a shallow copy would share the position: a step of one would move the other)
        return copy.deepcopy(self)

    def action_of(self, move) -> int:
        """The action (index) of ``move`` (a :class:`Move` or a platform triple) among the
        legal moves of the seat to move; a ValueError names a move that is not legal."""
        if self._observation is None or self.position.is_over:
            raise RuntimeError("no seat is to move")
        moves = self._observation.legal_moves
        if not isinstance(move, Move):
            move = self.position.parse_move(move)
        for i, m in enumerate(moves):
            if m == move:
                return i
        raise ValueError(f"{move} is not a legal move of seat {self.position.to_move}")

    # ------------------------------------------------------------------ inside

    def _push(self, pos: Position, seat: int, moves, index: int) -> None:
        move = moves[index]
        pos._push_listed(moves, index)
        self.history.append((seat, move))
        for k in move.kinds:
            self._played[seat, k] += 1

    def _pop(self, pos: Position) -> None:
        pos.pop()
        seat, move = self.history.pop()
        for k in move.kinds:
            self._played[seat, k] -= 1

    def _others_play(self, pos: Position) -> None:
        while not pos.is_over and pos.to_move not in self.agent_seats:
            seat = pos.to_move
            obs = self._make_observation(pos)
            answer = self.players[seat](obs)
            index = None
            try:
                if not isinstance(answer, Move):
                    answer = pos.parse_move(answer)
                index = next((i for i, m in enumerate(obs.legal_moves) if m == answer), None)
            except ValueError as exc:
                raise ValueError(f"seat {seat}'s player answered {answer!r}: {exc}") from None
            if index is None:
                raise ValueError(f"seat {seat}'s player answered {answer}, not a legal move")
            self._push(pos, seat, obs.legal_moves, index)

    def _make_observation(self, pos: Position) -> Observation:
        seat = pos.to_move
        moves = pos.move_list()
        moves.array.flags.writeable = False     # (the env plays its records)
        return Observation(seat, pos.level, moves, pos.table, pos.owner,
                           pos.cards_left,
                           (self.level, self.level), pos.finished, pos.rules,
                           pos.counts(seat), self.history, len(self.history))

    def _observe(self) -> dict:
        obs = self._observation = self._make_observation(self.position)
        return self._arrays(obs.seat, obs.counts, obs.legal_moves.has_pass,
                            obs.legal_moves.array.copy())

    def _observe_end(self, seat: int) -> dict:
        """The observation once the hand is over, as ``seat`` (the last agent to move)
        sees it: the final cards, every place, no moves."""
        self._observation = None
        return self._arrays(seat, self.position.counts(seat), False,
                            np.empty(0, dtype=MOVE_DTYPE))

    def _arrays(self, seat: int, counts, can_pass: bool, legal: np.ndarray) -> dict:
        pos = self.position
        place = np.zeros(4, dtype=np.uint8)
        order = pos.finishing_order() if pos.is_over else pos.finished
        for i, s in enumerate(order):
            place[s] = i + 1
        table = np.zeros(54, dtype=np.uint8)
        if pos.table is not None and not pos.is_over:
            for k in pos.table.kinds:
                table[k] += 1
        return {
            "seat": np.int8(seat), "level": np.int8(pos.level),
            "hand": np.array(counts, dtype=np.uint8), "played": self._played.copy(),
            "cards_left": np.array(pos.cards_left, dtype=np.uint8), "place": place,
            "table": table,
            "table_owner": np.int8(-1 if pos.table is None or pos.is_over else pos.owner),
            "can_pass": np.bool_(can_pass), "legal": legal,
        }

    def _info(self) -> dict:
        pos = self.position
        if pos.is_over:
            return {"outcome": pos.outcome, "order": pos.finishing_order(),
                    "observation": None}
        return {"observation": self._observation}
