"""A stand-in for the AI competition platform's server, for the tests of PlatformSeat.

It plays a real :class:`guandan_core.match.Match` and turns it into the platform's
messages, in the order the platform sends them (its manual, v1006): ``notify beginning``
to every seat; after a hand with tribute ``act tribute`` to each payer, ``notify tribute``,
``act back`` to each receiver, ``notify back`` (or ``notify anti-tribute``); then ``act
play`` to each seat in turn, each move followed by ``notify play`` to every seat; at the
end ``notify episodeOver`` (and ``notify gameOver`` when a team has won the game). Every
message goes to its client as JSON text; the client's answer (``{"actIndex": i}``) picks
the move from the ``actionList``, which is shuffled (the platform's order is its own).

At each ``act play`` it records the seat's true Observation, so that a test can compare
it with the one the client made from the messages.
"""

from __future__ import annotations

import json
import random

from guandan_core.cards import format_card, format_cards, format_rank
from guandan_core.hand import to_counts
from guandan_core.match import Match, MatchRules, card_order, plan_tribute, tribute_card
from guandan_core.moves import Move

_NONE = [None, None, None]


class PlatformServer:
    """``clients``: four objects with ``receive(text) -> answer or None``."""

    def __init__(self, clients, seed, rules=None, shuffle_seed=0, lead_style="minus-one"):
        self.clients = list(clients)
        self.rules = MatchRules.platform() if rules is None else MatchRules.of(rules)
        self.order_rng = random.Random(shuffle_seed)
        # on a lead after the first of a hand: "minus-one" sends greaterPos -1 and nulls (the
        # platform's manual); "owner" keeps the last trick's owner and play (a trick that
        # came back to its owner, or to the partner of an owner who went out)
        assert lead_style in ("minus-one", "owner")
        self.lead_style = lead_style
        self.match = Match([_SeatPlayer(self, s) for s in range(4)], self.rules, seed,
                           on_event=self._event)
        self.sent = [[] for _ in range(4)]     # the messages each seat got, as dicts
        self.answers = [[] for _ in range(4)]  # and the answers it gave
        self.acts = []                         # (seat, true Observation) at each act play
        self.shown = []                        # the client's own Observation at each
        self.returns_shown = []                # (true, client's) Observation at act back
        self.games = 0

    # the messages
    def send(self, seat: int, message: dict):
        self.sent[seat].append(message)
        answer = self.clients[seat].receive(json.dumps(message))
        if answer is not None:
            self.answers[seat].append(answer)
        return answer

    def notify_all(self, stage: str, **fields) -> None:
        for seat in range(4):
            answer = self.send(seat, {"type": "notify", "stage": stage, **fields})
            assert answer is None, f"seat {seat} answered a notify {stage}: {answer!r}"

    def act(self, seat: int, stage: str, hand, cards_left, team_levels, level, actions,
            last=None, greater=None) -> int:
        actions = list(actions)
        self.order_rng.shuffle(actions)
        message = {
            "type": "act", "stage": stage, "handCards": hand,
            "publicInfo": [{"rest": int(n), "playArea": self.play_area[s]}
                           for s, n in enumerate(cards_left)],
            "selfRank": format_rank(team_levels[seat & 1]),
            "oppoRank": format_rank(team_levels[1 - (seat & 1)]),
            "curRank": format_rank(level),
            "curPos": -1 if last is None else last[0],
            "curAction": _NONE if last is None else last[1],
            "greaterPos": -1 if greater is None else greater[0],
            "greaterAction": _NONE if greater is None else greater[1],
            "actionList": actions, "indexRange": len(actions) - 1}
        answer = self.send(seat, message)
        assert isinstance(answer, dict) and set(answer) == {"actIndex"}, answer
        index = answer["actIndex"]
        assert 0 <= index < len(actions), (index, len(actions))
        return actions[index]

    def play(self, hands: int) -> list:
        return self.match.play(hands)

    # the match's events
    def _event(self, event: dict) -> None:
        kind = event["event"]
        if kind == "deal":
            self.level = self.match.hand_level
            self.dealt = [to_counts(h) for h in event["hands"]]
            self.play_area = [None] * 4
            self.last = self.greater = None
            self.payments = self.returns = None
            for seat, hand in enumerate(event["hands"]):
                self.send(seat, {"type": "notify", "stage": "beginning", "handCards": hand,
                                 "myPos": seat})
        elif kind == "resist":
            self.notify_all("anti-tribute", antiNum=len(event["seats"]),
                            antiPos=event["seats"])
        elif kind == "tribute":
            assert self.payments is not None, "a tribute card paid without an act tribute"
            assert [event["from"], event["to"], event["card"]] in self.payments
        elif kind == "return":
            self.returns.append([event["from"], event["to"], event["card"]])
            if len(self.returns) == len(self.payments):
                self.notify_all("back", result=self.returns)
        elif kind == "play":
            seat, action = event["seat"], event["action"]
            if action[0] != "PASS":
                self.greater = (seat, action)
            self.last = (seat, action)
            self.play_area[seat] = action
            self.notify_all("play", curPos=seat, curAction=action,
                            greaterPos=self.greater[0], greaterAction=self.greater[1])
        elif kind == "end":
            pos = self.match.position
            rest = [[s, format_cards([k for k in range(54) for _ in range(pos.counts(s)[k])])]
                    for s in range(4) if pos.cards_left[s]]
            self.notify_all("episodeOver", order=event["order"], curRank=format_rank(self.level),
                            restCards=rest)
            if event["winner"] is not None:
                self.games += 1
                self.notify_all("gameOver", curTimes=self.games, settingTimes=0)

    def pay_tribute(self) -> None:
        """Ask each payer for its tribute card (once a hand, before the first return)."""
        plan = plan_tribute(self.match.prev_order, self.dealt, self.level, self.rules)
        self.payments, self.returns = [], []
        for payer, receiver, card in plan.payments:
            counts = self.dealt[payer]
            wild = self.level * 4 + 1
            top = card_order(tribute_card(counts, self.level), self.level)
            offered = [["tribute", "tribute", [format_card(k)]] for k in range(54)
                       if counts[k] and k != wild and card_order(k, self.level) == top]
            chosen = self.act(payer, "tribute", format_cards(_kinds(counts)), [27] * 4,
                              self.match.levels, self.level, offered)
            # (the match pays the first of the highest cards in suit order)
            assert chosen[2] == [format_card(card)], (chosen, format_card(card))
            self.payments.append([payer, receiver, format_card(card)])
        self.notify_all("tribute", result=self.payments)


def _kinds(counts) -> list:
    return [k for k in range(54) for _ in range(int(counts[k]))]


class _SeatPlayer:
    """The match's player for one seat: asks that seat's client through the messages."""

    def __init__(self, server: PlatformServer, seat: int):
        self.server, self.seat = server, seat

    def __call__(self, obs):
        server = self.server
        server.acts.append((self.seat, obs))
        if obs.table is None:
            server.last = None      # a new trick: the platform sends -1 and nulls
            if server.lead_style == "minus-one":
                server.greater = None
        else:
            server.greater = (obs.table_owner, obs.table.to_platform())
        chosen = server.act(self.seat, "play", format_cards(_kinds(obs.counts)),
                            obs.cards_left, obs.team_levels, obs.level,
                            [m.to_platform() for m in obs.legal_moves], server.last,
                            server.greater)
        # what the client showed its player (None for a client without one)
        server.shown.append(getattr(server.clients[self.seat], "observation", None))
        return Move.from_platform(chosen, obs.level, obs.rules)

    def choose_return(self, obs, allowed_cards):
        server = self.server
        if server.payments is None:
            server.pay_tribute()
        chosen = server.act(self.seat, "back", format_cards(_kinds(obs.counts)),
                            obs.cards_left, server.match.levels, obs.level,
                            [["back", "back", [c]] for c in allowed_cards])
        server.returns_shown.append(
            (obs, getattr(server.clients[self.seat], "observation", None)))
        return chosen[2][0]
