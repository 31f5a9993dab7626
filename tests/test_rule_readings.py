"""Where RULES.md's text does not settle a case, the reading this engine takes (docs/API.md,
"Readings where RULES.md is silent"): each pinned here, so that a change of reading is a
decision, not an accident. An independent reference written from RULES.md alone (session
35) agreed with every one of them but could not derive them from the text.
"""

from guandan_core import Hand, classify
from guandan_core.cards import format_cards
from guandan_core.match import MatchRules, allowed_returns, plan_tribute, settle_hand


def _readings(cards, level, rules):
    return sorted(f"{m.type} {m.rank}" for m in classify(cards, level, rules))


def test_sec9_long_sequences_exclude_the_level_rank_from_every_straight():
    """RULES 9, long-sequences: "straights of 5 or more ranks with level cards and jokers
    excluded": read for 5-card straights too, and for a wild standing for the level rank;
    a wild standing for another rank is no "level card"; straight flushes, tubes and
    plates are not straights and keep the level rank."""
    assert _readings("S3 C4 S5 C6 D7", "7", "long-sequences") == []
    assert _readings("S3 C4 S5 C6 D7", "7", "standard") == ["Straight 3"]
    assert _readings("S3 C4 S5 C6 H7", "7", "long-sequences") == ["Straight 2"]
    assert _readings("S5 S6 S7 S8 S9", "7", "long-sequences") == ["StraightFlush 5"]
    assert _readings("S7 S7 C8 C8", "7", "long-sequences") == ["ThreePair 7"]


def test_sec9_platform_wild_straight_flushes_are_hearts():
    """RULES 9, "wild may complete a straight flush of any suit: hearts only" on the
    platform: a straight flush that uses a wild is a heart one; without a wild any suit."""
    assert _readings("S3 S4 S5 S6 H7", "7", "platform") == ["Straight 2", "Straight 3"]
    assert "StraightFlush 3" in _readings("S3 S4 S5 S6 H7", "7", "standard")
    assert "StraightFlush 3" in _readings("H3 H4 H5 H6 H7", "7", "platform")
    assert _readings("S3 S4 S5 S6 S7", "2", "platform") == ["StraightFlush 3"]


def test_sec8_a_return_without_a_card_of_ten_or_lower_is_the_lowest_in_card_order():
    """RULES 8, "if it has none, its lowest card": lowest in the card order of the level
    (sec. 2: the level rank above the ace), and a wild may be returned (only tribute
    refuses a wild)."""
    assert format_cards(allowed_returns(Hand("HT ST SJ").counts, "T")) == ["SJ"]
    assert format_cards(allowed_returns(Hand("H7 HR SB").counts, "7")) == ["H7"]


def test_sec8_equal_tribute_cards_are_equal_by_rank_whatever_the_suits():
    """RULES 8, double loss "with equal cards": equal in rank (suits never order cards), so
    the player seated right after the first player pays the first, whichever ace it
    holds."""
    hands = [Hand(h).counts for h in ("S3 S4", "SA S5", "S6 S7", "HA S8")]
    for order in ((0, 2, 1, 3), (0, 2, 3, 1)):
        plan = plan_tribute(order, hands, "2", MatchRules.standard())
        assert [(payer, receiver) for payer, receiver, _ in plan.payments] == [(1, 0), (3, 2)]
    hands = [Hand(h).counts for h in ("S3 S4", "HA S5", "S6 S7", "SA S8")]
    plan = plan_tribute((2, 0, 1, 3), hands, "2", MatchRules.standard())
    assert [(payer, receiver) for payer, receiver, _ in plan.payments] == [(3, 2), (1, 0)]


def test_sec8_with_both_teams_at_a_either_team_can_win_the_game():
    """RULES 8, "a team whose own level is A, playing at its level": with both teams at A
    the hand is at both teams' level, so either team's win (partner 2nd or 3rd) wins the
    game; the losing team's hand at A counts as failed."""
    a = 12
    for order, team in (((1, 3, 0, 2), 1), ((0, 2, 1, 3), 0), ((1, 0, 3, 2), 1)):
        levels, failures, _, winner = settle_hand([a, a], [0, 0], a, order,
                                                  MatchRules.standard())
        assert (levels, winner) == ([a, a], team)
        assert failures[1 - team] == 1 and failures[team] == 0


def test_sec8_the_gain_is_what_the_finish_earns_even_past_a():
    """RULES 8: "Levels stop at A": a 1st-and-2nd finish from Q earns 3 levels (the gain
    recorded) but rises 2, to A."""
    queen, ace = 10, 12
    levels, _, gain, winner = settle_hand([queen, 3], [0, 0], queen, (0, 2, 1, 3),
                                          MatchRules.standard())
    assert (levels, gain, winner) == ([ace, 3], 3, None)
