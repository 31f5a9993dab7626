"""``guandan engine``: serve the line protocol of docs/PROTOCOL.md on stdin/stdout.

``guandan engine [--rules NAME]`` reads one command per line and answers each with a
``=``/``?`` reply ended by an empty line (GTP framing), until ``quit`` or end of input;
both exit with status 0. Bad input is answered with ``?`` and never stops the engine.
"""

from __future__ import annotations

import sys

from .cli import add_rules_option, discard_stdout
from .protocol import COMMANDS, EngineProtocol
from .rules import Rules

__all__ = ["register", "cmd_engine"]


def _text_streams():
    """stdin/stdout as UTF-8 text; undecodable input bytes become U+FFFD (the command
    then gets a ``?`` reply) instead of stopping the engine, and a character that cannot
    be encoded (a lone surrogate) is written as an escape rather than ending it."""
    stdin, stdout = sys.stdin, sys.stdout
    for stream, errors in ((stdin, "replace"), (stdout, "backslashreplace")):
        try:
            stream.reconfigure(encoding="utf-8", errors=errors)
        except (AttributeError, ValueError, OSError):
            pass            # not a TextIOWrapper (tests), or already read from
    return stdin, stdout


def cmd_engine(args) -> int:
    Rules.by_name(args.rules)          # an unknown name is a usage error (exit 2)
    engine = EngineProtocol(args.rules)
    stdin, stdout = _text_streams()
    try:
        code = engine.serve(stdin, stdout)
    except KeyboardInterrupt:
        return 130
    try:
        stdout.flush()
    except (BrokenPipeError, ValueError):
        # the client closed our output: keep the interpreter's final flush quiet
        discard_stdout()
    return code


def register(subparsers) -> None:
    """Add the ``engine`` sub-command to the ``guandan`` parser's sub-parsers."""
    p = subparsers.add_parser(
        "engine", help="line protocol on stdin/stdout for bots, servers and GUIs",
        description="Serve the guandan engine protocol (docs/PROTOCOL.md): one command per "
                    "line on stdin, optionally prefixed by a numeric id; each reply starts "
                    "with '=' or '?' and ends with an empty line. Commands: "
                    f"{', '.join(COMMANDS)}.")
    add_rules_option(p, "; the 'rules' command changes it")
    p.set_defaults(func=cmd_engine)
