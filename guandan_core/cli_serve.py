"""``guandan serve``: a match served as the AI competition platform serves one.

``guandan serve [--host H] [--port P] [--games N] [--max-hands N] [--seed S] [--timeout S]
[--log FILE]``
listens at ``ws://H:P/game/NAME`` (default ``127.0.0.1:23456``, the platform's), waits for
four clients (seats in the order they connect: the first and third against the second and
fourth), plays N games with them (default 1) in the platform's messages and prints the
result. ``--log FILE`` writes the game log of ``guandan play --json``, which ``guandan
replay`` checks. Port 0 picks a free port; the first line printed names the address.
See :mod:`guandan_core.platform_server` for where it differs from the platform.
"""

from __future__ import annotations

import json

from .cli import (bounded_seconds_type, nonempty_type, open_option_file, say,
                  terminated_as_interrupt, whole_number_type)
from .platform_server import DEFAULT_PORT, MAX_TIMEOUT, serve, ws_url
from .usertext import counted

__all__ = ["register", "cmd_serve"]


def cmd_serve(args) -> int:
    log = []        # the log file, opened once the server listens (a busy port leaves it)

    def ready(host, port):
        if args.log:
            log.append(open_option_file("--log", args.log, "w"))
        print(f"listening on {ws_url(host, port, '/game/NAME')}: waiting for 4 clients",
              flush=True)

    def warn(text):
        say(f"guandan serve: {text}")

    def event(e):
        log[0].write(json.dumps(e) + "\n")

    try:
        # (SIGTERM as Ctrl-C: the clients are closed with 1001 and the log is written;
        # it ended the process with the log empty and the clients left hanging)
        with terminated_as_interrupt():
            results = serve(args.host, args.port, args.games, args.seed,
                            max_hands=args.max_hands, timeout=args.timeout,
                            on_event=event if args.log else None, on_ready=ready,
                            on_warning=warn)
    finally:
        for f in log:
            f.close()
    won = [sum(1 for r in results if r.winner == team) for team in (0, 1)]
    print(f"{counted(len(results), 'hand')}; games won: team 0+2 {won[0]}, team 1+3 {won[1]}")
    return 0


def register(subparsers) -> None:
    """Add the ``serve`` sub-command to the ``guandan`` parser's sub-parsers."""
    p = subparsers.add_parser(
        "serve", help="serve a match in the AI competition platform's messages",
        description="Wait for four WebSocket clients at ws://HOST:PORT/game/NAME (seats in "
                    "the order they connect) and play games with them in the AI "
                    "competition platform's messages, under its rules (RULES sec. 9).")
    p.add_argument("--host", default="127.0.0.1",
                   type=nonempty_type("an address to listen on (0.0.0.0 or :: for every "
                                      "interface)"),
                   help="address to listen on, IPv4 or IPv6 (default 127.0.0.1: this "
                        "machine only; 0.0.0.0 or ::: every interface, for clients on other "
                        "machines)")
    p.add_argument("--port", type=whole_number_type("a port from 0 to 65535", 0, 65535),
                   default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: a free one)")
    p.add_argument("--games", type=whole_number_type("a number of games from 1 to 9999", 1,
                                                      9999), default=1,
                   help="games to play (default 1); a game ends when a team wins at A")
    p.add_argument("--max-hands", type=whole_number_type("a number of hands from 1 to "
                                                          "999999", 1, 999_999),
                   default=10_000, help="stop after this many hands (default 10000)")
    p.add_argument("--seed", type=whole_number_type("a whole number from 0 to 10**30 - 1", 0,
                                                     10**30 - 1), default=None,
                   help="seed for dealing (default: unseeded)")
    p.add_argument("--timeout", type=bounded_seconds_type(MAX_TIMEOUT), default=None,
                   metavar="SECONDS",
                   help="seconds a client may take over an answer, from the act message, "
                        f"above 0 and at most {MAX_TIMEOUT:,.0f} (default: no limit)")
    p.add_argument("--log", metavar="FILE", type=nonempty_type("a file name"),
                   help="write the game log (guandan play --json's events) to FILE")
    p.set_defaults(func=cmd_serve)
