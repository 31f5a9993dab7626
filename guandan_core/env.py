"""Guandan as reinforcement-learning environments (the gymnasium calling conventions,
without depending on gymnasium): :class:`HandEnv` one hand, :class:`GameEnv` whole games
(hands in a row with levels and tribute), :class:`VectorEnv` / :class:`VectorHandEnv`
several of either stepped together with their observations stacked.

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
the seats out, in the order they went out; 0 for the others; at the end of the hand every
seat's, those still holding cards placed as the finishing order places them), ``table`` (uint8[54]: the
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
list of four for players that keep state per seat. ``reset(seed)`` reseeds the opponents'
players that have ``reseed`` (:func:`opponent_seed`), so that a seed and the agent's
actions name a whole episode, as gymnasium's ``reset(seed)`` promises.

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
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Optional

import numpy as np

from .cards import CardError, format_card, format_rank, is_whole, parse_card, parse_level
from .match import Match, MatchRules, Observation, _checked_seed, deal, _is_allowed_kind
from .moves import MOVE_DTYPE, Move, classify
from .players import GreedyPlayer
from .position import MoveList, Position
from .rules import Rules
from .usertext import quoted

__all__ = ["HandEnv", "GameEnv", "VectorEnv", "VectorHandEnv", "opponent_seed", "MAX_ENVS"]

# the most rows a VectorEnv takes (several of them for more)
MAX_ENVS = 65_536

# an observation's table_move on lead: the pass's record
_NO_TABLE_MOVE = Move.from_platform(["PASS", "PASS", "PASS"], 0).record().view(
    MOVE_DTYPE).reshape(())


def opponent_seed(seed, seat: int) -> int:
    """The seed an environment reset with ``seed`` gives the opponent player that plays
    ``seat`` (its first seat, for a player of several) through the player's ``reseed``:
    a whole number below 2**63 made from both, the same in every process.

    >>> opponent_seed(7, 1) == opponent_seed(7, 1) != opponent_seed(7, 3)
    True
    """
    seed = _checked_seed(seed)
    if seed is None:
        raise ValueError("opponent_seed needs a seed (None: fresh seeds, drawn at random)")
    if not is_whole(seat, 0, 3):
        raise ValueError(f"seat must be 0..3, not {quoted(seat)}")
    # (random.Random hashes text with SHA-512, not with hash(): the same everywhere)
    return random.Random(f"guandan_core.env opponent {int(seat)} {seed!r}").getrandbits(63)


def _legal_index(moves: MoveList, move: Move) -> int | None:
    """The index of ``move`` among the legal ``moves`` (its reading, strength included, as
    ``MoveList.index`` compares them: a Move read at another level is none of them), or
    None. A move the list handed out (a player's usual answer) is found by identity."""
    issued = moves.issued(move)
    if issued >= 0:
        return issued
    try:
        return moves.index(move)
    except ValueError:
        return None


def _misread(moves, move: Move, level: int) -> str:
    """Why a ``move`` that is not among ``moves`` may look as if it were: its cards
    played as one of them, but read at another level or under other rules."""
    if any(m == move for m in moves):
        return f" (it is not a reading of its cards at level {format_rank(level)})"
    return ""


class HandEnv:
    """One hand: the agent plays ``agent_seats`` (a tuple of seats, default all four),
    ``opponents`` the others (a player callable, or a list of four with None at the
    agent's seats; default :class:`~guandan_core.players.GreedyPlayer`), at ``level``
    (a rank such as ``"2"`` or ``"A"``; an int is the rank's index, 0 for 2) under
    ``rules`` (a :class:`~guandan_core.rules.Rules` or preset name; default standard)."""

    def __init__(self, agent_seats=(0, 1, 2, 3), opponents=None, level="2", rules=None):
        try:
            # (a mapping's keys are no seats it meant)
            seats = () if isinstance(agent_seats, Mapping) else tuple(agent_seats)
        except TypeError:
            seats = ()
        if isinstance(agent_seats, (str, bytes)) or not seats or \
                len(set(seats)) != len(seats) or not all(is_whole(s, 0, 3) for s in seats):
            raise ValueError(f"agent_seats: distinct seats 0..3, at least one, not "
                             f"{quoted(agent_seats)}")
        self.agent_seats = tuple(sorted(int(s) for s in seats))
        if opponents is None or callable(opponents):
            player = opponents if opponents is not None else GreedyPlayer()
            players = [None if s in self.agent_seats else player for s in range(4)]
        else:
            # (a set has no seat order: its players were seated as it iterates)
            if isinstance(opponents, (str, bytes, Mapping, AbstractSet)) or \
                    not hasattr(opponents, "__iter__") or \
                    isinstance(opponents, np.ndarray) and opponents.ndim == 0:
                raise TypeError(f"opponents: a player (a callable), or a list of 4 with "
                                f"None at the agent's seats, not {quoted(opponents)}")
            players = list(opponents)
            if len(players) != 4:
                raise ValueError(f"opponents: a player, or a list of 4 with None at the "
                                 f"agent's seats, not {len(players)} items")
        for s in range(4):
            if s not in self.agent_seats and not callable(players[s]):
                raise TypeError(f"seat {s} is not the agent's and has no player: "
                                f"{quoted(players[s])}")
            if isinstance(players[s], type):
                # (a class is callable too: it was taken, and failed at its first move)
                raise TypeError(f"seat {s}: a player, not the class {players[s].__name__} "
                                f"(make one: {players[s].__name__}())")
            if s in self.agent_seats and players[s] is not None:
                # (the agent moves there: a player given for it would never be asked)
                raise ValueError(f"opponents: seat {s} is the agent's, so its item must be "
                                 f"None, not {quoted(players[s])}")
        self.players = players
        self.level = parse_level(level)
        self.rules = Rules.of(rules)
        self.position: Optional[Position] = None
        self.history: list = []
        self._played = np.zeros((4, 54), dtype=np.uint8)
        self._observation: Optional[Observation] = None
        self._team_levels = (self.level, self.level)
        self._exchanges: tuple = ()
        self._resisted: tuple = ()
        # the stream reset(seed) starts, which a reset without a seed continues (gymnasium)
        self._seeder: Optional[random.Random] = None

    # ------------------------------------------------------------------ the calls

    def reset(self, seed=None, options=None) -> tuple:
        """Deal a new hand: the cards and the first leader from ``random.Random(seed)``,
        as the first hand of ``Match(..., seed=seed)`` with a random first leader;
        (observation, info). The opponents' players that have ``reseed`` are reseeded
        first (see :meth:`_reseed_opponents`). ``options`` is accepted and ignored
        (gymnasium passes it)."""
        seed = self._episode_seed(seed)
        # (the last hand gone first: a player's reseed that fails leaves none to step in)
        self.position = self._observation = None
        self._reseed_opponents(seed)
        rng = random.Random(seed)
        hands = deal(rng)
        leader = rng.randrange(4)
        self._start(Position(self.level, hands, (), leader, rules=self.rules, validate=False),
                    (self.level, self.level), (), [])
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
        action = _number_of(action)
        if not is_whole(action, 0, len(moves) - 1):
            raise ValueError(f"action {quoted(action)} is not a legal move's index 0.."
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

    def _actions(self) -> tuple:
        """How many actions the seat to move has, and that seat."""
        return len(self._observation.legal_moves), self.position.to_move

    def _episode_seed(self, seed):
        """The seed of the episode ``reset(seed)`` starts: ``seed``, which also seeds the
        stream that later resets without a seed draw theirs from, as gymnasium's do (such
        resets used to deal afresh, so a seeded run under gymnasium's vector envs, which
        reset without one, was not reproducible); None before any seed."""
        seed = _checked_seed(_number_of(seed))
        if seed is not None:
            self._seeder = random.Random(seed)
        elif getattr(self, "_seeder", None) is not None:
            seed = self._seeder.getrandbits(63)
        return seed

    def _reseed_opponents(self, seed) -> None:
        """Give each opponent player with a ``reseed`` method (one call a player, however
        many seats it plays) the seed :func:`opponent_seed` makes of ``seed`` and its first
        seat, or with ``seed`` None a fresh random one: a seeded reset then plays the same
        episode for the same actions whatever the players did before, and the copies of
        a player in a :class:`VectorEnv`'s rows draw apart. A :class:`GameEnv`'s
        ``agent_cards`` is the agent's own, as its moves are: not reseeded."""
        fresh = random.SystemRandom() if seed is None else None
        done = set()
        for seat, player in enumerate(self.players):
            if player is None or id(player) in done:
                continue
            done.add(id(player))
            reseed = getattr(player, "reseed", None)
            if callable(reseed):
                reseed(fresh.getrandbits(63) if fresh is not None else
                       opponent_seed(seed, seat))

    def __copy__(self) -> "HandEnv":
        # (a shallow copy would share the position: a step of one would move the other)
        return copy.deepcopy(self)

    def action_of(self, move) -> int:
        """The action (index) of ``move`` (a :class:`Move` or a platform triple) among the
        legal moves of the seat to move; a ValueError names a move that is not legal."""
        if self._observation is None or self.position is None or self.position.is_over:
            raise RuntimeError("no seat is to move")
        moves = self._observation.legal_moves
        if not isinstance(move, Move):
            move = self.position.parse_move(move)
        index = _legal_index(moves, move)
        if index is None:
            raise ValueError(f"{move} is not a legal move of seat {self.position.to_move}"
                             f"{_misread(moves, move, self.position.level)}")
        return index

    # ------------------------------------------------------------------ inside

    def _start(self, position: Position, team_levels: tuple, exchanges: tuple,
               history: list, resisted: tuple = ()) -> None:
        """Begin a hand at ``position`` (its first move to make), the opponents moving
        until an agent seat is to move."""
        self.position = self._observation = None    # (until the opponents have moved)
        self.history = history
        self._team_levels, self._exchanges = team_levels, exchanges
        self._resisted = resisted
        self._played = np.zeros((4, 54), dtype=np.uint8)
        self._others_play(position)
        self.position = position

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
                index = _legal_index(obs.legal_moves, answer)
            except ValueError as exc:
                raise ValueError(f"seat {seat}'s player answered {quoted(answer)}: {exc}") from None
            if index is None:
                raise ValueError(f"seat {seat}'s player answered {answer}, not a legal move"
                                 f"{_misread(obs.legal_moves, answer, pos.level)}")
            self._push(pos, seat, obs.legal_moves, index)

    def _make_observation(self, pos: Position) -> Observation:
        seat = pos.to_move
        moves = pos.move_list()         # (its records read-only: the env plays them)
        return Observation(seat, pos.level, moves, pos.table, pos.owner,
                           pos.cards_left, self._team_levels, pos.finished, pos.rules,
                           pos.counts(seat), self.history, len(self.history),
                           self._exchanges, self._resisted)

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
        table_move = _NO_TABLE_MOVE.copy()
        if pos.table is not None and not pos.is_over:
            for k in pos.table.kinds:
                table[k] += 1
            # (its reading: the same cards can be a three-with-two or a bomb of five)
            table_move[()] = pos.table.record().view(MOVE_DTYPE)[0]
        return {
            "seat": np.int8(seat), "level": np.int8(pos.level),
            "hand": np.array(counts, dtype=np.uint8), "played": self._played.copy(),
            "cards_left": np.array(pos.cards_left, dtype=np.uint8), "place": place,
            "table": table, "table_move": table_move,
            "table_owner": np.int8(-1 if pos.table is None or pos.is_over else pos.owner),
            "can_pass": np.bool_(can_pass), "legal": legal,
        }

    def _info(self) -> dict:
        pos = self.position
        if pos.is_over:
            return {"outcome": pos.outcome, "order": pos.finishing_order(),
                    "observation": None}
        return {"observation": self._observation}


class _AgentSeat:
    """The match's player at an agent seat: its moves come from ``step``; its tribute and
    return cards from the agent's ``cards`` object when it has those methods (else the
    match's defaults)."""

    _HOOKS = ("choose_tribute", "choose_return")

    def __init__(self, cards):
        self.cards = cards

    def __call__(self, obs):
        raise RuntimeError("an agent seat's moves come from GameEnv.step")

    def __getattr__(self, name):
        cards = self.__dict__.get("cards")      # (None while unpickling)
        if name in self._HOOKS and cards is not None:
            method = getattr(cards, name, None)
            if callable(method):
                return method
        raise AttributeError(name)


class _StepCards:
    """The agent seats' tribute and return hooks under ``card_actions``: they exist, so
    the match asks the agent's seats, but the answers come from ``GameEnv.step``."""

    def choose_tribute(self, obs, allowed):
        raise RuntimeError("with card_actions, the agent's cards come from GameEnv.step")

    choose_return = choose_tribute


class _CardChoice(Exception):
    """Stops :meth:`Match._begin_hand` at an agent seat's tribute or return choice."""


# the observation's "phase": a move, a tribute card, a returned card
PHASES = {"play": 0, "choose_tribute": 1, "choose_return": 2}


class _EnvMatch(Match):
    """A Match that records the tribute and return cards chosen while a hand is begun,
    so that beginning it can stop at an agent seat's choice (``card_actions``) and be
    begun again from the same state, the choices so far answered from the record: the
    opponents' hooks are asked once, and the same cards dealt."""

    def __init__(self, players, rules, seed, agent_seats, card_actions: bool):
        super().__init__(players, rules, seed)
        self.agent_seats, self.card_actions = agent_seats, card_actions
        self.card_answers: list = []    # (seat, method_name, kind) of the hand being begun
        self.replayed = 0               # how many of them this attempt has used

    def _players_card(self, method_name: str, seat: int, level: int, hands, allowed,
                      refusal, exchanges: tuple = ()) -> int:
        if self.replayed < len(self.card_answers):
            # (the same state asks the same questions in the same order)
            kind = self.card_answers[self.replayed][2]
            self.replayed += 1
            return kind
        if self.card_actions and seat in self.agent_seats:
            raise _CardChoice(method_name, seat,
                              self._card_observation(seat, level, hands, exchanges),
                              [int(k) for k in allowed])
        kind = super()._players_card(method_name, seat, level, hands, allowed, refusal,
                                     exchanges)
        self.card_answers.append((seat, method_name, kind))
        self.replayed += 1
        return kind


class GameEnv(HandEnv):
    """Whole games: hands in a row with levels and tribute (RULES sec. 8), as a
    :class:`~guandan_core.match.Match` plays them, the agent choosing the moves of its
    seats in every hand.

    ``agent_seats`` and ``opponents`` as :class:`HandEnv`'s (the opponents' players may
    have ``choose_tribute`` / ``choose_return``, as a ``Match``'s); ``rules``: a
    :class:`~guandan_core.match.MatchRules` or preset name; ``agent_cards``: an object
    whose ``choose_tribute(observation, allowed_cards)`` / ``choose_return(...)`` (a
    ``Match`` player's hooks) pick the agent seats' tribute and returned cards (None,
    or a missing method: the match's defaults); ``max_hands``: truncate a game after
    that many hands (None: play until a team wins it).

    ``card_actions=True`` (instead of ``agent_cards``): the agent chooses its seats'
    tribute and returned cards through ``step`` too. The game then stops at each such
    choice with an observation whose ``phase`` is 1 (tribute) or 2 (return; 0 for a
    move): ``legal`` holds the cards allowed (RULES sec. 8) as Singles, ``hand`` and
    ``cards_left`` are as at that moment, no table, no pass; ``info`` has ``choice``
    (``"choose_tribute"`` or ``"choose_return"``), ``allowed_cards`` and the
    ``observation`` a ``Match`` player's hook gets, so that ``action_of(card)`` answers
    with a hook's card. The step of a card gives reward 0 and the next choice or the
    hand's first move. The hand is dealt and its tribute paid exactly as the ``Match``
    with those choices would, and the opponents' hooks are asked once each.

    ``reset(seed)`` reseeds the opponents as :class:`HandEnv`'s does (not
    ``agent_cards``: its choices are the agent's, as its moves are, so a random one
    makes a seeded game repeat only if the caller reseeds it, and the rows of a
    :class:`VectorEnv` hold copies of it in the same state), then starts
    ``Match(players, rules, seed)`` (the same deals, first leader and tribute) and plays
    its first hand to the agent's first move. ``step(action)``
    plays the move and the opponents' after it. When the step ends a hand, the hand is
    settled (levels, the winner), the next one is dealt, its tribute paid and its
    opponents' moves made, and the step returns that hand's first observation, with the
    ended hand's reward (its outcome for the team of the seat that moved) and, in
    ``info``, its ``outcome`` (seats 0 and 2), ``order``, ``hand_result`` (the
    :class:`~guandan_core.match.HandResult`, levels and winner included) and
    ``final_hand_obs`` (its last observation). The step that ends the game (a team wins at
    A: ``terminated``; ``max_hands`` played: ``truncated``) returns the last observation
    itself; ``step`` then needs a ``reset``. The observation is :class:`HandEnv`'s with
    ``team_levels`` (int8[2]: the levels of seats 0 and 2's team and of seats 1 and 3's,
    as rank indices, 0 for 2; ``level`` is the hand's), and the hand's tribute and
    returns, public: ``given`` and ``received`` (uint8[4, 54]: the cards each seat gave
    and received; ``info["observation"]``'s ``exchanges`` list them). ``self.match`` is
    the match (levels, failures, hands played).

    An opponent that fails, in a hand or while the next hand is dealt and paid, leaves
    the environment as it was before the step (its error is raised), as in
    :class:`HandEnv`. It pickles and copies with its state.

    >>> env = GameEnv(agent_seats=(0, 2))
    >>> obs, info = env.reset(seed=3)
    >>> from guandan_core.players import GreedyPlayer
    >>> greedy, done, hands = GreedyPlayer(), False, 0
    >>> while not done:
    ...     obs, reward, done, truncated, info = env.step(
    ...         env.action_of(greedy(info["observation"])))
    ...     hands += "hand_result" in info
    >>> hands == env.match.hands_played, info["hand_result"].winner in (0, 1)
    (True, True)
    """

    def __init__(self, agent_seats=(0, 1, 2, 3), opponents=None, rules=None,
                 agent_cards=None, max_hands=None, card_actions=False):
        match_rules = MatchRules.of(rules)
        super().__init__(agent_seats, opponents, "2", match_rules.core)
        if max_hands is not None and not is_whole(max_hands, 1):
            raise ValueError(f"max_hands must be a whole number >= 1 or None, not "
                             f"{quoted(max_hands)}")
        if not isinstance(card_actions, bool):
            raise TypeError(f"card_actions must be True or False, not {quoted(card_actions)}")
        if card_actions and agent_cards is not None:
            raise ValueError("give agent_cards or card_actions=True, not both: with "
                             "card_actions the agent's cards come from step")
        if isinstance(agent_cards, type):
            raise TypeError(f"agent_cards: an object, not the class {agent_cards.__name__} "
                            f"(make one: {agent_cards.__name__}())")
        if agent_cards is not None and not any(
                callable(getattr(agent_cards, name, None)) for name in _AgentSeat._HOOKS):
            # (an object with neither hook would be ignored without a word)
            raise TypeError(f"agent_cards: an object with a choose_tribute or choose_return "
                            f"method, or None, not {quoted(agent_cards)}")
        self.match_rules = match_rules
        self.max_hands = None if max_hands is None else int(max_hands)
        self.agent_cards = agent_cards
        self.card_actions = card_actions
        self.match: Optional[Match] = None
        self._hand = None
        self._over = False
        # an agent seat's tribute or return choice the game waits for: (method name,
        # seat, the Observation a Match player would get, the allowed card kinds)
        self._choice: Optional[tuple] = None

    def reset(self, seed=None, options=None) -> tuple:
        """Start a new game (see the class); (observation, info). ``options`` is accepted
        and ignored."""
        seed = self._episode_seed(seed)
        # (the last game gone first: a player's reseed that fails leaves none to step in)
        self.position = self._observation = self.match = self._choice = None
        self._over = False
        self._reseed_opponents(seed)
        agent = _AgentSeat(_StepCards() if self.card_actions else self.agent_cards)
        players = [agent if s in self.agent_seats else self.players[s] for s in range(4)]
        self.match = _EnvMatch(players, self.match_rules, seed,
                               self.agent_seats, self.card_actions)
        self._next_hand()
        return self._observe(), self._info()

    def action_of(self, move) -> int:
        """The action (index) of ``move``: a legal move (a :class:`Move` or a platform
        triple), or at a tribute or return choice a card (its text, its kind, or a
        Single of it); a ValueError names one that is not allowed."""
        if self._choice is None:
            return super().action_of(move)
        name, seat, _, allowed = self._choice
        kind = move.kinds[0] if isinstance(move, Move) and len(move) == 1 else move
        try:
            kind = parse_card(kind) if isinstance(kind, str) else kind
        except CardError as exc:
            raise ValueError(f"seat {seat} chooses a card: {exc}") from None
        if not _is_allowed_kind(kind, allowed):
            raise ValueError(f"{quoted(move)} is not one of the cards seat {seat} may choose "
                             f"({' '.join(format_card(k) for k in allowed)})")
        return allowed.index(int(kind))

    def step(self, action) -> tuple:
        """Play legal move number ``action`` (see the class); (observation, reward,
        terminated, truncated, info)."""
        if self.match is not None and self._over:
            raise RuntimeError("the game is over: call reset(seed) for a new one")
        if self._choice is not None:
            return self._step_card(action)
        pos = self.position
        depth = None if pos is None else pos.depth
        obs, reward, done, _, info = super().step(action)
        if not done:
            return obs, reward, False, False, info
        # the hand over, not yet settled: what settling it and dealing the next one
        # rebind (the position itself stays: only it can take the agent's move back)
        saved, match_saved = dict(self.__dict__), self.match._snapshot()
        try:
            result = self.match._end_hand(self._hand)
            info.update(hand_result=result, final_hand_obs=obs)
            won = result.winner is not None
            cut = not won and self.max_hands is not None and \
                self.match.hands_played >= self.max_hands
            if won or cut:
                self._over = True
                return obs, reward, won, cut, info
            self._next_hand()
            first = self._observe()
            info.update(self._info())       # (the next hand's: a move or a card to choose)
            return first, reward, False, False, info
        except BaseException:
            # back to before the step: the hand as it was, the agent's move taken back
            # (the players' state is theirs, as in HandEnv)
            self.__dict__.clear()
            self.__dict__.update(saved)
            self.match._restore(match_saved)
            while self.position.depth > depth:
                self._pop(self.position)
            self._observe()
            raise

    def _actions(self) -> tuple:
        if self._choice is None:
            return super()._actions()
        return len(self._choice[3]), self._choice[1]

    def _step_card(self, action) -> tuple:
        """The agent's tribute or returned card number ``action``, then the hand begun
        again from where it stopped: the next choice, or the hand's first move."""
        name, seat, _, allowed = self._choice
        action = _number_of(action)
        if not is_whole(action, 0, len(allowed) - 1):
            raise ValueError(f"action {quoted(action)} is not a card's index 0..{len(allowed) - 1} "
                             f"(seat {seat} chooses its {_CARD_NAMES[name]} among "
                             f"{' '.join(format_card(k) for k in allowed)})")
        match = self.match
        answers = match.card_answers
        known = len(answers)
        saved = dict(self.__dict__)
        answers.append((seat, name, allowed[int(action)]))
        try:
            self._next_hand()
            return self._observe(), 0, False, False, self._info()
        except BaseException:
            # back to the choice (_next_hand put the match back as it was)
            del answers[known:]
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _next_hand(self) -> None:
        """Begin the match's next hand and play its opponents' first moves; or stop at an
        agent seat's tribute or return choice (``card_actions``), the match as before."""
        match = self.match
        match.replayed = 0
        snapshot = match._snapshot()
        answered = len(match.card_answers)
        try:
            hand = self._hand = match._begin_hand()
            self._choice = None
            # the tribute and returns, public: who gave and who received which cards
            self._given, self._received = _exchange_arrays(hand.exchanges)
            self._start(hand.position, hand.team_levels, hand.exchanges, hand.history,
                        hand.resisted)
        except _CardChoice as choice:
            match._restore(snapshot)
            self._choice = choice.args
            self._observation = choice.args[2]
            return
        except BaseException:
            # a hook or an opponent's first move failed: the match as before the hand, its
            # choices as they were (the caller puts back the environment's own state)
            match._restore(snapshot)
            del match.card_answers[answered:]
            raise
        match.card_answers.clear()      # (the hand has begun: its choices are made)

    def _observe(self) -> dict:
        if self._choice is None:
            return super()._observe()
        name, seat, obs, allowed = self._choice
        # the allowed cards as Singles (a wild one a Single of the level rank), so that
        # the agent picks one as it picks a move
        legal = np.array([classify([k], obs.level, self.rules)[0].record()
                          for k in allowed]).view(MOVE_DTYPE)[:, 0]
        given, received = _exchange_arrays(obs.exchanges)
        return {
            "seat": np.int8(seat), "level": np.int8(obs.level),
            "hand": np.array(obs.counts, dtype=np.uint8),
            "played": np.zeros((4, 54), dtype=np.uint8),
            "cards_left": np.array(obs.cards_left, dtype=np.uint8),
            "place": np.zeros(4, dtype=np.uint8), "table": np.zeros(54, dtype=np.uint8),
            "table_move": _NO_TABLE_MOVE.copy(), "table_owner": np.int8(-1),
            "can_pass": np.bool_(False), "legal": legal,
            "team_levels": np.array(obs.team_levels, dtype=np.int8),
            "given": given, "received": received, "phase": np.int8(PHASES[name]),
        }

    def _info(self) -> dict:
        if self._choice is None:
            return super()._info()
        name, _, obs, allowed = self._choice
        return {"observation": obs, "choice": name,
                "allowed_cards": [format_card(k) for k in allowed]}

    def _arrays(self, seat: int, counts, can_pass: bool, legal: np.ndarray) -> dict:
        out = super()._arrays(seat, counts, can_pass, legal)
        out["team_levels"] = np.array(self._team_levels, dtype=np.int8)
        out["given"] = self._given.copy()
        out["received"] = self._received.copy()
        out["phase"] = np.int8(PHASES["play"])
        return out


_CARD_NAMES = {"choose_tribute": "tribute card", "choose_return": "returned card"}


def _exchange_arrays(exchanges) -> tuple:
    """``given`` and ``received`` (uint8[4, 54]) of ``(giver, receiver, card kind)``s."""
    given = np.zeros((4, 54), dtype=np.uint8)
    received = np.zeros((4, 54), dtype=np.uint8)
    for giver, receiver, kind in exchanges:
        given[giver, kind] += 1
        received[receiver, kind] += 1
    return given, received


class VectorEnv:
    """``num_envs`` copies of an environment (a :class:`HandEnv` or :class:`GameEnv`)
    stepped together, their observations stacked: the gymnasium vector calling
    convention with same-step autoreset, without the dependency. Each copy is a deep
    copy of ``env``, its opponents included, so that what one environment's players
    remember does not depend on the others. An episode is the environment's: a hand of
    a :class:`HandEnv`, a game of a :class:`GameEnv`.

    ``reset(seed)`` resets environment ``i`` with ``seed + i`` (or ``seed[i]`` from a
    list of ``num_envs`` seeds). Each later episode of environment ``i``, begun when one
    ends, is seeded with the next 63 bits of ``random.Random(`` its last seed ``)``: the
    environment's own reset without a seed, so a seed names every episode of the run, and
    a ``reset()`` without one goes on with each row's stream (fresh episodes, different
    in each row, when a row was never seeded). Each reset reseeds the row's opponents
    (see :class:`HandEnv`), so the copies of a random player draw apart.

    ``step(actions)`` plays ``actions[i]`` in environment ``i`` (an index into its legal
    moves, as :meth:`HandEnv.step`) and returns ``(observations, rewards, terminated,
    truncated, infos)``, arrays with one row an environment. An environment whose
    episode ends in the step (terminated or truncated) begins its next one at once: its
    row of ``observations`` is the new episode's first, ``rewards[i]``,
    ``terminated[i]`` and ``truncated[i]`` are the ended episode's, and
    ``infos["final_obs"][i]`` / ``infos["final_info"][i]`` its last observation and info
    (``infos["_final_obs"]`` says which rows have them). So every row is always a seat
    to move.

    The observations are the environment's keys stacked (``hand``: uint8[num_envs, 54],
    and so on), with ``legal`` a ``MOVE_DTYPE`` array [num_envs, width] (each row's plays,
    then zeroed records; ``width`` the most plays of any row at this step, so it varies)
    and ``legal_count`` (int32[num_envs]) how many of a row's records are plays; a row's
    actions are ``0 .. legal_count + can_pass - 1``. ``infos["observation"][i]`` is
    environment ``i``'s :class:`~guandan_core.match.Observation` (for ``Match``
    players: ``action_of([player(o) for o in infos["observation"]])``).

    Actions are checked before any environment moves: a bad one is a ``ValueError``
    naming the environment, and nothing has moved. An opponent that fails during a step
    raises its error, naming the environment; the environments before it have moved
    then, so the vector environment must be reset before the next step. A vector
    environment pickles and copies with its state.

    >>> venv = VectorEnv(GameEnv(agent_seats=(1, 3), max_hands=2), 2)
    >>> obs, infos = venv.reset(seed=7)
    >>> obs["team_levels"].shape, obs["legal"].shape[0]
    ((2, 2), 2)
    """

    metadata = {"autoreset_mode": "same-step"}

    def __init__(self, env, num_envs: int):
        if not isinstance(env, HandEnv):
            raise TypeError(f"env must be a HandEnv or GameEnv, not {quoted(env)}")
        if not is_whole(num_envs, 1, MAX_ENVS):
            # (each row is a whole environment, deep-copied: 2**70 of them made copies
            # until memory ran out)
            raise ValueError(f"num_envs must be a whole number from 1 to {MAX_ENVS:,}, not "
                             f"{quoted(num_envs)}")
        self.num_envs = int(num_envs)
        self.envs = [copy.deepcopy(env) for _ in range(self.num_envs)]
        for row in self.envs:
            # (a copy of a seeded environment's stream would give every row its draws)
            row._seeder = None
        self._ready = False

    def __setstate__(self, state: dict) -> None:
        # a vector environment pickled when it kept the rows' streams itself: each
        # stream becomes its row's, which draws the same next seeds
        for row, seeder in zip(state["envs"], state.pop("_seeders", ())):
            if seeder is not None:
                row._seeder = seeder
        self.__dict__.update(state)

    def reset(self, seed=None, options=None) -> tuple:
        """Begin every environment's first episode (see the class); (observations,
        infos). ``options`` is accepted and ignored."""
        if isinstance(seed, np.ndarray) and seed.ndim == 0:
            seed = seed.item()
        if seed is None or not isinstance(seed, (list, tuple, np.ndarray)):
            if seed is not None and not is_whole(seed, 0):
                raise ValueError(f"seed must be an int 0 or more, a list of "
                                 f"{self.num_envs} seeds (ints, text or None) or None, "
                                 f"not {quoted(seed)}")
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed: a list of {self.num_envs} seeds (one an "
                                 f"environment), not {len(seeds)}")
            # (each as a HandEnv takes it: a 0-d integer array too)
            seeds = [_checked_seed(_number_of(s), f"seed[{i}]") for i, s in enumerate(seeds)]
        self._ready = False
        rows = []
        for i, (env, s) in enumerate(zip(self.envs, seeds)):
            try:
                rows.append(env.reset(seed=s))
            except BaseException as exc:
                _raise_in(exc, i)
        self._ready = True
        return self._stacked([o for o, _ in rows]), self._infos([i for _, i in rows])

    def step(self, actions) -> tuple:
        """Play one action in every environment (see the class); (observations, rewards,
        terminated, truncated, infos)."""
        if not self._ready:
            raise RuntimeError("step before reset, or after a failed step: call "
                               "reset(seed) first")
        actions = self._one_each(actions, "actions", "action")
        actions = [_number_of(a) for a in actions]
        for i, (env, a) in enumerate(zip(self.envs, actions)):
            count, seat = env._actions()
            if not is_whole(a, 0, count - 1):
                raise ValueError(f"environment {i}: action {quoted(a)} is not a legal move's "
                                 f"index 0..{count - 1} (seat {seat})")
        rows, infos = [], []
        rewards = np.zeros(self.num_envs, dtype=np.int8)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        final_obs = np.full(self.num_envs, None, dtype=object)
        final_info = np.full(self.num_envs, None, dtype=object)
        for i, (env, a) in enumerate(zip(self.envs, actions)):
            try:
                obs, reward, done, cut, info = env.step(a)
                if done or cut:
                    final_obs[i], final_info[i] = obs, info
                    obs, info = env.reset()     # (the row's stream: see the class)
            except BaseException as exc:
                self._ready = False
                _raise_in(exc, i)
            rows.append(obs)
            infos.append(info)
            rewards[i], terminated[i], truncated[i] = reward, done, cut
        ended = terminated | truncated
        out = self._infos(infos)
        out.update(final_obs=final_obs, _final_obs=ended, final_info=final_info,
                   _final_info=ended.copy())
        return self._stacked(rows), rewards, terminated, truncated, out

    def _one_each(self, values, what: str, noun: str) -> list:
        """``values`` as a list of one item an environment, in order: a sequence, an array
        or an iterator (not a mapping or a set, whose order is not the environments')."""
        # (a 0-d array has __iter__, and iterating it was numpy's TypeError, unnamed)
        wrong = isinstance(values, (str, bytes, Mapping, set, frozenset, Move)) or \
            not hasattr(values, "__iter__") or \
            isinstance(values, np.ndarray) and values.ndim == 0
        if not wrong:
            values = list(values)
            if len(values) == self.num_envs:
                return values
        shown = f"{len(values)} of them" if not wrong else repr(values)
        raise ValueError(f"{what}: one {noun} an environment ({self.num_envs}), in their "
                         f"order, not {shown}")

    def action_of(self, moves) -> np.ndarray:
        """The actions (int64[num_envs]) of ``moves``, one an environment, each a
        :class:`Move` or a platform triple (as :meth:`HandEnv.action_of`)."""
        moves = self._one_each(moves, "moves", "move")
        out = np.empty(self.num_envs, dtype=np.int64)
        for i, (env, m) in enumerate(zip(self.envs, moves)):
            try:
                out[i] = env.action_of(m)
            except BaseException as exc:
                _raise_in(exc, i)
        return out

    def __copy__(self) -> "VectorEnv":
        return copy.deepcopy(self)

    def _stacked(self, rows: list) -> dict:
        # (np.array of the rows' arrays, each of one shape and of the key's dtype, as
        # np.stack makes it: its checks in Python cost 4 times as much for arrays this small)
        out = {k: np.array([r[k] for r in rows], dtype=v.dtype)
               for k, v in rows[0].items() if k != "legal"}
        counts = np.array([len(r["legal"]) for r in rows], dtype=np.int32)
        legal = np.zeros((self.num_envs, int(counts.max(initial=0))), dtype=MOVE_DTYPE)
        for i, r in enumerate(rows):
            legal[i, :len(r["legal"])] = r["legal"]
        out.update(legal=legal, legal_count=counts)
        return out

    def _infos(self, infos: list) -> dict:
        """The rows' infos by key, gymnasium's way: an object array a key (None where a
        row has none) and ``_key``, which rows have it ("observation": every row)."""
        out = {}
        for key in dict.fromkeys(k for info in infos for k in info):
            values = np.full(self.num_envs, None, dtype=object)
            values[:] = [info.get(key) for info in infos]
            out[key] = values
            if key != "observation":
                out["_" + key] = np.array([key in info for info in infos])
        return out


def _number_of(value):
    """A 0-d integer array as its number (what a 0-d tensor's ``.numpy()`` gives, and
    gymnasium's ``Discrete`` takes as an action); anything else as it is."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return value.item()
    return value


def _raise_in(exc: BaseException, i: int):
    """Raise ``exc`` naming environment ``i``: a copy with ``environment i:`` before its
    message when it is an Exception whose one argument is its message (its attributes
    kept: an engine's exit status, a refused command), else itself with a note; either
    way with ``env_index = i``."""
    if isinstance(exc, Exception) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        message = f"environment {i}: {exc.args[0]}"
        try:
            named = copy.copy(exc)
            named.args = (message,)
        except Exception:
            named = None
        if type(named) is type(exc) and str(named) == message:
            named.env_index = i
            raise named from exc
    exc.env_index = i
    if hasattr(exc, "add_note"):            # (Python 3.11 and later)
        exc.add_note(f"in environment {i}")
    raise exc


class VectorHandEnv(VectorEnv):
    """``num_envs`` hands stepped together: ``VectorEnv(HandEnv(agent_seats, opponents,
    level, rules), num_envs)`` (see :class:`VectorEnv`).

    >>> venv = VectorHandEnv(3, agent_seats=(0, 2))
    >>> obs, infos = venv.reset(seed=7)
    >>> obs["hand"].shape, obs["legal"].shape[0], obs["legal_count"].shape
    ((3, 54), 3, (3,))
    >>> from guandan_core.players import GreedyPlayer
    >>> greedy, hands = GreedyPlayer(), 0
    >>> while hands < 5:
    ...     actions = venv.action_of([greedy(o) for o in infos["observation"]])
    ...     obs, rewards, terminated, _, infos = venv.step(actions)
    ...     hands += int(terminated.sum())
    >>> bool(np.all(obs["hand"].sum(axis=1) > 0))      # (every row is a seat to move)
    True
    """

    def __init__(self, num_envs: int, agent_seats=(0, 1, 2, 3), opponents=None, level="2",
                 rules=None):
        super().__init__(HandEnv(agent_seats, opponents, level, rules), num_envs)
