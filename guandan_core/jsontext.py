"""JSON text from users (files, the engine protocol, logs): every way it can be bad is a
ValueError, including nesting too deep for the parser (which ``json`` reports as a
RecursionError, and which would otherwise escape the error handling as a crash) and a key
given twice in one object (which ``json`` would settle silently by keeping the last)."""

import json
import math
import os
import sys

from .usertext import quoted

__all__ = ["parse_json", "read_text", "MAX_INPUT_BYTES"]


MAX_INPUT_BYTES = 256 << 20    # far above any file of positions or match log


def read_text(path: str) -> str:
    """The UTF-8 text of a file named on the command line (``-``: standard input).

    Every failure is a ValueError that names the file: missing, unreadable, not UTF-8,
    or larger than ``MAX_INPUT_BYTES`` (``/dev/zero`` would otherwise be read until memory
    runs out).
    """
    if not isinstance(path, (str, os.PathLike)):
        # (an int would be opened as that file descriptor, and closed)
        raise TypeError(f"a file is named by a path, not {path!r}")
    if "\x00" in os.fspath(path):       # (open() says "embedded null byte", not which file)
        raise ValueError(f"cannot read {quoted(str(path))}: a file name holds no NUL")
    try:
        if path == "-":
            if sys.stdin is None:
                raise ValueError("'-': there is no standard input (it is closed)")
            data = _read_capped(sys.stdin.buffer, path)
        else:
            with open(path, "rb") as stream:
                data = _read_capped(stream, path)
    except OSError as exc:
        raise ValueError(f"cannot read {quoted(str(path))}: {exc.strerror or exc}") from None
    return _utf8(data, f"{path!r} is ")


def _utf8(data, what: str) -> str:
    # JSON from outside is UTF-8 (RFC 8259); json.loads would also guess UTF-16 or 32 from
    # the first bytes, and then report bytes that are neither as an error at "char 0"
    try:
        return bytes(data).decode("utf-8-sig")  # a byte-order mark, as some editors write, is read
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what}not UTF-8 text (byte {data[exc.start]:#04x} at "
                         f"offset {exc.start})") from None


def _read_capped(stream, path: str) -> bytes:
    # in pieces: read(MAX_INPUT_BYTES + 1) would set aside that much memory for any file
    chunks, size = [], 0
    while chunk := stream.read(1 << 20):
        size += len(chunk)
        if size > MAX_INPUT_BYTES:
            raise ValueError(f"{path!r} holds more than {MAX_INPUT_BYTES >> 20} MiB: not a "
                             "file this command reads")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(text):
    """``json.loads(text)``; ValueError("not valid JSON: ...") when it cannot be read.

    >>> parse_json('{"a": [1]}')
    {'a': [1]}
    >>> parse_json("[" * 100000)
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: nested too deeply
    >>> parse_json('{"level": "X", "level": "7"}')
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: key 'level' given twice in one object
    >>> parse_json('[1.5, NaN]')
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: NaN is not a JSON value
    >>> parse_json("9" * 5000)
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: a whole number of 5,000 digits (at most 4,300)
    >>> parse_json(b"\\xff\\xfe")
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: not UTF-8 text (byte 0xff at offset 0)
    """
    if isinstance(text, (bytes, bytearray)):
        text = _utf8(text, "not valid JSON: ")
    try:
        if type(text) is str and not text.startswith("\ufeff"):
            # (what json.loads does with text, without making a decoder and its scanner
            # for each call: 0.6 of the time for a position; it refuses the rest)
            return _DECODER.decode(text)
        return json.loads(text, object_pairs_hook=_object_without_repeats,
                          parse_int=_whole_number, parse_float=_finite_number,
                          parse_constant=_no_constant)
    except _LongNumber as exc:
        raise ValueError(f"not valid JSON: a whole number of {exc.args[0]:,} digits (at "
                         f"most {_MOST_DIGITS:,})") from None
    except _NotJson as exc:
        raise ValueError(f"not valid JSON: {exc.args[0]}") from None
    except RecursionError:
        raise ValueError("not valid JSON: nested too deeply") from None
    except _RepeatedKey as exc:
        raise ValueError(f"not valid JSON: key {quoted(exc.args[0])} given twice in one "
                         "object") from None
    except ValueError as exc:       # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"not valid JSON: {exc}") from None


_MOST_DIGITS = 4300      # Python's own limit for int(); its error told of sys settings


class _LongNumber(Exception):
    # (not a ValueError, as _RepeatedKey below)
    pass


class _NotJson(Exception):
    # what Python's json module reads beyond JSON: NaN, Infinity, numbers too large for a
    # float (not a ValueError, as above)
    pass


def _no_constant(name: str):
    raise _NotJson(f"{name} is not a JSON value")


def _finite_number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJson(f"the number {quoted(text)} is too large")
    return value


def _whole_number(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > _MOST_DIGITS:
        raise _LongNumber(count)
    return int(digits)


class _RepeatedKey(Exception):
    # not a ValueError: json.loads would turn one into a JSONDecodeError of its own text
    pass


def _object_without_repeats(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return obj


# the hooks above in one decoder, made once (json.loads shares its own plain one between
# threads too: decoding keeps no state between calls)
_DECODER = json.JSONDecoder(object_pairs_hook=_object_without_repeats, parse_int=_whole_number,
                            parse_float=_finite_number, parse_constant=_no_constant)
