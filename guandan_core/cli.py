"""The ``guandan`` command line.

Every sub-command turns bad input (a ``ValueError`` from the library, an unreadable file)
into one line on stderr and exit status 2; it never prints a traceback for those.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading

from . import __version__
from .cards import CardError, format_card, format_rank, parse_cards, parse_level
from .hand import Hand, player_hand
from .moves import Move, MoveError, classify, legal_moves
from .rules import PRESET_NAMES, Rules
from .usertext import counted, one_line, out_of_memory, quoted, read_count, read_seconds

EXAMPLE_HAND = ("S2 H2 C2 H4 C4 D5 S6 H6 C6 D6 H7 D8 D9 D9 ST HT CT DT SJ DJ CQ CQ CK "
                "SA HA CA CA")


def _rules(args) -> Rules:
    return Rules.by_name(args.rules)


def option_cards(option: str, read, text: str):
    """``read(text)`` for the cards given to ``option``, a bad card named with the option
    (an unknown card in --beat or --played was named alone, as if in the HAND)."""
    try:
        return read(text)
    except CardError as exc:
        raise CardError(f"{option} {quoted(text)}: {exc}") from None


def _beat_move(cards: str, beat_type: str | None, level: int, rules: Rules) -> Move:
    readings = option_cards("--beat", lambda text: classify(parse_cards(text), level, rules),
                            cards)
    if not readings:
        raise MoveError(f"--beat {quoted(cards)} is not a combination at level "
                        f"{format_rank(level)}")
    if beat_type is not None:      # a type, or a type and a rank as the readings are shown
        wanted = beat_type.lower().split()
        if not wanted:          # (it would match every reading)
            raise MoveError(f"--beat-type {quoted(beat_type)} is empty: give a type (e.g. Bomb) "
                            "or a type and a rank (e.g. 'Straight 3')")
        if wanted[1:2] == ["10"]:       # a rank as cards read it (RULES sec. 1: 10 for T)
            wanted[1] = "t"
        readings = [m for m in readings
                    if [m.type.lower(), m.rank.lower()][:len(wanted)] == wanted]
        if not readings:
            raise MoveError(f"--beat {quoted(cards)} cannot be read as {quoted(beat_type)}")
    if len(readings) > 1:
        options = ", ".join(m.type + " " + m.rank for m in readings)
        raise MoveError(f"--beat {quoted(cards)} has several readings ({options}); "
                        "choose one with --beat-type, e.g. --beat-type "
                        f"'{readings[-1].type} {readings[-1].rank}'")
    return readings[0]


def _print_table(moves: list[Move], out) -> None:
    width = max((len(m.type) for m in moves), default=4)
    for m in moves:
        wild = f"   (wild as {' '.join(m.wild_as)})" if m.wild_as and not m.is_pass else ""
        if m.is_pass:
            out.write("PASS\n")
        else:
            out.write(f"{m.type:<{width}}  {m.rank:<5} {' '.join(m.cards)}{wild}\n")


def cmd_moves(args) -> int:
    level = parse_level(args.level)
    rules = _rules(args)
    hand = player_hand(EXAMPLE_HAND if args.example else args.hand)
    beat = _beat_move(args.beat, args.beat_type, level, rules) if args.beat is not None else None
    if beat is not None:
        both = hand.counts + Hand(beat.cards).counts     # the hand and the table: one deck
        for kind, count in enumerate(both):
            if count > 2:
                raise CardError(f"the hand and --beat together hold {format_card(kind)} "
                                f"{count} times (each card exists twice)")
    elif args.beat_type is not None:
        raise ValueError("--beat-type needs --beat")
    moves = list(legal_moves(hand, level, beat, rules))
    if beat is not None:
        moves.insert(0, Move.PASS)
    if args.json:
        json.dump([m.to_platform() for m in moves], sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_table(moves, sys.stdout)
        count = len(moves) - (1 if beat is not None else 0)
        what = (f"that {'beats' if count == 1 else 'beat'} {beat}" if beat is not None
                else "on lead")
        print(f"-- {counted(count, 'move')} {what} (hand {hand}, "
              f"level {format_rank(level)})")
    return 0


def cmd_classify(args) -> int:
    level = parse_level(args.level)
    cards = parse_cards(args.cards)
    if not cards:
        raise ValueError(f"no cards to classify in {quoted(args.cards)}")
    readings = classify(cards, level, _rules(args))
    if args.json:
        json.dump([m.to_platform() for m in readings], sys.stdout)
        sys.stdout.write("\n")
    elif readings:
        _print_table(readings, sys.stdout)
    else:
        # (the cards as typed, in their notation, on one line: a line break between
        # them had split the answer over two)
        print(f"{' '.join(args.cards.split())}: not a combination at level "
              f"{format_rank(level)}")
    return 0


def whole_number_type(description: str, low: int, high: int):
    """An argparse ``type``: ASCII digits for a whole number from ``low`` to ``high``
    (``int()`` would also read "+5", "1_0" and digits of other scripts), else a usage
    error "DESCRIPTION, not 'TEXT'"."""
    def parse(text: str) -> int:
        value = read_count(text, digits=len(str(high)))
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{description}, not {quoted(text)}")
        return value
    return parse


def bounded_seconds_type(high: float = 1e6, inf_means_none: bool = False):
    """An argparse ``type``: seconds above 0 and at most ``high`` (with
    ``inf_means_none``, ``inf`` too, read as None: no bound), else a usage error naming
    the text."""
    also = ", or inf" if inf_means_none else ""

    def parse(text: str):
        if inf_means_none and text == "inf":
            return None
        value = read_seconds(text)
        if value is None or not 0 < value <= high:
            raise argparse.ArgumentTypeError(f"seconds above 0 and at most {high:g}{also}, "
                                             f"not {quoted(text)}")
        return value
    return parse


def nonempty_type(description: str):
    """An argparse ``type``: any text but the empty one, else a usage error
    "DESCRIPTION, not ''" (an unset shell variable would otherwise mean a default that
    differs from the option's: no log, every network interface)."""
    def parse(text: str) -> str:
        if not text:
            raise argparse.ArgumentTypeError(f"{description}, not ''")
        return text
    return parse


def add_rules_option(parser, note: str = "") -> None:
    """The ``--rules`` option of the commands that read cards: a preset name (its names
    from :data:`~guandan_core.rules.PRESET_NAMES`, checked by ``Rules.by_name``)."""
    parser.add_argument("--rules", default="standard",
                        help=f"rule set: {', '.join(PRESET_NAMES)} (default standard){note}")


class _StoreOnce(argparse.Action):
    """argparse's plain ``store``, but an option given twice with a value is a usage error
    (argparse keeps the last, dropping the first without a word; the engine protocol
    refuses the same). The options seen are kept in the namespace while it is parsed."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if self.dest in given:
            raise argparse.ArgumentError(
                self, f"given twice ({quoted(given[self.dest])} and {quoted(values)}): give "
                      f"it once")
        given[self.dest] = values
        setattr(namespace, self.dest, values)


class _FlagOnce(argparse._StoreTrueAction):
    """argparse's ``store_true``, but a flag given twice is a usage error too (a doubled
    ``--json`` is a slip worth a word, as a doubled option with a value is)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if ("flag", self.dest) in given:
            raise argparse.ArgumentError(self, "given twice: give it once")
        given[("flag", self.dest)] = True
        super().__call__(parser, namespace, values, option_string)


# (the namespace's record of the options given, dropped after parsing)
_GIVEN = "_options_given"


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line of stderr, like every other error of the
    command line (argparse's own print the usage first, over several lines), and options
    refused when given twice. Sub-command parsers are of this class too
    (``add_subparsers`` makes them of the parent's class)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)       # (no action= given: store)
        self.register("action", "store", _StoreOnce)
        self.register("action", "store_true", _FlagOnce)

    def parse_known_args(self, args=None, namespace=None):
        namespace, rest = super().parse_known_args(args, namespace)
        namespace.__dict__.pop(_GIVEN, None)
        return namespace, rest

    def error(self, message):
        # (the message may quote the user's argument, line breaks and all)
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")

    def _print_message(self, message, file=None):
        # argparse swallows a failed write, so --help or --version to a full disk or a
        # closed stdout exited 0 (the text then on stderr): what fails on stdout is raised
        # for main() to report. It passes None for a stream that is None (closed).
        if not message:
            return
        if file is sys.stderr or (file is None and sys.stdout is not None):
            _to_stderr(message)
        elif file is None:
            raise _ClosedOutput
        else:
            file.write(message)


class _ClosedOutput(Exception):
    """--help or --version with stdout closed."""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="guandan", description="Guandan engine")
    parser.add_argument("--version", action="version", version=f"guandan {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("moves", help="list every legal move of a hand")
    p.add_argument("hand", nargs="?", help='cards, e.g. "S5 H7 SB" (or --example)')
    p.add_argument("--example", action="store_true", help="use a built-in 27-card hand")
    p.add_argument("--level", default="2", help="level rank, 2..A (default 2)")
    p.add_argument("--beat", help="cards of the play to beat")
    p.add_argument("--beat-type", metavar="READING",
                   help="reading of --beat when it has several: a type (e.g. Bomb), or a "
                        "type and a rank (e.g. 'Straight 3')")
    p.add_argument("--json", action="store_true", help="JSON list of [type, rank, cards]")
    add_rules_option(p)
    # (usage_error: main's own check of HAND and --example reports as argparse would)
    p.set_defaults(func=cmd_moves, usage_error=p.error)

    p = sub.add_parser("classify", help="every reading of a set of cards")
    p.add_argument("cards", help='the cards, e.g. "H2 S3 S4 S5 S6" (H2 is wild at level 2)')
    p.add_argument("--level", default="2", help="level rank, 2..A (default 2)")
    p.add_argument("--json", action="store_true", help="JSON list of [type, rank, cards]")
    add_rules_option(p)
    p.set_defaults(func=cmd_classify)

    for module_name in _SUBCOMMAND_MODULES:
        module = __import__(f"{__package__}.{module_name}", fromlist=["register"])
        module.register(sub)
    return parser


# modules that add sub-commands with a register(subparsers) function
_SUBCOMMAND_MODULES: list[str] = ["cli_play", "cli_solve", "cli_sample", "cli_engine",
                                   "cli_analyze", "cli_bot", "cli_serve"]


def main(argv=None) -> int:
    parser = build_parser()
    try:
        unknown = _unknown_top_option(sys.argv[1:] if argv is None else list(argv))
        if unknown is not None:
            # (argparse asked for a command instead, or named the sub-command's options)
            parser.error(f"unrecognized arguments: {unknown}")
        args, extra = parser.parse_known_args(argv)
        if extra:
            # named under the sub-command they were given to (argparse names the top
            # level); there is one, or argparse would have stopped already
            name = f"guandan {args.command}"
            parser.exit(2, f"{name}: error: unrecognized arguments: "
                           f"{one_line(' '.join(extra))} (see {name} --help)\n")
    except SystemExit as done:      # --help, --version, a usage error: written, then flushed
        return _flushed(done.code if isinstance(done.code, int) else 2, "")
    except _ClosedOutput:
        say("guandan: error: standard output is closed")
        return 2
    except OSError as exc:          # --help or --version written unbuffered
        return _output_failed(exc, 0, "")
    if getattr(args, "command", None) == "moves" and args.example == (args.hand is not None):
        try:
            args.usage_error(
                "give a HAND or --example, not both" if args.example
                else "give a HAND (e.g. \"S3 S3 H5\") or --example")
        except SystemExit as done:
            return _flushed(done.code, args.command)
    if sys.stdout is None:      # started with stdout closed (`guandan ... >&-`)
        say(f"guandan {args.command}: error: standard output is closed")
        return 2
    # what the output's encoding cannot write (a card typed '7♥' and echoed, under an ASCII
    # locale) is written as escapes: valid input is not an encoding error
    stdout, errors = sys.stdout, getattr(sys.stdout, "errors", None)
    _set_errors(stdout, "backslashreplace")
    sys.stdout = _TellingStdout(stdout)
    try:
        return _flushed(_run(args), args.command)
    finally:
        if isinstance(sys.stdout, _TellingStdout):     # (a command may have set its own)
            sys.stdout = stdout
        _set_errors(stdout, errors)     # (the stream changed, whatever sys.stdout is now)


class _OutputError(OSError):
    """Writing standard output failed (a full disk): told apart from a command's own
    OSErrors, such as a file it could not read, so that the message says which."""


class _TellingStdout:
    """sys.stdout while a command runs: the same stream, but a failed write or flush is an
    :class:`_OutputError` (a reader gone away stays a BrokenPipeError, the quiet end)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        return self._told(self._stream.write, text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        return self._told(self._stream.flush)

    @staticmethod
    def _told(call, *args):
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(*exc.args) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _unknown_top_option(argv: list) -> str | None:
    """The first option before the command that is not guandan's own (--help, --version,
    or a prefix of them, as argparse reads them), else None."""
    for word in argv:
        if not word.startswith("-") or word == "-":
            return None         # the command (or a stray word argparse will name)
        if word in ("-h", "--") or (len(word) > 2 and ("--help".startswith(word)
                                                        or "--version".startswith(word))):
            return None         # (argparse acts on it, or on what follows)
        return word
    return None


def open_option_file(option: str, path: str, mode: str):
    """``path`` opened as UTF-8 text; an OSError naming the option and the file (it was
    "[Errno 21] Is a directory: 'd'", which named no option)."""
    try:
        return open(path, mode, encoding="utf-8")
    except OSError as exc:
        raise OSError(f"{option} {path!r}: {exc.strerror or exc}") from None


def _set_errors(stream, errors) -> None:
    try:
        if errors is not None and stream.errors != errors:
            stream.reconfigure(errors=errors)
    except (AttributeError, OSError, ValueError):
        pass    # (a stream that cannot change, or is closed: it stays as it was)


def _run(args) -> int:
    """The command's exit status, its errors reported on one line of stderr."""
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader went away (`guandan ... | head`): stop quietly, as head's writers do
        discard_stdout()
        return 0
    except _OutputError as exc:
        return _output_failed(exc, 0, args.command)
    except (ValueError, OSError) as exc:
        say(f"guandan {args.command}: error: {one_line(exc)}")
        return 2
    except MemoryError as exc:      # (what could not be had, when the raiser says)
        say(f"guandan {args.command}: error: {out_of_memory(exc)}")
        return 2
    except Terminated:
        say(f"guandan {args.command}: terminated")
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        # Ctrl-C (``guandan solve`` catches its own, to print what it proved)
        say(f"guandan {args.command}: interrupted")
        return 130


class Terminated(KeyboardInterrupt):
    """SIGTERM (a supervisor, ``timeout``, ``kill``), raised as Ctrl-C raises
    KeyboardInterrupt by the commands that keep a log or a connection (see
    :func:`terminated_as_interrupt`): what they wrote is flushed and their peers are told,
    instead of the process ending on the spot."""


@contextlib.contextmanager
def terminated_as_interrupt():
    """While inside, SIGTERM raises :class:`Terminated` in the main thread (elsewhere, or
    where SIGTERM is not Python's default, nothing changes)."""
    def terminate(signum, frame):
        raise Terminated()

    try:
        installed = signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and \
            threading.current_thread() is threading.main_thread()
    except (AttributeError, ValueError):
        installed = False
    previous = signal.signal(signal.SIGTERM, terminate) if installed else None
    try:
        yield
    finally:
        if installed:
            signal.signal(signal.SIGTERM, previous)


def _flushed(code: int, command: str) -> int:
    """``code`` once what is still buffered for stdout is written. A short output sits in
    the buffer until here, so a reader that has gone away or a full disk shows only now;
    left to the interpreter's exit, that was a two-line "Exception ignored" and status 120."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as exc:
        return _output_failed(exc, code, command)
    return code


def _output_failed(exc: OSError, code: int, command: str) -> int:
    """The exit status once writing stdout failed with ``exc`` (what is left of it is
    dropped): ``code`` when the reader went away (`| head`: the quiet end), else an error,
    said on one line, status 2, unless the command failed already and said so (replay's
    verdict "invalid", status 1, is its output: lost, it is an error too)."""
    discard_stdout()
    if isinstance(exc, BrokenPipeError) or code not in (0, 1):
        return code
    say(f"{_name(command)}: error: writing standard output: {one_line(exc)}")
    return 2


@contextlib.contextmanager
def ctrl_c_sets(stop):
    """Within the block, Ctrl-C sets ``stop`` (a ``solver.Stop``) instead of raising
    KeyboardInterrupt: the searches end as at a time limit and say what they proved. Only
    in the main thread with Python's own handler in place; elsewhere, or where SIGINT is
    ignored (a background job), it stays as it is."""
    previous = None
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def say(text: str) -> None:
    """``text`` as a line on stderr, flushed. An error output that cannot be written (closed,
    a full disk) is given up quietly: the exit status still tells (the failed write had
    made it 1, or 120 at the interpreter's exit, where 2 was meant)."""
    _to_stderr(text + "\n")


def _to_stderr(text: str) -> None:
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        _discard(sys.stderr)


def _name(command: str) -> str:
    return f"guandan {command}" if command else "guandan"


def discard_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered for a reader that has gone
    away (or a full disk) is dropped quietly at exit instead of failing again."""
    _discard(sys.stdout)


def _discard(stream) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass        # (no file descriptor to point anywhere: nothing will be flushed there)


if __name__ == "__main__":
    # (`python -m guandan_core.cli` runs this file as __main__, a second copy beside the
    # guandan_core.cli the sub-commands import: the package's own copy does the work, so
    # that what they raise, such as Terminated, is the class caught here)
    from guandan_core import cli as _package_cli
    sys.exit(_package_cli.main())
