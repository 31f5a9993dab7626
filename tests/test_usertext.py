"""Tests of the text exchanged with users (guandan_core.usertext, guandan_core.jsontext):
counts typed in options, error messages shortened to one line, and the limits on JSON
numbers and input files."""

import errno
import json
import os
import re
import sys

import pytest

from guandan_core import jsontext
from guandan_core.jsontext import parse_json, read_text
from guandan_core.usertext import (MAX_MESSAGE, checked_seconds, close_reason, closed_for_size,
                                   one_line, out_of_memory, quoted, quoted_json, read_count,
                                   read_seconds)


# ---------------------------------------------------------------------- counts

def test_counts_have_at_most_eighteen_digits_by_default():
    """PROTOCOL.md, analyze: `runners_up=N` is a whole number of at most 18 digits (the
    most that always fits a signed 64-bit integer); 19 are refused, unless the caller asks
    for them (solve's and sample's nodes, sample's seed, as the command line takes them)."""
    assert read_count("1" * 18) == int("1" * 18)
    assert read_count("9" * 18) == 10**18 - 1
    assert read_count("1" * 19) is None
    assert read_count("1" * 19, digits=19) == int("1" * 19)
    assert read_count("1" * 20, digits=19) is None


def test_leading_zeros_do_not_count_against_the_digits():
    """A number in range is read however many zeros lead it (`--port 000080` and a seed
    of 31 digits, 30 of them zeros, were refused as out of range); the digits after them
    are still bounded, and only ASCII digits are read. The same for seconds before the
    point (PROTOCOL.md, solve: `time=S`)."""
    assert read_count("000080", digits=5) == 80
    assert read_count("0" * 30 + "1") == 1
    assert read_count("0" * 40) == 0
    assert read_count("0" * 5 + "1" * 19) is None
    assert read_count("00\u0663") is None and read_count("") is None
    assert read_seconds("0" * 30 + "1.5") == 1.5
    assert read_seconds("0" * 30) == 0.0 and read_seconds("00.5") == 0.5
    assert read_seconds("000e2") == 0.0 and read_seconds("00" + "1" * 19) is None
    assert read_seconds("0-1") is None and read_seconds("0x10") is None
    # 18 digits after a leading zero (the zero kept counted as a 19th)
    assert read_seconds("0" + "1" * 18) == float("1" * 18)
    assert read_seconds("00" + "1" * 18 + ".5") == float("1" * 18 + ".5")
    assert read_seconds("0" + "1" * 19) is None and read_seconds("0.") == 0.0


# ---------------------------------------------------------------------- messages

def _check_shortened(short: str, text: str, limit: int) -> None:
    """``short`` is ``text`` with its middle left out: at most ``limit`` characters, the
    same number kept from each end (at least two), and the full length named."""
    tail = f" ({len(text):,} characters)"
    assert len(short) <= limit and short.endswith(tail), short
    head, sep, end = short[:-len(tail)].partition("...")
    assert sep and len(head) == len(end) >= 2, short
    assert text.startswith(head) and text.endswith(end)


def test_one_line_shortens_a_long_message_to_max_message_characters():
    """A bad value can be megabytes long: the message keeps its start and end, says how
    long it was, and fits MAX_MESSAGE characters (about half of them kept from each end)."""
    text = "start " + "y" * 5000 + " end"
    short = one_line(text)
    _check_shortened(short, text, MAX_MESSAGE)
    assert short.startswith("start yyy") and "yyy end (5,010 characters)" in short
    assert len(short) > MAX_MESSAGE * 0.9         # most of the room is used


def test_quoted_shortens_the_repr_past_the_limit():
    """quoted() shortens repr(value) (quotes included, 1,002 characters) to the limit."""
    short = quoted("x" * 1000, 40)
    _check_shortened(short, repr("x" * 1000), 40)
    assert short.startswith("'x") and short.endswith("x' (1,002 characters)")


@pytest.mark.parametrize("limit", [40, 60, 120, MAX_MESSAGE])
def test_shortening_starts_past_the_limit(limit):
    """A text of exactly ``limit`` characters is kept whole; one more is shortened."""
    assert one_line("a" * limit, limit) == "a" * limit
    _check_shortened(one_line("a" * (limit + 1), limit), "a" * (limit + 1), limit)
    # repr adds two quotes
    assert quoted("b" * (limit - 2), limit) == repr("b" * (limit - 2))
    _check_shortened(quoted("b" * (limit - 1), limit), repr("b" * (limit - 1)), limit)


def test_a_very_short_limit_still_keeps_two_characters_of_each_end():
    """However small the limit, the shortened text keeps at least two characters of its
    start and two of its end (as _check_shortened asks), and names the full length."""
    text = "abcdefghij" * 10
    assert one_line(text, 20) == "ab...ij (100 characters)"
    assert quoted(text, 10) == "'a...j' (102 characters)"


def test_an_empty_message_is_still_a_word():
    """A ValueError with no text (or only blanks) is still answered with a reason: an
    empty `?` reply line would say nothing."""
    assert one_line("") == "error"
    assert one_line(ValueError()) == "error"
    assert one_line(" \n\t ") == "error"


def test_one_line_keeps_the_blanks_of_a_line():
    """Only line breaks (with the blanks around them) become single spaces: a value quoted
    in the message keeps its runs of blanks, so that it is the value given ('a  b', a card
    'S   B'; they were made 'a b' and 'S B', which were not what was sent)."""
    assert one_line("not 'a  b'") == "not 'a  b'"
    assert one_line(f"unknown card {quoted('S   B')} in {quoted_json(['S   B'])}") == \
        """unknown card 'S   B' in ["S   B"]"""
    assert one_line("  first\r\n   second  \u2028third\n\n") == "first second third"
    assert one_line("a\tb  c") == "a b  c"     # (a tab is a blank, made a space)


def test_quoted_json_is_shortened_and_falls_back_to_quoted_with_its_limit():
    """quoted_json(): a value read from JSON as JSON text, shortened as quoted() shortens
    past the limit; what is no JSON (bytes, a list that holds itself) is quoted()'s text,
    to the same limit."""
    value = ["x" * 1000]
    _check_shortened(quoted_json(value, 40), json.dumps(value), 40)
    odd = [b"x" * 1000]
    assert quoted_json(odd, 40) == quoted(odd, 40)
    _check_shortened(quoted_json(odd, 40), repr(odd), 40)
    loop = []
    loop.append(loop)          # (json.dumps: a ValueError, "Circular reference detected")
    assert quoted_json(loop) == quoted(loop) == "[[...]]"


def test_out_of_memory_is_one_line():
    """out_of_memory(): what could not be had, on one line (it ends a `?` reply line and
    a command's error line)."""
    assert out_of_memory(MemoryError()) == "out of memory"
    said = out_of_memory(MemoryError("the table\n(8 MiB)"))
    assert "\n" not in said and said.startswith("out of memory: the table")
    long = out_of_memory(MemoryError("y" * 5000))
    assert "\n" not in long and len(long) <= MAX_MESSAGE


# ---------------------------------------------------------------------- JSON

def test_json_whole_numbers_up_to_pythons_digit_limit():
    """parse_json reads whole numbers of up to 4,300 digits, Python's default limit for
    int() (sys.get_int_max_str_digits), and refuses one more digit in its own words."""
    if hasattr(sys, "get_int_max_str_digits"):
        assert sys.get_int_max_str_digits() in (0, 4300)
    assert parse_json("9" * 4300) == 10**4300 - 1
    assert parse_json("-" + "9" * 4300) == -(10**4300 - 1)
    for text in ("9" * 4301, "-" + "9" * 4301):
        with pytest.raises(ValueError, match=r"^not valid JSON: a whole number of 4,301 "
                                             r"digits \(at most 4,300\)$"):
            parse_json(text)


def test_read_text_takes_a_file_of_exactly_the_limit(tmp_path, monkeypatch):
    """read_text refuses a file larger than MAX_INPUT_BYTES and reads one of exactly that
    size (the limit lowered to 2 MiB here, two of its 1 MiB reads: a file of the real
    256 MiB would be read into memory whole)."""
    monkeypatch.setattr(jsontext, "MAX_INPUT_BYTES", 2 << 20)
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (2 << 20))
    assert read_text(str(path)) == " " * (2 << 20)
    path.write_bytes(b" " * ((2 << 20) + 1))
    with pytest.raises(ValueError, match="holds more than 2 MiB"):
        read_text(str(path))


def test_json_numbers_too_large_for_a_float_are_refused_by_name():
    """JSON has no infinity (RFC 8259, sec. 6; jsontext: what Python's json module reads
    beyond JSON, numbers too large for a float included, is refused): a number that
    overflows a float is named in parse_json's own words, not read as inf. The largest
    float is still a number."""
    assert parse_json("1.7976931348623157e308") == sys.float_info.max
    assert parse_json("[-1e308]") == [-1e308]
    for text, number in (("1e400", "1e400"), ("[0.5, -1.8e308]", "-1.8e308"),
                         ('{"time": 2E999}', "2E999")):
        with pytest.raises(ValueError, match=f"^not valid JSON: the number "
                                             f"'{re.escape(number)}' is too large$"):
            parse_json(text)


def test_read_text_names_a_missing_file_once(tmp_path, monkeypatch):
    """read_text: every failure is a ValueError that names the file, and says what is wrong
    in the system's words (strerror), without naming it again as OSError's text does."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as caught:
        read_text("missing.json")
    assert str(caught.value) == f"cannot read 'missing.json': {os.strerror(errno.ENOENT)}"


# ---------------------------------------------------------------------- seconds

def test_seconds_are_a_finite_decimal_number_and_nothing_more():
    """PROTOCOL.md, solve: `time=S` is a finite decimal number, 0 or more, such as `2`,
    `0.5` or `1e-3` (ASCII digits only): one too large for a float is not finite, and
    text after the number is no number (float() raised on it)."""
    assert (read_seconds("2"), read_seconds("0.5"), read_seconds("1e-3")) == (2.0, 0.5, 0.001)
    assert read_seconds("0") == 0.0 and read_seconds("1e308") == 1e308
    for bad in ("1e999", "9" * 18 + "e308", "0.5s", "2 ", "1e-3x", "2\n", "-1", "inf"):
        assert read_seconds(bad) is None, bad


def test_checked_seconds_are_finite_numbers_of_zero_or_more():
    """A timeout or a reply's seconds: 0 or more and finite, numpy's numbers too; infinity,
    NaN, a negative number, True and text are refused by name (a long one elided)."""
    import numpy as np
    assert checked_seconds("t", 0) == 0.0 and checked_seconds("t", np.float32(0.5)) == 0.5
    assert checked_seconds("t", 10 ** 300) == 1e300
    assert str(checked_seconds("t", -0.0)) == "0.0"        # (not "-0.0", refused if sent)
    for bad in (float("inf"), float("nan"), -1, True, "1", None, 10 ** 400, np.inf):
        with pytest.raises(ValueError, match=re.escape(
                f"t must be a finite number of seconds, 0 or more, not {quoted(bad)}")):
            checked_seconds("t", bad)


# ---------------------------------------------------------------------- close frames

def test_a_close_reason_fits_a_control_frame_and_cuts_between_characters():
    """RFC 6455 sec. 5.5: a close frame carries at most 125 bytes, 2 of them the code, so
    the reason is at most 123 bytes of UTF-8; a character that would be cut in two is
    left out, not replaced."""
    assert close_reason("x" * 200) == "x" * 123
    assert close_reason("x" * 123) == "x" * 123
    # 1 + 40 * 3 = 121 bytes; the 41st 3-byte character would end at byte 124
    assert close_reason("a" + "牌" * 50) == "a" + "牌" * 40
    assert close_reason("ab" + "牌" * 50) == "ab" + "牌" * 40      # 122 bytes
    assert close_reason("abc" + "牌" * 50) == "abc" + "牌" * 40    # 123 bytes


class _Closed:
    """What websockets' ConnectionClosed holds: ``sent``, the close frame this side sent
    (None when it sent none), with its ``code``."""

    def __init__(self, code):
        self.sent = None if code is None else type("Close", (), {"code": code})()


def test_closed_for_size_is_only_this_side_closing_with_1009():
    """RFC 6455 sec. 7.4.1: 1009 is the code of a message too big to process; only this
    side sending it means the other side's message was over the size taken."""
    assert closed_for_size(_Closed(1009))
    for code in (1000, 1008, 1011, None):
        assert not closed_for_size(_Closed(code)), code
    assert not closed_for_size(ValueError("no close frame at all"))


def test_a_long_bad_value_is_quoted_short_by_every_public_function():
    """A bad value of 100,000 characters (text, or inside a list or a dict's key) given to
    any argument of the packages' public functions and classes is named in a message of
    at most 2,000 characters (a review found about 150 messages quoting such a value
    whole: 100 kB each). Arguments that name what is checked (what, name) are labels the
    caller chose, not values, and are left out; so are the calls that open connections or
    processes."""
    import importlib
    import inspect
    import signal
    import warnings
    long_text = "x" * 100_000
    modules = ["guandan_core", "guandan_core.match", "guandan_core.analysis",
               "guandan_core.moves", "guandan_core.cards", "guandan_core.hand",
               "guandan_core.position", "guandan_core.rules", "guandan_core.env",
               "guandan_core.players", "guandan_core.platform_seat", "guandan_core.protocol",
               "solver", "solver.sampling", "solver.search"]
    skipped = {"serve", "play_websocket", "play_lines", "EngineProcess", "free_tables",
               "clear_tables", "main"}
    labels = {"what", "name", "where"}
    good = {"level": "2", "hand": "S3 S4", "cards": "S3", "counts": [0] * 54, "rules": None,
            "n": 1, "seed": 1, "move": None,
            "position": {"level": "2", "hands": [["S5"], ["S3", "S4"], [], ["HR"]],
                         "finished": [2], "to_move": 0, "table": None}}

    def alarm(signum, frame):
        raise TimeoutError
    previous = signal.signal(signal.SIGALRM, alarm)
    long_messages, calls, seen = [], 0, set()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for module_name in modules:
                module = importlib.import_module(module_name)
                for name in dir(module):
                    function = getattr(module, name)
                    if name.startswith("_") or name in skipped or not callable(function) \
                            or id(function) in seen:
                        continue
                    seen.add(id(function))
                    try:
                        params = [p for p in inspect.signature(function).parameters.values()
                                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                    except (TypeError, ValueError):
                        continue
                    for i, param in enumerate(params):
                        if param.name in labels:
                            continue
                        for bad in (long_text, [long_text], {long_text: 1}):
                            args = [bad if j == i else p.default if p.default is not p.empty
                                    else good.get(p.name, 1) for j, p in enumerate(params)]
                            calls += 1
                            signal.setitimer(signal.ITIMER_REAL, 3)
                            try:
                                function(*args)
                            except TimeoutError:
                                pass
                            except Exception as exc:
                                if len(str(exc)) > 2000:
                                    long_messages.append((module_name, name, param.name,
                                                          type(bad).__name__, len(str(exc))))
                            finally:
                                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert calls > 500
    assert long_messages == []
