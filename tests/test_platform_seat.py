"""PlatformSeat: a Match player on the AI competition platform, from its messages
(RULES.md sections 7, 8 and 9 "platform").

The main check plays whole matches through tests/platform_server.py, which turns a real
Match into the platform's messages: four PlatformSeat clients must play exactly the match
the same players play directly, and at every turn show their player the Observation the
match itself gives. Two messages of the platform's own engine are read too.
"""

import copy
import pickle
import json
import os
import re

import pytest

from guandan_core import Hand, Move, Rules
from guandan_core.cards import format_rank
from guandan_core.match import Match, MatchRules
from guandan_core.platform_seat import PlatformError, PlatformSeat, read_act
from guandan_core.players import GreedyPlayer, RandomPlayer
from platform_server import RecordingGame

DATA = os.path.join(os.path.dirname(__file__), "data")


def _data(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def _through_messages(players, seed, hands, shuffle_seed=0, lead_style="minus-one"):
    clients = [PlatformSeat(p) for p in players]
    server = RecordingGame(clients, seed, shuffle_seed=shuffle_seed, lead_style=lead_style)
    return server, clients, server.play_hands(hands)


def _results(results):
    return [(r.number, r.level, r.leader, r.tribute, r.order, r.levels, r.winner, r.moves)
            for r in results]


def _assert_same_views(server):
    assert len(server.acts) == len(server.shown) > 0
    for i, ((seat, true), shown) in enumerate(zip(server.acts, server.shown)):
        assert shown == true, f"act {i} (seat {seat})"
        assert shown.history == true.history, f"act {i} (seat {seat})"
        assert (shown.counts == true.counts).all(), f"act {i} (seat {seat})"
    for i, (true, shown) in enumerate(server.returns_shown):
        assert shown == true and (shown.counts == true.counts).all(), f"return {i}"


@pytest.mark.parametrize("seed, lead_style", [(5, "minus-one"), (11, "minus-one"),
                                              (11, "owner")])
def test_sec8_random_players_play_the_same_match_through_messages(seed, lead_style):
    """RULES 7, 8: random players (random returned cards too) through the messages play
    the match they play directly, over tribute, double tribute, resistance and returns;
    every Observation, at a play and at a return, equals the match's. Leads are sent
    with greaterPos -1, or naming the last trick's owner."""
    server, _, got = _through_messages([RandomPlayer(s) for s in range(4)], seed, 12,
                                       shuffle_seed=seed, lead_style=lead_style)
    direct = Match([RandomPlayer(s) for s in range(4)], MatchRules.platform(), seed).play(12)
    assert _results(got) == _results(direct)
    assert {r.tribute.kind for r in got} >= {"none", "single", "double"}
    if seed == 11:
        assert any(r.tribute.resisted for r in got)
        assert any(m["stage"] == "anti-tribute" for m in server.sent[0])
    assert sum(len(r.tribute.returns) for r in got) == len(server.returns_shown)
    _assert_same_views(server)
    if lead_style == "owner":       # leads that name the seat's own play, or a partner's
        leads = [(seat, m["greaterPos"]) for seat, sent in enumerate(server.sent)
                 for m in sent if m["type"] == "act" and m["stage"] == "play"
                 and m["greaterPos"] >= 0 and m["curPos"] == -1]
        assert sum(owner == seat for seat, owner in leads) > 20
        assert any(owner == seat ^ 2 for seat, owner in leads)      # after a partner's out


@pytest.mark.parametrize("left_out", ["tribute and back", "back", "anti-tribute"])
def test_sec8_a_hand_whose_tribute_was_not_seen_is_refused_at_its_first_play(left_out):
    """RULES 8: from a game's second hand on, tribute is paid and returned, or resisted,
    before the first play. A seat that saw the last hand end and then sees a first play
    (or is asked for one) without all of that has a wrong picture of who holds which cards,
    and refuses it (with both notifies of a tribute it took no part in, or the
    anti-tribute, left out, it played the whole game on)."""
    server, _, _ = _through_messages([RandomPlayer(s) for s in range(4)], 11, 12,
                                     shuffle_seed=11)
    refused = 0
    for seat in range(4):
        sent = server.sent[seat]
        # the first hand's messages of that kind, where this seat took no part
        cut = []
        for i, m in enumerate(sent):
            if m["type"] != "notify":
                continue
            if left_out == "anti-tribute" and m["stage"] == "anti-tribute":
                cut = [i]
            elif left_out != "anti-tribute" and m["stage"] in left_out.split(" and ") and \
                    all(seat not in entry[:2] for entry in m["result"]):
                cut.append(i)
                if m["stage"] == "back":
                    cut = cut[-len(left_out.split(" and ")):]
            else:
                continue
            if len(cut) == len(left_out.split(" and ")):
                break
        else:
            continue
        whole = PlatformSeat(RandomPlayer(seat))
        for m in sent:
            whole.receive(m)        # (the game as sent reads to its end)
        client = PlatformSeat(RandomPlayer(seat))
        with pytest.raises(PlatformError, match=r"the hand's first (act )?play.* but after the "
                                                r"last hand seats \[[0-9, ]+\] pay tribute and "
                                                r"no (tribute|return) was seen"):
            for i, m in enumerate(sent):
                if i not in cut:
                    client.receive(m)
        refused += 1
    assert refused >= 2


@pytest.mark.parametrize("changes", [dict(tribute=False), dict(tribute_first_last=False)])
def test_sec9_seats_given_match_rules_without_tribute_play_on(changes):
    """RULES 9 (tribute off, or none after a 1st-and-4th finish): a PlatformGame under such
    match rules sends no tribute where the platform's would, and seats given the same
    MatchRules play the whole match as it is played directly (a seat knew only the
    platform's tribute and refused the second hand's first play); a seat that assumes
    the platform's rules refuses the hand where its tribute does not come."""
    from guandan_core.platform_server import PlatformGame
    rules = MatchRules.platform().replace(**changes)
    seats = [PlatformSeat(GreedyPlayer(), rules=rules) for _ in range(4)]
    got = PlatformGame(seats, seed=3, rules=rules).play_hands(12)
    direct = Match([GreedyPlayer() for _ in range(4)], rules, 3).play(12)
    assert _results(got) == _results(direct)
    if changes == dict(tribute=False):
        assert {r.tribute.kind for r in got} == {"none"}
    else:
        assert any(r.order[3] == r.order[0] ^ 2 for r in got[:-1])   # (a 1st-and-4th)
    assert seats[0].rules == rules.core
    with pytest.raises(PlatformError, match="pay tribute and no tribute was seen"):
        PlatformGame([PlatformSeat(GreedyPlayer()) for _ in range(4)], seed=3,
                     rules=rules).play_hands(12)


def _platform(move) -> list:
    return json.loads(json.dumps(move.to_platform()))      # (as a client reads it)


def _assert_public_info(server):
    """The table as the platform shows it, checked against the match's own history. At
    each act play (RULES 7): ``playArea`` each seat's last play of this hand (None before
    its first), ``curPos``/``curAction`` the play just made in this trick (-1 on a lead),
    ``greaterPos``/``greaterAction`` the play to beat (-1 on a lead, minus-one style). At
    each notify play: ``greaterPos``/``greaterAction`` the last play that was not a pass."""
    for seat, sent in enumerate(server.sent):
        acts = iter(obs for s, obs in server.acts if s == seat)
        greater = None
        for m in sent:
            if m["stage"] == "beginning":
                greater = None
            elif m["type"] == "notify" and m["stage"] == "play":
                if m["curAction"][0] != "PASS":
                    greater = [m["curPos"], m["curAction"]]
                assert [m["greaterPos"], m["greaterAction"]] == greater, m
            elif m["type"] == "act" and m["stage"] == "play":
                obs = next(acts)
                last = {s: _platform(move) for s, move in obs.history}
                assert [p["playArea"] for p in m["publicInfo"]] == \
                    [last.get(s) for s in range(4)]
                if obs.table is None:
                    shown = [-1, [None] * 3, -1, [None] * 3]
                else:
                    before, table = obs.history[-1], (obs.table_owner, obs.table)
                    shown = [before[0], _platform(before[1]), table[0], _platform(table[1])]
                assert [m["curPos"], m["curAction"], m["greaterPos"],
                        m["greaterAction"]] == shown
        assert next(acts, None) is None


def test_sec8_greedy_players_play_until_a_game_is_won():
    """RULES 8: greedy players through a won game (gameOver: ``settingTimes`` 0, as
    ``play_hands`` asks for no number of games) and the next match; the table shown at
    every play as the match's history has it."""
    server, clients, got = _through_messages([GreedyPlayer() for _ in range(4)], 2, 40)
    direct = Match([GreedyPlayer() for _ in range(4)], MatchRules.platform(), 2).play(40)
    assert _results(got) == _results(direct)
    assert any(r.winner is not None for r in got), "no game was won: choose another seed"
    _assert_same_views(server)
    _assert_public_info(server)
    for seat, client in enumerate(clients):
        assert [h.order for h in client.hands] == [r.order for r in got]
        assert [format_rank(h.level) for h in client.hands] == [r.level for r in got]
        assert client.game_results[0] == {"stage": "gameOver", "curTimes": 1,
                                          "settingTimes": 0}
    # (the server's restCards give the seats still holding cards, and only them: a seat
    # gone out has no entry, not an empty one, which a client takes too)
    overs = [m for m in server.sent[0] if m.get("stage") == "episodeOver"]
    assert len(overs) == len(got)
    for message in overs:
        assert all(len(cards) > 0 for _, cards in message["restCards"])


def test_the_action_lists_are_shuffled_by_their_own_seed():
    """``shuffle_seed`` orders each act's actionList (as the platform's own lists come in
    no fixed order): another seed, the same actions in another order and the same hand
    played; the same seed, the same lists."""
    def lists(shuffle_seed):
        server, _, got = _through_messages([GreedyPlayer() for _ in range(4)], 4, 1,
                                           shuffle_seed=shuffle_seed)
        return [m["actionList"] for sent in server.sent for m in sent
                if m["type"] == "act"], _results(got)

    (first, played), (again, _), (other, played_other) = lists(0), lists(0), lists(1)
    assert first == again and played == played_other and len(first) == len(other)
    key = json.dumps
    assert all(sorted(map(key, a)) == sorted(map(key, b)) for a, b in zip(first, other))
    assert first != other


class _Answering:
    """A client that answers every act with ``answer(act message)``, and notifies with
    ``notified`` (None: no answer, as a client should)."""

    def __init__(self, answer, notified=None):
        self.answer, self.notified = answer, notified

    def receive(self, text):
        message = json.loads(text)
        return self.answer(message) if message["type"] == "act" else self.notified


@pytest.mark.parametrize("answer", [
    lambda act: {"actIndex": len(act["actionList"])},      # one past indexRange
    lambda act: {"actIndex": -1}, lambda act: {"actIndex": True},
    lambda act: {"actIndex": 0.0}, lambda act: {"actIndex": 0, "extra": 1},
    lambda act: {}, lambda act: [0], lambda act: None])
def test_an_answer_out_of_the_action_list_is_refused(answer):
    """RULES 7: an act is answered with ``{"actIndex": i}``, i from 0 to ``indexRange``;
    anything else is a PlatformError naming the seat and the range, not a crash."""
    game = RecordingGame([_Answering(answer)] * 4, seed=1)
    with pytest.raises(PlatformError, match=r"seat \d answered an act play with .*, not "
                                            r"\{\"actIndex\": 0\.\.\d+\}"):
        game.play_hands(1)


def test_an_answer_to_a_notify_is_refused():
    """RULES 7: a notify message is not answered; a client that does is a PlatformError
    naming the seat and the stage."""
    game = RecordingGame([_Answering(lambda act: {"actIndex": 0}, {"actIndex": 0})] * 4,
                         seed=1)
    with pytest.raises(PlatformError, match=r"seat 0 answered a notify beginning with "
                                            r"\{'actIndex': 0\}"):
        game.play_hands(1)


def test_sec8_sampling_players_see_the_hidden_cards_as_in_the_match():
    """The sampling player deals the unseen cards from the history, the card counts and
    the tribute cards: through the messages it must make the same choices."""
    from solver.players import SamplingPlayer

    def players():
        return [SamplingPlayer(s, deals=4, max_cards=16, node_limit=100_000)
                for s in range(4)]

    server, clients, got = _through_messages(players(), 3, 3)
    direct = Match(players(), MatchRules.platform(), 3).play(3)
    assert _results(got) == _results(direct)
    assert sum(c.player.searched for c in clients) > 10
    _assert_same_views(server)


def test_sec7_the_platforms_follow_list_is_this_engines():
    """RULES 7, 9: an act message of the platform's engine (a Single Q to beat at level A):
    its actionList is exactly this engine's legal moves, pass included."""
    message = _data("platform_act_follow_levelA.json")["message"]
    request = read_act(message)
    # its JSON text reads alike (it was "not an act message"), and text that is no JSON
    # is named as such
    assert read_act(json.dumps(message)) == read_act(json.dumps(message).encode()) == request
    with pytest.raises(PlatformError, match="a message is JSON text: .*: '{\"type\": \"act\"'"):
        read_act('{"type": "act"')
    assert request.level == 12 and request.team_levels == (2, 12)
    assert request.table == Move.from_platform(["Single", "Q", ["SQ"]], "A")
    assert request.table_owner == 2 and request.cards_left == (0, 0, 1, 27)
    from guandan_core import legal_moves
    ours = {Move.PASS, *legal_moves(request.hand, "A", request.table, Rules.platform())}
    assert set(request.actions) == ours and len(request.actions) == len(ours) == 5


def test_sec7_an_act_is_answered_with_the_index_of_the_players_move():
    """RULES 7: the lead list logged from the platform's engine, sent as an act message:
    the answer is the index of the greedy move in the platform's own order."""
    data = _data("platform_actionlist_level2.json")
    seat = PlatformSeat(GreedyPlayer())
    seat.receive({"type": "notify", "stage": "beginning", "myPos": 0,
                  "handCards": data["hand"]})
    answer = seat.receive(_act(data["hand"], data["moves"]))
    chosen = Move.from_platform(data["moves"][answer["actIndex"]], "2", Rules.platform())
    assert chosen == GreedyPlayer()(seat.observation)
    assert chosen.to_platform() == ["Pair", "4", ["H4", "C4"]]     # (its lowest play)


def _act(hand, actions, stage="play", rest=(27, 27, 27, 27), greater=None, level="2",
         ranks=("2", "2")):
    return {"type": "act", "stage": stage, "handCards": list(hand),
            "publicInfo": [{"rest": n, "playArea": None} for n in rest],
            "selfRank": ranks[0], "oppoRank": ranks[1], "curRank": level,
            "curPos": -1 if greater is None else greater[0],
            "curAction": [None] * 3 if greater is None else greater[1],
            "greaterPos": -1 if greater is None else greater[0],
            "greaterAction": [None] * 3 if greater is None else greater[1],
            "actionList": actions, "indexRange": len(actions) - 1}


HAND = "S2 H2 C2 H4 C4 D5 S6 H6 C6 D6 H7 D8 D9 D9 ST HT CT DT SJ DJ CQ CQ CK SA HA CA CA".split()


AFTER_A_HAND = ("2", "3")     # team levels that a won hand leaves: tribute may be due


def _begun(seat=1, player=None):
    client = PlatformSeat(player or GreedyPlayer())
    client.receive({"type": "notify", "stage": "beginning", "myPos": seat, "handCards": HAND})
    return client


def _play(seat, triple):
    return {"type": "notify", "stage": "play", "curPos": seat, "curAction": triple,
            "greaterPos": seat, "greaterAction": triple}


def _deck_without(hand):
    """The cards of the two decks that ``hand`` leaves, in a fixed order."""
    deck = [r + c for c in "SHCD" for r in "3456789TJQKA2"]
    cards = [c[1] + c[0] for c in deck] * 2 + ["SB", "SB", "HR", "HR"]
    for c in hand:
        cards.remove(c)
    return cards


REST = _deck_without(HAND)


def _single(card):
    return ["Single", card[1], [card]]


def _passes(client):
    """The passes that end the open trick, as the plays seen so far make it."""
    while client._owner >= 0:
        client.receive(_play(client._to_move, ["PASS"] * 3))


def _lead_out(client, seat, cards):
    """``seat`` leads ``cards`` one at a time, every other seat passing."""
    for card in cards:
        client.receive(_play(seat, _single(card)))
        if not client._over:
            _passes(client)


def _lead_list(hand=HAND):
    from guandan_core import legal_moves
    return [m.to_platform() for m in legal_moves(Hand(hand), "2", rules=Rules.platform())]


@pytest.mark.parametrize("message, error", [
    ("{not json", "a message is JSON text"),
    ([1, 2], "a message is a JSON object, not [1, 2]"),
    ("null", "a message is a JSON object, not null"),
    ("false", "a message is a JSON object, not false"),
    ({"type": "ask", "stage": "play"}, "unknown message type \"ask\""),
    ({"type": "notify", "stage": "deal"}, "unknown notify stage \"deal\""),
    ({"type": ["notify"], "stage": "play"}, "unknown message type [\"notify\"]"),
    ({"type": "notify", "stage": {"x": 1}}, "unknown notify stage {\"x\": 1}"),
    ("[" * 100000, "a message is JSON text: not valid JSON: nested too deeply"),
    ('{"type": "notify", "type": "act"}', "key 'type' given twice"),
    # (a message without a type was "unknown message type None")
    ({"stage": "play"}, "a message has a type (notify or act); this one has none: "
                        '{"stage": "play"}'),
    ({"type": "act", "stage": "beginning"}, "unknown act stage \"beginning\""),
    ({"type": "notify", "stage": "play", "curPos": 0, "curAction": ["PASS"] * 3},
     "notify play: a hand's messages before its beginning message"),
    (_act(HAND, [["Single", "4", ["H4"]]]),
     "act play: an act message before the hand's beginning message"),
    ({"type": "notify", "stage": "beginning", "myPos": 4, "handCards": HAND},
     "notify beginning: myPos is a seat 0..3, not 4"),
    ({"type": "notify", "stage": "beginning", "myPos": 0, "handCards": HAND[:26]},
     "notify beginning: handCards holds 26 cards, not 27"),
    ({"type": "notify", "stage": "beginning", "myPos": 0, "handCards": HAND[:26] + ["X9"]},
     "unknown card 'X9'"),
    ({"type": "notify", "stage": "beginning", "handCards": HAND},
     "notify beginning: the message has no 'myPos'"),
    # the keys there are quoted: "handCards " (a blank at its end) looked like the one missing
    ({"type": "notify", "stage": "beginning", "handCards ": HAND, "myPos": 0},
     "the message has no 'handCards' (keys: 'type', 'stage', 'handCards ', 'myPos')"),
])
def test_sec7_bad_messages_are_named(message, error):
    """RULES 7: a message that cannot be read raises PlatformError (a ValueError) naming
    what is wrong."""
    client = PlatformSeat(GreedyPlayer())
    with pytest.raises(PlatformError) as info:
        client.receive(message if isinstance(message, str) else json.dumps(message))
    assert error in str(info.value)
    assert isinstance(info.value, ValueError)


def _lead_act(**changes):
    """A lead act (seat to play one of its singles), with ``changes`` (a new actionList
    with its indexRange)."""
    message = _act(HAND, [["Single", "4", ["H4"]], ["Single", "4", ["C4"]]]) | changes
    if isinstance(message["actionList"], list):
        message["indexRange"] = len(message["actionList"]) - 1
    return message


@pytest.mark.parametrize("changes, error", [
    ({"type": "notify"}, "not an act message"),
    # (values named as the JSON they came as: a string with its double quotes, null)
    ({"type": "notify", "stage": "play"}, 'not an act message: {"type": "notify", "stage": '
                                          '"play"'),
    ({"greaterPos": "1"}, 'greaterPos is a seat 0..3 or -1, not "1"'),
    ({"greaterPos": None}, "greaterPos is a seat 0..3 or -1, not null"),
    ({"curRank": "1"}, 'curRank is a rank from 2 to A, not "1"'),
    ({"actionList": []}, "actionList is a non-empty list of actions, not []"),
    ({"actionList": "PASS"}, "actionList is a non-empty list of actions, not \"PASS\""),
    ({"publicInfo": [{"rest": 27}] * 3}, "publicInfo is four"),
    ({"publicInfo": [{"rest": 27}] * 3 + [{"rest": 29}]}, "publicInfo is four"),
    ({"publicInfo": [{"rest": 27}] * 3 + [27]}, "publicInfo is four"),
    ({"greaterPos": 0, "greaterAction": [None] * 3}, "greaterPos is 0 but greaterAction is"),
    ({"handCards": " ".join(HAND)}, "handCards is a list of card strings, not"),
    ({"handCards": None}, "handCards is a list of card strings, not null"),
    ({"handCards": {"S2": 1}}, "handCards is a list of card strings, not"),
    # (card indices are no card strings, an int no rank: API.md, ranks are strings)
    ({"handCards": [0, 1]}, "handCards is a list of card strings, not [0, 1]"),
    ({"curRank": 2}, 'curRank is a rank such as "2" or "A", not 2'),
    ({"selfRank": 2}, 'selfRank is a rank such as "2" or "A", not 2'),
    ({"publicInfo": [{"rest": 27}] * 5}, "publicInfo is four"),
    ({"greaterPos": -2}, "greaterPos is a seat 0..3 or -1, not -2"),
    ({"greaterPos": 2, "greaterAction": ["PASS"] * 3},
     "greaterAction is a pass, with greaterPos 2"),
])
def test_sec7_malformed_act_fields_are_named(changes, error):
    """RULES 7: each key of an act message that read_act reads is checked, and a bad one
    is a PlatformError naming it (API.md: ranks are strings, greaterPos is -1 or a seat,
    and a play to beat is no pass)."""
    with pytest.raises(PlatformError, match=re.escape(error)):
        read_act(_lead_act(**changes))


def test_sec7_malformed_actions_and_plays_are_named():
    """RULES 7: an action whose type is not a string, a tribute action of an unknown
    card, a play that is not [type, rank, cards] or a pass that carries cards: each a
    PlatformError naming it. A lead's greaterAction is not read (the platform leaves the
    last trick's there)."""
    leftover = read_act(_lead_act(greaterPos=-1, greaterAction=["Single", "4", ["H4"]]))
    assert leftover.table is None and leftover.table_owner is None
    for message, error in (
            (_lead_act(actionList=[[["Single"], "4", ["H4"]]]), 'unknown move type ["Single"]'),
            (_act(HAND, [["tribute", "tribute", ["XX"]]], stage="tribute",
                  ranks=AFTER_A_HAND), "unknown card 'XX'"),
            # a tribute action is ["tribute", "tribute", [card]]: one card, named twice
            (_act(HAND, [["tribute", "back", ["S2"]]], stage="tribute", ranks=AFTER_A_HAND),
             'action 0 is ["tribute", "tribute", [card]], not ["tribute", "back", ["S2"]]'),
            (_act(HAND, [["tribute", "tribute", ["S2", "C2"]]], stage="tribute",
                  ranks=AFTER_A_HAND), 'action 0 is ["tribute", "tribute", [card]], not')):
        with pytest.raises(PlatformError, match=re.escape(error)):
            read_act(message).actions
    with pytest.raises(PlatformError, match=re.escape('unknown move type ["Single"]')):
        _begun().receive(_lead_act(actionList=[["Single", "4", ["H4"]],
                                               [["Single"], "4", ["H4"]]]))
    for triple, error in ((["Single", ["S4"]], "is [type, rank, cards], not"),
                          (["Single", "4", ["S4"], "x"], "is [type, rank, cards], not"),
                          (["PASS", "PASS", ["S3"]], "malformed pass")):
        with pytest.raises(PlatformError, match=re.escape(error)):
            _begun().receive(_play(0, triple))


def test_sec7_a_message_that_contradicts_the_earlier_ones_is_refused():
    """RULES 7: a missed or wrong message is caught at the next act, never played on."""
    actions = _lead_list()
    # a play of another seat missed: its card count disagrees
    client = _begun()
    with pytest.raises(PlatformError, match=r"publicInfo gives \[26, 27, 27, 27\] cards "
                                            r"left, the plays seen leave \[27, 27, 27, 27\]"):
        client.receive(_act(HAND, actions, rest=(26, 27, 27, 27)))
    # the seat's own play missed: its hand disagrees
    client = _begun()
    with pytest.raises(PlatformError, match=r"handCards differs .* \(more: none; fewer: "
                                            r"D5\)"):
        client.receive(_act([c for c in HAND if c != "D5"], actions))
    # an own play of a card not held
    with pytest.raises(PlatformError, match="does not hold S3"):
        _begun().receive(_play(1, ["Single", "3", ["S3"]]))
    # a seat that is out plays again, or plays more cards than it holds
    client = _begun()
    _lead_out(client, 0, REST[:27])
    with pytest.raises(PlatformError, match=re.escape(
            f"seat 0's {json.dumps(_single(REST[30]))}: seat 0 went out already")):
        client.receive(_play(0, _single(REST[30])))
    client = _begun()
    _lead_out(client, 0, REST[:26])
    with pytest.raises(PlatformError, match=r"2 cards, but seat 0 holds 1"):
        client.receive(_play(0, ["Pair", "3", REST[27:29]]))
    # a card seen three times (this seat holds one HA)
    client = _begun()
    client.receive(_play(0, _single("HA")))
    client.receive(_play(1, ["PASS"] * 3))
    with pytest.raises(PlatformError, match="more than the two copies of HA"):
        client.receive(_play(2, _single("HA")))
    # the level changes within a hand
    client = _begun()
    client.receive(_act(HAND, actions))
    with pytest.raises(PlatformError, match="curRank 3 changed within the hand"):
        client.receive(_act(HAND, actions, level="3"))
    # RULES 8: the hand is played at the level of one team, and the teams' levels do not
    # change within it (both were taken as they came, and shown to the player)
    with pytest.raises(PlatformError, match=r"curRank 5 is neither team's level \(selfRank "
                                            r"2, oppoRank 3\)"):
        _begun().receive(_act(HAND, _lead_list(), level="5", ranks=("2", "3")))
    client = _begun()
    client.receive(_act(HAND, actions, ranks=("2", "4")))
    for ranks in (("9", "4"), ("2", "K")):
        with pytest.raises(PlatformError, match=re.escape(
                f"selfRank {ranks[0]} and oppoRank {ranks[1]} changed within the hand (they "
                f"were 2 and 4)")):
            client.receive(_act(HAND, actions, ranks=ranks))


def test_sec7_an_action_list_that_is_not_the_legal_moves_is_refused():
    """RULES 7, 9: a list missing a legal move, holding one that is not legal, or
    listing one twice is refused and named."""
    actions = _lead_list()
    with pytest.raises(PlatformError, match=r"1 move missing from it \(Single 5: D5\), "
                                            "none extra"):
        _begun().receive(_act(HAND, [a for a in actions if a != ["Single", "5", ["D5"]]]))
    # (the missing moves in text order, three named at most)
    singles = [["Single", c[1], [c]] for c in ("D5", "H7", "D8", "CK")]
    with pytest.raises(PlatformError, match=re.escape(
            "3 moves missing from it (Single 5: D5, Single 7: H7, Single 8: D8), none extra")):
        _begun().receive(_act(HAND, [a for a in actions if a not in singles[:3]]))
    with pytest.raises(PlatformError, match=re.escape(
            "4 moves missing from it (Single 5: D5, Single 7: H7, Single 8: D8, ...), "
            "none extra")):
        _begun().receive(_act(HAND, [a for a in actions if a not in singles]))
    with pytest.raises(PlatformError, match=r"0 moves missing from it, Single 3: S3 extra"):
        _begun().receive(_act(HAND, actions + [["Single", "3", ["S3"]]]))
    with pytest.raises(PlatformError, match="none extra, Single 5: D5 listed more than once"):
        _begun().receive(_act(HAND, actions + [["Single", "5", ["D5"]]]))
    with pytest.raises(PlatformError, match=r"action 2: .*is not a Pair"):
        _begun().receive(_act(HAND, actions[:2] + [["Pair", "4", ["H4", "D5"]]]))
    bad = _act(HAND, actions)
    bad["indexRange"] = 3
    with pytest.raises(PlatformError, match=f"indexRange is 3 for {len(actions)} actions"):
        _begun().receive(bad)


def test_sec7_a_player_that_answers_an_illegal_move_is_refused():
    """RULES 7: the player's answer must be one of the legal moves."""
    for answer, error in ((["Single", "3", ["S3"]], "is not one of the"),
                          ("S3", "the player answered 'S3'")):
        client = _begun(player=lambda obs, a=answer: a)
        with pytest.raises(PlatformError, match=error):
            client.receive(_act(HAND, _lead_list()))


def test_sec8_tribute_and_return_acts():
    """RULES 8: the payer gives its highest card that is not wild (the first in suit
    order of several), the receiver returns a card of rank 10 or lower, not of the level;
    offers outside those rules are refused; the cards move with the notify messages."""
    payer = _begun(seat=3)
    offered = [["tribute", "tribute", ["C2"]], ["tribute", "tribute", ["S2"]]]  # H2 is wild
    answer = payer.receive(_act(HAND, offered, stage="tribute", ranks=AFTER_A_HAND))
    assert offered[answer["actIndex"]][2] == ["S2"]
    with pytest.raises(PlatformError, match="CK is offered as tribute, but it is not one of "
                                            "the seat's highest"):
        _begun(seat=3).receive(_act(HAND, offered + [["tribute", "tribute", ["CK"]]],
                                    stage="tribute", ranks=AFTER_A_HAND))
    payer.receive({"type": "notify", "stage": "tribute", "result": [[3, 0, "S2"]]})
    assert "S2" not in payer.hand.cards()
    # the receiver
    receiver = _begun(seat=0)
    receiver.receive({"type": "notify", "stage": "tribute", "result": [[3, 0, "S2"]]})
    held = receiver.hand.cards()
    assert len(held) == 28
    backs = [["back", "back", [c]] for c in ("H4", "C4", "D5", "S6", "H6", "C6", "D6", "H7",
                                              "D8", "D9", "ST", "HT", "CT", "DT")]
    answer = receiver.receive(_act(held, backs, stage="back", rest=(28, 27, 27, 26),
                                 ranks=AFTER_A_HAND))
    assert backs[answer["actIndex"]][2] == ["H4"]
    assert receiver.observation.cards_left == (28, 27, 27, 26)
    with pytest.raises(PlatformError, match=r"the cards offered to return \(H4 SA\) are not"):
        receiver.receive(_act(held, [["back", "back", ["H4"]], ["back", "back", ["SA"]]],
                              stage="back", ranks=AFTER_A_HAND))
    # every card of rank 10 or lower is the receiver's to choose from: one left out of the
    # offer (DT) is refused too
    with pytest.raises(PlatformError, match=r"the cards offered to return \(H4 .* HT CT\) "
                                            r"are not the cards a receiver may return"):
        copy.deepcopy(receiver).receive(_act(held, backs[:-1], stage="back",
                                             rest=(28, 27, 27, 26), ranks=AFTER_A_HAND))
    # the platform must return the card the seat chose (H4), no other
    with pytest.raises(PlatformError, match="this seat offered H4"):
        copy.deepcopy(receiver).receive(_notify("back", result=[[0, 3, "C4"]]))
    receiver.receive(_notify("back", result=[[0, 3, "H4"]]))
    assert "H4" not in receiver.hand.cards() and len(receiver.hand.cards()) == 27
    chooser = _begun(seat=0, player=RandomPlayer(1))
    chooser.player.choose_return = lambda obs, allowed: "S2"
    chooser.receive({"type": "notify", "stage": "tribute", "result": [[3, 0, "S2"]]})
    with pytest.raises(PlatformError, match="the player returns 'S2', not one of"):
        chooser.receive(_act(held, backs, stage="back", ranks=AFTER_A_HAND))
    with pytest.raises(PlatformError, match="seat 2 cannot give a card to itself"):
        _begun().receive({"type": "notify", "stage": "tribute", "result": [[2, 2, "S3"]]})
    with pytest.raises(PlatformError, match=r'action 0 is \["tribute", "tribute", \[card\]\]'):
        _begun(seat=3).receive(_act(HAND, [["tribute", "tribute", "SA"]], stage="tribute",
                                    ranks=AFTER_A_HAND))


def test_sec6_plays_must_follow_the_turn_order():
    """RULES 6: whose turn it is follows from the plays (a trick ends when it comes back
    to its owner, who leads; an owner who is out hands the lead to its partner); a play
    out of turn, a pass on lead, an act for a seat whose turn it is not, are refused."""
    client = _begun()
    with pytest.raises(PlatformError, match="a pass on the hand's first lead"):
        client.receive(_play(0, ["PASS"] * 3))
    client.receive(_play(0, _single("S3")))
    with pytest.raises(PlatformError, match="but by the plays seen it is seat 1's turn"):
        client.receive(_play(2, _single("S4")))
    with pytest.raises(PlatformError, match="but by the plays seen it is seat 1's turn"):
        _lead = _begun(seat=2)
        _lead.receive(_play(0, _single("S3")))
        _lead.receive(_act(HAND, _lead_list(), rest=(26, 27, 27, 27)))
    _passes(client)                             # seats 1, 2, 3 pass: seat 0 leads again
    with pytest.raises(PlatformError, match="a pass on lead"):
        client.receive(_play(0, ["PASS"] * 3))
    # an owner who went out: its partner leads once the others pass
    client = _begun()
    _lead_out(client, 0, REST[:27])
    assert client._to_move == 2 and client._finished == [0]
    with pytest.raises(PlatformError, match="it is seat 2's turn"):
        client.receive(_play(3, _single("S3")))


def test_sec5_another_seats_play_that_does_not_beat_the_table_is_refused():
    """RULES 5: a play of another seat must beat the play on the table, whether it comes
    before this seat's first act (read then, once the act gives the level) or after."""
    # before the level is known: seat 1's 3 over seat 0's 5, named at seat 3's first act
    client = _begun(seat=3)
    for seat, triple in ((0, _single("S5")), (1, _single("S3")), (2, ["PASS"] * 3)):
        client.receive(_play(seat, triple))
    with pytest.raises(PlatformError, match=re.escape(
            "seat 1's Single 3: S3 does not beat seat 0's Single 5: S5, the play on the "
            "table (RULES sec. 5)")):
        client.receive(_act(HAND, [["PASS"] * 3] + _beating("S3"), rest=(26, 26, 27, 27),
                            greater=(1, _single("S3"))))
    # after it: seat 2's 3 over this seat's answer to seat 0's 3 (a 4)
    client = _begun()
    client.receive(_play(0, _single("S3")))
    client.receive(_act(HAND, [["PASS"] * 3] + _beating("S3"), rest=(26, 27, 27, 27),
                        greater=(0, _single("S3"))))
    answer = client._answered
    assert answer is not None and answer.rank == "4"
    client.receive(_play(1, answer.to_platform()))
    with pytest.raises(PlatformError, match=re.escape(
            f"seat 2's Single 3: S3 does not beat seat 1's {answer}, the play on the table")):
        client.receive(_play(2, _single("S3")))
    client.receive(_play(2, _single("S5")))         # (a play that beats it is taken)
    assert client._owner == 2


def test_sec6_the_messages_table_must_be_the_one_the_plays_leave():
    """RULES 6: at an act the table is the one the plays leave; a lead that still names
    the trick's owner (the seat itself, or its partner who went out) is read as a lead;
    anything else that disagrees is refused."""
    follow = _act(HAND, [["PASS"] * 3] + _beating("S3"), rest=(26, 27, 27, 27),
                  greater=(0, _single("S3")))
    client = _begun()
    client.receive(_play(0, _single("S3")))
    client.receive(copy.deepcopy(follow))
    assert client.observation.table == Move.from_platform(_single("S3"), "2")
    assert client.observation.table_owner == 0
    # the message says lead, or names another play or owner
    for greater, error in ((None, "the message gives on lead, but by the plays seen seat "
                                  "0's Single 3: S3 is to beat"),
                           ((0, _single("S5")), "greaterAction Single 5: S5, but by the "
                                                "plays seen seat 0's Single 3: S3"),
                           ((2, _single("S3")), "greaterPos 2")):
        client = _begun()
        client.receive(_play(0, _single("S3")))
        bad = _act(HAND, [["PASS"] * 3] + _beating("S3"), rest=(26, 27, 27, 27),
                   greater=greater)
        with pytest.raises(PlatformError, match=re.escape(error)):
            client.receive(bad)
    # seat 1 leads a trick that came back to it: the message may still name its play
    client = _begun()
    client.receive(_play(0, _single("S3")))
    client.receive(_play(1, _single("H4")))
    _passes(client)
    lead = _act([c for c in HAND if c != "H4"], _lead_list([c for c in HAND if c != "H4"]),
                rest=(26, 26, 27, 27), greater=(1, _single("H4")))
    client.receive(lead)
    assert client.observation.table is None and client.observation.on_lead
    # a seat that is told to follow an opponent's play on lead is refused
    client = _begun()
    client.receive(_play(0, _single("S3")))
    client.receive(_play(1, _single("H4")))
    _passes(client)
    lead["greaterPos"], lead["greaterAction"] = 0, _single("S3")
    with pytest.raises(PlatformError, match="greaterPos 0, greaterAction Single 3: S3, but "
                                            "by the plays seen this seat is on lead"):
        client.receive(lead)


def _beating(card):
    from guandan_core import legal_moves
    table = Move.from_platform(_single(card), "2")
    return [m.to_platform() for m in legal_moves(Hand(HAND), "2", table, Rules.platform())]


def _team_0_out():
    """Seat 1's client after seats 0 and 2 went out (seat 2 takes the lead from seat 0)."""
    client = _begun()
    _lead_out(client, 0, REST[:27])
    _lead_out(client, 2, REST[27:54])
    assert client._over and client._finished == [0, 2]
    return client


def _hand_ended():
    """Seat 1's client after the hand of :func:`_team_0_out` has ended (its episodeOver)."""
    client = _team_0_out()
    client.receive({"type": "notify", "stage": "episodeOver", "order": [0, 2, 1, 3],
                    "curRank": "2", "restCards": [[1, HAND], [3, REST[54:81]]]})
    assert not client.in_hand
    return client


def test_sec8_episode_over_must_agree_with_the_plays():
    """RULES 6, 8: the hand must be over; the finishing order must start with the seats
    seen going out; the rest cards must be those of every seat still holding cards, this
    seat's own its hand, and no card more than twice with the cards played."""
    rest3 = REST[54:81]
    end = {"type": "notify", "stage": "episodeOver", "order": [0, 2, 1, 3], "curRank": "2",
           "restCards": [[1, HAND], [3, rest3]]}
    client = _begun()
    _lead_out(client, 0, REST[:27])
    with pytest.raises(PlatformError, match=r"the hand is not over by the plays seen \(seats "
                                            r"out: \[0\]"):
        client.receive(end)
    with pytest.raises(PlatformError, match=re.escape(
            f"notify play: seat 1's {json.dumps(_single('S3'))} after the hand is over "
            "(seats [0, 2] are out)")):
        _team_0_out().receive(_play(1, _single("S3")))
    bad_cases = [
        ({"order": [2, 0, 1, 3]}, r"order \[2, 0, 1, 3\] does not start with the seats seen "
                                  r"going out \[0, 2\]"),
        ({"order": [None, 0, 1, 3]}, r"order is the four seats in finishing order, not "
                                     r"\[null, 0, 1, 3\]"),
        ({"order": [0, 2, 1, 1]}, "order is the four seats"),
        ({"restCards": 5}, "restCards is a list of .seat, cards., not 5"),
        ({"restCards": [[1, HAND]]}, r"restCards leaves out seats \[3\]"),
        ({"restCards": [[3, rest3]]}, r"restCards leaves out seats \[1\]"),
        ({"restCards": [[1, HAND], [3, rest3[:26]]]}, "restCards gives seat 3 26 cards, but "
                                                      "the plays leave it 27"),
        ({"restCards": [[1, HAND], [3, rest3], [3, rest3]]}, "gives seat 3 27 cards again"),
        ({"restCards": [[1, HAND[:26] + ["S3"]], [3, rest3]]}, "restCards gives this seat"),
        ({"restCards": [[1, HAND], [3, rest3[:26] + ["HA"]]]},
         "more than the two copies of HA"),
        ({"restCards": [[1, HAND], [3, rest3, "extra"]]},
         re.escape("a restCards entry is [seat, cards], not")),
        ({"restCards": [[0, ["S3"]], [1, HAND], [3, rest3]]},
         "restCards gives seat 0 1 cards, but the plays leave it 0"),
        ({"restCards": [[0, []], [1, HAND], [0, []], [3, rest3]]},
         "gives seat 0 0 cards again"),
    ]
    for change, error in bad_cases:
        with pytest.raises(PlatformError, match=error):
            _team_0_out().receive(end | change)
    client = _team_0_out()
    client.receive(end)
    assert client.hands[-1].order == (0, 2, 1, 3)
    assert client.hands[-1].rest == {1: sorted(HAND, key=_kind), 3: sorted(rest3, key=_kind)}
    # (API.md: an empty entry for a seat gone out is taken, and not kept)
    client = _team_0_out()
    client.receive(end | {"restCards": [[2, []], [1, HAND], [0, []], [3, rest3]]})
    assert client.hands[-1].rest == {1: sorted(HAND, key=_kind), 3: sorted(rest3, key=_kind)}
    # (said as it is: a hand is over, the next has not begun; it said "no hand yet")
    with pytest.raises(PlatformError, match="no hand now: the last hand is over and the next "
                                            "one's beginning message has not come"):
        client.hand
    assert not client.in_hand and not PlatformSeat(GreedyPlayer()).in_hand
    with pytest.raises(PlatformError, match="no hand yet: the beginning message has not come"):
        PlatformSeat(GreedyPlayer()).hand


def test_sec8_episode_over_at_another_level_is_refused():
    """RULES 8: a hand is played at one level; an episodeOver whose curRank is not the
    level the hand's acts gave is refused. Seat 0 answers its first lead at level 2 and
    plays out, seat 2 goes out after it."""
    client = _begun(seat=0)
    actions = _lead_list()
    led = actions[client.receive(_act(HAND, actions))["actIndex"]]
    client.receive(_play(0, led))
    _passes(client)
    _lead_out(client, 0, (Hand(HAND) - Hand(led[2])).cards())
    _lead_out(client, 2, REST[:27])
    assert client._over and client._finished == [0, 2]
    end = {"type": "notify", "stage": "episodeOver", "order": [0, 2, 1, 3], "curRank": "3",
           "restCards": [[1, REST[27:54]], [3, REST[54:81]]]}
    with pytest.raises(PlatformError, match="curRank 3 is not the hand's level 2"):
        copy.deepcopy(client).receive(end)
    client.receive(end | {"curRank": "2"})
    assert client.hands[-1].order == (0, 2, 1, 3)
    assert format_rank(client.hands[-1].level) == "2"


def test_sec6_an_act_after_the_hand_is_over_is_refused():
    """RULES 6: the hand ends when both seats of a team are out; an act play after that
    (card counts and hand as the plays leave them) is refused, naming why."""
    client = _team_0_out()
    with pytest.raises(PlatformError, match=re.escape("an act after the hand is over (seats "
                                                      "[0, 2] are out)")):
        client.receive(_act(HAND, _lead_list(), rest=(0, 27, 0, 27)))


def test_sec7_a_seat_keeps_its_position_from_hand_to_hand():
    """A seat is the order its client connected in (myPos), the same in every hand: a
    beginning message that gives it another is refused."""
    client = _hand_ended()
    with pytest.raises(PlatformError, match="myPos is 2, but this seat was seat 1"):
        client.receive({"type": "notify", "stage": "beginning", "myPos": 2,
                        "handCards": HAND})
    client.receive({"type": "notify", "stage": "beginning", "myPos": 1, "handCards": HAND})
    assert client.in_hand and client.seat == 1


def test_sec8_the_next_hand_or_game_waits_for_the_hands_episode_over():
    """RULES 8: a hand ends before the next begins or the game ends, and the platform says
    so with episodeOver. A beginning, gameOver or gameResult before it (after the hand's
    beginning, its first plays, or all of them) is refused, naming the hand: the seat had
    started a new hand over the old one, or noted the game's end and played on."""
    endings = ({"stage": "beginning", "myPos": 1, "handCards": HAND},
               {"stage": "gameOver", "curTimes": 1, "settingTimes": 1},
               {"stage": "gameResult", "victoryNum": [1, 0, 1, 0], "draws": [0, 0, 0, 0]})
    for during in (_begun, _team_0_out):
        for ending in endings:
            client = during()
            with pytest.raises(PlatformError, match=re.escape(
                    f"notify {ending['stage']}: a {ending['stage']} message during hand 1, "
                    f"whose episodeOver has not come")):
                client.receive({"type": "notify"} | ending)
            assert client.in_hand and client.game_results == []
    # after the episodeOver each is taken, and the second hand is named in the refusal
    for ending in endings:
        client = _hand_ended()
        client.receive({"type": "notify"} | ending)
    assert client.game_results == [{"stage": "gameResult", "victoryNum": [1, 0, 1, 0],
                                    "draws": [0, 0, 0, 0]}]
    client = _hand_ended()
    client.receive({"type": "notify"} | endings[0])
    with pytest.raises(PlatformError, match="during hand 2, whose episodeOver"):
        client.receive({"type": "notify"} | endings[1])


def test_sec7_an_answer_is_checked_against_the_play_that_follows_it_only():
    """RULES 7: the notify play after an act must be the move answered; once played, the
    answer is done with: a later play of this seat's that no act asked for is taken as
    it comes, not compared with the old answer."""
    client = _begun()
    client.receive(_play(0, _single("S3")))
    follow = _act(HAND, [["PASS"] * 3] + _beating("S3"), rest=(26, 27, 27, 27),
                  greater=(0, _single("S3")))
    chosen = follow["actionList"][client.receive(follow)["actIndex"]]
    assert chosen != ["PASS"] * 3
    client.receive(_play(1, chosen))
    _passes(client)                             # seats 2, 3, 0 pass: seat 1 leads
    assert client._to_move == 1
    other = next(c for c in HAND if c not in chosen[2] and HAND.count(c) == 1)
    client.receive(_play(1, _single(other)))
    assert other not in client.hand.cards() and client._to_move == 2


def test_sec8_an_act_tribute_for_a_seat_that_does_not_pay_is_refused():
    """RULES 8: after a 1st-and-2nd finish both losers pay (and the winners go up 3
    levels); a seat of the winning team that saw the hand end, asked for tribute in the
    next hand, refuses."""
    client = _begun(seat=1)
    _lead_out(client, 1, HAND)                  # seat 1 plays out its own hand
    _lead_out(client, 3, REST[:27])
    assert client._over and client._finished == [1, 3]
    client.receive({"type": "notify", "stage": "episodeOver", "order": [1, 3, 0, 2],
                    "curRank": "2", "restCards": [[0, REST[27:54]], [2, REST[54:81]]]})
    client.receive({"type": "notify", "stage": "beginning", "myPos": 1, "handCards": HAND})
    offered = [["tribute", "tribute", ["C2"]], ["tribute", "tribute", ["S2"]]]
    with pytest.raises(PlatformError, match=re.escape(
            "an act tribute for seat 1, but after the last hand seats [0, 2] pay tribute")):
        client.receive(_act(HAND, offered, stage="tribute", level="5", ranks=("5", "2")))


def _kind(card):
    from guandan_core.cards import parse_card
    return parse_card(card)


def test_sec7_the_view_shown_is_not_changed_by_later_messages():
    """The Observation a client made is what the player was shown: later plays and acts
    make new ones and leave it as it was (it also survives copying)."""
    client = _begun()
    client.receive(_act(HAND, _lead_list()))
    shown = client.observation
    kept = copy.deepcopy(shown)
    led = GreedyPlayer()(shown).to_platform()
    client.receive(_play(1, led))
    client.receive(_play(2, ["PASS"] * 3))
    client.receive(_play(3, ["PASS"] * 3))
    client.receive(_play(0, ["PASS"] * 3))
    left = (Hand(HAND) - Hand(led[2])).cards()
    client.receive(_act(left, _lead_list(left), rest=(27, 27 - len(led[2]), 27, 27)))
    assert client.observation is not shown and len(client.observation.history) == 4
    assert shown == kept and shown.history == () and (shown.counts == kept.counts).all()


def test_sec7_the_platform_must_play_the_move_the_seat_answered():
    """RULES 7: the notify play of this seat's own turn must be the move it answered (a
    server that took another answer for it is caught)."""
    client = _begun()
    client.receive(_play(0, _single("S3")))
    follow = _act(HAND, [["PASS"] * 3] + _beating("S3"), rest=(26, 27, 27, 27),
                  greater=(0, _single("S3")))
    chosen = follow["actionList"][client.receive(follow)["actIndex"]]
    other = next(a for a in follow["actionList"] if a != chosen and a[0] == "Single")
    with pytest.raises(PlatformError, match=r"the platform played .* for this seat, which "
                                            r"answered "):
        copy.deepcopy(client).receive(_play(1, other))
    client.receive(_play(1, chosen))            # the move it answered: taken
    assert client._to_move == 2


class _LastSuitGreedy(GreedyPlayer):
    """Greedy, but pays the last of its highest cards in suit order as tribute."""

    def choose_tribute(self, obs, allowed_cards):
        assert allowed_cards == sorted(allowed_cards, key=lambda c: "SHCD".index(c[0])) or \
            all(c[0] not in "SHCD" for c in allowed_cards)
        return allowed_cards[-1]


def test_sec8_a_payer_chooses_among_its_highest_cards_through_the_messages():
    """RULES 8: the server offers every suit of the payer's highest rank, as the platform
    does; a player with choose_tribute picks one, in the match and through the messages
    alike."""
    players = [_LastSuitGreedy() for _ in range(4)]
    server, _, got = _through_messages(players, 2, 30)
    events = []
    direct = Match([_LastSuitGreedy() for _ in range(4)], MatchRules.platform(), 2,
                   on_event=events.append).play(30)
    assert _results(got) == _results(direct)
    from guandan_core.cli_play import check_log
    assert check_log([json.dumps(e) for e in events]).startswith("valid: ")
    plain = Match([GreedyPlayer() for _ in range(4)], MatchRules.platform(), 2).play(30)
    assert _results(got) != _results(plain)             # the choice made a difference
    offers = [len(m["actionList"]) for sent in server.sent for m in sent
              if m["type"] == "act" and m["stage"] == "tribute"]
    assert offers and max(offers) > 1
    _assert_same_views(server)


def _notify(stage, **keys):
    return {"type": "notify", "stage": stage, **keys}


BACKS = [["back", "back", [c]] for c in ("H4", "C4", "D5", "S6", "H6", "C6", "D6", "H7",
                                          "D8", "D9", "ST", "HT", "CT", "DT")]


def test_sec8_tribute_messages_out_of_order_are_refused():
    """RULES 8: a hand's tribute comes once, before its first play: payers asked, the
    tribute, receivers asked, the returns (each to its payer), or resistance instead; a
    message out of that order, or one that moves a third copy of a card, is refused
    before it changes the seat's cards."""
    def refused(seat, messages, pattern):
        with pytest.raises(PlatformError, match=pattern):
            for m in messages:
                seat.receive(m)
        return seat

    def unchanged(seat):
        fresh = _begun(seat=0)
        assert seat.hand.cards() == fresh.hand.cards()
        assert (seat._cards_left, seat._exchanges) == (fresh._cards_left, fresh._exchanges)

    # a card this seat holds twice cannot come from another seat
    seat = refused(_begun(seat=0), [_notify("tribute", result=[[1, 0, "D9"]])],
                   "this seat holds both copies of D9")
    unchanged(seat)
    # ... nor does an entry before it in the same message change anything (the S5 paid
    # to this seat was kept, and counted, when the second entry was refused)
    unchanged(refused(_begun(seat=0), [_notify("tribute", result=[[1, 0, "S5"],
                                                                 [3, 2, "D9"]])],
                      r'\[3, 2, "D9"\]: this seat holds both copies of D9'))
    refused(_begun(seat=0), [_notify("tribute", result=[[1, 3, "D9"]])],
            "this seat holds both copies of D9")
    tribute = _notify("tribute", result=[[1, 3, "S5"]])
    refused(_begun(seat=0), [tribute, tribute], "a tribute stage after tribute")
    refused(_begun(seat=0), [_play(0, _single("S2")), tribute],
            "a tribute stage after the hand's first play")
    refused(_begun(seat=0), [_notify("back", result=[[3, 1, "S5"]])],
            "a back stage before any tribute is paid")
    # returns go back to the seats that paid, one each
    refused(_begun(seat=0), [tribute, _notify("back", result=[[3, 2, "S5"]])],
            r"each receiver returns one card to the seat that paid it \(3 to 1\)")
    refused(_begun(seat=0), [_notify("tribute", result=[[1, 3, "S5"], [1, 0, "S4"]])],
            "names a seat twice as giver or receiver")
    refused(_begun(seat=0), [tribute, _notify("back", result=[[3, 1, "S5"]]), tribute],
            "a tribute stage after back")
    refused(_begun(seat=0), [_notify("anti-tribute", antiPos=[1, 1])], "names a seat twice")
    # messages of the wrong shape (on a seat that has not seen a hand end, too)
    refused(_begun(seat=0), [_notify("anti-tribute", antiPos=[7])],
            re.escape("antiPos is a seat 0..3, not 7"))
    # at most the two losers pay, so one or two seats resist
    for seats in ([], [1, 2, 3]):
        refused(_begun(seat=0), [_notify("anti-tribute", antiPos=seats)],
                re.escape(f"antiPos is a list of one or two seats, not {seats}"))
    refused(_begun(seat=0), [_notify("tribute", result=[[1, 3, 5]])],
            'a card is a string such as "S3", not 5')
    # each winner receives one card: two tributes to seat 0 are refused
    refused(_begun(seat=0), [_notify("tribute", result=[[1, 0, "S5"], [3, 0, "S4"]])],
            "names a seat twice as giver or receiver")
    for result in ([], [[3, 0, "S2"], [1, 2, "S3"], [0, 1, "S4"]]):
        refused(_begun(seat=0), [_notify("tribute", result=result)],
                "result is a list of one or two")
    refused(_begun(seat=0), [_notify("tribute", result=[[0, 2, "S3", "junk"]])],
            re.escape('a result entry is [giver, receiver, card], not [0, 2, "S3", "junk"]'))
    refused(_begun(seat=0), [_notify("tribute", result=[None])],
            re.escape("a result entry is [giver, receiver, card], not null"))
    refused(_begun(seat=0), [_notify("anti-tribute", antiPos=[1]), tribute],
            "a tribute stage after anti-tribute")
    # RULES 8: the resisting payers hold both big jokers between them, so this seat holds
    # both when it resists alone and none when it does not resist (both passed)
    refused(_begun(seat=0), [_notify("anti-tribute", antiPos=[0])],
            re.escape("antiPos [0]: this seat alone resists with both big jokers, but it "
                      "holds none"))
    with_joker = PlatformSeat(GreedyPlayer())
    with_joker.receive({"type": "notify", "stage": "beginning", "myPos": 0,
                        "handCards": HAND[:-1] + ["HR"]})
    refused(copy.deepcopy(with_joker), [_notify("anti-tribute", antiPos=[1, 3])],
            re.escape("antiPos [1, 3] resist with both big jokers, but this seat, not among "
                      "them, holds one"))
    refused(copy.deepcopy(with_joker), [_notify("anti-tribute", antiPos=[0])], "holds one")
    # (a copied or unpickled seat that has seen no hand end still knows it has not: its
    # marker was an object() that the copy did not match, and _payers failed)
    refused(pickle.loads(pickle.dumps(_begun(seat=0))),
            [_notify("anti-tribute", antiPos=[0])], "alone resists")
    with_joker.receive(_notify("anti-tribute", antiPos=[0, 2]))    # (seat 2 holds the other)
    _begun(seat=0).receive(_notify("anti-tribute", antiPos=[2, 0]))
    # acts: a return from a seat that received nothing, a tribute in a game's first hand
    refused(_begun(seat=0), [_act(HAND, BACKS, stage="back", ranks=AFTER_A_HAND)],
            "an act back stage before any tribute is paid")
    refused(_begun(seat=0), [tribute, _act(HAND, BACKS, stage="back", ranks=AFTER_A_HAND)],
            "an act back for seat 0, which received no tribute")
    offered = [["tribute", "tribute", ["C2"]], ["tribute", "tribute", ["S2"]]]
    # a seat that saw no hand end cannot tell a game's first hand: both teams at 2 may
    # follow a team's drop from A (platform rules), so the tribute is answered
    assert _begun(seat=3).receive(_act(HAND, offered, stage="tribute")) == {"actIndex": 1}
    after_game = PlatformSeat(GreedyPlayer())
    after_game.receive(_notify("gameOver", curTimes=1))
    after_game.receive({"type": "notify", "stage": "beginning", "myPos": 3, "handCards": HAND})
    refused(after_game, [_act(HAND, offered, stage="tribute", ranks=AFTER_A_HAND)],
            "an act tribute stage in a game's first hand")
    # the platform must pay the card this seat chose
    payer = _begun(seat=3)
    answer = payer.receive(_act(HAND, offered, stage="tribute", ranks=AFTER_A_HAND))
    assert offered[answer["actIndex"]][2] == ["S2"]
    refused(payer, [_notify("tribute", result=[[3, 0, "C2"]])], "this seat offered S2")


def _greedy_stream(seed=2, hands=40):
    """What each seat of a recorded greedy game was sent, and the game's hands."""
    server, _, got = _through_messages([GreedyPlayer() for _ in range(4)], seed, hands)
    return server.sent, got


def test_sec8_tribute_by_other_seats_than_the_last_hand_makes_is_refused():
    """RULES 8: after a hand the seat saw end, only its last player (both losers after a
    1st-and-2nd finish) pays, to its first player (the first two); antiPos names payers.
    Each seat of a recorded game, given a tribute message with another payer or receiver,
    refuses it; the true messages pass (the game replays to its end)."""
    sent, got = _greedy_stream()
    kinds = set()
    for seat in range(4):
        replayed = PlatformSeat(GreedyPlayer())
        for m in sent[seat]:
            if m["type"] != "notify" or m["stage"] not in ("tribute", "anti-tribute"):
                replayed.receive(copy.deepcopy(m))
                continue
            if m["stage"] == "anti-tribute":
                kinds.add("anti")
                wrong = [s for s in range(4) if s not in m["antiPos"]]
                bads = [(dict(m, antiPos=[wrong[0]]), "pay tribute")]
            elif len(m["result"]) == 1:
                kinds.add("single")
                [[g, r, c]] = m["result"]
                other = next(s for s in range(4) if s not in (g, r))
                bads = [(dict(m, result=[[other, r, c]]), "pay tribute"),
                        (dict(m, result=[[g, other, c]]), "receive the tribute")]
            else:
                kinds.add("double")
                (g, r, c), (g2, r2, c2) = m["result"]
                bads = [(dict(m, result=[[r, g, c], [g2, r2, c2]]), "pay tribute"),
                        (dict(m, result=[[g, g2, c], [g2, r2, c2]]), "receive the tribute")]
            for bad, pattern in bads:
                with pytest.raises(PlatformError, match=pattern):
                    copy.deepcopy(replayed).receive(bad)
            replayed.receive(copy.deepcopy(m))
        assert [h.order for h in replayed.hands] == [r.order for r in got]
    assert kinds >= {"single", "double"}, "no single and double tribute: choose another seed"


def test_sec8_the_first_lead_after_tribute_or_resistance_is_checked():
    """RULES 8: after tribute the seat that paid the first player of the last hand leads;
    after resistance that first player does. Each seat of a recorded game, given a hand's
    first play by another seat, refuses it and names the leader; the true messages pass."""
    server, _, got = _through_messages([RandomPlayer(s) for s in range(4)], 11, 12,
                                       shuffle_seed=11)
    kinds = set()
    for seat in range(4):
        replayed, hand, first_play = PlatformSeat(RandomPlayer(seat)), 0, False
        for m in server.sent[seat]:
            if m["stage"] == "beginning":
                hand, first_play = hand + 1, True
            elif m["type"] == "notify" and m["stage"] == "play" and first_play:
                first_play = False
                result = got[hand - 1]
                assert m["curPos"] == result.leader
                if hand > 1:
                    first = got[hand - 2].order[0]
                    if result.tribute.resisted:
                        kinds.add("resisted")
                        why = f"after the resistance, the last hand's first player, seat {first}"
                    else:
                        kinds.add(result.tribute.kind)
                        why = f"seat {result.leader} paid the tribute to the last hand's " \
                              f"first player, seat {first}, and leads"
                    for wrong in set(range(4)) - {result.leader, seat}:
                        with pytest.raises(PlatformError, match=re.escape(
                                f"seat {wrong}'s {json.dumps(m['curAction'])}, the hand's first "
                                f"play, but {why}")):
                            copy.deepcopy(replayed).receive(dict(m, curPos=wrong))
            replayed.receive(copy.deepcopy(m))
        assert [h.order for h in replayed.hands] == [r.order for r in got]
    assert kinds == {"single", "double", "resisted"}, "choose another seed"


def test_sec9_seats_given_the_rules_lead_after_tribute_follow_them():
    """RULES 9 (who leads after tribute: the first player of the last hand): a PlatformGame
    under that option and seats given the same MatchRules play the match as it is played
    directly; a seat that assumes the platform's rules (the payer leads) refuses to lead
    the first hand after a tribute."""
    from guandan_core.platform_server import PlatformGame
    rules = MatchRules.platform().replace(lead_after_tribute="first")
    got = PlatformGame([PlatformSeat(GreedyPlayer(), rules=rules) for _ in range(4)], seed=3,
                       rules=rules).play_hands(6)
    direct = Match([GreedyPlayer() for _ in range(4)], rules, 3).play(6)
    assert _results(got) == _results(direct)
    assert got[1].tribute.payments and got[1].leader == got[0].order[0]
    with pytest.raises(PlatformError, match=re.escape(
            f"an act for the hand's first lead, but seat {got[1].tribute.payments[0][0]} "
            f"paid the tribute to the last hand's first player, seat {got[0].order[0]}")):
        PlatformGame([PlatformSeat(GreedyPlayer()) for _ in range(4)], seed=3,
                     rules=rules).play_hands(6)


def test_sec9_a_games_first_hand_is_led_by_the_agreed_cards_first_holder():
    """RULES 8-9 (the first hand's leader: the holder of an agreed card, the first in seat
    order when two seats hold it): each seat of a recorded game's first hand, told the
    game is new (a gameOver before it), reads it through under the same rules; under
    another agreed card, which the leader does not hold, the seats whose own cards show
    the leader wrong refuse its first play (the leader itself, which holds no copy, when
    asked to lead)."""
    rules = MatchRules.platform().replace(first_leader="D5")
    server = RecordingGame([PlatformSeat(GreedyPlayer(), rules=rules) for _ in range(4)], 4,
                           rules=rules)
    [result] = server.play_hands(1)
    dealt = [server.sent[s][0]["handCards"] for s in range(4)]
    leader = result.leader
    assert leader == next(s for s in range(4) if "D5" in dealt[s])
    game_over = {"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 1}
    other = next(c for c in dealt[(leader + 1) & 3] if c not in dealt[leader])
    refused = []
    for seat in range(4):
        same = PlatformSeat(GreedyPlayer(), rules=rules)
        for m in [game_over] + server.sent[seat]:
            same.receive(copy.deepcopy(m))
        assert same.hands[0].order == result.order
        held = dealt[seat].count(other)
        wrong = PlatformSeat(GreedyPlayer(), rules=rules.replace(first_leader=other))
        copies = ("no copy", "one copy", "both copies")[held]
        if seat == leader or held and (held == 2 or leader > seat):
            with pytest.raises(PlatformError, match=re.escape(
                    f"but this seat holds {copies} of {other}, whose first holder in seat "
                    "order leads a game's first hand")):
                for m in [game_over] + server.sent[seat]:
                    wrong.receive(copy.deepcopy(m))
            refused.append(seat)
        else:
            for m in [game_over] + server.sent[seat]:
                wrong.receive(copy.deepcopy(m))
    assert leader in refused and len(refused) >= 2, "choose another seed or card"


def test_sec8_a_double_tribute_must_give_the_higher_card_to_the_first_player():
    """RULES 8: after a double loss the higher tribute card goes to the first player of the
    last hand, the lower to the second. Each seat of a recorded game, given a double
    tribute with its receivers swapped, refuses it once it knows the hand's level (a payer
    at once, a receiver when asked for its return); the true messages pass."""
    sent, got = _greedy_stream()
    doubles = equal = 0
    for seat in range(4):
        replayed = PlatformSeat(GreedyPlayer())
        for i, m in enumerate(sent[seat]):
            if m["type"] == "notify" and m["stage"] == "tribute" and len(m["result"]) == 2:
                doubles += 1
                (g, r, c), (g2, r2, c2) = m["result"]
                equal += c[1:] == c2[1:]
                first, second = replayed.hands[-1].order[:2]
                assert (r, r2) == (first, second)       # (the first player's first)
                wrong = copy.deepcopy(replayed)
                why = r"at level [2-9TJQKA] the higher card goes to the first player" \
                    if c[1:] != c2[1:] else re.escape(
                        f"with cards of equal rank, seat {g}, the seat right after seat "
                        f"{first}, pays seat {first}")
                with pytest.raises(PlatformError, match=re.escape(
                        f"the double tribute gave seat {g2}'s {c2} to seat {first}, the last "
                        f"hand's first player, and seat {g}'s {c} to seat {second}: ")
                        + why + r" \(RULES sec. 8\)"):
                    wrong.receive(dict(m, result=[[g, second, c], [g2, first, c2]]))
                    for later in sent[seat][i + 1:]:
                        wrong.receive(copy.deepcopy(later))
            replayed.receive(copy.deepcopy(m))
        assert [h.order for h in replayed.hands] == [r.order for r in got]
    assert doubles >= 4, "no double tribute: choose another seed"
    assert equal, "no double tribute of equal cards: choose another seed"


def test_sec8_a_match_played_on_in_a_second_session_keeps_its_tribute():
    """RULES 8: a PlatformGame's play() ends its session with gameResult, maybe within a
    game; a second play() goes on with the same match, tribute due. A seat cannot tell
    that from a new session's first hand, so it checks no tribute there (it took
    gameResult for a game's end and refused the tribute as in a game's first hand)."""
    from guandan_core.platform_server import PlatformGame
    seats = [PlatformSeat(GreedyPlayer()) for _ in range(4)]
    game = PlatformGame(seats, seed=1)
    first = game.play(games=1, max_hands=2)
    second = game.play(games=1, max_hands=2)
    assert len(first) == len(second) == 2 and second[0].tribute.kind != "none"
    direct = Match([GreedyPlayer() for _ in range(4)], MatchRules.platform(), 1).play(4)
    assert _results(first + second) == _results(direct)
    assert [r["stage"] for r in seats[0].game_results] == ["gameResult"] * 2
