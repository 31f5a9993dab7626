"""guandan solve on the command line (JSON output and errors)."""

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading

import pytest

from cli_process import (ADDRESS_LIMIT, PACKAGES, ROOT, UNDER_SANITIZER, assert_one_line_error,
                         cli_env, interrupted_cli, run_cli, run_python)
from guandan_core.cli import main
from guandan_core.cli_solve import EXAMPLE_POSITION


def test_solve_example_json(capsys):
    """The example's value, checked by a search with every pruning, merging, ordering and
    compression switched off (2.7 M nodes, about a second), not copied from the output."""
    from solver import Searcher, solve
    from guandan_core.cli_solve import EXAMPLE_POSITION
    bare = Searcher(20, use_dominance=False, use_merge=False, use_history=False,
                    use_ordering=False, use_compress=False, use_plain=False)
    expected = solve(EXAMPLE_POSITION, searcher=bare, pv=False)
    assert main(["solve", "--example", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] is True and out["value"] == expected.value == 1
    assert out["best"] == out["pv"][0][1]
    assert out["pv"][0][0] == 0 and out["nodes"] > 0


def test_solve_file_all_moves(tmp_path, capsys):
    pos = {"level": "7", "hands": [["S3", "S4"], ["HR"], [], ["D9", "D9"]], "finished": [2],
           "to_move": 3, "table": {"owner": 1, "play": ["Single", "A", ["SA"]]}}
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(pos))
    assert main(["solve", str(path), "--json", "--all-moves"]) == 0
    out = json.loads(capsys.readouterr().out)
    values = {tuple(m["move"][2]) if m["move"][0] != "PASS" else "PASS": m["value"]
              for m in out["moves"]}
    assert "PASS" in values and out["value"] == max(values.values())
    # in text: the play to beat, named with its owner; seat 3's team is 1+3
    assert main(["solve", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:5] == ["position: level 7, seat 3 to beat seat 1's Single A: SA",
                         "  seat 0: S3 S4", "  seat 1: HR", "  seat 2: (out)", "  seat 3: D9 D9"]
    assert lines[5] == f"value: {out['value']:+d} for team 1+3 (seat 3 to move)"


def test_all_moves_without_a_limit_show_each_value_alone(capsys):
    """With every value known, each scored move shows its value as a signed number, as the
    JSON gives it (README: the bounds, "+1..+3", only for a move whose value a limit left
    unknown), and no note about bounds."""
    assert main(["solve", "--example", "--all-moves", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["exact"] is True and answer["moves"]
    assert all(m["value"] is not None and "lower" not in m for m in answer["moves"])
    assert main(["solve", "--example", "--all-moves"]) == 0
    lines = capsys.readouterr().out.splitlines()
    scores = lines[lines.index("move scores:") + 1:][:len(answer["moves"])]
    shown = sorted(re.match(r"  .+?  ([+-][123])(   \(the same with .+\))?$", line)[1]
                   for line in scores)
    assert shown == sorted(f"{m['value']:+d}" for m in answer["moves"])
    assert not any("lower..upper" in line for line in lines)


def test_solve_at_least(capsys):
    """Threshold mode: "can the team to move reach at least V?" answered yes or no, with
    a move that reaches it, in text and as JSON (the example's value is +1)."""
    from solver import solve
    from guandan_core.cli_solve import EXAMPLE_POSITION
    for text, reached in (("+1", True), ("1", True), ("-2", True), ("2", False), ("+3", False)):
        assert main(["solve", "--example", "--at-least", text, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["threshold"] == int(text) and out["reached"] is reached
        assert (out["best"] is None) is not reached
        expected = solve(EXAMPLE_POSITION, at_least=int(text)).to_json()
        assert out["best"] == expected["best"] and out["lower"] == expected["lower"]
    proc = run_cli(["solve", "--example", "--at-least", "2"])
    assert proc.returncode == 0
    assert _after_position(proc.stdout).startswith(
        "at least +2 for team 0+2 (seat 0 to move)? no\nvalue: between -3 and +1")
    proc = run_cli(["solve", "--example", "--at-least", "+1"])
    lines = _after_position(proc.stdout).splitlines()
    assert lines[0] == "at least +1 for team 0+2 (seat 0 to move)? yes"
    # the threshold is proven reached: the move reaches it, it is not a guess
    # (named as what it is: a move reaching +1, which the value's best move need not be)
    assert f"a move reaching +1: {solve(EXAMPLE_POSITION, at_least=1).best}" in lines
    assert "best move" not in proc.stdout
    # with --all-moves: which moves reach it, those that do first
    expected = solve(EXAMPLE_POSITION, at_least=1, all_moves=True)
    proc = run_cli(["solve", "--example", "--at-least", "1", "--all-moves"])
    lines = proc.stdout.splitlines()
    table = lines[lines.index("moves reaching +1:") + 1:-1]
    assert len(table) == len(expected.moves)
    answers = [line.split("(the same with")[0].split()[-1] for line in table]
    assert answers == sorted(answers, key=lambda a: a != "yes")
    assert answers.count("yes") == sum(m.reaches for m in expected.moves) >= 1
    assert "no" in answers


def _after_position(text: str) -> str:
    """The output after its position block (a line, then one line per seat), checked."""
    lines = text.split("\n")
    assert lines[0].startswith("position: level "), text
    assert [line.split(":")[0] for line in lines[1:5]] == [f"  seat {s}" for s in range(4)]
    return "\n".join(lines[5:])


def test_solve_readable_output():
    """The position first (the line of play reads against its level and hands), then the
    value, the line, and with --all-moves every move with the moves that differ from it
    only in suits (it printed "(+1 equivalent)", naming none); last the search's counts. A
    limit: the move found is a guess, or reaches the lower bound the search proved."""
    from solver import solve
    from guandan_core.cli_solve import EXAMPLE_POSITION
    proc = run_cli(["solve", "--example"])
    assert proc.returncode == 0
    assert proc.stdout.startswith("position: level Q, seat 0 on lead\n"
                                  "  seat 0: C5 D6 H7 C7 C8 D9\n")
    assert _after_position(proc.stdout).startswith("value: +1 for team 0+2")
    assert "principal line:" in proc.stdout
    # last, the search's counts: those of the same search from empty tables (the
    # process's first search)
    fresh = solve(EXAMPLE_POSITION, fresh_tables=True)
    counts = re.fullmatch(r"nodes: (\d+), table hits: (\d+), time: \d+\.\d{3} s",
                          proc.stdout.splitlines()[-1])
    assert counts and counts.groups() == (str(fresh.nodes), str(fresh.tt_hits))
    best = max(solve(EXAMPLE_POSITION, all_moves=True).moves, key=lambda m: m.value)
    assert best.equivalent
    proc = run_cli(["solve", "--example", "--all-moves"])
    lines = proc.stdout.splitlines()
    top = lines[lines.index("move scores:") + 1]
    assert top.split()[:len(str(best.move).split())] == str(best.move).split()
    same = ", ".join(" ".join(m.cards) for m in best.equivalent)
    assert top.endswith(f"+1   (the same with {same})"), top
    # a limit: the move found is not presented as the best
    proc = run_cli(["solve", "--example", "--node-limit", "5"])
    assert "best move found: " in proc.stdout and "(nothing proven about it)" in proc.stdout
    assert "best move: " not in proc.stdout
    # a limit that leaves a lower bound above -3: the move found reaches at least that
    cut = solve(EXAMPLE_POSITION, node_limit=100, fresh_tables=True)
    assert not cut.exact and cut.lower > -3
    proc = run_cli(["solve", "--example", "--node-limit", "100"])
    assert (f"best move found: {cut.best} (it reaches at least {cut.lower:+d})"
            in proc.stdout.splitlines())
    assert "best move: " not in proc.stdout


def test_what_a_limit_cut_short_is_marked(tmp_path, capsys):
    """A principal line that a limit stopped before the end of the hand is marked as cut,
    in the text and in the JSON (it read as a whole line before), and moves a limit left
    unscored ("?", or the bounds proven of them, "-3..+2") say why; a limit that ran out
    before the line began says it found none."""
    from solver import solve
    obj = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][1]
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(obj))
    events = []
    nodes = solve(obj, fresh_tables=True, on_info=events.append).nodes
    value_nodes = max(e["nodes"] for e in events if e["stage"] == "bound")
    cut = "(a limit stopped the line here, before the end of the hand)"
    unscored = "(?: a limit stopped the search before that move was answered)"
    bounded = ("(lower..upper: what was proven of that move's value before a limit stopped "
               "the search)")
    assert main(["solve", str(path), "--fresh-tables", "--all-moves"]) == 0
    out = capsys.readouterr().out
    assert "principal line:" in out and cut not in out and unscored not in out
    for args in (["--node-limit", str(nodes - 100)], ["--node-limit", str(nodes - 100), "--json"]):
        assert main(["solve", str(path), "--fresh-tables", *args]) == 0
        out = capsys.readouterr().out
        if "--json" in args:
            answer = json.loads(out)
            assert answer["exact"] and answer["pv"] and answer["pv_cut"] is True
        else:
            lines = out.splitlines()
            assert lines[lines.index("principal line:") + 1].startswith("  seat ")
            assert lines[lines.index(f"  {cut}") - 1].startswith("  seat ")
    for question in ([], ["--at-least", "2"]):
        at_least = {"at_least": 2} if question else {}
        # a budget that runs out halfway through the moves
        limit = (solve(obj, fresh_tables=True, **at_least).nodes
                 + solve(obj, all_moves=True, fresh_tables=True, **at_least).nodes) // 2
        assert main(["solve", str(path), "--fresh-tables", "--all-moves", *question,
                     "--node-limit", str(limit)]) == 0
        lines = capsys.readouterr().out.splitlines()
        # with the value known, every move left is known to be worth at most the value
        # (here +2): shown as bounds, not "?"
        left = "  -3..+2" if not question else "  ?"
        note = bounded if not question else unscored
        scores = lines[lines.index("move scores:" if not question else "moves reaching +2:")
                       + 1:lines.index(f"  {note}")]
        assert any(line.endswith(left) for line in scores), scores
        assert not any(line.endswith(left) for line in lines if line not in scores)
        assert f"  {unscored if not question else bounded}" not in lines
        assert f"  {cut}" not in lines     # the line was whole before the limit ran out
    # a budget that runs out just as the value is proven: no line at all
    assert main(["solve", str(path), "--fresh-tables", "--node-limit", str(value_nodes)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[lines.index("principal line: not found (a limit stopped the search first)")
                 - 2].startswith("value: ")


@pytest.mark.parametrize("args, stdin, message", [
    (["solve", "missing.json"], None, "missing.json"),
    (["solve", "-"], "{bad json", "not valid JSON"),
    (["solve", "-"], json.dumps({"level": "2", "hands": [["S3"], ["XX"], [], []],
                                 "finished": [], "to_move": 0, "table": None}), "XX"),
    (["solve"], None, "--example"),
    pytest.param(["solve", "-"], json.dumps({"level": "2", "hands": [[], ["S4"], [], ["S6"]],
                                             "finished": [0, 2], "to_move": None,
                                             "table": None}),
                 "'-': the hand is already over: nothing to solve", id="hand-over"),
    pytest.param(["solve", "-"], json.dumps({"level": "2", "hands": [[], ["S4"], [], ["S6"]],
                                             "finished": [0, 2], "to_move": 1,
                                             "table": None}),
                 "'-': the hand is already over: seats 0 and 2 are both out",
                 id="hand-over-with-a-seat-to-move"),
    pytest.param(["solve", "-"], "[" * 100_000, "nested too deeply", id="deep-json"),
    # valid JSON that is not a position: named by its type, not read as JSON text again
    # (in JSON's words: it said "not str", "not int", "not NoneType")
    pytest.param(["solve", "-"], '"S3"', "a position is a JSON object, not a string",
                 id="json-string"),
    pytest.param(["solve", "-"], "true", "a position is a JSON object, not true",
                 id="json-true"),
    pytest.param(["solve", "-"], "[3]", "'-#0': a position is a JSON object, not a number",
                 id="json-number-in-list"),
    pytest.param(["solve", "-"], "null", "a position is a JSON object, not null",
                 id="json-null"),
    # a misspelt key next to "items" (its positions were solved, the key dropped)
    pytest.param(["solve", "-"], json.dumps({"items": [EXAMPLE_POSITION], "abuot": "typo"}),
                 "'-': unknown key(s) 'abuot' next to \"items\"", id="unknown-key"),
    # (each named with its option: a value alone also matched another option's message)
    (["solve", "--example", "--at-least", "0"], None,
     "argument --at-least: a hand's value is one of +3 +2 +1 -1 -2 -3, not '0'"),
    (["solve", "--example", "--at-least", "++2"], None, "argument --at-least: a hand's "
                                                         "value is one of +3 +2 +1 -1 -2 -3, "
                                                         "not '++2'"),
    (["solve", "--example", "--time-limit", "-1"], None, "argument --time-limit: seconds 0 "
     "or more, at most 18 digits before the point (1e30 is read; inf: no limit), not '-1'"),
    (["solve", "--example", "--time-limit", "nan"], None, "argument --time-limit: seconds 0 "
     "or more, at most 18 digits before the point (1e30 is read; inf: no limit), not 'nan'"),
    (["solve", "--example", "--node-limit", "-5"], None,
     "argument --node-limit: a whole number of nodes from 0 to 2**63 - 1, not '-5'"),
    (["solve", "--example", "--node-limit", "99999999999999999999"], None,
     "argument --node-limit: a whole number of nodes from 0 to 2**63 - 1, not "
     "'99999999999999999999'"),
])
def test_solve_bad_input_one_line_no_traceback(args, stdin, message):
    assert_one_line_error(run_cli(args, stdin), message)


_SMALL = {"level": "2", "hands": [["S5"], ["S3", "S4"], [], ["HR"]], "finished": [2],
          "to_move": 0, "table": None}


def test_position_files_are_utf8_text_named_when_not(tmp_path):
    """A file that is not UTF-8 is named in the one-line error; a byte-order mark (some
    editors write one) is read; a key given twice is refused rather than one value kept."""
    latin = tmp_path / "latin.json"
    latin.write_bytes(json.dumps(_SMALL).replace('"S5"', '"S5\u00e9"').encode("latin-1"))
    assert_one_line_error(run_cli(["solve", str(latin)]),
                          f"{str(latin)!r} is not UTF-8 text (byte 0xe9 at offset")
    utf16 = tmp_path / "utf16.json"
    utf16.write_bytes(json.dumps(_SMALL).encode("utf-16"))
    assert_one_line_error(run_cli(["solve", str(utf16)]), "utf16.json' is not UTF-8 text")
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(_SMALL).encode())
    proc = run_cli(["solve", str(bom), "--json"])
    assert proc.returncode == 0 and json.loads(proc.stdout)["value"] == 3
    twice = json.dumps(_SMALL).replace('"level": "2"', '"level": "X", "level": "2"')
    assert_one_line_error(run_cli(["solve", "-"], twice), "key 'level' given twice")


@pytest.mark.parametrize("command", [["solve", "--example", "--json"], ["moves", "S3"],
                                     ["engine"]])
def test_closed_output_is_one_line_and_status_2(command):
    proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", *command],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=PACKAGES,
                          env=cli_env(), timeout=120, input=b"",
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        f"guandan {command[0]}: error: standard output is closed"]


def test_closed_input():
    """`guandan solve - <&-`: an error naming '-'; `guandan engine <&-`: no commands, exit 0;
    `guandan bot --stdio <&-`: an error (it was a traceback)."""
    for command, code, err in ((["solve", "-"], 2, "guandan solve: error: '-': there is no "
                                "standard input (it is closed)\n"), (["engine"], 0, ""),
                               (["bot", "--stdio", "--player", "greedy"], 2,
                                "guandan bot: error: --stdio: there is no standard input (it "
                                "is closed)\n")):
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", *command],
                              stdin=subprocess.DEVNULL, capture_output=True, cwd=PACKAGES,
                              env=cli_env(), timeout=120, preexec_fn=lambda: os.close(0))
        assert (proc.returncode, proc.stdout, proc.stderr.decode()) == (code, b"", err)


_SHORT_OUTPUTS = (["solve", "--example"], ["solve", "--example", "--json"], ["classify", "S3"],
                  ["moves", "--example"], ["--help"], ["solve", "--help"], ["--version"],
                  ["analyze", "S3 S3 H5", "--level", "7"], ["play", "--seed", "1", "--summary"],
                  ["sample", "--example", "--deals", "2"])


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", _SHORT_OUTPUTS, ids=" ".join)
def test_output_cut_short_by_the_reader_is_not_an_error(args, unbuffered):
    """`guandan solve --example | head -1`: no error when the reader has gone away. The
    child writes into a pipe whose read end is already closed, so its writes always fail;
    with stdout buffered (as a user's is), a short output fails only at the last flush,
    which Python's exit reported as "Exception ignored ... BrokenPipeError", status 120;
    written at once (PYTHONUNBUFFERED) too, where --help and --version gave status 2."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = cli_env(**({"PYTHONUNBUFFERED": "1"} if unbuffered else {}))
    try:
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", *args],
                              stdout=write_end, stderr=subprocess.PIPE, cwd=PACKAGES,
                              env=env, timeout=120)
    finally:
        os.close(write_end)
    assert proc.returncode == 0
    assert proc.stderr.decode() == ""


# (longer than a write buffer: the write fails while the command still runs)
_LONG_OUTPUTS = (["moves", "S3 S4 S5 S6 S7 S8 S9 ST SJ SQ SK SA H3 H4 H5 H6 H7 H2 H2",
                  "--level", "2"], ["play", "--seed", "1", "--hands", "3"])


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", _SHORT_OUTPUTS + _LONG_OUTPUTS, ids=" ".join)
def test_output_to_a_full_disk_is_one_line_of_error(args, unbuffered):
    """Standard output on a full disk (/dev/full): one line on stderr and status 2, not a
    success, a traceback or Python's "Exception ignored" at exit; written at once
    (PYTHONUNBUFFERED) too, where argparse swallowed the failed write of --help and
    --version (status 0, nothing said)."""
    env = cli_env(**({"PYTHONUNBUFFERED": "1"} if unbuffered else {}))
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", *args], stdout=full,
                              stderr=subprocess.PIPE, cwd=PACKAGES, env=env, timeout=120)
    lines = proc.stderr.decode().strip().splitlines()
    assert proc.returncode == 2
    # named as the command's other errors are: the sub-command run, if any; and saying
    # what failed, as when the output is flushed at the end (a write in the middle said
    # only "[Errno 28] No space left on device")
    name = "guandan" if {"--help", "--version"} & set(args) else f"guandan {args[0]}"
    assert lines == [f"{name}: error: writing standard output: [Errno 28] No space left on "
                     "device"], lines


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["moves", "--help"]],
                         ids=" ".join)
def test_help_and_version_to_a_closed_output_is_an_error(args):
    """--help and --version with stdout closed: one line and status 2, as every command
    says it (argparse wrote the text to stderr instead, with status 0)."""
    proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=PACKAGES,
                          env=cli_env(), timeout=120, preexec_fn=lambda: os.close(1))
    assert (proc.returncode, proc.stderr.decode()) == (
        2, "guandan: error: standard output is closed\n")


_BAD_INPUTS = (["moves", "XX"], ["moves"], ["solve", "no-such-file.json"],
               ["replay", "no-such-file.jsonl"], ["play", "--players", "x"])


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("stderr", ["closed", "full"])
@pytest.mark.parametrize("args", _BAD_INPUTS, ids=" ".join)
def test_bad_input_is_status_2_when_its_message_cannot_be_written(args, stderr, unbuffered):
    """README: bad input is exit status 2, even with stderr closed or on a full disk (the
    message's own failed write made it 1, or 120 at the interpreter's exit; for replay,
    1 is a log's verdict "invalid")."""
    env = cli_env(**({"PYTHONUNBUFFERED": "1"} if unbuffered else {}))
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "guandan_core.cli", *args], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, cwd=PACKAGES, env=env, timeout=120,
            stderr=full if stderr == "full" else subprocess.DEVNULL,
            preexec_fn=(lambda: os.close(2)) if stderr == "closed" else None)
    assert (proc.returncode, proc.stdout) == (2, b"")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_replay_verdict_lost_to_a_full_disk_is_an_error(tmp_path, unbuffered):
    """README, replay: "invalid: ..." on stdout is status 1; when that line cannot be
    written the verdict is lost, so it is an error (one line, status 2), not a silent 1."""
    log = tmp_path / "log.jsonl"
    proc = run_cli(["play", "--hands", "1", "--seed", "3", "--json"])
    lines = proc.stdout.splitlines()
    third = json.loads(lines[2])
    assert proc.returncode == 0 and third["event"] == "play", lines[:3]
    lines[2] = json.dumps(dict(third, seat=9))
    log.write_text("\n".join(lines) + "\n")
    assert run_cli(["replay", str(log)]).stdout.startswith("invalid: event 3 (line 3): seat 9")
    env = cli_env(**({"PYTHONUNBUFFERED": "1"} if unbuffered else {}))
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "replay", str(log)],
                              stdout=full, stderr=subprocess.PIPE, cwd=PACKAGES, env=env,
                              timeout=120)
    lines = proc.stderr.decode().splitlines()
    assert proc.returncode == 2
    assert len(lines) == 1 and lines[0].startswith("guandan replay: error: ") and \
        "No space left on device" in lines[0], lines


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("error, said", [
    (OSError(28, "No space left on device"), "[Errno 28] No space left on device"),
    (OSError("not writable"), "not writable")])
def test_a_failed_write_says_what_the_stream_said(monkeypatch, capsys, error, said):
    """A stream that fails a write with or without an errno (in-process: a file opened
    for reading, `io.UnsupportedOperation("not writable")`): its own words after
    "writing standard output:", status 2, and sys.stdout as it was afterwards (the first
    wrapper said "[Errno None] None")."""
    class Failing:
        def write(self, text):
            raise error

        def flush(self):
            pass

    failing = Failing()
    monkeypatch.setattr(sys, "stdout", failing)
    assert main(["moves", "S3"]) == 2
    assert sys.stdout is failing
    assert capsys.readouterr().err == f"guandan moves: error: writing standard output: {said}\n"


def test_the_engine_on_a_full_disk_is_one_line_of_error():
    """PROTOCOL.md: `guandan engine` writes nothing to stderr while serving, except when its
    output cannot be written (a full disk): one line and status 2, the same as the other
    commands."""
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "engine"],
                              input=b"1 name\n2 version\n", stdout=full,
                              stderr=subprocess.PIPE, cwd=PACKAGES, env=cli_env(), timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "guandan engine: error: writing standard output: [Errno 28] No space left on device"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_stops_the_search_and_prints_what_it_proved(tmp_path):
    """Ctrl-C during a long solve: the search stops at once (it runs without the GIL, on a
    thread of its own), the bounds proven and the best move found are printed, one line
    goes to stderr and the exit status is 130. (One press: a second one can land while
    the process is already exiting, when Python has put SIGINT back to its default, and
    end it by the signal, a race of the test's own making.)"""
    from guandan_core.match import deal
    from guandan_core.position import Position
    path = tmp_path / "deal.json"
    path.write_text(Position(7, deal(random.Random(3)), to_move=0).to_json_str())
    proc, out, err, seconds = interrupted_cli(["solve", str(path)])
    assert seconds < 10
    assert proc.returncode == 130 and err == "guandan solve: interrupted\n"
    assert "(Ctrl-C stopped the search)" in out and "best move found: " in out


def test_ctrl_c_that_cuts_an_exact_results_line_is_named(monkeypatch, capsys):
    """Ctrl-C pressed once the value is known, while the line is being played out: the
    line is cut short, and Ctrl-C is named as what stopped it (it said "a limit", with
    none given). The interrupted solve is stood in for by an exact result whose line a
    node limit cut, which is what such a Ctrl-C leaves."""
    import guandan_core.cli_solve as cli_solve
    from solver import solve
    cut = solve(EXAMPLE_POSITION, node_limit=1275, fresh_tables=True)
    assert cut.exact and cut.pv_cut

    def interrupted_solve(positions, args, show, progress=None):
        show(0, cut, True)          # (the result came after Ctrl-C)
        return True

    monkeypatch.setattr(cli_solve, "_solve_interruptibly", interrupted_solve)
    assert main(["solve", "--example"]) == 130
    out, err = capsys.readouterr()
    assert "  (Ctrl-C stopped the line here, before the end of the hand)" in out
    assert "a limit" not in out and err == "guandan solve: interrupted\n"


def test_solve_several_positions_in_input_order(tmp_path, capsys):
    """Several files, a file holding a JSON array and one holding {"items": [...]} (the
    benchmark sets): one JSON line per position in input order, each as solved alone."""
    from solver import read_result, solve
    items = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][:5]
    (tmp_path / "one.json").write_text(json.dumps(items[0]))
    (tmp_path / "array.json").write_text(json.dumps(items[1:3]))
    (tmp_path / "set.json").write_text(json.dumps({"about": "x", "items": items[3:5]}))
    args = [str(tmp_path / n) for n in ("one.json", "array.json", "set.json")]
    assert main(["solve", *args, "--json", "--threads", "2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    labels = [args[0], f"{args[1]}#0", f"{args[1]}#1", f"{args[2]}#0", f"{args[2]}#1"]
    assert [line["position"] for line in lines] == labels
    for line, obj in zip(lines, items):
        alone = solve(obj).to_json()
        assert (line["value"], line["best"], line["pv"]) == (alone["value"], alone["best"],
                                                              alone["pv"])
        # each line reads back, its label included (API: read_result)
        again = read_result(line, obj)
        assert again.to_json() == {k: v for k, v in line.items() if k != "position"}
    assert main(["solve", args[1]]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"== {args[1]}#0\nposition: ") and f"\n== {args[1]}#1\nposition: " in out
    # README: a set of one position is labelled like any set (it was printed bare, so a
    # script's reading of the output depended on the set's size); one position is bare
    (tmp_path / "one_item.json").write_text(json.dumps({"items": items[:1]}))
    (tmp_path / "one_array.json").write_text(json.dumps(items[:1]))
    for name in ("one_item.json", "one_array.json"):
        path = str(tmp_path / name)
        assert main(["solve", path, "--json"]) == 0
        [line] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert line["position"] == f"{path}#0"
        assert main(["solve", path]) == 0
        assert capsys.readouterr().out.startswith(f"== {path}#0\nposition: ")
    assert main(["solve", args[0], "--json"]) == 0
    assert "position" not in json.loads(capsys.readouterr().out)
    assert out.count("\nvalue: ") == 2


def test_progress_writes_the_searchs_events_to_stderr(tmp_path, capsys):
    """--progress: one stderr line per event of the search that says something (each bound
    proven, the move answered with, each move scored), headed by its position and the time
    and nodes so far, in the result's words; the output on stdout is the same as without
    it."""
    from solver import solve
    from guandan_core.cli_solve import EXAMPLE_POSITION
    head = r"example \(\d+\.\d\d s, [\d,]+ nodes?\): "
    for at_least in (None, 1, -3):
        question = [] if at_least is None else ["--at-least", str(at_least)]
        events = []
        result = solve(EXAMPLE_POSITION, all_moves=True, at_least=at_least,
                       on_info=events.append)
        assert main(["solve", "--example", "--all-moves", "--json", *question]) == 0
        plain = capsys.readouterr()
        assert main(["solve", "--example", "--all-moves", "--json", "--progress",
                     *question]) == 0
        shown = capsys.readouterr()
        assert plain.err == "" and json.loads(shown.out)["moves"] == \
            json.loads(plain.out)["moves"]
        expected = []
        for event in events:
            if event["stage"] == "bound":
                lo, hi = event["lower"], event["upper"]
                if (lo, hi) != (-3, 3):         # (says nothing: not shown)
                    expected.append(f"value {lo:+d}" if lo == hi else
                                    f"value between {lo:+d} and {hi:+d}")
            elif event["stage"] == "best":
                expected.append(f"best move: {event['move']}" if result.exact else
                                f"a move reaching {at_least:+d}: {event['move']}")
            else:
                answer = (f"value {event['value']:+d}" if at_least is None else
                          f"{'reaches' if event['reaches'] else 'does not reach'} "
                          f"{at_least:+d}")
                expected.append(f"move {event['index']} of {event['count']}, "
                                f"{event['move']}, {answer}")
        lines = shown.err.splitlines()
        assert len(lines) == len(expected) > 0
        for line, what in zip(lines, expected):
            assert re.fullmatch(head + re.escape(what), line), line
        if at_least is None:        # (2.76 M nodes: thousands marked)
            assert re.search(r", (\d{1,3},)+\d{3} nodes\): ", lines[-1])
    # under a limit the move answered with is named as the result names it: with nothing
    # proven, and with a lower bound proven (a node limit past the first probe's nodes)
    items = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][:8]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(items[7]))
    events = []
    exact = solve(items[7], fresh_tables=True, on_info=events.append)
    # (its value is -2, proven before its upper bound: a limit can stop between the two)
    [raised] = [e for e in events if e["stage"] == "bound" and -3 < e["lower"] < e["upper"]]
    assert exact.value == raised["lower"] == -2
    for limit, named in ((1, "(nothing proven about it)"),
                         (raised["nodes"] + 1, "(it reaches at least -2)")):
        assert main(["solve", str(path), "--progress", "--fresh-tables",
                     "--node-limit", str(limit)]) == 0
        shown = capsys.readouterr()
        [best] = [line for line in shown.out.splitlines() if line.startswith("best move")]
        assert named in best and "found" in best
        assert shown.err.splitlines()[-1].endswith(f" node{'s' * (limit != 1)}): {best}")
    # several positions: each line names its position, as the results do
    path = tmp_path / "set.json"
    path.write_text(json.dumps(items[:3]))
    assert main(["solve", str(path), "--threads", "2", "--progress", "--json"]) == 0
    lines = capsys.readouterr().err.splitlines()
    for i, obj in enumerate(items[:3]):
        mine = [line.split("): ", 1)[1] for line in lines
                if line.startswith(f"{path}#{i} (")]
        assert mine[-2:] == [f"value {solve(obj).value:+d}", f"best move: {solve(obj).best}"]
    assert all(re.match(re.escape(f"{path}#") + r"[012] \(", line) for line in lines)


def test_progress_every_says_what_a_long_search_is_still_doing(tmp_path, capsys):
    """--progress-every S (which implies --progress): between the event lines, a line every
    S seconds of search saying what it is still doing: the value and the bounds so far,
    the threshold's question, the best move's choice, the move being scored; stdout is the
    same as without it. (A full deal under a node limit: the value is still searched.)"""
    from guandan_core.cli_solve import EXAMPLE_POSITION
    from guandan_core.match import deal
    from guandan_core.position import Position
    from solver import solve
    head = r"(example|[^ ]+\.json) \(\d+\.\d\d s, [\d,]+ nodes?\): "
    assert main(["solve", "--example", "--all-moves", "--json"]) == 0
    plain = capsys.readouterr().out
    assert main(["solve", "--example", "--all-moves", "--json", "--progress-every",
                 "1e-6"]) == 0
    shown = capsys.readouterr()
    assert json.loads(shown.out)["moves"] == json.loads(plain)["moves"]
    scoring = [re.fullmatch(head + r"still scoring move (\d+) of (\d+), (.+)", line)
               for line in shown.err.splitlines()]
    scoring = [m for m in scoring if m]
    assert len(scoring) > 5
    moves = solve(EXAMPLE_POSITION, all_moves=True).moves
    for m in scoring:
        index, count, move = int(m[2]), int(m[3]), m[4]
        assert count == len(moves) and move == str(moves[index - 1].move)
    # the best move's choice (4 x 6 item 5: over 65,536 nodes after the value)
    obj = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][5]
    path = tmp_path / "item5.json"
    path.write_text(json.dumps(obj))
    value = solve(obj).value
    assert main(["solve", str(path), "--fresh-tables", "--progress-every", "1e-6"]) == 0
    lines = [line.split("): ", 1)[1] for line in capsys.readouterr().err.splitlines()]
    choosing = lines.index(f"value {value:+d}; still choosing the best move")
    assert lines.index(f"value {value:+d}") < choosing < len(lines) - 1
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(Position(7, deal(random.Random(12)), to_move=0).to_json()))
    for question, doing in (([], "still searching for the value"),
                            (["--at-least", "2"], "still searching whether it reaches +2")):
        assert main(["solve", str(path), "--node-limit", "400000", "--fresh-tables",
                     "--progress-every", "1e-6", *question]) == 0
        lines = capsys.readouterr().err.splitlines()
        working = [line for line in lines if "still" in line]
        assert len(working) >= 3
        assert all(re.fullmatch(head + re.escape(doing) +
                                r"( \(between [+-]\d and [+-]\d so far\))?", line)
                   for line in working), working


@pytest.mark.parametrize("value", ["0", "-1", "x", "inf", "nan"])
def test_a_bad_progress_interval_is_refused(value, capsys):
    assert main(["solve", "--example", "--progress-every", value]) == 2
    assert f"argument --progress-every: seconds above 0, at most 18 digits before the " \
        f"point, not '{value}'" in capsys.readouterr().err


def test_several_positions_with_names_the_output_cannot_encode(tmp_path):
    """A file name that is not UTF-8 (or holds a line break) is written escaped in the
    "== NAME" line: it failed the whole run after solving, with a strict UTF-8 output."""
    position = json.dumps({"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]],
                           "finished": [2], "to_move": 0, "table": None})
    names = [b"good.json", b"p\xff.json", b"two\nlines.json"]
    for name in names:
        with open(os.path.join(os.fsencode(tmp_path), name), "w") as f:
            f.write(position)
    proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "solve",
                           *[os.path.join(os.fsencode(tmp_path), n) for n in names]],
                          capture_output=True, cwd=PACKAGES,
                          env=cli_env(PYTHONIOENCODING="utf-8"), timeout=120)
    assert proc.returncode == 0 and proc.stderr == b""
    headers = [line for line in proc.stdout.decode().splitlines() if line.startswith("== ")]
    assert [h.rsplit("/", 1)[1] for h in headers] == ["good.json", "p\\udcff.json",
                                                       "two lines.json"]
    assert proc.stdout.decode().count("\nvalue: +") == 3
    # a name the output's encoding has no character for (a printable one)
    with open(os.path.join(os.fsencode(tmp_path), "é.json".encode()), "w") as f:
        f.write(position)
    proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "solve",
                           str(tmp_path / "good.json"), str(tmp_path / "é.json")],
                          capture_output=True, text=True, cwd=PACKAGES,
                          env=cli_env(PYTHONIOENCODING="ascii"), timeout=120)
    assert proc.returncode == 0 and proc.stderr == "" and "\\xe9.json\n" in proc.stdout


def test_valid_input_is_no_encoding_error_under_an_ascii_output(tmp_path):
    """What an ASCII output cannot write is written as escapes: an unknown card typed
    '7♥' is classified, and a log holding one replays to its rule error (exit 1), instead
    of exit 2 with "'ascii' codec can't encode"."""
    def run(*args):
        return subprocess.run([sys.executable, "-m", "guandan_core.cli", *args],
                              capture_output=True, text=True, cwd=PACKAGES,
                              env=cli_env(PYTHONIOENCODING="ascii"), timeout=120)
    proc = run("classify", "7♥ 8♥")
    assert (proc.returncode, proc.stdout, proc.stderr) == \
        (0, "7\\u2665 8\\u2665: not a combination at level 2\n", "")
    log = subprocess.run([sys.executable, "-m", "guandan_core.cli", "play", "--seed", "1",
                          "--json"], capture_output=True, text=True, cwd=PACKAGES,
                         env=cli_env(), timeout=120).stdout.splitlines()
    deal = json.loads(log[1])
    deal["hands"][1][0] = "C3♥"
    (tmp_path / "log.jsonl").write_text("\n".join([log[0], json.dumps(deal), *log[2:]]))
    proc = run("replay", str(tmp_path / "log.jsonl"))
    assert (proc.returncode, proc.stderr) == (1, "")
    assert proc.stdout == "invalid: event 2 (line 2): seat 1: unknown card 'C3\\u2665'\n"


def test_fresh_tables_make_node_counts_independent_of_threads(tmp_path, capsys):
    """--fresh-tables: each position from empty tables, so the node counts and what a
    node limit leaves are those of solve(p, fresh_tables=True), with 1 or 2 threads."""
    from solver import solve
    items = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][:6]
    (tmp_path / "set.json").write_text(json.dumps(items))
    expected = [solve(obj, node_limit=30_000, fresh_tables=True).to_json() for obj in items]
    for threads in ("1", "2"):
        assert main(["solve", str(tmp_path / "set.json"), "--json", "--node-limit", "30000",
                     "--threads", threads, "--fresh-tables"]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [line["position"] for line in lines] == \
            [f"{tmp_path / 'set.json'}#{i}" for i in range(len(items))]
        for line, alone in zip(lines, expected):
            for key in ("value", "lower", "upper", "best", "pv", "nodes", "tt_hits"):
                assert line[key] == alone[key], (key, line, alone)
    assert any(not alone["exact"] for alone in expected)     # the limit did bite


def test_solve_several_positions_names_the_bad_one(tmp_path):
    items = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][:2]
    items[1] = dict(items[1], level="1")
    (tmp_path / "set.json").write_text(json.dumps(items))
    proc = run_cli(["solve", str(tmp_path / "set.json")])
    assert_one_line_error(proc, "set.json#1")
    assert "'1'" in proc.stderr
    (tmp_path / "typo.json").write_text(json.dumps({"items": items[:1], "abuot": "x"}))
    assert_one_line_error(run_cli(["solve", str(tmp_path / "typo.json")]),
                          "unknown key(s) 'abuot' next to \"items\"")
    (tmp_path / "empty.json").write_text(json.dumps({"items": []}))
    proc = run_cli(["solve", str(tmp_path / "empty.json")])
    assert_one_line_error(proc, "no positions")
    assert "empty.json" in proc.stderr
    # options read as documented, ASCII digits only (int() and float() read "1_0", "٣",
    # " +2" and "infinity")
    for option, value in (("--threads", "0"), ("--threads", "1_0"), ("--threads", "\u0663"),
                          ("--threads", " +2"), ("--time-limit", "infinity"),
                          ("--time-limit", "1_0"), ("--time-limit", "-1")):
        assert_one_line_error(run_cli(["solve", "--example", option, value]),
                              f"argument {option}: ")
    # standard input can be read once
    assert_one_line_error(run_cli(["solve", "-", "-"], stdin="{}"), "given twice")
    # an input without end is refused after 256 MiB, not read until memory runs out
    if os.path.exists("/dev/zero"):
        assert_one_line_error(run_cli(["solve", "/dev/zero"]), "more than 256 MiB")
    if os.path.exists("/proc/self/status"):
        # ... and a small file does not set aside those 256 MiB (read(256 MiB) did); the
        # sanitizers' allocator pads and keeps memory, so no bound holds under them
        def within(kib, mib):
            return UNDER_SANITIZER or kib < mib * 1024
        proc, grown = _kib_grown("from guandan_core.jsontext import read_text",
                                 f"read_text({str(ROOT / 'README.md')!r})", "VmPeak")
        assert proc.returncode == 0 and within(grown, 64), proc
        # ... nor a long array whose first item is no position a label for every item
        # (a million items: 160 MB before the first was looked at, now about 15 MB)
        (tmp_path / "many.json").write_text("[" + "0," * 10**6 + "0]")
        for command in ("solve", "sample"):
            proc, grown = _kib_grown("from guandan_core.cli import main", f"print(main(["
                                     f"{command!r}, {str(tmp_path / 'many.json')!r}]))",
                                     "VmHWM")
            assert int(proc.stdout.split()[0]) == 2 and within(grown, 60), proc
            assert ("#0': a position is a JSON object, not a number" if command == "solve" else
                    "holds 1000001 positions: guandan sample takes one") in proc.stderr
    # a long bad value is shortened on the one line
    (tmp_path / "long.json").write_text(json.dumps(dict(EXAMPLE_POSITION, level="Q" * 10**6)))
    proc = run_cli(["solve", str(tmp_path / "long.json")])
    assert_one_line_error(proc, "1,000,002 characters")
    assert len(proc.stderr) < 500


def _kib_grown(setup: str, statement: str, field: str):
    """``statement`` run after ``setup`` in a fresh Python with the packages: (the finished
    process, how many KiB its ``field`` of /proc/self/status, VmPeak or VmHWM, grew over
    the statement). What the statement prints comes first in the output."""
    script = (f"{setup}\n"
              "def peak(): return int([l for l in open('/proc/self/status')"
              f" if l.startswith({field!r})][0].split()[1])\n"
              f"before = peak()\n{statement}\nprint(peak() - before)\n")
    proc = run_python(script, timeout=60)
    return proc, int(proc.stdout.split()[-1])


def test_unknown_rules_are_named_before_any_position_is_read(tmp_path):
    """--rules is checked first: with stdin still open it was read (a terminal waited for
    input) and a bad file's error was shown instead of the bad rules name."""
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert_one_line_error(run_cli(["solve", str(empty), "--rules", "nope"]), "'nope'")
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "solve", "-",
                             "--rules", "nope"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=PACKAGES, env=cli_env())
    try:
        proc.wait(timeout=60)       # stdin left open and empty: nothing to read yet
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    assert proc.returncode == 2 and out == b"" and b"unknown rules 'nope'" in err


def test_read_text_names_the_file_it_cannot_read(tmp_path):
    """A file name with a NUL (open() said "embedded null byte", naming no file) and a
    name that is no path (an int was opened as that file descriptor, then closed)."""
    from guandan_core.jsontext import read_text
    with pytest.raises(ValueError, match=r"cannot read 'a\\x00b': a file name holds no NUL"):
        read_text("a\x00b")
    for bad in (3, b"x.json", None):
        with pytest.raises(TypeError, match=re.escape(f"a file is named by a path, not {bad!r}")):
            read_text(bad)
    path = tmp_path / "p.json"
    path.write_text('{"a": 1}')
    assert read_text(path) == read_text(str(path)) == '{"a": 1}'


@pytest.mark.skipif(not sys.platform.startswith("linux") or UNDER_SANITIZER,
                    reason="an address-space limit (Linux; not under the sanitizers)")
def test_out_of_memory_says_what_could_not_be_had():
    """A solve without the memory for its tables: one line naming the table and its size,
    from the command line (status 2) and from the engine (a "?" reply), where both said
    only "out of memory" or "internal error: MemoryError"."""
    code = ADDRESS_LIMIT + """if True:
        import json, threading
        from guandan_core.cli import build_parser, main
        from guandan_core.cli_solve import EXAMPLE_POSITION
        from guandan_core.protocol import EngineProtocol
        build_parser()              # (its modules imported before the limit)
        engine = EngineProtocol()
        assert engine.handle("position " + json.dumps(EXAMPLE_POSITION)).startswith("= ")
        # room for Python's own work and the solving thread's stack, not for the 8 MiB of
        # tables (mapped with 2 MiB to spare, for their alignment)
        threading.stack_size(2**18)
        limit(8 * 2**20)
        print(engine.handle("solve"), end="")
        print(main(["solve", "--example"]))
        threading.stack_size(2**30)     # a thread that cannot start: no traceback either
        print(main(["solve", "--example"]))
    """
    proc = run_python(code, MALLOC_ARENA_MAX="1")     # (no 64 MiB arena for the thread)
    table = f"cannot allocate the transposition table ({16 * (2**18 + 2**18):,} bytes)"
    assert proc.stdout.splitlines() == [f"? out of memory: {table}", "", "2", "2"], proc.stderr
    assert proc.stderr == f"guandan solve: error: out of memory: {table}\n" \
        "guandan solve: error: cannot start the solving thread (can't start new thread)\n"


def test_an_error_while_solving_one_of_several_positions_names_its_label(tmp_path, capsys,
                                                                        monkeypatch):
    """An error raised while a position is solved (an allocation that fails) names that
    position by its label among several, as a position that does not read is named; a
    lone position's error is as it came (solve_many numbers it "position 0: ")."""
    import solver.batch
    from guandan_core.position import Position
    from solver import solve
    items = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][:3]
    failing_key = Position.from_parsed_json(items[2]).key()

    def failing(position, **options):
        if position.key() == failing_key:
            raise MemoryError("cannot allocate the move arena (1 byte)")
        return solve(position, **options)
    monkeypatch.setattr(solver.batch, "solve", failing)
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"items": items}))
    for threads in ("1", "2"):
        assert main(["solve", str(path), "--json", "--threads", threads]) == 2
        out, err = capsys.readouterr()
        assert err == (f"guandan solve: error: out of memory: '{path}#2': cannot allocate "
                       f"the move arena (1 byte)\n")
    (tmp_path / "alone.json").write_text(json.dumps(items[2]))
    assert main(["solve", str(tmp_path / "alone.json")]) == 2
    assert capsys.readouterr().err == ("guandan solve: error: out of memory: cannot allocate "
                                       "the move arena (1 byte)\n")


def test_a_solving_thread_that_cannot_start_leaves_ctrl_c_as_it_was(monkeypatch, capsys):
    """guandan solve sets its own SIGINT handler while its thread solves; a thread that
    cannot start is a one-line error (status 2), and Ctrl-C raises KeyboardInterrupt
    again afterwards, as it did before the call."""
    # (Python's own handler, which solve replaces; a suite run in the background, `&`,
    # starts with SIGINT ignored, and solve then sets none: nothing to see)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)

    def refuse(self):
        raise RuntimeError("can't start new thread")
    try:
        monkeypatch.setattr(threading.Thread, "start", refuse)
        assert main(["solve", "--example"]) == 2
        assert capsys.readouterr().err == "guandan solve: error: cannot start the solving " \
            "thread (can't start new thread)\n"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, inherited)


def _solve_lines(args, capsys):
    """``guandan solve ARGS`` run in this process: (its exit status, its stdout's lines,
    its stderr)."""
    code = main(["solve", *args])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_the_team_named_is_the_seat_to_move_s(tmp_path, capsys):
    """RULES sec. 6: seats 0 and 2 are one team, 1 and 3 the other; the value is for the
    team of the seat to move (README). Seat 1 leads its last card, the red joker, which no
    single card beats, and is out 2nd after seat 2; the lead passes to its partner, seat
    3, who plays its last card and is out 3rd; seat 0 is last. Seat 2's team went out
    first with its partner last: +1 for team 0+2, so -1 for team 1+3."""
    pos = {"level": "2", "hands": [["S3"], ["HR"], [], ["S4"]], "finished": [2],
           "to_move": 1, "table": None}
    path = tmp_path / "seat1.json"
    path.write_text(json.dumps(pos))
    code, lines, _ = _solve_lines([str(path)], capsys)
    assert code == 0
    assert lines[:5] == ["position: level 2, seat 1 on lead", "  seat 0: S3", "  seat 1: HR",
                         "  seat 2: (out)", "  seat 3: S4"]
    assert lines[5] == "value: -1 for team 1+3 (seat 1 to move)"


def test_a_file_of_one_position_is_read_as_that_position(tmp_path, capsys):
    """A position (RULES sec. 7) is one object even when it holds a stray "items" key:
    the error is the position's own unknown key, not a set of positions whose keys
    'hands', 'level', ... are refused; and a set whose "items" is no list says so, rather
    than reading the number as a position."""
    path = tmp_path / "stray.json"
    path.write_text(json.dumps(dict(EXAMPLE_POSITION, items=[])))
    code, lines, err = _solve_lines([str(path)], capsys)
    assert (code, lines) == (2, [])
    assert err.count("\n") == 1 and "unknown key(s): 'items'" in err
    assert "next to \"items\"" not in err
    path = tmp_path / "not_a_list.json"
    path.write_text(json.dumps({"items": 5}))
    code, lines, err = _solve_lines([str(path)], capsys)
    assert (code, lines) == (2, [])
    assert err == f"guandan solve: error: {str(path)!r}: \"items\" is not a list of " \
        "positions\n"


def test_time_limit_inf_is_no_limit(capsys):
    """--time-limit takes inf for no limit (its usage error says so): the example is
    solved exactly, to its value +1 (see test_solve_example_json)."""
    code, lines, err = _solve_lines(["--example", "--time-limit", "inf", "--json"], capsys)
    assert (code, err) == (0, "")
    answer = json.loads(lines[0])
    assert answer["exact"] is True and answer["value"] == 1


def test_time_limit_stops_the_search():
    """--time-limit S: the search stops after S seconds and reports bounds (README: "When a
    limit stops the search, exact is false, value is null"). A whole deal (27 cards a
    seat) is far beyond an exact solve in the minute the test waits."""
    from guandan_core.match import deal
    from guandan_core.position import Position
    text = Position(7, deal(random.Random(3)), to_move=0).to_json_str()
    proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "solve", "-",
                           "--time-limit", "0.2", "--json"], input=text, capture_output=True,
                          text=True, cwd=PACKAGES, env=cli_env(), timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "")
    answer = json.loads(proc.stdout)
    assert answer["exact"] is False and answer["value"] is None and answer["best"]
    assert -3 <= answer["lower"] <= answer["upper"] <= 3 and answer["upper"] > answer["lower"]
    # after S seconds: not before, and not far after (a limit taken 25 times over passed)
    assert 0.2 <= answer["seconds"] < 3


def test_example_and_files_are_not_both_solved(tmp_path, capsys):
    """README: POSITION.json... | - | --example, one or the other; given both, an error
    (the files were dropped without a word)."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(_SMALL))
    code, lines, err = _solve_lines(["--example", str(path)], capsys)
    assert (code, lines) == (2, [])
    assert err == "guandan solve: error: give POSITION files (or - for stdin) or --example, " \
        "not both\n"


def test_threshold_left_unanswered_by_a_limit_says_so_once(capsys):
    """--at-least with a limit that stops the search before the answer: "unknown", with
    what stopped it (README: "reached": null when a limit stopped it), and no value line
    (nothing was proven of the value, and the question line has said why); the move
    found is not presented as reaching anything."""
    code, lines, _ = _solve_lines(["--example", "--at-least", "2", "--node-limit", "1"],
                                  capsys)
    assert code == 0
    after = _after_position("\n".join(lines)).splitlines()
    assert after[0] == "at least +2 for team 0+2 (seat 0 to move)? unknown (a limit " \
        "stopped the search)"
    assert after[1].startswith("best move found: ")
    assert after[1].endswith(" (nothing proven about it)")
    assert not any(line.startswith("value: ") for line in after)


def test_nothing_said_of_a_limit_when_none_was_given(capsys):
    """Without --time-limit or --node-limit no line says that a limit stopped anything:
    a threshold that is not reached has no move and no line of play, and that is not
    "not found" (README: only "a line of play it cut short says so")."""
    for args in (["--at-least", "2"], ["--at-least", "+3", "--all-moves"], []):
        code, lines, _ = _solve_lines(["--example", *args], capsys)
        assert code == 0
        assert not any("stopped" in line for line in lines), lines


def test_moves_nothing_is_proven_of_show_a_question_mark(capsys):
    """README: with --all-moves, a move a limit left unknown shows the bounds proven of it,
    "or ? for nothing proven" (not "-3..+3"); then the note on "?" and none on bounds."""
    code, lines, _ = _solve_lines(["--example", "--all-moves", "--node-limit", "1"], capsys)
    assert code == 0
    scores = lines[lines.index("move scores:") + 1:-1]
    note = "  (?: a limit stopped the search before that move was answered)"
    assert scores[-1] == note
    assert scores[:-1] and all(line.split("   (the same with")[0].endswith("  ?")
                               for line in scores[:-1])
    assert not any("..+" in line or "lower..upper" in line for line in lines)


def _shown_scores(lines, header):
    """What each row of the move table under ``header`` shows (its last field, before any
    "(the same with ...)"), in the order printed; the notes after the rows left out."""
    rows = []
    for line in lines[lines.index(header) + 1:]:
        if not line.startswith("  ") or line.startswith("  ("):
            break
        rows.append(line.split("   (the same with")[0].split()[-1])
    return rows


def test_moves_a_limit_left_within_bounds_rank_after_those_proven(tmp_path, capsys):
    """Move scores are best first: by value, a move known only within bounds by its lower
    bound, below the moves proven to have that value (they are proven; it only may do
    better), and moves nothing is proven of ("?") last. In threshold mode the moves that
    reach V come first, then those not answered (they may yet), then those that do not."""
    from solver import solve
    obj = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][2]
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(obj))
    full = solve(obj, all_moves=True, fresh_tables=True).nodes
    limit = str(int(full * 0.85))
    cut = solve(obj, all_moves=True, fresh_tables=True, node_limit=int(limit))
    # (the limit leaves a move within bounds whose lower bound another move's value is)
    assert {m.lower for m in cut.moves if m.value is None} & \
        {m.value for m in cut.moves if m.value is not None}
    code, lines, _ = _solve_lines([str(path), "--fresh-tables", "--all-moves",
                                   "--node-limit", limit], capsys)
    assert code == 0
    shown = _shown_scores(lines, "move scores:")
    assert len(shown) == len(cut.moves)

    def rank(text):
        if text == "?":
            return -4
        if ".." in text:
            return int(text.split("..")[0]) - 0.5
        return int(text)
    assert [rank(s) for s in shown] == sorted((rank(s) for s in shown), reverse=True)
    assert any(".." in s for s in shown)
    # threshold mode: yes, then ?, then no
    full = solve(obj, all_moves=True, fresh_tables=True, at_least=2).nodes
    limit = str(int(full * 0.3))
    cut = solve(obj, all_moves=True, fresh_tables=True, at_least=2, node_limit=int(limit))
    answers = [m.reaches for m in cut.moves]
    assert None in answers and False in answers and True in answers
    code, lines, _ = _solve_lines([str(path), "--fresh-tables", "--all-moves", "--at-least",
                                   "2", "--node-limit", limit], capsys)
    assert code == 0
    shown = _shown_scores(lines, "moves reaching +2:")
    assert sorted(shown) == sorted({True: "yes", None: "?", False: "no"}[a] for a in answers)
    assert shown == sorted(shown, key=["yes", "?", "no"].index)


def test_node_limit_zero_is_taken(capsys):
    """--node-limit takes a whole number from 0 (its usage error says "from 0 to 2**63 -
    1"): 0 nodes prove nothing, so the answer is bounds, -3 to +3 (README: "When a limit
    stops the search, exact is false, value is null")."""
    code, lines, err = _solve_lines(["--example", "--node-limit", "0", "--json"], capsys)
    assert (code, err) == (0, "")
    answer = json.loads(lines[0])
    assert answer["exact"] is False and answer["value"] is None
    assert (answer["lower"], answer["upper"]) == (-3, 3)
