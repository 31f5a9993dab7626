"""``guandan serve`` / ``platform_server.serve``: a match served in the AI competition
platform's messages over WebSockets (RULES.md sec. 7, 8 and 9 "platform").

Four ``guandan bot`` processes against ``guandan serve`` must play exactly the match
``guandan play`` plays with the same players and seed: the two game logs are compared
line by line, and ``guandan replay`` checks the served one.
"""

import contextlib
import json
import re
import socket
import subprocess
import sys
import threading

import pytest

from guandan_core.platform_client import play_websocket
from guandan_core.platform_server import ws_url
from guandan_core.platform_seat import PlatformSeat
from guandan_core.players import GreedyPlayer
from cli_process import PACKAGES, assert_one_line_error, cli_env, run_cli

websockets = pytest.importorskip("websockets")
from websockets.sync.client import connect  # noqa: E402


def _cli(*args):
    return subprocess.Popen([sys.executable, "-m", "guandan_core.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=PACKAGES, env=cli_env())


def _listening_port(server) -> int:
    """The port a ``guandan serve --port 0`` process says it listens on (its first line)."""
    first = server.stdout.readline()
    assert first.startswith("listening on ws://127.0.0.1:"), first + server.stderr.read()
    return int(first.split(":")[2].split("/")[0])


def test_sec8_four_bots_against_the_server_play_guandan_plays_match(tmp_path):
    """RULES 7, 8, 9: the served match, played by four bot processes over WebSockets, is
    the match guandan play plays (same log, event for event), and replays as valid."""
    log = tmp_path / "served.jsonl"
    server = _cli("serve", "--port", "0", "--seed", "3", "--max-hands", "6",
                  "--log", str(log))
    try:
        port = _listening_port(server)
        bots = [_cli("bot", f"ws://127.0.0.1:{port}/game/client{i}", "--player", "greedy")
                for i in range(1, 5)]
        seats = []
        for bot in bots:        # (seated in the order they connect)
            out, err = bot.communicate(timeout=300)
            assert bot.returncode == 0, err
            assert out.startswith("6 hands played as seat "), out
            seats.append(int(out.split()[5].rstrip(",")))
        assert sorted(seats) == [0, 1, 2, 3]
        out, err = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == 0, err
    assert out == "6 hands; games won: team 0+2 0, team 1+3 0\n"
    direct = run_cli(["play", "--players", "greedy,greedy,greedy,greedy", "--seed", "3",
                      "--rules", "platform", "--json", "--hands", "6"])
    assert direct.returncode == 0
    assert log.read_text() == direct.stdout
    replay = run_cli(["replay", str(log)])
    assert replay.returncode == 0 and replay.stdout.startswith("valid: "), replay.stdout


class _Served:
    """``serve()`` on a free port in a thread; ``result`` or ``error`` once it ends."""

    def __init__(self, **options):
        self.ready = threading.Event()
        self.result = self.error = None
        self.warnings = []
        self.thread = threading.Thread(target=self._run, kwargs=options, daemon=True)
        self.thread.start()
        assert self.ready.wait(30)

    def _run(self, **options):
        from guandan_core.platform_server import serve

        def ready(host, port):
            self.url = ws_url(host, port)
            self.ready.set()

        try:
            self.result = serve(port=0, on_ready=ready, on_warning=self.warnings.append,
                                **options)
        except BaseException as exc:    # (for the test to look at, Ctrl-C's too)
            self.error = exc

    def join(self):
        self.thread.join(120)
        assert not self.thread.is_alive()


def _seat_thread(url, answers_first=None, leave_after=None, hold=None, unasked=None,
                 silent=False):
    """A greedy client in a thread over a WebSocket; ``answers_first``: text (or bytes)
    sent before the first real answer; ``leave_after``: close after that many acts;
    ``hold``: an Event awaited before answering; ``unasked``: text sent after the first
    notify play; ``silent``: never answers. ``outcome["started"]`` is set at the first
    message, ``outcome["played"]`` once a hand's second play has been told,
    ``outcome["close_code"]`` and ``outcome["close_reason"]`` hold how the server
    closed."""
    outcome = {"started": threading.Event(), "played": threading.Event()}

    def run():
        seat = PlatformSeat(GreedyPlayer())
        try:
            with connect(url) as ws:
                try:
                    _play_on(ws, seat)
                finally:
                    outcome["close_code"] = ws.close_code
                    outcome["close_reason"] = ws.close_reason
            outcome["hands"] = len(seat.hands)
        except Exception as exc:
            outcome["error"] = exc

    def _play_on(ws, seat):
        acts = plays = 0
        sent_unasked = False
        for text in ws:
            outcome["started"].set()
            answer = seat.receive(text)
            told_a_play = '"stage": "play"' in text and answer is None
            plays += told_a_play
            if plays >= 2:          # (the first play's event written before it was told)
                outcome["played"].set()
            if unasked is not None and not sent_unasked and told_a_play:
                ws.send(unasked)
                sent_unasked = True
            if answer is None or silent:
                continue
            if hold is not None:
                hold.wait(60)
            if answers_first is not None and acts == 0:
                ws.send(answers_first)
            ws.send(json.dumps(answer))
            acts += 1
            if leave_after is not None and acts >= leave_after:
                return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def _served_by_guandan_serve(*options, timeout=60, options_of=lambda seat: {},
                             **seat_options):
    """``guandan serve --port 0 OPTIONS`` against four greedy clients (``_seat_thread``
    with ``seat_options``, and ``options_of(seat)`` for each) until it ends, waiting at
    most ``timeout`` seconds: its exit status, stdout after the first line, stderr."""
    server = _cli("serve", "--port", "0", *options)
    try:
        port = _listening_port(server)
        threads = [_seat_thread(f"ws://127.0.0.1:{port}/game/c{i}", **seat_options,
                                **options_of(i)) for i in range(4)]
        out, err = server.communicate(timeout=timeout)
    finally:
        server.kill()
        server.wait()
    for thread, _ in threads:
        thread.join(60)
    return server.returncode, out, err


def test_sec7_a_bad_answer_is_reported_and_another_awaited():
    """RULES 7: as the platform's server does, an answer that is not an index in range is
    reported and the server waits for a good one; the game goes on."""
    served = _Served(seed=1, max_hands=2)
    threads = [_seat_thread(served.url + f"c{i}", answers_first='{"actIndex": 999}'
                            if i == 0 else None) for i in range(4)]
    served.join()
    for thread, outcome in threads:
        thread.join(60)
        assert outcome.get("hands") == 2 and "error" not in outcome
    assert served.error is None and len(served.result) == 2
    assert len(served.warnings) == 1
    assert re.fullmatch(r"seat [0-3] answered '\{\"actIndex\": 999\}', not "
                        r"\{\"actIndex\": 0\.\.[0-9]+\}: waiting for another answer",
                        served.warnings[0]), served.warnings


def test_a_fifth_client_or_a_wrong_path_is_turned_away_and_a_leaver_ends_the_game():
    """A fifth client is told the table is full (1013), a path other than /game/NAME is
    refused (1008); a client that leaves mid-game ends it with an OSError naming its
    seat, and the other clients' connections are closed."""
    served = _Served(seed=1, max_hands=2)
    for wrong in (served.url.replace("/game/", "/other"), served.url):    # (no NAME)
        with connect(wrong) as ws:
            with pytest.raises(websockets.exceptions.ConnectionClosed):
                ws.recv(timeout=10)
            assert ws.close_code == 1008 and ws.close_reason == "connect to /game/NAME"
    threads = [_seat_thread(served.url + f"c{i}", leave_after=3 if i == 2 else None)
               for i in range(4)]
    served.join()
    # (seats go by connection order, which the threads race for)
    assert isinstance(served.error, OSError)
    assert re.match(r"seat [0-3] left the game \(", str(served.error)), served.error
    for thread, outcome in threads:
        thread.join(60)
        assert not thread.is_alive()
    served = _Served(seed=1, max_hands=1)
    hold = threading.Event()        # the seats wait with their first answer
    threads = [_seat_thread(served.url + f"c{i}", hold=hold) for i in range(4)]
    for _, outcome in threads:      # the game has begun: all four are seated
        assert outcome["started"].wait(30)
    with connect(served.url + "late") as ws:
        with pytest.raises(websockets.exceptions.ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.close_code == 1013 and ws.close_reason == "the table is full"
    hold.set()
    served.join()
    assert served.error is None and len(served.result) == 1


def test_the_servers_errors_are_one_line():
    """Bad input: a port in use, a bad option value (the bounds themselves taken), each
    one line and exit 2."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_cli(["serve", "--port", str(port)])
    assert_one_line_error(proc, f"guandan serve: error: cannot listen on 127.0.0.1:{port}: ")
    # the highest --max-hands and --seed are taken (the error is the port's, not theirs)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_cli(["serve", "--port", str(port), "--max-hands", "999999",
                        "--seed", str(10**30 - 1)])
    assert f"cannot listen on 127.0.0.1:{port}: " in proc.stderr
    assert_one_line_error(run_cli(["serve", "--max-hands", "1000000"]),
                          "a number of hands from 1 to 999999, not '1000000'")
    assert_one_line_error(run_cli(["serve", "--seed", str(10**30)]),
                          f"a whole number from 0 to 10**30 - 1, not '{10**30}'")
    assert_one_line_error(run_cli(["serve", "--timeout", "0"]),
                          "seconds above 0 and at most 1e+06, not '0'")
    assert_one_line_error(run_cli(["serve", "--timeout", "1e300"]), "not '1e300'")
    assert_one_line_error(run_cli(["serve", "--port", "70000"]),
                          "a port from 0 to 65535, not '70000'")


def _four_bots(served) -> dict:
    """Four greedy play_websocket clients against ``served`` until it ends; seat number
    -> (answers, hands seen)."""
    counts = {}

    def run(i):
        seat = PlatformSeat(GreedyPlayer())
        counts[i] = (play_websocket(seat, served.url + f"c{i}"), len(seat.hands))

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(4)]
    for t in threads:
        t.start()
    served.join()
    for t in threads:
        t.join(60)
    return counts


def test_play_websocket_against_the_server_in_process():
    """The library call behind guandan bot, four of them against serve(): every seat
    sees the same number of hands, and counts its answers."""
    served = _Served(seed=5, max_hands=1)
    counts = _four_bots(served)
    assert served.error is None and sorted(counts) == [0, 1, 2, 3]
    assert all(hands == 1 and answered > 0 for answered, hands in counts.values())


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_the_server_listens_on_an_ipv6_address():
    """serve() on ::1 (it refused any IPv6 address): four bots at ws://[::1]:PORT play a
    hand, and guandan serve prints that address in brackets."""
    served = _Served(seed=5, max_hands=1, host="::1")
    assert served.url.startswith("ws://[::1]:")
    counts = _four_bots(served)
    assert served.error is None and len(served.result) == 1 and len(counts) == 4
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "serve", "--host", "::1",
                             "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=PACKAGES,
                            env=cli_env())
    try:
        line = proc.stdout.readline()
    finally:
        proc.kill()
        proc.wait()
    assert re.fullmatch(r"listening on ws://\[::1\]:\d+/game/NAME: waiting for 4 clients\n",
                        line), line


def test_the_listening_address_is_read_as_before_for_ipv4(monkeypatch):
    """"" listens on every IPv4 interface (it was refused once the address was looked
    up), and a name with both kinds of address on its IPv4 one, as before IPv6."""
    from guandan_core.platform_server import _listening_socket
    with _listening_socket("", 0) as s:
        assert s.family == socket.AF_INET and s.getsockname()[0] == "0.0.0.0"
    both = [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", 0, 0, 0)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 0))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: both)
    with _listening_socket("localhost", 0) as s:
        assert s.family == socket.AF_INET and s.getsockname()[0] == "127.0.0.1"


def test_messages_sent_when_not_asked_never_stand_for_an_answer():
    """What a client sent before the server asked (already there when the act is sent)
    is dropped with a warning, and the answer is what comes after the act. (Over a real
    connection a message still on its way when the act is sent cannot be told from the
    answer; a PlatformSeat then finds that the platform played a move it did not answer,
    see test_platform_seat.)"""
    from guandan_core.platform_server import _Connection

    class FakeConnection:
        def __init__(self):
            self.waiting, self.sent = ['{"actIndex": 0}'], []

        def send(self, text):
            self.sent.append(text)
            if '"type": "act"' in text:
                self.waiting.append('{"actIndex": 2}')

        def recv(self, timeout=None):
            if not self.waiting:
                raise TimeoutError
            return self.waiting.pop(0)

    warnings = []
    conn = FakeConnection()
    client = _Connection(conn, 1, None, warnings.append)
    act = json.dumps({"type": "act", "stage": "play", "actionList": [["PASS"] * 3] * 3})
    assert client.receive(json.dumps({"type": "notify", "stage": "play"})) is None
    assert client.receive(act) == {"actIndex": 2}
    assert warnings == ['seat 1 sent \'{"actIndex": 0}\' when not asked: ignored']


def _one_hand_with_junk_first(junk):
    """A hand served to four greedy clients, one of which sends ``junk`` before its first
    answer: the server once it has ended, and each client's outcome."""
    served = _Served(seed=1, max_hands=1)
    threads = [_seat_thread(served.url + f"c{i}", answers_first=junk if i == 3 else None)
               for i in range(4)]
    served.join()
    for thread, _ in threads:
        thread.join(60)
        assert not thread.is_alive()
    return served, [outcome for _, outcome in threads]


@pytest.mark.parametrize("junk, shown", [("[" * 60000, "answered '[[[["),
                                         (b"\x00\x01", "answered a binary frame of 2 bytes"),
                                         # (PlatformGame in-process refuses it too)
                                         ('{"actIndex": 0, "note": "hi"}',
                                          'answered \'{"actIndex": 0, "note": "hi"}\'')])
def test_junk_answers_are_reported_not_fatal(junk, shown):
    """Deeply nested JSON, binary frames and an answer with other keys than actIndex are
    not answers: reported, and the game goes on with the client's next answer."""
    served, outcomes = _one_hand_with_junk_first(junk)
    for outcome in outcomes:
        assert outcome.get("hands") == 1, outcome
    assert served.error is None and len(served.warnings) == 1
    assert shown in served.warnings[0]


def test_a_message_too_big_for_an_answer_ends_the_game_and_says_so():
    """A client's message over 64 KiB (an answer is a few bytes) makes websockets close its
    connection (1009), which ends the game: the error says what the seat sent, not that it
    left the game, which it did not do."""
    from guandan_core.platform_server import _MAX_MESSAGE_BYTES
    served, _ = _one_hand_with_junk_first('{"actIndex": 0' + " " * _MAX_MESSAGE_BYTES + "}")
    # (seats go by connection order, which the threads race for)
    assert isinstance(served.error, OSError)
    assert re.match(re.escape("seat ") + "[0-3]" + re.escape(
        " sent a message of more than 65,536 bytes, which an answer never needs: its "
        "connection was closed (sent 1009 (message too big)"), str(served.error)), served.error


def test_guandan_serve_reports_junk_answers_on_stderr():
    """``guandan serve`` tells of an answer that is not one, on stderr, one line, and
    plays on (the library's on_warning); one hand is "1 hand"."""
    code, out, err = _served_by_guandan_serve(
        "--seed", "1", "--max-hands", "1", timeout=120,
        options_of=lambda seat: {"answers_first": "junk" if seat == 0 else None})
    assert code == 0 and out.startswith("1 hand; "), err
    assert re.fullmatch(r"guandan serve: seat [0-3] answered 'junk', not \{\"actIndex\": "
                        r"0\.\.\d+\}: waiting for another answer\n", err), err


def test_a_seat_that_does_not_answer_in_time_ends_the_game():
    """timeout: from the act message; the game ends with an OSError naming the seat, and
    the other clients are closed with 1011 (an error), not 1000."""
    served = _Served(seed=1, max_hands=1, timeout=0.5)
    threads = [_seat_thread(served.url + f"c{i}", silent=True) for i in range(4)]
    served.join()
    assert isinstance(served.error, OSError)
    assert re.fullmatch(r"seat [0-3] did not answer within 0.5 s", str(served.error))
    codes = []
    for thread, outcome in threads:
        thread.join(60)
        codes.append(outcome.get("close_code"))
    assert codes == [1011] * 4


def test_an_error_in_chinese_still_closes_every_client():
    """A close frame's reason is at most 123 bytes (RFC 6455 sec. 5.5): an error whose text
    is Chinese (3 bytes a character) is cut to fit, so every client still gets its 1011
    close and ``serve`` raises the error itself, not a failed close."""
    def fail(event):
        raise RuntimeError("牌" * 100)

    served = _Served(seed=1, max_hands=1, on_event=fail)
    threads = [_seat_thread(served.url + f"c{i}") for i in range(4)]
    served.join()
    assert isinstance(served.error, RuntimeError) and str(served.error) == "牌" * 100
    for thread, outcome in threads:
        thread.join(60)
        assert outcome.get("close_code") == 1011 and outcome["close_reason"] == "牌" * 41


def test_ctrl_c_during_a_game_closes_every_client_with_1001():
    """serve: Ctrl-C (a KeyboardInterrupt, here raised in the serving thread at the deal)
    closes every client with code 1001, not 1011 as another error would (serve's doc)."""
    def interrupt(event):
        raise KeyboardInterrupt

    served = _Served(seed=1, max_hands=1, on_event=interrupt)
    threads = [_seat_thread(served.url + f"c{i}") for i in range(4)]
    served.join()
    assert isinstance(served.error, KeyboardInterrupt)
    for thread, outcome in threads:
        thread.join(60)
        assert outcome.get("close_code") == 1001
        assert outcome["close_reason"] == "the server was stopped"


def test_clients_that_connect_one_after_another_are_seated_in_that_order():
    """Seats go by the order the clients connect: four clients that connect one after
    another, each once the one before is connected, sit at seats 0, 1, 2, 3 (partners
    first and third, second and fourth). The seats went by the order the handlers began,
    after the handshakes, and 3 of 10 such games had two partners swapped."""
    for _ in range(10):
        served = _Served(seed=1, max_hands=1)
        with contextlib.ExitStack() as stack:
            clients = [stack.enter_context(connect(served.url + f"c{i}")) for i in range(4)]
            seats = [json.loads(ws.recv(timeout=30))["myPos"] for ws in clients]
        served.join()
        assert seats == [0, 1, 2, 3]


def test_a_client_gone_before_the_game_gives_its_seat_up():
    """A client that connects and leaves before the four are there is not seated: the
    next four play."""
    served = _Served(seed=1, max_hands=1)
    with connect(served.url + "early"):
        pass
    import time
    time.sleep(0.5)
    threads = [_seat_thread(served.url + f"c{i}") for i in range(4)]
    served.join()
    assert served.error is None and len(served.result) == 1
    for thread, outcome in threads:
        thread.join(60)
        assert outcome.get("hands") == 1 and outcome.get("close_code") == 1000


def test_sec8_a_session_of_games_ends_with_game_over_and_game_result():
    """RULES 8: PlatformGame.play(games) plays until a team wins the game (gameOver: the
    games won so far and asked for, one by default), then gameResult: the games each
    seat's team won."""
    from guandan_core.platform_server import PlatformGame
    clients = [PlatformSeat(GreedyPlayer()) for _ in range(4)]
    results = PlatformGame(clients, seed=3).play()        # (one game by default)
    assert len(results) == 22 and results[-1].winner == 1
    assert all(r.winner is None for r in results[:-1])
    for client in clients:
        assert client.game_results == [
            {"stage": "gameOver", "curTimes": 1, "settingTimes": 1},
            {"stage": "gameResult", "victoryNum": [0, 1, 0, 1], "draws": [0, 0, 0, 0]}]
    clients = [PlatformSeat(GreedyPlayer()) for _ in range(4)]
    game = PlatformGame(clients, seed=3)
    assert len(game.play(games=1, max_hands=3)) == 3
    assert clients[0].game_results == [
        {"stage": "gameResult", "victoryNum": [0, 0, 0, 0], "draws": [0, 0, 0, 0]}]


def test_sec8_game_over_counts_the_games_won_by_either_team_in_the_call():
    """API (PlatformGame.play): gameOver's curTimes is the games won in the call so far,
    whichever team won them; gameResult's victoryNum each seat's team's wins."""
    from guandan_core.platform_server import PlatformGame
    clients = [PlatformSeat(GreedyPlayer()) for _ in range(4)]
    results = PlatformGame(clients, seed=9).play(games=2)
    winners = [r.winner for r in results if r.winner is not None]
    assert len(winners) == 2 and winners[0] != winners[1], "choose another seed"
    for client in clients:
        assert client.game_results == [
            {"stage": "gameOver", "curTimes": 1, "settingTimes": 2},
            {"stage": "gameOver", "curTimes": 2, "settingTimes": 2},
            {"stage": "gameResult", "victoryNum": [winners.count(s & 1) for s in range(4)],
             "draws": [0, 0, 0, 0]}]


def test_sec8_play_hands_counts_games_from_its_own_call():
    """API (PlatformGame.play_hands): gameOver's curTimes counts the games won in the
    call and settingTimes is 0, after a play() too (which left its counts: curTimes 2 of
    settingTimes 1 told the clients the session was over)."""
    from guandan_core.platform_server import PlatformGame
    clients = [PlatformSeat(GreedyPlayer()) for _ in range(4)]
    game = PlatformGame(clients, seed=3)
    game.play()
    before = len(clients[0].game_results)
    results = game.play_hands(40)
    won = sum(r.winner is not None for r in results)
    assert won >= 1, "choose another seed or more hands"
    assert clients[0].game_results[before:] == [
        {"stage": "gameOver", "curTimes": n, "settingTimes": 0} for n in range(1, won + 1)]


@pytest.mark.parametrize("call, error, message", [
    (lambda g: g([PlatformSeat(GreedyPlayer())] * 3), ValueError,
     "a game has 4 clients, not 3"),
    (lambda g: g([PlatformSeat(GreedyPlayer())] * 5), ValueError,
     "a game has 4 clients, not 5"),
    (lambda g: g([PlatformSeat(GreedyPlayer())] * 3 + [object()]), TypeError,
     "client 3 has no receive(text) method: <object object"),
    (lambda g: g([PlatformSeat(GreedyPlayer())] * 4, lead_style="bogus"), ValueError,
     "lead_style is 'minus-one' or 'owner', not 'bogus'"),
    (lambda g: g([PlatformSeat(GreedyPlayer())] * 4).play_hands(-1), ValueError,
     "hands: a number of hands 0 or more, not -1"),
    (lambda g: g([PlatformSeat(GreedyPlayer())] * 4).play(games=0), ValueError,
     "games: a number of games 1 or more, not 0"),
    (lambda g: g([PlatformSeat(GreedyPlayer())] * 4).play(max_hands=0), ValueError,
     "max_hands: a number of hands 1 or more, not 0"),
])
def test_a_game_refuses_bad_arguments_before_sending_anything(call, error, message,
                                                             monkeypatch):
    """Bad input: PlatformGame and its play methods name the bad value, before a message
    is sent (a game of 3 clients would otherwise fail in the middle of the first deal)."""
    from guandan_core.platform_server import PlatformGame
    sent = _record_messages(monkeypatch)
    with pytest.raises(error) as caught:
        call(PlatformGame)
    assert str(caught.value).startswith(message)
    assert sent == []


def _record_messages(monkeypatch) -> list:
    """Every message any PlatformSeat receives from now on, recorded."""
    sent, receive = [], PlatformSeat.receive

    def recorded(self, message):
        sent.append(message)
        return receive(self, message)
    monkeypatch.setattr(PlatformSeat, "receive", recorded)
    return sent


def test_no_hands_asked_is_no_hand_played(monkeypatch):
    """play_hands(hands): hands is "0 or more" (0 plays nothing and sends nothing)."""
    from guandan_core.platform_server import PlatformGame
    clients = [PlatformSeat(GreedyPlayer()) for _ in range(4)]
    sent = _record_messages(monkeypatch)
    assert PlatformGame(clients, seed=3).play_hands(0) == []
    assert sent == [] and all(client.hands == [] for client in clients)
    # (and the recording sees what a game sends: one hand's messages, with no gameResult,
    # which play_hands never sends)
    assert PlatformGame(clients, seed=3).play_hands(1) and sent
    stages = [(m if isinstance(m, dict) else json.loads(m))["stage"] for m in sent]
    assert "episodeOver" in stages and "gameResult" not in stages


@pytest.mark.parametrize("timeout", [0, -1, 1e6 + 1, True, "5"])
def test_serve_refuses_a_timeout_out_of_range_before_listening(timeout):
    """serve's timeout: seconds above 0 and at most 1e6, or None (API, serve)."""
    from guandan_core.platform_server import serve

    def listening(host, port):      # (too late: fail rather than wait for clients)
        raise AssertionError(f"serve took timeout={timeout!r} and listened")

    with pytest.raises(ValueError, match="timeout: seconds above 0 and at most 1e"):
        serve(port=0, timeout=timeout, on_ready=listening)


@pytest.mark.parametrize("port, host, error, message", [
    (70000, "127.0.0.1", ValueError, "port: a whole number from 0 to 65535 (0: a free port), "
                                     "not 70000"),
    (-1, "127.0.0.1", ValueError, "port: a whole number from 0 to 65535"),
    (None, "127.0.0.1", ValueError, "port: a whole number from 0 to 65535 (0: a free port), "
                                    "not None"),
    ("80", "127.0.0.1", ValueError, "not '80'"),
    (True, "127.0.0.1", ValueError, "not True"),
    (0, 5, TypeError, "host: an address to listen on (text), not 5"),
])
def test_serve_refuses_a_port_or_host_that_is_none_before_listening(port, host, error,
                                                                      message):
    """API, serve: the arguments are checked before it listens (a port of 70000 listened
    on 4464, None on a free port; -1 or "x" and a host of 5 came from the socket layer)."""
    from guandan_core.platform_server import serve

    def listening(host, port):
        raise AssertionError(f"serve listened on {host}:{port}")

    with pytest.raises(error, match=re.escape(message)):
        serve(host=host, port=port, on_ready=listening)


_BAD_SEEDS_AND_CALLBACKS = [
    ({"shuffle_seed": -1}, ValueError,
     "shuffle_seed must be an int 0 or more, text or None, not -1"),
    ({"shuffle_seed": 1.5}, ValueError,
     "shuffle_seed must be an int 0 or more, text or None, not 1.5"),
    ({"shuffle_seed": [1]}, ValueError,
     "shuffle_seed must be an int 0 or more, text or None, not [1]"),
    ({"on_event": 5}, TypeError, "on_event must be a function or None, not 5"),
]


@pytest.mark.parametrize("kwargs, error, message", _BAD_SEEDS_AND_CALLBACKS)
def test_a_game_refuses_a_bad_shuffle_seed_or_on_event_before_sending_anything(
        kwargs, error, message, monkeypatch):
    """API (PlatformGame): shuffle_seed is taken as seed is (-1 was taken and ordered the
    action lists as 1 does, 1.5 too, [1] failed in random's words) and on_event is a
    function or None (5 failed in the middle of the first deal); both named."""
    from guandan_core.platform_server import PlatformGame
    sent = _record_messages(monkeypatch)
    with pytest.raises(error) as caught:
        PlatformGame([PlatformSeat(GreedyPlayer()) for _ in range(4)], **kwargs)
    assert str(caught.value) == message
    assert sent == []


@pytest.mark.parametrize("kwargs, error, message", _BAD_SEEDS_AND_CALLBACKS + [
    ({"on_ready": 5}, TypeError, "on_ready must be a function or None, not 5"),
    ({"on_warning": 5}, TypeError, "on_warning must be a function or None, not 5"),
])
def test_serve_refuses_a_bad_shuffle_seed_or_callback_before_listening(
        kwargs, error, message, monkeypatch):
    """API, serve: the arguments are checked before it listens, the seeds as PlatformGame
    takes them and every callback a function or None (on_event, on_warning and a bad
    shuffle_seed were taken and it listened; on_ready=5 failed, unnamed, once listening)."""
    from guandan_core import platform_server

    def listening(host, port):
        raise AssertionError(f"serve took {kwargs} and listened")

    monkeypatch.setattr(platform_server, "_listening_socket", listening)
    with pytest.raises(error) as caught:
        platform_server.serve(port=0, **kwargs)
    assert str(caught.value) == message


def test_serve_takes_a_numpy_integer_port_and_a_numpy_timeout():
    """API, serve: a port is a whole number, numpy's too (it was checked as one, then the
    socket layer refused it: "Int or String expected"); a timeout is seconds, numpy's too
    (a float32 was refused as not a number)."""
    import numpy as np
    from guandan_core.platform_server import serve
    heard = []

    class Listening(Exception):
        pass

    def listening(host, port):
        heard.append(port)
        raise Listening

    with pytest.raises(Listening):
        serve(port=np.int64(0), timeout=np.float32(2.5), on_ready=listening)
    assert heard and isinstance(heard[0], int) and heard[0] > 0


def test_a_client_sending_junk_without_end_gets_at_most_max_warnings():
    """API (serve): answers that are not answers are reported to on_warning, at most
    MAX_WARNINGS a client, the last saying so (a client sending junk without end wrote
    98,000 lines in 3 s); the answer after them is still taken."""
    from guandan_core.platform_server import MAX_WARNINGS, _Connection

    class Junk:
        """A connection whose client answers junk 250 times, then index 1."""
        def __init__(self):
            self.replies = ["junk"] * 250 + ['{"actIndex": 1}']

        def send(self, text):
            pass

        def recv(self, timeout=None):
            if timeout == 0 or not self.replies:
                raise TimeoutError
            return self.replies.pop(0)

    warnings = []
    client = _Connection(Junk(), 2, None, warnings.append)
    act = json.dumps({"type": "act", "actionList": [["PASS", "PASS", "PASS"]] * 3})
    assert client.receive(act) == {"actIndex": 1}
    assert MAX_WARNINGS == 100 and len(warnings) == MAX_WARNINGS
    assert warnings[0].startswith("seat 2 answered 'junk', not {\"actIndex\": 0..2}")
    assert warnings[-1].endswith("(seat 2's further warnings are not reported)")
    assert all("further" not in w for w in warnings[:-1])


def test_a_timeout_of_the_largest_allowed_is_taken():
    """A timeout of exactly MAX_TIMEOUT (1e6 s, "at most") is taken: a hand is played."""
    served = _Served(seed=1, max_hands=1, timeout=1e6)
    threads = [_seat_thread(served.url + f"c{i}") for i in range(4)]
    served.join()
    assert served.error is None and len(served.result) == 1
    for thread, outcome in threads:
        thread.join(60)
        assert outcome.get("hands") == 1


def test_an_index_just_past_the_action_list_is_not_an_answer():
    """An actIndex equal to the number of actions is out of 0..indexRange (RULES 7): it is
    reported and another answer awaited, as for any other non-answer."""
    from guandan_core.platform_server import _Connection

    class FakeConnection:
        def __init__(self):
            self.waiting = []

        def send(self, text):
            if '"type": "act"' in text:
                self.waiting += ['{"actIndex": 3}', '{"actIndex": 1}']

        def recv(self, timeout=None):
            if not self.waiting:
                raise TimeoutError
            return self.waiting.pop(0)

    warnings = []
    client = _Connection(FakeConnection(), 2, None, warnings.append)
    act = json.dumps({"type": "act", "stage": "play", "actionList": [["PASS"] * 3] * 3})
    assert client.receive(act) == {"actIndex": 1}
    assert warnings == ['seat 2 answered \'{"actIndex": 3}\', not {"actIndex": 0..2}: '
                        'waiting for another answer']


def test_serve_listens_on_the_platforms_port_by_default():
    """RULES 7: the platform's clients connect to ws://127.0.0.1:23456/game/NAME (the
    README's bot command too), so that is where ``serve`` and ``guandan serve`` listen
    unless told otherwise."""
    import inspect
    from guandan_core.platform_server import DEFAULT_PORT, serve
    assert inspect.signature(serve).parameters["port"].default == DEFAULT_PORT == 23456


def test_ctrl_c_stops_the_server_at_once():
    """Ctrl-C while waiting for clients: one line, exit 130, within moments."""
    import signal
    import time
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=PACKAGES, env=cli_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().startswith("listening on ws://127.0.0.1:")
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130 and err == "guandan serve: interrupted\n"
    assert time.monotonic() - sent < 5


def test_sigterm_during_a_game_writes_the_log_and_closes_every_client_with_1001(tmp_path):
    """SIGTERM (a supervisor, `timeout`) during a game stops the server as Ctrl-C does:
    the clients are closed with 1001, the log holds every event so far, whole lines, one
    line on stderr and exit status 143 (the process ended on the spot: the log was empty
    and the clients got no close)."""
    import signal
    log = tmp_path / "served.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "serve", "--port", "0",
                             "--games", "50", "--log", str(log)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=PACKAGES, env=cli_env())
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on ws://127.0.0.1:"), line
        url = line.split()[2].removesuffix("NAME")
        threads = [_seat_thread(url + f"c{i}") for i in range(4)]
        # (plays made and logged: a sleep for them could end the game before any)
        assert threads[0][1]["played"].wait(60)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert (proc.returncode, err) == (143, "guandan serve: terminated\n")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["event"] == "rules" and any(e["event"] == "play" for e in events)
    for thread, outcome in threads:
        thread.join(60)
        assert (outcome.get("close_code"), outcome.get("close_reason")) == \
            (1001, "the server was stopped"), outcome


def test_guandan_serve_counts_the_hands_and_the_games_each_team_won():
    """README: greedy clients against ``guandan serve --seed 3`` play 22 hands, the game won
    by team 1+3. --games 2 goes on to a second game, which --max-hands 23 stops after its
    first hand (a game is won at A, not one hand after level 2): 23 hands, 1 game to 0."""
    assert _served_by_guandan_serve("--seed", "3", "--games", "2", "--max-hands", "23") == \
        (0, "23 hands; games won: team 0+2 0, team 1+3 1\n", "")


def test_guandan_serve_log_replaces_what_the_file_held(tmp_path):
    """--log FILE writes the game log of guandan play --json: a file already there is
    written anew, not added to (its first line is the rules event)."""
    log = tmp_path / "served.jsonl"
    log.write_text("an older log\n")
    code, out, err = _served_by_guandan_serve("--seed", "1", "--max-hands", "1",
                                              "--log", str(log))
    assert (code, out, err) == (0, "1 hand; games won: team 0+2 0, team 1+3 0\n", "")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["event"] == "rules" and events[-1]["event"] == "end"


def test_guandan_serve_opens_its_log_only_once_it_listens(tmp_path):
    """API.md: the log file is opened once the server listens: a port in use leaves no
    file behind."""
    log = tmp_path / "served.jsonl"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_cli(["serve", "--port", str(port), "--log", str(log)])
    assert proc.returncode == 2 and "cannot listen on" in proc.stderr
    assert not log.exists()


def test_a_log_that_cannot_be_written_names_the_option(tmp_path):
    """guandan serve --log and guandan bot --log: a file that cannot be opened is one line
    naming the option and the file (it was "[Errno 21] Is a directory: ..."), exit 2."""
    for path, why in ((tmp_path, "Is a directory"),
                      (tmp_path / "none" / "x.jsonl", "No such file or directory")):
        proc = run_cli(["serve", "--port", "0", "--log", str(path)])
        assert proc.stderr == f"guandan serve: error: --log {str(path)!r}: {why}\n"
        assert_one_line_error(proc, "--log")
        proc = run_cli(["bot", "--stdio", "--log", str(path)], stdin="")
        assert_one_line_error(proc, f"guandan bot: error: --log {str(path)!r}: {why}")


def test_guandan_serve_timeout_ends_a_game_a_seat_does_not_answer():
    """--timeout SECONDS: a client that does not answer an act within them ends the game,
    one line on stderr naming its seat."""
    code, out, err = _served_by_guandan_serve("--seed", "1", "--timeout", "0.5", silent=True)
    assert (code, out) == (2, "")
    assert re.fullmatch(r"guandan serve: error: seat [0-3] did not answer within 0.5 s\n",
                        err), err


def test_guandan_serve_defaults():
    """The documented defaults: 127.0.0.1:23456 (the platform's), 1 game, at most 10000
    hands, unseeded, no answer time limit, no log."""
    from guandan_core.cli import build_parser
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.games, args.max_hands, args.seed, args.timeout,
            args.log) == ("127.0.0.1", 23456, 1, 10_000, None, None, None)


def test_guandan_serve_refuses_no_games_as_a_usage_error():
    """--games is "a number of games from 1 to 9999": 0 is refused by the option itself."""
    assert_one_line_error(run_cli(["serve", "--games", "0"]),
                          "argument --games: a number of games from 1 to 9999, not '0'")
