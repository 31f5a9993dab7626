"""A seat on the AI competition platform, kept from its messages (``PlatformSeat``).

Run: ``python -m pytest benchmarks/bench_platform.py --benchmark-only -s``. The messages
of one seat over the first hands of a seeded greedy match (made by the tests' stand-in
for the platform's server) are given to a fresh ``PlatformSeat`` with a greedy player;
the baseline, in the same process, is the greedy player alone choosing from the match's
own Observations at the same turns. Also the slowest single act (the platform expects an
answer within about a second).

Environment: ``GUANDAN_BENCH_HANDS`` (hands, default 20).
"""

import json
import os
import sys
import time
from pathlib import Path

from guandan_core.platform_seat import PlatformSeat
from guandan_core.players import GreedyPlayer

# the stand-in server lives with the tests that check the seat against it
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from platform_server import RecordingGame  # noqa: E402

HANDS = int(os.environ.get("GUANDAN_BENCH_HANDS", "20"))


def test_messages_per_act(benchmark):
    server = RecordingGame([PlatformSeat(GreedyPlayer()) for _ in range(4)], seed=1)
    server.play_hands(HANDS)
    texts = [json.dumps(m) for m in server.sent[0]]
    observations = [obs for seat, obs in server.acts if seat == 0]
    stats = {}

    def best(fn):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    def feed():
        seat = PlatformSeat(GreedyPlayer())
        for text in texts:
            seat.receive(text)

    def slowest_act():
        seat, worst = PlatformSeat(GreedyPlayer()), 0.0
        for text in texts:
            t0 = time.perf_counter()
            answer = seat.receive(text)
            if answer is not None:
                worst = max(worst, time.perf_counter() - t0)
        return worst

    def run():
        player = GreedyPlayer()
        acts = len(observations)
        seat_s = best(feed)
        greedy_s = best(lambda: [player(obs) for obs in observations])
        stats.update(hands=HANDS, messages=len(texts), acts=acts,
                     seat_us_per_message=round(seat_s / len(texts) * 1e6, 1),
                     seat_us_per_act=round(seat_s / acts * 1e6, 1),
                     greedy_us_per_act=round(greedy_s / acts * 1e6, 1),
                     ratio=round(seat_s / greedy_s, 1),
                     slowest_act_ms=round(slowest_act() * 1e3, 2))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nplatform seat: {stats}")


def test_served_over_websockets(benchmark):
    """The same game served over WebSockets (serve() and four play_websocket clients in
    threads, greedy players) against served in process (PlatformGame with four
    PlatformSeats): seconds for the hands, and microseconds an act."""
    import threading

    from guandan_core.platform_client import play_websocket
    from guandan_core.platform_server import PlatformGame, serve

    hands = max(1, HANDS // 4)
    stats = {}

    def in_process():
        clients = [PlatformSeat(GreedyPlayer()) for _ in range(4)]
        t0 = time.perf_counter()
        PlatformGame(clients, seed=1).play(games=1, max_hands=hands)
        return time.perf_counter() - t0, sum(len(c.hands) for c in clients)

    def over_websockets():
        ready, answered = threading.Event(), []
        where = {}

        def on_ready(host, port):
            where["url"] = f"ws://{host}:{port}/game/"
            ready.set()

        server = threading.Thread(target=serve, kwargs=dict(
            port=0, seed=1, max_hands=hands, on_ready=on_ready), daemon=True)
        server.start()
        ready.wait(30)
        t0 = time.perf_counter()
        clients = [threading.Thread(target=lambda i=i: answered.append(play_websocket(
            PlatformSeat(GreedyPlayer()), where["url"] + f"c{i}")), daemon=True)
            for i in range(4)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        server.join()
        return time.perf_counter() - t0, sum(answered)

    def run():
        local = min(in_process()[0] for _ in range(2))
        remote, acts = min(over_websockets() for _ in range(2))
        stats.update(hands=hands, acts=acts, in_process_s=round(local, 3),
                     websockets_s=round(remote, 3), ratio=round(remote / local, 2),
                     websockets_us_per_act=round(remote / acts * 1e6, 1))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(stats)
    print(f"\nserved: {stats}")
