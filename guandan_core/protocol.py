"""``guandan engine``: a line protocol over stdin/stdout for embedding the engine.

The framing is GTP's (the Go Text Protocol): one command per line, optionally prefixed by
a numeric id; every reply starts with ``=`` (success) or ``?`` (failure), followed by the
id when one was given, then a space and the payload, and ends with an empty line. Empty
lines and lines starting with ``#`` are ignored (no reply). See docs/PROTOCOL.md for the
command reference.

>>> engine = EngineProtocol()
>>> engine.handle("7 name")
'=7 guandan-core\\n\\n'
>>> engine.handle("moves")
'? no position set (use: position JSON)\\n\\n'
>>> engine.handle('position {"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]], '
...               '"finished": [2], "to_move": 0, "table": null}')
'= to_move 0 cards [1,1,0,1] moves 1\\n\\n'
>>> engine.handle("moves")
'= [["Single", "A", ["SA"]]]\\n\\n'

:meth:`EngineProtocol.handle` takes one line and returns the whole reply text (the
``info`` lines of ``solve`` and ``sample`` included); :meth:`EngineProtocol.serve` runs
the loop over two text streams, writing ``info`` lines as soon as they are produced and
flushing every reply. Bad input never raises: it gets a ``?`` reply and the engine keeps serving.
"""

from __future__ import annotations

import copy
import io
import json
import queue
import re
import select
import threading
import time

from . import __version__
from .cards import format_rank, parse_level
from .hand import Hand, player_hand, to_counts
from .jsontext import parse_json
from .moves import Move
from .position import Position, parse_outcome
from .rules import Rules, _preset_name
from .usertext import SECONDS_FORM, one_line, out_of_memory, quoted, read_count, read_seconds

__all__ = ["EngineProtocol", "ProtocolError", "PROTOCOL_VERSION", "ENGINE_NAME", "main"]

PROTOCOL_VERSION = 1
MAX_LINE = 1 << 20          # characters of a command line; a position takes about 1,000
READ_AHEAD = 64 << 20       # serve(): how much input is read ahead of the running command
HANGUP_POLL = 0.25          # serve(): how often, after the end of input, the output is
                            # checked for a reader that has gone
_TOO_LONG = object()        # serve(): the command name of a line over MAX_LINE
ENGINE_NAME = "guandan-core"

_ID_RE = re.compile(r"([0-9]+)(?: +(.*))?\Z", re.S)
_DIGITS_RE = re.compile(r"[0-9]*\Z")   # no word yet, or an id that may go on
_BLANKS = " \t\r\n"     # the only blanks between words and around a line (a tab is a space)
_DEFAULT_RUNNERS_UP = 5


class ProtocolError(ValueError):
    """A command that cannot be carried out; the message is the ``?`` reply's reason."""


def _split_command(text: str) -> tuple[str, str, str]:
    """(id, command word, arguments) of a stripped input line; the word is "" after an id
    alone. :meth:`EngineProtocol.handle` and serve()'s reader both read lines this way."""
    ident = ""
    m = _ID_RE.match(text)
    if m:
        ident = m.group(1)
        text = (m.group(2) or "").strip(_BLANKS)
    name, _, args = text.partition(" ")
    return ident, name, args.strip(_BLANKS)


def _stripped(line: str) -> str:
    """An input line without its line break and surrounding blanks, tabs read as spaces.
    Only ASCII blanks: U+00A0 or U+2028 around a word is part of it, not a separator."""
    return line.replace("\t", " ").strip(_BLANKS)


_MAX_DEALS = 1_000_000      # sample's deals, as guandan sample --deals

# the commands that search, which a `stop` line ends
_STOPPABLE = ("solve", "sample")


def _new_stop():
    """A :class:`solver.Stop` for a solve read ahead, None without the solver."""
    try:
        from solver import Stop
    except ImportError:
        return None
    return Stop()


_COMPACT = json.JSONEncoder(separators=(",", ":"))
_JSON_WORDS = {None: "null", True: "true", False: "false"}


def _compact(value) -> str:
    """JSON without spaces: one token of an ``info`` line.

    >>> _compact(3), _compact(0.25), _compact(None), _compact([1, "S2"]), _compact(True)
    ('3', '0.25', 'null', '[1,"S2"]', 'true')
    """
    # (a number written as json writes it, without an encoder made for it, as json.dumps
    # makes one for each call: a solve's info lines write about 25 of them)
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and value - value == 0.0:      # (finite)
        return float.__repr__(value)
    if value is None or kind is bool:
        return _JSON_WORDS[value]
    return _COMPACT.encode(value)


def _info(*pairs) -> str:
    """An ``info`` line: ``info KEY VALUE KEY VALUE ...`` with compact JSON values."""
    parts = ["info"]
    for key, value in pairs:
        parts.append(key)
        parts.append(_compact(value))
    return " ".join(parts)


_PLAIN_RUN = re.compile(r"[^ \t\r\n'\"\\]+")   # no blank, quote or backslash
_DOUBLE_QUOTED_RUN = re.compile(r'[^"\\]+')


def split_words(text: str) -> list:
    """The words of ``text`` as ``shlex.split`` gives them (POSIX quoting: '...' as it
    stands, "..." with backslashes escaping only a quote or a backslash, a backslash
    outside quotes escaping any character; blanks are space, tab, CR and LF), in time
    proportional to its length: shlex takes time growing with the square of a word's
    length (a megabyte-long word of one line, 8 seconds).

    >>> split_words('analyze "S8 S8" played=S3,S4 x=""')
    ['analyze', 'S8 S8', 'played=S3,S4', 'x=']
    """
    words, word = [], None      # (the pieces of the word being read; None between words)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _BLANKS:
            if word is not None:
                words.append("".join(word))
                word = None
            i += 1
            continue
        if word is None:
            word = []
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ValueError("No closing quotation")
            word.append(text[i + 1:end])
            i = end + 1
        elif c == '"':
            i += 1
            while True:
                run = _DOUBLE_QUOTED_RUN.match(text, i)
                if run:
                    word.append(run.group())
                    i = run.end()
                if i >= n:
                    raise ValueError("No closing quotation")
                if text[i] == '"':
                    i += 1
                    break
                if i + 1 >= n:      # (a backslash last)
                    raise ValueError("No escaped character")
                after = text[i + 1]
                word.append(after if after in '"\\' else "\\" + after)
                i += 2
        elif c == "\\":
            if i + 1 >= n:
                raise ValueError("No escaped character")
            word.append(text[i + 1])
            i += 2
        else:
            run = _PLAIN_RUN.match(text, i)
            word.append(run.group())
            i = run.end()
    if word is not None:
        words.append("".join(word))
    return words


def _whole_option(command: str, key: str, value: str, low: int, high: int) -> int:
    """``key=value`` of ``command`` read as a whole number from ``low`` to ``high`` (at most
    2**63 - 1), else a ProtocolError naming it."""
    number = read_count(value, digits=19)
    if number is None or not low <= number <= high:
        raise ProtocolError(f"{command}: {key} must be a whole number from {low} to "
                            f"{high:,}, not {value!r}")
    return number


def _split_args(args: str, what: str) -> list:
    try:
        return split_words(args)
    except ValueError as exc:
        raise ProtocolError(f"{what}: cannot read the arguments ({exc})") from None


def _every_option(command: str, value: str) -> float:
    """``every=S`` of ``command``: seconds above 0, else a ProtocolError naming it."""
    every = read_seconds(value)
    if not every:       # (None or 0)
        raise ProtocolError(f"{command}: every must be {SECONDS_FORM}, and not 0, "
                            f"not {value!r}")
    return every


def _working_pairs(event: dict) -> list:
    """The pairs of an ``info working`` line after the task (and the deal, for sample):
    a search's "working" event (every=S), without its nodes and time."""
    pairs = [("lower", event["lower"]), ("upper", event["upper"])]
    if event["task"] == "moves":
        pairs += [("move", event["move"].to_platform()), ("index", event["index"]),
                  ("count", event["count"])]
    return pairs


def _once(seen: set, key: str, what: str) -> None:
    # an option given twice is a mistake to report, not a value to overwrite
    if key in seen:
        raise ProtocolError(f"{what}: option {key!r} given twice")
    seen.add(key)


# the commands, in the order list_commands gives them (each handled by cmd_<name>)
COMMANDS = (
    "protocol_version", "name", "version", "list_commands", "known_command", "rules",
    "position", "showposition", "moves", "play", "undo", "solve", "sample",
    "clear_table", "analyze", "stop", "quit",
)


class EngineProtocol:
    """The state of one engine session (rules, position, play history) and its commands.

    ``rules`` is the rule set used for positions set from now on (a :class:`Rules` or a
    preset name, default ``standard``). The ``rules`` command without a name answers the
    preset's name: that of the preset a :class:`Rules` object equals, ``custom`` for one
    that equals none. Anything else is a TypeError.
    """

    def __init__(self, rules=None):
        if rules is None:
            rules = "standard"
        if isinstance(rules, str):
            self.rules_name = rules
            self.rules = Rules.by_name(rules)
        else:
            self.rules = Rules.of(rules)
            # (named as the preset it equals, so that `rules` answers a name that `rules
            # NAME` takes: it answered custom for Rules.platform() itself)
            self.rules_name = _preset_name(self.rules) or "custom"
        self.position: Position | None = None
        self.history: list = []        # positions before each `play`, for `undo`
        self.done = False              # set by `quit`
        self._made_here()

    # what a copy or a pickle makes anew rather than carries: the command table (bound to
    # this object) and the stops (a thread's state and a lock are not data)
    _MADE_HERE = ("_local", "_running", "_running_lock", "_commands")

    def _made_here(self) -> None:
        # _local.stop: the Stop of the search a thread is handling, serve()'s (read ahead
        # with the line) or one of handle()'s own; a `stop` handled meanwhile (from
        # another thread) sets all those in _running
        self._local = threading.local()
        self._running: set = set()
        self._running_lock = threading.Lock()
        self._commands = {name: getattr(self, "cmd_" + name) for name in COMMANDS}

    def __getstate__(self) -> dict:
        # (a copy or a pickle is a session of its own: its searches stop apart)
        return {k: v for k, v in self.__dict__.items() if k not in self._MADE_HERE}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._made_here()

    def __copy__(self) -> "EngineProtocol":
        # (a shallow copy shared the undo history: an undo in one took the other's play)
        return copy.deepcopy(self)

    # ------------------------------------------------------------------ framing
    def _run(self, command, name: str, args, sink):
        """``command(args, sink)``; a solve or sample searches under the thread's Stop
        (serve()'s, read ahead with its line, or, outside serve(), one of its own), which
        a `stop` handled meanwhile in another thread sets."""
        if name not in _STOPPABLE:
            return command(args, sink)
        stop = getattr(self._local, "stop", None)
        made = stop is None
        if made:
            stop = self._local.stop = _new_stop()
            if stop is None:        # (no solver: the command says so)
                return command(args, sink)
        with self._running_lock:
            self._running.add(stop)
        try:
            return command(args, sink)
        finally:
            if made:
                self._local.stop = None
            with self._running_lock:
                self._running.discard(stop)

    def handle(self, line: str, emit=None) -> str:
        """The full reply to one input line ("" for an ignored line).

        ``emit``: when given, a function called with each ``info`` line (without its line
        break) as soon as it is produced; those lines are then left out of the returned
        text. Without it they are part of the returned text, before the ``=`` line.
        """
        if not isinstance(line, str):
            raise TypeError(f"handle() takes a line of text (str), not {type(line).__name__}")
        infos = []
        sink = emit if emit is not None else infos.append
        ident = ""
        try:
            text = _stripped(line)
            if not text or text.startswith("#"):
                return ""
            ident, name, args = _split_command(text)
            if len(line.removesuffix("\n").removesuffix("\r")) > MAX_LINE:
                # as serve() answers a line it does not read
                return self._refuse_long_line(ident if len(ident) <= MAX_LINE else "")
            if not name:
                raise ProtocolError("missing command after the id")
            command = self._commands.get(name)
            if command is None:
                raise ProtocolError(f"unknown command {name!r} (see list_commands)")
            payload = self._run(command, name, args, sink)
            ok = True
        except ProtocolError as exc:
            ok, payload = False, one_line(str(exc))
        except ValueError as exc:
            # the library's errors (CardError, MoveError, PositionError, ...) say what is
            # wrong with the input
            ok, payload = False, one_line(str(exc))
        except MemoryError as exc:     # (a table, or the move arena, too large)
            ok, payload = False, out_of_memory(exc)
        except Exception as exc:       # never a traceback: report and keep serving
            ok, payload = False, one_line(f"internal error: {type(exc).__name__}: {exc}")
        head = ("=" if ok else "?") + ident
        lines = [] if emit is not None else list(infos)
        # a payload line may not be empty: that would end the reply early
        body = [p for p in str(payload or "").replace("\r", "").split("\n") if p.strip()]
        if body:
            lines.append(head + " " + body[0])
            lines.extend(body[1:])
        else:
            lines.append(head)
        return "\n".join(lines) + "\n\n"

    def serve(self, stdin, stdout) -> int:
        """Answer commands from ``stdin`` on ``stdout`` until ``quit`` or end of input.

        Every reply (and every ``info`` line) is flushed at once. Input is read on a thread
        of its own while commands run, so that ``stop`` ends the solves read before it at
        once; every command is still carried out, and answered, in order (``quit`` too,
        after the solves before it have finished).
        Returns 0.
        """
        if stdin is None:               # a process started with stdin closed: no input
            stdin = io.StringIO("")
        # (checked before any command runs: a binary one failed at the first reply, after
        # its command had been carried out, and not at all without a reply)
        if isinstance(stdout, (io.RawIOBase, io.BufferedIOBase)) \
                or not callable(getattr(stdout, "write", None)):
            raise TypeError(f"serve() writes a text stream, not {quoted(stdout)}")

        def emit(info_line: str) -> None:
            stdout.write(info_line + "\n")
            stdout.flush()

        lines: queue.SimpleQueue = queue.SimpleQueue()
        lock = threading.Lock()
        unanswered: list = []           # the Stops of the solves read and not yet answered
        # what the lines read ahead hold, in characters plus a line's own cost in memory:
        # a client writing while a solve runs waits once it is over READ_AHEAD (they were
        # kept without bound: 30 MB of short lines took 866 MB)
        backlog = threading.Condition()
        held = [0]
        closed = [False]        # serve() has returned: the reader stops waiting, and reading
        misread: list = []      # why the reader could not read stdin, raised here

        def queue_line(item, cost: int) -> bool:
            with backlog:
                while held[0] and held[0] + cost > READ_AHEAD and not closed[0]:
                    backlog.wait()
                if closed[0]:
                    return False
                held[0] += cost
            lines.put((item, cost))
            return True

        def stop_unanswered() -> None:
            with lock:
                for pending in unanswered:
                    if pending is not None:
                        pending.set()

        def watch_output() -> None:
            # After the end of input, the solves read so far run on, and a closed output
            # shows only at their replies: a client that died (its end of this output
            # closes with its stdin) left a long solve holding a core for nobody, for
            # minutes. The output's hang-up stops them as `stop` would; their replies then
            # fail, and serve() ends.
            try:
                poller = select.poll()
                poller.register(stdout.fileno(), 0)     # (no events: errors and hang-ups)
            except (AttributeError, OSError, ValueError):
                return          # (no file descriptor, as in tests: nothing to watch)
            while not closed[0]:
                if poller.poll(HANGUP_POLL * 1000):
                    stop_unanswered()
                    return

        def read() -> None:
            first = True
            at_end = False
            try:
                while True:
                    # room for the line break, \r\n included (a line of MAX_LINE
                    # characters ended by \r\n was refused), and for a first line's BOM
                    size = MAX_LINE + 2 + first
                    line = stdin.readline(size)
                    if not isinstance(line, str):       # (a binary stream: nothing is read)
                        misread.append(TypeError(f"serve() reads a text stream, not one of "
                                                 f"{type(line).__name__}"))
                        break
                    if not line:
                        at_end = True
                        break
                    ended = line.endswith("\n")
                    cut = len(line) == size and not ended       # the line goes on
                    if first:           # a byte order mark some editors and tools write
                        line, first = line.removeprefix("\ufeff"), False
                    body = line[:-1] if ended else line
                    if cut or len(body.removesuffix("\r")) > MAX_LINE:
                        # skipped to its end unread (a stream with no line breaks, such as
                        # /dev/zero, would otherwise be read until memory runs out); a
                        # comment or a blank line gets no reply, however long
                        # (its first characters that are not blank: what says whether it
                        # is a comment and what its id is, even past a megabyte of blanks)
                        # (an id cut by a chunk's end read on into the next chunk: the
                        # reply carried the digits of the first chunk alone)
                        head = line.replace("\t", " ").lstrip(_BLANKS)
                        rest = line
                        while not rest.endswith("\n"):
                            rest = stdin.readline(MAX_LINE)
                            if not rest:
                                break
                            if _DIGITS_RE.match(head) and len(head) <= MAX_LINE:
                                head = (head + rest.replace("\t", " ")).lstrip(_BLANKS)
                        text = _stripped(head)
                        if text and not text.startswith("#"):
                            ident = _split_command(text)[0]
                            if len(ident) > MAX_LINE:   # a run of digits past what is read
                                ident = ""
                            if not queue_line((ident, _TOO_LONG, None), len(ident) + 256):
                                break
                        continue
                    text = _stripped(line)
                    if not text or text.startswith("#"):
                        continue        # no reply: nothing to keep
                    name, args = _split_command(text)[1:]
                    stop = None
                    # `stop x` and `quit x` are refused when handled: they do nothing. A
                    # `quit` does not stop the solves before it: a command file ending in
                    # quit, read ahead while its first solve runs, is answered whole
                    if name in _STOPPABLE:
                        stop = _new_stop()
                        with lock:
                            unanswered.append(stop)
                    elif name == "stop" and not args:
                        stop_unanswered()
                    if not queue_line((line, name, stop), len(line) + 256):
                        break
                    if name == "quit" and not args:
                        break           # lines after quit are not read
            except (OSError, ValueError):
                at_end = True           # stdin closed under us: the end of input
            finally:
                lines.put(None)
            if at_end:
                watch_output()

        threading.Thread(target=read, name="guandan-engine-input", daemon=True).start()
        try:
            while not self.done:
                entry = lines.get()
                if entry is None:
                    break
                (line, name, stop), cost = entry      # (line: the id, for _TOO_LONG)
                self._local.stop = stop     # (handle() runs the command under it)
                with backlog:
                    held[0] -= cost
                    backlog.notify()
                try:
                    reply = self.handle(line, emit) if name is not _TOO_LONG \
                        else self._refuse_long_line(line)
                finally:
                    if name in _STOPPABLE:
                        with lock:
                            unanswered.remove(stop)
                    self._local.stop = None
                if reply:
                    stdout.write(reply)
                    stdout.flush()
        except BrokenPipeError:
            pass
        finally:
            # a reader waiting for room would wait for good (serve() called in a program
            # that goes on): it stops instead
            with backlog:
                closed[0] = True
                backlog.notify_all()
        if misread:
            raise misread[0]
        return 0

    @staticmethod
    def _refuse_long_line(ident: str) -> str:
        """The reply to a line longer than MAX_LINE characters that began with ``ident``."""
        return (f"?{ident} line too long: more than {MAX_LINE:,} characters (skipped to its "
                f"end)\n\n")

    def cmd_clear_table(self, args: str, emit) -> str:
        """Empty the solver's transposition table (it is kept across solves otherwise)."""
        if args:
            raise ProtocolError(f"clear_table takes no arguments, not {args!r}")
        from solver import clear_tables
        clear_tables()
        return ""

    # ------------------------------------------------------------------ helpers
    def _need_position(self) -> Position:
        if self.position is None:
            raise ProtocolError("no position set (use: position JSON)")
        return self.position

    @staticmethod
    def _summary(pos: Position) -> str:
        if pos.is_over:
            return f"over true finished {_compact(list(pos.finished))} outcome {pos.outcome}"
        parts = [f"to_move {pos.to_move}", f"cards {_compact(list(pos.cards_left))}"]
        if not pos.on_lead:
            parts.append(f"table {_compact(pos.table.to_platform())} owner {pos.owner}")
        parts.append(f"moves {pos.count_moves()}")
        return " ".join(parts)

    @staticmethod
    def _no_args(args: str, name: str) -> None:
        if args:
            raise ProtocolError(f"{name} takes no arguments, not {args!r}")

    # ------------------------------------------------------------------ commands
    def cmd_protocol_version(self, args, info):
        self._no_args(args, "protocol_version")
        return str(PROTOCOL_VERSION)

    def cmd_name(self, args, info):
        self._no_args(args, "name")
        return ENGINE_NAME

    def cmd_version(self, args, info):
        self._no_args(args, "version")
        return __version__

    def cmd_list_commands(self, args, info):
        self._no_args(args, "list_commands")
        return "\n".join(self._commands)

    def cmd_known_command(self, args, info):
        if not args or " " in args:
            raise ProtocolError(f"usage: known_command NAME, not {args!r}")
        return "true" if args in self._commands else "false"

    def cmd_rules(self, args, info):
        if not args:
            return self.rules_name
        if " " in args:
            raise ProtocolError(f"usage: rules [NAME], not {args!r}")
        self.rules = Rules.by_name(args)
        self.rules_name = args
        return ""

    def cmd_position(self, args, info):
        if not args:
            raise ProtocolError("usage: position JSON (RULES.md sec. 7, on one line)")
        try:
            obj = parse_json(args)
        except ValueError as exc:
            raise ProtocolError(f"position: {exc}") from None
        pos = Position.from_parsed_json(obj, rules=self.rules)
        self.position = pos
        self.history = []
        return self._summary(pos)

    def cmd_showposition(self, args, info):
        self._no_args(args, "showposition")
        return json.dumps(self._need_position().to_json())

    def cmd_moves(self, args, info):
        self._no_args(args, "moves")
        pos = self._need_position()
        return json.dumps([m.to_platform() for m in pos.legal_moves()])

    def cmd_play(self, args, info):
        pos = self._need_position()
        if not args:
            raise ProtocolError('usage: play [TYPE, RANK, [CARDS...]]  (or: play PASS)')
        if args.isascii() and args.upper() == "PASS":     # ("paß".upper() is "PASS" too)
            move = Move.PASS
        else:
            try:
                triple = parse_json(args)
            except ValueError as exc:
                raise ProtocolError(f"play: {exc}") from None
            if not isinstance(triple, list) or len(triple) != 3:
                raise ProtocolError(f"play: expected a platform triple [type, rank, cards], "
                                    f"got {_compact(triple)}")
            try:
                move = Move.from_platform(triple, format_rank(pos.level), pos.rules)
            except TypeError:
                raise ProtocolError(f"play: malformed move {_compact(triple)}") from None
        new = pos.play(move)
        self.history.append(pos)
        self.position = new
        return json.dumps(new.to_json())

    def cmd_undo(self, args, info):
        self._no_args(args, "undo")
        self._need_position()
        if not self.history:
            raise ProtocolError("nothing to undo (no play since the last position command)")
        self.position = self.history.pop()
        return json.dumps(self.position.to_json())

    def cmd_solve(self, args, info):
        time_limit = None
        node_limit = None
        all_moves = False
        at_least = None
        every = None
        seen: set = set()
        for token in filter(None, args.split(" ")):    # (a no-break space is no separator)
            key, eq, value = token.partition("=")
            if token == "all" or (eq and key in ("time", "nodes", "at_least", "every")):
                _once(seen, key, "solve")
            if token == "all":
                all_moves = True
            elif eq and key == "every":
                every = _every_option("solve", value)
            elif eq and key == "at_least":
                try:
                    at_least = parse_outcome(value)
                except ValueError as exc:
                    raise ProtocolError(f"solve: at_least: {exc}") from None
            elif eq and key == "time":
                time_limit = read_seconds(value)
                if time_limit is None:
                    raise ProtocolError(f"solve: time must be {SECONDS_FORM}, not {value!r}")
            elif eq and key == "nodes":
                # (as sample's nodes, guandan solve --node-limit and solver.solve take it)
                node_limit = _whole_option("solve", key, value, 0, 2**63 - 1)
            else:
                raise ProtocolError(f"solve: unknown option {token!r} (usage: solve "
                                    "[time=S] [nodes=N] [all] [at_least=V] [every=S])")
        pos = self._need_position()
        try:
            from solver import solve
        except ImportError as exc:
            raise ProtocolError(f"the solver is not available: {exc}") from None

        start = time.perf_counter()
        state = {"value_sent": False}

        def send_value(lower, upper, nodes, elapsed):
            # once, before the best move's and the moves' lines
            if state["value_sent"]:
                return
            exact = lower == upper
            info(_info(("value", lower if exact else None), ("exact", exact),
                       ("lower", lower), ("upper", upper), ("nodes", nodes),
                       ("time", elapsed)))
            state["value_sent"] = True

        def on_info(event):
            # streamed while the solver works (RULES sec. 6 values for the team to move)
            stage = event["stage"]
            elapsed = round(time.perf_counter() - start, 6)
            if stage == "bound":
                state["bounds"] = (event["lower"], event["upper"])
                info(_info(("bound", None), ("lower", event["lower"]),
                           ("upper", event["upper"]), ("nodes", event["nodes"]),
                           ("time", elapsed)))
                return
            if stage == "working":
                # every=S: what the search is still doing (after the value line once the
                # value search is over)
                if event["task"] in ("best", "moves"):
                    send_value(*state.get("bounds", (-3, 3)), event["nodes"], elapsed)
                info(_info(("working", event["task"]), *_working_pairs(event),
                           ("nodes", event["nodes"]), ("time", elapsed)))
                return
            # the best move or a move's score: the value search is over (in threshold mode
            # with V out of reach there is no best move, and the moves come first)
            send_value(*state.get("bounds", (-3, 3)), event["nodes"], elapsed)
            if stage == "best":
                pairs = [("best", event["move"].to_platform()),
                         ("pv", [[seat, m.to_platform()] for seat, m in event["pv"]])]
                if event["pv_cut"]:
                    pairs.append(("pv_cut", True))
                info(_info(*pairs, ("nodes", event["nodes"]), ("time", elapsed)))
            elif stage == "move":
                pairs = [("move", event["move"].to_platform()), ("value", event["value"])]
                if "reaches" in event:
                    pairs.append(("reaches", event["reaches"]))
                pairs += [("index", event["index"]), ("count", event["count"])]
                if event["equivalent"]:
                    pairs.append(("equivalent", [m.to_platform() for m in event["equivalent"]]))
                info(_info(*pairs))

        result = solve(pos, all_moves=all_moves, time_limit=time_limit,
                       node_limit=node_limit, on_info=on_info, at_least=at_least,
                       stop=self._local.stop, info_interval=every)
        send_value(result.lower, result.upper, result.nodes,
                   round(time.perf_counter() - start, 6))
        if all_moves:
            scored = sum(1 for m in result.moves
                         if m.value is not None or m.reaches is not None)
            info(_info(("scored", scored), ("nodes", result.nodes),
                       ("time", round(time.perf_counter() - start, 6))))
        return json.dumps(result.to_json())

    def cmd_sample(self, args, info):
        """The seat to move's moves valued over random deals of the hands it cannot see
        (``solver.solve_sampled``); the reply is ``guandan sample --json``'s object."""
        try:
            from solver.sampling import MAX_DEALS, _counted, parse_known, solve_sampled
        except ImportError as exc:
            raise ProtocolError(f"the solver is not available: {exc}") from None
        options = {"deals": 20, "seed": 0, "first": 0, "known": None, "time": None,
                   "nodes": None, "every": None}
        seen: set = set()
        for token in _split_args(args, "sample"):
            key, eq, value = token.partition("=")
            if not eq or key not in options:
                raise ProtocolError(f"sample: unknown option {token!r} (usage: sample "
                                    "[deals=N] [seed=S] [first=F] [known=SEAT:CARDS;...] "
                                    "[time=S] [nodes=N] [every=S])")
            _once(seen, key, "sample")
            if key == "known":
                try:
                    options[key] = parse_known(value)
                except ValueError as exc:
                    raise ProtocolError(f"sample: known: {exc}") from None
            elif key == "time":
                options[key] = read_seconds(value)
                if options[key] is None:
                    raise ProtocolError(f"sample: time must be {SECONDS_FORM}, not {value!r}")
            elif key == "every":
                options[key] = _every_option("sample", value)
            else:
                # (seed, first and nodes as guandan sample's --seed, --first and
                # --node-limit take them)
                low, high = (1, _MAX_DEALS) if key == "deals" else (0, 2**63 - 1)
                options[key] = _whole_option("sample", key, value, low, high)
        if options["first"] + options["deals"] > MAX_DEALS:     # (named as the options)
            raise ProtocolError(f"sample: first + deals must be at most 2**63 (deal numbers "
                                f"are below it), not {options['first']} + {options['deals']}")
        pos = self._need_position()
        if pos.is_over:
            raise ProtocolError("the hand is over: nothing to sample")
        start = time.perf_counter()

        def on_deal(number, result):
            # every=S: a line as each deal is done (counted: a limit did not stop it
            # before every move had its value)
            elapsed = round(time.perf_counter() - start, 6)
            counted = _counted(result)
            pairs = [("deal", number), ("counted", counted)]
            if counted:
                pairs += [("value", result.value), ("best", result.best.to_platform())]
            info(_info(*pairs, ("nodes", result.nodes), ("time", elapsed)))

        def on_info(number, event):
            if event["stage"] == "working":
                info(_info(("working", event["task"]), ("deal", number),
                           *_working_pairs(event), ("nodes", event["nodes"]),
                           ("time", round(time.perf_counter() - start, 6))))

        progress = {} if options["every"] is None else {
            "on_deal": on_deal, "on_info": on_info, "info_interval": options["every"]}
        try:
            result = solve_sampled(pos, options["deals"], seed=options["seed"],
                                   known=options["known"], time_limit=options["time"],
                                   node_limit=options["nodes"], stop=self._local.stop,
                                   first=options["first"], **progress)
        except ValueError as exc:       # (known cards the position does not allow)
            raise ProtocolError(f"sample: {exc}") from None
        return json.dumps(result.to_json())

    def cmd_analyze(self, args, info):
        hand_parts = []
        level = None
        played = None
        runners_up = _DEFAULT_RUNNERS_UP
        seen: set = set()
        for token in _split_args(args, "analyze"):
            key, eq, value = token.partition("=")
            if eq:
                _once(seen, key, "analyze")
            if eq and key == "level":
                try:
                    level = parse_level(value)
                except ValueError as exc:       # named as the other options are
                    raise ProtocolError(f"analyze: {exc}") from None
            elif eq and key == "played":
                played = value
            elif eq and key == "runners_up":
                runners_up = read_count(value)
                if runners_up is None:
                    raise ProtocolError(f"analyze: runners_up must be a whole number 0 or "
                                        f"more, of at most 18 digits, not {value!r}")
            elif eq:
                raise ProtocolError(f"analyze: unknown option {key!r} "
                                    "(known: level, played, runners_up)")
            else:
                hand_parts.append(token)
        if not hand_parts:
            raise ProtocolError('usage: analyze HAND [level=L] [played=CARDS] '
                                '[runners_up=N]   e.g. analyze "S3 S3 H5" level=7')
        hand = player_hand(" ".join(hand_parts))
        if level is None:
            level = self.position.level if self.position is not None else "2"
        played_hand = Hand(to_counts(played, "played")) if played is not None else None
        try:
            from .analysis import analyze
        except ImportError as exc:
            raise ProtocolError(f"analyze is not available: {exc}") from None
        result = analyze(hand, level, played_hand, self.rules, runners_up)
        return json.dumps(result)

    def cmd_stop(self, args, info):
        """The solves and samples that handle() runs in other threads now stop (their
        replies come first, as far as threads order them). Under serve(), nothing is left
        to do: it stopped those read before this line when it read it."""
        self._no_args(args, "stop")
        with self._running_lock:
            for stop in self._running:
                stop.set()
        return ""

    def cmd_quit(self, args, info):
        self._no_args(args, "quit")
        self.done = True
        return ""


def main(stdin=None, stdout=None, rules=None) -> int:
    """Serve the protocol on the given streams (default: this process's stdin/stdout)."""
    import sys
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    return EngineProtocol(rules).serve(stdin, stdout)
