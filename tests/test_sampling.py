"""Deals of the hidden hands (solver.sampling) and moves valued over them.

Cross-checked against brute force: every way of sharing a small pool among the hidden seats
is enumerated and each must come up about equally often; the values counted over the deals
are recomputed move by move with the plain minimax of tests/reference_minimax.py.
"""

import itertools
import json
import math
import pickle
import re
import random
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from guandan_core import Hand
from guandan_core.cards import BIG_JOKER, format_card
from guandan_core.match import Match, card_order
from guandan_core.players import RandomPlayer
from guandan_core.position import OUTCOMES, Position, PositionError
from reference_minimax import minimax, random_position
from solver.sampling import (SampledResult, hidden_pool, position_from_view, read_position,
                             sample_deals, solve_sampled)
from solver.sampling import _Dealer, _view_of_observation, _view_of_position

FOUR_SEATS = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"],
                                      ["C6", "CQ"], ["S4", "SK", "D6"]],
              "finished": [], "to_move": 0, "table": None}


def _seen_by(pos: Position, seat: int) -> tuple:
    """Everything of a position the seat sees: its hand, every seat's card count, the
    table, who went out, whose turn, the level and the rules; and the hidden cards as one
    pool."""
    pool = sum(pos.counts(s).astype(int) for s in range(4) if s != seat)
    return (pos.counts(seat).tobytes(), pos.cards_left, pos.table, pos.owner, pos.finished,
            pos.to_move, pos.level, pos.rules, tuple(pool))


def _random_positions(rng: random.Random, count: int, max_cards: int):
    """``count`` random endgames still in play (tests/reference_minimax.py's)."""
    while count:
        pos = random_position(rng, max_cards=max_cards)
        if pos is not None and not pos.is_over:
            count -= 1
            yield pos


def test_a_deal_keeps_what_the_seat_sees():
    rng = random.Random(11)
    for checked, pos in enumerate(_random_positions(rng, 60, 6)):
        seat = rng.randrange(4)         # (a seat already out sees every other hand's count too)
        for deal in sample_deals(pos, 5, seed=checked, seat=seat):
            assert _seen_by(deal, seat) == _seen_by(pos, seat)
            # a whole position: it reads back from its JSON
            assert Position.from_json(deal.to_json(), pos.rules) == deal


def test_the_same_seed_gives_the_same_deals_whatever_the_hidden_hands_were():
    # the same pool shared another way among seats 1, 2 and 3
    other = dict(FOUR_SEATS, hands=[["S5", "H5", "SJ"], ["CQ", "SK", "D6"],
                                    ["S3", "HA"], ["S4", "C6", "D7"]])
    a = sample_deals(FOUR_SEATS, 30, seed=4)
    assert a == sample_deals(other, 30, seed=4) == sample_deals(FOUR_SEATS, 30, seed=4)
    assert a != sample_deals(FOUR_SEATS, 30, seed=5)
    assert len(set(a)) > 10
    # a random.Random is drawn from: two calls on one go on where the first stopped
    rng = random.Random(4)
    drawn = sample_deals(FOUR_SEATS, 10, seed=rng) + sample_deals(FOUR_SEATS, 20, seed=rng)
    assert drawn == sample_deals(FOUR_SEATS, 30, seed=random.Random(4)) != a
    assert sample_deals(FOUR_SEATS, 0, seed=1) == []
    # deals pickle (for worker processes) and compare equal to their copies
    assert pickle.loads(pickle.dumps(a)) == a


def _deal_odds(pos: Position, seat: int, known: dict, barred=None) -> dict:
    """Brute force: the chance of each deal (the hidden seats' hands) when the hidden cards,
    the two copies of a card told apart, are shared out in every order equally likely, and
    each known card is one particular copy (the first), which its seat holds; ``barred``
    (seat -> cards) the cards a seat holds in no deal but as known ones."""
    hidden = [s for s in range(4) if s != seat and pos.cards_left[s] > 0]
    pool = [k for s in hidden for k in Hand.from_counts(pos.counts(s)).kinds()]
    copies = [(k, pool[:i].count(k)) for i, k in enumerate(pool)]     # (kind, copy)
    pinned = {(k, 0): s for s, cards in known.items() for k in Hand(cards).kinds()}
    odds = Counter()
    for perm in itertools.permutations(copies):
        hands, start = {}, 0
        for s in hidden:
            hands[s] = perm[start:start + pos.cards_left[s]]
            start += pos.cards_left[s]
        if barred and any(k in Hand(cards).kinds() and pinned.get((k, c)) != s
                          for s, cards in barred.items() for k, c in hands[s]):
            continue
        if all(card in hands[s] for card, s in pinned.items()):
            odds[tuple(tuple(sorted(k for k, _ in hands[s])) for s in hidden)] += 1
    total = sum(odds.values())
    return {deal: n / total for deal, n in odds.items()}


@pytest.mark.parametrize("known", [{}, {3: ["SK"]}, {1: "SK", 2: "S3"}, {2: "C6 D7"}])
def test_every_deal_is_as_likely_as_dealing_the_cards_at_random(known):
    # seven hidden cards, three of them twice: a deal where one seat holds both copies of
    # a card has one way of happening for the two ways of the copies apart
    pos = Position.from_json(dict(FOUR_SEATS, hands=[["S5", "H5"], ["S3", "SK", "D7"],
                                                      ["C6", "SK"], ["S3", "D7"]]))
    hidden = [1, 2, 3]
    odds = _deal_odds(pos, 0, known)
    n = 20_000
    seen = Counter(tuple(tuple(Hand.from_counts(d.counts(s)).kinds()) for s in hidden)
                   for d in sample_deals(pos, n, seed=3, known=known))
    assert set(seen) <= set(odds)
    # each deal's count is binomial(n, p): within 5 standard deviations
    for deal, p in odds.items():
        assert abs(seen[deal] - n * p) < 5 * math.sqrt(n * p * (1 - p)) + 1, (deal, seen[deal], n * p)


def test_known_cards_are_dealt_to_their_seat():
    for deal in sample_deals(FOUR_SEATS, 40, seed=1, known={3: "SK D7", 2: ["HA"]}):
        assert Counter(deal.hand(3).cards()) >= Counter(["SK", "D7"])
        assert "HA" in deal.hand(2).cards()


def test_a_seat_known_to_hold_nothing_is_a_seat_nothing_is_known_of():
    """Known cards of none are no knowledge: the same deals, and the same result with
    the same view (so results with and without them merge, and the engine's ``sample``,
    whose ``known=`` cannot name an empty seat, answers as ``solve_sampled`` does)."""
    plain = solve_sampled(FOUR_SEATS, 4, seed=3, threads=1)
    for known in ({}, {1: []}, {1: "", 3: []}):
        assert [d.to_json() for d in sample_deals(FOUR_SEATS, 30, seed=3, known=known)] == \
            [d.to_json() for d in sample_deals(FOUR_SEATS, 30, seed=3)]
        assert solve_sampled(FOUR_SEATS, 4, seed=3, known=known, threads=1) == plain
    assert solve_sampled(FOUR_SEATS, 4, seed=3, known={1: "S3"}, threads=1).view != plain.view


@pytest.mark.parametrize("known, message", [
    ({0: "S5"}, "0 is not a seat whose hand is hidden"),
    ({4: "S3"}, "4 is not a seat \\(seats are the whole numbers 0 to 3\\)$"),
    # (not "... hidden ... [1, 2, 3]", nor "'1' is not a whole number", which read as a slip)
    ({"1": "S3"}, "'1' is not a seat \\(seats are the whole numbers 0 to 3, not text\\)$"),
    ({1: "S9"}, "S9 is not among the cards hidden"),
    ({1: "S3 S3"}, "S3 is not among the cards hidden"),
    ({1: "S3 HA D7 SK"}, "seat 1 holds 3 cards, not the 4 given"),
    ({1: "S3 XX"}, "known cards of seat 1: unknown card 'XX'"),    # (the seat named too)
    ({1: [3.5]}, "known cards of seat 1: not a card: 3.5"),
    ([(1, "S3")], "known must map seats"),
])
def test_bad_known_cards_are_named(known, message):
    with pytest.raises((ValueError, TypeError), match=message):
        sample_deals(FOUR_SEATS, 3, seed=1, known=known)


def test_a_finished_seat_stays_empty_and_is_never_dealt_to():
    pos = dict(FOUR_SEATS, hands=[["S5", "H5", "SJ"], [], ["C6", "CQ"], ["S4", "SK", "D6"]],
               finished=[1])
    for deal in sample_deals(pos, 20, seed=2):
        assert deal.cards_left == (3, 0, 2, 3) and deal.finished == (1,)
    with pytest.raises(ValueError, match="1 is not a seat whose hand is hidden"):
        sample_deals(pos, 1, known={1: "S4"})


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(n=-1), ValueError, "n must be a whole number of deals >= 0, not -1"),
    (dict(n=2.5), ValueError, "not 2.5"),
    (dict(n=True), ValueError, "not True"),
    (dict(n=1, seed=-3), ValueError, "seed must be .* not -3"),
    # (what read_sampled and the command line take back)
    (dict(n=1, seed=2**63), ValueError, "seed must be a whole number from 0 to 2\\*\\*63 - 1"),
    (dict(n=1, seed="7"), ValueError, "not '7'"),
    (dict(n=1, seat=5), ValueError, "seat must be a seat 0..3, not 5"),
])
def test_bad_arguments_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        sample_deals(FOUR_SEATS, **kwargs)


def test_a_bad_or_finished_position_is_refused():
    with pytest.raises(PositionError, match="missing key"):
        sample_deals({"level": "2"}, 1)
    with pytest.raises(ValueError, match="already over"):
        sample_deals(dict(FOUR_SEATS, hands=[[], ["S3"], [], ["S4"]], finished=[0, 2],
                          to_move=None), 1)
    with pytest.raises(TypeError):
        sample_deals(42, 1)


def test_a_match_observation_is_dealt_from_the_unseen_cards():
    """Mid-hand in a real match (tribute, wild cards, plays made): the deals drawn from an
    Observation keep its seat's hand and the table, and share out exactly the cards the
    other seats really hold between them."""
    checked = []

    def watcher(obs):
        true = match.position
        if len(obs.history) in (0, 7, 30) or (obs.table is not None and len(checked) < 6):
            pool = hidden_pool(obs)
            assert np.array_equal(pool, hidden_pool(true, obs.seat))
            for deal in sample_deals(obs, 3, seed=len(checked)):
                assert _seen_by(deal, obs.seat) == _seen_by(true, obs.seat)
            checked.append(len(obs.history))
        return rnd(obs)

    rnd = RandomPlayer(9)
    match = Match([watcher] * 4, seed=12)
    match.play(3)           # the later hands have tribute
    assert len(checked) > 12


def test_an_observation_refuses_other_rules_or_seats():
    seen = []
    match = Match([lambda obs: seen.append(obs) or obs.legal_moves[-1]] * 4, seed=1)
    match.play_hand()
    obs = seen[5]
    with pytest.raises(ValueError, match="rules given with an Observation"):
        sample_deals(obs, 1, rules="platform")
    with pytest.raises(ValueError, match=f"seat {(obs.seat + 1) % 4} given with an "
                                         f"Observation of seat {obs.seat}"):
        sample_deals(obs, 1, seat=(obs.seat + 1) % 4)


def _reference_tallies(deals) -> dict:
    """Per legal move of the mover: how many deals gave it each value (team of the mover),
    by plain minimax over every move of every deal."""
    tallies = {}
    memo = {}       # (keyed by the whole state: shared by the deals safely)
    for deal in deals:
        sign = 1 if deal.to_move % 2 == 0 else -1
        for move in deal.legal_moves():
            child = deal.play(move)
            v = sign * minimax(child, [400_000], memo)
            tallies.setdefault(move, Counter())[v] += 1
    return tallies


def test_move_values_over_deals_agree_with_plain_minimax():
    rng = random.Random(21)
    for pos in _random_positions(rng, 25, 4):
        seed = rng.randrange(1000)
        result = solve_sampled(pos, 6, seed=seed, threads=rng.choice([1, 2]))
        reference = _reference_tallies(sample_deals(pos, 6, seed=seed))
        assert result.samples == result.solved == 6
        got = {}
        for m in result.moves:
            for move in (m.move, *m.equivalent):
                got[move] = Counter({v: k for v, k in m.values.items() if k})
            assert set(m.values) == set(OUTCOMES) and sum(m.values.values()) == 6
        assert got == reference
        # best first: the highest mean, then the most deals where the move is best
        keys = [(-m.mean, -m.best) for m in result.moves]
        assert keys == sorted(keys)


def test_best_counts_the_deals_where_a_move_keeps_the_value():
    deals = sample_deals(FOUR_SEATS, 20, seed=7)
    memo = {}
    reference = [{move: minimax(d.play(move), [10**6], memo) for move in d.legal_moves()}
                 for d in deals]        # (seat 0 moves: team-0 values are the mover's)
    result = solve_sampled(FOUR_SEATS, 20, seed=7, threads=2)
    for m in result.moves:
        assert m.best == sum(1 for r in reference if r[m.move] == max(r.values()))
        assert m.values == {v: sum(1 for r in reference if r[m.move] == v) for v in OUTCOMES}
    assert str(result.best) == "Pair 5: S5 H5"
    assert [str(m.move) for m in result.moves] == ["Pair 5: S5 H5", "Single 5: S5",
                                                   "Single J: SJ"]


def test_the_answer_is_the_same_whatever_the_threads():
    one = solve_sampled(FOUR_SEATS, 12, seed=5, threads=1)
    two = solve_sampled(FOUR_SEATS, 12, seed=5, threads=2)
    assert one.moves == two.moves and one.solved == two.solved == 12
    assert isinstance(one, SampledResult)
    out = one.to_json()
    assert out["best"] == ["Pair", "5", ["S5", "H5"]] and out["samples"] == 12
    assert [m["move"] for m in out["moves"]] == [m.move.to_platform() for m in one.moves]
    assert out["moves"][0]["values"] == {f"{v:+d}": k for v, k in one.moves[0].values.items()}


def test_deals_a_limit_stops_are_left_out():
    """A deal whose solve a limit stops counts in samples, not in solved, and adds
    nothing to any move's values: a limit that stops some deals (5 of 12 solved) and one
    that stops every deal (no moves, no best)."""
    some = solve_sampled(FOUR_SEATS, 12, seed=3, node_limit=150, threads=1)
    assert some.samples == 12 and 0 < some.solved < 12 and some.moves
    assert all(sum(m.values.values()) == some.solved for m in some.moves)
    every = [solve_sampled(FOUR_SEATS, 1, seed=3, first=i, threads=1) for i in range(12)]
    assert sum(r.solved for r in every) == 12
    result = solve_sampled(FOUR_SEATS, 6, seed=5, node_limit=3, threads=1)
    assert result.samples == 6 and result.solved == 0
    assert result.moves == [] and result.best is None


def test_each_deal_solved_is_reported_in_the_calling_thread(monkeypatch):
    """on_deal(number, result): once for every deal searched, in the calling thread,
    with the deal's number in the seed's stream and the result of that deal's solve (every
    move scored, from empty tables), a deal a limit left out of the counts too; on one
    thread and two, across chunks."""
    import threading
    import solver.sampling as sampling
    from solver import solve
    monkeypatch.setattr(sampling, "_CHUNK", 4)
    deals = sample_deals(FOUR_SEATS, 10, seed=8, first=3)
    for threads, node_limit in ((1, None), (2, None), (2, 150)):
        caller = threading.get_ident()
        given = {}

        def on_deal(number, result):
            assert threading.get_ident() == caller and number not in given
            given[number] = result

        whole = solve_sampled(FOUR_SEATS, 10, seed=8, first=3, threads=threads,
                              node_limit=node_limit, on_deal=on_deal)
        assert sorted(given) == list(range(3, 13))
        for number, deal in zip(range(3, 13), deals):
            alone = solve(deal, all_moves=True, pv=False, fresh_tables=True,
                          node_limit=node_limit)
            assert given[number] == alone
        counted = [r for r in given.values()
                   if r.exact and all(m.value is not None for m in r.moves)]
        assert len(counted) == whole.solved and (node_limit is None) == (whole.solved == 10)
    with pytest.raises(TypeError, match="on_deal must be a function or None, not 3"):
        solve_sampled(FOUR_SEATS, 1, on_deal=3)


def test_each_deals_search_events_are_reported_with_its_number(monkeypatch):
    """on_info(number, fields): every event of each deal's solve (as solve's on_info gives
    them for that deal alone, the time aside), in the calling thread, with the deal's
    number; info_interval adds "working" events; on one thread and two, across chunks."""
    import threading
    import solver.sampling as sampling
    from guandan_core.cli_solve import EXAMPLE_POSITION as EXAMPLE
    from solver import solve
    monkeypatch.setattr(sampling, "_CHUNK", 4)
    deals = sample_deals(EXAMPLE, 6, seed=3, first=2)
    expected = {}
    for number, deal in zip(range(2, 8), deals):
        events = []
        solve(deal, all_moves=True, pv=False, fresh_tables=True, on_info=events.append)
        expected[number] = [{k: v for k, v in e.items() if k != "seconds"} for e in events]
    for threads in (1, 2):
        caller = threading.get_ident()
        seen = {number: [] for number in expected}
        working = set()

        def on_info(number, fields):
            assert threading.get_ident() == caller
            if fields["stage"] == "working":
                working.add(number)
                return
            seen[number].append({k: v for k, v in fields.items() if k != "seconds"})

        solve_sampled(EXAMPLE, 6, seed=3, first=2, threads=threads, on_info=on_info,
                      info_interval=1e-6)
        assert seen == expected
        assert working and working <= set(expected)
    with pytest.raises(TypeError, match="on_info must be a function or None, not 3"):
        solve_sampled(FOUR_SEATS, 1, on_info=3)
    with pytest.raises(ValueError, match="info_interval needs an on_info"):
        solve_sampled(FOUR_SEATS, 1, info_interval=1)


def test_deals_solved_a_chunk_at_a_time_give_the_same_answer(monkeypatch):
    import solver.sampling as sampling
    whole = solve_sampled(FOUR_SEATS, 10, seed=8, threads=2)
    monkeypatch.setattr(sampling, "_CHUNK", 3)
    chunked = solve_sampled(FOUR_SEATS, 10, seed=8, threads=2)
    assert chunked.moves == whole.moves and chunked.solved == whole.solved == 10


def test_a_stop_already_set_solves_nothing_and_options_are_checked_without_deals():
    from solver import Stop
    stop = Stop()
    stop.set()
    result = solve_sampled(FOUR_SEATS, 5, seed=1, stop=stop)
    assert (result.samples, result.solved, result.moves, result.best) == (0, 0, [], None)
    with pytest.raises(ValueError, match="time_limit"):
        solve_sampled(FOUR_SEATS, 0, time_limit=-1)
    with pytest.raises(TypeError, match="stop must be a solver.Stop"):
        solve_sampled(FOUR_SEATS, 0, stop=True)
    # (n=0 too: no deal, but solve_many still checks its options)
    with pytest.raises(ValueError, match="table_bits must be 4..30, not 99"):
        solve_sampled(FOUR_SEATS, 0, table_bits=99)
    with pytest.raises(ValueError, match="threads must be a whole number of at least 1"):
        solve_sampled(FOUR_SEATS, 0, threads=0)
    assert solve_sampled(FOUR_SEATS, 0).to_json()["moves"] == []


def test_a_tribute_return_observation_is_refused_by_name():
    """The observation a match gives a seat choosing the card to return after a tribute has
    no legal moves and a 28-card hand: no deal of it is a position (found by a review)."""
    seen = []

    class Returner(RandomPlayer):
        def choose_return(self, obs, allowed):
            seen.append(obs)
            return super().choose_return(obs, allowed)

    Match([Returner(s) for s in range(4)], seed=3).play(3)
    assert seen
    for obs in seen:
        with pytest.raises(ValueError, match="an Observation of a seat to move is needed"):
            sample_deals(obs, 1)
        with pytest.raises(ValueError, match="an Observation of a seat to move is needed"):
            hidden_pool(obs)


def test_other_objects_are_named_as_not_positions():
    for bad in ([1, 2], None, 3.5):
        with pytest.raises(TypeError, match="a position is a Position, its JSON, a seat's "
                                            f"view or a match's Observation, not {re.escape(repr(bad))}"):
            sample_deals(bad, 1)


def test_a_limited_answer_does_not_depend_on_earlier_solves_or_threads():
    """Each deal from empty tables: the same call gives the same counts and nodes, with a
    node limit too, whatever was solved before and on however many threads (found by a
    review: with the tables kept, the same call counted 3 deals, then 6)."""
    answers = [solve_sampled(FOUR_SEATS, 12, seed=3, node_limit=150, threads=t)
               for t in (1, 1, 2, 2)]
    assert all(a == answers[0] for a in answers)
    assert 0 < answers[0].solved < 12
    full = [solve_sampled(FOUR_SEATS, 6, seed=2, threads=t) for t in (2, 1)]
    assert full[0] == full[1]


def test_nodes_are_the_deals_searches_from_empty_tables():
    """``nodes`` adds up each deal's search, every move scored, from empty tables: the
    same count a solve of each deal on its own gives, after other solves or not."""
    from solver import solve
    deals = sample_deals(FOUR_SEATS, 20, seed=7)
    expected = sum(solve(d, all_moves=True, pv=False, fresh_tables=True).nodes
                   for d in deals)
    solve(deals[3], all_moves=True)         # (tables that know part of the deals now)
    for threads in (1, 2):
        result = solve_sampled(FOUR_SEATS, 20, seed=7, threads=threads)
        assert result.nodes == expected > 20 * len(deals[0].legal_moves())


def test_a_stop_during_the_call_counts_the_deals_searched():
    """Stopped while its first 27-card deal is searched (on one thread): that deal is
    searched but not solved, the others are never started, and `samples` says 1, not the
    deals asked for (found by a review: it said 1,000,000 after a stop)."""
    import threading
    from guandan_core.match import deal
    from solver import Stop
    whole = Position(7, deal(random.Random(3)), to_move=0)
    stop = Stop()
    threading.Timer(0.5, stop.set).start()
    result = solve_sampled(whole, 3, seed=1, threads=1, stop=stop)
    assert (result.samples, result.solved, result.best) == (1, 0, None)


def _tribute_observations(seed: int = 3, hands: int = 4) -> list:
    """(observation, the true hands then, the match's events so far) at every move of a
    few hands of a match with tribute and returns."""
    seen, events = [], []

    def watcher(obs):
        true = [match.position.counts(s).copy() for s in range(4)]
        seen.append((obs, true, len(events)))
        return rnd(obs)

    rnd = RandomPlayer(seed)
    match = Match([watcher] * 4, seed=seed, on_event=events.append)
    match.play(hands)
    return [(obs, true, events[:n]) for obs, true, n in seen]


def _surely(obs) -> dict:
    """Per hidden seat, the cards it surely still holds: received in tribute or return,
    less given since (never below none), less played of that kind since."""
    out = {}
    for giver, receiver, kind in obs.exchanges:         # (in the order they were given)
        out.setdefault(receiver, Counter())[kind] += 1
        held = out.setdefault(giver, Counter())
        held[kind] = max(held[kind] - 1, 0)
    for seat, move in obs.history:
        if seat in out and not move.is_pass:
            out[seat].subtract(Counter(move.kinds))
    return {s: +c for s, c in out.items() if s != obs.seat and obs.cards_left[s] and +c}


def test_an_observation_holds_the_public_tribute_and_returns():
    """Observation.exchanges is what the log's tribute and return events of that hand say,
    and the cards it pins are in the true hands (so the deals never contradict them)."""
    from guandan_core.cards import parse_card
    pinned_somewhere = 0
    for obs, true, events in _tribute_observations():
        last_deal = max(i for i, e in enumerate(events) if e["event"] == "deal")
        logged = tuple((e["from"], e["to"], parse_card(e["card"])) for e in events[last_deal:]
                       if e["event"] in ("tribute", "return"))
        assert obs.exchanges == logged
        for seat, cards in _surely(obs).items():
            assert all(true[seat][k] >= n for k, n in cards.items())
            pinned_somewhere += 1
    assert pinned_somewhere > 50


def test_deals_of_an_observation_give_tribute_cards_to_their_holders():
    checked = 0
    for i, (obs, true, _) in enumerate(_tribute_observations()):
        surely = _surely(obs)
        if not surely or i % 7:
            continue
        for deal in sample_deals(obs, 10, seed=i):
            assert _seen_by(deal, obs.seat) == _seen_by(
                Position(obs.level, true, obs.finished, obs.seat, obs.table, obs.table_owner,
                         obs.rules), obs.seat)
            for seat, cards in surely.items():
                assert all(deal.counts(seat)[k] >= n for k, n in cards.items())
        checked += 1
    assert checked > 5


def _opening_observation():
    """The first observation of the match of _tribute_observations (nothing played yet,
    no exchanges): the base of observations built by hand."""
    return next(o for o, _, _ in _tribute_observations() if not o.history)


def _tribute_returned():
    """The opening observation with a tribute of a hidden card of rank 10 or lower (one
    copy hidden, not a level card) from the next seat to its partner, returned as the
    very card: (that observation, payer, receiver, the hidden pool, the card's kind)."""
    from guandan_core.cards import RANKS, card_rank
    obs = _opening_observation()
    payer, receiver = (obs.seat + 1) % 4, (obs.seat + 2) % 4
    pool = hidden_pool(obs)
    kind = next(k for k in np.flatnonzero(pool == 1)
                if card_rank(k) <= RANKS.index("T") and card_rank(k) != obs.level)
    returned = replace(obs, exchanges=((payer, receiver, kind), (receiver, payer, kind)))
    return returned, payer, receiver, pool, kind


def test_a_card_given_and_received_back_is_surely_held_by_its_giver_alone():
    """RULES sec. 8: the receiver of a tribute returns a card of rank 10 or lower (or its
    lowest), so a tribute of a 10 or lower may come back as the return, the very card.
    The payer then surely holds it (it came back after it was given) and the receiver
    holds nothing from the exchanges (it gave the card away after it received it). With
    one copy of the kind hidden, every deal gives that copy to the payer (found by a
    mutant and a review: the exchanges were summed, the payer's -1 and +1 made 0, and
    the deals gave the card to any seat). Such a tribute in an opening hand is one no deal
    fits (the payer's highest card a 10 or lower, of 27), which sample_deals says; the
    pinning is checked on the dealer with nothing ruled out."""
    returned, payer, receiver, pool, kind = _tribute_returned()
    assert _surely(returned) == {payer: Counter({kind: 1})}
    with pytest.raises(ValueError, match=re.escape(
            f"no deal of the hidden cards fits what the tribute showed (seat {payer}: it "
            f"paid {format_card(kind)} as tribute, its highest card but wild cards)")):
        sample_deals(returned, 30, seed=2)
    view = replace(_view_of_observation(returned), barred=())
    deals = _Dealer(view, 2, None).deal(30)
    assert all(d.counts(payer)[kind] == 1 and d.counts(receiver)[kind] == 0 for d in deals)


def test_exchanges_that_pin_more_than_is_hidden_are_refused_by_name():
    """An Observation built by hand whose exchanges give a seat a card more times than it
    is hidden, or more cards than the seat holds, is refused with the cards named (not a
    numpy error from inside the dealing)."""
    obs = _opening_observation()
    once = int(np.flatnonzero(hidden_pool(obs) == 1)[0])
    one, two = (obs.seat + 1) % 4, (obs.seat + 2) % 4
    twice = replace(obs, exchanges=((obs.seat, one, once), (obs.seat, two, once)))
    with pytest.raises(ValueError, match=f"observation: by the tribute and returns, seats "
                       f"surely hold {format_card(once)} more times than it is hidden"):
        sample_deals(twice, 3, seed=1)
    many = tuple((obs.seat, one, k) for k in range(obs.cards_left[one] + 1))
    with pytest.raises(ValueError, match=f"observation: seat {one} holds "
                       f"{obs.cards_left[one]} cards, fewer than the {len(many)} it surely"):
        sample_deals(replace(obs, exchanges=many), 3, seed=1)


def test_an_observation_with_a_bad_exchange_seat_or_count_is_refused_by_name():
    """API.md (Hidden hands, sample_deals: an Observation's ``exchanges`` are
    ``(giver, receiver, card kind)``): in an Observation built by hand each exchange is
    two different seats 0..3 and a card kind 0..53, else a ValueError naming the entry,
    and its seat is 0..3. A review found kind -1 read as HR (numpy's index from the end),
    99, "HR" and 5.5 a bare IndexError, a giver of 9 or "x" ignored, and seat 7 refused
    as "the other seats hold 108 cards". A good exchange, numpy's ints too, is taken."""
    from guandan_core.env import HandEnv
    obs = HandEnv().reset(seed=1)[1]["observation"]
    a, b = (obs.seat + 1) % 4, (obs.seat + 2) % 4
    for entry in ((a, b, -1), (a, b, 99), (a, b, "HR"), (a, b, 5.5), (9, b, 5), ("x", b, 5),
                  (a, a, 5), (a, b, True), (a, b), (a, b, 5, 5), 5, "abc"):
        bad = replace(obs, exchanges=((b, a, 5), entry))
        with pytest.raises(ValueError, match=re.escape(
                f"observation: exchanges[1] must be (giver, receiver, card kind), two "
                f"different seats 0..3 and a kind 0..53, not {entry!r}")):
            sample_deals(bad, 3, seed=0)
    with pytest.raises(TypeError, match=re.escape("observation: exchanges must be a tuple "
                                                  "of (giver, receiver, card kind), not 5")):
        sample_deals(replace(obs, exchanges=5), 3, seed=0)
    for seat in (7, -1, "2", 2.0):
        with pytest.raises(ValueError, match=re.escape(
                f"observation: seat must be a seat 0..3, not {seat!r}")):
            sample_deals(replace(obs, seat=seat), 3, seed=0)
    # its cards_left and legal_moves too ("'NoneType' object is not iterable", "'>' not
    # supported between instances of 'str' and 'int'", a fifth seat's count taken)
    for left in (None, 5, "abcd", (3, 3, 3), (3, 3, 3, 3, 3), (3, 3, -1, 3), (3, 29, 3, 3)):
        with pytest.raises(ValueError, match=re.escape(
                f"observation: cards_left must be the 4 seats' numbers of cards (0..28 "
                f"each), not {left!r}")):
            sample_deals(replace(obs, cards_left=left), 3, seed=0)
    with pytest.raises(TypeError, match=re.escape("observation: legal_moves must be the "
                                                  "seat's legal moves, not None")):
        sample_deals(replace(obs, legal_moves=None), 3, seed=0)
    # and its rules ("'NoneType' object has no attribute 'flags'", from solve_sampled)
    for rules in (None, "standard"):
        with pytest.raises(TypeError, match=re.escape(
                f"observation: rules must be a Rules, not {rules!r}")):
            solve_sampled(replace(obs, rules=rules), 3, seed=0, node_limit=1)
    kind = int(np.flatnonzero(hidden_pool(obs))[0])
    given = replace(obs, exchanges=((np.int64(a), np.int8(b), np.uint8(kind)),))
    assert all(deal.counts(b)[kind] >= 1 for deal in sample_deals(given, 3, seed=0))


def test_a_tribute_card_is_pinned_once_and_its_other_copy_dealt_at_random():
    """A seat that received a card holds that one copy surely, not the other: where the
    other copy is hidden too, it is dealt at random, to another seat in some deals and
    to this one in others; unless the tribute rules it out of every other hidden seat
    (RULES 8: the other big joker when both payers of a double tribute cannot hold one),
    and then this seat holds it in every deal."""
    checked = forced = 0
    for i, (obs, true, _) in enumerate(_tribute_observations()):
        pool, surely = hidden_pool(obs), _surely(obs)
        barred = {s: kinds for s, kinds, _ in _view_of_observation(obs).barred}
        for seat, cards in surely.items():
            for kind, n in cards.items():
                if pool[kind] <= sum(c[kind] for c in surely.values()) or checked > 12:
                    continue        # (no copy of the kind left free)
                held = [d.counts(seat)[kind] for d in sample_deals(obs, 40, seed=i)]
                elsewhere = [s for s in range(4) if s not in (seat, obs.seat)
                             and obs.cards_left[s] and kind not in barred.get(s, ())]
                if elsewhere:
                    assert min(held) == n and max(held) > n     # (the free copy goes anywhere)
                else:
                    assert min(held) == max(held) == pool[kind]
                    forced += 1
                checked += 1
    assert checked > 5 and checked > forced


def test_known_cards_of_a_tribute_receiver_add_to_its_tribute_card():
    """``known`` cards of a seat that surely holds a tribute card: the deals give it both
    (the known cards do not take the tribute card's place)."""
    checked = 0
    for i, (obs, true, _) in enumerate(_tribute_observations()):
        pool, surely = hidden_pool(obs), _surely(obs)
        for seat, cards in surely.items():
            others = [k for k in np.flatnonzero(pool) if k not in cards and true[seat][k]]
            if not others or sum(cards.values()) >= obs.cards_left[seat] or checked > 12:
                continue
            known = {seat: [format_card(others[0])]}
            for deal in sample_deals(obs, 10, seed=i, known=known):
                assert deal.counts(seat)[others[0]] >= 1
                assert all(deal.counts(seat)[k] >= n for k, n in cards.items())
            checked += 1
    assert checked > 5


def test_known_cards_and_tribute_cards_are_not_counted_twice():
    """A seat's known cards that include a tribute card it surely holds: that card once
    (the larger count of a kind, not the sum), so a seat can be given its whole hand."""
    for obs, true, _ in _tribute_observations():
        surely = _surely(obs)
        if not surely:
            continue
        seat, cards = next(iter(surely.items()))
        whole = Hand.from_counts(true[seat]).cards()       # includes the tribute cards
        for deal in sample_deals(obs, 3, seed=1, known={seat: whole}):
            assert np.array_equal(deal.counts(seat), true[seat])
        return
    pytest.fail("no observation with a tribute card in a hidden hand")


VIEW = {"level": "2", "seat": 0, "hand": ["S5", "H5", "SJ"],
        "unseen": ["S3", "HA", "D7", "C6", "CQ", "S4", "SK", "D6"],
        "cards_left": [3, 3, 2, 3], "finished": [], "table": None}


def test_a_seat_s_view_is_the_position_it_cannot_tell_apart():
    """A view (the seat's hand, the hidden cards or the cards played, the counts) gives
    the deals, hence the answer, of any position with those hands and counts."""
    pos = position_from_view(VIEW)
    assert _seen_by(pos, 0) == _seen_by(Position.from_json(FOUR_SEATS), 0)
    assert sample_deals(VIEW, 20, seed=4) == sample_deals(FOUR_SEATS, 20, seed=4)
    assert solve_sampled(json.dumps(VIEW), 5, seed=2) == solve_sampled(FOUR_SEATS, 5, seed=2)
    assert read_position(VIEW) == pos and read_position(FOUR_SEATS) == Position.from_json(FOUR_SEATS)
    # the cards played instead: the two decks but the hand and the played cards are hidden
    played = [c for c in Hand(list(range(54)) * 2).cards()]
    for c in VIEW["hand"] + VIEW["unseen"]:
        played.remove(c)
    by_played = position_from_view({**{k: v for k, v in VIEW.items() if k != "unseen"},
                                    "played": played})
    assert _seen_by(by_played, 0) == _seen_by(pos, 0)


def test_a_view_with_a_table_play():
    view = {"level": "7", "seat": 3, "hand": ["S3", "S4"], "unseen": ["HR", "D9", "D9"],
            "cards_left": [2, 1, 0, 2], "finished": [2],
            "table": {"owner": 1, "play": ["Single", "A", ["SA"]]}}
    pos = position_from_view(view)
    assert (pos.to_move, pos.owner, str(pos.table), pos.finished) == (3, 1, "Single A: SA", (2,))
    assert pos.hand(3).cards() == ["S3", "S4"] and pos.cards_left == (2, 1, 0, 2)


@pytest.mark.parametrize("change, message", [
    (dict(seat=4), "seat: expected the seat to move, 0..3, not 4"),
    (dict(cards_left=[3, 3, 2]), "cards_left: expected the 4 seats' numbers of cards"),
    # (RULES sec. 1: 27 cards to each player, so no seat holds 28)
    (dict(cards_left=[3, 28, 2, 3]), "cards_left: expected the 4 seats' numbers of cards "
                                     "(0..27 each), not [3, 28, 2, 3]"),
    (dict(cards_left=[4, 3, 2, 2]), "cards_left: seat 0 holds 3 cards (hand), not 4"),
    (dict(cards_left=[3, 3, 3, 3]), "the other seats hold 9 cards (cards_left [3, 3, 3, 3]) but "
                                    "8 are hidden"),
    (dict(hand=["S5", "S5", "S5"]), "hand holds S5 more than twice"),
    # (an unknown card names the key it is in: it was named alone)
    (dict(hand=["S5", "XX", "SJ"]), "hand: unknown card 'XX'"),
    (dict(unseen=["S3", "HA", "Q4", "C6", "CQ", "S4", "SK", "D7"]), "unseen: unknown card 'Q4'"),
    (dict(hand="S5 H5 SJ"), "hand: expected a list of cards"),
    (dict(unseen=["S5", "S5", "HA", "D7", "C6", "CQ", "S4", "SK"]),
     "the hand and the unseen cards hold together more than two copies of S5"),
    (dict(played=[]), "one of played (the cards played this hand), played_by (the cards each "
                      "seat played) or unseen (the hidden cards), not played and unseen"),
    (dict(colour="red"), "unknown key(s): 'colour'"),
    (dict(level="Z"), "Z"),
    (dict(finished=[5]), "finished"),
])
def test_a_bad_view_is_named(change, message):
    with pytest.raises(PositionError, match=re.escape(message)):
        position_from_view({**VIEW, **change})


def test_a_view_missing_keys_or_played_cards_is_named():
    with pytest.raises(PositionError, match="missing key\\(s\\): cards_left"):
        position_from_view({k: v for k, v in VIEW.items() if k != "cards_left"})
    with pytest.raises(PositionError, match="or unseen \\(the hidden cards\\), not none$"):
        position_from_view({k: v for k, v in VIEW.items() if k != "unseen"})
    # seat 1 has played 26 cards of its 27, the last of them the table play, left out of
    # played: one card too many is hidden
    plays = [f"{s}{r}" for s in "CD" for r in "23456789TJQKA"]      # 26 cards
    view = {"level": "2", "seat": 0, "hand": Hand(list(range(27))).cards(), "played": plays[:25],
            "cards_left": [27, 1, 27, 27], "finished": [],
            "table": {"owner": 1, "play": ["Single", "A", ["DA"]]}}
    assert position_from_view({**view, "played": plays}).table.cards == ("DA",)
    with pytest.raises(PositionError, match="55 cards .* but 56 are hidden \\(played holds every "
                                            "card played this hand, the table play's too\\)"):
        position_from_view(view)
    with pytest.raises(PositionError, match="a seat's view is a JSON object, not an array"):
        position_from_view("[1]")


def test_view_edge_cases_found_by_a_review():
    # another seat's "view" of a view: its hand would be made up
    with pytest.raises(ValueError, match="seat 1 given with the view of seat 0"):
        sample_deals(VIEW, 2, seed=1, seat=1)
    with pytest.raises(ValueError, match="seat 1 given with the view of seat 0"):
        hidden_pool(json.dumps(VIEW), seat=1)
    assert np.array_equal(hidden_pool(VIEW, seat=0), hidden_pool(FOUR_SEATS, seat=0))
    # card kinds as numbers are no cards in a view, as in a position's hands
    with pytest.raises(PositionError, match="hand: not a card: 40"):
        position_from_view({**VIEW, "hand": [40, 17, 39]})
    with pytest.raises(PositionError, match="unseen: not a card: 3"):
        position_from_view({**VIEW, "unseen": [3] + VIEW["unseen"][1:]})
    # the JSON text of a JSON string is no position
    for twice in (json.dumps(json.dumps(FOUR_SEATS)), json.dumps(json.dumps(VIEW))):
        with pytest.raises(PositionError, match="a position is a JSON object, not a string"):
            read_position(twice)
        with pytest.raises(PositionError, match="a position is a JSON object, not a string"):
            sample_deals(twice, 1)
    # a view missing its hand, or with a misspelt key, is named as a view
    with pytest.raises(PositionError, match="a seat's view: missing key\\(s\\): hand"):
        read_position({k: v for k, v in VIEW.items() if k != "hand"})
    with pytest.raises(PositionError, match="missing key\\(s\\): hand; unknown key\\(s\\): 'Hand'"):
        read_position({("Hand" if k == "hand" else k): v for k, v in VIEW.items()})
    # a whole view with a position's key too is a view with an unknown key (it was read as
    # a position: "missing key(s): hands"); a whole position with a view's key, a position
    # with one; a part of each, a position
    with pytest.raises(PositionError, match=re.escape(
            "a seat's view: unknown key(s): 'to_move' (expected level, seat, hand")):
        read_position({**VIEW, "to_move": 0})
    with pytest.raises(PositionError, match=re.escape("a seat's view: unknown key(s): "
                                                      "'hands'")):
        sample_deals({**VIEW, "hands": FOUR_SEATS["hands"]}, 1)
    with pytest.raises(PositionError, match=re.escape("unknown key(s): 'seat' (expected "
                                                      "level, hands, finished, to_move")):
        read_position({**FOUR_SEATS, "seat": 0})
    with pytest.raises(PositionError, match=re.escape("missing key(s): hands")):
        read_position({"level": "2", "to_move": 0, "hand": ["S5"]})


def test_known_cards_taken_by_a_tribute_card_say_so():
    """A known card that is hidden, but only once and surely held by another seat from the
    tribute: the refusal says the tribute cards count too."""
    for obs, true, _ in _tribute_observations():
        for seat, cards in _surely(obs).items():
            pool = hidden_pool(obs)
            for kind in cards:
                if pool[kind] == 1:
                    other = next(s for s in range(4) if s not in (seat, obs.seat)
                                 and obs.cards_left[s])
                    with pytest.raises(ValueError, match="with the cards seats surely hold "
                                                         "from the tribute and returns"):
                        sample_deals(obs, 1, known={other: [int(kind)]})
                    return
    pytest.fail("no tribute card held once among the hidden cards")


def test_an_observation_whose_card_counts_miss_the_unseen_cards_is_refused():
    """An Observation built by hand (or of a hand not dealt whole) whose other seats'
    cards_left do not add up to the cards unseen by its seat cannot be dealt: the deals
    would leave cards out or run short. It is refused by name, with both counts."""
    seen = []
    match = Match([lambda obs: seen.append(obs) or obs.legal_moves[-1]] * 4, seed=1)
    match.play_hand()
    obs = seen[5]
    other = next(s for s in range(4) if s != obs.seat and obs.cards_left[s] > 1)
    unseen = int(hidden_pool(obs).sum())
    assert sum(n for s, n in enumerate(obs.cards_left) if s != obs.seat) == unseen
    for step in (1, -1):
        left = list(obs.cards_left)
        left[other] += step
        with pytest.raises(ValueError, match=f"the other seats hold {unseen + step} cards "
                                             f".* but {unseen} are unseen"):
            sample_deals(replace(obs, cards_left=tuple(left)), 2, seed=1)


def test_a_slice_of_deals_is_those_deals_of_one_call():
    """``first``: the deals ``first`` to ``first + n - 1`` of a seed's stream are exactly
    those of one call over the whole range, whatever the slices (so that slices made in
    other processes add up); and the deal numbers stop below 2**63, the last allowed
    slice ending there, one past it refused by name."""
    whole = [d.to_json() for d in sample_deals(FOUR_SEATS, 9, seed=5)]
    for first, n in ((0, 9), (1, 8), (4, 3), (8, 1), (9, 0)):
        assert [d.to_json() for d in sample_deals(FOUR_SEATS, n, seed=5, first=first)] == \
            whole[first:first + n]
    assert len(sample_deals(FOUR_SEATS, 1, seed=5, first=2**63 - 1)) == 1
    with pytest.raises(ValueError, match="first \\+ n must be at most 2\\*\\*63"):
        sample_deals(FOUR_SEATS, 2, seed=5, first=2**63 - 1)


def test_played_cards_that_the_hand_holds_too_are_named():
    """API.md (position_from_view): more than two copies of a card is named, also when
    the hand and ``played`` together hold a third copy, which leaves fewer than none of
    the card hidden (found by a mutant: the error was then another one, or numpy's)."""
    view = {k: v for k, v in VIEW.items() if k != "unseen"}
    with pytest.raises(PositionError, match="the hand and the played cards hold together "
                                            "more than two copies of S5"):
        position_from_view({**view, "played": ["S5", "S5"]})


def test_an_object_with_to_move_and_part_of_a_view_is_read_as_a_position():
    """API.md (read_position): a view is an object with any of hand, seat, cards_left,
    played, unseen and neither hands nor to_move, or with every key of a view but not
    every key of a position. One with to_move and only part of a view is a position, and
    its refusal names the position's missing hands, not a view's unknown key."""
    part = {k: v for k, v in VIEW.items() if k != "cards_left"}
    with pytest.raises(PositionError, match="missing key\\(s\\): hands") as refused:
        read_position({**part, "to_move": 0})
    assert "a seat's view" not in str(refused.value)


def test_known_cards_of_a_seat_outside_0_to_3_are_refused_as_text():
    """API.md: parse_known reads SEAT:CARDS parts, a seat 0..3 (RULES: four seats); a
    ValueError names a bad part."""
    from solver.sampling import parse_known
    for text in ("4:SK", "3:SK; 4:HA"):
        with pytest.raises(ValueError, match="'4:(SK|HA)' is not SEAT:CARDS"):
            parse_known(text)


def test_a_moves_json_has_equivalent_only_when_it_has_equivalents():
    """PROTOCOL.md (sample): each move's "equivalent" is there only when the move has
    equivalents. At FOUR_SEATS the single 5 has one (the other 5), the pair none."""
    moves = {tuple(m["move"][:2]): m for m in
             solve_sampled(FOUR_SEATS, 4, seed=7, threads=1).to_json()["moves"]}
    assert moves[("Single", "5")]["equivalent"] in ([["Single", "5", ["H5"]]],
                                                    [["Single", "5", ["S5"]]])
    assert "equivalent" not in moves[("Pair", "5")]
    assert "equivalent" not in moves[("Single", "J")]


def test_a_sampled_move_with_no_deal_counted_has_no_mean():
    """API.md (SampledMove): mean is None with no deal counted (not 0, a value of its
    own); with deals, the counts' average."""
    from solver.sampling import SampledMove
    move = Position.from_parsed_json(FOUR_SEATS).legal_moves()[0]
    none = SampledMove(move, dict.fromkeys(sorted(OUTCOMES, reverse=True), 0), 0)
    assert none.mean is None
    some = SampledMove(move, {**none.values, 3: 1, -2: 2}, 1)
    assert some.mean == (3 - 2 - 2) / 3


def test_known_cards_of_a_seat_that_gave_back_its_tribute_do_not_blame_the_tribute():
    """A receiver that returned the very card it received (RULES sec. 8) surely holds
    nothing from the exchanges: too many known cards of it are refused as for any seat,
    without the clause about the cards it surely holds from the tribute (found by a
    mutant: a seat pinned with no card was kept among the pinned ones)."""
    returned, payer, receiver, pool, kind = _tribute_returned()
    size = returned.cards_left[receiver]
    cards = [int(k) for k in np.repeat(np.arange(len(pool)), pool) if k != kind][:size + 1]
    with pytest.raises(ValueError, match=f"known: seat {receiver} holds {size} cards, not "
                                         f"the {size + 1} given") as refused:
        sample_deals(returned, 1, seed=1, known={receiver: cards})
    assert "tribute" not in str(refused.value)


@pytest.mark.parametrize("when", ["before", "while dealing"])
def test_a_stop_leaves_a_shared_generator_where_the_deals_would(when):
    """API (SamplingPlayer: "up to 1,024 deals, all drawn before the search, so a bound met
    leaves the later moves' deals the same"): a solve_sampled whose stop is set before it
    deals, or while it deals, still draws every deal of a chunk from a random.Random it is
    given, so the generator moves on as if none had been stopped (a stop set at once drew
    none, and a player's later moves were dealt otherwise); the deals not made are not
    searched."""
    from solver import Stop
    import solver.sampling as sampling

    class StopAfter(Stop):
        """Set after its ``left``-th reading."""
        def __init__(self, left):
            super().__init__()
            self.left = left

        def is_set(self):
            self.left -= 1
            if self.left <= 0:
                self.set()
            return super().is_set()

    stop = Stop() if when == "before" else StopAfter(3)
    if when == "before":
        stop.set()
    stopped, counted = random.Random(3), random.Random(3)
    result = solve_sampled(FOUR_SEATS, 200, seed=stopped, stop=stop)
    whole = solve_sampled(FOUR_SEATS, 200, seed=counted, node_limit=1)
    assert stopped.getstate() == counted.getstate()
    assert (whole.samples, result.samples) == (200, 0)     # (set before any search)
    if when == "while dealing":
        assert stop.left <= 0 and sampling._STOP_EVERY < 200


@pytest.mark.parametrize("barred, known, public", [
    ({1: "SK"}, {}, {}), ({1: "SK D7", 3: "S3"}, {}, {}), ({2: "S3 D7"}, {}, {}),
    ({2: "SK"}, {3: ["SK"]}, {}), ({1: "C6 SK"}, {}, {1: "SK"}), ({3: "SK"}, {2: ["C6"]}, {})])
def test_deals_the_tribute_rules_out_are_never_made_and_the_rest_as_likely(barred, known,
                                                                           public):
    """RULES 8 (what a payer's or a receiver's card says about its hand): the card kinds a
    seat cannot hold are dealt to it in no deal (but a copy the tribute and returns
    themselves gave it, ``public``), and every deal that fits is as likely as the others,
    against the brute force over every order of the hidden cards."""
    pos = Position.from_json(dict(FOUR_SEATS, hands=[["S5", "H5"], ["S3", "SK", "D7"],
                                                      ["C6", "SK"], ["S3", "D7"]]))
    hidden = [1, 2, 3]
    odds = _deal_odds(pos, 0, known | public, barred)
    view = replace(_view_of_position(pos, 0), barred=tuple(
        (s, tuple(sorted(Hand(cards).kinds())), "a test") for s, cards in sorted(barred.items())),
        public=tuple((s, Hand(cards).counts.astype(np.int64)) for s, cards in public.items()))
    n = 20_000
    seen = Counter(tuple(tuple(Hand.from_counts(d.counts(s)).kinds()) for s in hidden)
                   for d in _Dealer(view, 3, known).deal(n))
    assert set(seen) <= set(odds) and len(odds) >= 2
    for deal, p in odds.items():
        assert abs(seen[deal] - n * p) < 5 * math.sqrt(n * p * (1 - p)) + 1, (deal, seen[deal], n * p)


def _after_tribute(count: int) -> list:
    """Every tenth observation of a match's random players after a tribute, ``count``."""
    out = [obs for obs, _, _ in _tribute_observations(3, 12) if obs.exchanges]
    assert len(out) >= 10 * count
    return out[:10 * count:10]


def test_sec8_deals_after_a_tribute_keep_what_it_says_of_the_payers():
    """RULES 8: a payer gives its highest card that is not wild, and a paying side holding
    both big jokers resists instead; so after paying it holds nothing higher but wild
    cards and the card returned to it, and no big joker. Deals after a tribute never
    break that (they did in about one deal in nine), as the true hands never do."""
    checked = 0
    for obs in _after_tribute(40):
        level, wild = obs.level, obs.level * 4 + 1
        paid = [(g, r, k) for i, (g, r, k) in enumerate(obs.exchanges)
                if (r, g) not in [(a, b) for a, b, _ in obs.exchanges[:i]]]
        for deal in sample_deals(obs, 25, seed=checked):
            for payer, receiver, kind in paid:
                if payer == obs.seat or not deal.cards_left[payer]:
                    continue
                # (the card returned to it, unless played since, is what it surely holds)
                back = Counter(k for g, r, k in obs.exchanges if (g, r) == (receiver, payer))
                back -= Counter(k for s, m in obs.history if s == payer for k in m.kinds)
                held = Counter(deal.hand(payer).kinds()) - back
                higher = [k for k in held if k == BIG_JOKER or
                          k != wild and card_order(k, level) > card_order(kind, level)]
                assert not higher, (obs.exchanges, payer, deal.hand(payer).cards())
                checked += 1
    assert checked >= 500


def test_a_known_card_the_tribute_rules_out_is_refused_by_name():
    """RULES 8: known cards a payer cannot hold after its tribute contradict what the
    seat saw: a ValueError naming the card and the tribute."""
    for obs in _after_tribute(40):
        (payer, _, kind), = [e for e in obs.exchanges[:1]]
        hidden = hidden_pool(obs)
        if payer != obs.seat and obs.cards_left[payer] and hidden[BIG_JOKER] and \
                kind != BIG_JOKER:
            break
    else:
        pytest.fail("no observation of a payer's tribute: choose another seed")
    with pytest.raises(ValueError, match=re.escape(
            f"known: seat {payer} cannot hold HR: it paid {format_card(kind)} as tribute, "
            "its highest card but wild cards (RULES sec. 8)")):
        sample_deals(obs, 3, seed=0, known={payer: ["HR"]})


def test_sec8_what_a_return_and_a_tribute_rule_out():
    """RULES 8, the rule itself: at level 2 a payer that paid SQ holds no K, A, 2 but
    the wild H2, no joker; a receiver that returned a J (no card of rank 10 or lower
    that is no level card to return) held none of those and nothing below the J; one
    that returned a 9 says nothing."""
    from solver.sampling import _ruled_out
    kind = lambda card: Hand(card).kinds()[0]
    names = lambda kinds: set(format_card(k) for k in kinds)
    [(receiver, returned, why), (payer, paid, _)] = _ruled_out(       # (by seat)
        [(1, 0, kind("SQ")), (0, 1, kind("DJ"))], 0, {0: 27, 1: 27})
    assert (payer, receiver) == (1, 0)
    assert names(paid) == {f"{s}{r}" for s in "SHCD" for r in "KA2"} - {"H2"} | {"SB", "HR"}
    assert names(returned) == {f"{s}{r}" for s in "SHCD" for r in "3456789T"} and \
        "it returned DJ" in why
    assert _ruled_out([(1, 0, kind("SQ")), (0, 1, kind("D9"))], 0, {0: 27, 1: 27}) == \
        ((1, paid, "it paid SQ as tribute, its highest card but wild cards"),)
    assert _ruled_out([(1, 0, kind("SQ"))], 0, {0: 27}) == ()   # (the payer is not hidden)


def test_sec8_deals_after_a_resistance_leave_the_big_jokers_with_the_resisters():
    """RULES 8: payers that resist hold both big jokers between them, which the match
    shows every seat (``Observation.resisted``). What is left hidden of them is dealt to
    the resisting seats alone, in every deal, as it lies in the true hands (deals gave
    it to any seat); an Observation's ``resisted`` other than at most two seats is
    refused by name."""
    seen = {1: 0, 2: 0}
    for i, (obs, true, _) in enumerate(_tribute_observations(13, 12)):
        if not obs.resisted or i % 5:
            continue
        hidden = hidden_pool(obs)[BIG_JOKER]
        others = [s for s in range(4) if s not in obs.resisted and s != obs.seat]
        assert sum(true[s][BIG_JOKER] for s in obs.resisted if s != obs.seat) == hidden
        for deal in sample_deals(obs, 20, seed=i):
            assert all(deal.counts(s)[BIG_JOKER] == 0 for s in others), obs.resisted
            assert sum(deal.counts(s)[BIG_JOKER] for s in obs.resisted
                       if s != obs.seat) == hidden
        seen[len(obs.resisted)] += hidden > 0
    assert min(seen.values()) >= 3, seen
    obs = next(o for o, _, _ in _tribute_observations(13, 12) if o.resisted)
    for bad in ((0, 0), (0, 1, 2), (4,), ("1",), 1, None):
        with pytest.raises(ValueError, match=re.escape(
                "observation: resisted must be the seats that resisted the tribute (at most "
                f"two different seats 0..3), not {bad!r}")):
            sample_deals(replace(obs, resisted=bad), 3, seed=0)


def test_a_view_no_deal_fits_is_named():
    """A card that every hidden seat is ruled out of, or rulings that leave a seat too few
    cards it may hold, is a ValueError naming the card or the rulings."""
    pos = Position.from_json(dict(FOUR_SEATS, hands=[["S5", "H5"], ["S3", "SK", "D7"],
                                                      ["C6", "SK"], ["S3", "D7"]]))
    view = _view_of_position(pos, 0)
    sk = Hand("SK").kinds()
    nowhere = replace(view, barred=tuple((s, tuple(sk), f"ruling {s}") for s in (1, 2, 3)))
    with pytest.raises(ValueError, match=re.escape(
            "no hidden seat may hold SK by what the tribute showed (seat 1: ruling 1; seat 2: "
            "ruling 2; seat 3: ruling 3)")):
        _Dealer(nowhere, 1, None)
    short = replace(view, barred=((1, tuple(Hand("S3 SK D7").kinds()), "ruling"),))
    with pytest.raises(ValueError, match=re.escape(
            "no deal of the hidden cards fits what the tribute showed (seat 1: ruling)")):
        _Dealer(short, 1, None)


def _view_json(obs, flat: bool = False) -> dict:
    """An Observation written as the seat's view (JSON): its hand, the counts, the table,
    each seat's plays (``played_by``, or all of them as ``played`` when ``flat``), and the
    tribute (``exchanges``, ``resisted``) when there was one."""
    from guandan_core.cards import format_rank
    plays = [[] for _ in range(4)]
    for seat, move in obs.history:
        plays[seat] += list(move.cards)
    view = {"level": format_rank(obs.level), "seat": obs.seat,
            "hand": Hand.from_counts(obs.counts).cards(), "cards_left": list(obs.cards_left),
            "finished": list(obs.finished),
            "table": None if obs.table is None else
            {"owner": obs.table_owner, "play": obs.table.to_platform()}}
    if flat:
        view["played"] = [card for cards in plays for card in cards]
    else:
        view["played_by"] = plays
        if obs.exchanges:
            view["exchanges"] = [[g, r, format_card(k)] for g, r, k in obs.exchanges]
    if obs.resisted:
        view["resisted"] = list(obs.resisted)
    return view


def test_view_of_observation_writes_what_the_seat_saw():
    """view_of_observation is the Observation written as the seat's view: the test's own
    writing of it, key for key, with or without a tribute; a bad Observation is named."""
    from solver.sampling import view_of_observation
    seen = {"exchanges": 0, "resisted": 0, "none": 0}
    for i, (obs, _, _) in enumerate(_tribute_observations(13, 12)):
        if i % 11:
            continue
        view = view_of_observation(obs)
        assert view == _view_json(obs)
        assert json.loads(json.dumps(view)) == view
        seen["exchanges" if obs.exchanges else "none"] += 1
        seen["resisted"] += bool(obs.resisted)
    assert min(seen.values()) >= 3, seen
    with pytest.raises(ValueError, match="observation: cards_left must be"):
        view_of_observation(replace(obs, cards_left=(1, 2, 3)))


def test_sec8_a_view_with_the_tribute_is_dealt_as_the_observation():
    """RULES 8: a seat's view as JSON may state this hand's tribute (``exchanges`` with
    ``played_by``, ``resisted``); its deals are then the Observation's, card for card, and
    its digest the same (the tribute cards pinned while their seat holds them, the cards
    the tribute rules out barred). Without the tribute, the deals are another stream."""
    from solver.sampling import _view, _view_key
    checked, pinned, resisted = 0, 0, 0
    for i, (obs, _, _) in enumerate(_tribute_observations(13, 12)):
        if not (obs.exchanges or obs.resisted) or i % 9:
            continue
        view = _view_json(obs)
        by_obs, by_view = _view(obs, None, None), _view(json.dumps(view), None, None)
        assert _view_key(by_view, None) == _view_key(by_obs, None)
        assert by_view.barred == by_obs.barred
        assert [d.to_json() for d in sample_deals(view, 5, seed=i)] == \
            [d.to_json() for d in sample_deals(obs, 5, seed=i)]
        if by_obs.public or by_obs.barred:  # (without them, another stream of deals)
            plain = {k: v for k, v in view.items() if k not in ("exchanges", "resisted")}
            assert _view_key(_view(plain, None, None), None) != _view_key(by_obs, None)
        checked += 1
        pinned += bool(by_obs.public)
        resisted += bool(obs.resisted)
        if obs.resisted:        # (resistance alone needs no seat's plays)
            flat = _view(_view_json(obs, flat=True), None, None)
            assert flat.barred == by_obs.barred
    assert checked >= 30 and pinned >= 10 and resisted >= 3, (checked, pinned, resisted)


def test_a_view_s_bad_tribute_is_named():
    """A view's tribute is refused, naming what is wrong: exchanges without the cards
    each seat played (a card received is pinned only while its seat has not played it),
    any tribute with unseen cards (not a whole deal), bad entries, and exchanges that pin
    more than a seat holds."""
    obs = next(o for i, (o, _, _) in enumerate(_tribute_observations(13, 12))
               if o.exchanges and o.history)
    view = _view_json(obs)
    flat = _view_json(obs, flat=True)
    unseen = {k: v for k, v in flat.items() if k != "played"}
    unseen["unseen"] = Hand.from_counts(hidden_pool(obs)).cards()
    played_by = view["played_by"]
    cases = [
        (dict(flat, exchanges=view["exchanges"]),
         "a seat's view with exchanges needs played_by (the cards each seat played), not "
         "played: a card received in tribute is still held unless its seat played it"),
        (dict(unseen, resisted=[1]), "a seat's view with unseen cards is not of a whole deal: "
                                     "its tribute (exchanges, resisted) needs played or "
                                     "played_by"),
        (dict(view, played=flat["played"]), "not played and played_by"),
        (dict(view, played_by=played_by[:3]), "played_by: expected 4 lists, the cards each "
                                              f"seat played this hand, not {played_by[:3]!r}"),
        (dict(view, played_by=played_by[:3] + ["S3"]), "played_by[3]: expected a list of cards"),
        # (a key given as null is given: it was read as missing, a KeyError)
        (dict(view, played_by=None), "played_by: expected 4 lists, the cards each seat "
                                     "played this hand, not None"),
        (dict(view, played_by=played_by[:3] + [["Q4"]]), "played_by[3]: unknown card 'Q4'"),
        (dict(view, exchanges=[[1, 1, "S3"]]), "exchanges[0]: expected [giver, receiver, "
                                               "card], two different seats 0..3 and a card, "
                                               "not [1, 1, 'S3']"),
        (dict(view, exchanges=[[1, 2, "S3"], [0, 4, "S3"]]), "exchanges[1]: expected"),
        (dict(view, exchanges=[[True, 2, "S3"]]), "exchanges[0]: expected"),
        (dict(view, exchanges=[[1, 2, 5]]), "exchanges[0]: expected"),
        (dict(view, exchanges=[[1, 2, "X9"]]), "exchanges[0]: unknown card 'X9'"),
        (dict(view, exchanges="1 2 S3"), "exchanges: expected a list of [giver, receiver, "
                                         "card], not '1 2 S3'"),
        (dict(view, resisted=[1, 1]), "resisted: expected the seats that resisted the tribute "
                                      "(at most two different seats 0..3), not [1, 1]"),
        (dict(view, resisted=[1, "2"]), "resisted: expected"),
        (dict(view, resisted=[0, 1, 2]), "resisted: expected"),
        (dict(view, resisted=2), "resisted: expected"),
        (dict(view, tribute=[]), "unknown key(s): 'tribute'"),
    ]
    for bad, message in cases:
        for read in (lambda v: sample_deals(v, 2, seed=0), position_from_view, read_position):
            with pytest.raises(PositionError, match=re.escape(message)):
                read(bad)
    # a hidden seat said to have received more cards than it holds, or cards that are not
    # hidden that often
    seat = next(s for s in range(4) if s != obs.seat and 0 < obs.cards_left[s])
    giver = next(s for s in range(4) if s != seat)
    pool = hidden_pool(obs)
    kinds = np.repeat(np.arange(54), pool)[:obs.cards_left[seat] + 1]
    many = dict(view, exchanges=[[giver, seat, format_card(k)] for k in kinds])
    missing = next(k for k in range(54) if pool[k] == 0)
    absent = dict(view, exchanges=[[giver, seat, format_card(missing)]])
    # (position_from_view checks them too, as API.md says: it read such views as valid)
    for read in (lambda v: sample_deals(v, 2, seed=0), position_from_view, read_position):
        with pytest.raises(PositionError, match=re.escape(
                f"a seat's view: seat {seat} holds {obs.cards_left[seat]} cards, fewer than "
                f"the {len(kinds)} it surely holds from the tribute and returns")):
            read(many)
        with pytest.raises(PositionError, match=re.escape(
                f"a seat's view: by the tribute and returns, seats surely hold "
                f"{format_card(missing)} more times than it is hidden from seat {obs.seat}")):
            read(absent)
