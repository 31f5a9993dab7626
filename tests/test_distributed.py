"""Work cut into slices, solved apart and put together again: what a process pool or a
cluster (Ray, say) does with many positions or many deals. Each slice must give exactly
its share of the one-call answer, whatever process, machine or order it ran in."""

import concurrent.futures
import multiprocessing
import pickle
import random

import pytest

from guandan_core import Hand
from guandan_core.match import deal
from guandan_core.position import Position
from reference_minimax import random_position
from solver import (SampledResult, merge_sampled, sample_deals, solve, solve_many,
                    solve_sampled)

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
    assert merge_sampled(parts) == whole
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
                          3, seed=1, threads=1)
    with pytest.raises(ValueError, match="not of the same position: move 'Single Q: SQ'"):
        merge_sampled([one, other])
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
