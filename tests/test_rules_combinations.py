"""One or more tests per rule of RULES.md sections 1 to 5 and the combination options of
section 9, against the public API (docs/API.md). Each test names the section it checks."""

import pickle
import random
import re
import threading

import numpy as np
import pytest

from guandan_core import (MOVE_DTYPE, CardError, Hand, LevelError, Move, MoveError, Rules, beats,
                          bomb_order_key, classify, legal_moves, moves_array)
from guandan_core.cards import parse_card, parse_level

STANDARD = Rules.standard()
PLATFORM = Rules.platform()
NO_SF = Rules(sf_is_bomb=False)
LONG = Rules(long_sequences=True)


def R(cards, level="7", rules=None):
    """The readings of exactly these cards, as a set of (type, rank)."""
    return {(m.type, m.rank) for m in classify(cards, level, rules)}


def M(type_, rank, cards, level="7", rules=None):
    return Move.from_platform([type_, rank, cards.split()], level, rules)


def triples(moves):
    return {(m.type, m.rank, tuple(m.cards)) for m in moves}


def tri(type_, rank, cards):
    return (type_, rank, tuple(Hand(cards).cards()))


# ======================================================================= section 1

def test_sec1_deck_every_card_twice():
    """RULES 1: 108 cards, every (rank, suit) twice, 2 small and 2 big jokers."""
    all_cards = [f"{s}{r}" for s in "SHCD" for r in "23456789TJQKA"] + ["SB", "HR"]
    deck = Hand(all_cards * 2)
    assert len(deck) == 108
    assert list(deck.rank_counts) == [8] * 13 + [2, 2]
    assert all(int(c) == 2 for c in deck.counts)
    with pytest.raises(CardError, match="hold S2 3 times"):
        deck + Hand("S2")


@pytest.mark.parametrize("text, expected", [
    ("ST", "ST"), ("S10", "ST"), ("10s", "ST"), ("10♠", "ST"), ("♠10", "ST"),
    ("h7", "H7"), ("7♥", "H7"), ("♥7", "H7"), ("cq", "CQ"), ("Q♣", "CQ"), ("♦A", "DA"),
    ("a♦", "DA"), ("SB", "SB"), ("BJ", "SB"), ("bj", "SB"), ("HR", "HR"), ("RJ", "HR"),
])
def test_sec1_notations(text, expected):
    """RULES 1: platform notation, 10 for T, lowercase, suit symbols, rank-first forms,
    BJ/RJ for the jokers."""
    assert Hand(text).cards() == [expected]
    assert str(Hand(text)) == expected


def test_sec1_every_card_reads_alike_in_every_notation():
    """RULES 1: the platform spelling of each of the 54 kinds (read by one lookup) and
    its other spellings (read by the general reader: lowercase, 10 for T, rank first,
    suit symbols) all give that kind."""
    from guandan_core.cards import format_card, parse_card
    symbols = dict(zip("SHCD", "♠♥♣♦"))
    hollow = dict(zip("SHCD", "♤♡♧♢"))
    for kind in range(54):
        text = format_card(kind)
        forms = [text, text.lower()]
        if kind < 52:
            suit, rank = text[0], text[1:].replace("T", "10")
            forms += [suit + rank, rank + suit, rank.lower() + suit.lower(),
                      symbols[suit] + rank, rank + symbols[suit],
                      hollow[suit] + rank, rank + hollow[suit]]
        assert {form: parse_card(form) for form in forms} == {form: kind for form in forms}


def test_sec1_a_play_names_its_rank_as_cards_do():
    """RULES 1, 7: a play's rank reads 10 for T and lowercase, as cards do; what it is read
    as is the platform's form."""
    ten = Move.from_platform(["Single", "T", ["ST"]], "7")
    assert Move.from_platform(["Single", "10", ["ST"]], "7") == ten
    assert Move.from_platform(["Pair", "a", ["SA", "ha"]], "7").to_platform() == \
        ["Pair", "A", ["SA", "HA"]]
    with pytest.raises(MoveError, match="ST is not a Single of rank '9'"):
        Move.from_platform(["Single", "9", ["ST"]], "7")


def test_sec1_platform_card_order_in_str():
    """RULES 1: cards are written in the platform's notation, sorted by rank then S H C D,
    jokers last."""
    assert str(Hand("HR SB 10d h7 S5 H7")) == "S5 H7 H7 DT SB HR"
    assert Hand("HR SB 10d h7 S5 H7").cards() == ["S5", "H7", "H7", "DT", "SB", "HR"]
    assert len(Hand("HR SB 10d h7 S5 H7")) == 6


def test_sec1_cards_separated_by_blanks_or_commas():
    """RULES 1 (notation): a card list is split at blanks and commas, in any mix; a comma
    with no card after it is refused rather than skipped, since the card may be lost."""
    assert Hand("S5,H7, SB ,\tHR") == Hand("S5 H7 SB HR")
    assert Hand("  ") == Hand([]) and Hand("") == Hand([])
    for text in ("S5,,H7", "S5, ,H7", ",S5", "S5,", " , ", ","):
        with pytest.raises(CardError, match="an empty card between commas in "
                                            + re.escape(repr(text))):
            Hand(text)


def test_sec1_order_never_matters():
    """RULES 1: a hand or a play is a multiset; order never matters."""
    assert Hand("S5 H7 SB") == Hand("SB S5 H7") == Hand(["H7", "SB", "S5"])
    assert hash(Hand("S5 H7 SB")) == hash(Hand("SB H7 S5"))
    assert R("S9 C9 H7 SB SB") == R("SB H7 SB C9 S9")


def test_sec1_hand_round_trips():
    """RULES 1: Hand(str(h)) == h, counts, pickling, arithmetic, containment."""
    rng = random.Random(1)
    deck = [k for k in range(54) for _ in range(2)]
    for _ in range(200):
        h = Hand.from_counts(np.bincount(rng.sample(deck, rng.randint(0, 27)),
                                         minlength=54).astype(np.uint8))
        assert Hand(str(h)) == h
        assert Hand(h.cards()) == h
        assert Hand.from_counts(h.counts) == h
        assert pickle.loads(pickle.dumps(h)) == h
        assert len(h) == int(h.counts.sum())
        if len(h):
            part = Hand(h.cards()[: len(h) // 2])
            assert part + (h - part) == h
            assert str(part) in h or len(part) == 0
    assert "S5 DT" in Hand("S5 DT H7")
    assert "S5 S5" not in Hand("S5 DT H7")
    with pytest.raises(CardError, match=r"the hand and the cards added together hold S5 3 "
                                        r"times \(each card exists twice\)$"):
        Hand("S5 S5 DT") + "S5"     # (no advice on numpy arrays of counts, never given)
    # three of a card are in no hand (two decks); an unknown card is an error, not "not held"
    assert "S5 S5 S5" not in Hand("S5 S5 DT") and [12, 12, 12] not in Hand("S5 S5 DT")
    for typo, named in (("XX", "unknown card 'XX'"), ("S5 S10x", "unknown card 'S10x'"),
                        (["S5", "S1"], "unknown card 'S1'"), ([54], "card kind index: 54")):
        with pytest.raises(CardError, match=re.escape(named)):
            typo in Hand("S5 DT H7")
    # cards as kinds, a Hand or a Move too; a lone int is no cards, named as what it was for
    h = Hand("S5 DT H7")
    assert [12] in h and Hand("DT") in h and Move.from_platform(["Single", "5", ["S5"]], "2") in h
    for what, op in (("looked for", lambda: 12 in h), ("added", lambda: h + 12),
                     ("taken", lambda: h - 12)):
        with pytest.raises(TypeError, match=f"the cards {what}: .* not 12"):
            op()


def test_sec1_counts_view_is_read_only():
    """RULES 1 / API: hand.counts is a read-only uint8[54] view."""
    h = Hand("S5 S5 SB")
    assert h.counts.dtype == np.uint8 and h.counts.shape == (54,)
    assert int(h.counts[12]) == 2 and int(h.counts[52]) == 1
    with pytest.raises(ValueError):
        h.counts[0] = 1
    # nor made writable again: the owning array's flag could be set back, and the hand
    # then changed under its hash
    kept = {h}
    with pytest.raises(ValueError, match="WRITEABLE"):
        h.counts.flags.writeable = True
    # nor is what it was made from: immutable bytes (the view's base was the hand's own
    # array, whose flag could be set back)
    assert isinstance(h.counts.base, bytes)
    assert h in kept and str(h) == "S5 S5 SB"


def test_sec1_cards_counts_and_card_helpers_are_told_apart_and_checked():
    """RULES 1: 54 card strings in a numpy array are cards (they were taken for counts and
    refused); True among counts given as a list is no count (numpy made it a 1); the card
    and rank helpers refuse what is no card or rank (-1 read the ace, 13 the big joker's
    kind); card text given as bytes, a dict or a number is a TypeError naming it, and so
    is text given to format_cards, which takes kinds."""
    from guandan_core.cards import (card_rank, card_suit, format_card, format_cards,
                                    format_rank, parse_cards, wild_kind)
    from guandan_core.hand import hand_batch
    deck = [format_card(k) for k in range(54)]
    for cards in (np.array(deck), np.array(deck, dtype=object)):
        assert Hand(cards) == Hand(deck) and len(Hand(cards)) == 54
    for text in (np.array(deck), np.array(deck, dtype="S")):   # (str, and bytes strings)
        with pytest.raises(CardError, match="counts must be 54 numbers"):
            Hand.from_counts(text)
    for counts in ([True] + [0] * 53, [[0] * 54, [True] + [0] * 53]):
        with pytest.raises(CardError, match="True/False is not a card count"):
            (hand_batch if isinstance(counts[0], list) else Hand.from_counts)(counts)
    assert Hand.from_counts([1] + [0] * 53) == Hand("S2")
    # a count out of range, or no whole number, is named as it was given (a numpy scalar
    # as its number), with the reason
    for counts, named in (([np.int64(3)], "S2 3 times (each card exists twice)"),
                          ([0, 0, -1], "C2 -1 times (each card exists twice)"),
                          ([0, 2.5], "H2 2.5 times (counts are whole numbers)")):
        for dtype in (None, object):
            with pytest.raises(CardError, match=re.escape(f"hand holds {named}")):
                Hand.from_counts(np.array(counts + [0] * (54 - len(counts)), dtype=dtype))
    for call, bad, error in ((format_rank, -1, LevelError), (format_rank, True, LevelError),
                             (format_rank, 13, LevelError), (wild_kind, 13, LevelError),
                             (card_rank, 60, CardError), (card_suit, -1, CardError),
                             (card_rank, 2.0, CardError), (card_rank, 54, CardError),
                             (card_suit, 54, CardError), (card_rank, -1, CardError)):
        with pytest.raises(error, match=re.escape(f"{bad!r}") + "$"):
            call(bad)
    assert (format_rank(np.int64(12)), wild_kind(np.int64(5)), card_rank(53),
            card_suit(52)) == ("A", 21, 14, -1)
    # numpy's integers (a hand's counts are indexed by them) answer Python ints
    answers = (card_rank(np.uint8(53)), card_rank(np.int64(7)), card_suit(np.uint8(7)))
    assert answers == (14, 1, 3) and all(type(a) is int for a in answers)
    # every kind's rank and suit are those its notation names (jokers: ranks 13, 14)
    for kind in range(54):
        text = format_card(kind)
        if kind < 52:
            assert (format_rank(card_rank(kind)), "SHCD"[card_suit(kind)]) == \
                (text[1], text[0])
        else:
            assert (card_rank(kind), card_suit(kind)) == ({"SB": 13, "HR": 14}[text], -1)
    for bad in (b"H7", bytearray(b"H7"), {"H7": 1}, 3, None, 2.5):   # (3: "not iterable")
        with pytest.raises(TypeError, match=re.escape(f"not {bad!r}")):
            parse_cards(bad)
    # a kind is a whole number: True was H2 (kind 1), 52.0 the small joker (kind 52)
    for bad in (True, 52.0, 1.0, "1"):
        with pytest.raises(CardError, match=re.escape(f"not a card kind index: {bad!r}")):
            format_card(bad)
    # format_cards takes kinds: text is refused whole (it blamed the letter '5' of "S5")
    for bad in ("S5", "S5 S6", 99, {1: 2}):
        with pytest.raises(TypeError, match=re.escape(f"not {bad!r}") + "$"):
            format_cards(bad)
    assert format_cards(np.array([3, 1])) == format_cards(iter([1, 3])) == ["H2", "D2"]


def test_sec1_rank_counts_and_suit_masks():
    """RULES 1 / API: 13 rank counts plus SB, HR; per-suit rank masks."""
    h = Hand("S2 S2 HA CT DT SB HR HR")
    assert list(h.rank_counts) == [2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 1, 2]
    assert tuple(h.suit_masks) == (1 << 0, 1 << 12, 1 << 8, 1 << 8)


@pytest.mark.parametrize("bad", ["X9", "S1", "Z", "S", "JJ", "H11", "B"])
def test_sec1_unknown_card_rejected(bad):
    """RULES 1: anything that is not a card raises a ValueError naming it."""
    with pytest.raises(CardError) as err:
        Hand(f"S5 {bad} H7")
    assert isinstance(err.value, ValueError)
    assert f"unknown card {bad!r}" in str(err.value)     # quoted: "S" is in most texts
    with pytest.raises(ValueError) as err2:
        classify(["S5", bad], "7")
    assert f"unknown card {bad!r}" in str(err2.value)


@pytest.mark.parametrize("bad", [" H7", "HQ ", "\nS3\n", "C5\u00a0", "S3\x1f", "\u017f5",
                                 "\u017fB", "5\u017f"])
def test_sec1_a_card_is_its_notation_alone(bad):
    """RULES 1: a card in a list is the card's text alone. Blanks around it and letters that
    only uppercase to a suit ("\u017f", the long s, uppercases to "S") were read as cards
    before; lowercase means ASCII lowercase."""
    with pytest.raises(CardError, match=re.escape(f"unknown card {bad!r}")):
        parse_card(bad)
    with pytest.raises(CardError, match=re.escape(repr(bad))):
        classify(["S5", bad], "7")


@pytest.mark.parametrize("bad", ["Q\n", " Q", "Q ", "\t7"])
def test_sec2_a_level_is_its_rank_alone(bad):
    """RULES 2: a level is a rank's text alone, like a card (blanks were stripped)."""
    with pytest.raises(LevelError, match=re.escape(repr(bad))):
        parse_level(bad)


@pytest.mark.parametrize("card", ["S5", "HR", "SB", "DA"])
def test_sec1_card_three_times_rejected(card):
    """RULES 1: every card exists twice; three copies of one card kind are no hand."""
    with pytest.raises(CardError) as err:
        Hand(f"{card} S2 {card} {card}")
    assert isinstance(err.value, ValueError)
    assert card in str(err.value)
    counts = np.zeros(54, dtype=np.uint8)
    counts[12] = 3
    with pytest.raises(CardError) as err:
        Hand.from_counts(counts)
    assert "S5" in str(err.value)
    # a play is named a play, not a hand
    with pytest.raises(CardError, match=re.escape(f"play holds {card} more than twice")):
        classify(f"{card} {card} {card}", "2")


@pytest.mark.parametrize("cards, error, named", [
    ({"S5": 1}, TypeError, "{'S5': 1}"),          # not read as its keys
    (b"S5 S6", TypeError, "b'S5 S6'"),            # not read as kind indices 83, 53, ...
    (5, TypeError, "not 5"),
    ([True, False], CardError, "True/False"),     # not read as kinds 1 and 0
    (np.full(54, 0.5), CardError, "whole numbers"),   # not truncated to no cards
    (np.full(54, 1.7), CardError, "whole numbers"),
    (np.zeros(54, dtype=bool), CardError, "whole numbers"),
    (memoryview(b"\x01\x02"), TypeError, "not <memory at"),     # as bytes: not kinds 1, 2
    # 53 counts are not a count array: read as kinds, whose error says so
    (np.zeros(53, dtype=np.uint8), CardError, "an array of shape (53,) is read as card kinds"),
    # a batch of hands is one error naming its shape, not its first row as "not a card"
    (np.zeros((2, 54), dtype=np.uint8), CardError, "a hand is one array, of 54 counts or of "
                                                   "card kinds, not an array of shape (2, 54)"),
    # 54 counts in a list (as JSON sends them) are kinds, and 54 kinds in a numpy array are
    # counts: the errors say which reading was taken (the list's said nothing of it)
    ([2, 1] + [0] * 52, CardError, "S2 more than twice (each card exists twice; a list of "
                                   "54 numbers is read as card kinds, counts go in a numpy "
                                   "array or Hand.from_counts)"),
    (np.arange(54), CardError, "holds D2 3 times (each card exists twice); a numpy array of "
                               "54 numbers is read as counts, card kinds go in a list"),
    # 54 card strings are cards: no word of numbers (they were told a list of 54 numbers
    # is read as card kinds)
    (["S2"] * 3 + [f"{s}{r}" for r in "3456789TJQKA" for s in "SHCD"] + ["SB", "SB", "HR"],
     CardError, "S2 more than twice (each card exists twice)"),
])
def test_sec1_cards_of_the_wrong_kind_are_refused(cards, error, named):
    """RULES 1: a hand is cards; other Python values are refused naming them rather than
    read in some loose way."""
    with pytest.raises(error) as err:
        Hand(cards)
    assert named in str(err.value)
    with pytest.raises(error):
        classify(cards, "7")
    assert Hand(np.ones(54)) == Hand(np.ones(54, dtype=np.uint8))   # whole floats are counts
    for bad in (None, [0] * 53):
        with pytest.raises(CardError, match="54 numbers"):
            Hand.from_counts(bad)


def test_sec9_rules_arguments_take_a_rules_a_name_or_none():
    """RULES 9 / API: a rules= argument is a Rules, a preset's name or None (the standard
    rules); anything else is named."""
    assert classify("S5 S6 S7 S8 S9", "2", "platform") == \
        classify("S5 S6 S7 S8 S9", "2", Rules.platform())
    # (a hand whose moves differ under every other preset: 106 moves, 64, 64 and 143)
    hand = "S3 S4 S5 S6 S7 S8 H2 H2"
    standard = list(legal_moves(hand, "2", rules="standard"))
    assert list(legal_moves(hand, "2", rules=None)) == list(legal_moves(hand, "2")) == standard
    assert all(list(legal_moves(hand, "2", rules=name)) != standard
               for name in ("platform", "no-sf-bomb", "long-sequences"))
    for call in (lambda: classify("S5", "2", rules=3), lambda: legal_moves("S5", "2", rules=3),
                 lambda: Move.from_platform(["Single", "5", ["S5"]], "2", rules=3)):
        with pytest.raises(TypeError, match="rules must be a Rules, a preset name or None, not 3"):
            call()
    with pytest.raises(ValueError, match="unknown rules 'bogus'"):
        classify("S5", "2", "bogus")


def test_sec4_a_move_read_at_another_level_is_not_a_move_to_beat():
    """RULES 2 / 4: H2 is wild at level 2, so [H2 C4] is a pair of 4s there and no pair at
    level 7; a Move is its reading at its own level, and legal_moves refuses one that is
    not a reading at the level asked (its record would be beaten as if it were)."""
    pair = Move.from_platform(["Pair", "4", ["H2", "C4"]], "2")
    assert legal_moves("S5 S5", "2", beat=pair).count() == 1
    with pytest.raises(MoveError, match="beat Pair 4: H2 C4 is not a reading .* at level 7"):
        legal_moves("S5 S5", "7", beat=pair)
    for bogus in (Move(5, 0, 0, [0, 1, 2]), Move(1, 3, 0, [12, 13])):
        with pytest.raises(MoveError, match="is not a reading"):
            legal_moves("S5 S5", "2", beat=bogus)
    # fields no record can hold are refused when the Move is made (a card kind of 60
    # reached Position.check as an IndexError)
    for fields, named in (((77, 3, 0, [12]), "type_id is a whole number 0..10, not 77"),
                          ((1, 12, 0, [60]), "card kind is a whole number 0..53, not 60"),
                          ((1, 12, 0, [-1]), "not -1"), ((1, 99, 0, [3]), "label"),
                          ((1, 17, 0, [3]), "label"), ((1, -1, 0, [3]), "label"),
                          ((1, 12, 0, [3.0]), "not 3.0"), ((1, 12, 0, [True]), "not True"),
                          ((5, 0, 0, range(11)), "at most 10 cards, not 11"),
                          ((1, 12, 0, [3], ["Z"]), "not ('Z',)"),
                          ((1, 12, 0, [3], [["S7"]]), "not ([\'S7\'],)"),
                          ((1, 12, 0, [3], ["4", "5"]),
                           "2 wild readings ('4', '5') for 1 card(s)"),
                          # RULES 3: a level has two wild hearts, so at most two readings
                          ((5, 0, 0, [0, 1, 2], ["4", "4", "4"]),
                           "wild_as holds at most two"),
                          # a "pass" with a rank or cards: is_pass took it for one
                          ((0, 3, 0, [4, 5]), "not label 3, key 0, cards [4, 5]"),
                          ((0, 16, 0, [4]), "cards [4]"), ((0, 16, 7, []), "key 7"),
                          # no list at all (tuple(None) named nothing)
                          ((1, 12, 0, None), "kinds must be a list of values, not None"),
                          ((1, 12, 0, [3], 5), "wild_as must be a list of values, not 5")):
        with pytest.raises(MoveError, match=re.escape(named)):
            Move(*fields)
    # Same cards, type and rank, another strength: a pair of 7s is below 8s at level 2 and
    # above aces at level 7, so read at 2 it must not let a pair of aces beat it at 7.
    sevens = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    assert [str(m) for m in legal_moves("SA CA", "2", beat=sevens)] == ["Pair A: SA CA"]
    with pytest.raises(MoveError, match="beat Pair 7: S7 C7 is not a reading .* at level 7"):
        legal_moves("SA CA", "7", beat=sevens)
    wild_seven = Move.from_platform(["Single", "7", ["H7"]], "7")   # the top single at 7
    with pytest.raises(MoveError, match="at level 2"):
        legal_moves("S8 S9", "2", beat=wild_seven)
    with pytest.raises(TypeError, match="Move.parse reads text"):
        Move.parse(None, "2")
    assert Move.parse(" pass ", "2") is Move.PASS
    with pytest.raises(MoveError, match="paß"):      # "paß".upper() is "PASS"
        Move.parse("paß", "2")
    for bad in ("Pair: S4 D4", "Pair 4 S4 D4", "Pair 4 x: S4 D4", ":", "Pair 4"):
        with pytest.raises(MoveError, match=re.escape(f"a move is written 'Type rank: cards', "
                                                      f"not {bad!r}")):
            Move.parse(bad, "2")


@pytest.mark.parametrize("bad", ["1", "Z", "11", "B", 13, -1, "SB", True, False])
def test_sec2_bad_level_rejected(bad):
    """RULES 2: a level is a rank from 2 to A."""
    with pytest.raises(LevelError) as err:
        legal_moves(Hand("S5 S6"), bad).count()
    assert isinstance(err.value, ValueError)
    assert str(bad) in str(err.value)
    with pytest.raises(LevelError) as err:
        classify("S5", bad)
    assert str(bad) in str(err.value)
    with pytest.raises(LevelError):
        moves_array(Hand("S5 S6"), bad)


def test_sec1_removing_cards_not_in_hand():
    """RULES 1: playing cards not in the hand raises a ValueError naming them."""
    h = Hand("S5 S6 H7 SB")
    with pytest.raises(CardError) as err:
        h - "S9"
    assert isinstance(err.value, ValueError)
    assert "S9" in str(err.value)
    with pytest.raises(CardError) as err:
        h - M("Pair", "B", "SB SB")
    assert "SB" in str(err.value)
    with pytest.raises(CardError) as err:
        h - M("Pair", "9", "S9 C9")
    assert "S9" in str(err.value) and "C9" in str(err.value)
    assert h - M("Single", "B", "SB") == Hand("S5 S6 H7")
    # only the cards missing are named, not those the hand holds
    with pytest.raises(CardError, match=re.escape("cards not in the hand: S9 SK (hand: ")):
        h - "S5 S9 SK SB"


def test_sec1_hand_equality_copies_and_sizes():
    """RULES 1 / API (Hand, player_hand): a Hand equals only a Hand (never its text); the
    counts to_counts gives of a Hand are the caller's own copy, which leaves the hand
    alone; bytes of any kind are no cards (a bytearray was read as card kinds); a
    player's hand holds 1 to 27 cards (27 to each of 4 players)."""
    from guandan_core.hand import MAX_HAND, player_hand, to_counts
    h = Hand("S5 S5 SB")
    assert h != "S5 S5 SB" and not h == "S5 S5 SB"
    counts = to_counts(h)
    counts[parse_card("S5")] = 0
    assert str(h) == "S5 S5 SB" and int(counts.sum()) == 1
    for bad in (b"\x00\x01", bytearray(b"\x00\x01")):
        with pytest.raises(TypeError, match=re.escape(f"not {bad!r}")):
            Hand(bad)
    deck = [f"{s}{r}" for s in "SHCD" for r in "23456789TJQKA"]
    assert MAX_HAND == 27 and len(player_hand(deck[:27])) == 27
    # repr is Python that makes the hand again (as a Position's is, API)
    assert repr(h) == "Hand('S5 S5 SB')" and eval(repr(h)) == h
    with pytest.raises(CardError, match="holds 28 cards; a hand holds at most 27"):
        player_hand(deck[:28])


def test_sec4_move_from_platform_bad_reading():
    """RULES 4: a declared reading the cards do not have is refused (MoveError)."""
    for triple in (["Pair", "5", ["S5", "S6"]], ["Straight", "5", ["S5", "S6", "S7", "S8", "SK"]],
                   ["Bomb", "JOKER", ["SB", "SB", "HR", "H7"]], ["ThreeWithTwo", "SB",
                                                                  ["S9", "C9", "D9", "SB", "HR"]],
                   ["Trips", "9", ["S9", "C9", "D9", "D9"]]):
        with pytest.raises(MoveError) as err:
            Move.from_platform(triple, "7")
        assert isinstance(err.value, ValueError)
        assert triple[0] in str(err.value) and str(triple[1]) in str(err.value)
    with pytest.raises(MoveError) as err:
        Move.from_platform(["Pear", "5", ["S5", "H5"]], "7")
    assert "Pear" in str(err.value)
    with pytest.raises(ValueError) as err:
        Move.from_platform(["Pair", "5", ["S5", "X5"]], "7")
    assert "X5" in str(err.value)


@pytest.mark.parametrize("triple, named", [
    (["Single", 9, ["S9"]], "9"),                 # the platform's ranks are strings
    (["Single", "A", {"SA": 1}], '{"SA": 1}'),    # not read as the dict's keys
    (["Single", "A", [12]], "[12]"),              # not read as a card kind index
    (["Single", "A", 5], "5"),
    ([["Single"], "A", ["SA"]], '["Single"]'),    # (in JSON's words, as it came)
    (["Single", None, ["SA"]], "not null in"),
    (["PASS", "PASS", {}], "{}"),
    (["PASS", "PASS", ""], '""'),      # (the action quoted as the JSON it came as)
    (["PASS", "PASS", 5], "5"),
    (["PASS", "A", "PASS"], '"A"'),
    # numpy arrays compare element by element: numpy's "truth value is ambiguous" before
    ([np.array(["S3", "S4"]), "3", ["S3"]], "array(['S3', 'S4']"),
    (["PASS", np.array([1]), None], "array([1])"),
    (["PASS", "PASS", np.array(["S3"])], "array(['S3']"),
    # a dict's three keys and an iterator's items were unpacked as a move (Single 3)
    ({"Single": 0, "3": 0, ("S3",): 0}, "a move is [type, rank, cards], not {'Single': 0"),
    (iter(["Single", "3", ["S3"]]), "a move is [type, rank, cards], not <list_iterator"),
])
def test_sec4_move_from_platform_wrong_types_are_named(triple, named):
    """RULES 4 / 7: an action is [type, rank, cards] of strings and a list of card
    strings; anything else is a MoveError quoting it, never read loosely or a TypeError."""
    with pytest.raises(MoveError) as err:
        Move.from_platform(triple, "7")
    assert named in str(err.value)


def test_sec4_move_from_platform_random_actions_are_moves_or_move_errors():
    """RULES 4 / 7: 20,000 random actions (real and junk types, ranks and cards; unknown
    cards, a card three times, the wrong number of parts) read as a move with the
    declared type and rank or raise a one-line MoveError; an unreadable card was a
    CardError, which a bot catching MoveError for the platform's actions missed. A huge
    action is quoted short."""
    import random
    types = ["Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair", "TwoTrips",
             "StraightFlush", "Bomb", "PASS", "single", "", None, 5]
    ranks = ["2", "3", "T", "10", "A", "JOKER", "B", "R", "PASS", None, "", "x", 3, "a"]
    cards = ["S3", "H2", "SB", "HR", "DT", "S10", "x", "", None, 5, "PASS", "CA", "HA", "S2"]
    rng = random.Random(4)
    read = refused = 0
    for _ in range(20000):
        action = [rng.choice(types), rng.choice(ranks),
                  [rng.choice(cards) for _ in range(rng.randint(0, 10))]
                  if rng.random() < 0.9 else rng.choice(cards)]
        if rng.random() < 0.05:
            action = action[:rng.randint(0, 2)]
        try:
            move = Move.from_platform(action, rng.choice(["2", "7", "A"]))
        except MoveError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 600, (action, str(exc))
            refused += 1
            continue
        if not move.is_pass:
            assert move.type == action[0]
            assert move.rank == ("T" if action[1] == "10" else action[1].upper())
        read += 1
    assert read > 20 and refused > 15000
    with pytest.raises(MoveError) as err:
        Move.from_platform(["Single", "3", ["x"] * 100_000], "2")
    assert len(str(err.value)) < 600
    # cards that are no such move are named, a long list shortened with its full length:
    # the whole deck (sec. 1) is 108 two-letter cards and 107 blanks, 323 characters
    deck = [f"{s}{r}" for s in "SHCD" for r in "23456789TJQKA"] * 2 + ["SB", "HR"] * 2
    with pytest.raises(MoveError, match=re.escape("(323 characters) is not a Bomb of rank "
                                                  "'9' at level 2")) as err:
        Move.from_platform(["Bomb", "9", deck], "2")
    assert len(str(err.value)) < 200
    with pytest.raises(MoveError, match=re.escape("no cards is not a Pair of rank '9'")):
        Move.from_platform(["Pair", "9", []], "2")


def test_sec4_move_from_platform_pass_spellings():
    for rank in ("PASS", None):
        for cards in ("PASS", None, [], ()):
            assert Move.from_platform(["PASS", rank, cards], "7") is Move.PASS
    for bad in (["PASS", "3", None], ["PASS", "PASS", ["S3"]], ["PASS", [], None]):
        with pytest.raises(MoveError, match="malformed pass"):
            Move.from_platform(bad, "7")


def test_a_pass_is_read_only_at_a_good_level_and_rules():
    """API ("every level= argument", "every rules= argument"): the pass needs neither, but
    a bad level or rules is refused for it as for any move, naming the value (a review
    helper found 1.5, True, "Z" and rules=5 taken silently for a pass)."""
    from guandan_core.cards import LevelError
    from guandan_core.rules import RulesError
    reads = (lambda level, rules: Move.from_platform(["PASS", "PASS", "PASS"], level, rules),
             lambda level, rules: Move.parse("PASS", level, rules),
             lambda level, rules: Move.parse("Single 3: S3", level, rules))
    for read in reads:
        for level, rules, error, named in ((1.5, None, LevelError, "not 1.5"),
                                           (True, None, LevelError, "not True"),
                                           ("Z", None, LevelError, "not 'Z'"),
                                           ("2", "nope", RulesError, "unknown rules 'nope'"),
                                           ("2", 5, TypeError, "not 5")):
            with pytest.raises(error, match=re.escape(named)):
                read(level, rules)
        assert read("A", "platform") in (Move.PASS, Move.parse("Single 3: S3", 12))


def test_sec7_move_platform_round_trip():
    """RULES 7: Move.from_platform(m.to_platform(), level) == m for every enumerated move."""
    rng = random.Random(7)
    deck = [f"{s}{r}" for s in "SHCD" for r in "23456789TJQKA"] * 2 + ["SB", "HR"] * 2
    for _ in range(60):
        level = rng.choice("23456789TJQKA")
        hand = Hand(rng.sample(deck, 10) + [f"H{level}"] * rng.randint(0, 1))
        for rules in (STANDARD, PLATFORM, LONG):
            for m in legal_moves(hand, level, rules=rules):
                p = m.to_platform()
                assert isinstance(p, list) and len(p) == 3
                assert p[0] == m.type and p[1] == m.rank and p[2] == list(m.cards)
                assert Move.from_platform(p, level, rules) == m
                assert pickle.loads(pickle.dumps(m)) == m
    assert Move.from_platform(["PASS", "PASS", "PASS"], "7") == Move.PASS
    assert Move.PASS.to_platform() == ["PASS", "PASS", "PASS"]


def test_sec7_move_value_semantics():
    """RULES 4/7: a move is (cards, reading): equal and hashed on (type, rank, cards)."""
    a = M("Pair", "9", "S9 H7")
    b = M("Pair", "9", "H7 S9")
    assert a == b and hash(a) == hash(b)
    assert a != M("Pair", "9", "C9 H7")
    s = M("Straight", "5", "S5 S6 H7 S8 S9")
    f = M("StraightFlush", "5", "S5 S6 H7 S8 S9")
    assert s != f and s.cards == f.cards
    assert s.type == "Straight" and s.rank == "5" and not s.is_bomb
    assert f.is_bomb and len(f) == 5
    assert f.kinds == tuple(sorted(f.kinds))
    assert f.cards == ("S5", "S6", "H7", "S8", "S9")
    assert Move.PASS.is_pass and not Move.PASS.is_bomb and len(Move.PASS) == 0


class ScoredMove(Move):
    """A Move subclass with an attribute of its own (module level, so pickle finds it)."""


def test_sec7_a_move_subclass_survives_pickle_and_copy(monkeypatch):
    """API (Move: picklable value object): a subclass comes back from pickle and copy as
    itself, with its own attributes, however the move was made (it came back as a plain
    Move, its attributes dropped)."""
    import copy
    import pickle
    record = M("Pair", "9", "S9 H7").record().tobytes()
    from_record = ScoredMove.from_bytes(record)[0]
    plain = M("Pair", "9", "S9 H7")
    from_fields = ScoredMove(plain.type_id, plain.label, plain.key, plain.kinds, plain.wild_as)
    for move in (from_record, from_fields):
        move.score = 5
        for back in (pickle.loads(pickle.dumps(move)), copy.copy(move), copy.deepcopy(move)):
            assert type(back) is ScoredMove and back == move == plain
            assert back.score == 5 and back.cards == plain.cards
            assert back.record().tobytes() == move.record().tobytes()
            with pytest.raises(AttributeError, match="immutable"):
                back.key = 3
    # a plain Move still comes back as a plain Move, with no attributes to carry, and its
    # pickle is as it was: an earlier version, whose reader took the record alone, reads it
    back = pickle.loads(pickle.dumps(plain))
    assert type(back) is Move and back == plain and not hasattr(back, "__dict__")
    import guandan_core.moves as moves_module
    blobs = [pickle.dumps(m) for m in (plain, Move(*(getattr(plain, f) for f in
                                                    ("type_id", "label", "key", "kinds",
                                                     "wild_as"))))]
    monkeypatch.setattr(moves_module, "_move_of_record", lambda raw: Move.from_bytes(raw)[0])
    assert [pickle.loads(b) for b in blobs] == [plain, plain]


@pytest.mark.parametrize("made", ["platform", "legal", "fields", "pickled", "subclass"])
def test_sec7_a_move_cannot_be_changed(made):
    """API (Move: "immutable value object"): no field of a move can be set or deleted,
    however it was made (its fields were plain writable slots: a move changed in place
    left the sets holding it, and Move.PASS, every pass of the process, could be made no
    move at all)."""
    import pickle
    if made == "platform":
        move = M("Pair", "9", "S9 H7")
    elif made == "legal":
        move = [m for m in legal_moves("S9 H7 S3", "7") if m.type == "Pair"][0]
    elif made == "fields":
        move = Move(M("Pair", "9", "S9 H7").type_id, M("Pair", "9", "S9 H7").label, 0, (36, 20))
    elif made == "pickled":
        move = pickle.loads(pickle.dumps(M("Pair", "9", "S9 H7")))
    else:
        class Sub(Move):
            pass
        move = Sub.from_bytes(M("Pair", "9", "S9 H7").record().tobytes())[0]
        assert type(move) is Sub
    held = {move}
    before = (move.type_id, move.label, move.key, move.kinds, move.wild_as)
    for name in ("type_id", "label", "key", "kinds", "wild_as", "_raw", "_record"):
        with pytest.raises(AttributeError, match=f"a Move is immutable: {name} cannot be set"):
            setattr(move, name, (12, 13))
        with pytest.raises(AttributeError, match="immutable"):
            delattr(move, name)
    # other names: a Move has none (no __dict__), a subclass may have its own
    if made == "subclass":
        move.score = 5
        assert move.score == 5
    else:
        with pytest.raises(AttributeError):
            move.score = 5
    assert (move.type_id, move.label, move.key, move.kinds, move.wild_as) == before
    assert move in held and move.record() is move.record()
    with pytest.raises(AttributeError, match="immutable"):
        Move.PASS.key = 7
    assert Move.from_record(Move.PASS.record()).is_pass


def test_sec7_a_moves_counts_record_and_text():
    """RULES 1 / 7 / API (Move): a move's counts are its cards (each card kind counted as
    many times as it is played); its record is its 18 bytes, read-only, and reads back
    from them as bytes, a bytearray or a memoryview; the pass is written PASS."""
    pair = M("Pair", "4", "H2 C4", level="2")        # H2 wild at level 2
    counts = pair.counts()
    assert counts.shape == (54,) and int(counts.sum()) == 2
    assert counts[parse_card("H2")] == 1 and counts[parse_card("C4")] == 1
    bomb = M("Bomb", "9", "S9 S9 C9 D9")
    assert bomb.counts()[parse_card("S9")] == 2 and int(bomb.counts().sum()) == 4
    rec = pair.record()
    assert len(rec) == MOVE_DTYPE.itemsize == 18 and not rec.flags.writeable
    with pytest.raises(ValueError):
        rec[0] = 0
    for raw in (rec.tobytes(), bytearray(rec.tobytes()), memoryview(rec.tobytes())):
        back = Move.from_record(raw)
        assert (back, back.key, back.wild_as) == (pair, pair.key, ("4",))
    assert str(Move.PASS) == "PASS" and Move.parse(str(Move.PASS), "2") is Move.PASS
    # made from its fields, a move's cards are a multiset: in any order, the same move
    five = parse_card("S5")
    made = Move(2, 3, 0, [five + 1, five])       # type 2 Pair, label 3 the rank 5 (sec. 1)
    assert made.kinds == (five, five + 1) and made == M("Pair", "5", "H5 S5")
    assert made.cards == ("S5", "H5") and hash(made) == hash(M("Pair", "5", "S5 H5"))


def test_sec4_cards_no_hand_holds_are_no_reading():
    """RULES 1 / 4 (API: checked_reading, is_reading): a Move made from fields whose cards
    hold one card three times (each card exists twice) is no reading of its cards: False,
    and a MoveError naming it, not the cards' CardError."""
    from guandan_core.moves import checked_reading, is_reading
    s2 = parse_card("S2")
    thrice = Move(3, 0, 0, [s2, s2, s2])         # "Trips 2: S2 S2 S2"
    assert is_reading(thrice, "2") is False
    with pytest.raises(MoveError, match=re.escape("move Trips 2: S2 S2 S2 is not a reading")):
        checked_reading(thrice, "2")


# ======================================================================= section 2

LEVELS = "23456789TJQKA"


@pytest.mark.parametrize("level", list(LEVELS))
def test_sec2_card_order_at_every_level(level):
    """RULES 2: 2..A with L taken out, then L, then SB, then HR (singles, pairs, triples,
    full houses and bombs all follow it)."""
    order = [r for r in LEVELS if r != level] + [level]
    singles = [M("Single", r, f"S{r}", level) for r in order]
    singles += [M("Single", "B", "SB", level), M("Single", "R", "HR", level)]
    for i, a in enumerate(singles):
        for j, b in enumerate(singles):
            assert beats(a, b) == (i > j), (a, b)
    pairs = [M("Pair", r, f"S{r} C{r}", level) for r in order]
    pairs += [M("Pair", "B", "SB SB", level), M("Pair", "R", "HR HR", level)]
    for i in range(len(pairs) - 1):
        assert beats(pairs[i + 1], pairs[i]) and not beats(pairs[i], pairs[i + 1])
    trips = [M("Trips", r, f"S{r} C{r} D{r}", level) for r in order]
    fhs = [M("ThreeWithTwo", r, f"S{r} C{r} D{r} SB SB", level) for r in order]
    bombs = [M("Bomb", r, f"S{r} C{r} D{r} S{r}", level) for r in order]
    for seq in (trips, fhs, bombs):
        for i in range(len(seq) - 1):
            assert beats(seq[i + 1], seq[i]) and not beats(seq[i], seq[i + 1])


def test_sec2_example_level_7():
    """RULES 2: at level 7, ... K < A < 7 < SB < HR."""
    chain = [M("Single", "K", "SK"), M("Single", "A", "SA"), M("Single", "7", "S7"),
             M("Single", "B", "SB"), M("Single", "R", "HR")]
    for lo, hi in zip(chain, chain[1:]):
        assert beats(hi, lo) and not beats(lo, hi)
    assert beats(M("Single", "8", "S8"), M("Single", "6", "S6"))


def test_sec2_level_rank_at_natural_place_in_sequences():
    """RULES 2: in sequences the level rank sits at its natural place."""
    assert R("S5 C6 D7 S8 C9") == {("Straight", "5")}
    assert R("S6 C6 S7 C7 S8 C8") == {("ThreePair", "6")}
    assert R("S7 C7 D7 S8 C8 D8") == {("TwoTrips", "7")}
    assert R("S3 S4 S5 S6 S7") == {("StraightFlush", "3")}
    # ranked by natural place: 34567 < 45678 although 7 is the level
    assert beats(M("Straight", "4", "S4 C5 D6 S7 C8"), M("Straight", "3", "S3 C4 D5 S6 C7"))
    assert beats(M("Straight", "8", "S8 C9 DT SJ CQ"), M("Straight", "7", "S7 C8 D9 ST CJ"))


def test_sec2_ace_high_or_low():
    """RULES 2: A may count as 1 (below 2); A2345 lowest, TJQKA highest straight."""
    assert R("SA H2 C3 D4 S5", "9") == {("Straight", "A")}
    assert R("ST HJ CQ DK SA", "9") == {("Straight", "T")}
    assert R("SA HA S2 H2 S3 H3", "9") == {("ThreePair", "A")}
    assert R("SQ HQ SK HK SA HA", "9") == {("ThreePair", "Q")}
    assert R("SA HA CA S2 H2 C2", "9") == {("TwoTrips", "A")}
    assert R("SK HK CK SA HA CA", "9") == {("TwoTrips", "K")}
    assert R("SA S2 S3 S4 S5", "9") == {("StraightFlush", "A")}
    low = M("Straight", "A", "SA H2 C3 D4 S5", "9")
    high = M("Straight", "T", "ST HJ CQ DK SA", "9")
    assert beats(high, low) and not beats(low, high)
    assert beats(M("Straight", "2", "S2 H3 C4 D5 S6", "9"), low)


def test_sec2_sequences_never_wrap():
    """RULES 2: Q K A 2 3 is nothing; nor are wrapped tubes and plates."""
    assert R("SQ HK CA D2 S3") == set()
    assert R("SJ HQ CK DA S2") == set()
    assert R("SK HA C2 D3 S4", "9") == set()
    assert R("SK HK SA HA S2 H2", "9") == set()
    assert R("SK HK CK S2 H2 C2", "9") == set()
    assert R("SQ SK SA S2 S3", "9") == set()


def test_sec2_sequences_never_contain_jokers():
    """RULES 2: sequences never contain a joker."""
    assert R("S3 S4 S5 S6 SB") == set()
    assert R("S3 H3 S4 H4 SB SB") == set()
    assert R("S3 H3 C3 SB SB HR") == set()


# ======================================================================= section 3

def test_sec3_wild_examples():
    """RULES 3/4: S5 S6 H7 S8 S9 (straight and straight flush), S9 C9 D9 H7 H7 (full house
    or bomb), S9 C9 H7 SB SB (full house of 9s over small jokers), at level 7."""
    assert R("S5 S6 H7 S8 S9") == {("Straight", "5"), ("StraightFlush", "5")}
    assert R("S9 C9 D9 H7 H7") == {("ThreeWithTwo", "9"), ("Bomb", "9")}
    assert R("S9 C9 H7 SB SB") == {("ThreeWithTwo", "9")}


def test_sec3_wild_is_the_heart_of_the_level():
    """RULES 3: only the hearts of rank L are wild."""
    assert R("S7 SA") == set()              # a spade 7 is not wild
    assert R("H7 SA") == {("Pair", "A")}
    assert R("H7 SA", "8") == set()         # H7 is natural at level 8
    assert R("H8 SA", "8") == {("Pair", "A")}
    assert R("S5 S6 H7 S8 S9", "8") == {("Straight", "5")}


def test_sec3_wild_any_rank_any_suit():
    """RULES 3: a wild may stand for any non-joker card of any rank and suit, in any
    combination type (also itself)."""
    assert R("H7 S7") == {("Pair", "7")}
    assert R("H7 H7 SA") == {("Trips", "A")}
    assert R("H7 SA HA CA") == {("Bomb", "A")}
    assert R("H7 S3 H3 S4 H4 S5") == {("ThreePair", "3")}
    assert R("H7 S3 H3 C3 S4 H4") == {("TwoTrips", "3")}
    assert R("H7 H7 S3 S4 S6") == {("Straight", "2"), ("Straight", "3"),
                                   ("StraightFlush", "2"), ("StraightFlush", "3")}
    assert R("H7 S5 S6 S8 S9") == R("S5 S6 H7 S8 S9")
    assert R("H7 H5 H6 H8 H9") == {("Straight", "5"), ("StraightFlush", "5")}
    # wild as a 10th card of a rank
    assert R("S9 S9 H9 H9 C9 C9 D9 D9 H7 H7") == {("Bomb", "9")}


def test_sec3_wild_as_attribute():
    """RULES 3: a move records what each wild stands for: a rank (any suit) where the
    suit cannot matter, a card where it does (a straight flush)."""
    assert M("Pair", "A", "H7 SA").wild_as == ("A",)
    assert M("StraightFlush", "5", "S5 S6 H7 S8 S9").wild_as == ("S7",)
    assert M("Straight", "5", "S5 S6 H7 S8 S9").wild_as == ("7",)
    assert M("Straight", "5", "S5 S6 C7 H7 S9", "7").wild_as == ("8",)
    assert M("Pair", "9", "S9 C9").wild_as == ()


def test_sec3_wild_as_of_two_wilds():
    """RULES 3: each wild stands for a card of its own choosing, so a move with both wilds
    records a reading for each (the second is not lost to the first)."""
    assert M("Bomb", "9", "S9 C9 H7 H7").wild_as == ("9", "9")
    assert sorted(M("Straight", "5", "S5 S6 H7 H7 S9").wild_as) == ["7", "8"]
    assert sorted(M("ThreeWithTwo", "9", "S9 C9 H7 S4 H7").wild_as) == ["4", "9"]
    assert sorted(M("StraightFlush", "5", "S5 S6 H7 H7 S9").wild_as) == ["S7", "S8"]
    assert sorted(M("ThreePair", "3", "S3 H3 S4 H7 H7 D5", "7").wild_as) == ["4", "5"]


def test_sec3_only_wilds_face_value():
    """RULES 3: one wild is a single of L, two wilds a pair of L."""
    assert R("H7") == {("Single", "7")}
    assert R("H7 H7") == {("Pair", "7")}
    assert R("HA HA", "A") == {("Pair", "A")}
    assert triples(legal_moves(Hand("H7 H7"), "7")) == {
        tri("Single", "7", "H7"), tri("Pair", "7", "H7 H7")}


def test_sec3_wild_never_a_joker():
    """RULES 3: no joker pair or joker bomb uses a wild."""
    assert R("H7 SB") == set()
    assert R("H7 HR") == set()
    assert R("H7 SB HR HR") == set()
    assert R("H7 H7 SB SB") == set()
    assert R("SB SB HR HR") == {("Bomb", "JOKER")}
    moves = triples(legal_moves(Hand("H7 H7 SB HR HR"), "7"))
    assert not any(t[1] == "JOKER" for t in moves)
    assert tri("Pair", "B", "H7 SB") not in moves


def test_sec3_jokers_with_wilds_where_joker_is_itself():
    """RULES 3: jokers still combine with wilds: full house of 9s over small jokers."""
    moves = triples(legal_moves(Hand("S9 C9 H7 SB SB"), "7"))
    assert moves == {
        tri("Single", "9", "S9"), tri("Single", "9", "C9"), tri("Single", "7", "H7"),
        tri("Single", "B", "SB"),
        tri("Pair", "9", "S9 C9"), tri("Pair", "9", "S9 H7"), tri("Pair", "9", "C9 H7"),
        tri("Pair", "B", "SB SB"),
        tri("Trips", "9", "S9 C9 H7"),
        tri("ThreeWithTwo", "9", "S9 C9 H7 SB SB"),
    }


# ======================================================================= section 4

def test_sec4_single():
    """RULES 4: a single is 1 card (jokers included)."""
    assert R("S3") == {("Single", "3")}
    assert R("SB") == {("Single", "B")}
    assert R("HR") == {("Single", "R")}


def test_sec4_pair():
    """RULES 4: 2 of one rank; jokers pair only as SB SB or HR HR."""
    assert R("S3 D3") == {("Pair", "3")}
    assert R("S3 S3") == {("Pair", "3")}
    assert R("SB SB") == {("Pair", "B")}
    assert R("HR HR") == {("Pair", "R")}
    assert R("SB HR") == set()
    assert R("S3 S4") == set()


def test_sec4_trips():
    """RULES 4: 3 of one rank, never jokers."""
    assert R("S3 D3 H3") == {("Trips", "3")}
    assert R("SB SB HR") == set()
    assert R("SB HR HR") == set()
    assert R("S3 D3 H4") == set()


def test_sec4_full_house():
    """RULES 4: a triple plus a pair of a different rank; the pair may be a joker pair;
    compared by the triple only."""
    assert R("S3 D3 H3 SK HK") == {("ThreeWithTwo", "3")}
    assert R("S3 D3 H3 SB SB") == {("ThreeWithTwo", "3")}
    assert R("S3 D3 H3 HR HR") == {("ThreeWithTwo", "3")}
    assert R("S3 D3 H3 SB HR") == set()
    assert R("S3 D3 H3 SK HA") == set()
    assert R("S9 C9 D4 C4 H7") == {("ThreeWithTwo", "9"), ("ThreeWithTwo", "4")}
    # sec. 3: the wild may complete the pair (S4 + H7 as a 4); one wild cannot make 4s a
    # triple (only the crosscheck caught a full house whose pair never holds a wild)
    assert R("S9 C9 D9 S4 H7") == {("ThreeWithTwo", "9")}
    assert beats(M("ThreeWithTwo", "4", "S4 H4 C4 S2 H2"),
                 M("ThreeWithTwo", "3", "S3 H3 C3 SA HA"))
    assert not beats(M("ThreeWithTwo", "3", "S3 H3 C3 HR HR"),
                     M("ThreeWithTwo", "3", "S3 H3 D3 S2 H2"))


def test_sec4_five_of_a_rank_is_a_bomb_never_a_full_house():
    """RULES 4: five cards of one rank are a bomb, never a full house."""
    assert R("S9 S9 C9 D9 H9") == {("Bomb", "9")}
    assert R("S9 C9 D9 H9 H7") == {("Bomb", "9")}


def test_sec4_full_house_pair_of_two_wilds_is_another_rank():
    """RULES 4: the pair of a full house differs from the triple's rank, also when the pair
    is the two wilds (sec. 3: they may stand for any rank, but not the triple's)."""
    for level in ("7", "9", "A"):
        wild = "H" + level
        houses = [m for m in classify(f"S2 C2 D2 {wild} {wild}", level)
                  if m.type == "ThreeWithTwo"]
        assert [m.rank for m in houses] == ["2"]
        assert len(houses[0].wild_as) == 2 and "2" not in houses[0].wild_as


def test_sec4_straight():
    """RULES 4: exactly 5 consecutive ranks, any suits."""
    assert R("S3 H4 C5 D6 S8", "7") == set()
    assert R("S3 H4 C5 D6", "9") == set()
    assert R("S3 H4 C5 D6 S7 H8", "9") == set()
    assert R("S3 H4 C5 D6 S7", "9") == {("Straight", "3")}
    assert R("S3 H4 C5 D6 S6", "9") == set()


def test_sec4_tube_and_plate():
    """RULES 4: a tube is exactly 3 consecutive pairs; a plate exactly 2 consecutive
    triples."""
    assert R("S3 H3 S4 H4 S5 H5") == {("ThreePair", "3")}
    assert R("S3 H3 S4 H4") == set()
    assert R("S3 H3 S4 H4 S5 H5 S6 H6") == set()
    assert R("S3 H3 S4 H4 S6 H6") == set()
    assert R("S3 H3 C3 S4 H4 C4") == {("TwoTrips", "3")}
    assert R("S3 H3 C3 S5 H5 C5") == set()
    assert R("S3 H3 C3 S4 H4 C4 S5 H5 C5") == set()
    # sec. 3, level 7: two wilds as a pair of 2s or of 5s around 33 44, or one each to make
    # 333 444 (a tube whose pair is two wilds was caught only by the crosscheck)
    assert R("S3 H3 S4 H4 H7 H7") == {("ThreePair", "2"), ("ThreePair", "3"),
                                       ("TwoTrips", "3")}


def test_sec4_straight_flush_without_wild_is_only_a_straight_flush():
    """RULES 4: five consecutive cards of one suit, no wild: a straight flush only."""
    assert R("D3 D4 D5 D6 D7", "9") == {("StraightFlush", "3")}
    assert R("ST SJ SQ SK SA", "9") == {("StraightFlush", "T")}
    moves = triples(legal_moves(Hand("D3 D4 D5 D6 D7"), "9"))
    assert tri("StraightFlush", "3", "D3 D4 D5 D6 D7") in moves
    assert tri("Straight", "3", "D3 D4 D5 D6 D7") not in moves


def test_sec4_bombs_4_to_10():
    """RULES 4: 4 to 10 cards of one rank (more than 8 only with wilds), at most 8 for L."""
    for n in range(4, 9):
        cards = " ".join(["S9", "H9", "C9", "D9"] * 2)
        assert R(" ".join(cards.split()[:n])) == {("Bomb", "9")}
    eight = "S9 H9 C9 D9 S9 H9 C9 D9"
    assert R(eight + " H7") == {("Bomb", "9")}
    assert R(eight + " H7 H7") == {("Bomb", "9")}
    assert R("S7 S7 H7 H7 C7 C7 D7 D7") == {("Bomb", "7")}
    hand = Hand("S7 S7 H7 H7 C7 C7 D7 D7")
    assert max(len(m) for m in legal_moves(hand, "7")) == 8
    assert R("S9 H9 C9 D9 S8") == set()


def test_sec4_joker_bomb():
    """RULES 4: the joker bomb is exactly SB SB HR HR, platform rank JOKER."""
    assert R("SB SB HR HR") == {("Bomb", "JOKER")}
    m = M("Bomb", "JOKER", "SB SB HR HR")
    assert m.is_bomb and m.type == "Bomb" and m.rank == "JOKER"
    assert R("SB SB HR HR S3") == set()


def test_sec4_not_plays():
    """RULES 4: three jokers, a small with a big joker, and anything not in the table are
    not plays."""
    for cards in ("SB SB HR", "SB HR", "S3 S5", "S3 S3 S4", "S3 S3 S4 S4", "S3 S4 S5",
                  "S3 H3 C3 S4 S5", "S3 H3 C3 D3 S4 H4", "S3 S3 S4 S4 S5", "S2 S3 S4 S5 S6 S7"):
        assert R(cards, "9") == set(), cards


def test_sec4_several_readings_are_several_moves():
    """RULES 4: enumeration lists every distinct (cards, reading) pair, once each."""
    moves = list(legal_moves(Hand("S5 S6 H7 S8 S9"), "7"))
    ts = [(m.type, m.rank, m.cards) for m in moves]
    assert len(ts) == len(set(ts))
    assert ("Straight", "5", ("S5", "S6", "H7", "S8", "S9")) in ts
    assert ("StraightFlush", "5", ("S5", "S6", "H7", "S8", "S9")) in ts
    moves = list(legal_moves(Hand("S9 S9 C9 C9"), "7"))
    ts = [(m.type, m.rank, m.cards) for m in moves]
    assert len(ts) == len(set(ts))
    assert sorted(ts) == sorted([
        ("Single", "9", ("S9",)), ("Single", "9", ("C9",)),
        ("Pair", "9", ("S9", "S9")), ("Pair", "9", ("S9", "C9")), ("Pair", "9", ("C9", "C9")),
        ("Trips", "9", ("S9", "S9", "C9")), ("Trips", "9", ("S9", "C9", "C9")),
        ("Bomb", "9", ("S9", "S9", "C9", "C9")),
    ])


def test_sec4_legal_moves_interface():
    """RULES 4 / API: len, count, membership, array of the lazy move list."""
    lm = legal_moves(Hand("S9 C9 H7 SB SB"), "7")
    assert len(lm) == lm.count() == 10 == len(list(lm))
    assert M("ThreeWithTwo", "9", "S9 C9 H7 SB SB") in lm
    assert M("Bomb", "9", "S9 C9 D9 H7") not in lm
    assert len(lm.array) == 10
    arr = moves_array(Hand("S9 C9 H7 SB SB"), "7")
    assert len(arr) == 10
    assert set(arr.dtype.names) >= {"type", "label", "ncards", "nwild", "key", "cards",
                                    "wild_as"}


def test_sec4_legal_moves_truth_membership_and_repr():
    """RULES 4 / API (legal_moves): a LegalMoves is true when it holds a move, one move
    included; `move in moves` is False for what is not a Move (a platform triple), not an
    error; its repr names the level asked."""
    one = legal_moves("S3", "2")          # a lone card leads exactly one move: the single
    assert len(one) == 1 and bool(one)
    top = Move.from_platform(["Single", "A", ["SA"]], "2")
    assert not legal_moves("S3", "2", beat=top)     # 3 < A at level 2 (sec. 2)
    lm = legal_moves("S3 S4", "7")
    assert ["Single", "3", ["S3"]] not in lm and "Single 3: S3" not in lm
    assert M("Single", "3", "S3") in lm
    assert repr(lm).endswith("at level 7>")
    assert repr(legal_moves("S3", "T")).endswith("at level T>")


def test_sec9_a_move_not_read_under_the_rules_asked_names_them():
    """RULES 3 / 9: a wild completes a straight flush of any suit under the standard rules,
    only of hearts under the platform's, so S5 S6 H7 S8 S9 at level 7 (the wild as S7) is
    a straight flush there and not here; the refusal names the rules it was checked
    under (it would read as a bare contradiction otherwise)."""
    sf = M("StraightFlush", "5", "S5 S6 H7 S8 S9")
    assert legal_moves("S8 S9", "7", beat=sf).count() == 0
    with pytest.raises(MoveError, match=re.escape(f"is not a reading of its cards at level 7 "
                                                  f"under {PLATFORM}")):
        legal_moves("S8 S9", "7", beat=sf, rules=PLATFORM)


def test_sec4_a_refused_reading_names_the_level_as_a_rank():
    """RULES 1 / 2: a level is written as a rank (T for 10, upper case), whichever form it
    was given in; the refusal of a reading names it so."""
    for level, named in (("10", "T"), ("t", "T"), ("q", "Q"), (7, "9")):
        with pytest.raises(MoveError, match=re.escape(f"is not a Pair of rank '9' at level "
                                                      f"{named}")):
            Move.from_platform(["Pair", "9", ["S9", "D8"]], level)


def test_sec1_counts_given_as_counts_are_refused_without_the_cards_hint():
    """RULES 1: a count of 3 given where counts are asked for (Hand.from_counts, the match
    steps' hands) is named, without the hint that an array of 54 numbers is read as
    counts and card kinds go in a list, which is no news there (Hand() keeps it)."""
    from guandan_core.match import tribute_card
    three = [3] + [0] * 53
    for call, named in ((Hand.from_counts, "hand holds S2 3 times"),
                        (lambda c: tribute_card(c, "2"), "payer's hand holds S2 3 times")):
        with pytest.raises(CardError) as caught:
            call(three)
        assert str(caught.value) == f"{named} (each card exists twice)"
    with pytest.raises(CardError, match="a numpy array of 54 numbers is read as counts"):
        Hand(np.array(three))


def test_api_moves_array_refuses_what_it_cannot_enumerate():
    """API (moves_array; errors quote the bad value): a beat that is not a Move is a
    MoveError, and a count array holding a card three times (sec. 1: each card exists
    twice) is a CardError naming that card."""
    with pytest.raises(MoveError, match=re.escape("beat must be a Move, not ['Single'")):
        moves_array("S3 S4", "2", beat=["Single", "3", ["S3"]])
    # a Move made by hand with fields that are no reading of its cards is named (it said
    # "not a combination: 'the move to beat'"), as legal_moves names it
    fake = Move(1, 2, 3, (4, 5))
    for call in (moves_array, legal_moves):
        with pytest.raises(MoveError, match=re.escape(f"beat {fake} is not a reading of its "
                                                      "cards at level 2")):
            call("S3 S4", "2", beat=fake)
    counts = np.zeros(54, np.uint8)
    counts[parse_card("S2")] = 3
    with pytest.raises(CardError, match="S2"):
        moves_array(counts, "2")
    counts[parse_card("S2")] = 2       # twice is a hand: a single and a pair (sec. 4)
    assert {str(m) for m in Move.from_array(moves_array(counts, "2"))} == \
        {"Single 2: S2", "Pair 2: S2 S2"}


# ======================================================================= section 5

def test_sec5_same_type_strictly_higher():
    """RULES 5: a non-bomb is beaten only by the same type with a strictly higher key."""
    assert beats(M("Pair", "A", "SA HA"), M("Pair", "K", "SK HK"))
    assert not beats(M("Pair", "A", "SA HA"), M("Single", "3", "S3"))
    assert not beats(M("Trips", "A", "SA HA CA"), M("Pair", "3", "S3 H3"))
    assert not beats(M("ThreeWithTwo", "A", "SA HA CA S3 H3"),
                     M("Straight", "2", "S2 H3 C4 D5 S6"))
    assert not beats(M("ThreePair", "Q", "SQ HQ SK HK SA HA"),
                     M("TwoTrips", "2", "S2 H2 C2 S3 H3 C3"))
    assert not beats(M("Straight", "T", "ST HJ CQ DK SA"),
                     M("ThreePair", "2", "S2 H2 S3 H3 S4 H4"))


def test_sec5_equal_never_beats_equal():
    """RULES 5: equal never beats equal; suits never break ties."""
    pairs = [(M("Pair", "9", "S9 H9"), M("Pair", "9", "C9 D9")),
             (M("Straight", "3", "S3 H4 C5 D6 S7", "9"),
              M("Straight", "3", "D3 D4 C5 D6 S7", "9")),
             (M("Bomb", "9", "S9 H9 C9 D9"), M("Bomb", "9", "S9 H9 C9 H7")),
             (M("StraightFlush", "3", "S3 S4 S5 S6 S7", "9"),
              M("StraightFlush", "3", "H3 H4 H5 H6 H7", "9")),
             (M("Bomb", "JOKER", "SB SB HR HR"), M("Bomb", "JOKER", "SB SB HR HR"))]
    for a, b in pairs:
        assert not beats(a, b) and not beats(b, a) and not beats(a, a)


def test_sec5_any_bomb_beats_any_non_bomb():
    """RULES 5: any bomb beats any non-bomb."""
    bomb = M("Bomb", "2", "S2 H2 C2 D2", "7")
    sf = M("StraightFlush", "A", "SA S2 S3 S4 S5", "7")
    for other in (M("Single", "R", "HR"), M("Pair", "R", "HR HR"), M("Trips", "7", "S7 C7 D7"),
                  M("ThreeWithTwo", "7", "S7 C7 D7 HR HR"), M("Straight", "T", "ST HJ CQ DK SA"),
                  M("ThreePair", "Q", "SQ HQ SK HK SA HA"),
                  M("TwoTrips", "K", "SK HK CK SA HA CA")):
        for b in (bomb, sf):
            assert beats(b, other) and not beats(other, b)


def test_sec5_bomb_ladder():
    """RULES 5: 4 < 5 < straight flush < 6 < 7 < 8 < 9 < 10 cards < joker bomb; same size by
    rank in card order (L above A); straight flushes by top card."""
    L = "7"
    ladder = [
        M("Bomb", "3", "S3 H3 C3 D3", L),
        M("Bomb", "A", "SA HA CA DA", L),
        M("Bomb", "7", "S7 H7 C7 D7", L),
        M("Bomb", "2", "S2 H2 C2 D2 S2", L),
        M("Bomb", "A", "SA HA CA DA SA", L),
        M("Bomb", "7", "S7 H7 C7 D7 S7", L),
        M("StraightFlush", "A", "SA S2 S3 S4 S5", L),
        M("StraightFlush", "2", "D2 D3 D4 D5 D6", L),
        M("StraightFlush", "9", "S9 ST SJ SQ SK", L),
        M("StraightFlush", "T", "HT HJ HQ HK HA", L),
        M("Bomb", "2", "S2 H2 C2 D2 S2 H2", L),
        M("Bomb", "7", "S7 H7 C7 D7 S7 C7", L),
        M("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2", L),
        M("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2 D2", L),
        M("Bomb", "7", "S7 H7 C7 D7 S7 H7 C7 D7", L),
        M("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2 D2 H7", L),
        M("Bomb", "A", "SA HA CA DA SA HA CA DA H7", L),
        M("Bomb", "2", "S2 H2 C2 D2 S2 H2 C2 D2 H7 H7", L),
        M("Bomb", "A", "SA HA CA DA SA HA CA DA H7 H7", L),
        M("Bomb", "JOKER", "SB SB HR HR", L),
    ]
    for i, a in enumerate(ladder):
        for j, b in enumerate(ladder):
            assert beats(a, b) == (i > j), (str(a), str(b))
    # bomb_order_key orders them alike (a total order: distinct keys), and is -1 for
    # what is no bomb
    keys = [bomb_order_key(b) for b in ladder]
    assert keys == sorted(set(keys)) and keys[0] >= 0
    assert [bomb_order_key(m) for m in (M("Single", "R", "HR", L), Move.PASS)] == [-1, -1]


def test_sec5_pass_never_beats_nor_is_beaten():
    """RULES 5/6 / API: the pass never beats and is never beaten."""
    for m in (M("Single", "3", "S3"), M("Bomb", "JOKER", "SB SB HR HR")):
        assert not beats(Move.PASS, m) and not beats(m, Move.PASS)
        # (no move is no pass: a MoveError, either way round)
        for pair in ((m, None), (None, m), (m, ["Single", "3", ["S3"]])):
            with pytest.raises(MoveError, match="beats.. takes two Moves"):
                beats(*pair)
    assert not beats(Move.PASS, Move.PASS)


def test_sec5_follow_only_beating_moves():
    """RULES 5: following, only moves that beat the last play (the pass is not listed)."""
    hand = Hand("S9 C9 D9 H7 H7 SA")
    got = triples(legal_moves(hand, "7", beat=M("Pair", "K", "SK HK")))
    assert got == {tri("Pair", "A", "SA H7"), tri("Pair", "7", "H7 H7"),
                   tri("Bomb", "9", "S9 C9 D9 H7"), tri("Bomb", "9", "S9 C9 H7 H7"),
                   tri("Bomb", "9", "S9 D9 H7 H7"), tri("Bomb", "9", "C9 D9 H7 H7"),
                   tri("Bomb", "9", "S9 C9 D9 H7 H7")}
    assert len(legal_moves(Hand("S3 S4"), "7", beat=M("Single", "R", "HR"))) == 0
    follow = legal_moves(hand, "7", beat=M("Bomb", "JOKER", "SB SB HR HR"))
    assert len(follow) == 0 and Move.PASS not in follow


# ======================================================================= section 9

def test_sec9_rules_presets():
    """RULES 9: the standard and platform presets."""
    assert STANDARD.sf_is_bomb and STANDARD.sf_wild_any_suit and not STANDARD.long_sequences
    assert PLATFORM.sf_is_bomb and not PLATFORM.sf_wild_any_suit
    assert not PLATFORM.long_sequences
    assert Rules.by_name("standard") == STANDARD
    assert Rules.by_name("platform") == PLATFORM
    with pytest.raises(ValueError) as err:
        Rules.by_name("nonsense")
    assert "nonsense" in str(err.value)


def test_sec9_every_preset_sets_its_own_option_and_options_are_booleans():
    """RULES 9: each named preset changes only the option of its row of the table (the
    others stay standard); a preset name is refused with the known names listed, and so
    is a value that is no name at all; an option is True or False (1 would pass for an
    option the kernel reads as a flag)."""
    from guandan_core.rules import RulesError
    assert Rules.by_name("no-sf-bomb") == Rules(sf_is_bomb=False, sf_wild_any_suit=True,
                                                long_sequences=False)
    assert Rules.by_name("long-sequences") == Rules(sf_is_bomb=True, sf_wild_any_suit=True,
                                                    long_sequences=True)
    assert Rules.by_name("platform") == Rules(sf_is_bomb=True, sf_wild_any_suit=False,
                                              long_sequences=False)
    with pytest.raises(RulesError, match=re.escape(
            "(known: standard, platform, no-sf-bomb, long-sequences)")):
        Rules.by_name("nonsense")
    for unhashable in (["platform"], {"platform": 1}):
        with pytest.raises(RulesError, match="unknown rules"):
            Rules.by_name(unhashable)
    for option in ("sf_is_bomb", "sf_wild_any_suit", "long_sequences"):
        for bad in (1, 0, "yes", None):
            with pytest.raises(RulesError, match=f"{option} must be True or False, not"):
                Rules(**{option: bad})


def test_sec9_straight_flush_not_a_bomb():
    """RULES 9: with straight flushes off, five consecutive cards of one suit are a
    straight."""
    assert R("D3 D4 D5 D6 D7", "9", NO_SF) == {("Straight", "3")}
    assert R("S5 S6 H7 S8 S9", "7", NO_SF) == {("Straight", "5")}
    hand = Hand("D3 D4 D5 D6 D7 S8 H7")
    for m in legal_moves(hand, "7", rules=NO_SF):
        assert m.type != "StraightFlush"
    s = M("Straight", "4", "D4 D5 D6 D7 S8", "7", NO_SF)
    assert not s.is_bomb
    assert not beats(s, M("Pair", "3", "S3 C3"))
    assert beats(s, M("Straight", "3", "D3 D4 D5 D6 D7", "7", NO_SF))
    with pytest.raises(MoveError):
        M("StraightFlush", "3", "D3 D4 D5 D6 D7", "7", NO_SF)


def test_sec9_platform_hearts_only_wild_straight_flush():
    """RULES 9: on the platform a wild completes only heart straight flushes; natural
    straight flushes of every suit still count."""
    assert R("S5 S6 H7 S8 S9", "7", PLATFORM) == {("Straight", "5")}
    assert R("S5 S6 H7 S8 S9", "7", STANDARD) == {("Straight", "5"), ("StraightFlush", "5")}
    assert R("H3 H4 H5 H6 H2", "2", PLATFORM) == {
        ("Straight", "2"), ("Straight", "3"), ("StraightFlush", "2"), ("StraightFlush", "3")}
    assert R("S3 S4 S5 S6 S7", "2", PLATFORM) == {("StraightFlush", "3")}
    assert R("D9 DT DJ DQ DK", "2", PLATFORM) == {("StraightFlush", "9")}
    hand = Hand("C3 C4 C5 C6 H2 H2")
    assert not any(m.type == "StraightFlush" for m in legal_moves(hand, "2", rules=PLATFORM))
    assert any(m.type == "StraightFlush" for m in legal_moves(hand, "2", rules=STANDARD))


def test_sec9_long_sequences():
    """RULES 9 (long-sequences): straights of 5 or more ranks without level cards or
    jokers; 2 or more consecutive pairs; 2 or more consecutive triples."""
    assert R("S8 C9 ST SJ CQ DK", "7", LONG) == {("Straight", "8")}
    assert R("S2 C3 S4 S5 C6 D7 S8", "9", LONG) == {("Straight", "2")}
    assert R("S6 C7 S8 S9 CT DJ SQ CK DA", "2", LONG) == {("Straight", "6")}
    assert R("S5 C6 D7 S8 C9 CT", "7", LONG) == set()
    assert R("S5 C6 H7 S8 C9 CT", "7", LONG) == set()     # wild standing for the level
    assert R("S8 C9 H7 SJ CQ DK", "7", LONG) == {("Straight", "8")}
    assert R("S3 C4 S5 S6 SB SB", "9", LONG) == set()
    assert R("S3 H3 S4 H4", "7", LONG) == {("ThreePair", "3")}
    assert R("SA HA S2 H2", "7", LONG) == {("ThreePair", "A")}
    assert R("S3 H3 S4 H4 S5 H5 S6 H6", "9", LONG) == {("ThreePair", "3")}
    assert R("S3 H3 C3 S4 H4 C4 S5 H5 C5", "9", LONG) == {("TwoTrips", "3")}
    assert R("S3 H3 S5 H5", "9", LONG) == set()
    # straight flushes stay exactly 5 cards
    assert R("S2 S3 S4 S5 S6", "9", LONG) == {("StraightFlush", "2")}
    assert R("S2 S3 S4 S5 S6 S7", "9", LONG) == {("Straight", "2")}
    # different lengths are different plays: neither beats the other
    six = M("Straight", "8", "S8 C9 ST SJ CQ DK", "7", LONG)
    five = M("Straight", "9", "S9 CT SJ CQ DK", "7", LONG)
    assert not beats(six, five) and not beats(five, six)
    assert beats(M("Straight", "9", "S9 CT SJ CQ DK SA", "7", LONG), six)
    four = M("ThreePair", "3", "S3 H3 S4 H4", "7", LONG)
    assert beats(M("ThreePair", "4", "S4 H4 S5 H5", "7", LONG), four)
    assert not beats(M("ThreePair", "4", "S4 H4 S5 H5 S6 H6", "7", LONG), four)
    # standard lengths are still exact without the option
    assert R("S8 C9 ST SJ CQ DK", "7") == set()
    assert R("S3 H3 S4 H4", "7") == set()


@pytest.mark.parametrize("cards, level, longest", [
    ("S3 H3 C3 S4 H4 C4 S5 H5 C5 S6 H6 C6", "9", 9),    # plate of 4 triples (12 cards)
    ("S3 H3 S4 H4 S5 H5 S6 H6 S7 H7 S8 H8", "9", 10),   # tube of 6 pairs (12 cards)
    ("S2 H3 S4 H5 S6 H7 S8 H9 ST HJ SQ", "A", 10),      # straight of 11 ranks
    ("S2 S2 H2 H2 C2 S3 S3 H3 S4 S4 H4 S5", "2", 9),    # plate 2..5 with both wilds
])
def test_sec9_long_sequences_over_ten_cards(cards, level, longest):
    """RULES 4/9: with long sequences, a hand can hold sequences of more than 10 cards.
    RULES sets no upper length; the engine's records hold at most 10 cards (its
    documented limit, docs/API.md "Limits"), so such a sequence is not a play, while its
    10-card part is, and every move is a reading of exactly its own cards, listed once.
    (This test used to loop over classify(cards), which is empty for all four cases, so
    its last check never ran.)"""
    hand = Hand(cards)
    assert len(hand) > 10
    assert classify(cards, level, LONG) == []
    moves = list(legal_moves(hand, level, rules=LONG))
    keys = [(m.type, m.rank, m.cards) for m in moves]
    assert len(keys) == len(set(keys)), "a move is listed twice"
    sequences = [m for m in moves if m.type in ("Straight", "ThreePair", "TwoTrips")]
    assert max(len(m) for m in sequences) == longest   # the longest within 10 cards
    for m in moves:
        assert m in classify(m.cards, level, LONG), str(m)


def test_sec4_tubes_and_plates_in_sequence_order():
    """RULES 4: tubes from AA2233 (lowest) to QQKKAA (highest), plates from AAA222 to
    KKKAAA, compared by the engine's own beats() (the reference's ordering alone was
    checked before), at a level outside the sequences."""
    level = "9"
    tubes = [M("ThreePair", "A", "SA HA S2 H2 S3 H3", level)] + \
        [M("ThreePair", r, " ".join(s + x for x in (r, n, m) for s in "SH"), level)
         for r, n, m in zip("2345678TJQ", "3456789JQK", "456789TQKA")
         if "9" not in (r, n, m)]
    assert tubes[0].rank == "A" and tubes[-1].rank == "Q"
    for low, high in zip(tubes, tubes[1:]):
        assert beats(high, low) and not beats(low, high), (str(low), str(high))
    plates = [M("TwoTrips", "A", "SA HA CA S2 H2 C2", level)] + \
        [M("TwoTrips", r, " ".join(s + x for x in (r, n) for s in "SHC"), level)
         for r, n in zip("2345678TJQK", "3456789JQKA") if "9" not in (r, n)]
    assert plates[-1].rank == "K"
    for low, high in zip(plates, plates[1:]):
        assert beats(high, low) and not beats(low, high), (str(low), str(high))


def test_a_huge_hands_scratch_buffer_is_not_kept(monkeypatch):
    """moves_array enumerates into a scratch buffer each thread keeps, grown 4 times over
    when too small: after one huge hand (the two decks under long sequences, 33 million
    moves, 1.1 GiB) that buffer stayed for the thread's life. A buffer above the kept size
    now goes once its moves are copied out; smaller ones are kept and reused."""
    import guandan_core.moves as moves_module
    monkeypatch.setattr(moves_module, "_scratch", threading.local())
    hand = " ".join(suit + rank for rank in "345678" for suit in "SHCD") + " H2 H2 S9"
    many = len(moves_array(hand, "2"))
    assert many > 4096                      # past the first buffer: it grew
    kept = moves_module._scratch.single
    # ... 4 times over from 4,096 moves, as often as needed
    size = len(kept) // MOVE_DTYPE.itemsize
    assert size >= many and size // 4 < many and size in {4096 * 4 ** k for k in range(12)}
    assert kept is not None and len(moves_array("S3 S4", "2")) == 2
    assert moves_module._scratch.single is kept             # reused
    monkeypatch.setattr(moves_module, "_kept_moves", 4096)
    assert len(moves_array(hand, "2")) == many
    assert moves_module._scratch.single is None             # not kept
    assert len(moves_array("S3 S4", "2")) == 2              # a new small one is made
    assert len(moves_module._scratch.single) == 4096 * MOVE_DTYPE.itemsize


def test_sec1_in_is_false_only_for_a_card_more_than_twice():
    """API: ``x in hand`` is False for a card more than twice (no hand holds it); counts
    that are no counts at all (below 0, not whole) are a CardError, as Hand() says."""
    h = Hand("S5 S5 DT")
    negative = np.zeros(54, np.int64)
    negative[12] = -1
    half = np.zeros(54, object)
    half[12] = 2.5
    for bad, times in ((negative, "-1 times"), (half, "2.5 times")):
        with pytest.raises(CardError, match=f"^hand holds S5 {times}"):
            Hand(bad)
        with pytest.raises(CardError, match=f"holds S5 {times}"):
            bad in h
    # a card three times, as counts of any kind (a float array's whole counts are counts,
    # as Hand reads them): not in the hand, and a plain CardError from Hand naming it
    said = r"holds S5 3(\.0)? times .each card exists twice"
    for dtype in (np.uint8, object, float):
        over = np.zeros(54, dtype)
        over[12] = 3
        assert over not in h
        with pytest.raises(CardError, match=said) as err:
            Hand(over)
        assert type(err.value) is CardError


def test_is_reading_names_a_bad_level_or_rules():
    """API (Errors: a bad level is a LevelError, bad rules a RulesError, as every level=
    and rules= argument): is_reading said False (True for the pass) for a level of "Z",
    13, None or -1 and for rules "bogus", as if the move were no reading there."""
    from guandan_core.moves import is_reading
    from guandan_core.rules import RulesError
    pair = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    for move in (pair, Move.PASS):
        for level in ("Z", 13, None, -1):
            with pytest.raises(LevelError, match=re.escape(repr(level))):
                is_reading(move, level)
        with pytest.raises(RulesError, match="unknown rules 'bogus'"):
            is_reading(move, "2", "bogus")
    assert is_reading(pair, "2") and not is_reading(pair, "7") and is_reading(Move.PASS, 12)


def test_from_bytes_measures_any_buffer_in_bytes():
    """API (Move.from_bytes: records "given as their bytes"): a buffer is measured in
    bytes, so one MOVE_DTYPE record as an array, or its int16 view, is one move (they were
    refused as 1 or 9 "bytes"); what is no buffer is a TypeError naming it."""
    pair = Move.from_platform(["Pair", "9", ["S9", "H7"]], "7")
    record = np.frombuffer(pair.record().tobytes(), dtype=MOVE_DTYPE)
    for data in (record, record.view(np.int16), bytearray(record.tobytes()),
                 memoryview(record.tobytes())):
        moves = Move.from_bytes(data)
        assert moves == [pair] and moves[0].key == pair.key
    assert Move.from_bytes(np.concatenate([record] * 40)) == [pair] * 40   # (checked in bulk)
    for bad in (5, "S9 H7", None):
        with pytest.raises(TypeError, match=re.escape(f"not {bad!r}")):
            Move.from_bytes(bad)
    for bad, size in ((record.tobytes()[:17], 17), (np.array(3), 8)):   # (an int64 is 8)
        with pytest.raises(ValueError, match=f"^{size} bytes are not whole 18-byte move "
                                             f"records"):
            Move.from_bytes(bad)


def test_rules_replace_names_an_unknown_option():
    """RULES 9 (API: Rules, "a bad option is a RulesError"): replace() with an option that
    is none of the rules' was a plain TypeError from the dataclass."""
    from guandan_core.rules import RulesError
    with pytest.raises(RulesError, match=re.escape("unknown rule option(s) 'bogus' (known: "
                                                   "sf_is_bomb, sf_wild_any_suit, "
                                                   "long_sequences)")):
        Rules().replace(bogus=True)
    assert Rules().replace(sf_is_bomb=False) == Rules.by_name("no-sf-bomb")
    with pytest.raises(RulesError, match="sf_is_bomb must be True or False, not 1"):
        Rules().replace(sf_is_bomb=1)


def test_api_values_that_were_read_loosely_or_named_badly():
    """A fuzzing review's findings in the value objects: each bad value is refused naming
    it, in a message of bounded length."""
    from guandan_core.cards import format_cards, parse_cards
    from guandan_core.moves import checked_reading
    from guandan_core.position import IllegalMoveError, Position, PositionError
    # a string of wild readings was read as its characters: "44" as two readings
    with pytest.raises(MoveError, match="wild_as must be a list of values, not the string "
                                        "'44'"):
        Move(8, 3, 3, [12, 16, 20, 21, 28], wild_as="44")
    with pytest.raises(MoveError, match=re.escape("wild_as must be a list of values, not the "
                                                  "string b'4'")):     # (not as [52])
        Move(2, 2, 2, [1, 9], wild_as=b"4")
    # -1, the mark of no table play, was taken as an owner without one, as None is
    hands = [["S3"], ["S4"], ["S5"], ["S6"]]
    for owner in (-1, -1.0, 2):
        with pytest.raises(PositionError, match=re.escape(
                f"a table owner ({owner!r}) is given but no table play")):
            Position("2", hands, owner=owner)
    assert Position("2", hands, owner=None).owner is None
    # a play of one card three times, held twice: "it does not hold S3" said it held none
    with pytest.raises(IllegalMoveError, match="it does not hold S3 3 times$"):
        Position("2", [["S3", "S3"], ["S4"], ["S5"], ["S6"]]).check(Move(3, 1, 1, [4, 4, 4]))
    # kinds of another type among card kinds: "'<' not supported between instances"
    for kinds, named in (([1, "SA"], "'SA'"), ([None, 1], "None")):
        with pytest.raises(CardError, match=f"not a card kind index: {named}"):
            format_cards(kinds)
    assert format_cards([53, 0, np.int64(12), 5]) == ["S2", "H3", "S5", "HR"]
    # a 0-d array: "iteration over a 0-d array"
    for call, what in ((parse_cards, "cards are text or card strings"),
                       (format_cards, "card kinds are an iterable of ints")):
        with pytest.raises(TypeError, match=re.escape(f"{what}, not array(3)")):
            call(np.array(3))
    # a ragged list of counts: numpy's "inhomogeneous shape"
    with pytest.raises(CardError, match=re.escape("counts must be 54 numbers (one per card "
                                                  "kind), not [0, 0")):
        Hand.from_counts([0] * 53 + [[1, 2]])
    # a value of 100,000 characters was quoted whole
    big = "x" * 100_000
    for call in (lambda: beats(big, Move.PASS), lambda: Move.parse(big, "2"),
                 lambda: moves_array("S3", "2", beat=big),
                 lambda: checked_reading(big, 0, None)):
        with pytest.raises(MoveError, match=re.escape("(100,002 characters)")) as refused:
            call()
        assert len(str(refused.value)) < 300
