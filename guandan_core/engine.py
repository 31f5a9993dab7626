"""An engine process driven from Python: ``guandan engine`` (or any program that speaks
the line protocol of docs/PROTOCOL.md) behind methods that take and give this package's
objects, as ``chess.engine`` drives UCI engines.

What it is for: a solve that runs out of the caller's process, so that a deadline can
end it for certain (the process is killed) and a crash or a runaway table cannot take
the caller with it; another installed version of the engine; a test of the protocol as
a client sees it. In-process code that needs none of that calls :func:`solver.solve`
directly, which is faster.

>>> from guandan_core.engine import EngineProcess
>>> with EngineProcess() as engine:                              # doctest: +SKIP
...     engine.set_position({"level": "2", "hands": [["S5", "H5", "SJ"],
...         ["S3", "HA", "D7"], ["C6", "CQ"], ["S4", "SK", "D6"]], "finished": [],
...         "to_move": 0, "table": None})
...     result = engine.solve()
...     (result.value, result.best.to_platform(), engine.legal_moves()[-1])
(2, ['Pair', '5', ['S5', 'H5']], <Move Pair 5: S5 H5>)

Replies are read by a thread of the client's own and matched to their commands by the
ids the client sends, so :meth:`EngineProcess.stop` may be called from any thread while
another waits for a ``solve`` or ``sample``. Everything else is meant for one thread at
a time: the client keeps the position it last set, played or took back, to read the
engine's answers with (moves need the position's level and rules).
"""

from __future__ import annotations

import collections
import collections.abc
import json
import numbers
import os
import queue
import subprocess
import sys
import threading
import time

from .cards import is_whole
from .hand import Hand, to_counts
from .moves import Move
from .position import Position
from .rules import PRESET_NAMES, Rules
from .usertext import quoted

__all__ = ["EngineProcess", "EngineRefusedError", "EngineTerminatedError",
           "EngineProtocolError", "DEFAULT_COMMAND"]

# the engine of the Python running this module, whatever is on PATH
DEFAULT_COMMAND = (sys.executable, "-m", "guandan_core.cli", "engine")
# a reply line longer than this is not the protocol (a position is about a thousand
# characters; every move of a large position scored, a few hundred thousand)
MAX_REPLY_LINE = 64 * 1024 * 1024
_STDERR_KEPT = 4096         # the end of the engine's stderr, quoted when it dies


class EngineRefusedError(ValueError):
    """The engine answered a command with ``?``: the command's input was refused (an
    illegal move, a bad position, an unknown option). ``command`` is the line sent,
    ``reason`` the engine's reason."""

    def __init__(self, command: str, reason: str):
        super().__init__(f"the engine refused {quoted(_shortened(command))}: {reason}")
        self.command = command
        self.reason = reason


class EngineTerminatedError(RuntimeError):
    """The engine process has exited (or was killed after a timeout): no reply will
    come. ``returncode`` is its exit status, ``stderr`` the end of what it wrote there."""

    def __init__(self, message: str, returncode=None, stderr: str = ""):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class EngineProtocolError(RuntimeError):
    """The engine wrote something the protocol does not allow (a line outside a reply,
    a reply to a command never sent, JSON that does not parse). The process is killed,
    since what it answers next cannot be trusted either."""


def _shortened(text: str, most: int = 200) -> str:
    return text if len(text) <= most else text[:most] + f"... ({len(text)} characters)"


_Pending = collections.namedtuple("_Pending", "line replies")


class EngineProcess:
    """One engine process and its session (rules, position, undo stack).

    ``command``: the program and its arguments (default :data:`DEFAULT_COMMAND`, this
    Python's ``guandan engine``); ``rules``: the rule set for positions set from now on
    (a preset name or a :class:`Rules` of one; sent as the ``rules`` command);
    ``timeout``: seconds to wait for a command's reply (from sending it; ``info`` lines
    do not extend it) before the process is killed and a ``TimeoutError`` raised (None:
    wait for ever; ``command``, ``solve`` and ``sample`` take their own too);
    ``env``/``cwd``: the process's environment and directory.
    """

    def __init__(self, command=None, *, rules=None, timeout: float | None = None,
                 env=None, cwd=None):
        self.timeout = _checked_timeout(timeout)
        args = list(DEFAULT_COMMAND if command is None else _checked_command(command))
        self._rules = Rules.by_name("standard")
        self._position: Position | None = None
        self._pending: dict[int, _Pending] = {}
        self._state_lock = threading.Lock()     # _pending, _next_id, _failure
        self._write_lock = threading.Lock()
        self._next_id = 1
        self._failure: Exception | None = None
        self._stderr_tail = collections.deque(maxlen=_STDERR_KEPT)
        try:
            self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, env=env, cwd=cwd)
        except OSError as exc:
            raise EngineTerminatedError(f"cannot start the engine {quoted(args)}: {exc}") \
                from None
        self._reader = threading.Thread(target=self._read_replies, daemon=True,
                                        name="guandan engine replies")
        self._reader.start()
        threading.Thread(target=self._read_stderr, daemon=True,
                         name="guandan engine stderr").start()
        if rules is not None:
            try:
                self.set_rules(rules)
            except BaseException:
                self.close()
                raise

    # ------------------------------------------------------------------ session
    def __enter__(self) -> "EngineProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self._proc.poll() is None else f"exited {self._proc.returncode}"
        return f"<EngineProcess pid={self._proc.pid} {state}>"

    @property
    def returncode(self):
        """The process's exit status, None while it runs."""
        return self._proc.poll()

    @property
    def position(self) -> Position | None:
        """The engine's current position, as this client last set, played or took it back
        (None before the first :meth:`set_position`)."""
        return self._position

    @property
    def rules(self) -> Rules:
        """The rule set for positions set from now on."""
        return self._rules

    def close(self, timeout: float = 5.0) -> int:
        """Send ``quit`` and wait for the process to exit (killed after ``timeout``
        seconds); its exit status. Safe to call again, or after the engine died."""
        if self._proc.poll() is None and self._failure is None:
            try:
                self.command("quit", timeout=timeout)
            except (EngineTerminatedError, EngineProtocolError, TimeoutError, OSError):
                pass
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        return self._proc.returncode

    def quit(self) -> int:
        """The same as :meth:`close`."""
        return self.close()

    # ------------------------------------------------------------------ the protocol
    def command(self, line: str, *, on_info=None, timeout: float | None = None) -> str:
        """Send one command line (without an id: the client adds its own) and return the
        reply's payload (lines joined by ``\\n``). A ``?`` reply is an
        :class:`EngineRefusedError`; ``on_info`` is called with each ``info`` line of
        this command (without ``info `` and the line break), in the calling thread."""
        if not isinstance(line, str):
            raise TypeError(f"a command is a str, not {quoted(line)}")
        if "\n" in line or "\r" in line:
            raise ValueError(f"a command is one line, not {quoted(_shortened(line))}")
        if on_info is not None and not callable(on_info):
            raise TypeError(f"on_info must be callable, not {quoted(on_info)}")
        timeout = self.timeout if timeout is None else _checked_timeout(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        replies = self._send(line)
        kind = None
        try:
            while True:
                try:
                    kind, text = replies.get(
                        timeout=None if deadline is None else max(deadline - time.monotonic(), 0))
                except queue.Empty:
                    self._fail(TimeoutError(f"no reply to {quoted(_shortened(line))} "
                                            f"within {timeout} s: the engine process was "
                                            "killed"))
                    raise self._failure from None
                if kind == "info":
                    if on_info is not None:
                        on_info(text)
                elif kind == "=":
                    return text
                elif kind == "?":
                    raise EngineRefusedError(line, text)
                else:
                    raise text      # the failure that ended the process
        except BaseException:
            # the caller gives up on this command (Ctrl-C, on_info raised): a solve or
            # sample it started need not run on for nobody (its reply, and stop's, are
            # read and dropped)
            if kind not in ("=", "?"):
                self.stop()
            raise

    def stop(self) -> None:
        """End the ``solve`` or ``sample`` running (or sent) at once, from any thread:
        it answers with what it had proven. Nothing happens when none is running, or
        when the engine has ended (the command waiting says why)."""
        try:
            self._send("stop")
        except (EngineTerminatedError, EngineProtocolError, TimeoutError):
            pass

    def protocol_version(self) -> int:
        return self._json_reply("protocol_version")

    def name(self) -> str:
        return self.command("name")

    def version(self) -> str:
        return self.command("version")

    def list_commands(self) -> list[str]:
        return self.command("list_commands").split("\n")

    def set_rules(self, rules) -> Rules:
        """The rule set for positions set from now on: a preset name or a :class:`Rules`
        that is one (the protocol names rule sets)."""
        if isinstance(rules, Rules):
            name = _preset_name(rules)
            if name is None:
                raise ValueError(f"the engine takes rule sets by name; {rules!r} is not a "
                                 "preset")
        else:
            name = rules
            rules = Rules.by_name(name)
        self.command(f"rules {name}")
        self._rules = rules
        return rules

    def set_position(self, position) -> Position:
        """Make ``position`` (a :class:`Position`, or the JSON of RULES sec. 7 as text
        or a dict, read under :attr:`rules`) the engine's position; it is checked here
        first, so a bad one raises what :meth:`Position.from_json` raises."""
        if isinstance(position, Position):
            if position.rules != self._rules:
                raise ValueError(f"the position is under the rules {position.rules!r}, the "
                                 f"engine's are {_preset_name(self._rules)!r}: set_rules "
                                 "first")
            pos = position
        else:
            pos = Position.from_json(position, rules=self._rules)
        self.command("position " + pos.to_json_str())
        self._position = pos
        return pos

    def show_position(self) -> Position:
        """The engine's position, as it reports it."""
        pos = self._read_position(self._json_reply("showposition"), self._rules_of_position())
        self._position = pos
        return pos

    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to move, in the engine's order."""
        pos = self._need_position()
        return [self._move(m, pos) for m in self._json_reply("moves", list)]

    def play(self, move) -> Position:
        """Play ``move`` (a :class:`Move`, a platform triple or ``"PASS"``) for the seat
        to move; the new position. An illegal move is an :class:`EngineRefusedError` and
        leaves the position as it was."""
        pos = self._need_position()
        if isinstance(move, Move):
            text = json.dumps(move.to_platform())
        elif isinstance(move, str):
            if move.upper() != "PASS":
                raise ValueError(f"a move is a Move, a platform triple or 'PASS', not "
                                 f"{quoted(move)}")
            text = "PASS"
        elif isinstance(move, (list, tuple)):
            try:
                text = json.dumps(list(move))
            except (TypeError, ValueError):
                raise TypeError(f"a move's triple holds JSON values, not "
                                f"{quoted(move)}") from None
        else:
            raise TypeError(f"a move is a Move, a platform triple or 'PASS', not "
                            f"{quoted(move)}")
        self._position = self._read_position(self._json_reply("play " + text), pos.rules)
        return self._position

    def undo(self) -> Position:
        """Take back the last :meth:`play`; the position before it."""
        pos = self._need_position()
        self._position = self._read_position(self._json_reply("undo"), pos.rules)
        return self._position

    def clear_table(self) -> None:
        """Empty the engine's transposition table (``clear_table``)."""
        self.command("clear_table")

    def solve(self, all_moves: bool = False, time_limit: float | None = None,
              node_limit: int | None = None, at_least: int | None = None, *, on_info=None,
              timeout: float | None = None):
        """:func:`solver.solve` of the engine's position, run by the engine: a
        :class:`solver.SolveResult` equal to the one ``solve`` gives in this process
        from the same table (``seconds`` aside). ``on_info`` gets the ``info`` lines."""
        from solver.search import MoveScore, SolveResult
        pos = self._need_position()
        args = ["solve"]
        if all_moves is not False:
            if all_moves is not True:
                raise TypeError(f"all_moves must be True or False, not {quoted(all_moves)}")
            args.append("all")
        if time_limit is not None:
            args.append(f"time={_number('time_limit', time_limit)}")
        if node_limit is not None:
            args.append(f"nodes={_whole('node_limit', node_limit, 10**18 - 1)}")
        if at_least is not None:
            if isinstance(at_least, bool) or at_least not in (-3, -2, -1, 1, 2, 3):
                raise ValueError(f"at_least must be one of +3, +2, +1, -1, -2, -3, not "
                                 f"{quoted(at_least)}")
            args.append(f"at_least={int(at_least)}")
        obj = self._json_reply(" ".join(args), dict, on_info=on_info, timeout=timeout)
        try:
            best = obj["best"]
            moves = [MoveScore(self._move(e["move"], pos), e["value"],
                               [self._move(m, pos) for m in e.get("equivalent", [])],
                               e.get("reaches"), obj.get("threshold"))
                     for e in obj.get("moves", [])]
            return SolveResult(
                value=obj["value"], lower=obj["lower"], upper=obj["upper"],
                best=None if best is None else self._move(best, pos),
                pv=[(seat, self._move(m, pos)) for seat, m in obj["pv"]], moves=moves,
                nodes=obj["nodes"], tt_hits=obj["tt_hits"], seconds=obj["seconds"],
                to_move=pos.to_move, threshold=obj.get("threshold"),
                pv_cut=obj.get("pv_cut", False))
        except (KeyError, TypeError, ValueError) as exc:
            raise self._protocol_error(f"a solve reply that is not a result "
                                       f"({type(exc).__name__}: {exc})") from None

    def sample(self, deals: int = 20, seed: int = 0, first: int = 0, known=None,
               time_limit: float | None = None, node_limit: int | None = None, *,
               timeout: float | None = None):
        """:func:`solver.solve_sampled` of the engine's position, run by the engine (on
        all its cores): the :class:`solver.SampledResult` (read back by
        :func:`solver.read_sampled`, which checks it against the position). ``known``
        maps hidden seats to cards they are known to hold."""
        from solver.sampling import read_sampled
        pos = self._need_position()
        args = [f"sample deals={_whole('deals', deals, 10**6)} "
                f"seed={_whole('seed', seed, 2**63 - 1)} first={_whole('first', first, 2**63 - 1)}"]
        if known is not None:
            if not isinstance(known, collections.abc.Mapping):
                raise TypeError(f"known must map seats to the cards they are known to hold, "
                                f"not {quoted(known)}")
            parts = [f"{_whole('a known seat', seat, 3)}:"
                     f"{','.join(_card_list(cards, f'known cards of seat {seat}'))}"
                     for seat, cards in known.items()]
            args.append(f"known={';'.join(parts)}")
        if time_limit is not None:
            args.append(f"time={_number('time_limit', time_limit)}")
        if node_limit is not None:
            args.append(f"nodes={_whole('node_limit', node_limit, 2**63 - 1)}")
        obj = self._json_reply(" ".join(args), dict, timeout=timeout)
        try:
            return read_sampled(obj, pos, known)
        except (ValueError, TypeError) as exc:
            raise self._protocol_error(f"a sample reply that is not a result: {exc}") from None

    def analyze(self, hand, level=None, played=None, runners_up: int | None = None) -> dict:
        """:func:`guandan_core.analysis.analyze` run by the engine (under its rules): the
        same dict. ``level`` defaults to the position's, else 2."""
        args = ["analyze", ",".join(_card_list(hand))]
        if level is not None:
            level = str(level)
            if not level or any(c.isspace() for c in level):
                raise ValueError(f"a level is 2 to A, not {quoted(level)}")
            args.append(f"level={level}")
        if played is not None:
            cards = _card_list(played, "played")
            if cards:
                args.append(f"played={','.join(cards)}")
        if runners_up is not None:
            args.append(f"runners_up={_whole('runners_up', runners_up, 10**18 - 1)}")
        return self._json_reply(" ".join(args), dict)

    # ------------------------------------------------------------------ internals
    def _need_position(self) -> Position:
        if self._position is None:
            raise ValueError("no position: set_position first")
        return self._position

    def _rules_of_position(self) -> Rules:
        return self._position.rules if self._position is not None else self._rules

    def _json_reply(self, line: str, kind=None, **options):
        text = self.command(line, **options)
        try:
            obj = json.loads(text)
        except ValueError:
            raise self._protocol_error(f"a reply to {quoted(_shortened(line))} that is not "
                                       f"JSON: {quoted(_shortened(text))}") from None
        if kind is not None and not isinstance(obj, kind):
            raise self._protocol_error(f"a reply to {quoted(_shortened(line))} that is not "
                                       f"a JSON {'object' if kind is dict else 'list'}: "
                                       f"{quoted(_shortened(text))}")
        return obj

    def _read_position(self, obj, rules: Rules) -> Position:
        try:
            return Position.from_parsed_json(obj, rules=rules)
        except ValueError as exc:
            raise self._protocol_error(f"a position that does not read: {exc}") from None

    def _move(self, triple, pos: Position) -> Move:
        try:
            return Move.from_platform(triple, pos.level, pos.rules)
        except ValueError as exc:
            raise self._protocol_error(f"a move that does not read: {exc}") from None

    def _protocol_error(self, message: str) -> EngineProtocolError:
        error = EngineProtocolError(f"the engine answered {message}; it was killed")
        self._fail(error)
        return error

    def _send(self, line: str) -> queue.SimpleQueue:
        replies = queue.SimpleQueue()
        # (ids in the order of the lines written: the replies come in that order)
        with self._write_lock:
            with self._state_lock:
                if self._failure is not None:
                    raise self._failure
                ident = self._next_id
                self._next_id += 1
                self._pending[ident] = _Pending(line, replies)
            try:
                self._proc.stdin.write(f"{ident} {line}\n".encode("utf-8", "surrogateescape"))
                self._proc.stdin.flush()
                written = True
            except (OSError, ValueError):
                written = False
        if not written:
            # (the reader sees the end of the output and fails every pending command)
            self._reader.join(5.0)
            self._fail(self._terminated())
        return replies

    def _fail(self, error: Exception) -> None:
        """No more replies: every waiting command gets ``error``; the process is killed."""
        with self._state_lock:
            if self._failure is None:
                self._failure = error
            pending, self._pending = self._pending, {}
        if self._proc.poll() is None:
            self._proc.kill()
            try:
                self._proc.wait(5.0)
            except subprocess.TimeoutExpired:
                pass
        for p in pending.values():
            p.replies.put(("fail", self._failure))

    def _terminated(self) -> EngineTerminatedError:
        try:
            code = self._proc.wait(5.0)
        except subprocess.TimeoutExpired:
            code = None
        tail = bytes(self._stderr_tail).decode("utf-8", "replace").strip()
        said = f": {quoted(tail.splitlines()[-1])}" if tail else ""
        return EngineTerminatedError(f"the engine process ended (exit status {code}){said}",
                                     code, tail)

    def _read_stderr(self) -> None:
        for chunk in iter(lambda: self._proc.stderr.read1(4096), b""):
            self._stderr_tail.extend(chunk)

    def _read_replies(self) -> None:
        try:
            self._dispatch(self._proc.stdout)
        except EngineProtocolError as exc:
            self._fail(exc)
        except (OSError, ValueError):
            pass
        self._fail(self._terminated())

    def _dispatch(self, stream) -> None:
        """Read the engine's output to its end, each reply and ``info`` line to the
        command it answers (the oldest one waiting: the engine answers in order)."""
        reply = None            # (ident, kind, lines) of the reply being read
        while True:
            raw = stream.readline(MAX_REPLY_LINE + 2)
            if not raw:
                if reply is not None:
                    raise EngineProtocolError("the engine's output ended inside a reply")
                return
            if not raw.endswith(b"\n"):
                if len(raw) > MAX_REPLY_LINE:
                    raise EngineProtocolError(f"the engine wrote a line of more than "
                                              f"{MAX_REPLY_LINE:,} characters")
                raise EngineProtocolError("the engine's output ended inside a line")
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if reply is not None:
                if line:
                    reply[2].append(line)
                    continue
                self._deliver(reply[0], reply[1], "\n".join(reply[2]))
                reply = None
            elif line.startswith("info "):
                with self._state_lock:
                    first = next(iter(self._pending.values()), None)
                if first is None:
                    raise EngineProtocolError(f"an info line with no command running: "
                                              f"{quoted(_shortened(line))}")
                first.replies.put(("info", line[5:]))
            elif line[:1] in ("=", "?"):
                digits = len(line) - len(line[1:].lstrip("0123456789")) - 1
                ident, rest = line[1:1 + digits], line[1 + digits:]
                if not ident or (rest and not rest.startswith(" ")):
                    raise EngineProtocolError(f"a reply without the client's id: "
                                              f"{quoted(_shortened(line))}")
                reply = (int(ident), line[0], [rest[1:]] if rest else [])
            elif line:
                raise EngineProtocolError(f"a line outside any reply: "
                                          f"{quoted(_shortened(line))}")

    def _deliver(self, ident: int, kind: str, payload: str) -> None:
        with self._state_lock:
            oldest = next(iter(self._pending), None)
            if ident != oldest:
                raise EngineProtocolError(f"a reply to command {ident} while command "
                                          f"{oldest} waits (replies come in order)")
            pending = self._pending.pop(ident)
        pending.replies.put((kind, payload))


def _checked_timeout(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not timeout > 0 or timeout != timeout or timeout == float("inf"):
        raise ValueError(f"timeout must be a number of seconds above 0, or None, not "
                         f"{quoted(timeout)}")
    return float(timeout)


def _checked_command(command):
    if isinstance(command, (str, bytes, os.PathLike)):
        return [command]
    try:
        args = list(command)
    except TypeError:
        raise TypeError(f"command is a program and its arguments, not {quoted(command)}") \
            from None
    if not args or not all(isinstance(a, (str, bytes, os.PathLike)) for a in args):
        raise TypeError(f"command is a program and its arguments, not {quoted(command)}")
    return args


def _whole(name: str, value, high: int) -> int:
    if not is_whole(value, 0, high):
        raise ValueError(f"{name} must be a whole number from 0 to {high}, not "
                         f"{quoted(value)}")
    return int(value)


def _number(name: str, value) -> str:
    """A budget in seconds as the protocol writes it (a plain decimal number)."""
    try:
        seconds = float(value) if isinstance(value, numbers.Real) \
            and not isinstance(value, bool) else None
    except OverflowError:
        seconds = None
    if seconds is None or not 0 <= seconds < float("inf"):
        raise ValueError(f"{name} must be a number of seconds, 0 or more, not "
                         f"{quoted(value)}")
    return repr(seconds)


def _card_list(cards, what: str = "hand") -> list[str]:
    """Cards (anything :func:`to_counts` reads) as the platform's names."""
    return Hand(to_counts(cards, what)).cards()


def _preset_name(rules: Rules) -> str | None:
    return next((name for name in PRESET_NAMES if Rules.by_name(name) == rules), None)
