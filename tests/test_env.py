"""HandEnv: one hand as a reinforcement-learning environment (RULES.md sections 3 to 6).

The main check: an agent that chooses with the same players a Match uses plays the
match's first hand move for move, so the environment deals, takes turns, shows the
observation and ends the hand as the engine does.
"""

import copy
import os
import pickle
import random
import re
import subprocess
import sys

import numpy as np
import pytest

from guandan_core.env import GameEnv, HandEnv, opponent_seed
from guandan_core.moves import MOVE_DTYPE
from guandan_core.match import Match, MatchRules
from guandan_core.players import GreedyPlayer, RandomPlayer
from guandan_core.position import IllegalMoveError


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
    tables = 0
    while not done:
        view = info["observation"]
        assert int(obs["seat"]) == view.seat and int(obs["level"]) == 12
        assert (obs["hand"] == view.counts).all()
        assert (obs["played"].sum(axis=1) + obs["cards_left"] == 27).all()
        assert tuple(obs["cards_left"]) == view.cards_left
        assert [s for s in np.argsort(obs["place"]) if obs["place"][s]] == list(view.finished)
        assert obs["table_move"].dtype == MOVE_DTYPE and obs["table_move"].shape == ()
        if view.table is None:
            assert obs["table_owner"] == -1 and not obs["table"].any() and not obs["can_pass"]
            assert obs["table_move"]["type"] == 0       # (the pass's record)
        else:
            assert obs["table_owner"] == view.table_owner and obs["can_pass"]
            assert sorted(np.repeat(np.arange(54), obs["table"])) == sorted(view.table.kinds)
            # the play's reading too (its type, rank and key), which its cards alone do
            # not say: the same five cards can be a three-with-two or a bomb
            assert obs["table_move"].tobytes() == view.table.record().tobytes()
            tables += 1
        assert obs["legal"].tobytes() == view.legal_moves.array.tobytes()
        action = int(rng.integers(len(view.legal_moves)))
        obs, _, done, _, info = env.step(action)
    assert info["observation"] is None and sorted(info["order"]) == [0, 1, 2, 3]
    assert tables > 5 and obs["table_move"]["type"] == 0


def test_the_table_moves_reading_tells_apart_what_its_cards_cannot():
    """RULES 4: at level 7, S9 C9 D9 with the two wild H7s is a three-with-two of 9s or a
    bomb of five 9s; the observation's table (the cards) is the same for both, its
    table_move (the play's record: type, rank, key) is not, and neither are the answers."""
    from guandan_core.position import Position
    hands = [["S3"], ["S9", "C9", "D9", "H7", "H7", "SK"], ["ST", "CT", "DT", "S4", "C4"],
             ["S5"]]
    seen = {}
    for reading in (["ThreeWithTwo", "9", ["S9", "C9", "D9", "H7", "H7"]],
                    ["Bomb", "9", ["S9", "C9", "D9", "H7", "H7"]]):
        pos = Position.from_json({"level": "7", "hands": hands, "finished": [],
                                  "to_move": 1, "table": None})
        pos = pos.play(pos.parse_move(reading))
        env = HandEnv(agent_seats=(2,), level="7")
        env._start(pos, (5, 5), (), [])
        obs = env._observe()
        assert obs["table_move"].tobytes() == pos.table.record().tobytes()
        seen[reading[0]] = obs
    three, bomb = seen["ThreeWithTwo"], seen["Bomb"]
    assert (three["table"] == bomb["table"]).all()
    assert three["table_move"]["type"] != bomb["table_move"]["type"]
    # (tens with fours beat the three-with-two; nothing of seat 2 beats the bomb)
    assert len(three["legal"]) == 1 and len(bomb["legal"]) == 0


def test_reset_is_deterministic_and_a_copy_continues_alike():
    """A seed gives the same hand; a pickled or copied environment continues the same."""
    env = HandEnv(agent_seats=(1,))
    a, _ = env.reset(seed="x")
    b, _ = HandEnv(agent_seats=(1,)).reset(seed="x")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    for _ in range(5):
        env.step(0)         # (the pass when following, else the first play)
    # (every protocol: the observation's move list refused 0 and 1)
    twins = [pickle.loads(pickle.dumps(env, p)) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
    twins.append(copy.deepcopy(env))
    greedy = GreedyPlayer()
    endings = []
    for e in [env] + twins:
        # the moves it plays unchecked stay read-only (they came back writable)
        assert not e._observation.legal_moves.array.flags.writeable
        info, done = {"observation": e._observation}, False
        while not done:
            _, reward, done, _, info = e.step(e.action_of(greedy(info["observation"])))
        endings.append((e.history, info["order"], reward))
    assert all(ending == endings[0] for ending in endings[1:])


def _episode(env, seed, action=0):
    """reset(seed), then ``action`` at every step (0: the pass when following, else the
    first play) until the end: every observation's bytes and the rewards."""
    obs, _ = env.reset(seed=seed)
    trace, done = [], False
    while True:
        trace.append(b"".join(np.ascontiguousarray(obs[k]).tobytes() for k in sorted(obs)))
        if done:
            return trace
        obs, reward, done, cut, _ = env.step(action)
        trace.append((reward, done, cut))
        done = done or cut


@pytest.mark.parametrize("make", [
    lambda: HandEnv(agent_seats=(0,), opponents=RandomPlayer(1)),
    lambda: HandEnv(agent_seats=(1, 3), opponents=[RandomPlayer(1), None, RandomPlayer(2),
                                                   None]),
    lambda: GameEnv(agent_seats=(2,), opponents=RandomPlayer(1), max_hands=2)])
def test_a_seeded_reset_plays_the_same_episode_whatever_came_before(make):
    """gymnasium's reset(seed): the same seed and the same actions give the same episode,
    on the same environment too, though its random opponents drew numbers in between
    (reset reseeds them); a fresh environment plays it alike."""
    env = make()
    for seed in (0, 1, 3, "x"):
        first = _episode(env, seed)
        _episode(env, 99)                       # (the opponents draw on meanwhile)
        assert _episode(env, seed) == first
        assert _episode(make(), seed) == first
    assert _episode(env, 5) != _episode(env, 6)


def test_opponents_are_reseeded_by_the_seat_they_play_first():
    """reset(seed) calls each opponent player's reseed once, with opponent_seed(seed,
    seat) for the first seat it plays (a player given alone plays three); without a seed
    with fresh random seeds; players without reseed (greedy) are left alone."""
    class Counted(RandomPlayer):
        def reseed(self, seed):
            self.calls = getattr(self, "calls", 0) + 1
            super().reseed(seed)

    alone = Counted(0)
    env = HandEnv(agent_seats=(2,), opponents=alone)
    env.reset(seed=9)
    assert alone.calls == 1 and alone.seed == opponent_seed(9, 0)
    apart = [Counted(0), None, Counted(0), GreedyPlayer()]
    env = HandEnv(agent_seats=(1,), opponents=apart)
    env.reset(seed=9)
    assert [apart[0].seed, apart[2].seed] == [opponent_seed(9, 0), opponent_seed(9, 2)]
    assert apart[0].seed != apart[2].seed and apart[3].seed is None     # (greedy: left)
    env.reset()
    fresh = apart[0].seed
    env.reset()
    assert fresh != apart[0].seed and 0 <= fresh < 2**63 and apart[0].calls == 3
    # the agent's tribute hooks are the agent's, not an opponent's: not reseeded
    hooks = Counted(0)
    GameEnv(agent_seats=(0,), opponents=GreedyPlayer(), agent_cards=hooks).reset(seed=1)
    assert not hasattr(hooks, "calls")


def test_opponent_seed_is_the_same_in_every_process():
    """opponent_seed does not use hash(): another process, another PYTHONHASHSEED, the
    same seeds (int and text seeds apart)."""
    code = ("from guandan_core.env import opponent_seed; "
            "print([opponent_seed(s, t) for s in (7, '7', 2**70) for t in range(4)])")
    here = [opponent_seed(s, t) for s in (7, "7", 2**70) for t in range(4)]
    for hashseed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": hashseed},
                             check=True).stdout
        assert out.strip() == str(here)
    assert len(set(here)) == 12
    for bad, message in ((None, "needs a seed"), (-1, "seed must be an int 0 or more"),
                         (1.5, "not 1.5")):
        with pytest.raises(ValueError, match=re.escape(message)):
            opponent_seed(bad, 1)
    for seat in (4, -1, True, "1"):
        with pytest.raises(ValueError, match="seat must be 0..3"):
            opponent_seed(7, seat)


def test_reseed_plays_as_a_new_player_of_that_seed():
    """A player's reseed(seed): from then on its choices (a random player's moves, a
    sampling player's deals) are those of a new player of that seed; a bad seed is named."""
    from solver.players import SamplingPlayer
    env = HandEnv(agent_seats=(0,))
    obs, info = env.reset(seed=2)
    moved, new = RandomPlayer(1), RandomPlayer(5)
    for _ in range(7):
        moved(info["observation"])
    moved.reseed(5)
    assert [moved(info["observation"]) for _ in range(20)] == \
        [new(info["observation"]) for _ in range(20)]
    assert repr(moved) == "RandomPlayer(seed=5)"
    sampler = SamplingPlayer(1, deals=3)
    sampler.rng.random()
    sampler.reseed("x")
    assert sampler.rng.getstate() == SamplingPlayer("x").rng.getstate() and sampler.seed == "x"
    for player in (RandomPlayer(1), sampler):
        with pytest.raises(ValueError, match="seed must be an int 0 or more"):
            player.reseed(-1)


def _bad_seats(seats) -> str:
    """The pattern of the refusal of ``agent_seats=seats``, naming it."""
    return f"^agent_seats: distinct seats 0..3, at least one, not {re.escape(repr(seats))}$"


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
        with pytest.raises(ValueError, match=_bad_seats(seats)):
            HandEnv(agent_seats=seats)
    with pytest.raises(TypeError, match="seat 1 is not the agent's and has no player"):
        HandEnv(agent_seats=(0,), opponents=[None, None, GreedyPlayer(), GreedyPlayer()])
    with pytest.raises(ValueError, match="opponents: a player, or a list of 4"):
        HandEnv(agent_seats=(0,), opponents=[GreedyPlayer()] * 3)
    with pytest.raises(ValueError, match="opponents: a player, or a list of 4 with None at "
                                         "the agent's seats, not 5 items"):
        HandEnv(agent_seats=(0,), opponents=[None] + [GreedyPlayer()] * 4)
    # (bytes are no seats, though their items are the numbers 0 and 2)
    with pytest.raises(ValueError, match=_bad_seats(b"\x00\x02")):
        HandEnv(agent_seats=b"\x00\x02")
    with pytest.raises(ValueError, match="opponents: seat 2 is the agent's, so its item "
                                         r"must be None, not GreedyPlayer\(\)"):
        HandEnv(agent_seats=(0, 2), opponents=[None] + [GreedyPlayer()] * 3)
    for bad in (5, "greedy", {1: GreedyPlayer()}):
        with pytest.raises(TypeError, match=f"opponents: a player \\(a callable\\), or a "
                                            f"list of 4 .* not {re.escape(repr(bad))}"):
            HandEnv(agent_seats=(0,), opponents=bad)
    with pytest.raises(ValueError, match=_bad_seats({0: 1})):
        HandEnv(agent_seats={0: 1})             # (its keys are not what it meant)
    assert HandEnv(agent_seats={2, 0}).agent_seats == (0, 2)
    with pytest.raises(ValueError, match="seed must be an int 0 or more, text or None, "
                                         "not -1"):
        HandEnv().reset(seed=-1)
    with pytest.raises(ValueError, match="level must be a rank from 2 to A, not 'Z'$"):
        HandEnv(level="Z")


def test_sec6_the_last_observation_is_the_end_of_the_hand():
    """RULES 6: the step that ends the hand shows it ended: every place, the final cards
    and card counts, no legal moves, no table; a fresh dict, not the previous step's."""
    env = HandEnv()
    obs, info = env.reset(seed=9)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        before = obs
        obs, reward, done, _, info = env.step(int(rng.integers(
            len(info["observation"].legal_moves))))
    assert obs is not before
    pos = env.position
    order = info["order"]
    assert [int(obs["place"][s]) for s in order] == [1, 2, 3, 4]
    assert tuple(obs["cards_left"]) == pos.cards_left
    seat = int(obs["seat"])
    assert seat == env.history[-1][0] and (obs["hand"] == pos.counts(seat)).all()
    assert len(obs["legal"]) == 0 and not obs["can_pass"]
    assert obs["table_owner"] == -1 and not obs["table"].any()
    # the played cards: the deal less what is left
    assert (obs["played"] + np.array([pos.counts(s) for s in range(4)]) ==
            _dealt_counts(9)).all()
    assert reward == (info["outcome"] if seat % 2 == 0 else -info["outcome"])


def _dealt_counts(seed):
    import random
    from guandan_core.match import deal
    return np.array(deal(random.Random(seed)))


def test_sec6_reward_is_for_the_team_of_the_seat_that_moved():
    """RULES 6: with agent seats on both teams the reward is for the team of the seat
    whose move ended the hand."""
    for seed in range(4):
        env = HandEnv(agent_seats=(0, 1))
        obs, info = env.reset(seed=seed)
        greedy, done = GreedyPlayer(), False
        while not done:
            mover = info["observation"].seat
            obs, reward, done, _, info = env.step(env.action_of(greedy(info["observation"])))
        assert reward == (info["outcome"] if mover % 2 == 0 else -info["outcome"])


def test_an_opponent_that_fails_leaves_the_environment_as_it_was():
    """An opponent whose player raises or answers an illegal move: the environment is back
    at the agent's turn, so the step can be retried; an illegal answer is a ValueError
    naming the seat and the answer, and the player's own error passes through as it is."""
    class Flaky:
        def __init__(self, failures):
            self.failures, self.greedy = failures, GreedyPlayer()

        def __call__(self, obs):
            if self.failures:
                kind = self.failures.pop()
                if kind == "raise":
                    raise ZeroDivisionError("boom")
                return ["Single", "3", ["XX"]]
            return self.greedy(obs)

    flaky = Flaky(["raise", "illegal"])
    env = HandEnv(agent_seats=(0, 2), opponents=[None, flaky, None, GreedyPlayer()])
    obs, info = env.reset(seed=2)
    before = (list(env.history), env.position.key(), env._played.copy())
    action = env.action_of(GreedyPlayer()(info["observation"]))
    with pytest.raises(ValueError, match=r"seat 1's player answered \['Single', '3', "
                                         r"\['XX'\]\]: .*XX"):
        while True:         # until seat 1 is asked
            obs, _, _, _, info = env.step(action)
            before = (list(env.history), env.position.key(), env._played.copy())
            action = env.action_of(GreedyPlayer()(info["observation"]))
    assert (env.history, env.position.key()) == before[:2] and \
        (env._played == before[2]).all()
    with pytest.raises(ZeroDivisionError, match="^boom$"):
        env.step(action)
    assert (env.history, env.position.key()) == before[:2]
    agent_seat = env.position.to_move
    move = env._observation.legal_moves[action]
    env.step(action)                            # now seat 1 answers: the hand goes on
    assert env.history[len(before[0])] == (agent_seat, move)
    assert env.history[len(before[0]) + 1][0] == 1


def _misread_move(moves):
    """A Move with the cards, type and rank of one of ``moves`` but read at level 2 (so
    of another strength), or None."""
    from guandan_core.moves import Move, MoveError
    for m in moves:
        if m.is_pass:
            continue
        try:
            other = Move.from_platform(m.to_platform(), "2")
        except MoveError:
            continue
        if other == m and other.key != m.key:
            return other
    return None


def test_a_move_read_at_another_level_is_no_legal_move():
    """API.md (HandEnv): a move that is not legal is a ValueError, in action_of and from
    an opponent. A Move with the cards of a legal one but read at another level (of
    another strength) was taken as that move: Position.check refuses it."""
    env = HandEnv(level="7")
    found = 0
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        wrong = _misread_move(info["observation"].legal_moves)
        if wrong is None:
            continue
        found += 1
        with pytest.raises(ValueError, match=rf"{re.escape(str(wrong))} is not a legal move "
                                             rf"of seat \d \(it is not a reading of its "
                                             rf"cards at level 7\)"):
            env.action_of(wrong)
        with pytest.raises(IllegalMoveError):
            env.position.check(wrong)           # (the same verdict)
    assert found >= 5

    class Misreading:
        """Answers a legal move read at level 2 when it can."""
        def __call__(self, obs):
            return _misread_move(obs.legal_moves) or GreedyPlayer()(obs)

    env = HandEnv(agent_seats=(0,), opponents=Misreading(), level="7")
    with pytest.raises(ValueError, match=r"seat [123]'s player answered .*, not a legal "
                                         r"move \(it is not a reading of its cards at level "
                                         r"7\)"):
        for seed in range(20):
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                obs, _, done, _, info = env.step(
                    env.action_of(GreedyPlayer()(info["observation"])))


def test_a_reset_that_fails_leaves_no_hand_to_step_in():
    """An opponent that raises while a new hand begins (before the agent's first turn):
    the environment has no hand then, and a step says so instead of playing on in the
    hand before; it always holds four seats' players."""
    class Switch:
        fail = False

        def __call__(self, obs):
            if self.fail:
                raise ZeroDivisionError("boom")
            return GreedyPlayer()(obs)

    switch = Switch()
    env = HandEnv(agent_seats=(0,), opponents=switch)
    assert len(env.players) == 4
    for seed in range(20):
        switch.fail = False
        env.reset(seed=seed)
        switch.fail = True
        try:
            env.reset(seed=seed + 1)
        except ZeroDivisionError:
            break               # (seed + 1's first leader is an opponent)
    else:
        pytest.fail("no hand began with an opponent to move")
    assert env.position is None
    with pytest.raises(RuntimeError, match="step before reset"):
        env.step(0)


def test_a_reset_whose_reseed_fails_leaves_no_hand_to_step_in():
    """An opponent whose reseed raises: the reset fails before the new hand is dealt, and
    the hand before is gone too (it was left to step in, with the seed stream already
    moved on); in a GameEnv, the game before too."""
    class Failing(RandomPlayer):
        fail = False

        def reseed(self, seed):
            if self.fail:
                raise ZeroDivisionError("reseed failed")
            super().reseed(seed)

    for make in (lambda p: HandEnv(agent_seats=(0, 2), opponents=p),
                 lambda p: GameEnv(agent_seats=(0, 2), opponents=p)):
        player = Failing(0)
        env = make(player)
        env.reset(seed=4)
        player.fail = True
        with pytest.raises(ZeroDivisionError, match="reseed failed"):
            env.reset(seed=5)
        assert env.position is None
        with pytest.raises(RuntimeError, match="step before reset"):
            env.step(0)
        with pytest.raises(RuntimeError, match="no seat is to move"):
            env.action_of(["PASS", "PASS", "PASS"])
        player.fail = False
        env.reset(seed=5)
        assert env.position is not None


def test_a_player_class_instead_of_a_player_is_refused():
    """A class is callable, so it was taken for a player and failed at its first move
    (a reseed's TypeError, or "seed must be an int" naming an Observation), and as
    agent_cards at the first tribute, a hand later."""
    for opponents in (RandomPlayer, [None, GreedyPlayer, None, GreedyPlayer()]):
        name = "RandomPlayer" if opponents is RandomPlayer else "GreedyPlayer"
        with pytest.raises(TypeError, match=re.escape(f"a player, not the class {name} "
                                                      f"(make one: {name}())")):
            HandEnv(agent_seats=(0, 2), opponents=opponents)
    with pytest.raises(TypeError, match=re.escape("agent_cards: an object, not the class "
                                                  "RandomPlayer (make one: RandomPlayer())")):
        GameEnv(agent_seats=(0, 2), agent_cards=RandomPlayer)


def test_seeds_of_numpy_text_and_int_subclasses_are_the_plain_values():
    """A seed of a str or int subclass (numpy's str, an IntEnum) seeds as the plain value:
    opponent_seed was made of its repr, which numpy 2 writes np.str_('a') (numpy 1:
    'a'), so the same text gave other opponents' moves, by numpy version."""
    import enum

    class Seed(enum.IntEnum):
        FIVE = 5

    assert opponent_seed(np.str_("a"), 1) == opponent_seed("a", 1)
    assert opponent_seed(Seed.FIVE, 1) == opponent_seed(5, 1)

    def episode(seed):
        env = HandEnv(agent_seats=(0,), opponents=RandomPlayer(0))
        obs, info = env.reset(seed=seed)
        moves = []
        while True:
            moves.append(str(info["observation"].legal_moves[0]))
            obs, reward, done, _, info = env.step(0)
            if done:
                return moves, reward

    assert episode(np.str_("a")) == episode("a")
    assert episode(Seed.FIVE) == episode(5)


def test_copies_numpy_inputs_and_kept_views():
    """copy.copy is a real copy; numpy seeds and actions are taken; a kept Observation
    and a returned array do not change with later steps, and changing a returned array
    does not change the environment; bad seats are named."""
    env = HandEnv()
    obs, info = env.reset(seed=np.int64(5))
    same, _ = HandEnv().reset(seed=5)
    assert all(np.array_equal(obs[k], same[k]) for k in obs)
    kept, kept_hand = info["observation"], obs["hand"].copy()
    other = copy.copy(env)
    other.step(np.int64(0))
    assert len(env.history) == 0 and len(other.history) == 1
    obs["hand"][:] = 0
    obs["played"][:] = 9
    env.step(np.int32(0))
    assert kept.history == () and (kept.counts == kept_hand).all()
    assert env._played.sum() == len(env.history[0][1])
    with pytest.raises(ValueError):
        info["observation"].legal_moves.array["key"][0] = 1      # read-only
    for seats in (0, None, "02"):
        with pytest.raises(ValueError, match=_bad_seats(seats)):
            HandEnv(agent_seats=seats)
    env.reset(seed=1, options={"anything": 1})


def test_sec8_a_hand_is_played_at_a_teams_level():
    """RULES 8: a hand is played at the level of the team that won the previous one, so
    the hand's level is among the team levels a player is shown (a review helper's mutant
    showing both teams at 2 in a hand at 7 passed the other tests)."""
    env = HandEnv(level="7")
    obs, info = env.reset(seed=5)
    assert int(obs["level"]) == 5
    assert 5 in info["observation"].team_levels


def test_an_opponent_answering_a_move_object_that_is_not_legal_is_named():
    """The module's doc: an opponent that answers a move that is not legal leaves the
    environment as it was, and a ValueError names the seat and the answer; a Move
    object (not read by parse_move) of a card the seat does not hold included."""
    from guandan_core.moves import Move
    greedy, armed = GreedyPlayer(), []

    def opponent(obs):
        if not armed:
            return greedy(obs)
        held = obs.hand.cards()
        absent = next(c for c in ("S3", "H4", "C5", "D6", "S7", "H8") if c not in held)
        return Move.from_platform(["Single", absent[1], [absent]], "2")

    env = HandEnv(agent_seats=(0,), opponents=opponent)
    obs, info = env.reset(seed=3)
    before = (list(env.history), env.position.key(), env._played.copy())
    armed.append(True)
    with pytest.raises(ValueError, match="seat 1's player answered Single .*, not a "
                                         "legal move"):
        env.step(env.action_of(greedy(info["observation"])))
    assert (env.history, env.position.key()) == before[:2] and \
        (env._played == before[2]).all()


@pytest.mark.parametrize("make", [lambda: HandEnv(agent_seats=(1,)),
                                  lambda: GameEnv(agent_seats=(0, 2))])
def test_a_reset_without_a_seed_continues_the_seeded_stream(make):
    """API (HandEnv, GameEnv): reset() after reset(seed) takes the next 63 bits of
    random.Random(seed) as its seed, as gymnasium's seedless reset continues its
    generator (it dealt afresh: gymnasium's env checker refused the environments, and
    its vector envs, which reset without a seed, were not reproducible); before any
    seed, a fresh deal."""
    def hands(env, *seeds):
        return [env.reset(**({} if s is None else {"seed": s}))[0]["hand"].tobytes()
                for s in seeds]
    stream = random.Random(123)
    first, second = stream.getrandbits(63), stream.getrandbits(63)
    assert hands(make(), 123, None, None) == hands(make(), 123, first, second)
    assert hands(make(), 123, None) == hands(make(), 9, 123, None)[1:]  # (the last seed's)
    assert len(set(hands(make(), None) + hands(make(), None))) == 2    # (fresh, unseeded)


def test_a_zero_d_integer_array_is_an_action_and_a_seed():
    """gymnasium's Discrete takes a 0-d integer array (a 0-d tensor's .numpy()): so do
    step and reset (it was 'not a legal move's index'); a 0-d float array is refused."""
    env = HandEnv(agent_seats=(0, 1, 2, 3))
    a, _ = env.reset(seed=np.array(4))
    b, _ = HandEnv(agent_seats=(0, 1, 2, 3)).reset(seed=4)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    twin = copy.deepcopy(env)
    after = env.step(np.array(0, dtype=np.int64))[0]
    assert all(np.array_equal(after[k], v) for k, v in twin.step(0)[0].items())
    with pytest.raises(ValueError, match="action array\\(0\\.\\) is not a legal move's"):
        env.step(np.array(0.0))
