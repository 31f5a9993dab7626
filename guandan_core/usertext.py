"""Text between the engine and its users: numbers typed in command-line and protocol
options (ASCII digits only), and error messages written back on one line.

``int()`` and ``float()`` would also read "+5", "1_0", " 7", "infinity" and the digits of
other scripts ("٣"); these read only what the documentation shows.

>>> read_count("120"), read_count("1_0"), read_count("\u0663")
(120, None, None)
>>> read_seconds("0.5"), read_seconds("1e-3"), read_seconds("inf"), read_seconds("-1")
(0.5, 0.001, None, None)
"""

from __future__ import annotations

import json
import numbers
import re

__all__ = ["read_count", "read_seconds", "quoted", "quoted_json", "quoted_read", "json_kind",
           "one_line", "out_of_memory", "how_closed", "close_reason", "counted", "check_callback"]

MAX_MESSAGE = 2000      # characters of an error line; a bad value can be megabytes long
# bytes of a WebSocket close frame's reason: a control frame carries at most 125 bytes,
# 2 of them the close code (RFC 6455 sec. 5.5)
MAX_CLOSE_REASON = 123

_DIGITS_RE = re.compile(r"[0-9]+\Z")    # (int() refuses over 4,300 digits in its own words)
_SECONDS_RE = re.compile(r"(?:[0-9]{1,18}(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?\Z")


def read_count(text: str, digits: int = 18) -> int | None:
    """A whole number of at most ``digits`` ASCII digits, leading zeros apart, else None.

    >>> read_count("0000080", digits=5), read_count("123456", digits=5), read_count("")
    (80, None, None)
    """
    if not _DIGITS_RE.match(text):
        return None
    significant = text.lstrip("0")
    return int(significant or "0") if len(significant) <= digits else None


# what read_seconds reads, for error messages
SECONDS_FORM = ("a finite decimal number of seconds, 0 or more, of at most 18 digits before "
                "the point (leading zeros apart) and 3 in the exponent")


def read_seconds(text: str) -> float | None:
    """A finite decimal number of seconds, 0 or more (``2``, ``0.5``, ``1e-3``), of at
    most 18 digits before the point (leading zeros apart) and 3 in the exponent, else None.

    >>> read_seconds("0000000000000000001.5"), read_seconds("1" * 19)
    (1.5, None)
    """
    if text[:1] == "0":     # (a zero kept only where one must lead: "0.5", "0e3", "0")
        text = text.lstrip("0")
        if text[:1] in ("", ".", "e", "E"):
            text = "0" + text
    if not _SECONDS_RE.match(text):
        return None
    value = float(text)
    return value if value < float("inf") else None


def is_seconds(value, high: float) -> bool:
    """Whether ``value`` is a number of seconds above 0 and at most ``high``: a real number
    (``numbers.Real``: an int, a float, numpy's, a Fraction), not True/False.

    >>> is_seconds(0.5, 10), is_seconds(0, 10), is_seconds(True, 10), is_seconds("1", 10)
    (True, False, False, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and 0 < value <= high


def checked_seconds(name: str, value) -> float:
    """A number of seconds, 0 or more and finite (numpy's too), else a ValueError."""
    try:
        seconds = float(value) if isinstance(value, numbers.Real) \
            and not isinstance(value, bool) else None
    except OverflowError:
        seconds = None
    if seconds is None or not 0 <= seconds < float("inf"):
        raise ValueError(f"{name} must be a finite number of seconds, 0 or more, not "
                         f"{quoted(value)}")
    return seconds + 0.0        # (-0.0 as 0.0: written out, "-0.0" is refused as negative)


def seconds_above_0(value) -> float | None:
    """``value`` as a float when it is a finite number of seconds above 0 (numpy's too),
    else None: an interval, which 0 would make a loop.

    >>> seconds_above_0(2), seconds_above_0(0), seconds_above_0(10**400), seconds_above_0("1")
    (2.0, None, None, None)
    """
    try:
        seconds = checked_seconds("", value)
    except ValueError:
        return None
    return seconds if seconds > 0 else None


def check_callback(name: str, callback) -> None:
    """A TypeError naming ``callback`` unless it is a function or None: checked when it is
    given, not when it is first called (possibly minutes later, in the middle of a game or
    a search)."""
    if callback is not None and not callable(callback):
        raise TypeError(f"{name} must be a function or None, not {quoted(callback)}")


def _elided(text: str, limit: int) -> str:
    # the text, or its start and end with how long it was: a bad value can be megabytes
    # (the examples below say -ELLIPSIS: pytest reads "..." in an expected output as
    # "anything" by default, and then they could not fail on how a text is shortened)
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 16, 2)
    return f"{text[:keep]}...{text[-keep:]} ({len(text):,} characters)"


def quoted(value, limit: int = 120) -> str:
    """``repr(value)`` for an error message, on one line, its middle left out past
    ``limit`` characters.

    >>> quoted("S3"), quoted("x" * 1000, 40)  # doctest: -ELLIPSIS
    ("'S3'", "'xxx...xxx' (1,002 characters)")
    >>> import numpy as np; quoted(np.zeros((2, 2), np.uint8))
    'array([[0, 0], [0, 0]], dtype=uint8)'
    """
    # a numpy array's repr wraps onto indented lines (a str's repr has no line break)
    return _elided(re.sub(r"\s*\n\s*", " ", repr(value)), limit)


def quoted_json(value, limit: int = 120) -> str:
    """A value read from JSON as JSON text for an error message, or :func:`quoted` when it
    is not JSON (a numpy number, bytes: a caller in Python may pass anything).

    >>> quoted_json(["Single", "3", ["S3"]]), quoted_json(["Single", b"3"])
    ('["Single", "3", ["S3"]]', "['Single', b'3']")
    """
    try:
        return _elided(json.dumps(value), limit)
    except (TypeError, ValueError):
        return quoted(value, limit)


def quoted_read(value, limit: int = 120) -> str:
    """A value that should have been a JSON object, for "... is a JSON object, not ...":
    null, true and false in JSON's words (Python's None and True were no words of the
    input's), anything else as :func:`quoted` shows it.

    >>> quoted_read(None), quoted_read(False), quoted_read([1, "S3"])
    ('null', 'false', "[1, 'S3']")
    """
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return quoted(value, limit)


def json_kind(value) -> str:
    """What a value read from JSON is, in JSON's words, for "a position is a JSON object,
    not ..." (Python's type names, "NoneType" or "list", were no words of the input's).

    >>> [json_kind(v) for v in (None, True, 3, 2.5, "S3", [1], {})]
    ['null', 'true', 'a number', 'a number', 'a string', 'an array', 'an object']
    """
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "a number"
    for kind, name in ((str, "a string"), (list, "an array"), (dict, "an object")):
        if isinstance(value, kind):
            return name
    return type(value).__name__         # (a caller in Python may pass anything)


def out_of_memory(exc: MemoryError) -> str:
    """A MemoryError as one line, with what could not be had when it says.

    >>> out_of_memory(MemoryError()), out_of_memory(MemoryError("the table"))
    ('out of memory', 'out of memory: the table')
    """
    return one_line(f"out of memory: {exc}" if str(exc) else "out of memory")


def one_line(text, limit: int = MAX_MESSAGE) -> str:
    r"""A message as one line that cannot break a line-based reader: each line break, with
    the blanks around it, made a single space, a tab a space, other characters that are
    not printable (a NUL, an escape, a lone surrogate the output could not encode) written
    as Python escapes, and its middle left out past ``limit`` characters. Runs of blanks
    within a line stay as they are: a value quoted in the message is the value given
    (``'a  b'``, not ``'a b'``; a quoted tab is ``\t`` already).

    >>> one_line("unknown card 'X'\n  in hand 2\x00")
    "unknown card 'X' in hand 2\\x00"
    >>> one_line("takes no arguments, not 'a  b' ")
    "takes no arguments, not 'a  b'"
    >>> one_line("x" * 100, limit=60)  # doctest: -ELLIPSIS
    'xxxxxxxxxxxxxx...xxxxxxxxxxxxxx (100 characters)'
    """
    lines = str(text).replace("\t", " ").splitlines()
    words = " ".join(filter(None, (line.strip() for line in lines))) or "error"
    if not words.isprintable():
        words = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in words)
    return _elided(words, limit)


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, with an ``s`` unless ``n`` is 1.

    >>> counted(1, "card"), counted(0, "play"), counted(27, "card")
    ('1 card', '0 plays', '27 cards')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def closed_for_size(exc) -> bool:
    """Whether a websockets ``ConnectionClosed`` is this side closing with 1009: the other
    side sent a message over the size this side takes."""
    sent = getattr(exc, "sent", None)
    return sent is not None and sent.code == 1009


def how_closed(exc) -> str:
    """How the other side closed a WebSocket connection, from websockets'
    ``ConnectionClosed``: its code and reason once ("closed with 1011: seat 0 left the
    game"), where the library's own text gives the reason twice, received and sent back,
    and a reason that holds such a text nests it again at every hop.

    >>> class Closed: rcvd = type("Close", (), {"code": 1001, "reason": "stopped"})()
    >>> how_closed(Closed())
    'closed with 1001: stopped'
    >>> Closed.rcvd.reason = ""; how_closed(Closed())
    'closed with 1001'
    >>> class Dropped(Exception): rcvd = None
    >>> how_closed(Dropped("no close frame received or sent"))
    'no close frame received or sent'
    """
    rcvd = getattr(exc, "rcvd", None)
    if rcvd is None:
        return str(exc)         # (no close frame received: the library says what happened)
    return f"closed with {rcvd.code}" + (f": {rcvd.reason}" if rcvd.reason else "")


def close_reason(text) -> str:
    r"""``text`` cut to fit a WebSocket close frame: at most ``MAX_CLOSE_REASON`` bytes of
    UTF-8, cut between characters (a Chinese character takes 3 bytes, so a cut by
    characters alone can overflow the frame and lose the close); a lone surrogate, which
    UTF-8 cannot carry, written as its Python escape.

    >>> close_reason("牌" * 50) == "牌" * 41
    True
    >>> close_reason("bad \udc80")
    'bad \\udc80'
    """
    data = str(text).encode("utf-8", "backslashreplace")[:MAX_CLOSE_REASON]
    return data.decode("utf-8", "ignore")       # (a character cut in two left out)
