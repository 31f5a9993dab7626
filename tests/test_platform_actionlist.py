"""The AI competition platform's own lead-move list (RULES.md sections 4, 7 and 9).

tests/data/platform_actionlist_level2.json is a complete actionList logged from the
platform's engine: a 27-card hand at level 2 with the wild H2; the platform lets a wild
complete only heart straight flushes (Rules.platform()).
"""

import json
import os
import re

import pytest

from guandan_core import Hand, LevelError, Move, MoveError, Rules, RulesError, legal_moves
from reference import _cards, ref_legal_moves

DATA = os.path.join(os.path.dirname(__file__), "data", "platform_actionlist_level2.json")


@pytest.fixture(scope="module")
def actionlist():
    with open(DATA) as f:
        data = json.load(f)
    level = data["level"]
    expected = {(t, r, tuple(Hand(c).cards())) for t, r, c in data["moves"]}
    assert len(expected) == len(data["moves"])
    return data["hand"], level, expected


def _diff(got, expected):
    return (f"\nextra (ours only): {sorted(got - expected)[:30]}"
            f"\nmissing (platform only): {sorted(expected - got)[:30]}")


def test_sec9_platform_lead_list_fast(actionlist):
    """RULES 9 (platform): legal_moves under Rules.platform() is exactly the platform's
    lead list."""
    hand, level, expected = actionlist
    got = {(m.type, m.rank, tuple(m.cards))
           for m in legal_moves(Hand(hand), level, rules=Rules.platform())}
    assert got == expected, _diff(got, expected)


def test_sec7_platform_moves_parse(actionlist):
    """RULES 7: every platform action reads back as a Move with the same triple."""
    hand, level, expected = actionlist
    for t, r, cards in expected:
        m = Move.from_platform([t, r, list(cards)], level, Rules.platform())
        assert (m.type, m.rank, m.cards) == (t, r, cards)
        assert m.cards in Hand(hand)


def test_sec9_platform_lead_list_reference(actionlist):
    """RULES 9 (platform): the slow reference also gives exactly the platform's list."""
    hand, level, expected = actionlist
    got = ref_legal_moves(_cards.parse_cards(hand), _cards.parse_level(level),
                          sf_is_bomb=True, sf_wild_any_suit=False, long_sequences=False)
    assert got == expected, _diff(got, expected)


def test_sec7_a_move_is_answered_by_its_index_in_the_platform_list(actionlist):
    """RULES 7: the platform takes an answer as an index into its actionList: each of our
    legal moves has exactly one index there, and the list's order is its own."""
    hand, level, expected = actionlist
    with open(DATA) as f:
        actions = json.load(f)["moves"]
    rules = Rules.platform()
    indices = [m.index_in(actions, level, rules)
               for m in legal_moves(Hand(hand), level, rules=rules)]
    assert sorted(indices) == list(range(len(actions)))
    for m, i in zip(legal_moves(Hand(hand), level, rules=rules), indices):
        assert Move.from_platform(actions[i], level, rules) == m
    # a move not in the list, an action that cannot be read, a list that is not one
    pair = Move.from_platform(["Pair", "9", ["D9", "D9"]], level, rules)
    with pytest.raises(ValueError, match=r"\['Pair', '9', \['D9', 'D9'\]\] is not one of the 3"):
        pair.index_in(actions[:3], level, rules)
    with pytest.raises(ValueError, match="action 1: D9 S9 is not a Pair of rank 'A'"):
        pair.index_in([actions[0], ["Pair", "A", ["D9", "S9"]]], level, rules)
    with pytest.raises(ValueError, match="action 1: unknown card 'XX'"):
        pair.index_in([actions[0], ["Pair", "9", ["S9", "XX"]]], level, rules)
    with pytest.raises(ValueError, match='action 1: a move is .type, rank, cards., not "x"'):
        pair.index_in([actions[0], "x"], level, rules)
    with pytest.raises(TypeError, match="actions must be a list of platform actions, not str"):
        pair.index_in("PASS", level, rules)
    # an action of another type or size is passed over unread, even one that is no
    # reading of its cards; one whose cards are not a list has no size, and is read
    nine = Move.from_platform(["Pair", "9", ["S9", "D9"]], level, rules)
    others = [actions[0], ["Single", "3", ["S4"]], ["Trips", "9", ["S9"]]]
    assert nine.index_in(others + [["Pair", "9", ["D9", "S9"]]], level, rules) == 3
    for cards in (5, None, "S9 D9"):
        with pytest.raises(MoveError, match=r"action 0: cards must be a list of card "
                                            r"strings, not"):
            nine.index_in([["Single", "9", cards], ["Pair", "9", ["D9", "S9"]]], level, rules)


def test_sec7_index_in_reads_level_and_rules_before_the_actions():
    """RULES 7 (API: index_in): a bad level or rules name is that argument's error, the
    same whatever the list holds (it was blamed on the first action of the move's type
    and size as a MoveError, and never named when the list had none)."""
    nine = Move.from_platform(["Pair", "9", ["S9", "D9"]], "2")
    for actions in ([["Pair", "9", ["D9", "S9"]]], [], [["PASS", "PASS", "PASS"]]):
        with pytest.raises(RulesError, match="unknown rules 'bogus'"):
            nine.index_in(actions, "2", rules="bogus")
        with pytest.raises(LevelError, match="'Z'"):
            nine.index_in(actions, "Z")


def test_sec7_index_in_passes_over_an_action_of_its_type_and_another_size():
    """RULES 4 / 7 (API: index_in): only actions of the move's own type and number of
    cards can be it, so one of another size is passed over unread, even one that is no
    reading of its cards (three cards are no pair)."""
    rules = Rules.platform()
    nine = Move.from_platform(["Pair", "9", ["S9", "D9"]], "2", rules)
    actions = [["PASS", "PASS", "PASS"], ["Pair", "9", ["S9", "D9", "C9"]],
               ["Pair", "9", ["D9", "S9"]]]
    assert nine.index_in(actions, "2", rules) == 2
    # an action of two parts has no cards: it is read, and named (not an IndexError)
    with pytest.raises(MoveError, match=re.escape("action 0: a move is [type, rank, cards], "
                                                  'not ["Single", "9"]')):
        nine.index_in([["Single", "9"], actions[2]], "2", rules)
    # the actions are a list (or tuple) of actions, nothing else that can be iterated
    for bad in ({"Pair": ["D9", "S9"]}, iter(actions), "PASS"):
        with pytest.raises(TypeError, match="actions must be a list of platform actions"):
            nine.index_in(bad, "2", rules)


def test_sec7_index_in_refuses_a_move_read_at_another_level():
    """RULES 4 / 7 (API: index_in; is_reading): a pair of 7s read at level 2 has the cards,
    type and rank of the platform's action at level 7 but not its strength, so it is not
    that action (as it is not in a level-7 position's move list); it was found at 1."""
    actions = [["PASS", "PASS", "PASS"], ["Pair", "7", ["S7", "C7"]]]
    at_two = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    assert at_two.index_in(actions, "2") == 1
    with pytest.raises(MoveError, match=re.escape("['Pair', '7', ['S7', 'C7']] is not one of "
                                                  "the 2 actions (it is not a reading of its "
                                                  "cards at level 7)")):
        at_two.index_in(actions, "7")
    assert Move.from_platform(actions[1], "7").index_in(actions, "7") == 1
