"""GameEnv: whole games (RULES.md sections 6 and 8: hands in a row, levels, tribute).

The main check: agents that choose with the same players a Match uses play that match's
game move for move, hand for hand (tribute and returns, levels, the winner), so the
environment settles and deals as the engine does.
"""

import copy
import pickle
import re
from collections import Counter

import numpy as np
import pytest

from guandan_core.cards import parse_card, parse_level
from guandan_core.env import GameEnv, opponent_seed
from guandan_core.match import Match
from guandan_core.players import GreedyPlayer, RandomPlayer
from guandan_core.usertext import quoted


class LastCards:
    """Tribute and return hooks that pick the last allowed card (not the defaults)."""

    def choose_tribute(self, obs, allowed):
        return allowed[-1]

    def choose_return(self, obs, allowed):
        return allowed[-1]


class RandomWithCards(LastCards, RandomPlayer):
    """(LastCards first: its hooks, not RandomPlayer's random return.)"""
    pass


class FailingReturns(GreedyPlayer):
    """An opponent whose return hook raises once, when ``fail``."""

    def __init__(self, fail):
        self.fail = fail

    def choose_return(self, obs, allowed):
        if self.fail:
            self.fail = False
            raise ZeroDivisionError("boom")
        return allowed[0]


def _check_final_hand_obs(info, seat) -> None:
    """API.md (GameEnv): ``final_hand_obs`` is the ended hand's last observation, as the
    seat that moved sees it: every place, its final cards, no table, no moves."""
    final, order = info["final_hand_obs"], info["hand_result"].order
    assert final["seat"] == seat and len(final["legal"]) == 0 and not final["can_pass"]
    assert [int(final["place"][s]) for s in order] == [1, 2, 3, 4]
    assert final["hand"].sum() == final["cards_left"][seat] and final["table_owner"] == -1
    assert final["cards_left"][order[0]] == 0 and not final["table"].any()


def _play_game(env, agents, seed, max_steps=20_000):
    """Play with ``agents`` (seat -> player) until the game ends; the hand results, the
    rewards of the steps that ended hands, and the observations' team levels at each
    hand's first agent move."""
    obs, info = env.reset(seed=seed)
    results, rewards, first_levels = [], [], [tuple(obs["team_levels"])]
    for _ in range(max_steps):
        seat = int(obs["seat"])
        obs, reward, terminated, truncated, info = env.step(
            env.action_of(agents[seat](info["observation"])))
        if "hand_result" in info:
            results.append(info["hand_result"])
            rewards.append((seat, reward))
            _check_final_hand_obs(info, seat)
            if not (terminated or truncated):
                first_levels.append(tuple(obs["team_levels"]))
        if terminated or truncated:
            return results, rewards, first_levels, terminated, truncated
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("seed, rules", [(1, "standard"), (4, "platform"), (9, "standard")])
def test_sec8_greedy_agents_play_the_matchs_game(seed, rules):
    """RULES 6 and 8: four greedy seats through the environment play the same game as a
    seeded Match of greedy players, hand for hand, until a team wins it; each ended
    hand's reward is its outcome for the team of the seat that moved last."""
    env = GameEnv(rules=rules)
    results, rewards, first_levels, terminated, truncated = _play_game(
        env, {s: GreedyPlayer() for s in range(4)}, seed)
    assert terminated and not truncated and results[-1].winner is not None
    match = Match([GreedyPlayer() for _ in range(4)], rules, seed=seed)
    expected = match.play(len(results))
    assert results == expected
    assert any(r.tribute.kind != "none" for r in results)       # (tribute was paid)
    levels = [(0, 0)] + [r.levels for r in expected[:-1]]
    assert first_levels == levels
    for r, (seat, reward) in zip(results, rewards):
        assert reward == (r.outcome if seat % 2 == 0 else -r.outcome)
    assert any(seat % 2 for seat, _ in rewards) and any(r < 0 for _, r in rewards)


@pytest.mark.parametrize("agent_seats", [(0, 2), (1,)])
def test_sec8_agent_cards_and_opponents_play_as_in_a_match(agent_seats):
    """RULES 8: random agents whose tribute and returns come from `agent_cards`, against
    random opponents with their own hooks: the match those players play, for 12 hands
    (truncated by max_hands)."""
    seed = 6
    env = GameEnv(agent_seats, opponents=[None if s in agent_seats else RandomWithCards(s)
                                          for s in range(4)],
                  agent_cards=LastCards(), max_hands=12)
    agents = {s: RandomPlayer(50 + s) for s in agent_seats}
    results, _, _, terminated, truncated = _play_game(env, agents, seed)
    # (reset reseeded the opponents: the match's opponents are seeded as it seeded them)
    players = [RandomWithCards(50 + s) if s in agent_seats else
               RandomWithCards(opponent_seed(seed, s)) for s in range(4)]
    expected = Match(players, seed=seed).play(len(results))
    assert results == expected
    if results[-1].winner is None:
        assert truncated and not terminated and len(results) == 12
    # the hooks mattered: the default choices give another game
    default = Match([RandomPlayer(50 + s) if s in agent_seats else
                     RandomPlayer(opponent_seed(seed, s)) for s in range(4)],
                    seed=seed).play(len(results))
    assert default != expected


def test_sec8_observation_holds_the_exchanges_and_team_levels():
    """RULES 8: at every move the Observation's exchanges are the hand's tribute and
    returns as the Match paid them, and its team levels the levels the hand began with;
    the arrays agree."""
    env = GameEnv()
    obs, info = env.reset(seed=2)
    greedy, seen, hand = GreedyPlayer(), [], []
    for _ in range(20_000):
        view = info["observation"]
        assert view.team_levels == tuple(obs["team_levels"])
        given, received = np.zeros((4, 54), int), np.zeros((4, 54), int)
        for giver, receiver, kind in view.exchanges:
            given[giver, kind] += 1
            received[receiver, kind] += 1
        assert (obs["given"] == given).all() and (obs["received"] == received).all()
        assert int(obs["level"]) == view.level
        hand.append((view.exchanges, view.team_levels, view.level))
        obs, _, done, cut, info = env.step(env.action_of(greedy(view)))
        if "hand_result" in info:
            seen.append(hand)
            hand = []
        if done or cut:
            break
    expected = Match([GreedyPlayer() for _ in range(4)], seed=2).play(len(seen))
    levels = (0, 0)
    for moves, r in zip(seen, expected):
        exchanges = tuple(r.tribute.payments) + tuple(r.tribute.returns)
        assert set(moves) == {(exchanges, levels, parse_level(r.level))}
        levels = r.levels
    assert sum(1 for r in expected if r.tribute.payments) >= 2


def test_the_game_end_needs_a_reset_and_bad_calls_are_named():
    env = GameEnv(max_hands=1)
    with pytest.raises(RuntimeError, match="step before reset"):
        env.step(0)
    _, info = env.reset(seed=5)
    done = truncated = False
    while not (done or truncated):
        _, _, done, truncated, info = env.step(env.action_of(GreedyPlayer()(info["observation"])))
    assert truncated and not done and info["observation"] is None
    assert info["final_hand_obs"]["hand"].shape == (54,)
    with pytest.raises(RuntimeError, match="the game is over"):
        env.step(0)
    env.reset(seed=5)
    for bad in (0, -1, 1.5, "2"):
        with pytest.raises(ValueError, match=f"max_hands must be a whole number >= 1 or "
                                             f"None, not {bad!r}"):
            GameEnv(max_hands=bad)
    with pytest.raises(ValueError, match="seed must be an int 0 or more"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="rules"):
        GameEnv(rules="nonsense")
    with pytest.raises(ValueError, match="action 999 is not a legal move"):
        env.step(999)


def test_a_copy_continues_alike_across_hands():
    env = GameEnv(agent_seats=(0, 2))
    _, info = env.reset(seed=8)
    greedy = GreedyPlayer()
    hands = 0
    while hands < 2:                    # into the third hand
        _, _, _, _, info = env.step(env.action_of(greedy(info["observation"])))
        hands += "hand_result" in info
    twins = [pickle.loads(pickle.dumps(env)), copy.copy(env)]
    endings = []
    for e in [env] + twins:
        i, done, results = {"observation": e._observation}, False, []
        while not done:
            _, _, done, cut, i = e.step(e.action_of(greedy(i["observation"])))
            done = done or cut
            if "hand_result" in i:
                results.append(i["hand_result"])
        endings.append(results)
    assert endings[0] == endings[1] == endings[2] and endings[0]


def test_an_opponent_failing_while_the_next_hand_is_dealt_leaves_the_env_as_it_was():
    """A return chooser that raises once, when the next hand's tribute is paid: the step
    that ended the hand raises, the environment is back before that step (the hand not
    settled, the agent's move taken back), and the retried step goes on to the same game
    as without the failure."""
    def run(opponent):
        env = GameEnv(agent_seats=(0, 2), opponents=opponent)
        _, info = env.reset(seed=3)
        greedy, results, failures = GreedyPlayer(), [], 0
        while True:
            before = (env.match.hands_played, list(env.history), env.position.key(),
                      copy.deepcopy(env.match.levels))
            action = env.action_of(greedy(info["observation"]))
            try:
                _, _, done, cut, info = env.step(action)
            except ZeroDivisionError:
                failures += 1
                assert (env.match.hands_played, env.history, env.position.key(),
                        env.match.levels) == before
                _, _, done, cut, info = env.step(action)
            if "hand_result" in info:
                results.append(info["hand_result"])
            if done or cut:
                return results, failures

    failing, failures = run(FailingReturns(fail=True))
    plain, _ = run(FailingReturns(fail=False))
    assert failures == 1 and failing == plain


def _play_with_cards(env, agents, cards, seed, max_steps=20_000):
    """``_play_game`` with ``card_actions``: a choice is answered with ``cards``' hook
    (a Match player's ``choose_tribute`` / ``choose_return``) through ``action_of``; the
    hand results and the choices seen as (seat, choice, allowed cards, hand number from
    0, the cards each seat had given and received as shown, the card counts shown)."""
    obs, info = env.reset(seed=seed)
    results, choices = [], []
    for _ in range(max_steps):
        seat = int(obs["seat"])
        if "choice" in info:
            assert obs["phase"] == (1 if info["choice"] == "choose_tribute" else 2)
            assert len(obs["legal"]) == len(info["allowed_cards"]) and not obs["can_pass"]
            choices.append((seat, info["choice"], info["allowed_cards"], len(results),
                            obs["given"].copy(), obs["received"].copy(),
                            obs["cards_left"].copy()))
            card = getattr(cards, info["choice"])(info["observation"], info["allowed_cards"])
            action = env.action_of(card)
            # (a card is named by its text or its kind alike; no table at a choice)
            kind = parse_card(card) if isinstance(card, str) else int(card)
            assert env.action_of(kind) == action and obs["table_owner"] == -1
            assert obs["table_move"]["type"] == 0       # (the pass's record: no table)
            # the chooser's own cards as they are at that moment
            assert (obs["hand"] == info["observation"].counts).all()
            assert obs["hand"].sum() == obs["cards_left"][seat]
            # no seat is out and nothing is on the table before a hand's first move
            assert not obs["place"].any() and not obs["table"].any()
        else:
            assert obs["phase"] == 0
            action = env.action_of(agents[int(obs["seat"])](info["observation"]))
        obs, _, terminated, truncated, info = env.step(action)
        if "hand_result" in info:
            results.append(info["hand_result"])
            _check_final_hand_obs(info, seat)
        if terminated or truncated:
            return results, choices
    raise AssertionError("the game did not end")


class FirstCards:
    """The match's default choices, as hooks: the first allowed card."""

    def choose_tribute(self, obs, allowed):
        return allowed[0]

    def choose_return(self, obs, allowed):
        return allowed[0]


@pytest.mark.parametrize("seed, rules", [(1, "standard"), (4, "platform")])
def test_sec8_card_actions_with_the_default_cards_play_the_matchs_game(seed, rules):
    """RULES 8 with card_actions: the agent's seats stop at each tribute and return they
    choose; answering each with the default card and each move greedily plays the game
    of a seeded Match of greedy players, hand for hand."""
    env = GameEnv(rules=rules, card_actions=True)
    results, choices = _play_with_cards(env, {s: GreedyPlayer() for s in range(4)},
                                        FirstCards(), seed)
    expected = Match([GreedyPlayer() for _ in range(4)], rules, seed=seed).play(len(results))
    assert results == expected and results[-1].winner is not None
    tributes = sum(len(r.tribute.payments) for r in expected)
    returns = sum(len(r.tribute.returns) for r in expected)
    assert tributes and returns and len(choices) == tributes + returns
    assert {c[1] for c in choices} == {"choose_tribute", "choose_return"}
    # a tribute is chosen with nothing shown paid; a return with the hand's tribute shown
    for seat, choice, _, number, given, received, cards_left in choices:
        paid = expected[number].tribute.payments if choice == "choose_return" else ()
        want_given, want_received = np.zeros((4, 54)), np.zeros((4, 54))
        for payer, receiver, kind in paid:
            want_given[payer, kind] += 1
            want_received[receiver, kind] += 1
        assert (given == want_given).all() and (received == want_received).all()
        assert choice == "choose_tribute" or received[seat].sum() == 1
        # the counts are the deal's and what the seats are shown to have given and received
        # (a double tribute's second receiver is not shown the first's return, as on the
        # platform, where both are asked together)
        assert (cards_left == 27 - want_given.sum(axis=1) + want_received.sum(axis=1)).all()
    assert any(sum(c[1] == "choose_return" for c in choices if c[3] == n) == 2
               for n in range(len(expected)))


@pytest.mark.parametrize("agent_seats", [(0, 2), (1,)])
def test_sec8_card_actions_play_as_agent_cards_do(agent_seats):
    """RULES 8: the last allowed card chosen through step plays the game agent_cards of
    the same choice plays (random agents and opponents with their own hooks); the
    opponents' hooks are asked once for each card, as in a Match, though the hand is
    begun again after each of the agent's choices."""
    class Counting(RandomWithCards):
        asked = Counter()

        def choose_tribute(self, obs, allowed):
            Counting.asked["choose_tribute"] += 1
            return super().choose_tribute(obs, allowed)

        def choose_return(self, obs, allowed):
            Counting.asked["choose_return"] += 1
            return super().choose_return(obs, allowed)

    def game(**options):
        Counting.asked = Counter()
        env = GameEnv(agent_seats, opponents=[None if s in agent_seats else Counting(s)
                                              for s in range(4)], max_hands=12, **options)
        agents = {s: RandomPlayer(50 + s) for s in agent_seats}
        # (seed 1: a game that lasts the 12 hands, with tribute before each but the first)
        if options.get("card_actions"):
            return _play_with_cards(env, agents, LastCards(), 1)[0], Counting.asked
        return _play_game(env, agents, 1)[0], Counting.asked

    by_step, asked = game(card_actions=True)
    by_hooks, asked_by_hooks = game(agent_cards=LastCards())
    assert by_step == by_hooks and len(by_step) == 12
    # (both hooks: an opponent's tribute asked again at each new start passed before)
    assert asked == asked_by_hooks and asked["choose_tribute"] > 0 < asked["choose_return"]


@pytest.mark.parametrize("seed, agent_seats, failing_step", [
    (4, (0, 2), "card"), (2, (1,), "card"), (3, (0, 2), "move")])
def test_card_actions_bad_choices_are_named_and_a_failing_opponent_undoes_the_step(
        seed, agent_seats, failing_step):
    """A card action out of range or a card that is not allowed is a ValueError naming the
    cards; an opponent whose return hook fails once, in the step of an agent's card (the
    hand begun again after it) or of the move that ended the hand before, raises, leaves
    the environment as before that step, and the retried step plays the same game."""
    with pytest.raises(ValueError, match="give agent_cards or card_actions=True, not both"):
        GameEnv(agent_cards=LastCards(), card_actions=True)

    class Misspelt:
        def choose_returns(self, obs, allowed):
            return allowed[-1]

    class NotCallable:
        choose_tribute = None

    # an object with neither hook would be ignored: refused by name (a hook that is
    # not callable is no hook)
    for bad in (5, Misspelt(), NotCallable()):
        with pytest.raises(TypeError, match=f"agent_cards: an object with a choose_tribute "
                                            f"or choose_return method, or None, not "
                                            f"{re.escape(quoted(bad))}$"):
            GameEnv(agent_cards=bad)
    with pytest.raises(TypeError, match="card_actions must be True or False, not 'yes'"):
        GameEnv(card_actions="yes")

    def run(opponent):
        env = GameEnv(agent_seats=agent_seats, opponents=opponent, card_actions=True,
                      max_hands=10)
        obs, info = env.reset(seed=seed)
        greedy, results, failures, checked = GreedyPlayer(), [], [], False
        while True:
            if "choice" in info:
                allowed = info["allowed_cards"]
                if not checked:
                    checked = True
                    with pytest.raises(ValueError, match=f"not a card's index 0..{len(allowed) - 1}"
                                                         f" .* among {' '.join(allowed)}"):
                        env.step(len(allowed))
                    absent = "SB" if "SB" not in allowed else "S2"
                    with pytest.raises(ValueError, match=re.escape(
                            f"{absent!r} is not one of the cards seat {int(obs['seat'])} may "
                            f"choose ({' '.join(allowed)})")):
                        env.action_of(absent)
                    with pytest.raises(ValueError, match="unknown card 'X9'"):
                        env.action_of("X9")
                action = env.action_of(allowed[0])
            else:
                action = env.action_of(greedy(info["observation"]))
            before = (env.match.hands_played, env._choice is not None, list(env.history))
            try:
                obs, _, done, cut, info = env.step(action)
            except ZeroDivisionError:
                failures.append("card" if before[1] else "move")
                assert (env.match.hands_played, env._choice is not None,
                        env.history) == before
                obs, _, done, cut, info = env.step(action)
            if "hand_result" in info:
                results.append(info["hand_result"])
            if done or cut:
                return results, failures, checked

    failing, failures, checked = run(FailingReturns(fail=True))
    plain, _, _ = run(FailingReturns(fail=False))
    assert checked and failures == [failing_step] and failing == plain


def test_a_copy_made_at_a_card_choice_continues_alike():
    """An environment waiting for a card pickles and copies with that choice."""
    env = GameEnv(card_actions=True, max_hands=8)
    _, info = env.reset(seed=1)
    greedy = GreedyPlayer()
    while "choice" not in info:
        _, _, _, _, info = env.step(env.action_of(greedy(info["observation"])))
    endings = []
    for e in [env, pickle.loads(pickle.dumps(env)), copy.copy(env)]:
        i, results = e._info(), []
        while True:
            action = len(i["allowed_cards"]) - 1 if "choice" in i else \
                e.action_of(greedy(i["observation"]))
            _, _, done, cut, i = e.step(action)
            if "hand_result" in i:
                results.append(i["hand_result"])
            if done or cut:
                break
        endings.append(results)
    assert endings[0] == endings[1] == endings[2] and endings[0]


class FlakyMover(GreedyPlayer):
    """A greedy opponent that picks the last allowed tribute and return cards and, once
    ``armed``, fails at its first move of a hand (at most one move made before it)."""

    def __init__(self):
        self.armed = False

    def __call__(self, obs):
        if self.armed and len(obs.history) <= 1:
            self.armed = False
            raise ZeroDivisionError("boom")
        return super().__call__(obs)

    def choose_tribute(self, obs, allowed):
        return allowed[-1]

    def choose_return(self, obs, allowed):
        return allowed[-1]


@pytest.mark.parametrize("seed, card_actions, failing_step", [
    (2, True, "card"), (2, False, "move"), (0, True, "move")])
def test_an_opponent_failing_at_its_first_move_of_a_hand_undoes_the_step(
        seed, card_actions, failing_step):
    """An opponent that fails at its first move of the next hand, in the step of an
    agent's card or of the move that ended the hand: the match is back as before the step
    (hands played, the generator, the recorded choices), and the retried step plays the
    game without the failure. (The match was left a hand ahead, and its opponents'
    recorded cards were answered to another hand's questions.)"""
    def run(fail):
        opponent = FlakyMover()
        env = GameEnv(agent_seats=(0, 2), opponents=opponent, card_actions=card_actions,
                      max_hands=8)
        obs, info = env.reset(seed=seed)
        greedy, results, failures = GreedyPlayer(), [], []
        while True:
            choice = "choice" in info
            action = env.action_of(info["allowed_cards"][0]) if choice else \
                env.action_of(greedy(info["observation"]))
            before = (env.match.hands_played, env.match.rng.getstate(),
                      list(env.match.card_answers), choice, list(env.history))
            opponent.armed = fail and not failures and env.match.hands_played >= 2
            try:
                obs, _, done, cut, info = env.step(action)
            except ZeroDivisionError:
                failures.append("card" if choice else "move")
                assert (env.match.hands_played, env.match.rng.getstate(),
                        env.match.card_answers, env._choice is not None,
                        env.history) == before
                obs, _, done, cut, info = env.step(action)
            opponent.armed = False
            if "hand_result" in info:
                results.append(info["hand_result"])
            if done or cut:
                return results, failures

    failing, failures = run(True)
    plain, _ = run(False)
    assert failures == [failing_step] and failing == plain


def test_sec8_a_game_won_at_the_last_allowed_hand_is_terminated_not_truncated():
    """RULES 8: a game ends when a team wins it at A; when that happens on the
    ``max_hands``-th hand the game is won, not cut short: terminated, not truncated."""
    env = GameEnv()
    results, _, _, terminated, truncated = _play_game(
        env, {s: GreedyPlayer() for s in range(4)}, 1)
    assert terminated and not truncated and results[-1].winner is not None
    env = GameEnv(max_hands=len(results))
    again, _, _, terminated, truncated = _play_game(
        env, {s: GreedyPlayer() for s in range(4)}, 1)
    assert again == results
    assert terminated and not truncated


def _card_choice(seed: int, wanted=lambda allowed: True):
    """A GameEnv with card_actions (the agent at every seat, max_hands 6) played with
    greedy moves and each card choice's first card, up to the first tribute or return
    choice whose allowed kinds are ``wanted``: (env, obs, info)."""
    env, greedy = GameEnv(card_actions=True, max_hands=6), GreedyPlayer()
    obs, info = env.reset(seed=seed)
    while "choice" not in info or not wanted([parse_card(c) for c in info["allowed_cards"]]):
        action = 0 if "choice" in info else env.action_of(greedy(info["observation"]))
        obs, _, done, cut, info = env.step(action)
        assert not (done or cut), "no such card choice in six hands"
    return env, obs, info


def test_sec8_a_card_choice_shows_nothing_played_and_the_hand_s_team_levels():
    """At a tribute or return choice the new hand has not begun: no card is played yet
    (``played`` all zeros), and ``team_levels`` (seats 0 and 2's team first) are the
    levels the hand is then played at, as its first move's observation shows them (found
    by mutants: ones there, or the two teams swapped, went unnoticed)."""
    env, obs, info = _card_choice(1)
    assert obs["phase"] in (1, 2) and not obs["played"].any()
    at_choice = tuple(int(x) for x in obs["team_levels"])
    while "choice" in info:
        obs, _, _, _, info = env.step(0)
    assert obs["phase"] == 0
    assert at_choice == tuple(int(x) for x in obs["team_levels"])
    assert at_choice[0] != at_choice[1]         # (a swap would show)


def test_a_card_choice_takes_a_card_not_a_bool_or_a_move_of_two_cards():
    """GameEnv.action_of at a card choice takes a card: its text, its kind or a Single of
    it. True is no card kind (though it equals 1, H2's kind), and a Pair of an allowed
    card is no Single: both are refused by name."""
    from guandan_core.moves import classify
    env, obs, info = _card_choice(1, lambda allowed: 1 in allowed and len(allowed) > 2)
    allowed = [parse_card(c) for c in info["allowed_cards"]]
    with pytest.raises(ValueError, match="True is not one of the cards seat"):
        env.action_of(True)
    level = int(obs["level"])
    pair = next(m for k in allowed for m in classify([k, k], level, env.rules)
                if len(m) == 2)
    with pytest.raises(ValueError, match="is not one of the cards seat"):
        env.action_of(pair)
    single = classify([allowed[2]], level, env.rules)[0]
    assert env.action_of(single) == 2
