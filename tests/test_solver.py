"""The endgame solver against a plain minimax (RULES sec. 6-7), and its API."""

import json
import os
import random
import re
import signal
import sys
import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cli_process import ADDRESS_LIMIT, UNDER_SANITIZER, run_python, vm_size
from differential import dominated_drops, searched_and_legal as _searched_and_legal
from guandan_core import Move, legal_moves
from guandan_core.position import Position
from guandan_core.rules import PRESET_NAMES, Rules
from guandan_core.usertext import quoted
from reference_minimax import (Budget, minimax, random_long_play_position, random_position,
                               rule_option_position, spaced_ranks_case)
from solver import Searcher, probe, solve, solve_many
from solver.search import FIRST_ARENA_MOVES, MOVE_DTYPE, _load, _record_bytes, _root


def _solved(draw, count, budget, memo=False):
    """(position, its value for the mover, the memo or None) for the first ``count``
    positions from ``draw()`` (None: no position) that the plain minimax, or with ``memo``
    the memoized one, solves within ``budget`` positions searched."""
    done = attempts = 0
    while done < count:
        attempts += 1
        assert attempts < count * 50, "could not draw enough solvable positions"
        pos = draw()
        if pos is None or pos.is_over:
            continue
        table = {} if memo else None
        try:
            value = minimax(pos, [budget], table)
        except Budget:
            continue
        done += 1
        yield pos, value if pos.to_move % 2 == 0 else -value, table


def _positions(seed, count, max_cards=5, budget=20_000, max_total=13):
    rng = random.Random(seed)
    for pos, ref, _ in _solved(lambda: random_position(rng, max_cards=max_cards,
                                                       max_total=max_total), count, budget):
        yield pos, ref


def _mover_value(pos, move, budget=10**7, memo=None):
    """The minimax value of playing ``move`` at ``pos``, for the team of the seat to move
    there (the minimax gives team-0 values; a hand the move ends, its outcome)."""
    sign = 1 if pos.to_move % 2 == 0 else -1
    return sign * minimax(pos.play(move), [budget], memo)


@pytest.mark.parametrize("seed", range(10))
def test_solver_matches_plain_minimax(seed):
    """RULES sec. 6: exact team outcome on random 2-4 player endgames, 1-5 cards each,
    with wild cards, jokers, table plays and players already out; the best move must
    really reach the value."""
    for pos, ref in _positions(1000 + seed, 50):
        result = solve(pos)
        assert result.exact
        assert result.value == ref, (pos.to_json(), result.value, ref)
        # the best move reaches the value
        assert _mover_value(pos, result.best) == ref, (pos.to_json(), str(result.best))


@pytest.mark.parametrize("seed", range(3))
def test_every_move_scored_matches_minimax(seed):
    for pos, ref in _positions(2000 + seed, 15, max_cards=4):
        result = solve(pos, all_moves=True)
        scored = {s.move: s.value for s in result.moves}
        for s in result.moves:
            for eq in s.equivalent:
                scored[eq] = s.value
        legal = pos.legal_moves()
        assert set(scored) == set(legal)
        for move in legal:
            assert scored[move] == _mover_value(pos, move), (pos.to_json(), str(move))
        assert max(scored.values()) == result.value == ref      # (ref: the mover's value)


def test_solver_matches_memoized_minimax_with_four_players_and_14_to_16_cards():
    """RULES sec. 6: four players in play, drawn with 14 to 16 cards between them, more
    than the plain minimax's positions above (at most 13): exact values, the best move
    and every threshold, against the memoized minimax."""
    rng = random.Random(7100)

    def draw():
        pos = random_position(rng, max_cards=5, max_total=16, active=4)
        return pos if pos is not None and sum(pos.cards_left) >= 14 else None

    for pos, ref, memo in _solved(draw, 6, 400_000, memo=True):
        result = solve(pos)
        assert result.exact and result.value == ref, pos.to_json()
        assert _mover_value(pos, result.best, memo=memo) == ref, \
            (pos.to_json(), str(result.best))
        for t in (-2, -1, 1, 2, 3):
            assert probe(pos, t) == (ref >= t), (pos.to_json(), t)


LONG_TYPES = {"ThreePair", "TwoTrips", "Straight", "StraightFlush", "ThreeWithTwo", "Bomb"}


def test_solver_sees_the_plays_the_rule_options_make():
    """RULES sec. 9: under the platform's rules a wild completes a hearts straight flush
    only, and ``long-sequences`` adds tubes of two pairs and straights of 6 or more ranks.
    Whether a hand can still form a bomb or sequence decides which move generator the
    search uses; a slip there (hearts taken for spades, tubes of two pairs forgotten)
    gave wrong values that the random positions of the other tests, which rarely hold
    such plays, did not catch (a mutation review). Two such positions, then random ones
    built around those plays, under every preset, against the memoized minimax."""
    flush = {"level": "2", "hands": [["H3", "H4", "H5", "H6", "H2"], ["SA"], ["S3"], ["S4"]],
             "finished": [], "to_move": 0, "table": {"owner": 1, "play": ["Single", "R",
                                                                          ["HR"]]}}
    result = solve(flush, rules="platform", fresh_tables=True)
    assert (result.value, result.best.type) == (3, "StraightFlush")
    tube = {"level": "2", "hands": [["S3", "H3", "S4", "H4"], ["SA", "HA"], ["S9"], ["S8"]],
            "finished": [], "to_move": 0, "table": None}
    result = solve(tube, rules="long-sequences", fresh_tables=True)
    assert (result.value, str(result.best)) == (3, "ThreePair 3: S3 H3 S4 H4")
    assert solve(tube, fresh_tables=True).value < 3
    rng = random.Random(5500)
    checked = 0
    for preset in PRESET_NAMES:
        rules = Rules.of(preset)
        for pos, ref, memo in _solved(lambda: rule_option_position(rng, rules), 12, 200_000,
                                      memo=True):
            result = solve(pos, fresh_tables=True)
            assert result.exact and result.value == ref, (pos.to_json(), preset)
            assert _mover_value(pos, result.best, memo=memo) == ref, \
                (pos.to_json(), preset, str(result.best))
            checked += 1
    assert checked == 12 * len(PRESET_NAMES)


def test_every_move_mode_groups_no_moves_whose_suits_matter():
    """Moves are grouped as equivalent only where suits cannot matter: seat 0's S3 and H3
    differ only in suit, but S3 breaks its straight flush S3-S7 (which beats seat 1's
    bomb of four 8s, RULES sec. 5) and H3 keeps it: -3 and +2 by the plain minimax (H3
    is the only move of +2). A grouping that ignored the straight flush showed H3 as
    S3's equivalent, at -3."""
    pos = Position.from_json({"level": "2", "hands": [["S3", "S4", "S5", "S6", "S7", "H3"],
                                                      ["S8", "H8", "C8", "D8", "DK"],
                                                      ["C4"], ["D5"]],
                              "finished": [], "to_move": 0, "table": None})
    threes = {m.to_platform()[2][0]: m for m in pos.legal_moves()
              if m.to_platform()[:2] == ["Single", "3"]}
    assert [minimax(pos.play(threes[c]), [10**6], {}) for c in ("S3", "H3")] == [-3, 2]
    result = solve(pos, all_moves=True)
    scores = {str(m): (s.value, len(s.equivalent)) for s in result.moves
              for m in [s.move, *s.equivalent]}
    assert scores["Single 3: S3"] == (-3, 0) and scores["Single 3: H3"] == (2, 0)
    assert (result.value, str(result.best)) == (2, "Single 3: H3")


@pytest.mark.parametrize("seed", range(3))
def test_solver_matches_memoized_minimax_with_long_plays(seed):
    """RULES sec. 4-6, 9: exact values, best moves and every move's score where hands hold
    tubes, plates, straights, straight flushes, full houses, bombs or the joker bomb (with
    wild cards among them), under every rule preset (with ``long-sequences``, sequences
    of other lengths too), against the minimax with each position's value remembered. The
    plain minimax's positions above (at most 5 cards a hand) can hold none of the six-card
    plays; these hold up to 15 cards."""
    rng = random.Random(7000 + seed)
    checked = moves_checked = other_lengths = joker_bombs = 0
    long_types_seen = set()

    def draw():
        return random_long_play_position(rng, Rules.of(rng.choice(PRESET_NAMES)))

    for pos, ref, memo in _solved(draw, 30, 30_000, memo=True):
        checked += 1
        for seat in range(4):
            for m in legal_moves(pos.hand(seat), pos.level, rules=pos.rules):
                if m.type in LONG_TYPES:
                    long_types_seen.add(m.type)
                    joker_bombs += m.rank == "JOKER"
                    # sequences of other lengths than 5 / 3 pairs / 2 triples
                    other_lengths += m.type in ("ThreePair", "TwoTrips", "Straight") and \
                        len(m) != (5 if m.type == "Straight" else 6)
        every = checked % 2 == 0
        result = solve(pos, all_moves=every)
        assert result.exact and result.value == ref, (pos.to_json(), pos.rules)
        scored = {result.best: result.value}
        for s in result.moves:
            for move in [s.move, *s.equivalent]:
                scored[move] = s.value
        if every:
            assert set(scored) == set(pos.legal_moves()), pos.to_json()
        for move, value in scored.items():
            assert _mover_value(pos, move, memo=memo) == value, \
                (pos.to_json(), pos.rules, str(move))
            moves_checked += 1
    # the draws really hold the long plays this test is about
    assert long_types_seen == LONG_TYPES
    assert other_lengths > 0 and joker_bombs > 0
    assert moves_checked > 2 * checked


def _renamed_card(card, suits):
    """``card`` with spades, clubs and diamonds renamed in a cycle when ``suits`` (hearts
    stay: the wild cards are hearts; the jokers stay)."""
    if not suits or card[0] == "H" or card == "SB":      # SB: the small joker, not a spade
        return card
    return {"S": "C", "C": "D", "D": "S"}[card[0]] + card[1:]


def _renamed(obj, shift, suits):
    """The position ``obj`` (RULES sec. 7 JSON) with every seat moved on by ``shift`` and,
    with ``suits``, its cards renamed by :func:`_renamed_card`."""
    table = obj.get("table")
    return {"level": obj["level"],
            "hands": [[_renamed_card(c, suits) for c in obj["hands"][(seat - shift) % 4]]
                      for seat in range(4)],
            "finished": [(seat + shift) % 4 for seat in obj.get("finished", [])],
            "to_move": (obj["to_move"] + shift) % 4,
            "table": table and {"owner": (table["owner"] + shift) % 4,
                                "play": [*table["play"][:2],
                                         [_renamed_card(c, suits) for c in table["play"][2]]]}}


def _scores(result, suits):
    """Each legal move's value, the move named by its reading and its cards (renamed by
    :func:`_renamed_card`)."""
    def name(move):
        if move.is_pass:
            return "PASS"
        kind, rank, cards = move.to_platform()
        return kind, rank, tuple(sorted(_renamed_card(c, suits) for c in cards))
    return {name(move): s.value for s in result.moves for move in [s.move, *s.equivalent]}


@pytest.mark.parametrize("shift, suits", [(1, False), (2, False), (3, True), (0, True)])
def test_values_do_not_depend_on_seat_numbers_or_the_names_of_the_plain_suits(shift, suits):
    """RULES sec. 3 and 6: only who partners whom and who sits next matter, not the seats'
    numbers, and no suit but hearts (the wild cards') is special, so moving every seat on
    and renaming spades, clubs and diamonds leaves every value the same, for the
    benchmark's full 4 x 6 positions (no reference can search them) and for random ones
    with plays on the table and players out. With the seats moved on only, the best move
    and the principal line are the same too."""
    full = _endgames_4x6(6)
    rng = random.Random(7200)
    small = [pos.to_json() for pos in (random_position(rng, max_cards=4, with_table=0.6)
                                       for _ in range(60)) if pos is not None]
    tables = players_out = 0
    for i, obj in enumerate(full + small):
        all_moves = i < 3 or i >= len(full)
        before = solve(obj, all_moves=all_moves)
        after = solve(_renamed(obj, shift, suits), all_moves=all_moves)
        assert after.value == before.value, (obj, shift, suits)
        assert _scores(after, False) == _scores(before, suits), (obj, shift, suits)
        if not suits:
            # the best move and the line depend on the position alone, not on the seats'
            # numbers (with suits renamed, ties among suits may fall the other way)
            assert after.best == before.best, (obj, shift)
            assert list(after.pv) == [((seat + shift) % 4, move) for seat, move in before.pv]
        tables += obj["table"] is not None
        players_out += bool(obj["finished"])
    assert tables > 10 and players_out > 10


def _preference_order(searcher, pos):
    """The position's moves in the order the solver tries them for its best move (the
    search's static scores, higher first, ties in legal order), sorted here: the compiled
    choice of the best move walks that order without sorting it."""
    _load(searcher, pos)
    records, _, scores = _root(searcher)
    preference = sorted(range(len(records)), key=lambda i: (-scores[i], i))
    return [Move.from_array(records[i:i + 1])[0] for i in preference]


@pytest.mark.parametrize("seed", range(2))
def test_best_move_is_the_first_in_the_preference_order_that_reaches_the_value(seed):
    """The best move is defined by an order that depends on the position alone (the move
    order's static score, ties in legal order): every move preferred to it is worse."""
    searcher = Searcher(12)
    earlier_ties_in_legal_order = 0
    for pos, ref in _positions(5000 + seed, 40, max_cards=4):
        result = solve(pos, all_moves=True)
        value_of = {}
        for s in result.moves:
            for m in [s.move, *s.equivalent]:
                value_of[m] = s.value
        ordered = _preference_order(searcher, pos)
        assert sorted(map(str, ordered)) == sorted(map(str, pos.legal_moves()))
        k = ordered.index(result.best)
        assert value_of[result.best] == result.value == ref
        assert all(value_of[m] < result.value for m in ordered[:k]), pos.to_json()
        legal = pos.legal_moves()
        earlier_ties_in_legal_order += any(
            value_of[m] == result.value for m in legal[:legal.index(result.best)])
    # the order differs from the legal order where it matters
    assert earlier_ties_in_legal_order >= 5


@pytest.mark.parametrize("seed", range(2))
def test_results_do_not_depend_on_table_size(seed):
    for pos, ref in _positions(3000 + seed, 20):
        big = solve(pos, table_bits=20)
        tiny = solve(pos, table_bits=4, max_table_bits=4)
        assert big.value == ref
        assert (big.value, big.best, big.pv) == (tiny.value, tiny.best, tiny.pv)


def test_fresh_tables_make_counts_and_limited_answers_reproducible():
    """Exact answers never depend on the tables, but node counts and how far a limited
    solve gets do (a table that knows part of the tree does more in a budget): solve_many
    with node limits differed from run to run in a helper's check. fresh_tables=True
    starts every position from empty tables: the same results whatever came before and
    whatever the threads."""
    objs = _endgames_4x6(8)

    def key(r):
        return (r.value, r.lower, r.upper, r.exact, r.best, r.pv, r.nodes, r.tt_hits)

    alone = [key(solve(o, node_limit=20_000, fresh_tables=True)) for o in objs]
    assert any(not exact for _, _, _, exact, *_ in alone)    # the limit bites somewhere
    for o in objs:
        solve(o)                                               # a warm table
    warm = [key(solve(o, node_limit=20_000)) for o in objs]
    assert warm != alone                                      # what the option is for
    assert [key(solve(o, node_limit=20_000, fresh_tables=True)) for o in objs] == alone
    for threads in (1, 2):
        rs = solve_many(objs, threads=threads, node_limit=20_000, fresh_tables=True)
        assert [key(r) for r in rs] == alone
    with pytest.raises(TypeError, match="fresh_tables"):
        solve(objs[0], fresh_tables="yes")


def test_a_cleared_table_searches_as_a_new_one_and_its_eras_wrap_safely():
    """clear_table() starts a new era of the tables instead of zeroing them (8 MiB at the
    default size, about half a millisecond): an entry of an earlier era never matches. Once
    every 2**16 clears the eras run out and the entries are zeroed. Either way a cleared
    searcher searches exactly as a new one: same answers, nodes and table hits."""
    positions = _endgames_4x6(5)

    def key(r):
        return (r.value, r.best, r.pv, r.nodes, r.tt_hits)

    new = [key(solve(p, searcher=Searcher(16, max_tt_bits=16))) for p in positions]
    s = Searcher(16, max_tt_bits=16)
    for p in positions:
        solve(p, searcher=s)
        assert s.holds_position()
    assert solve(positions[0], searcher=s).nodes < new[0][3]   # what a warm table does
    for p, fresh in zip(positions, new):
        s.clear_table()
        assert not s.holds_position()
        assert key(solve(p, searcher=s)) == fresh
    # the last position's entries are of this era; after 2**16 more clears the era
    # number comes round again, and only the zeroing keeps them from matching
    s.clear_table()
    solve(positions[-1], searcher=s)
    for _ in range(2**16):
        s.clear_table()
    assert not s.holds_position()
    assert key(solve(positions[-1], searcher=s)) == new[-1]


def test_results_do_not_depend_on_table_growth():
    """A table that grows in the middle of the searches (from 16 entries, after 256
    nodes, up to 2**12), one that never grows and the default: the same answers."""
    for pos in _endgames_4x6(6):
        big = solve(pos, all_moves=True)
        fixed = solve(pos, table_bits=6, max_table_bits=6, all_moves=True)
        growing = solve(pos, table_bits=4, max_table_bits=12, all_moves=True)
        assert growing.nodes > 16 * (16 + 64 + 256 + 1024)  # it grew all the way to 2**12
        for other in (fixed, growing):
            assert (big.value, big.best, big.pv) == (other.value, other.best, other.pv)
            assert [(m.move, m.value) for m in big.moves] == \
                [(m.move, m.value) for m in other.moves]


def test_table_grows_to_its_bound_keeps_its_entries_and_clear_gives_its_first_size():
    pos = _endgames_4x6(4)[3]
    fixed = solve(pos, table_bits=12, max_table_bits=12)
    s = Searcher(4, max_tt_bits=10)
    assert (s.tt_bits, s.initial_tt_bits, s.max_tt_bits) == (4, 4, 10)
    first = solve(pos, searcher=s)
    assert first.nodes > 16 * (16 + 64 + 256)       # enough nodes for three growths
    assert s.tt_bits == 10                          # 4 -> 6 -> 8 -> 10, and no further
    assert s.table_bytes == 16 * (2**10 + 2**4)     # the small table stays as it was
    assert (first.value, first.best, first.pv) == (fixed.value, fixed.best, fixed.pv)
    assert s.grow_table() is False                  # at its bound
    s.clear_table()
    assert s.tt_bits == 4 and s.table_bytes == 16 * (2**4 + 2**4)
    assert solve(pos, searcher=s).nodes == first.nodes     # empty again, same search


def _arena_filling_position():
    """Under RULES sec. 9's long sequences 3s to 8s in every suit and two wild cards lead
    273,628 ways: five such leads on a line fill the search's first move arena."""
    hand = [suit + rank for rank in "345678" for suit in "SHCD"] + ["H2", "H2", "S9"]
    assert len(legal_moves(hand, "2", rules="long-sequences")) == 273_628
    return Position.from_json({"level": "2", "hands": [hand, ["C3"], ["D3"], ["H3"]],
                               "finished": [], "to_move": 0, "table": None},
                              rules="long-sequences")


def test_a_line_of_play_with_more_moves_than_the_move_arena_holds_is_solved():
    """Issue 4 (an exact value unless a limit runs out): the search generates a node's
    moves above its parents' in one arena (1,048,576 moves at first), which a line of
    long-sequence leads filled; the search then ended as at a limit: no value and "a
    limit stopped the search", with no limit given. The arena grows (and clear_table()
    gives it its first size back)."""
    pos = _arena_filling_position()
    s = Searcher(16)
    first = s.arena_moves
    result = solve(pos, searcher=s)
    assert result.exact and result.value is not None and s.arena_moves > first
    end = pos.copy()
    for seat, move in result.pv:        # the line ends the hand at its value
        assert end.to_move == seat
        end.push(move)
    assert end.is_over and end.team_value(pos.to_move) == result.value
    # (+3: the long hand goes out, then its partner's D3 leads and no 3 beats it)
    assert result.value == 3 and solve(pos, at_least=3, searcher=s).reached is True
    s.clear_table()
    assert s.arena_moves == first


@pytest.mark.skipif(not sys.platform.startswith("linux") or UNDER_SANITIZER,
                    reason="an address-space limit (Linux; not under the sanitizers)")
def test_memory_refused_names_what_it_was_for_and_a_grown_table_still_shrinks():
    """A table or arena that cannot be allocated is a MemoryError naming which and its
    size (the arenas' failure blamed the table; a move arena that could not grow said
    the moves did not fit, and the next search then ended at once, as at a limit), and
    clear_table() gives a grown table its first size even when memory for a new one
    cannot be had (it kept the grown one, emptied): cut down in place, it gives the
    process the grown table's memory back (a 64 MiB table cut to 1 MiB), and it is
    empty, so that the searcher searches as a new one (same nodes and table hits), not
    with entries of before the clear."""
    code = ADDRESS_LIMIT + """if True:
        from guandan_core.cli_solve import EXAMPLE_POSITION
        from solver import Searcher, solve
        from guandan_core.position import Position
        from solver.search import _load
        def key(r):
            return (r.value, r.nodes, r.tt_hits)
        example = solve(EXAMPLE_POSITION, fresh_tables=True).value
        # (kept alive: its arenas, freed, would leave the room that Searcher(4) below
        # must not find)
        fresh = Searcher(16, max_tt_bits=22)
        new = key(solve(EXAMPLE_POSITION, searcher=fresh))
        s = Searcher(16, max_tt_bits=22)
        solve(EXAMPLE_POSITION, searcher=s)        # entries in the table
        while s.tt_bits < 22:
            s.grow_table()                          # (which keeps them)
        print(s.tt_bits)
        before = vm_size()
        limit(2**20)
        s.clear_table()
        after = vm_size()
        print(s.tt_bits, s.table_bytes)
        unlimit()
        print(before - after >= 16 * (2**22 - 2**16) - 2**20)
        result = solve(EXAMPLE_POSITION, searcher=s)
        print(result.value == example, key(result) == new)
        s = Searcher(16)
        _load(s, Position.from_json(%r, rules="long-sequences"))
        limit(40 * 2**20)       # room for Python, not for an arena of 72 MiB
        try:
            s.search(-4, 4)
        except MemoryError as exc:
            print(exc)
        unlimit()
        print(s.search(-4, 4), s.arena_moves)     # it grows now, and searches
        limit(2**22)            # room for a small table, not for the 18 MiB arena
        try:
            Searcher(4, max_tt_bits=4)
        except MemoryError as exc:
            print(exc)
        limit(2**20)
        try:
            Searcher(20)
        except MemoryError as exc:
            print(exc)
    """
    code %= (_arena_filling_position().to_json(),)
    proc = run_python(code, MALLOC_ARENA_MAX="1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:4] == ["22", f"16 {16 * (2**16 + 2**16)}", "True", "True True"]
    assert lines[4:6] == [f"cannot allocate a move arena of {4 * 2**20:,} moves "
                          f"({4 * 2**20 * 18:,} bytes)", f"3 {4 * 2**20}"]
    assert lines[6].startswith("cannot allocate the search's move arenas (")
    # (at least the move arena's 18 bytes a move)
    assert int(re.search(r"\(([0-9,]+) bytes\)", lines[6])[1].replace(",", "")) >= 18 * 2**20
    assert lines[7] == f"cannot allocate the transposition table ({16 * (2**20 + 2**18):,} bytes)"


def test_reaches_of_a_new_searcher_grows_a_full_move_arena_and_answers():
    """Issue 4 (an exact answer unless a limit runs out) for reaches() of a new Searcher,
    not only for search(), which solve() calls first (so that its reaches() met an arena
    already grown): a line that fills the move arena grows it and the call asks again,
    where one that did not would answer None, as at a limit, with no limit given. By
    RULES the team to move gets +3 here: each opponent holds a single 3 and beats nothing
    seat 0 plays (no play of seat 0 is lower than a 3), so seat 0 keeps the lead to its
    last card, and then its partner leads D3, which neither opponent's 3 beats."""
    s = Searcher(16)
    _load(s, _arena_filling_position())
    assert s.reaches(3, True) is True
    assert s.arena_moves > FIRST_ARENA_MOVES


def test_child_reaches_of_a_new_searcher_grows_a_full_move_arena_and_answers():
    """The same for child_reaches(): seat 3 has only the pass over seat 0's ace, after
    which seat 0 leads the arena-filling hand (+3 for team 0, as above). The answer is
    True, the arena grew, and the position is left as it was."""
    obj = dict(_arena_filling_position().to_json(), to_move=3,
               table={"owner": 0, "play": ["Single", "A", ["SA"]]})
    s = Searcher(16)
    _load(s, Position.from_json(obj, rules="long-sequences"))
    before = _searcher_state(s)
    records, _, _ = _root(s, merge=False)
    assert [str(m) for m in Move.from_array(records)] == ["PASS"]
    assert s.child_reaches(_record_bytes(records, 0), 3, True) is True
    assert s.arena_moves > FIRST_ARENA_MOVES
    assert _searcher_state(s) == before


def test_best_move_of_a_new_searcher_grows_a_full_move_arena_and_answers():
    """The same for best_move(), whose probe of each move is a search of its own: seat 2
    leads its only card, D3, and is out first (seat 3's H3 does not beat it); seat 0,
    its partner, then leads the arena-filling hand, which nobody can beat, and is out
    second: +3 for team 0 by RULES. The best move is that lead, not None as at a limit,
    and the arena grew."""
    s = Searcher(16)
    _load(s, Position.from_json(dict(_arena_filling_position().to_json(), to_move=2),
                                rules="long-sequences"))
    before = _searcher_state(s)
    assert s.best_move(3) == 0
    assert s.arena_moves > FIRST_ARENA_MOVES
    assert _searcher_state(s) == before


def test_principal_line_of_a_new_searcher_grows_a_full_move_arena_and_ends_the_hand():
    """The same for principal_line(): seat 0 passes over its partner's D4, seat 1 (C3)
    cannot beat it, and the line from there is the one above: seat 2 leads D3 and is out
    first, then seat 0 plays its whole hand unbeaten and is out second, +3 for team 0.
    The line is whole (not cut short as at a limit), it ends the hand so, the arena
    grew, and the position is left as it was."""
    obj = dict(_arena_filling_position().to_json(),
               table={"owner": 2, "play": ["Single", "4", ["D4"]]})
    pos = Position.from_json(obj, rules="long-sequences")
    s = Searcher(16)
    _load(s, pos)
    before = _searcher_state(s)
    records, _, _ = _root(s, merge=False)
    assert str(Move.from_array(records)[0]) == "PASS"
    data, seats, cut = s.principal_line(_record_bytes(records, 0), 3)
    assert cut is False and s.arena_moves > FIRST_ARENA_MOVES
    assert _searcher_state(s) == before
    assert seats[:4] == [0, 1, 2, 3]
    end = pos.copy()
    for seat, move in zip(seats, Move.from_array(np.frombuffer(data, MOVE_DTYPE))):
        assert end.to_move == seat
        end.push(move)
    assert end.is_over and end.finished[:2] == (2, 0) and end.team_value(0) == 3


def test_answers_generated_above_the_first_arena_are_room_checked_by_the_grown_arena():
    """Opponents that can answer (seat 1 holds SK SA) on a line that grows the move
    arena: their answers, generated above the first arena's end, fit in the grown one.
    Seat 0 still gets +3 by RULES: nobody else holds a bomb, so seat 0 takes back any
    trick with one of its bombs (four 3s, ...) and goes out with a bomb nobody beats; its
    partner then leads its last card, D3, and is out second. (The room is checked against
    the grown arena's size: against the first one's it came out negative and the search
    gave up with a MemoryError.)"""
    obj = _arena_filling_position().to_json()
    obj["hands"][1:] = [["SK", "SA"], ["D3"], ["H3"]]
    pos = Position.from_json(obj, rules="long-sequences")
    s = Searcher(16)
    result = solve(pos, searcher=s, pv=False)
    assert (result.value, result.exact) == (3, True)
    assert s.arena_moves > FIRST_ARENA_MOVES


@pytest.mark.skipif(not os.path.exists("/proc/self/status") or UNDER_SANITIZER,
                    reason="reads /proc (Linux); the sanitizers' allocator keeps memory")
def test_clear_table_gives_back_the_memory_of_a_grown_move_arena():
    """clear_table() gives a move arena that grew its first size (docs/API.md), and the
    memory with it: an arena of 4 * 2**20 moves (18 bytes each) cleared leaves the
    process 54 MiB smaller, not an arena of the first size in a block of the grown one."""
    s = Searcher(16)
    assert solve(_arena_filling_position(), searcher=s).exact
    grown = s.arena_moves
    assert grown > FIRST_ARENA_MOVES
    before = vm_size()
    s.clear_table()
    assert s.arena_moves == FIRST_ARENA_MOVES
    assert before - vm_size() >= (grown - FIRST_ARENA_MOVES) * 18 - 2**20


def test_a_grown_table_keeps_what_it_knew():
    """The entries move to the larger table: the position just solved is answered from
    it again (a table that lost them would search it all again)."""
    pos = _endgames_4x6(4)[3]
    s = Searcher(16, max_tt_bits=18)
    first = solve(pos, searcher=s)
    assert s.tt_bits == 16                          # too few nodes to grow by itself
    assert s.grow_table() is True and s.tt_bits == 18
    again = solve(pos, searcher=s)
    assert again.value == first.value and again.nodes < first.nodes / 20
    # a step to a bound only twice as large (the entries move in place: half of them by
    # the old size, the small table from the old end to the new one)
    s = Searcher(16, max_tt_bits=17)
    first = solve(pos, searcher=s)
    assert s.grow_table() is True and s.tt_bits == 17 and s.grow_table() is False
    again = solve(pos, searcher=s)
    assert again.value == first.value and again.nodes < first.nodes / 20


def test_one_table_a_thread_whatever_sizes_the_solves_ask_for():
    """A thread keeps one searcher: a solve with other table sizes replaces it (one a
    size setting, kept for good, held several memory bounds at once: 4 tables, 638 MiB
    for four 3-card solves). The default bound is the same setting written out."""
    from solver import search
    pos = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
           "to_move": 0, "table": None}
    solve(pos, table_bits=12)
    first = search._local.searcher
    assert (first.initial_tt_bits, first.max_tt_bits) == (12, 24)
    solve(pos, table_bits=12, max_table_bits=24)         # the same setting written out
    assert search._local.searcher is first
    solve(pos, table_bits=13, max_table_bits=14)
    second = search._local.searcher
    assert second is not first and (second.initial_tt_bits, second.max_tt_bits) == (13, 14)
    assert [v for v in vars(search._local).values() if isinstance(v, Searcher)] == [second]
    solve(pos)                                          # back to the default
    assert search._local.searcher.initial_tt_bits == search.DEFAULT_TABLE_BITS == 18


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_a_solve_with_other_table_sizes_frees_the_old_table_before_making_its_own(
        monkeypatch):
    """API ("replaces it (its tables are freed), so a thread holds one memory bound at a
    time"): the thread's old table is unmapped before the new searcher is made. A local
    name still held the old searcher, so switching from a grown 260 MiB table to
    table_bits=24 peaked at 556 MiB (a review helper's measurement), both tables at once.
    Read from the process's mapped memory (VmSize) as the new searcher is asked for."""
    import threading
    from solver import search

    def vm_kib():
        return int([line for line in open("/proc/self/status")
                    if line.startswith("VmSize")][0].split()[1])

    real, mapped_when_made = search.Searcher, []

    class Counted(type):                # (isinstance(s, Searcher) still holds)
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

    class Made(metaclass=Counted):      # (the real class takes no subclass)
        def __new__(cls, *args, **kwargs):
            mapped_when_made.append(vm_kib())
            return real(*args, **kwargs)

    monkeypatch.setattr(search, "Searcher", Made)
    pos = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
           "to_move": 0, "table": None}
    seen = {}

    def run():          # (a thread of its own: it starts with no searcher)
        solve(pos, table_bits=22, max_table_bits=22)
        seen["table_kib"] = search._local.searcher.table_bytes // 1024
        seen["before"] = vm_kib()
        solve(pos, table_bits=12)
        seen["value"] = solve(pos, table_bits=12).value

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert seen["value"] == 3 and len(mapped_when_made) == 2
    assert seen["table_kib"] >= 64 * 1024
    # the 64 MiB (and more) of the first table are gone when the second is made
    assert mapped_when_made[1] <= seen["before"] - seen["table_kib"] + 4 * 1024, seen


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_a_growing_table_stays_within_its_bound():
    """On Linux the main table grows in place (mremap): the old and the new table never
    exist side by side, so the process's peak memory is the bound, not the bound plus the
    old table (68 MiB of tables peaked at 84 MiB)."""
    script = (
        "from solver import Searcher\n"
        "def kib(k): return int([l for l in open('/proc/self/status')"
        " if l.startswith(k)][0].split()[1])\n"
        "base = kib('VmRSS')\n"
        "s = Searcher(18, max_tt_bits=22)\n"
        "assert s.grow_table() and s.tt_bits == 20 and s.grow_table() and s.tt_bits == 22\n"
        "print(s.table_bytes // 1024, kib('VmHWM') - base)\n")
    out = run_python(script)
    assert out.returncode == 0, out.stderr
    table_kib, peak_kib = map(int, out.stdout.split())
    assert table_kib == (2**22 + 2**18) * 16 // 1024
    assert peak_kib < table_kib + 8 * 1024, (table_kib, peak_kib)


def test_table_sizes_may_be_numpy_integers():
    pos = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
           "to_move": 0, "table": None}
    assert solve(pos, table_bits=np.int64(12), max_table_bits=np.int32(14)).value == 3


@pytest.mark.parametrize("kwargs, message", [
    ({"max_table_bits": 12}, "max_table_bits must be table_bits (18) to 30, not 12"),
    ({"max_table_bits": 31}, "not 31"),
    ({"max_table_bits": 2.5}, "max_table_bits must be a whole number, not 2.5"),
    ({"table_bits": 3}, "table_bits must be 4..30, not 3"),
    ({"table_bits": "20"}, "table_bits must be a whole number, not '20'"),
    ({"table_bits": True}, "not True"),
    ({"table_bits": [20]}, "table_bits must be a whole number, not [20]"),
])
def test_bad_table_sizes_are_named(kwargs, message):
    pos = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
           "to_move": 0, "table": None}
    with pytest.raises(ValueError, match=re.escape(message)):
        solve(pos, **kwargs)


@pytest.mark.parametrize("bits", [20.5, True, 30.0, 3, "20"])
def test_a_searchers_table_size_is_a_whole_number_in_range(bits):
    with pytest.raises(ValueError, match=re.escape(
            f"tt_bits must be a whole number 4..30, not {bits!r}") + "$"):
        Searcher(bits)


@pytest.mark.parametrize("switch, value", [("use_tt", "no"), ("use_plain", 0),
                                           ("use_etc", None), ("use_merge", [])])
def test_a_searchers_switches_are_true_or_false(switch, value):
    """A C ``bint`` argument took ``use_tt="no"`` as true; the switches are refused like
    solve's flags instead."""
    with pytest.raises(TypeError, match=re.escape(f"{switch} must be True or False, "
                                                  f"not {value!r}")):
        Searcher(10, **{switch: value})
    assert Searcher(10, **{switch: np.bool_(False)}).__getattribute__(switch) is False
    with pytest.raises(TypeError, match="check_signals must be True or False, not 'yes'"):
        Searcher(10).check_signals = "yes"


def test_table_sizes_are_checked_with_a_searcher_of_ones_own_too():
    """With ``searcher=`` its own tables are used, but a bad size is still named (it was
    ignored)."""
    pos = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
           "to_move": 0, "table": None}
    with pytest.raises(ValueError, match="table_bits must be a whole number, not 'junk'"):
        solve(pos, searcher=Searcher(10), table_bits="junk")
    with pytest.raises(ValueError, match=re.escape("max_table_bits must be table_bits (18) "
                                                   "to 30, not -7")):
        solve(pos, searcher=Searcher(10), max_table_bits=-7)
    assert solve(pos, searcher=Searcher(10), table_bits=12).value == 3


def test_table_reused_at_another_level_or_rule_set_gives_that_positions_value():
    """RULES sec. 2, 9: the same cards mean other things at another level or under other
    rule options, so a table kept from an earlier solve must not answer for them. Found by
    a random search: positions solved at one level and then at another with one table came
    out wrong (1 instead of 3). Seat 0 can form a straight under both rule sets, so table
    keys hold raw ranks, and a tube of two pairs only with long sequences."""
    from guandan_core.rules import Rules
    rng = random.Random(77)
    ranks = "23456789TJQKA"
    seat0 = ["S3", "D3", "S4", "D4", "C5", "C6", "C7"]
    deck = [s + r for s in "SCD" for r in ranks] * 2 + ["SB", "HR"] * 2
    for card in seat0:
        deck.remove(card)
    differ = {"level": 0, "rules": 0}
    for _ in range(60):
        rng.shuffle(deck)
        level, first_level = rng.sample(ranks[:-1], 2)
        obj = {"level": level, "hands": [seat0, deck[0:3], [], deck[3:6]], "finished": [2],
               "to_move": 0, "table": None}
        fresh = solve(obj, searcher=Searcher(16)).value
        shared = Searcher(16)
        earlier = solve(dict(obj, level=first_level), searcher=shared).value
        differ["level"] += earlier != fresh
        assert solve(obj, searcher=shared).value == fresh, (obj, first_level)
        # the same cards with longer sequences allowed, after the standard rules
        other = Position.from_json(obj, Rules(long_sequences=True))
        other_fresh = solve(other, searcher=Searcher(16)).value
        differ["rules"] += other_fresh != fresh
        assert solve(other, searcher=shared).value == other_fresh, obj
    # the check bites only where the values differ
    assert min(differ.values()) >= 5, differ


def test_principal_line_is_legal_and_reaches_the_value():
    for pos, ref in _positions(4000, 20):
        result = solve(pos)
        p = pos
        for seat, move in result.pv:
            assert seat == p.to_move
            p = p.play(move)
        assert p.is_over
        sign = 1 if pos.to_move % 2 == 0 else -1
        assert p.outcome * sign == result.value == ref


def _searcher_state(searcher):
    """What a searcher's position is: hands, finishing order, table owner, seat to move."""
    return (searcher.hands().tobytes(), searcher.finished(), searcher.owner(),
            searcher.to_move())


def test_child_reaches_answers_for_the_child_and_leaves_the_position_as_it_was():
    """``Searcher.child_reaches(record, value, maximizing)`` is ``reaches`` after the move,
    the position left as it was (docs/API.md): for each move of small endgames, the
    answer is the plain minimax's for the position after it, and the searcher's position
    is the same before and after. (solve() never calls it: a mutant that left the
    searcher in the child position passed every other test.)"""
    searcher = Searcher(12)
    for pos, _ in _positions(4200, 8):
        _load(searcher, pos)
        before = _searcher_state(searcher)
        records, _, _ = _root(searcher, merge=False)
        moves = list(Move.from_array(records))
        for i, move in enumerate(moves):
            team0 = minimax(pos.play(move), [10**7])
            for v in (team0, team0 + 1):
                if -3 <= v <= 3:
                    assert searcher.child_reaches(_record_bytes(records, i), v, True) == \
                        (team0 >= v)
            assert _searcher_state(searcher) == before


def test_the_searchers_line_refuses_a_first_move_that_does_not_keep_the_value():
    """``Searcher.principal_line`` takes a first move that keeps the value: after one that
    does not (the 5 led before the black joker, which the minimax puts below +3) some seat
    of the line has no move that keeps it, and that is a ValueError, not a line."""
    pos = Position.from_json({"level": "A", "hands": [["D5", "SB"], ["ST"], [], ["S7", "DJ"]],
                              "finished": [2], "to_move": 0, "table": None})
    moves = {m.to_platform()[1]: m for m in pos.legal_moves()}
    assert minimax(pos.play(moves["5"]), [10**6]) < 3 == minimax(pos.play(moves["B"]), [10**6])
    searcher = Searcher(10)
    _load(searcher, pos)
    # (the message says so: it said the side to move does not reach the value, which it
    # does, with the joker)
    with pytest.raises(ValueError, match=r"no move keeps the team-0 value 3: the line stopped "
                                         r"after \d+ move\(s\): the first move given does "
                                         r"not keep that value"):
        searcher.principal_line(moves["5"].record(), 3)
    data, seats, cut = searcher.principal_line(moves["B"].record(), 3)
    assert seats[0] == 0 and not cut


def test_each_move_of_the_line_is_the_best_move_of_the_position_it_is_played_in():
    """The principal line is the best move repeated: solving the position before each of
    its moves gives that move as best, and the same value (for the same team). The line
    is followed in compiled code; this checks it against solve() one position at a time,
    and that following it leaves the searcher's position as it was."""
    searcher = Searcher(12)
    steps = 0
    for pos, ref in _positions(4100, 20):
        result = solve(pos)
        p = pos
        for seat, move in result.pv:
            here = solve(p)
            same_team = (seat - pos.to_move) % 2 == 0
            assert here.best == move and here.value == (ref if same_team else -ref), \
                (pos.to_json(), str(move))
            p = p.play(move)
            steps += 1
        _load(searcher, pos)
        before = _searcher_state(searcher)
        team0 = ref if pos.to_move % 2 == 0 else -ref
        data, seats, cut = searcher.principal_line(result.best.record(), team0)
        assert not cut and list(seats) == [seat for seat, _ in result.pv]
        assert list(Move.from_array(np.frombuffer(data, MOVE_DTYPE))) == \
            [m for _, m in result.pv]
        assert _searcher_state(searcher) == before
    assert steps > 60


def test_threshold_mode_agrees_with_value():
    for pos, ref in _positions(5000, 20):
        for t in (-3, -2, -1, 1, 2, 3):
            assert probe(pos, t) == (ref >= t)


def test_threshold_solve_answers_the_question_with_a_move_that_reaches_it():
    """Issue 4 (threshold mode): ``solve(at_least=t)`` answers "can the team to move reach
    at least t?" as the value does, its bounds hold the value, and its best move is the
    first move of the preference order that reaches t (checked by minimax), none when t
    is out of reach; the same from a cold table, one warm from solving the value (which
    holds other questions' moves) and a tiny one."""
    from solver import clear_tables
    searcher = Searcher(12)
    reached = not_reached = best_not_first = 0
    for pos, ref in _positions(5100, 25, max_cards=4):
        values = {move: _mover_value(pos, move) for move in pos.legal_moves()}
        ordered = _preference_order(searcher, pos)
        for t in (-3, -2, -1, 1, 2, 3):
            clear_tables()
            results = [solve(pos, at_least=t)]
            solve(pos)
            results += [solve(pos, at_least=t),
                        solve(pos, at_least=t, table_bits=4, max_table_bits=4)]
            for r in results:
                assert r.threshold == t and r.reached == (ref >= t), (pos.to_json(), t)
                # what the answer proves, in values, nothing that depends on the table
                below = max(v for v in (-3, -2, -1, 1, 2, 3) if v < t) if t > -3 else None
                assert (r.lower, r.upper) == ((t, 3) if ref >= t else (-3, below))
                assert r.value == (ref if r.lower == r.upper else None)
                assert _answer(r) == _answer(results[0])
            r = results[0]
            if r.exact:
                assert r.best == solve(pos).best and r.pv == solve(pos).pv
            elif ref >= t:
                reached += 1
                assert values[r.best] >= t, (pos.to_json(), t, str(r.best))
                assert r.pv == [] and not r.pv_cut      # a line needs the value
                k = ordered.index(r.best)
                assert all(values[m] < t for m in ordered[:k])
                best_not_first += k > 0
            else:
                not_reached += 1
                assert r.best is None and r.pv == []
    assert reached >= 30 and not_reached >= 30 and best_not_first >= 3, \
        (reached, not_reached, best_not_first)


def test_threshold_mode_costs_less_than_the_value_and_says_so_in_json():
    obj = _endgames_4x6(3)[2]
    from solver import clear_tables
    clear_tables()
    full = solve(obj, pv=False)
    for t in (full.value, full.value + 1 if full.value < 3 else -3):
        clear_tables()
        r = solve(obj, at_least=t)
        assert r.nodes < full.nodes
        out = json.loads(json.dumps(r.to_json()))
        assert out["threshold"] == t and out["reached"] == (full.value >= t)
        assert out["lower"] <= full.value <= out["upper"]
        assert (out["best"] is None) == (full.value < t)
    assert "threshold" not in full.to_json() and full.reached is None
    # a limit that stops it first: neither yes nor no
    r = solve(obj, at_least=full.value, node_limit=0)
    assert r.reached is None and r.to_json()["reached"] is None and r.threshold == full.value


@pytest.mark.parametrize("bad", [0, 4, -4, True, 1.0, "2", None.__class__])
def test_bad_thresholds_are_named(bad):
    obj = _endgames_4x6(1)[0]
    for call in (lambda: solve(obj, at_least=bad), lambda: probe(obj, bad),
                 lambda: solve_many([obj], at_least=bad)):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            call()
    assert solve(obj, at_least=np.int64(1)).threshold == 1


def test_a_finished_hand_is_refused_everywhere():
    """RULES sec. 6: once a team has both players out the hand is over and its value is
    settled (JSON cannot say that, but playing a move can get there); the solver's entry
    points say so instead of searching."""
    last = Position.from_json({"level": "2", "hands": [["S3"], ["S4"], [], ["S6"]],
                               "finished": [2], "to_move": 0, "table": None})
    over = last.play(Move.from_platform(["Single", "3", ["S3"]], "2"))
    assert over.is_over
    for call in (lambda: solve(over), lambda: solve(over, at_least=1),
                 lambda: solve(over, all_moves=True), lambda: probe(over, 1),
                 lambda: solve_many([last, over])):
        with pytest.raises(ValueError, match="the hand is already over: nothing to solve"):
            call()


@pytest.mark.parametrize("seed", range(2))
def test_threshold_every_move_says_which_moves_reach_it(seed):
    """Issue 4 (threshold mode, every move): with ``all_moves`` every legal move, the pass
    included, is asked the threshold's question; the answers match minimax, a move's
    equivalents share its answer, and no value is claimed."""
    checked = {True: 0, False: 0}
    for pos, ref in _positions(5300 + seed, 12, max_cards=4):
        values = {move: _mover_value(pos, move) for move in pos.legal_moves()}
        for t in (-2, -1, 1, 2, 3):
            r = solve(pos, at_least=t, all_moves=True)
            answers = {}
            for score in r.moves:
                assert score.value is None and score.threshold == t
                assert score.to_json()["reaches"] is score.reaches
                for m in [score.move, *score.equivalent]:
                    answers[m] = score.reaches
            assert set(answers) == set(values)
            for move, v in values.items():
                assert answers[move] == (v >= t), (pos.to_json(), t, str(move))
                checked[v >= t] += 1
            assert r.reached == any(answers.values()) == (ref >= t)
    assert min(checked.values()) >= 30, checked


def test_threshold_every_move_stopped_by_a_limit_answers_none():
    from solver import clear_tables
    obj = _endgames_4x6(1)[0]
    clear_tables()
    r = solve(obj, at_least=1, all_moves=True, node_limit=0)
    assert r.reached is None and r.moves
    assert all(m.reaches is None and m.to_json()["reaches"] is None for m in r.moves)


def test_threshold_moves_a_limit_left_unanswered_have_nothing_proven():
    """API.md, MoveScore: in threshold mode `lower`/`upper` are what `reaches` proves, so
    nothing (-3 and +3) for a move a limit left unanswered; only a move whose value a limit
    left unknown outside threshold mode gives its bounds in its JSON."""
    obj = _endgames_4x6(1)[0]
    r = solve(obj, at_least=1, all_moves=True, node_limit=0, fresh_tables=True)
    assert r.moves and all(m.reaches is None for m in r.moves)
    assert all((m.lower, m.upper) == (-3, 3) for m in r.moves)
    assert not any({"lower", "upper"} & set(m.to_json()) for m in r.moves)


def test_solve_many_asks_the_threshold_of_every_position():
    objs = _endgames_4x6(6)
    values = [solve(o, pv=False).value for o in objs]
    rs = solve_many(objs, threads=2, at_least=1)
    assert [r.reached for r in rs] == [v >= 1 for v in values]
    assert {True, False} <= {r.reached for r in rs}


def test_partner_takes_the_wind():
    """RULES sec. 6: seat 0 goes out with an unbeatable play; its partner leads next."""
    pos = Position.from_json({"level": "2", "hands": [["HR"], ["S3"], ["S4"], ["S5"]],
                              "finished": [], "to_move": 0, "table": None})
    result = solve(pos)
    assert result.value == 3  # seat 0 out first, seat 2 leads S4 and goes out second
    assert [(s, m.to_platform()) for s, m in result.pv][0] == (0, ["Single", "R", ["HR"]])


def test_best_move_breaks_no_pair_when_the_next_single_does_as_well():
    """The best move is the first in the order of preference that keeps the value
    (``search._root``: bigger plays, lower ranks, pairs kept together): where every
    answer to the 4 reaches the same value (checked with the minimax), the single 6 comes
    before a 5 of the pair, though the 5 is lower."""
    pos = Position.from_json({"level": "2", "hands": [["C5", "D5", "C6"], ["SA"], ["C3"],
                                                      ["DK", "CK"]],
                              "finished": [], "to_move": 0,
                              "table": {"owner": 3, "play": ["Single", "4", ["C4"]]}})
    values = {move: minimax(pos.play(move), [10**6]) for move in pos.legal_moves()}
    assert len(values) == 4 and set(values.values()) == {-3}     # (seat 0 moves: team 0)
    result = solve(pos)
    assert result.value == -3
    assert result.best.to_platform() == ["Single", "6", ["C6"]]


def test_best_move_tries_every_move_of_an_equal_score():
    """Moves equal but for suits share a score in the order of preference, and where the
    suits matter (a straight flush in the hand) each is tried: the single HQ comes first
    in legal order but breaks the straight flush (the red joker then holds the trick),
    the CQ after it, alone of all the moves, keeps the +3 (checked with the minimax)."""
    pos = Position.from_json({"level": "7", "hands": [["S4"], ["S5"],
                                                      ["CQ", "HT", "HJ", "HQ", "HK", "HA"],
                                                      ["HR", "S6"]],
                              "finished": [], "to_move": 2, "table": None})
    values = {move: minimax(pos.play(move), [10**6]) for move in pos.legal_moves()}
    assert [m.to_platform() for m, v in values.items() if v == 3] == [["Single", "Q", ["CQ"]]]
    result = solve(pos)
    assert result.value == 3
    assert result.best.to_platform() == ["Single", "Q", ["CQ"]]


def test_limits_report_bounds_not_a_wrong_value():
    rng = random.Random(7)
    pos = None
    while pos is None:
        pos = random_position(rng, max_cards=5, active=4, with_table=0)
    result = solve(pos, node_limit=3)
    assert not result.exact and result.value is None
    assert -3 <= result.lower <= result.upper <= 3
    full = solve(pos)
    assert result.lower <= full.value <= result.upper


def _proof_move(searcher, value):
    # the move Searcher.proof_move names, or None for -1
    i = searcher.proof_move(value)
    if i < 0:
        return None
    records, _, _ = _root(searcher)
    return Move.from_array(records[i:i + 1])[0]


def test_the_proof_move_is_the_move_that_proved_the_bound_not_a_later_tie():
    """In a wide window a later move that returns the same value only fails low (at most
    that value), so the proof stays with the move that reached it: the black joker goes
    out third for +2, while the pass lets seat 1 out with its straight (+1, the minimax)."""
    pos = Position.from_json({"level": "6", "hands": [["SB"], ["D4", "D5", "D6", "C7", "H8"],
                                                      [], []],
                              "finished": [2, 3], "to_move": 0,
                              "table": {"owner": 3, "play": ["Single", "3", ["C3"]]}})
    assert {m.to_platform()[0]: minimax(pos.play(m), [10**6])
            for m in pos.legal_moves()} == {"PASS": 1, "Single": 2}
    searcher = Searcher(12)
    _load(searcher, pos)
    assert searcher.search(-4, 4) == 2
    assert _proof_move(searcher, 2).to_platform() == ["Single", "B", ["SB"]]


def test_a_search_that_fails_low_proves_no_move():
    """proof_move names a move only for a bound the root proved with it: a search that
    failed low (the value is at most -1 here) proves nothing about a move, so -1, until a
    search proves at least -1 with one."""
    pos = Position.from_json({"level": "5", "hands": [["S5", "H5", "C6", "D7", "C8", "D8"],
                                                      ["S2", "C3", "HJ"], ["S6", "DQ", "SA"],
                                                      ["S4", "SB"]],
                              "finished": [], "to_move": 2, "table": None})
    searcher = Searcher(12)
    _load(searcher, pos)
    assert searcher.search(-1, 0) == -1
    assert [searcher.proof_move(v) for v in range(-3, 4)] == [-1] * 7
    assert searcher.search(-2, -1) == -1
    assert searcher.proof_move(-1) >= 0 and searcher.proof_move(0) == -1


def _proved_moves(searcher, pos):
    """{value: move} for every value (team-0 terms) that Searcher.proof_move names a move
    for at ``pos``."""
    named = {t: _proof_move(searcher, t) for t in range(-3, 4)}
    return {t: move for t, move in named.items() if move is not None}


@pytest.mark.parametrize("use_runout, js", [
    # plain (no bomb, sequence or straight flush can form): the plain positions' search
    (False, {"level": "A", "hands": [["SB", "HR"], [], ["H8", "HA", "HA"],
                                     ["H4", "H5", "D6", "C9"]],
             "finished": [1], "to_move": 3, "table": None}),
    # seat 1's pair (S5 and the wild H9) runs out unbeaten: the general search's run-out
    (True, {"level": "9", "hands": [["HR"], ["S5", "H9"], ["H4", "DT"], ["H2", "S5", "CK"]],
            "finished": [], "to_move": 1, "table": None}),
], ids=["plain", "run-out"])
def test_a_question_failed_at_its_bound_proves_no_move(use_runout, js):
    """Seat 1 or 3 (team 1) is asked "can you hold team 0 to -3?" (the window (-3, -2)).
    It cannot: the minimax value is -1 whatever it plays. The fail-soft search answers -2,
    which only says "at least -2". So no move has proved "at most -2", and proof_move
    names none. (With ``<=`` for ``<`` where the root notes its proof, the plain search
    named H4 and the run-out named the pair for -2.)"""
    pos = Position.from_json(js)
    values = [_mover_value(pos, move, memo={}) for move in pos.legal_moves()]
    assert max(values) == 1                             # -1 for team 0 at best
    searcher = Searcher(10, use_runout=use_runout)
    _load(searcher, pos)
    if not use_runout:
        searcher.key(plain=True)                        # (ValueError if not plain)
    assert searcher.search(-3, -2) == -2
    assert _proved_moves(searcher, pos) == {}


def test_a_named_proof_move_reaches_its_bound():
    """Whatever question the search was asked, a move proof_move names for a value really
    gets the mover's team that value or better (minimax), with and without the run-out
    check, in plain positions and others; every null window and the full one."""
    rng = random.Random(31)
    checked = 0

    def draw():
        return random_position(rng, max_cards=4, max_total=12)

    for pos, _, memo in _solved(draw, 40, 10**7, memo=True):
        sign = 1 if pos.to_move % 2 == 0 else -1
        for use_runout in (False, True):
            searcher = Searcher(10, use_runout=use_runout)
            for alpha, beta in [(t - 1, t) for t in (-3, -2, -1, 1, 2, 3)] + [(-4, 4)]:
                _load(searcher, pos)
                searcher.clear_table()
                searcher.search(alpha, beta)
                for t, move in _proved_moves(searcher, pos).items():
                    assert _mover_value(pos, move, memo=memo) >= sign * t, \
                        (pos.to_json(), alpha, t)
                    checked += 1
    assert checked >= 100, checked


def test_a_probe_keeps_all_that_its_answer_proves():
    """Fail-soft probes (solver/_search.pyx): "is the value at least +1?" answered with
    the value the search found, here +3 for the mover, narrows the bounds to +3 at once,
    not to +1 and then a question more. Both ways round: the first position's probe
    succeeds in team-0 terms, its mirror's (seats moved by one) fails; each is exact
    within 2 nodes, one probe after the first bound."""
    hand = [["HR"], ["S9", "HQ", "SB"], [], ["S2", "H3", "D4", "D7", "DT", "DJ"]]
    for shift in (0, 1):
        pos = {"level": "T", "hands": hand[-shift:] + hand[:-shift], "finished": [(2 + shift) % 4],
               "to_move": shift, "table": {"owner": 1 + shift,
                                           "play": ["Single", "J", ["CJ"]]}}
        events = []
        full = solve(pos, fresh_tables=True, on_info=events.append)
        bounds = [(e["lower"], e["upper"]) for e in events if e["stage"] == "bound"]
        assert (full.value, bounds) == (3, [(1, 3), (3, 3)]), shift
        limited = solve(pos, node_limit=2, fresh_tables=True)
        assert (limited.exact, limited.value) == (True, 3), shift


def test_limits_report_a_move_that_reaches_the_proven_lower_bound():
    """Issue 4 (limits): with the value unknown, ``best`` is a move proven to reach
    ``lower`` whenever ``lower`` is above -3: checked by minimax on positions stopped at
    several node budgets, many of them where the move the search tries first does not.
    With nothing proven (``lower`` -3) it is the first move in the order of preference."""
    searcher = Searcher(12)
    rng = random.Random(11)
    checked = first_would_fail = nothing_proven = 0
    while checked < 300:
        pos = random_position(rng, max_cards=4, max_total=10)
        if pos is None or pos.is_over:
            continue
        for limit in (3, 10, 30, 100):
            result = solve(pos, node_limit=limit)
            if result.exact:
                break
            if result.lower == -3:
                assert result.best == _preference_order(searcher, pos)[0], pos.to_json()
                nothing_proven += 1
                continue
            try:
                values = {move: _mover_value(pos, move, 20_000) for move in pos.legal_moves()}
            except Budget:
                continue
            checked += 1
            assert values[result.best] >= result.lower, (pos.to_json(), str(result.best))
            first = _preference_order(searcher, pos)[0]
            first_would_fail += values[first] < result.lower
    assert first_would_fail >= 3 and nothing_proven >= 30, (first_would_fail, nothing_proven)


def test_limits_leave_every_move_scored_with_bounds_that_hold_its_value():
    """Issue 4 (limits, every move scored): a move whose value a limit left unknown gets
    the bounds proven of it (``lower``/``upper``, in the JSON only then), the value when
    they meet; they hold the move's minimax value, none is above the position's upper
    bound, and the move that proved the position's lower bound reaches it (the table
    showed "?" beside a best move said to reach +1)."""
    rng = random.Random(12)
    checked = partial = 0
    while checked < 120:
        pos = random_position(rng, max_cards=4, max_total=10)
        if pos is None or pos.is_over:
            continue
        try:
            values = {move: _mover_value(pos, move, 20_000) for move in pos.legal_moves()}
        except Budget:
            continue
        for limit in (10, 30, 100, 300):
            result = solve(pos, all_moves=True, node_limit=limit, fresh_tables=True)
            checked += 1
            for score, entry in zip(result.moves, result.to_json()["moves"]):
                assert ("lower" in entry) is (score.value is None), entry
                for move in [score.move, *score.equivalent]:
                    assert score.lower <= values[move] <= score.upper, (pos.to_json(), limit)
                assert (score.value is not None) is (score.lower == score.upper)
                assert score.upper <= result.upper
                if result.best in [score.move, *score.equivalent] and not result.exact:
                    assert score.lower >= result.lower
                partial += score.value is None and (score.lower, score.upper) != (-3, 3)
    assert partial >= 20, partial


def _flush_positions(seed, count):
    """Positions where suits matter at the root: the seat to move holds a straight flush
    and another card of one of its ranks (playing that card keeps the flush, playing the
    flush's card breaks it); 1 to 3 other players with 1 to 3 cards."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        level = rng.randrange(13)
        suit = rng.randrange(4)
        length = rng.choice([5, 5, 6])
        low = rng.randrange(13 - length + 1)
        run = [(low + i) * 4 + suit for i in range(length)]
        twin = (low + rng.randrange(length)) * 4 + (suit + rng.randrange(1, 4)) % 4
        rest = [k for k in range(54) for _ in range(2)]
        for k in run + [twin]:
            rest.remove(k)
        rng.shuffle(rest)
        mover = rng.randrange(4)
        others = rng.sample([s for s in range(4) if s != mover], rng.randint(1, 3))
        hands = [[] for _ in range(4)]
        hands[mover] = run + [twin]
        for seat in others:
            hands[seat] = [rest.pop() for _ in range(rng.randint(1, 3))]
        out = [s for s in range(4) if not hands[s]]
        try:
            pos = Position(level, hands, out, mover)
        except ValueError:          # both players of a team out
            continue
        made += 1
        yield pos


def test_limits_name_the_suits_of_the_move_that_proved_the_bound():
    """Issue 4 (limits), where suits matter at the root: a search stopped by a node limit
    names as best the very move that proved its bound (the table's hint names a move only
    up to suits: S6 for D6 broke the flush S3-S7 and reached +1, not the +3 proven).
    Checked by solving the position after the move named, without a limit."""
    checked = 0
    for pos in _flush_positions(5, 120):
        sign = 1 if pos.to_move % 2 == 0 else -1

        def reached(move):          # in the mover's terms
            child = pos.play(move)
            if child.is_over:
                return sign * child.outcome
            same_team = child.to_move % 2 == pos.to_move % 2
            return solve(child, pv=False).value * (1 if same_team else -1)
        for limit in (7, 15, 30, 60, 150):
            for kwargs in ({}, {"all_moves": True}, {"at_least": 2}, {"at_least": 3}):
                result = solve(pos, node_limit=limit, pv=False, **kwargs)
                if result.best is None or (result.lower == -3 and not result.reached):
                    continue
                need = result.threshold if result.reached else result.lower
                assert reached(result.best) >= need, (pos.to_json(), limit, kwargs,
                                                      str(result.best), need)
                checked += 1
    assert checked > 500, checked


def test_on_info_reports_the_search_as_it_goes():
    """Issue 4 (API): ``on_info``'s events agree with the answer they lead to: the bounds
    narrow to the result's, ``nodes`` and ``seconds`` only grow and stay within the
    result's, the best event names the result's move and line, and one move event a
    scored move group carries its value, numbered in order; in threshold mode, whether
    each move reaches the threshold."""
    checked = 0
    for obj in _endgames_4x6(12):
        for at_least in (None, 1):
            events = []
            r = solve(obj, all_moves=True, at_least=at_least, fresh_tables=True,
                      on_info=events.append)
            nodes = [e["nodes"] for e in events]
            seconds = [e["seconds"] for e in events]
            assert nodes == sorted(nodes) and nodes[-1] <= r.nodes
            assert seconds == sorted(seconds) and 0 <= seconds[0]
            assert seconds[-1] <= r.seconds
            bounds = [(e["lower"], e["upper"]) for e in events if e["stage"] == "bound"]
            assert bounds[-1] == (r.lower, r.upper)
            assert all(a <= c <= d <= b for (a, b), (c, d) in zip(bounds, bounds[1:]))
            best = [e for e in events if e["stage"] == "best"]
            assert [(e["move"], e["pv"], e["pv_cut"]) for e in best] == \
                ([(r.best, r.pv, r.pv_cut)] if r.best is not None else [])
            moves = [e for e in events if e["stage"] == "move"]
            assert [e["index"] for e in moves] == list(range(1, len(r.moves) + 1))
            assert {e["count"] for e in moves} == {len(r.moves)}
            if at_least is None:
                got = [(e["move"], e["value"], e["equivalent"]) for e in moves]
                assert got == [(m.move, m.value, m.equivalent) for m in r.moves]
            else:
                got = [(e["move"], e["reaches"], e["equivalent"]) for e in moves]
                assert got == [(m.move, m.reaches, m.equivalent) for m in r.moves]
                assert all(e["value"] is None for e in moves)
            checked += 1
    assert checked == 24


def test_a_searchers_heartbeat_runs_during_a_long_search_and_changes_nothing():
    """Issue 4 (a long solve shows progress): ``Searcher.set_heartbeat`` calls its function
    while a search runs, in the searching thread, with ``nodes`` readable and growing; a
    search with a heartbeat makes the same nodes and answers as one without; None takes
    it away."""
    pos = _full_deal(5)
    plain = solve(pos, node_limit=2_000_000, fresh_tables=True)
    s = Searcher()
    seen = []
    caller = threading.get_ident()
    s.set_heartbeat(lambda: seen.append((threading.get_ident(), s.nodes)), 1e-6)
    assert s.heartbeat is not None and s.heartbeat_every == 1e-6
    beaten = solve(pos, node_limit=2_000_000, searcher=s)
    # (the clock is read every 65,536 nodes: about 30 calls in 2 M nodes)
    assert len(seen) >= 10
    assert {thread for thread, _ in seen} == {caller}
    nodes = [n for _, n in seen]
    assert nodes == sorted(nodes) and 0 < nodes[0] and nodes[-1] <= beaten.nodes
    assert (beaten.nodes, beaten.lower, beaten.upper, beaten.best) == \
        (plain.nodes, plain.lower, plain.upper, plain.best)
    s.set_heartbeat(None)
    assert s.heartbeat is None and s.heartbeat_every == 0
    seen.clear()
    solve(pos, node_limit=500_000, searcher=s, fresh_tables=True)
    assert seen == []


def test_an_error_the_heartbeat_raises_ends_the_search_and_is_raised():
    """As a signal handler's exception does (Ctrl-C's): the search ends at once, the call
    that searched raises it, and the searcher answers the next solve as usual; a heartbeat
    that calls the searcher (other than reading it) gets the searching searcher's
    RuntimeError, which ends the search the same way."""
    pos = _full_deal(6)
    s = Searcher()

    class Beat(Exception):
        pass

    def beat():
        raise Beat("from the heartbeat")

    s.set_heartbeat(beat, 1e-6)
    with pytest.raises(Beat, match="from the heartbeat"):
        solve(pos, node_limit=10**9, searcher=s, fresh_tables=True)
    assert s.nodes < 300_000        # (ended at the first heartbeat, about 65,536 nodes in)
    s.set_heartbeat(s.clear_table, 1e-6)
    with pytest.raises(RuntimeError, match="is searching"):
        solve(pos, node_limit=10**9, searcher=s, fresh_tables=True)
    s.set_heartbeat(None)
    obj = _endgames_4x6(1)[0]
    assert solve(obj, searcher=s, fresh_tables=True).value == solve(obj).value


_SUBINTERPRETER_BEAT = r'''
import sys
try:
    import _interpreters as interpreters             # (Python 3.13)
except ImportError:
    try:
        import _xxsubinterpreters as interpreters
    except ImportError:
        print("no sub-interpreters"); sys.exit(0)
code = """
import random, warnings
warnings.simplefilter("ignore")         # (numpy's warning about sub-interpreters)
try:
    from guandan_core.match import deal
    from guandan_core.position import Position
    from solver import Searcher
    from solver.search import _load
except ImportError as exc:
    print("cannot import here:", exc, flush=True)
    raise SystemExit
s = Searcher()
for after in (1, 3):                # (the search gave up the GIL at 1,024 nodes)
    _load(s, Position(7, deal(random.Random(6)), to_move=0))
    s.reset_counters()
    s.limits(3_000_000, None)
    calls = []
    def beat():
        calls.append(s.nodes)
        if len(calls) == after:
            raise ValueError("from the heartbeat")
    s.set_heartbeat(beat, 1e-6)
    try:
        print("returned", s.search(0, 1), flush=True)
    except ValueError as exc:
        print("raised", exc, len(calls), flush=True)
"""
try:
    i = interpreters.create(interpreters.new_config("legacy"))   # (3.13: one that loads it)
except AttributeError:
    try:
        i = interpreters.create(isolated=False)                   # (3.12)
    except TypeError:
        i = interpreters.create()
interpreters.run_string(i, code)
print("main interpreter: fine", sys.exc_info()[0])
'''


def test_a_heartbeat_in_a_sub_interpreter_raises_there():
    """A search that gave up the GIL calls its heartbeat on the thread state it gave up,
    not the thread's default one (the main interpreter's, in a sub-interpreter, which got
    the exception: the search returned None and the main interpreter failed); Python's
    signal handlers run the same way. In a process of its own."""
    proc = run_python(_SUBINTERPRETER_BEAT)
    out = proc.stdout.splitlines()
    if out and (out[0] == "no sub-interpreters" or out[0].startswith("cannot import here")):
        pytest.skip(out[0])
    assert proc.returncode == 0, proc.stderr
    assert out == ["raised from the heartbeat 1", "raised from the heartbeat 3",
                   "main interpreter: fine None"], (out, proc.stderr)

@pytest.mark.parametrize("callback, every, error, message", [
    (5, 1.0, TypeError, "the heartbeat must be callable or None, not 5"),
    (print, 0, ValueError, "interval must be a number of seconds above 0, not 0"),
    (print, -1, ValueError, "not -1"),
    (print, float("inf"), ValueError, "not inf"),
    (print, float("nan"), ValueError, "not nan"),
    (print, True, ValueError, "not True"),
    (print, "1", ValueError, "not '1'"),
    (print, 10**400, ValueError, "not 1000"),
])
def test_a_bad_heartbeat_is_named(callback, every, error, message):
    with pytest.raises(error, match=re.escape(message)):
        Searcher().set_heartbeat(callback, every)


def test_solves_working_events_say_what_the_search_is_still_doing():
    """``solve(info_interval=)``: "working" events between the others, from inside the
    search: first the value (with the bounds of the last bound event), then the best move
    (the value known), then each move being scored (the move, index and count of the move
    event that follows), in that order; the answer and the node count are those of a solve
    without them."""
    tasks_seen = set()
    for obj in _endgames_4x6(10):
        plain = solve(obj, all_moves=True, fresh_tables=True)
        events = []
        r = solve(obj, all_moves=True, fresh_tables=True, on_info=events.append,
                  info_interval=1e-6)
        assert (r.value, r.best, r.pv, r.moves, r.nodes) == \
            (plain.value, plain.best, plain.pv, plain.moves, plain.nodes)
        bounds, phase, scored = (-3, 3), 0, 0
        order = {"value": 0, "best": 1, "moves": 2}
        for e in events:
            if e["stage"] == "bound":
                bounds = e["lower"], e["upper"]
            elif e["stage"] == "move":
                scored = e["index"]
            elif e["stage"] == "working":
                tasks_seen.add(e["task"])
                assert (e["lower"], e["upper"]) == bounds
                assert order[e["task"]] >= phase
                phase = order[e["task"]]
                if e["task"] == "moves":
                    # the move being scored: the next move event's
                    later = next(m for m in events[events.index(e):] if m["stage"] == "move")
                    assert (e["move"], e["index"], e["count"]) == \
                        (later["move"], later["index"], later["count"])
                    assert e["index"] == scored + 1
                else:
                    assert "move" not in e
                    assert (e["task"] == "best") == (bounds[0] == bounds[1])
        nodes = [e["nodes"] for e in events]
        assert nodes == sorted(nodes)
    assert tasks_seen == {"value", "best", "moves"}


def test_threshold_mode_says_it_is_answering_the_question():
    events = []
    solve(_full_deal(7), at_least=1, node_limit=300_000, on_info=events.append,
          info_interval=1e-6)
    working = [e for e in events if e["stage"] == "working"]
    assert working and {e["task"] for e in working} == {"question"}


@pytest.mark.parametrize("interval, on_info, message", [
    (1.0, None, "info_interval needs an on_info to send its events to"),
    (0, print, "info_interval must be a number of seconds above 0, or None, not 0"),
    (float("inf"), print, "not inf"),
    (True, print, "not True"),
    ("2", print, "not '2'"),
    (10**400, print, "not 1000"),
])
def test_a_bad_info_interval_is_named(interval, on_info, message):
    obj = _endgames_4x6(1)[0]
    for call in (lambda: solve(obj, on_info=on_info, info_interval=interval),
                 lambda: solve_many([obj], on_info=None if on_info is None else
                                    (lambda i, f: None), info_interval=interval)):
        with pytest.raises(ValueError, match=re.escape(message)):
            call()


def test_solve_many_relays_the_working_events_too():
    items = [_full_deal(8), _full_deal(9)]
    for threads in (1, 2):
        seen = []
        solve_many(items, threads=threads, node_limit=500_000,
                   on_info=lambda i, f: seen.append((i, f["stage"])), info_interval=1e-6)
        assert {i for i, stage in seen if stage == "working"} == {0, 1}


def test_a_heartbeat_left_behind_on_this_threads_searcher_is_not_called():
    """A Ctrl-C between setting a solve's heartbeat and the block that takes it away
    leaves it on the thread's searcher; the next solve must not call that solve's on_info."""
    from solver.search import DEFAULT_TABLE_BITS, _searcher
    obj = _endgames_4x6(1)[0]
    solve(obj)          # (this thread's searcher, of the default sizes)
    stale = []
    _searcher(DEFAULT_TABLE_BITS, None).set_heartbeat(lambda: stale.append(1), 1e-6)
    solve(_full_deal(10), node_limit=500_000)
    assert stale == []
    assert _searcher(DEFAULT_TABLE_BITS, None).heartbeat is None


def test_a_heartbeat_of_ones_own_searcher_comes_back_after_a_solve_with_info_interval():
    s = Searcher()
    own = []
    s.set_heartbeat(lambda: own.append(1), 2.5)
    events = []
    solve(_full_deal(11), node_limit=300_000, searcher=s, on_info=events.append,
          info_interval=1e-6)
    assert any(e["stage"] == "working" for e in events) and own == []
    assert s.heartbeat_every == 2.5
    s.heartbeat()
    assert own == [1]


def test_a_limit_met_after_the_value_still_names_a_move_that_reaches_it():
    """Issue 4 (limits): a budget that runs out while the best move is being chosen (the
    value already proven) keeps the value exact and gives the move that proved it, checked
    by solving the position after it; before, ``best`` came back None."""
    from solver import clear_tables
    checked = 0
    for obj in _endgames_4x6(100):
        probes = []
        clear_tables()
        full = solve(obj, pv=False, on_info=probes.append)
        value_nodes = max(e["nodes"] for e in probes if e["stage"] == "bound")
        if full.nodes - value_nodes < 2000:
            continue                # the best move costs next to nothing here
        clear_tables()
        r = solve(obj, node_limit=(value_nodes + full.nodes) // 2)
        assert r.exact and r.value == full.value and r.nodes > value_nodes
        assert r.best is not None and r.pv == [] and r.pv_cut
        pos = Position.from_json(obj)
        child = pos.play(r.best)
        assert not child.is_over
        reached = solve(child).value * (1 if child.to_move % 2 == pos.to_move % 2 else -1)
        assert reached == r.value, (obj, str(r.best))
        checked += 1
    assert checked >= 2, checked


def _ends_the_hand(pos, line):
    pos = pos.copy()
    for _, move in line:
        pos.push(move)
    return pos.is_over


def test_a_limit_that_cuts_the_principal_line_says_so():
    """Issue 4 (limits: the answer says when a budget ran out): a budget that runs out
    while the principal line is being followed keeps the value exact, and ``pv_cut`` (and
    ``"pv_cut": true`` in the JSON) says that the line stops before the end of the hand;
    a line that reaches the end is not cut (nor is it when the limit runs out later, while
    the moves are scored), and neither is one not asked for."""
    obj = _endgames_4x6(2)[1]
    pos = Position.from_json(obj)
    full = solve(obj, fresh_tables=True)
    assert _ends_the_hand(pos, full.pv) and not full.pv_cut
    assert "pv_cut" not in full.to_json()
    assert not solve(obj, pv=False).pv_cut
    cut_lines = 0
    for fewer in (1, 10, 100, 1000):
        events = []
        r = solve(obj, node_limit=full.nodes - fewer, fresh_tables=True, on_info=events.append)
        assert r.exact and r.value == full.value and r.best == full.best
        assert r.pv == full.pv[:len(r.pv)]
        assert r.pv_cut and not _ends_the_hand(pos, r.pv)
        assert r.to_json()["pv_cut"] is True
        assert [e["pv_cut"] for e in events if e["stage"] == "best"] == [True]
        cut_lines += len(r.pv) > 0
    assert cut_lines >= 3
    # a limit that runs out while the moves are scored, after the whole line
    every = solve(obj, all_moves=True, fresh_tables=True)
    r = solve(obj, all_moves=True, node_limit=(full.nodes + every.nodes) // 2,
              fresh_tables=True)
    assert any(m.value is None for m in r.moves)
    assert r.pv == full.pv and not r.pv_cut and "pv_cut" not in r.to_json()


def test_the_searchers_line_and_best_move_leave_the_position_as_it_was_when_stopped():
    """Searcher.principal_line and best_move, called directly: when a node budget or
    stop() ends them part-way, the searcher is back at the position it was called on,
    not busy, and answers alike once given new limits; a value the mover does not reach
    is a ValueError naming it."""
    import threading
    obj = _endgames_4x6(2)[1]
    pos = Position.from_json(obj)
    full = solve(obj, fresh_tables=True)
    team0 = full.value if pos.to_move % 2 == 0 else -full.value
    searcher = Searcher(12)

    def state():
        return _searcher_state(searcher)

    _load(searcher, pos)
    at_root = state()
    data, _, _ = searcher.root_moves()
    best_index = Move.from_array(np.frombuffer(data, MOVE_DTYPE)).index(full.best)
    searcher.limits()
    whole = searcher.principal_line(full.best.record(), team0)
    assert not whole[2] and whole[1] == [seat for seat, _ in full.pv]
    cut = unanswered = 0
    for budget in (1, 50, 500, 5000):
        searcher.clear_table()
        searcher.reset_counters()
        searcher.limits(node_limit=budget)
        data, seats, was_cut = searcher.principal_line(full.best.record(), team0)
        assert state() == at_root and not searcher.busy
        assert seats == whole[1][:len(seats)] and data == whole[0][:len(data)]
        cut += was_cut
        searcher.clear_table()
        searcher.reset_counters()
        searcher.limits(node_limit=budget)
        got = searcher.best_move(team0)
        assert got in (None, best_index) and state() == at_root
        unanswered += got is None
    assert cut >= 3 and unanswered >= 1
    searcher.limits()
    assert searcher.best_move(team0) == best_index
    # stop() from another thread, on a search long enough to be running when it lands
    hard = _endgames_4x6(100)
    obj = max(hard, key=lambda o: solve(o, pv=False).nodes)
    pos = Position.from_json(obj)
    result = solve(obj)
    _load(searcher, pos)
    at_root = state()
    searcher.clear_table()
    searcher.limits()
    timer = threading.Timer(0.005, searcher.stop)
    timer.start()
    _, _, was_cut = searcher.principal_line(
        result.best.record(), result.value if pos.to_move % 2 == 0 else -result.value)
    timer.join()
    assert was_cut and state() == at_root and not searcher.busy
    searcher.limits()
    worse_than_lowest = -4 if pos.to_move % 2 else 4   # no team reaches beyond +-3
    with pytest.raises(ValueError, match="keeps the team-0 value"):
        searcher.best_move(worse_than_lowest)
    assert state() == at_root


def test_solve_forgets_the_roots_table_entry_so_its_move_is_this_solves():
    """solve() drops its root's table entry before searching, so that the root is searched
    and the move that proves its first bound is known (a reused searcher answers alike)."""
    obj = _endgames_4x6(1)[0]
    searcher = Searcher(16)
    solve(obj, searcher=searcher)
    assert searcher.holds_position()           # the root's entry
    searcher.forget_position()
    assert not searcher.holds_position()
    assert _answer(solve(obj, searcher=searcher)) == _answer(solve(obj))


def _full_deal(seed):
    """A whole hand, 27 cards each: far beyond any search within a test's time."""
    from guandan_core.match import deal
    return Position(7, deal(random.Random(seed)), to_move=0)


def test_stop_set_before_a_search_ends_it_at_once_with_the_bounds_it_proved():
    from solver import Stop, clear_tables
    obj = _endgames_4x6(3)[2]
    full = solve(obj, pv=False, fresh_tables=True)     # (not what earlier tests left)
    assert full.nodes > 20_000
    stop = Stop()
    stop.set()
    clear_tables()
    r = solve(obj, stop=stop)
    assert stop.is_set() and not r.exact and r.value is None
    assert r.lower <= full.value <= r.upper and r.nodes < 20_000
    assert probe(obj, 2, stop=stop) is None
    assert solve(obj).value == full.value         # the searcher is not left stopped
    # the first node checks, and each later check comes 1,024 nodes after the last: the
    # check was a mask test that forced passes (counted as nodes) could step over, so a
    # set Stop took 1,024 to 9,216 nodes on 4 x 8 positions (a helper's finding)
    for obj in _endgames_4x6(12):
        clear_tables()
        r = solve(obj, stop=stop, pv=False)
        assert r.nodes <= 4, r.nodes          # (a few forced passes may come first)


def test_a_search_past_its_deadline_says_so_in_aborted_until_new_limits():
    """``aborted`` (read-only, docs/API.md: changed through ``limits()``) is True once a
    search met its time limit, here in the general search (a whole deal: sequences are
    possible, so not a plain position), and it stays so: the next search returns None as
    well, until ``limits()`` sets new limits. (A mutant that left the flag down there,
    the search still returning None, passed every other test.)"""
    searcher = Searcher(16)
    _load(searcher, _full_deal(4))
    searcher.limits(time_limit=1e-9)
    assert searcher.search(0, 1) is None and searcher.aborted is True
    assert searcher.search(0, 1) is None and searcher.aborted is True
    searcher.limits(node_limit=500)
    assert searcher.aborted is False
    assert searcher.search(0, 1) is None and searcher.aborted is True


def test_stop_from_another_thread_ends_a_long_search():
    """What Ctrl-C and a server's cancel request use: set() in one thread stops the search
    another thread is running without the GIL, within a few node checks."""
    import threading
    import time
    from solver import Stop
    stop = Stop()
    timer = threading.Timer(0.3, stop.set)
    start = time.perf_counter()
    timer.start()
    r = solve(_full_deal(3), stop=stop)
    elapsed = time.perf_counter() - start
    timer.join()
    assert not r.exact and r.best is not None and -3 <= r.lower <= r.upper <= 3
    assert elapsed < 10, elapsed


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="needs SIGUSR1")
def test_a_signal_handler_that_raises_ends_a_search_on_the_main_thread():
    """Ctrl-C in a Python session: the search, which holds the main thread without the
    GIL, lets Python's signal handlers run every 65,536 nodes, so KeyboardInterrupt (here
    a handler's own exception, on SIGUSR1) comes within milliseconds, not after the
    running probe; the solver keeps working afterwards."""
    import os
    import threading
    import time

    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1))
        start = time.perf_counter()
        timer.start()
        with pytest.raises(Interrupted):
            solve(_full_deal(4), time_limit=20)     # (the limit: a failure, not a hang)
        elapsed = time.perf_counter() - start
        timer.join()
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert elapsed < 10, elapsed
    obj = _endgames_4x6(1)[0]
    assert _answer(solve(obj)) == _answer(solve(obj, searcher=Searcher(16)))


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="needs SIGUSR1")
@pytest.mark.parametrize("call", ["search", "reaches", "child_reaches", "best_move",
                                  "principal_line"])
def test_a_signal_handler_that_raises_ends_each_searcher_entry_point(call):
    """Each of the Searcher's searching entry points, not only the probes solve() makes,
    passes a signal handler's exception (Ctrl-C's KeyboardInterrupt) up as it is: one
    that returned its answer with the exception still pending would surface as Python's
    SystemError ("returned a result with an exception set"), or later, somewhere else.
    (A mutant whose child_reaches did so passed every other test: only solve()'s path was
    interrupted in a test.)"""
    import os
    import threading

    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted

    searcher = Searcher(16)
    _load(searcher, _full_deal(4))
    searcher.check_signals = True                   # (as solve() sets it on the main thread)
    searcher.limits(time_limit=20)                  # (a failure, not a hang)
    records, _, _ = _root(searcher)
    first = _record_bytes(records, 0)
    calls = {"search": lambda: searcher.search(0, 1),
             "reaches": lambda: searcher.reaches(1, True),
             "child_reaches": lambda: searcher.child_reaches(first, 1, True),
             "best_move": lambda: searcher.best_move(1),
             "principal_line": lambda: searcher.principal_line(first, 1)}
    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1))
        timer.start()
        with pytest.raises(Interrupted):
            calls[call]()
        timer.join()
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_stop_set_while_its_own_thread_holds_its_lock_does_not_hang():
    """A Ctrl-C handler that calls ``stop.set()`` runs in the main thread between two
    bytecodes, possibly inside that thread's own ``_attach`` (a helper's finding: with a
    plain lock, ``set()`` then waited for a lock its own thread held, for ever). Here the
    searcher's ``stop()``, which ``_attach`` calls under the lock, calls ``set()`` again,
    as such a handler would; a thread runs it so that a hang fails instead of blocking."""
    import threading
    from solver import Stop
    stop = Stop()

    class Reenters:
        stopped = 0

        def stop(self):
            self.stopped += 1
            if self.stopped == 1:
                stop.set()          # (re-entered while _attach holds the lock)

    attached = Reenters()
    stop.set()
    worker = threading.Thread(target=lambda: (stop._attach(attached),
                                              stop._detach(attached)), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "Stop.set() re-entered from its own thread hung"
    assert attached.stopped == 2 and stop.is_set() and stop._searchers == []


def test_solve_many_of_one_position_solves_it_with_this_threads_tables():
    """API.md (solve_many): `threads=1`, or a single position whatever `threads`, solves in
    the calling thread with its tables, as `solve` does: a solve of the same position
    afterwards finds it in those tables (a worker's tables are not this thread's)."""
    from solver import free_tables, solve_many
    from guandan_core.cli_solve import EXAMPLE_POSITION
    fresh = solve(EXAMPLE_POSITION, fresh_tables=True)
    for threads in (1, 2):
        free_tables()
        [result] = solve_many([EXAMPLE_POSITION], threads=threads)
        assert result.nodes == fresh.nodes, threads
        again = solve(EXAMPLE_POSITION)
        assert again.value == fresh.value and again.nodes < fresh.nodes / 4, \
            (threads, again.nodes, fresh.nodes)


def test_stop_in_solve_many_ends_the_running_positions_and_skips_the_rest():
    """API.md (solve_many): once `stop` is set, the positions being solved end as at a
    time limit, those not started are not solved; `threads=1` solves in the calling
    thread as `solve` does, and answers to the Stop all the same."""
    import threading
    import time
    from solver import Stop, solve_many
    stop = Stop()
    seen = []
    small = _endgames_4x6(4)
    # one thread: stopped after the first result, the others are not solved
    results = solve_many(small, threads=1, stop=stop,
                         on_result=lambda i, r: (seen.append(i), stop.set()))
    assert seen == [0] and results[0].exact and results[1:] == [None] * 3
    # long positions (a whole deal takes far longer than the time limit of 60 s), stopped
    # after 0.3 s: the running ones end within a few seconds, unproven, and report; the
    # one more waiting is never started
    for threads in (2, 1):
        stop, seen = Stop(), []
        timer = threading.Timer(0.3, stop.set)
        started = time.perf_counter()
        timer.start()
        results = solve_many([_full_deal(s) for s in range(1, threads + 2)], threads=threads,
                             stop=stop, time_limit=60, on_result=lambda i, r: seen.append(i))
        seconds = time.perf_counter() - started
        timer.join()
        assert seconds < 10, (threads, seconds)
        assert sorted(seen) == list(range(threads)) and results[threads] is None
        assert all(not r.exact for r in results[:threads])


def test_json_positions_are_read_under_the_rules_given():
    """RULES sec. 9: solve, probe and solve_many read JSON under ``rules`` (the command
    line's --rules); without it, standard. Here the straight flush is a bomb that beats
    the pair of aces only where straight flushes count as bombs."""
    from solver import Stop, solve_many
    from guandan_core.rules import Rules
    obj = {"level": "2", "hands": [["S3", "S4", "S5", "S6", "S7"], ["S9"], [], ["D8", "D8"]],
           "finished": [2], "to_move": 0,
           "table": {"owner": 1, "play": ["Pair", "A", ["SA", "HA"]]}}
    assert solve(obj).value == 3 == solve(obj, rules="standard").value
    assert solve(obj, rules="no-sf-bomb").value == 1
    assert solve(obj, rules=Rules.of("no-sf-bomb"), all_moves=True).moves[0].move == Move.PASS
    assert probe(obj, 2) is True and probe(obj, 2, rules="no-sf-bomb") is False
    assert [r.value for r in solve_many([obj, obj], threads=2, rules="no-sf-bomb")] == [1, 1]
    # a Position keeps its own rules; other rules given with it are refused, naming them
    pos = Position.from_json(obj, "no-sf-bomb")
    assert solve(pos, rules="no-sf-bomb").value == 1 == solve(pos).value
    with pytest.raises(ValueError, match="rules 'platform' given with a Position made under"):
        solve(pos, rules="platform")
    with pytest.raises(ValueError, match="unknown rules"):
        solve_many([obj], rules="nope", stop=Stop())
    with pytest.raises(TypeError, match="rules must be a Rules, a preset name or None, not 3"):
        probe(obj, 1, rules=3)


def test_leaving_solve_many_early_ends_its_running_searches():
    """An on_result that raises (or a Ctrl-C) leaves solve_many at once: the positions not
    started are dropped and the ones running in its worker threads end now. They used to
    run to their limit first (here 20 s; with none, minutes), and the caller's own Stop is
    not set by it."""
    import time
    from solver import Stop, solve_many

    def fail(i, r):
        raise RuntimeError(f"position {i} done")

    caller = Stop()
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="position 0 done"):
        solve_many([_endgames_4x6(1)[0]] + [_full_deal(s) for s in (1, 2, 3)], threads=2,
                   time_limit=20, on_result=fail, stop=caller)
    elapsed = time.perf_counter() - start
    assert elapsed < 5, elapsed
    assert not caller.is_set()


@pytest.mark.parametrize("call", ["solve", "probe", "solve_many"])
def test_stop_must_be_a_stop(call):
    import threading
    import solver
    obj = _endgames_4x6(1)[0]
    args = {"solve": (obj,), "probe": (obj, 1), "solve_many": ([obj],)}[call]
    with pytest.raises(TypeError, match="stop must be a solver.Stop, not <threading.Event"):
        getattr(solver, call)(*args, stop=threading.Event())


def _endgames_4x6(count):
    from pathlib import Path
    data = Path(__file__).parent / "data" / "endgames_4x6.json"
    return json.loads(data.read_text())["items"][:count]


def _answer(result):
    # everything a solve decides (not its node count, which depends on the table's state)
    return (result.value, result.best, result.pv,
            [(s.move, s.value, s.equivalent) for s in result.moves])


def test_two_threads_solving_at_once_answer_as_one_thread():
    """The search runs without the GIL with a table per thread (the base of batch solving
    on several cores): two threads solving at once, every move scored and the line played
    out, must answer exactly as one thread does."""
    from concurrency import run_at_once
    items = _endgames_4x6(8)
    expected = [_answer(solve(obj, all_moves=True)) for obj in items]
    answers = {0: [], 1: []}

    def work(k):
        for obj in (items if k == 0 else items[::-1]):
            answers[k].append(_answer(solve(obj, all_moves=True)))

    run_at_once(work)
    assert answers[0] == expected
    assert answers[1][::-1] == expected


def test_positions_and_results_survive_pickling():
    """Solving across processes (multiprocessing, Ray) ships positions and results by
    pickle: the round trip keeps every field, and the position solves to the same answer."""
    import pickle
    from solver import as_position
    pos = as_position(_endgames_4x6(1)[0])
    result = solve(pos, all_moves=True)
    again = pickle.loads(pickle.dumps(pos))
    assert again == pos
    assert pickle.loads(pickle.dumps(result)) == result
    assert pickle.loads(pickle.dumps(result)).seconds == result.seconds
    # equal results whatever the time taken: the same search twice compares equal
    assert solve(pos, all_moves=True, fresh_tables=True) == \
        solve(pos, all_moves=True, fresh_tables=True)
    assert _answer(solve(again, all_moves=True)) == _answer(result)


def test_solve_many_answers_as_one_solve_after_another():
    """Batch solving on several threads (results in input order) decides exactly what
    solving the positions one after another does, whatever thread solved which."""
    items = _endgames_4x6(12)
    expected = [_answer(solve(obj, all_moves=True)) for obj in items]
    seen = []
    results = solve_many(items, threads=2, all_moves=True,
                         on_result=lambda i, r: seen.append((i, _answer(r))))
    assert [_answer(r) for r in results] == expected
    assert sorted(seen) == list(enumerate(expected))
    assert [_answer(r) for r in solve_many(items[:3], threads=1, all_moves=True)] == expected[:3]
    assert solve_many([], threads=2) == []


def _event_key(event: dict) -> tuple:
    """An on_info event without its time, which differs from run to run."""
    return tuple(sorted((k, v) for k, v in event.items() if k != "seconds"))


def test_solve_many_reports_each_searchs_events_in_the_calling_thread():
    """solve_many's on_info(index, fields) gets each position's events as solve's on_info
    gives them (every field but the time, nodes included with fresh tables), in the
    calling thread, a position's events before its result; on one thread and on two."""
    items = _endgames_4x6(6)
    for at_least in (None, 1):
        expected = []
        for obj in items:
            events = []
            solve(obj, all_moves=True, at_least=at_least, fresh_tables=True,
                  on_info=events.append)
            expected.append([_event_key(e) for e in events])
        assert all(expected)
        for threads in (1, 2):
            caller = threading.get_ident()
            seen = [[] for _ in items]
            order = []

            def on_info(i, fields):
                assert threading.get_ident() == caller
                seen[i].append(_event_key(fields))
                order.append(("info", i))

            def on_result(i, result):
                order.append(("result", i))

            solve_many(items, threads=threads, all_moves=True, at_least=at_least,
                       fresh_tables=True, on_info=on_info, on_result=on_result)
            assert seen == expected
            for i in range(len(items)):
                done = order.index(("result", i))
                assert ("info", i) not in order[done + 1:]


def test_solve_many_passes_on_infos_own_error_on_as_it_was_raised():
    """An error raised by solve_many's on_info ends the call as it was raised, not numbered
    as the solve's own errors are (it is the caller's, not the position's), whatever the
    threads; the workers are stopped."""
    items = _endgames_4x6(4)
    for threads in (1, 2):
        mine = ValueError("my own")

        def fail(i, fields):
            raise mine

        with pytest.raises(ValueError) as raised:
            solve_many(items, threads=threads, on_info=fail)
        assert raised.value is mine and not hasattr(mine, "position_index")
    with pytest.raises(TypeError, match="on_info must be a function or None, not 5"):
        solve_many(items, on_info=5)


def test_solve_many_keeps_its_workers_tables_for_the_next_call(monkeypatch):
    """A program solving many small batches (sampled deals, a training loop) used to pay
    for new worker threads and new tables on every call, several times the search itself
    for small positions. Each worker now borrows a kept searcher (and its tables), gives it
    back at the end, and the next call's workers get the same ones; free_tables() frees
    them."""
    import solver.batch
    import solver.search
    from solver import free_tables, solve_many
    monkeypatch.setattr(solver.batch, "available_cores", lambda: 2)
    free_tables()
    items = _endgames_4x6(4)
    expected = [_answer(solve(obj)) for obj in items]
    assert [_answer(r) for r in solve_many(items, threads=2)] == expected
    first = list(solver.search._spares)
    assert len(first) == 2
    for _ in range(2):
        assert [_answer(r) for r in solve_many(items, threads=2)] == expected
        assert sorted(map(id, solver.search._spares)) == sorted(map(id, first))
    free_tables()
    assert solver.search._spares == []
    assert [_answer(r) for r in solve_many(items, threads=2)] == expected
    assert not {id(s) for s in solver.search._spares} & {id(s) for s in first}


def test_solve_many_keeps_a_table_a_core_at_its_first_size(monkeypatch):
    """What solve_many keeps between calls is bounded: at most one table a core, each at
    its first size even when a search grew it (4 x 8 tables grow to 256 MiB each)."""
    import solver.batch
    import solver.search
    from solver import free_tables, solve_many
    free_tables()
    items = _endgames_4x6(6)
    monkeypatch.setattr(solver.batch, "available_cores", lambda: 1)
    # 2**4 entries grow after 256 nodes: every one of these searches grows its table
    results = solve_many(items, threads=2, table_bits=4, max_table_bits=12,
                         fresh_tables=True)
    assert all(r.exact for r in results) and max(r.nodes for r in results) > 4096
    kept = solver.search._spares
    assert len(kept) == 1
    assert (kept[0].tt_bits, kept[0].initial_tt_bits, kept[0].max_tt_bits) == (4, 4, 12)
    # and a move arena that grew (by 54 MiB) is not kept either
    first = kept[0].arena_moves
    assert solve_many([_arena_filling_position()] * 2, threads=2, table_bits=4,
                      max_table_bits=4)[0].exact
    assert len(kept) == 1 and kept[0].arena_moves == first
    free_tables()
    assert solver.search._spares == []


def _solve_many_threads_alive(at_most: int) -> list:
    """The solve_many worker threads alive, once at most ``at_most`` are, or after 10 s (a
    worker that is not kept ends just after its call's end)."""
    import threading
    import time
    deadline = time.monotonic() + 10
    while True:
        alive = [t for t in threading.enumerate() if t.name == "solve_many"]
        if len(alive) <= at_most or time.monotonic() > deadline:
            return alive
        time.sleep(0.01)


def test_solve_many_keeps_at_most_a_worker_a_core(monkeypatch):
    """Workers beyond available_cores() end with their job: calls on more threads than
    cores, one after another, leave at most one idle worker a core, and no other
    solve_many threads."""
    import solver.batch
    monkeypatch.setattr(solver.batch, "available_cores", lambda: 1)
    items = _endgames_4x6(3)
    for _ in range(4):
        assert all(r.exact for r in solve_many(items, threads=3))
        assert solver.batch._idle[0] <= 1
    alive = _solve_many_threads_alive(at_most=1)
    assert len(alive) == solver.batch._idle[0] <= 1


def test_solve_many_goes_on_with_the_threads_the_system_gives(monkeypatch):
    """When the system refuses a thread part-way (threads=2000 under a memory limit),
    solve_many solves on the threads it has, with a RuntimeWarning, and leaves no started
    thread waiting uncounted: those held their memory, so that every later call failed
    with "can't start new thread" too. With no thread at all, a RuntimeError says so."""
    import threading
    import solver.batch
    monkeypatch.setattr(solver.batch, "available_cores", lambda: 1)
    items = _endgames_4x6(6)
    expected = [_answer(solve(obj)) for obj in items]
    # every idle thread used, then one kept (of however many earlier tests left idle)
    more = solver.batch._idle[0] + 2
    assert all(r.exact for r in solve_many(items * more, threads=more))
    assert solver.batch._idle[0] == 1
    allowed = [1]           # new threads the "system" still starts

    class Limited(threading.Thread):
        def start(self):
            if allowed[0] == 0:
                raise RuntimeError("can't start new thread")
            allowed[0] -= 1
            super().start()

    monkeypatch.setattr(solver.batch.threading, "Thread", Limited)
    with pytest.warns(RuntimeWarning, match=r"refused a thread after 2 of the 6 asked for "
                                            r"\(can't start new thread\)"):
        results = solve_many(items, threads=6)
    assert [_answer(r) for r in results] == expected
    alive = _solve_many_threads_alive(at_most=1)
    assert len(alive) == solver.batch._idle[0] == 1
    monkeypatch.setattr(solver.batch, "_idle", [0])     # (none idle, none to be started)
    with pytest.raises(RuntimeError, match="could not start a worker thread"):
        solve_many(items, threads=2)
    monkeypatch.undo()
    assert [_answer(r) for r in solve_many(items, threads=2)] == expected


def test_solve_many_checks_its_options_with_no_positions():
    """Bad options are named even when there is nothing to solve."""
    for options, error, named in (({"time_limit": -1}, ValueError, "time_limit"),
                                  ({"node_limit": 0.5}, ValueError, "node_limit"),
                                  ({"at_least": "x"}, ValueError, "'x'"),
                                  ({"all_moves": 2}, TypeError, "all_moves"),
                                  ({"pv": 2}, TypeError, "pv"),
                                  ({"fresh_tables": 2}, TypeError, "fresh_tables"),
                                  ({"rules": "nope"}, ValueError, "^unknown rules 'nope'"),
                                  ({"rules": 3}, TypeError, "^rules must be a Rules")):
        with pytest.raises(error, match=named):
            solve_many([], **options)


def test_solve_many_names_the_position_whose_solve_failed(monkeypatch):
    """API.md (solve_many): an error raised while solving a position (an allocation that
    fails, in a worker or in the calling thread) comes out with `position i: ` in front of
    its message, of its own class, the original as its cause; one whose class cannot be
    remade with that message comes out as it was raised. It used to come out bare, which
    in a batch of thousands named no position."""
    import solver.batch
    real_solve = solver.batch.solve
    positions = _endgames_4x6(3)

    class NeedsTwo(RuntimeError):       # cannot be remade from a message alone
        def __init__(self, what, where):
            super().__init__(f"{what} at {where}")

    for threads in (2, 1):
        for failure in (MemoryError("the move arena is full"), NeedsTwo("no room", 7)):
            def failing(position, failure=failure, **options):
                if position.key() == failing_key:
                    raise failure
                return real_solve(position, **options)
            failing_key = Position.from_json(positions[2]).key()
            monkeypatch.setattr(solver.batch, "solve", failing)
            with pytest.raises(type(failure)) as caught:
                solve_many(positions, threads=threads)
            if isinstance(failure, NeedsTwo):
                assert caught.value is failure
            else:
                assert type(caught.value) is MemoryError
                assert str(caught.value) == "position 2: the move arena is full"
                assert caught.value.__cause__ is failure


def test_solve_many_calls_from_two_threads_at_once_share_the_workers():
    """Two callers' solve_many calls at once share the kept workers and tables (lent to
    one worker at a time) and each answers as one solve after another."""
    from concurrency import run_at_once
    items = _endgames_4x6(10)
    expected = [_answer(solve(obj, all_moves=True)) for obj in items]
    answers = {}

    def work(k):
        batch = items if k == 0 else items[::-1]
        answers[k] = [_answer(r) for r in solve_many(batch, threads=2, all_moves=True)]

    run_at_once(work)
    assert answers[0] == expected and answers[1][::-1] == expected


def test_ctrl_c_while_solve_many_starts_its_workers_stops_those_started(monkeypatch):
    """A Ctrl-C can land while the workers are being started (starting 64 threads took
    seconds on two busy cores): the worker already started must be stopped too, not left
    searching a whole deal in the background."""
    import threading
    import time
    start = threading.Thread.start
    calls = []

    def interrupted_second_start(thread):
        calls.append(thread)
        if len(calls) == 2:
            raise KeyboardInterrupt       # as a SIGINT arriving in Thread.start()
        start(thread)

    import solver.batch
    solver.batch._forget_workers()        # no idle workers: both are started anew
    monkeypatch.setattr(threading.Thread, "start", interrupted_second_start)
    with pytest.raises(KeyboardInterrupt):
        solve_many([_full_deal(s) for s in (1, 2, 3)], threads=2, table_bits=12)
    monkeypatch.undo()
    assert len(calls) == 2
    before = time.process_time()
    time.sleep(1)
    assert time.process_time() - before < 0.5, "a search went on after the Ctrl-C"


def test_solve_many_left_by_an_error_still_keeps_only_a_table_a_core(monkeypatch):
    """The bound on the tables kept between calls holds however a call ends: an
    on_result that raises (or a Ctrl-C) used to leave every worker's table kept, grown."""
    import solver.batch
    import solver.search
    from solver import free_tables, solve_many
    free_tables()
    monkeypatch.setattr(solver.batch, "available_cores", lambda: 1)

    def fail(i, r):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        solve_many(_endgames_4x6(6), threads=3, table_bits=4, max_table_bits=12,
                   on_result=fail)
    kept = solver.search._spares
    assert len(kept) == 1 and kept[0].tt_bits == kept[0].initial_tt_bits == 4
    free_tables()


def test_solve_many_calls_at_once_do_not_wait_for_each_others_workers():
    """A call using many threads (the default on a machine of many cores) must not hold
    up a small call made meanwhile from another thread: kept threads serve one call at a
    time, so the small call starts threads of its own when none is idle."""
    import threading
    from solver import Stop, solve_many
    stop = Stop()
    big = threading.Thread(target=solve_many, args=([_full_deal(s) for s in range(64)],),
                           kwargs={"threads": 64, "table_bits": 10, "stop": stop})
    big.start()
    small_results = []
    small = threading.Thread(target=lambda: small_results.extend(
        solve_many(_endgames_4x6(4), threads=2)))
    try:
        small.start()
        small.join(60)
        finished_first = not small.is_alive()
    finally:
        stop.set()
        big.join()
        small.join()
    assert finished_first, "the small call waited for the big one"
    assert [r.value for r in small_results] == [solve(o).value for o in _endgames_4x6(4)]


def test_idle_workers_do_not_keep_the_last_calls_positions():
    """A kept worker thread waiting for the next call held the last call's job, and with
    it every position of that call (a batch of sampled deals, say) until the next call."""
    from solver import as_position, solve_many
    positions = [as_position(o) for o in _endgames_4x6(4)]

    def references():
        return [sys.getrefcount(positions[i]) for i in range(len(positions))]

    before = references()
    solve_many(positions, threads=2)
    assert references() == before       # (a worker lets go of its job before its end)


_INTERRUPTED_SCRIPTS = {
    # the Ctrl-C lands as the caller takes a worker's end off the queue, before counting
    # it: leaving, the call used to wait for that end again, for good
    "end taken": """
import queue
RealQueue = queue.SimpleQueue
class Queue(RealQueue):
    armed = [True]
    def get(self, *args):
        item = super().get(*args)
        if item is None and self.armed[0] and threading.current_thread() is threading.main_thread():
            self.armed[0] = False
            raise KeyboardInterrupt         # as a SIGINT handled as get() returns
        return item
queue.SimpleQueue = Queue
CALL = ITEMS * 3
""",
    # the Ctrl-C lands as the first job is given to the kept threads (two are idle):
    # the thread reserved for the second waits with no job, and must not be lost
    "job given": """
solve_many(ITEMS, threads=2)            # two kept threads
class Interrupting:
    armed = [True]
    def __init__(self, jobs):
        self.jobs = jobs
    def put(self, item):
        self.jobs.put(item)
        if self.armed[0]:
            self.armed[0] = False
            raise KeyboardInterrupt         # as a SIGINT handled as put() returns
    def get(self):
        return self.jobs.get()
solver.batch._jobs = Interrupting(solver.batch._jobs)
CALL = [Position(7, deal(random.Random(s)), to_move=0) for s in (1, 2, 3)]
""",
}


@pytest.mark.parametrize("case", sorted(_INTERRUPTED_SCRIPTS))
def test_solve_many_cut_short_by_a_ctrl_c_anywhere_still_ends(case):
    """Wherever a Ctrl-C lands in solve_many, the call raises KeyboardInterrupt, leaves no
    search running, and later calls answer right with no kept thread lost or doubled."""
    script = """
import json, random, threading, time
from guandan_core.match import deal
from guandan_core.position import Position
from solver import solve, solve_many
import solver.batch
ITEMS = json.load(open(DATA))["items"][:4]
SETUP
try:
    solve_many(CALL, threads=2, table_bits=12)
    print("no interrupt")
except KeyboardInterrupt:
    print("interrupted")
before = time.process_time()
time.sleep(0.5)
print("searching" if time.process_time() - before > 0.25 else "idle")
for _ in range(3):
    print([r.value for r in solve_many(ITEMS, threads=2)] == [solve(o).value for o in ITEMS])
time.sleep(0.2)
kept = [t for t in threading.enumerate() if t.name == "solve_many"]
print(solver.batch._idle[0] <= len(kept) <= 3)
""".replace("SETUP", _INTERRUPTED_SCRIPTS[case]).replace(
        "DATA", repr(str(Path(__file__).parent / "data" / "endgames_4x6.json")))
    proc = run_python(script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "interrupted\nidle\nTrue\nTrue\nTrue\nTrue\n"


_EXIT_SCRIPTS = {
    # a daemon thread's call still searching when the program ends: it must not keep the
    # process alive (its workers are daemon threads and are stopped at exit)
    "daemon caller": """
import threading, time, random
from guandan_core.match import deal
from guandan_core.position import Position
from solver import solve_many
deals = [Position(7, deal(random.Random(s)), to_move=0) for s in (1, 2)]
threading.Thread(target=solve_many, args=(deals,), kwargs={"threads": 2}, daemon=True).start()
time.sleep(0.5)
print("main done")
""",
    # a thread still calling solve_many after the main thread returned
    "after main": """
import threading, time
from solver import solve_many
obj = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2], "to_move": 0,
       "table": None}
def late():
    time.sleep(0.5)
    print([r.value for r in solve_many([obj] * 3, threads=2)])
threading.Thread(target=late).start()
print("main done")
""",
}


@pytest.mark.parametrize("case", sorted(_EXIT_SCRIPTS))
def test_solve_many_and_the_end_of_the_program(case):
    """The program's end: a call running in a daemon thread does not keep the process
    (it used to wait for the searches, minutes for whole deals), and a thread may still
    call solve_many after the main thread has returned (it used to be refused: "cannot
    schedule new futures after shutdown")."""
    proc = run_python(_EXIT_SCRIPTS[case], timeout=60)
    assert proc.returncode == 0, proc.stderr
    expected = "main done\n" + ("[3, 3, 3]\n" if case == "after main" else "")
    assert proc.stdout == expected


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_solve_many_works_in_a_child_forked_after_it_ran():
    """Process pools fork (multiprocessing's default on Linux before 3.14): a child
    inherits the kept worker pool without its threads, so it must make its own, or its
    first solve_many waits for workers that do not exist."""
    import time
    import warnings
    items = _endgames_4x6(4)
    expected = [r.value for r in solve_many(items, threads=2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # (fork with threads, 3.12+)
        pid = os.fork()
    if pid == 0:                                # the child: exit 0 when it answers right
        code = 1
        try:
            if [r.value for r in solve_many(items, threads=2)] == expected:
                code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("solve_many in the forked child did not return within 60 s")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize("limits, named", [
    ({"time_limit": -1}, "-1"), ({"time_limit": float("nan")}, "nan"),
    ({"time_limit": "1"}, "'1'"), ({"node_limit": -5}, "-5"), ({"node_limit": 1.5}, "1.5"),
    ({"node_limit": True}, "True"), ({"node_limit": 2 ** 63}, str(2 ** 63)),
    # beyond any float: not an OverflowError (named in a message of bounded length)
    ({"time_limit": -10 ** 400}, quoted(-10 ** 400)),
])
def test_bad_limits_are_rejected_naming_them(limits, named):
    """A limit that is not one is an error naming it (a node count too big for the search's
    64-bit counter used to escape as an OverflowError), in every entry point."""
    obj = _endgames_4x6(1)[0]
    own = Searcher(10)       # (its limits() took NaN or a negative time as no limit)
    for call in (lambda: solve(obj, **limits), lambda: probe(obj, 1, **limits),
                 lambda: solve_many([obj], **limits), lambda: own.limits(**limits)):
        with pytest.raises(ValueError, match=re.escape(named)):
            call()
    assert (own.node_limit, own.deadline) == (-1, -1)       # left without limits


def test_limits_at_their_ends_are_limits():
    """No time (0 s) or no nodes stops at once with the widest bounds; infinite time and
    numpy numbers are limits like any other."""
    from solver import clear_tables
    obj = _endgames_4x6(1)[0]
    for limits in ({"time_limit": 0}, {"node_limit": 0}):
        clear_tables()
        r = solve(obj, **limits)
        assert (r.value, r.lower, r.upper) == (None, -3, 3)
    exact = solve(obj).value
    assert solve(obj, time_limit=float("inf")).value == exact
    assert solve(obj, time_limit=10 ** 400).value == exact            # beyond any float
    assert solve(obj, time_limit=np.float64(60), node_limit=np.int64(10 ** 9)).value == exact


def test_a_node_limit_bounds_the_nodes_searched():
    """A node budget of n searches at most n nodes (passes the plain search makes for
    followers who cannot answer count too), whatever is asked; an answer the budget cut
    short used all of it (not a search that gave up early)."""
    from solver import clear_tables
    cut = 0
    for obj in _endgames_4x6(6):
        for limit in (0, 1, 7, 100, 2500):
            for kwargs in ({}, {"all_moves": True}, {"at_least": 1}):
                clear_tables()
                r = solve(obj, node_limit=limit, **kwargs)
                assert r.nodes <= limit, (limit, kwargs, r.nodes)
                complete = r.exact if "at_least" not in kwargs else r.reached is not None
                if kwargs.get("all_moves"):
                    complete = complete and all(m.value is not None for m in r.moves)
                if not complete:
                    cut += 1
                    assert r.nodes == limit, (limit, kwargs, r.nodes)
    assert cut >= 60            # (most of these budgets are far too small for the answer)


def test_solve_many_solves_the_positions_as_they_were_given():
    """A Position given to solve_many is read when the call starts: a callback that plays
    on in it (solve_many calls it after each result) changes nothing that is solved."""
    start = Position.from_json(_endgames_4x6(1)[0])
    expected = solve(start).value
    given = start.copy()
    results = solve_many([given] * 3, threads=1,
                         on_result=lambda i, r: given.push(r.best) if i == 0 else None)
    assert [r.value for r in results] == [expected] * 3
    assert given != start           # (the callback did play on in the caller's Position)


def test_solve_many_names_the_position_of_an_error_it_cannot_remake(monkeypatch):
    """API.md (solve_many): a bad position raises with `position i: ` in front of its
    message, of its own class where that class takes a message alone (the docstring of
    solver.batch._numbered); an error whose class would word it otherwise, or needs other
    arguments, is raised as the TypeError or ValueError it is, so a caller catching
    either still catches it and the message is exactly `position i: ` and the error's."""
    import solver.batch

    class Reworded(TypeError):          # takes a message alone, but words it its own way
        def __str__(self):
            return f"reworded: {super().__str__()}"

    class TwoArguments(ValueError):     # as JSONDecodeError: no message alone
        def __init__(self, what, where):
            super().__init__(f"{what} at {where}")

    good, bad = _endgames_4x6(1)[0], object()
    for error, base in ((Reworded("no good"), TypeError),
                        (TwoArguments("no good", 3), ValueError)):
        def failing(obj, rules, error=error):
            if obj is bad:
                raise error
            return Position.from_json(obj)
        monkeypatch.setattr(solver.batch, "_solvable", failing)
        with pytest.raises(base) as raised:
            solve_many([good, bad], threads=1)
        assert type(raised.value) is base
        assert str(raised.value) == f"position 1: {error}"
        assert raised.value.position_index == 1


def test_solve_many_uses_no_more_workers_than_positions(monkeypatch):
    """solver.batch: every worker has a searcher and tables of its own (8 MiB by default,
    API.md); two positions asked of eight threads take two workers, not eight tables
    for six workers with nothing to solve."""
    import solver.batch
    real, borrowed = solver.batch._borrow, []

    def counted(*args):
        borrowed.append(args)
        return real(*args)
    monkeypatch.setattr(solver.batch, "_borrow", counted)
    positions = _endgames_4x6(2)
    results = solve_many(positions, threads=8)
    assert len(borrowed) == 2
    assert [r.value for r in results] == [solve(p).value for p in positions]


def test_solve_many_rejects_bad_input_naming_it():
    good = _endgames_4x6(1)[0]
    bad = dict(good, hands=[["XX"], [], [], []])
    with pytest.raises(ValueError, match=r"position 1: .*XX"):
        solve_many([good, bad, good], threads=2)
    with pytest.raises(ValueError, match=r"position 0: .*JSON"):
        solve_many(["{not json"])
    with pytest.raises(TypeError, match=r"position 0: .*int"):
        solve_many([7])
    over = {"level": "2", "hands": [[], ["S3"], [], ["S4"]], "finished": [0, 2],
            "to_move": 1, "table": None}
    with pytest.raises(ValueError, match=r"position 0: .*over"):
        solve_many([over])
    # the error keeps its class (a caller catching PositionError catches it from here too)
    from guandan_core.position import PositionError
    empty_seat = {"level": "2", "hands": [["S3"], ["S4"], [], []], "finished": [2],
                  "to_move": 0, "table": None}
    for wrong in (empty_seat, bad, "{not json", 7, over):
        with pytest.raises((TypeError, ValueError)) as raised:
            solve(wrong)
        with pytest.raises((TypeError, ValueError)) as numbered:
            solve_many([good, wrong])
        assert type(numbered.value) is type(raised.value)
        assert str(numbered.value) == f"position 1: {raised.value}"
    with pytest.raises(PositionError):
        solve_many([empty_seat])
    for threads in (0, -1, 1.5, "2", True):
        with pytest.raises(ValueError, match=re.escape(repr(threads))):
            solve_many([good], threads=threads)
    assert [r.value for r in solve_many([good], threads=np.int64(2))] == [solve(good).value]
    with pytest.raises(TypeError, match="on_result must be a function or None, not 5"):
        solve_many([good], on_result=5)
    with pytest.raises(TypeError, match="on_info must be a function or None, not 'x'"):
        solve(good, on_info="x")
    # the switches are True or False: "no" would be truthy, None falsy
    for flag in ("all_moves", "pv"):
        for bad_flag in ("no", None, 1):
            with pytest.raises(TypeError, match=f"{flag} must be True or False, not "
                                                f"{re.escape(repr(bad_flag))}"):
                solve(good, **{flag: bad_flag})
            with pytest.raises(TypeError, match=f"{flag} must be True or False"):
                solve_many([good], **{flag: bad_flag})
    assert solve(good, all_moves=np.bool_(True)).moves == solve(good, all_moves=True).moves
    text = json.dumps(good).encode()
    assert solve(text).value == solve(bytearray(text)).value
    # one position (or its JSON text) instead of a list: not read key by key or char by char
    from collections import UserDict
    from types import MappingProxyType
    for one in (good, json.dumps(good), Position.from_json(good), UserDict(good),
                MappingProxyType(good)):
        with pytest.raises(TypeError, match="a list of positions"):
            solve_many(one)
    for not_a_list in (None, 5):        # (None gave "'NoneType' object is not iterable")
        with pytest.raises(TypeError, match=f"a list of positions .*not {not_a_list}$"):
            solve_many(not_a_list)


def test_solve_many_refuses_positions_in_a_set_or_another_iterable_that_is_no_list():
    """API.md (Solver, solve_many): ``positions`` is a list, the results in its order.
    A set (a review found it solved: it has no order to give the results, and equal
    positions in it are one), a frozenset, a dict's values, a generator are a TypeError
    naming their type, as one position or its JSON text is; a tuple is a sequence too."""
    good = _endgames_4x6(2)
    one, two = (Position.from_json(obj) for obj in good)
    for given, name in (({one, two}, "set"), (frozenset([one]), "frozenset"),
                        ({0: one}.values(), "dict_values"), ((p for p in [one]), "generator"),
                        (iter([one]), "list_iterator")):
        with pytest.raises(TypeError, match=re.escape(
                f"positions must be a list of positions (Positions or their JSON), "
                f"not a {name}")):
            solve_many(given, threads=1)
    assert [r.value for r in solve_many(tuple(good), threads=1)] == \
        [solve(obj).value for obj in good]


def test_json_input_and_output():
    obj = {"level": "7", "hands": [["S3", "S4"], ["HR"], [], ["D9", "D9"]], "finished": [2],
           "to_move": 3, "table": {"owner": 1, "play": ["Single", "A", ["SA"]]}}
    result = solve(json.dumps(obj), all_moves=True)
    out = result.to_json()
    assert out["exact"] is True and out["value"] == result.value
    assert out["best"] == result.best.to_platform()
    assert all(isinstance(seat, int) for seat, _ in out["pv"])
    assert {tuple(map(str, m["move"][:2])) for m in out["moves"]} >= {("PASS", "PASS")}


def test_bad_positions_are_rejected_with_a_reason():
    with pytest.raises(ValueError, match="XX"):
        solve({"level": "2", "hands": [["XX"], [], [], []], "finished": [], "to_move": 0,
               "table": None})
    with pytest.raises(ValueError, match="JSON"):
        solve("{not json")


@pytest.mark.parametrize("plain", [False, True], ids=["general", "plain"])
def test_canonical_table_key_never_merges_different_values(plain):
    """The solver's table key drops suits that cannot matter and, when no sequence is
    possible, ranks beyond their relative order: every pair of states of a game tree with
    the same key must have the same minimax value (this caught the level rank's place).
    ``plain``: the key of the plain positions' search, on the plain states."""
    searcher = Searcher(8)
    rng = random.Random(5)
    trees = 0
    merged = 0
    while trees < 40:
        root = random_position(rng, max_cards=3, max_total=9)
        if root is None or root.is_over:
            continue
        seen = {}
        stack = [root]
        while stack:
            p = stack.pop()
            if p.is_over:
                continue
            stack.extend(p.play(m) for m in p.legal_moves())
            _load(searcher, p)
            try:
                key = searcher.key(plain)
            except ValueError:      # not a plain position
                continue
            value = minimax(p, [10**6])
            if key in seen:
                assert seen[key][0] == value, (p.to_json(), seen[key][1])
                merged += 1
            else:
                seen[key] = (value, p.to_json())
        trees += 1
    assert merged > 1000    # states met again, or equal but for what the key leaves out


def test_plain_search_keeps_its_table_key_up_to_date_move_by_move():
    """The plain positions' search updates the counts its table key hashes as cards are
    played (orders leaving play shift the others down): after every move the key must be
    the one computed afresh for the position reached."""
    searcher = Searcher(8)
    rng = random.Random(91)
    checked = out_of_play = 0
    for _ in range(2000):
        pos = random_position(rng, max_cards=6, max_total=16, with_table=0.4)
        if pos is None or pos.is_over:
            continue
        _load(searcher, pos)
        try:
            children = searcher.plain_children()
        except ValueError:          # not a plain position
            continue
        for record, key in children:
            if key is None:
                continue
            token = searcher.push(np.frombuffer(record, dtype=np.uint8))
            assert searcher.key(plain=True) == key, (pos.to_json(), record)
            searcher.pop(token)
            checked += 1
        ranks = _ranks_in_play(pos)
        out_of_play += any(_ranks_in_play(pos.play(m)) < ranks for m in pos.legal_moves())
    assert checked > 5000 and out_of_play > 300     # (moves that take a rank out of play)


def _ranks_in_play(pos):
    counts = sum(np.asarray(pos.hand(s).counts, dtype=int) for s in range(4))
    return len({k // 4 for k in range(52) if counts[k]})


def test_plain_search_passes_exactly_for_followers_who_cannot_answer():
    """RULES sec. 6: a follower passes when it cannot beat the table. The plain search
    passes for such followers without searching them; its test must agree with the
    kernel's legal moves (a play besides the pass) on single, pair, triple and
    three-with-two tables, wild cards and jokers included."""
    searcher = Searcher(8)
    rng = random.Random(93)
    cases = [Position.from_json(spaced_ranks_case(rng, lead=False, full_house_table=i % 3 == 0))
             for i in range(1500)]
    cases += [p for p in (random_position(rng, max_cards=6, max_total=16, with_table=1.0)
                          for _ in range(1500)) if p is not None and not p.is_over]
    # on lead there is nothing to answer (these cases all had a table, so it went unseen)
    cases += [Position.from_json(spaced_ranks_case(rng, lead=True)) for _ in range(500)]
    answers = Counter()
    for pos in cases:
        _load(searcher, pos)
        try:
            can = searcher.plain_can_answer()
        except ValueError:          # not a plain position
            continue
        if pos.table is None:
            assert not can
            answers["lead"] += 1
            continue
        legal = pos.legal_moves()
        expected = any(m.type_id != 0 for m in legal)
        assert can == expected, (pos.to_json(), can)
        answers[(pos.table.type_id, expected)] += 1
    for kind in (1, 2, 3, 4):   # every kind of table, answerable and not
        assert answers[(kind, True)] > 20 and answers[(kind, False)] > 20, answers
    assert answers["lead"] > 100, answers


@pytest.mark.parametrize("plain", [False, True], ids=["general", "plain"])
def test_move_order_knows_when_the_partners_play_holds_the_trick(plain):
    """The move order tries the pass early when the partner owns the table with a single,
    pair, triple or three-with-two of a queen or higher (the level rank and the jokers
    count as higher), or with a play neither opponent can beat (RULES sec. 6: then
    everyone passes and the partner leads again). Its test must agree with that rule
    worked out from the table play and the opponents' legal moves from the kernel.
    ``plain``: the plain positions' search's test, on the plain positions."""
    searcher = Searcher(8)
    rng = random.Random(57)
    seen = Counter()
    while min(seen.values(), default=0) < 100 or len(seen) < 3:
        pos = random_position(rng, max_cards=6, max_total=20, with_table=1.0)
        if pos is None or pos.is_over or pos.table is None or pos.owner != pos.to_move ^ 2:
            continue
        _load(searcher, pos)
        try:
            holds = searcher.partner_holds_table(plain)
        except ValueError:          # not a plain position
            continue
        if 1 <= pos.table.type_id <= 4 and pos.table.key >= 10:
            reason = "high"
        else:
            reason = "unbeaten"
            for opponent in (pos.to_move ^ 1, pos.to_move ^ 3):
                if not pos.hand(opponent).counts.any():
                    continue
                obj = dict(pos.to_json(), to_move=opponent)
                if any(m.type_id != 0 for m in Position.from_json(obj).legal_moves()):
                    reason = None
        assert holds == (reason is not None), (pos.to_json(), holds)
        seen[reason] += 1
        assert sum(seen.values()) < 20000, seen     # every case must come up


def test_search_switches_do_not_change_values():
    """Each technique (table, merging, bounds, ordering, running out, rank compression,
    dominance, the plain positions' own search) only changes the work, never the value."""
    switches = ["use_tt", "use_merge", "use_bounds", "use_ordering", "use_runout",
                "use_compress", "use_history", "use_dominance", "use_plain"]
    for pos, ref in _positions(6000, 15, max_total=11):
        for name in switches:
            searcher = Searcher(12, **{name: False})
            assert solve(pos, searcher=searcher, pv=False).value == ref, (name, pos.to_json())
        for name in ("use_etc", "use_runout"):   # off by default, on here
            searcher = Searcher(12, **{name: True})
            assert solve(pos, searcher=searcher, pv=False).value == ref, (name, pos.to_json())


def test_run_out_cut_off_keeps_values_in_the_general_search():
    """The run-out cut-off (off by default) in the general search, the plain positions'
    search switched off so that it sees them all: the leader's hand split exactly into
    plays nobody can beat (no card used twice) gives the minimax value and a best move
    that reaches it, on endgames with up to six cards a hand."""
    for pos, ref in _positions(7000, 25, max_cards=6, max_total=14):
        result = solve(pos, searcher=Searcher(12, use_runout=True, use_plain=False))
        assert result.value == ref, pos.to_json()
        assert _mover_value(pos, result.best) == ref, (pos.to_json(), str(result.best))


def test_canonical_table_key_keeps_the_order_of_a_bomb_on_the_table():
    """With the ranks compressed (no sequence possible) the table key still tells a bomb
    of 5s on the table from one of 6s when nobody holds a 5: the mover's own four 6s beat
    the first and not the second (+1 against -2 by the minimax)."""
    searcher = Searcher(8)
    keys, values = [], []
    for rank in "56":
        pos = Position.from_json({"level": "2", "hands": [["C6", "D6", "H6", "S6", "S9"], ["SK"],
                                                          ["S3"], ["CK"]],
                                  "finished": [], "to_move": 0,
                                  "table": {"owner": 1, "play": ["Bomb", rank,
                                                                 [s + rank for s in "SCDH"]]}})
        _load(searcher, pos)
        keys.append(searcher.key())
        values.append(minimax(pos, [10**6]))
    assert values[0] != values[1] and keys[0] != keys[1], (values, keys)


def test_plain_table_key_keeps_the_order_of_a_full_house_on_the_table():
    """RULES sec. 4-5: a full house on the table is answered only by a higher one, so the
    plain positions' key tells a full house of 3s from one of 8s: seat 0's 555+99 beats
    the first and goes out (+3 by the minimax), and must pass the second (-1)."""
    searcher = Searcher(8)
    hands = [["S5", "C5", "D5", "S9", "C9"], ["S7"], ["SK", "S6", "CT"], ["DT", "C8", "ST"]]
    keys, values = [], []
    for rank, cards in (("3", ["S3", "C3", "D3", "S4", "C4"]),
                        ("8", ["S8", "C8", "D8", "H4", "D4"])):
        pos = Position.from_json({"level": "2", "hands": hands, "finished": [], "to_move": 0,
                                  "table": {"owner": 3, "play": ["ThreeWithTwo", rank, cards]}})
        _load(searcher, pos)
        keys.append(searcher.key(plain=True))
        values.append(minimax(pos, [10**6]))
    assert values == [3, -1] and keys[0] != keys[1], (values, keys)


def test_canonical_table_key_counts_the_table_owners_cards_among_the_ranks_in_play():
    """Seat 0 owns the table (rank compression on): its own ranks are in play too, so its
    5 and a 6 (an opponent holds the other 6) stay apart in the key; seat 1's 6 beats
    the 5 and not the 6 (+1 against +2 for seat 0's team, by the minimax)."""
    searcher = Searcher(8)
    keys, values = [], []
    for card in ("S5", "S6"):
        pos = Position.from_json({"level": "2", "hands": [["C4", card, "DK"], ["D4", "C6"], ["H9"],
                                                          ["C3", "HK"]],
                                  "finished": [], "to_move": 1,
                                  "table": {"owner": 0, "play": ["Single", "3", ["D3"]]}})
        _load(searcher, pos)
        keys.append(searcher.key())
        values.append(minimax(pos, [10**6]))
    assert values == [1, 2] and keys[0] != keys[1], (values, keys)


def test_merged_moves_lead_to_equal_positions():
    """The search tries one move of each group that leads to the same position up to suits
    that cannot matter: every move it drops (dominance off) must reach the table key of a
    move it keeps, and the same minimax value."""
    searcher = Searcher(8, use_dominance=False)
    rng = random.Random(77)
    dropped_total = compared = 0
    for _ in range(300):
        pos = random_position(rng, max_cards=5, max_total=12)
        if pos is None or pos.is_over:
            continue
        kept, legal = _searched_and_legal(searcher, pos)
        def child(move):
            p = pos.play(move)
            if p.is_over:
                return ("over", p.outcome), p
            _load(searcher, p)
            return searcher.key(), p
        kept_children = {}
        for m in kept:
            key, p = child(m)
            kept_children[key] = p
        for m in legal:
            if m in kept:
                continue
            dropped_total += 1
            key, p = child(m)
            assert key in kept_children, (pos.to_json(), str(m))
            if key[0] != "over":
                # every dropped move within the budget (it compared every fifth: six
                # comparisons in all), and enough of them that the check means something
                try:
                    mine, theirs = minimax(p, [200_000]), minimax(kept_children[key], [200_000])
                except Budget:
                    continue
                assert mine == theirs, (pos.to_json(), str(m))
                compared += 1
    assert dropped_total > 30 and compared >= 25, (dropped_total, compared)


def _dropped_moves_are_dominated(pos, searcher, reference, plain=False):
    """Checks one position (differential.dominated_drops); returns how many moves the
    search drops there. Children are valued by ``reference``, a searcher that drops no
    dominated move (itself checked against the plain minimax by
    test_search_switches_do_not_change_values)."""
    try:
        return dominated_drops(pos, searcher, reference, plain)
    except AssertionError as e:
        raise AssertionError(f"{pos.to_json()}: {e}") from None


@pytest.mark.parametrize("plain", [False, True], ids=["general", "plain"])
def test_dominated_moves_are_never_better(plain):
    """The search drops a play when a play of the same kind at a lower rank is at least as
    good (the others answer both alike, and higher cards kept are never worse): every move
    it drops, suit merges included, has a kept move of its kind whose value is at least
    as good for the mover's team (values from a search that drops nothing, itself checked
    against the plain minimax by test_search_switches_do_not_change_values; the minimax
    here is too slow for these thousands of children). Random endgames (wild cards,
    tables, players out) and hands built of pairs, triples and three-with-twos.
    ``plain``: the moves of the plain positions' search (where no hand can bomb or form a
    sequence)."""
    searcher = Searcher(8)
    reference = Searcher(14, use_dominance=False)
    rng = random.Random(78)
    dropped = 0
    for _ in range(2000):
        pos = random_position(rng, max_cards=6, max_total=14, with_table=0.5)
        if pos is not None and not pos.is_over:
            dropped += _dropped_moves_are_dominated(pos, searcher, reference, plain)
    for i in range(1000):
        pos = Position.from_json(spaced_ranks_case(rng, lead=i % 2 == 0))
        dropped += _dropped_moves_are_dominated(pos, searcher, reference, plain)
    # where a condition matters: a three-with-two keeps the higher pair only if the
    # partner holds no pair between (the lower pair left in hand lets the partner take the
    # lead with its own); an opponent's single 7 and wild card answer a pair of 5s, not 9s
    for level, hands, out in (
            ("K", [["ST", "CT", "DT", "S2", "C2", "S9", "D9"], ["S7", "DK", "S4"],
                   ["C6", "D6"], ["CA", "S8", "DA"]], []),
            ("6", [["S7", "C7", "D7", "SJ", "CJ", "S9", "D9"], ["SA"], ["CJ", "DJ"],
                   ["HK", "H6", "D2"]], []),
            ("2", [["S5", "C5", "S9", "C9"], ["S7", "H2"], [], []], [2, 3])):
        pos = Position.from_json({"level": level, "hands": hands, "finished": out,
                                  "to_move": 0, "table": None})
        assert _dropped_moves_are_dominated(pos, searcher, reference, plain) > 0
    assert dropped > (1500 if plain else 3000)   # (fewer positions are plain)


def _searched_moves(pos, plain=False):
    """The platform form of the moves the search tries at ``pos`` (``plain``: the plain
    positions' search, which must apply there)."""
    searched, _ = _searched_and_legal(Searcher(8), pos, plain)
    assert searched is not None                     # a plain position
    return [m.to_platform() for m in searched]


def test_plain_search_keeps_the_higher_pair_when_an_opponents_natural_pair_lies_between():
    """Dropping a pair for a lower one is safe only if no opponent can answer the lower
    pair and not the higher: an opponent's natural pair between them (here the 8s, no
    wild card) answers the 4s, not the Qs, so the plain search must keep the Qs. Leading
    the Qs wins (+1, the minimax); with them dropped the search answered -1."""
    pos = Position.from_json({"level": "2", "hands": [["S4", "C4", "SQ", "CQ"], ["D8", "H8"],
                                                      ["C3"], ["C5", "SK"]],
                              "finished": [], "to_move": 0, "table": None})
    searched = _searched_moves(pos, plain=True)
    assert ["Pair", "Q", ["SQ", "CQ"]] in searched, searched
    assert minimax(pos, [10**6]) == 1 == solve(pos).value


def test_search_keeps_the_higher_triple_when_an_opponents_wild_triple_lies_between():
    """The same for triples, where an opponent's wild cards count: seat 1's S6 and two
    wild H2s (level 2) make a triple of 6s, which answers the 3s and not the 9s. By RULES
    leading the 9s gets +3: seat 1 cannot beat them, the partner goes out over them with
    its three 10s, nobody beats those, so seat 0 leads again (its partner is out) and goes
    out second with the 3s. Leading the 3s lets seat 1 out first with its 6s, and team 0
    is second and third at best (the 10s over the 6s, then the 9s): -1. With the 9s
    dropped the search answered +1 wherever the plain search did not take over."""
    pos = Position.from_json({"level": "2", "hands": [["S3", "H3", "C3", "S9", "H9", "C9"],
                                                      ["S6", "H2", "H2"], ["ST", "HT", "CT"],
                                                      ["C4"]],
                              "finished": [], "to_move": 0, "table": None})
    assert ["Trips", "9", ["S9", "H9", "C9"]] in _searched_moves(pos)
    assert minimax(pos, [10**6], {}) == 3
    for switches in ({}, {"use_plain": False}, {"use_merge": False}):
        result = solve(pos, all_moves=True, searcher=Searcher(8, **switches))
        assert (result.value, str(result.best)) == (3, "Trips 9: S9 H9 C9"), switches
        assert {str(m.move): m.value for m in result.moves}["Trips 3: S3 H3 C3"] == -1


def test_search_keeps_a_three_with_two_whose_lower_twin_would_break_a_bomb():
    """A three-with-two is dropped for one of a lower triple with the same pair only when
    that triple is all the mover's naturals of its rank: three 4s of a bomb of 4s are not.
    Seat 0 leads 99977 and gets +3 by RULES however the others answer: if seat 1 beats it
    with QQQJJ, seat 0 bombs with its four 4s and is out first, and nobody beats the
    bomb, so its partner leads S3 and is out second; if nobody beats it, seat 0 leads the
    bomb and the same follows. With 99977 dropped for 44477 the search found no move that
    kept the value it had found (a ValueError)."""
    pos = Position.from_json({"level": "2", "hands": [["S4", "H4", "C4", "D4", "S9", "H9",
                                                       "C9", "S7", "H7"],
                                                      ["SQ", "HQ", "CQ", "DJ", "CJ", "SK"],
                                                      ["S3"], ["D6"]],
                              "finished": [], "to_move": 0, "table": None})
    assert ["ThreeWithTwo", "9", ["S7", "H7", "S9", "H9", "C9"]] in _searched_moves(pos)
    result = solve(pos, all_moves=True)
    assert result.value == 3
    assert {str(m.move): m.value for m in result.moves}["ThreeWithTwo 9: S7 H7 S9 H9 C9"] == 3


def test_search_drops_no_play_of_a_hand_that_can_still_form_a_sequence():
    """Dropping a play for a lower one of its kind assumes the cards kept work alike,
    which a hand holding a sequence breaks: here seat 0's only +3 (the plain minimax's
    value) is to lead its ace and keep the straight 5-9 whole to go out with after its
    partner; a search that dropped the ace (and the 7 and the 9) for lower singles found
    +2."""
    pos = Position.from_json({"level": "J", "hands": [["H5", "C6", "D7", "D8", "S9", "HA"],
                                                      ["S3", "C6"], ["C8"],
                                                      ["D6", "C8", "SJ"]],
                              "finished": [], "to_move": 0, "table": None})
    searched, legal = _searched_and_legal(Searcher(8), pos)
    assert set(searched) == set(legal)
    result = solve(pos, all_moves=True)
    assert minimax(pos, [10**6], {}) == 3 == result.value
    assert str(result.best) == "Single A: HA"


def test_plain_search_keeps_the_higher_pair_when_an_opponents_wild_pair_lies_between():
    """As with a natural pair, an opponent's single 8 and wild card (the H2, level 2) make
    a pair of 8s that answers the 4s and not the Qs. Leading the Qs gets +1 by RULES: nobody
    can beat them, seat 0 goes out first with the 4s, seat 1 out second over them with its
    8s, then seat 3 (the lead passes to the partner) ahead of seat 2. Leading the 4s lets
    seat 1 out first. With the Qs dropped the plain search answered -1."""
    pos = Position.from_json({"level": "2", "hands": [["S4", "C4", "SQ", "CQ"], ["D8", "H2"],
                                                      ["C3"], ["C5", "SK"]],
                              "finished": [], "to_move": 0, "table": None})
    assert ["Pair", "Q", ["SQ", "CQ"]] in _searched_moves(pos, plain=True)
    assert minimax(pos, [10**6], {}) == 1 == solve(pos).value


def test_plain_search_keeps_a_three_with_two_whose_lower_twin_an_opponent_could_beat():
    """A three-with-two is dropped for one of a lower triple with the same pair only if no
    opponent holds a triple between: seat 1's 666KK beats 33355 and not 99955. By RULES
    leading 99955 gets +3: seat 1 cannot beat it, the partner goes out first over it with
    TTTQQ, nobody beats that, and seat 0 leads (its partner is out) its 333 to go out
    second. With 99955 dropped the plain search found no move keeping the value it had
    found (a ValueError). (Too large for the plain minimax: the searches without the plain
    search check it.)"""
    pos = Position.from_json({"level": "2", "hands": [["S3", "H3", "C3", "S9", "H9", "C9",
                                                       "S5", "H5"],
                                                      ["S6", "C6", "D6", "SK", "DK"],
                                                      ["ST", "HT", "CT", "SQ", "HQ"], ["C4"]],
                              "finished": [], "to_move": 0, "table": None})
    assert ["ThreeWithTwo", "9", ["S5", "H5", "S9", "H9", "C9"]] in _searched_moves(pos, plain=True)
    result = solve(pos)
    assert (result.value, str(result.best)) == (3, "ThreeWithTwo 9: S5 H5 S9 H9 C9")
    for switches in ({"use_plain": False}, {"use_merge": False, "use_dominance": False}):
        assert solve(pos, searcher=Searcher(8, **switches)).value == 3, switches


def test_plain_search_keeps_the_higher_pair_of_a_three_with_two_below_the_partners_pair():
    """Of two three-with-twos of one triple, the one with the higher pair is dropped only if
    the partner holds no pair between: keeping the 22 lets the partner follow it with its
    66. By RULES leading TTT99 gets +3: nobody can beat it (no other triple), seat 0 goes
    out first with the 22 and the partner second over them with its 66 (seat 1 holds no
    pair). Leading TTT22 keeps the 99, which the partner cannot follow and seat 3's AA
    beats (the plain minimax agrees, in a few seconds). With TTT99 dropped the plain search
    found no move keeping the value it had found (a ValueError)."""
    pos = Position.from_json({"level": "K", "hands": [["ST", "CT", "DT", "S2", "C2", "S9",
                                                       "D9"],
                                                      ["S7", "DK", "S4"], ["C6", "D6"],
                                                      ["CA", "S8", "DA"]],
                              "finished": [], "to_move": 0, "table": None})
    assert ["ThreeWithTwo", "T", ["S9", "D9", "ST", "CT", "DT"]] in _searched_moves(pos, plain=True)
    result = solve(pos)
    assert (result.value, str(result.best)) == (3, "ThreeWithTwo T: S9 D9 ST CT DT")
    assert solve(pos, searcher=Searcher(8, use_plain=False)).value == 3


def test_plain_search_drops_no_play_for_a_lower_one_across_the_partners_card():
    """Dropping a play for a lower one of its kind needs the partner to hold no natural
    between them (the partner could follow the lower card kept, not the higher). The
    plain minimax's value here, +2, is what the plain search finds when it counts the
    partner's T (seat 2's only card); counting no partner's card it found no move keeping
    the value it had found (a ValueError), and the general search answered +1."""
    pos = Position.from_json({"level": "A", "hands": [["D4", "S7", "DT", "HA", "HA", "SB",
                                                       "HR", "HR"],
                                                      ["D8"], ["DT"], ["DQ"]],
                              "finished": [], "to_move": 0,
                              "table": {"owner": 1, "play": ["Single", "7", ["S7"]]}})
    assert minimax(pos, [10**6], {}) == 2 == solve(pos).value
    assert solve(pos, searcher=Searcher(8, use_plain=False)).value == 2


def test_plain_search_keeps_a_single_that_is_not_dominated_by_one_of_a_pair():
    """A play is dropped only for a lower one that plays all the mover's naturals of its
    rank: one 8 of seat 0's two is not (what it leaves is no relabelling of what the 9
    leaves), so the 9 must stay, seat 1's 8 lying between the 5 and the 9. The plain
    minimax's value is -1; with the 9 dropped for an 8 (here and deeper) the plain search
    answered -2, and so did the general search with its own such check."""
    pos = Position.from_json({"level": "T", "hands": [["S5", "S8", "S8", "S9"],
                                                      ["C8", "HT", "HT"],
                                                      ["SQ", "HQ", "HR"], []],
                              "finished": [3], "to_move": 0, "table": None})
    assert ["Single", "9", ["S9"]] in _searched_moves(pos, plain=True)
    assert minimax(pos, [10**6], {}) == -1 == solve(pos).value
    assert solve(pos, searcher=Searcher(8, use_plain=False)).value == -1


def test_plain_search_keeps_a_three_with_two_whose_lower_pair_breaks_a_triple():
    """A three-with-two is dropped for one with a lower pair only when that pair is all the
    mover's naturals of its rank: the 77 of the 777 is not (what it leaves is no
    relabelling). By RULES KKKTT over 88877 gets +3: nobody can beat it, seat 0 leads its
    777 and is out first, nobody beats that and its partner leads its only card, out
    second. KKK77 leaves a single 7 besides the TT, which seat 1's K beats to go out before
    the partner. With KKKTT dropped the plain search found no move keeping the value it
    had found (a ValueError)."""
    pos = Position.from_json({"level": "A", "hands": [["H7", "C7", "D7", "ST", "HT", "HK",
                                                       "DK", "DK"],
                                                      ["HK"], ["C4"], ["C5"]],
                              "finished": [], "to_move": 0,
                              "table": {"owner": 1, "play": ["ThreeWithTwo", "8",
                                                             ["S7", "D7", "S8", "H8",
                                                              "C8"]]}})
    assert ["ThreeWithTwo", "K", ["ST", "HT", "HK", "DK", "DK"]] in _searched_moves(pos, plain=True)
    result = solve(pos)
    assert minimax(pos, [10**6], {}) == 3 == result.value
    assert str(result.best) == "ThreeWithTwo K: ST HT HK DK DK"


def test_plain_search_keeps_a_three_with_two_whose_pair_is_lower_than_a_broken_triple():
    """The lower pair that lets a three-with-two drop one with a higher pair must be all
    the mover's naturals of its rank, on the triple's side too: 888 gives 555 no lower pair
    here (a pair of the 8s would break it). Seat 2 (level 2, the H2 wild) leads 555JJ,
    which seat 1's three cards cannot beat, then its 888, its last cards, and is out
    third: +2 (the plain minimax). 888JJ is rightly dropped for 555JJ; with the 8s counted
    as a pair, 555JJ was dropped for 55588 as well, and the plain search answered +1."""
    pos = Position.from_json({"level": "2", "hands": [[], ["H2", "SQ", "CQ"],
                                                      ["H5", "H5", "D5", "S8", "S8", "H8",
                                                       "SJ", "CJ"], []],
                              "finished": [0, 3], "to_move": 2, "table": None})
    assert ["ThreeWithTwo", "5", ["H5", "H5", "D5", "SJ", "CJ"]] in \
        _searched_moves(pos, plain=True)
    assert minimax(pos, [10**6], {}) == 2 == solve(pos).value


def test_search_counts_the_cards_of_both_opponents_before_dropping_a_play():
    """Where an opponent could answer a lower play and not the higher one, the higher one
    must stay, and both opponents count, not only the next one to play: here seat 3, the
    opponent after the partner, holds the 7. The value, -1, is the plain minimax's; with
    seat 3's cards left out the plain search and the general search each answered -2."""
    pos = Position.from_json({"level": "8", "hands": [["H3", "C3", "H6", "D9", "CQ", "DQ",
                                                       "SB", "HR", "HR"],
                                                      ["H6"], ["C9"], ["C7"]],
                              "finished": [], "to_move": 0,
                              "table": {"owner": 1, "play": ["Trips", "2", ["S2", "H2",
                                                                            "D2"]]}})
    assert minimax(pos, [10**6], {}) == -1 == solve(pos).value
    assert solve(pos, searcher=Searcher(8, use_plain=False)).value == -1


def test_plain_search_drops_a_natural_play_only_for_one_with_as_many_wild_cards():
    """A play is dropped only for a lower one of its kind with as many wild cards: the pair
    of seat 1's 4 and the wild H6 (level 6) plays all its 4s, yet it is no lower twin of
    its natural 99 or QQ, as it spends the wild card. Two players left; the value for seat
    1, -1, is the plain minimax's; with wild plays counted as natural ones the plain search
    answered -2."""
    pos = Position.from_json({"level": "6", "hands": [["HT", "CT", "DT", "SA", "HA", "DA"],
                                                      ["C4", "H6", "H9", "C9", "SQ", "DQ"],
                                                      [], []],
                              "finished": [2, 3], "to_move": 1, "table": None})
    assert -minimax(pos, [10**6], {}) == -1 == solve(pos).value


@pytest.mark.parametrize("level, hands, out, to_move, table, value", [
    # both jokers: seat 0 leads the black one (nobody holds a joker to beat it), then the
    # red one, out second after its partner: +3
    ("K", [["SB", "HR"], ["S3", "HQ"], [], ["CQ"]], [2], 0, None, 3),
    # the red joker's count (seat 1 holds one, seat 2 none)
    ("A", [[], ["D2", "H9", "HR"], ["C2", "HT"], ["S9"]], [0], 3, None, -1),
    # the wild cards (the H5s of level 5 in seat 0's hand)
    ("5", [["H3", "H5", "H6", "HQ", "HR", "HR"], ["CK"], ["D3"], ["D4"]], [], 0,
     (1, ["Trips", "2", ["S2", "H2", "D2"]]), -1),
    # how many orders are still in play (the key counts them by their place)
    ("8", [["S2", "H3", "D5", "H8", "HR"], ["D3", "D8", "SQ", "HA"], [], []], [3, 2], 0,
     (2, ["Single", "K", ["SK"]]), -1),
])
def test_plain_search_key_keeps_apart_what_the_values_differ_in(level, hands, out, to_move,
                                                                  table, value):
    """The plain search's table key packs each hand as counts by the place of their order
    among the orders in play, the jokers apart, the wild cards and the table's key by how
    many of the answering players' orders it covers: a key that drops or mixes one of these
    gives two positions of different values one entry. Each case's value (for the side to
    move) is the plain minimax's; with the red jokers counted as black ones, the red
    joker's count or the wild cards left out of the key, or the number of orders in play,
    the search answered another value or found no move keeping the value it had found."""
    pos = Position.from_json({"level": level, "hands": hands, "finished": out,
                              "to_move": to_move,
                              "table": table and {"owner": table[0], "play": table[1]}})
    team0 = minimax(pos, [10**6], {})
    assert (team0 if to_move % 2 == 0 else -team0) == value == solve(pos).value


def test_plain_search_key_keeps_apart_the_readings_of_a_wild_three_with_two():
    """A three-with-two with a wild card (the H9, level 9) can be read with its triple of
    one rank or the other: seat 0's C3 C3 D7 C7 H9 is 333 77 or 777 33, one play of the
    same cards leaving the same hands, and only the table's key tells them apart (seat 3's
    555 99 beats the first, not the second). With a three-with-two's table key left out of
    the plain search's key the two readings shared one entry and the search answered +1.
    (Too large for the plain minimax: the searches without the plain search, or without
    merging and dominance, give +2.)"""
    pos = Position.from_json({"level": "9", "hands": [["C3", "C3", "D7", "C7", "H9", "H4"],
                                                      ["S4"],
                                                      ["D8", "S8", "H8", "D2", "D2", "CA"],
                                                      ["D5", "C5", "H5", "C9", "C9"]],
                              "finished": [], "to_move": 0, "table": None})
    assert solve(pos).value == 2
    for switches in ({"use_plain": False}, {"use_merge": False, "use_dominance": False}):
        assert solve(pos, searcher=Searcher(8, **switches)).value == 2, switches


def test_plain_search_key_counts_the_table_by_the_orders_it_covers():
    """The key gives the table's rank by how many of the answering players' orders it
    covers, as the hands are counted by place (orders nobody holds squeezed out): with the
    table's rank itself in the key, positions whose hands and tables differ there got one
    entry and the search answered -2. The value for seat 1, -1, is the plain minimax's
    (about 2 s here) and the search's without the plain search."""
    pos = Position.from_json({"level": "4", "hands": [["HT", "SB"], ["C3", "S4", "S7"],
                                                      ["S2", "H5", "C8", "CJ"],
                                                      ["C6", "D7", "D9", "HT", "CQ"]],
                              "finished": [], "to_move": 1,
                              "table": {"owner": 2, "play": ["Single", "Q", ["SQ"]]}})
    assert -minimax(pos, [10**7], {}) == -1 == solve(pos).value
    assert solve(pos, searcher=Searcher(8, use_plain=False)).value == -1


def _suit_free(move, level):
    """A move as the search sees it once suits cannot matter: type, key, label, the ranks
    of its natural cards and its number of wild cards."""
    naturals = list(move.kinds)
    for _ in move.wild_as:
        naturals.remove(level * 4 + 1)
    ranks = tuple(sorted(k // 4 if k < 52 else k for k in naturals))
    return (move.type_id, move.key, move.label, ranks, len(move.wild_as))


@pytest.mark.parametrize("plain", [False, True], ids=["general", "plain"])
def test_search_move_generation_matches_the_kernel(plain):
    """RULES sec. 3-4: the solver's own generator for hands without bombs or sequences
    (leads of singles, pairs, triples and three-with-twos, wild cards included, and the
    answers to a single, pair or triple) gives exactly the kernel's moves up to suits.
    ``plain``: the generator of the plain positions' search (where no hand can bomb or
    form a sequence), which also answers three-with-twos."""
    searcher = Searcher(8, use_dominance=False)   # no dominated moves dropped
    rng = random.Random(31)
    cases = [spaced_ranks_case(rng, lead=i % 2 == 0) for i in range(1000)]
    if plain:
        cases += [spaced_ranks_case(rng, lead=False, full_house_table=True)
                  for _ in range(300)]
    # a triple of one natural and two wilds with a joker pair
    cases.append({"level": "2", "hands": [["S5", "H2", "H2", "SB", "SB", "S9"], ["C3"],
                                          ["C4"], ["C6"]],
                  "finished": [], "to_move": 0, "table": None})
    seen_types = set()
    for obj in cases:
        pos = Position.from_json(obj)
        level = pos.level
        searched, legal = _searched_and_legal(searcher, pos, plain)
        if searched is None:
            continue
        got = [_suit_free(m, level) for m in searched]
        if len(got) <= 256:   # (longer lists are searched unmerged)
            assert len(got) == len(set(got)), obj        # one move per suit-free group
        assert set(got) == {_suit_free(m, level) for m in legal}, obj
        if not any(m.is_bomb for m in legal):
            seen_types |= {(m.type_id, len(m.wild_as), pos.table is None) for m in searched}
    # the bomb-free cases cover every kind of lead and answer, with and without wilds
    for t in (1, 2, 3):
        assert (t, 0, True) in seen_types and (t, 0, False) in seen_types
    assert {(4, 0, True), (4, 1, True), (4, 2, True)} <= seen_types
    assert (2, 1, False) in seen_types and (3, 2, False) in seen_types
    if plain:
        assert {(4, 0, False), (4, 1, False)} <= seen_types


def test_orders_holding_reads_every_count_field():
    """The plain search's mask of orders holding at least one, two or three cards (how it
    sees where an opponent could answer a single, pair or triple when pruning dominated
    plays), against reading the 4-bit fields one by one: random words with counts 0 to 8
    in each field (two packs hold at most eight of a card order), jokers' fields
    included and ignored."""
    from solver._search import orders_holding
    rng = random.Random(5)
    for _ in range(3000):
        counts = [rng.choice([0, 0, 0, 1, 2, 3, rng.randint(4, 8)]) for _ in range(16)]
        word = sum(c << (4 * o) for o, c in enumerate(counts))
        for least in (1, 2, 3):
            expected = sum(1 << o for o in range(14) if counts[o] >= least)
            assert orders_holding(word, least) == expected, (counts, least)
    with pytest.raises(ValueError, match="least must be 1, 2 or 3, not 4"):
        orders_holding(0, 4)


def test_a_solve_inside_another_solves_callback_gets_a_searcher_of_its_own():
    """on_info runs while the outer search holds this thread's searcher: a solve there
    must not reload it (it did, and the outer answer came out wrong); a Searcher passed
    to both is refused."""
    inner = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
             "to_move": 0, "table": None}
    outer = {"level": "7", "hands": [["S3", "S4"], ["C5", "HR"], [], ["D9", "D9", "SB"]],
             "finished": [2], "to_move": 3, "table": {"owner": 1, "play": ["Single", "A", ["SA"]]}}
    alone = solve(outer, all_moves=True)
    inner_values = []
    nested = solve(outer, all_moves=True,
                   on_info=lambda info: inner_values.append(solve(inner).value))
    assert inner_values and set(inner_values) == {3}
    assert (nested.value, nested.best, nested.pv) == (alone.value, alone.best, alone.pv)
    assert [(m.move, m.value) for m in nested.moves] == [(m.move, m.value) for m in alone.moves]
    own = Searcher(16)
    with pytest.raises(RuntimeError, match="already claimed by this thread"):
        solve(outer, searcher=own, on_info=lambda info: solve(inner, searcher=own))
    with own, pytest.raises(RuntimeError, match="a `with searcher:` block"):
        solve(inner, searcher=own)
    assert solve(outer, searcher=own).value == alone.value      # usable again afterwards
    with pytest.raises(TypeError, match="searcher must be a solver.Searcher, not 5"):
        solve(outer, searcher=5)


def test_a_solves_claim_cannot_be_let_go_under_it():
    """API (Searcher: `with searcher:` holds it for the calling thread, as solve does):
    the claim of a running solve could be dropped by __exit__ called from another thread,
    or by release() in the solve's own on_info; another thread's solve then loaded the
    searcher between the first solve's probes, which answered for the other position
    (a helper's run: 13 of 20 answers wrong). Both are now a RuntimeError, and the
    answer is the undisturbed one."""
    import threading
    items = _endgames_4x6(3)
    alone = [_answer(solve(obj, fresh_tables=True)) for obj in items]
    s = Searcher(16)
    seen = {"release": [], "exit": [], "solve": []}

    def from_another_thread(name, call):
        def run():
            try:
                call()
                seen[name].append("let through")
            except RuntimeError as exc:
                seen[name].append(str(exc))
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()

    def on_info(info):
        try:
            s.release()
            seen["release"].append("let through")
        except RuntimeError as exc:
            seen["release"].append(str(exc))
        from_another_thread("exit", lambda: s.__exit__(None, None, None))
        from_another_thread("solve", lambda: solve(items[1], searcher=s))

    result = solve(items[0], searcher=s, on_info=on_info, fresh_tables=True)
    assert _answer(result) == alone[0]
    assert seen["release"] and all("release() lets go of a claim()" in m
                                   for m in seen["release"]), seen
    for name in ("exit", "solve"):
        assert seen[name] and all("held by another thread" in m for m in seen[name]), seen
    assert not s.busy
    assert _answer(solve(items[1], searcher=s, fresh_tables=True)) == alone[1]
    with s:                                 # a block's claim is let go at its end only
        with pytest.raises(RuntimeError, match="release\\(\\) lets go of a claim\\(\\)"):
            s.release()
        assert s.busy
    assert not s.busy
    s.claim()                               # while claim()'s is let go by release()
    s.release()
    s.release()                             # (nobody holds it: nothing to do)
    assert not s.busy and _answer(solve(items[2], searcher=s, fresh_tables=True)) == alone[2]


def test_a_searcher_in_a_solve_refuses_other_threads():
    """Another thread growing or clearing a Searcher's table while a solve searches with
    it freed the table under the search (a helper's sanitizer run: heap use-after-free).
    While a solve holds it, every call from another thread but stop() is refused; the
    answer is the undisturbed one, and the searcher is usable once the solve returns."""
    import threading
    deck = [k for k in range(54) for _ in range(2)]
    random.Random(1).shuffle(deck)
    pos = Position(7, [deck[i * 10:(i + 1) * 10] for i in range(4)], [], 0)
    undisturbed = solve(pos, searcher=Searcher(4, max_tt_bits=8), node_limit=300_000)
    s = Searcher(4, max_tt_bits=8)
    calls = {"let through": 0, "refused": 0}
    errors = []                 # what the poking thread met besides the refusal
    finished = threading.Event()

    def poke():
        try:
            while not s.busy and not finished.is_set():
                pass                # (the solve claims the searcher first thing)
            while not finished.is_set():
                for call in (s.grow_table, s.clear_table, s.reset_counters, s.limits,
                             s.hands, lambda: setattr(s, "check_signals", True),
                             lambda: s.load(np.eye(4, 54, dtype=np.uint8), 0, [], 0, None,
                                            -1, 1, 1, 0)):
                    busy_before = s.busy
                    try:
                        call()
                    except RuntimeError as exc:
                        if "; only its stop() may be called" not in str(exc):
                            raise
                        calls["refused"] += 1
                        continue
                    if busy_before and s.busy:
                        calls["let through"] += 1      # a call while the solve held it
        except BaseException as exc:        # (a thread's exception never reaches pytest)
            errors.append(exc)

    thread = threading.Thread(target=poke)
    thread.start()
    try:
        result = solve(pos, searcher=s, node_limit=300_000)
    finally:
        finished.set()
        thread.join()
    assert errors == [] and calls["let through"] == 0 and calls["refused"] > 0, \
        (errors, calls)
    # a call let through during the solve would also change the count of nodes searched
    # (a table cleared, grown or counters reset) or the answer (another position loaded)
    assert (result.lower, result.upper, result.nodes, result.best) == \
        (undisturbed.lower, undisturbed.upper, undisturbed.nodes, undisturbed.best)
    assert not s.busy
    s.clear_table()                         # usable again: back to 2**4 entries, then
    assert s.grow_table() is True and s.tt_bits == 6       # four times larger
    s.claim()
    with pytest.raises(RuntimeError, match="already claimed by this thread"):
        s.claim()
    s.release()
    # what the search reads as it goes is not writable at all (a helper switched use_tt
    # on mid-search: a store into a null table entry) but through the checked methods
    for name, value in (("use_tt", True), ("node_limit", 5), ("nodes", 0), ("deadline", 0.0),
                        ("aborted", True), ("tt_hits", 0)):
        with pytest.raises(AttributeError, match="not writable"):
            setattr(s, name, value)
    # an exception out of a solve (here on_info's) leaves the searcher free
    with pytest.raises(ZeroDivisionError):
        solve(pos, searcher=s, node_limit=1_000, on_info=lambda info: 1 / 0)
    assert not s.busy
    with s:
        assert s.busy
    assert not s.busy


def test_searcher_entry_points_check_what_would_go_out_of_bounds():
    """The compiled search's own entry points (the Python layer validates first) refuse
    what would make it read or write out of bounds, or search a position that cannot
    arise, instead of corrupting memory (a fuzzer under ASan/UBSan found a table play keyed
    beyond its type's table, finished seats holding cards, pop(None), a flag of -1, a
    value of 2**31 - 1, an empty window, a card pushed that the mover does not hold)."""
    s = Searcher(8)
    hands = np.zeros((4, 54), np.uint8)
    hands[0, 5] = hands[1, 9] = hands[2, 14] = hands[3, 30] = 1      # H3, H4, C5, C9
    for bad, named in (({"hands": np.zeros((3, 54), np.uint8)}, "4 x 54"),
                       ({"hands": np.full((4, 54), 3, np.uint8)}, "3 times"),
                       ({"to_move": 9}, "to_move"), ({"level": 13}, "level"),
                       ({"level": 1.7}, "not 1.7"), ({"owner": 4}, "owner"),
                       ({"finished": [0, 1, 2, 3, 0]}, "finished"),
                       ({"finished": [7]}, "finished"), ({"finished": None}, "finished"),
                       ({"finished": [0]}, "seat 0 is in finished"),
                       ({"hands": np.eye(4, 54, dtype=np.uint8) * np.uint8([[1], [0], [1], [1]])},
                        "seat 1 is not in finished"),
                       ({"flags": (-1, 1, 0)}, "sf_is_bomb must be 0 or 1, not -1"),
                       ({"flags": (1, 2 ** 31 - 1, 0)}, "sf_wild_any_suit must be 0 or 1"),
                       ({"table": b"x" * 5}, "18 bytes"),
                       ({"owner": 1}, "owner must be -1 without a table play"),
                       # (a fuzzer's 108-card hands overflowed the move arena)
                       ({"hands": np.full((4, 54), 2, np.uint8)}, "holds 108 cards"),
                       ({"hands": (np.eye(4, 54, dtype=np.uint8) * 2
                                   + np.eye(4, 54, k=1, dtype=np.uint8))},
                        "card kind 1 is in play 3 times")):
        args = {"hands": hands, "level": 0, "finished": [], "to_move": 0, "table": None,
                "owner": -1, "flags": (1, 1, 0), **bad}
        with pytest.raises(ValueError, match=named):
            s.load(args["hands"], args["level"], args["finished"], args["to_move"],
                   args["table"], args["owner"], *args["flags"])
    s.load(hands, 0, [], 0, None, -1, 1, 1, 0)
    record = bytearray(18)
    record[:3] = b"\x01\x00\x01"       # a single, one card
    record[6] = 200                      # a card kind past 53
    with pytest.raises(ValueError, match="under 54"):
        s.push(np.frombuffer(bytes(record), np.uint8))
    record[6], record[2] = 5, 11         # eleven cards
    with pytest.raises(ValueError, match="at most 10"):
        s.push(np.frombuffer(bytes(record), np.uint8))
    # the table play given to load is checked as a pushed move is (it was copied unread)
    for ncards, kind, named in ((1, 200, "under 54"), (11, 5, "at most 10")):
        record[2], record[6] = ncards, kind
        with pytest.raises(ValueError, match=named):
            s.load(hands, 0, [], 1, bytes(record), 0, 1, 1, 0)
    with pytest.raises(ValueError, match="finished"):      # not a TypeError
        s.load(hands, 0, ["2"], 0, None, -1, 1, 1, 0)
    # finished as a numpy array of seats, as a batch of positions holds it
    one_out = hands.copy()
    one_out[0] = 0
    s.load(one_out, 0, np.array([0], np.int8), 1, None, -1, 1, 1, 0)
    key = s.key()
    s.load(one_out, 0, [0], 1, None, -1, 1, 1, 0)
    assert s.key() == key
    with pytest.raises(ValueError, match=re.escape("not [0, 0]")):
        s.load(one_out, 0, np.array([0, 0]), 1, None, -1, 1, 1, 0)
    # records no kernel makes: real readings with only the key (or only the label) changed,
    # a straight flush keyed 15 or 31 (read past a 14-entry table), a single keyed 100 or
    # -5 (shifts out of range): not readings of their cards
    def altered(move, key=None, label=None, nwild=None):
        r = bytearray(move.record().tobytes())
        if key is not None:
            r[4:6] = key.to_bytes(2, "little", signed=True)
        if label is not None:
            r[1] = label
        if nwild is not None:
            r[3] = nwild
        return np.frombuffer(bytes(r), np.uint8)
    flush = Move.from_platform(["StraightFlush", "3", ["S3", "S4", "S5", "S6", "S7"]], "2")
    s9 = Move.from_platform(["Single", "9", ["S9"]], "2")
    for move in (flush, s9):            # as the kernel reads them: accepted
        s.load(hands, 0, [], 1, move.record(), 0, 1, 1, 0)
        s.load(hands, 0, [], 1, altered(move, key=move.key), 0, 1, 1, 0)
    for move, change in ((flush, {"key": 15}), (flush, {"key": 31}), (s9, {"key": 100}),
                         (s9, {"key": -5}), (s9, {"label": s9.label + 1})):
        with pytest.raises(ValueError, match="not a reading of its cards at level 0"):
            s.load(hands, 0, [], 1, altered(move, **change), 0, 1, 1, 0)
    # a wild count no record has (7 wilds, or 2 in a single): the search took it, and the
    # kernel's refusal of it as a table play was read as a full move arena, grown to its
    # most before a MemoryError about long sequences
    for move, nwild in ((s9, 7), (s9, 2), (flush, 3)):
        with pytest.raises(ValueError, match=f"wild cards are at most 2 and at most its "
                                             f"cards \\({len(move)}\\), not {nwild}"):
            s.load(hands, 0, [], 1, altered(move, nwild=nwild), 0, 1, 1, 0)
    s.load(hands, 0, [], 0, None, -1, 1, 1, 0)
    h3_move = Move.from_platform(["Single", "3", ["H3"]], "2")
    h3 = h3_move.record()
    c9 = Move.from_platform(["Single", "9", ["C9"]], "2").record()
    for call, named in ((lambda: s.push(altered(h3_move, key=100)), "not a reading"),
                        (lambda: s.push(altered(h3_move, nwild=7)), "not 7"),
                        (lambda: s.push(altered(h3_move, label=0)), "not a reading"),
                        (lambda: s.push(c9), "does not hold the cards"),
                        (lambda: s.push(Move.PASS.record()), "seat 0 leads: it cannot pass"),
                        (lambda: s.pop(None), "pop takes an undo token"),
                        (lambda: s.search(1, 1), "the window (1, 1) is empty"),
                        (lambda: s.search(-5, 3), "alpha must be a whole number -4..4"),
                        (lambda: s.reaches(2 ** 31 - 1, False), "not 2147483647"),
                        (lambda: s.best_move(2.0), "not 2.0"),
                        (lambda: s.child_reaches(c9, 1, True), "does not hold"),
                        (lambda: s.principal_line(c9, 1), "does not hold")):
        with pytest.raises(ValueError, match=re.escape(named)):
            call()
    more = hands.copy()
    more[1, 4] = 1                      # seat 1 also holds S3
    s.load(more, 0, [], 0, None, -1, 1, 1, 0)
    token = s.push(h3)                  # seat 0 plays its H3 and is out
    with pytest.raises(ValueError, match="does not beat the table play"):
        s.push(Move.from_platform(["Single", "3", ["S3"]], "2").record())
    s.pop(token)
    s.load(hands, 0, [], 0, None, -1, 1, 1, 0)
    with pytest.raises(ValueError, match="since its last load"):
        s.pop(token)                    # a token from before load(): another position
    other = Searcher(8)
    other.load(hands, 0, [], 0, None, -1, 1, 1, 0)
    with pytest.raises(ValueError, match="pop takes an undo token"):
        other.pop(s.push(h3))
    # seat 0 plays its card (kind 5) from an odd address too
    after = []
    for buffer in (h3.tobytes(), b"\0" + h3.tobytes()):
        s.load(hands, 0, [], 0, None, -1, 1, 1, 0)
        s.push(np.frombuffer(buffer, np.uint8)[len(buffer) - 18:])
        after.append((s.hands().tolist(), s.to_move(), s.finished(), s.owner()))
    assert after[0] == after[1] and after[0][0][0][5] == 0 and after[0][2] == [0]


def test_a_searcher_refuses_a_seat_to_move_without_cards_unless_the_hand_is_over():
    """``load`` refuses a seat to move that holds nothing while both teams still play (of
    either team), and takes any seat once a team is out: the hand is over (RULES sec. 6),
    and its outcome is all there is to search."""
    s = Searcher(8)
    hands = np.zeros((4, 54), np.uint8)
    hands[0, 5] = hands[1, 9] = hands[2, 14] = hands[3, 30] = 1      # H3, H4, C5, C9
    for seat in range(4):
        out = hands.copy()
        out[seat] = 0
        with pytest.raises(ValueError, match=f"to_move {seat} holds no cards"):
            s.load(out, 0, [seat], seat, None, -1, 1, 1, 0)
    for team_out, outcome in (((1, 3), -3), ((2, 0), 3)):
        out = hands.copy()
        out[list(team_out)] = 0
        s.load(out, 0, list(team_out), team_out[0], None, -1, 1, 1, 0)
        assert s.is_over() and s.outcome() == outcome


def test_a_searcher_with_no_position_loaded_refuses_the_calls_that_read_one():
    """API.md (Solver, Searcher): the calls that read the position refuse a searcher
    before its first load() with a ValueError saying so. A fuzzing review found a new
    searcher answering from its all-zero state: search(-4, 4) gave 1, root_moves() a
    pass, best_move(1) 0, is_over(), outcome(), owner() True, 1, 0. A load() that is
    refused loads nothing; the calls that need no position still work."""
    s = Searcher(8)
    record = Move.PASS.record()
    calls = [lambda: s.search(-4, 4), s.root_moves, lambda: s.best_move(1), s.is_over,
             s.outcome, s.owner, s.to_move, s.hands, s.finished, s.key, s.holds_position,
             s.forget_position, lambda: s.proof_move(1), lambda: s.reaches(1, True),
             lambda: s.child_reaches(record, 1, True), lambda: s.principal_line(record, 1),
             lambda: s.push(record), s.searched_moves, s.plain_can_answer,
             s.partner_holds_table, s.plain_children]
    hands = np.zeros((4, 54), np.uint8)
    hands[0, 5] = 1
    with pytest.raises(ValueError, match="seat 1 is not in finished"):
        s.load(hands, 0, [], 0, None, -1, 1, 1, 0)
    for call in calls:
        with pytest.raises(ValueError, match=re.escape("no position loaded: call load() "
                                                       "first")):
            call()
    s.limits(node_limit=5)
    s.reset_counters()
    s.clear_table()
    _load(s, Position.from_json(_LAST_ACE))
    assert s.search(-4, 4) == 3 and s.owner() == -1 and not s.is_over()


def test_a_searcher_at_a_finished_hand_lists_no_move_and_chooses_none():
    """API.md (Solver, Searcher): once the hand is over nobody is to move, so
    root_moves() lists no move (as Position.legal_moves() does) and best_move() is a
    ValueError, as solve() refuses such a position; load() kept its to_move, and both
    gave that seat's moves (seat 1's single here, chosen as the best). The outcome is
    still there: both teammates 0 and 2 went out first, +3 for team 0 (RULES sec. 6)."""
    over = Position(0, [[], ["S3"], [], ["S4"]], finished=[0, 2], to_move=None)
    s = Searcher(8)
    s.load(over.counts_matrix(), 0, [0, 2], 1, None, -1, 1, 1, 0)
    assert s.root_moves() == (b"", [], []) and s.root_moves(False) == (b"", [], [])
    for value in (3, -3, 1):
        with pytest.raises(ValueError, match="^the hand is over: no move to choose$"):
            s.best_move(value)
    assert s.is_over() and s.outcome() == 3 and s.search(-4, 4) == 3
    with pytest.raises(ValueError, match="the hand is already over: nothing to solve"):
        solve(over)


def test_the_lowest_threshold_is_reached_without_a_search():
    """RULES sec. 6: -3 is the lowest value, so "at least -3?" is yes for the position and
    every move, whatever the limits; with node_limit=0 the position said yes while its
    moves said None and probe() said None (a helper's finding)."""
    from solver.search import VALUES
    obj = _endgames_4x6(1)[0]
    assert VALUES[0] == -3
    r = solve(obj, at_least=-3, node_limit=0, all_moves=True)
    assert r.reached is True and r.moves and all(m.reaches is True for m in r.moves)
    assert (r.lower, r.upper) == (-3, 3) and r.best is not None
    assert probe(obj, -3, node_limit=0) is True and probe(obj, -2, node_limit=0) is None


def test_reaches_answers_beyond_either_end_of_the_values_without_a_search():
    """RULES sec. 6: the team-0 value is -3 to +3, so whatever the limits (none left
    here: node_limit=0, where any search answers None) team 0 holds -3 or better and
    never +4, and team 1 holds +3 or better for it (team-0 value <= 3) and never -4, for
    the position and after each move. A search at either end answered None."""
    s = Searcher(12)
    _load(s, Position.from_json(_endgames_4x6(1)[0]))
    records, _, _ = _root(s, merge=False)
    s.limits(node_limit=0)
    assert s.reaches(-2, True) is None          # (a real question: the limit shows)
    for value, maximizing, expected in ((-3, True, True), (4, True, False),
                                        (3, False, True), (-4, False, False)):
        assert s.reaches(value, maximizing) is expected
        for i in range(len(records)):
            assert s.child_reaches(_record_bytes(records, i), value, maximizing) is expected


# seat 0 leads its last card, SA, with its partner (seat 2) already out: 1st and 2nd, +3
_LAST_ACE = {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], "finished": [2],
             "to_move": 0, "table": None}
# seat 1 went out first; seat 0 plays S3 and seat 2 S4 next: team 1 wins, partner last: -1
_LOST_BY_ONE = {"level": "2", "hands": [["S3"], [], ["S4"], ["SA"]], "finished": [1],
                "to_move": 0, "table": None}
_ACE = ["Single", "A", ["SA"]]


@pytest.mark.parametrize("name", ["table_bits", "max_table_bits"])
def test_a_bool_table_size_is_named_as_no_whole_number(name):
    """True is an int to Python but no table size: refused as such, not as out of range."""
    with pytest.raises(ValueError, match=re.escape(f"{name} must be a whole number, not True")):
        solve(_LAST_ACE, **{name: True})


def test_the_largest_table_size_is_allowed():
    """max_table_bits runs from table_bits to 30, both ends included."""
    assert solve(_LAST_ACE, table_bits=4, max_table_bits=30).value == 3
    assert solve(_LAST_ACE, table_bits=30, max_table_bits=30, searcher=Searcher(4)).value == 3


def test_json_of_an_exact_answer_has_the_readmes_keys_in_order():
    """README: value, exact, lower, upper, best, pv, moves, nodes, tt_hits, seconds; no
    pv_cut unless the line was cut, no equivalent for a move grouped with none."""
    out = solve(_LAST_ACE, all_moves=True).to_json()
    assert list(out) == ["value", "exact", "lower", "upper", "best", "pv", "moves", "nodes",
                         "tt_hits", "seconds"]
    assert (out["value"], out["exact"], out["lower"], out["upper"]) == (3, True, 3, 3)
    assert out["best"] == _ACE and out["pv"] == [[0, _ACE]]
    assert out["moves"] == [{"move": _ACE, "value": 3}]


def test_threshold_json_gives_each_move_reaches_not_bounds():
    """API: in threshold mode each move's JSON gains "reaches"; "lower"/"upper" follow a
    null value only when a limit left it unknown."""
    out = solve(_LAST_ACE, at_least=1, all_moves=True).to_json()
    assert (out["threshold"], out["reached"], out["lower"], out["upper"]) == (1, True, 1, 3)
    assert out["moves"] == [{"move": _ACE, "value": None, "reaches": True}]


def test_a_threshold_out_of_reach_proves_at_most_the_value_below_it():
    """RULES sec. 6 has no 0: not reaching +1 proves at most -1, not reaching +2 at most +1."""
    for t, upper in ((1, -1), (2, 1)):
        r = solve(_LOST_BY_ONE, at_least=t)
        assert (r.reached, r.lower, r.upper, r.best) == (False, -3, upper, None)


def test_a_threshold_reached_proves_at_least_the_threshold():
    r = solve(_LOST_BY_ONE, at_least=-1)
    assert (r.reached, r.lower, r.upper, r.value) == (True, -1, 3, None)


def test_with_nothing_proven_best_is_the_first_move_in_the_order_of_preference():
    """API: with no node to search nothing is proven, and best is the move the search tries
    first: going out (the pair of 5s) before the single."""
    pos = dict(_LAST_ACE, hands=[["S5", "S5"], ["S3"], [], ["S4"]])
    r = solve(pos, node_limit=0)
    assert (r.value, r.lower, r.upper) == (None, -3, 3)
    assert r.best.to_platform() == ["Pair", "5", ["S5", "S5"]]


def test_bad_thresholds_are_named_by_each_entry_points_own_parameter():
    """solve's at_least and probe's threshold, with the values of RULES sec. 6 signed."""
    values = "-3, -2, -1, +1, +2, +3"
    with pytest.raises(ValueError, match=re.escape(f"at_least must be one of {values}, not 0")):
        solve(_LAST_ACE, at_least=0)
    with pytest.raises(ValueError, match=re.escape(f"threshold must be one of {values}, not 0")):
        probe(_LAST_ACE, 0)


def test_the_largest_table_size_defaults_to_the_first_or_24_whichever_is_bigger():
    """API: max_table_bits defaults to max(table_bits, 24) (sizes only: no table made)."""
    from solver.search import _sizes
    assert _sizes(18, None) == (18, 24)
    assert _sizes(26, None) == (26, 26)
    assert _sizes(26, 28) == (26, 28)


def test_a_limit_met_while_choosing_the_best_move_cuts_no_line_not_asked_for():
    """API: pv_cut is True only when the line was asked for (pv=True): a budget that runs
    out while the best move is chosen, with pv=False, leaves the value exact and no cut."""
    for obj in _endgames_4x6(100):
        probes = []
        full = solve(obj, pv=False, on_info=probes.append, fresh_tables=True)
        value_nodes = max(e["nodes"] for e in probes if e["stage"] == "bound")
        if full.nodes - value_nodes >= 2000:
            break
    else:
        pytest.fail("no position whose best move takes 2,000 nodes after its value")
    r = solve(obj, pv=False, node_limit=(value_nodes + full.nodes) // 2, fresh_tables=True)
    assert r.exact and r.value == full.value and r.best is not None
    assert r.pv == [] and r.pv_cut is False and "pv_cut" not in r.to_json()
    assert solve(obj, node_limit=(value_nodes + full.nodes) // 2, fresh_tables=True).pv_cut


def test_threshold_every_move_gives_the_best_move_reaches_even_when_the_budget_is_spent():
    """The best move is one that reaches the threshold: its score says so (what the
    position's search proved) even when the budget ends right after it was found."""
    checked = 0
    for obj in _endgames_4x6(6):
        alone = solve(obj, at_least=1, fresh_tables=True)
        if not alone.reached:
            continue
        r = solve(obj, at_least=1, all_moves=True, node_limit=alone.nodes, fresh_tables=True)
        assert r.reached is True and r.best == alone.best
        score = next(m for m in r.moves if r.best in [m.move, *m.equivalent])
        assert (score.reaches, score.lower, score.upper) == (True, 1, 3)
        checked += 1
    assert checked >= 2


def test_a_stops_repr_says_whether_it_is_set():
    from solver import Stop
    stop = Stop()
    assert repr(stop) == "<Stop not set>"
    stop.set()
    assert repr(stop) == "<Stop set>"


def test_threshold_moves_a_limit_left_unanswered_are_not_reported():
    """API, on_info: no "move" event for a move a limit left unscored."""
    events = []
    r = solve(_endgames_4x6(1)[0], at_least=1, all_moves=True, node_limit=0,
              fresh_tables=True, on_info=events.append)
    assert r.moves and all(m.reaches is None for m in r.moves)
    assert [e for e in events if e["stage"] == "move"] == []


def test_clear_tables_makes_the_next_solve_count_as_one_from_empty_tables():
    """API: clear_tables() empties this thread's tables, as fresh_tables=True does: the
    counts are those of a search from empty tables, not of one the table helps."""
    from solver import clear_tables
    obj = _endgames_4x6(1)[0]
    fresh = solve(obj, fresh_tables=True)
    helped = solve(obj)
    assert helped.nodes < fresh.nodes
    clear_tables()
    again = solve(obj)
    assert (again.nodes, again.tt_hits) == (fresh.nodes, fresh.tt_hits)


def test_no_line_is_followed_when_none_is_asked_for():
    r = solve(_LAST_ACE, pv=False)
    assert (r.value, r.best.to_platform(), r.pv, r.pv_cut) == (3, _ACE, [], False)


def test_free_tables_during_solve_many_keeps_none_of_the_searchers_lent_before(monkeypatch):
    """API: free_tables() called while solve_many runs (here from on_result): the workers
    keep their tables until they are done, then those are freed, not kept for later."""
    import solver.batch
    import solver.search
    from solver import free_tables
    monkeypatch.setattr(solver.batch, "available_cores", lambda: 2)
    lent_before = []
    borrow = solver.batch._borrow

    def recording_borrow(*args):
        s, generation = borrow(*args)
        if not freed:
            lent_before.append(s)
        return s, generation

    freed = []

    def on_result(i, result):
        if not freed:
            free_tables()
            freed.append(i)

    monkeypatch.setattr(solver.batch, "_borrow", recording_borrow)
    free_tables()
    solve_many(_endgames_4x6(4), threads=2, on_result=on_result)
    assert freed and lent_before
    assert not {id(s) for s in solver.search._spares} & {id(s) for s in lent_before}


def test_a_stop_and_a_searcher_do_not_pickle_or_copy():
    """They belong to this process: a TypeError that says so. (A copied Stop shared the
    original's searches, so setting it stopped them while the original said it was not
    set; pickling named a lock, or Cython's __cinit__.)"""
    import copy
    import pickle
    from solver import Stop
    for obj, message in ((Stop(), "a Stop stops searches in this process"),
                         (Searcher(4), "a Searcher holds tables in this process's memory")):
        for how in (pickle.dumps, lambda o: pickle.dumps(o, 0), copy.copy, copy.deepcopy):
            with pytest.raises(TypeError, match=f"{message}: it cannot be pickled or copied"):
                how(obj)


_READ_BACK = {"level": "2", "hands": [["S5", "S6", "S9"], ["S3", "S4", "DK"], ["C7", "C8"],
                                      ["HR", "D4"]], "finished": [], "to_move": 0, "table": None}


def test_read_result_reads_every_kind_of_result_back():
    """API: read_result(obj, position) gives back the SolveResult whose to_json() it is,
    from a dict, JSON text or bytes: exact, every move scored, threshold questions, and
    node limits that stop the search before the value or in the line."""
    from solver import read_result
    pos = Position.from_json(_READ_BACK)
    kinds = [dict(), dict(all_moves=True), dict(at_least=2), dict(at_least=-1, all_moves=True),
             dict(node_limit=0), dict(node_limit=30), dict(node_limit=30, all_moves=True)]
    for kind in kinds:
        want = solve(pos, fresh_tables=True, **kind)
        text = json.dumps(want.to_json())
        for obj in (want.to_json(), text, text.encode()):
            assert read_result(obj, _READ_BACK) == want, kind
    assert not solve(pos, node_limit=0, fresh_tables=True).exact      # (a limit did stop it)


def test_read_result_refuses_what_does_not_agree_with_the_position():
    """A result is checked against its position: keys missing or unknown, values out of
    range or disagreeing, moves that are not legal where played, a line that is not the
    position's, scored moves that are not its legal ones: a ValueError naming it."""
    from solver import read_result
    good = solve(_READ_BACK, all_moves=True, fresh_tables=True).to_json()
    other = solve(dict(_READ_BACK, to_move=1), fresh_tables=True).to_json()
    illegal = ["Single", "A", ["SA"]]
    bad = [("[1]", "a solve result is a JSON object, not \\[1\\]"),
           ("null", "a solve result is a JSON object, not null$"),
           (dict(good, moves=[None]), "a scored move is a JSON object, not null$"),
           ("{", "JSON"),
           (dict(good, extra=1), "a solve result has no key 'extra'"),
           ({k: v for k, v in good.items() if k != "nodes"}, "needs the key 'nodes'"),
           (dict(good, value=-good["value"]), "do not agree"),
           (dict(good, lower=1, upper=3, value=None, exact=False),
            f"the line ends at {good['value']:+d} for the mover's team, outside 1..3"),
           # bounds that meet are an exact value (solve gives it), not "unknown"
           (dict(good, value=None, exact=False, pv_cut=True), "do not agree"),
           (dict(good, nodes=-1), "nodes -1 is not a count"),
           (dict(good, seconds="x"), "seconds must be"),
           (dict(good, best=illegal), "best .* is not a legal move there"),
           (dict(good, pv=[[1] + good["pv"][0][1:]] + good["pv"][1:]),
            "the line has seat 1 play where seat 0 is to move"),
           (dict(good, pv=good["pv"][:1]), "stops before the end of the hand"),
           (dict(good, moves=good["moves"][1:]), "the scored moves and their equivalents"),
           (dict(good, threshold=9, reached=True), "threshold must be one of"),
           (dict(good, pv=5), "pv must be a list, not 5"),
           # (an AttributeError and Python's unpacking message before)
           (dict(good, moves=["x"]), "a scored move is a JSON object, not 'x'"),
           (dict(good, pv=[[0, 1, 2]]), "the line's steps are \\[seat, move\\] pairs, "
                                        "not \\[0, 1, 2\\]"),
           (dict(good, moves=[dict(good["moves"][0], extra=1)] + good["moves"][1:]),
            "a scored move has no key 'extra'"),
           (other, "the line has seat 1 play where seat 0 is to move")]
    for obj, message in bad:
        with pytest.raises(ValueError, match=message):
            read_result(obj, _READ_BACK)
    # threshold mode: the best move said not to reach a threshold the position reaches
    asked = solve(_READ_BACK, all_moves=True, at_least=good["value"],
                  fresh_tables=True).to_json()
    assert asked["reached"] is True and read_result(asked, _READ_BACK).reached is True
    for entry in asked["moves"]:
        if asked["best"] in [entry["move"], *entry.get("equivalent", [])]:
            entry["reaches"] = False
    with pytest.raises(ValueError, match="reaches False where the position's answer is True"):
        read_result(asked, _READ_BACK)


def test_read_result_refuses_a_best_move_where_solve_gives_none_and_none_where_it_gives_one():
    """API.md (Solver, solve and read_result): solve names a move to play in every
    result but one of a threshold not reached with the value unknown ("best ... None when
    out of reach"); read_result refuses a result that says otherwise (a review found both
    read: a best move for a threshold not reached, None for one reached). At -1 the
    mover's team of _READ_BACK reaches -1 (its value), not +1; seat 0 of ``low``, with
    S3 and S4 against seat 3's ace, seat 1 out first, gets -3 whatever it leads (seat 3
    goes out second on it, RULES sec. 6), so "at least -2?" is no and pins the value,
    whose best move stays."""
    from solver import read_result
    low = {"level": "2", "hands": [["S3", "S4"], [], ["S5", "S6"], ["SA"]], "finished": [1],
           "to_move": 0, "table": None}
    pinned = solve(low, at_least=-2, fresh_tables=True)
    assert (pinned.reached, pinned.value) == (False, -3) and pinned.best is not None
    assert read_result(pinned.to_json(), low) == pinned
    reached = solve(_READ_BACK, at_least=-1, fresh_tables=True).to_json()
    missed = solve(_READ_BACK, at_least=1, fresh_tables=True).to_json()
    exact = solve(_READ_BACK, fresh_tables=True).to_json()
    assert reached["reached"] and reached["best"] is not None
    assert missed["reached"] is False and missed["best"] is None and missed["value"] is None
    with pytest.raises(ValueError, match=re.escape(
            f"best {reached['best']!r} for threshold +1, not reached (the value unknown): "
            "no move reaches it, so none is best")):
        read_result(dict(missed, best=reached["best"]), _READ_BACK)
    for result in (reached, dict(exact, pv=[], pv_cut=True)):
        with pytest.raises(ValueError, match=re.escape(
                "best None, which only a threshold not reached (the value unknown) has")):
            read_result(dict(result, best=None), _READ_BACK)


def test_read_result_names_the_key_of_a_bad_list_move_or_count():
    """API.md (Solver, read_result): a ValueError names a wrong key. pv, moves and a
    move's equivalent must be lists (pv {} read as no line; None or 5 said "'NoneType'
    object is not iterable", naming no key); a move that does not read says where it is
    (best's MoveError did not); nodes and tt_hits are at most 2**63 - 1 and seconds at
    most 1e15, as read_sampled reads them (2**64 and 1e300 were read)."""
    from guandan_core.moves import MoveError
    from solver import read_result
    exact = solve(_READ_BACK, fresh_tables=True).to_json()
    scored = solve(_READ_BACK, all_moves=True, fresh_tables=True).to_json()
    equivalent = dict(scored["moves"][0], equivalent="x")
    for obj, message in ((dict(exact, pv={}, pv_cut=True), "pv must be a list, not {}"),
                         (dict(exact, pv=None), "pv must be a list, not None"),
                         (dict(scored, moves=None), "moves must be a list, not None"),
                         (dict(scored, moves=5), "moves must be a list, not 5"),
                         (dict(scored, moves=[equivalent] + scored["moves"][1:]),
                          "a move's equivalent must be a list, not 'x'"),
                         (dict(exact, nodes=2**64), f"nodes {2**64} is not a count from 0 "
                                                    "to 2**63 - 1"),
                         (dict(exact, tt_hits=2**63), f"tt_hits {2**63} is not a count"),
                         (dict(exact, seconds=1e300), "seconds must be a number from 0 to "
                                                      "1e15, not 1e+300"),
                         (dict(exact, seconds=float("nan")), "seconds must be a number "
                                                            "from 0 to 1e15, not nan")):
        with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
            read_result(obj, _READ_BACK)
    bad_best = ["Single", "X", ["S5"]]
    for obj, where in ((dict(exact, best=bad_best), "best"),
                       (dict(exact, pv=[[0, bad_best]]), "the line's move"),
                       (dict(scored, moves=[dict(scored["moves"][0], move=bad_best)]),
                        "a scored move")):
        with pytest.raises(MoveError, match=re.escape(
                f"{where}: S5 is not a Single of rank 'X' at level 2")):
            read_result(obj, _READ_BACK)
    largest = read_result(dict(exact, nodes=2**63 - 1, tt_hits=2**63 - 1, seconds=1e15),
                          _READ_BACK)
    assert (largest.nodes, largest.tt_hits, largest.seconds) == (2**63 - 1, 2**63 - 1, 1e15)


def test_solve_works_on_a_copy_of_the_position_it_is_given(monkeypatch):
    """API (Threads): solve and probe copy a Position when they start, so a move another
    thread pushes on it meanwhile is not seen: the result is the position's as given. A
    push right after the searcher loaded it (made here by wrapping the loading step) gave
    a result that named the next seat as the one to move, with the first seat's line, and
    a probe asked for the wrong team."""
    import solver.search as search
    from solver import probe
    given = Position.from_json(_READ_BACK)
    move = given.legal_moves()[0]
    want = solve(given.copy(), all_moves=True, fresh_tables=True)
    reach = [probe(given.copy(), t) for t in (-3, -1, 1, 2, 3)]
    real_start = search._start

    def start_then_push(s, pos, *args):
        real_start(s, pos, *args)
        if original.to_move == 0:
            original.push(move)             # (another thread's move, just then)

    monkeypatch.setattr(search, "_start", start_then_push)
    original = given.copy()
    got = solve(original, all_moves=True, fresh_tables=True)
    assert original.to_move == 1            # (it was pushed)
    assert got == want and got.to_move == got.pv[0][0] == 0
    answers = []
    for t in (-3, -1, 1, 2, 3):
        original = given.copy()
        answers.append(probe(original, t))
        assert original.to_move == 1
    assert answers == reach
