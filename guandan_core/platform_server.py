"""A match served as the AI competition platform serves one: its messages, to four clients.

:class:`PlatformGame` plays a real :class:`~guandan_core.match.Match` and sends it to four
clients as the platform's messages, in the order its manual (v1006) gives them:
``notify beginning`` to every seat; after a hand with tribute ``act tribute`` to each
payer, ``notify tribute``, ``act back`` to each receiver, ``notify back`` (or ``notify
anti-tribute`` when the payers resist); then ``act play`` to each seat in turn, each move
followed by ``notify play`` to every seat; at the end of a hand ``notify episodeOver``;
``notify gameOver`` each time a team wins the game, and ``notify gameResult`` at the end.
A client is anything with ``receive(text) -> answer``, the answer ``{"actIndex": i}`` to
an ``act`` and None to a ``notify``: a :class:`~guandan_core.platform_seat.PlatformSeat`
in the same process, or a WebSocket connection (:func:`serve`, ``guandan serve``), so
that bots written for the platform can play against each other on this engine.

Where it differs from the platform (or the platform is not documented):

* the ``actionList`` of a play is this engine's legal moves, in an order shuffled with
  ``shuffle_seed`` (the platform's order is its own, so a client must answer by looking up
  its move, never by position);
* the rules are ``MatchRules.platform()`` (RULES sec. 9), the platform's match options;
  the platform's draw after 50 falls from A is not played: :meth:`PlatformGame.play`
  stops after ``max_hands`` hands instead;
* a lead is sent with ``greaterPos`` -1 and ``greaterAction`` ``[null, null, null]``, as
  the manual says (``lead_style="owner"`` keeps the last trick's owner and play instead,
  which some clients expect);
* ``publicInfo[i].playArea`` is seat i's last action this hand (the platform's own
  messages clear some of them when a trick ends);
* the server listens on an IPv4 or IPv6 address.

>>> from guandan_core.players import GreedyPlayer
>>> from guandan_core.platform_seat import PlatformSeat
>>> game = PlatformGame([PlatformSeat(GreedyPlayer()) for _ in range(4)], seed=1)
>>> through_messages = [r.order for r in game.play_hands(2)]
>>> direct = Match([GreedyPlayer() for _ in range(4)], MatchRules.platform(), seed=1)
>>> through_messages == [r.order for r in direct.play(2)]     # the same match
True
"""

from __future__ import annotations

import json
import queue
import random
import socket
import threading
import time
from collections.abc import Set as AbstractSet
from typing import Callable, Optional

from .cards import format_card, format_rank, is_whole, parse_card
from .hand import to_counts
from .jsontext import parse_json
from .match import Match, MatchRules, _checked_seed, plan_tribute
from .moves import Move
from .platform_seat import PlatformError
from .usertext import (check_callback, close_reason, closed_for_size, how_closed,
                       is_seconds, quoted)

__all__ = ["MAX_WARNINGS", "PlatformGame", "serve", "DEFAULT_PORT"]

DEFAULT_PORT = 23456            # the platform's own
_NONE = [None, None, None]
_MAX_MESSAGE_BYTES = 1 << 16    # a client's answer is a few bytes


class PlatformGame:
    """A match sent to four ``clients`` as the platform's messages (see the module).

    ``seed`` deals the hands and chooses the first leaders (as :class:`Match` does);
    ``shuffle_seed`` (taken as ``seed`` is) orders the action lists; ``on_event`` gets
    every event of the game log (``guandan play --json``'s, which ``guandan replay``
    checks).
    """

    def __init__(self, clients, seed=None, rules=None, shuffle_seed=0,
                 on_event: Callable[[dict], None] | None = None, lead_style: str = "minus-one"):
        if isinstance(clients, AbstractSet):     # (no seat order)
            raise TypeError(f"a game's clients are a list of 4, in seat order, not "
                            f"{quoted(clients)}")
        self.clients = list(clients)
        if len(self.clients) != 4:
            raise ValueError(f"a game has 4 clients, not {len(self.clients)}")
        for seat, client in enumerate(self.clients):
            if not callable(getattr(client, "receive", None)):
                raise TypeError(f"client {seat} has no receive(text) method: {quoted(client)}")
        if lead_style not in ("minus-one", "owner"):
            raise ValueError(f"lead_style is 'minus-one' or 'owner', not {quoted(lead_style)}")
        self.rules = MatchRules.platform() if rules is None else MatchRules.of(rules)
        self.lead_style = lead_style
        self.order_rng = random.Random(_checked_seed(shuffle_seed, "shuffle_seed"))
        check_callback("on_event", on_event)
        self.on_event = on_event
        self.match = Match([_SeatPlayer(self, s) for s in range(4)], self.rules, seed,
                           on_event=self._event)
        self.games_won = [0, 0]         # games won by each team
        self.games_asked = 0
        self.level = 0
        self.dealt = None
        self.play_area = [None] * 4
        self.last = self.greater = None
        self.payments = self.returns = None
        self.tribute_chosen = {}

    # ------------------------------------------------------------------ playing

    def play_hands(self, hands: int) -> list:
        """Play ``hands`` hands (a won game is followed by a new one, with ``gameOver``:
        ``curTimes`` the games won in this call, ``settingTimes`` 0, as no number of games
        was asked; no ``gameResult``); their :class:`HandResult` s."""
        if not is_whole(hands, 0):
            raise ValueError(f"hands: a number of hands 0 or more, not {quoted(hands)}")
        # (counted from this call: a play() before it had left its games and its number
        # asked, so gameOver said curTimes 2 of settingTimes 1)
        self.games_won, self.games_asked = [0, 0], 0
        return [self.match.play_hand() for _ in range(hands)]

    def play(self, games: int = 1, max_hands: int = 10_000) -> list:
        """Play until ``games`` more games are won (``gameOver`` after each, with
        ``curTimes`` the games won in this call and ``settingTimes`` ``games``) or
        ``max_hands`` hands are played, then send ``gameResult`` (``victoryNum``: the games
        each seat's team won in this call; ``draws`` zeros); the hands'
        :class:`HandResult` s."""
        _check_session(games, max_hands)
        self.games_won, self.games_asked = [0, 0], int(games)
        results = []
        while sum(self.games_won) < games and len(results) < max_hands:
            results.append(self.match.play_hand())
        won = self.games_won
        self.notify_all("gameResult", victoryNum=[won[s & 1] for s in range(4)],
                        draws=[0, 0, 0, 0])
        return results

    # ------------------------------------------------------------------ messages

    def send(self, seat: int, message: dict):
        """Send one message to a seat's client; its answer (None for a notify)."""
        return self.clients[seat].receive(json.dumps(message))

    def notify_all(self, stage: str, **fields) -> None:
        for seat in range(4):
            self._notify(seat, stage, **fields)

    def _notify(self, seat: int, stage: str, **fields) -> None:
        answer = self.send(seat, {"type": "notify", "stage": stage, **fields})
        if answer is not None:
            raise PlatformError(f"seat {seat} answered a notify {stage} with {quoted(answer)}")

    def act(self, seat: int, stage: str, hand: list, cards_left, team_levels, level: int,
            actions: list, last=None, greater=None) -> list:
        """Send an act message; the action the seat's client chose."""
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
        index = answer.get("actIndex") if isinstance(answer, dict) else None
        if not (isinstance(answer, dict) and set(answer) == {"actIndex"}
                and is_whole(index, 0, len(actions) - 1)):
            raise PlatformError(f"seat {seat} answered an act {stage} with {quoted(answer)}, not "
                                f"{{\"actIndex\": 0..{len(actions) - 1}}}")
        return actions[index]

    def _event(self, event: dict) -> None:
        kind = event["event"]
        if kind == "deal":
            self.level = self.match.hand_level
            self.dealt = [to_counts(h) for h in event["hands"]]
            self.play_area = [None] * 4
            self.last = self.greater = None
            self.payments = self.returns = None
            self.tribute_chosen = {}
            for seat, hand in enumerate(event["hands"]):
                self._notify(seat, "beginning", handCards=hand, myPos=seat)
        elif kind == "resist":
            self.notify_all("anti-tribute", antiNum=len(event["seats"]),
                            antiPos=event["seats"])
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
            rest = [[s, pos.hand(s).cards()] for s in range(4) if pos.cards_left[s]]
            self.notify_all("episodeOver", order=event["order"],
                            curRank=format_rank(self.level), restCards=rest)
            if event["winner"] is not None:
                self.games_won[event["winner"]] += 1
                self.notify_all("gameOver", curTimes=sum(self.games_won),
                                settingTimes=self.games_asked)
        if self.on_event is not None:
            self.on_event(event)

    def ask_play(self, seat: int, obs) -> Move:
        """The move of ``seat``'s client at its turn (``obs``: the match's Observation)."""
        if obs.table is None:
            self.last = None        # a new trick
            if self.lead_style == "minus-one":
                self.greater = None
        else:
            self.greater = (obs.table_owner, obs.table.to_platform())
        chosen = self.act(seat, "play", obs.hand.cards(), obs.cards_left,
                          obs.team_levels, obs.level,
                          [m.to_platform() for m in obs.legal_moves], self.last, self.greater)
        return Move.from_platform(chosen, obs.level, obs.rules)

    def ask_return(self, seat: int, obs, allowed_cards) -> str:
        """The card ``seat``'s client returns (the first return of a hand asks for the
        tribute cards first)."""
        if self.payments is None:
            self._announce_tribute()
        chosen = self.act(seat, "back", obs.hand.cards(), obs.cards_left,
                          self.match.levels, obs.level,
                          [["back", "back", [c]] for c in allowed_cards])
        return chosen[2][0]

    def ask_tribute(self, seat: int, obs, allowed_cards) -> str:
        """The card ``seat``'s client pays as tribute, among its highest cards."""
        chosen = self.act(seat, "tribute", obs.hand.cards(), obs.cards_left,
                          self.match.levels, self.level,
                          [["tribute", "tribute", [c]] for c in allowed_cards])
        self.tribute_chosen[seat] = parse_card(chosen[2][0])
        return chosen[2][0]

    def _announce_tribute(self) -> None:
        """Tell everyone who paid what to whom (once a hand, before the first return is
        asked for): the match's own plan, with the cards the payers chose."""
        chosen = self.tribute_chosen
        plan = plan_tribute(self.match.prev_order, self.dealt, self.level, self.rules,
                            choose_tribute=lambda payer, hands, allowed: chosen[payer])
        self.payments = [[p, r, format_card(k)] for p, r, k in plan.payments]
        self.returns = []
        self.notify_all("tribute", result=self.payments)


class _SeatPlayer:
    """The match's player for one seat: asks that seat's client through the messages."""

    def __init__(self, game: PlatformGame, seat: int):
        self.game, self.seat = game, seat

    def __call__(self, obs):
        return self.game.ask_play(self.seat, obs)

    def choose_return(self, obs, allowed_cards):
        return self.game.ask_return(self.seat, obs, allowed_cards)

    def choose_tribute(self, obs, allowed_cards):
        return self.game.ask_tribute(self.seat, obs, allowed_cards)


# ---------------------------------------------------------------------- WebSocket

def _check_session(games, max_hands) -> None:
    if not is_whole(games, 1):
        raise ValueError(f"games: a number of games 1 or more, not {quoted(games)}")
    if not is_whole(max_hands, 1):
        raise ValueError(f"max_hands: a number of hands 1 or more, not {quoted(max_hands)}")


MAX_TIMEOUT = 1e6       # seconds (threading refuses waits much past 2**31 s)


def _checked_timeout(name: str, value) -> float | None:
    """``value`` as seconds above 0 and at most MAX_TIMEOUT, a Python float (numpy's
    numbers too: the socket layer takes only Python's), or None for no limit; else a
    ValueError naming ``name``."""
    if value is None:
        return None
    if not is_seconds(value, MAX_TIMEOUT):
        raise ValueError(f"{name}: seconds above 0 and at most {MAX_TIMEOUT:g}, or None, "
                         f"not {quoted(value)}")
    return float(value)


MAX_WARNINGS = 100      # warnings reported for one client; the rest are counted, not told


class _Connection:
    """A client over a WebSocket: a notify is sent; an act is sent and answered. What the
    client sent before it was asked is dropped (with a warning), so that it cannot stand
    for the answer; an answer that is not ``{"actIndex": i}`` in range is reported and
    another awaited, as the platform's server does, until ``timeout`` seconds from the
    act."""

    def __init__(self, conn, seat: int, timeout: Optional[float], on_warning):
        self.conn, self.seat, self.timeout, self.on_warning = conn, seat, timeout, on_warning
        self.warnings = 0

    def _warn(self, text: str) -> None:
        # (at most MAX_WARNINGS a client: one sending junk without end wrote 98,000 lines
        # to stderr in 3 s)
        self.warnings += 1
        if self.warnings < MAX_WARNINGS:
            self.on_warning(text)
        elif self.warnings == MAX_WARNINGS:
            self.on_warning(f"{text} (seat {self.seat}'s further warnings are not reported)")

    def receive(self, text: str):
        from websockets.exceptions import ConnectionClosed
        try:
            message = json.loads(text)
            if message["type"] == "act":
                self._drop_unasked()
            self.conn.send(text)
            if message["type"] != "act":
                return None
            return self._answer(len(message["actionList"]))
        except ConnectionClosed as exc:
            if closed_for_size(exc):
                raise OSError(f"seat {self.seat} sent a message of more than "
                              f"{_MAX_MESSAGE_BYTES:,} bytes, which an answer never needs: "
                              f"its connection was closed ({exc})") from None
            raise OSError(f"seat {self.seat} left the game ({how_closed(exc)})") from None

    def _drop_unasked(self) -> None:
        while True:
            try:
                reply = self.conn.recv(timeout=0)
            except TimeoutError:
                return
            self._warn(f"seat {self.seat} sent {_shown(reply)} when not asked: ignored")

    def _answer(self, size: int) -> dict:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                reply = self.conn.recv(timeout=left)
            except TimeoutError:
                raise OSError(f"seat {self.seat} did not answer within {self.timeout:g} s") \
                    from None
            if isinstance(reply, str):
                try:
                    answer = parse_json(reply)
                    index = answer["actIndex"]
                    # (other keys too: not an answer, as PlatformGame reads answers)
                    if is_whole(index, 0, size - 1) and set(answer) == {"actIndex"}:
                        return {"actIndex": int(index)}
                except (ValueError, TypeError, KeyError):
                    pass
            self._warn(f"seat {self.seat} answered {_shown(reply)}, not "
                       f"{{\"actIndex\": 0..{size - 1}}}: waiting for another answer")


def _shown(reply) -> str:
    if isinstance(reply, bytes):
        return f"a binary frame of {len(reply)} bytes"
    return quoted(reply, 200)


def _listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on ``host`` (a name, an IPv4 or an IPv6 address, a zone
    included; "" every IPv4 interface, "::" every interface, IPv4 clients too where the
    system allows) and ``port``. A name with both kinds of address listens on its IPv4
    one, as before IPv6 was taken."""
    if not host:
        return socket.create_server(("", port))
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = min(infos, key=lambda info: info[0] != socket.AF_INET)
    both = family == socket.AF_INET6 and host == "::" and socket.has_dualstack_ipv6()
    return socket.create_server(address, family=family, dualstack_ipv6=both)


def ws_url(host: str, port: int, path: str = "/game/") -> str:
    """``ws://HOST:PORT/game/``, an IPv6 address in brackets."""
    return f"ws://{f'[{host}]' if ':' in host else host}:{port}{path}"


def serve(host: str = "127.0.0.1", port: int = DEFAULT_PORT, games: int = 1, seed=None,
          shuffle_seed=0, max_hands: int = 10_000, timeout: Optional[float] = None,
          on_event=None, on_ready=None, on_warning=None) -> list:
    """Wait for four WebSocket clients at ``ws://HOST:PORT/game/NAME`` (seats in the order
    they connect; a client that leaves before the four are there gives its seat up), play
    ``games`` games with them (:meth:`PlatformGame.play`), close the connections and
    return the hands' results. ``on_ready(host, port)`` is called once the server listens
    (port 0 picks a free port); ``timeout``: seconds a client may take over an answer,
    from the act message (None: no limit; at most 1e6); ``on_warning(text)`` hears of
    answers that are not answers and of messages sent when not asked, at most
    ``MAX_WARNINGS`` (100) a client, the last saying so (default: ignored).
    A client that leaves or does not answer in time ends the game with an OSError naming
    its seat; the other clients are then closed with code 1011 (1001 on Ctrl-C, 1000 after
    a game played to its end). Needs the websockets package."""
    _check_session(games, max_hands)
    # (the socket layer wrapped 70000 to 4464, took None for a free port and named -1
    # or "x" as an OSError)
    if not is_whole(port, 0, 65535):
        raise ValueError(f"port: a whole number from 0 to 65535 (0: a free port), not "
                         f"{quoted(port)}")
    port = int(port)        # (numpy's integers too: the socket layer takes only int)
    if not isinstance(host, str):
        raise TypeError(f"host: an address to listen on (text), not {quoted(host)}")
    timeout = _checked_timeout("timeout", timeout)
    check_callback("on_ready", on_ready)
    check_callback("on_warning", on_warning)
    # (the seeds and on_event checked before anyone waits)
    PlatformGame([_Unused()] * 4, seed, shuffle_seed=shuffle_seed, on_event=on_event)
    try:
        from websockets.protocol import State
        from websockets.sync.server import serve as websocket_server
    except ImportError:
        raise ValueError("serving the platform's messages needs the websockets package: "
                         "pip install \"guandan-core[bot]\"") from None
    arrived: "queue.Queue" = queue.Queue()
    done = threading.Event()
    lock = threading.Lock()
    seats = []
    began = []      # every connection, in the order its handshake began

    def note_arrival(conn, request):
        # before the handshake's answer, so before a client's connect() returns: clients
        # that connect one after another are seated in that order (the handlers, which run
        # after the handshake, could start in another order and swap partners)
        with lock:
            began.append(conn)
        return None

    def handler(conn):
        path = conn.request.path
        if not path.startswith("/game/") or path == "/game/":     # (NAME: not empty)
            conn.close(code=1008, reason="connect to /game/NAME")
            return
        with lock:
            if len(seats) == 4:
                conn.close(code=1013, reason="the table is full")
                return
            seats.append(conn)
        arrived.put(conn)
        done.wait()             # the connection stays open while the game runs

    warn = on_warning or (lambda text: None)
    try:
        # (close_timeout: a client that does not answer the closing handshake holds up
        # the end of the game at most that long)
        server = websocket_server(handler, sock=_listening_socket(host, port),
                                  process_request=note_arrival,
                                  max_size=_MAX_MESSAGE_BYTES, close_timeout=1)
    except OSError as exc:
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    conns, code, reason = [], 1000, "the game is over"
    try:
        if on_ready is not None:
            on_ready(*server.socket.getsockname()[:2])
        while True:
            try:
                conns.append(arrived.get(timeout=0.2))     # (Ctrl-C gets through)
            except queue.Empty:
                pass
            with lock:          # a client gone before the game begins gives its seat up
                gone = [c for c in conns if c.protocol.state is not State.OPEN]
                for c in gone:
                    seats.remove(c)
                    conns.remove(c)
                if len(conns) == 4:
                    conns.sort(key=began.index)
                    break
        clients = [_Connection(c, s, timeout, warn) for s, c in enumerate(conns)]
        game = PlatformGame(clients, seed, shuffle_seed=shuffle_seed, on_event=on_event)
        return game.play(games, max_hands)
    except KeyboardInterrupt:
        code, reason = 1001, "the server was stopped"
        raise
    except BaseException as exc:
        code, reason = 1011, close_reason(exc)
        raise
    finally:
        for conn in conns:      # (before the handlers return, which would close with 1000)
            conn.close(code=code, reason=reason)
        done.set()
        server.shutdown()
        thread.join(5)


class _Unused:
    def receive(self, text):
        raise AssertionError("not a client")
