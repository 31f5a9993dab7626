"""Carrying a :class:`~guandan_core.platform_seat.PlatformSeat`'s messages: over the AI
competition platform's WebSocket, or as lines of text.

:func:`play_websocket` connects to a platform server (``ws://127.0.0.1:23456/game/NAME``;
the ``websockets`` package, ``pip install "guandan-core[bot]"``) and answers every ``act``
message until the server closes the connection. :func:`play_lines` reads one JSON message
a line from a text stream and writes each answer as one JSON line, for a relay written in
another language, or to replay a logged stream. Both can log every message received and
every answer sent, one JSON object a line (``{"in": message}`` / ``{"out": answer}``),
which is also what :func:`play_lines` replays (it reads the ``in`` lines of such a log).

>>> import io
>>> from guandan_core.players import GreedyPlayer
>>> from guandan_core.platform_seat import PlatformSeat
>>> out = io.StringIO()
>>> play_lines(PlatformSeat(GreedyPlayer()), io.StringIO(
...     '{"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 1}\\n'), out)
0
"""

from __future__ import annotations

import itertools
import json
from typing import Optional, TextIO

from .platform_seat import PlatformError, PlatformSeat, read_message
from .platform_server import _checked_timeout
from .usertext import close_reason, closed_for_size, counted, how_closed, quoted

__all__ = ["play_websocket", "play_lines", "check_url"]

MAX_MESSAGE_BYTES = 1 << 20     # an act message at a 27-card lead is about 20 KB
MAX_LINE = MAX_MESSAGE_BYTES + 1024     # a line of play_lines: a message, or a log's {"in": ...}


def check_url(url: str) -> str:
    """``url`` if it is a ``ws://`` or ``wss://`` address, else a ValueError naming it (a
    blank or a control character in it too: a URL holds none, and one was only refused
    when connecting)."""
    if not isinstance(url, str) or not url.lower().startswith(("ws://", "wss://")) \
            or len(url.split("//", 1)[1]) == 0 \
            or any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError(f"a platform address is ws://HOST:PORT/PATH (e.g. "
                         f"ws://127.0.0.1:23456/game/client1), not {quoted(url)}")
    return url


def _check_seat_and_log(seat, log) -> None:
    if not isinstance(seat, PlatformSeat):
        raise TypeError(f"seat must be a PlatformSeat, not {quoted(seat)}")
    if log is not None and not callable(getattr(log, "write", None)):
        raise TypeError(f"log must be a text stream (with write()) or None, not "
                        f"{quoted(log)}")


def _logged(log: Optional[TextIO], direction: str, message) -> None:
    if log is not None:
        try:
            # (ASCII escapes: a lone surrogate in a message cannot be written as UTF-8)
            log.write(json.dumps({direction: message}) + "\n")
            log.flush()
        except OSError as exc:      # (a full disk: named as the log's, not bare)
            raise OSError(f"cannot write the log: {exc.strerror or exc}") from None


def _parsed(text, log: Optional[TextIO]):
    """A message's JSON value; text that is not JSON is logged as it came (a string),
    so that a replay of the log meets the same error. A JSON string is refused as a
    PlatformSeat refuses any other value that is no object (a message encoded twice was
    decoded again and played)."""
    try:
        if isinstance(text, str) and not text.isascii():
            _check_decoded(text)
        message = read_message(text)
        if isinstance(message, str):
            raise PlatformError(f"a message is a JSON object, not {quoted(message)}")
        return message
    except PlatformError:
        _logged(log, "in", text if isinstance(text, str) else repr(text))
        raise


def _check_decoded(text: str) -> None:
    """A PlatformError naming the first byte of ``text`` that was no UTF-8 (a stream read
    with errors="surrogateescape" keeps such a byte as a lone surrogate, which JSON's
    error would quote as '\\udcff' without saying why)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        what = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF \
            else f"a lone surrogate U+{code:04X}"
        raise PlatformError(f"a message is UTF-8 text: {what} at character "
                            f"{exc.start + 1} is not UTF-8") from None


def _answer(seat: PlatformSeat, message, log: Optional[TextIO]) -> Optional[str]:
    _logged(log, "in", message)
    answer = seat.receive(message)
    if answer is None:
        return None
    _logged(log, "out", answer)
    return json.dumps(answer)


def play_websocket(seat: PlatformSeat, url: str, log: Optional[TextIO] = None,
                   open_timeout: float = 10.0) -> int:
    """Play ``seat`` on the platform server at ``url`` until it closes the connection;
    the number of ``act`` messages answered. A message the seat cannot read raises its
    :class:`PlatformError` (the connection is closed first); a connection that cannot be
    made, that the server breaks, or that it closes in the middle of a hand, an OSError.
    ``open_timeout``: seconds above 0 and at most 1e6 (None: no limit)."""
    _check_seat_and_log(seat, log)
    check_url(url)
    open_timeout = _checked_timeout("open_timeout", open_timeout)
    try:
        from websockets.exceptions import (ConnectionClosedError, ConnectionClosedOK,
                                           InvalidURI, WebSocketException)
        from websockets.sync.client import connect
    except ImportError:
        raise ValueError("connecting to the platform needs the websockets package: "
                         "pip install \"guandan-core[bot]\"") from None
    answered = 0
    try:
        ws = connect(url, open_timeout=open_timeout, max_size=MAX_MESSAGE_BYTES)
    except (InvalidURI, ValueError) as exc:
        raise ValueError(f"{quoted(url)} is not a WebSocket address: {exc}") from None
    except (OSError, WebSocketException) as exc:     # (TimeoutError is an OSError)
        raise OSError(f"cannot connect to {url}: {getattr(exc, 'strerror', None) or exc}") \
            from None
    try:
        with ws:
            try:
                for text in ws:
                    reply = _answer(seat, _parsed(text, log), log)
                    if reply is not None:
                        ws.send(reply)
                        answered += 1
            except PlatformError as exc:
                # (1011: the client stops on an error, which a normal close would hide)
                ws.close(code=1011, reason=close_reason(exc))
                raise
            except KeyboardInterrupt:
                # (1001, going away: stopped by its user, where the with block would send
                # 1011, an internal error, for any exception)
                ws.close(code=1001, reason="the client was stopped")
                raise
    except ConnectionClosedError as exc:
        if closed_for_size(exc):
            raise OSError(f"the server at {url} sent a message of more than "
                          f"{MAX_MESSAGE_BYTES:,} bytes, more than any of the platform's "
                          f"needs: the connection was closed ({exc}) after "
                          f"{counted(answered, 'answer')}") from None
        raise OSError(f"the server at {url} broke the connection ({how_closed(exc)}) after "
                      f"{counted(answered, 'answer')}") from None
    except ConnectionClosedOK:
        # the server closed while this seat was answering (a close while it waits ends the
        # loop): the same end, judged below
        pass
    except WebSocketException as exc:
        raise OSError(f"talking to {url}: {exc}") from None
    if seat.in_hand:
        # (a game abandoned, by a server stopped with Ctrl-C say, is no game played: a
        # script running games tells them apart by the exit status)
        code = getattr(ws.protocol, "close_code", None)
        reason = getattr(ws.protocol, "close_reason", "")
        raise OSError(f"the server at {url} closed the connection (code {code}"
                      f"{': ' + reason if reason else ''}) in the middle of a hand, after "
                      f"{counted(answered, 'answer')}")
    return answered


def play_lines(seat: PlatformSeat, infile: TextIO, outfile: TextIO,
               log: Optional[TextIO] = None) -> int:
    """Play ``seat`` on the messages of ``infile``, one JSON object a line (blank lines
    skipped; a line ``{"in": message}`` of a log is read as its message, a line
    ``{"out": ...}`` skipped, a byte order mark before the first line read past), writing
    each answer to ``outfile`` as one line, flushed;
    the number of answers. :class:`PlatformError` names the line it cannot take, or one
    longer than ``MAX_LINE`` characters (read no further than that)."""
    _check_seat_and_log(seat, log)
    for name, stream, method in (("infile", infile, "readline"), ("outfile", outfile, "write")):
        if not callable(getattr(stream, method, None)):
            raise TypeError(f"{name} must be a text stream (with {method}()), not "
                            f"{quoted(stream)}")
    answered = 0
    for number in itertools.count(1):
        line = infile.readline(MAX_LINE + 1)
        if not line:
            break
        if not isinstance(line, str):       # (a binary stream: nothing is read)
            raise TypeError(f"play_lines reads a text stream, not one of "
                            f"{type(line).__name__}")
        if number == 1:         # a byte order mark some editors write (a log saved again)
            line = line.removeprefix("\ufeff")
        if len(line) > MAX_LINE and not line.endswith("\n"):
            raise PlatformError(f"line {number}: longer than {MAX_LINE:,} characters (a "
                                f"message is at most {MAX_MESSAGE_BYTES:,} bytes)")
        if not line.strip():
            continue
        try:
            message = _parsed(line.strip(), log)
            if isinstance(message, dict) and set(message) == {"out"}:
                continue            # an answer of a logged stream
            if isinstance(message, dict) and set(message) == {"in"}:
                message = message["in"]
                if isinstance(message, str):    # (logged as it came: read as it was then)
                    message = _parsed(message, log)
            elif isinstance(message, dict) and "type" not in message and \
                    not set(message).isdisjoint({"in", "out"}):
                raise PlatformError(f"a log line is {{\"in\": message}} or {{\"out\": "
                                    f"answer}} alone, not one with the keys "
                                    f"{', '.join(map(json.dumps, message))}")
            reply = _answer(seat, message, log)
        except PlatformError as exc:
            raise PlatformError(f"line {number}: {exc}") from None
        if reply is not None:
            outfile.write(reply + "\n")
            outfile.flush()
            answered += 1
    return answered
