"""``guandan bot``: one seat on the AI competition platform, over its WebSocket or as
lines on stdin/stdout (RULES.md sec. 7: the platform's messages and answers).

The messages come from tests/platform_server.py, which plays a real match; the bot run as
a user runs it must give the answers the in-process PlatformSeat gave to the same messages.
"""

import io
import json
import re
import socket
import subprocess
import sys
import threading

import numpy as np
import pytest

from guandan_core.platform_client import play_lines, play_websocket
from guandan_core.platform_seat import PlatformError, PlatformSeat
from guandan_core.players import make_player
from cli_process import PACKAGES, assert_one_line_error, cli_env, run_cli
from platform_server import RecordingGame

websockets = pytest.importorskip("websockets")
from websockets.sync.server import serve  # noqa: E402


@pytest.fixture(scope="module")
def game():
    """Three hands with sampling players seeded 0 (as ``guandan bot`` seeds its player):
    seat 1's messages and the answers its in-process client gave."""
    server = RecordingGame([PlatformSeat(make_player("sampling", 0)) for _ in range(4)],
                            seed=7)
    server.play_hands(3)
    assert any(m["stage"] == "tribute" for m in server.sent[1])
    return server.sent[1], server.answers[1]


def _lines(objects):
    return "".join(json.dumps(o) + "\n" for o in objects)


def test_sec7_stdio_answers_are_the_seats_answers(game, tmp_path):
    """RULES 7: --stdio answers each act with the index the seat chose in-process, one
    line each; its --log replays to the same answers."""
    messages, answers = game
    log = tmp_path / "game.jsonl"
    # (--move-time inf: the moves must not depend on this machine's speed here)
    proc = run_cli(["bot", "--stdio", "--move-time", "inf", "--log", str(log)],
                   stdin=_lines(messages))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == _lines(answers)
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["in"] for e in logged if "in" in e] == messages
    assert [e["out"] for e in logged if "out" in e] == answers
    again = run_cli(["bot", "--stdio", "--move-time", "inf"], stdin=log.read_text())
    assert again.returncode == 0 and again.stdout == _lines(answers)
    # another player answers otherwise somewhere in three hands, and the recorded game
    # then plays a move it did not answer: the seat says so
    greedy = run_cli(["bot", "--stdio", "--player", "greedy"], stdin=_lines(messages))
    assert greedy.returncode == 2 and greedy.stdout != _lines(answers)
    assert "for this seat, which answered" in greedy.stderr


def test_sigterm_writes_the_bots_log_and_is_status_143(game, tmp_path):
    """SIGTERM (a supervisor, `timeout`) stops the bot as Ctrl-C does: its log holds every
    message it had read, one line on stderr, exit status 143 (the process ended on the
    spot, and what the log's buffer held was lost)."""
    import signal
    import time
    messages, answers = game
    log = tmp_path / "bot.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "bot", "--stdio",
                             "--player", "greedy", "--log", str(log)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=PACKAGES, env=cli_env())
    try:
        first_act = next(i for i, m in enumerate(messages) if m["type"] == "act")
        proc.stdin.write(_lines(messages[:first_act + 1]))
        proc.stdin.flush()          # (and kept open: the bot waits for more)
        assert json.loads(proc.stdout.readline()) == answers[0]
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert (proc.returncode, out, err) == (143, "", "guandan bot: terminated\n")
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["in"] for e in logged if "in" in e] == messages[:first_act + 1]
    assert [e["out"] for e in logged if "out" in e] == answers[:1]


class _Server:
    """A WebSocket server in a thread that sends ``messages`` in order, waits for the
    answer after each act, and records the answers (``misbehave``: close abruptly after
    the first act's answer)."""

    def __init__(self, messages, misbehave=False, wait_for_close=False):
        self.messages, self.misbehave = messages, misbehave
        self.wait_for_close = wait_for_close
        self.answers, self.path, self.error = [], None, None
        self.server = serve(self._handler, "127.0.0.1", 0)
        self.port = self.server.socket.getsockname()[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _handler(self, conn):
        self.path = conn.request.path
        self.conn = conn
        try:
            for message in self.messages:
                conn.send(json.dumps(message))
                if message["type"] == "act":
                    self.answers.append(json.loads(conn.recv(timeout=60)))
                    if self.misbehave:
                        conn.close(code=1011, reason="server fault")
                        return
            if self.wait_for_close:     # until the bot closes, with its code
                conn.recv(timeout=60)
        except Exception as exc:       # (the bot hung up: recorded for the test)
            self.error = exc
        conn.close()

    def stop(self):
        self.server.shutdown()
        self.thread.join(10)


def _bot_against(messages, name, *options):
    """``guandan bot`` connected as NAME to a server that sends ``messages``: (the
    finished process, the server)."""
    server = _Server(messages)
    try:
        proc = run_cli(["bot", f"ws://127.0.0.1:{server.port}/game/{name}", *options])
    finally:
        server.stop()
    return proc, server


def _close_with_first_act(messages):
    """A one-connection WebSocket server in a thread that sends ``messages`` up to the
    first act and a 1001 close in one write, so that the bot reads the close with the
    act, before it can answer (a close sent after the act would race with the answer);
    (its port, an Event set once it has written them)."""
    from websockets.server import ServerProtocol
    first_act = next(i for i, m in enumerate(messages) if m["type"] == "act")
    listener = socket.create_server(("127.0.0.1", 0))
    sent = threading.Event()

    def serve_once():
        with listener, listener.accept()[0] as conn:
            conn.settimeout(30)
            protocol, events = ServerProtocol(), []
            while not events:          # (the bot's opening handshake)
                protocol.receive_data(conn.recv(65536))
                events = protocol.events_received()
            protocol.send_response(protocol.accept(events[0]))
            for message in messages[:first_act + 1]:
                protocol.send_text(json.dumps(message).encode())
            protocol.send_close(1001, "the server was stopped")
            conn.sendall(b"".join(protocol.data_to_send()))
            sent.set()
            while conn.recv(65536):     # (until the bot hangs up)
                pass

    threading.Thread(target=serve_once, daemon=True).start()
    return listener.getsockname()[1], sent


def test_sec7_the_bot_plays_over_the_platforms_websocket(game):
    """RULES 7: the bot connects, answers every act as the seat did in-process, stops
    when the server closes the connection and says what it played."""
    messages, answers = game
    proc, server = _bot_against(messages, "client2", "--move-time", "inf")
    assert proc.returncode == 0, proc.stderr
    assert server.path == "/game/client2" and server.answers == answers
    assert proc.stdout == f"3 hands played as seat 1, {len(answers)} acts answered\n"


def test_a_server_that_closes_in_the_middle_of_a_hand_is_an_error(game):
    """API (play_websocket): a server that closes the connection in the middle of a hand
    (a game abandoned: a server stopped with Ctrl-C closes with 1001) is an error, status
    2, not "0 hands played" with status 0 that a script running games could not tell from
    a game played; a close between hands is the game's end."""
    messages, answers = game
    first_act = next(i for i, m in enumerate(messages) if m["type"] == "act")
    proc, server = _bot_against(messages[:first_act + 3], "client2", "--move-time", "inf")
    assert server.answers == answers[:1]
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"guandan bot: error: the server at ws://127.0.0.1:{server.port}/game/client2 closed "
        "the connection (code 1000) in the middle of a hand, after 1 answer"]
    # the same when the close comes with the act, so that the bot cannot send its answer
    # (it said "talking to ...: received 1001 (going away) ...", the library's words)
    port, sent = _close_with_first_act(messages)
    proc = run_cli(["bot", f"ws://127.0.0.1:{port}/game/client2", "--move-time", "inf"])
    assert sent.wait(30) and sent.is_set()
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"guandan bot: error: the server at ws://127.0.0.1:{port}/game/client2 closed "
        "the connection (code 1001: the server was stopped) in the middle of a hand, after 0 "
        "answers"]
    first_end = next(i for i, m in enumerate(messages) if m.get("stage") == "episodeOver")
    proc, server = _bot_against(messages[:first_end + 1], "client2", "--move-time", "inf")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1 hand played as seat 1, ")


def test_an_error_in_chinese_reaches_the_server_in_its_close(game):
    """A close frame's reason is at most 123 bytes (RFC 6455 sec. 5.5): the bot's error,
    quoting a card written in Chinese (3 bytes a character), is cut to fit, so the server
    still gets the 1011 close and the bot raises its PlatformError, not a failed close."""
    messages, _ = game
    broken = [dict(m) for m in messages[:3]]
    broken[2]["curAction"] = ["Single", "3", ["红桃" * 40]]
    server = _Server(broken, wait_for_close=True)
    try:
        with pytest.raises(PlatformError, match="notify play: unknown card '红桃红桃"):
            play_websocket(PlatformSeat(make_player("greedy")),
                           f"ws://127.0.0.1:{server.port}/game/client1")
    finally:
        server.stop()
    reason = server.conn.close_reason
    assert server.conn.close_code == 1011
    assert reason.startswith("notify play: unknown card '红桃") and len(reason.encode()) >= 121


def test_a_bot_stopped_by_its_user_says_goodbye_not_internal_error(game):
    """API (play_websocket): Ctrl-C or SIGTERM (raised as Ctrl-C) while the bot plays
    closes with 1001, going away, and a reason; the server then names that in its error
    once. (The with block closed with 1011, an internal error, with no reason, and the
    server's error repeated websockets' text at every hop: "received 1011 (internal
    error); then sent 1011 (internal error)".)"""
    messages, _ = game

    def stopped(observation):
        raise KeyboardInterrupt
    server = _Server(messages, wait_for_close=True)
    try:
        with pytest.raises(KeyboardInterrupt):
            play_websocket(PlatformSeat(stopped), f"ws://127.0.0.1:{server.port}/game/c1")
    finally:
        server.stop()
    assert (server.conn.close_code, server.conn.close_reason) == (1001, "the client was stopped")
    from guandan_core.platform_server import _Connection
    with pytest.raises(OSError) as left:
        _Connection(server.conn, 2, 5.0, None).receive(json.dumps(messages[0]))
    assert str(left.value) == "seat 2 left the game (closed with 1001: the client was stopped)"


def test_sec7_a_bad_message_stops_the_bot_with_one_line(game, tmp_path):
    """Bad input: a message the seat cannot take ends the bot with one line naming it,
    over the WebSocket and on stdin."""
    messages, _ = game
    broken = [dict(m) for m in messages[:3]]
    broken[2]["curAction"] = ["Single", "3", ["XX"]]
    server = _Server(broken, wait_for_close=True)
    try:
        proc = run_cli(["bot", f"ws://127.0.0.1:{server.port}/game/client1"])
    finally:
        server.stop()
    assert_one_line_error(proc, "notify play: unknown card 'XX'")
    # the server is told it is an error (1011), not a goodbye
    assert server.conn.close_code == 1011 and "unknown card 'XX'" in server.conn.close_reason
    proc = run_cli(["bot", "--stdio"], stdin=_lines(broken))
    assert_one_line_error(proc, "line 3: notify play: unknown card 'XX'")
    proc = run_cli(["bot", "--stdio"], stdin=_lines(messages[:1]) + "{oops\n")
    assert_one_line_error(proc, "line 2: a message is JSON text")
    # bytes that are no UTF-8 are named with their line, whatever the locale's decoder
    # (strict, it said "'utf-8' codec can't decode byte 0xe9 in position 78", no line;
    # surrogateescape, "not valid JSON: ... '\\udce9'")
    raw = (_lines(messages[:1]) + '{"type": "notify\xe9"}\n').encode("latin-1")
    log = tmp_path / "bytes.jsonl"
    for encoding in ("utf-8:strict", "utf-8:surrogateescape"):
        log.unlink(missing_ok=True)
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "bot", "--stdio",
                               "--log", str(log)],
                              input=raw, capture_output=True, cwd=PACKAGES,
                              env=cli_env(PYTHONIOENCODING=encoding), timeout=120)
        assert_one_line_error(subprocess.CompletedProcess(
            proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()),
            "line 2: a message is UTF-8 text: the byte 0xe9 at character 17 is not UTF-8")
        # and its log replays to the same error (it said "unknown message type")
        assert_one_line_error(run_cli(["bot", "--stdio"], stdin=log.read_text()),
                              "line 2: a message is UTF-8 text: the byte 0xe9 at character 17")
    with pytest.raises(PlatformError, match="a lone surrogate U\\+D800 at character 8 is"):
        play_lines(PlatformSeat(make_player("greedy")), io.StringIO('{"t": "\ud800"}\n'),
                   io.StringIO())
    # a line without end is not read past MAX_LINE characters
    from guandan_core.platform_client import MAX_LINE
    proc = run_cli(["bot", "--stdio"], stdin=_lines(messages[:1]) + " " * (3 * MAX_LINE))
    assert_one_line_error(proc, f"line 2: longer than {MAX_LINE:,} characters")
    fits = io.StringIO(_lines(messages[:1]) + " " * (MAX_LINE - 1) + "\n" + " " * MAX_LINE)
    assert play_lines(PlatformSeat(make_player("greedy")), fits, io.StringIO()) == 0


def test_the_bot_reports_a_connection_it_cannot_make_or_keep(game, tmp_path):
    """Bad input: no server at the address, a server that breaks the connection, an
    address that is not a WebSocket one (refused before --log makes its file), neither
    or both of an address and --stdio, a seed out of range."""
    with socket.socket() as s:          # a port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run_cli(["bot", f"ws://127.0.0.1:{port}/game/client1"])
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert f"guandan bot: error: cannot connect to ws://127.0.0.1:{port}/game/client1: " \
        "Connection refused" in proc.stderr
    messages, _ = game
    server = _Server(messages, misbehave=True)
    try:
        proc = run_cli(["bot", f"ws://127.0.0.1:{server.port}/game/client1"])
    finally:
        server.stop()
    # (its close named once: websockets' text gave the reason received and sent back)
    assert_one_line_error(proc, f"the server at ws://127.0.0.1:{server.port}/game/client1 "
                                "broke the connection (closed with 1011: server fault) after "
                                "1 answer")
    # a message over MAX_MESSAGE_BYTES: websockets closes with 1009, and the error says
    # why (it read as though the server had broken the connection)
    from guandan_core.platform_client import MAX_MESSAGE_BYTES
    server = _Server([{"type": "notify", "stage": "beginning", "pad": "x" * MAX_MESSAGE_BYTES}])
    try:
        proc = run_cli(["bot", f"ws://127.0.0.1:{server.port}/game/client1"])
    finally:
        server.stop()
    assert_one_line_error(proc, f"the server at ws://127.0.0.1:{server.port}/game/client1 "
                                f"sent a message of more than 1,048,576 bytes, more than any "
                                f"of the platform's needs: the connection was closed (sent "
                                f"1009 (message too big)")
    assert proc.stderr.strip().endswith(") after 0 answers"), proc.stderr
    log = tmp_path / "never.jsonl"
    assert_one_line_error(run_cli(["bot", "http://127.0.0.1:23456/game/client1", "--log",
                                   str(log)]), "a platform address is ws://HOST:PORT/PATH")
    assert not log.exists()
    assert_one_line_error(run_cli(["bot", "ws://[bad/x"]),
                          "'ws://[bad/x' is not a WebSocket address")
    assert_one_line_error(run_cli(["bot"]), "give the server's address")
    assert_one_line_error(run_cli(["bot", "ws://127.0.0.1:1/x", "--stdio"]), "not both")
    assert_one_line_error(run_cli(["bot", "--stdio", "--player", "best"]),
                          "invalid choice: 'best'")
    assert_one_line_error(run_cli(["bot", "--stdio", "--seed", str(10**30)]),
                          f"a whole number from 0 to 10**30 - 1, not '{10**30}'")
    highest = run_cli(["bot", "--stdio", "--player", "random", "--seed", str(10**30 - 1)],
                      stdin=_lines(messages[:2]))
    assert highest.returncode == 0 and highest.stderr == ""


def test_play_lines_names_the_line_it_cannot_take():
    """The library call behind --stdio: a PlatformError naming the line."""
    seat = PlatformSeat(make_player("greedy"))
    with pytest.raises(PlatformError, match=r'line 2: unknown message type "hello"'):
        play_lines(seat, io.StringIO('\n{"type": "hello"}\n'), io.StringIO())


def test_play_lines_reads_a_log_line_of_in_or_out_alone_and_a_byte_order_mark(game):
    """A log line with `in` or `out` and another key is refused, naming its keys (it was
    "unknown message type None"); a byte order mark before the first line, which an editor
    may write when a log is saved again, is read past, as the engine protocol and the
    file readers do (it was "not valid JSON: Unexpected UTF-8 BOM")."""
    messages, _ = game
    beginning = json.dumps(messages[0])
    for line, keys in (('{"in": %s, "out": 1}' % beginning, '"in", "out"'),
                       ('{"in": %s, "x": 1}' % beginning, '"in", "x"'),
                       ('{"out": 1, "when": 2}', '"out", "when"')):
        with pytest.raises(PlatformError, match=re.escape(
                f'line 2: a log line is {{"in": message}} or {{"out": answer}} alone, not '
                f'one with the keys {keys}')):
            play_lines(PlatformSeat(make_player("greedy")),
                       io.StringIO(_lines(messages[:1]) + line + "\n"), io.StringIO())
    # (up to the first act: a greedy seat's later plays are not the recorded seat's)
    first_act = next(i for i, m in enumerate(messages) if m["type"] == "act")
    log, answers = io.StringIO(), io.StringIO()
    assert play_lines(PlatformSeat(make_player("greedy")),
                      io.StringIO(_lines(messages[:first_act + 1])), answers, log) == 1
    for text in (_lines(messages[:first_act + 1]), log.getvalue()):
        out = io.StringIO()
        assert play_lines(PlatformSeat(make_player("greedy")), io.StringIO("\ufeff" + text),
                          out) == 1
        assert out.getvalue() == answers.getvalue()
    # only before the first line: one inside the stream is no JSON
    with pytest.raises(PlatformError, match="line 2: a message is JSON text"):
        play_lines(PlatformSeat(make_player("greedy")),
                   io.StringIO(_lines(messages[:1]) + "\ufeff" + _lines(messages[1:2])),
                   io.StringIO())


def test_a_message_encoded_twice_is_refused_and_its_log_replays_to_the_same_error(game):
    """A message sent as a JSON string holding the message's JSON text is no message (it
    was decoded again and played); its log line replays to the same error."""
    messages, _ = game
    twice = json.dumps(json.dumps(messages[1]))
    log = io.StringIO()
    error = r"line 2: a message is a JSON object, not '\{\"type\": \"notify\""
    with pytest.raises(PlatformError, match=error):
        play_lines(PlatformSeat(make_player("greedy")),
                   io.StringIO(_lines(messages[:1]) + twice + "\n"), io.StringIO(), log)
    with pytest.raises(PlatformError, match=error):
        play_lines(PlatformSeat(make_player("greedy")), io.StringIO(log.getvalue()),
                   io.StringIO())
    proc = run_cli(["bot", "--stdio"], stdin=_lines(messages[:1]) + twice + "\n")
    assert_one_line_error(proc, "line 2: a message is a JSON object, not '{")


def test_a_logged_message_of_the_largest_size_replays(tmp_path):
    """A message may be up to MAX_MESSAGE_BYTES (the WebSocket's bound), so its line in a
    log, ``{"in": message}``, is longer than that and must still be read; each logged
    line is on disk as soon as it is written (flushed: a crashed bot's log is whole)."""
    from guandan_core.platform_client import MAX_MESSAGE_BYTES
    message = {"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 1,
               "pad": ""}
    message["pad"] = "x" * (MAX_MESSAGE_BYTES - len(json.dumps(message)))
    assert len(json.dumps(message)) == MAX_MESSAGE_BYTES
    lines = json.dumps({"in": message}) + "\n" + json.dumps({"in": message | {"pad": 1}}) \
        + "\n"     # (the short line would sit in the file's buffer unless flushed)
    seat = PlatformSeat(make_player("greedy"))
    log = tmp_path / "log.jsonl"
    with open(log, "a", encoding="utf-8") as f:
        assert play_lines(seat, io.StringIO(lines), io.StringIO(), f) == 0
        assert log.read_text(encoding="utf-8") == lines      # (before the file is closed)


def test_a_line_of_the_longest_length_is_read_and_one_more_character_is_not():
    """API.md: a line longer than MAX_LINE, 1 MiB + 1,024 characters, is refused; a line of
    exactly that many characters, its newline after them, is read."""
    longest = 2 ** 20 + 1024
    message = {"type": "notify", "stage": "gameOver", "curTimes": 1, "pad": ""}
    message["pad"] = "x" * (longest - len(json.dumps(message)))
    line = json.dumps(message)
    assert len(line) == longest
    seat = PlatformSeat(make_player("greedy"))
    assert play_lines(seat, io.StringIO(line + "\n"), io.StringIO()) == 0
    assert seat.game_results == [{"stage": "gameOver", "curTimes": 1, "pad": message["pad"]}]
    with pytest.raises(PlatformError, match="line 1: longer than 1,049,600 characters"):
        play_lines(seat, io.StringIO(" " + line + "\n"), io.StringIO())


def test_only_a_line_that_is_a_log_entry_alone_is_unwrapped():
    """API.md: a log's ``{"in": message}`` line is read as its message (and an
    ``{"out": ...}`` line skipped); a platform message that merely has an "in" or "out"
    key among its own is read as it is."""
    seat = PlatformSeat(make_player("greedy"))
    lines = _lines([{"type": "notify", "stage": "gameOver", "curTimes": 1, "in": 5},
                    {"in": {"type": "notify", "stage": "gameResult", "out": 1}},
                    {"out": {"actIndex": 0}}])
    assert play_lines(seat, io.StringIO(lines), io.StringIO()) == 0
    assert seat.game_results == [{"stage": "gameOver", "curTimes": 1, "in": 5},
                                 {"stage": "gameResult", "out": 1}]


def test_a_message_too_big_is_an_oserror_of_play_websocket():
    """API.md: a message of more than MAX_MESSAGE_BYTES (1 MiB) closes the connection, and
    play_websocket raises the OSError of a broken connection, saying so."""
    server = _Server([{"type": "notify", "stage": "beginning", "pad": "x" * 2 ** 20}])
    url = f"ws://127.0.0.1:{server.port}/game/client1"
    try:
        with pytest.raises(OSError, match=re.escape(
                f"the server at {url} sent a message of more than 1,048,576 bytes")):
            play_websocket(PlatformSeat(make_player("greedy")), url)
    finally:
        server.stop()


def test_check_url_refuses_an_address_that_is_not_a_websocket_one():
    """API.md: the platform's address is ws://HOST:PORT/PATH (or wss://); a scheme alone,
    another scheme, no string, or an address holding a blank or a control character (it
    was refused only when connecting) is a ValueError naming it."""
    from guandan_core.platform_client import check_url
    for url in ("ws://", "WSS://", "http://127.0.0.1:23456/game/client1", None,
                "ws://127.0.0.1:1/game/x y", " ws://127.0.0.1:1/game/x",
                "ws://127.0.0.1:1/game/x\n", "ws://127.0.0.1:1/game/\x00"):
        with pytest.raises(ValueError, match=r"a platform address is ws://HOST:PORT/PATH"):
            check_url(url)


def test_check_url_gives_the_address_back():
    """check_url is public (``__all__``): a good address comes back as it was given."""
    from guandan_core.platform_client import check_url
    for url in ("ws://127.0.0.1:23456/game/client1", "WSS://example.org/x"):
        assert check_url(url) == url


def _no_connecting(monkeypatch) -> list:
    """websockets' connect replaced: it records its open_timeout and refuses to connect."""
    import websockets.sync.client
    timeouts = []

    def connect(url, open_timeout, **kwargs):
        timeouts.append(open_timeout)
        raise ConnectionRefusedError("not connecting in this test")
    monkeypatch.setattr(websockets.sync.client, "connect", connect)
    return timeouts


@pytest.mark.parametrize("open_timeout", [-5, 0, True, float("inf"), 1e300, float("nan"),
                                          "1", 1e6 + 1])
def test_play_websocket_refuses_an_open_timeout_out_of_range_before_connecting(
        open_timeout, monkeypatch):
    """API.md, play_websocket: open_timeout is seconds above 0 and at most 1e6, or None,
    a ValueError naming it before connecting (-5 timed out at once, True waited 1 s, inf
    and 1e300 overflowed the clock, NaN blamed the address, '1' failed to add)."""
    timeouts = _no_connecting(monkeypatch)
    with pytest.raises(ValueError) as caught:
        play_websocket(PlatformSeat(make_player("greedy")), "ws://127.0.0.1:9/game/client1",
                       open_timeout=open_timeout)
    assert str(caught.value) == (f"open_timeout: seconds above 0 and at most 1e+06, or "
                                 f"None, not {open_timeout!r}")
    assert timeouts == []


def test_play_websocket_takes_numpy_seconds_and_none_as_an_open_timeout(monkeypatch):
    """API.md, play_websocket: open_timeout is seconds, numpy's too (websockets' clock
    refused a float32), or None (no limit)."""
    timeouts = _no_connecting(monkeypatch)
    for open_timeout in (np.float32(0.5), np.int64(2), None):
        with pytest.raises(OSError, match="cannot connect to ws://127.0.0.1:9/game/client1"):
            play_websocket(PlatformSeat(make_player("greedy")),
                           "ws://127.0.0.1:9/game/client1", open_timeout=open_timeout)
    assert timeouts == [0.5, 2.0, None]
    assert [type(t) for t in timeouts[:2]] == [float, float]


@pytest.mark.parametrize("call, message", [
    (lambda: play_lines(None, io.StringIO(), io.StringIO()),
     "seat must be a PlatformSeat, not None"),
    (lambda: play_lines(PlatformSeat(make_player("greedy")), None, io.StringIO()),
     "infile must be a text stream (with readline()), not None"),
    (lambda: play_lines(PlatformSeat(make_player("greedy")), io.StringIO(), None),
     "outfile must be a text stream (with write()), not None"),
    (lambda: play_websocket(None, "ws://127.0.0.1:9/game/client1"),
     "seat must be a PlatformSeat, not None"),
    # a log that cannot be written (an AttributeError at the first message), and a binary
    # input (its first line's byte order mark was looked for as text, a TypeError of
    # bytes.removeprefix)
    (lambda: play_lines(PlatformSeat(make_player("greedy")), io.StringIO(), io.StringIO(),
                        log=5),
     "log must be a text stream (with write()) or None, not 5"),
    (lambda: play_websocket(PlatformSeat(make_player("greedy")),
                            "ws://127.0.0.1:9/game/client1", log=5),
     "log must be a text stream (with write()) or None, not 5"),
    (lambda: play_lines(PlatformSeat(make_player("greedy")), io.BytesIO(b'{"type": 1}\n'),
                        io.StringIO()),
     "play_lines reads a text stream, not one of bytes"),
])
def test_play_lines_and_play_websocket_name_a_seat_or_stream_of_a_wrong_type(
        call, message, monkeypatch):
    """API.md, play_lines / play_websocket: seat is a PlatformSeat and the streams have
    readline and write, else a TypeError naming the argument before anything is read or
    connected to (they failed later with an AttributeError)."""
    timeouts = _no_connecting(monkeypatch)
    with pytest.raises(TypeError) as caught:
        call()
    assert str(caught.value) == message
    assert timeouts == []


@pytest.mark.parametrize("args, message", [
    (['bot', 'ws://127.0.0.1:9/game/client1'], "connecting to the platform"),
    (['serve', '--port', '0'], "serving the platform's messages")])
def test_without_websockets_the_bot_and_server_say_how_to_get_it(args, message):
    """The WebSocket client and server are an extra: without it, one line saying how to
    install it."""
    from cli_process import run_python
    done = run_python("import sys; sys.modules['websockets'] = None\n"
                      "from guandan_core.cli import main\n"
                      f"sys.exit(main({args!r}))")
    assert_one_line_error(done, f"{message} needs the websockets package: "
                                "pip install \"guandan-core[bot]\"")


def test_the_bot_options_reach_its_player(monkeypatch, tmp_path):
    """--move-time bounds the sampling player's moves (0.8 s by default, inf: no bound;
    the other players have no time bound); a --stdio input with no file behind it (a
    StringIO, as a program calling the CLI in-process may give) is not taken for the log
    file, so the bot plays and logs."""
    from guandan_core.cli import build_parser
    from guandan_core.cli_bot import _player, cmd_bot
    for given, bound in (([], 0.8), (["--move-time", "0.05"], 0.05),
                         (["--move-time", "inf"], None)):
        assert _player(build_parser().parse_args(["bot", "--stdio", *given])).move_time \
            == bound
    greedy = _player(build_parser().parse_args(["bot", "--stdio", "--player", "greedy"]))
    assert type(greedy) is type(make_player("greedy"))
    log = tmp_path / "log.jsonl"
    text = '{"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 1}\n'
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    args = build_parser().parse_args(["bot", "--stdio", "--log", str(log)])
    assert cmd_bot(args) == 0
    assert [json.loads(line) for line in log.read_text().splitlines()] == \
        [{"in": json.loads(text)}]


def test_the_log_keeps_what_could_not_be_read(game, tmp_path):
    """A message that is not JSON is logged as it came, so the log replays to the same
    error; text that UTF-8 cannot hold (a lone surrogate) is logged as an escape; a log
    that is also the input is refused (the bot would read its own lines without end)."""
    messages, _ = game
    log = tmp_path / "log.jsonl"
    # (a gameOver before the first hand: one during a hand is refused)
    text = '{"type": "notify", "stage": "gameOver", "x": "\\ud800"}\n' + _lines(messages[:2]) \
        + "{oops\n"
    proc = run_cli(["bot", "--stdio", "--log", str(log)], stdin=text)
    assert_one_line_error(proc, "line 4: a message is JSON text")
    logged = log.read_text().splitlines()
    assert len(logged) == 4 and json.loads(logged[3]) == {"in": "{oops"}
    assert json.loads(logged[0])["in"]["x"] == "\ud800"
    again = run_cli(["bot", "--stdio"], stdin=log.read_text())
    assert_one_line_error(again, "line 4: a message is JSON text")
    with open(log) as same:
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "bot", "--stdio",
                               "--log", str(log)], stdin=same, capture_output=True,
                              text=True, cwd=PACKAGES, env=cli_env(), timeout=60)
    assert_one_line_error(proc, "is the file --stdio reads")
    # nor where it writes its answers: a relay would read the log's lines among them
    proc = run_cli(["bot", "--stdio", "--log", "/dev/stdout"], stdin=log.read_text())
    assert_one_line_error(proc, "is where --stdio writes its answers")


def test_a_relay_that_stops_reading_is_an_error(game):
    """--stdio: a reader of the answers that goes away means answers not delivered: one
    line and exit 2, not the quiet end of a pipe into head."""
    messages, _ = game
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "bot", "--stdio",
                             "--player", "greedy"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=PACKAGES, env=cli_env())
    proc.stdout.close()
    _, err = proc.communicate(_lines(messages), timeout=60)
    assert proc.returncode == 2
    assert err.strip() == "guandan bot: error: the reader of the answers (stdout) went away"


def test_the_sampling_players_moves_are_bounded_in_time():
    """--move-time (SamplingPlayer's move_time) bounds a move's search: at a turn with 25
    cards in play, 200 deals take far longer than the 50 ms bound, which is kept; the
    move is still a legal one; bad bounds are refused."""
    import time

    from guandan_core.match import Match, MatchRules
    from guandan_core.players import GreedyPlayer
    from solver.players import SamplingPlayer
    turns = []

    class Grab(GreedyPlayer):
        def __call__(self, obs):
            if not turns and sum(obs.cards_left) <= 30 and len(obs.legal_moves) > 3:
                turns.append(obs)
            return super().__call__(obs)

    Match([Grab()] + [GreedyPlayer() for _ in range(3)], MatchRules.platform(),
          seed=3).play(2)
    obs = turns[0]
    seconds = {}
    for bound in (None, 0.05):
        player = SamplingPlayer(0, deals=200, max_cards=40, node_limit=5_000_000,
                                move_time=bound)
        t0 = time.perf_counter()
        move = player(obs)
        seconds[bound] = time.perf_counter() - t0
        assert move in obs.legal_moves
        if bound is None:
            assert player.searched == 1
        elif player.searched == 0:
            # on a busy machine no deal may be solved within 50 ms: the greedy move
            assert move == GreedyPlayer()(obs)
    assert seconds[0.05] < 0.5 and seconds[0.05] * 3 < seconds[None], seconds
    for bad in (0, -1, 1e7, True, "1", np.float32(-1)):
        with pytest.raises(ValueError, match="move_time must be seconds above 0"):
            SamplingPlayer(0, move_time=bad)
    # numpy's seconds too (a float32 was refused as not a number), kept as a float
    assert SamplingPlayer(0, move_time=np.float32(0.25)).move_time == 0.25
    assert type(SamplingPlayer(0, move_time=np.int64(2)).move_time) is float
    assert_one_line_error(run_cli(["bot", "--stdio", "--move-time", "0"]),
                          "seconds above 0 and at most 1e+06, or inf, not '0'")


def test_an_option_the_player_has_no_use_for_is_refused():
    """--move-time bounds the sampling player's search and --seed seeds a random or
    sampling player: given to a player that does not search, or to the greedy player,
    they were ignored (the bot played as without them); now each is one line and
    status 2, before any message is read."""
    from guandan_core.cli import build_parser
    from guandan_core.cli_bot import _player
    for player in ("greedy", "random"):
        assert_one_line_error(
            run_cli(["bot", "--stdio", "--player", player, "--move-time", "1"], stdin=""),
            f"--move-time bounds the sampling player's search; the {player} player does "
            f"not search")
    assert_one_line_error(run_cli(["bot", "--stdio", "--player", "greedy", "--seed", "1"],
                                  stdin=""),
                          "--seed seeds a random or sampling player; the greedy player has "
                          "no randomness")
    # the defaults where they are taken: seed 0, 0.8 s a move (inf: no bound)
    def player(*given):
        return _player(build_parser().parse_args(["bot", "--stdio", *given]))
    assert (player().seed, player().move_time) == (0, 0.8)
    assert player("--move-time", "inf").move_time is None
    assert player("--player", "random").seed == 0
    assert player("--player", "random", "--seed", "7").seed == 7


def test_the_log_is_appended_to(monkeypatch, tmp_path):
    """--log FILE: "append every message received and answer sent to FILE" (the option's
    help): what the file held before is kept, the new entries follow it."""
    from guandan_core.cli import build_parser
    from guandan_core.cli_bot import cmd_bot
    log = tmp_path / "log.jsonl"
    earlier = '{"in": {"type": "notify", "stage": "beginning"}}\n'
    log.write_text(earlier)
    text = '{"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 1}\n'
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert cmd_bot(build_parser().parse_args(["bot", "--stdio", "--log", str(log)])) == 0
    assert log.read_text() == earlier + json.dumps({"in": json.loads(text)}) + "\n"


@pytest.mark.parametrize("given, rules", [([], "platform"), (["--rules", "standard"], "standard"),
                                          (["--rules", "no-sf-bomb"], "no-sf-bomb")])
def test_the_rules_option_reaches_the_seat(monkeypatch, given, rules):
    """--rules: the rules the server plays, for the legal moves (default platform: the
    option's help); the seat that reads the messages is given them."""
    from guandan_core import cli_bot
    from guandan_core.cli import build_parser
    from guandan_core.rules import Rules
    seats = []

    class Recorded(PlatformSeat):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            seats.append(self)

    monkeypatch.setattr(cli_bot, "PlatformSeat", Recorded)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    args = build_parser().parse_args(["bot", "--stdio", "--player", "greedy", *given])
    assert cli_bot.cmd_bot(args) == 0
    assert len(seats) == 1 and seats[0].rules == Rules.by_name(rules)


def test_the_seed_option_reaches_the_player():
    """--seed: the seed of a random or sampling player (the option's help)."""
    from guandan_core.cli import build_parser
    from guandan_core.cli_bot import _player
    for name in ("sampling", "random"):
        args = build_parser().parse_args(["bot", "--stdio", "--player", name, "--seed", "5"])
        assert _player(args).seed == 5, name


def test_the_bot_says_it_played_as_seat_0():
    """The line the bot ends with names its seat, seat 0 too (RULES 7: the platform's
    seats are 0 to 3)."""
    server_game = RecordingGame([PlatformSeat(make_player("greedy")) for _ in range(4)],
                                seed=3)
    server_game.play_hands(1)
    messages, answers = server_game.sent[0], server_game.answers[0]
    proc, server = _bot_against(messages, "client1", "--player", "greedy")
    assert proc.returncode == 0, proc.stderr
    assert server.answers == answers
    assert proc.stdout == f"1 hand played as seat 0, {len(answers)} acts answered\n"


def test_a_log_that_cannot_be_written_to_is_named_as_the_log(game):
    """guandan bot --log: a write that fails (a full disk: /dev/full) is one line saying it
    was the log's (it was "[Errno 28] No space left on device" alone), exit 2."""
    import os
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    messages, _ = game
    proc = run_cli(["bot", "--stdio", "--player", "greedy", "--log", "/dev/full"],
                   stdin=_lines(messages[:2]))
    assert_one_line_error(proc, "guandan bot: error: cannot write the log: No space left "
                                "on device")
