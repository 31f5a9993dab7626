"""``guandan bot``: play one seat on the AI competition platform.

``guandan bot ws://127.0.0.1:23456/game/client1 [--player NAME] [--seed S] [--move-time S]
[--log FILE]``
connects to a platform server (its offline server, or anything that speaks its messages)
and plays until the server closes the connection, then prints one line: the hands played
and the acts answered. ``--stdio`` instead reads the platform's messages from stdin, one
JSON object a line (or a ``--log`` file of an earlier game), and writes each answer
(``{"actIndex": i}``) as one line on stdout.

The player is one of ``guandan play``'s (default ``sampling``: greedy while many cards are
in play, then the endgame solver over random deals of the hidden hands), seeded with
``--seed`` (default 0, so a game's moves can be repeated); ``--move-time`` (default 0.8 s)
bounds a sampling player's search a move, for the platform's answer time: a move that
meets the bound depends on the machine's speed (a player with no use for one of them,
``--seed`` for greedy, ``--move-time`` for greedy and random, is refused). A message the
seat cannot read or that contradicts the earlier ones stops the bot with one line on
stderr and exit 2 (see :mod:`guandan_core.platform_seat`).
"""

from __future__ import annotations

import argparse
import os
import sys

from .cli import (_set_errors, bounded_seconds_type, nonempty_type, open_option_file,
                  terminated_as_interrupt, whole_number_type)
from .platform_client import check_url, play_lines, play_websocket
from .platform_seat import PlatformSeat
from .players import PLAYERS, make_player
from .rules import PRESET_NAMES
from .usertext import counted

__all__ = ["register", "cmd_bot"]


def cmd_bot(args) -> int:
    if (args.url is None) == (not args.stdio):
        raise ValueError("give the server's address (ws://HOST:PORT/PATH) or --stdio, not "
                         "both" if args.stdio else "give the server's address (e.g. "
                         "ws://127.0.0.1:23456/game/client1) or --stdio")
    if args.url is not None:
        check_url(args.url)
    if args.stdio and sys.stdin is None:
        raise ValueError("--stdio: there is no standard input (it is closed)")
    seat = PlatformSeat(_player(args), args.rules)
    log = open_option_file("--log", args.log, "a") if args.log else None
    try:
        with terminated_as_interrupt():     # (SIGTERM as Ctrl-C: the log is written)
            _play(args, seat, log)
    except BaseException:
        _close_log(log, failing=True)
        raise
    _close_log(log, failing=False)
    return 0


def _close_log(log, failing: bool) -> None:
    # closing writes what is buffered: an error of its own would hide the one that is
    # leaving (a full disk's "cannot write the log" came out bare as "[Errno 28] ...")
    try:
        if log is not None:
            log.close()
    except OSError as exc:
        if not failing:
            raise OSError(f"cannot write the log: {exc.strerror or exc}") from None


def _play(args, seat: PlatformSeat, log) -> None:
    if args.stdio:
        if log is not None and _same_file(log, sys.stdin):
            raise ValueError(f"--log {args.log!r} is the file --stdio reads: the bot "
                             "would read its own log without end; log to another file")
        if log is not None and _same_file(log, sys.stdout):
            raise ValueError(f"--log {args.log!r} is where --stdio writes its answers: a "
                             "relay would read the log's lines among them; log to another "
                             "file")
        # (bytes that are no UTF-8 kept as they came, so that the error names the line and
        # the byte, whatever the locale made of stdin)
        _set_errors(sys.stdin, "surrogateescape")
        try:
            play_lines(seat, sys.stdin, sys.stdout, log)
        except BrokenPipeError:
            # (a relay that stops reading misses answers: not the quiet end of `| head`)
            raise OSError("the reader of the answers (stdout) went away") from None
    else:
        answered = play_websocket(seat, args.url, log)
        print(f"{counted(len(seat.hands), 'hand')} played as seat "
              f"{seat.seat if seat.seat is not None else '?'}, "
              f"{counted(answered, 'act')} answered")


# what --seed and --move-time are when not given
DEFAULT_SEED = 0
DEFAULT_MOVE_TIME = 0.8


def _player(args):
    """The player of --player and --seed; a sampling player's moves bounded by
    --move-time. An option the player has no use for is refused (it was ignored: a
    greedy bot given --seed played as without it)."""
    # (the options are left out of args when not given: --move-time inf is None)
    if hasattr(args, "move_time") and args.player != "sampling":
        raise ValueError(f"--move-time bounds the sampling player's search; the "
                         f"{args.player} player does not search")
    if hasattr(args, "seed") and args.player == "greedy":
        raise ValueError("--seed seeds a random or sampling player; the greedy player "
                         "has no randomness")
    seed = getattr(args, "seed", DEFAULT_SEED)
    if args.player == "sampling":
        from solver.players import SamplingPlayer
        return SamplingPlayer(seed, move_time=getattr(args, "move_time", DEFAULT_MOVE_TIME))
    return make_player(args.player, seed)


def _same_file(a, b) -> bool:
    try:
        return os.path.samestat(os.fstat(a.fileno()), os.fstat(b.fileno()))
    except (OSError, ValueError, AttributeError):
        return False        # (a stream without a file: not the same file)


def register(subparsers) -> None:
    """Add the ``bot`` sub-command to the ``guandan`` parser's sub-parsers."""
    p = subparsers.add_parser(
        "bot", help="play one seat on the AI competition platform",
        description="Play one seat of a game on the AI competition platform: connect to "
                    "its server's WebSocket (ws://HOST:PORT/game/NAME) and answer every "
                    "act message until the server closes the connection; or, with --stdio, "
                    "read its messages one JSON object a line on stdin and write each "
                    "answer as a line on stdout.")
    p.add_argument("url", nargs="?", help="the server's address, e.g. "
                                          "ws://127.0.0.1:23456/game/client1")
    p.add_argument("--stdio", action="store_true",
                   help="messages on stdin, answers on stdout, one JSON object a line")
    p.add_argument("--player", default="sampling", choices=sorted(PLAYERS),
                   help="the player (default sampling)")
    p.add_argument("--seed", type=whole_number_type("a whole number from 0 to 10**30 - 1", 0,
                                                     10**30 - 1), default=argparse.SUPPRESS,
                   help="seed of a random or sampling player (default 0)")
    p.add_argument("--move-time", type=bounded_seconds_type(inf_means_none=True),
                   default=argparse.SUPPRESS,
                   metavar="SECONDS",
                   help="seconds the sampling player's search may take a move, above 0 "
                        "and at most 1,000,000 (default 0.8, inside the platform's answer time of "
                        "about a second; inf: no bound); a move that meets the bound "
                        "depends on the machine's speed")
    p.add_argument("--log", metavar="FILE", type=nonempty_type("a file name"),
                   help="append every message received and answer sent to FILE, one JSON "
                        "object a line ({\"in\": ...} / {\"out\": ...}); --stdio replays such "
                        "a file")
    p.add_argument("--rules", choices=PRESET_NAMES, default="platform",
                   help="the rules the server plays, for the legal moves (default platform: "
                        "a wild card completes heart straight flushes only)")
    p.set_defaults(func=cmd_bot)
