"""JSON text from users (files, the engine protocol, logs): every way it can be bad is a
ValueError, including nesting too deep for the parser (which ``json`` reports as a
RecursionError, and which would otherwise escape the error handling as a crash) and a key
given twice in one object (which ``json`` would settle silently by keeping the last)."""

import json
import sys

__all__ = ["parse_json", "read_text", "MAX_INPUT_BYTES"]


MAX_INPUT_BYTES = 256 << 20    # far above any file of positions or match log


def read_text(path: str) -> str:
    """The UTF-8 text of a file named on the command line (``-``: standard input).

    Every failure is a ValueError that names the file: missing, unreadable, not UTF-8,
    or larger than ``MAX_INPUT_BYTES`` (``/dev/zero`` would otherwise be read until memory
    runs out).
    """
    try:
        if path == "-":
            if sys.stdin is None:
                raise ValueError("'-': there is no standard input (it is closed)")
            data = _read_capped(sys.stdin.buffer, path)
        else:
            with open(path, "rb") as stream:
                data = _read_capped(stream, path)
    except OSError as exc:
        raise ValueError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")     # a byte-order mark, as some editors write, is read
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path!r} is not UTF-8 text (byte {data[exc.start]:#04x} at "
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
    >>> parse_json("9" * 5000)
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: a whole number of 5,000 digits (at most 4,300)
    """
    try:
        return json.loads(text, object_pairs_hook=_object_without_repeats,
                          parse_int=_whole_number)
    except _LongNumber as exc:
        raise ValueError(f"not valid JSON: a whole number of {exc.args[0]:,} digits (at "
                         f"most {_MOST_DIGITS:,})") from None
    except RecursionError:
        raise ValueError("not valid JSON: nested too deeply") from None
    except _RepeatedKey as exc:
        raise ValueError(f"not valid JSON: key {exc.args[0]!r} given twice in one "
                         "object") from None
    except ValueError as exc:       # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"not valid JSON: {exc}") from None


_MOST_DIGITS = 4300      # Python's own limit for int(); its error told of sys settings


class _LongNumber(Exception):
    # (not a ValueError, as _RepeatedKey below)
    pass


def _whole_number(digits: str) -> int:
    if len(digits.lstrip("-")) > _MOST_DIGITS:
        raise _LongNumber(len(digits.lstrip("-")))
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
