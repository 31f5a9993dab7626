"""SamplingPlayer (solver.players): greedy while the hand is long, then the endgame solver
over random deals of the hidden hands."""

import json
import random

import numpy as np
import pytest

from cli_process import run_cli
from guandan_core.match import Match
from guandan_core.players import GreedyPlayer, make_player
from solver.players import SamplingPlayer
from solver.sampling import solve_sampled


def _log(players, seed, hands=1):
    events = []
    Match(players, seed=seed, on_event=events.append).play(hands)
    return events


def test_it_plays_whole_matches_and_the_same_seeds_give_the_same_game():
    """Three hands with tribute: every move it makes is legal (the match checks each), and
    the same seeds replay the same game move for move."""
    def players():
        return [SamplingPlayer(f"a{s}") if s % 2 == 0 else GreedyPlayer() for s in range(4)]

    first, again = players(), players()
    log = _log(first, 5, hands=3)
    assert log == _log(again, 5, hands=3)
    assert sum(p.searched for p in first[::2]) > 10     # the solver chose moves, not greedy only
    assert _log(players()[:1] + [SamplingPlayer("other")] + players()[2:], 5, hands=3) != log


def test_a_searched_move_is_the_best_over_the_sampled_deals():
    """When at most max_cards cards are in play, the move is solve_sampled's best over
    deals drawn from the player's own seeded generator; before, greedy's."""
    checked = {"searched": 0, "greedy": 0, "at the bound": 0}

    def watcher(obs):
        mine, twin = SamplingPlayer(7, deals=6), random.Random(7)
        move = mine(obs)
        in_play = sum(obs.cards_left)
        if in_play > 24 or len(obs.legal_moves) == 1:
            assert move == GreedyPlayer()(obs)
            checked["greedy"] += 1
            if len(obs.legal_moves) > 1 and in_play <= 30 and not checked["at the bound"]:
                # max_cards is the most cards in play that are searched: this many are
                at_bound, below = (SamplingPlayer(7, deals=6, max_cards=in_play - k)
                                   for k in (0, 1))
                expected = solve_sampled(obs, 6, seed=random.Random(7), threads=1,
                                         node_limit=2_000_000).best
                assert (at_bound(obs), at_bound.searched) == (expected, 1)
                assert (below(obs), below.searched) == (GreedyPlayer()(obs), 0)
                checked["at the bound"] += 1
        else:
            expected = solve_sampled(obs, 6, seed=twin, threads=1, node_limit=2_000_000).best
            assert move == expected and mine.searched == 1
            checked["searched"] += 1
        return move

    Match([watcher, GreedyPlayer(), GreedyPlayer(), GreedyPlayer()], seed=11).play_hand()
    assert checked["searched"] >= 3 and checked["greedy"] >= 3 and checked["at the bound"]


def test_it_beats_greedy_players_on_the_same_deals():
    """Measured in benchmarks/bench_sampling.py over 200 deals (about +0.67 points a hand);
    here 30 fixed deals, each played by four greedy players and by a sampling team in
    either seat pair: the sampling team does better in both pairs."""
    def outcome(seats, seed):
        players = [SamplingPlayer(f"{seed}/{s}") if s in seats else GreedyPlayer()
                   for s in range(4)]
        return Match(players, seed=seed).play_hand().outcome

    greedy = [outcome((), i) for i in range(30)]
    as_team0 = [outcome((0, 2), i) for i in range(30)]
    as_team1 = [outcome((1, 3), i) for i in range(30)]
    assert sum(as_team0) > sum(greedy) > sum(as_team1)


def test_it_asks_solve_sampled_with_its_settings_and_its_own_generator(monkeypatch):
    """API.md (SamplingPlayer): a searched move is `solve_sampled(observation, deals,
    seed=rng, node_limit=node_limit, threads=threads).best`, `rng` a `random.Random(seed)`
    the player keeps (one generator drawn on from move to move, not the seed again);
    greedy's move, with no search, while more than `max_cards` cards are in play or with
    one legal move; `move_time` bounds the search (a Stop given to it), and without one
    nothing does."""
    import solver.players
    from solver import Stop
    real, asked = solver.players.solve_sampled, []

    def spy(obs, deals, **kwargs):
        state = kwargs["seed"].getstate()
        result = real(obs, deals, **kwargs)
        asked.append((deals, kwargs, state, result.best is not None, kwargs["seed"].getstate()))
        return result
    monkeypatch.setattr(solver.players, "solve_sampled", spy)
    for move_time in (None, 100):
        asked.clear()
        player = SamplingPlayer(5, deals=3, max_cards=40, node_limit=1_999_999, threads=2,
                                move_time=move_time)
        searchable, forced = [], []

        def watched(obs):
            # searched: at most max_cards cards in play and more than one legal move
            short_hand = sum(obs.cards_left) <= 40
            searchable.append(short_hand and len(obs.legal_moves) > 1)
            forced.append(short_hand and len(obs.legal_moves) == 1)
            return player(obs)
        Match([watched, GreedyPlayer(), GreedyPlayer(), GreedyPlayer()], seed=11).play_hand()
        assert len(asked) == sum(searchable) >= 2
        # (the solver's move where a deal was counted, else greedy's)
        assert player.searched == sum(chosen for *_, chosen, _ in asked) >= 1
        assert any(forced)              # (a forced move asks no search)
        assert asked[0][2] == random.Random(5).getstate()      # its seed's generator
        # ... drawn on: each search starts where the one before left it (a player that
        # seeded it again before each search passed the rest of this test)
        for before, after in zip(asked, asked[1:]):
            assert after[2] == before[4] != before[2]
        for deals, kwargs, *_ in asked:
            assert deals == 3 and kwargs["seed"] is player.rng
            assert (kwargs["node_limit"], kwargs["threads"]) == (1_999_999, 2)
            if move_time is None:
                assert kwargs["stop"] is None
            else:
                assert isinstance(kwargs["stop"], Stop)


def test_settings_at_the_ends_of_their_ranges_are_taken():
    """API.md (SamplingPlayer): `deals` 1 to 1,000,000, `max_cards` 0 to 108, `node_limit`
    1 to 2**63 - 1, `threads` 1 to 9,999, `move_time` above 0 and at most 1e6: both ends
    are allowed."""
    for ends in ((1, 0, 1, 1, 1e-9), (1_000_000, 108, 2**63 - 1, 9999, 1e6)):
        deals, max_cards, node_limit, threads, move_time = ends
        player = SamplingPlayer(1, deals=deals, max_cards=max_cards, node_limit=node_limit,
                                threads=threads, move_time=move_time)
        assert (player.deals, player.max_cards, player.node_limit, player.threads,
                player.move_time) == ends


@pytest.mark.parametrize("kwargs, message", [
    (dict(deals=0), "deals must be a whole number from 1 to 1000000, not 0"),
    (dict(max_cards=-1), "max_cards must be a whole number from 0 to 108, not -1"),
    (dict(node_limit=1.5), "node_limit must be a whole number from 1 to 9223372036854775807, "
                           "not 1.5"),
    (dict(node_limit=0), "node_limit must be .* not 0"),
    (dict(node_limit=2**63), f"node_limit must be .* not {2**63}"),
    (dict(threads=True), "threads must be a whole number from 1 to 9999, not True"),
    (dict(threads=10_000), "threads must be .* not 10000"),
    # no time at all would stop every search before it starts: a greedy player in disguise
    (dict(move_time=0), "move_time must be seconds above 0 and at most 1e6, or None, not 0"),
    (dict(move_time=-1.5), "move_time must be seconds above 0 .* not -1.5"),
    (dict(move_time=True), "move_time must be seconds .* not True"),
])
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SamplingPlayer(1, **kwargs)


@pytest.mark.parametrize("name", ["random", "greedy", "sampling"])
@pytest.mark.parametrize("seed", [-1, 1.5, True, b"7"])
def test_a_players_seed_is_checked_as_a_matchs(name, seed):
    """random.Random takes -1 for 1 (a training loop seeding opponents with -i and +i would
    get twins), and 1.5 or bytes as they come; Match refuses them, and so does every
    player."""
    with pytest.raises(ValueError, match=f"seed must be an int 0 or more, text or None, "
                                         f"not {seed!r}"):
        make_player(name, seed)


def test_it_is_a_built_in_player():
    player = make_player("Sampling", 3)
    assert isinstance(player, SamplingPlayer) and player.seed == 3
    assert repr(player) == "SamplingPlayer(seed=3, deals=8, max_cards=24, node_limit=2000000)"
    # every setting that is not the default is shown (threads was left out)
    assert repr(SamplingPlayer(1, threads=2, move_time=0.5)) == (
        "SamplingPlayer(seed=1, deals=8, max_cards=24, node_limit=2000000, threads=2, "
        "move_time=0.5)")
    proc = run_cli(["play", "--players", "sampling,greedy,sampling,greedy", "--seed", "2",
                    "--json"])
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[-1]["event"] == "end"
    replay = run_cli(["replay", "-"], stdin=proc.stdout)
    assert replay.returncode == 0 and replay.stdout.startswith("valid"), replay.stdout


def test_with_no_deal_solved_it_plays_the_greedy_move():
    """A node limit of one node solves no deal (each needs more): no deal is counted, so
    every move it makes, once the hand is short enough to search, is the greedy player's,
    not an empty answer. Checked against a GreedyPlayer asked the same observations."""
    greedy = GreedyPlayer()
    asked = []

    class Watched(SamplingPlayer):
        def __call__(self, obs):
            move = super().__call__(obs)
            asked.append((move, greedy(obs)))
            return move

    players = [Watched(s, max_cards=108, node_limit=1) for s in range(4)]
    Match(players, seed=6).play_hand()
    assert len(asked) > 20
    assert all(move == expected for move, expected in asked)
    assert sum(p.searched for p in players) == 0


def test_a_numpy_int_seed_is_taken_as_the_same_int():
    """A seed as Match takes it: an int 0 or more (a numpy int too), text or None."""
    player = SamplingPlayer(seed=np.int64(3))
    assert player.seed == 3 and player.rng.random() == random.Random(3).random()
    with pytest.raises(ValueError, match="not -1"):
        SamplingPlayer(seed=-1)
