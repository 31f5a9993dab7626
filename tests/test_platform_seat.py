"""PlatformSeat: a Match player on the AI competition platform, from its messages
(RULES.md sections 7, 8 and 9 "platform").

The main check plays whole matches through tests/platform_server.py, which turns a real
Match into the platform's messages: four PlatformSeat clients must play exactly the match
the same players play directly, and at every turn show their player the Observation the
match itself gives. Two messages of the platform's own engine are read too.
"""

import copy
import json
import os

import pytest

from guandan_core import Hand, Move, Rules
from guandan_core.cards import format_rank
from guandan_core.match import Match, MatchRules
from guandan_core.platform_seat import PlatformError, PlatformSeat, read_act
from guandan_core.players import GreedyPlayer, RandomPlayer
from platform_server import PlatformServer

DATA = os.path.join(os.path.dirname(__file__), "data")


def _data(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def _through_messages(players, seed, hands, shuffle_seed=0):
    clients = [PlatformSeat(p) for p in players]
    server = PlatformServer(clients, seed, shuffle_seed=shuffle_seed)
    return server, clients, server.play(hands)


def _results(results):
    return [(r.number, r.level, r.leader, r.tribute, r.order, r.levels, r.winner, r.moves)
            for r in results]


def _assert_same_views(server):
    assert len(server.acts) == len(server.shown) > 0
    for i, ((seat, true), shown) in enumerate(zip(server.acts, server.shown)):
        assert shown == true, f"act {i} (seat {seat})"
        assert shown.history == true.history, f"act {i} (seat {seat})"
        assert (shown.counts == true.counts).all(), f"act {i} (seat {seat})"


@pytest.mark.parametrize("seed", [5, 11])
def test_sec8_random_players_play_the_same_match_through_messages(seed):
    """RULES 7, 8: random players (random returned cards too) through the messages play
    the match they play directly, over tribute, double tribute, resistance and returns;
    every Observation equals the match's."""
    server, _, got = _through_messages([RandomPlayer(s) for s in range(4)], seed, 12,
                                       shuffle_seed=seed)
    direct = Match([RandomPlayer(s) for s in range(4)], MatchRules.platform(), seed).play(12)
    assert _results(got) == _results(direct)
    assert {r.tribute.kind for r in got} >= {"none", "single", "double"}
    _assert_same_views(server)


def test_sec8_greedy_players_play_until_a_game_is_won():
    """RULES 8: greedy players through a won game (gameOver) and the next match."""
    server, clients, got = _through_messages([GreedyPlayer() for _ in range(4)], 2, 40)
    direct = Match([GreedyPlayer() for _ in range(4)], MatchRules.platform(), 2).play(40)
    assert _results(got) == _results(direct)
    assert any(r.winner is not None for r in got), "no game was won: choose another seed"
    _assert_same_views(server)
    for seat, client in enumerate(clients):
        assert [h.order for h in client.hands] == [r.order for r in got]
        assert [format_rank(h.level) for h in client.hands] == [r.level for r in got]
        assert client.game_results and client.game_results[0]["stage"] == "gameOver"


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


def _act(hand, actions, stage="play", rest=(27, 27, 27, 27), greater=None, level="2"):
    return {"type": "act", "stage": stage, "handCards": list(hand),
            "publicInfo": [{"rest": n, "playArea": None} for n in rest],
            "selfRank": "2", "oppoRank": "2", "curRank": level,
            "curPos": -1 if greater is None else greater[0],
            "curAction": [None] * 3 if greater is None else greater[1],
            "greaterPos": -1 if greater is None else greater[0],
            "greaterAction": [None] * 3 if greater is None else greater[1],
            "actionList": actions, "indexRange": len(actions) - 1}


HAND = "S2 H2 C2 H4 C4 D5 S6 H6 C6 D6 H7 D8 D9 D9 ST HT CT DT SJ DJ CQ CQ CK SA HA CA CA".split()


def _begun(seat=1, player=None):
    client = PlatformSeat(player or GreedyPlayer())
    client.receive({"type": "notify", "stage": "beginning", "myPos": seat, "handCards": HAND})
    return client


def _play(seat, triple):
    return {"type": "notify", "stage": "play", "curPos": seat, "curAction": triple,
            "greaterPos": seat, "greaterAction": triple}


def _singles_not_in(hand, n):
    """``n`` Single plays of cards the deck has left besides ``hand``."""
    left = [c for c in "S3 H3 C3 D3 S4 S5 H5 C5 S7 C7 D7 S8 H8 C8 H9 C9 S9 DJ HJ CJ SQ HQ DQ "
                       "SK HK DK DA SB SB HR HR".split() if c not in hand]
    return [["Single", c[1], [c]] for c in left[:n]]


def _lead_list(hand=HAND):
    from guandan_core import legal_moves
    return [m.to_platform() for m in legal_moves(Hand(hand), "2", rules=Rules.platform())]


@pytest.mark.parametrize("message, error", [
    ("{not json", "a message is JSON text"),
    ([1, 2], "a message is a JSON object, not [1, 2]"),
    ({"type": "ask", "stage": "play"}, "unknown message type 'ask'"),
    ({"type": "notify", "stage": "deal"}, "unknown notify stage 'deal'"),
    ({"type": "act", "stage": "beginning"}, "unknown act stage 'beginning'"),
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
])
def test_sec7_bad_messages_are_named(message, error):
    """RULES 7: a message that cannot be read raises PlatformError (a ValueError) naming
    what is wrong."""
    client = PlatformSeat(GreedyPlayer())
    with pytest.raises(PlatformError) as info:
        client.receive(message if isinstance(message, str) else json.dumps(message))
    assert error in str(info.value)
    assert isinstance(info.value, ValueError)


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
    for triple in _singles_not_in(HAND, 27):
        client.receive(_play(0, triple))
    with pytest.raises(PlatformError, match=r"seat 0 plays .* but went out already"):
        client.receive(_play(0, ["Single", "4", ["S4"]]))
    client = _begun()
    for triple in _singles_not_in(HAND, 26):
        client.receive(_play(2, triple))
    with pytest.raises(PlatformError, match="seat 2 plays 2 cards .* but holds 1"):
        client.receive(_play(2, ["Pair", "4", ["S4", "S4"]]))
    # a card seen three times (this seat holds one HA)
    client = _begun()
    client.receive(_play(0, ["Single", "A", ["HA"]]))
    with pytest.raises(PlatformError, match="more than the two copies of HA"):
        client.receive(_play(2, ["Single", "A", ["HA"]]))
    # the level changes within a hand
    client = _begun()
    client.receive(_act(HAND, actions))
    with pytest.raises(PlatformError, match="curRank 3 changed within the hand"):
        client.receive(_act(HAND, actions, level="3"))


def test_sec7_an_action_list_that_is_not_the_legal_moves_is_refused():
    """RULES 7, 9: a list missing a legal move, holding one that is not legal, or
    listing one twice is refused and named."""
    actions = _lead_list()
    with pytest.raises(PlatformError, match=r"1 moves missing from it \(Single 5: D5\), "
                                            "none extra"):
        _begun().receive(_act(HAND, [a for a in actions if a != ["Single", "5", ["D5"]]]))
    with pytest.raises(PlatformError, match=r"0 moves missing from it, Single 3: S3 extra"):
        _begun().receive(_act(HAND, actions + [["Single", "3", ["S3"]]]))
    with pytest.raises(PlatformError, match="1 listed twice"):
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
    answer = payer.receive(_act(HAND, offered, stage="tribute"))
    assert offered[answer["actIndex"]][2] == ["S2"]
    with pytest.raises(PlatformError, match="CK is offered as tribute, but it is not one of "
                                            "the seat's highest"):
        _begun(seat=3).receive(_act(HAND, offered + [["tribute", "tribute", ["CK"]]],
                                    stage="tribute"))
    payer.receive({"type": "notify", "stage": "tribute", "result": [[3, 0, "S2"]]})
    assert "S2" not in payer.hand.cards()
    # the receiver
    receiver = _begun(seat=0)
    receiver.receive({"type": "notify", "stage": "tribute", "result": [[3, 0, "S2"]]})
    held = receiver.hand.cards()
    assert len(held) == 28
    backs = [["back", "back", [c]] for c in ("H4", "C4", "D5", "S6", "H6", "C6", "D6", "H7",
                                              "D8", "D9", "ST", "HT", "CT", "DT")]
    answer = receiver.receive(_act(held, backs, stage="back", rest=(28, 27, 27, 26)))
    assert backs[answer["actIndex"]][2] == ["H4"]
    assert receiver.observation.cards_left == (28, 27, 27, 26)
    with pytest.raises(PlatformError, match=r"the cards offered to return \(H4 SA\) are not"):
        receiver.receive(_act(held, [["back", "back", ["H4"]], ["back", "back", ["SA"]]],
                              stage="back"))
    chooser = _begun(seat=0, player=RandomPlayer(1))
    chooser.player.choose_return = lambda obs, allowed: "S2"
    chooser.receive({"type": "notify", "stage": "tribute", "result": [[3, 0, "S2"]]})
    with pytest.raises(PlatformError, match="the player returns 'S2', not one of"):
        chooser.receive(_act(held, backs, stage="back"))
    with pytest.raises(PlatformError, match="seat 2 cannot give a card to itself"):
        _begun().receive({"type": "notify", "stage": "back", "result": [[2, 2, "S3"]]})
    with pytest.raises(PlatformError, match=r"action 0 is \['tribute', 'tribute', \[card\]\]"):
        _begun(seat=3).receive(_act(HAND, [["tribute", "tribute", "SA"]], stage="tribute"))


def test_sec8_episode_over_must_agree_with_the_plays():
    """RULES 8: the finishing order must start with the seats seen going out, and the
    cards left must be those the plays leave."""
    def finished_seat_0():
        client = _begun()
        for triple in _singles_not_in(HAND, 27):
            client.receive(_play(0, triple))
        return client

    end = {"type": "notify", "stage": "episodeOver", "order": [2, 0, 1, 3], "curRank": "2",
           "restCards": []}
    with pytest.raises(PlatformError, match=r"order \[2, 0, 1, 3\] does not start with the "
                                            r"seats seen going out \[0\]"):
        finished_seat_0().receive(end)
    end["order"] = [0, 2, 1, 3]
    end["restCards"] = [[1, ["S3"]]]
    with pytest.raises(PlatformError, match="seat 1 has 1 cards left, but the plays leave "
                                            "it 27"):
        finished_seat_0().receive(end)
    end["restCards"] = []
    client = finished_seat_0()
    client.receive(end)
    assert client.hands[-1].order == (0, 2, 1, 3)
    with pytest.raises(PlatformError, match="no hand yet"):
        client.hand


def test_sec7_the_seats_view_is_a_deep_copy_safe_value():
    """The Observation a client makes survives copying and does not change with later
    messages (it is what the player was shown)."""
    client = _begun()
    client.receive(_act(HAND, _lead_list()))
    shown = copy.deepcopy(client.observation)
    client.receive(_play(1, ["Single", "5", ["D5"]]))
    assert client.observation == shown and client.observation.history == ()
