"""Work cut into slices, solved apart and put together again: what a process pool or a
cluster (Ray, say) does with many positions or many deals. Each slice must give exactly
its share of the one-call answer, whatever process, machine or order it ran in."""

import concurrent.futures
import copy
import json
import multiprocessing
import os
import pickle
import random
import re

import pytest

from guandan_core import Hand
from guandan_core.match import deal
from guandan_core.position import Position
from reference_minimax import random_position
from solver import (SampledResult, merge_sampled, sample_deals, solve, solve_many,
                    solve_sampled)
from solver.sampling import MAX_DEALS, read_sampled

FOUR_SEATS = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"],
                                      ["C6", "CQ"], ["S4", "SK", "D6"]],
              "finished": [], "to_move": 0, "table": None}


def _positions(seed: int, count: int, max_cards: int) -> list:
    rng, out = random.Random(seed), []
    while len(out) < count:
        pos = random_position(rng, max_cards=max_cards)
        if pos is not None and not pos.is_over and len(pos.legal_moves()) > 2:
            out.append(pos)
    return out


def _slices(n: int, cuts) -> list:
    """(first, size) of the slices of range(n) cut at ``cuts``."""
    edges = [0, *cuts, n]
    return [(a, b - a) for a, b in zip(edges, edges[1:])]


@pytest.mark.parametrize("cuts", [(), (1,), (4, 5, 9), (13,)])
def test_slices_of_deals_are_the_deals_of_one_call(cuts):
    whole = sample_deals(FOUR_SEATS, 13, seed=11)
    parts = [d for first, size in _slices(13, cuts)
             for d in sample_deals(FOUR_SEATS, size, seed=11, first=first)]
    assert [[d.counts(s).tobytes() for s in range(4)] for d in parts] == \
        [[d.counts(s).tobytes() for s in range(4)] for d in whole]
    assert len({d.counts(1).tobytes() for d in whole}) > 1      # (deals that differ)


def test_a_generators_slice_past_its_first_chunk_is_those_deals_of_one_call():
    """With a random.Random, ``first`` draws the shuffles before it a chunk (1,024) at a
    time: a slice that starts past several chunks, and in the middle of one, is still
    the last deals of one call over the whole range."""
    for first in (1024, 1500, 2 * 1024 + 7):
        whole = sample_deals(FOUR_SEATS, first + 2, seed=random.Random(1))
        part = sample_deals(FOUR_SEATS, 2, seed=random.Random(1), first=first)
        assert part == whole[first:]
    assert len(set(whole)) > 1


def test_a_seeds_deals_are_fixed():
    """A whole-number seed names the same deals on any machine and in any release of the
    same way of dealing (``_DEALING``, part of every result's view), so that slices solved
    apart merge. Deals 0 and 5 of seed 7, written down when that way was made: if this
    fails, the deals changed, and ``_DEALING`` must change with them."""
    from solver.sampling import _DEALING
    deals = sample_deals(FOUR_SEATS, 6, seed=7)
    hidden = [[Hand.from_counts(deals[i].counts(s)).cards() for s in (1, 2, 3)]
              for i in (0, 5)]
    assert (_DEALING, hidden) == (2, [[["C6", "CQ", "HA"], ["S4", "SK"], ["S3", "D6", "D7"]],
                                      [["S3", "C6", "CQ"], ["D7", "SK"], ["S4", "D6", "HA"]]])


def test_merged_slices_are_the_answer_of_one_call():
    """On random endgames, slices cut at random points, merged in any order: equal to one
    call (every count, the order of the moves, nodes). The check can fail: somewhere a
    slice's own order of the moves is not the whole answer's."""
    rng = random.Random(4)
    reordered = 0
    for pos in _positions(21, 12, max_cards=4):
        n = rng.randrange(6, 20)
        whole = solve_sampled(pos, n, seed=9, threads=1)
        cuts = sorted(rng.sample(range(1, n), rng.randrange(1, 4)))
        parts = [solve_sampled(pos, size, seed=9, threads=1, first=first)
                 for first, size in _slices(n, cuts)]
        rng.shuffle(parts)
        merged = merge_sampled(parts)
        assert merged == whole, (pos, cuts)
        assert merged.seconds == pytest.approx(sum(p.seconds for p in parts))
        reordered += any([m.move for m in p.moves] != [m.move for m in whole.moves]
                         for p in parts)
    assert reordered


def test_slices_that_a_limit_leaves_unsolved_merge_too():
    whole = solve_sampled(FOUR_SEATS, 12, seed=3, node_limit=150, threads=1)
    assert 0 < whole.solved < 12
    parts = [solve_sampled(FOUR_SEATS, 1, seed=3, node_limit=150, threads=1, first=i)
             for i in range(12)]
    assert any(p.solved == 0 for p in parts) and any(p.solved for p in parts)
    assert merge_sampled(parts) == whole and whole.node_limit == 150
    empty = [p for p in parts if not p.solved]
    merged = merge_sampled(empty)
    assert (merged.moves, merged.best, merged.samples, merged.solved) == \
        ([], None, len(empty), 0)


def test_results_pickle_whole():
    result = solve_sampled(FOUR_SEATS, 5, seed=1, threads=1)
    assert pickle.loads(pickle.dumps(result)) == result


def _spawned_pool():
    # spawn: a fresh interpreter, as on another machine (no state inherited by a fork)
    return concurrent.futures.ProcessPoolExecutor(
        2, mp_context=multiprocessing.get_context("spawn"))


def test_slices_solved_in_other_processes_merge_to_the_answer_here():
    hands = [Hand.from_counts(h).cards() for h in deal(random.Random(5))]
    pos = Position(4, [h[:6] if s != 2 else h[:5] for s, h in enumerate(hands)], to_move=1)
    here = solve_sampled(pos, 10, seed=2, threads=1)
    with _spawned_pool() as pool:
        futures = [pool.submit(solve_sampled, pos, size, seed=2, threads=1, first=first)
                   for first, size in _slices(10, (3, 4, 8))]
        merged = merge_sampled(f.result() for f in futures)
    assert merged == here and merged.solved == 10


def test_positions_solved_in_other_processes_are_solved_as_here():
    positions = _positions(8, 10, max_cards=5)
    here = solve_many(positions, threads=1, all_moves=True, fresh_tables=True)
    with _spawned_pool() as pool:
        there = list(pool.map(solve, positions, [True] * len(positions)))
        batches = list(pool.map(solve_many, [positions[:5], positions[5:]]))
    assert [r.to_json() | {"seconds": 0} for r in there] == \
        [r.to_json() | {"seconds": 0} for r in here]
    assert [r.value for b in batches for r in b] == [r.value for r in here]


def test_bad_merges_and_slices_are_named():
    one = solve_sampled(FOUR_SEATS, 3, seed=1, threads=1)
    other = solve_sampled(dict(FOUR_SEATS, hands=[["S5", "H5", "SQ"], ["S3", "HA", "D7"],
                                                  ["C6", "CQ"], ["S4", "SK", "D6"]]),
                          3, seed=1, threads=1, first=3)
    with pytest.raises(ValueError, match="the results are of different positions or known "
                                         "cards \\(views [0-9a-f]{16}, [0-9a-f]{16}\\)"):
        merge_sampled([one, other])
    with pytest.raises(ValueError, match="different positions or known cards"):
        merge_sampled([one, solve_sampled(FOUR_SEATS, 3, seed=1, threads=1, first=3,
                                          known={3: "SK"})])
    fewer = copy.deepcopy(solve_sampled(FOUR_SEATS, 3, seed=1, threads=1, first=3))
    fewer.moves.pop()
    with pytest.raises(ValueError, match="list or group their moves differently: move "):
        merge_sampled([one, fewer])
    # the same moves, one of them at another place in the legal order, or grouped apart
    grouped = next(i for i, m in enumerate(one.moves) if m.equivalent)
    for change in ("legal_index", "equivalent"):
        later = copy.deepcopy(solve_sampled(FOUR_SEATS, 3, seed=1, threads=1, first=3))
        moved = later.moves[grouped]
        if change == "legal_index":
            moved.legal_index += 5
        else:
            moved.equivalent.clear()
        with pytest.raises(ValueError, match=re.escape(
                f"list or group their moves differently: move '{moved.move}' differs")):
            merge_sampled([one, later])
    with pytest.raises(ValueError, match="the results are of different seeds: 1, 2"):
        merge_sampled([one, solve_sampled(FOUR_SEATS, 3, seed=2, threads=1, first=3)])
    with pytest.raises(ValueError, match="the results search some deals twice: deals 0 to 2 "
                                         "and 2 to 4 of seed 1"):
        merge_sampled([solve_sampled(FOUR_SEATS, 3, seed=1, threads=1, first=2), one])
    with pytest.raises(ValueError, match="search some deals twice"):
        merge_sampled([one, one])
    fresh = solve_sampled(FOUR_SEATS, 3, threads=1)
    with pytest.raises(ValueError, match="search some deals twice"):
        merge_sampled([one, fresh, one])      # (a result without a seed checks no less)
    # (the limit decides which deals count: slices under others are not one run's answer)
    for limits in ((None, 10**6), (150, 10**6)):
        with pytest.raises(ValueError, match=re.escape(
                "the results were solved under different node limits: "
                f"{', '.join(sorted(str(x) for x in limits)).replace('None', 'none')} "
                "(none: no limit)")):
            merge_sampled([solve_sampled(FOUR_SEATS, 3, seed=1, threads=1, first=3 * i,
                                         node_limit=limit) for i, limit in enumerate(limits)])
    # (the table sizes decide the node counts, and under a node limit which deals count:
    # see test_the_table_sizes_decide_what_a_node_limit_counts)
    with pytest.raises(ValueError, match=re.escape(
            "the results were solved with different table sizes: (10, 10), (18, 24) "
            "(table_bits, max_table_bits)")):
        merge_sampled([one, solve_sampled(FOUR_SEATS, 3, seed=1, threads=1, first=3,
                                          table_bits=10, max_table_bits=10)])
    with pytest.raises(ValueError, match="at least one SampledResult"):
        merge_sampled([])
    with pytest.raises(TypeError, match="a list of SampledResults, not one"):
        merge_sampled(one)
    with pytest.raises(TypeError, match="takes SampledResults, not 3"):
        merge_sampled([one, 3])
    with pytest.raises(TypeError, match="not 7"):
        merge_sampled(7)
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(ValueError, match=f"first must be a whole number of deals >= 0, "
                                             f"not {bad!r}"):
            solve_sampled(FOUR_SEATS, 1, first=bad)
        with pytest.raises(ValueError, match="first must be"):
            sample_deals(FOUR_SEATS, 1, first=bad)
    assert isinstance(merge_sampled([one]), SampledResult) and merge_sampled([one]) == one


def test_the_table_sizes_decide_what_a_node_limit_counts():
    """Why merge_sampled refuses results solved with other table sizes, and a result
    records its sizes: a smaller table searches more nodes, so under the same node limit
    it counts fewer deals (4 x 6 position 7, 6 deals of seed 7 under 60,000 nodes: 2 with
    the default tables, 1 with 2**10 entries), and the merged slices would not be the
    answer of either one call."""
    with open(os.path.join(os.path.dirname(__file__), "data", "endgames_4x6.json")) as fh:
        position = json.load(fh)["items"][7]
    default = solve_sampled(position, 6, seed=7, threads=1, node_limit=60_000)
    small = solve_sampled(position, 6, seed=7, threads=1, node_limit=60_000, table_bits=10,
                          max_table_bits=10)
    assert (default.tables, small.tables) == ((18, 24), (10, 10))
    assert default.solved > small.solved > 0 and default.samples == small.samples == 6
    assert default.to_json()["tables"] == [18, 24]
    assert read_sampled(small.to_json(), position) == small


def test_slices_with_gaps_or_without_a_named_seed_merge_too():
    """Slices need not cover a range: deals 0-2 and 6-8 merge into those two ranges, the
    seed kept, and merge again with 3-5 into one. A result of a fresh seed has no stream
    to name: merged with others, the seed is None and the deals unnamed."""
    a = solve_sampled(FOUR_SEATS, 3, seed=4, threads=1)
    b = solve_sampled(FOUR_SEATS, 3, seed=4, threads=1, first=6)
    merged = merge_sampled([b, a])
    assert (merged.seed, merged.deals, merged.first, merged.samples) == \
        (4, ((0, 3), (6, 9)), 0, 6)
    assert merged.to_json()["seed"] == 4 and merged.to_json()["deals"] == [[0, 3], [6, 9]]
    middle = solve_sampled(FOUR_SEATS, 3, seed=4, threads=1, first=3)
    assert merge_sampled([merged, middle]) == solve_sampled(FOUR_SEATS, 9, seed=4, threads=1)
    with pytest.raises(ValueError, match="deals 6 to 8 and 6 to 8"):
        merge_sampled([merged, b])
    fresh = solve_sampled(FOUR_SEATS, 3, threads=1)
    assert fresh.seed is None and fresh.to_json()["seed"] is None and fresh.deals == ()
    mixed = merge_sampled([a, fresh])
    assert (mixed.seed, mixed.deals, mixed.solved) == (None, (), 6)
    rng = random.Random(3)
    assert solve_sampled(FOUR_SEATS, 2, seed=rng, threads=1).seed is None


def test_a_result_read_back_from_its_json_is_the_result():
    """read_sampled(to_json()) gives the result back, equivalent moves included, and its
    tie order from the position: merging results saved as JSON is merging results."""
    from guandan_core.cli_solve import EXAMPLE_POSITION
    result = solve_sampled(EXAMPLE_POSITION, 4, seed=3, threads=1)
    assert any(m.equivalent for m in result.moves)
    for obj in (result.to_json(), json.dumps(result.to_json())):
        back = read_sampled(obj, EXAMPLE_POSITION)
        assert back == result and back.seconds == pytest.approx(result.seconds)
        assert [m.legal_index for m in back.moves] == [m.legal_index for m in result.moves]
    later = solve_sampled(EXAMPLE_POSITION, 3, seed=3, threads=1, first=4)
    assert merge_sampled([read_sampled(json.dumps(later.to_json()), EXAMPLE_POSITION),
                          back]) == solve_sampled(EXAMPLE_POSITION, 7, seed=3, threads=1)
    none = solve_sampled(FOUR_SEATS, 2, seed=1, node_limit=3, threads=1)
    assert none.solved == 0 and read_sampled(none.to_json(), FOUR_SEATS) == none
    assert (none.node_limit, none.to_json()["node_limit"], result.node_limit) == (3, 3, None)


def _broken(change):
    obj = json.loads(json.dumps(solve_sampled(FOUR_SEATS, 3, seed=1, threads=1).to_json()))
    change(obj)
    return obj


@pytest.mark.parametrize("change, message", [
    (lambda o: o.pop("moves"), "needs the key 'moves'"),
    (lambda o: o.update(solved=4), "solved must be a whole number from 0 to 3, not 4"),
    (lambda o: o.update(nodes=-1), "nodes must be a whole number from 0 to 9223372036854775807, "
                                   "not -1"),
    (lambda o: o.update(seed="7"), "seed must be a whole number from 0 to"),
    (lambda o: o.update(seed=2**63), "seed must be a whole number from 0 to"),
    (lambda o: o.update(node_limit=-1), "node_limit must be a whole number from 0 to"),
    (lambda o: o.update(node_limit=1.5), "node_limit must be a whole number from 0 to"),
    (lambda o: o.update(seconds="x"), "seconds must be a number from 0 to 1e15, not 'x'"),
    (lambda o: o.update(seconds=10**400), "seconds must be a number from 0 to 1e15"),
    (lambda o: o.update(seconds=1e15 * (1 + 2**-52)), "seconds must be a number from 0 to "
                                                      "1e15, not 1000000000000000.2"),
    # to_json writes them all: one missing is named (seed was read as none and named as
    # deals "not searched"; seconds as 0)
    (lambda o: o.pop("seed"), "needs the key 'seed'"),
    (lambda o: o.pop("deals"), "needs the key 'deals'"),
    (lambda o: o.pop("seconds"), "needs the key 'seconds'"),
    (lambda o: o.update(view="0" * 16), "the result is of another position, other known "
                                        "cards or other rules: its view is "
                                        "'0000000000000000'"),
    (lambda o: o.pop("view"), "needs the key 'view'"),
    # (saved before the limit was recorded: it cannot say which deals it counted)
    (lambda o: o.pop("node_limit"), "needs the key 'node_limit'"),
    # (the same for the table sizes, which decide the node counts and what a limit counts)
    (lambda o: o.pop("tables"), "needs the key 'tables'"),
    (lambda o: o.update(tables=[18]), "tables must be [table_bits, max_table_bits], two "
                                      "whole numbers, not [18]"),
    (lambda o: o.update(tables=[18, None]), "two whole numbers, not [18, None]"),
    (lambda o: o.update(tables=[18, 12]), "tables: max_table_bits must be table_bits (18) to "
                                          "30, not 12"),
    (lambda o: o.update(tables=["18", 24]), "tables: table_bits must be a whole number, not "
                                            "'18'"),
    (lambda o: o.update(deals=[[0, 2]]), "deals [[0, 2]] are not the 3 deals searched"),
    (lambda o: o.update(deals=[[0, 1], [1, 3]]), "are not the 3 deals searched, in sorted "
                                                 "ranges apart"),
    (lambda o: o.update(deals=[[2, 0]]), "deals must be a list of [start, end] deal ranges"),
    # an empty range (start == end) names no deal: refused even where the counts add up
    (lambda o: o.update(deals=[[0, 3], [5, 5]]), "deals must be a list of [start, end] deal "
                                                 "ranges (start < end"),
    (lambda o: o.update(seed=None), "(none without a seed)"),
    (lambda o: o["moves"][0].update(equivalent=5), "moves[0].equivalent must be a list of "
                                                   "moves, not 5"),
    (lambda o: o.update(moves={}), "moves must be a list"),
    (lambda o: o["moves"][1].update(move=["Single", "K", ["SK"]]),
     "moves[1].move: seat 0 cannot play"),
    (lambda o: o["moves"].append(dict(o["moves"][0])), "moves[3]: Pair 5: S5 H5 is listed twice"),
    (lambda o: o["moves"].pop(), "a legal move, is missing"),
    (lambda o: o["moves"][0]["values"].pop("+3"), "moves[0].values must give a count for each"),
    (lambda o: o["moves"][0]["values"].update({"+3": 9}), "moves[0].values add up to"),
    # (fewer than solved too: every deal counted gives each move one value)
    (lambda o: o["moves"][0]["values"].update(
        {k: n - 1 for k, n in o["moves"][0]["values"].items() if n}),
     "moves[0].values add up to"),
    (lambda o: o["moves"][0].update(best=5), "moves[0].best must be a whole number from 0 to 3"),
    # (in each deal some move is best: counts that cover fewer deals were taken)
    (lambda o: [m.update(best=0) for m in o["moves"]],
     "the moves' best counts add up to 0, fewer than the 3 deals solved"),
    (lambda o: o["moves"][0].pop("best"), "moves[0] must be an object with move, values and best"),
    (lambda o: o.update(solved=0), "moves are listed but no deal was solved"),
    (lambda o: o.update(seeds=8), "a sampled result has no key 'seeds' (its keys: seed, "),
    (lambda o: o["moves"][0].update(bogus=1), "moves[0] has no key 'bogus'"),
    (lambda o: o.update(best="nonsense"), "best is 'nonsense', but the moves' counts make"),
    (lambda o: o.update(best=o["moves"][1]["move"]), "but the moves' counts make"),
    (lambda o: o["moves"][0].update(mean="abc"), "moves[0].mean is 'abc', but its values make"),
    (lambda o: o["moves"][0].update(mean=o["moves"][0]["mean"] - 0.5), "moves[0].mean is"),
    (lambda o: o.update(deals=[[2**64 - 3, 2**64]]), "deals must be a list of [start, end] deal "
                                                     "ranges (start < end <= 2**63)"),
])
def test_a_bad_saved_result_is_named(change, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        read_sampled(_broken(change), FOUR_SEATS)


def test_read_sampled_takes_seconds_up_to_1e15():
    """API (read_sampled): `seconds` from 0 to 1e15, both ends taken (1e15 was refused by
    a message that named it as allowed)."""
    for seconds in (0, 0.0, 1e15, 10**15):
        obj = _broken(lambda o: o.update(seconds=seconds))
        assert read_sampled(obj, FOUR_SEATS).seconds == seconds


def test_read_sampled_refuses_what_is_not_a_result():
    for bad, message in (([1], "a sampled result is a JSON object, not [1]"),
                         ("null", "a sampled result is a JSON object, not null"),
                         ("{", "not valid JSON")):
        with pytest.raises(ValueError, match=re.escape(message)):
            read_sampled(bad, FOUR_SEATS)
    over = dict(FOUR_SEATS, hands=[[], ["S3"], [], ["S4"]], finished=[0, 2], to_move=None)
    with pytest.raises(ValueError, match="already over"):
        read_sampled(_broken(lambda o: None), over)


def test_a_slice_far_down_the_stream_costs_no_more_than_the_first():
    """With a whole-number seed each deal has its own generator: the last deals below
    2**63 come at once, and are the same however the slice around them is cut."""
    import time
    last = MAX_DEALS - 4
    start = time.perf_counter()
    far = sample_deals(FOUR_SEATS, 4, seed=1, first=last)
    assert len(sample_deals(FOUR_SEATS, 4, first=last)) == 4     # (fresh deals: no skip)
    assert time.perf_counter() - start < 1
    assert sample_deals(FOUR_SEATS, 2, seed=1, first=last + 2) == far[2:]
    assert far != sample_deals(FOUR_SEATS, 4, seed=1) and len(set(far)) > 1
    result = solve_sampled(FOUR_SEATS, 4, seed=1, first=last, threads=1)
    assert result.deals == ((last, MAX_DEALS),) and result.solved == 4
    for bad_first, n in ((MAX_DEALS, 1), (last, 5)):
        with pytest.raises(ValueError, match=f"first \\+ n must be at most 2\\*\\*63 .*"
                                             f"not {bad_first} \\+ {n}"):
            solve_sampled(FOUR_SEATS, n, seed=1, first=bad_first)
        with pytest.raises(ValueError, match="first \\+ n must be at most"):
            sample_deals(FOUR_SEATS, n, seed=1, first=bad_first)


def test_a_stop_ends_the_skipping_of_a_generators_earlier_deals():
    """With a random.Random the deals before `first` are its next shuffles, drawn: a
    stop set while twenty million of them are drawn (about 25 s here) ends the call
    within moments, nothing solved."""
    import threading
    from solver import Stop
    stop = Stop()
    threading.Timer(0.2, stop.set).start()
    result = solve_sampled(FOUR_SEATS, 5, seed=random.Random(1), first=20_000_000,
                           stop=stop, threads=1)
    assert (result.samples, result.solved, result.best) == (0, 0, None)
    assert result.seconds < 5


def test_a_match_observation_s_result_reads_back_against_it():
    """read_sampled takes what solve_sampled takes: a match's Observation too."""
    from guandan_core.match import Match
    from guandan_core.players import GreedyPlayer
    seen = []

    def keep(obs):
        seen.append(obs)
        return GreedyPlayer()(obs)

    Match([keep, GreedyPlayer(), GreedyPlayer(), GreedyPlayer()], seed=4).play_hand()
    obs = next(o for o in seen if sum(o.cards_left) < 40 and len(o.legal_moves) > 2)
    result = solve_sampled(obs, 2, seed=1, threads=1, node_limit=2_000_000)
    assert read_sampled(json.dumps(result.to_json()), obs) == result


def test_results_under_other_rules_or_another_table_owner_are_not_merged():
    """API.md (read_sampled, merge_sampled): the view digest is of what the seat to move
    sees, rules included: a result under other rules, or of a table play led by another
    seat (the same play, the same hands: who owns the table decides who leads when all
    pass, RULES sec. 7), is of another view, refused when read back or merged."""
    one = solve_sampled(FOUR_SEATS, 3, seed=1, threads=1)
    platform = solve_sampled(FOUR_SEATS, 3, seed=1, threads=1, first=3, rules="platform")
    assert platform.view != one.view
    with pytest.raises(ValueError, match="different positions or known cards"):
        merge_sampled([one, platform])
    with pytest.raises(ValueError, match="of another position, other known cards or other "
                                         "rules"):
        read_sampled(one.to_json(), FOUR_SEATS, rules="platform")
    led = {}
    for owner in (1, 2):
        pos = dict(FOUR_SEATS, table={"owner": owner, "play": ["Single", "3", ["S3"]]},
                   hands=[["S5", "H5", "SJ"], ["HA", "D7"], ["C6", "CQ"],
                          ["S4", "SK", "D6"]])
        led[owner] = pos, solve_sampled(pos, 3, seed=1, threads=1, first=3 * owner)
    assert led[1][1].view != led[2][1].view
    with pytest.raises(ValueError, match="of another position, other known cards or other "
                                         "rules"):
        read_sampled(led[1][1].to_json(), led[2][0])
    with pytest.raises(ValueError, match="different positions or known cards"):
        merge_sampled([led[1][1], led[2][1]])


def test_a_saved_result_s_moves_in_another_order_read_back_best_first():
    """API.md (SampledResult.moves): best first, highest mean, then most deals best, then
    legal_moves() order; a saved result whose moves were written in another order (by
    hand, or by a tool that sorted them otherwise) reads back in that order, with its
    ``best`` checked against the first of them, not against the first written."""
    result = solve_sampled(FOUR_SEATS, 3, seed=1, threads=1)
    obj = json.loads(json.dumps(result.to_json()))
    assert len({m["mean"] for m in obj["moves"]}) > 1        # (an order to get wrong)
    obj["moves"].reverse()
    back = read_sampled(obj, FOUR_SEATS)
    assert back == result
    assert [m.mean for m in back.moves] == sorted((m.mean for m in back.moves), reverse=True)


def test_results_of_two_readings_of_the_same_table_cards_are_not_merged():
    """RULES 3, 4: with a wild card the same five cards on the table are a straight or a
    straight flush, two positions with other moves and values. Their results' views
    differ, so neither merges with the other nor is read as the other's (the view kept
    the table's cards alone, and both went through)."""
    table = lambda kind: {"owner": 2, "play": [kind, "5", ["S5", "S6", "H7", "S8", "S9"]]}
    base = {"level": "7", "hands": [["D3", "D4", "S3"], ["C6", "D7", "C8", "C9", "CT", "D5"],
                                    [], ["S4", "SK", "D6", "HA"]],
            "finished": [2], "to_move": 0}
    straight = dict(base, table=table("Straight"))
    flush = dict(base, table=table("StraightFlush"))
    one = solve_sampled(straight, 6, seed=1, threads=1)
    other = solve_sampled(flush, 6, seed=1, threads=1, first=6)
    assert one.view != other.view
    with pytest.raises(ValueError, match="the results are of different positions"):
        merge_sampled([one, other])
    with pytest.raises(ValueError, match="the result is of another position"):
        read_sampled(other.to_json(), straight)
    assert read_sampled(other.to_json(), flush) == other
