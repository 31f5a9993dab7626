"""Tests of the slow reference (tests/reference.py) itself, on hand-made examples taken
from RULES.md. Each test names the section it checks."""

import json
import os
import random
from collections import Counter

import pytest

from derived_sets import play_derived_set
from reference import (_cards, _classify_quick, _may_grow_into_play, _sub_multisets,
                       ref_beats, ref_classify, ref_legal_moves)

parse_cards = _cards.parse_cards
parse_level = _cards.parse_level
format_cards = _cards.format_cards

DATA = os.path.join(os.path.dirname(__file__), "data")
PLATFORM = dict(sf_is_bomb=True, sf_wild_any_suit=False, long_sequences=False)
LONG = dict(sf_is_bomb=True, sf_wild_any_suit=True, long_sequences=True)


def C(text, level="7", **opts):
    """Readings of a card string at a level, as a set of (type, label)."""
    triples = ref_classify(parse_cards(text), parse_level(level), **opts)
    cards = tuple(format_cards(parse_cards(text)))
    assert all(t[2] == cards for t in triples)
    return {(t, r) for t, r, _ in triples}


def T(type_, rank, text):
    return (type_, rank, tuple(format_cards(parse_cards(text))))


# --- sec. 3 and 4: the examples written in RULES.md ---------------------------------

def test_sec4_wild_straight_and_straight_flush():
    """RULES 4: S5 S6 H7 S8 S9 at level 7 is a straight and a straight flush."""
    assert C("S5 S6 H7 S8 S9") == {("Straight", "5"), ("StraightFlush", "5")}


def test_sec4_wild_full_house_and_bomb():
    """RULES 4: S9 C9 D9 H7 H7 at level 7 is a full house of 9s or a bomb of five 9s."""
    assert C("S9 C9 D9 H7 H7") == {("ThreeWithTwo", "9"), ("Bomb", "9")}


def test_sec3_wild_with_joker_pair_full_house():
    """RULES 3: S9 C9 H7 SB SB at level 7 is a full house of 9s over small jokers."""
    assert C("S9 C9 H7 SB SB") == {("ThreeWithTwo", "9")}


def test_sec4_three_jokers_and_mixed_joker_pair_are_nothing():
    """RULES 4: three jokers, a small with a big joker are not plays."""
    assert C("SB SB HR") == set()
    assert C("SB HR HR") == set()
    assert C("SB HR") == set()


def test_sec2_sequences_never_wrap():
    """RULES 2: Q K A 2 3 is nothing; neither are K A 2 3 4 or wrapped tubes/plates."""
    assert C("SQ HK CA D2 S3") == set()
    assert C("SK HA C2 D3 S4", level="9") == set()
    assert C("SK HK SA HA S2 H2", level="9") == set()
    assert C("SK HK CK SA HA CA", level="9") == {("TwoTrips", "K")}
    assert C("SA HA CA S2 H2 C2", level="9") == {("TwoTrips", "A")}


def test_sec2_ace_low_and_high_straights():
    """RULES 2 and 7: A may count as 1; sequences are named by the lowest rank, A when
    ace-low."""
    assert C("SA H2 C3 D4 S5", level="9") == {("Straight", "A")}
    assert C("ST HJ CQ DK SA", level="9") == {("Straight", "T")}
    assert C("SA HA S2 H2 S3 H3", level="9") == {("ThreePair", "A")}
    assert C("SQ HQ SK HK SA HA", level="9") == {("ThreePair", "Q")}


def test_sec2_level_rank_at_natural_place_in_sequences():
    """RULES 2: in sequences the level rank sits at its natural place."""
    assert C("S5 C6 D7 S8 C9") == {("Straight", "5")}
    assert C("S6 C6 S7 C7 S8 C8") == {("ThreePair", "6")}


def test_sec3_only_wilds_face_value():
    """RULES 3: one wild is a single of L, two wilds a pair of L."""
    assert C("H7") == {("Single", "7")}
    assert C("H7 H7") == {("Pair", "7")}
    assert C("H2 H2", level="2") == {("Pair", "2")}


def test_sec3_wild_never_stands_for_a_joker():
    """RULES 3: no joker pair or joker bomb uses a wild."""
    assert C("H7 SB") == set()
    assert C("H7 HR") == set()
    assert C("H7 SB HR HR") == set()
    assert C("H7 H7 SB SB") == set()
    assert C("SB SB HR HR") == {("Bomb", "JOKER")}


def test_sec3_wild_stands_for_any_card():
    """RULES 3: with a natural card, a wild may stand for any non-joker card."""
    assert C("H7 SA") == {("Pair", "A")}
    assert C("H7 S7") == {("Pair", "7")}
    assert C("H7 H7 SA") == {("Trips", "A")}
    assert C("H7 H7 S3 S4 S6") == {("Straight", "2"), ("Straight", "3"),
                                    ("StraightFlush", "2"), ("StraightFlush", "3")}
    assert C("H7 H7 S2 S3 S4") == {("Straight", "A"), ("Straight", "2"),
                                    ("StraightFlush", "A"), ("StraightFlush", "2")}


def test_sec4_five_of_a_rank_is_a_bomb_not_a_full_house():
    """RULES 4: five cards of one rank are a bomb, never a full house."""
    assert C("S9 S9 C9 D9 H9") == {("Bomb", "9")}


def test_sec4_full_house_of_either_rank():
    """RULES 4: with a wild, S9 C9 D4 C4 H7 is a full house of 9s or of 4s."""
    assert C("S9 C9 D4 C4 H7") == {("ThreeWithTwo", "9"), ("ThreeWithTwo", "4")}


def test_sec4_full_house_pair_may_be_joker_pair():
    """RULES 4: the full house pair may be a joker pair, never a mixed one."""
    assert C("S9 C9 D9 SB SB") == {("ThreeWithTwo", "9")}
    assert C("S9 C9 D9 HR HR") == {("ThreeWithTwo", "9")}
    assert C("S9 C9 D9 SB HR") == set()


def test_sec4_no_jokers_in_triples_or_sequences():
    """RULES 4: triples and sequences never hold jokers."""
    assert C("SB SB H7") == set()
    assert C("S3 S4 S5 S6 SB") == set()


def test_sec4_flush_without_wild_is_only_a_straight_flush():
    """RULES 4: five consecutive cards of one suit with no wild are a straight flush only
    (a straight when straight flushes are off, sec. 9)."""
    assert C("S3 S4 S5 S6 S7", level="9") == {("StraightFlush", "3")}
    assert C("S3 S4 S5 S6 S7", level="9", sf_is_bomb=False) == {("Straight", "3")}
    assert C("SA S2 S3 S4 S5", level="9") == {("StraightFlush", "A")}
    assert C("ST SJ SQ SK SA", level="9") == {("StraightFlush", "T")}


def test_sec9_hearts_only_wild_straight_flush():
    """RULES 9: with the platform's behaviour, a wild completes only heart straight
    flushes."""
    assert C("S5 S6 H7 S8 S9", **PLATFORM) == {("Straight", "5")}
    assert C("H3 H4 H5 H6 H2", level="2", **PLATFORM) == {
        ("Straight", "2"), ("Straight", "3"), ("StraightFlush", "2"), ("StraightFlush", "3")}
    assert C("S3 S4 S5 S6 H2", level="2", **PLATFORM) == {("Straight", "2"),
                                                           ("Straight", "3")}
    assert C("S3 S4 S5 S6 H2", level="2") == {
        ("Straight", "2"), ("Straight", "3"), ("StraightFlush", "2"), ("StraightFlush", "3")}
    assert C("S5 S6 S7 S8 S9", level="2", **PLATFORM) == {("StraightFlush", "5")}


def test_sec4_bomb_sizes():
    """RULES 4: bombs are 4 to 10 cards of one rank (more than 8 only with wilds), at most
    8 for rank L."""
    assert C("S9 H9 C9 D9") == {("Bomb", "9")}
    assert C("S9 S9 H9 H9 C9 C9 D9 D9") == {("Bomb", "9")}
    assert C("S9 S9 H9 H9 C9 C9 D9 D9 H7") == {("Bomb", "9")}
    assert C("S9 S9 H9 H9 C9 C9 D9 D9 H7 H7") == {("Bomb", "9")}
    assert C("S7 S7 H7 H7 C7 C7 D7 D7") == {("Bomb", "7")}
    assert C("S9 H9 C9") == {("Trips", "9")}


def test_sec4_tube_and_plate():
    """RULES 4: a tube is exactly 3 consecutive pairs, a plate exactly 2 consecutive
    triples (standard lengths)."""
    assert C("S3 H3 S4 H4 S5 H5") == {("ThreePair", "3")}
    assert C("S3 H3 S4 H4") == set()
    assert C("S3 H3 S4 H4 S5 H5 S6 H6") == set()
    assert C("S3 H3 C3 S4 H4 C4") == {("TwoTrips", "3")}
    assert C("S3 H3 C3 S5 H5 C5") == set()
    assert C("S3 H3 C3 S4 H4 C4 S5 H5 C5") == set()
    assert C("S3 S4 S5 S6 D7 S8") == set()


def test_sec9_long_sequences():
    """RULES 9 (long-sequences): straights of 5 or more ranks without level cards, 2 or
    more consecutive pairs, 2 or more consecutive triples; straight flushes stay 5."""
    assert C("S3 C4 S5 S6", **LONG) == set()
    assert C("S8 C9 ST SJ CQ DK", **LONG) == {("Straight", "8")}
    assert C("S2 C3 S4 S5 C6 D7 S8", level="9", **LONG) == {("Straight", "2")}
    # level cards excluded from long straights, also a wild standing for the level rank
    assert C("S5 C6 D7 S8 C9", **LONG) == set()
    assert C("S5 C6 D7 S8 C9 CT", **LONG) == set()
    assert C("S5 C6 H7 S8 C9 CT", **LONG) == set()
    assert C("S8 C9 H7 SJ CQ DK", **LONG) == {("Straight", "8")}
    # same suit: the five-card flush is a straight flush only; six cards a straight
    assert C("S2 S3 S4 S5 S6", level="9", **LONG) == {("StraightFlush", "2")}
    assert C("S2 S3 S4 S5 S6 S8", level="9", **LONG) == set()
    assert C("S2 S3 S4 S5 S6 S7", level="9", **LONG) == {("Straight", "2")}
    # tubes and plates of any length from 2
    assert C("S3 H3 S4 H4", **LONG) == {("ThreePair", "3")}
    assert C("SA HA S2 H2", **LONG) == {("ThreePair", "A")}
    assert C("S3 H3 S4 H4 S5 H5 S6 H6", **LONG) == {("ThreePair", "3")}
    assert C("S3 H3 C3 S4 H4 C4 S5 H5 C5", **LONG) == {("TwoTrips", "3")}
    assert C("S3 H3 S5 H5", **LONG) == set()
    assert C("S6 H6 S7 C7", **LONG) == {("ThreePair", "6")}


# --- sec. 5: comparisons ---------------------------------------------------------------

def test_sec2_sec5_card_order_with_level():
    """RULES 2/5: at level 7, ... K < A < 7 < SB < HR, and 8 > 6."""
    L = parse_level("7")
    order = [T("Single", r, c) for r, c in
             [("2", "S2"), ("6", "S6"), ("8", "S8"), ("K", "SK"), ("A", "SA"),
              ("7", "S7"), ("B", "SB"), ("R", "HR")]]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            assert ref_beats(a, b, L) == (i > j), (a, b)


def test_sec5_equal_never_beats_equal():
    """RULES 5: equal never beats equal; suits never break ties."""
    L = parse_level("7")
    assert not ref_beats(T("Pair", "9", "S9 H9"), T("Pair", "9", "C9 D9"), L)
    assert not ref_beats(T("Bomb", "9", "S9 H9 C9 D9"), T("Bomb", "9", "S9 H9 C9 D9"), L)
    assert not ref_beats(T("StraightFlush", "3", "S3 S4 S5 S6 S7"),
                         T("StraightFlush", "3", "D3 D4 D5 D6 D7"), L)


def test_sec5_type_must_match():
    """RULES 5: a non-bomb is beaten only by the same type (and length)."""
    L = parse_level("7")
    assert not ref_beats(T("Pair", "A", "SA HA"), T("Single", "3", "S3"), L)
    assert not ref_beats(T("Trips", "A", "SA HA CA"), T("Pair", "3", "S3 H3"), L)
    assert not ref_beats(T("ThreeWithTwo", "A", "SA HA CA S3 H3"),
                         T("Straight", "2", "S2 H3 C4 D5 S6"), L)
    # long sequences: a longer straight does not beat a shorter one
    assert not ref_beats(T("Straight", "8", "S8 C9 ST SJ CQ DK"),
                         T("Straight", "2", "S2 H3 C4 D5 S6"), L)
    # ... and one of the same length and a higher top does (real 6-card straights: the
    # cards here were "S3 H4 C5 D6 S8 S9", not a straight, at a level inside it)
    assert ref_beats(T("Straight", "3", "S3 H4 C5 D6 S7 S8"),
                     T("Straight", "2", "S2 H3 C4 D5 S6 H7"), parse_level("K"))
    assert not ref_beats(T("Straight", "2", "S2 H3 C4 D5 S6 H7"),
                         T("Straight", "3", "S3 H4 C5 D6 S7 S8"), parse_level("K"))


def test_sec5_full_house_by_triple_and_sequences_by_top():
    """RULES 4/5: a full house compares by its triple only; A2345 is the lowest straight,
    TJQKA the highest."""
    L = parse_level("7")
    assert ref_beats(T("ThreeWithTwo", "4", "S4 H4 C4 S2 H2"),
                     T("ThreeWithTwo", "3", "S3 H3 C3 SA HA"), L)
    assert ref_beats(T("ThreeWithTwo", "7", "S7 H7 C7 S2 H2"),
                     T("ThreeWithTwo", "A", "SA HA CA SK HK"), L)
    assert ref_beats(T("Straight", "2", "S2 H3 C4 D5 S6"),
                     T("Straight", "A", "SA H2 C3 D4 S5"), L)
    assert ref_beats(T("Straight", "T", "ST HJ CQ DK SA"),
                     T("Straight", "9", "S9 HT CJ DQ SK"), L)
    assert ref_beats(T("ThreePair", "Q", "SQ HQ SK HK SA HA"),
                     T("ThreePair", "A", "SA HA S2 H2 S3 H3"), L)
    assert ref_beats(T("TwoTrips", "K", "SK HK CK SA HA CA"),
                     T("TwoTrips", "A", "SA HA CA S2 H2 C2"), L)


def test_sec5_bomb_order():
    """RULES 5: 4 < 5 < straight flush < 6 < ... < 10 < joker bomb; same size by rank in
    card order (L above A); straight flushes by top card; any bomb beats a non-bomb."""
    L = parse_level("7")
    ladder = [
        T("Bomb", "3", "S3 H3 C3 D3"),
        T("Bomb", "A", "SA HA CA DA"),
        T("Bomb", "7", "S7 H7 C7 D7"),
        T("Bomb", "2", "S2 H2 C2 D2 S2"),
        T("Bomb", "7", "S7 H7 C7 D7 S7"),
        T("StraightFlush", "A", "SA S2 S3 S4 S5"),
        T("StraightFlush", "T", "ST SJ SQ SK SA"),
        T("Bomb", "2", "S2 H2 C2 D2 S2 H2"),
        T("Bomb", "7", "S7 H7 C7 D7 S7 H7"),
        T("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2"),
        T("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2 D2"),
        T("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2 D2 H7"),
        T("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2 D2 H7 H7"),
        T("Bomb", "3", "S3 H3 C3 D3 S3 H3 C3 D3 H7 H7"),
        T("Bomb", "JOKER", "SB SB HR HR"),
    ]
    for i, a in enumerate(ladder):
        for j, b in enumerate(ladder):
            assert ref_beats(a, b, L) == (i > j), (a, b)
        assert ref_beats(a, T("Single", "R", "HR"), L)
        assert ref_beats(a, T("Straight", "T", "ST HJ CQ DK SA"), L)
        assert not ref_beats(T("Single", "R", "HR"), a, L)


# --- the optimisations of the reference agree with the obvious way -------------------

def _random_set(rng, level, n):
    wild = level * 4 + 1
    pool = [k for k in range(54) for _ in range(2)]
    cards = []
    nw = rng.choice([0, 1, 1, 2, 2])
    cards += [wild] * nw
    pool = [k for k in pool if k != wild]
    # biased: few ranks, often one suit
    style = rng.random()
    if style < 0.3:
        suit = rng.randrange(4)
        pool = [k for k in pool if k < 52 and k & 3 == suit] + [52, 53]
    elif style < 0.7:
        base = rng.randrange(13)
        ranks = {(base + d) % 13 for d in range(rng.randint(1, 4))}
        pool = [k for k in pool if k >= 52 or (k >> 2) in ranks]
    rng.shuffle(pool)
    for k in pool:
        if len(cards) >= n:
            break
        if cards.count(k) < 2:
            cards.append(k)
    return cards[:n]


@pytest.mark.parametrize("opts", [dict(), PLATFORM, LONG, dict(sf_is_bomb=False)],
                         ids=["standard", "platform", "long", "no-sf"])
def test_quick_classifier_equals_obvious(opts):
    """RULES 3: the quick classifier (wild ranks, flush suit only when needed) gives
    exactly the readings of trying every wild as every one of the 52 cards, on random
    sets and on sets derived from real plays (counted: enough of them have readings,
    wild cards, and straight flushes completed by a wild)."""
    rng = random.Random(11)
    with_readings = with_wild = wild_flushes = differ = 0
    for i in range(400):
        level = rng.randrange(13)
        cards = _random_set(rng, level, rng.randint(1, 10)) if i < 250 else \
            play_derived_set(rng, level)
        if not cards:
            continue
        quick = _classify_quick(cards, level, **opts)
        assert quick == ref_classify(cards, level, **opts), (format_cards(cards), level)
        with_readings += bool(quick)
        with_wild += level * 4 + 1 in cards
        wild_flushes += level * 4 + 1 in cards and any(t[0] == "StraightFlush" for t in quick)
        differ += quick != _classify_quick(cards, level)        # the option's own effect
    assert with_readings >= 150 and with_wild >= 100, (with_readings, with_wild)
    if opts:        # every option changes the readings of some of these sets
        assert differ >= 5, differ
    if opts.get("sf_wild_any_suit", True) and opts.get("sf_is_bomb", True):
        assert wild_flushes >= 10, wild_flushes


@pytest.mark.parametrize("long_sequences", [False, True])
def test_prune_holds_for_every_subset_of_every_play(long_sequences):
    """The prune of the reference walk is true for every play and all its sub-multisets."""
    rng = random.Random(5)
    for _ in range(400):
        level = rng.randrange(13)
        cards = _random_set(rng, level, rng.randint(1, 10))
        if not cards or not _classify_quick(cards, level, long_sequences=long_sequences):
            continue
        for sub in _sub_multisets(Counter(cards), level, long_sequences, prune=False):
            assert _may_grow_into_play(sub, level, long_sequences), format_cards(sub)


@pytest.mark.parametrize("opts", [dict(), PLATFORM, LONG], ids=["standard", "platform",
                                                                 "long"])
def test_pruned_walk_equals_full_walk(opts):
    """ref_legal_moves with the prune equals the walk over every sub-multiset, and the
    obvious classifier gives the same moves on small hands."""
    rng = random.Random(3)
    for i in range(30):
        level = rng.randrange(13)
        hand = _random_set(rng, level, rng.randint(1, 9))
        full = ref_legal_moves(hand, level, prune=False, **opts)
        assert ref_legal_moves(hand, level, **opts) == full, format_cards(hand)
        if i < 4:
            assert ref_legal_moves(hand, level, obvious=True, **opts) == full


def test_sec4_move_count_of_a_small_hand():
    """RULES 4: every distinct (cards, reading) pair of a small hand, written out."""
    hand = parse_cards("S9 C9 H7 SB SB")
    got = ref_legal_moves(hand, parse_level("7"))
    expected = {
        T("Single", "9", "S9"), T("Single", "9", "C9"), T("Single", "7", "H7"),
        T("Single", "B", "SB"),
        T("Pair", "9", "S9 C9"), T("Pair", "9", "S9 H7"), T("Pair", "9", "C9 H7"),
        T("Pair", "B", "SB SB"),
        T("Trips", "9", "S9 C9 H7"),
        T("ThreeWithTwo", "9", "S9 C9 H7 SB SB"),
    }
    assert got == expected


def test_sec4_follow_filter():
    """RULES 5: with a play to beat only higher plays of its type, and bombs."""
    hand = parse_cards("S9 C9 D9 H7 H7 SA")
    level = parse_level("7")
    beat = T("Pair", "K", "SK HK")
    got = ref_legal_moves(hand, level, beat=beat)
    assert got == {T("Pair", "A", "SA H7"), T("Pair", "7", "H7 H7"),
                   T("Bomb", "9", "S9 C9 D9 H7"), T("Bomb", "9", "S9 C9 H7 H7"),
                   T("Bomb", "9", "S9 D9 H7 H7"), T("Bomb", "9", "C9 D9 H7 H7"),
                   T("Bomb", "9", "S9 C9 D9 H7 H7")}


# --- the reference against the AI platform's own list -------------------------------

def _platform_list():
    with open(os.path.join(DATA, "platform_actionlist_level2.json")) as f:
        data = json.load(f)
    level = parse_level(data["level"])
    hand = parse_cards(data["hand"])
    moves = {(t, r, tuple(format_cards(parse_cards(c)))) for t, r, c in data["moves"]}
    return hand, level, moves


def test_sec9_reference_on_platform_sub_hands():
    """RULES 9 (platform): on random sub-hands of the logged platform hand, the
    reference's moves are exactly the platform's moves that fit in the sub-hand."""
    hand, level, moves = _platform_list()
    rng = random.Random(2)
    for _ in range(40):
        sub = rng.sample(hand, rng.randint(1, 10))
        have = Counter(sub)
        expected = {m for m in moves
                    if not Counter(parse_cards(m[2])) - have}
        got = ref_legal_moves(sub, level, prune=False, **PLATFORM)
        assert got == expected, (format_cards(sub), got ^ expected)


def test_sec9_reference_on_full_platform_hand():
    """RULES 9 (platform): the reference reproduces the platform's complete lead list."""
    hand, level, moves = _platform_list()
    got = ref_legal_moves(hand, level, **PLATFORM)
    assert got == moves, (sorted(got - moves)[:20], sorted(moves - got)[:20])
