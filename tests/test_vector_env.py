"""VectorHandEnv: many hands stepped together (RULES.md section 6, through HandEnv).

The main check: each row of a vector environment is exactly the HandEnv it stands for,
played with the seeds the class documents, hand after hand across the same-step
autoresets: the same observations, rewards and endings.
"""

import copy
import pickle
import random
import re
import sys

import numpy as np
import pytest

from guandan_core.env import GameEnv, HandEnv, VectorEnv, VectorHandEnv, opponent_seed
from guandan_core.moves import MOVE_DTYPE
from guandan_core.position import IllegalMoveError
from guandan_core.players import GreedyPlayer, RandomPlayer

KEYS = ("seat", "level", "hand", "played", "cards_left", "place", "table", "table_owner",
        "can_pass")


def _row(batch: dict, i: int) -> dict:
    """Row ``i`` of stacked observations as a HandEnv observation."""
    row = {k: batch[k][i] for k in KEYS}
    row["legal"] = batch["legal"][i, :batch["legal_count"][i]]
    row["table_move"] = batch["table_move"][i]
    return row


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in KEYS) and \
        a["legal"].tobytes() == b["legal"].tobytes() and \
        a["table_move"].tobytes() == b["table_move"].tobytes()


def _hand_seeds(first: int, hands: int) -> list:
    """The seeds of a row's hands, as documented: the first, then 63 bits at a time of
    random.Random(first)."""
    rng = random.Random(first)
    return [first] + [rng.getrandbits(63) for _ in range(hands - 1)]


@pytest.mark.parametrize("agent_seats", [(0, 1, 2, 3), (0, 2), (3,)])
def test_sec6_each_row_is_its_hand_env_across_autoresets(agent_seats):
    """RULES 6: three rows with random agents against greedy opponents, for 160 steps
    (several hands a row): each row's observations, rewards, endings and final
    observations are those of a HandEnv played with the same actions and the documented
    seeds."""
    n, seed, steps = 3, 40, 160
    venv = VectorHandEnv(n, agent_seats=agent_seats)
    obs, infos = venv.reset(seed=seed)
    singles = [HandEnv(agent_seats=agent_seats) for _ in range(n)]
    seeds = [_hand_seeds(seed + i, 40) for i in range(n)]
    hand_no = [0] * n
    expected = [env.reset(seed=seeds[i][0]) for i, env in enumerate(singles)]
    choosers = [RandomPlayer(i) for i in range(n)]
    ended = 0
    for _ in range(steps):
        for i in range(n):
            assert _same(_row(obs, i), expected[i][0])
            assert infos["observation"][i].history == expected[i][1]["observation"].history
        actions = venv.action_of([c(o) for c, o in zip(choosers, infos["observation"])])
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert not truncated.any() and (infos["_final_obs"] == terminated).all()
        for i, env in enumerate(singles):
            o, r, done, _, info = env.step(actions[i])
            assert (rewards[i], terminated[i]) == (r, done)
            if done:
                ended += 1
                assert _same(infos["final_obs"][i], o)
                assert infos["final_info"][i]["outcome"] == info["outcome"]
                assert infos["final_info"][i]["order"] == info["order"]
                hand_no[i] += 1
                expected[i] = env.reset(seed=seeds[i][hand_no[i]])
            else:
                assert infos["final_obs"][i] is None
                expected[i] = (o, info)
    assert ended >= 3 and min(hand_no) >= 1


def test_stacked_arrays_and_padding():
    """Row i of `legal` holds its plays and then zeroed records, `legal_count` says how
    many; the width is the most plays of any row."""
    venv = VectorHandEnv(4)
    obs, infos = venv.reset(seed=[3, "a", 5, np.int64(9)])
    counts = [len(o.legal_moves.array) for o in infos["observation"]]
    assert obs["legal"].dtype == MOVE_DTYPE and obs["legal"].shape == (4, max(counts))
    assert obs["legal_count"].tolist() == counts
    for i in range(4):
        assert not obs["legal"][i, counts[i]:].view(np.uint8).any()
    assert obs["hand"].shape == (4, 54) and obs["played"].shape == (4, 4, 54)
    assert obs["hand"].sum(axis=1).tolist() == [27] * 4
    assert obs["table_move"].dtype == MOVE_DTYPE and obs["table_move"].shape == (4,)
    single, _ = HandEnv().reset(seed="a")
    assert _same(_row(obs, 1), single)


def test_a_seed_names_the_whole_run_and_a_copy_continues_alike():
    """The same seed, the same run (hands dealt at the autoresets included); a pickled or
    copied vector environment continues as the original does."""
    def run(venv, infos, steps):
        trace = []
        for _ in range(steps):
            actions = venv.action_of([GreedyPlayer()(o) for o in infos["observation"]])
            obs, rewards, terminated, _, infos = venv.step(actions)
            trace.append((obs["hand"].tobytes(), rewards.tobytes(), terminated.tobytes()))
        return trace, infos

    runs = []
    for _ in range(2):
        venv = VectorHandEnv(2, agent_seats=(1, 3))
        runs.append(run(venv, venv.reset(seed=77)[1], 150)[0])
    assert runs[0] == runs[1] and any(b"\x01" in t[2] for t in runs[0])
    venv = VectorHandEnv(2, agent_seats=(1, 3))
    _, infos = run(venv, venv.reset(seed=77)[1], 60)
    twins = [pickle.loads(pickle.dumps(venv)), copy.copy(venv)]
    tails = [run(v, infos, 90)[0] for v in [venv] + twins]
    assert tails[0] == tails[1] == tails[2] == runs[0][60:]
    other, _ = VectorHandEnv(2, agent_seats=(1, 3)).reset(seed=78)
    first, _ = VectorHandEnv(2, agent_seats=(1, 3)).reset(seed=77)
    assert _same(_row(other, 0), _row(first, 1))        # (row 0 of 78 is row 1 of 77)
    # a list's seeds are each what a HandEnv takes: a 0-d integer array too (a tensor's
    # .numpy()), which HandEnv.reset took and the list refused
    listed, _ = VectorHandEnv(2, agent_seats=(1, 3)).reset(seed=[np.array(77), np.int64(78)])
    assert _same(_row(listed, 0), _row(first, 0)) and _same(_row(listed, 1), _row(other, 0))


def test_each_row_has_its_own_opponents():
    """A stateful opponent is copied a row: two rows seeded alike play alike, which a
    shared player (its random stream consumed by both rows in turn) would not."""
    venv = VectorHandEnv(2, agent_seats=(0,), opponents=RandomPlayer(5))
    obs, infos = venv.reset(seed=[4, 4])
    for _ in range(40):
        actions = venv.action_of([GreedyPlayer()(o) for o in infos["observation"]])
        obs, _, _, _, infos = venv.step(actions)
        assert _same(_row(obs, 0), _row(obs, 1))


def test_the_rows_random_opponents_draw_apart():
    """The copies of one random opponent, one a row, are reseeded at each row's reset:
    row i of a seed s with opponent_seed(s + i, seat), rows without a seed with fresh
    seeds, so that rows do not draw the same numbers (they did as copies of one
    generator); each autoreset episode reseeds them again from its own seed."""
    venv = VectorHandEnv(3, agent_seats=(0,), opponents=RandomPlayer(5))
    venv.reset(seed=7)
    assert [e.players[1].seed for e in venv.envs] == [opponent_seed(7 + i, 1) for i in range(3)]
    venv.reset()
    assert len({e.players[1].seed for e in venv.envs}) == 3
    venv.reset(seed=[4, 4, 5])
    seeds = [e.players[1].seed for e in venv.envs]
    for _ in range(400):        # (until row 0's first hand ends and the next begins)
        _, _, done, _, infos = venv.step([0, 0, 0])
        if done[0]:
            break
    else:
        pytest.fail("no hand ended")
    assert venv.envs[0].players[1].seed not in seeds
    # ... from the episode's own seed: the next of the row's stream of seeds (started by
    # its seed, 4), as a reset without a seed draws it
    episode = random.Random(4).getrandbits(63)
    assert venv.envs[0].players[1].seed == opponent_seed(episode, 1)


def test_actions_may_come_as_any_ordered_iterable():
    """step's actions, one an environment in order, as a list, an array, a tuple or an
    iterator: the same step."""
    answers = []
    for wrap in (list, np.array, tuple, iter):
        venv = VectorHandEnv(3)
        venv.reset(seed=4)
        obs, rewards, *_ = venv.step(wrap([0, 1, 0]))
        answers.append((obs["hand"].tolist(), [list(e.history) for e in venv.envs]))
    assert all(a == answers[0] for a in answers)


def test_bad_calls_are_named_and_move_nothing():
    venv = VectorHandEnv(2)
    with pytest.raises(RuntimeError, match="step before reset"):
        venv.step([0, 0])
    obs, infos = venv.reset(seed=1)
    before = [list(e.history) for e in venv.envs]
    count = len(infos["observation"][1].legal_moves)
    for actions, message in [([0], "one action an environment \\(2\\), in their order, "
                                   "not 1 of them"),
                             (5, "one action an environment"),
                             # a mapping's keys, a set's order are not the actions meant
                             ({0: 1, 1: 1}, "in their order, not \\{0: 1, 1: 1\\}"),
                             ({0, 1}, "in their order, not \\{0, 1\\}"),
                             ([0, count], f"environment 1: action {count} is not a legal "
                                          f"move's index 0..{count - 1}"),
                             ([-1, 0], "environment 0: action -1"),
                             ([0, 1.5], "environment 1: action 1.5")]:
        with pytest.raises(ValueError, match=message):
            venv.step(actions)
        assert [e.history for e in venv.envs] == before
    with pytest.raises(IllegalMoveError, match="environment 0: seat \\d cannot play") as err:
        venv.action_of([["Bomb", "A", ["SA", "HA", "CA", "DA"]], None])
    assert err.value.env_index == 0          # (the engine's own error type, kept)
    with pytest.raises(ValueError, match="one move an environment \\(2\\), in their order, "
                                         "not 3 of them"):
        venv.action_of([None] * 3)
    move = infos["observation"][0].legal_moves[0]
    for bad in (5, move):
        with pytest.raises(ValueError, match=f"one move an environment .* not {re.escape(repr(bad))}"):
            venv.action_of(bad)
    for bad in (0, -1, 2.5, "3", None, 65_537, 2**70, np.uint64(2**64 - 1)):
        with pytest.raises(ValueError, match=re.escape(f"num_envs must be a whole number "
                                                       f"from 1 to 65,536, not {bad!r}")):
            VectorHandEnv(bad)
    with pytest.raises(ValueError, match="a list of 2 seeds .* not 3"):
        venv.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="seed must be an int 0 or more, a list"):
        venv.reset(seed=-4)
    for seeds in ([1, -2], [1, 2.5], [1, b"x"]):
        with pytest.raises(ValueError, match="seed\\[1\\] must be an int 0 or more, text "
                                             "or None, not"):
            venv.reset(seed=seeds)
    with pytest.raises(ValueError, match="seed must be an int 0 or more, a list of 2 seeds "
                                         "\\(ints, text or None\\) or None, not 'abc'"):
        venv.reset(seed="abc")
    zero_d, _ = venv.reset(seed=np.array(6))              # (a 0-d array is its number)
    plain, _ = venv.reset(seed=6)
    assert all(np.array_equal(zero_d[k], plain[k]) for k in plain)
    with pytest.raises(ValueError, match="agent_seats"):
        VectorHandEnv(2, agent_seats=(5,))


def test_an_error_named_with_its_row_keeps_its_attributes():
    """An opponent's error made from its message comes out with the row before it and
    its own attributes kept (it used to be made again from the message alone: an
    engine's exit status and stderr were lost), and pickles whole (a worker's error)."""
    from guandan_core.engine import EngineRefusedError, EngineTerminatedError
    errors = [EngineTerminatedError("the engine process ended (exit status 3)", 3, "boom"),
              EngineRefusedError("play x", "not a move")]
    for error in errors:
        def fails(obs, error=error):
            raise error
        with pytest.raises(type(error)) as caught:
            VectorHandEnv(2, agent_seats=(0,), opponents=fails).reset(seed=[1, 2])
        named = caught.value
        i = named.env_index
        assert str(named) == f"environment {i}: {error}"
        assert {k: v for k, v in vars(named).items() if k != "env_index"} == vars(error)
        assert named.__cause__ is error
        for back in (copy.copy(named), pickle.loads(pickle.dumps(named))):
            assert (type(back), str(back), vars(back)) == (type(named), str(named),
                                                           vars(named))


def test_a_failing_opponent_names_its_row_and_needs_a_reset():
    class FailsOnce:
        def __init__(self):
            self.failed = False

        def __call__(self, obs):
            if not self.failed:
                self.failed = True
                raise ZeroDivisionError("boom")
            return GreedyPlayer()(obs)

    class Illegal:
        def __call__(self, obs):
            return ["Single", "3", ["XX"]]

    venv = VectorHandEnv(2, agent_seats=(0,), opponents=FailsOnce())
    with pytest.raises(ZeroDivisionError, match=r"environment \d: boom") as err:
        _, infos = venv.reset(seed=[1, 2])      # (the opponents may move first)
        for _ in range(20):
            _, _, _, _, infos = venv.step(
                venv.action_of([GreedyPlayer()(o) for o in infos["observation"]]))
    assert err.value.env_index in (0, 1)
    with pytest.raises(RuntimeError, match="after a failed step"):
        venv.step([0, 0])
    with pytest.raises(RuntimeError, match="environment \\d: no seat is to move"):
        venv.action_of([None, None])        # (a reset that failed left no seat to move)

    class Odd(Exception):                   # (not made from one message: noted instead)
        def __init__(self, a, b):
            super().__init__(a, b)

    class OddPlayer:
        def __call__(self, obs):
            raise Odd(1, 2)

    with pytest.raises(Odd) as err:
        VectorHandEnv(2, agent_seats=(0,), opponents=OddPlayer()).reset(seed=[5, 1])
    assert err.value.args == (1, 2) and err.value.env_index in (0, 1)
    if sys.version_info >= (3, 11):
        assert err.value.__notes__ == [f"in environment {err.value.env_index}"]
    venv = VectorHandEnv(2, agent_seats=(0, 1, 2), opponents=Illegal())
    obs, infos = venv.reset(seed=3)
    with pytest.raises(ValueError, match=r"environment \d: seat 3's player answered"):
        for _ in range(200):
            obs, _, _, _, infos = venv.step(
                venv.action_of([GreedyPlayer()(o) for o in infos["observation"]]))
    with pytest.raises(RuntimeError, match="after a failed step"):
        venv.step([0, 0])
    venv.reset(seed=3)          # (and usable again)


def _with_singles(template, n: int, seed: int) -> tuple:
    """``VectorEnv(template, n)`` reset with ``seed``, and ``n`` copies of ``template``
    reset with the documented seeds of its rows: (venv, copies, each row's episode seeds,
    observations, infos, each copy's (observation, info))."""
    venv = VectorEnv(template, n)
    obs, infos = venv.reset(seed=seed)
    singles = [copy.deepcopy(template) for _ in range(n)]
    seeds = [_hand_seeds(seed + i, 20) for i in range(n)]
    expected = [env.reset(seed=seeds[i][0]) for i, env in enumerate(singles)]
    return venv, singles, seeds, obs, infos, expected


def test_sec8_rows_of_games_are_their_game_envs_across_autoresets():
    """RULES 8 through GameEnv: two rows of games cut at 2 hands (truncated) with random
    agents: each row is its own GameEnv, reset with the documented seeds when its game
    ends; team levels are stacked too."""
    n = 2
    venv, singles, seeds, obs, infos, expected = _with_singles(
        GameEnv(agent_seats=(0, 2), max_hands=2), n, 5)
    games = [0] * n
    choosers = [RandomPlayer(10 + i) for i in range(n)]
    cuts = hands_within = 0
    for _ in range(600):
        for i in range(n):
            assert _same(_row(obs, i), expected[i][0])
            assert (obs["team_levels"][i] == expected[i][0]["team_levels"]).all()
        actions = venv.action_of([c(o) for c, o in zip(choosers, infos["observation"])])
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        cuts += int(truncated.sum())
        for i, env in enumerate(singles):
            o, r, done, cut, info = env.step(actions[i])
            assert (rewards[i], terminated[i], truncated[i]) == (r, done, cut)
            assert infos["_final_obs"][i] == (done or cut)
            if done or cut:
                assert _same(infos["final_obs"][i], o)
                assert infos["final_info"][i]["hand_result"] == info["hand_result"]
                games[i] += 1
                expected[i] = env.reset(seed=seeds[i][games[i]])
            else:
                # a hand that ended within the game: its record reaches the row's infos
                # (a key is there when a row has it, as gymnasium's vector infos)
                has = infos.get("_hand_result", np.zeros(n, dtype=bool))
                assert has[i] == ("hand_result" in info)
                if has[i]:
                    assert infos["hand_result"][i] == info["hand_result"]
                hands_within += "hand_result" in info
                expected[i] = (o, info)
    assert min(games) >= 1 and cuts >= 2 and hands_within >= 2


def test_sec8_rows_with_card_actions_are_their_game_envs():
    """RULES 8 with card_actions: rows that stop at tribute and return choices (random
    cards, random moves) are their own GameEnvs, phase and the allowed cards as Singles
    included, across the hands and games of the run."""
    n = 2
    venv, singles, seeds, obs, infos, expected = _with_singles(
        GameEnv(agent_seats=(0, 1, 2, 3), max_hands=3, card_actions=True), n, 2)
    games = [0] * n
    movers = [RandomPlayer(20 + i) for i in range(n)]
    cards = random.Random(4)
    choices = 0
    for _ in range(800):
        actions = []
        for i in range(n):
            assert _same(_row(obs, i), expected[i][0])
            assert obs["phase"][i] == expected[i][0]["phase"]
            if obs["phase"][i]:
                choices += 1
                assert infos["_choice"][i] and list(infos["allowed_cards"][i]) == \
                    expected[i][1]["allowed_cards"]
                actions.append(cards.randrange(obs["legal_count"][i]))
            else:
                actions.append(venv.envs[i].action_of(movers[i](infos["observation"][i])))
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        for i, env in enumerate(singles):
            o, r, done, cut, info = env.step(actions[i])
            assert (rewards[i], terminated[i], truncated[i]) == (r, done, cut)
            if done or cut:
                games[i] += 1
                expected[i] = env.reset(seed=seeds[i][games[i]])
            else:
                expected[i] = (o, info)
    assert min(games) >= 1 and choices >= 4


def test_a_vector_env_takes_only_environments():
    for bad in (None, 3, "HandEnv"):
        with pytest.raises(TypeError, match="env must be a HandEnv or GameEnv"):
            VectorEnv(bad, 2)
    with pytest.raises(ValueError, match="num_envs must be a whole number from 1 to 65,536, "
                                         "not 0"):
        VectorEnv(HandEnv(), 0)


def test_a_truncated_episode_s_final_info_is_marked_and_no_observation_flag():
    """API.md (VectorEnv): a row whose episode ends in the step, terminated *or
    truncated*, has its last observation and info, and ``_final_obs`` and
    ``_final_info`` mark it; ``observation`` is in every row, so there is no
    ``_observation``. A GameEnv cut after one hand (max_hands=1) is truncated."""
    venv = VectorEnv(GameEnv(max_hands=1), 2)
    obs, infos = venv.reset(seed=5)
    greedy, ended = GreedyPlayer(), np.zeros(2, dtype=bool)
    for _ in range(2000):
        assert "_observation" not in infos
        obs, rewards, terminated, truncated, infos = venv.step(
            venv.action_of([greedy(o) for o in infos["observation"]]))
        assert not terminated.any()
        assert list(infos["_final_info"]) == list(truncated) == list(infos["_final_obs"])
        for i in np.flatnonzero(truncated):
            assert "hand_result" in infos["final_info"][i]
        ended |= truncated
        if ended.all():
            break
    assert ended.all()


def test_an_action_out_of_range_at_a_card_choice_moves_nothing():
    """API.md (VectorEnv): actions are checked before any environment moves, a card
    choice's too (its actions: the allowed cards' indices); the bad one is named and
    the vector environment steps on as before."""
    venv = VectorEnv(GameEnv(max_hands=6, card_actions=True), 1)
    obs, infos = venv.reset(seed=1)
    greedy = GreedyPlayer()
    while not obs["phase"][0]:
        obs, _, done, cut, infos = venv.step(venv.action_of(
            [greedy(infos["observation"][0])]))
        assert not (done[0] or cut[0]), "no card choice in six hands"
    count, seat = int(obs["legal_count"][0]), int(obs["seat"][0])
    with pytest.raises(ValueError, match=f"environment 0: action {count} is not a legal "
                                         f"move's index 0..{count - 1} \\(seat {seat}\\)"):
        venv.step([count])
    obs, _, _, _, infos = venv.step([count - 1])    # (still ready: no reset needed)
    assert obs["phase"][0] or "choice" not in infos


def test_rows_keep_their_own_streams_whoever_seeded_the_template():
    """Each row's episodes come from its own stream (API: the row's reset without a seed,
    the next 63 bits of random.Random(its last seed)): rows copied from an environment
    that was already seeded start apart on reset() (they shared its stream: all four
    rows dealt alike), a reset() after a seeded one goes on with each row's stream
    throughout (only the first episodes did; later ones were fresh), and a vector
    environment pickled when it kept the rows' streams itself goes on with them."""
    template = HandEnv(agent_seats=(0,))
    template.reset(seed=5)
    obs, _ = VectorEnv(template, 4).reset()
    assert len({obs["hand"][i].tobytes() for i in range(4)}) == 4

    def starts(venv, steps=300):
        first, _ = venv.reset()
        seen = [first["hand"].tobytes()]
        for _ in range(steps):
            obs, _, term, trunc, _ = venv.step([0, 0])
            seen += [obs["hand"][i].tobytes() for i in np.flatnonzero(term | trunc)]
        return seen

    runs = []
    for _ in range(2):
        venv = VectorHandEnv(2, agent_seats=(0,))
        venv.reset(seed=7)
        runs.append(starts(venv))
    assert runs[0] == runs[1] and len(runs[0]) > 5
    # the same streams, now kept by the vector environment (as pickled before)
    venv = VectorHandEnv(2, agent_seats=(0,))
    venv.reset(seed=7)
    old = copy.deepcopy(venv)
    old.__dict__["_seeders"] = [row.__dict__.pop("_seeder") for row in old.envs]
    again = pickle.loads(pickle.dumps(old))
    assert "_seeders" not in vars(again)
    assert starts(again) == starts(venv)
