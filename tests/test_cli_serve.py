"""``guandan serve`` / ``platform_server.serve``: a match served in the AI competition
platform's messages over WebSockets (RULES.md sec. 7, 8 and 9 "platform").

Four ``guandan bot`` processes against ``guandan serve`` must play exactly the match
``guandan play`` plays with the same players and seed: the two game logs are compared
line by line, and ``guandan replay`` checks the served one.
"""

import json
import re
import socket
import subprocess
import sys
import threading

import pytest

from guandan_core.platform_client import play_websocket
from guandan_core.platform_seat import PlatformSeat
from guandan_core.players import GreedyPlayer
from cli_process import PACKAGES, assert_one_line_error, cli_env, run_cli

websockets = pytest.importorskip("websockets")
from websockets.sync.client import connect  # noqa: E402


def _cli(*args):
    return subprocess.Popen([sys.executable, "-m", "guandan_core.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=PACKAGES, env=cli_env())


def test_sec8_four_bots_against_the_server_play_guandan_plays_match(tmp_path):
    """RULES 7, 8, 9: the served match, played by four bot processes over WebSockets, is
    the match guandan play plays (same log, event for event), and replays as valid."""
    log = tmp_path / "served.jsonl"
    server = _cli("serve", "--port", "0", "--seed", "3", "--max-hands", "6",
                  "--log", str(log))
    try:
        first = server.stdout.readline()
        assert first.startswith("listening on ws://127.0.0.1:"), first + server.stderr.read()
        port = int(first.split(":")[2].split("/")[0])
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
            self.url = f"ws://{host}:{port}/game/"
            self.ready.set()

        try:
            self.result = serve(port=0, on_ready=ready, on_warning=self.warnings.append,
                                **options)
        except Exception as exc:        # (for the test to look at)
            self.error = exc

    def join(self):
        self.thread.join(120)
        assert not self.thread.is_alive()


def _seat_thread(url, answers_first=None, leave_after=None, hold=None):
    """A greedy client in a thread over a WebSocket; ``answers_first``: text sent before
    the first real answer; ``leave_after``: close after that many acts; ``hold``: an
    Event awaited before answering. ``outcome["started"]`` is set at the first message."""
    outcome = {"started": threading.Event()}

    def run():
        seat = PlatformSeat(GreedyPlayer())
        acts = 0
        try:
            with connect(url) as ws:
                for text in ws:
                    outcome["started"].set()
                    answer = seat.receive(text)
                    if answer is None:
                        continue
                    if hold is not None:
                        hold.wait(60)
                    if answers_first is not None and acts == 0:
                        ws.send(answers_first)
                    ws.send(json.dumps(answer))
                    acts += 1
                    if leave_after is not None and acts >= leave_after:
                        return
            outcome["hands"] = len(seat.hands)
        except Exception as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


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
    with connect(served.url.replace("/game/", "/other")) as ws:
        with pytest.raises(websockets.exceptions.ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.close_code == 1008
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
    """Bad input: a port in use, a bad option value, each one line and exit 2."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_cli(["serve", "--port", str(port)])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(
        f"guandan serve: error: cannot listen on 127.0.0.1:{port}: ")
    assert_one_line_error(run_cli(["serve", "--timeout", "0"]), "seconds above 0, not '0'")
    assert_one_line_error(run_cli(["serve", "--port", "70000"]),
                          "a port from 0 to 65535, not '70000'")


def test_play_websocket_against_the_server_in_process():
    """The library call behind guandan bot, four of them against serve(): every seat
    sees the same number of hands, and counts its answers."""
    served = _Served(seed=5, max_hands=1)
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
    assert served.error is None and sorted(counts) == [0, 1, 2, 3]
    assert all(hands == 1 and answered > 0 for answered, hands in counts.values())
