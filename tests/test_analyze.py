"""Hand analysis (guandan_core.analysis, ``guandan analyze``): best split, bombs, control.

The fast best split is checked against the brute force of ``tests/reference_split.py``
(every legal move of the remaining hand, memoized, nothing pruned) on seeded random hands.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from guandan_core import Hand, Move, Rules, classify, legal_moves
from guandan_core.analysis import (analyze, best_split, control, list_bombs, split_score,
                                   unseen_pool)
from guandan_core.cards import LevelError, format_card, parse_level

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_process import PACKAGES, ROOT, cli_env  # noqa: E402
from reference_split import (part_key, reference_best,  # noqa: E402
                             reference_best_lowest_first, reference_smallest_splits)

HANDS_WILD = ROOT / "tests" / "data" / "hands_wild.json"
ANSI = "\x1b["


# ----------------------------------------------------------------------------- helpers

def random_hand(rng: random.Random, max_cards: int = 12, min_cards: int = 1):
    """(counts uint8[54], level index): uniform, rank-window and suited-run hands, with
    a wild card in about half of them and jokers in about a third."""
    level = rng.randrange(13)
    size = rng.randint(min_cards, max_cards)
    wild = level * 4 + 1
    counts = np.zeros(54, dtype=np.uint8)

    def add(kind):
        if counts[kind] < 2 and counts.sum() < size:
            counts[kind] += 1

    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 2)):
            add(wild)
    if rng.random() < 0.35:
        for _ in range(rng.randint(1, 4)):
            add(rng.choice((52, 53)))
    mode = rng.random()
    if mode < 0.3:
        pool = list(range(54))
    elif mode < 0.7:      # a few neighbouring ranks: pairs, triples, bombs, tubes, plates
        low = rng.randrange(-1, 10)
        pool = [(r % 13) * 4 + s for r in range(low, low + rng.randint(2, 5)) for s in range(4)]
    else:                 # suited runs: straights and straight flushes
        low = rng.randrange(-1, 9)
        suit = rng.randrange(4)
        pool = [(r % 13) * 4 + suit for r in range(low, low + 6)] * 2 \
            + [(r % 13) * 4 + s for r in range(low, low + 6) for s in range(4)]
    for _ in range(500):
        if counts.sum() >= size:
            break
        add(rng.choice(pool))
    while counts.sum() < size:
        add(rng.randrange(54))
    return counts, level


def comparable(score):
    """A score with the 'lowest single' term dropped when there is no single."""
    plays, nbombs, powers, nsingles, lowest = score
    return (plays, nbombs, tuple(powers), nsingles, lowest if nsingles else None)


def assert_partition(split, hand: Hand, level, rules=None):
    """Every part is a legal combination with its reading, and the parts use exactly the hand."""
    used = Counter()
    for move in split:
        assert isinstance(move, Move)
        assert move in classify(move.kinds, level, rules), f"{move} is not a reading of its cards"
        used.update(move.kinds)
    assert used == Counter(hand.kinds()), f"{[str(m) for m in split]} is not a split of {hand}"


def strs(moves):
    return [str(m) for m in moves]


def run_cli(*args, env_extra=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "guandan_core.cli", "analyze", *args],
                          cwd=PACKAGES, env=cli_env(drop=("NO_COLOR",), **(env_extra or {})), capture_output=True, text=True, timeout=120,
                          **kwargs)


# ----------------------------------------------------------------------------- best split

def test_best_split_matches_brute_force_500_hands():
    rng = random.Random(20240611)
    wilds = jokers = big = 0
    for i in range(500):
        counts, level = random_hand(rng)
        hand = Hand.from_counts(counts)
        wilds += counts[level * 4 + 1] > 0
        jokers += counts[52] + counts[53] > 0
        big += len(hand) >= 10
        plays, ref_score, _ = reference_best(hand, level)
        res = best_split(hand, level)
        assert res.plays == plays == len(res.split), (i, str(hand), level)
        # the tie-breaks pick a split as good as the brute force's best
        assert comparable(split_score(res.split)) == comparable(ref_score), (i, str(hand), level)
        assert_partition(res.split, hand, level)
        for other in res.runners_up:
            assert len(other) == plays
            assert_partition(other, hand, level)
    # the random hands exercise wild cards, jokers and larger hands
    assert wilds >= 150 and jokers >= 100 and big >= 100


@pytest.mark.parametrize("name", ["platform", "no-sf-bomb", "long-sequences"])
def test_best_split_matches_brute_force_other_rules(name):
    rules = Rules.by_name(name)
    # (hash() of a str changes from process to process: the hands did too)
    rng = random.Random(zlib.crc32(name.encode()) % 1000 + 7)
    for i in range(60):
        counts, level = random_hand(rng, max_cards=11)
        hand = Hand.from_counts(counts)
        plays, ref_score, _ = reference_best(hand, level, rules)
        res = best_split(hand, level, rules)
        assert res.plays == plays, (i, str(hand), level)
        assert comparable(split_score(res.split)) == comparable(ref_score), (i, str(hand), level)
        assert_partition(res.split, hand, level, rules)


def test_brute_force_variants_agree():
    # the lowest-card-first reference (used below for bigger hands) against the plain one
    rng = random.Random(31)
    for i in range(80):
        counts, level = random_hand(rng, max_cards=10)
        hand = Hand.from_counts(counts)
        plays, ref_score, _ = reference_best(hand, level)
        plays2, ref_score2 = reference_best_lowest_first(hand, level)
        assert plays == plays2 and comparable(ref_score) == comparable(ref_score2)


def test_best_split_medium_hands():
    # 13 to 17 cards, against the lowest-card-first search over real cards (suits kept)
    rng = random.Random(1717)
    for i in range(30):
        counts, level = random_hand(rng, max_cards=17, min_cards=13)
        hand = Hand.from_counts(counts)
        plays, ref_score = reference_best_lowest_first(hand, level)
        res = best_split(hand, level)
        assert res.plays == plays, (i, str(hand), level)
        assert comparable(split_score(res.split)) == comparable(ref_score), (i, str(hand), level)
        assert_partition(res.split, hand, level)


def test_bounded_fewest_plays_agrees_with_the_exact_search_at_every_limit():
    """The split search's bounded question (the fewest plays if at most a limit, else a
    lower bound), asked at limits rising to the answer on one solver whose tables carry
    over, against the plain exact search of a fresh solver: the same answer, and every
    exact value and lower bound it keeps agrees with the exact search's (a bounded search
    that failed once must not leave a wrong value for a later, larger limit)."""
    from guandan_core.analysis import _hand_fields, _pack, _Solver
    items = json.loads(HANDS_WILD.read_text())["items"][:12]
    for item in items:
        hand, lvl = Hand(item["hand"]), parse_level(item["level"])
        root = _pack(_hand_fields(hand.counts, lvl))
        plain = _Solver(hand, lvl, Rules(), 1)
        fewest = plain.min_plays(root)
        bounded = _Solver(hand, lvl, Rules(), 1)
        for limit in range(fewest + 1):
            v = bounded.bounded(root, limit)
            assert v == fewest if limit >= fewest else limit < v <= fewest, (item, limit)
        assert bounded.exact.keys() <= plain.exact.keys()
        assert all(v == plain.exact[s] for s, v in bounded.exact.items()), item
        assert all(v <= plain.exact[s] for s, v in bounded.lower.items()), item
        assert bounded.lower, item          # (some search failed, or nothing was checked)


def test_bounded_fewest_plays_of_a_ten_card_play_is_one():
    """RULES sec. 4: a bomb holds up to 10 cards (8 of a rank and the two wilds); sec. 9,
    long-sequences: 5 consecutive pairs are one tube. Such a hand is one play, and the
    bounded search must say so at any limit (its quick lower bound, cards left / 10 rounded
    up, may not count more than 10 cards to a play)."""
    from guandan_core.analysis import _hand_fields, _pack, _Solver
    for hand, level, rules in (("S9 S9 H9 H9 C9 C9 D9 D9 H2 H2", 0, "standard"),
                               ("S3 S3 H4 H4 S5 S5 H6 H6 S7 S7", 0, "long-sequences")):
        hand = Hand(hand)
        root = _pack(_hand_fields(hand.counts, level))
        for limit in (1, 0):
            solver = _Solver(hand, level, Rules.by_name(rules), 1)
            assert solver.bounded(root, limit) == 1, (str(hand), rules, limit)
        assert best_split(hand, level, rules).plays == 1


def test_full_hands_are_split_into_legal_parts():
    items = json.loads(HANDS_WILD.read_text())["items"][:40]
    for item in items:
        hand, level = Hand(item["hand"]), parse_level(item["level"])
        res = best_split(hand, level)
        assert 1 <= res.plays == len(res.split) <= 27
        assert_partition(res.split, hand, level)
        best = split_score(res.split)
        seen = {tuple(sorted((m.type, m.rank, m.kinds) for m in res.split))}
        assert len(res.runners_up) <= 5
        for other in res.runners_up:
            assert len(other) == res.plays
            assert_partition(other, hand, level)
            assert split_score(other) >= best
            ident = tuple(sorted((m.type, m.rank, m.kinds) for m in other))
            assert ident not in seen
            seen.add(ident)


def test_runners_up_count_and_order():
    res = best_split("S9 C9 D9 S8 C8 D8 H7 H7", "7", runners_up=3)
    assert len(res.runners_up) == 3
    scores = [split_score(s) for s in [res.split] + res.runners_up]
    assert scores == sorted(scores)
    assert best_split("S9 C9 D9 S8 C8 D8 H7 H7", "7", runners_up=0).runners_up == []


@pytest.mark.parametrize("hand, level, rules, split", [
    # the first straight's greedy suits took the one off-suit ten the second needed
    ("H9 ST CT CJ CJ CQ CQ CK CK CA", "2", "standard",
     "Straight 9: H9 CT CJ CQ CK|Straight T: ST CJ CQ CK CA"),
    # a straight with a wild took the one off-suit four the natural straight needed
    ("D3 C4 D4 D5 D5 D6 H7 D7 D7 D8", "7", "platform",
     "Straight 3: D3 D4 D5 H7 D7|Straight 4: C4 D5 D6 D7 D8"),
    ("H9 C9 C9 ST CT CJ CJ CQ CQ CK CK CA", "J", "standard",
     "Pair 9: C9 C9|Straight 9: H9 CT CJ CQ CK|Straight T: ST CJ CQ CK CA")])
def test_runners_up_whose_straights_need_the_same_off_suit_cards(hand, level, rules, split):
    """A split of straights is listed when some suits make none of them a straight flush:
    the straights of natural cards get their suits first and together. (These splits were
    missing, read as a straight flush and dropped as a duplicate, and a worse one listed.)"""
    res = best_split(hand, level, rules, runners_up=10)
    listed = [sorted(str(m) for m in s) for s in [res.split] + res.runners_up]
    assert sorted(split.split("|")) in listed
    scores = [split_score(s) for s in [res.split] + res.runners_up]
    assert scores == sorted(scores)


def test_runners_up_match_brute_force_on_suited_hands():
    """The best split and its runners-up are the brute force's smallest splits, best first,
    up to the suits of natural cards, on hands rich in straights and straight flushes
    (every rules preset)."""
    rng = random.Random(36)
    names = ("standard", "platform", "no-sf-bomb", "long-sequences")
    listed = 0
    for i in range(200):
        level = rng.randrange(13)
        suit, low = rng.randrange(4), rng.randrange(-1, 8)
        # two runs of one suit, a wild card or two, and few cards of the other suits (two
        # straights may then need the same one to be no straight flush)
        pool = [(r % 13) * 4 + suit for r in range(low, low + 6)] * 2
        pool += rng.sample([(r % 13) * 4 + s for r in range(low, low + 6) for s in range(4)
                            if s != suit], rng.randint(1, 3)) + [level * 4 + 1] * rng.randint(0, 2)
        rng.shuffle(pool)
        counts = np.zeros(54, dtype=np.uint8)
        for k in pool[:rng.randint(6, 12)]:
            counts[k] = min(2, counts[k] + 1)
        hand, rules = Hand.from_counts(counts), Rules.by_name(names[i % 4])
        listed += _check_splits_against_the_reference(hand, level, rules, rng.randint(0, 6))
    assert listed > 350


def _check_splits_against_the_reference(hand, level, rules, runners_up) -> int:
    """best_split's split and runners-up are the brute force's smallest splits, best
    first, each once up to the suits of natural cards; returns how many were listed."""
    res = best_split(hand, level, rules, runners_up)
    want = reference_smallest_splits(hand, level, rules)
    splits = [res.split] + res.runners_up
    assert res.plays == len(next(iter(want.values()))), (str(hand), level, rules)
    assert [split_score(s) for s in splits] == \
        sorted(split_score(s) for s in want.values())[:runners_up + 1], (str(hand), level)
    wild = level * 4 + 1
    keys = [tuple(sorted(part_key(m, wild) for m in s)) for s in splits]
    assert len(set(keys)) == len(keys) and set(keys) <= set(want), (str(hand), level, keys)
    return len(splits)


def test_runners_up_are_distinct_up_to_suits_when_two_suits_hold_straight_flushes():
    """Straight flush sets are chosen card by card, so the same ranks in two suits made two
    sets: a split and its twin with the suits of some ranks swapped between its parts,
    both listed, pushing out a split that really differs (API.md: one runner-up for each
    way of splitting that differs in more than the suits of natural cards). Hands of two
    suits over five ranks and wild cards, against the brute force."""
    res = best_split("C2 C3 D3 C4 D4 D5 C6 D6 H7 H7", "7")
    shown = [sorted(str(m) for m in s) for s in [res.split] + res.runners_up]
    twins = [["StraightFlush 3: C3 C4 C6 H7 H7", "Straight 2: C2 D3 D4 D5 D6"],
             ["StraightFlush 3: D3 D4 D6 H7 H7", "Straight 2: C2 C3 C4 D5 C6"]]
    assert sum(sorted(twin) in shown for twin in twins) == 1, shown
    rng = random.Random(37)
    listed = 0
    for _ in range(150):
        level = rng.randrange(13)
        low = rng.randrange(0, 8)
        suits = rng.sample(range(4), 2)
        pool = [(r % 13) * 4 + s for r in range(low, low + 5) for s in suits]
        pool = [k for k in pool if k != level * 4 + 1] + [level * 4 + 1] * 2
        rng.shuffle(pool)
        counts = np.zeros(54, dtype=np.uint8)
        for k in pool[:rng.randint(8, 11)]:
            counts[k] += 1
        listed += _check_splits_against_the_reference(Hand.from_counts(counts), level,
                                                      Rules.by_name("standard"),
                                                      rng.randint(1, 6))
    assert listed > 300


@pytest.mark.parametrize("hand, level, rules", [
    # two full houses over a joker pair each: which joker pair goes with which triple is no
    # suit of a natural card (SB and HR are not one rank), so these are two splits
    ("S3 S3 H3 S4 S4 H4 SB SB HR HR", "2", "standard"),
    # long sequences (RULES sec. 9): the wild card HA extends either straight, keeping its
    # top card, so the two splits differ only in which part holds the wild card
    ("S3 H4 C5 D6 S7 C9 DT SJ CQ DK HA", "A", "long-sequences")])
def test_runners_up_that_differ_in_jokers_or_wild_cards_are_distinct(hand, level, rules):
    """API.md: one runner-up for each way of splitting that differs in more than the suits
    of natural cards; a joker is no natural card of a suit, and a wild card is no natural
    card at all. Against the brute force."""
    listed = _check_splits_against_the_reference(Hand(hand), parse_level(level),
                                                 Rules.by_name(rules), 10)
    assert listed >= 3


def test_empty_and_tiny_hands():
    assert best_split("", "2").plays == 0
    res = best_split("H5", "5")          # a lone wild is a single of the level rank
    assert strs(res.split) == ["Single 5: H5"]
    res = best_split("H5 H5", "5")       # two wilds are a pair of the level rank
    assert strs(res.split) == ["Pair 5: H5 H5"] and res.runners_up == []
    res = best_split("SB HR", "2")       # a small and a big joker are no pair
    assert strs(res.split) == ["Single B: SB", "Single R: HR"]


def test_best_split_says_what_a_wild_card_stands_for():
    """API.md: a Move's ``wild_as`` says what each wild card stands for (RULES sec. 3): the
    wild H2 pairs with S3 as a 3, and with S4 C4 makes the bomb of fours."""
    [pair] = best_split("H2 S3", "2").split
    assert str(pair) == "Pair 3: H2 S3" and pair.wild_as == ("3",)
    [bomb] = best_split("H2 S4 C4 D4", "2").split
    assert bomb.type == "Bomb" and bomb.wild_as == ("4",)


TWENTY_EIGHT_CARDS = " ".join(s + r for s in "SHCD" for r in "3456789")   # each card once


def test_a_bad_level_is_refused_for_any_hand():
    """RULES sec. 2: a level index is 0..12 even when the hand (or the split) is empty."""
    for call, level in ((lambda: best_split("", 13), 13), (lambda: control([], "S3", 13), 13),
                        (lambda: best_split("S3", -1), -1), (lambda: analyze("", 13), 13)):
        with pytest.raises(LevelError, match=f"level index must be 0..12, not {level}$"):
            call()


def test_all_eight_cards_of_a_rank_are_one_bomb():
    """RULES sec. 4: eight aces are one 8-card bomb (two plays with the three), not two
    4-card bombs (three plays)."""
    res = best_split("SA SA HA HA CA CA DA DA S3", "2")
    assert strs(res.split) == ["Single 3: S3", "Bomb A: SA SA HA HA CA CA DA DA"]


def test_runners_up_may_be_any_whole_number_type():
    """A numpy integer asks for as many runners-up as the int (uint8's 255 is 255, not
    a number that wraps)."""
    hand = "S9 C9 D9 S8 C8 D8 H7 H7"
    as_int = best_split(hand, "7", runners_up=255)
    for n in (np.uint8(255), np.int64(255)):
        assert best_split(hand, "7", runners_up=n) == as_int
    assert len(as_int.runners_up) > 3


def test_hand_too_big_is_refused():
    """RULES sec. 1: a hand holds at most 27 cards (the old case held S2 eight times and
    was refused for that before the size was looked at)."""
    with pytest.raises(ValueError, match="at most 27 cards, not 28"):
        best_split(TWENTY_EIGHT_CARDS, "2")


# ----------------------------------------------------------------------------- tie-breaks

def test_split_score_terms_are_the_documented_ones():
    """API.md: split_score is (plays, -bombs, bomb powers negated ascending, singles,
    -lowest single's key), with -1000 for the last term without a single."""
    pair = Move.from_platform(["Pair", "3", ["S3", "C3"]], "2")
    five = Move.from_platform(["Single", "5", ["S5"]], "2")
    nine = Move.from_platform(["Single", "9", ["S9"]], "2")
    bomb = Move.from_platform(["Bomb", "8", ["S8", "H8", "C8", "D8"]], "2")
    assert split_score([pair]) == (1, 0, (), 0, -1000)
    assert split_score([nine, bomb, five, pair]) == (4, -1, (-bomb.key,), 2, -five.key)


def test_tie_break_prefers_bombs():
    # 2 plays either way: bomb 9 (five cards, two wilds) + pair of small jokers beats
    # full house 999 + SB SB with the wild pair alone
    res = best_split("S9 C9 D9 H7 H7 SB SB", "7")
    assert strs(res.split) == ["Pair B: SB SB", "Bomb 9: H7 H7 S9 C9 D9"]
    assert strs(res.runners_up[0]) == ["Pair 7: H7 H7", "ThreeWithTwo 9: S9 C9 D9 SB SB"]


@pytest.mark.parametrize("hand, level, flush", [
    ("H3 H3 S8 S8 S9 S9 ST ST SQ SQ", "3", "StraightFlush 8: H3 S8 S9 ST SQ"),
    ("H3 H3 S8 S8 S9 S9 ST ST SJ SJ HR", "3", "StraightFlush 8: H3 S8 S9 ST SJ"),
    ("H7 H7 H8 H8 HT HT HJ HJ HK HK SB", "K", "StraightFlush 7: H7 H8 HT HJ HK"),
    ("H3 H3 H4 H4 H5 H5 H6 H6 H7 H7 SB HR", "3", "StraightFlush 4: H3 H4 H5 H6 H7"),
    ("S3 S3 S4 S4 S5 S5 S6 S6 S7 S7", "2", "StraightFlush 3: S3 S4 S5 S6 S7")])
def test_tie_break_the_same_straight_flush_twice(hand, level, flush):
    """RULES sec. 1 and 4: two decks hold every straight flush twice, so a hand can play
    the same one twice; more bombs first means both (the search chose each straight flush
    at most once, and with a wild card in it, one copy became a plain straight)."""
    res = best_split(hand, level)
    assert strs(res.split)[-2:] == [flush, flush]
    assert split_score(res.split)[1] == -2


def test_the_best_split_does_not_depend_on_how_many_runners_up_are_asked_for():
    """The order of splits is one order, ties included: the best split (and the runners-up
    listed) with runners_up=k are the first of those listed with more. Keeping only the
    best few completions of each sub-hand by the lowest single alone lost the best of
    equal splits (ties then fell to the cards' order), so S2 H2 H2 C4 C4 SB HR at level 2
    gave ThreeWithTwo 4 with runners_up=0 and ThreeWithTwo 2 with 5."""
    rng = random.Random(31)
    deck = [k for k in range(54) for _ in range(2)]
    for _ in range(150):
        hand = Hand.from_counts(np.bincount(rng.sample(deck, rng.randint(8, 27)),
                                            minlength=54).astype(np.uint8))
        level = rng.randrange(13)
        res = best_split(hand, level, runners_up=8)
        listed = [strs(s) for s in [res.split] + res.runners_up]
        for k in (0, 1, 3):
            fewer = best_split(hand, level, runners_up=k)
            assert [strs(s) for s in [fewer.split] + fewer.runners_up] == listed[:k + 1], \
                (str(hand), level, k)
    pair_first = [strs(best_split("S2 H2 H2 C4 C4 SB HR", "2", runners_up=k).split)
                  for k in (0, 5, 50)]
    assert pair_first[0] == pair_first[1] == pair_first[2]


def test_tie_break_more_bombs_before_bigger_bombs():
    # two four-card bombs (999+wild, 888+wild) beat one five-card bomb plus trips
    res = best_split("S9 C9 D9 S8 C8 D8 H7 H7", "7")
    assert strs(res.split) == ["Bomb 8: H7 S8 C8 D8", "Bomb 9: H7 S9 C9 D9"]
    assert strs(res.runners_up[0]) == ["Trips 8: S8 C8 D8", "Bomb 9: H7 H7 S9 C9 D9"]
    assert strs(res.runners_up[1]) == ["Trips 9: S9 C9 D9", "Bomb 8: H7 H7 S8 C8 D8"]


def test_tie_break_bigger_bomb():
    # one wild: the bomb of nines (bigger) rather than the bomb of eights; both beat the
    # plate 888999 + the wild single
    res = best_split("S9 C9 D9 S8 C8 D8 H7", "7")
    assert strs(res.split) == ["Trips 8: S8 C8 D8", "Bomb 9: H7 S9 C9 D9"]
    assert strs(res.runners_up[0]) == ["Trips 9: S9 C9 D9", "Bomb 8: H7 S8 C8 D8"]


def test_tie_break_straight_flush_is_a_bomb():
    res = best_split("S3 S4 S5 S6 S7 H3 C3 D3", "2")
    assert strs(res.split) == ["Trips 3: H3 C3 D3", "StraightFlush 3: S3 S4 S5 S6 S7"]
    # with straight flushes switched off it is a straight
    res = best_split("S3 S4 S5 S6 S7 H3 C3 D3", "2", Rules.by_name("no-sf-bomb"))
    assert res.plays == 2 and "Straight" in {m.type for m in res.split}


def test_tie_break_fewest_singles():
    # 2 plays: full house + pair (no single) rather than tube 445566 + single 5
    res = best_split("D4 D4 S5 H5 C5 H6 C6", "2")
    assert strs(res.split) == ["Pair 4: D4 D4", "ThreeWithTwo 5: S5 H5 C5 H6 C6"]
    assert strs(res.runners_up[-1]) == ["Single 5: S5", "ThreePair 4: D4 D4 H5 C5 H6 C6"]


def test_tie_break_highest_lowest_single():
    # 2 plays with one single either way: keep the straight 3..7 and single the 8
    res = best_split("S3 H4 C5 D6 S7 H8", "2")
    assert strs(res.split) == ["Single 8: H8", "Straight 3: S3 H4 C5 D6 S7"]
    assert strs(res.runners_up[0]) == ["Single 3: S3", "Straight 4: H4 C5 D6 S7 H8"]
    # at level 2 a single 2 is above every other rank: single the S2, pair the 3 with the wild
    res = best_split("S2 H2 C3 H5 D5", "2")
    assert strs(res.split) == ["Single 2: S2", "Pair 3: H2 C3", "Pair 5: H5 D5"]


# ----------------------------------------------------------------------------- bombs

def bomb_strs(bombs):
    return [(str(b.move), b.shares) for b in bombs]


def test_bombs_joker_bomb_and_sizes():
    assert bomb_strs(list_bombs("SB SB HR HR S5", "2")) == [("Bomb JOKER: SB SB HR HR", [])]
    # five natural nines and a wild: bombs of 6, 5 and 4 nines, all sharing cards
    assert bomb_strs(list_bombs("S9 H9 C9 D9 S9 H7", "7")) == [
        ("Bomb 9: H7 S9 S9 H9 C9 D9", [1, 2]),
        ("Bomb 9: S9 S9 H9 C9 D9", [0, 2]),
        ("Bomb 9: S9 S9 H9 C9", [0, 1]),
    ]


def test_bombs_straight_flush_and_sharing():
    bombs = list_bombs("S3 S4 S5 S6 S7 H3 C3 D3 SB SB HR HR", "2")
    assert bomb_strs(bombs) == [
        ("Bomb JOKER: SB SB HR HR", []),
        ("StraightFlush 3: S3 S4 S5 S6 S7", [2]),
        ("Bomb 3: S3 H3 C3 D3", [1]),
    ]
    # two wilds: each of two bombs may use one, but not both use the same two
    bombs = list_bombs("S9 C9 D9 S8 C8 D8 H7 H7", "7")
    assert bomb_strs(bombs) == [
        ("Bomb 9: H7 H7 S9 C9 D9", [1, 2, 3]),
        ("Bomb 8: H7 H7 S8 C8 D8", [0, 2, 3]),
        ("Bomb 9: H7 S9 C9 D9", [0, 1]),
        ("Bomb 8: H7 S8 C8 D8", [0, 1]),
    ]
    assert list_bombs("S3 H4 C5", "2") == []


def test_bombs_one_straight_flush_per_suit():
    """Module docs: one bomb per sequence and suit. The same straight flush in spades and
    in clubs is two bombs, and the hand plays both (RULES sec. 4: no wild card here)."""
    bombs = list_bombs("S3 S4 S5 S6 S7 C3 C4 C5 C6 C7", "2")
    assert sorted(bomb_strs(bombs)) == [("StraightFlush 3: C3 C4 C5 C6 C7", []),
                                        ("StraightFlush 3: S3 S4 S5 S6 S7", [])]


def test_bombs_share_only_when_the_hand_cannot_play_both():
    """Two bombs share cards exactly when no way of playing one leaves the hand a way of
    playing the other; the cards listed for a bomb are only one way. Here the 5-bomb of
    nines needs both S9, the 4-bomb leaves one for the straight flush; at level K, seven
    jacks and two wild kings make a 5-bomb and a 4-bomb at once."""
    assert bomb_strs(list_bombs("S5 S6 S7 S8 S9 S9 H9 C9 D9", "2")) == [
        ("StraightFlush 5: S5 S6 S7 S8 S9", [1]),
        ("Bomb 9: S9 S9 H9 C9 D9", [0, 2]),
        ("Bomb 9: S9 S9 H9 C9", [1]),
    ]
    bombs = list_bombs("SJ SJ HJ CJ CJ DJ DJ HK HK", "K")
    assert [len(b.move) for b in bombs] == [9, 8, 7, 6, 5, 4]
    assert bombs[4].shares == bombs[5].shares == [0, 1, 2, 3]


def _bomb_ways(hand, level, rules, bomb):
    """Every card set the hand can play as the same bomb as ``bomb`` (same type, rank and
    size, and suit for a straight flush), from the move enumeration."""
    wild = level * 4 + 1
    def same(m):
        if m.type != bomb.type or m.rank != bomb.rank or len(m) != len(bomb):
            return False
        if m.type == "StraightFlush":
            suit = lambda mv: next(k & 3 for k in mv.kinds if k != wild)
            return suit(m) == suit(bomb)
        return True
    return {m.kinds for m in legal_moves(hand, level, rules=rules) if same(m)}


def test_bomb_sharing_against_playing_one_then_the_other():
    """Random bomb-rich hands, every preset: bomb j is in bomb i's shares exactly when,
    for every way of playing i, the rest of the hand cannot play j (moves enumerated
    afresh on what is left)."""
    rng = random.Random(2024)
    checked = pairs = 0
    presets = ["standard", "platform", "no-sf-bomb", "long-sequences"]
    while checked < 150:
        level = rng.randrange(13)
        rank = rng.sample(range(13), 3)
        kinds = [r * 4 + s for r in rank for s in range(4) for _ in range(2)]
        kinds += [level * 4 + 1] * 2 + [52, 52, 53, 53]
        suit = rng.randrange(4)
        low = rng.randrange(9)
        kinds += [(low + i) * 4 + suit for i in range(5)]
        counts = Counter(rng.sample(kinds, rng.randrange(8, 15)))
        cards = [format_card(k) for k, n in counts.items() for _ in range(min(n, 2))]
        hand = Hand(cards)
        rules = Rules.by_name(rng.choice(presets))
        bombs = list_bombs(hand, level, rules)
        if len(bombs) < 2:
            continue
        checked += 1
        ways = [_bomb_ways(hand, level, rules, b.move) for b in bombs]
        for i, b in enumerate(bombs):
            for j in range(len(bombs)):
                if i == j:
                    continue
                both = any(_bomb_ways(hand - list(way), level, rules, bombs[j].move)
                           for way in ways[i])
                assert (j in b.shares) == (not both), (str(hand), level, i, j)
                pairs += 1
    assert pairs > 300


def test_every_bomb_of_a_hand_is_listed_once_whatever_its_size():
    """The bombs listed are one of each rank and size, sequence and suit, and the joker
    bomb, of all the hand's moves (they are found as the moves that beat a single big
    joker, without the others: 5.8 s and 1.76 GB for 108 cards under long sequences),
    on random hands of 8 to 108 cards under every preset."""
    rng = random.Random(53)
    deck = [k for k in range(54) for _ in range(2)]
    listed = 0
    for trial in range(60):
        size = 108 if trial % 20 == 0 else rng.randrange(8, 61)
        hand = Hand([format_card(k) for k in rng.sample(deck, size)])
        level = rng.randrange(13)
        # (long sequences on 30 cards or fewer: over that, millions of moves to list)
        rules = Rules.by_name(rng.choice(["standard", "platform", "no-sf-bomb"] +
                                         ["long-sequences"] * (size <= 30)))
        wild = level * 4 + 1

        def group(m):
            if m.type == "StraightFlush":
                return m.type, m.rank, next(k & 3 for k in m.kinds if k != wild)
            return m.type, m.rank, len(m)
        every = {group(m) for m in legal_moves(hand, level, rules=rules) if m.is_bomb}
        bombs = [group(b.move) for b in list_bombs(hand, level, rules)]
        assert len(bombs) == len(set(bombs)) and set(bombs) == every, (str(hand), level)
        listed += len(bombs)
    assert listed > 500


def test_bombs_are_sorted_biggest_first():
    items = json.loads(HANDS_WILD.read_text())["items"][:20]
    for item in items:
        bombs = list_bombs(item["hand"], item["level"])
        keys = [b.move.key for b in bombs]
        assert keys == sorted(keys, reverse=True)
        assert all(b.move.is_bomb for b in bombs)
        for i, b in enumerate(bombs):
            assert i not in b.shares
            for j in b.shares:
                assert i in bombs[j].shares


# ----------------------------------------------------------------------------- control

def test_joker_bomb_is_control():
    hand = Hand("SB SB HR HR")
    res = best_split(hand, "2")
    [info] = control(res, hand, "2")
    assert not info.beatable and info.by is None and not info.only_bombs


def test_big_joker_single_only_beaten_by_a_bomb():
    # the other big joker is unseen, but equal does not beat equal: only a bomb beats HR
    hand = Hand("HR")
    [info] = control([Move.parse("Single R: HR", "2")], hand, "2")
    assert info.beatable and info.by.is_bomb and info.only_bombs
    assert info.by.type == "Bomb" and len(info.by.kinds) == 4      # the smallest bomb


def test_control_with_played_cards():
    # everything but C5 D6 has been seen: the S3 single is beaten by the 5, the HR is control
    hand = Hand("S3 HR")
    pool = {"C5", "D6"}
    deck = [format_card(k) for k in range(54) for _ in range(2)]
    played = list(deck)
    for card in hand.cards() + sorted(pool):
        played.remove(card)
    assert unseen_pool(hand, played).sum() == 2
    infos = control(best_split(hand, "2"), hand, "2", played=played)
    by_play = {str(i.play): i for i in infos}
    assert not by_play["Single R: HR"].beatable
    assert str(by_play["Single 3: S3"].by) == "Single 5: C5"


def test_control_smallest_beater():
    hand = Hand("SA HA")
    [info] = control(best_split(hand, "2"), hand, "2")
    # at level 2 the pair of 2s is above the pair of aces, and it is the smallest pair that
    # beats them
    assert info.by.type == "Pair" and info.by.rank == "2" and not info.only_bombs
    hand = Hand("S9 H9 C9 D9")
    [info] = control(best_split(hand, "2"), hand, "2")
    assert str(info.by).startswith("Bomb T:") and len(info.by.kinds) == 4


@pytest.mark.parametrize("rules_name", ["standard", "platform", "no-sf-bomb",
                                        "long-sequences"])
def test_control_finds_the_smallest_beater_of_the_whole_pool(rules_name):
    """control() looks for a beater of a play's own type among a few cards of each rank of
    the unseen pool (the whole pool held millions of ten-card straights under
    ``long-sequences``). Checked against every beating play of the whole pool on seeded
    random hands, played cards and plays: beatable exactly when some play beats it, and
    the smallest of them (no bomb before a bomb, then strength, size, wild cards) has the
    type, rank, strength, size and wild count of the one shown, which beats the play
    with unseen cards only."""
    from guandan_core.moves import MOVE_DTYPE, beats, moves_array
    rules = Rules.by_name(rules_name)
    rng = random.Random(zlib.crc32(rules_name.encode()))

    def wild_count(move):
        return int(np.frombuffer(move.record().tobytes(), MOVE_DTYPE)["nwild"][0])

    checked = beaten = 0
    for _ in range(200):
        counts, lvl = random_hand(rng, max_cards=14)
        hand = Hand.from_counts(counts)
        rest = [k for k in range(54) for _ in range(2 - int(counts[k]))]
        played = rng.sample(rest, len(rest) - rng.randint(12, 40))
        pool = unseen_pool(hand, [format_card(k) for k in played])
        moves = list(legal_moves(hand, lvl, rules=rules))
        plays = rng.sample(moves, min(4, len(moves)))
        for play in plays:
            [info] = control([play], hand, lvl, [format_card(k) for k in played], rules)
            every = moves_array(pool, lvl, beat=play, rules=rules)
            assert info.beatable == (len(every) > 0), (str(play), rules_name)
            checked += 1
            if not len(every):
                continue
            beaten += 1
            best = min(range(len(every)), key=lambda i: (
                bool(every["type"][i] >= 8), int(every["key"][i]), int(every["ncards"][i]),
                int(every["nwild"][i])))
            want = every[best]
            by = info.by
            assert (by.is_bomb, by.type_id, by.label, by.key, len(by.kinds), wild_count(by)) \
                == (bool(want["type"] >= 8), int(want["type"]), int(want["label"]),
                    int(want["key"]), int(want["ncards"]), int(want["nwild"])), str(play)
            assert beats(by, play) and (by.counts() <= pool).all()
            assert info.only_bombs == (by.is_bomb and not play.is_bomb)
    assert checked >= 600 and beaten >= 300


def test_control_finds_the_one_straight_of_two_suits():
    """RULES sec. 4: five cards of one suit in a row are a straight flush, not a straight.
    The unseen cards hold 4 to 8 in spades (two of most), one heart 8 and one heart 9:
    the smallest straight that beats a straight of 3 to 7 is S4 S5 S6 S7 H8, not
    S5 S6 S7 S8 H9 (control keeps cards of every suit a rank has, not two copies of
    one)."""
    hand = Hand("S3 H4 C5 D6 S7")
    keep = Hand("S4 S4 S5 S5 S6 S6 S7 H8 S8 S8 H9").counts
    played = unseen_pool(hand) - keep
    played_cards = [format_card(k) for k in range(54) for _ in range(int(played[k]))]
    straight = Move.parse("Straight 3: S3 H4 C5 D6 S7", "K")
    [info] = control([straight], hand, "K", played_cards)
    assert str(info.by) == "Straight 4: S4 S5 S6 S7 H8" and not info.only_bombs


def test_a_bomb_beaten_by_a_bigger_bomb_is_not_beaten_only_by_bombs():
    """``only_bombs`` says that only a bomb beats a play that is no bomb; a bomb beaten by
    a bigger bomb is plainly beatable (docs/PROTOCOL.md's analyze example: a straight flush
    beaten by a straight flush, "only_bombs": false)."""
    hand = Hand("S9 H9 C9 D9")
    [info] = control(best_split(hand, "2"), hand, "2")
    assert info.beatable and info.by.is_bomb and not info.only_bombs
    assert info.to_json()["only_bombs"] is False


def test_control_json_of_a_play_its_own_type_beats():
    """RULES sec. 5: a single 3 at level 2 is beaten by a single 4, the lowest single above
    it, which the unseen cards hold: beatable, and not only by a bomb."""
    [entry] = analyze("S3", "2")["control"]
    assert entry["play"] == ["Single", "3", ["S3"]]
    assert entry["beatable"] is True and entry["only_bombs"] is False
    assert entry["by"][:2] == ["Single", "4"]


def test_played_cards_conflicting_with_hand():
    with pytest.raises(ValueError, match="more than the two copies of S9"):
        unseen_pool(Hand("S9 S9"), "S9")
    # only the card held three times is named, not one held twice (C5)
    with pytest.raises(ValueError) as err:
        unseen_pool(Hand("S9 S9 C5 C5"), "S9")
    assert str(err.value).endswith("more than the two copies of S9")


# ----------------------------------------------------------------------------- analyze / JSON

def test_analyze_dict():
    out = analyze("S9 C9 D9 H7 H7 SB SB HR HR", "7", played="S2 S2")
    assert set(out) >= {"split", "plays", "bombs", "runner_up", "control"}
    assert out["plays"] == 2 == len(out["split"])
    assert out["split"] == [["Bomb", "9", ["H7", "H7", "S9", "C9", "D9"]],
                            ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]]
    assert out["bombs"][0] == ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]
    assert out["unseen"] == 108 - 9 - 2
    ctrl = {c["play"][1]: c for c in out["control"]}
    assert ctrl["JOKER"]["beatable"] is False and ctrl["JOKER"]["by"] is None
    assert ctrl["9"]["beatable"] is True and ctrl["9"]["by"][0] == "Bomb"
    json.dumps(out)
    # the split's counts are those of its plays
    for hand in ("S3 S4 S5 H6 C7 C8 D9 D9 DT", "S3 S3 H4 H4", "S9 C9 D9 H7 H7 SB SB HR HR",
                 "S2 S2 C2 C2 S5 D7 DK HA"):
        out = analyze(hand, "7")
        split = best_split(hand, "7").split
        assert (out["split_bombs"], out["split_singles"]) == \
            (sum(m.is_bomb for m in split), sum(m.type == "Single" for m in split))


def test_analyze_control_uses_the_played_cards():
    """The unseen pool is the deck minus the hand minus the played cards (module docs):
    with both big jokers played, only a bomb beats a small joker (the other small joker is
    equal, RULES sec. 5), while without them a big joker does."""
    [seen] = analyze("SB", "2", played="HR HR")["control"]
    assert seen["beatable"] is True and seen["only_bombs"] is True
    assert seen["by"][0] == "Bomb" and len(seen["by"][2]) == 4     # the smallest bomb
    [unseen] = analyze("SB", "2")["control"]
    assert unseen["by"] == ["Single", "R", ["HR"]] and unseen["only_bombs"] is False


def test_analyze_marks_the_bombs_the_split_plays_whatever_their_cards():
    """bomb_in_split says whether the best split plays that bomb (a listed bomb is one rank
    and size, its cards one way of playing it). S5 H6 C7 D8 and five nines at level 2: the
    fewest plays are the straight 5-9 and a bomb of four nines (RULES sec. 4), so the bomb
    of four nines is played, the bomb of five is not."""
    out = analyze("S5 H6 C7 D8 S9 S9 H9 C9 D9", "2")
    assert out["plays"] == 2
    assert sorted((t, len(c)) for t, _, c in out["split"]) == [("Bomb", 4), ("Straight", 5)]
    assert [(t, r, len(c)) for t, r, c in out["bombs"]] == [("Bomb", "9", 5), ("Bomb", "9", 4)]
    assert out["bomb_in_split"] == [False, True]


def test_analyze_uses_the_rules_for_the_bombs():
    """RULES sec. 9: with straight flushes switched off, five suited cards are a straight
    and no bomb."""
    out = analyze("S3 S4 S5 S6 S7", "2", rules=Rules.by_name("no-sf-bomb"))
    assert out["split"] == [["Straight", "3", ["S3", "S4", "S5", "S6", "S7"]]]
    assert out["bombs"] == [] and out["bomb_in_split"] == []


# ----------------------------------------------------------------------------- CLI

def test_cli_json():
    proc = run_cli("S9 C9 D9 H7 H7 SB SB HR HR", "--level", "7", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["plays"] == 2
    assert out["split"][1] == ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]
    assert out["control"][1] == {"play": ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]],
                                 "beatable": False, "by": None, "only_bombs": False}


def test_cli_text_is_plain_when_piped():
    hand = json.loads(HANDS_WILD.read_text())["items"][0]
    proc = run_cli(" ".join(hand["hand"]), "--level", hand["level"], "--played", "SB SB")
    assert proc.returncode == 0, proc.stderr
    assert ANSI not in proc.stdout
    for heading in ("Best split", "Runner-up", "Bombs", "Control"):
        assert heading in proc.stdout


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _expected_ranges(indices) -> str:
    """The bombs numbered from 1, runs of consecutive numbers as "first-last"."""
    runs = []
    for n in sorted(i + 1 for i in indices):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _section(lines, start: str) -> list:
    """The lines from the one starting with ``start`` to the next empty line."""
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    rest = lines[first:]
    return rest[:rest.index("")] if "" in rest else rest


def _shown(play) -> str:
    """A play as the text report shows it: "Type rank: cards"."""
    mtype, rank, cards = play
    return f"{mtype} {rank}: {' '.join(cards)}"


def _columns(line: str) -> list:
    """A table row's cells (two spaces or more apart; a cell holds single spaces)."""
    return re.split(r" {2,}", line.strip())


@pytest.mark.parametrize("args", [
    ["H2 H2 S3 S3 H3 H3 S4 S5 S6 S7 D4 D4 C4 C4", "--level", "2"],     # bombs sharing cards
    ["S9 C9 D9 H7 H7 SB SB HR HR", "--level", "7", "--played", "S2 S2"],
    ["S3 S3 H5", "--level", "7"],                                       # no bombs, no runner-up
    ["H2 S3 S4 S5 S6", "--level", "2", "--played", "SB"],                # 1 play, runner-ups
    # the best split plays the same straight flush twice; runner-up 1 keeps one of them
    ["D9 DQ HJ DJ D8 HA D9 DQ HJ DJ D8 HA", "--level", "A"],
], ids=["shared-bombs", "played", "no-bombs", "one-play", "a-part-twice"])
def test_cli_text_report_is_the_json_report(args):
    """The text report of a hand shows what --json reports for it: the hand and the
    cards played (their heading only when some were), the best split's plays numbered
    from 1 with its counts of bombs and singles counted from its plays, every runner-up
    numbered, every bomb with its size, the other bombs it shares cards with (numbered
    from 1, runs of numbers joined) and a * when the best split plays it, and a control
    row for each play of the split with its smallest beating play; counts with singular
    and plural. A runner-up is shown as its difference from the best split: "+" the parts
    it has that the best split has not, "-" the best split's parts it has not."""
    got = json.loads(run_cli(*args, "--json").stdout)
    proc = run_cli(*args)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    hand, played, split = got["hand"], got["played"], got["split"]
    assert lines[0] == f"Hand ({_plural(len(hand), 'card')}, level {got['level']}): " \
        + " ".join(hand)
    assert (lines[1] == f"Played ({_plural(len(played), 'card')}): " + " ".join(played)) \
        if played else lines[1] == ""
    assert [line for line in lines if line.startswith("Played")] == lines[1:2] * bool(played)
    best = _section(lines, "Best split: ")
    nb = sum(p[0] in ("Bomb", "StraightFlush") for p in split)
    ns = sum(p[0] == "Single" for p in split)
    assert best[0] == (f"Best split: {_plural(len(split), 'play')}  ({_plural(nb, 'bomb')}, "
                       f"{_plural(ns, 'single')})")
    assert _columns(best[1]) == ["#", "type", "rank", "cards"]
    assert [_columns(row) for row in best[2:]] == \
        [[str(i), mtype, rank, " ".join(cards)] for i, (mtype, rank, cards) in enumerate(split, 1)]
    if got["runner_up"]:
        runners = _section(lines, "Runner-up splits ")
        assert runners[0].startswith(f"Runner-up splits ({_plural(len(split), 'play')} too)")
        assert [line.split()[0] for line in runners[1::2]] == \
            [f"{n}." for n in range(1, len(got["runner_up"]) + 1)]
        assert len(runners) == 1 + 2 * len(got["runner_up"])
        best_parts = Counter(_shown(p) for p in split)
        for n, other in enumerate(got["runner_up"], 1):
            plus, minus = runners[2 * n - 1], runners[2 * n]
            other_parts = Counter(_shown(p) for p in other)
            assert plus.startswith(f"  {n}. + ") and minus.startswith("     - ")
            assert Counter(plus[len(f"  {n}. + "):].split(",  ")) == other_parts - best_parts
            assert Counter(minus[len("     - "):].split(",  ")) == best_parts - other_parts
    else:
        assert not any(line.startswith("Runner-up") for line in lines)
    if not got["bombs"]:
        assert "Bombs: none" in lines
    else:
        bombs = _section(lines, "Bombs (")
        assert bombs[0].startswith(f"Bombs ({len(got['bombs'])}, biggest first)")
        expected = [[str(i), mtype, rank, str(len(cards)), " ".join(cards),
                     _expected_ranges(shares) or "-", *["*"][:in_split]]
                    for i, ((mtype, rank, cards), shares, in_split)
                    in enumerate(zip(got["bombs"], got["bomb_shares"], got["bomb_in_split"]), 1)]
        assert [_columns(row) for row in bombs[2:]] == expected
    control = _section(lines, "Control ")
    assert control[0] == f"Control (can the {got['unseen']} unseen cards beat each play?)"
    rows = [_columns(row) for row in control[2:]]
    assert [row[0] for row in rows] == [_shown(p) for p in split]
    assert [row[1] for row in rows] == [("only by a bomb" if e["only_bombs"] else "yes")
                                        if e["beatable"] else "no: control"
                                        for e in got["control"]]
    assert [row[2] for row in rows] == [_shown(e["by"]) if e["beatable"] else "-"
                                        for e in got["control"]]


def test_cli_runners_up_option_and_its_default():
    """``--runners-up N`` lists N runner-up splits, 5 by default (``guandan analyze --help``,
    docs/PROTOCOL.md); this hand has more than 6 splits of 2 plays (the brute force)."""
    assert len(reference_smallest_splits("S9 C9 D9 S8 C8 D8 H7 H7", "7")) > 6
    hand = ["S9 C9 D9 S8 C8 D8 H7 H7", "--level", "7", "--json"]
    for extra, count in (([], 5), (["--runners-up", "2"], 2), (["--runners-up", "0"], 0)):
        proc = run_cli(*hand, *extra)
        assert proc.returncode == 0, proc.stderr
        assert len(json.loads(proc.stdout)["runner_up"]) == count, extra


def test_cli_rules_option():
    """``--rules no-sf-bomb`` (RULES sec. 9): five suited cards are a straight, no bomb."""
    proc = run_cli("S3 S4 S5 S6 S7", "--level", "2", "--rules", "no-sf-bomb", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["split"] == [["Straight", "3", ["S3", "S4", "S5", "S6", "S7"]]]
    assert out["bombs"] == []
    proc = run_cli("S3 S4 S5 S6 S7", "--level", "2", "--json")
    assert json.loads(proc.stdout)["split"] == \
        [["StraightFlush", "3", ["S3", "S4", "S5", "S6", "S7"]]]


def test_cli_text_singular_counts():
    """One card, one card played, one play: no plural 's' (it said "1 cards", "1 plays")."""
    proc = run_cli("SB", "--level", "2", "--played", "S3")
    assert proc.stdout.splitlines()[:4] == ["Hand (1 card, level 2): SB", "Played (1 card): S3",
                                            "", "Best split: 1 play  (0 bombs, 1 single)"]


def test_ranges_of_bomb_numbers():
    """0-based indices shown from 1, sorted, runs of two or more as "first-last"."""
    from guandan_core.cli_analyze import _ranges
    for indices, shown in (([], ""), ([0], "1"), ([0, 1], "1-2"), ([0, 1, 2, 5], "1-3, 6"),
                           ([9, 2, 0, 3, 4], "1, 3-5, 10"), ([1, 3], "2, 4")):
        assert _ranges(indices) == shown == _expected_ranges(indices)


@pytest.mark.parametrize("args, named", [
    (["S9 X9", "--level", "7"], "X9"),                          # bad card
    (["S9", "--level", "1"], "'1'"),                            # bad level
    (["S9", "--level", "7", "--rules", "nope"], "nope"),        # bad rules
    (["S9", "--level", "7", "--played", "S9 S9"], "S9"),        # three S9
    (["", "--level", "7"], "empty"),                            # empty hand
    ([TWENTY_EIGHT_CARDS, "--level", "7"], "the hand holds 28 cards; a hand holds at most 27"),
    (["S9", "--level", "7", "--runners-up", "-1"], "-1"),
    # as many as the engine protocol's runners_up= takes, and no more
    (["S9", "--level", "7", "--runners-up", str(10 ** 18)], "'1000000000000000000'"),
])
def test_cli_bad_input(args, named):
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("guandan analyze: error:"), proc.stderr
    assert named in lines[0], lines[0]
    assert "Traceback" not in proc.stderr


def _run_in_pty(env_extra):
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "analyze",
                                 "S9 C9 D9 H7 H7 SB SB HR", "--level", "7"],
                                cwd=PACKAGES, env=cli_env(drop=("NO_COLOR", "TERM"), **env_extra),
                                stdout=slave, stderr=subprocess.PIPE)
        os.close(slave)
        slave = None
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:       # EIO once the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        return b"".join(chunks).decode()
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)


def test_cli_colours_only_on_a_terminal_without_no_color():
    if sys.platform.startswith("win"):
        pytest.skip("no pty")
    coloured = _run_in_pty({})
    assert ANSI in coloured and "Best split" in coloured
    plain = _run_in_pty({"NO_COLOR": "1"})
    assert ANSI not in plain and "Best split" in plain
    # a terminal that shows escapes as text (TERM=dumb) gets none either
    assert _run_in_pty({"TERM": "dumb"}) == plain
    # the same report, colours added without moving a column
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
    # the wild card (H7 at level 7) bold yellow underlined, a bomb's type magenta, the
    # jokers bold magenta (small) and bold red (big), other hearts and diamonds red
    hand = coloured.splitlines()[0]
    assert hand.count("\x1b[1;33;4mH7\x1b[0m") == 2 and hand.count("\x1b[1;35mSB\x1b[0m") == 2
    assert "\x1b[1;31mHR\x1b[0m" in hand and "\x1b[31mD9\x1b[0m" in hand
    assert "S9 C9" in hand      # spades and clubs plain
    split = _section(coloured.splitlines(), "\x1b[1mBest split")
    assert any(_columns(row)[1] == "\x1b[35mBomb\x1b[0m" for row in split)


def test_colours_never_for_a_stream_that_cannot_say_it_is_a_terminal(monkeypatch):
    """Colours only for a terminal: a closed stream (whose isatty() raises) is none; and
    never when NO_COLOR is set to something, or TERM is dumb."""
    import io
    from guandan_core.cli_analyze import use_colour
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)

    class Terminal(io.StringIO):
        def isatty(self):       # as a terminal's file object does once closed
            if self.closed:
                raise ValueError("I/O operation on closed file")
            return True

    assert use_colour(Terminal()) is True and use_colour(io.StringIO()) is False
    # NO_COLOR turns colours off only when it is not empty (no-color.org)
    for value, coloured in (("", True), ("1", False), ("0", False)):
        monkeypatch.setenv("NO_COLOR", value)
        assert use_colour(Terminal()) is coloured, value
    monkeypatch.delenv("NO_COLOR")
    for value, coloured in (("dumb", False), ("xterm-256color", True), ("", True)):
        monkeypatch.setenv("TERM", value)
        assert use_colour(Terminal()) is coloured, value
    closed = Terminal()
    closed.close()
    assert use_colour(closed) is False


def test_text_report_colours_a_straight_flush_as_a_bomb():
    """A bomb's type is magenta (RULES sec. 4: a straight flush is a bomb), in the control
    table as in the split's table."""
    from guandan_core.cli_analyze import render
    report = render(analyze("S3 S4 S5 S6 S7", "2"), colour=True)
    control = _section(report.splitlines(), "\x1b[1mControl")
    assert control[2].startswith("  \x1b[35mStraightFlush 3:\x1b[0m S3 S4 S5 S6 S7"), control


def test_control_and_best_split_name_what_they_cannot_use():
    """A review helper's findings: control() took a play read at another level (a pair of
    7s read at level 2 was "beatable by Pair 8" at level 7, where 7s are above aces), the
    pass, and plays the hand does not hold; best_split read runners_up=2.7 as 2 and -1 as
    0. Each is now a ValueError naming it; control at the play's own level still works."""
    import re
    from guandan_core import Move
    from guandan_core.analysis import control
    from guandan_core.cards import format_card
    sevens = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    for call, named in (
            (lambda: control([sevens], "S7 C7", "7"),
             "split play Pair 7: S7 C7 is not a reading of its cards at level 7"),
            (lambda: control([Move.PASS], "S7 C7", "7"), "a split holds plays, not the pass"),
            # (split_score counted the pass as a play)
            (lambda: split_score([Move.PASS]), "a split holds plays, not the pass"),
            (lambda: control([sevens, sevens], "S7 C7 S8", "2"),
             "split play Pair 7: S7 C7 uses cards the hand does not hold"),
            (lambda: best_split("S3 S4", "2", runners_up=2.7), "not 2.7"),
            (lambda: best_split("S3 S4", "2", runners_up=-1), "not -1"),
            (lambda: best_split("S3 S4", "2", runners_up=True), "not True"),
            (lambda: format_card(True), "not a card kind index: True"),
            (lambda: format_card(52.0), "not a card kind index: 52.0"),
            # split_score gave an AttributeError for a list of other things than Moves
            (lambda: split_score([1]), "a split is a list of Moves, not one holding 1"),
            (lambda: split_score(["S3"]), "not one holding 'S3'"),
            (lambda: control([["Single", "3", ["S3"]]], "S3", "2"),
             "not one holding ['Single', '3', ['S3']]")):
        with pytest.raises(ValueError, match=re.escape(named)):
            call()
    # a text is no list of plays (control named its first letter)
    for call in (lambda: control("S3", "S3", "2"), lambda: split_score("S3")):
        with pytest.raises(TypeError, match=re.escape("a split is a list of Moves, not 'S3'")):
            call()
    [info] = control([sevens], "S7 C7", "2")
    assert info.beatable and str(info.by) == "Pair 8: S8 H8"   # (two suits first: see _thinned)
    at_seven = Move.from_platform(["Pair", "7", ["S7", "C7"]], "7")
    [info] = control([at_seven], "S7 C7", "7")
    assert info.beatable and info.by.type == "Pair" and info.by.rank in ("B", "R")
    assert format_card(np.uint8(52)) == "SB"
