"""Tests of guandan_core.position: the turn rules of RULES.md sec. 6 and the position
format of sec. 7. Each test names the section it checks."""

import copy
import json
import os
import pickle
import re

import numpy as np
import pytest

from guandan_core import Hand, Move, Rules, classify, legal_moves
from guandan_core.position import (GameOverError, IllegalMoveError, MoveList, Position,
                                   PositionError, finishing_outcome)

DATA = os.path.join(os.path.dirname(__file__), "data")

SEC7_EXAMPLE = {"level": "7",
                "hands": [["S3", "S4"], ["HR"], [], ["D9", "D9"]],
                "finished": [2],
                "to_move": 3,
                "table": {"owner": 1, "play": ["Single", "A", ["SA"]]}}


def P(hands, to_move=0, finished=(), table=None, owner=None, level="2", rules=None):
    """A position from card strings; ``table`` a platform triple."""
    obj = {"level": level, "hands": [h.split() for h in hands], "finished": list(finished),
           "to_move": to_move,
           "table": None if table is None else {"owner": owner, "play": table}}
    return Position.from_json(obj, rules)


def M(pos, type_, rank, cards):
    return Move.from_platform([type_, rank, cards.split()], pos.level, pos.rules)


def single(pos, card):
    matches = [m for m in pos.legal_moves() if m.type == "Single" and m.cards == (card,)]
    assert matches, f"no single {card}"
    return matches[0]


# --- sec. 7: the JSON format ----------------------------------------------------------

def test_sec7_example_reads_and_writes_back():
    """RULES 7: the example of the section reads and writes back unchanged."""
    pos = Position.from_json(SEC7_EXAMPLE)
    assert pos.to_json() == SEC7_EXAMPLE
    assert pos.level == 5 and pos.to_move == 3 and pos.owner == 1
    assert pos.finished == (2,) and pos.cards_left == (2, 1, 0, 2)
    assert pos.table.to_platform() == ["Single", "A", ["SA"]]
    assert Position.from_json(json.dumps(SEC7_EXAMPLE)) == pos
    # (API: "a dict or JSON text"; JSON text given as bytes too, as json.loads reads it)
    text = json.dumps(SEC7_EXAMPLE).encode()
    assert Position.from_json(text) == pos and Position.from_json(bytearray(text)) == pos


def test_sec7_json_bytes_are_utf8():
    """RULES 7 / API (from_json takes "a dict or JSON text"): JSON given as bytes is read as
    UTF-8, as the command line reads files; bytes that are not UTF-8 are a PositionError
    naming the first bad byte (json.loads took b"\\xff\\xfe" for a UTF-16 mark and said
    only "Expecting value: line 1 column 1"), and UTF-16 text is refused, not guessed."""
    text = json.dumps(SEC7_EXAMPLE)
    assert Position.from_json(b"\xef\xbb\xbf" + text.encode()) == Position.from_json(text)
    for data, byte in ((b"\xff\xfe", "0xff at offset 0"),
                       (text.encode("utf-16"), "0xff at offset 0"),
                       (text.encode()[:10] + b"\xe9" + text.encode()[10:], "0xe9 at offset 10")):
        with pytest.raises(PositionError, match=re.escape(f"not UTF-8 text (byte {byte})")):
            Position.from_json(data)


def test_sec7_endgame_data_round_trip():
    """RULES 7: every position of tests/data/endgames_4x6.json round-trips exactly."""
    with open(os.path.join(DATA, "endgames_4x6.json")) as fh:
        items = json.load(fh)["items"]
    for item in items:
        pos = Position.from_json(item)
        assert pos.to_json() == item
        assert Position.from_json(pos.to_json()) == pos


def test_sec7_table_with_wild_reading():
    """RULES 3, 7: a table play using a wild card is read with its declared reading."""
    pos = P(["S9 S9", "H7 C9 D9 S2 S3", "ST", "SJ"], to_move=2,
            table=["Trips", "9", ["C9", "D9", "H7"]], owner=1, level="7")
    assert pos.table.type == "Trips" and pos.table.rank == "9"
    play = pos.to_json()["table"]["play"]
    assert play[:2] == ["Trips", "9"] and sorted(play[2]) == ["C9", "D9", "H7"]


BAD_POSITIONS = [
    ("card three times", dict(hands=[["S3", "S3"], ["S3"], ["S4"], ["S5"]]),
     r"S3 appears 3 times across the four hands \(each card exists twice\)"),
    ("card on table and in hands", dict(
        hands=[["S3", "S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["Single", "3", ["S3"]]}),
     "S3 appears 3 times across the four hands and the table"),
    ("table not the claimed type", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["Pair", "9", ["S9", "D8"]]}), "not a legal combination"),
    ("table wrong rank", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["Single", "T", ["S9"]]}), "not a legal combination"),
    ("table pass", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["PASS", "PASS", "PASS"]}), "cannot be a pass"),
    # a mistyped pass is named as an unknown type, not as cards that are no list
    ("table pass in lower case", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["pass", "pass", "pass"]}),
     re.escape('unknown move type "pass" in ["pass", "pass", "pass"]')),
    ("table cards not a list", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["Single", "9", "S9"]}),
     'cards must be a list of card strings, not "S9"'),
    # values read from JSON are named in JSON's words (null, true), not Python's
    ("a null card", dict(hands=[["S3"], ["S4"], ["S5"], [None]]),
     re.escape("hands[3]: not a card: null")),
    ("a card that is true", dict(hands=[["S3"], ["S4"], [True, "S5"], ["S6"]]),
     re.escape("hands[2]: not a card: true")),
    ("a card that is a list", dict(hands=[["S3"], [["S4"]], ["S5"], ["S6"]]),
     re.escape('hands[1]: not a card: ["S4"]')),
    ("a table play of four items", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["Single", "A", ["SA"], 1]}),
     re.escape('table play: expected [type, rank, cards], got ["Single", "A", ["SA"], 1]')),
    ("a null type", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": [None, "A", ["SA"]]}),
     re.escape('unknown move type null in [null, "A", ["SA"]]')),
    ("a rank that is true", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["Single", True, ["SA"]]}),
     re.escape('not true in ["Single", true, ["SA"]]')),
    ("a null among the table's cards", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": 0, "play": ["Single", "A", [None]]}),
     re.escape('card strings, not [null] in ["Single", "A", [null]]')),
    ("owner is to move", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=0,
        table={"owner": 0, "play": ["Single", "9", ["S9"]]}), "round is over"),
    ("owner not a seat", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=0,
        table={"owner": 7, "play": ["Single", "9", ["S9"]]}), "not a seat"),
    ("owner -1", dict(
        hands=[["S3"], ["S4"], ["S5"], ["S6"]], to_move=1,
        table={"owner": -1, "play": ["Single", "9", ["S9"]]}), "owner: -1 is not a seat"),
    ("seat to move is out", dict(hands=[["S3"], [], ["S5"], ["S6"]], finished=[1],
                                 to_move=1), "holds no cards"),
    ("to_move not a seat", dict(to_move=4), "to_move"),
    ("finished seat has cards", dict(finished=[1]),
     "seat 1 is in finished but still holds 1 card$"),
    ("empty hand not finished", dict(hands=[["S3"], [], ["S5"], ["S6"]]),
     "not in finished"),
    ("hand already over", dict(hands=[[], ["S4"], [], ["S6"]], finished=[0, 2], to_move=1),
     "already over: seats 0 and 2 are both out"),
    ("hand already over, team 1", dict(hands=[["S3"], [], ["S5"], []], finished=[3, 1],
                                       to_move=0), "already over: seats 1 and 3 are both out"),
    ("seat twice in finished", dict(hands=[["S3"], [], ["S5"], ["S6"]], finished=[1, 1]),
     "twice"),
    ("owner out but not last out", dict(
        hands=[[], [], ["S5"], ["S6"]], finished=[1, 0], to_move=2,
        table={"owner": 1, "play": ["Single", "9", ["S9"]]}), "did not go out last"),
    ("too many cards", dict(hands=[["S2", "S2"] + [c + r for r in "3456789TJQKA"
                                                     for c in "SH"] + ["SB", "SB", "HR"],
                                   ["D4"], ["D5"], ["D6"]]), "at most 27"),
    ("bad level", dict(level="1"), "level"),
    ("level not a string", dict(level=7), "level"),
    ("bad card", dict(hands=[["S3", "X9"], ["S4"], ["S5"], ["S6"]]), "X9"),
    ("three hands", dict(hands=[["S3"], ["S4"], ["S5"]]), "4 lists"),
    # (RULES 1: 27 cards to each player; one card more is refused)
    ("28 cards", dict(hands=[["S2", "S2"] + [c + r for r in "3456789TJQKA" for c in "SH"]
                             + ["SB", "SB"], ["D4"], ["D5"], ["D6"]]),
     r"seat 0 holds 28 cards \(a hand has at most 27\)"),
    ("finished not a seat", dict(finished=[4]), "finished: 4 is not a seat 0..3"),
    ("finished holds true", dict(finished=[True]), r"finished: expected a list of seats"),
    # (seat 0 went out first, but the team out is seats 1 and 3)
    ("hand already over, team 1 after seat 0", dict(
        hands=[[], [], ["S5"], []], finished=[0, 1, 3], to_move=2),
     "already over: seats 1 and 3 are both out"),
    ("owner null", dict(to_move=1, table={"owner": None, "play": ["Single", "9", ["S9"]]}),
     "table owner: null is not a seat"),
    ("table play of four items", dict(
        to_move=1, table={"owner": 0, "play": ["Single", "9", ["S9"], "S9"]}),
     r"table play: expected \[type, rank, cards\]"),
]


@pytest.mark.parametrize("name,changes,message", BAD_POSITIONS,
                         ids=[b[0] for b in BAD_POSITIONS])
def test_sec7_validation_says_what_is_wrong(name, changes, message):
    """RULES 7: impossible positions raise PositionError (a ValueError) naming the problem."""
    obj = {"level": "2", "hands": [["S3"], ["S4"], ["S5"], ["S6"]], "finished": [],
           "to_move": 0, "table": None}
    obj.update(changes)
    with pytest.raises(PositionError, match=message):
        Position.from_json(obj)
    assert issubclass(PositionError, ValueError)


def test_sec7_json_structure_errors():
    """RULES 7: missing or unknown keys and malformed JSON are reported."""
    good = {"level": "2", "hands": [["S3"], ["S4"], ["S5"], ["S6"]], "finished": [],
            "to_move": 0, "table": None}
    with pytest.raises(PositionError, match="missing key"):
        Position.from_json({k: v for k, v in good.items() if k != "finished"})
    with pytest.raises(PositionError, match="unknown key"):
        Position.from_json(dict(good, tabel=None))
    with pytest.raises(PositionError, match="not valid JSON"):
        Position.from_json("{level: 2")
    # what Python's json reads beyond JSON is refused by name, and a number too long for
    # int() is named as such (Python's words told of sys.set_int_max_str_digits)
    text = json.dumps(good)
    for value, named in (("NaN", "NaN is not a JSON value"),
                         ("-Infinity", "-Infinity is not a JSON value"),
                         ("1e999", "the number '1e999' is too large"),
                         ("9" * 5000, "a whole number of 5,000 digits (at most 4,300)")):
        with pytest.raises(PositionError, match=re.escape(f"not valid JSON: {named}")):
            Position.from_json(text.replace('"to_move": 0', f'"to_move": {value}'))
    with pytest.raises(PositionError, match="JSON object"):
        Position.from_json("[1, 2]")
    with pytest.raises(PositionError, match="table"):
        Position.from_json(dict(good, table={"play": ["Single", "3", ["S3"]]}))
    # a dict (from Python, not JSON) may mix key types: sorting them raised a TypeError
    with pytest.raises(PositionError, match="unknown key\\(s\\): 'zz', 1"):
        Position.from_json({**good, 1: 2, "zz": 3})
    # a card three times in one hand (RULES 1: each card exists twice) is named as the
    # JSON gave it: a list of cards, no numpy array
    with pytest.raises(PositionError, match="hand of seat 0: .*S3") as err:
        Position.from_json(dict(good, hands=[["S3", "S3", "S3"], ["S4"], ["S5"], ["S6"]]))
    assert "numpy" not in str(err.value)
    # a wrong shape says what was given, as JSON writes it (it was Python's repr: True,
    # None, single quotes)
    with pytest.raises(PositionError, match=re.escape('got [["S3"], ["S4"], ["S5"]]')):
        Position.from_json(dict(good, hands=[["S3"], ["S4"], ["S5"]]))
    for changes, named in ((dict(to_move=True), "to_move: true is not a seat 0..3"),
                           (dict(finished=None), "finished: expected a list of seats, got null"),
                           (dict(table={"owner": 1}), 'got {"owner": 1}'),
                           (dict(table={"owner": False, "play": ["Single", "3", ["S3"]]}),
                            "table owner: false is not a seat 0..3"),
                           (dict(level=None), "level: expected a rank string such as \"7\", "
                                              "got null")):
        with pytest.raises(PositionError, match=re.escape(named)):
            Position.from_json(json.dumps(dict(good, **changes)))


_JUNK = [None, True, 0, -1, 3, 4, 13, 2**70, 1.5, float("nan"), float("inf"), "", "x", "S3",
         "10", "A", "PASS", [], [[]], {}, {"a": 1}, ["S3"] * 3, "♠A", "\x00", "Q" * 500,
         ["Single", "3", ["S3"]], ["PASS", "PASS", "PASS"], ["Bomb", "3", ["S3"] * 4], [None],
         [1, 2], ["S3", 5], ["Single"], ["Single", None, None], [0, 1, 2, 3], [5], ["0"],
         [True], {"play": ["Single", "3", ["S3"]], "owner": 1}, {"play": None, "owner": None},
         {"play": ["Single", "3", ["S3"]], "owner": 9}, {"play": ["Single", "3", ["S3"]]}]


def _malformed(rng, obj):
    """``obj`` with one to three random fields replaced by junk, removed or added."""
    obj = copy.deepcopy(obj)
    for _ in range(rng.randint(1, 3)):
        r, junk = rng.random(), copy.deepcopy(rng.choice(_JUNK))
        hands = obj.get("hands")
        if not obj or r < 0.35:
            obj[rng.choice(list(obj) or ["level"])] = junk
        elif r < 0.6 and isinstance(hands, list) and hands:
            seat = rng.randrange(len(hands))
            if isinstance(hands[seat], list) and hands[seat] and rng.random() < 0.7:
                hands[seat][rng.randrange(len(hands[seat]))] = junk
            else:
                hands[seat] = junk
        elif r < 0.75:
            obj["table"] = junk
        elif r < 0.85:
            del obj[rng.choice(list(obj))]
        else:
            obj[rng.choice(["extra", "Level", 1])] = junk
    return obj


def test_sec7_random_malformed_positions_raise_one_line_position_errors():
    """RULES 7: 3,000 benchmark positions with random fields replaced by junk (wrong
    types, unknown cards, impossible counts and seats, bad table plays, keys missing or
    unknown): each reads as a position (and then solves) or raises a PositionError with
    a one-line message; nothing else escapes (no KeyError, IndexError, TypeError...)."""
    import random
    from solver import solve
    with open(os.path.join(DATA, "endgames_4x6.json")) as f:
        items = json.load(f)["items"][:5]
    rng = random.Random(29)
    read = refused = 0
    for _ in range(3000):
        obj = _malformed(rng, rng.choice(items))
        try:
            pos = Position.from_json(obj)
        except PositionError as exc:
            message = str(exc)
            assert message and "\n" not in message and len(message) < 400, (obj, message)
            refused += 1
            continue
        result = solve(pos, node_limit=2000)
        assert -3 <= result.lower <= result.upper <= 3 and result.best in pos.legal_moves()
        read += 1
    assert read > 10 and refused > 2500       # (both outcomes are exercised)


def test_sec7_a_bad_value_is_quoted_short():
    """RULES 7: a bad value is quoted in the message, its middle left out when it is long
    (a ten-megabyte level was echoed whole)."""
    good = {"level": "2", "hands": [["S3"], ["S4"], ["S5"], ["S6"]], "finished": [],
            "to_move": 0, "table": None}
    for bad in (dict(good, level="Q" * 10**6), dict(good, to_move="7" * 10**6),
                dict(good, hands=[["S3" * 10**6], ["S4"], ["S5"], ["S6"]])):
        with pytest.raises(PositionError) as err:
            Position.from_json(bad)
        message = str(err.value)
        assert len(message) < 300, message
        assert "1,000,002 characters" in message or "2,000,002 characters" in message, message


def test_sec6_sec7_a_hand_played_to_the_end_reads_back_from_its_json_and_repr():
    """RULES 6, 7: a finished hand has no seat to move (to_move null) and its table holds
    the play that ended it; its JSON was refused on reading ("already over") and its repr
    held JSON's null, no Python (a review helper's finding). Random games to the end under
    two rule sets: JSON and repr make the same position again; what does not fit a
    finished hand is named."""
    import random
    rng = random.Random(5)
    for game in range(40):
        rules = Rules.platform() if game % 2 else Rules()
        deck = [k for k in range(54) for _ in range(2)]
        rng.shuffle(deck)
        pos = Position("7", [deck[i * 6:(i + 1) * 6] for i in range(4)], rules=rules)
        assert eval(repr(pos), {"Position": Position, "Rules": Rules}) == pos
        while not pos.is_over:
            pos.push(rng.choice(list(pos.legal_moves())))
        for again in (Position.from_json(pos.to_json(), rules=rules),
                      eval(repr(pos), {"Position": Position, "Rules": Rules})):
            assert again.to_json() == pos.to_json() and again.rules == pos.rules
            assert again == pos and hash(again) == hash(pos)
            assert again.is_over and again.to_move is None and again.legal_moves() == []
            assert (again.outcome, again.finishing_order()) == (pos.outcome, pos.finishing_order())
    done = pos.to_json()
    last = done["finished"][-1]
    assert done["table"]["owner"] == last       # (the play that put the last seat out)
    assert Position.from_json(dict(done, table=None), rules=rules).is_over
    for changes, message in (
            ({"to_move": (last + 1) % 4}, "the hand is already over"),
            ({"table": {"owner": (last + 1) % 4, "play": done["table"]["play"]}},
             "table owner: ")):
        with pytest.raises(PositionError, match=message):
            Position.from_json(dict(done, **changes), rules=rules)
    with pytest.raises(PositionError, match="to_move: null is only for a finished hand"):
        Position("2", [["S3"], ["S4"], ["S5"], ["S6"]], to_move=None)
    with pytest.raises(PositionError, match=re.escape("finished: [0, 2, 1] goes on after a "
                                                      "team was out")):
        Position("2", [[], [], [], ["S6"]], finished=[0, 2, 1], to_move=None)


def test_sec7_constructor_checks_what_from_json_checks():
    """RULES 7: the constructor refuses what from_json refuses: a table Move that is no
    reading at the position's level (H2 is wild at level 2, not at 7), seats in finished
    that are not whole numbers (int() would read 2.7 and "2" as 2), a table play without
    its owner (named as given, None)."""
    hands = [["SA", "SK"], ["S3"], [], ["S4"]]
    pair = Move.from_platform(["Pair", "4", ["H2", "C4"]], "2")
    with pytest.raises(PositionError, match="table play Pair 4: H2 C4 is not a reading"):
        Position("7", hands, finished=[2], to_move=0, table=pair, owner=1)
    for bogus in (Move(5, 3, 0, [12]), Move(1, 3, 0, [12, 13])):    # (fields in range)
        with pytest.raises(PositionError, match="is not a reading"):
            Position("7", hands, finished=[2], to_move=0, table=bogus, owner=1)
    # a pass that carries cards, read from a record unchecked, is no legal pass (it was:
    # is_pass looked at the type alone, and a Match played the hand on with it)
    following = Position("7", hands, finished=[2], to_move=0,
                         table=Move.from_platform(["Single", "3", ["S3"]], "7"), owner=1)
    record = bytearray(Move.PASS.record().tobytes())
    record[1], record[2], record[6] = 3, 1, 44          # label 3, one card: SK
    odd = Move.from_record(bytes(record), validate=False)
    assert odd.is_pass and not following.is_legal(odd) and following.is_legal(Move.PASS)
    with pytest.raises(IllegalMoveError, match=r"type PASS with rank label 3 and cards \[44\]"):
        following.push(odd)
    sevens = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")     # read at level 2
    with pytest.raises(PositionError, match="table play Pair 7: S7 C7 is not a reading"):
        Position("7", [["SA", "CA"], ["S3"], [], ["S4"]], finished=[2], to_move=0,
                 table=sevens, owner=3)
    single = Move.from_platform(["Single", "Q", ["SQ"]], "7")
    pos = Position("7", hands, finished=[2], to_move=0, table=single, owner=1)
    assert Position.from_json(pos.to_json()) == pos
    for finished in ([2.7], ["2"], "2", [True]):
        with pytest.raises(PositionError, match="finished: .* seat"):
            Position("7", hands, finished=finished, to_move=0)
    with pytest.raises(PositionError, match="table owner: None is not a seat"):
        Position("7", hands, finished=[2], to_move=0, table=single)
    # seats have an order: a set or a dict's keys were read as hands or as finished
    four = [["S3"], ["S4"], ["S5"], ["S6"]]
    for bogus in ({"S3": 1, "S4": 1, "S5": 1, "S6": 1}, None, (h for h in four), "S3 S4",
                  np.array(5)):
        with pytest.raises(PositionError, match="hands: a list of 4 hands"):
            Position("7", bogus)
    for finished in ({2}, None, 2, {2: 0}, np.array(2)):
        with pytest.raises(PositionError, match="finished: a list of seats"):
            Position("7", [["S3"], ["S4"], [], ["S6"]], finished=finished)
    with pytest.raises(PositionError, match="hand of seat 1: .*not 1"):
        Position("7", [["S3"], 1, ["S5"], ["S6"]])
    # an owner needs a table play (RULES 7: "the last play on the table with its owner"),
    # in a hand going on and in a finished one
    with pytest.raises(PositionError, match=re.escape("a table owner (1) is given but no "
                                                      "table play")):
        Position("7", four, to_move=0, owner=1)
    with pytest.raises(PositionError, match=re.escape("a table owner (2) is given but no "
                                                      "table play")):
        Position("7", [[], ["S4"], [], ["S6"]], finished=[0, 2], to_move=None, owner=2)


def test_sec7_rules_change_table_validity():
    """RULES 9 via 7: a wild straight flush in spades is a table play only when the rules
    let a wild complete a straight flush of any suit."""
    obj = {"level": "7", "hands": [["S2"], ["S3"], ["S4"], ["SK"]], "finished": [],
           "to_move": 1,
           "table": {"owner": 0, "play": ["StraightFlush", "5", ["S5", "S6", "S8", "S9",
                                                                   "H7"]]}}
    assert Position.from_json(obj, Rules.standard()).table.is_bomb
    with pytest.raises(PositionError, match="not a legal combination"):
        Position.from_json(obj, Rules.platform())


# --- sec. 6: leading and following ----------------------------------------------------

def test_sec6_lead_cannot_pass():
    """RULES 6: the player on lead plays any move and may not pass."""
    pos = P(["S3 S4", "S5", "S6", "S7"])
    moves = pos.legal_moves()
    assert Move.PASS not in moves and len(moves) == 2
    with pytest.raises(IllegalMoveError, match="may not pass"):
        pos.play(Move.PASS)
    with pytest.raises(IllegalMoveError):
        pos.push(Move.PASS)
    assert pos.depth == 0


def test_sec6_follow_beats_or_passes_and_pass_comes_first():
    """RULES 6: a following player plays a move that beats the table play, or passes;
    legal_moves lists the pass first."""
    pos = P(["S3", "S4 S9 SK H9 D9 C9", "S5", "S6"], to_move=1,
            table=["Single", "8", ["S8"]], owner=0)
    moves = pos.legal_moves()
    assert moves[0] == Move.PASS
    assert Move.PASS not in moves[1:]
    assert {m.cards for m in moves[1:]} == {("S9",), ("SK",), ("H9",), ("C9",), ("D9",),
                                             ("S9", "H9", "C9", "D9")}
    for m in moves:
        assert pos.is_legal(m)
    assert len(moves) == pos.count_moves() == len(pos.move_list())


def test_sec6_illegal_follow_names_the_move():
    """RULES 5, 6: a move that does not beat the table is an IllegalMoveError naming it."""
    pos = P(["S3", "S4 SK", "S5", "S6"], to_move=1, table=["Single", "8", ["S8"]], owner=0)
    with pytest.raises(IllegalMoveError, match=r'Single.*"S4".*does not beat'):
        pos.play(M(pos, "Single", "4", "S4"))
    assert issubclass(IllegalMoveError, ValueError)


def test_sec6_cannot_play_cards_not_held():
    """RULES 6: a player plays only cards from their own hand."""
    pos = P(["S3", "SK", "S5", "S6"])
    with pytest.raises(IllegalMoveError, match="does not hold SK"):
        pos.play(M(pos, "Single", "K", "SK"))
    # a pair of a card held once: the message says the second copy is missing
    with pytest.raises(IllegalMoveError, match="seat 0 cannot play .*: it does not hold S3 "
                                               "twice$"):
        pos.play(M(pos, "Pair", "3", "S3 S3"))


def test_sec3_move_read_at_another_level_is_illegal():
    """RULES 3: a reading that needs a wild is illegal at a level where the card is not
    wild (H7 is wild at level 7, not at level 2)."""
    pos7 = P(["S9 H7", "S4", "S5", "S6"], level="7")
    pair = next(m for m in pos7.legal_moves() if m.type == "Pair")
    pos2 = P(["S9 H7", "S4", "S5", "S6"], level="2")
    with pytest.raises(IllegalMoveError, match="not a reading of its cards at level 2"):
        pos2.play(pair)
    with pytest.raises(IllegalMoveError, match="not a reading of its cards at level 2"):
        pos2.check(pair)
    assert not pos2.is_legal(pair) and pos7.is_legal(pair)
    # what is no Move is no legal move, and is named
    assert not pos2.is_legal("S9")
    with pytest.raises(IllegalMoveError, match="not a Move: 'S9'"):
        pos2.check("S9")


def test_sec2_move_read_at_another_level_keeps_no_strength_of_its_own():
    """RULES 2, 5: a pair of 7s is below 8s at level 2 and above aces at level 7. Read at
    level 2 (same type, rank and cards, so it compares equal) it is not playable at level
    7, where it would beat a pair of 5s and then lose to 8s."""
    fives = Move.from_platform(["Pair", "5", ["S5", "C5"]], "7")
    pos = Position("7", [["S7", "C7", "S3"], ["D3"], [], ["S8", "C8"]], finished=[2],
                   to_move=0, table=fives, owner=1)
    read_at_2 = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    with pytest.raises(IllegalMoveError, match="not a reading of its cards at level 7"):
        pos.play(read_at_2)
    with pytest.raises(IllegalMoveError):
        pos.push(read_at_2)
    after = pos.play(Move.from_platform(["Pair", "7", ["S7", "C7"]], "7"))
    assert [str(m) for m in after.legal_moves()] == ["PASS"]     # no pair beats 7s at 7


def test_sec6_passing_does_not_stop_later_play():
    """RULES 6: a player who passed may play later in the same round."""
    pos = P(["S3 S4", "S9 SK", "S5 S6", "S7 S8"], to_move=0)
    pos = pos.play(single(pos, "S3"))
    pos = pos.play(Move.PASS)               # seat 1 passes
    pos = pos.play(single(pos, "S5"))       # seat 2
    pos = pos.play(single(pos, "S7"))       # seat 3
    pos = pos.play(Move.PASS)               # seat 0
    assert pos.to_move == 1 and pos.table.cards == ("S7",)
    pos = pos.play(single(pos, "SK"))       # seat 1 plays after having passed
    assert pos.owner == 1


def test_sec6_round_ends_when_turn_returns_to_owner():
    """RULES 6: when everyone else passed, the round ends and the owner leads."""
    pos = P(["S3 S4", "S5 S6", "S7 S8", "S9 ST"])
    pos = pos.play(single(pos, "S4"))
    for seat in (1, 2):
        assert pos.to_move == seat
        pos = pos.play(Move.PASS)
    assert pos.to_move == 3 and pos.table is not None
    pos = pos.play(Move.PASS)
    assert pos.to_move == 0 and pos.table is None and pos.owner is None
    assert Move.PASS not in pos.legal_moves()


def test_sec6_on_lead_and_the_number_of_moves():
    """RULES 6, API: on_lead is true when the seat to move leads (table None); the move
    count is that of legal_moves, the pass counted only when following (seat 0 leads with
    S3 or S4: two moves; seat 1 may pass or beat the 8 with S9 or SK: three)."""
    lead = P(["S3 S4", "S5", "S6", "S7"])
    assert lead.on_lead and lead.table is None
    assert lead.count_moves() == len(lead.legal_moves()) == 2
    follow = P(["S3", "S9 SK", "S5", "S6"], to_move=1, table=["Single", "8", ["S8"]],
               owner=0)
    assert not follow.on_lead
    assert follow.count_moves() == len(follow.legal_moves()) == 3


def test_sec6_out_players_are_skipped():
    """RULES 6: a player who is out is skipped, also when the round ends."""
    pos = P(["S3 S4", "", "S7 S8", "S9 ST"], finished=[1])
    pos = pos.play(single(pos, "S4"))
    assert pos.to_move == 2             # seat 1 is skipped
    pos = pos.play(Move.PASS)
    assert pos.to_move == 3
    pos = pos.play(Move.PASS)
    assert pos.to_move == 0 and pos.table is None   # seat 1 skipped, round over


def test_sec6_partner_takes_the_wind():
    """RULES 6: if the owner has gone out, the owner's partner leads the next round."""
    pos = P(["S9", "S3 S4", "S5 S6", "S7 S8"])
    pos = pos.play(single(pos, "S9"))        # seat 0 goes out
    assert pos.finished == (0,) and not pos.is_over
    assert pos.to_move == 1 and pos.owner == 0
    pos = pos.play(Move.PASS)
    pos = pos.play(Move.PASS)                # the partner may pass too
    pos = pos.play(Move.PASS)
    assert pos.to_move == 2 and pos.table is None   # the partner takes the wind


def test_sec6_partner_takes_the_wind_from_json_position():
    """RULES 6, 7: in the sec. 7 example the owner goes out; when the turn would pass over
    the owner the partner (seat 3) leads."""
    pos = Position.from_json(SEC7_EXAMPLE)
    pos = pos.play(Move.PASS)            # seat 3 passes (seat 2 is out)
    assert pos.to_move == 0
    pos = pos.play(Move.PASS)            # seat 0 passes: turn reaches owner 1
    assert pos.to_move == 1 and pos.table is None
    pos = pos.play(single(pos, "HR"))    # seat 1 goes out
    assert pos.finished == (2, 1) and pos.to_move == 3
    pos = pos.play(Move.PASS)
    assert pos.to_move == 0
    pos = pos.play(Move.PASS)            # the turn skips over the out owner
    assert pos.to_move == 3 and pos.table is None


def test_sec6_owner_out_and_a_later_player_beats():
    """RULES 6: after the owner goes out, another player may still beat the play; the new
    owner then leads when everyone passes."""
    pos = P(["S9", "S3 SK", "S5 S6", "S7 S8"])
    pos = pos.play(single(pos, "S9"))
    pos = pos.play(single(pos, "SK"))        # seat 1 beats the play of the out seat 0
    pos = pos.play(Move.PASS)
    pos = pos.play(Move.PASS)
    assert pos.to_move == 1 and pos.table is None


# --- sec. 6: the end of a hand and its outcome ----------------------------------------

def test_sec6_hand_ends_on_double_win():
    """RULES 6: the hand ends as soon as both players of one team are out (+3)."""
    pos = P(["S9", "S3 S4", "SJ", "S7 S8"], finished=[])
    pos = pos.play(single(pos, "S9"))        # seat 0 out 1st
    pos = pos.play(Move.PASS)
    pos = pos.play(single(pos, "SJ"))        # seat 2 out 2nd: hand over
    assert pos.is_over and pos.to_move is None
    assert pos.finished == (0, 2)
    assert pos.finishing_order() == (0, 2, 3, 1)
    assert pos.outcome == 3
    assert pos.team_value(0) == 3 and pos.team_value(1) == -3
    assert pos.legal_moves() == []
    with pytest.raises(GameOverError):
        pos.play(Move.PASS)


def test_sec6_outcomes_for_every_finish():
    """RULES 6: +3 / +2 / +1 from the winners' view, by the partner's place."""
    assert finishing_outcome([0, 2, 1, 3]) == 3
    assert finishing_outcome([2, 1, 0, 3]) == 2
    assert finishing_outcome([0, 1, 3, 2]) == 1
    assert finishing_outcome([1, 3, 0, 2]) == -3
    assert finishing_outcome([3, 0, 1, 2]) == -2
    assert finishing_outcome([1, 2, 0, 3]) == -1


def test_sec6_values_read_from_text():
    """RULES 6: the six values a hand can be worth, from the text a user types (the
    solver's threshold); anything else is named."""
    from itertools import permutations
    from guandan_core.position import OUTCOMES, parse_outcome
    assert sorted({finishing_outcome(o) for o in permutations(range(4))}) == sorted(OUTCOMES)
    assert [parse_outcome(f"{v:+d}") for v in OUTCOMES] == list(OUTCOMES)
    assert [parse_outcome(str(v)) for v in OUTCOMES] == list(OUTCOMES)
    for bad in ("0", "+0", "4", "-4", " 2", "2 ", "+-1", "two", "", "1.0"):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            parse_outcome(bad)
    with pytest.raises(ValueError, match="one of \\+3 \\+2 \\+1 -1 -2 -3, not 2$"):
        parse_outcome(2)


def test_sec6_third_place_finish_and_remaining_order():
    """RULES 6: the hand ends when both players of one team are out, even the team that
    did not finish first (seats 0 and 2 finish 2nd and 3rd); the remaining player is
    appended last, so seat 1 won with its partner last: -1."""
    pos = P(["", "", "S5", "S7 S8"], finished=[1, 0], to_move=2)
    pos = pos.play(single(pos, "S5"))
    assert pos.is_over and pos.finished == (1, 0, 2)
    assert pos.finishing_order() == (1, 0, 2, 3)
    assert pos.outcome == -1    # seat 1 first, its partner 3 last


def test_sec6_last_player_out_ends_hand_for_other_team():
    """RULES 6: 1st and 3rd for team 1+3: outcome -2."""
    pos = P(["S3 S4", "", "S5 S6", "S9"], finished=[1], to_move=3)
    pos = pos.play(single(pos, "S9"))
    assert pos.is_over and pos.outcome == -3   # seats 1 and 3 are 1st and 2nd
    pos = P(["S3 S4", "", "", "S9"], finished=[1, 2], to_move=3)
    pos = pos.play(single(pos, "S9"))
    assert pos.is_over and pos.finishing_order() == (1, 2, 3, 0) and pos.outcome == -2


def test_sec6_outcome_needs_finished_hand():
    pos = P(["S3", "S4", "S5", "S6"])
    with pytest.raises(ValueError, match="not over: no outcome yet"):
        pos.outcome
    with pytest.raises(ValueError, match="not over: no finishing order yet"):
        pos.finishing_order()


# --- push / pop, identity ------------------------------------------------------------

def test_push_pop_restores_exactly():
    """push/pop: every pushed move is undone exactly, going out included."""
    pos = P(["S3 S4 S4", "S5 S6 SK", "S7 S8", "S9 ST"])
    start_key, start_json = pos.key(), pos.to_json()
    keys = []
    while not pos.is_over:
        keys.append(pos.key())
        moves = pos.legal_moves()
        pos.push(moves[-1])
    assert pos.depth == len(keys)
    while pos.depth:
        pos.pop()
        assert pos.key() == keys.pop()
    assert pos.key() == start_key and pos.to_json() == start_json


def test_play_returns_new_position():
    pos = P(["S3 S4", "S5", "S6", "S7"])
    before = pos.key()
    new = pos.play(single(pos, "S3"))
    assert pos.key() == before and new != pos and new.depth == 0
    # a seat going out in the new position leaves the old one's finishing order alone
    pos = P(["S9", "S3 S4", "S5 S6", "S7 S8"])
    before = pos.key()
    new = pos.play(single(pos, "S9"))
    assert new.finished == (0,) and pos.finished == () and pos.key() == before


def test_key_hash_eq_pickle_copy():
    """sec. 7 state identity: equal states are equal; key includes table and owner."""
    a = Position.from_json(SEC7_EXAMPLE)
    b = Position.from_json(json.dumps(SEC7_EXAMPLE))
    assert a == b and hash(a) == hash(b) and a.key() == b.key()
    c = pickle.loads(pickle.dumps(a))
    assert c == a and c.to_json() == SEC7_EXAMPLE and c.table == a.table
    d = copy.deepcopy(a)
    assert d == a
    other = dict(SEC7_EXAMPLE, table={"owner": 3, "play": ["Single", "A", ["SA"]]},
                 to_move=0)
    assert Position.from_json(other) != a
    assert a != Position.from_json(SEC7_EXAMPLE, Rules.platform())
    # the table's play alone (same owner, same seat to move) tells positions apart
    nine, ten = (P(["S3", "S4", "S5", "S6"], to_move=1, owner=0,
                   table=["Single", rank, [f"S{rank}"]]) for rank in "9T")
    assert nine != ten and nine.key() != ten.key() and hash(nine) != hash(ten)
    assert len({a, b, c, d}) == 1
    # pickling keeps a table play read at the position's level (H7 is wild at 7 only)
    wild = Position("7", [["S3"], ["S4"], ["S5"], ["S6"]], to_move=1, owner=0,
                    table=Move.from_platform(["Trips", "9", ["C9", "D9", "H7"]], "7"))
    again = pickle.loads(pickle.dumps(wild))
    assert again == wild and again.table == wild.table and again.table.wild_as == ("9",)
    # pickling keeps the rules the position was made with
    e = Position.from_json(SEC7_EXAMPLE, Rules.platform())
    f = pickle.loads(pickle.dumps(e))
    assert f.rules == Rules.platform() and f == e


def test_move_lists_pickle_at_every_protocol_and_stay_read_only():
    """A position's MoveList and a LegalMoves pickle at every protocol (MoveList's
    __slots__ refused protocols 0 and 1) and deep-copy with the same moves, their arrays
    still read-only (they came back writable: a record changed under the moves made)."""
    pos = P(["S3 S4 S5 S6 S7 H2 H2 SB", "S9 DT", "C5", "D6"], to_move=0)
    following = pos.play(single(pos, "S3"))
    for moves in (pos.move_list(), following.move_list(),
                  legal_moves("S3 S4 S5 S6 S7 H2 H2 SB", "2"),
                  legal_moves("S9 DT H2", "2", beat=single(pos, "S3"))):
        copies = [pickle.loads(pickle.dumps(moves, p))
                  for p in range(pickle.HIGHEST_PROTOCOL + 1)]
        for again in copies + [copy.copy(moves), copy.deepcopy(moves)]:
            assert type(again) is type(moves) and list(again) == list(moves)
            assert again.array.tobytes() == moves.array.tobytes()
            assert not again.array.flags.writeable
            with pytest.raises(ValueError, match="read-only"):
                again.array[0] = again.array[0]


def test_key_tells_apart_positions_that_differ_only_in_the_owner():
    """RULES 7: the owner of the table play is part of the state. Seat 1 to beat a 9
    played by seat 0, or by seat 3 (seat 0 passed): after seats 1 and 2 pass, seat 3 is to
    beat seat 0's 9 in the first, and leads in the second."""
    by0 = P(["S3", "S4", "S5", "S6"], to_move=1, table=["Single", "9", ["S9"]], owner=0)
    by3 = P(["S3", "S4", "S5", "S6"], to_move=1, table=["Single", "9", ["S9"]], owner=3)
    assert by0 != by3 and by0.key() != by3.key()
    after0 = by0.play(Move.PASS).play(Move.PASS)
    after3 = by3.play(Move.PASS).play(Move.PASS)
    assert after0.to_move == after3.to_move == 3
    assert after0.table is not None and after3.table is None


def test_key_reads_the_table_play_as_a_move_whatever_its_record():
    """Move equality is on (type, rank label, cards); a Move made from its fields lists its
    cards in ascending order, a kernel's record the wild card last (moves.py): the same
    table play either way makes the same position."""
    read = Move.from_platform(["Trips", "9", ["C9", "D9", "H7"]], "7")
    made = Move(read.type_id, read.label, read.key, read.kinds, read.wild_as)
    assert made == read
    hands = [["S3"], ["S4"], ["S5"], ["S6"]]
    a = Position("7", hands, to_move=1, table=read, owner=0)
    b = Position("7", hands, to_move=1, table=made, owner=0)
    assert a == b and hash(a) == hash(b)


def test_a_finished_hand_copies_and_pickles_as_finished():
    """RULES 6, API (pickling and copy(): the position as it stands): a hand that ended
    (seats 0 and 2 out 1st and 2nd: +3) stays ended in its copies."""
    pos = P(["S9", "S3 S4", "SJ", "S7 S8"])
    for move in (single(pos, "S9"), Move.PASS):
        pos.push(move)
    pos.push(single(pos, "SJ"))
    assert pos.is_over
    for other in (pos.copy(), copy.copy(pos), copy.deepcopy(pos),
                  pickle.loads(pickle.dumps(pos))):
        assert other.is_over and other.to_move is None and other.legal_moves() == []
        assert other.outcome == 3 and other.finishing_order() == (0, 2, 3, 1)
        assert other == pos


def test_push_unchecked_matches_checked():
    pos = P(["S3 S4", "S5 S6", "S7 S8", "S9 ST"])
    twin = pos.copy()
    for _ in range(6):
        if pos.is_over:
            break
        m = pos.legal_moves()[-1]
        pos.push(m)
        twin.push(m, check=False)
        assert pos == twin


def test_move_list_is_lazy_and_ordered():
    pos = P(["S3", "S4 S9 SK", "S5", "S6"], to_move=1, table=["Single", "8", ["S8"]],
            owner=0)
    ml = pos.move_list()
    assert isinstance(ml, MoveList)
    # lazy: no Move is made until one is asked for, and then only that one
    assert ml._cache == {}
    second = ml[2]
    assert list(ml._cache) == [2] and ml[2] is second
    assert list(ml) == pos.legal_moves()
    assert ml[0] is Move.PASS and ml[-1] == pos.legal_moves()[-1]
    assert ml.issued(ml[1]) == 1 and ml.issued(Move.PASS) == 0
    assert M(pos, "Single", "9", "S9") in ml and M(pos, "Single", "4", "S4") not in ml
    # issued() is by identity: an equal move the list did not hand out is -1
    assert ml.issued(M(pos, "Single", "9", "S9")) == -1
    for index in (len(ml), -len(ml) - 1):
        with pytest.raises(IndexError, match="move index out of range"):
            ml[index]
    # on lead there is no pass to make
    lead = P(["S3 S4", "S5", "S6", "S7"]).move_list()
    assert Move.PASS not in lead and Move.PASS not in list(lead) and len(lead) == 2
    # slices are lists of the same moves
    assert ml[:] == list(ml) == pos.legal_moves() and ml[1:] == pos.legal_moves()[1:]
    # equality is by value, and the pass is part of the value
    assert pos.move_list() == ml
    assert MoveList(ml.array, True) != MoveList(ml.array, False)


def test_in_the_legal_moves_means_the_position_takes_the_move():
    """API (Move, "Equality/hash on (type, rank, cards)"; is_reading): a pair of 7s read at
    level 2 ranks below 8s and compares equal to the pair read at level 7, above aces, but
    it is no legal move at level 7 (push refuses it), so ``in`` the move list and
    legal_moves(hand, level) says no; the level-7 reading is in both."""
    pos = P(["S7 C7 S3", "S5", "S6", "S8"], level="7")
    at_two = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    at_seven = M(pos, "Pair", "7", "S7 C7")
    assert at_two == at_seven and at_two.key != at_seven.key
    for moves in (pos.move_list(), legal_moves(pos.hand(0), pos.level)):
        assert at_seven in moves and at_two not in moves
    with pytest.raises(IllegalMoveError):
        pos.check(at_two)
    # over every move read at either level: in the list exactly when the position takes it
    for reading in (*classify("S7 C7", "2"), *classify("S7 C7", "7"), *classify("S3", "2")):
        assert (reading in pos.move_list()) == pos.is_legal(reading)


def test_in_a_long_move_list_looks_among_its_records(monkeypatch):
    """A list of more than READINGS_SET_AT_MOST moves answers ``in`` from its records of
    the move's type, rank, strength and size, not from a set of every reading (a hand
    with 370,106 leads under long sequences took 4 s and 240 MB): the same answers as the
    set, here with the set's bound at 0, for every move of random positions, the readings
    of random cards at other levels and another seat's moves."""
    import random
    import guandan_core.moves as moves_module
    from reference_minimax import random_position
    rng = random.Random(53)
    asked = 0
    for _ in range(80):
        pos = None
        while pos is None:
            pos = random_position(rng, max_cards=9)
        lm = legal_moves(pos.hand(pos.to_move), pos.level, pos.table, pos.rules)
        others = pos.legal_moves() + list(legal_moves(pos.hand((pos.to_move + 1) % 4),
                                                      pos.level, rules=pos.rules))
        cards = [m.kinds for m in others if not m.is_pass]
        for kinds in rng.sample(cards, min(5, len(cards))):
            others += classify(kinds, rng.randrange(13), pos.rules)
        by_set = [(m in pos.move_list(), m in lm) for m in others]
        monkeypatch.setattr(moves_module, "READINGS_SET_AT_MOST", 0)
        assert [(m in pos.move_list(), m in lm) for m in others] == by_set
        assert [a for a, _ in by_set] == [pos.is_legal(m) for m in others]
        monkeypatch.undo()
        asked += len(others)
    assert asked > 1000
    hand = ("H2 H2 H4 S5 H5 C5 S6 H6 C6 S7 H7 C7 S8 H8 C8 S9 H9 C9 ST HT CT SJ CJ DJ SQ "
            "CQ CK")
    big = P([hand, "DA", "D3", "DK"], rules=Rules.by_name("long-sequences")).move_list()
    assert len(big) > moves_module.READINGS_SET_AT_MOST and big[len(big) - 1] in big
    assert big._set is None         # (no set made)


def test_a_move_lists_record_is_its_items_record():
    """API, MoveList.record(index): the kernel record of item ``index`` as ``ml[index]``
    counts it, negative indices and the pass included (it gave no bytes for the pass and
    for -1, and item -2's record for -2); out of range an IndexError, as ``ml[index]``."""
    for pos in (P(["S3", "S4 S9 SK", "S5", "S6"], to_move=1, table=["Single", "8", ["S8"]],
                  owner=0), P(["S3 S4 S4", "S5", "S6", "S7"])):
        ml = pos.move_list()
        for index in range(-len(ml), len(ml)):
            assert ml.record(index) == ml[index].record().tobytes(), index
        for index in (len(ml), -len(ml) - 1):
            with pytest.raises(IndexError, match="move index out of range"):
                ml.record(index)
        with pytest.raises(TypeError, match="not 1.0"):
            ml.record(1.0)


def test_move_list_indices_are_whole_numbers():
    """API, MoveList ("a read-only sequence"): an index is a whole number or a slice, as
    for a list: 1.0 or "1" is a TypeError naming it, not a move or an IndexError."""
    ml = P(["S3", "S4 S9", "S5", "S6"], to_move=1, table=["Single", "8", ["S8"]],
           owner=0).move_list()
    assert ml[np.int64(1)] is ml[1] and ml[True] is ml[1]
    for index in (1.0, "1", None):
        with pytest.raises(TypeError, match=re.escape(f"not {index!r}")):
            ml[index]


def test_the_records_behind_move_collections_are_read_only():
    """API, MoveList ("a read-only sequence") and LegalMoves.array: a record written
    under moves already made from it would disagree with them (a key changed in place
    changed the moves iterated afterwards), so the arrays are read-only; a MoveList made
    of the caller's array gets a read-only view and leaves the caller's array writable."""
    pos = P(["S3", "S4 S9 SK", "S5", "S6"], to_move=1, table=["Single", "8", ["S8"]],
            owner=0)
    lm = legal_moves(pos.hand(1), pos.level, pos.table)
    for array in (pos.move_list().array, lm.array):
        with pytest.raises(ValueError, match="read-only"):
            array["key"][:] = 99
    assert [m.key for m in lm] == [m.key for m in pos.legal_moves()[1:]]
    mine = pos.moves_array()
    listed = MoveList(mine, True)
    mine["key"][:] = 0      # (the caller's own array: still theirs to write)
    assert not listed.array.flags.writeable and listed.array.base is not None


def test_move_collections_cannot_be_made_writable_or_changed():
    """API, MoveList ("a read-only sequence") and LegalMoves: a read-only flag on an array
    can be turned off again, and a MoveList's attributes could be set; a player given an
    Observation then made a Match play a pass on lead (has_pass set, item 0 returned) or
    a single of a raised strength (its record written), since the Match plays the items
    its list handed out unchecked. The records are now kept in a bytes, and the
    attributes cannot be set."""
    pos = P(["S3 S4", "S5", "S6", "S7"])
    ml = pos.move_list()
    lm = legal_moves(pos.hand(0), pos.level)
    for array in (ml.array, lm.array, MoveList(pos.moves_array(), False).array):
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.flags.writeable = True
    for name, value in (("has_pass", True), ("array", pos.moves_array())):
        with pytest.raises(AttributeError):
            setattr(ml, name, value)
    assert not ml.has_pass and Move.PASS not in ml
    for name, value in (("hand", Hand("S9")), ("level", 5), ("rules", Rules.platform()),
                        ("beat", single(pos, "S3"))):
        with pytest.raises(AttributeError):
            setattr(lm, name, value)
    # a LegalMoves equals its pickled copy, as a MoveList does
    for p in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(lm, p))
        assert again == lm and hash(again) == hash(lm)
    assert lm != legal_moves(pos.hand(0), pos.level, rules="platform")
    for bad in ([1, 2], np.zeros(3, dtype=np.int16), None):
        with pytest.raises(TypeError, match="one-dimensional MOVE_DTYPE array"):
            MoveList(bad, False)


def test_move_list_index_and_count_compare_readings_as_in_does():
    """API, move_list(): ``in``, ``index(move)`` and ``count(move)`` agree: a pair of 7s
    read at level 2 is not in a level-7 position's list, so index() raises (naming it)
    and count() is 0; Sequence's own index and count compared with == alone (1 and 2)."""
    pos = P(["S7 C7 S3", "S5", "S6", "S8"], level="7")
    ml = pos.move_list()
    at_two = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    at_seven = M(pos, "Pair", "7", "S7 C7")
    assert at_two not in ml and ml.count(at_two) == 0
    with pytest.raises(ValueError, match=re.escape('["Pair", "7", ["S7", "C7"]] is not in '
                                                   'the list')):
        ml.index(at_two)
    i = ml.index(at_seven)
    assert ml[i] == at_seven and ml[i].key == at_seven.key and ml.count(at_seven) == 1
    for j, move in enumerate(ml):
        assert ml.index(move) == j and ml.count(move) == 1
    with pytest.raises(ValueError, match="is not in the list"):
        ml.index(at_seven, i + 1)
    with pytest.raises(ValueError, match="'S7' is not in the list"):
        ml.index("S7")


def test_random_playout_draws_every_legal_move_the_pass_included():
    """API: random_playout plays uniformly random legal moves, the pass counting as one
    move when following. Seat 0 leading with S3 or S4, and seat 1 passing or beating the 8
    with S9: over 2,000 seeds each of the two first moves is drawn 900 to 1,100 times,
    about 4.5 standard deviations (60 seeds and 15 to 45 let a 2:1 bias through; the
    moves stay on the undo stack, the first pushed popped last)."""
    import random
    for pos, choices in ((P(["S3 S4", "S5", "S6", "S7"]), {("S3",), ("S4",)}),
                         (P(["S3", "S9", "S5", "S6"], to_move=1,
                            table=["Single", "8", ["S8"]], owner=0), {(), ("S9",)})):
        drawn = []
        for seed in range(2000):
            game = pos.copy()
            game.random_playout(random.Random(seed))
            while game.depth:
                first = game.pop()
            drawn.append(first.cards)
        assert set(drawn) == choices
        assert all(900 <= drawn.count(c) <= 1100 for c in choices), \
            [drawn.count(c) for c in choices]


def test_a_finished_hand_has_no_moves():
    """RULES 6: once a team is out the hand is over: nobody is to move, and the move
    collections are empty."""
    pos = P(["S3 H3", "S4", "", ""], finished=(2, 3))
    pos.push(pos.parse_move(["Pair", "3", ["H3", "S3"]]))
    assert pos.is_over and pos.to_move is None
    assert (pos.count_moves(), pos.legal_moves(), len(pos.move_list())) == (0, [], 0)


def test_sec7_hands_and_seats_given_as_numpy_values():
    """RULES 7: a hand given as 54 counts of any integer type, or as card kinds in a
    short array, and seats given as numpy integers make the same position, whose seats are
    plain ints (so that its JSON can be written)."""
    lists = [["S3", "H3"], ["S4"], [], ["SB", "SB"]]
    table = Move.from_platform(["Single", "9", ["S9"]], "2")
    expected = Position("2", lists, finished=[2], to_move=1, table=table, owner=0)
    as_counts = [Hand(h).counts.astype(np.int64) for h in lists]
    as_kinds = [np.array(Hand(h).kinds(), dtype=np.uint8) for h in lists]
    for hands in (as_counts, as_kinds, [Hand(h).counts for h in lists]):
        pos = Position("2", hands, finished=[np.int64(2)], to_move=np.int64(1),
                       table=table, owner=np.int64(0))
        assert pos == expected and pos.to_json_str() == expected.to_json_str()
        assert type(pos.to_move) is int and type(pos.owner) is int
        assert all(type(seat) is int for seat in pos.finished)
    # also in a finished hand, whose table play is the one that put seat 2 out
    done = Position("2", [[], ["S4"], [], ["S6"]], finished=[0, 2], to_move=None,
                    table=table, owner=np.int64(2))
    assert type(done.owner) is int and done.owner == 2
    assert json.loads(done.to_json_str())["table"]["owner"] == 2
    assert Position("2", [np.array([1, 2], dtype=np.uint8), ["S4"], ["S5"], ["S6"]]).hand(0) \
        == Hand("H2 C2")
    for hands in (lists[:3], lists + [[]]):
        with pytest.raises(PositionError, match=f"a position has 4 hands, not {len(hands)}"):
            Position("2", hands)


def test_hands_are_hand_objects():
    pos = Position.from_json(SEC7_EXAMPLE)
    assert pos.hands[0] == Hand("S3 S4") and pos.hand(1) == Hand("HR")
    assert pos.counts(3)[Hand("D9").kinds()[0]] == 2
    moves = classify(["D9", "D9"], "7")
    assert [m.type for m in moves] == ["Pair"]


def test_parse_move_reads_platform_actions_and_text_at_the_positions_level_and_rules():
    """Position.parse_move: a bot answering the platform reads its triples (sec. 4
    readings, sec. 5 beating, sec. 7 turn) at the position's own level and rules, without
    passing them along each time. Every legal move of random positions round-trips
    through its triple and its text; cards the seat lacks, a play that does not beat the
    table, a pass on lead and an unreadable triple are refused, naming them."""
    import random
    from guandan_core.moves import MoveError
    from reference_minimax import random_position
    rng = random.Random(26)
    checked = 0
    for _ in range(150):
        pos = random_position(rng, rng.randint(1, 5))
        while pos is not None and not pos.is_over:
            for move in pos.legal_moves():
                assert pos.parse_move(move.to_platform()) == move
                assert pos.parse_move(str(move)) == move
                assert pos.parse_move(move) is move
                checked += 1
            pos.push(rng.choice(pos.legal_moves()))
    assert checked > 1000
    # the level is the position's: H7 is wild at level 7 only
    at7 = P(["H7 S5", "S9", "", ""], finished=(2, 3), level="7")
    assert at7.parse_move(["Pair", "5", ["S5", "H7"]]).cards == ("S5", "H7")
    with pytest.raises(MoveError, match="S5 H7 is not a Pair of rank '5' at level 2"):
        P(["H7 S5", "S9", "", ""], finished=(2, 3)).parse_move(["Pair", "5", ["S5", "H7"]])
    # and so are the rules: a straight flush is a bomb only where the rules say so
    flush = ["StraightFlush", "3", ["S3", "S4", "S5", "S6", "S7"]]
    hands = ["S3 S4 S5 S6 S7", "S9", "", ""]
    assert P(hands, finished=(2, 3)).parse_move(flush).is_bomb
    with pytest.raises(MoveError, match="not a StraightFlush of rank '3'"):
        P(hands, finished=(2, 3), rules="no-sf-bomb").parse_move(flush)
    # text too is read under the position's rules
    text = "StraightFlush 3: S3 S4 S5 S6 S7"
    assert P(hands, finished=(2, 3)).parse_move(text).is_bomb
    with pytest.raises(MoveError, match="not a StraightFlush of rank '3'"):
        P(hands, finished=(2, 3), rules="no-sf-bomb").parse_move(text)
    on_table = P(["S3 S4", "S9", "", ""], to_move=1, finished=(2, 3),
                 table=["Single", "4", ["S4"]], owner=0)
    with pytest.raises(IllegalMoveError, match="it does not hold S8"):
        on_table.parse_move(["Single", "8", ["S8"]])
    lead = P(["S3 S4", "S9", "", ""], finished=(2, 3))
    with pytest.raises(IllegalMoveError, match="seat 0 is on lead and may not pass"):
        lead.parse_move(["PASS", "PASS", "PASS"])
    with pytest.raises(IllegalMoveError, match="does not beat the table play"):
        P(["S3 S4", "S3", "", ""], to_move=1, finished=(2, 3),
          table=["Single", "4", ["S4"]], owner=0).parse_move("Single 3: S3")
    with pytest.raises(MoveError, match="a move is written 'Type rank: cards', not 'S3'"):
        lead.parse_move("S3")
    # a Move read at another level is refused by name (a pair of 7s at level 2 is below
    # the 8s; at level 7 it is the level's pair, above the aces)
    sevens = Move.from_platform(["Pair", "7", ["S7", "C7"]], "2")
    with pytest.raises(IllegalMoveError, match=re.escape(
            '["Pair", "7", ["S7", "C7"]] is not a reading of its cards at level 7')):
        P(["S7 C7", "S9", "", ""], finished=(2, 3), level="7").parse_move(sevens)
    with pytest.raises(MoveError, match=r"a move is \[type, rank, cards\], not 3"):
        lead.parse_move(3)


@pytest.mark.parametrize("seat", [-1, 4, True, 1.0, "1", None])
def test_a_seat_accessor_names_a_seat_that_is_not_one(seat):
    """hand(-1) was seat 3's hand and hand(True) seat 1's; hand(4) an IndexError."""
    pos = Position("2", [["S3"], ["S4"], ["S5"], ["S6"]])
    for name in ("hand", "counts"):
        with pytest.raises(ValueError, match=re.escape(f"{name}: {seat!r} is not a seat 0..3")):
            getattr(pos, name)(seat)
    assert [str(pos.hand(s)) for s in range(4)] == ["S3", "S4", "S5", "S6"]
    assert [int(pos.counts(s).sum()) for s in range(4)] == [1, 1, 1, 1]


def test_a_table_play_that_is_no_json_is_still_a_position_error():
    """API: Position's errors are PositionError (a ValueError): a table play given from
    Python with a value JSON has no form for (bytes) is named, not a TypeError."""
    pos = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"], ["C6", "CQ"],
                                   ["S4", "SK", "D6"]],
           "finished": [], "to_move": 0, "table": {"owner": 1, "play": ["Single", b"3", ["S3"]]}}
    with pytest.raises(PositionError, match=re.escape("table play ['Single', b'3', ['S3']]")):
        Position.from_json(pos)
