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

Commands are numbered, written by a thread of the client's own and their replies
matched to them by number by another, so :meth:`EngineProcess.stop` may be called from
any thread while another waits for a ``solve`` or ``sample``, and commands from several
threads each get their own reply. Even so the rest is meant for one thread at a time:
the client keeps the position it last set, played or took back, to read the engine's
answers with (moves need the position's level and rules).
"""

from __future__ import annotations

import collections
import collections.abc
import copy
import json
import numbers
import os
import queue
import subprocess
import sys
import threading
import time
import warnings
import weakref

from .analysis import unseen_pool
from .cards import _PLATFORM_KINDS, format_rank, is_whole, parse_level
from .hand import Hand, to_counts
from .moves import Move
from .position import Position
from .protocol import _split_command, _stripped
from .rules import Rules, _preset_name
from .usertext import checked_seconds, is_seconds, quoted

__all__ = ["EngineProcess", "EngineRefusedError", "EngineTerminatedError",
           "EngineProtocolError", "DEFAULT_COMMAND", "parse_info"]

# the engine of the Python running this module, whatever is on PATH
DEFAULT_COMMAND = (sys.executable, "-m", "guandan_core.cli", "engine")
# a reply line longer than this is not the protocol (a position is about a thousand
# characters; every move of a large position scored, a few hundred thousand)
MAX_REPLY_LINE = 64 * 1024 * 1024
_STDERR_KEPT = 4096         # the end of the engine's stderr, quoted when it dies
_DAY = 86400.0


class EngineRefusedError(ValueError):
    """The engine answered a command with ``?``: the command's input was refused (an
    illegal move, a bad position, an unknown option). ``command`` is the line sent,
    ``reason`` the engine's reason."""

    def __init__(self, command: str, reason: str):
        super().__init__(f"the engine refused {quoted(_shortened(command))}: {reason}")
        self.command = command
        self.reason = reason

    def __reduce__(self):
        # (made again from its two arguments, not its message; then every attribute put
        # back, an env_index or notes added since included)
        return (type(self), (self.command, self.reason),
                {**self.__dict__, "args": self.args})


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


def _fresh(error: BaseException) -> BaseException:
    """A copy of ``error`` without a traceback, to raise (or keep) in its place."""
    copy_of = copy.copy(error)
    copy_of.__traceback__ = None
    return copy_of


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
        self._rules: Rules | None = None        # asked for when first needed
        self._position: Position | None = None
        # the rules of the engine's position when the client has no copy of it (after a
        # position, play or undo sent through command()), for show_position to read it
        self._position_rules: Rules | None = None
        self._link = _Link(args, _checked_env(env), cwd)
        # (the threads hold the link, not this object: an engine dropped without close()
        # is collected, and then its process killed, as it is at exit)
        self._finalizer = weakref.finalize(self, self._link.abandon)
        if rules is not None:
            try:
                self.set_rules(rules)
            except BaseException:
                self.close()
                raise

    def __reduce__(self):
        # (pickle, copy and deepcopy all ask this)
        raise TypeError("an EngineProcess is a link to a process this one runs: it cannot "
                        "be pickled or copied (start one where it is needed)")

    # ------------------------------------------------------------------ session
    def __enter__(self) -> "EngineProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        proc = self._link.proc
        state = "running" if proc.poll() is None else f"exited {proc.returncode}"
        return f"<EngineProcess pid={proc.pid} {state}>"

    @property
    def returncode(self):
        """The process's exit status, None while it runs."""
        return self._link.proc.poll()

    @property
    def position(self) -> Position | None:
        """The engine's current position, as this client last set, played or took it back
        (None before the first :meth:`set_position`)."""
        return self._position

    @property
    def rules(self) -> Rules:
        """The rule set for positions set from now on: the engine is asked the first
        time (a command with ``--rules`` starts it with another than the standard)."""
        if self._rules is None:
            name = self._command("rules")
            try:
                self._rules = Rules.by_name(name)
            except ValueError:
                raise self._protocol_error(f"a rule set it does not name: "
                                           f"{quoted(name)}") from None
        return self._rules

    def close(self, timeout: float | None = 5.0) -> int:
        """Stop a running solve or sample, send ``quit`` and wait for the process to
        exit, killing it after ``timeout`` seconds (0: at once; None: never, however long
        the exit takes); its exit status (None if it could not be reaped within 5 seconds
        of the kill, see ``_Link.reap``). A
        command another thread waits for gets its answer first (a stopped solve's) or an
        :class:`EngineTerminatedError`. Safe to call again, or after the engine died."""
        if timeout is not None:
            timeout = checked_seconds("timeout", timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        self._link.closing = True
        if self._link.on_own_thread():
            # (a finalizer run by the collector on one of the link's threads, which may
            # hold its lock and cannot read a reply while it waits for one: the kill
            # alone; that thread's end of output then ends the others)
            self._link.reap()
            self._finalizer.detach()
            return self._link.proc.returncode
        if self._link.proc.poll() is None and self._link.failure is None and timeout != 0:
            self.stop()
            try:
                # (waited for here, not through command(): its timeout would be the error
                # that other threads' commands get, instead of "closed")
                wait = _DAY if timeout is None else min(timeout, _DAY)
                self._link.send("quit", b"quit").get(timeout=wait)
            except (EngineTerminatedError, EngineProtocolError, TimeoutError, queue.Empty):
                pass
        try:
            self._link.proc.wait(None if deadline is None else
                                 max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            self._link.reap()
        self._link.stderr_reader.join(1.0)      # (what it wrote last, read to its end)
        self._link.fail(EngineTerminatedError(
            f"the engine process was closed (exit status {self._link.proc.returncode})",
            self._link.proc.returncode, self._link.stderr_text()))
        self._finalizer.detach()    # (only now: a close() cut short still kills at exit)
        return self._link.proc.returncode

    def quit(self) -> int:
        """The same as :meth:`close`."""
        return self.close()

    # ------------------------------------------------------------------ the protocol
    def command(self, line: str, *, on_info=None, timeout: float | None = None) -> str:
        """Send one command line (without an id: the client adds its own) and return the
        reply's payload (lines joined by ``\\n``). A ``?`` reply is an
        :class:`EngineRefusedError`; ``on_info`` is called with each ``info`` line of
        this command (without ``info `` and the line break), in the calling thread.
        A ``rules NAME``, ``position``, ``play`` or ``undo`` that the engine takes here
        makes the client forget its copy of what it changed: the rules are asked for
        again when needed, and the position is None (the calls that need it raise a
        ValueError) until :meth:`show_position` reads the engine's, or
        :meth:`set_position` sets one. The methods of those names keep the copies."""
        payload = self._command(line, on_info=on_info, timeout=timeout)
        _ident, name, args = _split_command(_stripped(line))
        if name == "rules" and args:
            self._rules = None
        elif name in ("position", "play", "undo"):
            if name == "position":
                self._position_rules = self.rules       # (what the engine read it under)
            elif self._position is not None:
                self._position_rules = self._position.rules
            self._position = None
        return payload

    def _command(self, line: str, *, on_info=None, timeout: float | None = None) -> str:
        if not isinstance(line, str):
            raise TypeError(f"a command is a str, not {quoted(line)}")
        if "\n" in line or "\r" in line:
            raise ValueError(f"a command is one line, not {quoted(_shortened(line))}")
        try:
            data = line.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"a command is text that UTF-8 can write, not "
                             f"{quoted(_shortened(line))} ({exc.reason} at {exc.start})") \
                from None
        if on_info is not None and not callable(on_info):
            raise TypeError(f"on_info must be callable, not {quoted(on_info)}")
        timeout = self.timeout if timeout is None else _checked_timeout(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        replies = self._link.send(line, data)
        kind = None
        try:
            while True:
                try:
                    # (a day at a time: a longer wait overflows the lock's timeout)
                    kind, text = replies.get(timeout=_DAY if deadline is None else
                                             min(max(deadline - time.monotonic(), 0), _DAY))
                except queue.Empty:
                    if deadline is None or time.monotonic() < deadline:
                        continue
                    self._link.fail(TimeoutError(f"no reply to {quoted(_shortened(line))} "
                                                 f"within {timeout:g} s: the engine process "
                                                 "was killed"))
                    raise _fresh(self._link.failure) from None
                if kind == "info":
                    if on_info is not None:
                        on_info(text)
                elif kind == "=":
                    return text
                elif kind == "?":
                    raise EngineRefusedError(line, text)
                else:
                    # the failure that ended the process (a copy: every later call
                    # raises it too, each with a traceback of its own)
                    raise _fresh(text) from None
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
        if self._link.on_own_thread():
            return      # (a finalizer on a link thread, which may hold its lock: see close)
        try:
            self._link.send("stop", b"stop")
        except (EngineTerminatedError, EngineProtocolError, TimeoutError):
            pass

    def protocol_version(self) -> int:
        version = self._json_reply("protocol_version")
        if not is_whole(version, 1):
            raise self._protocol_error(f"a protocol version that is not a number: "
                                       f"{quoted(version)}")
        return version

    def name(self) -> str:
        return self._command("name")

    def version(self) -> str:
        return self._command("version")

    def list_commands(self) -> list[str]:
        return self._command("list_commands").split("\n")

    def set_rules(self, rules) -> Rules:
        """The rule set for positions set from now on: a preset name or a :class:`Rules`
        that is one (the protocol names rule sets)."""
        if isinstance(rules, Rules):
            name = _preset_name(rules)
            if name is None:
                raise ValueError(f"the engine takes rule sets by name; {quoted(rules)} is not a "
                                 "preset")
        elif isinstance(rules, str):
            name = rules
            rules = Rules.by_name(name)
        else:
            raise TypeError(f"rules are a preset name or a Rules, not {quoted(rules)}")
        self._command(f"rules {name}")
        self._rules = rules
        return rules

    def set_position(self, position) -> Position:
        """Make ``position`` (a :class:`Position`, or the JSON of RULES sec. 7 as text
        or a dict, read under :attr:`rules`) the engine's position; it is checked here
        first, so a bad one raises what :meth:`Position.from_json` raises."""
        if isinstance(position, Position):
            if position.rules != self.rules:
                raise ValueError(f"the position is under the rules {quoted(position.rules)}, the "
                                 f"engine's are {quoted(_preset_name(self.rules))}: set_rules "
                                 "first")
            pos = position
        else:
            pos = Position.from_json(position, rules=self.rules)
        self._command("position " + pos.to_json_str())
        self._position = pos
        return pos

    def show_position(self) -> Position:
        """The engine's position, as it reports it."""
        pos = self._read_position(self._json_reply("showposition"), self._rules_of_position())
        self._position = pos
        return pos

    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to move, in the engine's order. The reply is
        checked: the position's legal moves, each once (each triple looked up among the
        client's own, which is also faster than reading each anew: 370,000 moves under
        long sequences took 13 s of reading)."""
        pos = self._need_position()
        ours = {(m.type, m.rank, m.kinds): m for m in pos.legal_moves()}
        moves = []
        for triple in self._json_reply("moves", list):
            move = _listed_move(triple, ours)
            if move is None:            # (in another notation, not legal, or unreadable)
                read = self._move(triple, pos)
                move = ours.get((read.type, read.rank, read.kinds))
                if move is None:
                    raise self._protocol_error(f"a move that is not legal there: "
                                               f"{quoted(triple)}")
            moves.append(move)
        if len(moves) != len(ours) or len(set(moves)) != len(moves):
            raise self._protocol_error(f"{len(moves)} moves, not the position's "
                                       f"{len(ours)} legal moves, each once")
        return moves

    def play(self, move) -> Position:
        """Play ``move`` (a :class:`Move`, a platform triple or ``"PASS"``) for the seat
        to move; the new position. An illegal move is an :class:`EngineRefusedError` and
        leaves the position as it was."""
        pos = self._need_position()
        if isinstance(move, Move):
            text = json.dumps(move.to_platform())
        elif isinstance(move, str):
            if not (move.isascii() and move.upper() == "PASS"):
                raise ValueError(f"a move is a Move, a platform triple or 'PASS', not "
                                 f"{quoted(move)}")
            text = "PASS"
        elif isinstance(move, (list, tuple)):
            try:
                text = json.dumps(list(move), allow_nan=False)
            except (TypeError, ValueError):
                raise ValueError(f"a move's triple holds JSON values, not "
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
        self._command("clear_table")

    def solve(self, all_moves: bool = False, time_limit: float | None = None,
              node_limit: int | None = None, at_least: int | None = None, *, on_info=None,
              timeout: float | None = None, info_interval: float | None = None):
        """:func:`solver.solve` of the engine's position, run by the engine: a
        :class:`solver.SolveResult` equal to the one ``solve`` gives in this process
        from the same table (``seconds`` aside). ``on_info`` gets each ``info`` line as a
        dict (:func:`parse_info`), as the solve goes; with ``info_interval`` (the
        protocol's ``every=S``) also a ``working`` line about that often.
        The reply is checked: its values in range, its moves legal where they are
        played (the line played out from the position), and its parts agreeing (the
        line from the best move to an end within the bounds, the scored moves the
        legal ones, the best at the value), else an :class:`EngineProtocolError`."""
        from solver.search import _checked_flag, _checked_question, _result_from_json
        pos = self._need_position()
        args = ["solve"]
        all_moves = _checked_flag("all_moves", all_moves)
        if all_moves:
            args.append("all")
        time_limit = _time_limit(time_limit)
        if time_limit is not None:
            args.append(f"time={time_limit!r}")
        if node_limit is not None:
            args.append(f"nodes={_whole('node_limit', node_limit, 2**63 - 1)}")
        at_least = _checked_question(at_least)
        if at_least is not None:
            args.append(f"at_least={at_least}")
        reader = self._info_reader(args, on_info, info_interval)
        obj = self._json_reply(" ".join(args), dict, timeout=timeout, on_info=reader)
        try:
            return _result_from_json(obj, pos, at_least, all_moves)
        except (KeyError, TypeError, ValueError) as exc:
            raise self._protocol_error(f"a solve reply that is not a result "
                                       f"({type(exc).__name__}: {exc})") from None

    def _info_reader(self, args: list, on_info, info_interval):
        """solve's and sample's ``on_info`` and ``info_interval`` checked (``every=S``
        added to the command's ``args``); what the reply's ``info`` lines are given to:
        ``on_info`` called with each one read (:func:`parse_info`), one that does not
        read an EngineProtocolError; None without ``on_info``."""
        from solver.search import _checked_interval
        if on_info is not None and not callable(on_info):
            raise TypeError(f"on_info must be callable, not {quoted(on_info)}")
        info_interval = _checked_interval(info_interval, on_info)
        if info_interval is not None:
            args.append(f"every={info_interval!r}")
        if on_info is None:
            return None

        def info(text):
            try:
                fields = parse_info(text)
            except ValueError as exc:
                raise self._protocol_error(f"an info line that does not read: {exc}") \
                    from None
            on_info(fields)
        return info

    def sample(self, deals: int = 20, seed: int = 0, first: int = 0, known=None,
               time_limit: float | None = None, node_limit: int | None = None, *,
               timeout: float | None = None, on_info=None,
               info_interval: float | None = None):
        """:func:`solver.solve_sampled` of the engine's position, run by the engine (on
        all its cores): the :class:`solver.SampledResult` (read back by
        :func:`solver.read_sampled`, which checks it against the position). ``known``
        maps hidden seats to cards they are known to hold. ``info_interval`` (the
        protocol's ``every=S``, which needs ``on_info``): ``on_info`` gets a dict
        (:func:`parse_info`) for each deal done and, about that often, for what each
        deal's search is still doing."""
        from solver.sampling import _pinned, _view, read_sampled
        pos = self._need_position()
        deals = _whole("deals", deals, 10**6, low=1)
        first = _whole("first", first, 2**63 - deals)
        args = [f"sample deals={deals} seed={_whole('seed', seed, 2**63 - 1)} first={first}"]
        if known is not None:
            # checked here as solve_sampled checks it (a seat that is not hidden, cards
            # that cannot be there), whatever is sent
            _pinned(_view(pos, None, None), known)
            parts = []
            for seat, cards in known.items():
                names = _card_list(cards, f"known cards of seat {seat!r}")
                if names:   # (known to hold nothing: dealt, and digested, as if left out)
                    parts.append(f"{int(seat)}:{','.join(names)}")   # (_pinned checked it)
            if parts:
                args.append(f"known={';'.join(parts)}")
        time_limit = _time_limit(time_limit)
        if time_limit is not None:
            args.append(f"time={time_limit!r}")
        if node_limit is not None:
            node_limit = _whole('node_limit', node_limit, 2**63 - 1)
            args.append(f"nodes={node_limit}")
        reader = self._info_reader(args, on_info, info_interval)
        obj = self._json_reply(" ".join(args), dict, timeout=timeout, on_info=reader)
        try:
            result = read_sampled(obj, pos, known)
        except (ValueError, TypeError) as exc:
            raise self._protocol_error(f"a sample reply that is not a result: {exc}") from None
        if result.node_limit != node_limit:
            raise self._protocol_error(f"a sample solved under the node limit "
                                       f"{result.node_limit}, not {node_limit}")
        return result

    def analyze(self, hand, level=None, played=None, runners_up: int | None = None) -> dict:
        """:func:`guandan_core.analysis.analyze` run by the engine (under its rules): the
        same dict. ``level`` as everywhere in the package (a rank name, or a rank index:
        5 is the level 7), by default the position's, else 2; the engine takes hands of
        1 to 27 cards."""
        cards = _card_list(hand)
        if not 1 <= len(cards) <= 27:
            raise ValueError(f"the engine analyses a hand of 1 to 27 cards, not "
                             f"{len(cards)}")
        args = ["analyze", ",".join(cards)]
        if level is not None:
            args.append(f"level={format_rank(parse_level(level))}")
        if played is not None:
            seen = _card_list(played, "played")
            unseen_pool(cards, seen)    # (a card held and played three times: refused here)
            if seen:
                args.append(f"played={','.join(seen)}")
        if runners_up is not None:
            args.append(f"runners_up={_whole('runners_up', runners_up, 10**18 - 1)}")
        return self._json_reply(" ".join(args), dict)

    # ------------------------------------------------------------------ internals
    def _need_position(self) -> Position:
        if self._position is None:
            raise ValueError("no position: set_position first (or show_position, after a "
                             "position, play or undo sent through command)")
        return self._position

    def _rules_of_position(self) -> Rules:
        if self._position is not None:
            return self._position.rules
        return self.rules if self._position_rules is None else self._position_rules

    def _json_reply(self, line: str, kind=None, **options):
        text = self._command(line, **options)
        try:
            obj = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError):
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
        self._link.fail(error)
        return error


class _Link:
    """The process and the threads that talk to it. It holds no reference to its
    :class:`EngineProcess`, so that one dropped without ``close()`` can be collected."""

    def __init__(self, args: list, env, cwd):
        self.pending: dict[int, _Pending] = {}
        self.state_lock = threading.Lock()      # pending, next_id, failure, outbox
        self.outbox = queue.SimpleQueue()       # the lines to write, None to close stdin
        self.next_id = 1
        self.failure: Exception | None = None
        self.closing = False
        self.hung = False       # (killed for closing its output or input but running on)
        self.stderr_tail = collections.deque(maxlen=_STDERR_KEPT)
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=env, cwd=cwd)
        except OSError as exc:
            raise EngineTerminatedError(f"cannot start the engine {quoted(args)}: {exc}") \
                from None
        except (TypeError, ValueError) as exc:
            # (a cwd of 5, a NUL in the command: the subprocess module's words alone named
            # neither the argument nor the engine)
            place = "" if cwd is None else f" in cwd {quoted(cwd)}"
            raise type(exc)(f"cannot start the engine {quoted(args)}{place}: {exc}") from None
        # (a thread each way: a write to an engine that does not read blocks no caller,
        # and close() never closes a stream a thread is reading)
        roles = ((self.read_stderr, "stderr", self.proc.stderr),      # (and the stream each
                 (self.read_replies, "replies", self.proc.stdout),    # one reads or writes)
                 (self.write_lines, "commands", self.proc.stdin))
        threads = [threading.Thread(target=target, daemon=True, name=f"guandan engine {name}")
                   for target, name, _ in roles]
        self.stderr_reader, self.threads = threads[0], threads
        try:
            for thread in threads:
                thread.start()
        except BaseException:       # (no thread, or Ctrl-C: no process left behind)
            self.reap()
            # (nor a pipe: a thread that never started never closes its stream)
            for thread, (_, _, stream) in zip(threads, roles):
                if thread.ident is None:
                    stream.close()
            raise

    def reap(self):
        """Kill the process and wait for its end, at most 5 seconds; its exit status (None
        if it could not be reaped: a wait without a bound blocks for good on a thread
        already inside this process's ``poll()``, where a finalizer run by the collector
        can close the engine)."""
        self.proc.kill()
        try:
            return self.proc.wait(5.0)
        except subprocess.TimeoutExpired:
            return self.proc.returncode

    def on_own_thread(self) -> bool:
        return threading.current_thread() in self.threads

    def abandon(self) -> None:
        """The engine was dropped without ``close()`` (or the interpreter exits): kill
        the process; its end of output then ends the threads. It may run on any thread,
        inside the garbage collector (one of the link's own, holding ``state_lock``), so
        it takes no lock and waits for nothing."""
        self.closing = True
        self.outbox.put(None)       # (the writer ends and closes stdin; a put takes no lock)
        if self.proc.poll() is None:
            self.proc.kill()
            # (after the kill: a warning made an error must not leave the process running)
            warnings.warn(f"the engine process {self.proc.pid} was still running: it was "
                          "killed (close() it, or use a with-block)", ResourceWarning)

    def send(self, line: str, data: bytes) -> queue.SimpleQueue:
        replies = queue.SimpleQueue()
        with self.state_lock:
            # (numbered and queued together: the lines are written, and so answered, in
            # the order of their numbers)
            if self.failure is not None:
                raise _fresh(self.failure)
            ident = self.next_id
            self.next_id += 1
            self.pending[ident] = _Pending(line, replies)
            self.outbox.put(b"%d %s\n" % (ident, data))
        return replies

    def write_lines(self) -> None:
        stdin = self.proc.stdin
        try:
            while (data := self.outbox.get()) is not None:
                stdin.write(data)
                stdin.flush()
        except (OSError, ValueError):       # (the engine is gone, or stopped reading)
            self.fail(self.terminated())
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    def fail(self, error: Exception) -> None:
        """No more replies: every waiting command gets ``error``; the process is killed."""
        with self.state_lock:
            if self.failure is None:
                # (a copy that is never raised: a raised error's traceback would hold the
                # frames of the EngineProcess's methods, and so the EngineProcess)
                self.failure = _fresh(error)
                self.outbox.put(None)
            pending, self.pending = self.pending, {}
        if self.proc.poll() is None:
            self.reap()
        for p in pending.values():
            p.replies.put(("fail", self.failure))

    def stderr_text(self) -> str:
        return bytes(self.stderr_tail).decode("utf-8", "replace").strip()

    def terminated(self) -> EngineTerminatedError:
        """The error for an engine whose output (or input) has ended: it has exited, or
        it is killed now."""
        try:
            code = self.proc.wait(5.0)
            what = f"ended (exit status {code})"
        except subprocess.TimeoutExpired:
            # (set before the kill: the thread reading the other end then sees the end
            # of the killed process, and must not call it an ending of its own)
            self.hung = True
            code = self.reap()
        if self.hung:
            what = "closed its output or input but went on running: it was killed"
        if self.closing:
            what = f"was closed (exit status {code})"
        if threading.current_thread() is not self.stderr_reader:
            self.stderr_reader.join(1.0)       # (what it wrote last, read to its end)
        tail = self.stderr_text()
        said = f": {quoted(tail.splitlines()[-1])}" if tail else ""
        return EngineTerminatedError(f"the engine process {what}{said}", code, tail)

    def read_stderr(self) -> None:
        stream = self.proc.stderr
        try:
            for chunk in iter(lambda: stream.read1(4096), b""):
                self.stderr_tail.extend(chunk)
        finally:
            stream.close()

    def read_replies(self) -> None:
        stream = self.proc.stdout
        try:
            self.dispatch(stream)
            self.fail(self.terminated())
        except EngineProtocolError as exc:
            self.fail(exc)
        finally:
            stream.close()

    def dispatch(self, stream) -> None:
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
                self.deliver(reply[0], reply[1], "\n".join(reply[2]))
                reply = None
            elif line.startswith("info "):
                with self.state_lock:
                    first = next(iter(self.pending.values()), None)
                if first is None:
                    raise EngineProtocolError(f"an info line with no command running: "
                                              f"{quoted(_shortened(line))}")
                first.replies.put(("info", line[5:]))
            elif line[:1] in ("=", "?"):
                digits = len(line) - len(line[1:].lstrip("0123456789")) - 1
                ident, rest = line[1:1 + digits], line[1 + digits:]
                if not ident or len(ident) > 18 or (rest and not rest.startswith(" ")):
                    raise EngineProtocolError(f"a reply without the client's id: "
                                              f"{quoted(_shortened(line))}")
                reply = (int(ident), line[0], [rest[1:]] if rest else [])
            elif line:
                raise EngineProtocolError(f"a line outside any reply: "
                                          f"{quoted(_shortened(line))}")

    def deliver(self, ident: int, kind: str, payload: str) -> None:
        with self.state_lock:
            oldest = next(iter(self.pending), None)
            if ident != oldest:
                raise EngineProtocolError(f"a reply to command {ident} while command "
                                          f"{oldest} waits (replies come in order)")
            pending = self.pending.pop(ident)
        pending.replies.put((kind, payload))




def parse_info(text: str) -> dict:
    """An ``info`` line (without ``info ``) as a dict: its ``key value`` pairs in order,
    each value read as the compact JSON it is (docs/PROTOCOL.md, solve); the first key
    names the stage. A ValueError names a line that is not pairs of a key and JSON.

    >>> parse_info("bound null lower -3 upper -1 nodes 1 time 0.0016")
    {'bound': None, 'lower': -3, 'upper': -1, 'nodes': 1, 'time': 0.0016}
    >>> parse_info('move ["Single","B",["SB"]] value -1 index 2 count 2')["move"]
    ['Single', 'B', ['SB']]
    """
    if not isinstance(text, str):
        raise TypeError(f"an info line is text, not {quoted(text)}")
    words = text.split(" ")
    if len(words) % 2 or not all(words[::2]):
        raise ValueError(f"an info line is key value pairs, not {quoted(_shortened(text))}")
    out = {}
    for key, value in zip(words[::2], words[1::2]):
        if key in out:
            raise ValueError(f"an info line names {quoted(key)} twice: {quoted(_shortened(text))}")
        try:
            out[key] = json.loads(value, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            raise ValueError(f"{key}'s value {quoted(_shortened(value))} is not JSON") \
                from None
    return out


def _listed_move(triple, moves: dict):
    """The move of ``moves`` (keyed by type, rank and card kinds) that a platform triple
    names, or None when it names none of them (or is no triple)."""
    if not (isinstance(triple, list) and len(triple) == 3):
        return None
    cards = [] if triple[2] == "PASS" else triple[2]       # (the pass: PASS three times)
    if not isinstance(cards, list):
        return None
    kinds = []
    for card in cards:
        kind = _PLATFORM_KINDS.get(card) if isinstance(card, str) else None
        if kind is None:
            return None
        kinds.append(kind)
    try:
        return moves.get((triple[0], triple[1], tuple(sorted(kinds))))
    except TypeError:               # (an unhashable type or rank)
        return None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _checked_timeout(timeout):
    if timeout is None:
        return None
    if not is_seconds(timeout, sys.float_info.max):
        # (one message for all: "0 or more" for -1, then "above 0" for 0, read as a
        # contradiction)
        raise ValueError(f"timeout must be a finite number of seconds above 0, or None, not "
                         f"{quoted(timeout)}")
    return float(timeout)


def _checked_command(command):
    if isinstance(command, (str, bytes, os.PathLike)):
        return [command]
    if isinstance(command, (collections.abc.Mapping, collections.abc.Set)):
        # (a dict was read as its keys, a set in no order)
        raise TypeError(f"command is a program and its arguments, not {quoted(command)}")
    try:
        args = list(command)
    except TypeError:
        raise TypeError(f"command is a program and its arguments, not {quoted(command)}") \
            from None
    if not args or not all(isinstance(a, (str, bytes, os.PathLike)) for a in args):
        raise TypeError(f"command is a program and its arguments, not {quoted(command)}")
    return args


def _checked_env(env):
    """None or a mapping of variable names to values, as ``os.environ``; a TypeError names
    anything else (subprocess said only "expected str, bytes or os.PathLike object")."""
    if env is None:
        return None
    if not isinstance(env, collections.abc.Mapping):
        raise TypeError(f"env is a mapping of variable names to values (as os.environ), "
                        f"not {quoted(env)}")
    for name, value in env.items():
        if not isinstance(name, (str, bytes)) or \
                not isinstance(value, (str, bytes, os.PathLike)):
            raise TypeError(f"env maps variable names to text, not {quoted(name)} to "
                            f"{quoted(value)}")
    return env


def _whole(name: str, value, high: int, low: int = 0) -> int:
    if not is_whole(value, low, high):
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not "
                         f"{quoted(value)}")
    return int(value)


def _time_limit(value) -> float | None:
    """A time limit as the engine's ``time=`` takes it, or None for none: None or one
    beyond every float (``inf``, ``10**400``), as :func:`solver.solve` takes those."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value > 0:
        try:
            if float(value) == float("inf"):
                return None
        except OverflowError:
            return None
    try:
        return None if value is None else checked_seconds("time_limit", value)
    except ValueError:
        raise ValueError(f"time_limit must be a number of seconds, 0 or more (inf: no "
                         f"limit), or None, not {quoted(value)}") from None


def _card_list(cards, what: str = "hand") -> list[str]:
    """Cards (anything :func:`to_counts` reads) as the platform's names."""
    return Hand(to_counts(cards, what)).cards()
