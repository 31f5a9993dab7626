"""guandan_core.engine: `guandan engine` driven as a separate process. Every answer must
equal what the same call gives in this process (the protocol adds nothing and loses
nothing), and a refused command, a hung, dead or garbled engine must each end in the
exception that says so, never a wait for ever or a wrong answer."""

import json
import random
import re
import subprocess
import sys
import threading
import time

import pytest

from cli_process import PACKAGES, ROOT, cli_env, soon
from guandan_core import analysis
from guandan_core.cards import CardError
from guandan_core.hand import Hand
from guandan_core.engine import (DEFAULT_COMMAND, EngineProcess, EngineProtocolError,
                                 EngineRefusedError, EngineTerminatedError)
from guandan_core.moves import Move
from guandan_core.position import Position, PositionError
from guandan_core.rules import PRESET_NAMES, Rules
from reference_minimax import random_position
from solver import solve, solve_sampled

EXAMPLE = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"], ["C6", "CQ"],
                                   ["S4", "SK", "D6"]],
           "finished": [], "to_move": 0, "table": None}


def _engine(command=None, **options) -> EngineProcess:
    return EngineProcess(command, env=cli_env(), cwd=PACKAGES, **options)


def _hard_position() -> dict:
    """A 4 x 8 position that takes minutes to solve (from the source tree: a CMake
    build's tests run from its build directory)."""
    path = ROOT / "benchmarks" / "data" / "endgames_4x8.json"
    return json.loads(path.read_text())["items"][64]


def _fake_engine(code: str, **options) -> EngineProcess:
    """An 'engine' that is this Python running ``code``: for the failures a real one
    should never show."""
    return _engine([sys.executable, "-c", code], **options)


@pytest.fixture(scope="module")
def engine():
    with _engine(timeout=120) as e:
        yield e


def _positions(seed: int, count: int, max_cards: int = 4):
    rng, out = random.Random(seed), []
    while len(out) < count:
        pos = random_position(rng, max_cards=max_cards)
        if pos is not None and not pos.is_over:
            out.append(pos)
    return out


def test_identity_and_commands(engine):
    from guandan_core import __version__
    from guandan_core.protocol import COMMANDS
    assert engine.protocol_version() == 1
    assert engine.name() == "guandan-core"
    assert engine.version() == __version__
    assert engine.list_commands() == list(COMMANDS)
    assert engine.returncode is None and "running" in repr(engine)


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_solve_equals_in_process(engine, rules):
    """Values, best moves, lines, every move's score and the node counts (both sides
    from empty tables) are the in-process solver's, wild cards and plays on the table
    included; the threshold question and a node budget too."""
    assert engine.set_rules(rules) == Rules.by_name(rules)
    for i, pos in enumerate(_positions(len(rules), 12)):
        pos = Position.from_json(pos.to_json(), rules=Rules.by_name(rules))
        assert engine.set_position(pos) == pos
        options = [dict(all_moves=True), dict(at_least=random.Random(i).choice([-2, 1, 2])),
                   dict(node_limit=7)]
        for kw in options:
            engine.clear_table()
            got = engine.solve(**kw)
            want = solve(pos, fresh_tables=True, **kw)
            assert got == want, (pos.to_json(), kw)
            assert got.to_json() | {"seconds": 0} == want.to_json() | {"seconds": 0}


def test_moves_play_and_undo_follow_the_position(engine):
    """The legal moves in the engine's order, and each play and undo's position, are the
    in-process ones, along a random line to the end of each hand."""
    engine.set_rules("standard")
    rng = random.Random(5)
    for pos in _positions(11, 10, max_cards=5):
        engine.set_position(pos)
        line = []
        while not pos.is_over:
            moves = engine.legal_moves()
            assert moves == list(pos.legal_moves())
            move = rng.choice(moves)
            line.append(pos)
            pos = pos.play(move)
            assert engine.play(move) == pos
            assert engine.position == pos
        assert engine.legal_moves() == []
        for before in reversed(line):
            assert engine.undo() == before
            # (API: `position` is the position the client last took back)
            assert engine.position == before
        assert engine.show_position() == line[0]


def test_show_position_takes_the_engines_position(engine):
    """A play sent through command() makes the client forget its copy (it is not read,
    and the old one no longer holds); show_position() reads the engine's and keeps it,
    so that the next play (a pass, by name) is read at the new position."""
    engine.set_rules("standard")
    before = engine.set_position(EXAMPLE)
    after = before.play(Move.from_platform(["Single", "5", ["S5"]], before.level))
    engine.command('play ["Single","5",["S5"]]')
    assert engine.position is None
    for call in (engine.legal_moves, engine.undo, engine.solve):
        with pytest.raises(ValueError, match=re.escape("no position: set_position first "
                                                       "(or show_position, after")):
            call()
    assert engine.show_position() == after and after.to_move == 1
    assert engine.position == after
    passed = after.play(Move.from_platform(["PASS", "PASS", "PASS"], after.level))
    assert engine.play("PASS") == passed and engine.position.to_move == 2
    assert engine.returncode is None


def test_rules_changed_through_command_are_asked_again(engine):
    """A rules change sent through command() is the engine's: the next position is read
    under it (a six-card straight, which only long-sequences reads), and a position set
    through command() is read back under the rules it was set with, whatever came after.
    The client kept its old rules, read the engine's moves under them and killed the
    engine for a protocol error."""
    q = {"level": "K", "hands": [["S3", "S4", "S5", "S6", "S7", "S8"], ["C5"], ["D5"],
                                 ["D9"]], "finished": [], "to_move": 0, "table": None}
    engine.set_rules("standard")
    engine.set_position(EXAMPLE)
    engine.command("rules long-sequences")
    assert engine.rules == Rules.by_name("long-sequences")
    long = engine.set_position(q)
    assert long.rules == Rules.by_name("long-sequences")
    assert engine.legal_moves() == long.legal_moves()
    assert any(m.type == "Straight" and len(m.cards) == 6 for m in long.legal_moves())
    table = dict(q, hands=[["C3"], ["C5"], ["D5"], ["D9"]], to_move=1,
                 table={"owner": 0, "play": ["Straight", "3", ["S3", "S4", "S5", "S6", "S7",
                                                               "S8"]]})
    engine.command("position " + json.dumps(table))
    engine.command("rules standard")
    shown = engine.show_position()
    assert shown == Position.from_json(table, rules=Rules.by_name("long-sequences"))
    assert engine.legal_moves() == shown.legal_moves()
    assert engine.rules == Rules.by_name("standard") and engine.returncode is None


def test_sample_equals_in_process(engine):
    engine.set_rules("standard")
    engine.set_position(EXAMPLE)
    got = engine.sample(deals=6, seed=11, first=3, known={1: ["S3"]})
    want = solve_sampled(EXAMPLE, 6, seed=11, first=3, known={1: ["S3"]}, threads=1)
    assert got == want and got.solved == 6
    got = engine.sample(deals=4, seed=2, node_limit=300)
    want = solve_sampled(EXAMPLE, 4, seed=2, node_limit=300, threads=1)
    assert got == want and got.node_limit == 300 and got.solved < 4
    # (docs/PROTOCOL.md, sample: 20 deals by default)
    assert engine.sample() == solve_sampled(EXAMPLE, 20, seed=0, threads=1)


def test_sample_with_info_interval_reports_each_deal_and_what_long_ones_still_do(engine):
    """``sample(on_info=, info_interval=S)`` sends ``every=S``: on_info gets an ``info
    deal`` line a deal, saying what solving it alone says (counted, value, best move,
    nodes), and ``info working`` lines of the long deals' searches; the result is the
    same as without."""
    from guandan_core.cli_solve import EXAMPLE_POSITION
    from solver import solve
    from solver.sampling import sample_deals
    engine.set_rules("standard")
    engine.set_position(EXAMPLE_POSITION)
    infos = []
    got = engine.sample(deals=4, seed=5, on_info=infos.append, info_interval=1e-6)
    assert got == solve_sampled(EXAMPLE_POSITION, 4, seed=5, threads=1)
    done = {fields["deal"]: fields for fields in infos if "deal" in fields
            and "working" not in fields}
    for number, deal in enumerate(sample_deals(EXAMPLE_POSITION, 4, seed=5)):
        alone = solve(deal, all_moves=True, pv=False, fresh_tables=True)
        assert list(done[number]) == ["deal", "counted", "value", "best", "nodes", "time"]
        assert (done[number]["counted"], done[number]["value"], done[number]["best"],
                done[number]["nodes"]) == (True, alone.value, alone.best.to_platform(),
                                           alone.nodes)
    working = [fields for fields in infos if "working" in fields]
    assert working and {fields["deal"] for fields in working} <= set(done)
    assert all(list(fields)[:4] == ["working", "deal", "lower", "upper"] for fields in working)
    infos.clear()
    engine.sample(deals=2, node_limit=5, on_info=infos.append, info_interval=1)
    assert sorted(fields["deal"] for fields in infos) == [0, 1]
    assert all(list(fields) == ["deal", "counted", "nodes", "time"] and
               (fields["counted"], fields["nodes"]) == (False, 5) for fields in infos)
    with pytest.raises(ValueError, match="info_interval needs an on_info"):
        engine.sample(info_interval=1)


def test_a_sample_reply_of_another_node_limit_is_a_protocol_error():
    reply = solve_sampled(EXAMPLE, 2, seed=0, node_limit=10**6, threads=1).to_json()
    with _fake_engine(SCRIPTED.format(answers={"sample": json.dumps(reply)}),
                      timeout=20) as e:
        e.set_position(EXAMPLE)
        with pytest.raises(EngineProtocolError, match="a sample solved under the node limit "
                                                      "1000000, not 5000"):
            e.sample(deals=2, node_limit=5000)


def test_analyze_equals_in_process(engine):
    engine.set_rules("standard")
    hand = "S3 S4 S5 S6 S7 H7 SB SB D9 C9"
    got = engine.analyze(hand, level="7", played="S8 S8", runners_up=2)
    want = analysis.analyze(hand, "7", played="S8 S8", runners_up=2)
    assert got == json.loads(json.dumps(want))
    deck = Hand.from_counts([2] * 54).cards()
    full = " ".join(random.Random(3).sample(deck, 27))     # (a dealt hand: the most cards)
    # no level: the position's (PROTOCOL.md, analyze), here 2 (the engine is shared by the
    # tests of this module: a test before may have left a position at another level)
    engine.set_position(EXAMPLE)
    assert engine.analyze(full) == json.loads(json.dumps(analysis.analyze(full, "2")))


def test_refused_commands_leave_the_session_as_it_was(engine):
    engine.set_rules("standard")
    engine.set_position(EXAMPLE)
    with pytest.raises(EngineRefusedError, match="does not hold D9") as info:
        engine.play(["Pair", "9", ["D9", "D9"]])
    assert info.value.command.startswith("play ") and "D9" in info.value.reason
    assert engine.show_position() == Position.from_json(EXAMPLE)
    with pytest.raises(EngineRefusedError, match="nothing to undo"):
        engine.undo()
    with pytest.raises(EngineRefusedError, match="unknown command") as info:
        engine.command("castle")
    assert info.value.command == "castle"
    assert str(info.value) == f"the engine refused 'castle': {info.value.reason}"
    assert engine.name() == "guandan-core"       # still answering, in order


def test_bad_input_is_refused_before_it_is_sent(engine):
    """The client checks what it can itself and names the bad value."""
    engine.set_rules("standard")
    with pytest.raises(PositionError):
        engine.set_position(dict(EXAMPLE, to_move=7))
    with pytest.raises(ValueError, match="under the rules"):
        engine.set_position(Position.from_json(EXAMPLE, rules="platform"))
    with pytest.raises(ValueError, match="unknown rules 'casual'"):
        engine.set_rules("casual")
    with pytest.raises(ValueError, match="not a preset"):
        engine.set_rules(Rules(sf_is_bomb=False, long_sequences=True))
    assert engine.rules == Rules.standard()
    engine.set_position(EXAMPLE)
    for call, message in [
            (lambda: engine.solve(time_limit=-1), "time_limit must be"),
            (lambda: engine.solve(node_limit=2.5), "node_limit must be"),
            (lambda: engine.sample(deals=1, node_limit=-1), "node_limit must be"),
            (lambda: engine.sample(deals=1, node_limit=True), "node_limit must be"),
            (lambda: engine.sample(deals=1, node_limit=50.0), "node_limit must be"),
            (lambda: EngineProcess(timeout="5"), "timeout must be .*'5'"),
            (lambda: EngineProcess(timeout=True), "timeout must be .*True"),
            # one message for -1 and 0 (it said "0 or more" for -1, then "above 0" for 0)
            (lambda: EngineProcess(timeout=-1), "timeout must be a finite number of seconds "
                                                "above 0, or None, not -1"),
            (lambda: EngineProcess(timeout=0), "timeout must be a finite number of seconds "
                                               "above 0, or None, not 0"),
            (lambda: engine.solve(at_least=0), "at_least must be"),
            (lambda: engine.solve(all_moves="yes"), "all_moves must be"),
            (lambda: engine.sample(deals=0.5), "deals must be"),
            (lambda: engine.sample(known={7: "S3"}),
             "7 is not a seat \\(seats are the whole numbers 0 to 3\\)"),
            (lambda: engine.sample(known=[1, "S3"]), "known must map"),
            (lambda: engine.analyze("S3 X9"), "X9"),
            (lambda: engine.analyze("S3", level="7 8"), "'7 8'"),
            (lambda: engine.play("S3"), "'S3'"),
            (lambda: engine.play(3), "not 3"),
            (lambda: engine.command("name\nquit"), "one line"),
            (lambda: engine.command(b"name"), "not b'name'"),
            (lambda: EngineProcess(5), "not 5"),
            # (a command, and the limits docs/PROTOCOL.md gives sample and analyze:
            # deals 1 to 1,000,000, seed up to 2**63 - 1, runners_up of at most 18 digits)
            (lambda: engine.command("name\rquit"), "one line"),
            (lambda: engine.command("name", on_info=5), "on_info must be callable"),
            (lambda: engine.solve(on_info=5), "on_info must be callable"),
            (lambda: engine.solve(info_interval=1), "info_interval needs an on_info"),
            (lambda: engine.solve(on_info=print, info_interval=0),
             "info_interval must be a number of seconds above 0, or None, not 0"),
            (lambda: engine.sample(deals=10**6 + 1), "deals must be .* to 1000000"),
            (lambda: engine.sample(deals=1, seed=2**63), "seed must be .* not 9223372036854775808"),
            (lambda: engine.analyze("S3", runners_up=10**18), "runners_up must be"),
            (lambda: EngineProcess([]), "a program and its arguments, not \\[\\]")]:
        with pytest.raises((ValueError, TypeError), match=message) as info:
            call()
        # (the engine refuses some of these too: here it must be the client's own error)
        assert not isinstance(info.value, (EngineRefusedError, EngineProtocolError))
    assert engine.position == Position.from_json(EXAMPLE)
    assert engine.name() == "guandan-core"


@pytest.mark.parametrize("how", ["set_rules", "--rules"])
def test_positions_read_under_the_engines_rules(how):
    """Under the platform's rules a wild card does not make a straight flush of another
    suit: the engine and the client read the same position alike, whether the rules were
    set through the client or given on the engine's command line (which the client then
    asks for instead of assuming the standard rules)."""
    options = dict(rules="platform") if how == "set_rules" else \
        dict(command=list(DEFAULT_COMMAND) + ["--rules", "platform"])
    with _engine(timeout=60, **options) as e:
        assert e.rules == Rules.platform()
        pos = e.set_position({"level": "2", "hands": [["S3", "S4", "S5", "S6", "H2"],
                                                       ["C9"], [], []],
                              "finished": [2, 3], "to_move": 0, "table": None})
        assert pos.rules == Rules.platform()
        assert e.legal_moves() == list(pos.legal_moves())
        assert e.solve(all_moves=True) == solve(pos, all_moves=True, fresh_tables=True)


def test_stop_from_another_thread_ends_a_solve():
    """A solve with no budget, stopped from another thread: its answer is what it had
    proven (never a wrong exact value), and the engine goes on answering."""
    hard = _hard_position()
    with _engine(timeout=120) as e:
        e.set_position(hard)
        infos = []
        # stopped from another thread once the solve has begun (its first info line: a
        # timer could fire before the solve was sent, and stop nothing)
        begun, stopped = threading.Event(), []

        def stop():
            begun.wait(300)
            stopped.append(time.perf_counter())
            e.stop()
        stopper = threading.Thread(target=stop)
        stopper.start()

        def follow(fields):
            infos.append(fields)
            begun.set()
        result = e.solve(on_info=follow)
        stopper.join(10)
        # (answered soon after the stop, however long the solve took to begin)
        assert time.perf_counter() - stopped[0] < 30
        assert not result.exact and result.lower <= result.upper
        assert any(next(iter(fields)) == "best" for fields in infos)
        assert e.name() == "guandan-core"


def test_a_silent_engine_times_out_and_is_killed():
    with _fake_engine("import time; time.sleep(60)", timeout=0.5) as e:
        start = time.perf_counter()
        with pytest.raises(TimeoutError, match="no reply to 'name' within 0.5 s"):
            e.name()
        assert time.perf_counter() - start < 10
        assert e.returncode is not None             # killed
        with pytest.raises(TimeoutError):           # and says so ever after
            e.version()


def test_a_dead_engine_says_why():
    with _engine(list(DEFAULT_COMMAND) + ["--rules", "casual"]) as e:
        with pytest.raises(EngineTerminatedError, match="exit status 2.*unknown rules") as info:
            e.name()
        assert info.value.returncode == 2 and "casual" in info.value.stderr
    for command in (["/nonexistent/guandan"], "/nonexistent/guandan"):    # (a str: a program)
        with pytest.raises(EngineTerminatedError,
                           match=r"cannot start the engine \['/nonexistent/guandan'\]"):
            EngineProcess(command)
    # arguments the subprocess module refuses: its words alone named neither the argument
    # nor the engine ("expected str, bytes or os.PathLike object, not int")
    with pytest.raises(TypeError, match=r"cannot start the engine \[.*\] in cwd 5: expected "
                                        r"str, bytes or os.PathLike object, not int"):
        EngineProcess(cwd=5)
    with pytest.raises(ValueError, match=r"cannot start the engine \['a\\x00b'\]: embedded "
                                         r"null byte"):
        EngineProcess(["a\x00b"])
    for wait in (0, 0.5):       # (after a wait, writing the command fails: a broken pipe)
        with _fake_engine("import sys; sys.exit(3)", timeout=20) as e:
            time.sleep(wait)
            with pytest.raises(EngineTerminatedError, match="exit status 3"):
                e.name()
            with pytest.raises(EngineTerminatedError):
                e.stop() or e.version()     # stop() itself stays quiet
        assert e.returncode == 3


@pytest.mark.parametrize("close", [lambda e: e.close(timeout=5), EngineProcess.quit])
def test_close_waits_for_the_engine_to_exit(close):
    """close() (and quit(), the same) waits for an engine that takes its time to exit
    after ``quit``: its own exit status, not the kill's."""
    code = ("import sys, time\nfor line in sys.stdin:\n    ident, word = line.split()[:2]\n"
            "    print('=' + ident, flush=True); print(flush=True)\n"
            "    if word == 'quit':\n        time.sleep(1.5); sys.exit(7)\n")
    e = _fake_engine(code, timeout=20)
    start = time.perf_counter()
    assert close(e) == 7 and e.returncode == 7
    assert time.perf_counter() - start < 5


def test_an_engine_that_closes_its_input_is_killed_and_says_so():
    """An engine that stops reading but runs on: writing the command fails, and the
    command ends then (after the 5 s wait for an exit), not at its timeout, in an error
    that says the client killed it (it was said to have ended, exit status -9, when the
    thread reading its output saw the kill first)."""
    code = ("import os, sys, time; os.close(0); sys.stderr.write('closed'); "
            "sys.stderr.flush(); time.sleep(30)")
    with _fake_engine(code) as e:
        assert soon(lambda: b"closed" in bytes(e._link.stderr_tail))   # (before the write)
        start = time.perf_counter()
        with pytest.raises(EngineTerminatedError) as info:
            e.command("name", timeout=12)
        assert time.perf_counter() - start < 10
        assert str(info.value) == ("the engine process closed its output or input but went "
                                   "on running: it was killed: 'closed'")
        assert info.value.returncode == -9


def test_what_the_engine_wrote_last_is_quoted_when_it_dies():
    """The error quotes the end of stderr read to its end, even when the last of it
    comes after the engine's exit (here from a child it left behind, 0.3 s later)."""
    code = ("import subprocess, sys\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import sys, time; "
            "print(flush=True); time.sleep(0.3); sys.stderr.write(\"last words\")'], "
            "stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)\n"
            "child.stdout.readline()\n"        # (it runs: its 0.3 s start now)
            "sys.exit(3)\n")
    with _fake_engine(code, timeout=20) as e:
        with pytest.raises(EngineTerminatedError,
                           match=r"ended \(exit status 3\): 'last words'$") as info:
            e.name()
        assert info.value.stderr == "last words" and info.value.returncode == 3


def _record_engines(monkeypatch) -> list:
    """The list of every process the engine client starts from now on (in this test)."""
    started = []
    real_popen = subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]
    monkeypatch.setattr("guandan_core.engine.subprocess.Popen", popen)
    return started


def test_rules_the_client_cannot_read(monkeypatch):
    """A rule set unknown to the client: given to the constructor, it is refused and
    the new process closed (quit, not left to the finalizer); named by the engine, it is a
    protocol error quoting the name."""
    started = _record_engines(monkeypatch)
    # (close given all the time the engine needs to start and quit: its default 5 s
    # could kill one starting on a starved machine, and the status would say nothing)
    closed, close = [], EngineProcess.close

    def patient_close(self, timeout=5.0):
        closed.append(timeout)
        return close(self, timeout=None)
    monkeypatch.setattr(EngineProcess, "close", patient_close)
    with pytest.raises(ValueError, match="unknown rules 'casual'"):
        _engine(rules="casual", timeout=20)
    assert len(started) == 1 and started[0].returncode == 0 and len(closed) == 1
    monkeypatch.setattr(EngineProcess, "close", close)
    with _fake_engine(SCRIPTED.format(answers={"rules": "casual"}), timeout=20) as e:
        with pytest.raises(EngineProtocolError, match="a rule set it does not name: 'casual'"):
            e.rules


def test_threads_share_one_engine():
    """Commands from several threads at once each get their own reply (the client
    numbers them in the order it writes them)."""
    from guandan_core import __version__
    errors = []

    def ask(n):
        try:
            for _ in range(n):
                assert engine.name() == "guandan-core"
                assert engine.version() == __version__
                assert engine.protocol_version() == 1
        except BaseException as exc:        # (reported by the main thread)
            errors.append(exc)

    with _engine(timeout=60) as engine:
        threads = [threading.Thread(target=ask, args=(150,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []


@pytest.mark.parametrize("output, message", [
    ("hello\n", "a line outside any reply"),
    ("=7 name\n\n", "a reply to command 7 while command 1 waits"),
    ("=1 [1, 2\n\n", "not JSON"),
    ("=x 1\n\n", "without the client's id"),
    ("=1\n", "ended inside a reply"),
    # (PROTOCOL.md, Framing: one space separates the id from the payload; an info line
    # starts with "info ", a line that only starts with "info" is no info line)
    ("=1x name\n\n", "without the client's id"),
    ("information\n", "a line outside any reply"),
    ("=" + "1" * 5000 + " name\n\n", "without the client's id"),   # (never the client's)
])
def test_a_garbled_engine_is_a_protocol_error(output, message):
    """Each line the protocol does not allow ends the session with that named (the fake
    engine answers the first command so, then stays alive: the error is the reply's,
    not the end of the output's, except where the output ends inside a reply)."""
    linger = 0 if "ended" in message else 5
    code = (f"import sys, time; sys.stdin.readline(); sys.stdout.write({output!r}); "
            f"sys.stdout.flush(); time.sleep({linger})")
    with _fake_engine(code, timeout=20) as e:
        with pytest.raises(EngineProtocolError, match=message):
            e.protocol_version()
        with pytest.raises(EngineProtocolError):
            e.name()


def test_an_info_line_before_any_command_is_a_protocol_error():
    code = "import sys, time; print('info depth 3', flush=True); time.sleep(5)"
    with _fake_engine(code, timeout=20) as e:
        # (the reader has taken the line: a sleep for it raced with a slow start-up, and
        # `name` sent first took the info line as its own)
        assert soon(lambda: e._link.failure is not None, within=60)
        with pytest.raises(EngineProtocolError, match="no command running"):
            e.name()


def test_a_caller_that_gives_up_stops_the_solve():
    """An on_info that raises (as Ctrl-C would, in the wait) leaves the solve it was
    following to no one: the client stops it, and the next command is answered at once
    instead of after a search of minutes."""
    with _engine(timeout=120) as e:
        e.set_position(_hard_position())

        def give_up(line):
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            e.solve(on_info=give_up)
        start = time.perf_counter()
        assert e.name() == "guandan-core"
        assert time.perf_counter() - start < 30


def test_the_timeout_counts_from_the_command_not_from_each_info_line():
    """An engine that keeps writing info lines (every 0.1 s, for 8 s) still meets the
    command's timeout."""
    # (it answers its name first, so that the timeout counts from a running engine, not
    # from one still starting; then five info lines at once, and one every 0.1 s)
    code = _ANSWERS_ITS_NAME + (
        "sys.stdin.readline()\n"
        "for _ in range(5):\n"
        "    print('info bound', flush=True)\n"
        "for _ in range(80):\n"
        "    print('info bound', flush=True); time.sleep(0.1)\n"
        "print('=2 1'); print(flush=True); time.sleep(5)")
    with _fake_engine(code, timeout=60) as e:
        assert e.name() == "fake"
        lines = []
        start = time.perf_counter()
        with pytest.raises(TimeoutError, match="within 1.5 s"):
            e.command("protocol_version", on_info=lines.append, timeout=1.5)
        assert time.perf_counter() - start < 5 and len(lines) >= 5
        assert e.returncode is not None


# An engine that answers each command by its first word, for replies a real engine never
# gives: `rules` with standard, `position` with a summary, the words of ANSWERS (a dict
# given) with their text.
SCRIPTED = """import sys
answers = {{"rules": "standard", "position": "to_move 0"}} | {answers!r}
for line in sys.stdin:
    ident, word = line.split()[:2]
    print("=" + ident + " " + answers.get(word, ""), flush=True)
    print(flush=True)
    if word == "quit":          # (as the engine: answered, then it exits)
        break
"""
GOOD_SOLVE = {"value": 2, "exact": True, "lower": 2, "upper": 2,
              "best": ["Pair", "5", ["S5", "H5"]], "pv": [], "pv_cut": True,
              "nodes": 10, "tt_hits": 0, "seconds": 0.1}


@pytest.mark.parametrize("change, message", [
    ({}, None),
    ({"value": 99}, "value 99 is not a value"),
    ({"lower": "x"}, "lower 'x' is not a value"),
    ({"lower": None}, "lower None is not a value"),
    # (PROTOCOL.md, solve: `pv_cut` is there only when a limit cut the line; `reached`
    # only with at_least)
    ({"pv_cut": False}, "without pv_cut"),
    ({"reached": True}, "not the question asked"),
    ({"exact": False}, "do not agree"),
    ({"lower": 1}, "do not agree"),
    ({"best": ["Bomb", "9", ["D9", "D9", "C9", "C9"]]}, "not a legal move"),
    ({"pv": [[1, ["Pair", "5", ["S5", "H5"]]]]}, "seat 1 play where seat 0"),
    ({"pv": [[0, ["Pair", "5", ["S5", "H5"]]]], "pv_cut": False}, "without pv_cut"),
    ({"nodes": -5}, "nodes -5 is not a count"),
    ({"seconds": "NaN"}, "not JSON"),
    ({"threshold": 2, "reached": True}, "not the question asked"),
    ({"moves": [{"move": ["Single", "5", ["S5"]], "value": 7}]}, "a move's value 7"),
    ({"pv": "[" * 100_000}, "not JSON"),
    ({"pv": [[True, ["Pair", "5", ["S5", "H5"]]]], "pv_cut": True}, "seat True play"),
    ({"threshold": 2, "reached": True, "moves": [
        {"move": ["Pair", "5", ["S5", "H5"]], "value": None, "reaches": 1}]},
     "reaches 1 is not an answer"),
])
def test_a_solve_reply_is_checked(change, message):
    """A reply that is not a result of this position is a protocol error, not a
    SolveResult that lies: values in range and agreeing, moves legal where played."""
    reply = json.dumps(GOOD_SOLVE | change)
    if change.get("seconds") == "NaN":
        reply = reply.replace('"NaN"', "NaN")
    if isinstance(change.get("pv"), str):
        reply = reply.replace('"' + change["pv"] + '"', change["pv"])
    with _fake_engine(SCRIPTED.format(answers={"solve": reply}), timeout=20) as e:
        e.set_position(EXAMPLE)
        if message is None:
            result = e.solve()
            assert (result.value, result.best.to_platform()) == (2, GOOD_SOLVE["best"])
            return
        # (the question the reply answers: asked, but for the reply that claims one)
        asked = change.get("threshold") if "moves" in change else None
        with pytest.raises(EngineProtocolError, match=message):
            e.solve(at_least=asked, all_moves="moves" in change)
        assert e.returncode is not None


def _scores(reply: dict, **values) -> dict:
    """``reply`` with the scored moves of the given ranks (``Pair_5``) given other values,
    or taken out where the value is ``"drop"``."""
    moves = []
    for entry in reply["moves"]:
        name = "_".join(entry["move"][:2])
        if values.get(name) != "drop":
            moves.append(entry | ({"value": values[name]} if name in values else {}))
    return reply | {"moves": moves}


# the example solved in this process with every move scored (the whole line, value +2)
# and its threshold question (at least +3: not reached)
SOLVED = solve(EXAMPLE, all_moves=True, fresh_tables=True).to_json()
SOLVED_3 = solve(EXAMPLE, all_moves=True, at_least=3, fresh_tables=True).to_json()
# and stopped while its moves were scored: the moves left unknown carry their bounds
LIMITED = solve(EXAMPLE, all_moves=True, node_limit=300, fresh_tables=True).to_json()
UNKNOWN = next(i for i, m in enumerate(LIMITED["moves"]) if m["value"] is None)
# and stopped before the value was known (its bounds: +1..+3), with a move left unknown
STOPPED = solve(EXAMPLE, all_moves=True, node_limit=10, fresh_tables=True).to_json()
SINGLE_5 = next(i for i, m in enumerate(STOPPED["moves"]) if m["move"][:2] == ["Single", "5"])


def _entry(reply, i, **changes):
    """``reply`` with its i-th scored move changed (a None value: the key left out)."""
    entry = {k: v for k, v in (reply["moves"][i] | changes).items() if v is not None
             or k == "value"}
    return reply | {"moves": reply["moves"][:i] + [entry] + reply["moves"][i + 1:]}


@pytest.mark.parametrize("reply, asked, message", [
    (SOLVED, {"all_moves": True}, None),
    (SOLVED_3, {"all_moves": True, "at_least": 3}, None),
    (SOLVED | {"pv": SOLVED["pv"][:1], "pv_cut": True}, {"all_moves": True}, None),
    (SOLVED | {"pv": [[0, ["Single", "J", ["SJ"]]]], "pv_cut": True}, {"all_moves": True},
     "the line starts with Single J: SJ, not with the best move Pair 5"),
    (SOLVED | {"value": 1, "lower": 1, "upper": 1}, {"all_moves": True},
     r"the line ends at \+2 for the mover's team, outside 1..1"),
    (SOLVED_3 | {"reached": True}, {"all_moves": True, "at_least": 3},
     r"reached True where the bounds -3..2 answer False"),
    (SOLVED, {}, "every move scored, not asked for"),
    ({k: v for k, v in SOLVED.items() if k != "moves"}, {"all_moves": True},
     "no move scored, though every move was asked for"),
    # (a whole line left off its pv_cut; reached answered 0, not false; one move listed
    # twice in place of another: as many entries as legal moves, but not each once)
    (SOLVED | {"pv": SOLVED["pv"][:1]}, {"all_moves": True}, "without pv_cut"),
    (SOLVED_3 | {"reached": 0}, {"all_moves": True, "at_least": 3},
     r"reached 0 where the bounds -3..2 answer False"),
    (_scores(SOLVED, Single_J="drop") | {"moves": _scores(SOLVED, Single_J="drop")["moves"]
                                          + SOLVED["moves"][-1:]}, {"all_moves": True},
     "are 4 moves, not the position's 4 legal moves, each once"),
    (_scores(SOLVED, Single_J="drop"), {"all_moves": True},
     "are 3 moves, not the position's 4 legal moves"),
    (SOLVED | {"moves": SOLVED["moves"] + SOLVED["moves"][-1:]}, {"all_moves": True},
     "are 5 moves, not the position's 4 legal moves"),
    (_scores(SOLVED, Single_J=3), {"all_moves": True},
     r"Single J: SJ is scored \+3 or more, above the upper bound \+2"),
    (LIMITED, {"all_moves": True}, None),
    (_entry(LIMITED, UNKNOWN, lower=None), {"all_moves": True}, "'lower'"),
    (_entry(LIMITED, UNKNOWN, lower=-1, upper=-1), {"all_moves": True},
     "a move's bounds -1 and -1 leave no value unknown"),
    (_entry(LIMITED, UNKNOWN, lower=3, upper=-3), {"all_moves": True},
     "a move's bounds 3 and -3 leave no value unknown"),
    (_entry(LIMITED, UNKNOWN, lower=0), {"all_moves": True}, "a move's lower bound 0 is not"),
    (_entry(SOLVED, 0, lower=-3, upper=3), {"all_moves": True},
     "a move's bounds are given only when its value is not"),
    (_entry(SOLVED_3, 0, lower=-3, upper=3), {"all_moves": True, "at_least": 3},
     "a move's bounds are given only when its value is not"),
    (_scores(SOLVED, Pair_5=-1), {"all_moves": True}, "the best move is scored -1, not"),
    (SOLVED_3 | {"moves": [m | {"reaches": True} for m in SOLVED_3["moves"]]},
     {"all_moves": True, "at_least": 3}, "reaches True where the position's answer is False"),
    (_entry(SOLVED, 0, upper=3), {"all_moves": True},
     "a move's bounds are given only when its value is not"),
    (_entry(LIMITED, UNKNOWN, upper=0), {"all_moves": True}, "a move's upper bound 0 is not"),
    (_entry(STOPPED | {"lower": -1, "upper": 1}, SINGLE_5, lower=2, upper=3),
     {"all_moves": True}, r"Single 5: S5 is scored \+2 or more, above the upper bound \+1"),
])
def test_a_solve_reply_must_agree_with_itself(reply, asked, message):
    """What a reply says of itself is checked too (whether it is right only a second
    solve could say): the line starts with the best move and ends at the value, the
    question is answered as the bounds answer it, the scored moves are the legal moves,
    none above the value, the best one at it."""
    with _fake_engine(SCRIPTED.format(answers={"solve": json.dumps(reply)}), timeout=20) as e:
        e.set_position(EXAMPLE)
        if message is None:
            result = e.solve(**asked)
            assert result.to_json() | {"seconds": 0} == reply | {"seconds": 0}
            return
        with pytest.raises(EngineProtocolError, match=message):
            e.solve(**asked)
        assert e.returncode is not None


def test_an_engine_that_does_not_read_cannot_block_the_caller():
    """Writing is a thread's work: a command too long for the pipe to an engine that
    reads nothing still ends at the timeout, and stop() and close() return at once."""
    with _fake_engine("import time; time.sleep(30)", timeout=1) as e:
        start = time.perf_counter()
        with pytest.raises(TimeoutError):
            e.command("known_command " + "x" * 300_000)
        e.stop()
        e.close()
        assert time.perf_counter() - start < 10
    # ... and while such a command is still waiting in another thread (above, the timeout
    # had ended the engine first, and stop() and close() had nothing left to write to)
    with _fake_engine("import time; time.sleep(30)", timeout=20) as e:
        errors = []

        def waiting():
            try:
                e.command("known_command " + "x" * 300_000)
            except Exception as exc:        # (what the waiting command gets: recorded)
                errors.append(exc)
        worker = threading.Thread(target=waiting)
        worker.start()
        time.sleep(0.5)
        assert worker.is_alive()
        start = time.perf_counter()
        e.stop()
        assert time.perf_counter() - start < 1
        e.close(timeout=1)
        assert time.perf_counter() - start < 4
        worker.join(5)
        assert not worker.is_alive() and len(errors) == 1


def test_close_does_not_wait_for_what_holds_the_engines_pipes():
    """A child of the engine that keeps its pipes open (a shell's background job) does
    not keep close() waiting."""
    engine = " ".join(DEFAULT_COMMAND)
    with _engine(["sh", "-c", f"sleep 20 & exec {engine}"], timeout=30) as e:
        assert e.name() == "guandan-core"
        start = time.perf_counter()
        assert e.close() == 0
        assert time.perf_counter() - start < 8
    with _engine(["sh", "-c", "sleep 20 & sleep 20"], timeout=0.5) as e:
        with pytest.raises(TimeoutError):
            e.name()
        start = time.perf_counter()
        e.close()
        assert time.perf_counter() - start < 8


def test_close_while_another_thread_waits_for_a_solve():
    # (300 s for the first info line: a starved engine took more than 60 to write it)
    with _engine(timeout=300) as e:
        e.set_position(_hard_position())
        results, solving = [], threading.Event()
        worker = threading.Thread(target=lambda: results.append(
            e.solve(on_info=lambda fields: solving.set())))
        worker.start()
        # (the solve has begun: a sleep for it could let close() come first)
        assert solving.wait(300)
        start = time.perf_counter()
        assert e.close() == 0
        worker.join(30)
        assert time.perf_counter() - start < 10
        assert len(results) == 1 and not results[0].exact
        with pytest.raises(EngineTerminatedError, match="was closed"):
            e.name()


def test_a_failure_is_raised_again_without_growing():
    """Every call after a failure raises the same error, its traceback started afresh
    each time (not one traceback growing with every call)."""
    import traceback
    with _fake_engine("import sys; sys.exit(3)", timeout=20) as e:
        for _ in range(200):
            with pytest.raises(EngineTerminatedError) as info:
                e.name()
        assert len(traceback.extract_tb(info.value.__traceback__)) < 10


def test_arguments_as_the_package_takes_them(engine):
    """Levels, known cards and timeouts mean what they mean in-process."""
    import numpy as np
    engine.set_rules("standard")
    hand = "S3 S4 S5 S6 S7 H7 SB SB D9 C9"
    assert engine.analyze(hand, level=5) == json.loads(json.dumps(analysis.analyze(hand, 5)))
    assert engine.analyze(hand, level=np.int64(12))["level"] == "A"
    engine.set_position(EXAMPLE)
    for known in ({}, {1: []}, {1: "S3", 3: ""}, {1: "S3", 3: "SK D6"}):
        got = engine.sample(deals=3, seed=2, known=known)
        assert got == solve_sampled(EXAMPLE, 3, seed=2, known=known, threads=1)
    assert engine.sample(deals=3, seed=2, time_limit=np.float32(1e9)) == \
        solve_sampled(EXAMPLE, 3, seed=2, time_limit=1e9, threads=1)
    assert engine.command("name", timeout=1e10) == "guandan-core"
    assert engine.solve(time_limit=np.float32(1e9), node_limit=np.int64(50)).nodes <= 50
    # no limit, as solver.solve takes it (the engine's time= is finite: it was refused)
    for none in (float("inf"), np.float64("inf"), 10**400):
        engine.clear_table()
        assert engine.solve(time_limit=none) == solve(EXAMPLE, fresh_tables=True)
        assert engine.sample(deals=3, seed=2, time_limit=none) == \
            solve_sampled(EXAMPLE, 3, seed=2, threads=1)


def test_more_bad_input_is_refused_before_it_is_sent(engine):
    engine.set_rules("standard")
    engine.set_position(EXAMPLE)
    for call, message in [
            (lambda: engine.command("name \ud800"), "UTF-8"),
            (lambda: engine.command("name", timeout=10**400), "timeout must be"),
            (lambda: engine.command("name", timeout=0), "timeout must be"),
            (lambda: engine.sample(deals=0), "deals must be a whole number from 1"),
            (lambda: engine.sample(deals=2, first=2**63 - 1), "first must be"),
            (lambda: engine.play(["Single", float("nan"), []]), "JSON values"),
            (lambda: engine.play("paß"), "'paß'"),
            (lambda: engine.analyze("S3", level="7'"), "7'"),
            (lambda: engine.analyze("S3", level='"7"'), '"7"'),
            (lambda: engine.analyze([]), "1 to 27 cards, not 0"),
            (lambda: engine.analyze(Hand.from_counts([2] * 14 + [0] * 40)),
             "1 to 27 cards, not 28"),
            (lambda: engine.close(timeout=-1), "timeout must be"),
            (lambda: engine.solve(time_limit=float("-inf")), "time_limit must be a number of "
             r"seconds, 0 or more \(inf: no limit\), or None, not -inf"),
            (lambda: engine.sample(time_limit=float("nan")), "time_limit .* not nan")]:
        # (the client's own error: an EngineRefusedError is a ValueError too, and the
        # engine's refusal of deals=0 matched the message when the client let it through)
        with pytest.raises(ValueError, match=message) as info:
            call()
        assert not isinstance(info.value, (EngineRefusedError, EngineProtocolError))
    with pytest.raises(TypeError, match="not 5"):
        engine.set_rules(5)
    # (the engine refuses it too: here it must be the client's own error)
    with pytest.raises(CardError, match="more than the two copies of S5") as info:
        engine.analyze("S5 S5 H6", played="S5")
    assert not isinstance(info.value, EngineRefusedError)
    assert engine.name() == "guandan-core"
    assert engine.position == Position.from_json(EXAMPLE)


def test_close_at_once():
    with _engine() as e:
        assert e.name() == "guandan-core"
        start = time.perf_counter()
        assert e.close(timeout=0) != 0              # killed, not asked to quit
        assert time.perf_counter() - start < 5


# a fake engine's start: it answers its first command (`name`) with "fake", then goes on
_ANSWERS_ITS_NAME = ("import sys, time\n"
                     "line = sys.stdin.readline()\n"
                     "print('=' + line.split()[0] + ' fake', flush=True)\n"
                     "print(flush=True)\n")


def test_close_at_once_kills_an_engine_that_would_exit_by_itself():
    """API (Engine process): close(timeout=0) kills at once, and so does not wait for an
    engine that would have exited by itself (here with status 0) a moment later."""
    with _fake_engine(_ANSWERS_ITS_NAME + "time.sleep(1.5)\n", timeout=20) as e:
        assert e.name() == "fake"
        assert e.close(timeout=0) != 0              # killed, not left to exit
        assert e.returncode != 0


def test_close_without_a_timeout_waits_for_a_slow_exit():
    """API (Engine process): close(timeout=None) never kills: it waits for an engine that
    takes its time over quitting (here 1.5 s, then status 7). It was refused as not a
    number of seconds."""
    code = _ANSWERS_ITS_NAME + "sys.stdin.readline()\ntime.sleep(1.5)\nsys.exit(7)\n"
    with _fake_engine(code, timeout=20) as e:
        assert e.name() == "fake"
        start = time.perf_counter()
        assert e.close(timeout=None) == 7           # its own status: not killed
        assert time.perf_counter() - start >= 1.4
        assert e.returncode == 7


def test_the_rules_are_asked_of_the_engine_only_the_first_time():
    """API (Engine process): `rules` is asked of the engine the first time, then kept (a
    rule set changed by a bare `command` leaves the client's copy as it was)."""
    code = ("import sys\n"
            "names = iter(['standard', 'platform'])\n"
            "for line in sys.stdin:\n"
            "    ident, word = line.split()[:2]\n"
            "    print('=' + ident + ' ' + (next(names) if word == 'rules' else ''),\n"
            "          flush=True)\n"
            "    print(flush=True)\n"
            "    if word == 'quit':\n"
            "        break\n")
    with _fake_engine(code, timeout=20) as e:
        assert e.rules == Rules.by_name("standard")
        assert e.rules == Rules.by_name("standard")       # (not asked again: 'platform')


@pytest.mark.parametrize("known", [{7: []}, {0: []}, {-1: ""}, {"x": []}, {1.5: []},
                                   {1: "S9"}])
def test_known_cards_are_checked_before_the_sample(engine, known):
    """What solve_sampled refuses is refused before anything is sent, also for a seat
    given no cards (which is not sent at all), and the session goes on."""
    engine.set_rules("standard")
    engine.set_position(EXAMPLE)
    with pytest.raises((ValueError, TypeError)) as here:
        engine.sample(deals=2, known=known)
    with pytest.raises(type(here.value)):
        solve_sampled(EXAMPLE, 2, known=known, threads=1)
    assert not isinstance(here.value, EngineProtocolError)
    assert engine.name() == "guandan-core"


def test_close_with_a_short_timeout_while_another_thread_waits():
    """The waiting thread is told the engine was closed, not that its close() timed
    out, and so is every call after."""
    code = "import time; time.sleep(30)"
    with _fake_engine(code) as e:
        errors = []
        worker = threading.Thread(target=lambda: errors.append(
            pytest.raises(EngineTerminatedError, e.name).value))
        worker.start()
        time.sleep(0.3)
        e.close(timeout=0.5)
        worker.join(10)
        assert len(errors) == 1 and "was closed" in str(errors[0])
        with pytest.raises(EngineTerminatedError, match="was closed"):
            e.name()


def test_info_interval_asks_the_engine_for_working_lines(engine):
    """``solve(info_interval=S)`` sends ``every=S``: ``working`` lines come to on_info
    while the value is searched (a whole deal under a node limit), before its value line."""
    import random
    from guandan_core.match import deal
    engine.set_rules("standard")
    engine.set_position(Position(7, deal(random.Random(13)), to_move=0))
    infos = []
    engine.solve(node_limit=300_000, on_info=infos.append, info_interval=1e-6)
    stages = [next(iter(fields)) for fields in infos]
    assert "working" in stages and stages.index("value") > max(
        n for n, stage in enumerate(stages) if stage == "working")
    assert {fields["working"] for fields in infos if "working" in fields} == {"value"}


def test_info_lines_arrive_read_and_agree_with_the_result(engine):
    """A solve's info lines reach on_info as dicts (parse_info), in the protocol's
    order, and say what the result says: the value, the best move and line, every
    scored move."""
    engine.set_rules("standard")
    for pos in _positions(21, 8, max_cards=4):
        engine.set_position(pos)
        infos = []
        result = engine.solve(all_moves=True, on_info=infos.append)
        stages = [next(iter(fields)) for fields in infos]
        assert stages[-1] == "scored" and "value" in stages and "best" in stages
        assert stages.index("value") < stages.index("best") < stages.index("scored")
        assert set(stages[:stages.index("value")]) <= {"bound"}
        value = infos[stages.index("value")]
        assert (value["value"], value["lower"], value["upper"]) == \
            (result.value, result.lower, result.upper)
        best = infos[stages.index("best")]
        assert best["best"] == result.best.to_platform()
        assert best["pv"] == [[seat, m.to_platform()] for seat, m in result.pv]
        moves = [fields for fields in infos if "move" in fields]
        assert [(f["move"], f["value"]) for f in moves] == \
            [(m.move.to_platform(), m.value) for m in result.moves]
        assert infos[-1]["scored"] == len(result.moves)


@pytest.mark.parametrize("line", ["info bound", "info bound null lower", "info x 1 x 2",
                                  "info lower NaN", "info lower [1,",
                                  "info lower -3  -1"])
def test_an_info_line_that_does_not_read_is_a_protocol_error(line):
    code = SCRIPTED.replace('    print("=" + ident', f'    print({line!r}) if word == "solve" '
                            'else None\n    print("=" + ident')
    with _fake_engine(code.format(answers={"solve": json.dumps(GOOD_SOLVE)}), timeout=20) as e:
        e.set_position(EXAMPLE)
        assert e.solve().value == 2                 # without on_info: not read
        with pytest.raises(EngineProtocolError, match="an info line that does not read"):
            e.solve(on_info=lambda fields: None)


def _gone(pid: int, within: float) -> bool:
    """Whether process ``pid`` has ended (and been reaped) within ``within`` seconds."""
    import os

    def ended():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return soon(ended, within)


def _engine_threads() -> set:
    return {t for t in threading.enumerate() if t.name.startswith("guandan engine")}


def test_an_engine_dropped_without_close_is_killed_and_its_threads_end():
    """The client's threads hold no reference to the EngineProcess: dropping it kills the
    process (a ResourceWarning says so, as Popen's does), and its threads end."""
    import gc
    import weakref
    before = _engine_threads()
    e = _engine(timeout=60)
    e.set_position(EXAMPLE)
    assert e.solve().value == 2
    pid, ref = e._link.proc.pid, weakref.ref(e)
    with pytest.warns(ResourceWarning, match=f"engine process {pid} was still running"):
        del e
        gc.collect()
    assert ref() is None
    assert _gone(pid, 10)
    assert soon(lambda: _engine_threads() <= before)


def test_a_closed_engine_warns_of_nothing_when_dropped():
    """close() detaches the finalizer once the process is reaped (and only then: a close
    cut short still kills at exit)."""
    import gc
    import warnings
    e = _engine(timeout=60)
    finalizer = e._finalizer
    assert e.close() == 0 and not finalizer.alive
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del e
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
    e = _engine(timeout=60)
    assert e.name() == "guandan-core"
    pid = e._link.proc.pid

    def interrupted(*args):
        raise KeyboardInterrupt
    e._link.send = interrupted      # (Ctrl-C while close() sends quit)
    with pytest.raises(KeyboardInterrupt):
        e.close()
    assert e._finalizer.alive and e.returncode is None
    with pytest.warns(ResourceWarning, match="was still running"):
        del e, interrupted
        gc.collect()
    assert _gone(pid, 10)


def test_a_failed_engine_dropped_is_collected_too():
    """The failure every later call raises is kept as a copy never raised: a raised one's
    traceback held the frames of the methods that raised it, and so the engine."""
    import gc
    import weakref
    e = _fake_engine("import time; time.sleep(30)", timeout=0.3)
    with pytest.raises(TimeoutError):
        e.name()
    with pytest.raises(TimeoutError) as again:
        e.name()
    ref = weakref.ref(e)
    del e, again
    gc.collect()
    assert ref() is None


def test_a_warning_made_an_error_still_leaves_the_process_killed(monkeypatch):
    """The process is killed before the ResourceWarning is given: a warnings filter that
    makes it an error (raised inside the collector, so only reported) kills it anyway."""
    import gc
    import warnings
    gc.collect()        # (what earlier tests left to the collector: not reported here)
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    e = _engine(timeout=60)
    pid = e._link.proc.pid
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        del e
        gc.collect()
    assert _gone(pid, 10)
    assert [(type(r.exc_value), f"engine process {pid} was still running" in
             str(r.exc_value)) for r in reported] == [(ResourceWarning, True)]


class _Owner:
    """What embeds an engine and closes it when it is itself collected."""

    def __init__(self, engine):
        self.engine = engine

    def __del__(self):
        self.engine.close()


@pytest.mark.parametrize("freed", ["dropped", "closed by its owner's __del__"])
def test_an_engine_collected_on_its_own_reply_thread_does_not_deadlock(freed):
    """An engine in a reference cycle is freed by the cyclic collector on whatever thread
    allocates: here its reply thread, which holds the link's lock while it routes info
    lines. Neither the finalizer nor a close() there takes that lock or waits for a reply
    (the process is killed; its end of output ends the threads): either hung that thread
    for good and left the process running."""
    import gc
    import warnings
    streaming = ("import sys, time\nsys.stdin.readline()\nwhile True:\n"
                 "    print('info n 1', flush=True)\n    time.sleep(0.0005)\n")
    thresholds = gc.get_threshold()
    gc.disable()
    try:
        e = _fake_engine(streaming)
        if freed == "dropped":
            e.itself = e                    # (a cycle: only the cyclic collector frees it)
        else:
            e.owner = _Owner(e)
        link = e._link
        link.send("go", b"go")              # (a command waiting, its info lines coming)
        time.sleep(0.3)
        gc.collect(0)       # (the engine to the middle generation: a full collection, the
                            # only one that frees the oldest, is rare in a long test run)
        gc.set_threshold(3, 1, 1000)        # (collections often, on every thread)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            del e
            gc.enable()
            soon(lambda: link.proc.poll() is not None)
    finally:
        gc.set_threshold(*thresholds)
        gc.enable()
    assert link.proc.poll() is not None
    assert soon(lambda: link.failure is not None)
    assert "was closed" in str(link.failure) and not link.state_lock.locked()
    for thread in link.threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in link.threads)


def test_the_errors_copy_and_pickle_whole():
    """An engine's errors go through copy and pickle (a process pool's results) whole."""
    import copy
    import pickle
    errors = [EngineRefusedError("play x", "not a move"),
              EngineTerminatedError("it ended", 3, "the end of stderr"),
              EngineProtocolError("a line outside any reply"), TimeoutError("no reply")]
    for error in errors:
        for added in ({}, {"env_index": 1}):    # (what VectorEnv adds to a row's error)
            vars(error).update(added)
            if added and hasattr(error, "add_note"):
                error.add_note("in environment 1")
            for back in (copy.copy(error), pickle.loads(pickle.dumps(error))):
                assert type(back) is type(error) and str(back) == str(error)
                assert back.__dict__ == error.__dict__
    # its message changed, as VectorEnv names a row's error: kept, not made again
    refused = EngineRefusedError("play x", "not a move")
    refused.args = ("environment 0: " + refused.args[0],)
    for back in (copy.copy(refused), pickle.loads(pickle.dumps(refused))):
        assert str(back) == str(refused) and back.command == "play x"


def test_an_engine_process_does_not_pickle_or_copy(engine):
    """It is a link to a process this one runs: a TypeError that says so (pickle named
    a lock, copy.copy made a second owner of the same link)."""
    import copy
    import pickle
    for how in (pickle.dumps, lambda e: pickle.dumps(e, 0), copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="an EngineProcess is a link to a process this "
                                            "one runs: it cannot be pickled or copied"):
            how(engine)
    assert engine.name() == "guandan-core"      # (still the same working link)


def test_a_thread_that_cannot_start_leaves_no_process(monkeypatch):
    real_start = threading.Thread.start

    def start(thread):
        if thread.name == "guandan engine replies":
            raise RuntimeError("can't start new thread")
        real_start(thread)
    monkeypatch.setattr(threading.Thread, "start", start)
    started = _record_engines(monkeypatch)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        _engine(timeout=10)
    assert len(started) == 1 and started[0].returncode is not None
    # (the pipes of the threads that never started too: left open, they were reported
    # as unclosed files whenever the collector freed them, in another test)
    assert started[0].stdout.closed and started[0].stdin.closed


def test_an_engine_left_running_at_exit_is_killed():
    """A script that ends with its engine still open leaves no engine process behind
    (it is killed at exit, not left to notice that its input ended)."""
    from cli_process import run_python
    done = run_python("from guandan_core.engine import EngineProcess\n"
                      "import sys\n"
                      # (an engine that ignores the end of its input, as a busy one does)
                      "e = EngineProcess([sys.executable, '-c', 'import time, signal; "
                      "signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                      "time.sleep(60)'])\n"
                      "print(e._link.proc.pid)\n", timeout=60)
    assert done.returncode == 0, done.stderr
    assert _gone(int(done.stdout.split()[-1]), 10)


def test_a_script_that_leaves_its_engine_open_still_exits():
    """The client's threads do not hold up the interpreter's exit: a script that ends
    with its engine open and idle (its threads waiting for it, it for a command) exits at
    once, the engine killed at exit."""
    from cli_process import run_python
    done = run_python("from guandan_core.engine import EngineProcess\n"
                      "e = EngineProcess()\n"
                      "print(e.name(), e._link.proc.pid)\n", timeout=30)
    assert done.returncode == 0 and done.stdout.split()[0] == "guandan-core", done.stderr
    assert _gone(int(done.stdout.split()[-1]), 10)


def test_every_in_process_result_passes_the_reply_checks():
    """The checks on a solve reply (solver.read_result's) refuse nothing the solver
    gives: random positions, with and without every move scored, a threshold, and node
    limits that stop the search before the value, during the line or during the
    scoring."""
    from solver import read_result
    rng = random.Random(38)
    checked = 0
    for pos in _positions(38, 300, max_cards=6):
        all_moves = rng.random() < 0.5
        at_least = rng.choice([None, None, -2, 1, 2, 3])
        node_limit = rng.choice([None, None, 40, 400])
        want = solve(pos, all_moves=all_moves, at_least=at_least, node_limit=node_limit,
                     fresh_tables=True)
        assert read_result(json.dumps(want.to_json()), pos) == want
        checked += want.pv_cut or not want.exact
    assert checked >= 20        # (limits did stop some searches)


def test_a_time_limit_is_sent_as_given(engine):
    """time_limit 0 is a search stopped at once, as solver.solve's and solve_sampled's
    (API: equal, seconds aside, to the same position and limits in this process)."""
    engine.set_rules("standard")
    engine.set_position(EXAMPLE)
    engine.clear_table()
    assert engine.solve(time_limit=0) == solve(EXAMPLE, time_limit=0, fresh_tables=True)
    assert not engine.solve(time_limit=0.0).exact
    assert engine.sample(deals=3, seed=2, time_limit=0) == \
        solve_sampled(EXAMPLE, 3, seed=2, time_limit=0, threads=1)
    # -0.0, which solve takes as 0, is sent as 0.0 (the engine refused "time=-0.0")
    import numpy as np
    for zero in (-0.0, np.float64(-0.0)):
        engine.clear_table()
        assert engine.solve(time_limit=zero) == solve(EXAMPLE, time_limit=0, fresh_tables=True)
        assert engine.sample(deals=3, seed=2, time_limit=zero) == \
            solve_sampled(EXAMPLE, 3, seed=2, time_limit=0, threads=1)


def test_a_node_limit_up_to_the_solvers_largest_is_sent(engine):
    """node_limit 0 to 2**63 - 1, as solver.solve takes it (API.md, solve): the largest is
    a budget like any other, one more is refused before anything is sent."""
    engine.set_rules("standard")
    engine.set_position(EXAMPLE)
    got = engine.solve(node_limit=2**63 - 1)
    assert got.exact and got.value == solve(EXAMPLE).value
    with pytest.raises(ValueError, match="node_limit must be a whole number from 0"):
        engine.solve(node_limit=2**63)


def test_a_pass_in_any_case_and_a_tuple_triple_are_played(engine):
    """play() takes a platform triple as a tuple too, and "PASS" in any mix of case
    (docs/PROTOCOL.md, play: `play PASS` in any mix of case), each the move it names."""
    engine.set_rules("standard")
    before = engine.set_position(EXAMPLE)
    after = before.play(Move.from_platform(["Single", "5", ["S5"]], before.level))
    assert engine.play(("Single", "5", ("S5",))) == after
    passed = after.play(Move.from_platform(["PASS", "PASS", "PASS"], after.level))
    for word in ("pass", "Pass"):
        assert engine.play(word) == passed and engine.position.to_move == 2
        assert engine.undo() == after


def test_a_position_keeps_its_rules_when_the_rules_change():
    """The rules command sets the rules of positions set from now on (docs/PROTOCOL.md,
    State): a position set under the platform's rules is read back, played and taken
    back under them after set_rules("standard")."""
    with _engine(timeout=60, rules="platform") as e:
        pos = e.set_position({"level": "2", "hands": [["S3", "S4", "S5", "S6", "H2"],
                                                       ["C9"], [], []],
                              "finished": [2, 3], "to_move": 0, "table": None})
        move = e.legal_moves()[0]
        played = e.play(move)
        assert played == pos.play(move) and played.rules == Rules.platform()
        e.set_rules("standard")
        assert e.show_position() == played and e.position.rules == Rules.platform()
        assert e.undo() == pos and e.position.rules == Rules.platform()


def test_a_call_that_needs_a_position_before_one_is_set():
    """API.md: bad arguments are refused before anything is sent; a call that needs a
    position, before set_position, is the client's ValueError, not the engine's."""
    with _engine(timeout=60) as e:
        for call in (e.legal_moves, lambda: e.play("PASS"), e.undo, e.solve, e.sample):
            with pytest.raises(ValueError, match="no position: set_position first") as info:
                call()
            assert not isinstance(info.value, EngineRefusedError)
        assert e.name() == "guandan-core"


_EXAMPLE_MOVES = [["Single", "5", ["S5"]], ["Single", "5", ["H5"]], ["Single", "J", ["SJ"]],
                  ["Pair", "5", ["S5", "H5"]]]


@pytest.mark.parametrize("reply, message", [
    (_EXAMPLE_MOVES, None),
    (_EXAMPLE_MOVES[::-1], None),                       # (the engine's order is kept)
    ([["Single", "5", ["5S"]]] + _EXAMPLE_MOVES[1:], None),     # (another notation)
    (_EXAMPLE_MOVES + [["Single", "A", ["HA"]]], "a move that is not legal there: "
                                                 "\\['Single', 'A', \\['HA'\\]\\]"),
    (_EXAMPLE_MOVES[:3], "3 moves, not the position's 4 legal moves, each once"),
    (_EXAMPLE_MOVES[:3] + _EXAMPLE_MOVES[:1], "4 moves, not the position's 4 legal moves"),
    (_EXAMPLE_MOVES[:3] + [["PASS", "PASS", "PASS"]], "not legal there"),    # (on lead)
    ([["Single", "5", ["XX"]]] + _EXAMPLE_MOVES[1:], "a move that does not read")])
def test_the_legal_moves_reply_is_checked(reply, message):
    """API (EngineProcess.legal_moves): the reply is the position's legal moves, each once,
    in the engine's order; a move that is not legal there, one missing or listed twice,
    is a protocol error (any reading move was taken as it came)."""
    with _fake_engine(SCRIPTED.format(answers={"moves": json.dumps(reply)}),
                      timeout=20) as e:
        e.set_position(EXAMPLE)
        if message is None:
            got = e.legal_moves()
            assert [m.to_platform() for m in got] == \
                [Move.from_platform(t, "2").to_platform() for t in reply]
        else:
            with pytest.raises(EngineProtocolError, match=message):
                e.legal_moves()
            assert e.returncode is not None


@pytest.mark.parametrize("word, reply, kind", [("analyze", "[1, 2]", "object"),
                                               ("moves", '{"a": 1}', "list")])
def test_a_reply_of_the_wrong_json_type_is_a_protocol_error(word, reply, kind):
    """analyze answers a JSON object and moves a JSON list (docs/PROTOCOL.md, Commands):
    another JSON value is a protocol error that names what was expected."""
    with _fake_engine(SCRIPTED.format(answers={word: reply}), timeout=20) as e:
        e.set_position(EXAMPLE)
        with pytest.raises(EngineProtocolError, match=f"that is not a JSON {kind}"):
            e.analyze("S3") if word == "analyze" else e.legal_moves()
        assert e.returncode is not None


def test_replies_with_crlf_line_ends_and_long_lines_are_read():
    """An engine whose output has CRLF line ends (a text-mode stdout on Windows) is read
    as the same replies, a blank line before a reply skipped (PROTOCOL.md, Framing: a
    client reads lines, and the first that starts with = or ? opens the reply); and a
    reply line of hundreds of thousands of characters (a large position's solve with
    every move scored) is a reply like any other."""
    code = ("import sys\nfor line in sys.stdin:\n    ident, word = line.split()[:2]\n"
            "    text = 'guandan-core' if word == 'name' else 'x' * 300000\n"
            "    reply = '\\r\\n=' + ident + ' ' + text + '\\r\\n\\r\\n'\n"
            "    sys.stdout.buffer.write(reply.encode())\n"
            "    sys.stdout.flush()\n")
    with _fake_engine(code, timeout=10) as e:
        assert e.name() == "guandan-core"
        assert e.version() == "x" * 300_000


def test_the_last_line_of_the_engines_stderr_is_quoted_when_it_dies():
    """API.md, Errors: an engine that exits is an EngineTerminatedError with ``stderr``,
    the end of what it wrote there: the message quotes its last line."""
    code = ("import sys; sys.stdin.readline(); "
            "sys.stderr.write('Traceback:\\n  somewhere\\nRuntimeError: the last line\\n'); "
            "sys.exit(3)")
    with _fake_engine(code, timeout=20) as e:
        with pytest.raises(EngineTerminatedError,
                           match=r"ended \(exit status 3\): 'RuntimeError: the last line'$") \
                as info:
            e.name()
        assert info.value.stderr == "Traceback:\n  somewhere\nRuntimeError: the last line"


def test_the_environment_command_and_info_lines_are_checked_before_use():
    """API, Engine process ("bad arguments are refused before anything is sent (a
    ValueError or TypeError naming the value)"): ``env`` that is no mapping of names to
    text was an AttributeError ('int' object has no attribute 'items') or subprocess's
    "expected str, bytes or os.PathLike object" naming neither; a dict as the command
    was read as its keys; parse_info of anything but text an AttributeError."""
    from guandan_core.engine import parse_info
    for kwargs, named in ((dict(env=5), "env is a mapping of variable names to values"),
                          (dict(env="x"), "(as os.environ), not 'x'"),
                          (dict(env={"A": 5}), "not 'A' to 5"),
                          (dict(env={5: "a"}), "not 5 to 'a'"),
                          (dict(command={"a": 1}), "its arguments, not {'a': 1}"),
                          (dict(command={"guandan"}), "its arguments, not {'guandan'}")):
        with pytest.raises(TypeError, match=re.escape(named)):
            EngineProcess(**kwargs)
    for text in (None, 5, b"bound null lower -3"):
        with pytest.raises(TypeError, match=re.escape(f"an info line is text, not {text!r}")):
            parse_info(text)
