"""HandEnv: one hand as a reinforcement-learning environment (RULES.md sections 3 to 6).

The main check: an agent that chooses with the same players a Match uses plays the
match's first hand move for move, so the environment deals, takes turns, shows the
observation and ends the hand as the engine does.
"""

import copy
import pickle

import numpy as np
import pytest

from guandan_core.env import HandEnv
from guandan_core.match import Match, MatchRules
from guandan_core.players import GreedyPlayer, RandomPlayer


def _play_out(env, agents, seed):
    """Play a hand with ``agents`` (seat -> player) choosing the agent's actions; the
    observations and the last step's (reward, info)."""
    obs, info = env.reset(seed=seed)
    seen, done = [obs], False
    while not done:
        player = agents[int(obs["seat"])]
        obs, reward, done, truncated, info = env.step(env.action_of(player(info["observation"])))
        assert truncated is False
        seen.append(obs)
    return seen, reward, info


def _match_hand(players, seed):
    match = Match(players, MatchRules.standard(), seed=seed)
    result = match.play_hand()
    return result, match.history


@pytest.mark.parametrize("seed", range(6))
def test_sec6_greedy_agent_plays_the_matchs_first_hand(seed):
    """RULES 6: four greedy seats through the environment play the same hand, move for
    move, as a seeded Match's first hand; the reward is the outcome for the mover's team."""
    env = HandEnv()
    _, reward, info = _play_out(env, {s: GreedyPlayer() for s in range(4)}, seed)
    result, history = _match_hand([GreedyPlayer() for _ in range(4)], seed)
    assert env.history == history
    assert info["order"] == result.order and info["outcome"] == result.outcome
    last_seat = env.history[-1][0]
    assert reward == (result.outcome if last_seat % 2 == 0 else -result.outcome)


@pytest.mark.parametrize("agent_seats", [(0, 2), (1, 3), (2,)])
def test_sec6_agent_seats_and_opponents_play_as_in_a_match(agent_seats):
    """RULES 6: random agent seats (seeded as in the match) against greedy opponents: the
    same hand as the match with those players; the reward is for the agent's team."""
    seed = 11
    agents = {s: RandomPlayer(100 + s) for s in agent_seats}
    env = HandEnv(agent_seats=agent_seats)
    seen, reward, info = _play_out(env, agents, seed)
    players = [RandomPlayer(100 + s) if s in agent_seats else GreedyPlayer()
               for s in range(4)]
    result, history = _match_hand(players, seed)
    assert env.history == history and info["outcome"] == result.outcome
    team = agent_seats[0] % 2
    assert reward == (result.outcome if team == 0 else -result.outcome)
    assert all(int(o["seat"]) in agent_seats for o in seen)


def test_sec6_the_sampling_player_sees_the_same_game():
    """The sampling player draws the hidden cards from the history and the card counts:
    as an agent it must choose what it chooses in the match."""
    from solver.players import SamplingPlayer

    def sampler(s):
        return SamplingPlayer(s, deals=3, max_cards=14, node_limit=50_000)

    env = HandEnv(agent_seats=(0, 2))
    agents = {0: sampler(0), 2: sampler(2)}
    _, _, info = _play_out(env, agents, 4)
    result, history = _match_hand([sampler(0), GreedyPlayer(), sampler(2), GreedyPlayer()], 4)
    assert env.history == history and info["order"] == result.order
    assert agents[0].searched + agents[2].searched > 0


def test_sec3_the_observation_arrays_agree_with_the_position():
    """RULES 3, 6: hand, played cards, card counts, places, the table and the legal moves
    as arrays agree with each other and with the Observation."""
    env = HandEnv(level="A")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        view = info["observation"]
        assert int(obs["seat"]) == view.seat and int(obs["level"]) == 12
        assert (obs["hand"] == view.counts).all()
        assert (obs["played"].sum(axis=1) + obs["cards_left"] == 27).all()
        assert tuple(obs["cards_left"]) == view.cards_left
        assert [s for s in np.argsort(obs["place"]) if obs["place"][s]] == list(view.finished)
        if view.table is None:
            assert obs["table_owner"] == -1 and not obs["table"].any() and not obs["can_pass"]
        else:
            assert obs["table_owner"] == view.table_owner and obs["can_pass"]
            assert sorted(np.repeat(np.arange(54), obs["table"])) == sorted(view.table.kinds)
        assert obs["legal"].tobytes() == view.legal_moves.array.tobytes()
        action = int(rng.integers(len(view.legal_moves)))
        obs, _, done, _, info = env.step(action)
    assert info["observation"] is None and sorted(info["order"]) == [0, 1, 2, 3]


def test_reset_is_deterministic_and_a_copy_continues_alike():
    """A seed gives the same hand; a pickled or copied environment continues the same."""
    env = HandEnv(agent_seats=(1,))
    a, _ = env.reset(seed="x")
    b, _ = HandEnv(agent_seats=(1,)).reset(seed="x")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    for _ in range(5):
        env.step(0)         # (the pass when following, else the first play)
    twins = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    greedy = GreedyPlayer()
    endings = []
    for e in [env] + twins:
        info, done = {"observation": e._observation}, False
        while not done:
            _, reward, done, _, info = e.step(e.action_of(greedy(info["observation"])))
        endings.append((e.history, info["order"], reward))
    assert endings[0] == endings[1] == endings[2]


def test_bad_calls_are_named():
    """Bad input: an action that is no legal move's index, a step before reset or after
    the end, bad seats, players or seeds; each a clear error naming the value."""
    env = HandEnv()
    with pytest.raises(RuntimeError, match="step before reset"):
        env.step(0)
    obs, info = env.reset(seed=1)
    n = len(info["observation"].legal_moves)
    for bad in (-1, n, 1.5, "0", True, None):
        with pytest.raises(ValueError, match=rf"action {bad!r} is not a legal move's index "
                                             rf"0..{n - 1}"):
            env.step(bad)
    seat = info["observation"].seat
    held = info["observation"].hand.cards()
    absent = next(c for c in ("S3", "H4", "C5", "D6", "S7") if c not in held)
    with pytest.raises(ValueError, match=rf"seat {seat} cannot play .*{absent}.*: it does not "
                                         rf"hold {absent}"):
        env.action_of(["Single", absent[1], [absent]])
    from guandan_core.moves import Move
    with pytest.raises(ValueError, match=rf"Single .: {absent} is not a legal move of seat "
                                         rf"{seat}"):
        env.action_of(Move.from_platform(["Single", absent[1], [absent]], "2"))
    greedy, done = GreedyPlayer(), False
    while not done:
        _, _, done, _, info = env.step(env.action_of(greedy(env._observation)))
    with pytest.raises(RuntimeError, match="the hand is over"):
        env.step(0)
    for seats in ((), (0, 0), (4,), ("1",)):
        with pytest.raises(ValueError, match="agent_seats: distinct seats 0..3"):
            HandEnv(agent_seats=seats)
    with pytest.raises(TypeError, match="seat 1 is not the agent's and has no player"):
        HandEnv(agent_seats=(0,), opponents=[None, None, GreedyPlayer(), GreedyPlayer()])
    with pytest.raises(ValueError, match="opponents: a player, or a list of 4"):
        HandEnv(agent_seats=(0,), opponents=[GreedyPlayer()] * 3)
    with pytest.raises(ValueError, match="seed must be an int 0 or more, text or None, "
                                         "not -1"):
        HandEnv().reset(seed=-1)
    with pytest.raises(ValueError, match="level"):
        HandEnv(level="Z")
