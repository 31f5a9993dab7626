"""The fast enumerator against the slow reference (tests/reference.py), move for move.

RULES.md sections 3, 4 and 5 and the combination options of section 9: random hands of
up to 10 cards (biased towards wild cards, jokers, few ranks and one suit), random levels,
leading and following, under the standard rules, the platform's rules, long sequences and
no straight-flush bombs.
"""

import random
from collections import Counter

import pytest

from guandan_core import Hand, Move, Rules, beats, classify, legal_moves
from derived_sets import play_derived_set
from reference import (_classify_quick, format_cards, opts_of_rules, ref_beats,
                       ref_classify, ref_legal_moves)

RULESETS = {
    "standard": Rules.standard(),
    "platform": Rules.platform(),
    "long": Rules(long_sequences=True),
    "no-sf": Rules(sf_is_bomb=False),
}
# further combinations of the section 9 options, checked on fewer hands
EXTRA_RULESETS = {
    "long-no-sf": Rules(sf_is_bomb=False, long_sequences=True),
    "long-platform": Rules(sf_wild_any_suit=False, long_sequences=True),
}
ALL_RULESETS = {**RULESETS, **EXTRA_RULESETS}
DECK = [k for k in range(54) for _ in range(2)]


def random_cards(rng, level, max_cards=10, min_cards=1):
    """A random multiset of real cards (each kind at most twice), biased so that a good
    share hold one or two wilds and jokers, few ranks, or mostly one suit."""
    n = rng.randint(min_cards, max_cards)
    wild = level * 4 + 1
    cards = []
    r = rng.random()
    if r < 0.35:
        cards += [wild]
    elif r < 0.65:
        cards += [wild, wild]
    if rng.random() < 0.4:
        cards += rng.sample([52, 52, 53, 53], rng.randint(1, 4))
    pool = [k for k in DECK if k != wild and k < 52]
    style = rng.random()
    if style < 0.25:      # mostly one suit: straight flushes
        suit = rng.randrange(4)
        pool = [k for k in pool if k & 3 == suit] + rng.sample(pool, 6)
    elif style < 0.6:     # a window of few ranks: bombs, full houses, tubes, plates
        base = rng.randrange(13)
        width = rng.choice([1, 1, 2, 2, 3, 4, 5])
        ranks = {(base + d) % 13 for d in range(width)}
        pool = [k for k in pool if (k >> 2) in ranks]
    elif style < 0.8:     # a run of consecutive ranks: straights
        base = rng.randrange(-1, 9)
        ranks = {(base + d) % 13 for d in range(rng.randint(5, 8))}
        pool = [k for k in pool if (k >> 2) in ranks]
    rng.shuffle(pool)
    counts = Counter(cards)
    for k in pool:
        if len(cards) >= n:
            break
        if counts[k] < 2:
            cards.append(k)
            counts[k] += 1
    rng.shuffle(cards)
    return sorted(cards[:n])


def fast_set(moves):
    return {(m.type, m.rank, tuple(m.cards)) for m in moves}


def report(kinds, level, rules_name, beat, fast, ref):
    return (f"\nhand  {' '.join(format_cards(kinds))}\nlevel {'23456789TJQKA'[level]} "
            f"({level})\nrules {rules_name}\nbeat  {beat}\n"
            f"fast only: {sorted(fast - ref)}\nref only:  {sorted(ref - fast)}")


def check_lead(kinds, level, rules, rules_name, opts):
    """The kernel's lead moves of ``kinds`` equal the reference's; returns them."""
    ref_lead = ref_legal_moves(kinds, level, **opts)
    fast_lead = fast_set(legal_moves(Hand(kinds), level, rules=rules))
    assert fast_lead == ref_lead, report(kinds, level, rules_name, None, fast_lead, ref_lead)
    return ref_lead


def check_follow(kinds, level, rules, rules_name, ref_lead, beat):
    """The kernel's answers to ``beat`` (a platform triple) equal the reference's."""
    ref_follow = {m for m in ref_lead if ref_beats(m, beat, level)}
    beat_move = Move.from_platform(list(beat), level, rules)
    fast_follow = fast_set(legal_moves(Hand(kinds), level, beat=beat_move, rules=rules))
    assert fast_follow == ref_follow, report(kinds, level, rules_name, beat, fast_follow,
                                             ref_follow)


def _random_reading(rng, level, opts):
    for _ in range(50):
        kinds = random_cards(rng, level, min_cards=rng.choice([1, 1, 2, 3, 4, 5, 5, 6]))
        readings = sorted(_classify_quick(kinds, level, **opts))
        if readings:
            return rng.choice(readings)
    return ("Single", "R", ("HR",))


SEED_CHUNKS = 12
HANDS_PER_CHUNK = 45      # per rule set: 12 * 45 * 4 = 2160 hands in all


def check_hands(rules_name, seed, count):
    """``count`` random hands: lead moves, then following two random plays."""
    rules = ALL_RULESETS[rules_name]
    opts = opts_of_rules(rules)
    rng = random.Random(seed)
    for _ in range(count):
        level = rng.randrange(13)
        kinds = random_cards(rng, level)
        ref_lead = check_lead(kinds, level, rules, rules_name, opts)
        # follow: a reading of another random card set, or one of this hand's own moves
        for _ in range(2):
            if rng.random() < 0.5 or not ref_lead:
                beat = _random_reading(rng, level, opts)
            else:
                beat = rng.choice(sorted(ref_lead))
            check_follow(kinds, level, rules, rules_name, ref_lead, beat)


@pytest.mark.parametrize("rules_name", list(RULESETS))
@pytest.mark.parametrize("chunk", range(SEED_CHUNKS))
def test_legal_moves_match_reference(chunk, rules_name):
    """RULES 3, 4, 5, 9: the fast legal_moves equals the reference, leading and following."""
    check_hands(rules_name, 1000 * chunk + sorted(RULESETS).index(rules_name),
                HANDS_PER_CHUNK)


@pytest.mark.parametrize("rules_name", list(EXTRA_RULESETS))
@pytest.mark.parametrize("chunk", range(2))
def test_legal_moves_match_reference_option_combinations(chunk, rules_name):
    """RULES 9: combinations of the options (long sequences with no straight-flush bombs,
    long sequences with hearts-only wild straight flushes)."""
    check_hands(rules_name, 50000 + 1000 * chunk + sorted(EXTRA_RULESETS).index(rules_name),
                HANDS_PER_CHUNK)


@pytest.mark.parametrize("rules_name", list(ALL_RULESETS))
@pytest.mark.parametrize("chunk", range(4))
def test_classify_matches_reference(chunk, rules_name):
    """RULES 3, 4, 9: classify equals the reference's readings of 1..10 cards (the
    obvious 52-way wild substitution for the first sets, the quick one after)."""
    rules = ALL_RULESETS[rules_name]
    opts = opts_of_rules(rules)
    rng = random.Random(77 + 10 * chunk + sorted(ALL_RULESETS).index(rules_name))
    with_readings = 0
    for i in range(200):
        level = rng.randrange(13)
        # every other set from a real play with a card changed (most random sets have
        # no reading: 11 to 17 of 800 had one for the obvious classifier)
        kinds = random_cards(rng, level) if i % 2 else play_derived_set(rng, level)
        fast = fast_set(classify(Hand(kinds).cards(), level, rules))
        ref = (ref_classify if i < 30 else _classify_quick)(kinds, level, **opts)
        assert fast == ref, report(kinds, level, rules_name, None, fast, ref)
        with_readings += bool(ref)
    assert with_readings >= 80, with_readings       # of 200


@pytest.mark.parametrize("rules_name", list(RULESETS))
def test_beats_matches_reference(rules_name):
    """RULES 5: beats equals the reference comparison on random pairs of moves (biased to
    the same type, bombs, and same-size plays)."""
    rules = RULESETS[rules_name]
    opts = opts_of_rules(rules)
    rng = random.Random(5 + sorted(RULESETS).index(rules_name))
    pool = []
    for _ in range(800):
        level = rng.randrange(13)
        pool.append((level, _random_reading(rng, level, opts)))
    by_level = {}
    for level, reading in pool:
        by_level.setdefault(level, []).append(reading)
    checked = 0
    for level, readings in by_level.items():
        moves = {r: Move.from_platform(list(r), level, rules) for r in readings}
        for a in readings:
            for b in rng.sample(readings, min(len(readings), 25)):
                assert beats(moves[a], moves[b]) == ref_beats(a, b, level), (level, a, b)
                checked += 1
    assert checked > 10000


@pytest.mark.parametrize("rules_name", ["standard", "long"])
def test_big_bombs_match_reference(rules_name):
    """RULES 4, 5: one rank with both wilds, up to 10 cards (bombs of 4 to 10 cards, at
    most 8 of the level rank), at every level (its own rank and two others), leading and
    following."""
    rules = RULESETS[rules_name]
    opts = opts_of_rules(rules)
    rng = random.Random(99)
    for level in range(13):
        wild = level * 4 + 1
        for rank in [level] + rng.sample([r for r in range(13) if r != level], 2):
            kinds = sorted([k for k in range(rank * 4, rank * 4 + 4) if k != wild] * 2
                           + [wild, wild])
            ref_lead = check_lead(kinds, level, rules, rules_name, opts)
            check_follow(kinds, level, rules, rules_name, ref_lead,
                         rng.choice(sorted(ref_lead)))


@pytest.mark.parametrize("rules_name", ["standard", "platform", "no-sf"])
def test_big_hands_match_reference(rules_name):
    """RULES 3, 4, 5, 9: hands of 9 to 27 cards (standard sequence lengths, so no play has
    more than 10 cards), leading and following."""
    rules = RULESETS[rules_name]
    opts = opts_of_rules(rules)
    rng = random.Random(7000 + sorted(RULESETS).index(rules_name))
    for _ in range(5):
        level = rng.randrange(13)
        wild = level * 4 + 1
        kinds = sorted(rng.sample([k for k in DECK if k != wild], rng.randint(9, 25))
                       + [wild] * rng.randint(0, 2))
        ref_lead = check_lead(kinds, level, rules, rules_name, opts)
        for beat in rng.sample(sorted(ref_lead), min(3, len(ref_lead))):
            check_follow(kinds, level, rules, rules_name, ref_lead, beat)
