"""JSON text from users (files, the engine protocol, logs): every way it can be bad is a
ValueError, including nesting too deep for the parser (which ``json`` reports as a
RecursionError, and which would otherwise escape the error handling as a crash)."""

import json

__all__ = ["parse_json"]


def parse_json(text):
    """``json.loads(text)``; ValueError("not valid JSON: ...") when it cannot be read.

    >>> parse_json('{"a": [1]}')
    {'a': [1]}
    >>> parse_json("[" * 100000)
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON: nested too deeply
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("not valid JSON: nested too deeply") from None
    except ValueError as exc:       # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"not valid JSON: {exc}") from None
